import { timingSafeEqual } from "node:crypto"

/**
 * Byte helpers shared by every verifier. Decoders return `undefined` instead of
 * throwing so that callers turn a bad encoding into their own precise reason.
 */

export const toHex = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("hex")

const HEX = /^(?:[0-9a-fA-F]{2})*$/
const UPPER_HEX = /[A-F]/

const view = (buffer: Buffer): Uint8Array => new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.length)

/**
 * Hex of either case; `lowercaseOnly` for formats whose producers always emit lowercase.
 * Validated up front because Buffer's decoder silently stops at the first bad digit.
 */
export const fromHex = (text: string, options?: { readonly lowercaseOnly?: boolean }): Uint8Array | undefined => {
  if (!HEX.test(text)) return undefined
  if (options?.lowercaseOnly === true && UPPER_HEX.test(text)) return undefined
  return view(Buffer.from(text, "hex"))
}

const B64URL = /^[A-Za-z0-9_-]*$/
const B64URL_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

export const toBase64Url = (bytes: Uint8Array): string => Buffer.from(bytes).toString("base64url")

/**
 * Strict base64url: URL alphabet only, no `+`/`/`, and the unused low bits of the
 * last character must be zero. Without that last rule several header strings
 * decode to the same bytes, which would let a flipped character pass unnoticed.
 * Padding is rejected unless `allowPadding` (WebAuthn clients differ on it).
 */
export const fromBase64Url = (
  text: string,
  options?: { readonly allowPadding?: boolean }
): Uint8Array | undefined => {
  let body = text
  if (options?.allowPadding === true && body.length % 4 === 0 && body.endsWith("=")) {
    body = body.endsWith("==") ? body.slice(0, -2) : body.slice(0, -1)
  }
  if (!B64URL.test(body)) return undefined
  const rem = body.length % 4
  if (rem === 1) return undefined
  if (rem !== 0) {
    const last = B64URL_ALPHABET.indexOf(body.charAt(body.length - 1))
    const spare = rem === 2 ? 0x0f : 0x03
    if ((last & spare) !== 0) return undefined
  }
  return view(Buffer.from(body, "base64url"))
}

const utf8Encoder = new TextEncoder()
const utf8Decoder = new TextDecoder("utf-8", { fatal: true })

export const utf8 = (text: string): Uint8Array => utf8Encoder.encode(text)

/** Rejects invalid UTF-8 rather than substituting U+FFFD, so distinct bytes never read as the same text. */
export const fromUtf8 = (bytes: Uint8Array): string | undefined => {
  try {
    return utf8Decoder.decode(bytes)
  } catch {
    return undefined
  }
}

export const concatBytes = (...parts: readonly Uint8Array[]): Uint8Array => {
  let length = 0
  for (const part of parts) length += part.length
  const out = new Uint8Array(length)
  let offset = 0
  for (const part of parts) {
    out.set(part, offset)
    offset += part.length
  }
  return out
}

export const bytesEqual = (a: Uint8Array, b: Uint8Array): boolean => {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/** For secrets (OTP codes): time depends on the length only, never on where the inputs differ. */
export const constantTimeEqual = (a: Uint8Array, b: Uint8Array): boolean => {
  if (a.length !== b.length) {
    timingSafeEqual(a, a)
    return false
  }
  return timingSafeEqual(a, b)
}

/** Parses JSON text and keeps only plain objects; arrays, primitives and bad JSON become `undefined`. */
export const parseJsonObject = (text: string): Readonly<Record<string, unknown>> | undefined => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  return isRecord(value) ? value : undefined
}

export const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)
