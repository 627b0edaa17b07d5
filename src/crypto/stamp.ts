import { fromBase64Url, fromHex, fromUtf8, parseJsonObject, utf8 } from "./bytes.js"
import { parsePublicKeyHex, verifyParsed, type P256PublicKey, type VerifyBackend } from "./p256.js"
import { parseDerSignature } from "./der.js"
import { SANDBOX_LEGACY_WALLET_SIGNATURE } from "./sandbox.js"
import { accept, rejecter, type ReasonTable, type Verdict } from "./verdict.js"

/**
 * `Service-Wallet-Signature`: an API-key stamp as `@turnkey/api-key-stamper` makes it,
 * base64url (no padding) of `{"publicKey","scheme","signature"}` where `signature` is
 * hex DER ECDSA P-256 over SHA-256 of the UTF-8 bytes of the exact `payloadToSign`.
 */
export const WALLET_SIGNATURE_HEADER = "Service-Wallet-Signature"
export const STAMP_SCHEME = "SIGNATURE_SCHEME_TK_API_P256"

export type StampReason =
  | "header_missing"
  | "header_not_base64url"
  | "header_not_json"
  | "stamp_field_missing"
  | "scheme_unsupported"
  | "public_key_malformed"
  | "signature_not_hex"
  | "signature_not_der"
  | "key_not_active_session"
  | "signature_scalar_out_of_range"
  | "signature_invalid"
  | "retried_body_differs"
  | "signed_different_body"
  | "legacy_sandbox_signature_outside_sandbox"

const malformed = (message: string) => ({ code: "WALLET_SIGNATURE_MALFORMED", status: 401, message }) as const
const invalid = (message: string) => ({ code: "WALLET_SIGNATURE_INVALID", status: 401, message }) as const
const mismatch = (message: string) => ({ code: "WALLET_SIGNATURE_BODY_MISMATCH", status: 401, message }) as const

export const STAMP_REASONS: ReasonTable<StampReason> = {
  header_missing: { code: "WALLET_SIGNATURE_MISSING", status: 401, message: "Service-Wallet-Signature header is missing" },
  header_not_base64url: malformed("Service-Wallet-Signature is not unpadded base64url"),
  header_not_json: malformed("Service-Wallet-Signature does not decode to a JSON object"),
  stamp_field_missing: malformed("Wallet signature stamp needs string publicKey, scheme and signature"),
  scheme_unsupported: malformed(`Wallet signature scheme must be ${STAMP_SCHEME}`),
  public_key_malformed: malformed("Wallet signature publicKey is not a P-256 public key in hex"),
  signature_not_hex: malformed("Wallet signature is not hex"),
  signature_not_der: malformed("Wallet signature is not a strict DER ECDSA signature"),
  key_not_active_session: invalid("Wallet signature key is not the key of an active session"),
  signature_scalar_out_of_range: invalid("Wallet signature does not verify"),
  signature_invalid: invalid("Wallet signature does not verify"),
  retried_body_differs: mismatch("The retried request differs from the payload that was signed"),
  signed_different_body: mismatch("Wallet signature was computed over a different body"),
  legacy_sandbox_signature_outside_sandbox: invalid("The fixed sandbox wallet signature is only accepted in sandbox")
}

const reject = rejecter(STAMP_REASONS)

export interface WalletStamp {
  readonly publicKey: P256PublicKey
  /** Raw DER signature bytes. Malleable (high-S is accepted): never a replay or dedupe key. */
  readonly signature: Uint8Array
  readonly scheme: typeof STAMP_SCHEME
}

/** Decodes the header without verifying anything cryptographic. */
export const parseWalletStamp = (header: string | null | undefined): Verdict<WalletStamp, StampReason> => {
  if (header === undefined || header === null || header === "") return reject("header_missing")
  const raw = fromBase64Url(header)
  if (raw === undefined) return reject("header_not_base64url")
  const text = fromUtf8(raw)
  const stamp = text === undefined ? undefined : parseJsonObject(text)
  if (stamp === undefined) return reject("header_not_json")
  const { publicKey, scheme, signature } = stamp
  if (typeof publicKey !== "string" || typeof scheme !== "string" || typeof signature !== "string") {
    return reject("stamp_field_missing")
  }
  if (scheme !== STAMP_SCHEME) return reject("scheme_unsupported")
  const key = parsePublicKeyHex(publicKey)
  if (key === undefined) return reject("public_key_malformed")
  const der = fromHex(signature)
  if (der === undefined) return reject("signature_not_hex")
  return accept({ publicKey: key, signature: der, scheme: STAMP_SCHEME })
}

export interface VerifyWalletStampInput {
  /** The header value as received; absent or empty means missing. */
  readonly header: string | null | undefined
  /** The exact `payloadToSign` the server issued in the first leg (stored by `Request-Id`). */
  readonly payloadToSign: string
  /**
   * The payload recomputed from the retried request, when the flow repeats a body.
   * If it differs from `payloadToSign` the verdict is BODY_MISMATCH, whichever of the
   * two the signature covers. Omit it for flows without a repeated body.
   */
  readonly retriedPayload?: string
  /** Public keys (hex, any case, compressed or uncompressed) of the wallet's active sessions. */
  readonly activeSessionKeys: readonly string[]
  readonly sandbox?: boolean
  readonly backend?: VerifyBackend
}

export type VerifiedWalletStamp =
  | { readonly kind: "signature"; readonly publicKey: string }
  | { readonly kind: "sandbox-legacy" }

const isActiveKey = (key: P256PublicKey, active: readonly string[]): boolean => {
  for (const candidate of active) {
    if (parsePublicKeyHex(candidate)?.compressedHex === key.compressedHex) return true
  }
  return false
}

/**
 * Order: presence, sandbox constant, encoding, key membership (cheap, before any curve
 * arithmetic), DER strictness, then the signature. BODY_MISMATCH is only reported for
 * a signature that is genuine for the presented key, so it never leaks anything to a
 * caller without the session key.
 */
export const verifyWalletStamp = (input: VerifyWalletStampInput): Verdict<VerifiedWalletStamp, StampReason> => {
  if (input.header === SANDBOX_LEGACY_WALLET_SIGNATURE) {
    return input.sandbox === true ? accept({ kind: "sandbox-legacy" }) : reject("legacy_sandbox_signature_outside_sandbox")
  }
  const parsed = parseWalletStamp(input.header)
  if (!parsed.ok) return parsed
  const { publicKey, signature } = parsed.value
  if (!isActiveKey(publicKey, input.activeSessionKeys)) return reject("key_not_active_session")
  const der = parseDerSignature(signature)
  if (!der.ok) return reject(der.problem === "scalar_out_of_range" ? "signature_scalar_out_of_range" : "signature_not_der")
  const backend = input.backend ?? "native"
  const retried = input.retriedPayload
  const bodyChanged = retried !== undefined && retried !== input.payloadToSign
  if (verifyParsed(publicKey, utf8(input.payloadToSign), der, backend)) {
    return bodyChanged ? reject("retried_body_differs") : accept({ kind: "signature", publicKey: publicKey.compressedHex })
  }
  if (bodyChanged && verifyParsed(publicKey, utf8(retried), der, backend)) {
    return reject("signed_different_body")
  }
  return reject("signature_invalid")
}
