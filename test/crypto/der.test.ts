import { p256 } from "@noble/curves/nist.js"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { parseDerSignature, type DerProblem } from "../../src/crypto/index.js"
import { numRuns } from "./support/runs.js"

const hex = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, "hex"))
const r32 = "11".repeat(32)
const s32 = "22".repeat(32)
const canonical = `3044 0220${r32} 0220${s32}`.replaceAll(" ", "")
const problemOf = (text: string): DerProblem | "ok" => {
  const result = parseDerSignature(hex(text.replaceAll(" ", "")))
  return result.ok ? "ok" : result.problem
}

describe("strict DER ECDSA signatures", () => {
  it("accepts the canonical form and returns r‖s", () => {
    const result = parseDerSignature(hex(canonical))
    expect(result.ok && Buffer.from(result.compact).toString("hex")).toBe(r32 + s32)
  })
  it("accepts a 33-byte integer whose top bit needs the 0x00 pad, and short integers", () => {
    expect(problemOf(`3045 022100${"80".repeat(32)} 0220${s32}`)).toBe("ok")
    expect(problemOf(`3007 020101 02020001`)).toBe("integer_not_minimal")
    expect(problemOf(`3006 020101 020101`)).toBe("ok")
  })
  it.each([
    ["trailing byte after the sequence", `${canonical}00`, "length_mismatch"],
    ["long-form sequence length", `308144 0220${r32} 0220${s32}`, "long_form_length"],
    ["long-form integer length", `3045 028120${r32} 0220${s32}`, "long_form_length"],
    ["64-byte compact signature", `${r32}${s32}`, "not_a_sequence"],
    ["sequence length too short", `3043 0220${r32} 0220${s32}`, "length_mismatch"],
    ["extra element in the sequence", `3047 0220${r32} 0220${s32} 020100`, "length_mismatch"],
    ["wrong integer tag", `3044 0320${r32} 0220${s32}`, "not_an_integer"],
    ["negative r", `3044 0220${"80".repeat(32)} 0220${s32}`, "integer_negative"],
    ["non-minimal zero pad", `3045 022100${r32} 0220${s32}`, "integer_not_minimal"],
    ["integer longer than 33 bytes", `3046 022200${"ff".repeat(33)} 0220${s32}`, "integer_too_large"],
    ["r = 0", `3025 020100 0220${s32}`, "scalar_out_of_range"],
    ["s = n", `3045 0220${r32} 022100ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551`, "scalar_out_of_range"],
    ["empty integer", `3024 0200 0220${s32}`, "length_mismatch"],
    ["empty input", ``, "not_a_sequence"]
  ] as const)("rejects %s", (_name, text, problem) => {
    expect(problemOf(text)).toBe(problem)
  })
  it("round-trips every signature noble produces, high-S included", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.uint8Array({ maxLength: 64 }), (seed, msg) => {
        fc.pre(p256.utils.isValidSecretKey(seed))
        const low = p256.Signature.fromBytes(p256.sign(msg, seed, { lowS: true }))
        const high = new p256.Signature(low.r, p256.Point.Fn.ORDER - low.s)
        for (const sig of [low, high]) {
          const parsed = parseDerSignature(sig.toBytes("der"))
          expect(parsed.ok && Buffer.from(parsed.compact).toString("hex")).toBe(Buffer.from(sig.toBytes("compact")).toString("hex"))
        }
      }),
      { numRuns: numRuns(100) }
    )
  })
})
