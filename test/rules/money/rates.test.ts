import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { CURRENCIES } from "../../../src/domain/money.js"
import {
  apiExchangeRate,
  BASE_USD_RATES,
  currenciesWithoutBaseRate,
  MAX_DRIFT,
  RATE_CACHE_MILLIS,
  rateAt,
  rateBucket,
  rateDrift,
  toRational,
  UNAVAILABLE_CORRIDORS,
  usdCentsIn
} from "../../../src/rules/money/rates.js"

const numRuns = Number(process.env.FC_NUM_RUNS ?? 100)
const CODES = Object.keys(CURRENCIES)
const T = Date.UTC(2026, 0, 15, 12, 3, 0)

describe("base rate table", () => {
  it("every catalogue currency has a base rate", () => {
    expect(currenciesWithoutBaseRate()).toEqual([])
    for (const code of CODES) expect(BASE_USD_RATES[code]).toBeGreaterThan(0)
  })
  it("USD is 1 and EUR is 0.92", () => {
    expect(BASE_USD_RATES["USD"]).toBe(1)
    expect(BASE_USD_RATES["EUR"]).toBe(0.92)
  })
})

describe("rateAt", () => {
  it("same currency: exactly 1, no drift, bucket bounds", () => {
    const r = rateAt("EUR", "EUR", T)
    expect(r).toEqual({ rate: 1, updatedAt: rateBucket(T) * RATE_CACHE_MILLIS, expiresAt: (rateBucket(T) + 1) * RATE_CACHE_MILLIS })
  })
  it("pegged dollars trade at exactly 1", () => {
    expect(rateAt("USD", "USDC", T)?.rate).toBe(1)
    expect(rateAt("USDT", "USD", T)?.rate).toBe(1)
  })
  it("unknown currency -> undefined", () => {
    expect(rateAt("USD", "XYZ", T)).toBeUndefined()
    expect(rateAt("ZZZ", "USD", T)).toBeUndefined()
    expect(rateAt("USD", "toString", T)).toBeUndefined()
  })
  it("an unavailable corridor has no rate, its reverse does", () => {
    expect(UNAVAILABLE_CORRIDORS.has("BTC->VND")).toBe(true)
    expect(rateAt("BTC", "VND", T)).toBeUndefined()
    expect(rateAt("VND", "BTC", T)).toBeDefined()
  })
  it("is the same all through one bucket and reproducible", () => {
    const start = rateBucket(T) * RATE_CACHE_MILLIS
    const a = rateAt("USD", "MXN", start)
    expect(rateAt("USD", "MXN", start + RATE_CACHE_MILLIS - 1)).toEqual(a)
    expect(rateAt("USD", "MXN", start + 123_456)).toEqual(a)
  })
  it("moves between buckets for some corridor", () => {
    const rates = new Set(Array.from({ length: 10 }, (_, i) => rateAt("USD", "EUR", T + i * RATE_CACHE_MILLIS)?.rate))
    expect(rates.size).toBeGreaterThan(1)
  })
  it("property: within ±0.5% of the base cross rate; updatedAt ≤ now < expiresAt", () => {
    fc.assert(
      fc.property(fc.constantFrom(...CODES), fc.constantFrom(...CODES), fc.integer({ min: 0, max: 4_000_000_000_000 }), (s, d, now) => {
        const r = rateAt(s, d, now)
        if (UNAVAILABLE_CORRIDORS.has(`${s}->${d}`)) return r === undefined
        if (r === undefined) return false
        const base = (BASE_USD_RATES[d] ?? 0) / (BASE_USD_RATES[s] ?? 1)
        const within = Math.abs(r.rate / base - 1) <= MAX_DRIFT + 1e-9
        return within && r.updatedAt <= now && now < r.expiresAt && r.expiresAt - r.updatedAt === RATE_CACHE_MILLIS
      }),
      { numRuns }
    )
  })
  it("drift is bounded for any bucket, negative ones included", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.integer(), (s, d, b) => Math.abs(rateDrift(s, d, b)) <= MAX_DRIFT),
      { numRuns }
    )
  })
})

describe("apiExchangeRate: sending units per receiving unit", () => {
  it("is 1/rate to 10 significant digits", () => {
    expect(apiExchangeRate(0.92)).toBe(1.086956522)
    expect(apiExchangeRate(1)).toBe(1)
    expect(apiExchangeRate(17.2)).toBe(0.05813953488)
  })
})

describe("toRational", () => {
  it("reads decimals exactly", () => {
    const r = toRational(0.92)
    expect(r !== undefined && r.num * 100n === 92n * r.den).toBe(true)
    const big = toRational(2.3333333333e9)
    expect(big !== undefined && big.num * 10n === 23333333333n * big.den).toBe(true)
  })
  it("refuses non-positive and non-finite values", () => {
    for (const v of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) expect(toRational(v)).toBeUndefined()
  })
})

describe("usdCentsIn", () => {
  it("converts by the base table, rounding down, in minor units", () => {
    expect(usdCentsIn(100_000, "USD")).toBe(100_000)
    expect(usdCentsIn(100_000, "EUR")).toBe(92_000)
    expect(usdCentsIn(100_000, "VND")).toBe(24_500_000)
    expect(usdCentsIn(100_000, "BTC")).toBe(1_050_000)
    expect(usdCentsIn(100_000, "USDC")).toBe(1_000_000_000)
    expect(usdCentsIn(100_000, "XYZ")).toBeUndefined()
  })
})
