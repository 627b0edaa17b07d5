/**
 * The lane's shortcuts for quotes (src/http/quote-json.ts) against the endpoints' own
 * schemas, as the lane runs them: for every value the writer writes, the very text
 * `JSON.stringify` gives of the success schema's encoding (keys, order, numbers,
 * escapes), and nothing for a value the schema would not encode; for every body the
 * reader reads, the very value the payload schema decodes (keys in the same order), and
 * nothing for a body it would not decode.
 */
import { Schema } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { AccountDestination, AccountQuoteSource, OutgoingRateDetails, Quote, QuoteRequest } from "../../src/domain/quote.js"
import { PAYLOAD_PARSE_OPTIONS } from "../../src/http/api-base.js"
import { PaymentsApi } from "../../src/http/api.js"
import { quoteJson, readQuoteRequest } from "../../src/http/quote-json.js"
import { arbitraryFor, damaged } from "../../src/testing/arbitrary.js"

const { createQuote, executeQuote } = PaymentsApi.groups.quotes.endpoints

/** The lane's encoding of a success value: the endpoint's success schema, then `JSON.stringify`. */
const successTextOf = (endpoint: typeof createQuote | typeof executeQuote) => {
  const success = [...endpoint.success][0]
  if (success === undefined) throw new Error("no success schema")
  const encode = Schema.encodeUnknownExit(success as Schema.Codec<unknown, unknown>)
  return (value: unknown): string | undefined => {
    const encoded = encode(value)
    return encoded._tag === "Success" ? JSON.stringify(encoded.value) : undefined
  }
}
const createdText = successTextOf(createQuote)
const executedText = successTextOf(executeQuote)
const quoteJsonBySchema = (value: unknown): string | undefined => {
  const text = createdText(value)
  expect(executedText(value)).toBe(text)
  return text
}

/** The lane's decoding of a quote request: the union of the endpoint's JSON payload schemas, with its parse options. */
const payloadSchemas = createQuote.payload.get("application/json")?.schemas ?? []
const payloadUnion: Schema.Top = Schema.Union(payloadSchemas)
const decodeQuoteRequest = Schema.decodeUnknownExit(payloadUnion as Schema.Codec<unknown, unknown>, PAYLOAD_PARSE_OPTIONS)
const quoteRequestBySchema = (json: unknown): unknown => {
  const decoded = decodeQuoteRequest(json)
  return decoded._tag === "Success" ? decoded.value : undefined
}

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

describe("the lane's quote shortcuts", () => {
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

  it("reads every request of the common shape as the schema decodes it, keys in its order; leaves any other to the schema", () => {
    const common = fc.record({
      source: arbitraryFor(AccountQuoteSource),
      destination: arbitraryFor(AccountDestination),
      request: arbitraryFor(QuoteRequest),
      execute: fc.option(fc.boolean(), { nil: undefined })
    }).map(({ source, destination, request, execute }) => {
      const body: Record<string, unknown> = {
        source,
        destination,
        lockedCurrencySide: request.lockedCurrencySide,
        lockedCurrencyAmount: request.lockedCurrencyAmount
      }
      if (execute !== undefined) body["immediatelyExecute"] = execute
      return body
    })
    let read = 0
    fc.assert(
      fc.property(fc.oneof(common, damaged(common), arbitraryFor(QuoteRequest)), (body) => {
        const json: unknown = JSON.parse(JSON.stringify(body))
        const fast = readQuoteRequest(json)
        if (fast === undefined) return
        read++
        const decoded = quoteRequestBySchema(json)
        expect(decoded).toBeDefined()
        expect(fast).toStrictEqual(decoded)
        expect(JSON.stringify(fast)).toBe(JSON.stringify(decoded))
      }),
      { numRuns: 1500 }
    )
    expect(read).toBeGreaterThan(300)
    fc.assert(
      fc.property(common, (body) => {
        expect(readQuoteRequest(body)).toStrictEqual(quoteRequestBySchema(body))
      }),
      { numRuns: 300 }
    )
  })

  it("leaves to the schema a request with a key it does not read, an amount out of bounds, or an undefined key", () => {
    const body = {
      source: { sourceType: "ACCOUNT", accountId: "InternalAccount:a" },
      destination: { destinationType: "ACCOUNT", accountId: "InternalAccount:b" },
      lockedCurrencySide: "SENDING",
      lockedCurrencyAmount: 100
    }
    expect(readQuoteRequest(body)).toStrictEqual(quoteRequestBySchema(body))
    for (const amount of [0, -1, 1.5, 9_000_000_000_000_001, Number.NaN, "100"]) {
      expect(readQuoteRequest({ ...body, lockedCurrencyAmount: amount })).toBeUndefined()
    }
    expect(readQuoteRequest({ ...body, description: "x" })).toBeUndefined()
    expect(readQuoteRequest({ ...body, unknown: 1 })).toBeUndefined()
    expect(readQuoteRequest({ ...body, immediatelyExecute: undefined })).toBeUndefined()
    expect(readQuoteRequest({ ...body, source: { ...body.source, accountId: "" } })).toBeUndefined()
    expect(readQuoteRequest({ ...body, source: { ...body.source, accountId: "x".repeat(256) } })).toBeUndefined()
  })
})
