/** Funding-source eligibility (400 FUNDING_SOURCE_INELIGIBLE) and binding ids kept across updates. */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { checkFundingSources, type FundingAccount, ineligibilityOf, rebind, unbound } from "../../../src/rules/cards/funding-sources.js"
import { numRuns } from "../../support/runs.js"

const holder = "Customer:h"
const account = (id: string, extra: Partial<FundingAccount> = {}): FundingAccount => ({
  id,
  customerId: holder,
  status: "ACTIVE",
  currency: "USD",
  ...extra
})
const context = { cardholderId: holder, eligibleCurrencies: ["USD", "USDC"], cardCurrency: "USD" }

describe("one source", () => {
  it("an ACTIVE account of the cardholder in the card's eligible currency is eligible", () => {
    expect(ineligibilityOf(account("a"), context)).toBeUndefined()
  })
  it("not found", () => expect(ineligibilityOf(undefined, context)).toBe("NOT_FOUND"))
  it("another customer's, or the platform's own", () => {
    expect(ineligibilityOf(account("a", { customerId: "Customer:x" }), context)).toBe("NOT_CARDHOLDERS")
    expect(ineligibilityOf(account("a", { customerId: null }), context)).toBe("NOT_CARDHOLDERS")
  })
  it("not ACTIVE", () => {
    for (const status of ["PENDING", "FROZEN", "CLOSED", "FAILED"]) expect(ineligibilityOf(account("a", { status }), context)).toBe("NOT_ACTIVE")
  })
  it("a currency the platform does not issue cards in", () => {
    expect(ineligibilityOf(account("a", { currency: "EUR" }), { ...context, cardCurrency: "EUR" })).toBe("CURRENCY_NOT_ELIGIBLE")
  })
  it("an eligible currency other than the card's", () => {
    expect(ineligibilityOf(account("a", { currency: "USDC" }), context)).toBe("CURRENCY_MISMATCH")
  })
})

describe("a list of sources", () => {
  const accounts = new Map<string, FundingAccount | undefined>([
    ["usd", account("usd")],
    ["usdc", account("usdc", { currency: "USDC" })],
    ["theirs", account("theirs", { customerId: "Customer:x" })],
    ["eur", account("eur", { currency: "EUR" })]
  ])
  const check = (ids: ReadonlyArray<string>, cardCurrency?: string) =>
    checkFundingSources({ ids, accounts, cardholderId: holder, eligibleCurrencies: ["USD", "USDC"], cardCurrency })

  it("on issue the first source's currency is the card's", () => {
    expect(check(["usdc"])).toEqual({ ok: true, value: { currency: "USDC" } })
    expect(check(["usd"])).toEqual({ ok: true, value: { currency: "USD" } })
  })
  it("every ineligible source is listed, the reason names the first", () => {
    const r = check(["usd", "theirs", "usdc", "missing"])
    expect(r.ok).toBe(false)
    if (r.ok) return
    expect(r.error.code).toBe("FUNDING_SOURCE_INELIGIBLE")
    expect(r.error.reason).toContain("theirs")
    expect(r.error.details?.["ineligible"]).toEqual([
      expect.objectContaining({ field: "fundingSources[1]", reason: "NOT_CARDHOLDERS" }),
      expect.objectContaining({ field: "fundingSources[2]", reason: "CURRENCY_MISMATCH" }),
      expect.objectContaining({ field: "fundingSources[3]", reason: "NOT_FOUND" })
    ])
  })
  it("on update the card's currency decides", () => {
    const r = check(["usdc"], "USD")
    expect(r.ok ? "ok" : r.error.code).toBe("FUNDING_SOURCE_INELIGIBLE")
  })
  it("an account named twice is 400 INVALID_INPUT", () => {
    const r = check(["usd", "usd"])
    expect(r.ok ? "ok" : [r.error.code, r.error.details?.["errors"]]).toEqual(["INVALID_INPUT", [expect.objectContaining({ field: "fundingSources[1]", constraint: "uniqueItems" })]])
  })
  it("a list of a currency not eligible at all", () => {
    const r = check(["eur"])
    expect(r.ok ? "ok" : r.error.code).toBe("FUNDING_SOURCE_INELIGIBLE")
  })
})

describe("bindings", () => {
  const b = (id: string, internalAccountId: string) => ({ id, internalAccountId })
  it("a kept account keeps its binding id, in the new order; a new one takes a new id; a dropped one is gone", () => {
    const previous = [b("CardFundingSource:1", "a"), b("CardFundingSource:2", "b")]
    expect(unbound(previous, ["c", "b"])).toEqual(["c"])
    expect(rebind(previous, ["c", "b"], ["CardFundingSource:3"])).toEqual([b("CardFundingSource:3", "c"), b("CardFundingSource:2", "b")])
    expect(rebind(previous, ["b", "a"], [])).toEqual([b("CardFundingSource:2", "b"), b("CardFundingSource:1", "a")])
  })

  it("property: the result follows the list; kept accounts keep their ids; ids are unique", () => {
    const accountsArb = fc.uniqueArray(fc.constantFrom("a", "b", "c", "d", "e", "f"), { maxLength: 6 })
    fc.assert(
      fc.property(accountsArb, accountsArb, (before, after) => {
        const previous = before.map((a, i) => b(`old:${i}`, a))
        const fresh = unbound(previous, after).map((_, i) => `new:${i}`)
        const next = rebind(previous, after, fresh)
        expect(next.map((x) => x.internalAccountId)).toEqual(after)
        for (const x of next) {
          const old = previous.find((p) => p.internalAccountId === x.internalAccountId)
          expect(x.id).toBe(old?.id ?? x.id)
          if (old === undefined) expect(x.id.startsWith("new:")).toBe(true)
        }
        expect(new Set(next.map((x) => x.id)).size).toBe(next.length)
      }),
      { numRuns: numRuns(200) }
    )
  })
})
