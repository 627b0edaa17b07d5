/**
 * The embedded baseline: the raw server plus `@electric-sql/pglite` on disk in
 * PAYMENTS_DATA_DIR (opened as the app opens it), one parameterised INSERT … ON
 * CONFLICT per request into a table like the app's `external_accounts`.
 */
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { PGlite } from "@electric-sql/pglite"
import { EXTERNAL_ACCOUNTS_DDL, INSERT_ACCOUNT_SQL, rowParams, serveRaw } from "./raw-common.js"

const dir = process.env["PAYMENTS_DATA_DIR"]
if (dir === undefined || dir === "") throw new Error("raw-pglite: PAYMENTS_DATA_DIR is required")

mkdirSync(dir, { recursive: true })
// The app keeps its database in <dir>/pgdata (src/adapters/sql/pglite.ts).
const db = await PGlite.create({ dataDir: join(dir, "pgdata") })
for (const ddl of EXTERNAL_ACCOUNTS_DDL) await db.query(ddl)

serveRaw(
  async (row) => {
    const result = await db.query(INSERT_ACCOUNT_SQL, rowParams(row))
    return result.rows.length === 1 ? "created" : "duplicate"
  },
  () => db.close()
)
