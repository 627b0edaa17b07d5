/**
 * The memory store's compaction of stored records (src/adapters/memory/compact.ts): a
 * record reads back equal to what was written (keys, order, values), and what it shares
 * (currencies, references, instants) is shared.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { trimArrays } from "../../src/adapters/memory/compact.js"

const currency = fc.constantFrom(
  { code: "USD", name: "US Dollar", symbol: "$", decimals: 2 },
  { code: "EUR", name: "Euro", symbol: "€", decimals: 2 },
  { code: "USD", name: "US Dollar", symbol: "$", decimals: "2" }
)
const instant = fc.integer({ min: 0, max: 4_102_444_800_000 }).map((ms) => new Date(ms).toISOString())
const text = fc.oneof(fc.string({ maxLength: 12 }), instant, fc.constantFrom("system:fees:USD", "InternalAccount:abc", "Quote:x"))
const leaf = fc.oneof(text, fc.integer(), fc.boolean(), fc.constant(null), currency.map((c) => ({ ...c })))
const record = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small" }, leaf, tie("object"), fc.array(tie("value"), { maxLength: 4 })),
  object: fc.dictionary(fc.constantFrom("a", "b", "code", "name", "symbol", "decimals", "accountId", "currency", "at"), tie("value"), {
    maxKeys: 5
  })
})).object

describe("trimArrays", () => {
  it("leaves a record equal to what was written, keys in the same order", () => {
    fc.assert(
      fc.property(record, (r) => {
        const copy = structuredClone(r)
        const trimmed = trimArrays(copy)
        expect(trimmed).toEqual(r)
        expect(JSON.stringify(trimmed)).toBe(JSON.stringify(r))
      }),
      { numRuns: 500 }
    )
  })

  it("leaves a rewrite equal to what was written, given the record it replaces", () => {
    fc.assert(
      fc.property(record, record, (a, b) => {
        const previous = trimArrays(structuredClone(a))
        const next = { ...previous, ...structuredClone(b) }
        const expected = JSON.stringify(next)
        expect(JSON.stringify(trimArrays(next, undefined, previous))).toBe(expected)
      }),
      { numRuns: 300 }
    )
  })

  it("shares equal currencies and references between records, and canonical strings", () => {
    const make = () => ({
      amount: { value: 1, currency: { code: "USD", name: "US Dollar", symbol: "$", decimals: 2 } },
      source: { sourceType: "ACCOUNT", accountId: "InternalAccount:1" },
      at: new Date(1_700_000_000_000).toISOString()
    })
    const stored = "InternalAccount:1"
    const canon = (s: string) => (s === stored ? stored : undefined)
    const a = trimArrays(make(), canon)
    const b = trimArrays(make(), canon)
    expect(b.amount.currency).toBe(a.amount.currency)
    expect(b.source).toBe(a.source)
    expect(b).toStrictEqual(make())
  })
})
