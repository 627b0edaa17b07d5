/**
 * Embedded wallets end to end over HTTP, driven by the real client libraries:
 * `@turnkey/crypto` (OTP bundles, session-key and export bundles), `@turnkey/api-key-stamper`
 * (Service-Wallet-Signature stamps) and a software WebAuthn authenticator (passkeys).
 */
import { ApiKeyStamper } from "@turnkey/api-key-stamper"
import { decryptCredentialBundle, encryptOtpCodeToBundle, generateP256KeyPair, hpkeDecrypt } from "@turnkey/crypto"
import { createHash } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { p256 } from "@noble/curves/nist.js"
import { platformFromConfig } from "../../src/domain/platform.js"
import { makeApi, type Reply } from "../support/api.js"
import { createCredential, makeAssertion, makeRegistration } from "../crypto/support/authenticator.js"

const platform = platformFromConfig({
  id: "wallet-platform",
  clientId: "wallet-client",
  clientSecret: "wallet-secret-123",
  regulated: true,
  embeddedWallets: {}
})
const plain = platformFromConfig({ id: "plain-platform", clientId: "plain-client", clientSecret: "plain-secret-123", regulated: true })
const api = makeApi([platform, plain])
afterAll(() => api.dispose())

const RP = "localhost"
const ORIGIN = "https://localhost"

const stamp = async (key: { privateKey: string; publicKey: string }, payload: string): Promise<string> => {
  const stamper = new ApiKeyStamper({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey, runtimeOverride: "node" })
  return (await stamper.stamp(payload)).stampHeaderValue
}

const b64u = (text: string) => Buffer.from(text).toString("base64url")
const jwt = (claims: Record<string, unknown>) => `${b64u(JSON.stringify({ alg: "RS256", typ: "JWT" }))}.${b64u(JSON.stringify(claims))}.${b64u("sig")}`
const nonceOf = (key: string) => createHash("sha256").update(key).digest("hex")

interface Wallet {
  readonly customerId: string
  readonly accountId: string
}

let counter = 0
const newWallet = async (as = platform): Promise<Wallet> => {
  counter++
  const c = await api.call("POST", "/customers", {
    as,
    body: { customerType: "INDIVIDUAL", fullName: "Ada Lovelace", email: `ada${counter}@example.com`, phoneNumber: `+1415555${String(1000 + counter)}` }
  })
  expect(c.status).toBe(201)
  const accounts = await api.call("GET", `/customers/internal-accounts?customerId=${c.body.id}&type=EMBEDDED_WALLET`, { as })
  return { customerId: c.body.id, accountId: accounts.body.data[0]?.id }
}

/** Registers EMAIL_OTP (first credential) and logs in with it: the TEK is the session key. */
const emailLogin = async (w: Wallet, credentialId?: string) => {
  let id = credentialId
  if (id === undefined) {
    const created = await api.call("POST", "/auth/credentials", { body: { type: "EMAIL_OTP", accountId: w.accountId } })
    expect(created.status).toBe(201)
    id = created.body.id as string
  }
  const tek = generateP256KeyPair()
  const challenged = await api.call("POST", `/auth/credentials/${id}/challenge`, { body: { clientPublicKey: tek.publicKey } })
  expect(challenged.status).toBe(200)
  const bundle = challenged.body.otpEncryptionTargetBundle as string
  const signer = JSON.parse(bundle).enclaveQuorumPublic as string
  const encryptedOtpBundle = await encryptOtpCodeToBundle("000000", bundle, tek.publicKey, signer)
  const body = { type: "EMAIL_OTP", encryptedOtpBundle }
  const first = await api.call("POST", `/auth/credentials/${id}/verify`, { body })
  expect(first.status).toBe(202)
  const retry = await api.call("POST", `/auth/credentials/${id}/verify`, {
    body,
    headers: { "service-wallet-signature": await stamp(tek, first.body.payloadToSign), "request-id": first.body.requestId }
  })
  expect(retry.status).toBe(200)
  return { credentialId: id, session: retry.body, key: tek }
}

