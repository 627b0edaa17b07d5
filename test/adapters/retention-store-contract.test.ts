/**
 * The Store contract for the retention sweep (`sweepWebhookDeliveries`, `sweepEvents`;
 * src/operations/retention.ts), run against every Store (memory, PGlite in memory,
 * PostgreSQL on a fresh database of the run's throwaway cluster): only what is due goes
 * (finished deliveries last updated before the cut, oldest first; events at or below the
 * consumed seq that happened before it), PENDING deliveries and young or unconsumed
 * events stay, each call does a bounded amount (its limit), other platforms are not
 * touched, and a unit of work that fails after sweeping keeps everything.
 */
import { Effect, Exit } from "effect"
import { describe, expect } from "vitest"
import { webhookBodyOf } from "../../src/domain/events.js"
import type { DomainEvent } from "../../src/ports/events.js"
import type { WebhookDeliveryRecord } from "../../src/ports/store.js"
import { KINDS, storeSuite } from "../support/store-harness.js"

const T0 = Date.parse("2026-01-01T00:00:00.000Z")
const SEC = 1000

const delivery = (
  platformId: string,
  n: number,
  status: WebhookDeliveryRecord["status"],
  updatedAt: number
): WebhookDeliveryRecord => ({
  platformId,
  id: `Webhook:00000000-0000-4000-8000-${n.toString().padStart(12, "0")}`,
  seq: n,
  type: "TEST",
  resourceId: `Webhook:${n}`,
  body: JSON.stringify({ id: n, type: "TEST" }),
  status,
  attempts: status === "PENDING" && updatedAt === T0 ? [] : [{ at: updatedAt, url: "https://receiver.invalid/hook", durationMs: 3, statusCode: status === "DELIVERED" ? 200 : 500 }],
  round: 1,
  nextAttemptAt: updatedAt + 60 * SEC,
  createdAt: T0,
  updatedAt
})

const event = (platformId: string, n: number, at: number): DomainEvent => ({
  id: `Webhook:event-${n}`,
  platformId,
  type: "TEST",
  timestamp: new Date(at).toISOString()
})

