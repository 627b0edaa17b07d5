/**
 * The wallet app's side of the embedded-wallet flows, with the real client libraries:
 * `@turnkey/api-key-stamper` (Service-Wallet-Signature stamps) and `@turnkey/crypto`
 * (OTP bundles, sealed session keys). For suites that need a logged-in wallet.
 */
import { ApiKeyStamper } from "@turnkey/api-key-stamper"
import { decryptCredentialBundle, encryptOtpCodeToBundle, generateP256KeyPair } from "@turnkey/crypto"
import { p256 } from "@noble/curves/nist.js"
import { createHash } from "node:crypto"
import { expect } from "vitest"
import type { Platform } from "../../src/domain/platform.js"
import type { Reply } from "./api.js"

export interface WalletKey {
  readonly privateKey: string
  /** Compressed SEC1 hex. */
  readonly publicKey: string
}

/** What the suites need of `makeApi`. */
export interface Caller {
  readonly call: (
    method: string,
    path: string,
    options?: { body?: unknown; as?: Platform; headers?: Record<string, string> }
  ) => Promise<Reply>
}

export const stamp = async (key: WalletKey, payload: string): Promise<string> =>
  (await new ApiKeyStamper({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey, runtimeOverride: "node" }).stamp(payload)).stampHeaderValue

const b64u = (text: string) => Buffer.from(text).toString("base64url")
export const unsignedJwt = (claims: Record<string, unknown>) =>
  `${b64u(JSON.stringify({ alg: "RS256", typ: "JWT" }))}.${b64u(JSON.stringify(claims))}.${b64u("sig")}`

export interface Wallet {
  readonly customerId: string
  readonly accountId: string
}

let counter = 0

/** An approved customer with an EMBEDDED_WALLET account (the platform must offer embedded wallets). */
export const newWallet = async (api: Caller, as: Platform): Promise<Wallet> => {
  counter++
  const tag = `${Date.now().toString(36)}${counter}`
  const c = await api.call("POST", "/customers", {
    as,
    body: { customerType: "INDIVIDUAL", fullName: "Ada Lovelace", email: `ada-${tag}@example.com` }
  })
  expect(c.status, JSON.stringify(c.body)).toBe(201)
  const accounts = await api.call("GET", `/customers/internal-accounts?customerId=${c.body.id}&type=EMBEDDED_WALLET`, { as })
  expect(accounts.body.data, "the customer has an embedded wallet").toHaveLength(1)
  return { customerId: c.body.id, accountId: accounts.body.data[0].id }
}

/**
 * Registers an OAUTH credential (the wallet's first: platform auth alone), verifies it
 * with an uncompressed client key and opens the sealed session key with `@turnkey/crypto`:
 * the session's signing key.
 */
export const oauthSession = async (api: Caller, as: Platform, w: Wallet): Promise<{ readonly sessionId: string; readonly key: WalletKey }> => {
  const clock = await api.call("GET", "/sandbox/clock", { as })
  const now = Math.floor(Date.parse(clock.body.now) / 1000)
  const claims = { iss: "https://accounts.google.com", aud: "app", sub: `sub-${w.accountId}`, iat: now, exp: now + 600, email: "ada@example.com" }
  const created = await api.call("POST", "/auth/credentials", { as, body: { type: "OAUTH", accountId: w.accountId, oidcToken: unsignedJwt(claims) } })
  expect(created.status, JSON.stringify(created.body)).toBe(201)
  const client = generateP256KeyPair()
  const nonce = createHash("sha256").update(client.publicKeyUncompressed).digest("hex")
  const verified = await api.call("POST", `/auth/credentials/${created.body.id}/verify`, {
    as,
    body: { type: "OAUTH", oidcToken: unsignedJwt({ ...claims, nonce }), clientPublicKey: client.publicKeyUncompressed }
  })
  expect(verified.status, JSON.stringify(verified.body)).toBe(200)
  const privateKey = decryptCredentialBundle(verified.body.encryptedSessionSigningKey, client.privateKey)
  const publicKey = Buffer.from(p256.getPublicKey(Buffer.from(privateKey, "hex"), true)).toString("hex")
  return { sessionId: verified.body.id, key: { privateKey, publicKey } }
}

/** Registers EMAIL_OTP (the wallet's first credential) and logs in with the sandbox code: the TEK is the session key. */
export const emailOtpSession = async (api: Caller, as: Platform, w: Wallet): Promise<{ readonly sessionId: string; readonly key: WalletKey }> => {
  const created = await api.call("POST", "/auth/credentials", { as, body: { type: "EMAIL_OTP", accountId: w.accountId } })
  expect(created.status, JSON.stringify(created.body)).toBe(201)
  const tek = generateP256KeyPair()
  const challenged = await api.call("POST", `/auth/credentials/${created.body.id}/challenge`, { as, body: { clientPublicKey: tek.publicKey } })
  const bundle = challenged.body.otpEncryptionTargetBundle as string
  const encryptedOtpBundle = await encryptOtpCodeToBundle("000000", bundle, tek.publicKey, JSON.parse(bundle).enclaveQuorumPublic)
  const body = { type: "EMAIL_OTP", encryptedOtpBundle }
  const first = await api.call("POST", `/auth/credentials/${created.body.id}/verify`, { as, body })
  expect(first.status).toBe(202)
  const retry = await api.call("POST", `/auth/credentials/${created.body.id}/verify`, {
    as,
    body,
    headers: { "service-wallet-signature": await stamp(tek, first.body.payloadToSign), "request-id": first.body.requestId }
  })
  expect(retry.status, JSON.stringify(retry.body)).toBe(200)
  return { sessionId: retry.body.id, key: tek }
}

/** The headers of a signed retry answering `challenge` with a stamp by `key`. */
export const signedHeaders = async (key: WalletKey, challenge: { readonly payloadToSign: string; readonly requestId: string }) => ({
  "service-wallet-signature": await stamp(key, challenge.payloadToSign),
  "request-id": challenge.requestId
})
