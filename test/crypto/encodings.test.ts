import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  base58CheckDecode,
  base58CheckEncode,
  base58Decode,
  base58Encode,
  constantTimeEqual,
  fromBase64Url,
  fromHex,
  toBase64Url,
  toHex
} from "../../src/crypto/index.js"
import { numRuns } from "./support/runs.js"

const bytes = fc.uint8Array({ maxLength: 96 }).map((b) => new Uint8Array(b))

describe("hex", () => {
  it("round-trips and matches Buffer", () => {
    fc.assert(
      fc.property(bytes, (b) => {
        expect(toHex(b)).toBe(Buffer.from(b).toString("hex"))
        expect(fromHex(toHex(b))).toEqual(b)
        expect(fromHex(toHex(b).toUpperCase())).toEqual(b)
      }),
      { numRuns: numRuns(200) }
    )
  })
  it("rejects odd length, non-hex characters, and upper case when lowercase is required", () => {
    expect(fromHex("abc")).toBeUndefined()
    expect(fromHex("zz")).toBeUndefined()
    expect(fromHex("0x12")).toBeUndefined()
    expect(fromHex(" 12")).toBeUndefined()
    expect(fromHex("AB", { lowercaseOnly: true })).toBeUndefined()
    expect(fromHex("ab", { lowercaseOnly: true })).toEqual(Uint8Array.of(0xab))
  })
})

describe("base64url", () => {
  it("round-trips and matches Buffer's unpadded base64url", () => {
    fc.assert(
      fc.property(bytes, (b) => {
        const text = toBase64Url(b)
        expect(text).toBe(Buffer.from(b).toString("base64url"))
        expect(fromBase64Url(text)).toEqual(b)
      }),
      { numRuns: numRuns(200) }
    )
  })
  it("has exactly one accepted spelling per byte string (non-zero spare bits are rejected)", () => {
    expect(fromBase64Url("QQ")).toEqual(Uint8Array.of(0x41))
    expect(fromBase64Url("QR")).toBeUndefined()
    expect(fromBase64Url("QUI")).toEqual(Uint8Array.of(0x41, 0x42))
    expect(fromBase64Url("QUJ")).toBeUndefined()
  })
  it("rejects the standard alphabet, padding (unless allowed), whitespace and impossible lengths", () => {
    expect(fromBase64Url("+/8")).toBeUndefined()
    expect(fromBase64Url("-_8")).toEqual(Uint8Array.of(0xfb, 0xff))
    expect(fromBase64Url("QQ==")).toBeUndefined()
    expect(fromBase64Url("QQ==", { allowPadding: true })).toEqual(Uint8Array.of(0x41))
    expect(fromBase64Url("QQ=", { allowPadding: true })).toBeUndefined()
    expect(fromBase64Url("Q===", { allowPadding: true })).toBeUndefined()
    expect(fromBase64Url("QUJD\n")).toBeUndefined()
    expect(fromBase64Url("Q")).toBeUndefined()
    expect(fromBase64Url("")).toEqual(new Uint8Array(0))
  })
})

describe("constant-time equality", () => {
  it("is equality", () => {
    expect(constantTimeEqual(Uint8Array.of(1, 2), Uint8Array.of(1, 2))).toBe(true)
    expect(constantTimeEqual(Uint8Array.of(1, 2), Uint8Array.of(1, 3))).toBe(false)
    expect(constantTimeEqual(Uint8Array.of(1, 2), Uint8Array.of(1, 2, 3))).toBe(false)
  })
})

describe("base58check (Bitcoin alphabet, no version byte)", () => {
  it("matches known Bitcoin vectors", () => {
    expect(base58Encode(new Uint8Array(0))).toBe("")
    expect(base58Encode(Uint8Array.of(0, 0, 1))).toBe("112")
    expect(base58Encode(new TextEncoder().encode("Hello World!"))).toBe("2NEpo7TZRRrLZSi2U")
    expect(base58Decode("2NEpo7TZRRrLZSi2U")).toEqual(new TextEncoder().encode("Hello World!"))
    expect(base58Decode("0OIl")).toBeUndefined()
  })
  it("round-trips with leading zeros and rejects any changed character", () => {
    fc.assert(
      fc.property(bytes, fc.nat(), (b, at) => {
        const text = base58CheckEncode(b)
        expect(base58CheckDecode(text)).toEqual(b)
        const i = at % text.length
        const alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
        const replacement = alphabet[(alphabet.indexOf(text[i] ?? "1") + 1 + (at % 57)) % 58] ?? "1"
        const changed = text.slice(0, i) + replacement + text.slice(i + 1)
        expect(base58CheckDecode(changed)).toBeUndefined()
      }),
      { numRuns: numRuns(200) }
    )
  })
})
