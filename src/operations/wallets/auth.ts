/**
 * Embedded Wallet Auth (SPEC.md Authentication 2–9; docs/embedded-wallets.md):
 * credentials (EMAIL_OTP, SMS_OTP, OAUTH, PASSKEY), their challenges and verification,
 * and the sessions verification issues. Signed actions go through `signedRequest`.
 */
import { readFile } from "node:fs/promises"
import { sha256 } from "@noble/hashes/sha2.js"
import { bytesToHex } from "@noble/hashes/utils.js"
import { Clock, Effect } from "effect"
import { toBase64Url, utf8 } from "../../crypto/bytes.js"
import { generateP256KeyPair, type RandomBytes, sealSessionSigningKey } from "../../crypto/generate.js"
import { buildOtpEncryptionTargetBundle, openEncryptedOtpBundle } from "../../crypto/hpke-bundles.js"
import { p256KeyPairFromPrivateKey, type P256KeyPair } from "../../crypto/keys.js"
import { decodeJwt, isJsonWebKeySet, type OidcSignatureCheck, verifyOidcToken } from "../../crypto/oidc.js"
import { parsePublicKeyHex } from "../../crypto/p256.js"
import { SANDBOX_OTP_CODE } from "../../crypto/sandbox.js"
import { verifyPasskeyAssertion, verifyPasskeyRegistration } from "../../crypto/webauthn.js"
import type { ReasonInfo } from "../../crypto/verdict.js"
import {
  badRequest,
  conflict,
  type Error400,
  type Error401,
  invalidInput,
  tooMany,
  unauthorized
} from "../../domain/errors.js"
import type { EmbeddedWalletSettings, Platform } from "../../domain/platform.js"
import type { AuthCredentialCreateRequest, AuthCredentialVerifyRequest, AuthMethod, AuthMethodResponse, AuthSession } from "../../domain/wallet.js"
import { Ids } from "../../ports/ids.js"
import {
  type AuthCredentialRecord,
  type AuthSessionRecord,
  Store,
  type UnitOfWork,
  type WalletRequestRecord
} from "../../ports/store.js"
import { isoOf } from "../time.js"
import { missing } from "../not-found.js"
import {
  activeSessionsOf,
  canonicalJson,
  credentialsOf,
  type Signed,
  type SignedHeaders,
  signedRequest,
  walletAccount
} from "./signed.js"

/** How long an OTP or passkey challenge can be answered (the reference's OTP `expirationSeconds` default). */
export const CREDENTIAL_CHALLENGE_TTL_MILLIS = 300_000

/** Rate limits per credential, fixed windows on the platform's clock (docs/embedded-wallets.md). */
export const RATE_LIMITS = {
  challenge: { max: 5, windowMillis: 60_000 },
  verify: { max: 10, windowMillis: 60_000 }
} as const

// ---------------------------------------------------------------- helpers

const settingsOf = (platform: Platform): EmbeddedWalletSettings => {
  const s = platform.embeddedWallets
  if (s === undefined) throw new Error("embedded wallets are not enabled for this platform (walletAccount checks it first)")
  return s
}

/** Fresh random bytes from the Ids port (seedable in tests): SHA-256 chains over UUIDs. */
export const randomSource = Effect.gen(function*() {
  const ids = yield* Ids
  const seed = sha256(utf8(`${yield* ids.uuid}${yield* ids.uuid}${yield* ids.uuid}`))
  let counter = 0
  const randomBytes: RandomBytes = (length) => {
    const out = new Uint8Array(length)
    for (let at = 0; at < length; at += 32) {
      const block = sha256(new Uint8Array([...seed, ...utf8(String(counter++))]))
      out.set(block.subarray(0, Math.min(32, length - at)), at)
    }
    return out
  }
  return randomBytes
})

