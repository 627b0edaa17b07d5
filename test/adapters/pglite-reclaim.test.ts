/**
 * PGlite runs no autovacuum, so the store's `reclaim` (src/adapters/sql/reclaim.ts) is
 * what makes the space of removed rows reusable: without it a table whose rows come and
 * go grows on disk for ever. These hold the tables to a bounded size over rounds of the
 * same churn: events emitted and swept (a table `reclaim` vacuums at every call), and a
 * platform's journal entries written and removed by a reset (a table it vacuums only after
 * a reset, or hourly). Each fails without `reclaim` (the size grows by about one round's
 * rows a round), the second also when a reset does not make the next `reclaim` a whole one.
 * The retention pass of the scheduler calls `reclaim` after it sweeps. And a table vacuumed
 * while it held a few rows keeps its keyed statements on their index (PGlite's session runs
 * with sequential scans priced out, as the PostgreSQL store's do). Each call ends with a
 * checkpoint, which keeps the write-ahead log bounded: single-user PostgreSQL has no
 * checkpointer, and without one the log keeps every write.
 */
import { Effect, Layer, ManagedRuntime } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, describe, expect, it } from "vitest"
import { pgliteClientLayer, pgliteStoreOnClient } from "../../src/adapters/sql/index.js"
import { makeMemoryStore } from "../../src/adapters/memory/store.js"
import type { DomainEvent } from "../../src/ports/events.js"
import { Store } from "../../src/ports/store.js"

const runtime = ManagedRuntime.make(Layer.orDie(Layer.provideMerge(pgliteStoreOnClient(undefined), pgliteClientLayer(undefined, {}))))
afterAll(() => runtime.dispose())

const run = <A, E>(effect: Effect.Effect<A, E, Store | SqlClient.SqlClient>) => runtime.runPromise(effect)

const ROUNDS = 6
const PER_ROUND = 1_000
const T0 = Date.parse("2026-01-01T00:00:00.000Z")

/** The table's size on disk with its indexes, in bytes. */
const sizeOf = (table: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql.unsafe<{ readonly size: string }>(`select pg_total_relation_size($1::regclass)::text as size`, [table])
    return Number(rows[0]!.size)
  })

/**
 * The table's size after each of `ROUNDS` rounds of `churn` (rows written, then removed)
 * followed by the store's `reclaim`.
 */
const sizesOver = <E>(table: string, churn: (round: number) => Effect.Effect<void, E, Store | SqlClient.SqlClient>) =>
  Effect.gen(function*() {
    const store = yield* Store
    expect(store.reclaim).toBeDefined()
    const sizes: Array<number> = []
    for (let round = 0; round < ROUNDS; round++) {
      yield* churn(round)
      yield* store.reclaim!()
      sizes.push(yield* sizeOf(table))
    }
    return sizes
  })

