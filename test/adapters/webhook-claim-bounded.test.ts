/**
 * The memory store's `webhooks.claimDue` reads the pending deliveries from the oldest
 * and stops at the first it may claim: with a backlog of thousands, a claim reads a few
 * rows, not the backlog (it copied every pending delivery on every claim, so a platform
 * whose receiver fell behind slowed down with every delivery it owed: docs/performance.md,
 * "Webhooks under the money load"). Counted by the tables' `rowsExamined`.
 *
 * The SQL stores' claim (`CLAIM_DUE_SQL`) likewise: on PGlite, its generic plan run with
 * `EXPLAIN (ANALYZE)` over the same backlog reads a few rows (it read every pending
 * delivery of the platform for each one it passed, as an anti-join's inner side).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, ManagedRuntime } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll } from "vitest"
import { memoryLayer } from "../../src/adapters/memory/index.js"
import { rowsExamined } from "../../src/adapters/memory/table.js"
import { pgliteClientLayer, pgliteStoreOnClient } from "../../src/adapters/sql/index.js"
import { CLAIM_DUE_SQL } from "../../src/adapters/sql/webhooks.js"
import { platformFromConfig } from "../../src/domain/platform.js"
import { Store } from "../../src/ports/store.js"
import type { WebhookDeliveryRecord } from "../../src/ports/webhooks.js"
import { explainGeneric, rowsRead } from "../support/plans.js"

const platform = platformFromConfig({ id: "claim-bounded", clientId: "claim-bounded-client", clientSecret: "claim-bounded-secret" })
const T0 = Date.UTC(2026, 0, 1)
const BACKLOG = 3_000

const delivery = (i: number, resourceId: string): WebhookDeliveryRecord => ({
  platformId: platform.id,
  id: `Webhook:${String(i).padStart(6, "0")}`,
  seq: i + 1,
  type: "CUSTOMER.UPDATED",
  resourceId,
  body: "{}",
  status: "PENDING",
  attempts: [],
  round: 0,
  nextAttemptAt: T0 + i,
  createdAt: T0 + i,
  updatedAt: T0 + i
})

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
})

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
})
