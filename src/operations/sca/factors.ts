/**
 * Strong Customer Authentication (docs/sca.md): factor enrollment (TOTP, PASSKEY; SMS_OTP
 * is implicit once the phone is verified), SCA login (a session of 180 days), security
 * events with the reference's lockout ladder, and the liveness-gated 2FA reset. Every
 * endpoint is for customers in SCA regions only (others: 409 CONFLICT). A customer's SCA
 * state lives on its record, so each call is one read and one write of one document.
 */
import { Effect } from "effect"
import type { CustomerState } from "../../domain/customer.js"
import { badRequest, conflict, type Error400, type Error423, locked, tooMany } from "../../domain/errors.js"
import { DEFAULT_EMBEDDED_WALLETS, type Platform } from "../../domain/platform.js"
import type {
  ScaFactor,
  ScaFactorConfirmRequest,
  ScaFactorEnrollRequest,
  ScaFactorView,
  ScaLoginCompleteRequest,
  ScaLoginStart,
  ScaState,
  TwoFactorResetCompleteRequest,
  TwoFactorResetState
} from "../../domain/sca.js"
import { toBase64Url } from "../../crypto/bytes.js"
import { base32, verifyTotp } from "../../crypto/totp.js"
import { verifyPasskeyAssertion, verifyPasskeyRegistration } from "../../crypto/webauthn.js"
import { Ids } from "../../ports/ids.js"
import { type CustomerRecord, Store, type UnitOfWork } from "../../ports/store.js"
import {
  checkCode,
  clearFailures,
  ENROLLMENT_TTL_MS,
  isLocked,
  isResetTerminal,
  LOGIN_CODE_TTL_MS,
  NO_FAILURES,
  recordFailure,
  RESET_TTL_MS,
  resetRateCheck,
  resetTransition,
  SANDBOX_LIVENESS_DELAY_MS,
  SANDBOX_SCA_CODE,
  SCA_SESSION_TTL_MS,
  TOTP_DRIFT_STEPS
} from "../../rules/sca.js"
import { conflictIsDefect } from "../paging.js"
import { isoOf, nowMillis } from "../time.js"
import { done, hashCode, issueCode, type Kept, randomBytes, refused, scaCustomer, settle } from "./common.js"
import { missing } from "../not-found.js"

const fromHex = (hex: string): Uint8Array => new Uint8Array(Buffer.from(hex, "hex"))
const toHexText = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex")

/** The passkey relying party: the platform's embedded-wallet passkey settings, or their defaults. */
const relyingParty = (platform: Platform) => {
  const s = platform.embeddedWallets ?? DEFAULT_EMBEDDED_WALLETS
  return { rpId: s.rpId, allowedOrigins: s.allowedOrigins }
}

const scaOf = (rec: CustomerRecord): ScaState => rec.sca ?? {}

/** Whether SMS_OTP is available: the phone is verified (contact verification), or a reset enrolled a number. */
const smsAvailable = (customer: CustomerState, sca: ScaState): boolean =>
  sca.smsNumber !== undefined || (customer.phoneNumber !== undefined && customer.contactVerification?.phone === "VERIFIED")

const enrolled = (customer: CustomerState, sca: ScaState, factor: ScaFactor): boolean =>
  factor === "SMS_OTP" ? smsAvailable(customer, sca) : factor === "TOTP" ? sca.totp !== undefined : sca.passkey !== undefined

const notEnrolled = (factor: ScaFactor) =>
  badRequest("INVALID_INPUT", factor === "SMS_OTP"
    ? "SMS_OTP needs the customer's phone to be verified first (POST /customers/{customerId}/verify-phone and /confirm)"
    : `${factor} is not enrolled for this customer: enroll it with POST /sca/factors first`, { details: { field: "factor", factor } })

/** Writes the customer's SCA state; the record's unique keys do not change here, so a conflict is a bug. */
const put = (uow: UnitOfWork, rec: CustomerRecord, sca: ScaState) =>
  uow.putCustomer({ ...rec, sca }).pipe(Effect.catchTag("StoreConflict", conflictIsDefect))

