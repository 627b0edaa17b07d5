/**
 * The memory store's `webhooks.claimDue` reads the heads due now (each resource's first
 * pending delivery) from the soonest due, and stops at the first it may not claim for
 * being due later: with a backlog of thousands, a claim reads a few rows, not the backlog.
 * It copied every pending delivery on every claim until 2026-11-28 (morning), then walked
 * them from the oldest, which still passed every delivery waiting behind an earlier one
 * of its resource and every one whose retry was later: a receiver down, or the long
 * chains of the accounts' balance webhooks behind the money load (docs/performance.md, "A
 * claim that reads the due heads only"). Counted by the tables' `rowsExamined`.
 *
 * The SQL stores' claim (`CLAIM_DUE_SQL`) likewise: on PGlite, its generic plan run with
 * `EXPLAIN (ANALYZE)` over the same backlogs reads a few rows.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, ManagedRuntime } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll } from "vitest"
import { memoryLayer } from "../../src/adapters/memory/index.js"
import { rowsExamined } from "../../src/adapters/memory/table.js"
import { pgliteClientLayer, pgliteStoreOnClient } from "../../src/adapters/sql/index.js"
import { combine } from "../../src/adapters/sql/pending.js"
import { CLAIM_DUE_SQL, deliveriesStatement } from "../../src/adapters/sql/webhooks.js"
import { platformFromConfig } from "../../src/domain/platform.js"
import { Store } from "../../src/ports/store.js"
import type { WebhookDeliveryRecord } from "../../src/ports/webhooks.js"
import { pendingDelivery } from "../support/deliveries.js"
import { explainGeneric, planOutline, rowsRead } from "../support/plans.js"

const platform = platformFromConfig({ id: "claim-bounded", clientId: "claim-bounded-client", clientSecret: "claim-bounded-secret" })
const T0 = Date.UTC(2026, 0, 1)
const BACKLOG = 3_000

const delivery = (i: number, resourceId: string): WebhookDeliveryRecord =>
  pendingDelivery({ platformId: platform.id, id: `Webhook:${String(i).padStart(6, "0")}`, seq: i + 1, resourceId, at: T0 + i, type: "CUSTOMER.UPDATED" })

/** The rows the claim examines, and what it claimed. */
const claimCounted = (now: number, limit: number) =>
  Effect.gen(function*() {
    const store = yield* Store
    const before = rowsExamined.count
    const claimed = yield* store.transact(() => store.webhooks.claimDue(platform.id, now, now, limit))
    return { claimed: claimed.map((d) => d.id), examined: rowsExamined.count - before }
  })

const ids = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `Webhook:${String(from + i).padStart(6, "0")}`)

describe("memory webhooks.claimDue with a backlog", () => {
  it.effect("reads the oldest pending deliveries only, whatever the backlog holds", () =>
    Effect.gen(function*() {
      const store = yield* Store
      // The first ten of one resource (each waits for the one before), the rest one resource each.
      yield* store.transact((uow) =>
        uow.addWebhookDeliveries(Array.from({ length: BACKLOG }, (_, i) => delivery(i, i < 10 ? "Customer:first" : `Customer:${i}`)))
      )
      const now = T0 + BACKLOG
      // The oldest is due: one row read.
      const first = yield* claimCounted(now, 1)
      assert.deepStrictEqual(first.claimed, ["Webhook:000000"])
      assert.isAtMost(first.examined, 2)
      // Its resource's later deliveries wait for it: they are passed, the next resource's claimed.
      yield* store.transact((uow) => uow.putWebhookDeliveries([{ ...delivery(0, "Customer:first"), lease: { token: "t", until: now + 15_000 } }]))
      const second = yield* claimCounted(now, 1)
      assert.deepStrictEqual(second.claimed, ["Webhook:000010"])
      assert.isAtMost(second.examined, 12)
      // A batch: the next resources' oldest, one each, and the walk stops at the batch's last.
      const batch = yield* claimCounted(now, 8)
      assert.deepStrictEqual(batch.claimed, ids(10, 18))
      assert.isAtMost(batch.examined, 20)
    }).pipe(Effect.provide(memoryLayer([platform], { seed: 7 }))))

  it.effect("behind long chains, reads the chains' heads only", () =>
    Effect.gen(function*() {
      const store = yield* Store
      yield* store.transact((uow) => uow.addWebhookDeliveries(chains))
      const now = T0 + BACKLOG
      // Every chain's head under way but the last one's: that one is claimed, its chain's second is not.
      const leased = yield* store.transact(() => store.webhooks.claimDue(platform.id, now, now, CHAINS - 1))
      yield* store.transact((uow) => uow.putWebhookDeliveries(leased.map((d) => ({ ...d, lease: { token: "t", until: now + 15_000 } }))))
      const next = yield* claimCounted(now, 8)
      assert.deepStrictEqual(next.claimed, [chains[CHAINS - 1]!.id])
      assert.isAtMost(next.examined, CHAINS + 2)
    }).pipe(Effect.provide(memoryLayer([platform], { seed: 7 }))))

  it.effect("with a receiver down (every first attempt failed, retried later), reads one row", () =>
    Effect.gen(function*() {
      const store = yield* Store
      yield* store.transact((uow) => uow.addWebhookDeliveries(retried))
      const nothing = yield* claimCounted(T0 + BACKLOG, 8)
      assert.deepStrictEqual(nothing.claimed, [])
      assert.isAtMost(nothing.examined, 1)
    }).pipe(Effect.provide(memoryLayer([platform], { seed: 7 }))))
})

