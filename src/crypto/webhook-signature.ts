import { p256 } from "@noble/curves/nist.js"
import { createPrivateKey, type KeyObject, sign as nodeSign, verify as nodeVerify } from "node:crypto"
import { BoundedMemo } from "../lib/bounded-memo.js"
import { fromHex, utf8 } from "./bytes.js"
import { parseDerSignature } from "./der.js"
import { parsePublicKeyBytes, parsePublicKeyHex, type P256PublicKey } from "./p256.js"

/**
 * Webhook signatures: a P-256 ECDSA signature over SHA-256 of the exact body bytes,
 * base64 (standard alphabet) in the `X-Service-Signature` header. The server signs
 * in DER (what `node:crypto.verify` and OpenSSL expect by default); the verifier also
 * takes the 64-byte r‖s form. Pure: bytes and strings in, a boolean out.
 */

/** The reference's `X-Grid-Signature`, renamed as SPEC.md renames `Grid-Wallet-Signature`. */
export const WEBHOOK_SIGNATURE_HEADER = "X-Service-Signature"

const B64 = /^[A-Za-z0-9+/]*={0,2}$/

/** Standard base64 (padding optional), or undefined when the text is not base64. */
const fromBase64 = (text: string): Uint8Array | undefined => {
  const trimmed = text.trim()
  if (trimmed.length === 0 || trimmed.length > 256 || !B64.test(trimmed)) return undefined
  const bytes = Buffer.from(trimmed, "base64")
  // Round trip: no silently dropped characters.
  if (bytes.toString("base64").replace(/=+$/, "") !== trimmed.replace(/=+$/, "")) return undefined
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length)
}

const bytesOf = (body: string | Uint8Array): Uint8Array => typeof body === "string" ? utf8(body) : body

const keyOf = (publicKey: string | Uint8Array): P256PublicKey | undefined =>
  typeof publicKey === "string" ? parsePublicKeyHex(publicKey.trim()) : parsePublicKeyBytes(publicKey)

/**
 * How a signature's nonce is drawn: `rfc6979` derives it from the key and the body (the
 * same body signs the same; `@noble/curves`, in JavaScript, about 1 ms a signature on the
 * bench's machine), `random` draws it (node:crypto, OpenSSL, a few dozen µs). Both verify
 * alike; a receiver cannot tell them apart.
 */
export type SignatureNonce = "rfc6979" | "random"

/** SEC1 `ECPrivateKey` for P-256 without the optional public key (OpenSSL derives it): this prefix, then the 32-byte scalar, then this suffix. */
const SEC1_PREFIX = Buffer.from("30310201010420", "hex")
const SEC1_SUFFIX = Buffer.from("a00a06082a8648ce3d030107", "hex")

/** node:crypto's key objects of the signing keys in use (a platform has one). */
const keyObjects = new BoundedMemo<string, KeyObject>(256)
const keyObjectOf = (privateKeyHex: string): KeyObject | undefined => {
  const secret = fromHex(privateKeyHex)
  if (secret === undefined || secret.length !== 32) return undefined
  return createPrivateKey({ key: Buffer.concat([SEC1_PREFIX, secret, SEC1_SUFFIX]), format: "der", type: "sec1" })
}

/**
 * Signs a webhook body with the platform's P-256 private key (hex): base64 of the DER
 * signature over SHA-256(body). With `rfc6979` (the default) deterministic: the same body
 * signs the same (a deterministic sandbox run's webhooks repeat byte for byte, headers
 * included); with `random` a fresh nonce each time, natively.
 */
export const signWebhookBody = (body: string | Uint8Array, privateKeyHex: string, nonce: SignatureNonce = "rfc6979"): string => {
  if (nonce === "random") {
    const key = keyObjects.getOrCompute(privateKeyHex, keyObjectOf)
    if (key === undefined) throw new RangeError("the webhook signing key is not a 32-byte hex scalar")
    return nodeSign("sha256", bytesOf(body), { key, dsaEncoding: "der" }).toString("base64")
  }
  const secret = fromHex(privateKeyHex)
  if (secret === undefined) throw new RangeError("the webhook signing key is not hex")
  const der = p256.sign(bytesOf(body), secret, { prehash: true, format: "der" })
  return Buffer.from(der).toString("base64")
}

/**
 * Verifies a webhook as a receiver: `body` the exact bytes received (a string is taken
 * as its UTF-8 bytes), `header` the `X-Service-Signature` value, `publicKey` the
 * platform's webhook public key (`webhookPublicKey` of `GET /config`, or
 * `GET /webhooks/public-key`): SEC1 hex, compressed or uncompressed, or its bytes.
 * The signature may be DER (what the server sends) or 64-byte r‖s. Any malformed
 * input is `false`, never an exception.
 */
export const verifyWebhookSignature = (body: string | Uint8Array, header: string, publicKey: string | Uint8Array): boolean => {
  if (typeof header !== "string") return false
  const key = keyOf(publicKey)
  const signature = fromBase64(header)
  if (key === undefined || signature === undefined) return false
  const message = bytesOf(body)
  try {
    if (signature.length === 64) {
      return nodeVerify("sha256", message, { key: key.keyObject, dsaEncoding: "ieee-p1363" }, signature)
    }
    const parsed = parseDerSignature(signature)
    if (!parsed.ok) return false
    return nodeVerify("sha256", message, key.keyObject, parsed.der)
  } catch {
    return false
  }
}
