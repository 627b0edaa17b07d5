/**
 * `readAheadStatement` (src/adapters/sql/payment-reads.ts) keeps its text per shape: where
 * the reads start (a quote, an internal or an external source account) and whether the
 * daily volume is read (a window from a day's start). The same shape gives the very same
 * text with the call's own parameters; different shapes give different texts. What the
 * statement reads is proven on the databases by the payment-reads contract suite.
 */
import { describe, expect, it } from "vitest"
import { readAheadStatement } from "../../src/adapters/sql/payment-reads.js"
import type { PaymentReadAhead } from "../../src/ports/money.js"

const DAY = 86_400_000
const dayStart = 20_000 * DAY

describe("readAheadStatement: its text kept per shape", () => {
  it("gives the same shape the same text, with each call's parameters", () => {
    const a = readAheadStatement("plat-a", { kind: "quote", quoteId: "Quote:1", volumeSince: dayStart })
    const b = readAheadStatement("plat-b", { kind: "quote", quoteId: "Quote:2", volumeSince: dayStart + DAY })
    expect(a?.text).toBe(b?.text)
    expect(a?.params).toEqual(["plat-a", "Quote:1", dayStart])
    expect(b?.params).toEqual(["plat-b", "Quote:2", dayStart + DAY])
    const c = readAheadStatement("plat-a", { kind: "accounts", sourceAccountId: "InternalAccount:s", destinationAccountId: "ExternalAccount:d", volumeSince: dayStart })
    const d = readAheadStatement("plat-c", { kind: "accounts", sourceAccountId: "InternalAccount:t", volumeSince: dayStart })
    expect(c?.text).toBe(d?.text)
    expect(c?.params).toEqual(["plat-a", "InternalAccount:s", "ExternalAccount:d", dayStart])
    expect(d?.params).toEqual(["plat-c", "InternalAccount:t", null, dayStart])
  })

  it("gives each of the six shapes its own text, reading from its own table", () => {
    const shapes: ReadonlyArray<readonly [PaymentReadAhead, string]> = [
      [{ kind: "quote", quoteId: "Quote:1", volumeSince: dayStart }, "from quotes q"],
      [{ kind: "quote", quoteId: "Quote:1", volumeSince: dayStart + 1 }, "from quotes q"],
      [{ kind: "accounts", sourceAccountId: "InternalAccount:s", volumeSince: dayStart }, "from internal_accounts o"],
      [{ kind: "accounts", sourceAccountId: "InternalAccount:s", volumeSince: dayStart + 1 }, "from internal_accounts o"],
      [{ kind: "accounts", sourceAccountId: "ExternalAccount:s", volumeSince: dayStart }, "from external_accounts o"],
      [{ kind: "accounts", sourceAccountId: "ExternalAccount:s", volumeSince: dayStart + 1 }, "from external_accounts o"]
    ]
    const texts = shapes.map(([wants, from]) => {
      const statement = readAheadStatement("plat", wants)
      expect(statement?.text).toContain(from)
      // The daily volume is read only from a day's start, its window the last parameter.
      const volume = wants.volumeSince % DAY === 0
      expect(statement?.text.includes("from sent_volumes")).toBe(volume)
      if (volume) expect(statement?.text).toContain(`v.day_ms >= $${statement?.params.length}::bigint`)
      return statement?.text
    })
    expect(new Set(texts).size).toBe(shapes.length)
  })

  it("reads nothing for a source that names no account", () => {
    expect(readAheadStatement("plat", { kind: "accounts", sourceAccountId: "Customer:x", volumeSince: dayStart })).toBeUndefined()
  })
})
