/** The outbox of events, in memory (see ./store.ts). */
import { Effect } from "effect"
import type { DomainEvent, EventWrites, StoredEvent } from "../../ports/events.js"
import type { MemoryArea, MemoryContext } from "./context.js"

export interface EventTables {
  /** In commit order (`seq` increasing). */
  readonly events: Array<StoredEvent>
}

export const eventTables = (): EventTables => ({ events: [] })

/**
 * The event as the outbox keeps it: the same fields in the same order, in an object
 * built by a literal, so that its five fields sit inside the object. An event is built by
 * spreads (`makeEvent`), which leave its last fields in a separate property array: about
 * 90 B more per event, and a payment keeps about six. Other shapes are kept as they are.
 */
const compactEvent = (event: DomainEvent): DomainEvent => {
  const keys = Object.keys(event)
  if (keys.length === 5 && keys[0] === "data" && keys[1] === "id" && keys[2] === "platformId" && keys[3] === "timestamp" && keys[4] === "type" && "data" in event) {
    const { data, id, platformId, timestamp, type } = event
    return { data, id, platformId, timestamp, type } as DomainEvent
  }
  return event
}

export const makeEventArea = (m: MemoryContext<EventTables>): MemoryArea<"events", EventWrites> => {
  /** One sequence for every platform: units of work run one at a time, so it is commit order. */
  let eventSeq = 0
  return {
    repositories: {
      events: {
        list: (platformId, options) =>
          m.read(() => {
            const events = m.peek(platformId)?.events ?? []
            const after = options?.afterSeq ?? 0
            const limit = options?.limit ?? Number.POSITIVE_INFINITY
            // Events are in `seq` order: start at the first after `after` (a binary search,
            // not a walk over the whole outbox, which every delivery pass would repeat).
            let lo = 0
            let hi = events.length
            while (lo < hi) {
              const mid = (lo + hi) >>> 1
              if (events[mid]!.seq <= after) lo = mid + 1
              else hi = mid
            }
            return events.slice(lo, Math.min(events.length, lo + limit))
          })
      }
    },
    writes: {
      emit: (event: DomainEvent) =>
        Effect.sync(() => {
          const events = m.tenantOf(event.platformId).events
          events.push({ seq: ++eventSeq, event: compactEvent(event) })
          m.undo(() => void events.pop())
        }),
      sweepEvents: (platformId, sweep) =>
        Effect.sync(() => {
          const events = m.peek(platformId)?.events
          if (events === undefined) return 0
          // The oldest `limit` events at or below upToSeq: the outbox is in seq order.
          let end = 0
          while (end < events.length && end < sweep.limit && events[end]!.seq <= sweep.upToSeq) end++
          const kept: Array<StoredEvent> = []
          for (let i = 0; i < end; i++) {
            const e = events[i]!
            if (!(Date.parse(e.event.timestamp) < sweep.before)) kept.push(e)
          }
          const removed = end - kept.length
          if (removed === 0) return 0
          const prefix = events.splice(0, end, ...kept)
          m.undo(() => void events.splice(0, kept.length, ...prefix))
          return removed
        })
    }
  }
}