/** A platform-wide server key of the wallet flows (made on first use, kept in the store). */
export const serverKey = Effect.fnUntraced(function*(uow: UnitOfWork, platform: Platform, name: string) {
  const store = yield* Store
  const existing = yield* store.wallets.get(platform.id, "serverKey", name)
  const pair = existing === undefined ? undefined : p256KeyPairFromPrivateKey(existing.privateKeyHex)
  if (pair !== undefined) return pair
  const made = generateP256KeyPair(yield* randomSource)
  yield* uow.putWalletRecord({ kind: "serverKey", platformId: platform.id, id: name, accountId: "", privateKeyHex: made.privateKeyHex })
  return made
})

const fromVerdict = (v: ReasonInfo): Error400 | Error401 =>
  v.status === 400 ? invalidInput(v.message) : unauthorized(v.message, v.code as Error401["code"])

export const renderMethod = (c: AuthCredentialRecord): AuthMethod => ({
  id: c.id,
  accountId: c.accountId,
  type: c.type,
  ...(c.passkey === undefined ? {} : { credentialId: c.passkey.credentialId }),
  nickname: c.nickname,
  createdAt: c.createdAt,
  updatedAt: c.updatedAt
})

export const renderSession = (s: AuthSessionRecord, encryptedSessionSigningKey?: string): AuthSession => ({
  id: s.id,
  accountId: s.accountId,
  type: s.type,
  nickname: s.nickname,
  ...(encryptedSessionSigningKey === undefined ? {} : { encryptedSessionSigningKey }),
  createdAt: s.createdAt,
  updatedAt: s.updatedAt,
  expiresAt: isoOf(s.expiresAt)
})

const credentialOf = Effect.fnUntraced(function*(platform: Platform, id: string) {
  const store = yield* Store
  const c = yield* store.wallets.get(platform.id, "credential", id)
  if (c === undefined) return yield* missing("credential", `Authentication credential ${id} not found`)
  return c
})

/** Counts an attempt in its own unit of work (a failed attempt still counts); 429 past the limit. */
const limitRate = Effect.fnUntraced(function*(platform: Platform, credential: AuthCredentialRecord, endpoint: keyof typeof RATE_LIMITS) {
  const store = yield* Store
  const { max, windowMillis } = RATE_LIMITS[endpoint]
  const id = `${credential.id}:${endpoint}`
  yield* store.transact((uow) =>
    Effect.gen(function*() {
      const nowMs = yield* Clock.currentTimeMillis
      const current = yield* store.wallets.get(platform.id, "rate", id)
      const fresh = current === undefined || current.windowStart + windowMillis <= nowMs
      const windowStart = fresh ? nowMs : current.windowStart
      const count = fresh ? 1 : current.count + 1
      if (count > max) {
        const retryAfterSeconds = Math.max(1, Math.ceil((windowStart + windowMillis - nowMs) / 1000))
        return yield* tooMany("RATE_LIMITED", `Too many ${endpoint} requests for credential ${credential.id}: at most ${max} per ${windowMillis / 1000} seconds`, {
          details: { retryAfterSeconds }
        })
      }
      yield* uow.putWalletRecord({ kind: "rate", platformId: platform.id, id, accountId: credential.accountId, windowStart, count })
    })
  )
})

/**
 * A new session for a verified credential. The session key: the client's own key when
 * `clientPublicKey` is compressed (client-held-key model) or for an OTP login (the TEK);
 * a fresh key sealed to an uncompressed `clientPublicKey` (legacy flow), returned as
 * `encryptedSessionSigningKey`.
 */
