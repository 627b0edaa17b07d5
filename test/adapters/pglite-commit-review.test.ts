/**
 * PGlite: a transaction's last statement in the same call as its COMMIT
 * (src/adapters/sql/pglite.ts `preparedThenCommit`); the COMMIT or ROLLBACK the client
 * sends after that call goes nowhere. That must pair with that transaction only: a
 * unit of work interrupted while the call is under way (its promise runs on, and the
 * client's ROLLBACK is sent before it ended) must not leave the COMMIT or ROLLBACK of a
 * later transaction to go nowhere, which would leave that one open (a failed unit of
 * work's writes then committed by the next).
 */
import { Context, Effect, Layer, ManagedRuntime } from "effect"
import { SqlClient } from "effect/sql"
import { describe, expect, it } from "vitest"
import { pgliteClientLayer } from "../../src/adapters/sql/index.js"
import { thenCommitOf } from "../../src/adapters/sql/pglite.js"

describe("PGlite: the last statement in the call of COMMIT, interrupted", () => {
  it("a unit of work interrupted during the call leaves the next transactions' COMMIT and ROLLBACK paired with them", async () => {
    const runtime = ManagedRuntime.make(pgliteClientLayer(undefined).pipe(Layer.orDie))
    try {
      const outcome = await runtime.runPromise(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql`create table review_rows (id text primary key)`
        const first = yield* Effect.exit(sql.withTransaction(Effect.gen(function*() {
          yield* sql`insert into review_rows (id) values ('first-1')`
          const tx = Context.getOrUndefined(yield* Effect.context<never>(), sql.transactionService)
          const withCommit = tx === undefined ? undefined : thenCommitOf(tx[0])
          if (withCommit === undefined) return yield* Effect.die(new Error("no PGlite connection"))
          // Interrupted once the call is under way (its promise runs on).
          yield* Effect.raceFirst(withCommit("insert into review_rows (id) values ($1)", ["first-2"]), Effect.interrupt)
        })))
        // A unit of work that fails after a write: rolled back.
        yield* Effect.exit(sql.withTransaction(Effect.andThen(sql`insert into review_rows (id) values ('failed')`, Effect.fail("refused"))))
        // A unit of work that commits.
        yield* sql.withTransaction(sql`insert into review_rows (id) values ('committed')`)
        // Whatever is still open now is rolled back (a transaction left open would take its writes with it).
        yield* Effect.exit(sql.unsafe("rollback"))
        const rows = yield* sql<{ readonly id: string }>`select id from review_rows order by id`
        return { interrupted: first._tag === "Failure", rows: rows.map((r) => r.id) }
      }))
      // The interrupted one's call committed it (the COMMIT went with its last statement).
      expect(outcome).toEqual({ interrupted: true, rows: ["committed", "first-1", "first-2"] })
    } finally {
      await runtime.dispose()
    }
  }, 60_000)

  it("a statement interrupted while it is being prepared runs in its transaction, before the ROLLBACK sent for it (not after it, on its own)", async () => {
    const runtime = ManagedRuntime.make(pgliteClientLayer(undefined).pipe(Layer.orDie))
    try {
      const outcome = await runtime.runPromise(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql`create table review_rows (id text primary key)`
        // BEGIN and ROLLBACK prepared already (as on any session that has served a while).
        yield* Effect.exit(sql.withTransaction(Effect.andThen(sql`select 1`, Effect.fail("warming up"))))
        const interrupted = yield* Effect.exit(sql.withTransaction(Effect.gen(function*() {
          yield* sql`insert into review_rows (id) values ('in-1')`
          // A statement not prepared yet (its Parse is a call of its own), interrupted once under way.
          yield* Effect.raceFirst(sql.unsafe("insert into review_rows (id) values ($1)", ["in-2"]), Effect.interrupt)
        })))
        const rows = yield* sql<{ readonly id: string }>`select id from review_rows order by id`
        return { interrupted: interrupted._tag === "Failure", rows: rows.map((r) => r.id) }
      }))
      expect(outcome).toEqual({ interrupted: true, rows: [] })
    } finally {
      await runtime.dispose()
    }
  }, 60_000)
})
