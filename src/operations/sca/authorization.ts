/**
 * Quote authorization (docs/sca.md): a quote of an SCA-region customer is held in
 * PENDING_AUTHORIZATION at execution (quotes.ts `holdForAuthorization`); POST
 * /quotes/{quoteId}/authorize with the code and a live SCA session releases the transfer,
 * POST /quotes/{quoteId}/authorize/resend sends the code again. An unanswered challenge
 * expires and the payment fails with SCA_NOT_COMPLETED (a scheduled move; nothing was
 * debited yet, so there is nothing to refund).
 */
import { Effect } from "effect"
import { badRequest, conflict, type Error400, type Error423, type Error429, tooMany } from "../../domain/errors.js"
import type { Platform } from "../../domain/platform.js"
import type { Quote } from "../../domain/quote.js"
import type { ScaAuthorization, ScaState } from "../../domain/sca.js"
import { type CustomerRecord, type QuoteRecord, Store, type UnitOfWork } from "../../ports/store.js"
import {
  AUTHORIZATION_MAX_WRONG_CODES,
  checkCode,
  isLocked,
  NO_FAILURES,
  recordFailure,
  requiresSca,
  resendCheck,
  sessionLive
} from "../../rules/sca.js"
import { quoteRecordOf, startPayment } from "../money/quotes.js"
import { movePayment } from "../money/payments.js"
import { conflictIsDefect } from "../paging.js"
import { isoOf, nowMillis } from "../time.js"
import { done, hashCode, issueCode, type Kept, refused } from "./common.js"
import { checkPasskeyAssertion, lockedError } from "./factors.js"

type Authorized = Kept<Quote, Error400 | Error423 | Error429>
const refuse = (error: Error400 | Error423 | Error429): Authorized => refused(error)

/** The quote's customer record, when its provider mandates SCA; else 409 CONFLICT. */
const scaCustomerOfQuote = Effect.fnUntraced(function*(platform: Platform, rec: QuoteRecord) {
  const store = yield* Store
  const customerId = rec.plan.customerId
  const customer = customerId === null ? undefined : yield* store.customers.get(platform.id, customerId)
  if (customer === undefined || !requiresSca(customer.customer.region)) {
    return yield* conflict("CONFLICT", `SCA is not required for quote ${rec.quote.id}: its customer is outside the SCA regions (EEA)`)
  }
  return customer
})

/** The pending challenge of a quote in PENDING_AUTHORIZATION; else 409 CONFLICT. */
const pendingChallenge = (rec: QuoteRecord) =>
  rec.quote.status === "PENDING_AUTHORIZATION" && rec.authorization !== undefined
    ? Effect.succeed(rec.authorization)
    : Effect.fail(conflict("CONFLICT", `Quote ${rec.quote.id} has no pending SCA challenge (status ${rec.quote.status})`, {
      details: { status: rec.quote.status }
    }))

const retryAfter = (ms: number) => ({ retryAfterSeconds: Math.max(1, Math.ceil(ms / 1000)) })

const putSca = (uow: UnitOfWork, customer: CustomerRecord, sca: ScaState) =>
  uow.putCustomer({ ...customer, sca }).pipe(Effect.catchTag("StoreConflict", conflictIsDefect))

