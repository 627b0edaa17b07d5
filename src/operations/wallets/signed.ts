/**
 * The two-leg signed flow (SPEC.md Authentication 3–5), one mechanism every signed
 * embedded-wallet action passes through:
 *
 * 1. First leg (neither `Service-Wallet-Signature` nor `Request-Id`): the action's checks
 *    run, then a challenge is stored and answered 202 `{payloadToSign, requestId,
 *    expiresAt}`. `payloadToSign` binds the action, the wallet, the canonical request,
 *    the request id and the time.
 * 2. Retry (both headers, the same request): the challenge must exist for this action
 *    and wallet, be unexpired and unused; the stamp must verify over `payloadToSign` with
 *    the key of an active session of the wallet (or the keys the first leg named); the
 *    request must be the first leg's (else WALLET_SIGNATURE_BODY_MISMATCH); the OTP
 *    credential set must be the one at the challenge (else 409 …_CREDENTIAL_SET_CHANGED).
 *    Then the action runs and the challenge is used up, in one unit of work: a request id
 *    is good for one successful retry, and two racing retries cannot both succeed.
 *
 * A multi-leg action (`POST /auth/delegated-keys`: three legs) answers a retry with
 * another challenge instead of its result: its `perform` returns `AnotherLeg`, and the
 * mechanism issues the next challenge in the same unit of work (same action, wallet and
 * request; a new request id, `payloadToSign` and `expiresAt`). That challenge is then
 * retried exactly like the first one, so every retry error holds on every leg.
 *
 * Quote execution signs the quote's own `payloadToSign` without a `Request-Id`
 * (`verifyQuoteSignature`).
 */
import { sha256 } from "@noble/hashes/sha2.js"
import { bytesToHex } from "@noble/hashes/utils.js"
import { Clock, Effect } from "effect"
import { verifyWalletStamp } from "../../crypto/stamp.js"
import { conflict, type Error401, type Error404, type Error409, unauthorized } from "../../domain/errors.js"
import type { Platform } from "../../domain/platform.js"
import type { AuthMethodType, SignedRequestChallenge } from "../../domain/wallet.js"
import { Ids } from "../../ports/ids.js"
import { type AuthCredentialRecord, type AuthSessionRecord, type InternalAccountRecord, Store, type UnitOfWork, type WalletRequestRecord } from "../../ports/store.js"
import { isoOf } from "../time.js"
import { missing } from "../not-found.js"

/** How long a first leg's challenge can be retried. */
export const SIGNED_REQUEST_TTL_MILLIS = 5 * 60_000

export interface SignedHeaders {
  readonly signature?: string | undefined
  readonly requestId?: string | undefined
}

/** What a signed endpoint answers: the first leg's challenge, or the action's result. */
export type Signed<A> =
  | { readonly _tag: "Challenge"; readonly challenge: SignedRequestChallenge & { readonly type?: AuthMethodType } }
  | { readonly _tag: "Done"; readonly value: A }