const issueSession = Effect.fnUntraced(function*(
  uow: UnitOfWork,
  platform: Platform,
  credential: AuthCredentialRecord,
  key: { readonly clientPublicKey: string } | { readonly tek: string }
) {
  const ids = yield* Ids
  const nowMs = yield* Clock.currentTimeMillis
  let publicKey: string
  let encrypted: string | undefined
  const clientKey = "tek" in key ? key.tek : key.clientPublicKey
  const parsed = parsePublicKeyHex(clientKey)
  if (parsed === undefined) return yield* invalidInput("clientPublicKey is not a P-256 public key in hex")
  if ("clientPublicKey" in key && key.clientPublicKey.length === 130) {
    const random = yield* randomSource
    const pair = generateP256KeyPair(random)
    const sealed = yield* Effect.promise(() => sealSessionSigningKey({ sessionPrivateKeyHex: pair.privateKeyHex, clientPublicKey: key.clientPublicKey, randomBytes: random }))
    if (!sealed.ok) return yield* invalidInput(sealed.message)
    publicKey = pair.compressedPublicKeyHex
    encrypted = sealed.value
  } else {
    publicKey = parsed.compressedHex
  }
  const now = isoOf(nowMs)
  const session: AuthSessionRecord = {
    kind: "session",
    platformId: platform.id,
    id: yield* ids.make("Session"),
    accountId: credential.accountId,
    credentialId: credential.id,
    type: credential.type,
    nickname: credential.nickname,
    publicKey,
    createdAt: now,
    updatedAt: now,
    expiresAt: nowMs + settingsOf(platform).sessionLifetimeSeconds * 1000,
    revoked: false
  }
  yield* uow.putWalletRecord(session)
  return renderSession(session, encrypted)
})

// ---------------------------------------------------------------- OIDC

const loadJwks = (source: { readonly jwksFile?: string; readonly jwksUrl?: string }) =>
  Effect.tryPromise({
    try: async (): Promise<unknown> => {
      if (source.jwksFile !== undefined) return JSON.parse(await readFile(source.jwksFile, "utf8"))
      if (source.jwksUrl !== undefined) {
        const res = await fetch(source.jwksUrl, { signal: AbortSignal.timeout(5000) })
        return await res.json()
      }
      return undefined
    },
    catch: () => unauthorized("The OIDC provider's keys could not be loaded")
  })

/** How a token's signature is checked: skipped in the sandbox, else against the issuer's configured keys. */
const signatureCheckFor = Effect.fnUntraced(function*(platform: Platform, token: string) {
  if (platform.settings.sandbox) return { kind: "skip" } as OidcSignatureCheck
  const decoded = decodeJwt(token)
  const iss = decoded.ok ? decoded.value.payload["iss"] : undefined
  const issuer = settingsOf(platform).oidcIssuers.find((i) => i.issuer === iss)
  if (issuer === undefined) return { kind: "skip" } as OidcSignatureCheck // the claims check refuses the issuer
  const jwks = yield* loadJwks(issuer)
  if (!isJsonWebKeySet(jwks)) return yield* unauthorized(`No signing keys are configured for OIDC issuer ${issuer.issuer}`)
  return { kind: "jwks", jwks } as OidcSignatureCheck
})

const checkOidc = Effect.fnUntraced(function*(platform: Platform, token: string, clientPublicKey: string | null, expectedIdentity?: AuthCredentialRecord["oidc"]) {
  // A malformed JWT is a 400 before any authentication (SPEC.md Authentication 2).
  const decoded = decodeJwt(token)
  if (!decoded.ok) return yield* fromVerdict(decoded)
  const signature = yield* signatureCheckFor(platform, token)
  const verdict = verifyOidcToken({
    token,
    signature,
    nowMs: yield* Clock.currentTimeMillis,
    supportedIssuers: settingsOf(platform).oidcIssuers.map((i) => i.issuer),
    clientPublicKey,
    ...(expectedIdentity === undefined ? {} : { expectedIdentity })
  })
  if (!verdict.ok) return yield* fromVerdict(verdict)
  return verdict.value.identity
})

// ---------------------------------------------------------------- OTP challenges