/** Runs one unit of work over an SCA customer's record. */
const withCustomer = <A, E>(
  platform: Platform,
  customerId: string,
  work: (uow: UnitOfWork, rec: CustomerRecord, sca: ScaState, now: number) => Effect.Effect<A, E, Store | Ids>
) =>
  Effect.gen(function*() {
    const store = yield* Store
    return yield* store.transact((uow) =>
      Effect.gen(function*() {
        const rec = yield* scaCustomer(platform, customerId)
        return yield* work(uow, rec, scaOf(rec), yield* nowMillis)
      })
    )
  })

// ---------------------------------------------------------------- factors

const viewsOf = (customer: CustomerState, sca: ScaState): Array<ScaFactorView> => {
  const out: Array<ScaFactorView> = []
  if (smsAvailable(customer, sca)) out.push({ factor: "SMS_OTP" })
  if (sca.totp !== undefined) out.push({ factor: "TOTP" })
  if (sca.passkey !== undefined) out.push({ factor: "PASSKEY", credentialId: sca.passkey.credentialId })
  return out
}

/** GET /sca/factors. */
export const listScaFactors = (platform: Platform, customerId: string) =>
  Effect.map(scaCustomer(platform, customerId), (rec) => ({ factors: viewsOf(rec.customer, scaOf(rec)) }))

const ISSUER = "payments-service"

/** POST /sca/factors: the TOTP secret, or the passkey registration options. */
export const startScaFactorEnrollment = (platform: Platform, customerId: string, req: ScaFactorEnrollRequest) =>
  withCustomer(platform, customerId, (uow, rec, sca, now) =>
    Effect.gen(function*() {
      if (req.type === "TOTP") {
        if (sca.totp !== undefined) {
          return yield* conflict("CONFLICT", "A TOTP factor is already enrolled for this customer; recover it with POST /sca/factors/reset")
        }
        const secret = yield* randomBytes(20)
        const secretBase32Encoded = base32(secret)
        yield* put(uow, rec, { ...sca, pendingTotp: { secretHex: toHexText(secret), expiresAt: now + ENROLLMENT_TTL_MS } })
        const label = encodeURIComponent(`${ISSUER}:${rec.customer.email ?? customerId}`)
        return {
          type: "TOTP" as const,
          secret: toHexText(secret),
          secretBase32Encoded,
          totpUri: `otpauth://totp/${label}?secret=${secretBase32Encoded}&issuer=${ISSUER}&algorithm=SHA1&digits=6&period=30`
        }
      }
      if (sca.passkey !== undefined) {
        return yield* conflict("PASSKEY_ALREADY_ENROLLED", "This customer already has a passkey (one per customer): delete it with DELETE /sca/factors/{credentialId} first", {
          details: { credentialId: sca.passkey.credentialId }
        })
      }
      const challenge = toBase64Url(yield* randomBytes(32))
      const rp = relyingParty(platform)
      yield* put(uow, rec, { ...sca, pendingPasskey: { challenge, expiresAt: now + ENROLLMENT_TTL_MS } })
      return {
        type: "PASSKEY" as const,
        options: {
          challenge,
          rp: { id: rp.rpId, name: ISSUER },
          user: { id: toBase64Url(new TextEncoder().encode(customerId)), name: rec.customer.email ?? customerId, displayName: rec.customer.email ?? customerId },
          pubKeyCredParams: [{ type: "public-key", alg: -7 }],
          timeout: ENROLLMENT_TTL_MS,
          attestation: "none",
          authenticatorSelection: { residentKey: "preferred", userVerification: "preferred" }
        },
        allowedOrigins: [...rp.allowedOrigins],
        relyingPartyId: rp.rpId
      }
    }))

const invalidProof = (reason: string, details: Record<string, unknown> = {}) => badRequest("INVALID_INPUT", reason, { details })

