/**
 * Webhook signatures (src/crypto/webhook-signature.ts) with either nonce: RFC 6979 (in
 * JavaScript, what a deterministic sandbox run signs with) and random (node:crypto, what
 * every other platform's webhooks carry). Both must verify with the platform's public key,
 * through our verifier, node:crypto and @noble/curves alike.
 */
import { p256 } from "@noble/curves/nist.js"
import { createPublicKey, verify as nodeVerify } from "node:crypto"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { signWebhookBody, verifyWebhookSignature } from "../../src/crypto/index.js"
import { arbitraryKey, arbitraryPayload } from "./support/keys.js"
import { numRuns } from "./support/runs.js"

/** The uncompressed SEC1 public key as a node:crypto key (SPKI: this prefix, then the 65 bytes). */
const SPKI_PREFIX = Buffer.from("3059301306072a8648ce3d020106082a8648ce3d030107034200", "hex")
const nodePublicKey = (uncompressedHex: string) =>
  createPublicKey({ key: Buffer.concat([SPKI_PREFIX, Buffer.from(uncompressedHex, "hex")]), format: "der", type: "spki" })

describe("webhook signatures", () => {
  it("verify with the public key whichever nonce signed them, through every verifier", () => {
    fc.assert(
      fc.property(arbitraryKey, arbitraryPayload, fc.constantFrom("rfc6979" as const, "random" as const), (key, body, nonce) => {
        const signature = signWebhookBody(body, key.privateKey, nonce)
        const der = Buffer.from(signature, "base64")
        expect(verifyWebhookSignature(body, signature, key.publicKey)).toBe(true)
        expect(nodeVerify("sha256", Buffer.from(body, "utf8"), { key: nodePublicKey(key.publicKeyUncompressed), dsaEncoding: "der" }, der)).toBe(true)
        expect(p256.verify(der, Buffer.from(body, "utf8"), Buffer.from(key.publicKey, "hex"), { prehash: true, format: "der", lowS: false })).toBe(true)
        // Another body does not verify.
        expect(verifyWebhookSignature(`${body} `, signature, key.publicKey)).toBe(false)
      }),
      { numRuns: numRuns(60) }
    )
  })

  it("RFC 6979 signs a body the same every time; a random nonce does not", () => {
    fc.assert(
      fc.property(arbitraryKey, arbitraryPayload, (key, body) => {
        expect(signWebhookBody(body, key.privateKey)).toBe(signWebhookBody(body, key.privateKey, "rfc6979"))
        expect(signWebhookBody(body, key.privateKey, "random")).not.toBe(signWebhookBody(body, key.privateKey, "random"))
      }),
      { numRuns: numRuns(30) }
    )
  })

  it("refuses a key that is not a 32-byte hex scalar", () => {
    for (const nonce of ["rfc6979", "random"] as const) {
      expect(() => signWebhookBody("{}", "zz", nonce)).toThrow(RangeError)
    }
    expect(() => signWebhookBody("{}", "ab".repeat(31), "random")).toThrow(RangeError)
  })
})
