/** Webhook signing keys, the outbox cursor and deliveries, in memory (see ./store.ts). */
import { Effect } from "effect"
import { webhookBodyOf } from "../../domain/events.js"
import type { WebhookAttemptRecord, WebhookDeliveryRecord, WebhookSigningKeyRecord, WebhookWrites } from "../../ports/webhooks.js"
import type { StoreConflict } from "../../ports/shared.js"
import type { MemoryArea, MemoryContext } from "./context.js"
import { type EventTables, eventOf, lastSeqOf, outboxEvent, type OutboxItem } from "./events.js"
import { MemoryTable } from "./table.js"
import { BoundedMemo } from "../../lib/bounded-memo.js"

/**
 * A delivery as the memory store keeps it. Its body is, nearly always, its event's
 * webhook body (`webhookBodyOf`, the envelope as JSON text: about 1 KB, the biggest part
 * of a delivery): then the row holds the event itself (`source`, the object the outbox
 * holds too) and renders the body when a delivery is read, instead of a second copy of
 * the envelope as text. The rendering is deterministic (the same event object, the same
 * text), and a row holds an event only if its rendering equalled the body written, so a
 * delivery reads back the exact bytes that were signed. When the retention sweep removes
 * the event from the outbox, the row's reference keeps it (docs/decisions.md, "A
 * webhook delivery's body on the memory store"). Any other body is kept as text. One class: every
 * row shares one hidden class.
 */
class StoredDelivery {
  constructor(
    readonly platformId: string,
    readonly id: string,
    readonly seq: number,
    readonly type: string,
    readonly resourceId: string,
    /** The event (as the outbox holds it) whose webhook body is the delivery's body, or the body's text. */
    readonly source: OutboxItem | string,
    readonly status: WebhookDeliveryRecord["status"],
    readonly attempts: ReadonlyArray<WebhookAttemptRecord>,
    readonly round: number,
    readonly nextAttemptAt: number,
    readonly createdAt: number,
    readonly updatedAt: number,
    readonly lease: WebhookDeliveryRecord["lease"]
  ) {}
}

/**
 * The last bodies rendered, by event: a delivery is read several times in a row (claimed,
 * leased, then its attempt recorded), and each read would render it again. Bounded; a
 * miss only costs a rendering.
 */
const rendered = new BoundedMemo<OutboxItem, string>(64)
const bodyOfItem = (item: OutboxItem): string => webhookBodyOf(eventOf(item))

const bodyOf = (source: OutboxItem | string): string => typeof source === "string" ? source : rendered.getOrCompute(source, bodyOfItem)

/**
 * The record a read answers: a fresh object (callers spread it into the next state),
 * its `body` rendered on first access only (a list of deliveries never reads it) and an
 * own enumerable property, so that a spread copies it.
 */
const recordOf = (d: StoredDelivery): WebhookDeliveryRecord => {
  const record = {
    platformId: d.platformId,
    id: d.id,
    seq: d.seq,
    type: d.type,
    resourceId: d.resourceId,
    body: "",
    status: d.status,
    attempts: d.attempts,
    round: d.round,
    nextAttemptAt: d.nextAttemptAt,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
    ...(d.lease === undefined ? {} : { lease: d.lease })
  }
  const source = d.source
  if (typeof source === "string") record.body = source
  else {
    let body: string | undefined
    Object.defineProperty(record, "body", { enumerable: true, configurable: true, get: () => body ??= bodyOf(source) })
  }
  return record
}