/** Issues an OTP challenge: a fresh HPKE target key, signed into `otpEncryptionTargetBundle`. */
const issueOtpChallenge = Effect.fnUntraced(function*(uow: UnitOfWork, platform: Platform, credential: AuthCredentialRecord, clientPublicKey: string | undefined) {
  const ids = yield* Ids
  const nowMs = yield* Clock.currentTimeMillis
  const random = yield* randomSource
  const target = generateP256KeyPair(random)
  const signingKey = yield* serverKey(uow, platform, "otp-target-signing")
  const otpCode = platform.settings.sandbox ? SANDBOX_OTP_CODE : String(Number.parseInt(bytesToHex(random(4)), 16) % 1_000_000).padStart(6, "0")
  const record: WalletRequestRecord = {
    kind: "request",
    platformId: platform.id,
    id: yield* ids.make("Request"),
    accountId: credential.accountId,
    action: "OTP_CHALLENGE",
    credentialId: credential.id,
    fingerprint: "",
    payloadToSign: "",
    expiresAt: nowMs + CREDENTIAL_CHALLENGE_TTL_MILLIS,
    used: false,
    emailOtpSet: [],
    smsOtpSet: [],
    targetPrivateKeyHex: target.privateKeyHex,
    clientPublicKey,
    otpCode,
    createdAt: nowMs
  }
  yield* uow.putWalletRecord(record)
  return { requestId: record.id, bundle: buildOtpEncryptionTargetBundle({ targetPublicKey: target.publicKeyHex, signingKey }) }
})

/** The public key of the platform's OTP target-bundle signer: what checked clients pin as `enclaveQuorumPublic`. */
export const otpSigningPublicKey = (platform: Platform) =>
  Effect.flatMap(Effect.service(Store), (store) =>
    store.transact((uow): Effect.Effect<P256KeyPair, never, Store | Ids> => serverKey(uow, platform, "otp-target-signing")))

// ---------------------------------------------------------------- credentials

const newCredential = Effect.fnUntraced(function*(
  platform: Platform,
  accountId: string,
  customerId: string,
  fields: Pick<AuthCredentialRecord, "type" | "nickname" | "lookupKey" | "passkey" | "oidc">
) {
  const ids = yield* Ids
  const now = isoOf(yield* Clock.currentTimeMillis)
  const record: AuthCredentialRecord = {
    kind: "credential",
    platformId: platform.id,
    id: yield* ids.make("AuthMethod"),
    accountId,
    customerId,
    ...fields,
    createdAt: now,
    updatedAt: now
  }
  return record
})

