/**
 * Databases of the run's throwaway PostgreSQL cluster, for test files (they read the
 * cluster from vitest's `inject`, which the global setup provides).
 */
import { inject } from "vitest"
import { createDatabase } from "./postgres.js"
import pg from "pg"

/**
 * A fresh database with every migration applied: a copy of the template the global
 * setup migrated once for the run. Tests of migrating (a fresh, empty database, several
 * processes racing to migrate it) use `emptyDatabase`.
 */
export const migratedDatabase = (): Promise<string> =>
  createDatabase(inject("databaseAdminUrl"), undefined, { template: inject("databaseTemplate") })

/** A fresh, empty database: the app migrates it when it starts. */
export const emptyDatabase = (): Promise<string> => createDatabase(inject("databaseAdminUrl"))

/** A query on `url`'s database on a client of its own (opened and closed for it). */
export const adminQuery = async <Row extends object>(url: string, text: string, params: ReadonlyArray<unknown> = []): Promise<ReadonlyArray<Row>> => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query<Row & pg.QueryResultRow>(text, [...params])).rows
  } finally {
    await client.end()
  }
}