/** Two legs with the session key. */
const signed = async (method: string, path: string, key: { privateKey: string; publicKey: string }, body?: unknown): Promise<{ first: Reply; retry: Reply }> => {
  const first = await api.call(method, path, body === undefined ? {} : { body })
  if (first.status !== 202) return { first, retry: first }
  const retry = await api.call(method, path, {
    ...(body === undefined ? {} : { body }),
    headers: { "service-wallet-signature": await stamp(key, first.body.payloadToSign), "request-id": first.body.requestId }
  })
  return { first, retry }
}

describe("provisioning", () => {
  it("an approved customer of a platform with embedded wallets has an EMBEDDED_WALLET account in USDC", async () => {
    const w = await newWallet()
    const account = await api.call("GET", `/customers/internal-accounts?customerId=${w.customerId}&type=EMBEDDED_WALLET`)
    expect(account.body.data).toHaveLength(1)
    expect(account.body.data[0]).toMatchObject({ type: "EMBEDDED_WALLET", privateEnabled: false, balance: { currency: { code: "USDC" } } })
  })

  it("409 WALLET_NOT_PROVISIONED for an internal account that is no embedded wallet", async () => {
    const c = await api.call("POST", "/customers", { as: plain, body: { customerType: "INDIVIDUAL", fullName: "Bo", email: "bo@example.com" } })
    const accounts = await api.call("GET", `/customers/internal-accounts?customerId=${c.body.id}`, { as: plain })
    const r = await api.call("POST", "/auth/credentials", { as: plain, body: { type: "EMAIL_OTP", accountId: accounts.body.data[0].id } })
    expect(r.status).toBe(409)
    expect(r.body.code).toBe("WALLET_NOT_PROVISIONED")
  })
})

describe("EMAIL_OTP and SMS_OTP", () => {
  it("registers, challenges, verifies with the sandbox code and signs with the TEK; the session is listed", async () => {
    const w = await newWallet()
    const login = await emailLogin(w)
    expect(login.session).toMatchObject({ accountId: w.accountId, type: "EMAIL_OTP" })
    const sessions = await api.call("GET", `/auth/sessions?accountId=${w.accountId}`)
    expect(sessions.body.data.map((s: { id: string }) => s.id)).toEqual([login.session.id])
    const creds = await api.call("GET", `/auth/credentials?accountId=${w.accountId}`)
    expect(creds.body.data).toHaveLength(1)
  })

  it("a wrong code is 401 UNAUTHORIZED Invalid OTP code", async () => {
    const w = await newWallet()
    const created = await api.call("POST", "/auth/credentials", { body: { type: "EMAIL_OTP", accountId: w.accountId } })
    const tek = generateP256KeyPair()
    const bundle = created.body.otpEncryptionTargetBundle as string
    const encryptedOtpBundle = await encryptOtpCodeToBundle("123456", bundle, tek.publicKey, JSON.parse(bundle).enclaveQuorumPublic)
    const r = await api.call("POST", `/auth/credentials/${created.body.id}/verify`, { body: { type: "EMAIL_OTP", encryptedOtpBundle } })
    expect(r.status).toBe(401)
    expect(r.body).toMatchObject({ code: "UNAUTHORIZED", reason: "Invalid OTP code" })
  })

  it("adding SMS_OTP is signed; a second EMAIL_OTP is 400; a shared email is 409", async () => {
    const w = await newWallet()
    const login = await emailLogin(w)
    const sms = await signed("POST", "/auth/credentials", login.key, { type: "SMS_OTP", accountId: w.accountId })
    expect(sms.first.status).toBe(202)
    expect(sms.first.body.type).toBe("SMS_OTP")
    expect(sms.retry.status).toBe(201)
    const again = await signed("POST", "/auth/credentials", login.key, { type: "EMAIL_OTP", accountId: w.accountId })
    expect(again.first.status).toBe(400)
    expect(again.first.body.code).toBe("EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS")
    const smsAgain = await api.call("POST", "/auth/credentials", { body: { type: "SMS_OTP", accountId: w.accountId } })
    expect(smsAgain.body.code).toBe("SMS_OTP_CREDENTIAL_ALREADY_EXISTS")
    // Another customer with the same email.
    const c = await api.call("POST", "/customers", { body: { customerType: "INDIVIDUAL", fullName: "Twin", email: login.session.nickname } })
    const acc = await api.call("GET", `/customers/internal-accounts?customerId=${c.body.id}&type=EMBEDDED_WALLET`)
    const dup = await api.call("POST", "/auth/credentials", { body: { type: "EMAIL_OTP", accountId: acc.body.data[0].id } })
    expect(dup.status).toBe(409)
    expect(dup.body.code).toBe("EMAIL_OTP_EMAIL_ALREADY_EXISTS")
  })
})

