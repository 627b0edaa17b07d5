import { p256 } from "@noble/curves/nist.js"
import { createPublicKey, verify as nodeVerify, type KeyObject } from "node:crypto"
import { fromHex, toBase64Url, toHex } from "./bytes.js"
import { parseDerSignature, type DerResult, type ParsedSignature } from "./der.js"
import { BoundedMemo } from "../lib/bounded-memo.js"

/**
 * P-256 public keys and ECDSA-SHA256 verification.
 *
 * `native` hands the already strictly parsed r‖s to OpenSSL (about 30x faster than
 * pure JS here); `noble` is the portable path. Both see exactly the same inputs
 * because every acceptance decision about encodings is made before either runs.
 */
export type VerifyBackend = "native" | "noble"

export interface P256PublicKey {
  /** Canonical form used for comparisons: lowercase hex of the 33-byte compressed point. */
  readonly compressedHex: string
  /** Lowercase hex of the 65-byte uncompressed point (`04…`). */
  readonly uncompressedHex: string
  readonly uncompressed: Uint8Array
  readonly keyObject: KeyObject
}

const decodePoint = (bytes: Uint8Array): P256PublicKey | undefined => {
  const prefix = bytes[0]
  const wellSized =
    (bytes.length === 33 && (prefix === 0x02 || prefix === 0x03)) || (bytes.length === 65 && prefix === 0x04)
  if (!wellSized) return undefined
  let uncompressed: Uint8Array
  try {
    // fromBytes checks the point is on the curve and not the identity.
    uncompressed = p256.Point.fromBytes(bytes).toBytes(false)
  } catch {
    return undefined
  }
  const x = uncompressed.subarray(1, 33)
  const y = uncompressed.subarray(33, 65)
  const compressed = new Uint8Array(33)
  compressed[0] = ((y[31] ?? 0) & 1) === 1 ? 0x03 : 0x02
  compressed.set(x, 1)
  const keyObject = createPublicKey({
    key: { kty: "EC", crv: "P-256", x: toBase64Url(x), y: toBase64Url(y) },
    format: "jwk"
  })
  return { compressedHex: toHex(compressed), uncompressedHex: toHex(uncompressed), uncompressed, keyObject }
}

/** On-curve check without caching or importing, for one-off keys such as HPKE encapsulations. */
export const isValidPublicKeyBytes = (bytes: Uint8Array): boolean => {
  try {
    p256.Point.fromBytes(bytes)
    return true
  } catch {
    return false
  }
}

// Session keys repeat across requests; decompressing and importing them is the
// costly part of a stamp check after the signature itself.
const keyCache = new BoundedMemo<string, P256PublicKey>(1024)

/** Accepts compressed or uncompressed SEC1 hex in either case; `undefined` if not a valid P-256 point. */
export const parsePublicKeyHex = (hex: string): P256PublicKey | undefined => {
  const cacheKey = hex.toLowerCase()
  const cached = keyCache.get(cacheKey)
  if (cached !== undefined) return cached
  const bytes = fromHex(cacheKey)
  if (bytes === undefined) return undefined
  const key = decodePoint(bytes)
  if (key !== undefined) keyCache.set(cacheKey, key)
  return key
}

export const parsePublicKeyBytes = (bytes: Uint8Array): P256PublicKey | undefined => parsePublicKeyHex(toHex(bytes))

/** The canonical (compressed, lowercase) hex of a key, for comparing keys sent in different forms. */
export const normalizePublicKeyHex = (hex: string): string | undefined => parsePublicKeyHex(hex)?.compressedHex

/**
 * Verifies over SHA-256(message) a signature that already passed the strict DER parse.
 * Native gets the DER bytes as received, which the parse proved canonical: handing
 * OpenSSL r‖s via `{ dsaEncoding: "ieee-p1363" }` costs about a third of its speed.
 */
export const verifyParsed = (
  key: P256PublicKey,
  message: Uint8Array,
  signature: ParsedSignature,
  backend: VerifyBackend = "native"
): boolean => {
  if (backend === "noble") {
    return p256.verify(signature.compact, message, key.uncompressed, { lowS: false, format: "compact", prehash: true })
  }
  try {
    return nodeVerify("sha256", message, key.keyObject, signature.der)
  } catch {
    return false
  }
}

export type DerVerifyResult =
  | { readonly ok: true; readonly valid: boolean }
  | { readonly ok: false; readonly der: Extract<DerResult, { ok: false }> }

/** Strict DER parse, then verification; a DER problem is reported apart from a bad signature. */
export const verifyDer = (
  key: P256PublicKey,
  message: Uint8Array,
  der: Uint8Array,
  backend: VerifyBackend = "native"
): DerVerifyResult => {
  const parsed = parseDerSignature(der)
  if (!parsed.ok) return { ok: false, der: parsed }
  return { ok: true, valid: verifyParsed(key, message, parsed, backend) }
}
