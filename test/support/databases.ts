/**
 * Databases of the run's throwaway PostgreSQL cluster, for test files (they read the
 * cluster from vitest's `inject`, which the global setup provides).
 */
import { inject } from "vitest"
import { createDatabase } from "./postgres.js"

/**
 * A fresh database with every migration applied: a copy of the template the global
 * setup migrated once for the run. Tests of migrating (a fresh, empty database, several
 * processes racing to migrate it) use `emptyDatabase`.
 */
export const migratedDatabase = (): Promise<string> =>
  createDatabase(inject("databaseAdminUrl"), undefined, { template: inject("databaseTemplate") })

/** A fresh, empty database: the app migrates it when it starts. */
export const emptyDatabase = (): Promise<string> => createDatabase(inject("databaseAdminUrl"))