/** POST /auth/credentials: the first credential with platform auth alone, any other through the signed flow. */
export const createCredential = Effect.fnUntraced(function*(platform: Platform, req: AuthCredentialCreateRequest, headers: SignedHeaders) {
  const store = yield* Store
  const account = yield* walletAccount(platform, req.accountId)
  const customerId = account.customerId ?? ""
  const customer = yield* store.customers.get(platform.id, customerId)
  const contact = customer?.customer as { readonly email?: string; readonly phoneNumber?: string } | undefined
  let fields: Pick<AuthCredentialRecord, "type" | "nickname" | "lookupKey" | "passkey" | "oidc">
  switch (req.type) {
    case "EMAIL_OTP": {
      const email = contact?.email
      if (email === undefined) return yield* badRequest("MISSING_MANDATORY_USER_INFO", `Customer ${customerId} has no email for an EMAIL_OTP credential`)
      fields = { type: "EMAIL_OTP", nickname: email, lookupKey: `email:${email.toLowerCase()}` }
      break
    }
    case "SMS_OTP": {
      const phone = contact?.phoneNumber
      if (phone === undefined) return yield* badRequest("MISSING_MANDATORY_USER_INFO", `Customer ${customerId} has no phoneNumber for an SMS_OTP credential`)
      fields = { type: "SMS_OTP", nickname: phone, lookupKey: `phone:${phone}` }
      break
    }
    case "OAUTH": {
      const identity = yield* checkOidc(platform, req.oidcToken, null)
      const claims = decodeJwt(req.oidcToken)
      const email = claims.ok && typeof claims.value.payload["email"] === "string" ? claims.value.payload["email"] : identity.sub
      fields = { type: "OAUTH", nickname: email.slice(0, 255), oidc: identity, lookupKey: `oidc:${identity.iss} ${identity.aud} ${identity.sub}` }
      break
    }
    case "PASSKEY": {
      const s = settingsOf(platform)
      const verdict = verifyPasskeyRegistration({
        registration: req.attestation,
        expectedChallenge: req.challenge,
        rpId: s.rpId,
        allowedOrigins: s.allowedOrigins
      })
      if (!verdict.ok) return yield* fromVerdict(verdict)
      fields = {
        type: "PASSKEY",
        nickname: req.nickname,
        lookupKey: `passkey:${verdict.value.credentialId}`,
        passkey: { credentialId: verdict.value.credentialId, publicKey: verdict.value.publicKey, counter: verdict.value.counter, transports: req.attestation.transports }
      }
      break
    }
  }
  const check = (_uow: UnitOfWork) =>
    Effect.gen(function*() {
      const existing = yield* credentialsOf(platform, req.accountId)
      if (fields.type === "EMAIL_OTP" && existing.some((c) => c.type === "EMAIL_OTP")) {
        return yield* badRequest("EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS", `Internal account ${req.accountId} already has an EMAIL_OTP credential`)
      }
      if (fields.type === "SMS_OTP" && existing.some((c) => c.type === "SMS_OTP")) {
        return yield* badRequest("SMS_OTP_CREDENTIAL_ALREADY_EXISTS", `Internal account ${req.accountId} already has an SMS_OTP credential`)
      }
      const tied = fields.lookupKey === undefined ? [] : yield* store.wallets.byLookup(platform.id, "credential", fields.lookupKey)
      if (tied.length > 0) {
        switch (fields.type) {
          case "EMAIL_OTP":
            return yield* conflict("EMAIL_OTP_EMAIL_ALREADY_EXISTS", `${fields.nickname} is already tied to an EMAIL_OTP credential`)
          case "SMS_OTP":
            return yield* conflict("SMS_OTP_PHONE_NUMBER_ALREADY_EXISTS", `${fields.nickname} is already tied to an SMS_OTP credential`)
          case "PASSKEY":
            return yield* badRequest("PASSKEY_CREDENTIAL_ALREADY_EXISTS", "This passkey credentialId is already registered")
          case "OAUTH":
            return yield* conflict("CONFLICT", "This OIDC identity (iss, aud, sub) is already registered")
        }
      }
      if (fields.type === "PASSKEY" && existing.some((c) => c.type === "PASSKEY")) {
        return yield* conflict("PASSKEY_ALREADY_ENROLLED", `Customer ${customerId} already has a passkey; revoke it first`)
      }
    })
  const perform = (uow: UnitOfWork): Effect.Effect<AuthMethodResponse, never, Store | Ids> =>
    Effect.gen(function*() {
      const record = yield* newCredential(platform, req.accountId, customerId, fields)
      yield* uow.putWalletRecord(record)
      if (record.type !== "EMAIL_OTP" && record.type !== "SMS_OTP") return renderMethod(record)
      const issued = yield* issueOtpChallenge(uow, platform, record, undefined)
      return { ...renderMethod(record), otpEncryptionTargetBundle: issued.bundle }
    })
  const existing = yield* credentialsOf(platform, req.accountId)
  if (existing.length === 0) {
    const value = yield* store.transact((uow) => Effect.andThen(check(uow), perform(uow)))
    return { _tag: "Done", value } as Signed<AuthMethodResponse>
  }
  return yield* signedRequest({
    platform,
    accountId: req.accountId,
    action: "POST /auth/credentials",
    request: req,
    type: req.type,
    check,
    perform
  }, headers)
})

/** GET /auth/credentials?accountId= (an unknown account: an empty list). */
export const listCredentials = Effect.fnUntraced(function*(platform: Platform, accountId: string) {
  const credentials = yield* credentialsOf(platform, accountId)
  return { data: [...credentials].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id)).map(renderMethod) }
})

