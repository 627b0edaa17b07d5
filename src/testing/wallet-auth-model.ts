/**
 * A model-based command set (fast-check) for embedded-wallet authentication: credentials
 * and sessions (docs/embedded-wallets.md). The reference model is a plain map of an
 * embedded wallet's credentials and sessions, with the rate-limit windows and the
 * sandbox clock; the commands drive any implementation of the API through a small client
 * (the reference server in-process, `npm start` over HTTP, or a platform's own
 * integration) and, after every command, `GET /auth/credentials` and `GET /auth/sessions`
 * must list exactly what the model holds.
 *
 * The client side of the wallet (key pairs, stamps, OTP bundles, session-key bundles,
 * passkeys) comes in as a `WalletClientKit`, so this module needs no client library:
 * the tests build one from `@turnkey/crypto`, `@turnkey/api-key-stamper` and a software
 * WebAuthn authenticator.
 *
 * Delegated signing keys (`/auth/delegated-keys`) join in when the server issues cards:
 * the setup gives the wallet a card it funds, the commands create keys in the three-leg
 * signed flow (sometimes abandoned after the second leg, sometimes signed with a dead
 * key) and revoke them, and `GET /auth/delegated-keys?accountId=` must list every key the
 * model holds with its status (at most one ACTIVE).
 *
 * Time: the model's clock is the platform's clock read once at setup plus every advance
 * it makes (`POST /sandbox/clock/advance`), ignoring the real time a run takes. Advances
 * are multiples of 17 seconds, so no model instant falls within 8 seconds of a 60-second
 * rate window's end or within 16 seconds of a 900-second session's expiry: a run may take
 * a few real seconds without the model and the server disagreeing about what expired.
 */
import fc from "fast-check"
import { CheckedCommand, type JsonApiClient } from "./commands.js"

/** The least a client must do: send JSON with headers, get the status and parsed body back. */
export type WalletApiClient = JsonApiClient

/** A P-256 key pair in hex: `publicKey` compressed, `publicKeyUncompressed` SEC1 uncompressed. */
export interface WalletKeyPair {
  readonly privateKey: string
  readonly publicKey: string
  readonly publicKeyUncompressed: string
}

/** A registered passkey, as the kit's authenticator knows it. */
export interface PasskeyHandle {
  readonly handle: unknown
  counter: number
}

/** What a wallet app's client libraries do, for the model's commands. */
export interface WalletClientKit {
  readonly newKeyPair: () => WalletKeyPair
  /** The `Service-Wallet-Signature` value: an API-key stamp over `payload`. */
  readonly stamp: (key: WalletKeyPair, payload: string) => Promise<string>
  /** `encryptedOtpBundle` for `code`, sealed to the target bundle with the TEK's public key. */
  readonly encryptOtp: (code: string, otpEncryptionTargetBundle: string, tekPublicKey: string) => Promise<string>
  /** The session key from `encryptedSessionSigningKey`, opened with the client's private key. */
  readonly decryptSessionKey: (encryptedSessionSigningKey: string, clientPrivateKey: string) => WalletKeyPair
  /** A software authenticator; without one the model registers no passkeys. */
  readonly passkey?: {
    readonly create: () => unknown
    /** `{credentialId, clientDataJson, attestationObject}` for a registration (attestation `none`). */
    readonly register: (handle: unknown, p: { readonly rpId: string; readonly origin: string; readonly challenge: string }) => unknown
    /** `{credentialId, clientDataJson, authenticatorData, signature}` for an assertion. */
    readonly assert: (handle: unknown, p: { readonly rpId: string; readonly origin: string; readonly challenge: string; readonly counter: number }) => unknown
  }
}

export interface WalletModelOptions {
  /** The platform's `sessionLifetimeSeconds` (default 900). */
  readonly sessionLifetimeSeconds?: number
  readonly rpId?: string
  readonly origin?: string
  /** The sandbox OTP code (default `000000`). */
  readonly otpCode?: string
  /** An OIDC issuer the platform supports (default Google's). */
  readonly oidcIssuer?: string
}

type CredentialType = "EMAIL_OTP" | "SMS_OTP" | "OAUTH" | "PASSKEY"

interface ModelCredential {
  readonly id: string
  readonly type: CredentialType
  readonly sub?: string
  readonly passkey?: PasskeyHandle
}

interface ModelSession {
  readonly id: string
  readonly credentialId: string
  readonly key: WalletKeyPair
  /** The model's time when it was issued. */
  readonly createdAtMs: number
}

