/** The outbox of events, in memory (see ./store.ts). */
import { Effect } from "effect"
import type { DomainEvent, EventWrites, StoredEvent } from "../../ports/events.js"
import type { MemoryArea, MemoryContext } from "./context.js"

export interface EventTables {
  /**
   * The outbox in commit order: `events[i]` has seq `eventSeqs[i]` (increasing). Two
   * arrays rather than one of `{ seq, event }`: no object of 40 B per event; a read
   * builds the `StoredEvent`s it answers.
   */
  readonly events: Array<DomainEvent>
  readonly eventSeqs: Array<number>
}

export const eventTables = (): EventTables => ({ events: [], eventSeqs: [] })

/** The position of the first event with a seq above `after` (a binary search: seqs increase). */
const firstAfter = (seqs: ReadonlyArray<number>, after: number): number => {
  let lo = 0
  let hi = seqs.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (seqs[mid]! <= after) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** The outbox event with this `seq` and `id`, if the outbox still holds it. */
export const outboxEvent = (t: EventTables, seq: number, id: string): DomainEvent | undefined => {
  const i = firstAfter(t.eventSeqs, seq - 1)
  const event = t.events[i]
  return event !== undefined && t.eventSeqs[i] === seq && event.id === id ? event : undefined
}

/** The highest seq in the outbox (0 when it is empty). */
export const lastSeqOf = (t: EventTables): number => t.eventSeqs.at(-1) ?? 0

export const makeEventArea = (m: MemoryContext<EventTables>): MemoryArea<"events", EventWrites> => {
  /** One sequence for every platform: units of work run one at a time, so it is commit order. */
  let eventSeq = 0
  return {
    repositories: {
      events: {
        list: (platformId, options) =>
          m.read(() => {
            const t = m.peek(platformId)
            if (t === undefined) return []
            const limit = options?.limit ?? Number.POSITIVE_INFINITY
            // Events are in `seq` order: start at the first after `after` (a binary search,
            // not a walk over the whole outbox, which every delivery pass would repeat).
            const from = firstAfter(t.eventSeqs, options?.afterSeq ?? 0)
            const to = Math.min(t.events.length, from + limit)
            const out: Array<StoredEvent> = []
            for (let i = from; i < to; i++) out.push({ seq: t.eventSeqs[i]!, event: t.events[i]! })
            return out
          })
      }
    },
    writes: {
      emit: (event: DomainEvent) =>
        Effect.sync(() => {
          const t = m.tenantOf(event.platformId)
          t.events.push(event)
          t.eventSeqs.push(++eventSeq)
          m.undo(() => {
            t.events.pop()
            t.eventSeqs.pop()
          })
        }),
      sweepEvents: (platformId, sweep) =>
        Effect.sync(() => {
          const t = m.peek(platformId)
          if (t === undefined) return 0
          const { events, eventSeqs } = t
          // The oldest `limit` events at or below upToSeq: the outbox is in seq order.
          let end = 0
          while (end < events.length && end < sweep.limit && eventSeqs[end]! <= sweep.upToSeq) end++
          const kept: Array<DomainEvent> = []
          const keptSeqs: Array<number> = []
          for (let i = 0; i < end; i++) {
            const e = events[i]!
            if (!(Date.parse(e.timestamp) < sweep.before)) {
              kept.push(e)
              keptSeqs.push(eventSeqs[i]!)
            }
          }
          const removed = end - kept.length
          if (removed === 0) return 0
          const prefix = events.splice(0, end, ...kept)
          const prefixSeqs = eventSeqs.splice(0, end, ...keptSeqs)
          m.undo(() => {
            events.splice(0, kept.length, ...prefix)
            eventSeqs.splice(0, keptSeqs.length, ...prefixSeqs)
          })
          return removed
        })
    }
  }
}
