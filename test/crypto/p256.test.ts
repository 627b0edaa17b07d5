import { p256 } from "@noble/curves/nist.js"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { BoundedCache, normalizePublicKeyHex, parsePublicKeyHex, verifyDer } from "../../src/crypto/index.js"
import { arbitraryKey } from "./support/keys.js"
import { numRuns } from "./support/runs.js"

describe("P-256 public keys", () => {
  it("normalise every spelling of a key to lowercase compressed hex", () => {
    fc.assert(
      fc.property(arbitraryKey, (key) => {
        for (const form of [key.publicKey, key.publicKey.toUpperCase(), key.publicKeyUncompressed, key.publicKeyUncompressed.toUpperCase()]) {
          expect(normalizePublicKeyHex(form)).toBe(key.publicKey)
          expect(parsePublicKeyHex(form)?.uncompressedHex).toBe(key.publicKeyUncompressed)
        }
      }),
      { numRuns: numRuns(100) }
    )
  })
  it("refuse hybrid prefixes, the identity, wrong lengths, off-curve points and non-hex", () => {
    const { publicKey } = p256.keygen()
    const uncompressed = Buffer.from(p256.Point.fromBytes(publicKey).toBytes(false)).toString("hex")
    expect(parsePublicKeyHex(`06${uncompressed.slice(2)}`)).toBeUndefined()
    expect(parsePublicKeyHex(`07${uncompressed.slice(2)}`)).toBeUndefined()
    expect(parsePublicKeyHex("00")).toBeUndefined()
    expect(parsePublicKeyHex(uncompressed.slice(0, -2))).toBeUndefined()
    expect(parsePublicKeyHex(`${uncompressed.slice(0, -2)}${uncompressed.endsWith("00") ? "01" : "00"}`)).toBeUndefined()
    expect(parsePublicKeyHex(`04${"00".repeat(64)}`)).toBeUndefined()
    expect(parsePublicKeyHex(`0x${uncompressed}`)).toBeUndefined()
    expect(parsePublicKeyHex("")).toBeUndefined()
  })
  it("verify high-S and low-S alike on both backends, and reject the other message", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.uint8Array({ maxLength: 80 }), (seed, msg) => {
        fc.pre(p256.utils.isValidSecretKey(seed))
        const key = parsePublicKeyHex(Buffer.from(p256.getPublicKey(seed)).toString("hex"))
        if (key === undefined) throw new Error("key")
        const low = p256.Signature.fromBytes(p256.sign(msg, seed))
        const high = new p256.Signature(low.r, p256.Point.Fn.ORDER - low.s)
        for (const sig of [low, high]) {
          for (const backend of ["native", "noble"] as const) {
            expect(verifyDer(key, msg, sig.toBytes("der"), backend)).toEqual({ ok: true, valid: true })
            expect(verifyDer(key, Uint8Array.of(...msg, 0), sig.toBytes("der"), backend)).toEqual({ ok: true, valid: false })
          }
        }
      }),
      { numRuns: numRuns(50) }
    )
  })
})

describe("BoundedCache", () => {
  it("keeps at most its capacity and evicts the least recently used entry", () => {
    const cache = new BoundedCache<string, number>(2)
    cache.set("a", 1)
    cache.set("b", 2)
    expect(cache.get("a")).toBe(1)
    cache.set("c", 3)
    expect(cache.size).toBe(2)
    expect(cache.get("b")).toBeUndefined()
    expect(cache.get("a")).toBe(1)
    expect(cache.get("c")).toBe(3)
  })
})