interface RateWindow {
  windowStart: number
  count: number
}

const RATE = { challenge: { max: 5, windowMillis: 60_000 }, verify: { max: 10, windowMillis: 60_000 } } as const

/** The reference model: the wallet's credentials, its sessions, the keys that no longer sign, and time. */
export class WalletAuthModel {
  readonly credentials = new Map<string, ModelCredential>()
  readonly sessions = new Map<string, ModelSession>()
  /** Keys of revoked, refreshed and expired sessions: they must never sign again. */
  readonly deadKeys: Array<WalletKeyPair> = []
  readonly rates = new Map<string, RateWindow>()
  /** Delegated keys by id, with their status. */
  readonly delegatedKeys = new Map<string, "PENDING" | "ACTIVE" | "REVOKED">()
  /** The card the wallet funds (undefined: the server issues no cards, and delegated-key commands do nothing). */
  cardId: string | undefined
  privateEnabled = false
  readonly lifetimeMs: number
  readonly rpId: string
  readonly origin: string
  readonly otpCode: string
  readonly oidcIssuer: string
  constructor(
    readonly accountId: string,
    /** Unique per run: OIDC subjects are unique across the platform. */
    readonly tag: string,
    public nowMs: number,
    options: WalletModelOptions = {}
  ) {
    this.lifetimeMs = (options.sessionLifetimeSeconds ?? 900) * 1000
    this.rpId = options.rpId ?? "localhost"
    this.origin = options.origin ?? "https://localhost"
    this.otpCode = options.otpCode ?? "000000"
    this.oidcIssuer = options.oidcIssuer ?? "https://accounts.google.com"
  }

  /** Sessions that reached their lifetime leave; their keys join the dead ones. */
  expire(): void {
    for (const s of [...this.sessions.values()]) {
      if (s.createdAtMs + this.lifetimeMs <= this.nowMs) this.endSession(s.id)
    }
  }
  endSession(id: string): void {
    const s = this.sessions.get(id)
    if (s === undefined) return
    this.sessions.delete(id)
    this.deadKeys.push(s.key)
  }
  /** Counts an attempt; false when the server must answer 429. */
  attempt(credentialId: string, endpoint: keyof typeof RATE): boolean {
    const { max, windowMillis } = RATE[endpoint]
    const key = `${credentialId}:${endpoint}`
    const w = this.rates.get(key)
    if (w === undefined || w.windowStart + windowMillis <= this.nowMs) {
      this.rates.set(key, { windowStart: this.nowMs, count: 1 })
      return true
    }
    w.count++
    return w.count <= max
  }
  pickCredential(pick: number): ModelCredential | undefined {
    const all = [...this.credentials.values()]
    return all.length === 0 ? undefined : all[pick % all.length]
  }
  pickSession(pick: number, filter: (s: ModelSession) => boolean = () => true): ModelSession | undefined {
    const all = [...this.sessions.values()].filter(filter)
    return all.length === 0 ? undefined : all[pick % all.length]
  }
}

/** The system under test: the client and the wallet app's libraries. */
export interface WalletReal {
  readonly api: WalletApiClient
  readonly kit: WalletClientKit
}

type Reply = { readonly status: number; readonly body: unknown }

const record = (body: unknown): Record<string, unknown> => (typeof body === "object" && body !== null ? body as Record<string, unknown> : {})
const str = (body: unknown, key: string): string => String(record(body)[key] ?? "")
const show = (r: Reply) => `${r.status} ${JSON.stringify(r.body)}`

const expectStatus = (what: string, r: Reply, status: number, code?: string): void => {
  if (r.status !== status || (code !== undefined && str(r.body, "code") !== code)) {
    throw new Error(`${what}: expected ${status}${code === undefined ? "" : ` ${code}`}, got ${show(r)}`)
  }
}

/** 429 RATE_LIMITED when the model says the attempt is over the limit; true when it was (the step stops). */
const limited = (what: string, r: Reply, allowed: boolean): boolean => {
  if (allowed) {
    if (r.status === 429) throw new Error(`${what}: the model allows this attempt, the API answered 429`)
    return false
  }
  expectStatus(`${what} (over the rate limit)`, r, 429, "RATE_LIMITED")
  return true
}

/** Two legs: the first answers 202, the retry is stamped with `key`. */
const signedCall = async (real: WalletReal, method: string, path: string, key: WalletKeyPair, body?: unknown) => {
  const first = await real.api.call(method, path, body)
  if (first.status !== 202) return { first, retry: first }
  const headers = { "service-wallet-signature": await real.kit.stamp(key, str(first.body, "payloadToSign")), "request-id": str(first.body, "requestId") }
  const retry = await real.api.call(method, path, body, headers)
  return { first, retry }
}

