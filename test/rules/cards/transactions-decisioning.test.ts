import { describe, expect, it } from "vitest"
import { cardSimulationOutcome, cardSimulationRow, type CardSimulationOutcome } from "../../../src/rules/cards/simulations.js"
import {
  authorizationCurrencyError,
  decide,
  type DecisionInput,
  type FundingCandidate,
  fundingIneligibility
} from "../../../src/rules/cards/transactions-decisioning.js"

const source = (n: number, over: Partial<FundingCandidate> = {}, account: Partial<NonNullable<FundingCandidate["account"]>> = {}): FundingCandidate => ({
  accountId: `InternalAccount:${n}`,
  bindingId: `CardFundingSource:${n}`,
  account: { status: "ACTIVE", currency: "USD", type: "INTERNAL_FIAT", ...account },
  available: 10_000,
  delegatedKeyActive: false,
  ...over
})
const APPROVED: CardSimulationOutcome = { type: "APPROVED" }
const input = (over: Partial<DecisionInput> = {}): DecisionInput => ({
  kind: "AUTHORIZATION",
  amount: 1000,
  card: { status: "ACTIVE", currency: "USD", maxSpendPerTransaction: null },
  sources: [source(1)],
  simulation: APPROVED,
  sandbox: true,
  ...over
})

describe("sandbox descriptor suffixes (reference simulate/authorization table)", () => {
  it.each([
    ["AMAZON RETAIL US-002", { type: "DECLINED", reason: "INSUFFICIENT_FUNDS" }],
    ["PAUSED CARD 003", { type: "DECLINED", reason: "CARD_NOT_ACTIVE" }],
    ["SLOW BANK 005", { type: "DELAYED_PULL" }],
    ["BROKEN CONFIRM 006", { type: "CONFIRMATION_FAILED" }],
    ["BLUE BOTTLE COFFEE SF", { type: "APPROVED" }],
    ["ENDS IN 004", { type: "APPROVED" }],
    ["02", { type: "APPROVED" }]
  ])("%s -> %j", (descriptor, outcome) => {
    expect(cardSimulationOutcome(descriptor, true)).toEqual(outcome)
  })
  it("production platforms see no magic value", () => {
    for (const d of ["X 002", "X 003", "X 005", "X 006"]) expect(cardSimulationOutcome(d, false)).toEqual({ type: "APPROVED" })
    expect(cardSimulationRow("X 002", false).suffix).toBe("other")
  })
  it("a suffix that is an Object prototype name is no row", () => {
    expect(cardSimulationOutcome("xx__proto__".slice(-3), true)).toEqual({ type: "APPROVED" })
  })
})

