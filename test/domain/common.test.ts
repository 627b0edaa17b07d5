import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { isCalendarDate } from "../../src/domain/common.js"
import { numRuns } from "../support/runs.js"

describe("isCalendarDate", () => {
  it("accepts real dates, leap days included", () => {
    for (const d of ["2024-02-29", "2000-02-29", "1999-12-31", "0001-01-01"]) expect(isCalendarDate(d)).toBe(true)
  })
  it("refuses impossible or malformed dates", () => {
    for (const d of ["2023-02-29", "1900-02-29", "2024-04-31", "2024-13-01", "2024-00-10", "2024-1-01", "20240101", "2024-01-1x"]) {
      expect(isCalendarDate(d)).toBe(false)
    }
  })
  it("agrees with Date for every day of the modern calendar", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1000, max: 9999 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }), (y, m, d) => {
        const s = `${y}-${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}`
        const viaDate = new Date(`${s}T00:00:00Z`)
        const expected = !Number.isNaN(viaDate.getTime()) && viaDate.toISOString().slice(0, 10) === s
        expect(isCalendarDate(s)).toBe(expected)
      }),
      { numRuns: numRuns(2000) }
    )
  })
})