/** POST /quotes/{quoteId}/authorize: the quote after the transfer is released. */
export const authorizeQuote = (platform: Platform, quoteId: string, proof: ScaAuthorization) =>
  Effect.gen(function*() {
    const store = yield* Store
    const kept = yield* store.transact((uow) =>
      Effect.gen(function*() {
        const rec = yield* quoteRecordOf(platform, quoteId)
        const customer = yield* scaCustomerOfQuote(platform, rec)
        const challenge = yield* pendingChallenge(rec)
        const now = yield* nowMillis
        const sca = customer.sca ?? {}
        const security = sca.security ?? NO_FAILURES
        if (isLocked(security, now)) return refuse(lockedError(security, now))
        if (!sessionLive(sca.sessionExpiresAt, now)) {
          return yield* conflict("SCA_SESSION_REQUIRED", "The customer's SCA login session is missing or expired: complete POST /sca/login/start and /sca/login/complete, then authorize again", {
            details: { customerId: customer.customer.id, sessionExpiresAt: sca.sessionExpiresAt === undefined ? null : isoOf(sca.sessionExpiresAt) }
          })
        }
        if (now > challenge.expiresAt) {
          return refuse(badRequest("INVALID_INPUT", `The SCA challenge expired at ${isoOf(challenge.expiresAt)}; the payment fails with SCA_NOT_COMPLETED`, {
            details: { field: "code", reason: "expired" }
          }))
        }
        if (challenge.wrongCodes >= AUTHORIZATION_MAX_WRONG_CODES) {
          return refuse(tooMany("RATE_LIMITED", `Too many wrong codes for this SCA challenge; it can no longer be authorized`, {
            details: retryAfter(challenge.expiresAt - now)
          }))
        }
        let passed: boolean
        let verified: ScaState = sca
        if (challenge.factor === "PASSKEY") {
          const assertion = proof.passkeyAssertion ?? undefined
          const origin = proof.origin ?? undefined
          if (assertion === undefined || origin === undefined) {
            return yield* badRequest("INVALID_INPUT", "This SCA challenge's factor is PASSKEY: authorize it with `passkeyAssertion` and `origin`", {
              details: {
                errors: [{ field: assertion === undefined ? "passkeyAssertion" : "origin", constraint: "required", message: "is required for a PASSKEY challenge" }],
                factor: challenge.factor
              }
            })
          }
          const check = yield* checkPasskeyAssertion(platform, sca, assertion, origin, challenge.webauthnChallenge ?? "")
          passed = check.ok
          if (check.sca !== undefined) verified = check.sca
        } else {
          const code = proof.code ?? undefined
          if (code === undefined) {
            const passkey = proof.passkeyAssertion !== undefined && proof.passkeyAssertion !== null
            return yield* badRequest("INVALID_INPUT", passkey
              ? "This SCA challenge's factor is SMS_OTP: authorize it with `code`"
              : "An SCA proof is required: `code` (SMS_OTP)", {
              details: { errors: [{ field: "code", constraint: "required", message: "is required for an SMS_OTP challenge" }], factor: challenge.factor }
            })
          }
          passed = challenge.code !== undefined && checkCode(challenge.code, hashCode(code), now, Number.POSITIVE_INFINITY).ok
        }
        if (!passed) {
          const wrongCodes = challenge.wrongCodes + 1
          yield* uow.putQuote({ ...rec, authorization: { ...challenge, wrongCodes } })
          const nextSecurity = recordFailure(security, now)
          yield* putSca(uow, customer, { ...sca, security: nextSecurity })
          if (isLocked(nextSecurity, now)) return refuse(lockedError(nextSecurity, now))
          const remaining = Math.max(0, AUTHORIZATION_MAX_WRONG_CODES - wrongCodes)
          const field = challenge.factor === "PASSKEY" ? "passkeyAssertion" : "code"
          return refuse(badRequest("INVALID_INPUT", `Invalid SCA ${challenge.factor === "PASSKEY" ? "passkey assertion" : "code"} (${remaining} ${remaining === 1 ? "try" : "tries"} left for this challenge)`, {
            details: { field, attemptsRemaining: remaining, failedAttempts: nextSecurity.failedAttempts }
          }))
        }
        if (verified !== sca) yield* putSca(uow, customer, verified)
        // Released: the held payment moves PENDING_AUTHORIZATION → PENDING, then executes as any other.
        const held = yield* store.transactions.get(platform.id, rec.quote.transactionId)
        if (held === undefined) return yield* Effect.die(new Error(`quote ${quoteId} in PENDING_AUTHORIZATION has no payment`))
        const authorized = yield* movePayment(uow, platform, held, { type: "AUTHORIZE" })
        const after = yield* quoteRecordOf(platform, quoteId)
        const quote = yield* startPayment(uow, platform, { ...after, authorization: undefined }, now, authorized.transaction.createdAt)
        const released: Authorized = done(quote)
        return released
      })
    )
    if (kept._tag === "Refused") return yield* Effect.fail(kept.error)
    return kept.value
  })

/** POST /quotes/{quoteId}/authorize/resend: 204; once per 30 seconds, at most 5 times (429 RATE_LIMITED). */
export const resendQuoteScaCode = (platform: Platform, quoteId: string) =>
  Effect.gen(function*() {
    const store = yield* Store
    yield* store.transact((uow) =>
      Effect.gen(function*() {
        const rec = yield* quoteRecordOf(platform, quoteId)
        yield* scaCustomerOfQuote(platform, rec)
        const challenge = yield* pendingChallenge(rec)
        if (challenge.factor !== "SMS_OTP") {
          return yield* conflict("CONFLICT", `This SCA challenge's factor is ${challenge.factor}: its code cannot be re-sent`)
        }
        const now = yield* nowMillis
        if (now > challenge.expiresAt) {
          return yield* conflict("CONFLICT", `The SCA challenge expired at ${isoOf(challenge.expiresAt)}; it cannot be re-sent`)
        }
        const check = resendCheck(challenge, now)
        if (!check.allowed) {
          return yield* tooMany("RATE_LIMITED", "The SCA code was re-sent too recently (or too often for this challenge)", { details: retryAfter(check.retryAfterMs) })
        }
        // The same challenge (same id, same expiry): the sandbox code stays 123456; a production
        // code is replaced by the new one sent.
        const code = platform.settings.sandbox ? challenge.code : { ...(yield* issueCode(platform, now, challenge.expiresAt - now)).challenge, expiresAt: challenge.expiresAt }
        yield* uow.putQuote({ ...rec, authorization: { ...challenge, code, sends: [...challenge.sends, now] } })
      })
    )
  })