const b64u = (text: string): string => {
  const bytes = new TextEncoder().encode(text)
  let bin = ""
  for (const b of bytes) bin += String.fromCharCode(b)
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
}

const sha256Hex = async (text: string): Promise<string> => {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("")
}

/** An unsigned id token with the claims the sandbox checks. */
const oidcToken = async (m: WalletAuthModel, sub: string, clientPublicKey?: string): Promise<string> => {
  const iat = Math.floor(m.nowMs / 1000)
  const claims = {
    iss: m.oidcIssuer,
    aud: "wallet-model",
    sub,
    iat,
    exp: iat + 600,
    ...(clientPublicKey === undefined ? {} : { nonce: await sha256Hex(clientPublicKey) })
  }
  return `${b64u(JSON.stringify({ alg: "RS256", typ: "JWT" }))}.${b64u(JSON.stringify(claims))}.${b64u("unsigned")}`
}

// ---------------------------------------------------------------- agreement

/** GET /auth/credentials and GET /auth/sessions list exactly the model's credentials and active sessions. */
export const agree = async (m: WalletAuthModel, real: WalletReal): Promise<void> => {
  m.expire()
  const creds = await real.api.call("GET", `/auth/credentials?accountId=${encodeURIComponent(m.accountId)}`)
  expectStatus("list credentials", creds, 200)
  const listed = ((record(creds.body)["data"] as Array<Record<string, unknown>> | undefined) ?? []).map((c) => `${String(c["id"])}:${String(c["type"])}`).sort()
  const modelled = [...m.credentials.values()].map((c) => `${c.id}:${c.type}`).sort()
  if (listed.join() !== modelled.join()) throw new Error(`credentials: the API lists [${listed.join(", ")}], the model holds [${modelled.join(", ")}]`)
  const sessions = await real.api.call("GET", `/auth/sessions?accountId=${encodeURIComponent(m.accountId)}`)
  expectStatus("list sessions", sessions, 200)
  const data = (record(sessions.body)["data"] as Array<Record<string, unknown>> | undefined) ?? []
  const listedSessions = data.map((s) => String(s["id"])).sort()
  const modelledSessions = [...m.sessions.keys()].sort()
  if (listedSessions.join() !== modelledSessions.join()) {
    throw new Error(`sessions: the API lists [${listedSessions.join(", ")}], the model holds [${modelledSessions.join(", ")}]`)
  }
  for (const s of data) {
    const mine = m.sessions.get(String(s["id"]))
    const cred = mine === undefined ? undefined : m.credentials.get(mine.credentialId)
    if (cred !== undefined && s["type"] !== cred.type) throw new Error(`session ${String(s["id"])} is ${String(s["type"])}, its credential is ${cred.type}`)
  }
  if (m.cardId === undefined) return
  const listedKeys = (await delegatedKeysOf(m, real)).map((k) => `${k.id}:${k.status}`).sort()
  const modelledKeys = [...m.delegatedKeys].map(([id, status]) => `${id}:${status}`).sort()
  if (listedKeys.join() !== modelledKeys.join()) {
    throw new Error(`delegated keys: the API lists [${listedKeys.join(", ")}], the model holds [${modelledKeys.join(", ")}]`)
  }
}

/** GET /auth/delegated-keys?accountId= of the model's wallet. */
const delegatedKeysOf = async (m: WalletAuthModel, real: WalletReal): Promise<ReadonlyArray<{ readonly id: string; readonly status: string }>> => {
  const r = await real.api.call("GET", `/auth/delegated-keys?accountId=${encodeURIComponent(m.accountId)}`)
  expectStatus("list delegated keys", r, 200)
  return ((record(r.body)["data"] as Array<Record<string, unknown>> | undefined) ?? []).map((k) => ({ id: String(k["id"]), status: String(k["status"]) }))
}

// ---------------------------------------------------------------- sessions from verification

const addSession = (m: WalletAuthModel, what: string, r: Reply, credentialId: string, key: WalletKeyPair): void => {
  const id = str(r.body, "id")
  if (id === "" || str(r.body, "accountId") !== m.accountId) throw new Error(`${what}: not a session of the wallet: ${show(r)}`)
  const expiresAt = Date.parse(str(r.body, "expiresAt"))
  // The server's instant is the model's plus the real time the run took so far.
  if (!(expiresAt >= m.nowMs + m.lifetimeMs - 1000 && expiresAt <= m.nowMs + m.lifetimeMs + 120_000)) {
    throw new Error(`${what}: expiresAt ${str(r.body, "expiresAt")} is not ${m.lifetimeMs / 1000} s after the model's now ${new Date(m.nowMs).toISOString()}`)
  }
  m.sessions.set(id, { id, credentialId, key, createdAtMs: m.nowMs })
}

