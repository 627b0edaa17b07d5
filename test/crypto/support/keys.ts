import { p256 } from "@noble/curves/nist.js"
import fc from "fast-check"

export interface TestKey {
  readonly privateKey: string
  readonly publicKey: string
  readonly publicKeyUncompressed: string
}

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex")

export const keyFromSeed = (seed: Uint8Array): TestKey => ({
  privateKey: hex(seed),
  publicKey: hex(p256.getPublicKey(seed, true)),
  publicKeyUncompressed: hex(p256.getPublicKey(seed, false))
})

/** Random P-256 keys driven by fast-check, so failures shrink and replay. */
export const arbitraryKey: fc.Arbitrary<TestKey> = fc
  .uint8Array({ minLength: 32, maxLength: 32 })
  .filter((seed) => p256.utils.isValidSecretKey(seed))
  .map((seed) => keyFromSeed(new Uint8Array(seed)))

/** Payloads like the server's: JSON text, often with non-ASCII content. */
export const arbitraryPayload: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 60 }),
  fc.record({ note: fc.string({ unit: "grapheme", maxLength: 30 }), amount: fc.integer() }).map((o) => JSON.stringify(o)),
  fc.constantFrom('{"amount":100,"memo":"café ☕ 東京 🚀"}', "", "\u0000", "é")
)
