/**
 * TOTP (RFC 6238 over RFC 4226 HOTP): HMAC-SHA-1, six digits, 30-second steps, as every
 * authenticator app computes by default. Pure: the time comes in as an argument.
 */
import { hmac } from "@noble/hashes/hmac.js"
import { sha1 } from "@noble/hashes/legacy.js"

/** The HOTP value of `secret` at `counter` (RFC 4226 §5.3), `digits` long. */
export const hotp = (secret: Uint8Array, counter: number, digits = 6): string => {
  const message = new Uint8Array(8)
  let c = counter
  for (let i = 7; i >= 0; i--) {
    message[i] = c & 0xff
    c = Math.floor(c / 256)
  }
  const mac = hmac(sha1, secret, message)
  const offset = (mac[mac.length - 1] ?? 0) & 0x0f
  const binary = (((mac[offset] ?? 0) & 0x7f) << 24) | ((mac[offset + 1] ?? 0) << 16) | ((mac[offset + 2] ?? 0) << 8) | (mac[offset + 3] ?? 0)
  return String(binary % 10 ** digits).padStart(digits, "0")
}

/** The TOTP value at `nowMillis`. */
export const totp = (secret: Uint8Array, nowMillis: number, stepSeconds = 30, digits = 6): string =>
  hotp(secret, Math.floor(nowMillis / 1000 / stepSeconds), digits)

/** Whether `code` is the TOTP value at `nowMillis`, or within `driftSteps` steps of it. */
export const verifyTotp = (secret: Uint8Array, code: string, nowMillis: number, driftSteps = 1, stepSeconds = 30): boolean => {
  if (!/^[0-9]{6}$/.test(code)) return false
  const step = Math.floor(nowMillis / 1000 / stepSeconds)
  let match = false
  for (let d = -driftSteps; d <= driftSteps; d++) if (hotp(secret, step + d) === code) match = true
  return match
}

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"

/** RFC 4648 base32 without padding (what `otpauth://` URIs carry). */
export const base32 = (bytes: Uint8Array): string => {
  let out = ""
  let buffer = 0
  let bits = 0
  for (const b of bytes) {
    buffer = (buffer << 8) | b
    bits += 8
    while (bits >= 5) {
      out += BASE32[(buffer >>> (bits - 5)) & 31]
      bits -= 5
    }
    buffer &= (1 << bits) - 1
  }
  if (bits > 0) out += BASE32[(buffer << (5 - bits)) & 31]
  return out
}
