/**
 * `readAheadStatement` (src/adapters/sql/payment-reads.ts) keeps its text per shape: where
 * the reads start (a quote, an internal or an external source account), which kinds of
 * account the source and the destination are (an execution's: as the quote the store saw
 * names them, else not known), and whether the daily volume is read (a window from
 * a day's start). The same shape gives the very same text with the call's own parameters;
 * different shapes give different texts, each with the lookups of its kinds only. What
 * the statement reads is proven on the databases by the payment-reads contract suite.
 */
import { beforeEach, describe, expect, it } from "vitest"
import { GuessedReads, Seen } from "../../src/adapters/sql/guessed-reads.js"
import { readAheadStatement as readAheadOf } from "../../src/adapters/sql/payment-reads.js"
import type { PaymentReadAhead } from "../../src/ports/money.js"

const DAY = 86_400_000
/** The store's sight of the rows, as one store keeps it (a new one per test). */
let seen = new Seen()
const readAheadStatement = (platformId: string, wants: PaymentReadAhead) => readAheadOf(seen, platformId, wants)
/** The store saw the quote as written (./money.ts `putQuote` once committed): its customer, currency and accounts. */
const rememberQuoteAccounts = (platformId: string, quoteId: string, sourceId: string | null, destinationId: string | null) =>
  seen.rememberRow("quotes", platformId, quoteId, { text: "{}", customerId: "Customer:c", currency: "USD", sourceId, destinationId })
const dayStart = 20_000 * DAY

/** How many times `text` looks up a row of each table the arms read. */
const lookups = (text: string | undefined) => ({
  internal: text?.split("from internal_accounts a ").length ?? 0,
  external: text?.split("from external_accounts a ").length ?? 0,
  balances: text?.split("from ledger_balances b ").length ?? 0
})

