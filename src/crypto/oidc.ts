import { createHash, createPublicKey, verify as nodeVerify, type JsonWebKey, type KeyObject } from "node:crypto"
import { fromBase64Url, fromUtf8, isRecord, parseJsonObject, utf8 } from "./bytes.js"
import { isScalarInRange } from "./der.js"
import { SANDBOX_FORMER_OIDC_TOKEN } from "./sandbox.js"
import { accept, invalidInputReason, rejecter, unauthorizedReason, type ReasonTable, type Verdict } from "./verdict.js"

/**
 * OIDC id tokens for OAUTH credentials (SPEC.md Authentication rule 8). Claims are
 * NumericDate seconds; the caller passes `nowMs` (epoch milliseconds, what Effect's
 * Clock gives) and the comparisons are done in milliseconds so no rounding hides a
 * boundary.
 */
export const OIDC_IAT_MAX_AGE_SECONDS = 60
export const OIDC_CLOCK_SKEW_SECONDS = 5

export type OidcReason =
  | "jwt_malformed"
  | "former_sandbox_token"
  | "algorithm_unsupported"
  | "signing_key_not_found"
  | "signature_invalid"
  | "iss_not_supported"
  | "aud_invalid"
  | "aud_multiple"
  | "sub_missing"
  | "iat_missing"
  | "iat_too_old"
  | "iat_in_future"
  | "exp_missing"
  | "exp_not_after_now"
  | "nonce_missing"
  | "nonce_mismatch"
  | "identity_mismatch"

export const OIDC_REASONS: ReasonTable<OidcReason> = {
  jwt_malformed: invalidInputReason("oidcToken is not a JWT: three base64url segments with a JSON header and payload"),
  former_sandbox_token: unauthorizedReason("The former fixed sandbox OIDC token is no longer accepted"),
  algorithm_unsupported: unauthorizedReason("oidcToken alg is not supported (RS256, ES256)"),
  signing_key_not_found: unauthorizedReason("oidcToken signing key is not in the provider's key set"),
  signature_invalid: unauthorizedReason("oidcToken signature does not verify"),
  iss_not_supported: unauthorizedReason("oidcToken iss is not a supported issuer"),
  aud_invalid: unauthorizedReason("oidcToken aud must be a non-empty string or a single-element string array"),
  aud_multiple: unauthorizedReason("oidcToken aud has more than one audience"),
  sub_missing: unauthorizedReason("oidcToken sub must be a non-empty string"),
  iat_missing: unauthorizedReason("oidcToken iat must be numeric"),
  iat_too_old: unauthorizedReason("oidcToken iat is more than 60 seconds old"),
  iat_in_future: unauthorizedReason("oidcToken iat is in the future"),
  exp_missing: unauthorizedReason("oidcToken exp must be numeric"),
  exp_not_after_now: unauthorizedReason("oidcToken exp is not later than now"),
  nonce_missing: unauthorizedReason("oidcToken nonce is missing"),
  nonce_mismatch: unauthorizedReason("oidcToken nonce is not the SHA-256 of clientPublicKey"),
  identity_mismatch: unauthorizedReason("oidcToken iss, aud and sub do not match the credential")
}

const reject = rejecter(OIDC_REASONS)

export interface DecodedJwt {
  readonly header: Readonly<Record<string, unknown>>
  readonly payload: Readonly<Record<string, unknown>>
  /** ASCII bytes of `header.payload`, what the provider signed. */
  readonly signingInput: Uint8Array
  readonly signature: Uint8Array
}

const decodeJsonSegment = (segment: string): Readonly<Record<string, unknown>> | undefined => {
  const bytes = fromBase64Url(segment)
  const text = bytes === undefined ? undefined : fromUtf8(bytes)
  return text === undefined ? undefined : parseJsonObject(text)
}

export const decodeJwt = (token: string): Verdict<DecodedJwt, "jwt_malformed" | "former_sandbox_token"> => {
  if (token === SANDBOX_FORMER_OIDC_TOKEN) return reject("former_sandbox_token")
  const segments = token.split(".")
  const [headerPart, payloadPart, signaturePart] = segments
  if (segments.length !== 3 || headerPart === undefined || payloadPart === undefined || signaturePart === undefined) {
    return reject("jwt_malformed")
  }
  const header = decodeJsonSegment(headerPart)
  const payload = decodeJsonSegment(payloadPart)
  const signature = fromBase64Url(signaturePart)
  if (header === undefined || payload === undefined || signature === undefined || typeof header["alg"] !== "string") {
    return reject("jwt_malformed")
  }
  return accept({ header, payload, signingInput: utf8(`${headerPart}.${payloadPart}`), signature })
}

/** A provider key set as served at its `jwks_uri`. */
export interface JsonWebKeySet {
  readonly keys: readonly JsonWebKey[]
}

export type OidcSignatureCheck =
  /** Sandbox: the signature segment may be a dummy value, claims are still checked. */
  | { readonly kind: "skip" }
  | { readonly kind: "jwks"; readonly jwks: JsonWebKeySet }

const KEY_TYPE_FOR_ALG: Readonly<Record<string, string>> = { RS256: "RSA", ES256: "EC" }