/** The session key a verify answer gives: the sealed key for an uncompressed client key, else the client's own. */
const sessionKeyOf = (real: WalletReal, r: Reply, client: WalletKeyPair, uncompressed: boolean): WalletKeyPair => {
  const sealed = record(r.body)["encryptedSessionSigningKey"]
  if (uncompressed) {
    if (typeof sealed !== "string") throw new Error(`an uncompressed clientPublicKey must get encryptedSessionSigningKey: ${show(r)}`)
    return real.kit.decryptSessionKey(sealed, client.privateKey)
  }
  if (sealed !== undefined) throw new Error(`a compressed clientPublicKey is the session key; got encryptedSessionSigningKey`)
  return client
}

// ---------------------------------------------------------------- commands

type Cmd = fc.AsyncCommand<WalletAuthModel, WalletReal>

/** POST /auth/credentials: the first with platform auth alone, any other signed by an active session. */
export class AddCredential implements Cmd {
  constructor(readonly type: CredentialType, readonly n: number, readonly signer: number) {}
  check = () => true
  async run(m: WalletAuthModel, real: WalletReal) {
    m.expire()
    const what = `add ${this.type}`
    let body: Record<string, unknown> = { type: this.type, accountId: m.accountId }
    let passkey: PasskeyHandle | undefined
    const sub = `${m.tag}-${this.n}`
    if (this.type === "OAUTH") body = { ...body, oidcToken: await oidcToken(m, sub) }
    if (this.type === "PASSKEY") {
      const kit = real.kit.passkey
      if (kit === undefined) return
      const handle = kit.create()
      const challenge = b64u(`registration-${m.tag}-${this.n}`)
      passkey = { handle, counter: 0 }
      body = { ...body, nickname: `Key ${this.n}`, challenge, attestation: kit.register(handle, { rpId: m.rpId, origin: m.origin, challenge }) }
    }
    const existing = [...m.credentials.values()]
    const refusal: [number, string] | undefined =
      this.type === "EMAIL_OTP" && existing.some((c) => c.type === "EMAIL_OTP") ? [400, "EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS"]
      : this.type === "SMS_OTP" && existing.some((c) => c.type === "SMS_OTP") ? [400, "SMS_OTP_CREDENTIAL_ALREADY_EXISTS"]
      : this.type === "OAUTH" && existing.some((c) => c.sub === sub) ? [409, "CONFLICT"]
      : this.type === "PASSKEY" && existing.some((c) => c.type === "PASSKEY") ? [409, "PASSKEY_ALREADY_ENROLLED"]
      : undefined
    const session = m.pickSession(this.signer)
    let created: Reply
    if (existing.length === 0) {
      created = await real.api.call("POST", "/auth/credentials", body)
      if (refusal !== undefined) throw new Error(`${what}: the model has no credential to clash with`)
      expectStatus(what, created, 201)
    } else {
      const key = session?.key ?? real.kit.newKeyPair()
      const r = await signedCall(real, "POST", "/auth/credentials", key, body)
      if (refusal !== undefined) return expectStatus(`${what} (refused on the first leg)`, r.first, refusal[0], refusal[1])
      expectStatus(`${what} (first leg)`, r.first, 202)
      if (str(r.first.body, "type") !== this.type) throw new Error(`${what}: the challenge names type ${str(r.first.body, "type")}`)
      if (session === undefined) return expectStatus(`${what} (no active session signs)`, r.retry, 401, "WALLET_SIGNATURE_INVALID")
      expectStatus(`${what} (signed retry)`, r.retry, 201)
      created = r.retry
    }
    const id = str(created.body, "id")
    if ((this.type === "EMAIL_OTP" || this.type === "SMS_OTP") !== (typeof record(created.body)["otpEncryptionTargetBundle"] === "string")) {
      throw new Error(`${what}: otpEncryptionTargetBundle comes with OTP credentials only: ${show(created)}`)
    }
    m.credentials.set(id, { id, type: this.type, ...(this.type === "OAUTH" ? { sub } : {}), ...(passkey === undefined ? {} : { passkey }) })
  }
  toString = () => `add(${this.type}${this.type === "OAUTH" ? ` #${this.n}` : ""}, signer #${this.signer})`
}

