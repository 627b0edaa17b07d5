import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { type Currency, CURRENCIES, MAX_AMOUNT } from "../../../src/domain/money.js"
import { platformFee } from "../../../src/rules/money/fees.js"
import { priceQuote, type QuoteFee, type QuoteResult } from "../../../src/rules/money/quote-math.js"
import { rateAt } from "../../../src/rules/money/rates.js"

const numRuns = Number(process.env.FC_NUM_RUNS ?? 100)
const cur = (code: string): Currency => {
  const c = CURRENCIES[code]
  if (c === undefined) throw new Error(code)
  return c
}
const USD = cur("USD")
const EUR = cur("EUR")
const VND = cur("VND")
const BTC = cur("BTC")

const value = (r: QuoteResult) => {
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.reason}`)
  return r.value
}

describe("priceQuote: SENDING locked", () => {
  it("no fee: receiver gets floor(amount × rate)", () => {
    expect(value(priceQuote({ lockedSide: "SENDING", lockedAmount: 10_000, sending: USD, receiving: EUR, rate: 0.92, fee: 0 }))).toEqual({
      totalSendingAmount: 10_000,
      totalReceivingAmount: 9_200,
      feesIncluded: 0,
      amountConverted: 10_000
    })
  })
  it("fees come out of the locked amount; receiving rounds down", () => {
    expect(value(priceQuote({ lockedSide: "SENDING", lockedAmount: 10_000, sending: USD, receiving: EUR, rate: 0.92, fee: 10 }))).toEqual({
      totalSendingAmount: 10_000,
      totalReceivingAmount: 9_190,
      feesIncluded: 10,
      amountConverted: 9_990
    })
    expect(value(priceQuote({ lockedSide: "SENDING", lockedAmount: 101, sending: USD, receiving: EUR, rate: 0.92, fee: 0 })).totalReceivingAmount).toBe(92)
  })
  it("a variable fee is levied on the amount converted", () => {
    // c + ceil(c × 1%) ≤ 10,100 -> c = 10,000, fee 100
    const fee = (c: number) => platformFee({ sendingCurrency: "USD", sendingAmount: c, crossCurrency: true, override: { platformFixedFee: { amount: 0, currency: "USD" }, platformVariableFeeBps: 100 } })
    expect(value(priceQuote({ lockedSide: "SENDING", lockedAmount: 10_100, sending: USD, receiving: USD, rate: 1, fee }))).toEqual({
      totalSendingAmount: 10_100,
      totalReceivingAmount: 10_000,
      feesIncluded: 100,
      amountConverted: 10_000
    })
  })
  it("a leftover minor unit goes to the fees, never to the receiver", () => {
    // c=100: 100+1=101; c=101: 101+2=103 > 102 -> c=100, fees 2
    const fee = (c: number) => Math.ceil(c / 100)
    expect(value(priceQuote({ lockedSide: "SENDING", lockedAmount: 102, sending: USD, receiving: USD, rate: 1, fee }))).toEqual({
      totalSendingAmount: 102,
      totalReceivingAmount: 100,
      feesIncluded: 2,
      amountConverted: 100
    })
  })
  it("decimals: USD cents to BTC sats and to VND", () => {
    expect(value(priceQuote({ lockedSide: "SENDING", lockedAmount: 100_000, sending: USD, receiving: BTC, rate: 0.0000105, fee: 0 })).totalReceivingAmount).toBe(1_050_000)
    expect(value(priceQuote({ lockedSide: "SENDING", lockedAmount: 100, sending: USD, receiving: VND, rate: 24_500, fee: 0 })).totalReceivingAmount).toBe(24_500)
  })
  it("rejections", () => {
    const q = (lockedAmount: number, fee: QuoteFee = 0, rate = 0.92) =>
      priceQuote({ lockedSide: "SENDING", lockedAmount, sending: USD, receiving: EUR, rate, fee })
    const code = (r: QuoteResult) => (r.ok ? "ok" : r.error.code)
    expect(code(q(0))).toBe("INVALID_AMOUNT")
    expect(code(q(-5))).toBe("INVALID_AMOUNT")
    expect(code(q(1.5))).toBe("INVALID_AMOUNT")
    expect(code(q(MAX_AMOUNT + 1))).toBe("AMOUNT_OUT_OF_RANGE")
    expect(code(q(Number.MAX_SAFE_INTEGER + 2))).toBe("AMOUNT_OUT_OF_RANGE")
    expect(code(q(Number.NaN))).toBe("INVALID_AMOUNT")
    expect(code(q(10, 10))).toBe("AMOUNT_OUT_OF_RANGE") // fees eat everything
    expect(code(q(10, 50))).toBe("AMOUNT_OUT_OF_RANGE")
    expect(code(q(1))).toBe("AMOUNT_OUT_OF_RANGE") // 1 cent -> 0.92 cent -> 0
    expect(code(q(100, 0, 0))).toBe("QUOTE_RATE_UNAVAILABLE")
    expect(code(q(100, -1))).toBe("INVALID_AMOUNT")
    expect(code(priceQuote({ lockedSide: "SENDING", lockedAmount: MAX_AMOUNT, sending: BTC, receiving: VND, rate: 2.3e9, fee: 0 }))).toBe("AMOUNT_OUT_OF_RANGE")
  })
})

describe("priceQuote: RECEIVING locked", () => {
  it("sender pays ceil(amount / rate) plus fees", () => {
    expect(value(priceQuote({ lockedSide: "RECEIVING", lockedAmount: 9_200, sending: USD, receiving: EUR, rate: 0.92, fee: 10 }))).toEqual({
      totalSendingAmount: 10_010,
      totalReceivingAmount: 9_200,
      feesIncluded: 10,
      amountConverted: 10_000
    })
    expect(value(priceQuote({ lockedSide: "RECEIVING", lockedAmount: 1, sending: USD, receiving: EUR, rate: 0.92, fee: 0 })).amountConverted).toBe(2)
  })
  it("the total may not exceed 9e15", () => {
    const r = priceQuote({ lockedSide: "RECEIVING", lockedAmount: MAX_AMOUNT, sending: USD, receiving: EUR, rate: 0.92, fee: 0 })
    expect(r.ok ? "ok" : r.error.code).toBe("AMOUNT_OUT_OF_RANGE")
  })
})

// ---------------------------------------------------------------- properties

const CODES = Object.keys(CURRENCIES)
const arbCorridor = fc
  .record({ s: fc.constantFrom(...CODES), d: fc.constantFrom(...CODES), now: fc.integer({ min: 0, max: 4_000_000_000_000 }) })
  .map(({ s, d, now }) => ({ sending: cur(s), receiving: cur(d), rate: rateAt(s, d, now)?.rate }))
  .filter((c): c is { sending: Currency; receiving: Currency; rate: number } => c.rate !== undefined)
const arbFee = fc.oneof(
  fc.integer({ min: 0, max: 1_000 }).map((n): QuoteFee => n),
  fc.record({ bps: fc.integer({ min: 0, max: 10_000 }), fixed: fc.integer({ min: 0, max: 1_000 }) }).map(({ bps, fixed }): QuoteFee => (c) =>
    platformFee({ sendingCurrency: "USD", sendingAmount: c, crossCurrency: true, override: { platformFixedFee: { amount: fixed, currency: "USD" }, platformVariableFeeBps: bps } })
  )
)
const arbAmount = fc.oneof(fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: 1, max: 1_000_000_000_000 }))

/** Receiving minor units per sending minor unit, as a float (for bounds only). */
const minorRate = (c: { sending: Currency; receiving: Currency; rate: number }) => c.rate * 10 ** (c.receiving.decimals - c.sending.decimals)

describe("priceQuote properties", () => {
  it("totals are safe integers; sending = converted + fees; sending ≥ fees; receiver never gets more than the rate gives", () => {
    fc.assert(
      fc.property(arbCorridor, arbFee, arbAmount, fc.constantFrom("SENDING" as const, "RECEIVING" as const), (c, fee, amount, side) => {
        const r = priceQuote({ lockedSide: side, lockedAmount: amount, fee, ...c })
        if (!r.ok) return true
        const q = r.value
        const ints = [q.totalSendingAmount, q.totalReceivingAmount, q.feesIncluded, q.amountConverted].every(Number.isSafeInteger)
        return ints &&
          q.totalSendingAmount === q.amountConverted + q.feesIncluded &&
          q.totalSendingAmount >= q.feesIncluded &&
          q.totalReceivingAmount > 0 &&
          q.totalReceivingAmount <= q.amountConverted * minorRate(c) * (1 + 1e-9) + 1e-9
      }),
      { numRuns }
    )
  })
  it("SENDING then RECEIVING: same receiving amount for no more than the locked total (within 1 unit when a sending unit buys ≥ 1 receiving unit)", () => {
    fc.assert(
      fc.property(arbCorridor, arbFee, arbAmount, (c, fee, amount) => {
        const s = priceQuote({ lockedSide: "SENDING", lockedAmount: amount, fee, ...c })
        if (!s.ok) return true
        const r = value(priceQuote({ lockedSide: "RECEIVING", lockedAmount: s.value.totalReceivingAmount, fee, ...c }))
        const within = minorRate(c) >= 1 ? amount - r.totalSendingAmount <= 1 : true
        return r.totalReceivingAmount === s.value.totalReceivingAmount && r.totalSendingAmount <= amount && within
      }),
      { numRuns }
    )
  })
  it("RECEIVING then SENDING: the receiver gets at least the locked amount (exactly it, or within 1 unit, when a sending unit buys ≤ 1 receiving unit)", () => {
    fc.assert(
      fc.property(arbCorridor, arbFee, arbAmount, (c, fee, amount) => {
        const r = priceQuote({ lockedSide: "RECEIVING", lockedAmount: amount, fee, ...c })
        if (!r.ok) return true
        const s = priceQuote({ lockedSide: "SENDING", lockedAmount: r.value.totalSendingAmount, fee, ...c })
        if (!s.ok) return false
        const got = s.value.totalReceivingAmount
        return got >= amount && (minorRate(c) <= 1 ? got - amount <= 1 : true) && s.value.amountConverted === r.value.amountConverted
      }),
      { numRuns }
    )
  })
  it("monotonic: more locked means no less on either side", () => {
    fc.assert(
      fc.property(arbCorridor, arbFee, arbAmount, fc.integer({ min: 0, max: 1_000_000 }), fc.constantFrom("SENDING" as const, "RECEIVING" as const), (c, fee, a, d, side) => {
        const x = priceQuote({ lockedSide: side, lockedAmount: a, fee, ...c })
        const y = priceQuote({ lockedSide: side, lockedAmount: a + d, fee, ...c })
        if (!x.ok) return true
        if (!y.ok) return y.error.code === "AMOUNT_OUT_OF_RANGE"
        return y.value.totalSendingAmount >= x.value.totalSendingAmount &&
          y.value.totalReceivingAmount >= x.value.totalReceivingAmount &&
          y.value.amountConverted >= x.value.amountConverted
      }),
      { numRuns }
    )
  })
})