/** JSON with object keys sorted at every level: the same request always binds the same text. */
export const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined)
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`
  }
  return JSON.stringify(value) ?? "null"
}

const fingerprintOf = (request: unknown): string => bytesToHex(sha256(new TextEncoder().encode(canonicalJson(request))))

/**
 * The text a signer signs: the action, the wallet, the request, the request id and the
 * time, and (multi-leg actions) what this leg's signature authorizes (`context`).
 */
export const payloadOf = (p: {
  readonly action: string
  readonly accountId: string
  readonly request: unknown
  readonly requestId: string
  readonly timestampMs: number
  readonly context?: Readonly<Record<string, string>> | undefined
}): string =>
  canonicalJson({
    accountId: p.accountId,
    context: p.context,
    parameters: p.request,
    requestId: p.requestId,
    timestampMs: String(p.timestampMs),
    type: p.action
  })

// ---------------------------------------------------------------- wallet lookups

/** The wallet account, or 404 (no such account) / 409 WALLET_NOT_PROVISIONED (not an embedded wallet). */
export const walletAccount = Effect.fnUntraced(function*(platform: Platform, accountId: string): Effect.fn.Return<InternalAccountRecord, Error404 | Error409, Store> {
  const store = yield* Store
  const rec = yield* store.internalAccounts.get(platform.id, accountId)
  if (rec === undefined || rec.customerId === null) return yield* missing("internalAccount", `Internal account ${accountId} not found`)
  if (rec.type !== "EMBEDDED_WALLET" || platform.embeddedWallets === undefined) {
    return yield* conflict("WALLET_NOT_PROVISIONED", `Internal account ${accountId} has no embedded wallet provisioned`)
  }
  return rec
})

export const credentialsOf = (platform: Platform, accountId: string) =>
  Effect.flatMap(Effect.service(Store), (store) => store.wallets.byAccount(platform.id, "credential", accountId))

/** The wallet's sessions that are not revoked and not expired at `nowMs`. */
export const activeSessionsOf = (platform: Platform, accountId: string, nowMs: number) =>
  Effect.map(
    Effect.flatMap(Effect.service(Store), (store) => store.wallets.byAccount(platform.id, "session", accountId)),
    (sessions) => sessions.filter((s) => !s.revoked && s.expiresAt > nowMs)
  )

const otpSets = (credentials: ReadonlyArray<AuthCredentialRecord>) => ({
  emailOtpSet: credentials.filter((c) => c.type === "EMAIL_OTP").map((c) => c.id).sort(),
  smsOtpSet: credentials.filter((c) => c.type === "SMS_OTP").map((c) => c.id).sort()
})

const sameSet = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) => a.length === b.length && a.every((x, i) => x === b[i])

// ---------------------------------------------------------------- the mechanism

/** What a challenge carries to the leg that answers it. */
export interface LegContext {
  /** What the signature over the challenge authorizes beyond the request; bound into `payloadToSign`, shown to the signer. */
  readonly context?: Readonly<Record<string, string>> | undefined
  /** Server-side material that leg needs (a custodied key): stored with the challenge, never shown, dropped once used. */
  readonly kept?: Readonly<Record<string, string>> | undefined
}

/**
 * What a multi-leg action's `perform` returns instead of its result: the retry answers
 * another challenge (202) to be signed and retried in turn, carrying `next` to that leg.
 */
export class AnotherLeg {
  readonly _tag = "AnotherLeg"
  constructor(readonly next: LegContext = {}) {}
}

export interface SignedSpec<A, E, R, E2 = never, R2 = never, E3 = never, R3 = never, E4 = never, R4 = never> {
  readonly platform: Platform
  /** The wallet whose session signs. */
  readonly accountId: string
  /** The endpoint, e.g. `DELETE /auth/credentials/{id}`. */
  readonly action: string
  /** Path parameters and body: what the signature binds. */
  readonly request: unknown
  readonly credentialId?: string | undefined
  /** Echoed as `type` in the challenge (the Embedded Wallet Auth endpoints). */
  readonly type?: AuthMethodType | undefined
  /** Sessions of this credential may not sign (revoking it). */
  readonly excludeCredentialId?: string | undefined
  /** The action's checks; run on every leg, inside the unit of work. */
  readonly check?: (uow: UnitOfWork) => Effect.Effect<void, E, R>
  /** First leg only: keys that sign the retry instead of the wallet's sessions (the OTP login's TEK). */
  readonly signerKeys?: (uow: UnitOfWork) => Effect.Effect<ReadonlyArray<string> | undefined, E2, R2>
  /** First leg only, after the checks: what the first challenge carries (multi-leg actions). */
  readonly prepare?: (uow: UnitOfWork) => Effect.Effect<LegContext, E4, R4>
  /**
   * Runs on a good retry, with the challenge it answered (`challenge.leg`, `.context`,
   * `.kept` say which leg and what it carried). `AnotherLeg`: answer the next challenge.
   */
  readonly perform: (uow: UnitOfWork, challenge: WalletRequestRecord) => Effect.Effect<A | AnotherLeg, E3, R3>
}

/** The leg a first leg's challenge is answered on. */
const FIRST_RETRY = 2

/** Which signed retry answers a challenge (2 unless a multi-leg action said otherwise). */
export const legOf = (challenge: WalletRequestRecord): number => challenge.leg ?? FIRST_RETRY

/** Stores a challenge for `spec`'s request and answers it: a first leg's, or the next leg's of a multi-leg action. */
const issueChallenge = Effect.fnUntraced(function*(
  uow: UnitOfWork,
  spec: Pick<SignedSpec<unknown, never, never>, "platform" | "accountId" | "action" | "request" | "credentialId" | "type">,
  leg: { readonly leg: number; readonly signerKeys: ReadonlyArray<string> | undefined; readonly next: LegContext }
) {
  const ids = yield* Ids
  const { platform } = spec
  const nowMs = yield* Clock.currentTimeMillis
  const id = yield* ids.make("Request")
  const credentials = yield* credentialsOf(platform, spec.accountId)
  const record: WalletRequestRecord = {
    kind: "request",
    platformId: platform.id,
    id,
    accountId: spec.accountId,
    action: spec.action,
    credentialId: spec.credentialId,
    fingerprint: fingerprintOf(spec.request),
    payloadToSign: payloadOf({ action: spec.action, accountId: spec.accountId, request: spec.request, requestId: id, timestampMs: nowMs, context: leg.next.context }),
    expiresAt: nowMs + SIGNED_REQUEST_TTL_MILLIS,
    used: false,
    ...otpSets(credentials),
    signerKeys: leg.signerKeys,
    ...(leg.leg === FIRST_RETRY ? {} : { leg: leg.leg }),
    ...(leg.next.context === undefined ? {} : { context: leg.next.context }),
    ...(leg.next.kept === undefined ? {} : { kept: leg.next.kept }),
    createdAt: nowMs
  }
  yield* uow.putWalletRecord(record)
  const challenge: SignedRequestChallenge & { readonly type?: AuthMethodType } = {
    ...(spec.type === undefined ? {} : { type: spec.type }),
    payloadToSign: record.payloadToSign,
    requestId: id,
    expiresAt: isoOf(record.expiresAt)
  }
  return challenge
})

/** Runs an action behind the signed flow: two legs, or more when its `perform` answers `AnotherLeg`. */
export const signedRequest = <A, E = never, R = never, E2 = never, R2 = never, E3 = never, R3 = never, E4 = never, R4 = never>(
  spec: SignedSpec<A, E, R, E2, R2, E3, R3, E4, R4>,
  headers: SignedHeaders
) =>
  Effect.gen(function*() {
    const store = yield* Store
    const { platform } = spec
    const signature = headers.signature === "" ? undefined : headers.signature
    const requestId = headers.requestId === "" ? undefined : headers.requestId
    if (signature === undefined && requestId === undefined) {
      return yield* store.transact((uow) =>
        Effect.gen(function*() {
          if (spec.check !== undefined) yield* spec.check(uow)
          const signerKeys = spec.signerKeys === undefined ? undefined : yield* spec.signerKeys(uow)
          const next = spec.prepare === undefined ? {} : yield* spec.prepare(uow)
          const challenge = yield* issueChallenge(uow, spec, { leg: FIRST_RETRY, signerKeys, next })
          return { _tag: "Challenge", challenge } as Signed<A>
        })
      )
    }
    if (requestId === undefined) {
      return yield* unauthorized("Request-Id header is missing: echo the requestId of the 202 answer on the signed retry", "REQUEST_ID_MISSING")
    }
    if (signature === undefined) {
      return yield* unauthorized("Service-Wallet-Signature header is missing", "WALLET_SIGNATURE_MISSING")
    }
    return yield* store.transact((uow) =>
      Effect.gen(function*() {
        const nowMs = yield* Clock.currentTimeMillis
        const record = yield* pendingChallenge(platform, requestId, spec, nowMs)
        const keys = record.signerKeys ?? (yield* activeSessionsOf(platform, spec.accountId, nowMs))
          .filter((s) => spec.excludeCredentialId === undefined || s.credentialId !== spec.excludeCredentialId)
          .map((s) => s.publicKey)
        const retried = payloadOf({
          action: spec.action,
          accountId: spec.accountId,
          request: spec.request,
          requestId: record.id,
          timestampMs: record.createdAt,
          context: record.context
        })
        const verdict = verifyWalletStamp({
          header: signature,
          payloadToSign: record.payloadToSign,
          retriedPayload: retried,
          activeSessionKeys: keys,
          sandbox: platform.settings.sandbox
        })
        if (!verdict.ok) return yield* unauthorized(verdict.message, verdict.code as Error401["code"])
        if (fingerprintOf(spec.request) !== record.fingerprint) {
          // The sandbox's legacy fixed signature covers no payload: the body check still holds.
          return yield* unauthorized("The retried request differs from the first leg's", "WALLET_SIGNATURE_BODY_MISMATCH")
        }
        const now = otpSets(yield* credentialsOf(platform, spec.accountId))
        if (!sameSet(now.emailOtpSet, record.emailOtpSet)) {
          return yield* conflict("EMAIL_OTP_CREDENTIAL_SET_CHANGED", "The EMAIL_OTP credentials changed after the challenge was issued; start again")
        }
        if (!sameSet(now.smsOtpSet, record.smsOtpSet)) {
          return yield* conflict("SMS_OTP_CREDENTIAL_SET_CHANGED", "The SMS_OTP credentials changed after the challenge was issued; start again")
        }
        if (spec.check !== undefined) yield* spec.check(uow)
        const { kept: _dropped, ...usedUp } = record
        yield* uow.putWalletRecord({ ...usedUp, used: true })
        const result = yield* spec.perform(uow, record)
        if (result instanceof AnotherLeg) {
          const challenge = yield* issueChallenge(uow, spec, { leg: legOf(record) + 1, signerKeys: record.signerKeys, next: result.next })
          return { _tag: "Challenge", challenge } as Signed<A>
        }
        return { _tag: "Done", value: result } as Signed<A>
      })
    )
  })

/** The challenge a retry names: issued for this action and wallet, unexpired, unused; else 401. */
const pendingChallenge = Effect.fnUntraced(function*(
  platform: Platform,
  requestId: string,
  spec: { readonly accountId: string; readonly action: string; readonly credentialId?: string | undefined },
  nowMs: number
) {
  const store = yield* Store
  const record = yield* store.wallets.get(platform.id, "request", requestId)
  if (record === undefined || record.accountId !== spec.accountId || record.action !== spec.action || record.credentialId !== spec.credentialId) {
    return yield* unauthorized(`Request-Id ${requestId} does not match a pending challenge of this request`)
  }
  if (record.used) return yield* unauthorized(`Request-Id ${requestId} was already used; a request id is good for one retry`)
  if (record.expiresAt <= nowMs) return yield* unauthorized(`Request-Id ${requestId} expired at ${isoOf(record.expiresAt)}; start again`)
  return record
})

/** `Service-Wallet-Signature` over a quote's `payloadToSign` (no Request-Id): 401 unless an active session signed it. */
export const verifyQuoteSignature = Effect.fnUntraced(function*(platform: Platform, accountId: string, payloadToSign: string, signature: string | undefined) {
  if (signature === undefined || signature === "") {
    return yield* unauthorized("Service-Wallet-Signature header is missing: sign the quote's payloadToSign with a session key of the wallet", "WALLET_SIGNATURE_MISSING")
  }
  const nowMs = yield* Clock.currentTimeMillis
  const sessions: ReadonlyArray<AuthSessionRecord> = yield* activeSessionsOf(platform, accountId, nowMs)
  const verdict = verifyWalletStamp({
    header: signature,
    payloadToSign,
    activeSessionKeys: sessions.map((s) => s.publicKey),
    sandbox: platform.settings.sandbox
  })
  if (!verdict.ok) return yield* unauthorized(verdict.message, verdict.code as Error401["code"])
})

export { type Error401 }
