/**
 * Strong Customer Authentication and Contact Verification rules (docs/sca.md). Pure:
 * plain data in, verdicts and next states out; time comes in as an argument.
 *
 * - Which customers: those whose `region` is in the EEA (the provider mandates SCA and
 *   contact verification there); every other customer gets 409 from these endpoints.
 * - One-time codes: six digits, sandbox `123456` (the reference file's value), good for
 *   a limited time and a limited number of wrong tries.
 * - Lockout: the reference's ladder for cumulative failed logins (5 → 15 min, 6 → 30 min,
 *   7 → 1 h, 8 → 24 h, 9 or more → suspended until a password reset).
 */
import type { CodeChallenge, ContactVerification, LoginSecurity } from "../domain/sca.js"

export type { CodeChallenge, LoginSecurity }

/** SCA regions: the EEA (EU members plus Iceland, Liechtenstein and Norway). */
export const SCA_REGIONS: ReadonlySet<string> = new Set([
  "AT", "BE", "BG", "HR", "CY", "CZ", "DK", "EE", "FI", "FR", "DE", "GR", "HU", "IE", "IT", "LV", "LT", "LU", "MT",
  "NL", "PL", "PT", "RO", "SK", "SI", "ES", "SE", "IS", "LI", "NO"
])

/** Whether a customer's provider mandates SCA and contact verification: its region is in the EEA. */
export const requiresSca = (region: string | undefined): boolean => region !== undefined && SCA_REGIONS.has(region)

/** The sandbox code of every SCA and contact-verification challenge (the reference file's fixed value). */
export const SANDBOX_SCA_CODE = "123456"

// ---------------------------------------------------------------- limits

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

/** A contact-verification code can be confirmed for 10 minutes after it was sent. */
export const CONTACT_CODE_TTL_MS = 10 * MINUTE
/** Wrong tries a contact-verification code takes; the next try needs a new code. */
export const CONTACT_CODE_MAX_ATTEMPTS = 5
/** An SMS login code lives 5 minutes. */
export const LOGIN_CODE_TTL_MS = 5 * MINUTE
/** An enrollment (TOTP secret or passkey registration options) can be confirmed for 10 minutes. */
export const ENROLLMENT_TTL_MS = 10 * MINUTE
/** SPEC.md: an SCA session lasts 180 days. */
export const SCA_SESSION_TTL_MS = 180 * DAY
/** A quote's authorization challenge lives 5 minutes; unanswered, the payment fails with SCA_NOT_COMPLETED. */
export const AUTHORIZATION_TTL_MS = 5 * MINUTE
/** Wrong codes one authorization challenge takes before it is invalidated (429 RATE_LIMITED after). */
export const AUTHORIZATION_MAX_WRONG_CODES = 3
/** At most one resend of an authorization code per 30 seconds, and at most 5 resends per challenge. */
export const RESEND_INTERVAL_MS = 30_000
export const RESEND_MAX = 5
/** The reference: 2FA reset initiation is limited to 5 per 24 hours per customer. */
export const RESET_LIMIT = 5
export const RESET_WINDOW_MS = DAY
/** A 2FA reset's window: liveness and completion within 30 minutes. */
export const RESET_TTL_MS = 30 * MINUTE
/** Sandbox: the liveness check passes 30 seconds after the reset starts (a scheduled move). */
export const SANDBOX_LIVENESS_DELAY_MS = 30_000
/** TOTP: RFC 6238 defaults (30-second steps, six digits, SHA-1), one step of drift either way. */
export const TOTP_STEP_SECONDS = 30
export const TOTP_DRIFT_STEPS = 1

// ---------------------------------------------------------------- one-time codes


export type CodeVerdict =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: "expired" | "exhausted" | "wrong"; readonly next: CodeChallenge | undefined }

/**
 * Checks a submitted code (by its hash) against a challenge. A wrong code counts a try;
 * the try that reaches `maxAttempts` spends the challenge (`next` undefined), as does a
 * try after it lapsed.
 */
export const checkCode = (
  challenge: CodeChallenge,
  submittedHash: string,
  now: number,
  maxAttempts: number
): CodeVerdict => {
  if (now > challenge.expiresAt) return { ok: false, reason: "expired", next: undefined }
  if (challenge.attempts >= maxAttempts) return { ok: false, reason: "exhausted", next: undefined }
  if (submittedHash === challenge.codeHash) return { ok: true }
  const attempts = challenge.attempts + 1
  return { ok: false, reason: "wrong", next: attempts >= maxAttempts ? undefined : { ...challenge, attempts } }
}

// ---------------------------------------------------------------- contact verification

export type ContactChannel = "email" | "phone"
export type ContactVerificationState = ContactVerification

/** What a new customer's `contactVerification` is: both channels PENDING in SCA regions, absent elsewhere. */
export const contactVerificationAtCreation = (region: string | undefined): ContactVerificationState | undefined =>
  requiresSca(region) ? { email: "PENDING", phone: "PENDING" } : undefined

/**
 * `contactVerification` after an update: absent outside SCA regions; in them, a channel
 * whose contact value changed is PENDING again, the others keep their status.
 */
export const contactVerificationAfterUpdate = (
  previous: { readonly region?: string | undefined; readonly email?: string | undefined; readonly phoneNumber?: string | undefined; readonly contactVerification?: ContactVerificationState | undefined },
  next: { readonly region?: string | undefined; readonly email?: string | undefined; readonly phoneNumber?: string | undefined }
): ContactVerificationState | undefined => {
  if (!requiresSca(next.region)) return undefined
  const was = previous.contactVerification ?? { email: "PENDING", phone: "PENDING" }
  return {
    email: previous.email === next.email ? was.email ?? "PENDING" : "PENDING",
    phone: previous.phoneNumber === next.phoneNumber ? was.phone ?? "PENDING" : "PENDING"
  }
}