/** A string field of an opaque WebAuthn object, or of its `response`. */
const field = (o: Readonly<Record<string, unknown>>, ...path: ReadonlyArray<string>): string | undefined => {
  let at: unknown = o
  for (const key of path) at = typeof at === "object" && at !== null && !Array.isArray(at) ? (at as Record<string, unknown>)[key] : undefined
  return typeof at === "string" ? at : undefined
}

/** The origin a WebAuthn ceremony ran against, when the platform allows it. */
const allowedOrigin = (platform: Platform, origin: string) =>
  relyingParty(platform).allowedOrigins.includes(origin)
    ? Effect.succeed(origin)
    : Effect.fail(invalidProof(`origin ${origin} is not one of the allowed origins`, { field: "origin", allowedOrigins: relyingParty(platform).allowedOrigins }))

/** Whether a TOTP code is right: the enrolled secret's current code (sandbox: also 123456). */
const totpMatches = (platform: Platform, secretHex: string, code: string, now: number) =>
  (platform.settings.sandbox && code === SANDBOX_SCA_CODE) || verifyTotp(fromHex(secretHex), code, now, TOTP_DRIFT_STEPS)

const recoveryCodes = Effect.gen(function*() {
  const bytes = yield* randomBytes(8 * 12)
  const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
  const codes: Array<string> = []
  for (let i = 0; i < 8; i++) {
    let c = ""
    for (let j = 0; j < 12; j++) c += alphabet[(bytes[i * 12 + j] ?? 0) % alphabet.length]
    codes.push(`${c.slice(0, 4)}-${c.slice(4, 8)}-${c.slice(8)}`)
  }
  return codes
})

/** POST /sca/factors/confirm: TOTP recovery codes, or the enrolled passkey. */
export const confirmScaFactorEnrollment = (platform: Platform, customerId: string, req: ScaFactorConfirmRequest) =>
  withCustomer(platform, customerId, (uow, rec, sca, now) =>
    Effect.gen(function*() {
      if (req.type === "TOTP") {
        const pending = sca.pendingTotp
        if (pending === undefined || pending.secretHex !== req.secret.toLowerCase()) {
          return yield* invalidProof("No TOTP enrollment was started with this secret: start one with POST /sca/factors", { field: "secret" })
        }
        if (now > pending.expiresAt) {
          yield* put(uow, rec, { ...sca, pendingTotp: undefined })
          return yield* invalidProof("The TOTP enrollment expired: start a new one with POST /sca/factors", { field: "secret" })
        }
        if (!totpMatches(platform, pending.secretHex, req.code, now)) {
          return yield* invalidProof("Invalid TOTP code: enter the current code of the authenticator app", { field: "code" })
        }
        const codes = yield* recoveryCodes
        yield* put(uow, rec, {
          ...sca,
          pendingTotp: undefined,
          totp: { secretHex: pending.secretHex, enrolledAt: now, recoveryCodeHashes: codes.map(hashCode) }
        })
        return { type: "TOTP" as const, recoveryCodes: codes }
      }
      const pending = sca.pendingPasskey
      if (sca.passkey !== undefined) {
        return yield* conflict("PASSKEY_ALREADY_ENROLLED", "This customer already has a passkey (one per customer): delete it first")
      }
      if (pending === undefined || now > pending.expiresAt) {
        return yield* invalidProof("No passkey enrollment is pending (or it expired): start one with POST /sca/factors", { field: "credential" })
      }
      const origin = yield* allowedOrigin(platform, req.origin)
      const credentialId = field(req.credential, "id")
      const clientDataJson = field(req.credential, "response", "clientDataJSON")
      const attestationObject = field(req.credential, "response", "attestationObject")
      if (credentialId === undefined || clientDataJson === undefined || attestationObject === undefined) {
        return yield* invalidProof("credential must be the WebAuthn registration as JSON: id, response.clientDataJSON and response.attestationObject (base64url)", { field: "credential" })
      }
      const verdict = verifyPasskeyRegistration({
        registration: { credentialId, clientDataJson, attestationObject },
        expectedChallenge: pending.challenge,
        allowedOrigins: [origin],
        rpId: relyingParty(platform).rpId
      })
      if (!verdict.ok) return yield* invalidProof(verdict.message, { field: "credential", reason: verdict.reason })
      const passkey = { credentialId: verdict.value.credentialId, publicKey: verdict.value.publicKey, counter: verdict.value.counter, enrolledAt: now }
      yield* put(uow, rec, { ...sca, pendingPasskey: undefined, passkey })
      return { type: "PASSKEY" as const, factor: { factor: "PASSKEY" as const, credentialId: passkey.credentialId } }
    }))