describe("the two-leg signed flow", () => {
  it("every error: missing signature, missing Request-Id, malformed, invalid key, body changed, replayed, unknown, expired", async () => {
    const w = await newWallet()
    const login = await emailLogin(w)
    const path = `/internal-accounts/${w.accountId}`
    const first = await api.call("PATCH", path, { body: { privateEnabled: true } })
    expect(first.status).toBe(202)
    expect(first.body).toEqual({ payloadToSign: expect.any(String), requestId: expect.stringMatching(/^Request:/), expiresAt: expect.any(String) })
    const sig = await stamp(login.key, first.body.payloadToSign)
    const call = (headers: Record<string, string>, body: unknown = { privateEnabled: true }) => api.call("PATCH", path, { body, headers })

    expect((await call({ "request-id": first.body.requestId })).body.code).toBe("WALLET_SIGNATURE_MISSING")
    expect((await call({ "service-wallet-signature": sig })).body.code).toBe("REQUEST_ID_MISSING")
    expect((await call({ "service-wallet-signature": "not-a-stamp!", "request-id": first.body.requestId })).body.code).toBe("WALLET_SIGNATURE_MALFORMED")
    const stranger = generateP256KeyPair()
    expect((await call({ "service-wallet-signature": await stamp(stranger, first.body.payloadToSign), "request-id": first.body.requestId })).body.code)
      .toBe("WALLET_SIGNATURE_INVALID")
    const changed = await call({ "service-wallet-signature": sig, "request-id": first.body.requestId }, { privateEnabled: false })
    expect(changed.status).toBe(401)
    expect(changed.body.code).toBe("WALLET_SIGNATURE_BODY_MISMATCH")
    const unknown = await call({ "service-wallet-signature": sig, "request-id": "Request:00000000-0000-4000-8000-000000000000" })
    expect(unknown.status).toBe(401)

    const ok = await call({ "service-wallet-signature": sig, "request-id": first.body.requestId })
    expect(ok.status).toBe(200)
    expect(ok.body).toMatchObject({ id: w.accountId, type: "EMBEDDED_WALLET", privateEnabled: true })
    const replay = await call({ "service-wallet-signature": sig, "request-id": first.body.requestId })
    expect(replay.status).toBe(401)
    expect(replay.body.reason).toMatch(/already used/)

    const late = await api.call("PATCH", path, { body: { privateEnabled: false } })
    await api.call("POST", "/sandbox/clock/advance", { body: { seconds: 301 } })
    const expired = await call({ "service-wallet-signature": await stamp(login.key, late.body.payloadToSign), "request-id": late.body.requestId }, { privateEnabled: false })
    expect(expired.status).toBe(401)
  })

  it("409 EMAIL_OTP_CREDENTIAL_SET_CHANGED when the OTP credentials change after the challenge", async () => {
    const w = await newWallet()
    const login = await emailLogin(w)
    const first = await api.call("PATCH", `/internal-accounts/${w.accountId}`, { body: { privateEnabled: true } })
    const sms = await signed("POST", "/auth/credentials", login.key, { type: "SMS_OTP", accountId: w.accountId })
    expect(sms.retry.status).toBe(201)
    const retry = await api.call("PATCH", `/internal-accounts/${w.accountId}`, {
      body: { privateEnabled: true },
      headers: { "service-wallet-signature": await stamp(login.key, first.body.payloadToSign), "request-id": first.body.requestId }
    })
    expect(retry.status).toBe(409)
    expect(retry.body.code).toBe("SMS_OTP_CREDENTIAL_SET_CHANGED")
  })

  it("sessions: revoke (signed, 204), then the key no longer signs; refresh gives a new session; expiry on the clock", async () => {
    const w = await newWallet()
    const login = await emailLogin(w)
    const refreshed = generateP256KeyPair()
    const r = await signed("POST", `/auth/sessions/${login.session.id}/refresh`, login.key, { clientPublicKey: refreshed.publicKey })
    expect(r.retry.status).toBe(201)
    const old = await signed("PATCH", `/internal-accounts/${w.accountId}`, login.key, { privateEnabled: true })
    expect(old.retry.body.code).toBe("WALLET_SIGNATURE_INVALID")
    const revoke = await signed("DELETE", `/auth/sessions/${r.retry.body.id}`, refreshed)
    expect(revoke.retry.status).toBe(204)
    expect((await api.call("GET", `/auth/sessions?accountId=${w.accountId}`)).body.data).toEqual([])
    const again = await emailLogin(w, login.credentialId)
    await api.call("POST", "/sandbox/clock/advance", { body: { seconds: 901 } })
    expect((await api.call("GET", `/auth/sessions?accountId=${w.accountId}`)).body.data).toEqual([])
    const afterExpiry = await signed("PATCH", `/internal-accounts/${w.accountId}`, again.key, { privateEnabled: true })
    expect(afterExpiry.retry.body.code).toBe("WALLET_SIGNATURE_INVALID")
  })
})

