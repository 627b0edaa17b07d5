/** Webhook signing keys, the outbox cursor and deliveries, in memory (see ./store.ts). */
import { Effect } from "effect"
import type { WebhookDeliveryRecord, WebhookSigningKeyRecord, WebhookWrites } from "../../ports/webhooks.js"
import type { MemoryArea, MemoryContext } from "./context.js"
import type { EventTables } from "./events.js"
import { MemoryTable } from "./table.js"

export interface WebhookTables {
  /** Webhook deliveries, in outbox order; `pendingDeliveries` the PENDING ones only. */
  readonly deliveries: MemoryTable<WebhookDeliveryRecord>
  readonly pendingDeliveries: MemoryTable<WebhookDeliveryRecord>
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
  deliveries: new MemoryTable<WebhookDeliveryRecord>({ id: (r) => r.id, createdAt: (r) => r.seq }),
  pendingDeliveries: new MemoryTable<WebhookDeliveryRecord>({ id: (r) => r.id, createdAt: (r) => r.seq }),
  webhookCursor: undefined,
  finished: { ats: [], ids: [], head: 0 }
})

/** The webhooks area reads the outbox too (`lastEventSeq`). */
export const makeWebhookArea = (m: MemoryContext<WebhookTables & EventTables>): MemoryArea<"webhooks", WebhookWrites> => {
  /** Signing keys live outside the platforms' tables: a sandbox reset keeps them. */
  const signingKeys = new Map<string, WebhookSigningKeyRecord>()
  const putDelivery = (r: WebhookDeliveryRecord): Effect.Effect<void> => {
    const t = m.tenantOf(r.platformId)
    if (r.status !== "PENDING") {
      const previous = t.deliveries.get(r.id)
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
      m.putRow(t.deliveries, r.id, r),
      r.status === "PENDING" ? m.putRow(t.pendingDeliveries, r.id, r) : m.removeRow(t.pendingDeliveries, r.id)
    ))
  }
  return {
    repositories: {
      webhooks: {
        signingKey: (platformId) => m.read(() => signingKeys.get(platformId)),
        cursor: (platformId) => m.read(() => m.peek(platformId)?.webhookCursor),
        lastEventSeq: (platformId) => m.read(() => m.peek(platformId)?.events.at(-1)?.seq ?? 0),
        get: (platformId, id) => m.read(() => m.peek(platformId)?.deliveries.get(id)),
        list: (platformId, page) => m.readPage(() => m.tenantOf(platformId).deliveries.page(() => true, { ...page, descending: true }, true)),
        claimDue: (platformId, now, leaseNow) =>
          m.claim("webhooks.claimDue", () => {
            const waiting = new Set<string>()
            for (const r of m.peek(platformId)?.pendingDeliveries.ordered() ?? []) {
              if (waiting.has(r.resourceId)) continue
              waiting.add(r.resourceId)
              if (r.nextAttemptAt <= now && (r.lease === undefined || r.lease.until <= leaseNow)) return r
            }
            return undefined
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
      addWebhookDelivery: (r) => Effect.suspend(() => m.tenantOf(r.platformId).deliveries.get(r.id) === undefined ? putDelivery(r) : Effect.void),
      putWebhookDelivery: putDelivery,
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
