import { p256 } from "@noble/curves/nist.js"
import { ApiKeyStamper } from "@turnkey/api-key-stamper"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  parseWalletStamp,
  SANDBOX_LEGACY_WALLET_SIGNATURE,
  STAMP_REASONS,
  STAMP_SCHEME,
  verifyWalletStamp,
  type StampReason,
  type VerifyBackend,
  type VerifyWalletStampInput
} from "../../src/crypto/index.js"
import { arbitraryKey, arbitraryPayload, keyFromSeed, type TestKey } from "./support/keys.js"
import { stringField } from "./support/json.js"
import { numRuns } from "./support/runs.js"

const backends: readonly VerifyBackend[] = ["native", "noble"]

const stampWith = async (key: TestKey, payload: string, runtime: "node" | "purejs" = "node"): Promise<string> => {
  const stamper = new ApiKeyStamper({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey, runtimeOverride: runtime })
  const { stampHeaderName, stampHeaderValue } = await stamper.stamp(payload)
  expect(stampHeaderName).toBe("X-Stamp")
  return stampHeaderValue
}

const headerOf = (fields: Record<string, unknown>): string => Buffer.from(JSON.stringify(fields)).toString("base64url")
const decodeHeader = (header: string): { publicKey: string; scheme: string; signature: string } => {
  const text = Buffer.from(header, "base64url").toString("utf8")
  return { publicKey: stringField(text, "publicKey"), scheme: stringField(text, "scheme"), signature: stringField(text, "signature") }
}

const alice = keyFromSeed(new Uint8Array(32).fill(7))
const bob = keyFromSeed(new Uint8Array(32).fill(9))
const payload = '{"requestId":"Request:6f1c","amount":"10.00","memo":"für Müller — 東京"}'
const aliceHeader = await stampWith(alice, payload)

const verify = (overrides: Partial<VerifyWalletStampInput>, backend: VerifyBackend = "native") =>
  verifyWalletStamp({ header: aliceHeader, payloadToSign: payload, activeSessionKeys: [alice.publicKey], backend, ...overrides })

const reasonOf = (overrides: Partial<VerifyWalletStampInput>): StampReason | "ok" => {
  const verdicts = backends.map((backend) => verify(overrides, backend))
  const reasons = verdicts.map((v) => (v.ok ? "ok" : v.reason))
  expect(reasons[0]).toBe(reasons[1])
  return reasons[0] ?? "ok"
}

const withSignature = (signatureHex: string, key: TestKey = alice): string =>
  headerOf({ publicKey: key.publicKey, scheme: STAMP_SCHEME, signature: signatureHex })
const aliceSignature = decodeHeader(aliceHeader).signature
const aliceParts = p256.Signature.fromBytes(Buffer.from(aliceSignature, "hex"), "der")
const offCurve = `${alice.publicKeyUncompressed.slice(0, -2)}${alice.publicKeyUncompressed.endsWith("00") ? "01" : "00"}`

/** DER of arbitrary (even out-of-range) integers, for building invalid signatures. */
const derOf = (r: bigint, s: bigint): string => {
  const integer = (value: bigint): string => {
    let body = value.toString(16)
    if (body.length % 2 === 1) body = `0${body}`
    if (Number.parseInt(body.slice(0, 2), 16) >= 0x80) body = `00${body}`
    return `02${(body.length / 2).toString(16).padStart(2, "0")}${body}`
  }
  const content = integer(r) + integer(s)
  return `30${(content.length / 2).toString(16).padStart(2, "0")}${content}`
}