/** DELETE /auth/credentials/{id} (signed by a session of another credential); its sessions end with it. */
export const revokeCredential = Effect.fnUntraced(function*(platform: Platform, id: string, headers: SignedHeaders) {
  const store = yield* Store
  const credential = yield* credentialOf(platform, id)
  const check = (_uow: UnitOfWork) =>
    Effect.gen(function*() {
      const all = yield* credentialsOf(platform, credential.accountId)
      if (!all.some((c) => c.id === id)) return yield* missing("credential", `Authentication credential ${id} not found`)
      if (all.length <= 1) return yield* invalidInput("An internal account must keep at least one authentication credential; add another before revoking this one")
    })
  return yield* signedRequest({
    platform,
    accountId: credential.accountId,
    action: "DELETE /auth/credentials/{id}",
    request: { id },
    credentialId: id,
    type: credential.type,
    excludeCredentialId: id,
    check,
    perform: (uow) =>
      Effect.gen(function*() {
        yield* uow.deleteWalletRecord(platform.id, "credential", id)
        for (const s of yield* store.wallets.byAccount(platform.id, "session", credential.accountId)) {
          if (s.credentialId === id && !s.revoked) yield* uow.putWalletRecord({ ...s, revoked: true })
        }
      })
  }, headers)
})

/** POST /auth/credentials/{id}/challenge: a new OTP target bundle, or a passkey challenge. */
export const challengeCredential = Effect.fnUntraced(function*(platform: Platform, id: string, body: { readonly clientPublicKey?: string | undefined }) {
  const store = yield* Store
  const ids = yield* Ids
  const credential = yield* credentialOf(platform, id)
  yield* walletAccount(platform, credential.accountId)
  if (credential.type === "OAUTH") {
    return yield* invalidInput("OAUTH credentials have no challenge step: verify with a fresh OIDC token and a clientPublicKey")
  }
  yield* limitRate(platform, credential, "challenge")
  return yield* store.transact((uow) =>
    Effect.gen(function*() {
      if (credential.type !== "PASSKEY" || credential.passkey === undefined) {
        const issued = yield* issueOtpChallenge(uow, platform, credential, body.clientPublicKey)
        return { requestId: issued.requestId, body: { ...renderMethod(credential), otpEncryptionTargetBundle: issued.bundle } }
      }
      const clientPublicKey = body.clientPublicKey
      if (clientPublicKey === undefined) {
        return yield* invalidInput("clientPublicKey is required to challenge a PASSKEY credential", [{
          field: "clientPublicKey",
          constraint: "required",
          message: "is required for PASSKEY credentials"
        }])
      }
      const nowMs = yield* Clock.currentTimeMillis
      const requestId = yield* ids.make("Request")
      const expiresAt = nowMs + CREDENTIAL_CHALLENGE_TTL_MILLIS
      // The challenge is the SHA-256 (hex) of the session-creation body it authorizes.
      const challenge = bytesToHex(sha256(utf8(canonicalJson({
        accountId: credential.accountId,
        clientPublicKey,
        credentialId: credential.id,
        requestId,
        timestampMs: String(nowMs),
        type: "CREATE_SESSION"
      }))))
      yield* uow.putWalletRecord({
        kind: "request",
        platformId: platform.id,
        id: requestId,
        accountId: credential.accountId,
        action: "PASSKEY_CHALLENGE",
        credentialId: credential.id,
        fingerprint: "",
        payloadToSign: "",
        expiresAt,
        used: false,
        emailOtpSet: [],
        smsOtpSet: [],
        clientPublicKey,
        // The client passes the hex text's UTF-8 bytes as the WebAuthn challenge.
        webauthnChallenge: toBase64Url(utf8(challenge)),
        createdAt: nowMs
      })
      return {
        requestId,
        body: { ...renderMethod(credential), credentialId: credential.passkey.credentialId, challenge, requestId, expiresAt: isoOf(expiresAt) }
      }
    })
  )
})

/** The latest unexpired, unused challenge of a kind for a credential. */
const latestChallenge = Effect.fnUntraced(function*(platform: Platform, credential: AuthCredentialRecord, action: string, nowMs: number) {
  const store = yield* Store
  const all = yield* store.wallets.byAccount(platform.id, "request", credential.accountId)
  return all
    .filter((r) => r.action === action && r.credentialId === credential.id && !r.used && r.expiresAt > nowMs)
    .sort((a, b) => b.createdAt - a.createdAt)[0]
})

export type VerifyAnswer = Signed<AuthSession> & { readonly requestId?: string | undefined }

