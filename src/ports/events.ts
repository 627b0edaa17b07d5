/**
 * Events: every state change appends one to the Store's outbox in the same unit of
 * work (`UnitOfWork.emit`), and webhook delivery reads them from there.
 */
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