/** DELETE /sca/factors/{credentialId}: only passkeys carry a credential id. */
export const deleteScaFactor = (platform: Platform, customerId: string, credentialId: string) =>
  withCustomer(platform, customerId, (uow, rec, sca) =>
    Effect.gen(function*() {
      if (sca.passkey === undefined || sca.passkey.credentialId !== credentialId) {
        return yield* missing("scaFactor", `Customer ${customerId} has no enrolled factor with credentialId ${credentialId}`)
      }
      yield* put(uow, rec, { ...sca, passkey: undefined })
    }))

// ---------------------------------------------------------------- login

/** POST /sca/login/start. */
export const startScaLogin = (platform: Platform, customerId: string, factor: ScaFactor) =>
  withCustomer(platform, customerId, (uow, rec, sca, now) =>
    Effect.gen(function*() {
      const ids = yield* Ids
      if (!enrolled(rec.customer, sca, factor)) return yield* notEnrolled(factor)
      const expiresAt = now + LOGIN_CODE_TTL_MS
      if (factor === "SMS_OTP") {
        const { challenge } = yield* issueCode(platform, now, LOGIN_CODE_TTL_MS)
        const challengeId = `ScaChallenge:${yield* ids.uuid}`
        yield* put(uow, rec, { ...sca, login: { factor, challengeId, code: challenge, expiresAt } })
        const started: ScaLoginStart = { factor, challengeId, expiresAt: isoOf(expiresAt) }
        return started
      }
      if (factor === "TOTP") {
        yield* put(uow, rec, { ...sca, login: { factor, expiresAt } })
        const started: ScaLoginStart = { factor }
        return started
      }
      const rp = relyingParty(platform)
      const webauthnChallenge = toBase64Url(yield* randomBytes(32))
      yield* put(uow, rec, { ...sca, login: { factor, webauthnChallenge, expiresAt } })
      const started: ScaLoginStart = {
        factor,
        passkeyOptions: {
          challenge: webauthnChallenge,
          rpId: rp.rpId,
          allowCredentials: [{ type: "public-key", id: sca.passkey?.credentialId ?? "" }],
          timeout: LOGIN_CODE_TTL_MS,
          userVerification: "preferred"
        },
        allowedOrigins: [...rp.allowedOrigins],
        relyingPartyId: rp.rpId
      }
      return started
    }))

/** 423 ACCOUNT_LOCKED with the reference's details. */
export const lockedError = (security: ScaState["security"], now: number): Error423 => {
  const s = security ?? NO_FAILURES
  return locked(
    s.suspended
      ? "The customer's login is suspended after too many failed attempts; record RESET_PASSWORD_COMPLETED to lift it"
      : `The customer's login is locked after too many failed attempts until ${isoOf(s.lockedUntil ?? now)}`,
    { details: { suspended: s.suspended, lockedUntil: s.lockedUntil === undefined || s.suspended ? null : isoOf(s.lockedUntil), failedAttempts: s.failedAttempts } }
  )
}

/** The proof of a code factor or a passkey, checked against what the challenge expects. */
export interface ProofCheck {
  readonly ok: boolean
  /** Why it failed (a wrong proof counts as a failed attempt; a malformed one does not). */
  readonly reason?: string
  readonly counts?: boolean
  readonly sca?: ScaState
}

