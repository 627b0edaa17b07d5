import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  type FeeConfig,
  feeConfigProblems,
  platformFee,
  platformFeeOverrideProblems,
  quoteFee,
  type RailFeeConfig,
  serviceFee,
  variableFee
} from "../../../src/rules/money/fees.js"

const numRuns = Number(process.env.FC_NUM_RUNS ?? 100)

const cross = (variableFeeBps: number, fixed: number, sourceCurrency = "USD"): FeeConfig => ({
  feeType: "CROSS_CURRENCY_TRANSACTION",
  sourceCurrency,
  variableFeeBps,
  fixedFee: { amount: fixed, currency: sourceCurrency }
})
const sameDay: RailFeeConfig = { rail: "ACH_SAME_DAY", sourceCurrency: "USD", variableFeeBps: 0, fixedFee: { amount: 150, currency: "USD" } }

describe("feeConfigProblems", () => {
  it("a valid USD config has none", () => {
    expect(feeConfigProblems([cross(30, 50)], [sameDay])).toEqual([])
  })
  it("source currency must be USD", () => {
    expect(feeConfigProblems([cross(30, 50, "EUR")]).map((p) => p.field)).toEqual(["feeConfigs[0].sourceCurrency"])
  })
  it("fixed fee currency must be the source currency", () => {
    const c: FeeConfig = { ...cross(30, 50), fixedFee: { amount: 50, currency: "EUR" } }
    expect(feeConfigProblems([c]).map((p) => p.field)).toEqual(["feeConfigs[0].fixedFee.currency"])
  })
  it("bps 0..10000 integers, amounts non-negative safe integers, all listed at once", () => {
    const problems = feeConfigProblems(
      [{ ...cross(10_001, -1) }],
      [{ ...sameDay, variableFeeBps: 1.5, fixedFee: { amount: Number.MAX_SAFE_INTEGER + 2, currency: "USD" } }]
    )
    expect(problems.map((p) => p.field)).toEqual([
      "feeConfigs[0].variableFeeBps",
      "feeConfigs[0].fixedFee.amount",
      "railFeeConfigs[0].variableFeeBps",
      "railFeeConfigs[0].fixedFee.amount"
    ])
  })
  it("at most one config per fee type and source currency, one rail fee per rail and currency", () => {
    expect(feeConfigProblems([cross(1, 1), cross(2, 2)], [sameDay, sameDay]).map((p) => p.constraint)).toEqual(["unique", "unique"])
  })
  it("an override needs a USD sending currency and a fixed fee in it", () => {
    const o = { platformFixedFee: { amount: 50, currency: "USD" }, platformVariableFeeBps: 30 }
    expect(platformFeeOverrideProblems(o, "USD")).toEqual([])
    expect(platformFeeOverrideProblems(o, "EUR").map((p) => p.field)).toEqual([
      "platformFeeOverride",
      "platformFeeOverride.platformFixedFee.currency"
    ])
  })
})

describe("variableFee", () => {
  it("rounds up, exactly", () => {
    expect(variableFee(10_000, 30)).toBe(30)
    expect(variableFee(10_001, 30)).toBe(31)
    expect(variableFee(1, 1)).toBe(1)
    expect(variableFee(0, 30)).toBe(0)
    expect(variableFee(9_000_000_000_000_000, 10_000)).toBe(9_000_000_000_000_000)
    expect(variableFee(8_999_999_999_999_999, 3)).toBe(2_700_000_000_000)
  })
})

describe("platformFee", () => {
  const base = { sendingCurrency: "USD", sendingAmount: 10_000, crossCurrency: true }
  it("no config: 0", () => expect(platformFee(base)).toBe(0))
  it("cross-currency config applies to a cross-currency quote: fixed + ceil(bps)", () => {
    expect(platformFee({ ...base, feeConfigs: [cross(30, 50)] })).toBe(80)
  })
  it("cross-currency config does not apply to a same-currency quote", () => {
    expect(platformFee({ ...base, crossCurrency: false, feeConfigs: [cross(30, 50)] })).toBe(0)
  })
  it("a rail fee config applies for its rail (ACH_SAME_DAY priced by its own)", () => {
    expect(platformFee({ ...base, crossCurrency: false, rail: "ACH_SAME_DAY", railFeeConfigs: [sameDay] })).toBe(150)
    expect(platformFee({ ...base, crossCurrency: false, rail: "ACH", railFeeConfigs: [sameDay] })).toBe(0)
    expect(platformFee({ ...base, rail: "ACH_SAME_DAY", feeConfigs: [cross(30, 50)], railFeeConfigs: [sameDay] })).toBe(230)
  })
  it("the override replaces every configured fee", () => {
    expect(platformFee({
      ...base,
      rail: "ACH_SAME_DAY",
      feeConfigs: [cross(30, 50)],
      railFeeConfigs: [sameDay],
      override: { platformFixedFee: { amount: 5, currency: "USD" }, platformVariableFeeBps: 100 }
    })).toBe(105)
  })
  it("configs apply only to their own source currency", () => {
    expect(platformFee({ ...base, sendingCurrency: "EUR", feeConfigs: [cross(30, 50)] })).toBe(0)
  })
  it("property: non-decreasing in the amount", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.integer({ min: 0, max: 1_000_000_000_000 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        (bps, fixed, a, d) => {
          const f = (n: number) => platformFee({ ...base, sendingAmount: n, feeConfigs: [cross(bps, fixed)] })
          return f(a) <= f(a + d) && Number.isSafeInteger(f(a))
        }
      ),
      { numRuns }
    )
  })
})

describe("service fee", () => {
  it("is 0 in the sandbox for every rail", () => {
    expect(serviceFee("WIRE", "USD")).toBe(0)
    expect(serviceFee(undefined, "USD")).toBe(0)
  })
  it("quoteFee = service + platform fee of the amount converted", () => {
    const fee = quoteFee({ sendingCurrency: "USD", crossCurrency: true, feeConfigs: [cross(100, 10)] })
    expect(fee(1_000)).toBe(20)
  })
})