describe("wallet signature stamps from @turnkey/api-key-stamper", () => {
  it("accepts random keys and payloads (non-ASCII included) on both backends, both client runtimes", async () => {
    await fc.assert(
      fc.asyncProperty(arbitraryKey, arbitraryPayload, fc.constantFrom("node" as const, "purejs" as const), async (key, text, runtime) => {
        const header = await stampWith(key, text, runtime)
        for (const backend of backends) {
          const verdict = verifyWalletStamp({ header, payloadToSign: text, activeSessionKeys: [key.publicKey], backend })
          expect(verdict).toEqual({ ok: true, value: { kind: "signature", publicKey: key.publicKey } })
        }
      }),
      { numRuns: numRuns(150) }
    )
  })

  it("normalises the session key's case and compressed/uncompressed form before comparing", () => {
    for (const form of [alice.publicKey.toUpperCase(), alice.publicKeyUncompressed, alice.publicKeyUncompressed.toUpperCase()]) {
      expect(reasonOf({ activeSessionKeys: [bob.publicKey, form] })).toBe("ok")
    }
    const uncompressedInHeader = withSignature(aliceSignature, { ...alice, publicKey: alice.publicKeyUncompressed.toUpperCase() })
    expect(reasonOf({ header: uncompressedInHeader })).toBe("ok")
  })

  it("accepts high-S signatures (clients do not normalise) and their low-S twins", () => {
    const sig = p256.Signature.fromBytes(Buffer.from(aliceSignature, "hex"), "der")
    const twin = new p256.Signature(sig.r, p256.Point.Fn.ORDER - sig.s)
    expect(reasonOf({ header: withSignature(Buffer.from(twin.toBytes("der")).toString("hex")) })).toBe("ok")
    expect(reasonOf({})).toBe("ok")
  })

  describe("each failure has its own reason and API code", () => {
    const cases: ReadonlyArray<readonly [string, Partial<VerifyWalletStampInput>, StampReason]> = [
      ["no header", { header: undefined }, "header_missing"],
      ["empty header", { header: "" }, "header_missing"],
      ["padded base64url", { header: `${aliceHeader}=` }, "header_not_base64url"],
      ["standard base64 alphabet", { header: Buffer.from(JSON.stringify({ a: "??>>" })).toString("base64") }, "header_not_base64url"],
      ["base64url of non-JSON", { header: Buffer.from("not json").toString("base64url") }, "header_not_json"],
      ["base64url of a JSON array", { header: Buffer.from("[1]").toString("base64url") }, "header_not_json"],
      ["missing signature field", { header: headerOf({ publicKey: alice.publicKey, scheme: STAMP_SCHEME }) }, "stamp_field_missing"],
      ["numeric public key", { header: headerOf({ publicKey: 1, scheme: STAMP_SCHEME, signature: aliceSignature }) }, "stamp_field_missing"],
      ["other scheme", { header: headerOf({ publicKey: alice.publicKey, scheme: "SIGNATURE_SCHEME_TK_API_ED25519", signature: aliceSignature }) }, "scheme_unsupported"],
      ["public key not hex", { header: withSignature(aliceSignature, { ...alice, publicKey: "zz" }) }, "public_key_malformed"],
      ["public key off the curve", { header: withSignature(aliceSignature, { ...alice, publicKey: offCurve }) }, "public_key_malformed"],
      ["public key with a bad prefix", { header: withSignature(aliceSignature, { ...alice, publicKey: `05${alice.publicKey.slice(2)}` }) }, "public_key_malformed"],
      ["signature not hex", { header: withSignature("xyz") }, "signature_not_hex"],
      ["DER with a trailing byte", { header: withSignature(`${aliceSignature}00`) }, "signature_not_der"],
      ["64-byte compact signature", { header: withSignature(Buffer.from(p256.Signature.fromBytes(Buffer.from(aliceSignature, "hex"), "der").toBytes("compact")).toString("hex")) }, "signature_not_der"],
      ["long-form DER length", { header: withSignature(`3081${aliceSignature.slice(2)}`) }, "signature_not_der"],
      ["r = 0", { header: withSignature(derOf(0n, aliceParts.s)) }, "signature_scalar_out_of_range"],
      ["s = n", { header: withSignature(derOf(aliceParts.r, p256.Point.Fn.ORDER)) }, "signature_scalar_out_of_range"],
      ["key of no active session", { activeSessionKeys: [bob.publicKey] }, "key_not_active_session"],
      ["no active session at all", { activeSessionKeys: [] }, "key_not_active_session"],
      ["a changed payload byte", { payloadToSign: payload.replace("10.00", "10.01") }, "signature_invalid"],
      ["a re-serialised payload", { payloadToSign: JSON.stringify(JSON.parse(payload), null, 1) }, "signature_invalid"],
      ["a signature by another key under this key", { header: withSignature(decodeHeader(aliceHeader).signature, bob), activeSessionKeys: [bob.publicKey] }, "signature_invalid"],
      ["legacy sandbox value outside sandbox", { header: SANDBOX_LEGACY_WALLET_SIGNATURE }, "legacy_sandbox_signature_outside_sandbox"]
    ]
    it.each(cases)("%s", (_name, overrides, reason) => {
      expect(reasonOf(overrides)).toBe(reason)
      const verdict = verify(overrides)
      expect(verdict.ok).toBe(false)
      if (!verdict.ok) {
        expect(verdict.status).toBe(401)
        expect(verdict.code).toBe(STAMP_REASONS[reason].code)
      }
    })

    it("maps reasons to the four SPEC.md wallet codes", () => {
      const byCode = (code: string) => Object.entries(STAMP_REASONS).filter(([, info]) => info.code === code).map(([reason]) => reason)
      expect(byCode("WALLET_SIGNATURE_MISSING")).toEqual(["header_missing"])
      expect(byCode("WALLET_SIGNATURE_BODY_MISMATCH")).toEqual(["retried_body_differs", "signed_different_body"])
      expect(byCode("WALLET_SIGNATURE_MALFORMED")).toContain("signature_not_der")
      expect(byCode("WALLET_SIGNATURE_INVALID")).toContain("signature_invalid")
      expect(Object.values(STAMP_REASONS).every((info) => info.status === 401)).toBe(true)
    })
  })

  describe("BODY_MISMATCH: the retried request against the issued payloadToSign", () => {
    const changed = payload.replace("10.00", "99.00")
    it("a genuine signature over the issued payload, but the retry carries a different body", () => {
      expect(reasonOf({ retriedPayload: changed })).toBe("retried_body_differs")
    })
    it("a genuine signature over the retried body instead of the issued payload", async () => {
      const header = await stampWith(alice, changed)
      expect(reasonOf({ header, retriedPayload: changed })).toBe("signed_different_body")
    })
    it("an identical retry is fine; a signature over neither is INVALID", async () => {
      expect(reasonOf({ retriedPayload: payload })).toBe("ok")
      const header = await stampWith(alice, "something else")
      expect(reasonOf({ header, retriedPayload: changed })).toBe("signature_invalid")
    })
  })

  it("accepts the legacy fixed sandbox value only with sandbox: true", () => {
    expect(verify({ header: SANDBOX_LEGACY_WALLET_SIGNATURE, sandbox: true })).toEqual({ ok: true, value: { kind: "sandbox-legacy" } })
    expect(reasonOf({ header: SANDBOX_LEGACY_WALLET_SIGNATURE, sandbox: false })).toBe("legacy_sandbox_signature_outside_sandbox")
    // sandbox mode does not weaken real stamps
    expect(reasonOf({ sandbox: true, payloadToSign: `${payload} ` })).toBe("signature_invalid")
  })

  describe("properties", () => {
    const derBytes = Buffer.from(aliceSignature, "hex")
    it("any changed byte of the DER signature is rejected on both backends", () => {
      fc.assert(
        fc.property(fc.nat({ max: derBytes.length - 1 }), fc.integer({ min: 1, max: 255 }), (at, xor) => {
          const flipped = Buffer.from(derBytes)
          flipped[at] = (flipped[at] ?? 0) ^ xor
          expect(reasonOf({ header: withSignature(flipped.toString("hex")) })).not.toBe("ok")
        }),
        { numRuns: numRuns(300) }
      )
    })
    it("any changed character of the payload is rejected", () => {
      fc.assert(
        fc.property(fc.nat({ max: payload.length - 1 }), fc.string({ unit: "grapheme", minLength: 1, maxLength: 2 }), (at, replacement) => {
          const changed = payload.slice(0, at) + replacement + payload.slice(at + 1)
          fc.pre(changed !== payload)
          expect(reasonOf({ payloadToSign: changed })).toBe("signature_invalid")
        }),
        { numRuns: numRuns(300) }
      )
    })
    it("any changed character of the header is rejected unless it decodes to the very same key and signature", () => {
      const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
      const original = parseWalletStamp(aliceHeader)
      fc.assert(
        fc.property(fc.nat({ max: aliceHeader.length - 1 }), fc.nat({ max: 63 }), (at, pick) => {
          const replacement = alphabet[pick] ?? "A"
          fc.pre(replacement !== aliceHeader[at])
          const header = aliceHeader.slice(0, at) + replacement + aliceHeader.slice(at + 1)
          const reason = reasonOf({ header })
          if (reason === "ok") {
            const parsed = parseWalletStamp(header)
            expect(parsed.ok && original.ok && parsed.value.publicKey.compressedHex === original.value.publicKey.compressedHex).toBe(true)
            expect(parsed.ok && original.ok && Buffer.compare(parsed.value.signature, original.value.signature)).toBe(0)
          }
        }),
        { numRuns: numRuns(300) }
      )
    })
    it("any other active key does not verify a stamp", () => {
      fc.assert(
        fc.property(arbitraryKey, (other) => {
          fc.pre(other.publicKey !== alice.publicKey)
          expect(reasonOf({ header: withSignature(aliceSignature, other), activeSessionKeys: [other.publicKey] })).toBe("signature_invalid")
        }),
        { numRuns: numRuns(50) }
      )
    })
  })
})