describe("readAheadStatement: its text kept per shape", () => {
  beforeEach(() => {
    seen = new Seen()
  })

  it("gives the same shape the same text, with each call's parameters", () => {
    const a = readAheadStatement("plat-a", { kind: "quote", quoteId: "Quote:1", volumeSince: dayStart })
    const b = readAheadStatement("plat-b", { kind: "quote", quoteId: "Quote:2", volumeSince: dayStart + DAY })
    expect(a?.text).toBe(b?.text)
    expect(a?.params).toEqual(["plat-a", "Quote:1", dayStart])
    expect(b?.params).toEqual(["plat-b", "Quote:2", dayStart + DAY])
    const c = readAheadStatement("plat-a", { kind: "accounts", sourceAccountId: "InternalAccount:s", destinationAccountId: "ExternalAccount:d", volumeSince: dayStart })
    const d = readAheadStatement("plat-c", { kind: "accounts", sourceAccountId: "InternalAccount:t", destinationAccountId: "ExternalAccount:e", volumeSince: dayStart })
    expect(c?.text).toBe(d?.text)
    expect(c?.params).toEqual(["plat-a", "InternalAccount:s", "ExternalAccount:d", dayStart])
    expect(d?.params).toEqual(["plat-c", "InternalAccount:t", "ExternalAccount:e", dayStart])
  })

  it("gives each shape its own text, reading from its own table, with the lookups of its kinds only", () => {
    // [wants, where the reads start, lookups of (+1 per) internal accounts, external accounts, balances]
    const shapes: ReadonlyArray<readonly [PaymentReadAhead, string, number, number, number]> = [
      [{ kind: "quote", quoteId: "Quote:unknown", volumeSince: dayStart }, "from quotes q", 2, 2, 2],
      [{ kind: "quote", quoteId: "Quote:unknown", volumeSince: dayStart + 1 }, "from quotes q", 2, 2, 2],
      // A new quote's source is the row the reads start from: not looked up again.
      [{ kind: "accounts", sourceAccountId: "InternalAccount:s", volumeSince: dayStart }, "from internal_accounts o", 0, 0, 1],
      [{ kind: "accounts", sourceAccountId: "InternalAccount:s", volumeSince: dayStart + 1 }, "from internal_accounts o", 0, 0, 1],
      [{ kind: "accounts", sourceAccountId: "InternalAccount:s", destinationAccountId: "InternalAccount:d", volumeSince: dayStart }, "from internal_accounts o", 1, 0, 1],
      [{ kind: "accounts", sourceAccountId: "InternalAccount:s", destinationAccountId: "ExternalAccount:d", volumeSince: dayStart }, "from internal_accounts o", 0, 1, 1],
      [{ kind: "accounts", sourceAccountId: "ExternalAccount:s", volumeSince: dayStart }, "from external_accounts o", 0, 0, 0],
      [{ kind: "accounts", sourceAccountId: "ExternalAccount:s", volumeSince: dayStart + 1 }, "from external_accounts o", 0, 0, 0],
      [{ kind: "accounts", sourceAccountId: "ExternalAccount:s", destinationAccountId: "InternalAccount:d", volumeSince: dayStart }, "from external_accounts o", 1, 0, 0]
    ]
    const texts = shapes.map(([wants, from, internal, external, balances]) => {
      const statement = readAheadStatement("plat", wants)
      expect(statement?.text).toContain(from)
      expect(lookups(statement?.text), JSON.stringify(wants)).toEqual({ internal: internal + 1, external: external + 1, balances: balances + 1 })
      // The daily volume is read only from a day's start, its window the last parameter.
      const volume = wants.volumeSince % DAY === 0
      expect(statement?.text.includes("from sent_volumes")).toBe(volume)
      if (volume) expect(statement?.text).toContain(`v.day_ms >= $${statement?.params.length}::bigint`)
      return statement?.text
    })
    expect(new Set(texts).size).toBe(shapes.length)
  })

  it("reads an execution's accounts of the kinds its quote names, when the store saw the quote; of both kinds otherwise", () => {
    rememberQuoteAccounts("plat", "Quote:to-internal", "InternalAccount:s", "InternalAccount:d")
    rememberQuoteAccounts("plat", "Quote:to-external", "InternalAccount:s", "ExternalAccount:d")
    rememberQuoteAccounts("plat", "Quote:realtime", null, "ExternalAccount:d")
    const textOf = (quoteId: string) => readAheadStatement("plat", { kind: "quote", quoteId, volumeSince: dayStart })?.text
    // Source and destination each an internal account: both looked up, both balances read.
    expect(lookups(textOf("Quote:to-internal"))).toEqual({ internal: 3, external: 1, balances: 3 })
    expect(lookups(textOf("Quote:to-external"))).toEqual({ internal: 2, external: 2, balances: 2 })
    expect(lookups(textOf("Quote:realtime"))).toEqual({ internal: 1, external: 2, balances: 1 })
    // Another platform's quote of that id, or a quote the store did not see: every arm.
    expect(lookups(textOf("Quote:elsewhere"))).toEqual({ internal: 3, external: 3, balances: 3 })
    expect(readAheadStatement("other", { kind: "quote", quoteId: "Quote:to-internal", volumeSince: dayStart })?.text).toBe(textOf("Quote:elsewhere"))
    // The quote rewritten names its accounts anew.
    rememberQuoteAccounts("plat", "Quote:to-internal", "InternalAccount:s", "ExternalAccount:d")
    expect(textOf("Quote:to-internal")).toBe(textOf("Quote:to-external"))
    // A quote whose guess the database refused is forgotten: every arm again.
    const refused = new GuessedReads()
    refused.items.push({ kind: "row", table: "quotes", platformId: "plat", id: "Quote:to-internal", text: "{}" })
    seen.refused(refused)
    expect(textOf("Quote:to-internal")).toBe(textOf("Quote:elsewhere"))
  })

  it("forgets the oldest quotes' kinds beyond a bound", () => {
    rememberQuoteAccounts("plat", "Quote:first", "InternalAccount:s", "InternalAccount:d")
    const first = readAheadStatement("plat", { kind: "quote", quoteId: "Quote:first", volumeSince: dayStart })?.text
    for (let i = 0; i < 5_000; i++) rememberQuoteAccounts("plat", `Quote:n${i}`, "InternalAccount:s", "InternalAccount:d")
    expect(readAheadStatement("plat", { kind: "quote", quoteId: `Quote:n4999`, volumeSince: dayStart })?.text).toBe(first)
    expect(readAheadStatement("plat", { kind: "quote", quoteId: "Quote:first", volumeSince: dayStart })?.text)
      .toBe(readAheadStatement("plat", { kind: "quote", quoteId: "Quote:never", volumeSince: dayStart })?.text)
  })

  it("reads nothing for a source that names no account", () => {
    expect(readAheadStatement("plat", { kind: "accounts", sourceAccountId: "Customer:x", volumeSince: dayStart })).toBeUndefined()
  })
})
