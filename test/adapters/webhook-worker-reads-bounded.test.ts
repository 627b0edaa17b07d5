/**
 * The webhook worker's other reads read a bounded number of rows whatever the outbox and
 * the deliveries hold (issue #20): the import's read of the outbox after the cursor
 * (`EVENTS_AFTER_SQL`), and the record's read of a batch's deliveries (`GET_MANY_SQL`).
 * Both grew with the tables on PGlite under the webhook soak (docs/performance.md, "A claim
 * that reads the due heads only"): 4 → 16 ms and 11 → 68 ms a call over two minutes. Their
 * generic plans, as the store's session runs them (`enable_seqscan` off), EXPLAINed with
 * ANALYZE over 6,000 events and deliveries of one platform.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, ManagedRuntime } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll } from "vitest"
import { pgliteClientLayer, pgliteStoreOnClient } from "../../src/adapters/sql/index.js"
import { EVENTS_AFTER_SQL } from "../../src/adapters/sql/events.js"
import { EVENT_SEQS_QUERY } from "../../src/adapters/sql/migrations.js"
import { GET_MANY_SQL } from "../../src/adapters/sql/webhooks.js"
import type { DomainEvent } from "../../src/ports/events.js"
import { Store } from "../../src/ports/store.js"
import type { WebhookDeliveryRecord } from "../../src/ports/webhooks.js"
import { explainGeneric, type PlanNode, planOutline, rowsRead } from "../support/plans.js"
import { pendingDelivery } from "../support/deliveries.js"

const P = "worker-reads"
const T0 = Date.UTC(2026, 0, 1)
const ROWS = 6_000

const event = (i: number): DomainEvent => ({ id: `Webhook:event-${String(i).padStart(6, "0")}`, platformId: P, type: "TEST", timestamp: new Date(T0 + i).toISOString() })
const delivery = (i: number): WebhookDeliveryRecord => ({
  ...pendingDelivery({ platformId: P, id: `Webhook:${String(i).padStart(6, "0")}`, seq: i + 1, resourceId: `Customer:${i % 50}`, at: T0 + i }),
  status: i < ROWS - 100 ? "DELIVERED" : "PENDING"
})

/** The indexes a plan's scans use. */
const indexesOf = (node: PlanNode): ReadonlyArray<string> => [
  ...(node["Index Name"] === undefined ? [] : [node["Index Name"]]),
  ...(node.Plans ?? []).flatMap(indexesOf)
]

const pglite = ManagedRuntime.make(Layer.orDie(Layer.provideMerge(pgliteStoreOnClient(undefined), pgliteClientLayer(undefined, {}))))
afterAll(() => pglite.dispose())

/** The generic plan of `text`, with `enable_seqscan` off as the store's session has it (and `off`, as a function sets them). */
const planOf = (text: string, params: ReadonlyArray<unknown>, off: ReadonlyArray<string> = []) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const settings = Effect.forEach(["enable_seqscan", ...off], (name) => sql.unsafe(`set local ${name} = off`), { discard: true })
    const plan = yield* sql.withTransaction(Effect.andThen(settings, explainGeneric(sql, text, params)))
    if (plan === undefined) return yield* Effect.die(new Error("no plan"))
    return plan
  })

describe("the webhook worker's reads on PGlite, with 6,000 events and deliveries", () => {
  it("the outbox after the cursor reads the page it returns, and the batch's deliveries read those deliveries", () =>
    pglite.runPromise(Effect.gen(function*() {
      const store = yield* Store
      yield* store.transact((uow) => Effect.forEach(Array.from({ length: ROWS }, (_, i) => event(i)), (e) => uow.emit(e), { discard: true }))
      yield* store.transact((uow) => uow.addWebhookDeliveries(Array.from({ length: ROWS }, (_, i) => delivery(i))))
      const after = yield* planOf(EVENTS_AFTER_SQL, [P, ROWS - 5_000, 200])
      assert.isAtMost(rowsRead(after).rows, 200, planOutline(after))
      // Inside `payments_event_seqs` (its plan is not in the caller's): the import's range,
      // and the retention sweep's (the oldest at or below a seq), with fewer than the limit in it.
      const seqs = yield* planOf(EVENT_SEQS_QUERY, [P, ROWS - 5_000, "9223372036854775807", 200], ["enable_bitmapscan"])
      assert.isAtMost(rowsRead(seqs).rows, 200, planOutline(seqs))
      const swept = yield* planOf(EVENT_SEQS_QUERY, [P, 0, 50, 2_000], ["enable_bitmapscan"])
      assert.isAtMost(rowsRead(swept).rows, 51, planOutline(swept))
      const ids = Array.from({ length: 8 }, (_, i) => delivery(ROWS - 50 + i).id)
      const many = yield* planOf(GET_MANY_SQL, [P, JSON.stringify(ids)])
      assert.isAtMost(rowsRead(many).rows, 2 * ids.length, planOutline(many))
      // By primary key: another index of the platform with \`id\` after its first columns would
      // find the same rows by passing every entry of the platform, which rows read do not show.
      assert.deepStrictEqual([...new Set(indexesOf(many))], ["webhook_deliveries_pkey"], planOutline(many))
      // What they read.
      assert.deepStrictEqual((yield* store.events.list(P, { afterSeq: ROWS - 5_000, limit: 200 })).map((e) => e.seq), Array.from({ length: 200 }, (_, i) => ROWS - 4_999 + i))
      assert.deepStrictEqual((yield* store.webhooks.getMany(P, ids)).map((d) => d.id).sort(), ids)
    })), 60_000)
})
