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

/** Which consumed events a retention sweep may remove (src/operations/retention.ts). */
export interface EventSweep {
  /** Only events at or below this `seq` (the ones every consumer has passed). */
  readonly upToSeq: number
  /** Only events whose `timestamp` (platform clock) is before this, epoch ms. */
  readonly before: number
  /** Examines at most this many of the platform's oldest events at or below `upToSeq`. */
  readonly limit: number
}

export interface EventWrites {
  /** Appends an event to the outbox; it exists if and only if this unit of work commits. */
  readonly emit: (event: DomainEvent) => Effect.Effect<void>
  /**
   * Removes, among the platform's `limit` oldest events at or below `upToSeq`, those that
   * happened before `before`. Returns how many were removed. Bounded: examines at most
   * `limit` events whatever the outbox holds.
   */
  readonly sweepEvents: (platformId: string, sweep: EventSweep) => Effect.Effect<number>
}
