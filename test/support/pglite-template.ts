/**
 * One migrated PGlite dump per test worker (src/adapters/sql `pgliteTemplate`): every
 * PGlite store a test makes starts from it instead of an empty database, so the
 * migrations run once per worker rather than once per store (a migrated start took about
 * a third of the time of a fresh one). The migrations themselves are tested on empty
 * databases (test/adapters/migrations.test.ts and the data-directory suites).
 */
import { Effect, Layer } from "effect"
import { pgliteTemplate } from "../../src/adapters/sql/index.js"

let template: Promise<Blob> | undefined

/** The dump, made on first use. */
export const migratedPgliteDump = (): Promise<Blob> => (template ??= Effect.runPromise(pgliteTemplate))

/** A layer built with the dump, once it is made. */
export const withPgliteTemplate = <A, E, R>(make: (template: Blob) => Layer.Layer<A, E, R>): Layer.Layer<A, E, R> =>
  Layer.unwrap(Effect.map(Effect.promise(migratedPgliteDump), make))