/** `CHAINS` resources with `BACKLOG / CHAINS` deliveries each, interleaved as the money load makes them (an account's balance webhooks). */
const CHAINS = 20
const chains = Array.from({ length: BACKLOG }, (_, i) => delivery(i, `InternalAccount:${i % CHAINS}`))
/** One resource each, every one's retry an hour away. */
const retried = Array.from({ length: BACKLOG }, (_, i) => ({ ...delivery(i, `Customer:${i}`), round: 1, nextAttemptAt: T0 + 3_600_000 + i }))

const pglite = ManagedRuntime.make(Layer.orDie(Layer.provideMerge(pgliteStoreOnClient(undefined), pgliteClientLayer(undefined, {}))))
afterAll(() => pglite.dispose())

describe("SQL webhooks.claimDue with a backlog (PGlite)", () => {
  it("its generic plan reads a few rows, whatever the backlog holds", () =>
    pglite.runPromise(Effect.gen(function*() {
      const store = yield* Store
      const sql = yield* SqlClient.SqlClient
      // Delivered ones first (the walk's index holds pending ones only), then the backlog.
      yield* store.transact((uow) =>
        uow.addWebhookDeliveries(Array.from({ length: BACKLOG }, (_, i) => {
          const d = delivery(i, i < 10 ? "Customer:first" : `Customer:${i}`)
          return i < BACKLOG / 3 ? { ...d, status: "DELIVERED" } : d
        }))
      )
      const now = T0 + BACKLOG
      // As the store's session runs it (enable_seqscan off), and as a prepared statement runs from its sixth execution.
      const plan = yield* sql.withTransaction(Effect.andThen(sql.unsafe("set local enable_seqscan = off"), explainGeneric(sql, CLAIM_DUE_SQL, [platform.id, now, now, 1])))
      if (plan === undefined) return assert.fail("no plan")
      assert.isAtMost(rowsRead(plan).rows, 10, JSON.stringify(plan))
      // And the claim itself: the oldest pending delivery.
      const claimed = yield* store.transact(() => store.webhooks.claimDue(platform.id, now, now, 1))
      assert.deepStrictEqual(claimed.map((d) => d.id), ["Webhook:001000"])
      // A batch: the oldest pending ones, one per resource.
      const batch = yield* store.transact(() => store.webhooks.claimDue(platform.id, now, now, 8))
      assert.deepStrictEqual(batch.map((d) => d.id), ids(1000, 1008))
    })), 60_000)

  it("behind long chains, and with a receiver down, its generic plan reads the heads it may claim only", () =>
    pglite.runPromise(Effect.gen(function*() {
      const store = yield* Store
      const sql = yield* SqlClient.SqlClient
      const p = platformFromConfig({ id: "claim-chains", clientId: "claim-chains-client", clientSecret: "claim-chains-secret" })
      const q = platformFromConfig({ id: "claim-down", clientId: "claim-down-client", clientSecret: "claim-down-secret" })
      yield* store.transact((uow) => uow.addWebhookDeliveries(chains.map((d) => ({ ...d, platformId: p.id }))))
      yield* store.transact((uow) => uow.addWebhookDeliveries(retried.map((d) => ({ ...d, platformId: q.id }))))
      const now = T0 + BACKLOG
      const plan = (platformId: string, limit: number) =>
        sql.withTransaction(Effect.andThen(sql.unsafe("set local enable_seqscan = off"), explainGeneric(sql, CLAIM_DUE_SQL, [platformId, now, now, limit])))
      const behindChains = yield* plan(p.id, 8)
      if (behindChains === undefined) return assert.fail("no plan")
      assert.isAtMost(rowsRead(behindChains).rows, CHAINS + 2, JSON.stringify(behindChains))
      const down = yield* plan(q.id, 8)
      if (down === undefined) return assert.fail("no plan")
      assert.isAtMost(rowsRead(down).rows, 2, JSON.stringify(down))
      // And the claims themselves: each chain's first; nothing.
      const claimed = yield* store.transact(() => store.webhooks.claimDue(p.id, now, now, 100))
      assert.deepStrictEqual(claimed.map((d) => d.id), ids(0, CHAINS))
      assert.deepStrictEqual(yield* store.transact(() => store.webhooks.claimDue(q.id, now, now, 100)), [])

      // The writes that move the heads read a few rows per delivery written, whatever the
      // chains hold: a batch of attempts recorded (eight heads delivered) and an import of
      // 200 more to the same chains (as the store sends them, with HEADS_MOVED).
      const written = (kind: "add" | "put", records: ReadonlyArray<WebhookDeliveryRecord>) => {
        const statement = combine([deliveriesStatement(kind, records)])
        return sql.withTransaction(explainGeneric(sql, statement.text, statement.params))
      }
      const recorded = yield* written("put", claimed.slice(0, 8).map((d) => ({ ...d, status: "DELIVERED" as const, updatedAt: now })))
      if (recorded === undefined) return assert.fail("no plan")
      assert.isAtMost(rowsRead(recorded).rows, 8 * 6, planOutline(recorded))
      const more = Array.from({ length: 200 }, (_, i) => ({ ...delivery(BACKLOG + i, `InternalAccount:${i % CHAINS}`), platformId: p.id }))
      const imported = yield* written("add", more)
      if (imported === undefined) return assert.fail("no plan")
      assert.isAtMost(rowsRead(imported).rows, 2 * 200 + 5 * CHAINS, planOutline(imported))
      // What they wrote: the next of those eight chains are their heads now; the new ones wait.
      const next = yield* store.transact(() => store.webhooks.claimDue(p.id, now + 1_000, now, 100))
      assert.deepStrictEqual(next.map((d) => d.id), [...ids(8, CHAINS), ...ids(CHAINS, CHAINS + 8)])
    })), 60_000)
})