/** The channels that still keep a customer from beginning KYC (every present channel must be VERIFIED). */
export const unverifiedChannels = (state: ContactVerificationState | undefined): ReadonlyArray<ContactChannel> => {
  if (state === undefined) return []
  const out: Array<ContactChannel> = []
  if (state.email !== undefined && state.email !== "VERIFIED") out.push("email")
  if (state.phone !== undefined && state.phone !== "VERIFIED") out.push("phone")
  return out
}

// ---------------------------------------------------------------- login security (lockout)


export const NO_FAILURES: LoginSecurity = { failedAttempts: 0, suspended: false }

/** The reference's ladder: how long the Nth cumulative failure locks for (undefined: not yet; Infinity: suspension). */
export const lockoutAfter = (failedAttempts: number): number | undefined => {
  if (failedAttempts < 5) return undefined
  if (failedAttempts === 5) return 15 * MINUTE
  if (failedAttempts === 6) return 30 * MINUTE
  if (failedAttempts === 7) return HOUR
  if (failedAttempts === 8) return DAY
  return Number.POSITIVE_INFINITY
}

/** One more failed login (a recorded FAILED_LOGIN_ATTEMPT or a wrong SCA code). */
export const recordFailure = (state: LoginSecurity, now: number): LoginSecurity => {
  const failedAttempts = state.failedAttempts + 1
  const lock = lockoutAfter(failedAttempts)
  if (lock === undefined) return { failedAttempts, suspended: false }
  if (lock === Number.POSITIVE_INFINITY) return { failedAttempts, suspended: true }
  return { failedAttempts, suspended: false, lockedUntil: now + lock }
}

/** RESET_PASSWORD_COMPLETED (and a successful SCA login) clear the counter and any lock. */
export const clearFailures = (_state: LoginSecurity): LoginSecurity => NO_FAILURES

/** Whether the customer is locked out now. */
export const isLocked = (state: LoginSecurity, now: number): boolean =>
  state.suspended || (state.lockedUntil !== undefined && now < state.lockedUntil)

// ---------------------------------------------------------------- sessions

/** Whether an SCA session (its expiry, epoch ms) is live now. */
export const sessionLive = (sessionExpiresAt: number | undefined, now: number): boolean =>
  sessionExpiresAt !== undefined && now < sessionExpiresAt

// ---------------------------------------------------------------- 2FA reset

export type ResetStatus = "INITIATED" | "PENDING_REVIEW" | "LIVENESS_PASSED" | "COMPLETED" | "REJECTED" | "EXPIRED"
export type ResetMove = "LIVENESS_SUBMITTED" | "LIVENESS_PASSED" | "LIVENESS_FAILED" | "COMPLETE" | "EXPIRE"

const RESET_MOVES: Readonly<Record<ResetStatus, Partial<Record<ResetMove, ResetStatus>>>> = {
  INITIATED: { LIVENESS_SUBMITTED: "PENDING_REVIEW", LIVENESS_PASSED: "LIVENESS_PASSED", LIVENESS_FAILED: "REJECTED", EXPIRE: "EXPIRED" },
  PENDING_REVIEW: { LIVENESS_PASSED: "LIVENESS_PASSED", LIVENESS_FAILED: "REJECTED", EXPIRE: "EXPIRED" },
  LIVENESS_PASSED: { COMPLETE: "COMPLETED", EXPIRE: "EXPIRED" },
  COMPLETED: {},
  REJECTED: {},
  EXPIRED: {}
}

/** The 2FA reset machine: the next status, or undefined when the status does not take the move. */
export const resetTransition = (status: ResetStatus, move: ResetMove): ResetStatus | undefined => RESET_MOVES[status][move]

export const isResetTerminal = (status: ResetStatus): boolean => status === "COMPLETED" || status === "REJECTED" || status === "EXPIRED"

/** Resets started in the window before `now`; `retryAfterMs` when one more would pass the limit. */
export const resetRateCheck = (startedAt: ReadonlyArray<number>, now: number): { readonly allowed: boolean; readonly retryAfterMs: number } => {
  const recent = startedAt.filter((t) => t > now - RESET_WINDOW_MS).sort((a, b) => a - b)
  if (recent.length < RESET_LIMIT) return { allowed: true, retryAfterMs: 0 }
  const oldest = recent[recent.length - RESET_LIMIT] ?? now
  return { allowed: false, retryAfterMs: Math.max(1000, oldest + RESET_WINDOW_MS - now) }
}

// ---------------------------------------------------------------- quote authorization

export interface AuthorizationChallengeState {
  readonly expiresAt: number
  readonly sends: ReadonlyArray<number>
}

/** Whether a resend is allowed now; `retryAfterMs` says when one will be. */
export const resendCheck = (c: AuthorizationChallengeState, now: number): { readonly allowed: boolean; readonly retryAfterMs: number } => {
  const last = c.sends.length === 0 ? undefined : Math.max(...c.sends)
  if (c.sends.length > RESEND_MAX) return { allowed: false, retryAfterMs: Math.max(1000, c.expiresAt - now) }
  if (last !== undefined && now - last < RESEND_INTERVAL_MS) return { allowed: false, retryAfterMs: RESEND_INTERVAL_MS - (now - last) }
  return { allowed: true, retryAfterMs: 0 }
}