export interface WebhookTables {
  /** Webhook deliveries, in outbox order; `pendingDeliveries` the PENDING ones only, also by resource (`resource`). */
  readonly deliveries: MemoryTable<StoredDelivery>
  readonly pendingDeliveries: MemoryTable<StoredDelivery>
  /**
   * Each resource's first pending delivery (its head: a resource's webhooks go in order),
   * by resource, in the order they fall due (`nextAttemptAt`): what a claim walks, the
   * soonest due first, so it reads the heads due now and stops at the first one due later,
   * never the deliveries waiting behind their resource's head (as the SQL stores'
   * `webhook_deliveries_due`).
   */
  readonly dueHeads: MemoryTable<StoredDelivery>
  webhookCursor: number | undefined
  /**
   * Deliveries in the order they finished (DELIVERED or FAILED; `updatedAt`), for the retention
   * sweep: `ats[i]` (platform clock) and `ids[i]`, from `head` on. An entry may be stale
   * (the delivery was redelivered, or its unit of work rolled back): the sweep checks
   * the row itself.
   */
  readonly finished: { readonly ats: Array<number>; readonly ids: Array<string>; head: number }
}

export const webhookTables = (): WebhookTables => ({
  deliveries: new MemoryTable<StoredDelivery>({ id: (r) => r.id, createdAt: (r) => r.seq }),
  pendingDeliveries: new MemoryTable<StoredDelivery>({ id: (r) => r.id, createdAt: (r) => r.seq, groups: [{ name: "resource", key: (r) => r.resourceId }] }),
  // Keyed by resource (one head each), ordered by when due: a head whose time changes is removed and put again.
  dueHeads: new MemoryTable<StoredDelivery>({ id: (r) => r.resourceId, createdAt: (r) => r.nextAttemptAt }),
  webhookCursor: undefined,
  finished: { ats: [], ids: [], head: 0 }
})

