/**
 * The embedded baseline: the raw server plus `@electric-sql/pglite` on disk in
 * PAYMENTS_DATA_DIR (opened as the app opens it), one parameterised INSERT … ON
 * CONFLICT per request into a table like the app's `external_accounts`, sent as the store
 * sends its statements (its own client, `pgliteStatements`: a named prepared statement,
 * one call into PGlite where `db.query` makes six), as the money baseline does
 * (./raw-money.ts), so the ratio measures the app rather than a client.
 */
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { PGlite } from "@electric-sql/pglite"
import { pgliteStatements } from "../../src/adapters/sql/pglite.js"
import { EXTERNAL_ACCOUNTS_DDL, INSERT_ACCOUNT_SQL, rowParams, serveRaw } from "./raw-common.js"

const dir = process.env["PAYMENTS_DATA_DIR"]
if (dir === undefined || dir === "") throw new Error("raw-pglite: PAYMENTS_DATA_DIR is required")

mkdirSync(dir, { recursive: true })
// The app keeps its database in <dir>/pgdata (src/adapters/sql/pglite.ts).
const db = await PGlite.create({ dataDir: join(dir, "pgdata") })
for (const ddl of EXTERNAL_ACCOUNTS_DDL) await db.query(ddl)
const statement = pgliteStatements(db)

serveRaw(
  async (row) => {
    const rows = await statement(INSERT_ACCOUNT_SQL, rowParams(row))
    return rows.length === 1 ? "created" : "duplicate"
  },
  () => db.close()
)
