/**
 * One migrated PGlite dump per run (src/adapters/sql `pgliteTemplate`): every PGlite
 * store a test makes starts from it instead of an empty database, so the migrations run
 * once per run rather than once per store (a migrated start took about a third of the
 * time of a fresh one). The dump is the file the run's global setup wrote for the child
 * servers (test/support/server-global-setup.ts, `inject("pgliteTemplateFile")`), read
 * once per worker; a worker without it (a file run outside vitest's projects) makes its
 * own. The migrations themselves are tested on empty databases
 * (test/adapters/migrations.test.ts and the data-directory suites).
 */
import { readFile } from "node:fs/promises"
import { Effect, Layer } from "effect"
import { inject } from "vitest"
import { pgliteTemplate } from "../../src/adapters/sql/index.js"

let template: Promise<Blob> | undefined

const fromRun = async (): Promise<Blob> => {
  const file = inject("pgliteTemplateFile")
  return file === undefined || file === "" ? Effect.runPromise(pgliteTemplate) : new Blob([await readFile(file)])
}

/** The dump, read (or made) on first use. */
export const migratedPgliteDump = (): Promise<Blob> => (template ??= fromRun())

/** A layer built with the dump, once it is read. */
export const withPgliteTemplate = <A, E, R>(make: (template: Blob) => Layer.Layer<A, E, R>): Layer.Layer<A, E, R> =>
  Layer.unwrap(Effect.map(Effect.promise(migratedPgliteDump), make))
