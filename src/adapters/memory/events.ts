/** The outbox of events, in memory (see ./store.ts). */
import { Effect } from "effect"
import type { DomainEvent, EventWrites, StoredEvent } from "../../ports/events.js"
import type { MemoryArea, MemoryContext } from "./context.js"

export interface EventTables {
  /** In commit order (`seq` increasing). */
  readonly events: Array<StoredEvent>
}

export const eventTables = (): EventTables => ({ events: [] })

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
            const out: Array<StoredEvent> = []
            for (const e of events) {
              if (e.seq <= after) continue
              if (out.length >= limit) break
              out.push(e)
            }
            return out
          })
      }
    },
    writes: {
      emit: (event: DomainEvent) =>
        Effect.sync(() => {
          const events = m.tenantOf(event.platformId).events
          events.push({ seq: ++eventSeq, event })
          m.undo(() => void events.pop())
        })
    }
  }
}
