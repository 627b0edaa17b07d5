import { sha256 } from "@noble/hashes/sha2.js"
import { bytesEqual, concatBytes } from "./bytes.js"

/**
 * Base58Check as `@turnkey/encoding` uses it for credential bundles: Bitcoin alphabet,
 * 4-byte double-SHA-256 checksum appended, no version byte.
 */
const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
const VALUE = new Int8Array(128).fill(-1)
for (let i = 0; i < ALPHABET.length; i++) VALUE[ALPHABET.charCodeAt(i)] = i

export const base58Encode = (bytes: Uint8Array): string => {
  let zeros = 0
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++
  // Little-endian base-58 digits, grown as needed.
  const digits: number[] = []
  for (let i = zeros; i < bytes.length; i++) {
    let carry = bytes[i] ?? 0
    for (let j = 0; j < digits.length; j++) {
      carry += (digits[j] ?? 0) << 8
      digits[j] = carry % 58
      carry = Math.floor(carry / 58)
    }
    while (carry > 0) {
      digits.push(carry % 58)
      carry = Math.floor(carry / 58)
    }
  }
  let out = "1".repeat(zeros)
  for (let i = digits.length - 1; i >= 0; i--) out += ALPHABET[digits[i] ?? 0] ?? ""
  return out
}

export const base58Decode = (text: string): Uint8Array | undefined => {
  let zeros = 0
  while (zeros < text.length && text[zeros] === "1") zeros++
  const bytes: number[] = []
  for (let i = zeros; i < text.length; i++) {
    const code = text.charCodeAt(i)
    let carry = code < 128 ? (VALUE[code] ?? -1) : -1
    if (carry < 0) return undefined
    for (let j = 0; j < bytes.length; j++) {
      carry += (bytes[j] ?? 0) * 58
      bytes[j] = carry & 0xff
      carry >>= 8
    }
    while (carry > 0) {
      bytes.push(carry & 0xff)
      carry >>= 8
    }
  }
  const out = new Uint8Array(zeros + bytes.length)
  for (let i = 0; i < bytes.length; i++) out[out.length - 1 - i] = bytes[i] ?? 0
  return out
}

const checksum = (payload: Uint8Array): Uint8Array => sha256(sha256(payload)).subarray(0, 4)

export const base58CheckEncode = (payload: Uint8Array): string => base58Encode(concatBytes(payload, checksum(payload)))

export const base58CheckDecode = (text: string): Uint8Array | undefined => {
  const raw = base58Decode(text)
  if (raw === undefined || raw.length < 4) return undefined
  const payload = raw.subarray(0, raw.length - 4)
  return bytesEqual(raw.subarray(raw.length - 4), checksum(payload)) ? payload.slice() : undefined
}