describe("PASSKEY and OAUTH", () => {
  it("registers a passkey (signed), challenges with an uncompressed key, verifies an assertion, decrypts the session key and signs with it", async () => {
    const w = await newWallet()
    const login = await emailLogin(w)
    const authenticator = createCredential()
    const attestation = makeRegistration({ credential: authenticator, rpId: RP, origin: ORIGIN, challenge: b64u("registration-challenge") })
    const body = { type: "PASSKEY", accountId: w.accountId, nickname: "Laptop", challenge: b64u("registration-challenge"), attestation }
    const created = await signed("POST", "/auth/credentials", login.key, body)
    expect(created.retry.status).toBe(201)
    const second = await signed("POST", "/auth/credentials", login.key, body)
    expect(second.first.body.code).toBe("PASSKEY_CREDENTIAL_ALREADY_EXISTS")
    const other = createCredential()
    const otherBody = { ...body, attestation: makeRegistration({ credential: other, rpId: RP, origin: ORIGIN, challenge: b64u("registration-challenge") }) }
    expect((await api.call("POST", "/auth/credentials", { body: otherBody })).body.code).toBe("PASSKEY_ALREADY_ENROLLED")

    const client = generateP256KeyPair()
    const ch = await api.call("POST", `/auth/credentials/${created.retry.body.id}/challenge`, { body: { clientPublicKey: client.publicKeyUncompressed } })
    expect(ch.status).toBe(200)
    expect(ch.body.challenge).toMatch(/^[0-9a-f]{64}$/)
    const assertion = makeAssertion({ credential: authenticator, rpId: RP, origin: ORIGIN, challenge: b64u(ch.body.challenge), counter: 1 })
    const noId = await api.call("POST", `/auth/credentials/${created.retry.body.id}/verify`, { body: { type: "PASSKEY", assertion } })
    expect(noId.body.code).toBe("REQUEST_ID_MISSING")
    const verified = await api.call("POST", `/auth/credentials/${created.retry.body.id}/verify`, {
      body: { type: "PASSKEY", assertion },
      headers: { "request-id": ch.body.requestId }
    })
    expect(verified.status).toBe(200)
    const sessionPrivate = decryptCredentialBundle(verified.body.encryptedSessionSigningKey, client.privateKey)
    const sessionKey = { privateKey: sessionPrivate, publicKey: Buffer.from(p256.getPublicKey(Buffer.from(sessionPrivate, "hex"), true)).toString("hex") }
    const patched = await signed("PATCH", `/internal-accounts/${w.accountId}`, sessionKey, { privateEnabled: true })
    expect(patched.retry.status).toBe(200)
    const replayed = await api.call("POST", `/auth/credentials/${created.retry.body.id}/verify`, {
      body: { type: "PASSKEY", assertion },
      headers: { "request-id": ch.body.requestId }
    })
    expect(replayed.status).toBe(401)

    // The passkey's session revokes the EMAIL_OTP credential; its own sessions end.
    const revoke = await signed("DELETE", `/auth/credentials/${login.credentialId}`, sessionKey)
    expect(revoke.retry.status).toBe(204)
    expect((await api.call("GET", `/auth/credentials?accountId=${w.accountId}`)).body.data.map((c: { type: string }) => c.type)).toEqual(["PASSKEY"])
  })

  it("OAUTH: claims on the clock, nonce = SHA-256 of clientPublicKey, malformed 400, former sandbox token refused", async () => {
    const w = await newWallet()
    const login = await emailLogin(w)
    const clock = await api.call("GET", "/sandbox/clock")
    const now = Math.floor(Date.parse(clock.body.now) / 1000)
    const claims = { iss: "https://accounts.google.com", aud: "app", sub: "user-1", iat: now, exp: now + 600, email: "ada@example.com" }
    const created = await signed("POST", "/auth/credentials", login.key, { type: "OAUTH", accountId: w.accountId, oidcToken: jwt(claims) })
    expect(created.retry.status).toBe(201)
    const id = created.retry.body.id as string
    const client = generateP256KeyPair()
    const verify = (oidcToken: string, clientPublicKey = client.publicKeyUncompressed) =>
      api.call("POST", `/auth/credentials/${id}/verify`, { body: { type: "OAUTH", oidcToken, clientPublicKey } })
    expect((await verify("not.a-jwt")).body.code).toBe("INVALID_INPUT")
    expect((await verify("sandbox-oidc-token")).status).toBe(401)
    expect((await verify(jwt({ ...claims, nonce: "00" }))).status).toBe(401)
    expect((await verify(jwt({ ...claims, sub: "someone-else", nonce: nonceOf(client.publicKeyUncompressed) }))).status).toBe(401)
    const ok = await verify(jwt({ ...claims, nonce: nonceOf(client.publicKeyUncompressed) }))
    expect(ok.status).toBe(200)
    expect(decryptCredentialBundle(ok.body.encryptedSessionSigningKey, client.privateKey)).toMatch(/^[0-9a-f]{64}$/)
    await api.call("POST", "/sandbox/clock/advance", { body: { seconds: 120 } })
    expect((await verify(jwt({ ...claims, nonce: nonceOf(client.publicKeyUncompressed) }))).status).toBe(401)
  })
})

