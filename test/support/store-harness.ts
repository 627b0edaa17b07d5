/**
 * What the Store contract suites share: the stores under test, a fresh platform per
 * test, and the assertions on failures and pages.
 */
import { Cause, Effect, Exit, type Layer, ManagedRuntime, Option } from "effect"
import { afterAll, beforeAll, expect, it } from "vitest"
import { MemoryStoreLayer } from "../../src/adapters/memory/store.js"
import { pgliteStoreLayer, postgresStoreLayer } from "../../src/adapters/sql/index.js"
import { type InvalidCursor, type Page, type PageResult, Store, StoreConflict, type UniqueConstraint } from "../../src/ports/store.js"
import { migratedDatabase } from "./databases.js"
import { withPgliteTemplate } from "./pglite-template.js"

export type StoreService = Store["Service"]
export type Kind = "memory" | "pglite" | "postgres"

export const KINDS: ReadonlyArray<Kind> = ["memory", "pglite", "postgres"]

export const layerFor = (kind: Kind, url: string | undefined): Layer.Layer<Store, unknown> => {
  if (kind === "memory") return MemoryStoreLayer
  if (kind === "pglite") return withPgliteTemplate((template) => pgliteStoreLayer(undefined, { template }))
  if (url === undefined) throw new Error("postgres needs a database URL")
  return postgresStoreLayer({ url, maxConnections: 24 })
}

/**
 * One store of `kind` for the tests of a `describe` block (a fresh database on
 * PostgreSQL), built before them and disposed after; `storeIt` runs a test body with the
 * store and a fresh platform id.
 */
export const storeSuite = (kind: Kind) => {
  let runtime: ManagedRuntime.ManagedRuntime<Store, unknown> | undefined
  let databaseUrl: string | undefined
  beforeAll(async () => {
    if (kind === "postgres") databaseUrl = await migratedDatabase()
    runtime = ManagedRuntime.make(layerFor(kind, databaseUrl))
    const info = await runtime.runPromise(Effect.map(Effect.service(Store), (s) => s.info))
    expect(info.kind).toBe(kind)
  }, 60_000)
  afterAll(async () => {
    await runtime?.dispose()
  })
  const runtimeOf = (): ManagedRuntime.ManagedRuntime<Store, unknown> => {
    if (runtime === undefined) throw new Error("the store is not built yet (use it inside a test)")
    return runtime
  }
  const storeIt = (name: string, body: (store: StoreService, p: string) => Effect.Effect<void, unknown>, timeout?: number) =>
    it(name, () =>
      runtimeOf().runPromise(Effect.gen(function*() {
        const store = yield* Store
        yield* body(store, freshPlatform(kind))
      })), timeout)
  return { storeIt, runtime: runtimeOf, databaseUrl: (): string | undefined => databaseUrl }
}

let platformSeq = 0
/** A fresh platform id: every test writes under its own platform. */
export const freshPlatform = (kind: Kind) => `plat-${kind}-${Date.now().toString(36)}-${++platformSeq}`

/** The error a failed exit failed with (asserting it failed with one). */
export const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) expect.fail(`expected a failure, got success ${JSON.stringify(exit.value)}`)
  const error = Cause.findErrorOption(exit.cause)
  if (Option.isNone(error)) expect.fail(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return error.value
}

export const expectConflict = (exit: Exit.Exit<unknown, unknown>, constraint: UniqueConstraint | ReadonlyArray<UniqueConstraint>) => {
  const error = failureOf(exit)
  expect(error).toBeInstanceOf(StoreConflict)
  const allowed = typeof constraint === "string" ? [constraint] : constraint
  expect(allowed).toContain((error as StoreConflict).constraint)
}

/**
 * Walks every page of a list with `limit`, checking each page's shape: at most `limit`
 * rows, `hasMore` exactly when a cursor is given, and the total. Returns the rows.
 */
export const walk = <R>(
  list: (page: Page) => Effect.Effect<PageResult<R>, InvalidCursor>,
  limit: number,
  expectedTotal?: number
): Effect.Effect<ReadonlyArray<R>, InvalidCursor> =>
  Effect.gen(function*() {
    const out: Array<R> = []
    let cursor: string | undefined
    for (let pages = 0; pages < 1000; pages++) {
      const page: PageResult<R> = yield* list(cursor === undefined ? { limit } : { limit, cursor })
      expect(page.data.length).toBeLessThanOrEqual(limit)
      if (expectedTotal !== undefined) expect(page.totalCount).toBe(expectedTotal)
      out.push(...page.data)
      expect(page.hasMore).toBe(page.nextCursor !== undefined)
      if (!page.hasMore) return out
      expect(page.data.length).toBe(limit)
      cursor = page.nextCursor
    }
    return expect.fail("paging did not end")
  })
