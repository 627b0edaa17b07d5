/**
 * The Store contract for a resource's webhooks going in order (docs/webhooks.md, "Order"),
 * on every Store: `claimDue` offers only each resource's first pending delivery (its head),
 * the soonest due first, and the writes (`addWebhookDeliveries`, `putWebhookDeliveries`)
 * keep which delivery that is as deliveries are added, finish, are retried later, are
 * redelivered, or are written several in one batch; a unit of work that fails keeps the
 * heads as they were. The claim reads the heads only (test/adapters/webhook-claim-bounded.test.ts
 * counts it); this file checks that what it reads is right.
 */
import { Effect, Exit } from "effect"
import { describe, expect } from "vitest"
import type { WebhookDeliveryRecord } from "../../src/ports/store.js"
import { KINDS, storeSuite } from "../support/store-harness.js"
import { pendingDelivery } from "../support/deliveries.js"

const T0 = Date.parse("2026-01-01T00:00:00.000Z")
const SEC = 1000

describe.each(KINDS)("Webhook heads contract on %s", (kind) => {
  const { storeIt } = storeSuite(kind)

  const of = (p: string, seq: number, resourceId: string, nextAttemptAt = T0): WebhookDeliveryRecord => ({
    ...pendingDelivery({ platformId: p, id: `Webhook:00000000-0000-4000-8000-${seq.toString().padStart(12, "0")}`, seq, resourceId, at: T0, body: JSON.stringify({ seq }) }),
    nextAttemptAt
  })
  const done = (d: WebhookDeliveryRecord, status: "DELIVERED" | "FAILED" = "DELIVERED"): WebhookDeliveryRecord => ({ ...d, status, round: 1, updatedAt: T0 + SEC })
  const claimAt = (store: Parameters<Parameters<typeof storeIt>[1]>[0], p: string, now: number) =>
    store.transact(() => Effect.map(store.webhooks.claimDue(p, now, T0, 100), (due) => due.map((d) => d.seq)))

  storeIt("a chain goes one at a time: its next delivery is offered once the one before it finishes, delivered or failed", (store, p) =>
    Effect.gen(function*() {
      const a = [1, 2, 3, 4].map((n) => of(p, n, "A"))
      const b = of(p, 5, "B")
      yield* store.transact((uow) => uow.addWebhookDeliveries([...a, b]))
      expect(yield* claimAt(store, p, T0)).toEqual([1, 5])
      yield* store.transact((uow) => uow.putWebhookDeliveries([done(a[0]!)]))
      expect(yield* claimAt(store, p, T0)).toEqual([2, 5])
      yield* store.transact((uow) => uow.putWebhookDeliveries([done(a[1]!, "FAILED"), done(b)]))
      expect(yield* claimAt(store, p, T0)).toEqual([3])
      // Added later to a resource with one pending: it waits behind it; a new resource's first does not.
      yield* store.transact((uow) => uow.addWebhookDeliveries([of(p, 6, "A"), of(p, 7, "C"), of(p, 8, "C")]))
      expect(yield* claimAt(store, p, T0)).toEqual([3, 7])
      yield* store.transact((uow) => uow.putWebhookDeliveries([done(a[2]!), done(a[3]!)]))
      expect(yield* claimAt(store, p, T0)).toEqual([6, 7])
    }))

  storeIt("a head retried later holds its chain back until it is due, and nothing else; the soonest due comes first", (store, p) =>
    Effect.gen(function*() {
      yield* store.transact((uow) => uow.addWebhookDeliveries([of(p, 1, "A"), of(p, 2, "A"), of(p, 3, "B", T0 + 5 * SEC), of(p, 4, "C", T0 + 2 * SEC)]))
      // A's first failed an attempt: its retry is at +10 s.
      yield* store.transact((uow) => uow.putWebhookDeliveries([{ ...of(p, 1, "A", T0 + 10 * SEC), round: 1 }]))
      expect(yield* claimAt(store, p, T0)).toEqual([])
      expect(yield* claimAt(store, p, T0 + 2 * SEC)).toEqual([4])
      expect(yield* claimAt(store, p, T0 + 9 * SEC)).toEqual([4, 3])
      expect(yield* claimAt(store, p, T0 + 10 * SEC)).toEqual([4, 3, 1])
    }))

  storeIt("a delivery redelivered goes before the later ones of its resource; a delivery added twice changes nothing", (store, p) =>
    Effect.gen(function*() {
      const rows = [1, 2, 3].map((n) => of(p, n, "A"))
      yield* store.transact((uow) => uow.addWebhookDeliveries(rows))
      yield* store.transact((uow) => uow.putWebhookDeliveries([done(rows[0]!)]))
      expect(yield* claimAt(store, p, T0)).toEqual([2])
      // The first again (the sandbox's redeliver): before 2 and 3.
      yield* store.transact((uow) => uow.putWebhookDeliveries([{ ...rows[0]!, nextAttemptAt: T0 + SEC }]))
      expect(yield* claimAt(store, p, T0 + SEC)).toEqual([1])
      // Added again: the ones there stay as they are.
      yield* store.transact((uow) => uow.addWebhookDeliveries([of(p, 2, "A"), of(p, 3, "A")]))
      expect(yield* claimAt(store, p, T0 + SEC)).toEqual([1])
      yield* store.transact((uow) => uow.putWebhookDeliveries([done(rows[0]!)]))
      expect(yield* claimAt(store, p, T0 + SEC)).toEqual([2])
    }))

  storeIt("one batch may finish a head and rewrite the next ones; two batches in one unit of work see each other", (store, p) =>
    Effect.gen(function*() {
      const a = [1, 2, 3].map((n) => of(p, n, "A"))
      yield* store.transact((uow) => uow.addWebhookDeliveries(a))
      // The head finished and the next one written in the same batch (a later one first).
      yield* store.transact((uow) => uow.putWebhookDeliveries([{ ...a[1]!, updatedAt: T0 + SEC }, done(a[0]!)]))
      expect(yield* claimAt(store, p, T0)).toEqual([2])
      // In one unit of work: new deliveries, then the head finished.
      yield* store.transact((uow) => Effect.andThen(uow.addWebhookDeliveries([of(p, 4, "B"), of(p, 5, "B")]), uow.putWebhookDeliveries([done(a[1]!), done(of(p, 4, "B"))])))
      expect(yield* claimAt(store, p, T0)).toEqual([3, 5])
    }))

  storeIt("a unit of work that fails after its writes leaves the heads as they were", (store, p) =>
    Effect.gen(function*() {
      const a = [1, 2].map((n) => of(p, n, "A"))
      yield* store.transact((uow) => uow.addWebhookDeliveries(a))
      const failed = yield* Effect.exit(store.transact((uow) =>
        Effect.andThen(Effect.andThen(uow.putWebhookDeliveries([done(a[0]!)]), uow.addWebhookDeliveries([of(p, 3, "B")])), Effect.fail("boom"))
      ))
      expect(Exit.isFailure(failed)).toBe(true)
      expect(yield* claimAt(store, p, T0)).toEqual([1])
    }))
})
