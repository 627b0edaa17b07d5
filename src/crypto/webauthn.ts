import { createHash } from "node:crypto"
import { bytesEqual, concatBytes, fromBase64Url, fromUtf8, parseJsonObject, toBase64Url, toHex, utf8 } from "./bytes.js"
import { decodeCbor, decodeCborPrefix, isCborMap, type CborMap } from "./cbor.js"
import { parseDerSignature } from "./der.js"
import { parsePublicKeyBytes, parsePublicKeyHex, verifyParsed, type VerifyBackend } from "./p256.js"
import { SANDBOX_LEGACY_PASSKEY_SIGNATURE } from "./sandbox.js"
import { accept, invalidInputReason, rejecter, unauthorizedReason, type ReasonTable, type Verdict } from "./verdict.js"

/**
 * Passkeys (WebAuthn Level 2, ES256 only). Every binary field travels as base64url,
 * as `PublicKeyCredential.toJSON()` and the common client libraries send it; padding
 * is tolerated because some clients add it, standard-base64 characters are not.
 */

export type PasskeyReason =
  | "credential_id_malformed"
  | "client_data_malformed"
  | "authenticator_data_malformed"
  | "signature_malformed"
  | "attestation_object_malformed"
  | "credential_id_mismatch"
  | "client_data_type_mismatch"
  | "challenge_mismatch"
  | "origin_not_allowed"
  | "rp_id_hash_mismatch"
  | "user_not_present"
  | "user_not_verified"
  | "signature_invalid"
  | "counter_not_increased"
  | "legacy_sandbox_signature_outside_sandbox"
  | "attestation_format_unsupported"
  | "attested_credential_missing"
  | "public_key_unsupported"

export const PASSKEY_REASONS: ReasonTable<PasskeyReason> = {
  credential_id_malformed: invalidInputReason("credentialId is not base64url"),
  client_data_malformed: invalidInputReason("clientDataJson is not base64url of a JSON object with type, challenge and origin"),
  authenticator_data_malformed: invalidInputReason("authenticatorData is not valid authenticator data"),
  signature_malformed: invalidInputReason("signature is not a base64url DER ECDSA signature"),
  attestation_object_malformed: invalidInputReason("attestationObject is not a valid CBOR attestation object"),
  credential_id_mismatch: unauthorizedReason("Passkey credential id does not match the registered credential"),
  client_data_type_mismatch: unauthorizedReason("Passkey client data has the wrong type"),
  challenge_mismatch: unauthorizedReason("Passkey challenge does not match the issued challenge"),
  origin_not_allowed: unauthorizedReason("Passkey origin is not allowed"),
  rp_id_hash_mismatch: unauthorizedReason("Passkey RP id does not match"),
  user_not_present: unauthorizedReason("Passkey user-presence flag is not set"),
  user_not_verified: unauthorizedReason("Passkey user verification is required"),
  signature_invalid: unauthorizedReason("Passkey assertion signature does not verify"),
  counter_not_increased: unauthorizedReason("Passkey signature counter did not increase"),
  legacy_sandbox_signature_outside_sandbox: unauthorizedReason("The fixed sandbox passkey signature is only accepted in sandbox"),
  attestation_format_unsupported: invalidInputReason("Only attestation format none is supported"),
  attested_credential_missing: invalidInputReason("authenticatorData carries no attested credential"),
  public_key_unsupported: invalidInputReason("Passkey public key is not an ES256 P-256 COSE key")
}

const reject = rejecter(PASSKEY_REASONS)

const sha256 = (bytes: Uint8Array): Uint8Array => new Uint8Array(createHash("sha256").update(bytes).digest())

const decodeField = (text: string): Uint8Array | undefined => fromBase64Url(text, { allowPadding: true })

const FLAG_UP = 0x01
const FLAG_UV = 0x04
const FLAG_BE = 0x08
const FLAG_BS = 0x10
const FLAG_AT = 0x40
const FLAG_ED = 0x80

interface AttestedCredential {
  readonly aaguid: Uint8Array
  readonly credentialId: Uint8Array
  readonly publicKeyCose: Uint8Array
  readonly publicKey: CborMap
}

export interface AuthenticatorData {
  readonly rpIdHash: Uint8Array
  readonly flags: number
  readonly counter: number
  readonly attested: AttestedCredential | undefined
}

