/**
 * The SQL store on PostgreSQL keeps some of its pool's connections pinned between units of
 * work (src/adapters/sql/direct.ts, `KeptConnections`). What that must not change: a unit
 * of work still commits when the kept connection it takes died while idle (the pool would
 * not have handed a dead one out), more units of work at once than connections are kept
 * all commit, and the store still closes (the pool waits for every pinned connection); a
 * unit of work interrupted while it waits for the pool, or during its work, leaves no
 * connection counted as kept.
 */
import { PgClient } from "@effect/sql-pg"
import { Deferred, Effect, Exit, Fiber, ManagedRuntime, Redacted, Scope } from "effect"
import { SqlClient } from "effect/sql"
import pg from "pg"
import { describe, expect, it } from "vitest"
import { makeDirectTransactions } from "../../src/adapters/sql/direct.js"
import { postgresStoreLayer } from "../../src/adapters/sql/index.js"
import { Store } from "../../src/ports/store.js"
import { migratedDatabase } from "../support/databases.js"

const setOffset = (platformId: string, offset: number) =>
  Effect.flatMap(Effect.service(Store), (store) => store.transact((uow) => uow.setClockOffset(platformId, offset)))

const offsetOf = (platformId: string) => Effect.flatMap(Effect.service(Store), (store) => store.clocks.offset(platformId))

/** Ends every other session on `url`'s database (as a server restart or an idle timeout would); how many it ended. */
const terminateOthers = async (url: string): Promise<number> => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const result = await client.query<{ n: string }>(
      "select count(pg_terminate_backend(pid))::text as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()"
    )
    return Number(result.rows[0]?.n ?? 0)
  } finally {
    await client.end()
  }
}

describe("PostgreSQL: connections kept between units of work", () => {
  it("a unit of work whose kept connection died while idle commits on another one", async () => {
    const url = await migratedDatabase()
    const runtime = ManagedRuntime.make(postgresStoreLayer({ url, maxConnections: 4 }))
    try {
      const p = "plat-kept-dead"
      // Two units of work at once: both connections that may be kept are pinned and kept.
      await runtime.runPromise(Effect.all([setOffset(p, 1), setOffset(`${p}-2`, 2)], { concurrency: 2 }))
      expect(await terminateOthers(url)).toBeGreaterThan(0)
      for (let i = 3; i < 8; i++) await runtime.runPromise(setOffset(p, i))
      expect(await runtime.runPromise(offsetOf(p))).toBe(7)
    } finally {
      await runtime.dispose()
    }
  }, 60_000)

  it("more units of work at once than connections are kept all commit, and the store closes after", async () => {
    const url = await migratedDatabase()
    const runtime = ManagedRuntime.make(postgresStoreLayer({ url, maxConnections: 4 }))
    const platforms = Array.from({ length: 24 }, (_, i) => `plat-kept-many-${i}`)
    try {
      for (let round = 1; round <= 3; round++) {
        await runtime.runPromise(Effect.forEach(platforms, (p) => setOffset(p, round), { concurrency: "unbounded", discard: true }))
      }
      const offsets = await runtime.runPromise(Effect.forEach(platforms, offsetOf))
      expect(offsets).toEqual(platforms.map(() => 3))
    } finally {
      await runtime.dispose()
    }
  }, 60_000)
})

describe("PostgreSQL: kept connections and interruption (makeDirectTransactions)", () => {
  it("a unit of work interrupted while it waits for a connection to keep, or during its work, leaves none counted as kept", async () => {
    const url = await migratedDatabase()
    // How many connections were counted as kept at each step (asserted once the pool is closed).
    const counted: Record<string, number> = {}
    const program = Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const direct = makeDirectTransactions(sql, "BEGIN", { connections: 1, idleMillis: 60_000 })
      // The pool's only connection, held elsewhere: the unit of work waits for it.
      const held = yield* Scope.make()
      yield* Scope.provide(sql.reserve, held)
      const waiting = yield* Effect.forkChild(direct.withTransaction(sql`select 1`))
      yield* Effect.ensuring(
        Effect.gen(function*() {
          while (direct.keptCount() === 0) yield* Effect.yieldNow
          yield* Fiber.interrupt(waiting)
          counted.afterInterruptedWait = direct.keptCount()
        }),
        Scope.close(held, Exit.void)
      )
      // The connection is free again: the next unit of work keeps it.
      yield* direct.withTransaction(sql`select 1`)
      counted.afterCommit = direct.keptCount()
      // Interrupted during its work: rolled back, and its connection goes back to the pool.
      const started = yield* Deferred.make<void>()
      const working = yield* Effect.forkChild(direct.withTransaction(sql`select 1`.pipe(Effect.andThen(Deferred.succeed(started, undefined)), Effect.andThen(Effect.never))))
      yield* Deferred.await(started)
      yield* Fiber.interrupt(working)
      counted.afterInterruptedWork = direct.keptCount()
      counted.rows = (yield* direct.withTransaction(sql`select 1`)).length
      yield* direct.close
      counted.afterClose = direct.keptCount()
    })
    await Effect.runPromise(program.pipe(Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })), Effect.scoped, Effect.timeout("30 seconds")))
    expect(counted).toEqual({ afterInterruptedWait: 0, afterCommit: 1, afterInterruptedWork: 0, rows: 1, afterClose: 0 })
  }, 60_000)
})