describe("authorization decisioning", () => {
  it("approves on the first source that covers the amount", () => {
    expect(decide(input())).toEqual({ approved: true, accountId: "InternalAccount:1", covered: true, pull: "CONFIRMED" })
  })
  it.each(["FROZEN", "CLOSED"])("a %s card: declined CARD_NOT_ACTIVE", (status) => {
    expect(decide(input({ card: { status, currency: "USD", maxSpendPerTransaction: null } }))).toEqual({
      approved: false,
      reason: "CARD_NOT_ACTIVE",
      accountId: "InternalAccount:1"
    })
  })
  it("a card with no funding source left (closed): declined without an account", () => {
    expect(decide(input({ card: { status: "CLOSED", currency: "USD", maxSpendPerTransaction: null }, sources: [] }))).toEqual({
      approved: false,
      reason: "CARD_NOT_ACTIVE"
    })
  })
  it("suffix 003: declined CARD_NOT_ACTIVE", () => {
    expect(decide(input({ simulation: { type: "DECLINED", reason: "CARD_NOT_ACTIVE" } }))).toMatchObject({ approved: false, reason: "CARD_NOT_ACTIVE" })
  })
  it("above maxSpendPerTransaction: SPEND_LIMIT_EXCEEDED; exactly the limit is allowed", () => {
    const card = { status: "ACTIVE", currency: "USD", maxSpendPerTransaction: 1000 }
    expect(decide(input({ card, amount: 1001 }))).toMatchObject({ approved: false, reason: "SPEND_LIMIT_EXCEEDED" })
    expect(decide(input({ card, amount: 1000 }))).toMatchObject({ approved: true })
  })
  it("the spend limit does not apply to credits", () => {
    const card = { status: "ACTIVE", currency: "USD", maxSpendPerTransaction: 1000 }
    expect(decide(input({ kind: "CREDIT_AUTHORIZATION", card, amount: 5000 }))).toMatchObject({ approved: true })
  })
  it("the frozen card wins over the spend limit and the suffixes", () => {
    const card = { status: "FROZEN", currency: "USD", maxSpendPerTransaction: 1 }
    expect(decide(input({ card, simulation: { type: "DECLINED", reason: "INSUFFICIENT_FUNDS" } }))).toMatchObject({ reason: "CARD_NOT_ACTIVE" })
  })
  it("suffix 002: declined INSUFFICIENT_FUNDS even with money", () => {
    expect(decide(input({ simulation: { type: "DECLINED", reason: "INSUFFICIENT_FUNDS" } }))).toMatchObject({ approved: false, reason: "INSUFFICIENT_FUNDS" })
  })
  it("funding priority: the first source short of money is skipped for the next that covers", () => {
    const d = decide(input({ sources: [source(1, { available: 999 }), source(2, { available: 1000 })] }))
    expect(d).toEqual({ approved: true, accountId: "InternalAccount:2", covered: true, pull: "CONFIRMED" })
  })
  it("funding priority: the first covering source wins even when a later one has more", () => {
    const d = decide(input({ sources: [source(1, { available: 5000 }), source(2, { available: 90_000 })] }))
    expect(d).toMatchObject({ accountId: "InternalAccount:1" })
  })
  it("no eligible source covers: the sandbox declines INSUFFICIENT_FUNDS on the first eligible source", () => {
    const d = decide(input({ sources: [source(1, { available: 1 }), source(2, { available: 2 })] }))
    expect(d).toEqual({ approved: false, reason: "INSUFFICIENT_FUNDS", accountId: "InternalAccount:1" })
  })
  it("no eligible source covers: production approves uncovered on the first eligible source", () => {
    const d = decide(input({ sandbox: false, sources: [source(1, { available: 1 }), source(2, { available: 2 })] }))
    expect(d).toEqual({ approved: true, accountId: "InternalAccount:1", covered: false, pull: "CONFIRMED" })
  })
  it("no source eligible at all: NO_ELIGIBLE_FUNDING_SOURCE (frozen, wrong currency, missing account)", () => {
    const d = decide(input({
      sources: [source(1, {}, { status: "FROZEN" }), source(2, {}, { currency: "EUR" }), source(3, { account: undefined })]
    }))
    expect(d).toEqual({ approved: false, reason: "NO_ELIGIBLE_FUNDING_SOURCE", accountId: "InternalAccount:1" })
  })
  it("NO_ELIGIBLE_FUNDING_SOURCE wins over suffix 002", () => {
    const d = decide(input({ sources: [source(1, {}, { status: "CLOSED" })], simulation: { type: "DECLINED", reason: "INSUFFICIENT_FUNDS" } }))
    expect(d).toMatchObject({ reason: "NO_ELIGIBLE_FUNDING_SOURCE" })
  })
  it("an embedded-wallet source without an ACTIVE delegated key is skipped; with one it pays", () => {
    const wallet = (active: boolean) => source(1, { delegatedKeyActive: active }, { type: "EMBEDDED_WALLET" })
    expect(decide(input({ sources: [wallet(false)] }))).toMatchObject({ approved: false, reason: "NO_ELIGIBLE_FUNDING_SOURCE" })
    expect(decide(input({ sources: [wallet(false), source(2)] }))).toMatchObject({ approved: true, accountId: "InternalAccount:2" })
    expect(decide(input({ sources: [wallet(true), source(2)] }))).toMatchObject({ approved: true, accountId: "InternalAccount:1" })
  })
  it("suffix 005 and 006 shape the pull of a debit", () => {
    expect(decide(input({ simulation: { type: "DELAYED_PULL" } }))).toMatchObject({ pull: "DELAYED" })
    expect(decide(input({ simulation: { type: "CONFIRMATION_FAILED" } }))).toMatchObject({ pull: "CONFIRMATION_FAILED" })
  })
  it("credits and balance inquiries have no pull: 005 and 006 are approvals; 002 and 003 still decline", () => {
    for (const kind of ["CREDIT_AUTHORIZATION", "FINANCIAL_CREDIT_AUTHORIZATION"] as const) {
      expect(decide(input({ kind, simulation: { type: "CONFIRMATION_FAILED" } }))).toMatchObject({ approved: true, pull: "CONFIRMED" })
      expect(decide(input({ kind, simulation: { type: "DECLINED", reason: "INSUFFICIENT_FUNDS" } }))).toMatchObject({ approved: false })
    }
    expect(decide(input({ kind: "BALANCE_INQUIRY", amount: 0, simulation: { type: "DELAYED_PULL" } }))).toMatchObject({ approved: true, pull: "CONFIRMED" })
  })
  it("credits need no balance: the first eligible source receives", () => {
    expect(decide(input({ kind: "CREDIT_AUTHORIZATION", sources: [source(1, { available: 0 })] }))).toMatchObject({ approved: true, accountId: "InternalAccount:1" })
  })
  it("a balance inquiry passes the balance check with any balance", () => {
    expect(decide(input({ kind: "BALANCE_INQUIRY", amount: 0, sources: [source(1, { available: 0 })] }))).toMatchObject({ approved: true })
  })
  it("ineligibility reasons", () => {
    expect(fundingIneligibility(source(1, { account: undefined }), "USD")).toBe("ACCOUNT_NOT_FOUND")
    expect(fundingIneligibility(source(1, {}, { status: "PENDING" }), "USD")).toBe("ACCOUNT_NOT_ACTIVE")
    expect(fundingIneligibility(source(1, {}, { currency: "EUR" }), "USD")).toBe("CURRENCY_MISMATCH")
    expect(fundingIneligibility(source(1, {}, { type: "EMBEDDED_WALLET" }), "USD")).toBe("NO_ACTIVE_DELEGATED_KEY")
    expect(fundingIneligibility(source(1), "USD")).toBeUndefined()
  })
})

describe("the simulated message's currency", () => {
  it("must be the card's", () => {
    expect(authorizationCurrencyError({ code: "USD" }, "USD")).toBeUndefined()
    expect(authorizationCurrencyError({ code: "EUR" }, "USD")?.code).toBe("INVALID_CURRENCY")
  })
  it("must be known", () => {
    expect(authorizationCurrencyError({ code: "ZZZ" }, "USD")?.code).toBe("INVALID_CURRENCY")
  })
  it("decimals, when sent, must be the currency's", () => {
    expect(authorizationCurrencyError({ code: "USD", decimals: 2 }, "USD")).toBeUndefined()
    expect(authorizationCurrencyError({ code: "USD", decimals: 3 }, "USD")?.details).toMatchObject({ field: "currency.decimals" })
  })
})
