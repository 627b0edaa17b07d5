/**
 * Events: every state change appends one to the Store's outbox in the same unit of
 * work (`UnitOfWork.emit`), and webhook delivery reads them from there. The event
 * type is the typed union of src/domain/events.ts (one member per webhook type).
 */
import type { Effect } from "effect"
import type { DomainEvent } from "../domain/events.js"

export type { DomainEvent } from "../domain/events.js"

/** An event as stored in the outbox, with its position in the platform's stream. */
export interface StoredEvent {
  /**
   * Increases with every committed event, in commit order within a platform (gaps
   * allowed): a reader that has seen `seq` n never later finds an event below n.
   */
  readonly seq: number
  readonly event: DomainEvent
}

export interface EventRepository {
  /** The platform's committed events after `afterSeq` (exclusive), oldest first, at most `limit`. */
  readonly list: (platformId: string, options?: { readonly afterSeq?: number; readonly limit?: number }) => Effect.Effect<ReadonlyArray<StoredEvent>>
}

export interface EventWrites {
  /** Appends an event to the outbox; it exists if and only if this unit of work commits. */
  readonly emit: (event: DomainEvent) => Effect.Effect<void>
}
