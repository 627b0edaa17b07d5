/**
 * The one way a machine's transition is written: the new state, the events it
 * announces and the moves it schedules go into one unit of work, so an event exists if
 * and only if its state change committed, and a scheduled move if and only if the
 * state that asked for it did.
 */
import { Effect } from "effect"
import type { DomainEvent } from "../domain/events.js"
import type { Platform } from "../domain/platform.js"
import { Ids } from "../ports/ids.js"
import type { StoreConflict, UnitOfWork } from "../ports/store.js"

/** A move a machine asks for later, as data. */
export interface ScheduledMove {
  /** Epoch ms on the platform's clock. */
  readonly at: number
  readonly event: string
}

export interface Transition {
  /** Writes the new state of the resource. */
  readonly write: Effect.Effect<void, StoreConflict>
  /** The resource the state and the moves belong to. */
  readonly subjectId: string
  /** The machine's timer kind (the scheduler's handler for it). */
  readonly kind: string
  /** Events to append, in order, already built (typed) by the caller. */
  readonly events?: ReadonlyArray<DomainEvent>
  /** Moves to schedule; they replace the subject's pending move of this kind. */
  readonly scheduled?: ReadonlyArray<ScheduledMove>
  /** Drop the subject's pending moves of this kind first (a move made now supersedes them). */
  readonly supersede?: boolean
}

export const applyTransition = Effect.fnUntraced(function*(uow: UnitOfWork, platform: Platform, t: Transition) {
  const ids = yield* Ids
  if (t.supersede === true) yield* uow.cancelTimers(platform.id, t.subjectId, t.kind)
  yield* t.write
  for (const event of t.events ?? []) yield* uow.emit(event)
  for (const move of t.scheduled ?? []) {
    yield* uow.schedule({
      platformId: platform.id,
      id: `Timer:${yield* ids.uuid}`,
      at: move.at,
      kind: t.kind,
      subjectId: t.subjectId,
      event: move.event
    })
  }
})
