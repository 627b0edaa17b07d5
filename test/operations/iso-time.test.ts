/**
 * `isoOf` formats each second once and appends the milliseconds: it must write exactly
 * what `Date.prototype.toISOString` writes, for any instant, in any order of calls.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { isoOf } from "../../src/operations/time.js"

/** The instants a Date can hold (±8.64e15 ms), with the edges of years 0 and 10000. */
const instant = fc.oneof(
  fc.integer({ min: -8_640_000_000_000_000, max: 8_640_000_000_000_000 }),
  fc.integer({ min: -62_167_219_202_000, max: -62_167_219_198_000 }),
  fc.integer({ min: 253_402_300_798_000, max: 253_402_300_802_000 }),
  fc.integer({ min: -3_000, max: 3_000 })
)

describe("isoOf", () => {
  it("writes what toISOString writes, whatever was formatted before", () => {
    fc.assert(fc.property(fc.array(instant, { minLength: 1, maxLength: 30 }), (instants) => {
      for (const ms of instants) expect(isoOf(ms)).toBe(new Date(ms).toISOString())
    }), { numRuns: 300 })
  })

  it("instants within one second and across seconds, interleaved", () => {
    const base = 1_764_000_000_000
    for (let i = 0; i < 3_000; i++) {
      const ms = base + (i % 7) * 300_000 + i
      expect(isoOf(ms)).toBe(new Date(ms).toISOString())
    }
  })

  it("refuses what toISOString refuses, and truncates a fraction as it does", () => {
    expect(() => isoOf(Number.NaN)).toThrow(RangeError)
    expect(() => isoOf(8_640_000_000_000_001)).toThrow(RangeError)
    expect(isoOf(1.9)).toBe(new Date(1.9).toISOString())
  })
})