/** Challenge (where the type has one) and verify: a new session, or 401 / 429 as the model says. */
export class Login implements Cmd {
  constructor(readonly pick: number, readonly compressed: boolean, readonly wrong: boolean) {}
  check = (m: Readonly<WalletAuthModel>) => m.credentials.size > 0
  async run(m: WalletAuthModel, real: WalletReal) {
    m.expire()
    const c = m.pickCredential(this.pick)
    if (c === undefined) return
    const what = `login ${c.type} ${c.id}`
    const path = `/auth/credentials/${encodeURIComponent(c.id)}`
    const client = real.kit.newKeyPair()
    switch (c.type) {
      case "EMAIL_OTP":
      case "SMS_OTP": {
        const ch = await real.api.call("POST", `${path}/challenge`, { clientPublicKey: client.publicKey })
        if (limited(`${what} challenge`, ch, m.attempt(c.id, "challenge"))) return
        expectStatus(`${what} challenge`, ch, 200)
        const bundle = str(ch.body, "otpEncryptionTargetBundle")
        const body = { type: c.type, encryptedOtpBundle: await real.kit.encryptOtp(this.wrong ? "123456" : m.otpCode, bundle, client.publicKey) }
        const first = await real.api.call("POST", `${path}/verify`, body)
        if (limited(`${what} verify`, first, m.attempt(c.id, "verify"))) return
        if (this.wrong) {
          expectStatus(`${what} with a wrong code`, first, 401, "UNAUTHORIZED")
          if (str(first.body, "reason") !== "Invalid OTP code") throw new Error(`${what}: reason ${str(first.body, "reason")}`)
          return
        }
        expectStatus(`${what} verify (first leg)`, first, 202)
        const headers = { "service-wallet-signature": await real.kit.stamp(client, str(first.body, "payloadToSign")), "request-id": str(first.body, "requestId") }
        const retry = await real.api.call("POST", `${path}/verify`, body, headers)
        if (limited(`${what} verify (signed retry)`, retry, m.attempt(c.id, "verify"))) return
        expectStatus(`${what} verify (signed retry)`, retry, 200)
        return addSession(m, what, retry, c.id, client)
      }
      case "PASSKEY": {
        const kit = real.kit.passkey
        const passkey = c.passkey
        if (kit === undefined || passkey === undefined) return
        const clientPublicKey = this.compressed ? client.publicKey : client.publicKeyUncompressed
        const ch = await real.api.call("POST", `${path}/challenge`, { clientPublicKey })
        if (limited(`${what} challenge`, ch, m.attempt(c.id, "challenge"))) return
        expectStatus(`${what} challenge`, ch, 200)
        const counter = passkey.counter + 1
        // A wrong assertion: signed over another challenge.
        const challenge = b64u(this.wrong ? `not-${str(ch.body, "challenge")}` : str(ch.body, "challenge"))
        const assertion = kit.assert(passkey.handle, { rpId: m.rpId, origin: m.origin, challenge, counter })
        const r = await real.api.call("POST", `${path}/verify`, { type: "PASSKEY", assertion }, { "request-id": str(ch.body, "requestId") })
        if (limited(`${what} verify`, r, m.attempt(c.id, "verify"))) return
        if (this.wrong) return expectStatus(`${what} with an assertion over another challenge`, r, 401)
        expectStatus(`${what} verify`, r, 200)
        passkey.counter = counter
        return addSession(m, what, r, c.id, sessionKeyOf(real, r, client, !this.compressed))
      }
      case "OAUTH": {
        const clientPublicKey = this.compressed ? client.publicKey : client.publicKeyUncompressed
        const token = await oidcToken(m, this.wrong ? `${c.sub ?? ""}-someone-else` : c.sub ?? "", clientPublicKey)
        const r = await real.api.call("POST", `${path}/verify`, { type: "OAUTH", oidcToken: token, clientPublicKey })
        if (limited(`${what} verify`, r, m.attempt(c.id, "verify"))) return
        if (this.wrong) return expectStatus(`${what} with another identity's token`, r, 401)
        expectStatus(`${what} verify`, r, 200)
        return addSession(m, what, r, c.id, sessionKeyOf(real, r, client, !this.compressed))
      }
    }
  }
  toString = () => `login(#${this.pick}${this.compressed ? "" : ", uncompressed"}${this.wrong ? ", wrong" : ""})`
}

