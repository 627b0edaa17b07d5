/**
 * Contact Verification (docs/sca.md): POST /customers/{customerId}/verify-email and
 * /verify-phone send a one-time code, their /confirm sub-routes check it. Only for
 * customers whose provider requires it (SCA regions); others get 409. Both channels
 * must be VERIFIED before such a customer can begin KYC (POST /verifications).
 */
import { Effect } from "effect"
import type { CustomerState } from "../../domain/customer.js"
import { badRequest, conflict, type Error400 } from "../../domain/errors.js"
import type { ContactVerification } from "../../domain/sca.js"
import type { Platform } from "../../domain/platform.js"
import { Store } from "../../ports/store.js"
import { checkCode, CONTACT_CODE_MAX_ATTEMPTS, CONTACT_CODE_TTL_MS, type ContactChannel } from "../../rules/sca.js"
import { conflictIsDefect } from "../paging.js"
import { isoOf, nowMillis } from "../time.js"
import { done, hashCode, issueCode, type Kept, refused, scaCustomer, settle } from "./common.js"

type Confirmed = Kept<CustomerState, Error400>
const refusedWith = (error: Error400): Confirmed => refused(error)

const NAMES: Readonly<Record<ContactChannel, { readonly field: "email" | "phoneNumber"; readonly label: string; readonly path: string }>> = {
  email: { field: "email", label: "email", path: "verify-email" },
  phone: { field: "phoneNumber", label: "phone", path: "verify-phone" }
}

/** The customer and its channel, when the channel is required and not verified yet; else 409. */
const pendingChannel = Effect.fnUntraced(function*(platform: Platform, customerId: string, channel: ContactChannel) {
  const rec = yield* scaCustomer(platform, customerId, "Contact verification")
  const names = NAMES[channel]
  const status = rec.customer.contactVerification?.[channel]
  if (status === undefined) {
    return yield* conflict("CONFLICT", `The provider of customer ${customerId} does not require ${names.label} verification`)
  }
  if (status === "VERIFIED") {
    return yield* conflict("CONFLICT", `The ${names.label} of customer ${customerId} is already verified`, { details: { contactVerification: rec.customer.contactVerification } })
  }
  return rec
})

/** POST /customers/{customerId}/verify-email (verify-phone): sends (or resends) a code; 204. */
export const sendContactVerification = Effect.fnUntraced(function*(platform: Platform, customerId: string, channel: ContactChannel) {
  const store = yield* Store
  yield* store.transact((uow) =>
    Effect.gen(function*() {
      const rec = yield* pendingChannel(platform, customerId, channel)
      const names = NAMES[channel]
      if (rec.customer[names.field] === undefined) {
        return yield* conflict("CONFLICT", `Customer ${customerId} has no ${names.field} to verify: set it with PATCH /customers/${customerId} first`, {
          details: { field: names.field }
        })
      }
      const now = yield* nowMillis
      // A resend replaces the code: the old one stops working, the try count starts again.
      const { challenge } = yield* issueCode(platform, now, CONTACT_CODE_TTL_MS)
      yield* uow.putCustomer({ ...rec, contactCodes: { ...rec.contactCodes, [channel]: challenge } })
    })
  ).pipe(Effect.catchTag("StoreConflict", conflictIsDefect))
})

/** POST /customers/{customerId}/verify-email/confirm (verify-phone/confirm): the customer with the channel VERIFIED. */
export const confirmContactVerification = Effect.fnUntraced(function*(platform: Platform, customerId: string, channel: ContactChannel, code: string) {
  const store = yield* Store
  return yield* settle(store.transact((uow) =>
    Effect.gen(function*() {
      const rec = yield* pendingChannel(platform, customerId, channel)
      const names = NAMES[channel]
      const sent = rec.contactCodes?.[channel]
      if (sent === undefined) {
        return refusedWith(badRequest("INVALID_INPUT", `No ${names.label} verification code is pending for customer ${customerId}: request one with POST /customers/${customerId}/${names.path}`, {
          details: { field: "code" }
        }))
      }
      const now = yield* nowMillis
      const verdict = checkCode(sent, hashCode(code), now, CONTACT_CODE_MAX_ATTEMPTS)
      if (!verdict.ok) {
        yield* uow.putCustomer({ ...rec, contactCodes: { ...rec.contactCodes, [channel]: verdict.next } })
        const remaining = verdict.next === undefined ? 0 : CONTACT_CODE_MAX_ATTEMPTS - verdict.next.attempts
        const reason = verdict.reason === "expired"
          ? `The ${names.label} verification code expired; request a new one with POST /customers/${customerId}/${names.path}`
          : verdict.next === undefined
          ? `Invalid ${names.label} verification code; that was the last try for this code: request a new one with POST /customers/${customerId}/${names.path}`
          : `Invalid ${names.label} verification code (${remaining} ${remaining === 1 ? "try" : "tries"} left)`
        return refusedWith(badRequest("INVALID_INPUT", reason, { details: { field: "code", reason: verdict.reason, attemptsRemaining: remaining } }))
      }
      const contactVerification: ContactVerification = channel === "email"
        ? { ...rec.customer.contactVerification, email: "VERIFIED" }
        : { ...rec.customer.contactVerification, phone: "VERIFIED" }
      const customer: CustomerState = { ...rec.customer, contactVerification, updatedAt: isoOf(now) }
      yield* uow.putCustomer({ ...rec, customer, contactCodes: { ...rec.contactCodes, [channel]: undefined } })
      const confirmed: Confirmed = done(customer)
      return confirmed
    })
  ).pipe(Effect.catchTag("StoreConflict", conflictIsDefect)))
})
