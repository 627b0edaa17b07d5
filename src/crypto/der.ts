/**
 * Strict ASN.1 DER for ECDSA-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER } on P-256.
 *
 * We parse ourselves instead of trusting a library because acceptance must be
 * identical on every backend: OpenSSL, WebCrypto and noble each tolerate a different
 * set of BER quirks, and Wycheproof expects all of them rejected.
 */

export type DerProblem =
  | "not_a_sequence"
  | "long_form_length"
  | "length_mismatch"
  | "not_an_integer"
  | "integer_not_minimal"
  | "integer_negative"
  | "integer_too_large"
  | "scalar_out_of_range"

/** A signature that passed the strict parse: the canonical DER as received, and r‖s. */
export interface ParsedSignature {
  readonly der: Uint8Array
  readonly compact: Uint8Array
}

export type DerResult =
  | ({ readonly ok: true } & ParsedSignature)
  | { readonly ok: false; readonly problem: DerProblem }

/** The P-256 group order n, big-endian. */
const ORDER = Uint8Array.from([
  0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
  0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17, 0x9e, 0x84, 0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x51
])

const SCALAR_BYTES = 32

/** 0 < value < n, on a 32-byte big-endian scalar. */
export const isScalarInRange = (scalar: Uint8Array, offset = 0): boolean => {
  let nonZero = false
  let decided = false
  let less = false
  for (let i = 0; i < SCALAR_BYTES; i++) {
    const byte = scalar[offset + i] ?? 0
    if (byte !== 0) nonZero = true
    if (!decided) {
      const limit = ORDER[i] ?? 0
      if (byte !== limit) {
        decided = true
        less = byte < limit
      }
    }
  }
  return nonZero && less
}

type IntegerStep = { readonly ok: true; readonly next: number } | { readonly ok: false; readonly problem: DerProblem }

const readInteger = (der: Uint8Array, at: number, end: number, into: Uint8Array, intoOffset: number): IntegerStep => {
  if (at + 2 > end || der[at] !== 0x02) return { ok: false, problem: "not_an_integer" }
  const length = der[at + 1] ?? 0
  if (length >= 0x80) return { ok: false, problem: "long_form_length" }
  const start = at + 2
  if (length === 0 || start + length > end) return { ok: false, problem: "length_mismatch" }
  const first = der[start] ?? 0
  if (first & 0x80) return { ok: false, problem: "integer_negative" }
  if (first === 0 && length > 1 && ((der[start + 1] ?? 0) & 0x80) === 0) {
    return { ok: false, problem: "integer_not_minimal" }
  }
  let body = start
  let bodyLength = length
  if (first === 0 && length > 1) {
    body++
    bodyLength--
  }
  if (bodyLength > SCALAR_BYTES) return { ok: false, problem: "integer_too_large" }
  into.set(der.subarray(body, body + bodyLength), intoOffset + SCALAR_BYTES - bodyLength)
  return { ok: true, next: start + length }
}

/**
 * Returns r‖s (64 bytes) for a canonical DER signature whose scalars are in [1, n-1].
 * High-S is accepted on purpose: real clients do not normalise S.
 */
export const parseDerSignature = (der: Uint8Array): DerResult => {
  if (der.length < 2 || der[0] !== 0x30) return { ok: false, problem: "not_a_sequence" }
  const length = der[1] ?? 0
  if (length >= 0x80) return { ok: false, problem: "long_form_length" }
  if (2 + length !== der.length) return { ok: false, problem: "length_mismatch" }
  const compact = new Uint8Array(2 * SCALAR_BYTES)
  const r = readInteger(der, 2, der.length, compact, 0)
  if (!r.ok) return r
  const s = readInteger(der, r.next, der.length, compact, SCALAR_BYTES)
  if (!s.ok) return s
  if (s.next !== der.length) return { ok: false, problem: "length_mismatch" }
  if (!isScalarInRange(compact, 0) || !isScalarInRange(compact, SCALAR_BYTES)) {
    return { ok: false, problem: "scalar_out_of_range" }
  }
  return { ok: true, der, compact }
}