describe("PGlite: the space of removed rows is reused (Store.reclaim)", () => {
  it("keeps the events table bounded over rounds of events emitted and swept", { timeout: 120_000 }, async () => {
    const p = "reclaim-events"
    const sizes = await run(sizesOver("events", (round) =>
      Effect.gen(function*() {
        const store = yield* Store
        const events: Array<DomainEvent> = Array.from({ length: PER_ROUND }, (_, i) => ({
          id: `Webhook:event-${round}-${i}`,
          platformId: p,
          type: "TEST",
          timestamp: new Date(T0).toISOString(),
          padding: "x".repeat(400)
        }))
        yield* store.transact((uow) => Effect.forEach(events, (e) => uow.emit(e), { discard: true }))
        const last = yield* store.webhooks.lastEventSeq(p)
        const removed = yield* store.transact((uow) => uow.sweepEvents(p, { upToSeq: last, before: T0 + 1, limit: 2 * PER_ROUND }))
        expect(removed).toBe(PER_ROUND)
      })))
    // Each round's rows fit in the space the previous round's left: no growth after the second round.
    expect(sizes.at(-1)!).toBeLessThanOrEqual(sizes[1]!)
  })

  it("keeps a table outside the churn list bounded over rounds of rows written and removed by a platform's reset", { timeout: 120_000 }, async () => {
    const p = "reclaim-reset"
    const sizes = await run(sizesOver("journal_entries", (round) =>
      Effect.gen(function*() {
        const store = yield* Store
        const sql = yield* SqlClient.SqlClient
        // Rows of the platform written set-wise (what they hold does not matter to the space they take).
        yield* sql.unsafe(
          `insert into journal_entries (platform_id, id, kind, transaction_id, at_ms, doc)
           select $1, 'Entry:' || $2::text || '-' || g, 'FUND', null, 0, json_build_object('padding', repeat('x', 400))
           from generate_series(1, $3::int) g`,
          [p, String(round), PER_ROUND]
        )
        yield* store.transact((uow) => uow.resetPlatform(p))
      })))
    expect(sizes.at(-1)!).toBeLessThanOrEqual(sizes[1]!)
  })

  it("keeps a keyed statement on its index after a VACUUM of its table while it was small", { timeout: 60_000 }, async () => {
    const plan = await run(Effect.gen(function*() {
      const store = yield* Store
      const sql = yield* SqlClient.SqlClient
      // A whole VACUUM (the first, or the first after a reset) records every table at its size now: a few rows at most.
      yield* store.transact((uow) => uow.resetPlatform("reclaim-plan"))
      yield* store.reclaim!()
      const rows = yield* sql.unsafe<{ readonly "QUERY PLAN": string }>(
        `explain update ledger_balances set balance = balance + 1 where platform_id = 'reclaim-plan' and account = 'InternalAccount:a'`
      ).unprepared
      return rows.map((r) => r["QUERY PLAN"]).join("\n")
    }))
    expect(plan).toContain("Index Scan using ledger_balances_pkey")
    expect(plan).not.toContain("Seq Scan")
  })

  it("ends with a checkpoint: the write-ahead log written before it is not needed again", { timeout: 60_000 }, async () => {
    const covered = await run(Effect.gen(function*() {
      const store = yield* Store
      const sql = yield* SqlClient.SqlClient
      yield* sql.unsafe(`insert into platform_clocks (platform_id, offset_ms) values ('reclaim-checkpoint', 0) on conflict do nothing`).unprepared
      const [written] = yield* sql.unsafe<{ readonly lsn: string }>(`select pg_current_wal_lsn()::text as lsn`).unprepared
      yield* store.reclaim!()
      // Crash recovery would start from the checkpoint's redo point: at or past every write before the call.
      const [checkpoint] = yield* sql.unsafe<{ readonly covered: boolean }>(
        `select redo_lsn >= $1::pg_lsn as covered from pg_control_checkpoint()`,
        [written!.lsn]
      )
      return checkpoint!.covered
    }))
    expect(covered).toBe(true)
  })

  it("keeps the write-ahead log bounded over rounds of writes (single-user PostgreSQL never checkpoints by itself)", { timeout: 180_000 }, async () => {
    const walBytes = Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const [row] = yield* sql.unsafe<{ readonly size: string }>(`select coalesce(sum(size), 0)::text as size from pg_ls_waldir()`).unprepared
      return Number(row!.size)
    })
    const sizes = await run(Effect.gen(function*() {
      const store = yield* Store
      const sql = yield* SqlClient.SqlClient
      const sizes: Array<number> = []
      for (let round = 0; round < 4; round++) {
        // About 20 MB of log a round (more than a 16 MB segment), rows written then removed.
        yield* sql.unsafe(
          `insert into journal_entries (platform_id, id, kind, transaction_id, at_ms, doc)
           select 'reclaim-wal', 'Entry:' || $1::text || '-' || g, 'FUND', null, 0, json_build_object('padding', repeat(md5(g::text), 30))
           from generate_series(1, 18000) g`,
          [String(round)]
        )
        yield* sql.unsafe(`delete from journal_entries where platform_id = 'reclaim-wal'`)
        yield* store.reclaim!()
        sizes.push(yield* walBytes)
      }
      return sizes
    }))
    // Without the checkpoint the log keeps every round's writes: about 20 MB more each round.
    expect(sizes.at(-1)!).toBeLessThanOrEqual(sizes[1]!)
  })

  it("is absent on the memory store, which holds no removed rows' space", () => {
    expect(Effect.runSync(makeMemoryStore).reclaim).toBeUndefined()
  })
})