/** Parses the whole structure; trailing or missing bytes make it malformed. */
export const parseAuthenticatorData = (bytes: Uint8Array): AuthenticatorData | undefined => {
  if (bytes.length < 37) return undefined
  const flags = bytes[32] ?? 0
  const counter = (((bytes[33] ?? 0) << 24) | ((bytes[34] ?? 0) << 16) | ((bytes[35] ?? 0) << 8) | (bytes[36] ?? 0)) >>> 0
  let at = 37
  let attested: AttestedCredential | undefined
  if (flags & FLAG_AT) {
    if (bytes.length < at + 18) return undefined
    const aaguid = bytes.slice(at, at + 16)
    const idLength = ((bytes[at + 16] ?? 0) << 8) | (bytes[at + 17] ?? 0)
    at += 18
    if (bytes.length < at + idLength) return undefined
    const credentialId = bytes.slice(at, at + idLength)
    at += idLength
    const key = decodeCborPrefix(bytes, at)
    if (!key.ok || !isCborMap(key.value)) return undefined
    attested = { aaguid, credentialId, publicKeyCose: bytes.slice(at, key.end), publicKey: key.value }
    at = key.end
  }
  if (flags & FLAG_ED) {
    const extensions = decodeCborPrefix(bytes, at)
    if (!extensions.ok || !isCborMap(extensions.value)) return undefined
    at = extensions.end
  }
  if (at !== bytes.length) return undefined
  return { rpIdHash: bytes.slice(0, 32), flags, counter, attested }
}

interface ClientData {
  readonly type: string
  readonly challenge: string
  readonly origin: string
}

const parseClientData = (bytes: Uint8Array): ClientData | undefined => {
  const text = fromUtf8(bytes)
  const json = text === undefined ? undefined : parseJsonObject(text)
  const type = json?.["type"]
  const challenge = json?.["challenge"]
  const origin = json?.["origin"]
  if (typeof type !== "string" || typeof challenge !== "string" || typeof origin !== "string") return undefined
  return { type, challenge, origin }
}

/** COSE_Key for ES256 on P-256: kty EC2 (2), alg ES256 (-7), crv P-256 (1), 32-byte x and y. */
const coseToUncompressed = (key: CborMap): Uint8Array | undefined => {
  const x = key.get(-2)
  const y = key.get(-3)
  if (key.get(1) !== 2 || key.get(3) !== -7 || key.get(-1) !== 1) return undefined
  if (!(x instanceof Uint8Array) || !(y instanceof Uint8Array) || x.length !== 32 || y.length !== 32) return undefined
  const point = concatBytes(Uint8Array.of(0x04), x, y)
  return parsePublicKeyBytes(point) === undefined ? undefined : point
}

/** Decodes a stored COSE key (base64url) to uncompressed SEC1 hex, for callers that keep COSE. */
export const coseKeyToPublicKeyHex = (coseBase64Url: string): string | undefined => {
  const bytes = decodeField(coseBase64Url)
  const decoded = bytes === undefined ? undefined : decodeCbor(bytes)
  if (decoded === undefined || !decoded.ok || !isCborMap(decoded.value)) return undefined
  const point = coseToUncompressed(decoded.value)
  return point === undefined ? undefined : toHex(point)
}

interface CommonExpectations {
  readonly expectedChallenge: string
  /** Exact origins, e.g. `https://wallet.example.com`. */
  readonly allowedOrigins: readonly string[]
  readonly rpId: string
  readonly requireUserVerification?: boolean
}

/** Returns the raw clientDataJSON bytes, which the assertion signature covers through their hash. */
const checkClientData = (encoded: string, type: string, expect: CommonExpectations): Verdict<Uint8Array, PasskeyReason> => {
  const raw = decodeField(encoded)
  const clientData = raw === undefined ? undefined : parseClientData(raw)
  if (raw === undefined || clientData === undefined) return reject("client_data_malformed")
  if (clientData.type !== type) return reject("client_data_type_mismatch")
  if (clientData.challenge !== expect.expectedChallenge) return reject("challenge_mismatch")
  if (!expect.allowedOrigins.includes(clientData.origin)) return reject("origin_not_allowed")
  return accept(raw)
}

const checkAuthenticator = (data: AuthenticatorData, expect: CommonExpectations): PasskeyReason | undefined => {
  if (!bytesEqual(data.rpIdHash, sha256(utf8(expect.rpId)))) return "rp_id_hash_mismatch"
  if ((data.flags & FLAG_UP) === 0) return "user_not_present"
  if (expect.requireUserVerification === true && (data.flags & FLAG_UV) === 0) return "user_not_verified"
  return undefined
}

export interface PasskeyAssertion {
  readonly credentialId: string
  readonly clientDataJson: string
  readonly authenticatorData: string
  readonly signature: string
}

export interface StoredPasskey {
  /** base64url of the raw credential id. */
  readonly id: string
  /** SEC1 hex (compressed or uncompressed) of the registered P-256 key. */
  readonly publicKey: string
  readonly counter: number
}

export interface VerifyPasskeyAssertionInput extends CommonExpectations {
  readonly assertion: PasskeyAssertion
  readonly credential: StoredPasskey
  readonly sandbox?: boolean
  readonly backend?: VerifyBackend
}

export interface VerifiedPasskeyAssertion {
  /** Store this as the credential's counter. */
  readonly newCounter: number
  readonly userVerified: boolean
}