describe("signed internal-account actions and quotes", () => {
  it("exports the wallet key sealed to the client, with the sandbox's empty attestation fields", async () => {
    const w = await newWallet()
    const login = await emailLogin(w)
    const target = generateP256KeyPair()
    const r = await signed("POST", `/internal-accounts/${w.accountId}/export`, login.key, { clientPublicKey: target.publicKeyUncompressed })
    expect(r.retry.status).toBe(200)
    const bundle = JSON.parse(r.retry.body.encryptedWalletCredentials)
    expect(bundle).toMatchObject({ version: "v1.0.0", dataSignature: "", enclaveQuorumPublic: "" })
    const data = JSON.parse(Buffer.from(bundle.data, "hex").toString("utf8"))
    expect(data.organizationId).toBe(w.accountId)
    const key = hpkeDecrypt({ ciphertextBuf: Buffer.from(data.ciphertext, "hex"), encappedKeyBuf: Buffer.from(data.encappedPublic, "hex"), receiverPriv: target.privateKey })
    expect(key).toHaveLength(32)
  })

  it("executes a quote from the wallet with a stamp over its payloadToSign (no Request-Id)", async () => {
    const w = await newWallet()
    const login = await emailLogin(w)
    const fund = await api.call("POST", `/sandbox/internal-accounts/${w.accountId}/fund`, { body: { amount: 50_000_000 } })
    expect(fund.status).toBe(200)
    const accounts = await api.call("GET", `/customers/internal-accounts?customerId=${w.customerId}&currency=USD`)
    const quote = await api.call("POST", "/quotes", {
      body: {
        source: { sourceType: "ACCOUNT", accountId: w.accountId },
        destination: { destinationType: "ACCOUNT", accountId: accounts.body.data[0].id },
        lockedCurrencySide: "SENDING",
        lockedCurrencyAmount: 1_000_000
      }
    })
    expect(quote.status).toBe(201)
    const payload = quote.body.paymentInstructions[0].accountOrWalletInfo.payloadToSign as string
    const missing = await api.call("POST", `/quotes/${quote.body.id}/execute`)
    expect(missing.body.code).toBe("WALLET_SIGNATURE_MISSING")
    const wrong = await api.call("POST", `/quotes/${quote.body.id}/execute`, { headers: { "service-wallet-signature": await stamp(generateP256KeyPair(), payload) } })
    expect(wrong.body.code).toBe("WALLET_SIGNATURE_INVALID")
    const ok = await api.call("POST", `/quotes/${quote.body.id}/execute`, { headers: { "service-wallet-signature": await stamp(login.key, payload) } })
    expect(ok.status).toBe(200)
  })
})

