/**
 * The PostgreSQL baseline: the raw server plus the `pg` package, one parameterised
 * INSERT … ON CONFLICT per request (a named prepared statement, autocommit) into a
 * table like the app's `external_accounts`, in the database DATABASE_URL names (the
 * bench gives it its own database on the same cluster as the app's).
 */
import pg from "pg"
import { EXTERNAL_ACCOUNTS_DDL, INSERT_ACCOUNT_SQL, rowParams, serveRaw } from "./raw-common.js"

const url = process.env["DATABASE_URL"]
if (url === undefined || url === "") throw new Error("raw-postgres: DATABASE_URL is required")

// The same pool size as the app's (src/adapters/sql/index.ts: 16); idle connections stay open between rounds.
const pool = new pg.Pool({ connectionString: url, max: 16, idleTimeoutMillis: 0, application_name: "bench-raw" })
for (const ddl of EXTERNAL_ACCOUNTS_DDL) await pool.query(ddl)

serveRaw(
  async (row) => {
    const result = await pool.query({ name: "insert-external-account", text: INSERT_ACCOUNT_SQL, values: rowParams(row) })
    return result.rowCount === 1 ? "created" : "duplicate"
  },
  () => pool.end()
)