/** The webhooks area reads the outbox too (`lastEventSeq`). */
export const makeWebhookArea = (m: MemoryContext<WebhookTables & EventTables>): MemoryArea<"webhooks", WebhookWrites> => {
  /** Signing keys live outside the platforms' tables: a sandbox reset keeps them. */
  const signingKeys = new Map<string, WebhookSigningKeyRecord>()
  /** The row for `r`: its body as the event it renders from when it is that event's webhook body (the row's before, or the outbox's). */
  const rowOf = (t: WebhookTables & EventTables, r: WebhookDeliveryRecord, previous: StoredDelivery | undefined): StoredDelivery => {
    const event = previous !== undefined && typeof previous.source !== "string" && previous.seq === r.seq
      ? previous.source
      : outboxEvent(t, r.seq, r.id)
    const source = event !== undefined && bodyOf(event) === r.body ? event : r.body
    return new StoredDelivery(
      r.platformId,
      r.id,
      r.seq,
      r.type,
      r.resourceId,
      source,
      r.status,
      r.attempts,
      r.round,
      r.nextAttemptAt,
      r.createdAt,
      r.updatedAt,
      r.lease
    )
  }
  const putDelivery = (r: WebhookDeliveryRecord): Effect.Effect<void> => {
    const t = m.tenantOf(r.platformId)
    const previous = t.deliveries.get(r.id)
    const row = rowOf(t, r, previous)
    if (r.status !== "PENDING") {
      if (previous === undefined || previous.status === "PENDING" || previous.updatedAt !== r.updatedAt) {
        // In time order: mostly at the end (a sandbox advance replays attempts at their due times).
        const q = t.finished
        let lo = q.head
        let hi = q.ats.length
        if (hi === lo || q.ats[hi - 1]! <= r.updatedAt) lo = hi
        while (lo < hi) {
          const mid = (lo + hi) >>> 1
          if (q.ats[mid]! <= r.updatedAt) lo = mid + 1
          else hi = mid
        }
        q.ats.splice(lo, 0, r.updatedAt)
        q.ids.splice(lo, 0, r.id)
      }
    }
    return Effect.orDie(Effect.andThen(
      Effect.andThen(
        m.putRow(t.deliveries, r.id, row),
        r.status === "PENDING" ? m.putRow(t.pendingDeliveries, r.id, row) : m.removeRow(t.pendingDeliveries, r.id)
      ),
      Effect.suspend(() => headAgain(t, r.resourceId))
    ))
  }
  /** The resource's entry in `dueHeads` as its first pending delivery now is (the row object itself: a rewritten head is put again). */
  const headAgain = (t: WebhookTables, resourceId: string): Effect.Effect<void, StoreConflict> => {
    const head = t.pendingDeliveries.firstOfGroup("resource", resourceId)
    const entry = t.dueHeads.get(resourceId)
    if (head === entry) return Effect.void
    const removed = entry === undefined ? Effect.void : m.removeRow(t.dueHeads, resourceId)
    return head === undefined ? removed : Effect.andThen(removed, m.putRow(t.dueHeads, resourceId, head))
  }
  return {
    repositories: {
      webhooks: {
        signingKey: (platformId) => m.read(() => signingKeys.get(platformId)),
        cursor: (platformId) => m.read(() => m.peek(platformId)?.webhookCursor),
        lastEventSeq: (platformId) => m.read(() => {
          const t = m.peek(platformId)
          return t === undefined ? 0 : lastSeqOf(t)
        }),
        get: (platformId, id) =>
          m.read(() => {
            const d = m.peek(platformId)?.deliveries.get(id)
            return d === undefined ? undefined : recordOf(d)
          }),
        list: (platformId, page) =>
          Effect.map(
            m.readPage(() => m.tenantOf(platformId).deliveries.page(() => true, { ...page, descending: true }, true)),
            (p) => ({ ...p, data: p.data.map(recordOf) })
          ),
        getMany: (platformId, ids) =>
          m.read(() => {
            const t = m.peek(platformId)
            const found: Array<WebhookDeliveryRecord> = []
            for (const id of ids) {
              const d = t?.deliveries.get(id)
              if (d !== undefined) found.push(recordOf(d))
            }
            return found
          }),
        claimDue: (platformId, now, leaseNow, limit) =>
          m.claim("webhooks.claimDue", () => {
            const claimed: Array<WebhookDeliveryRecord> = []
            if (limit < 1) return claimed
            // The heads from the soonest due: the first due later, or the `limit`-th claimed,
            // ends the walk; a leased head (an attempt under way) is passed.
            for (const r of m.peek(platformId)?.dueHeads.inOrder() ?? []) {
              if (r.nextAttemptAt > now) break
              if (r.lease !== undefined && r.lease.until > leaseNow) continue
              claimed.push(recordOf(r))
              if (claimed.length >= limit) break
            }
            return claimed
          })
      }
    },
    writes: {
      putWebhookSigningKey: (record) =>
        Effect.sync(() => {
          const existing = signingKeys.get(record.platformId)
          if (existing !== undefined) return existing
          signingKeys.set(record.platformId, record)
          m.undo(() => void signingKeys.delete(record.platformId))
          return record
        }),
      setWebhookCursor: (platformId, seq) => m.setField(m.tenantOf(platformId), "webhookCursor", seq),
      addWebhookDeliveries: (records) =>
        Effect.forEach(records, (r) => Effect.suspend(() => m.tenantOf(r.platformId).deliveries.get(r.id) === undefined ? putDelivery(r) : Effect.void), { discard: true }),
      putWebhookDeliveries: (records) => Effect.forEach(records, putDelivery, { discard: true }),
      sweepWebhookDeliveries: (platformId, finishedBefore, limit) =>
        Effect.sync(() => {
          const t = m.peek(platformId)
          if (t === undefined) return 0
          const q = t.finished
          if (q.head > 1024 && q.head * 2 > q.ids.length) {
            q.ats.splice(0, q.head)
            q.ids.splice(0, q.head)
            q.head = 0
          }
          const start = q.head
          const due: Array<string> = []
          // In time order: the first entry not due ends the sweep.
          while (due.length < limit && q.head < q.ids.length && q.ats[q.head]! < finishedBefore) {
            const id = q.ids[q.head++]!
            const r = t.deliveries.get(id)
            if (r !== undefined && r.status !== "PENDING" && r.updatedAt < finishedBefore) due.push(id)
          }
          const removed = t.deliveries.removeAll(due)
          m.undo(() => {
            q.head = start
            for (const r of removed) t.deliveries.put(r)
          })
          return removed.length
        })
    }
  }
}
