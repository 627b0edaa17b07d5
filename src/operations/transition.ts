/**
 * The one way operations announce and schedule, and the one way a machine's transition
 * is written.
 *
 * - `eventOf` / `emit`: every event's envelope is built here (a new webhook id, the
 *   platform, the timestamp — the platform clock's now unless the caller names the
 *   instant the change happened — and the type); callers give the type and the data.
 * - `schedule`: every timer is built here (a new timer id, the platform, the machine's
 *   kind, the subject, when and which move).
 * - `applyTransition`: the new state, the events it announces and the moves it
 *   schedules go into one unit of work, so an event exists if and only if its state
 *   change committed, and a scheduled move if and only if the state that asked for it did.
 */
import { Effect } from "effect"
import { type DomainEvent, type EventFields, type EventOf, makeEvent, type WebhookType } from "../domain/events.js"
import type { Platform } from "../domain/platform.js"
import { Ids } from "../ports/ids.js"
import type { StoreConflict, UnitOfWork } from "../ports/store.js"
import { nowIso } from "./time.js"

/** What the caller gives of an event: its `data` (none for TEST) and, optionally, its timestamp. */
export type EventBody<T extends WebhookType> = T extends WebhookType
  ? Omit<EventFields<T>, "id" | "platformId" | "timestamp"> & { readonly timestamp?: string | undefined }
  : never

/** The event's envelope around `body`: the fields in one literal (no rest and spread copies: several events per payment). */
const build = <T extends WebhookType>(platformId: string, type: T, body: EventBody<T>, id: string, timestamp: string): EventOf<T> =>
  makeEvent(type, ("data" in body ? { data: body.data, id, platformId, timestamp } : { id, platformId, timestamp }) as unknown as EventFields<T>)

/**
 * An event of `type`, its envelope built: a new webhook id, the platform, the timestamp (the platform clock's now unless given).
 * The Ids service is read with `Ids.use` (one step, not a service lookup, its exit and a flatMap): it runs six times per payment.
 */
export const eventOf = <T extends WebhookType>(platform: Pick<Platform, "id">, type: T, body: EventBody<T>): Effect.Effect<EventOf<T>, never, Ids> =>
  Ids.use((ids) => {
    const timestamp = body.timestamp
    return timestamp === undefined
      ? Effect.flatMap(ids.make("Webhook"), (id) => Effect.map(nowIso, (now) => build(platform.id, type, body, id, now)))
      : Effect.map(ids.make("Webhook"), (id) => build(platform.id, type, body, id, timestamp))
  })

/** Appends an event of `type` to the unit of work's outbox (built as `eventOf` builds it). */
export const emit = <T extends WebhookType>(uow: UnitOfWork, platform: Pick<Platform, "id">, type: T, body: EventBody<T>): Effect.Effect<void, never, Ids> =>
  Ids.use((ids) => {
    const timestamp = body.timestamp
    return timestamp === undefined
      ? Effect.flatMap(ids.make("Webhook"), (id) => Effect.flatMap(nowIso, (now) => uow.emit(build(platform.id, type, body, id, now))))
      : Effect.flatMap(ids.make("Webhook"), (id) => uow.emit(build(platform.id, type, body, id, timestamp)))
  })

/** A move a machine asks for later, as data. */
export interface ScheduledMove {
  /** Epoch ms on the platform's clock. */
  readonly at: number
  readonly event: string
}

/** Schedules `move` for the subject under the machine's timer `kind`. */
export const schedule = (
  uow: UnitOfWork,
  platform: Platform,
  kind: string,
  subjectId: string,
  move: ScheduledMove
): Effect.Effect<void, never, Ids> =>
  Effect.gen(function*() {
    const ids = yield* Ids
    yield* uow.schedule({ platformId: platform.id, id: `Timer:${yield* ids.uuid}`, at: move.at, kind, subjectId, event: move.event })
  })

export interface Transition {
  /** Writes the new state of the resource. */
  readonly write: Effect.Effect<void, StoreConflict>
  /** The resource the state and the moves belong to. */
  readonly subjectId: string
  /** The machine's timer kind (the scheduler's handler for it). */
  readonly kind: string
  /** Events to append, in order, already built by `eventOf`. */
  readonly events?: ReadonlyArray<DomainEvent>
  /** Moves to schedule; they replace the subject's pending move of this kind. */
  readonly scheduled?: ReadonlyArray<ScheduledMove>
  /** Drop the subject's pending moves of this kind first (a move made now supersedes them). */
  readonly supersede?: boolean
}

export const applyTransition = Effect.fnUntraced(function*(uow: UnitOfWork, platform: Platform, t: Transition) {
  if (t.supersede === true) yield* uow.cancelTimers(platform.id, t.subjectId, t.kind)
  yield* t.write
  for (const event of t.events ?? []) yield* uow.emit(event)
  for (const move of t.scheduled ?? []) yield* schedule(uow, platform, t.kind, t.subjectId, move)
})