/** Checks a passkey assertion against the enrolled passkey and the issued challenge. */
export const checkPasskeyAssertion = (
  platform: Platform,
  sca: ScaState,
  assertion: Readonly<Record<string, unknown>>,
  origin: string,
  expectedChallenge: string
) =>
  Effect.gen(function*() {
    const passkey = sca.passkey
    if (passkey === undefined) return yield* notEnrolled("PASSKEY")
    const allowed = yield* allowedOrigin(platform, origin)
    const credentialId = field(assertion, "id")
    const clientDataJson = field(assertion, "response", "clientDataJSON")
    const authenticatorData = field(assertion, "response", "authenticatorData")
    const signature = field(assertion, "response", "signature")
    if (credentialId === undefined || clientDataJson === undefined || authenticatorData === undefined || signature === undefined) {
      return yield* invalidProof("passkeyAssertion must be the WebAuthn assertion as JSON: id, response.clientDataJSON, response.authenticatorData and response.signature (base64url)", { field: "passkeyAssertion" })
    }
    const verdict = verifyPasskeyAssertion({
      assertion: { credentialId, clientDataJson, authenticatorData, signature },
      credential: { id: passkey.credentialId, publicKey: passkey.publicKey, counter: passkey.counter },
      expectedChallenge,
      allowedOrigins: [allowed],
      rpId: relyingParty(platform).rpId,
      sandbox: platform.settings.sandbox
    })
    if (!verdict.ok) {
      // A malformed assertion is a client bug (400, not counted); a wrong one is a failed attempt.
      if (verdict.status === 400) return yield* invalidProof(verdict.message, { field: "passkeyAssertion", reason: verdict.reason })
      const failed: ProofCheck = { ok: false, reason: verdict.message, counts: true }
      return failed
    }
    const passed: ProofCheck = { ok: true, sca: { ...sca, passkey: { ...passkey, counter: verdict.value.newCounter } } }
    return passed
  })

type LoginOutcome = Kept<{ readonly status: string; readonly sessionExpiresAt: string }, Error400 | Error423>
const refuse = (error: Error400 | Error423): LoginOutcome => refused(error)

/** POST /sca/login/complete: a session of 180 days on the platform clock. */
export const completeScaLogin = (platform: Platform, customerId: string, req: ScaLoginCompleteRequest) =>
  settle(withCustomer(platform, customerId, (uow, rec, sca, now) =>
    Effect.gen(function*() {
      const security = sca.security ?? NO_FAILURES
      if (isLocked(security, now)) return refuse(lockedError(security, now))
      const login = sca.login
      if (login === undefined || login.factor !== req.factor) {
        return yield* invalidProof(`No ${req.factor} SCA login was started for this customer: start one with POST /sca/login/start`, { field: "factor" })
      }
      if (now > login.expiresAt) {
        yield* put(uow, rec, { ...sca, login: undefined })
        return refuse(invalidProof("The SCA login expired: start a new one with POST /sca/login/start", { field: "code", reason: "expired" }))
      }
      const code = req.code ?? undefined
      let check: ProofCheck
      if (req.factor === "PASSKEY") {
        const assertion = req.passkeyAssertion ?? undefined
        const origin = req.origin ?? undefined
        if (assertion === undefined || origin === undefined) {
          return yield* invalidProof("A PASSKEY login is completed with passkeyAssertion and origin", { field: assertion === undefined ? "passkeyAssertion" : "origin" })
        }
        check = yield* checkPasskeyAssertion(platform, sca, assertion, origin, login.webauthnChallenge ?? "")
      } else {
        if (code === undefined) return yield* invalidProof(`A ${req.factor} login is completed with code`, { field: "code" })
        if (req.factor === "SMS_OTP") {
          if ((req.challengeId ?? undefined) !== login.challengeId) {
            return yield* invalidProof("challengeId must be the one the SMS_OTP login start returned", { field: "challengeId" })
          }
          const verdict = login.code === undefined ? undefined : checkCode(login.code, hashCode(code), now, Number.POSITIVE_INFINITY)
          check = verdict?.ok === true ? { ok: true, sca } : { ok: false, reason: "Invalid SMS code", counts: true }
        } else {
          const totp = sca.totp
          const recovery = totp?.recoveryCodeHashes.includes(hashCode(code.toUpperCase())) === true
          if (totp !== undefined && totpMatches(platform, totp.secretHex, code, now)) check = { ok: true, sca }
          else if (totp !== undefined && recovery) {
            // A recovery code works once.
            check = { ok: true, sca: { ...sca, totp: { ...totp, recoveryCodeHashes: totp.recoveryCodeHashes.filter((h) => h !== hashCode(code.toUpperCase())) } } }
          } else check = { ok: false, reason: "Invalid TOTP code", counts: true }
        }
      }
      if (!check.ok) {
        const next = recordFailure(security, now)
        yield* put(uow, rec, { ...sca, security: next })
        if (isLocked(next, now)) return refuse(lockedError(next, now))
        return refuse(invalidProof(`${check.reason ?? "Invalid proof"}; failed attempts: ${next.failedAttempts}`, {
          field: req.factor === "PASSKEY" ? "passkeyAssertion" : "code",
          failedAttempts: next.failedAttempts
        }))
      }
      const sessionExpiresAt = now + SCA_SESSION_TTL_MS
      yield* put(uow, rec, { ...(check.sca ?? sca), login: undefined, security: clearFailures(security), sessionExpiresAt })
      const completed: LoginOutcome = done({ status: "SUCCESS", sessionExpiresAt: isoOf(sessionExpiresAt) })
      return completed
    })))