/** POST /auth/credentials/{id}/verify: a session, by the body of the credential's type. */
export const verifyCredential = Effect.fnUntraced(function*(platform: Platform, id: string, req: AuthCredentialVerifyRequest, headers: SignedHeaders) {
  const store = yield* Store
  const credential = yield* credentialOf(platform, id)
  yield* walletAccount(platform, credential.accountId)
  if (req.type !== credential.type) {
    return yield* invalidInput(`Credential ${id} is ${credential.type}; the body is for ${req.type}`, [{ field: "type", constraint: "credentialType", message: `must be ${credential.type}` }])
  }
  if (req.type === "OAUTH") {
    // Malformed: 400 before anything else, rate limit included.
    const decoded = decodeJwt(req.oidcToken)
    if (!decoded.ok) return yield* fromVerdict(decoded)
  }
  yield* limitRate(platform, credential, "verify")
  switch (req.type) {
    case "OAUTH": {
      yield* checkOidc(platform, req.oidcToken, req.clientPublicKey, credential.oidc)
      const value = yield* store.transact((uow) => issueSession(uow, platform, credential, { clientPublicKey: req.clientPublicKey }))
      return { _tag: "Done", value } as VerifyAnswer
    }
    case "PASSKEY": {
      const requestId = headers.requestId
      if (requestId === undefined || requestId === "") {
        return yield* unauthorized("Request-Id header is missing: echo the requestId of POST /auth/credentials/{id}/challenge", "REQUEST_ID_MISSING")
      }
      const value = yield* store.transact((uow) =>
        Effect.gen(function*() {
          const nowMs = yield* Clock.currentTimeMillis
          const challenge = yield* store.wallets.get(platform.id, "request", requestId)
          if (challenge === undefined || challenge.action !== "PASSKEY_CHALLENGE" || challenge.credentialId !== id) {
            return yield* unauthorized(`Request-Id ${requestId} does not match a pending challenge of this credential`)
          }
          if (challenge.used) return yield* unauthorized(`Request-Id ${requestId} was already used; request a new challenge`)
          if (challenge.expiresAt <= nowMs) return yield* unauthorized(`Request-Id ${requestId} expired at ${isoOf(challenge.expiresAt)}; request a new challenge`)
          const passkey = credential.passkey
          const s = settingsOf(platform)
          if (passkey === undefined || challenge.webauthnChallenge === undefined || challenge.clientPublicKey === undefined) {
            return yield* unauthorized("The credential has no registered passkey")
          }
          const verdict = verifyPasskeyAssertion({
            assertion: req.assertion,
            credential: { id: passkey.credentialId, publicKey: passkey.publicKey, counter: passkey.counter },
            expectedChallenge: challenge.webauthnChallenge,
            rpId: s.rpId,
            allowedOrigins: s.allowedOrigins,
            sandbox: platform.settings.sandbox
          })
          if (!verdict.ok) return yield* fromVerdict(verdict)
          yield* uow.putWalletRecord({ ...challenge, used: true })
          yield* uow.putWalletRecord({ ...credential, passkey: { ...passkey, counter: verdict.value.newCounter }, updatedAt: isoOf(nowMs) })
          return yield* issueSession(uow, platform, credential, { clientPublicKey: challenge.clientPublicKey })
        })
      )
      return { _tag: "Done", value, requestId } as VerifyAnswer
    }
    case "EMAIL_OTP":
    case "SMS_OTP": {
      const answer: Signed<AuthSession> = yield* signedRequest({
        platform,
        accountId: credential.accountId,
        action: "POST /auth/credentials/{id}/verify",
        request: { id, ...req },
        credentialId: id,
        type: credential.type,
        // First leg: the OTP is checked; the TEK in the bundle signs the retry and becomes the session key.
        signerKeys: (uow) =>
          Effect.gen(function*() {
            const nowMs = yield* Clock.currentTimeMillis
            const challenge = yield* latestChallenge(platform, credential, "OTP_CHALLENGE", nowMs)
            const target = challenge?.targetPrivateKeyHex === undefined ? undefined : p256KeyPairFromPrivateKey(challenge.targetPrivateKeyHex)
            if (challenge === undefined || target === undefined) {
              return yield* unauthorized("No pending OTP challenge for this credential: call POST /auth/credentials/{id}/challenge")
            }
            const opened = yield* Effect.promise(() =>
              openEncryptedOtpBundle({
                encryptedOtpBundle: req.encryptedOtpBundle,
                targetKey: target,
                expected: platform.settings.sandbox ? { kind: "sandbox" } : { kind: "code", code: challenge.otpCode ?? "" },
                ...(challenge.clientPublicKey === undefined ? {} : { expectedPublicKey: challenge.clientPublicKey })
              })
            )
            if (!opened.ok) return yield* fromVerdict(opened)
            yield* uow.putWalletRecord({ ...challenge, used: true })
            return [opened.value.publicKey]
          }),
        perform: (uow, challenge) =>
          Effect.gen(function*() {
            const tek = challenge.signerKeys?.[0]
            if (tek === undefined) return yield* unauthorized("The verification challenge names no key")
            return yield* issueSession(uow, platform, credential, { tek })
          })
      }, headers)
      return answer as VerifyAnswer
    }
  }
})

