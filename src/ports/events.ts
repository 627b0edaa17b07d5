/**
 * Events: every state change appends one to the Store's outbox in the same unit of
 * work (`UnitOfWork.emit`), and webhook delivery reads them from there. The event
 * type is the typed union of src/domain/events.ts (one member per webhook type).
 */
export type { DomainEvent } from "../domain/events.js"