const selectKey = (jwks: JsonWebKeySet, alg: string, kid: unknown): KeyObject | undefined => {
  const kty = KEY_TYPE_FOR_ALG[alg]
  for (const jwk of jwks.keys) {
    if (jwk.kty !== kty) continue
    if (typeof kid === "string" && jwk["kid"] !== kid) continue
    if (jwk["alg"] !== undefined && jwk["alg"] !== alg) continue
    if (jwk["use"] !== undefined && jwk["use"] !== "sig") continue
    if (alg === "ES256" && jwk.crv !== "P-256") continue
    try {
      return createPublicKey({ key: jwk, format: "jwk" })
    } catch {
      continue
    }
  }
  return undefined
}

export const verifyJwtSignature = (jwt: DecodedJwt, jwks: JsonWebKeySet): Verdict<true, OidcReason> => {
  const alg = jwt.header["alg"]
  if (typeof alg !== "string" || KEY_TYPE_FOR_ALG[alg] === undefined) return reject("algorithm_unsupported")
  const key = selectKey(jwks, alg, jwt.header["kid"])
  if (key === undefined) return reject("signing_key_not_found")
  let valid: boolean
  if (alg === "ES256") {
    // JWS carries r‖s; the same range rule as every other ECDSA path here.
    valid =
      jwt.signature.length === 64 &&
      isScalarInRange(jwt.signature, 0) &&
      isScalarInRange(jwt.signature, 32) &&
      nodeVerify("sha256", jwt.signingInput, { key, dsaEncoding: "ieee-p1363" }, jwt.signature)
  } else {
    valid = nodeVerify("sha256", jwt.signingInput, key, jwt.signature)
  }
  return valid ? accept(true) : reject("signature_invalid")
}

/** The `nonce` a client must put in its token: lowercase hex SHA-256 of the exact key string. */
export const oidcNonceFor = (clientPublicKey: string): string =>
  createHash("sha256").update(utf8(clientPublicKey)).digest("hex")

export interface OidcIdentity {
  readonly iss: string
  readonly aud: string
  readonly sub: string
}

export interface CheckOidcClaimsInput {
  readonly nowMs: number
  readonly supportedIssuers: readonly string[]
  /**
   * The exact `clientPublicKey` string of the verify request; the token's nonce must be
   * its SHA-256. `null` when registering a credential, where no nonce is bound.
   */
  readonly clientPublicKey: string | null
  /** The registered credential's identity, on verify. */
  readonly expectedIdentity?: OidcIdentity
}

const isNumericDate = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value)

export const checkOidcClaims = (
  claims: Readonly<Record<string, unknown>>,
  input: CheckOidcClaimsInput
): Verdict<OidcIdentity, OidcReason> => {
  const { iss, aud, sub, iat, exp, nonce } = claims
  if (typeof iss !== "string" || !input.supportedIssuers.includes(iss)) return reject("iss_not_supported")
  let audience: string
  if (typeof aud === "string") audience = aud
  else if (Array.isArray(aud) && aud.length > 1) return reject("aud_multiple")
  else if (Array.isArray(aud) && typeof aud[0] === "string") audience = aud[0]
  else return reject("aud_invalid")
  if (audience === "") return reject("aud_invalid")
  if (typeof sub !== "string" || sub === "") return reject("sub_missing")
  if (!isNumericDate(iat)) return reject("iat_missing")
  if (iat * 1000 < input.nowMs - (OIDC_IAT_MAX_AGE_SECONDS + OIDC_CLOCK_SKEW_SECONDS) * 1000) return reject("iat_too_old")
  if (iat * 1000 > input.nowMs + OIDC_CLOCK_SKEW_SECONDS * 1000) return reject("iat_in_future")
  if (!isNumericDate(exp)) return reject("exp_missing")
  if (exp * 1000 <= input.nowMs) return reject("exp_not_after_now")
  if (input.clientPublicKey !== null) {
    if (typeof nonce !== "string" || nonce === "") return reject("nonce_missing")
    if (nonce !== oidcNonceFor(input.clientPublicKey)) return reject("nonce_mismatch")
  }
  const identity: OidcIdentity = { iss, aud: audience, sub }
  const expected = input.expectedIdentity
  if (expected !== undefined && (expected.iss !== iss || expected.aud !== audience || expected.sub !== sub)) {
    return reject("identity_mismatch")
  }
  return accept(identity)
}

export interface VerifyOidcTokenInput extends CheckOidcClaimsInput {
  readonly token: string
  readonly signature: OidcSignatureCheck
}

export interface VerifiedOidcToken {
  readonly identity: OidcIdentity
  readonly claims: Readonly<Record<string, unknown>>
}

/** Decode (400 on a malformed token), then the provider signature, then the claims. */
export const verifyOidcToken = (input: VerifyOidcTokenInput): Verdict<VerifiedOidcToken, OidcReason> => {
  const decoded = decodeJwt(input.token)
  if (!decoded.ok) return decoded
  if (input.signature.kind === "jwks") {
    const signature = verifyJwtSignature(decoded.value, input.signature.jwks)
    if (!signature.ok) return signature
  }
  const identity = checkOidcClaims(decoded.value.payload, input)
  if (!identity.ok) return identity
  return accept({ identity: identity.value, claims: decoded.value.payload })
}

export const isJsonWebKeySet = (value: unknown): value is JsonWebKeySet =>
  isRecord(value) && Array.isArray(value["keys"]) && value["keys"].every(isRecord)