// ---------------------------------------------------------------- security events

/** POST /sca/record-event. */
export const recordSecurityEvent = (platform: Platform, customerId: string, eventType: "RESET_PASSWORD_COMPLETED" | "FAILED_LOGIN_ATTEMPT") =>
  withCustomer(platform, customerId, (uow, rec, sca, now) =>
    Effect.gen(function*() {
      const security = sca.security ?? NO_FAILURES
      let next = security
      if (eventType === "RESET_PASSWORD_COMPLETED") {
        // Revokes every SCA session and clears the counter.
        next = clearFailures(security)
        yield* put(uow, rec, { ...sca, security: next, sessionExpiresAt: undefined, login: undefined })
      } else {
        if (isLocked(security, now)) return yield* lockedError(security, now)
        next = recordFailure(security, now)
        yield* put(uow, rec, { ...sca, security: next })
      }
      return {
        eventType,
        suspended: next.suspended,
        lockedUntil: next.lockedUntil === undefined || next.suspended ? null : isoOf(next.lockedUntil),
        failedAttempts: next.failedAttempts
      }
    }))

// ---------------------------------------------------------------- 2FA reset

/** A reset's status now: the sandbox's liveness passes 30 s after the start; an open reset past its window is EXPIRED. */
export const resetStatusAt = (platform: Platform, reset: TwoFactorResetState, now: number): TwoFactorResetState["status"] => {
  if (isResetTerminal(reset.status)) return reset.status
  if (now > reset.expiresAt) return resetTransition(reset.status, "EXPIRE") ?? reset.status
  if (platform.settings.sandbox && now >= reset.createdAt + SANDBOX_LIVENESS_DELAY_MS) return resetTransition(reset.status, "LIVENESS_PASSED") ?? reset.status
  return reset.status
}

