/** The in-memory outbox. */
import { Effect, Layer } from "effect"
import { type DomainEvent, Events } from "../../ports/events.js"

export const makeMemoryEvents = () => {
  const byPlatform = new Map<string, Array<DomainEvent>>()
  return Events.of({
    append: (events) =>
      Effect.sync(() => {
        for (const e of events) {
          let list = byPlatform.get(e.platformId)
          if (list === undefined) byPlatform.set(e.platformId, list = [])
          list.push(e)
        }
      }),
    list: (platformId) => Effect.sync(() => [...(byPlatform.get(platformId) ?? [])])
  })
}

export const MemoryEventsLayer: Layer.Layer<Events> = Layer.sync(Events, makeMemoryEvents)