/** DELETE /auth/credentials/{id}, signed by a session of another credential; the wallet keeps one. */
export class RevokeCredential implements Cmd {
  constructor(readonly pick: number, readonly signer: number) {}
  check = (m: Readonly<WalletAuthModel>) => m.credentials.size > 0
  async run(m: WalletAuthModel, real: WalletReal) {
    m.expire()
    const c = m.pickCredential(this.pick)
    if (c === undefined) return
    const what = `revoke credential ${c.type} ${c.id}`
    const other = m.pickSession(this.signer, (s) => s.credentialId !== c.id)
    const own = m.pickSession(this.signer, (s) => s.credentialId === c.id)
    const key = other?.key ?? own?.key ?? real.kit.newKeyPair()
    const r = await signedCall(real, "DELETE", `/auth/credentials/${encodeURIComponent(c.id)}`, key)
    if (m.credentials.size <= 1) return expectStatus(`${what} (the last one)`, r.first, 400, "INVALID_INPUT")
    expectStatus(`${what} (first leg)`, r.first, 202)
    if (other === undefined) return expectStatus(`${what} (signed by its own session or none)`, r.retry, 401, "WALLET_SIGNATURE_INVALID")
    expectStatus(`${what} (signed retry)`, r.retry, 204)
    m.credentials.delete(c.id)
    for (const s of [...m.sessions.values()]) if (s.credentialId === c.id) m.endSession(s.id)
  }
  toString = () => `revokeCredential(#${this.pick}, signer #${this.signer})`
}

/** DELETE /auth/sessions/{id}, signed by any active session (itself included). */
export class RevokeSession implements Cmd {
  constructor(readonly pick: number, readonly signer: number) {}
  check = (m: Readonly<WalletAuthModel>) => m.sessions.size > 0
  async run(m: WalletAuthModel, real: WalletReal) {
    m.expire()
    const s = m.pickSession(this.pick)
    const signer = m.pickSession(this.signer)
    if (s === undefined || signer === undefined) return // every session expired meanwhile
    const r = await signedCall(real, "DELETE", `/auth/sessions/${encodeURIComponent(s.id)}`, signer.key)
    expectStatus(`revoke session ${s.id} (first leg)`, r.first, 202)
    expectStatus(`revoke session ${s.id} (signed retry)`, r.retry, 204)
    m.endSession(s.id)
  }
  toString = () => `revokeSession(#${this.pick}, signer #${this.signer})`
}

/** POST /auth/sessions/{id}/refresh, signed by that session (another session's stamp is refused). */
export class RefreshSession implements Cmd {
  constructor(readonly pick: number, readonly byAnother: boolean) {}
  check = (m: Readonly<WalletAuthModel>) => m.sessions.size > 0
  async run(m: WalletAuthModel, real: WalletReal) {
    m.expire()
    const s = m.pickSession(this.pick)
    if (s === undefined) return
    const what = `refresh session ${s.id}`
    const other = m.pickSession(this.pick, (o) => o.id !== s.id)
    const next = real.kit.newKeyPair()
    const signer = this.byAnother && other !== undefined ? other.key : s.key
    const r = await signedCall(real, "POST", `/auth/sessions/${encodeURIComponent(s.id)}/refresh`, signer, { clientPublicKey: next.publicKey })
    expectStatus(`${what} (first leg)`, r.first, 202)
    if (signer !== s.key) return expectStatus(`${what} (signed by another session)`, r.retry, 401, "WALLET_SIGNATURE_INVALID")
    expectStatus(`${what} (signed retry)`, r.retry, 201)
    m.endSession(s.id)
    addSession(m, what, r.retry, s.credentialId, next)
  }
  toString = () => `refresh(#${this.pick}${this.byAnother ? ", signed by another" : ""})`
}

/** POST /sandbox/clock/advance by a multiple of 17 seconds (see the module comment). */
export class AdvanceWalletClock implements Cmd {
  constructor(readonly units: number) {}
  check = () => true
  async run(m: WalletAuthModel, real: WalletReal) {
    const r = await real.api.call("POST", "/sandbox/clock/advance", { seconds: this.units * 17 })
    expectStatus("advance the clock", r, 200)
    m.nowMs += this.units * 17_000
    m.expire()
  }
  toString = () => `advance(${this.units * 17} s)`
}

/**
 * PATCH /internal-accounts/{id} (a signed wallet action): signed by an active session it
 * succeeds; by a revoked, refreshed or expired session's key, or a stranger's, it is 401
 * WALLET_SIGNATURE_INVALID and nothing changes.
 */