describe("signed PATCH /customers/{customerId}", () => {
  it("changing the email of a customer whose wallet has EMAIL_OTP is signed; the credential follows", async () => {
    const w = await newWallet()
    const path = `/customers/${w.customerId}`
    // No OTP credential yet: at once.
    const early = await api.call("PATCH", path, { body: { customerType: "INDIVIDUAL", email: `early${counter}@example.com` } })
    expect(early.status).toBe(200)
    const login = await emailLogin(w)
    // Other fields, the same email, or a phone number without an SMS_OTP credential: at once, headers ignored.
    const plainUpdate = await api.call("PATCH", path, {
      body: { customerType: "INDIVIDUAL", fullName: "Ada King", email: login.session.nickname, phoneNumber: undefined },
      headers: { "service-wallet-signature": "ignored", "request-id": "ignored" }
    })
    expect(plainUpdate.status).toBe(200)
    expect(plainUpdate.body).toMatchObject({ id: w.customerId, fullName: "Ada King" })
    expect((await api.call("PATCH", path, { body: { customerType: "INDIVIDUAL", phoneNumber: `+1415666${String(1000 + counter)}` } })).status).toBe(200)
    // Both contact fields at once: refused.
    const both = await api.call("PATCH", path, { body: { customerType: "INDIVIDUAL", email: "x@example.com", phoneNumber: "+14155550000" } })
    expect(both.status).toBe(400)
    expect(both.body.code).toBe("INVALID_INPUT")

    const email = `ada-new${counter}@example.com`
    const body = { customerType: "INDIVIDUAL", email }
    const first = await api.call("PATCH", path, { body })
    expect(first.status).toBe(202)
    expect(first.body).toEqual({ payloadToSign: expect.any(String), requestId: expect.stringMatching(/^Request:/), expiresAt: expect.any(String) })
    expect((await api.call("GET", path)).body.email).not.toBe(email)
    const r = await signed("PATCH", path, login.key, body)
    expect(r.retry.status).toBe(200)
    expect(r.retry.body).toMatchObject({ id: w.customerId, email, fullName: "Ada King" })
    const creds = await api.call("GET", `/auth/credentials?accountId=${w.accountId}`)
    expect(creds.body.data[0]).toMatchObject({ type: "EMAIL_OTP", nickname: email })
    const sessions = await api.call("GET", `/auth/sessions?accountId=${w.accountId}`)
    expect(sessions.body.data[0].nickname).toBe(email)
    // The credential still logs in, and the new email is now taken for EMAIL_OTP.
    await emailLogin(w, login.credentialId)
    const other = await newWallet()
    await emailLogin(other)
    const taken = await api.call("PATCH", `/customers/${other.customerId}`, { body: { customerType: "INDIVIDUAL", email } })
    expect(taken.status).toBe(409)
    expect(taken.body.code).toBe("EMAIL_OTP_EMAIL_ALREADY_EXISTS")
  })

  it("the phone number with SMS_OTP: body changed, credential set changed, unsigned retry", async () => {
    const w = await newWallet()
    const login = await emailLogin(w)
    const sms = await signed("POST", "/auth/credentials", login.key, { type: "SMS_OTP", accountId: w.accountId })
    expect(sms.retry.status).toBe(201)
    const path = `/customers/${w.customerId}`
    const phoneNumber = `+1415777${String(1000 + counter)}`
    const body = { customerType: "INDIVIDUAL", phoneNumber }
    const first = await api.call("PATCH", path, { body })
    expect(first.status).toBe(202)
    const sig = await stamp(login.key, first.body.payloadToSign)
    const headers = { "service-wallet-signature": sig, "request-id": first.body.requestId }
    expect((await api.call("PATCH", path, { body, headers: { "request-id": first.body.requestId } })).body.code).toBe("WALLET_SIGNATURE_MISSING")
    const changed = await api.call("PATCH", path, { body: { ...body, phoneNumber: "+14155550001" }, headers })
    expect(changed.body.code).toBe("WALLET_SIGNATURE_BODY_MISMATCH")
    // The SMS_OTP credential is revoked after the challenge: the set changed.
    const revoke = await signed("DELETE", `/auth/credentials/${sms.retry.body.id}`, login.key)
    expect(revoke.retry.status).toBe(204)
    const stale = await api.call("PATCH", path, { body, headers })
    expect(stale.status).toBe(409)
    expect(stale.body.code).toBe("SMS_OTP_CREDENTIAL_SET_CHANGED")
    // Without an SMS_OTP credential the phone number changes at once.
    const now = await api.call("PATCH", path, { body })
    expect(now.status).toBe(200)
    expect(now.body.phoneNumber).toBe(phoneNumber)
  })

  it("the same through the direct lane's app: the signed update answers alike", async () => {
    const lane = makeApi([platform], undefined, { directLane: true })
    try {
      const c = await lane.call("POST", "/customers", { body: { customerType: "INDIVIDUAL", fullName: "Lane", email: `lane${counter}@example.com` } })
      const acc = await lane.call("GET", `/customers/internal-accounts?customerId=${c.body.id}&type=EMBEDDED_WALLET`)
      const cred = await lane.call("POST", "/auth/credentials", { body: { type: "EMAIL_OTP", accountId: acc.body.data[0].id } })
      expect(cred.status).toBe(201)
      const r = await lane.call("PATCH", `/customers/${c.body.id}`, { body: { customerType: "INDIVIDUAL", email: `lane-new${counter}@example.com` } })
      expect(r.status).toBe(202)
      expect(r.body.requestId).toMatch(/^Request:/)
    } finally {
      await lane.dispose()
    }
  })
})

