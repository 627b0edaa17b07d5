/**
 * The lane's hand-written `Quote` text (src/http/quote-json.ts) against the schema's
 * encoder: for every value it writes, the very text `JSON.stringify` gives of the
 * encoding (keys, order, numbers, escapes), and nothing for a value the schema would not
 * encode.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { AccountDestination, AccountQuoteSource, OutgoingRateDetails, Quote } from "../../src/domain/quote.js"
import { quoteJson, quoteJsonBySchema } from "../../src/http/quote-json.js"
import { arbitraryFor, damaged } from "../../src/testing/arbitrary.js"

/** Any quote the schema describes (most of them of a shape the writer leaves to the schema). */
const anyQuote = arbitraryFor(Quote)

/** Quotes of the shape the writer knows: account to account, no payment instructions, no SCA challenge. */
const commonQuote = fc.record({
  quote: anyQuote,
  source: arbitraryFor(AccountQuoteSource),
  destination: arbitraryFor(AccountDestination),
  rate: fc.option(arbitraryFor(OutgoingRateDetails), { nil: undefined }),
  platformFees: fc.option(fc.integer(), { nil: undefined })
}).map(({ quote, source, destination, rate, platformFees }) => {
  const q: Record<string, unknown> = { ...quote, source, destination }
  delete q["paymentInstructions"]
  delete q["scaChallenge"]
  if (rate === undefined) delete q["rateDetails"]
  else q["rateDetails"] = rate
  if (platformFees === undefined) delete q["platformFeesIncluded"]
  else q["platformFeesIncluded"] = platformFees
  return q
})

/** The same value with its keys in another order and keys the schema does not declare, at the top and inside. */
const shuffledWithExtras = (q: Record<string, unknown>, seed: number): Record<string, unknown> => {
  const keys = Object.keys(q)
  const order = keys.map((k, i) => [k, (i * 7919 + seed) % 101] as const).sort((a, b) => a[1] - b[1])
  const out: Record<string, unknown> = { extra: seed }
  for (const [k] of order) {
    const v = q[k]
    out[k] = typeof v === "object" && v !== null && !Array.isArray(v) ? { zzz: "x", ...v, aaa: 1 } : v
  }
  return out
}

describe("quoteJson", () => {
  it("writes the schema's text for the quotes it knows, and leaves every other to the schema", () => {
    let written = 0
    fc.assert(
      fc.property(fc.oneof(commonQuote, anyQuote), (q) => {
        const fast = quoteJson(q)
        if (fast === undefined) return
        written++
        expect(fast).toBe(quoteJsonBySchema(q))
      }),
      { numRuns: 600 }
    )
    // The common shape is written, not handed back: the property above is not vacuous.
    expect(written).toBeGreaterThan(200)
  })

  it("writes every quote of the common shape, in the schema's key order, whatever the value's own order and extra keys", () => {
    fc.assert(
      fc.property(commonQuote, fc.nat(), (q, seed) => {
        const expected = quoteJsonBySchema(q)
        expect(expected).toBeDefined()
        expect(quoteJson(q)).toBe(expected)
        expect(quoteJson(shuffledWithExtras(q, seed))).toBe(expected)
      }),
      { numRuns: 400 }
    )
  })

  it("writes nothing for a value the schema would not encode, and the schema's text for one it would", () => {
    fc.assert(
      fc.property(damaged(commonQuote), (v) => {
        const fast = quoteJson(v)
        if (fast !== undefined) expect(fast).toBe(quoteJsonBySchema(v))
      }),
      { numRuns: 1500 }
    )
  })

  it("leaves to the schema an optional key present with undefined, and numbers that are not finite", () => {
    const base = fc.sample(commonQuote, { numRuns: 1, seed: 42 })[0]!
    expect(quoteJson(base)).toBe(quoteJsonBySchema(base))
    for (const key of ["platformFeesIncluded", "rateDetails", "paymentInstructions", "scaChallenge"]) {
      expect(quoteJson({ ...base, [key]: undefined })).toBeUndefined()
    }
    expect(quoteJson({ ...base, source: { ...(base["source"] as object), customerId: undefined } })).toBeUndefined()
    expect(quoteJson({ ...base, exchangeRate: Number.NaN })).toBeUndefined()
    expect(quoteJson({ ...base, totalSendingAmount: Number.POSITIVE_INFINITY })).toBeUndefined()
  })
})