export class SignedAction implements Cmd {
  constructor(readonly signer: number, readonly withDeadKey: boolean) {}
  check = () => true
  async run(m: WalletAuthModel, real: WalletReal) {
    m.expire()
    const session = this.withDeadKey ? undefined : m.pickSession(this.signer)
    const dead = m.deadKeys.length === 0 ? undefined : m.deadKeys[this.signer % m.deadKeys.length]
    const key = session?.key ?? dead ?? real.kit.newKeyPair()
    const want = !m.privateEnabled
    const r = await signedCall(real, "PATCH", `/internal-accounts/${encodeURIComponent(m.accountId)}`, key, { privateEnabled: want })
    expectStatus("signed action (first leg)", r.first, 202)
    if (session === undefined) return expectStatus("signed action with a key of no active session", r.retry, 401, "WALLET_SIGNATURE_INVALID")
    expectStatus("signed action", r.retry, 200)
    if (record(r.retry.body)["privateEnabled"] !== want) throw new Error(`signed action: privateEnabled is not ${String(want)}: ${show(r.retry)}`)
    m.privateEnabled = want
  }
  toString = () => `signedAction(#${this.signer}${this.withDeadKey ? ", dead key" : ""})`
}

/**
 * POST /auth/delegated-keys in three legs for the wallet's card: 409 CONFLICT on the
 * first leg while the model holds an ACTIVE key; the second leg signed by an active
 * session makes a PENDING key (by a dead or stranger's key: 401 WALLET_SIGNATURE_INVALID);
 * the third makes it ACTIVE, unless the flow is abandoned after the second.
 */
export class CreateDelegatedKey implements Cmd {
  constructor(readonly signer: number, readonly withDeadKey: boolean, readonly abandon: boolean) {}
  check = (m: Readonly<WalletAuthModel>) => m.cardId !== undefined
  async run(m: WalletAuthModel, real: WalletReal) {
    m.expire()
    if (m.cardId === undefined) return
    const what = "create delegated key"
    const body = { cardId: m.cardId, internalAccountId: m.accountId, nickname: `Key ${m.delegatedKeys.size + 1}` }
    const first = await real.api.call("POST", "/auth/delegated-keys", body)
    if ([...m.delegatedKeys.values()].includes("ACTIVE")) return expectStatus(`${what} while one is ACTIVE`, first, 409, "CONFLICT")
    expectStatus(`${what} (first leg)`, first, 202)
    const session = this.withDeadKey ? undefined : m.pickSession(this.signer)
    const dead = m.deadKeys.length === 0 ? undefined : m.deadKeys[this.signer % m.deadKeys.length]
    const key = session?.key ?? dead ?? real.kit.newKeyPair()
    const sign = async (challenge: Reply) => ({
      "service-wallet-signature": await real.kit.stamp(key, str(challenge.body, "payloadToSign")),
      "request-id": str(challenge.body, "requestId")
    })
    const second = await real.api.call("POST", "/auth/delegated-keys", body, await sign(first))
    if (session === undefined) return expectStatus(`${what} signed with a key of no active session`, second, 401, "WALLET_SIGNATURE_INVALID")
    expectStatus(`${what} (second leg)`, second, 202)
    const made = (await delegatedKeysOf(m, real)).filter((k) => !m.delegatedKeys.has(k.id))
    if (made.length !== 1 || made[0]?.status !== "PENDING") throw new Error(`${what}: the second leg must make one PENDING key; new: ${JSON.stringify(made)}`)
    const id = made[0].id
    m.delegatedKeys.set(id, "PENDING")
    if (this.abandon) return
    const third = await real.api.call("POST", "/auth/delegated-keys", body, await sign(second))
    expectStatus(`${what} (third leg)`, third, 201)
    if (str(third.body, "id") !== id || str(third.body, "status") !== "ACTIVE") throw new Error(`${what}: the third leg must activate ${id}: ${show(third)}`)
    m.delegatedKeys.set(id, "ACTIVE")
  }
  toString = () => `createDelegatedKey(signer #${this.signer}${this.withDeadKey ? ", dead key" : ""}${this.abandon ? ", abandoned after leg 2" : ""})`
}

