/**
 * The hosted KYC link's token: what it names (platform, customer, expiry, where to send
 * the customer back) signed with a key derived from the platform's client secret
 * (HMAC-SHA256), so any process that knows the platform verifies it without storage, and
 * nobody can forge or alter one. The `nonce` makes every link distinct; the hosted flow
 * uses it as the idempotency key of its one submission (single use).
 */
import { hmac } from "@noble/hashes/hmac.js"
import { sha256 } from "@noble/hashes/sha2.js"
import { constantTimeEqual, fromBase64Url, toBase64Url, utf8 } from "../crypto/bytes.js"

/** How long a hosted link can be used: 24 hours of the platform's clock. */
export const KYC_LINK_TTL_MILLIS = 24 * 60 * 60 * 1000

export interface KycLinkClaims {
  readonly platformId: string
  readonly customerId: string
  readonly nonce: string
  readonly expiresAtMillis: number
  readonly redirectUri?: string | undefined
}

const keyOf = (clientSecret: string): Uint8Array => sha256(utf8(`payments-service/kyc-link\u0000${clientSecret}`))

const mac = (clientSecret: string, body: string): Uint8Array => hmac(sha256, keyOf(clientSecret), utf8(body))

/** `<claims, base64url JSON>.<HMAC, base64url>` */
export const signKycLink = (claims: KycLinkClaims, clientSecret: string): string => {
  const body = toBase64Url(utf8(JSON.stringify({
    p: claims.platformId,
    c: claims.customerId,
    n: claims.nonce,
    e: claims.expiresAtMillis,
    ...(claims.redirectUri === undefined ? {} : { r: claims.redirectUri })
  })))
  return `${body}.${toBase64Url(mac(clientSecret, body))}`
}

/** The platform a token claims to be of (unverified: only to find the key to verify it with). */
export const platformOfToken = (token: string): string | undefined => decodeClaims(token)?.platformId

const decodeClaims = (token: string): KycLinkClaims | undefined => {
  const dot = token.indexOf(".")
  if (dot <= 0 || dot !== token.lastIndexOf(".")) return undefined
  const bytes = fromBase64Url(token.slice(0, dot))
  if (bytes === undefined) return undefined
  let parsed: unknown
  try {
    parsed = JSON.parse(Buffer.from(bytes).toString("utf8"))
  } catch {
    return undefined
  }
  if (typeof parsed !== "object" || parsed === null) return undefined
  const o = parsed as Record<string, unknown>
  if (typeof o["p"] !== "string" || typeof o["c"] !== "string" || typeof o["n"] !== "string" || typeof o["e"] !== "number") return undefined
  if (o["r"] !== undefined && typeof o["r"] !== "string") return undefined
  return {
    platformId: o["p"],
    customerId: o["c"],
    nonce: o["n"],
    expiresAtMillis: o["e"],
    ...(typeof o["r"] === "string" ? { redirectUri: o["r"] } : {})
  }
}

/** The claims of a token signed with this secret, or undefined for anything else (forged, altered, malformed). */
export const verifyKycLink = (token: string, clientSecret: string): KycLinkClaims | undefined => {
  const dot = token.indexOf(".")
  if (dot <= 0) return undefined
  const given = fromBase64Url(token.slice(dot + 1))
  if (given === undefined || !constantTimeEqual(given, mac(clientSecret, token.slice(0, dot)))) return undefined
  return decodeClaims(token)
}