describe.each(KINDS)("Retention store contract on %s", (kind) => {
  const { storeIt } = storeSuite(kind)

  storeIt("sweepWebhookDeliveries: finished ones updated before the cut, oldest first, at most `limit` a call; PENDING ones never", (store, p) =>
    Effect.gen(function*() {
      const other = `${p}-other`
      const rows = [
        delivery(p, 1, "DELIVERED", T0 + 2 * SEC),
        delivery(p, 2, "FAILED", T0 + 1 * SEC),
        delivery(p, 3, "PENDING", T0),
        delivery(p, 4, "DELIVERED", T0 + 100 * SEC),
        delivery(p, 5, "DELIVERED", T0 + 3 * SEC),
        delivery(p, 6, "PENDING", T0 + 4 * SEC),
        delivery(other, 7, "DELIVERED", T0)
      ]
      yield* store.transact((uow) => uow.addWebhookDeliveries(rows))
      const cut = T0 + 50 * SEC
      const ids = Effect.map(store.webhooks.list(p, { limit: 100 }), (page) => page.data.map((d) => d.seq).sort((a, b) => a - b))

      // A unit of work that fails after sweeping keeps everything.
      const failed = yield* Effect.exit(store.transact((uow) => Effect.andThen(uow.sweepWebhookDeliveries(p, cut, 10), Effect.fail("boom"))))
      expect(Exit.isFailure(failed)).toBe(true)
      expect(yield* ids).toEqual([1, 2, 3, 4, 5, 6])

      // Bounded: two a call, the ones that finished first.
      expect(yield* store.transact((uow) => uow.sweepWebhookDeliveries(p, cut, 2))).toBe(2)
      expect(yield* ids).toEqual([3, 4, 5, 6])
      expect(yield* store.transact((uow) => uow.sweepWebhookDeliveries(p, cut, 2))).toBe(1)
      expect(yield* ids).toEqual([3, 4, 6])
      expect(yield* store.transact((uow) => uow.sweepWebhookDeliveries(p, cut, 2))).toBe(0)
      expect(yield* store.webhooks.get(p, rows[0]!.id)).toBeUndefined()
      expect(yield* store.webhooks.get(p, rows[2]!.id)).toEqual(rows[2])

      // A redelivered one counts from when it finished again; a PENDING one stays whatever its age.
      const redelivered = { ...rows[3]!, status: "PENDING" as const, updatedAt: T0 + 200 * SEC, nextAttemptAt: T0 + 200 * SEC }
      yield* store.transact((uow) => uow.putWebhookDeliveries([redelivered]))
      expect(yield* store.transact((uow) => uow.sweepWebhookDeliveries(p, T0 + 150 * SEC, 10))).toBe(0)
      yield* store.transact((uow) => uow.putWebhookDeliveries([{ ...redelivered, status: "DELIVERED", updatedAt: T0 + 300 * SEC }]))
      expect(yield* store.transact((uow) => uow.sweepWebhookDeliveries(p, T0 + 250 * SEC, 10))).toBe(0)
      expect(yield* ids).toEqual([3, 4, 6])
      expect(yield* store.transact((uow) => uow.sweepWebhookDeliveries(p, T0 + 301 * SEC, 10))).toBe(1)
      expect(yield* ids).toEqual([3, 6])
      // The other platform's finished delivery was never touched.
      expect(yield* store.webhooks.get(other, rows[6]!.id)).toEqual(rows[6])
    }))

  storeIt("sweepEvents: examines at most `limit` of the oldest events at or below upToSeq and removes those that happened before the cut", (store, p) =>
    Effect.gen(function*() {
      const other = `${p}-other`
      const times = [T0, T0 + SEC, T0 + 2 * SEC, T0 + 100 * SEC, T0 + 3 * SEC, T0 + 4 * SEC]
      for (const [i, at] of times.entries()) yield* store.transact((uow) => uow.emit(event(p, i + 1, at)))
      yield* store.transact((uow) => uow.emit(event(other, 99, T0)))
      const all = yield* store.events.list(p)
      const seqs = all.map((e) => e.seq)
      const last = yield* store.webhooks.lastEventSeq(p)
      expect(last).toBe(seqs[5])
      const names = Effect.map(store.events.list(p), (es) => es.map((e) => e.event.id.replace("Webhook:event-", "")))
      const sweep = { upToSeq: seqs[4]!, before: T0 + 50 * SEC }

      const failed = yield* Effect.exit(store.transact((uow) => Effect.andThen(uow.sweepEvents(p, { ...sweep, limit: 10 }), Effect.fail("boom"))))
      expect(Exit.isFailure(failed)).toBe(true)
      expect(yield* names).toEqual(["1", "2", "3", "4", "5", "6"])

      // The first three examined and old: removed.
      expect(yield* store.transact((uow) => uow.sweepEvents(p, { ...sweep, limit: 3 }))).toBe(3)
      expect(yield* names).toEqual(["4", "5", "6"])
      // Then 4 (too young) and 5: only 5 goes; 6 is above upToSeq.
      expect(yield* store.transact((uow) => uow.sweepEvents(p, { ...sweep, limit: 3 }))).toBe(1)
      expect(yield* names).toEqual(["4", "6"])
      expect(yield* store.transact((uow) => uow.sweepEvents(p, { ...sweep, limit: 3 }))).toBe(0)
      // Reading after a removed seq still works, and the highest seq is where it was.
      expect((yield* store.events.list(p, { afterSeq: seqs[0]! })).map((e) => e.seq)).toEqual([seqs[3], seqs[5]])
      expect(yield* store.webhooks.lastEventSeq(p)).toBe(last)
      // A new event still gets a higher seq.
      yield* store.transact((uow) => uow.emit(event(p, 7, T0)))
      expect((yield* store.events.list(p, { afterSeq: last })).map((e) => e.event.id)).toEqual(["Webhook:event-7"])
      expect((yield* store.events.list(other)).map((e) => e.event.id)).toEqual(["Webhook:event-99"])
    }))

  storeIt("a delivery of an outbox event reads back its exact body through every state, after its event is swept, and a body that is not the event's stays as written", (store, p) =>
    Effect.gen(function*() {
      // Events the webhook body can encode (a well-formed webhook id).
      const encodable = (n: number): DomainEvent => ({ ...event(p, n, T0), id: delivery(p, 100 + n, "PENDING", T0).id })
      yield* store.transact((uow) => Effect.andThen(uow.emit(encodable(1)), uow.emit(encodable(2))))
      const [first, second] = yield* store.events.list(p)
      const of = (stored: typeof first, n: number, body: string): WebhookDeliveryRecord => ({
        ...delivery(p, n, "PENDING", T0),
        id: stored!.event.id,
        seq: stored!.seq,
        body
      })
      const rendered = of(first, 1, webhookBodyOf(first!.event))
      // The second event's delivery carries another body (as a store must keep whatever it was given).
      const other = of(second, 2, `${webhookBodyOf(second!.event)} `)
      // A body holding the character the SQL stores split a batch's documents at (./sql/webhooks.ts).
      const control = { ...delivery(p, 1_000_000, "PENDING", T0), body: "{\"a\":\"\u0001\"}\u0001" }
      yield* store.transact((uow) => uow.addWebhookDeliveries([rendered, other, control]))
      expect(yield* store.webhooks.get(p, rendered.id)).toEqual(rendered)
      expect(yield* store.webhooks.get(p, other.id)).toEqual(other)
      expect(yield* store.webhooks.get(p, control.id)).toEqual(control)
      // Added again (an event imported twice): what is there stays.
      yield* store.transact((uow) => uow.addWebhookDeliveries([{ ...rendered, body: "{}", status: "FAILED" }, control]))
      expect(yield* store.webhooks.get(p, rendered.id)).toEqual(rendered)
      expect(yield* store.webhooks.get(p, control.id)).toEqual(control)
      // Leased, then delivered: a spread of what was read, as the worker writes it.
      const read = (yield* store.webhooks.get(p, rendered.id))!
      const leased = { ...read, lease: { token: "t", until: T0 + SEC } }
      yield* store.transact((uow) => uow.putWebhookDeliveries([leased]))
      expect((yield* store.transact(() => store.webhooks.claimDue(p, T0 + 60 * SEC, T0 + 2 * SEC, 1)))[0]?.body).toBe(rendered.body)
      const done = { ...rendered, status: "DELIVERED" as const, updatedAt: T0 + SEC, round: 1 }
      const current = (yield* store.webhooks.get(p, rendered.id))!
      yield* store.transact((uow) => uow.putWebhookDeliveries([{ ...current, ...done, lease: undefined }]))
      // Its event leaves the outbox; the delivery still reads its body.
      expect(yield* store.transact((uow) => uow.sweepEvents(p, { upToSeq: second!.seq, before: T0 + 50 * SEC, limit: 10 }))).toBe(2)
      expect(yield* store.events.list(p)).toEqual([])
      const after = yield* store.webhooks.get(p, rendered.id)
      expect(after?.body).toBe(rendered.body)
      expect(after).toEqual(done)
      expect((yield* store.webhooks.list(p, { limit: 10 })).data.map((d) => d.body)).toEqual([control.body, other.body, rendered.body])
    }))

  storeIt("claimDue takes up to `limit` due deliveries, oldest first, one per resource; leased together they are passed, and getMany reads them back", (store, p) =>
    Effect.gen(function*() {
      const of = (n: number, resourceId: string, nextAttemptAt = T0): WebhookDeliveryRecord => ({ ...delivery(p, n, "PENDING", T0), resourceId, nextAttemptAt })
      // Resource A has two (the second waits for the first), B one not yet due, C and D one each.
      const rows = [of(1, "A"), of(2, "A"), of(3, "B", T0 + 60 * SEC), of(4, "C"), of(5, "D")]
      yield* store.transact((uow) => uow.addWebhookDeliveries(rows))
      const claim = (limit: number) => store.transact(() => Effect.map(store.webhooks.claimDue(p, T0 + SEC, T0, limit), (due) => due.map((d) => d.seq)))
      expect(yield* claim(10)).toEqual([1, 4, 5])
      expect(yield* claim(2)).toEqual([1, 4])
      expect(yield* claim(0)).toEqual([])
      // Leased in one write: the batch is passed, and what is left is the next one.
      const lease = { token: "batch", until: T0 + 15 * SEC }
      yield* store.transact((uow) => Effect.flatMap(store.webhooks.claimDue(p, T0 + SEC, T0, 2), (due) => uow.putWebhookDeliveries(due.map((d) => ({ ...d, lease })))))
      expect(yield* claim(10)).toEqual([5])
      const read = yield* store.webhooks.getMany(p, [rows[0]!.id, rows[3]!.id, "Webhook:missing"])
      expect([...read].sort((a, b) => a.seq - b.seq)).toEqual([{ ...rows[0]!, lease }, { ...rows[3]!, lease }])
      expect(yield* store.webhooks.getMany(p, [])).toEqual([])
      // Recorded together: A's first delivered, so A's second is its oldest pending one.
      yield* store.transact((uow) => uow.putWebhookDeliveries([{ ...rows[0]!, status: "DELIVERED", updatedAt: T0 + SEC }, { ...rows[3]!, status: "DELIVERED", updatedAt: T0 + SEC }]))
      expect(yield* claim(10)).toEqual([2, 5])
    }))
})