/** DELETE /auth/delegated-keys/{id} (platform auth alone): an ACTIVE key is revoked (204), any other is 400. */
export class RevokeDelegatedKey implements Cmd {
  constructor(readonly pick: number) {}
  check = (m: Readonly<WalletAuthModel>) => m.delegatedKeys.size > 0
  async run(m: WalletAuthModel, real: WalletReal) {
    const all = [...m.delegatedKeys]
    const picked = all[this.pick % all.length]
    if (picked === undefined) return
    const [id, status] = picked
    const r = await real.api.call("DELETE", `/auth/delegated-keys/${encodeURIComponent(id)}`)
    if (status !== "ACTIVE") return expectStatus(`revoke the ${status} delegated key ${id}`, r, 400, "INVALID_INPUT")
    expectStatus(`revoke delegated key ${id}`, r, 204)
    m.delegatedKeys.set(id, "REVOKED")
  }
  toString = () => `revokeDelegatedKey(#${this.pick})`
}

/** Wraps a command so that the API and the model are compared after it. */
export class Checked extends CheckedCommand<WalletAuthModel, WalletReal> {
  constructor(inner: Cmd) {
    super(inner, agree)
  }
}

/** Creates a customer with an embedded wallet and reads the platform's clock: a fresh model. */
export const setupWalletWorld = async (
  api: WalletApiClient,
  tag: string,
  options: WalletModelOptions = {}
): Promise<WalletAuthModel> => {
  const customer = await api.call("POST", "/customers", {
    customerType: "INDIVIDUAL",
    fullName: "Model Wallet Owner",
    email: `${tag}@example.com`,
    phoneNumber: `+1415${String(Math.abs(hashOf(tag)) % 10_000_000).padStart(7, "0")}`
  })
  expectStatus("create the wallet's customer", customer, 201)
  const accounts = await api.call("GET", `/customers/internal-accounts?customerId=${encodeURIComponent(str(customer.body, "id"))}&type=EMBEDDED_WALLET`)
  const accountId = String(((record(accounts.body)["data"] as Array<Record<string, unknown>> | undefined) ?? [])[0]?.["id"] ?? "")
  if (accountId === "") throw new Error(`the customer has no EMBEDDED_WALLET account: ${show(accounts)}`)
  const customerId = str(customer.body, "id")
  // A card the wallet funds, for the delegated keys; a server without cards (501) leaves them out.
  const card = await api.call("POST", "/cards", { cardholderId: customerId, form: "VIRTUAL", fundingSources: [accountId] })
  const clock = await api.call("GET", "/sandbox/clock")
  expectStatus("read the sandbox clock", clock, 200)
  const model = new WalletAuthModel(accountId, tag, Date.parse(str(clock.body, "now")), options)
  if (card.status === 201) model.cardId = str(card.body, "id")
  return model
}

const hashOf = (text: string): number => {
  let h = 0
  for (let i = 0; i < text.length; i++) h = (Math.imul(h, 31) + text.charCodeAt(i)) | 0
  return h
}

/**
 * The commands, each followed by the comparison with GET /auth/credentials and GET
 * /auth/sessions: add credentials of every type, log in (challenge and verify; now and
 * then a wrong code, assertion or identity), revoke credentials and sessions, refresh,
 * advance the clock past session lifetimes and rate windows, signed actions with live
 * and dead keys, and (when the server issues cards) delegated keys created, abandoned
 * and revoked.
 */
export const walletAuthCommands = (): Array<fc.Arbitrary<Cmd>> => {
  const types = fc.constantFrom<CredentialType>("EMAIL_OTP", "SMS_OTP", "OAUTH", "PASSKEY")
  const wrong = fc.integer({ min: 0, max: 5 }).map((n) => n === 0)
  return [
    fc.tuple(types, fc.integer({ min: 0, max: 2 }), fc.nat()).map(([t, n, s]) => new Checked(new AddCredential(t, n, s))),
    fc.tuple(fc.nat(), fc.boolean(), wrong).map(([p, c, w]) => new Checked(new Login(p, c, w))),
    fc.tuple(fc.nat(), fc.nat()).map(([p, s]) => new Checked(new RevokeCredential(p, s))),
    fc.tuple(fc.nat(), fc.nat()).map(([p, s]) => new Checked(new RevokeSession(p, s))),
    fc.tuple(fc.nat(), wrong).map(([p, a]) => new Checked(new RefreshSession(p, a))),
    fc.constantFrom(1, 2, 10, 53).map((u) => new Checked(new AdvanceWalletClock(u))),
    fc.tuple(fc.nat(), wrong).map(([s, d]) => new Checked(new SignedAction(s, d))),
    fc.tuple(fc.nat(), wrong, fc.boolean()).map(([s, d, a]) => new Checked(new CreateDelegatedKey(s, d, a))),
    fc.nat().map((p) => new Checked(new RevokeDelegatedKey(p)))
  ]
}
