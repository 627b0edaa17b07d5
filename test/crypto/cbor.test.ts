import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { decodeCbor, decodeCborPrefix } from "../../src/crypto/index.js"
import { encodeCbor, type CborIn } from "./support/cbor-encode.js"
import { numRuns } from "./support/runs.js"

const hex = (text: string): Uint8Array => new Uint8Array(Buffer.from(text.replaceAll(" ", ""), "hex"))
const problem = (text: string): string | undefined => {
  const result = decodeCbor(hex(text))
  return result.ok ? undefined : result.problem
}

describe("strict CBOR decoder", () => {
  it("decodes the RFC 8949 examples it supports", () => {
    const value = (text: string) => {
      const result = decodeCbor(hex(text))
      return result.ok ? result.value : "failed"
    }
    expect(value("00")).toBe(0)
    expect(value("17")).toBe(23)
    expect(value("1818")).toBe(24)
    expect(value("1903e8")).toBe(1000)
    expect(value("1a000f4240")).toBe(1000000)
    expect(value("1b000000e8d4a51000")).toBe(1000000000000)
    expect(value("20")).toBe(-1)
    expect(value("3903e7")).toBe(-1000)
    expect(value("4401020304")).toEqual(Uint8Array.of(1, 2, 3, 4))
    expect(value("6449455446")).toBe("IETF")
    expect(value("83010203")).toEqual([1, 2, 3])
    expect(value("a201020304")).toEqual(new Map([[1, 2], [3, 4]]))
    expect(value("f4")).toBe(false)
    expect(value("f5")).toBe(true)
    expect(value("f6")).toBe(null)
  })
  it.each([
    ["indefinite-length byte string", "5f42010243030405ff", "indefinite length"],
    ["non-minimal integer", "1817", "non-minimal integer encoding"],
    ["non-minimal length", "590010", "non-minimal integer encoding"],
    ["a tag", "c11a514b67b0", "tags are not supported"],
    ["a float", "f93c00", "unsupported simple value or float"],
    ["a duplicate map key", "a2 01 02 01 03", "duplicate map key"],
    ["a byte-string map key", "a1 4101 02", "map key is not an integer or text"],
    ["truncated input", "44010203", "truncated"],
    ["trailing bytes", "0000", "trailing bytes"],
    ["invalid UTF-8 text", "62c328", "invalid UTF-8 in text string"],
    ["an integer beyond 2^53", "1b0020000000000001", "integer beyond 2^53"],
    ["reserved additional information", "1c", "reserved additional information"]
  ])("rejects %s", (_name, text, expected) => {
    expect(problem(text)).toBe(expected)
  })
  it("rejects nesting deeper than 16", () => {
    expect(problem("81".repeat(17) + "00")).toBe("nesting too deep")
    expect(problem("81".repeat(16) + "00")).toBeUndefined()
  })
  it("reports where a prefix ends", () => {
    const result = decodeCborPrefix(hex("a10102 ff"))
    expect(result.ok && result.end).toBe(3)
  })
  it("round-trips what a canonical encoder writes", () => {
    const leaf: fc.Arbitrary<CborIn> = fc.oneof(
      fc.integer({ min: -(2 ** 31), max: 2 ** 31 }),
      fc.string(),
      fc.uint8Array({ maxLength: 40 }).map((b) => new Uint8Array(b)),
      fc.boolean(),
      fc.constant(null)
    )
    const tree = fc.letrec<{ node: CborIn }>((tie) => ({
      node: fc.oneof(
        { depthSize: "small" },
        leaf,
        fc.array(tie("node"), { maxLength: 4 }),
        fc.uniqueArray(fc.tuple(fc.oneof(fc.integer({ min: -100, max: 100 }), fc.string()), tie("node")), {
          maxLength: 4,
          selector: ([k]) => k
        }).map((entries) => new Map<number | string, CborIn>(entries))
      )
    })).node
    fc.assert(
      fc.property(tree, (value) => {
        const decoded = decodeCbor(encodeCbor(value))
        expect(decoded.ok && decoded.value).toEqual(value)
      }),
      { numRuns: numRuns(200) }
    )
  })
})
