/**
 * Conformance: every success answer of the embedded-wallet endpoints (Embedded Wallet
 * Auth credentials, sessions and delegated keys, the signed internal-account actions) validates against
 * the reference OpenAPI operation's schema for its status, both legs of the signed flows
 * included (the 202 challenge and the signed retry's 200 / 201 / 204), and carries none of
 * the reference's write-only properties. Driven with the real client libraries, as
 * test/http/embedded-wallets.e2e.test.ts: `@turnkey/crypto`, `@turnkey/api-key-stamper`
 * and a software WebAuthn authenticator.
 *
 * SPEC.md's differences that touch these bodies: none. (Its one wallet difference, the
 * `Service-Wallet-Signature` header for the reference's `Grid-Wallet-Signature`, is a
 * header, not a body.) `SPEC_DIFFERENCES` is therefore empty, on purpose.
 */
import { ApiKeyStamper } from "@turnkey/api-key-stamper"
import { encryptOtpCodeToBundle, generateP256KeyPair } from "@turnkey/crypto"
import { createHash } from "node:crypto"
import { afterAll, describe, expect, it } from "vitest"
import { platformFromConfig } from "../../src/domain/platform.js"
import { makeApi, type Reply } from "../support/api.js"
import { createCredential, makeAssertion, makeRegistration } from "../crypto/support/authenticator.js"
import { conformance, type Json, markedIn } from "./harness.js"
import { WALLET_OPERATIONS } from "./operations.js"

/** None: see the header comment. */
const SPEC_DIFFERENCES = (_: Record<string, Json>) => undefined

const { conforms, validator, checked, statuses } = conformance(SPEC_DIFFERENCES)

const platform = platformFromConfig({ id: "conformance-wallets", clientId: "conf-wallet", clientSecret: "conf-wallet-secret-1", regulated: true, embeddedWallets: {} })
const api = makeApi([platform])
afterAll(() => api.dispose())

type Key = { readonly privateKey: string; readonly publicKey: string }
const stamp = async (key: Key, payload: string) =>
  (await new ApiKeyStamper({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey, runtimeOverride: "node" }).stamp(payload)).stampHeaderValue
const b64u = (text: string) => Buffer.from(text).toString("base64url")
const jwt = (claims: Json) => `${b64u(JSON.stringify({ alg: "RS256", typ: "JWT" }))}.${b64u(JSON.stringify(claims))}.${b64u("sig")}`
const RP = "localhost"
const ORIGIN = "https://localhost"

/** `METHOD path` with the reference's parameter names, for the conformance lookup. */
const call = (method: string, refPath: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}) =>
  api.call(method, path, options).then((r) => ({ ...r, check: () => conforms(method, refPath, r) }))

/** Both legs of a signed flow, each checked against the reference. */
const signed = async (method: string, refPath: string, path: string, key: Key, body?: unknown): Promise<{ first: Reply; retry: Reply }> => {
  const options = body === undefined ? {} : { body }
  const first = await call(method, refPath, path, options)
  expect(first.status, `${method} ${path}: ${JSON.stringify(first.body)}`).toBe(202)
  first.check()
  const retry = await call(method, refPath, path, {
    ...options,
    headers: { "service-wallet-signature": await stamp(key, first.body.payloadToSign), "request-id": first.body.requestId }
  })
  retry.check()
  return { first, retry }
}

let n = 0
const newWallet = async () => {
  n++
  const c = await api.call("POST", "/customers", {
    body: { customerType: "INDIVIDUAL", fullName: "Con Formance", email: `conform${n}@example.com`, phoneNumber: `+1415444${String(1000 + n)}` }
  })
  expect(c.status).toBe(201)
  const accounts = await api.call("GET", `/customers/internal-accounts?customerId=${c.body.id}&type=EMBEDDED_WALLET`)
  return { customerId: c.body.id as string, accountId: accounts.body.data[0].id as string }
}

/** EMAIL_OTP registered (first credential, platform auth alone), challenged, verified in two legs: every answer checked. */
const emailLogin = async (accountId: string) => {
  const created = await call("POST", "/auth/credentials", "/auth/credentials", { body: { type: "EMAIL_OTP", accountId } })
  expect(created.status, JSON.stringify(created.body)).toBe(201)
  created.check()
  const id = created.body.id as string
  const tek = generateP256KeyPair()
  const challenged = await call("POST", "/auth/credentials/{id}/challenge", `/auth/credentials/${id}/challenge`, { body: { clientPublicKey: tek.publicKey } })
  challenged.check()
  const bundle = challenged.body.otpEncryptionTargetBundle as string
  const encryptedOtpBundle = await encryptOtpCodeToBundle("000000", bundle, tek.publicKey, JSON.parse(bundle).enclaveQuorumPublic)
  const { retry } = await signed("POST", "/auth/credentials/{id}/verify", `/auth/credentials/${id}/verify`, tek, { type: "EMAIL_OTP", encryptedOtpBundle })
  expect(retry.status).toBe(200)
  // A compressed key: the client-held-key flow, no key material in the answer (reference AuthSession).
  expect(retry.body.encryptedSessionSigningKey).toBeUndefined()
  return { credentialId: id, session: retry.body, key: tek }
}