/** POST /sca/factors/reset: 201 with the reset handle; at most 5 per 24 hours (429 RATE_LIMITED). */
export const startTwoFactorReset = (platform: Platform, customerId: string, factor: ScaFactor) =>
  withCustomer(platform, customerId, (uow, rec, sca, now) =>
    Effect.gen(function*() {
      const ids = yield* Ids
      if (!enrolled(rec.customer, sca, factor)) return yield* notEnrolled(factor)
      const resets = sca.resets ?? []
      const rate = resetRateCheck(resets.map((r) => r.createdAt), now)
      if (!rate.allowed) {
        const retryAfterSeconds = Math.ceil(rate.retryAfterMs / 1000)
        return yield* tooMany("RATE_LIMITED", `At most 5 2FA resets may be started per 24 hours; retry in ${retryAfterSeconds} seconds`, {
          details: { retryAfterSeconds }
        })
      }
      const id = `ScaReset:${yield* ids.uuid}`
      const reset: TwoFactorResetState = { id, factor, status: "INITIATED", createdAt: now, expiresAt: now + RESET_TTL_MS }
      // Keep the window's resets (the rate limit reads them) and any still open.
      const kept = resets.filter((r) => r.createdAt > now - 24 * 3_600_000 || !isResetTerminal(resetStatusAt(platform, r, now)))
      yield* put(uow, rec, { ...sca, resets: [...kept, reset] })
      const token = (yield* ids.uuid).replace(/-/g, "")
      return {
        resetId: id,
        livenessAccessToken: `liveness_${token}`,
        verificationLink: `https://liveness.${platform.settings.sandbox ? "sandbox." : ""}payments-service.local/reset/${encodeURIComponent(id)}?token=${token}`,
        expiresAt: isoOf(reset.expiresAt)
      }
    }))

const findReset = (sca: ScaState, resetId: string) =>
  Effect.gen(function*() {
    const reset = (sca.resets ?? []).find((r) => r.id === resetId)
    if (reset === undefined) return yield* missing("twoFactorReset", `2FA reset ${resetId} not found for this customer`)
    return reset
  })

/** GET /sca/factors/reset/{resetId}. */
export const getTwoFactorResetStatus = (platform: Platform, customerId: string, resetId: string) =>
  withCustomer(platform, customerId, (_uow, _rec, sca, now) =>
    Effect.gen(function*() {
      const reset = yield* findReset(sca, resetId)
      const status = resetStatusAt(platform, reset, now)
      let enrollmentStatus: "PENDING" | "COMPLETED" | null = null
      if (status === "COMPLETED" && reset.factor !== "SMS_OTP") {
        const since = reset.completedAt ?? 0
        const again = reset.factor === "TOTP" ? (sca.totp?.enrolledAt ?? -1) >= since : (sca.passkey?.enrolledAt ?? -1) >= since
        enrollmentStatus = again ? "COMPLETED" : "PENDING"
      }
      return {
        status,
        factor: reset.factor,
        enrollmentStatus,
        expiresAt: isoOf(reset.expiresAt),
        completedAt: reset.completedAt === undefined ? null : isoOf(reset.completedAt)
      }
    }))

/** POST /sca/factors/reset/{resetId}/complete: clears the lost factor (SMS_OTP: enrolls the new number); 204. */
export const completeTwoFactorReset = (platform: Platform, customerId: string, resetId: string, body: TwoFactorResetCompleteRequest | undefined) =>
  withCustomer(platform, customerId, (uow, rec, sca, now) =>
    Effect.gen(function*() {
      const reset = yield* findReset(sca, resetId)
      const status = resetStatusAt(platform, reset, now)
      const completed = resetTransition(status, "COMPLETE")
      if (completed === undefined) {
        return yield* badRequest("INVALID_INPUT", `The reset is not ready to complete: its status is ${status}${status === "INITIATED" || status === "PENDING_REVIEW" ? " (liveness has not passed yet; poll GET /sca/factors/reset/{resetId})" : ""}`, {
          details: { status }
        })
      }
      let next: ScaState = sca
      if (reset.factor === "SMS_OTP") {
        const mobile = body?.mobile
        if (mobile === undefined) {
          return yield* badRequest("INVALID_INPUT", "An SMS_OTP reset is completed with the new mobile number", {
            details: { errors: [{ field: "mobile", constraint: "required", message: "is required for an SMS_OTP reset" }] }
          })
        }
        next = { ...next, smsNumber: `${mobile.countryCode}${mobile.number}` }
      } else if (reset.factor === "TOTP") {
        next = { ...next, totp: undefined, pendingTotp: undefined }
      } else {
        next = { ...next, passkey: undefined, pendingPasskey: undefined }
      }
      const resets = (sca.resets ?? []).map((r) => r.id === reset.id ? { ...r, status: completed, completedAt: now } : r)
      yield* put(uow, rec, { ...next, resets, login: undefined })
    }))
