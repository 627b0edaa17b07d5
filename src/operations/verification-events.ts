/**
 * Applies the verification-side status machines inside a unit of work and appends
 * what they emit (CUSTOMER.KYC_*, CUSTOMER.KYB_*, VERIFICATION.*) to the outbox.
 */
import { Effect } from "effect"
import type { CustomerState } from "../domain/customer.js"
import type { Error400 } from "../domain/errors.js"
import type { DomainEvent } from "../domain/events.js"
import type { Platform } from "../domain/platform.js"
import type { Verification } from "../domain/verification.js"
import type { CustomerRecord, UnitOfWork } from "../ports/store.js"
import { openAccounts } from "./money/accounts.js"
import { applyTransition, eventOf } from "./transition.js"
import * as Kyb from "../rules/kyb.js"
import * as Kyc from "../rules/kyc.js"
import type { KycEvent } from "../rules/kyc.js"
import * as VerificationMachine from "../rules/verification.js"
import type { VerificationEvent } from "../rules/verification.js"
import type { Rejection } from "../rules/rejection.js"
import type { Moved, Result } from "../rules/result.js"
import { rejected, toApiError } from "./rejection.js"

/** What the KYC and KYB machines announce. */
export type CustomerEmitted = Kyc.KycEmitted | Kyb.KybEmitted

/** The timer kind of the customer machines (none scheduled yet; the subject of their transitions). */
export const CUSTOMER_KIND = "customer"
export const VERIFICATION_KIND = "verification"

/** The customer events a move announced, each carrying the customer after the move. */
export const customerEventsOf = Effect.fnUntraced(function*(
  platform: Platform,
  types: ReadonlyArray<CustomerEmitted>,
  customer: CustomerState,
  timestamp: string
) {
  const events: Array<DomainEvent> = []
  for (const type of types) events.push(yield* eventOf(platform, type, { timestamp, data: customer }))
  return events
})

/** Writes a customer and the events its move announced, together (`applyTransition`). */
export const writeCustomer = Effect.fnUntraced(function*(
  uow: UnitOfWork,
  platform: Platform,
  record: CustomerRecord,
  types: ReadonlyArray<CustomerEmitted>,
  timestamp: string
) {
  const events = yield* customerEventsOf(platform, types, record.customer, timestamp)
  yield* applyTransition(uow, platform, { write: uow.putCustomer(record), subjectId: record.customer.id, kind: CUSTOMER_KIND, events })
  // An approved customer gets its internal accounts, one per platform currency, at once.
  if (types.includes("CUSTOMER.KYC_APPROVED") || types.includes("CUSTOMER.KYB_APPROVED")) {
    yield* openAccounts(uow, platform, record.customer.id)
  }
})

/** One VERIFICATION.* event carrying the verification as it was at that step. */
export const verificationEventOf = Effect.fnUntraced(function*(
  platform: Platform,
  type: VerificationMachine.VerificationEmitted,
  verification: Verification,
  timestamp: string
) {
  return yield* eventOf(platform, type, { timestamp, data: verification })
})

/**
 * Moves a customer's kycStatus or kybStatus by one event. Returns the customer as it
 * is after the move and the webhook types the move announces.
 */
export const moveCustomer = (
  customer: CustomerState,
  event: KycEvent,
  now: string
): Effect.Effect<{ readonly customer: CustomerState; readonly events: ReadonlyArray<CustomerEmitted> }, Error400> => {
  const individual = customer.customerType === "INDIVIDUAL"
  const from = individual ? customer.kycStatus : customer.kybStatus
  const r: Result<Moved<Kyc.KycState, CustomerEmitted>, Rejection<"INVALID_INPUT">> = individual
    ? Kyc.transition(customer.kycStatus, event)
    : Kyb.transition(customer.kybStatus, event)
  if (!r.ok) return rejected(r.error)
  if (r.value.state === from) return Effect.succeed({ customer, events: r.value.events })
  const moved = individual ? { ...customer, kycStatus: r.value.state, updatedAt: now } : { ...customer, kybStatus: r.value.state, updatedAt: now }
  return Effect.succeed({ customer: moved, events: r.value.events })
}

/**
 * Runs a verification from NEW through `events`; the final status and what it emitted.
 * The sequences are fixed by the operations, so a refusal here is a bug (a defect).
 */
export const runVerification = (events: ReadonlyArray<VerificationEvent>) => {
  const r = VerificationMachine.run(events)
  return r.ok ? Effect.succeed(r.value) : Effect.die(toApiError(r.error))
}

export type { Verification }