describe("POST /auth/credentials/{id}/challenge", () => {
  it("takes no body at all (the reference makes it optional): 200, as with an empty object", async () => {
    const w = await newWallet()
    const created = await api.call("POST", "/auth/credentials", { body: { type: "EMAIL_OTP", accountId: w.accountId } })
    const bare = await api.call("POST", `/auth/credentials/${created.body.id}/challenge`)
    expect(bare.status, JSON.stringify(bare.body)).toBe(200)
    expect(bare.body.id).toBe(created.body.id)
    // A body of the wrong shape is still refused.
    expect((await api.call("POST", `/auth/credentials/${created.body.id}/challenge`, { body: { clientPublicKey: 7 } })).status).toBe(400)
  })
})

describe("rate limits", () => {
  it("429 RATE_LIMITED with Retry-After on the sixth challenge within a minute", async () => {
    const w = await newWallet()
    const created = await api.call("POST", "/auth/credentials", { body: { type: "EMAIL_OTP", accountId: w.accountId } })
    for (let i = 0; i < 5; i++) expect((await api.call("POST", `/auth/credentials/${created.body.id}/challenge`, { body: {} })).status).toBe(200)
    const res = await api.handler(new Request(`http://test/2025-10-13/auth/credentials/${created.body.id}/challenge`, {
      method: "POST",
      headers: { authorization: `Basic ${Buffer.from("wallet-client:wallet-secret-123").toString("base64")}`, "content-type": "application/json" },
      body: "{}"
    }))
    expect(res.status).toBe(429)
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0)
    // A window that ends: a generated client may retry after it.
    expect(res.headers.get("x-should-retry")).toBe("true")
    expect((await res.json()).code).toBe("RATE_LIMITED")
  })
})

beforeAll(() => undefined)