/** Checks in the order of WALLET-CRYPTO.md, cheapest first; each failure has its own reason. */
export const verifyPasskeyAssertion = (
  input: VerifyPasskeyAssertionInput
): Verdict<VerifiedPasskeyAssertion, PasskeyReason> => {
  const { assertion, credential } = input
  const presentedId = decodeField(assertion.credentialId)
  if (presentedId === undefined) return reject("credential_id_malformed")
  const storedId = decodeField(credential.id)
  if (storedId === undefined || !bytesEqual(presentedId, storedId)) return reject("credential_id_mismatch")

  const clientData = checkClientData(assertion.clientDataJson, "webauthn.get", input)
  if (!clientData.ok) return clientData

  const authBytes = decodeField(assertion.authenticatorData)
  const authData = authBytes === undefined ? undefined : parseAuthenticatorData(authBytes)
  if (authBytes === undefined || authData === undefined) return reject("authenticator_data_malformed")
  const flagProblem = checkAuthenticator(authData, input)
  if (flagProblem !== undefined) return reject(flagProblem)

  if (assertion.signature === SANDBOX_LEGACY_PASSKEY_SIGNATURE) {
    if (input.sandbox !== true) return reject("legacy_sandbox_signature_outside_sandbox")
  } else {
    const derBytes = decodeField(assertion.signature)
    const der = derBytes === undefined ? undefined : parseDerSignature(derBytes)
    if (der === undefined || (!der.ok && der.problem !== "scalar_out_of_range")) return reject("signature_malformed")
    if (!der.ok) return reject("signature_invalid")
    const key = parsePublicKeyHex(credential.publicKey)
    if (key === undefined) throw new TypeError("stored passkey public key is not a P-256 key")
    const signed = concatBytes(authBytes, sha256(clientData.value))
    if (!verifyParsed(key, signed, der, input.backend ?? "native")) return reject("signature_invalid")
  }

  if ((authData.counter > 0 || credential.counter > 0) && authData.counter <= credential.counter) {
    return reject("counter_not_increased")
  }
  return accept({ newCounter: authData.counter, userVerified: (authData.flags & FLAG_UV) !== 0 })
}

export interface PasskeyRegistration {
  readonly credentialId: string
  readonly clientDataJson: string
  readonly attestationObject: string
}

export interface RegisteredPasskey {
  /** base64url of the raw credential id (no padding). */
  readonly credentialId: string
  /** Uncompressed SEC1 hex, ready for `StoredPasskey.publicKey`. */
  readonly publicKey: string
  /** The COSE key exactly as the authenticator sent it, base64url. */
  readonly publicKeyCose: string
  readonly counter: number
  readonly aaguid: string
  readonly userVerified: boolean
  readonly backupEligible: boolean
  readonly backedUp: boolean
}

export interface VerifyPasskeyRegistrationInput extends CommonExpectations {
  readonly registration: PasskeyRegistration
}

/** Registration with attestation `none`: enough to store a credential, no device trust claims. */
export const verifyPasskeyRegistration = (
  input: VerifyPasskeyRegistrationInput
): Verdict<RegisteredPasskey, PasskeyReason> => {
  const { registration } = input
  const presentedId = decodeField(registration.credentialId)
  if (presentedId === undefined || presentedId.length === 0) return reject("credential_id_malformed")

  const clientData = checkClientData(registration.clientDataJson, "webauthn.create", input)
  if (!clientData.ok) return clientData

  const attestationBytes = decodeField(registration.attestationObject)
  const attestation = attestationBytes === undefined ? undefined : decodeCbor(attestationBytes)
  if (attestation === undefined || !attestation.ok || !isCborMap(attestation.value)) {
    return reject("attestation_object_malformed")
  }
  const fmt = attestation.value.get("fmt")
  const attStmt = attestation.value.get("attStmt")
  const authBytes = attestation.value.get("authData")
  if (typeof fmt !== "string" || attStmt === undefined || !isCborMap(attStmt) || !(authBytes instanceof Uint8Array)) {
    return reject("attestation_object_malformed")
  }
  if (fmt !== "none" || attStmt.size !== 0) return reject("attestation_format_unsupported")

  const authData = parseAuthenticatorData(authBytes)
  if (authData === undefined) return reject("authenticator_data_malformed")
  const flagProblem = checkAuthenticator(authData, input)
  if (flagProblem !== undefined) return reject(flagProblem)
  const attested = authData.attested
  if (attested === undefined) return reject("attested_credential_missing")
  if (!bytesEqual(attested.credentialId, presentedId)) return reject("credential_id_mismatch")
  const point = coseToUncompressed(attested.publicKey)
  if (point === undefined) return reject("public_key_unsupported")

  return accept({
    credentialId: toBase64Url(attested.credentialId),
    publicKey: toHex(point),
    publicKeyCose: toBase64Url(attested.publicKeyCose),
    counter: authData.counter,
    aaguid: toHex(attested.aaguid),
    userVerified: (authData.flags & FLAG_UV) !== 0,
    backupEligible: (authData.flags & FLAG_BE) !== 0,
    backedUp: (authData.flags & FLAG_BS) !== 0
  })
}
