/** The Events port: the outbox of state changes that webhook delivery reads. */
import { Context, type Effect } from "effect"

export interface DomainEvent {
  /** `Webhook:<uuid>`: the delivery id a receiver can deduplicate on. */
  readonly id: string
  readonly platformId: string
  /** The webhook type, e.g. `EXTERNAL_ACCOUNT.STATUS_UPDATED`. */
  readonly type: string
  readonly timestamp: string
  /** The full resource after the change. */
  readonly data: unknown
}

export class Events extends Context.Service<Events, {
  /** Appends committed events, in order. Called by a Store when a unit of work commits. */
  readonly append: (events: ReadonlyArray<DomainEvent>) => Effect.Effect<void>
  /** The platform's events, oldest first. */
  readonly list: (platformId: string) => Effect.Effect<ReadonlyArray<DomainEvent>>
}>()("payments-service/ports/Events") {}