describe("embedded-wallet answers against the reference", () => {
  it("the reference marks nothing write-only or read-only in these schemas (so the check is the schema itself)", () => {
    for (const schema of [
      "AuthMethodResponse", "AuthCredentialResponseOneOf", "AuthCredentialListResponse", "AuthSession", "SessionListResponse",
      "SignedRequestChallenge", "AuthSignedRequestChallenge", "InternalAccount", "InternalAccountExportResponse",
      "DelegatedKey", "DelegatedKeyListResponse", "DelegatedKeySignedRequestChallenge"
    ]) {
      const marked = markedIn(schema)
      expect([...marked.writeOnly, ...marked.readOnly], schema).toEqual([])
    }
  })

  it("EMAIL_OTP and SMS_OTP: register, challenge, verify (202 then 200), lists, refresh (202 then 201), revoke session and credential (202 then 204)", async () => {
    const w = await newWallet()
    const login = await emailLogin(w.accountId)
    const sms = await signed("POST", "/auth/credentials", "/auth/credentials", login.key, { type: "SMS_OTP", accountId: w.accountId })
    expect(sms.first.body.type).toBe("SMS_OTP")
    expect(sms.retry.status).toBe(201)
    const smsChallenge = await call("POST", "/auth/credentials/{id}/challenge", `/auth/credentials/${sms.retry.body.id}/challenge`, { body: {} })
    smsChallenge.check()
    expect(smsChallenge.body.otpEncryptionTargetBundle).toEqual(expect.any(String))

    const creds = await call("GET", "/auth/credentials", `/auth/credentials?accountId=${w.accountId}`)
    creds.check()
    expect(creds.body.data.map((c: { type: string }) => c.type).sort()).toEqual(["EMAIL_OTP", "SMS_OTP"])

    const refreshedKey = generateP256KeyPair()
    const refreshed = await signed("POST", "/auth/sessions/{id}/refresh", `/auth/sessions/${login.session.id}/refresh`, login.key, { clientPublicKey: refreshedKey.publicKey })
    expect(refreshed.retry.status).toBe(201)
    // The reference's 202 here is the bare SignedRequestChallenge; ours also says the `type`
    // (AuthSignedRequestChallenge), which the bare schema admits (no unevaluatedProperties).
    expect(validator("AuthSignedRequestChallenge")(refreshed.first.body)).toBe(true)

    const sessions = await call("GET", "/auth/sessions", `/auth/sessions?accountId=${w.accountId}`)
    sessions.check()
    expect(sessions.body.data).toHaveLength(1)
    // The reference: `encryptedSessionSigningKey` is "always omitted from list responses".
    for (const s of sessions.body.data) expect(s.encryptedSessionSigningKey).toBeUndefined()

    const revokeSession = await signed("DELETE", "/auth/sessions/{id}", `/auth/sessions/${refreshed.retry.body.id}`, refreshedKey)
    expect(revokeSession.retry.status).toBe(204)
    // A fresh session (its session was just revoked) to revoke the SMS_OTP credential with.
    const second = await (async () => {
      const tek = generateP256KeyPair()
      const ch = await call("POST", "/auth/credentials/{id}/challenge", `/auth/credentials/${login.credentialId}/challenge`, { body: { clientPublicKey: tek.publicKey } })
      ch.check()
      const bundle = ch.body.otpEncryptionTargetBundle as string
      const encryptedOtpBundle = await encryptOtpCodeToBundle("000000", bundle, tek.publicKey, JSON.parse(bundle).enclaveQuorumPublic)
      await signed("POST", "/auth/credentials/{id}/verify", `/auth/credentials/${login.credentialId}/verify`, tek, { type: "EMAIL_OTP", encryptedOtpBundle })
      return tek
    })()
    const revokeCredential = await signed("DELETE", "/auth/credentials/{id}", `/auth/credentials/${sms.retry.body.id}`, second)
    expect(revokeCredential.first.body.type).toBe("SMS_OTP")
    expect(revokeCredential.retry.status).toBe(204)
  })

  it("PASSKEY: register (signed), challenge (the PasskeyAuthChallenge branch), verify with the legacy sealed key; OAUTH: register (signed), verify", async () => {
    const w = await newWallet()
    const login = await emailLogin(w.accountId)
    const authenticator = createCredential()
    const attestation = makeRegistration({ credential: authenticator, rpId: RP, origin: ORIGIN, challenge: b64u("registration-challenge") })
    const created = await signed("POST", "/auth/credentials", "/auth/credentials", login.key, {
      type: "PASSKEY", accountId: w.accountId, nickname: "Laptop", challenge: b64u("registration-challenge"), attestation
    })
    expect(created.retry.status).toBe(201)
    expect(created.retry.body.credentialId).toEqual(expect.any(String))

    const client = generateP256KeyPair()
    const ch = await call("POST", "/auth/credentials/{id}/challenge", `/auth/credentials/${created.retry.body.id}/challenge`, { body: { clientPublicKey: client.publicKeyUncompressed } })
    ch.check()
    // It must be the passkey branch of the oneOf, not the strict AuthMethodResponse one.
    expect(validator("PasskeyAuthChallenge")(ch.body)).toBe(true)
    expect(validator("AuthMethodResponse")(ch.body)).toBe(false)
    const assertion = makeAssertion({ credential: authenticator, rpId: RP, origin: ORIGIN, challenge: b64u(ch.body.challenge), counter: 1 })
    const verified = await call("POST", "/auth/credentials/{id}/verify", `/auth/credentials/${created.retry.body.id}/verify`, {
      body: { type: "PASSKEY", assertion },
      headers: { "request-id": ch.body.requestId }
    })
    expect(verified.status, JSON.stringify(verified.body)).toBe(200)
    verified.check()
    expect(verified.body.encryptedSessionSigningKey).toEqual(expect.any(String))

    const clock = await api.call("GET", "/sandbox/clock")
    const now = Math.floor(Date.parse(clock.body.now) / 1000)
    const claims = { iss: "https://accounts.google.com", aud: "app", sub: "conform-1", iat: now, exp: now + 600, email: "conform@example.com" }
    const oauth = await signed("POST", "/auth/credentials", "/auth/credentials", login.key, { type: "OAUTH", accountId: w.accountId, oidcToken: jwt(claims) })
    expect(oauth.retry.status).toBe(201)
    const oauthKey = generateP256KeyPair()
    const nonce = createHash("sha256").update(oauthKey.publicKeyUncompressed).digest("hex")
    const oauthSession = await call("POST", "/auth/credentials/{id}/verify", `/auth/credentials/${oauth.retry.body.id}/verify`, {
      body: { type: "OAUTH", oidcToken: jwt({ ...claims, nonce }), clientPublicKey: oauthKey.publicKeyUncompressed }
    })
    expect(oauthSession.status, JSON.stringify(oauthSession.body)).toBe(200)
    oauthSession.check()

    const creds = await call("GET", "/auth/credentials", `/auth/credentials?accountId=${w.accountId}`)
    creds.check()
    expect(creds.body.data.map((c: { type: string }) => c.type).sort()).toEqual(["EMAIL_OTP", "OAUTH", "PASSKEY"])
    const sessions = await call("GET", "/auth/sessions", `/auth/sessions?accountId=${w.accountId}`)
    sessions.check()
    expect(sessions.body.data.length).toBeGreaterThanOrEqual(3)
    for (const s of sessions.body.data) expect(s.encryptedSessionSigningKey, "list answers carry no sealed key").toBeUndefined()
  })

  it("the signed internal-account actions and the signed customer update: PATCH and export (202 then 200), PATCH /customers/{customerId} 202", async () => {
    const w = await newWallet()
    const login = await emailLogin(w.accountId)
    const patched = await signed("PATCH", "/internal-accounts/{id}", `/internal-accounts/${w.accountId}`, login.key, { privateEnabled: true })
    expect(patched.retry.status).toBe(200)
    expect(patched.retry.body).toMatchObject({ id: w.accountId, type: "EMBEDDED_WALLET", privateEnabled: true })
    const target = generateP256KeyPair()
    const exported = await signed("POST", "/internal-accounts/{id}/export", `/internal-accounts/${w.accountId}/export`, login.key, { clientPublicKey: target.publicKeyUncompressed })
    expect(exported.retry.status).toBe(200)
    expect(exported.retry.body.id).toBe(w.accountId)

    const customer = await signed("PATCH", "/customers/{customerId}", `/customers/${w.customerId}`, login.key, { customerType: "INDIVIDUAL", email: `conform-new${n}@example.com` })
    expect(customer.retry.status).toBe(200)
  })

  it("delegated keys: create in three legs (202, 202, 201), list (PENDING, ACTIVE, REVOKED), get", async () => {
    const w = await newWallet()
    const login = await emailLogin(w.accountId)
    const card = await api.call("POST", "/cards", { body: { cardholderId: w.customerId, form: "VIRTUAL", fundingSources: [w.accountId] } })
    expect(card.status, JSON.stringify(card.body)).toBe(201)
    const body = { cardId: card.body.id, internalAccountId: w.accountId, nickname: "Card payments key" }
    const legs = async () => {
      const first = await call("POST", "/auth/delegated-keys", "/auth/delegated-keys", { body })
      expect(first.status, JSON.stringify(first.body)).toBe(202)
      first.check()
      const second = await call("POST", "/auth/delegated-keys", "/auth/delegated-keys", {
        body,
        headers: { "service-wallet-signature": await stamp(login.key, first.body.payloadToSign), "request-id": first.body.requestId }
      })
      expect(second.status, JSON.stringify(second.body)).toBe(202)
      second.check()
      expect(validator("DelegatedKeySignedRequestChallenge")(second.body)).toBe(true)
      return second
    }
    await legs() // abandoned: PENDING
    const second = await legs()
    const third = await call("POST", "/auth/delegated-keys", "/auth/delegated-keys", {
      body,
      headers: { "service-wallet-signature": await stamp(login.key, second.body.payloadToSign), "request-id": second.body.requestId }
    })
    expect(third.status, JSON.stringify(third.body)).toBe(201)
    third.check()
    expect(third.body.status).toBe("ACTIVE")
    const got = await call("GET", "/auth/delegated-keys/{id}", `/auth/delegated-keys/${third.body.id}`)
    got.check()
    expect((await api.call("DELETE", `/auth/delegated-keys/${third.body.id}`)).status).toBe(204)
    const revoked = await call("GET", "/auth/delegated-keys/{id}", `/auth/delegated-keys/${third.body.id}`)
    revoked.check()
    const byAccount = await call("GET", "/auth/delegated-keys", `/auth/delegated-keys?accountId=${w.accountId}`)
    byAccount.check()
    expect(byAccount.body.data.map((k: { status: string }) => k.status)).toEqual(["PENDING", "REVOKED"])
    const bySource = await call("GET", "/auth/delegated-keys", `/auth/delegated-keys?fundingSourceId=${third.body.fundingSourceId}`)
    bySource.check()
    const empty = await call("GET", "/auth/delegated-keys", `/auth/delegated-keys?accountId=InternalAccount:00000000-0000-4000-8000-000000000000`)
    empty.check()
    expect(empty.body).toEqual({ data: [] })
    expect(validator("DelegatedKey")({ ...third.body, status: "EXPIRED" })).toBe(false)
    expect(validator("DelegatedKey")({ ...third.body, fundingSourceId: undefined })).toBe(false)
  })

  it("the validator bites: a missing field, an unknown credential type, an extra field on the strict AuthMethodResponse", async () => {
    const w = await newWallet()
    const created = (await api.call("POST", "/auth/credentials", { body: { type: "EMAIL_OTP", accountId: w.accountId } })).body
    expect(validator("AuthMethodResponse")(created)).toBe(true)
    expect(validator("AuthMethodResponse")({ ...created, nickname: undefined })).toBe(false)
    expect(validator("AuthMethodResponse")({ ...created, type: "PASSWORD" })).toBe(false)
    expect(validator("AuthMethodResponse")({ ...created, extra: 1 })).toBe(false)
    expect(validator("SignedRequestChallenge")({ requestId: "Request:x", expiresAt: "2026-01-01T00:00:00Z" })).toBe(false)
  })

  it("every embedded-wallet operation was checked, each signed one on both legs", () => {
    for (const op of WALLET_OPERATIONS) expect(checked.get(op) ?? 0, op).toBeGreaterThan(0)
    for (const leg of [
      "POST /auth/credentials 201", "POST /auth/credentials 202",
      "DELETE /auth/credentials/{} 202", "DELETE /auth/credentials/{} 204",
      "POST /auth/credentials/{}/verify 200", "POST /auth/credentials/{}/verify 202",
      "DELETE /auth/sessions/{} 202", "DELETE /auth/sessions/{} 204",
      "POST /auth/sessions/{}/refresh 201", "POST /auth/sessions/{}/refresh 202",
      "PATCH /internal-accounts/{} 200", "PATCH /internal-accounts/{} 202",
      "POST /internal-accounts/{}/export 200", "POST /internal-accounts/{}/export 202",
      "PATCH /customers/{} 202",
      "POST /auth/delegated-keys 202", "POST /auth/delegated-keys 201"
    ]) expect(statuses.has(leg), leg).toBe(true)
  })
})