// ---------------------------------------------------------------- sessions

/** GET /auth/sessions?accountId=: the active sessions (an unknown account: an empty list). */
export const listSessions = Effect.fnUntraced(function*(platform: Platform, accountId: string) {
  const nowMs = yield* Clock.currentTimeMillis
  const sessions = yield* activeSessionsOf(platform, accountId, nowMs)
  return { data: [...sessions].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id)).map((s) => renderSession(s)) }
})

const activeSession = Effect.fnUntraced(function*(platform: Platform, id: string) {
  const store = yield* Store
  const nowMs = yield* Clock.currentTimeMillis
  const s = yield* store.wallets.get(platform.id, "session", id)
  if (s === undefined || s.revoked || s.expiresAt <= nowMs) return yield* missing("session", `Session ${id} not found (never issued, revoked or expired)`)
  return s
})

/** DELETE /auth/sessions/{id} (signed by any active session of the wallet, itself included). */
export const revokeSession = Effect.fnUntraced(function*(platform: Platform, id: string, headers: SignedHeaders) {
  const session = yield* activeSession(platform, id)
  return yield* signedRequest({
    platform,
    accountId: session.accountId,
    action: "DELETE /auth/sessions/{id}",
    request: { id },
    type: session.type,
    check: () => Effect.asVoid(activeSession(platform, id)),
    perform: (uow) =>
      Effect.gen(function*() {
        const current = yield* activeSession(platform, id)
        yield* uow.putWalletRecord({ ...current, revoked: true, updatedAt: isoOf(yield* Clock.currentTimeMillis) })
      })
  }, headers)
})

/** POST /auth/sessions/{id}/refresh (signed by that session): a new session with a new key; the old one ends. */
export const refreshSession = Effect.fnUntraced(function*(platform: Platform, id: string, body: { readonly clientPublicKey: string }, headers: SignedHeaders) {
  const store = yield* Store
  const session = yield* activeSession(platform, id)
  return yield* signedRequest({
    platform,
    accountId: session.accountId,
    action: "POST /auth/sessions/{id}/refresh",
    request: { id, ...body },
    type: session.type,
    signerKeys: () => Effect.succeed([session.publicKey]),
    check: () => Effect.asVoid(activeSession(platform, id)),
    perform: (uow) =>
      Effect.gen(function*() {
        const current = yield* activeSession(platform, id)
        const credential = yield* store.wallets.get(platform.id, "credential", current.credentialId)
        if (credential === undefined) return yield* missing("credential", `The credential of session ${id} was revoked`)
        yield* uow.putWalletRecord({ ...current, revoked: true, updatedAt: isoOf(yield* Clock.currentTimeMillis) })
        return yield* issueSession(uow, platform, credential, { clientPublicKey: body.clientPublicKey })
      })
  }, headers)
})
