/**
 * Card transactions over HTTP (docs/card-transactions.md): the ten sandbox simulate
 * endpoints, every descriptor suffix, decisioning (frozen card, spend limit, no money),
 * balances before and after, the CARD_TRANSACTION.* events, expiry and the delayed pull on
 * the sandbox clock, returns and their reversal, GET /transactions with card rows, and the
 * refusals (production platform, unknown card or row, wrong parent status, bad input).
 */
import { afterAll, describe, expect, it } from "vitest"
import { isErrorShape, makeApi } from "../support/api.js"
import { cardClient } from "../support/cards.js"
import { moneyPlatform } from "../support/money.js"

const main = moneyPlatform("card-tx-main", { currencies: ["USD", "EUR"] })
const production = moneyPlatform("card-tx-production", { sandbox: false })
const cardsOff = moneyPlatform("card-tx-off", { cards: { enabled: false } })
const api = makeApi([main, production, cardsOff])
const c = cardClient(api, main)
const prod = cardClient(api, production)
const off = cardClient(api, cardsOff)
afterAll(() => api.dispose())

interface Row {
  readonly id: string
  readonly type: string
  readonly status: string
  readonly direction: string
  readonly cardId: string
  readonly accountId?: string
  readonly issuerTransactionToken: string
  readonly authorizedAmount: { amount: number; currency: { code: string; decimals: number } }
  readonly settledAmount?: { amount: number }
  readonly refundedAmount?: { amount: number }
  readonly originalTransactionId?: string
  readonly cardDeclinedReason?: string
  readonly pullSummary: { count: number; totalAmount: number; pendingCount?: number }
  readonly refundSummary: { count: number; totalAmount: number }
  readonly settlementSummary: { count: number; totalAmount: number }
  readonly [key: string]: unknown
}

const expectError = (r: { status: number; body: unknown }, status: number, code: string) => {
  expect(r.status, JSON.stringify(r.body)).toBe(status)
  expect(isErrorShape(r.body), JSON.stringify(r.body)).toBe(true)
  expect((r.body as { code: string }).code).toBe(code)
}

const merchant = (descriptor = "BLUE BOTTLE COFFEE SF") => ({ descriptor, mcc: "5814", country: "US" })
const auth = (amount: number, descriptor?: string) => ({ amount, currency: { code: "USD" }, merchant: merchant(descriptor) })

/** A cardholder with a USD card funded with `funds`. */
const setup = async (funds = 10_000, extra: Record<string, unknown> = {}) => {
  const h = await c.holder()
  const account = h.accounts["USD"]!
  if (funds > 0) await c.fund(account, funds)
  const card = await c.issueFor(h, extra)
  return { holder: h, account, card, balance: () => c.balance(account, h.id) }
}

const simulate = (cardId: string, what: string, body: unknown, client = c) =>
  client.call("POST", `/sandbox/cards/${encodeURIComponent(cardId)}/simulate/${what}`, body)

const simulated = async (cardId: string, what: string, body: unknown): Promise<string> => {
  const r = await simulate(cardId, what, body)
  expect(r.status, JSON.stringify(r.body)).toBe(202)
  const token = (r.body as { issuerTransactionToken: string }).issuerTransactionToken
  expect(token).toMatch(/^[0-9a-f-]{36}$/)
  return token
}

/** The card's rows, newest first. */
const rowsOf = async (cardId: string): Promise<Array<Row>> =>
  ((await c.ok("GET", `/transactions?cardId=${encodeURIComponent(cardId)}`)).data as Array<Row>)

const rowByToken = async (cardId: string, token: string): Promise<Row> => {
  const row = (await rowsOf(cardId)).find((r) => r.issuerTransactionToken === token)
  if (row === undefined) throw new Error(`no row with token ${token}`)
  return row
}

const authorize = async (cardId: string, amount: number, descriptor?: string) => rowByToken(cardId, await simulated(cardId, "authorization", auth(amount, descriptor)))
const row = async (id: string) => (await c.transaction(id)) as Row

/** The CARD_TRANSACTION.* events of one row, oldest first. */
const eventsOf = async (id: string) =>
  (await c.events()).filter((e) => e.type.startsWith("CARD_TRANSACTION.") && (e.data as Row).id === id).map((e) => ({ type: e.type, status: (e.data as Row).status }))

describe("simulate/authorization", () => {
  it("approves: AUTHORIZED, the amount held (the balance drops), CARD_TRANSACTION.AUTHORIZED with the full row", async () => {
    const s = await setup(10_000)
    const tx = await authorize(s.card.id, 1250)
    expect(tx).toMatchObject({
      type: "CARD",
      status: "AUTHORIZED",
      direction: "DEBIT",
      cardId: s.card.id,
      customerId: s.holder.id,
      accountId: s.account,
      merchant: merchant(),
      authorizedAmount: { amount: 1250, currency: { code: "USD", decimals: 2 } },
      pullSummary: { count: 1, totalAmount: 1250, pendingCount: 0 },
      settlementSummary: { count: 0, totalAmount: 0 },
      refundSummary: { count: 0, totalAmount: 0 }
    })
    expect(tx.id).toMatch(/^CardTransaction:/)
    expect(tx.settledAmount).toBeUndefined()
    expect(await s.balance()).toBe(8750)
    expect(await eventsOf(tx.id)).toEqual([{ type: "CARD_TRANSACTION.AUTHORIZED", status: "AUTHORIZED" }])
    expect(await row(tx.id)).toEqual(tx)
  })
  it("a frozen card declines CARD_NOT_ACTIVE, and nothing moves", async () => {
    const s = await setup(10_000)
    expect((await c.patch(s.card.id, { status: "FROZEN" })).status).toBe(200)
    const tx = await authorize(s.card.id, 100)
    expect(tx).toMatchObject({ status: "DECLINED", cardDeclinedReason: "CARD_NOT_ACTIVE", accountId: s.account })
    expect(await s.balance()).toBe(10_000)
    expect(await eventsOf(tx.id)).toEqual([{ type: "CARD_TRANSACTION.DECLINED", status: "DECLINED" }])
  })
  it("a closed card declines CARD_NOT_ACTIVE; with no funding source left the row has no accountId", async () => {
    const s = await setup(10_000)
    expect((await c.patch(s.card.id, { status: "CLOSED" })).status).toBe(200)
    const tx = await authorize(s.card.id, 100)
    expect(tx).toMatchObject({ status: "DECLINED", cardDeclinedReason: "CARD_NOT_ACTIVE" })
    expect(tx.accountId).toBeUndefined()
    expect(await s.balance()).toBe(10_000)
  })
  it("above maxSpendPerTransaction declines SPEND_LIMIT_EXCEEDED; exactly the limit is approved", async () => {
    const s = await setup(10_000, { maxSpendPerTransaction: 500 })
    expect(await authorize(s.card.id, 501)).toMatchObject({ status: "DECLINED", cardDeclinedReason: "SPEND_LIMIT_EXCEEDED" })
    expect(await authorize(s.card.id, 500)).toMatchObject({ status: "AUTHORIZED" })
    expect(await s.balance()).toBe(9500)
  })
  it("more than the balance declines INSUFFICIENT_FUNDS (sandbox)", async () => {
    const s = await setup(999)
    expect(await authorize(s.card.id, 1000)).toMatchObject({ status: "DECLINED", cardDeclinedReason: "INSUFFICIENT_FUNDS" })
    expect(await authorize(s.card.id, 999)).toMatchObject({ status: "AUTHORIZED" })
    expect(await s.balance()).toBe(0)
  })
  it("suffix 002 declines INSUFFICIENT_FUNDS with money on the account", async () => {
    const s = await setup(10_000)
    expect(await authorize(s.card.id, 100, "AMAZON RETAIL US-002")).toMatchObject({ status: "DECLINED", cardDeclinedReason: "INSUFFICIENT_FUNDS" })
    expect(await s.balance()).toBe(10_000)
  })
  it("suffix 003 declines CARD_NOT_ACTIVE on an active card", async () => {
    const s = await setup(10_000)
    expect(await authorize(s.card.id, 100, "PAUSED 003")).toMatchObject({ status: "DECLINED", cardDeclinedReason: "CARD_NOT_ACTIVE" })
  })
  it("suffix 005: the pull stays PENDING about 30 s of the sandbox clock, then CONFIRMED", async () => {
    const s = await setup(10_000)
    const tx = await authorize(s.card.id, 300, "SLOW 005")
    expect(tx).toMatchObject({ status: "AUTHORIZED", pullSummary: { count: 1, totalAmount: 300, pendingCount: 1 } })
    expect(await s.balance()).toBe(9700)
    await c.advance(29)
    expect((await row(tx.id)).pullSummary.pendingCount).toBe(1)
    await c.advance(1)
    expect(await row(tx.id)).toMatchObject({ status: "AUTHORIZED", pullSummary: { pendingCount: 0 } })
    expect(await eventsOf(tx.id)).toEqual([
      { type: "CARD_TRANSACTION.AUTHORIZED", status: "AUTHORIZED" },
      { type: "CARD_TRANSACTION.AUTHORIZED", status: "AUTHORIZED" }
    ])
  })
  it("suffix 006: pulled, the confirmation FAILED: EXCEPTION, the money off the account", async () => {
    const s = await setup(10_000)
    const tx = await authorize(s.card.id, 700, "BROKEN 006")
    expect(tx).toMatchObject({ status: "EXCEPTION", pullSummary: { count: 1, totalAmount: 700 } })
    expect(await s.balance()).toBe(9300)
    expect((await eventsOf(tx.id)).map((e) => e.type)).toEqual(["CARD_TRANSACTION.AUTHORIZED", "CARD_TRANSACTION.EXCEPTION"])
  })
  it("a currency other than the card's is 400 INVALID_CURRENCY", async () => {
    const s = await setup(10_000)
    expectError(await simulate(s.card.id, "authorization", { ...auth(100), currency: { code: "EUR" } }), 400, "INVALID_CURRENCY")
    expectError(await simulate(s.card.id, "authorization", { ...auth(100), currency: { code: "USD", decimals: 3 } }), 400, "INVALID_CURRENCY")
  })
  it("bad bodies are 400 INVALID_INPUT naming the fields", async () => {
    const s = await setup(0)
    const r = await simulate(s.card.id, "authorization", { amount: 0, currency: {}, merchant: { descriptor: "" } })
    expectError(r, 400, "INVALID_INPUT")
    const fields = ((r.body as { details: { errors: Array<{ field: string }> } }).details.errors).map((e) => e.field).sort()
    expect(fields).toEqual(["amount", "currency.code", "merchant.descriptor"])
  })
  it("a credit that would take a balance past the exact integer range is 400 INVALID_AMOUNT, and nothing is written", async () => {
    const s = await setup(0)
    await simulated(s.card.id, "financial_credit_authorization", auth(9_000_000_000_000_000))
    const before = (await rowsOf(s.card.id)).length
    expectError(await simulate(s.card.id, "financial_credit_authorization", auth(9_000_000_000_000_000)), 400, "INVALID_AMOUNT")
    expect((await rowsOf(s.card.id)).length).toBe(before)
    expect(await s.balance()).toBe(9_000_000_000_000_000)
  })
  it("an unknown card is 404", async () => {
    expectError(await simulate("Card:00000000-0000-4000-8000-000000000000", "authorization", auth(1)), 404, "NOT_FOUND")
  })
})

describe("simulate/clearing and authorization_advice", () => {
  it("a full clearing settles; the balance keeps the hold's drop; CARD_TRANSACTION.SETTLED", async () => {
    const s = await setup(10_000)
    const tx = await authorize(s.card.id, 1000)
    await simulated(s.card.id, "clearing", { cardTransactionId: tx.id, amount: 1000 })
    expect(await row(tx.id)).toMatchObject({ status: "SETTLED", settledAmount: { amount: 1000 }, settlementSummary: { count: 1, totalAmount: 1000 } })
    expect(await s.balance()).toBe(9000)
    expect((await eventsOf(tx.id)).map((e) => e.type)).toEqual(["CARD_TRANSACTION.AUTHORIZED", "CARD_TRANSACTION.SETTLED"])
  })
  it("a partial clearing: PARTIALLY_SETTLED; then 0 closes it SETTLED and releases the rest", async () => {
    const s = await setup(10_000)
    const tx = await authorize(s.card.id, 1000)
    await simulated(s.card.id, "clearing", { cardTransactionId: tx.id, amount: 400 })
    expect(await row(tx.id)).toMatchObject({ status: "PARTIALLY_SETTLED", settledAmount: { amount: 400 } })
    expect(await s.balance()).toBe(9000)
    await simulated(s.card.id, "clearing", { cardTransactionId: tx.id, amount: 0 })
    expect(await row(tx.id)).toMatchObject({ status: "SETTLED", settledAmount: { amount: 400 } })
    expect(await s.balance()).toBe(9600)
  })
  it("over the authorization: the tip is pulled post-hoc", async () => {
    const s = await setup(10_000)
    const tx = await authorize(s.card.id, 1000)
    await simulated(s.card.id, "clearing", { cardTransactionId: tx.id, amount: 1200 })
    expect(await row(tx.id)).toMatchObject({ status: "SETTLED", settledAmount: { amount: 1200 }, pullSummary: { count: 2, totalAmount: 1200 } })
    expect(await s.balance()).toBe(8800)
  })
  it("over the authorization beyond the balance: EXCEPTION, the account never below zero", async () => {
    const s = await setup(1000)
    const tx = await authorize(s.card.id, 1000)
    await simulated(s.card.id, "clearing", { cardTransactionId: tx.id, amount: 1500 })
    expect(await row(tx.id)).toMatchObject({ status: "EXCEPTION", settledAmount: { amount: 1500 } })
    expect(await s.balance()).toBe(0)
  })
  it("amount 0 is an authorization expiry: VOIDED, the hold released", async () => {
    const s = await setup(10_000)
    const tx = await authorize(s.card.id, 1000)
    await simulated(s.card.id, "clearing", { cardTransactionId: tx.id, amount: 0 })
    expect(await row(tx.id)).toMatchObject({ status: "VOIDED" })
    expect(await s.balance()).toBe(10_000)
    expect((await eventsOf(tx.id)).map((e) => e.type)).toEqual(["CARD_TRANSACTION.AUTHORIZED", "CARD_TRANSACTION.VOIDED"])
  })
  it("a clearing on a closed row is 400 INVALID_INPUT; a row of another card is 404 TRANSACTION_NOT_FOUND", async () => {
    const s = await setup(10_000)
    const other = await setup(0)
    const tx = await authorize(s.card.id, 100)
    await simulated(s.card.id, "clearing", { cardTransactionId: tx.id, amount: 100 })
    expectError(await simulate(s.card.id, "clearing", { cardTransactionId: tx.id, amount: 1 }), 400, "INVALID_INPUT")
    expectError(await simulate(other.card.id, "clearing", { cardTransactionId: tx.id, amount: 1 }), 404, "TRANSACTION_NOT_FOUND")
    expectError(await simulate(s.card.id, "clearing", { cardTransactionId: "CardTransaction:nope", amount: 1 }), 404, "TRANSACTION_NOT_FOUND")
  })
  it("an advice re-sizes the hold up and down; below what settled is 400 INVALID_AMOUNT", async () => {
    const s = await setup(10_000)
    const tx = await authorize(s.card.id, 1000)
    await simulated(s.card.id, "authorization_advice", { cardTransactionId: tx.id, amount: 2000 })
    expect(await row(tx.id)).toMatchObject({ status: "AUTHORIZED", authorizedAmount: { amount: 2000 } })
    expect(await s.balance()).toBe(8000)
    await simulated(s.card.id, "authorization_advice", { cardTransactionId: tx.id, amount: 500 })
    expect(await s.balance()).toBe(9500)
    await simulated(s.card.id, "clearing", { cardTransactionId: tx.id, amount: 200 })
    expectError(await simulate(s.card.id, "authorization_advice", { cardTransactionId: tx.id, amount: 199 }), 400, "INVALID_AMOUNT")
  })
  it("the authorization expires after 7 days of the sandbox clock: VOIDED, the hold released", async () => {
    const s = await setup(10_000)
    const tx = await authorize(s.card.id, 1000)
    await c.advance(7 * 86_400 - 60)
    expect((await row(tx.id)).status).toBe("AUTHORIZED")
    await c.advance(60)
    expect(await row(tx.id)).toMatchObject({ status: "VOIDED" })
    expect(await s.balance()).toBe(10_000)
  })
})

describe("simulate/return and return_reversal", () => {
  const settledPurchase = async (amount = 1000) => {
    const s = await setup(10_000)
    const tx = await authorize(s.card.id, amount)
    await simulated(s.card.id, "clearing", { cardTransactionId: tx.id, amount })
    return { s, tx }
  }
  it("a return keeps the purchase SETTLED with refundedAmount and opens a CREDIT row; the money comes back", async () => {
    const { s, tx } = await settledPurchase()
    const token = await simulated(s.card.id, "return", { cardTransactionId: tx.id, amount: 400 })
    const refund = await rowByToken(s.card.id, token)
    expect(refund).toMatchObject({
      status: "SETTLED",
      direction: "CREDIT",
      originalTransactionId: tx.id,
      accountId: s.account,
      settledAmount: { amount: 400 },
      authorizedAmount: { amount: 400 }
    })
    expect(await row(tx.id)).toMatchObject({ status: "SETTLED", refundedAmount: { amount: 400 }, refundSummary: { count: 1, totalAmount: 400 } })
    expect(await s.balance()).toBe(9400)
    expect((await eventsOf(tx.id)).map((e) => e.type)).toEqual(["CARD_TRANSACTION.AUTHORIZED", "CARD_TRANSACTION.SETTLED", "CARD_TRANSACTION.SETTLED"])
    expect((await eventsOf(refund.id)).map((e) => e.type)).toEqual(["CARD_TRANSACTION.SETTLED"])
    expect((await c.events()).some((e) => e.type === ("CARD_TRANSACTION.REFUNDED" as string))).toBe(false)
  })
  it("returns add up to the net settled amount at most (400 INVALID_AMOUNT)", async () => {
    const { s, tx } = await settledPurchase()
    await simulated(s.card.id, "return", { cardTransactionId: tx.id, amount: 1000 })
    expect((await row(tx.id)).status).toBe("SETTLED")
    expectError(await simulate(s.card.id, "return", { cardTransactionId: tx.id, amount: 1 }), 400, "INVALID_AMOUNT")
  })
  it("a return on an authorization that has not settled is 400 INVALID_INPUT", async () => {
    const s = await setup(10_000)
    const tx = await authorize(s.card.id, 100)
    expectError(await simulate(s.card.id, "return", { cardTransactionId: tx.id, amount: 1 }), 400, "INVALID_INPUT")
  })
  it("return_reversal takes the return's row: VOIDED, the money goes back out, the purchase's refundedAmount drops", async () => {
    const { s, tx } = await settledPurchase()
    const refund = await rowByToken(s.card.id, await simulated(s.card.id, "return", { cardTransactionId: tx.id, amount: 400 }))
    expect(await simulated(s.card.id, "return_reversal", { cardTransactionId: refund.id })).toBe(refund.issuerTransactionToken)
    expect(await row(refund.id)).toMatchObject({ status: "VOIDED", direction: "CREDIT" })
    expect(await row(tx.id)).toMatchObject({ status: "SETTLED", refundedAmount: { amount: 0 }, refundSummary: { count: 1, totalAmount: 0 } })
    expect(await s.balance()).toBe(9000)
    expect((await eventsOf(refund.id)).map((e) => e.type)).toEqual(["CARD_TRANSACTION.SETTLED", "CARD_TRANSACTION.VOIDED"])
    expectError(await simulate(s.card.id, "return_reversal", { cardTransactionId: refund.id }), 400, "INVALID_INPUT")
  })
  it("return_reversal naming the purchase is 400 INVALID_INPUT pointing at the return's row", async () => {
    const { s, tx } = await settledPurchase()
    await simulated(s.card.id, "return", { cardTransactionId: tx.id, amount: 400 })
    const r = await simulate(s.card.id, "return_reversal", { cardTransactionId: tx.id })
    expectError(r, 400, "INVALID_INPUT")
    expect((r.body as { reason: string }).reason).toContain("originalTransactionId")
  })
})

describe("the other authorization-family endpoints", () => {
  it("balance_inquiry: a 0-amount AUTHORIZED row, no money", async () => {
    const s = await setup(10_000)
    const tx = await rowByToken(s.card.id, await simulated(s.card.id, "balance_inquiry", { merchant: merchant("SHELL OIL 12345678") }))
    expect(tx).toMatchObject({ status: "AUTHORIZED", authorizedAmount: { amount: 0 }, pullSummary: { count: 0, totalAmount: 0 } })
    expect(await s.balance()).toBe(10_000)
  })
  it("balance_inquiry on a frozen card is DECLINED CARD_NOT_ACTIVE", async () => {
    const s = await setup(10_000)
    await c.patch(s.card.id, { status: "FROZEN" })
    const tx = await rowByToken(s.card.id, await simulated(s.card.id, "balance_inquiry", { merchant: merchant() }))
    expect(tx).toMatchObject({ status: "DECLINED", cardDeclinedReason: "CARD_NOT_ACTIVE" })
  })
  it("financial_authorization settles at once", async () => {
    const s = await setup(10_000)
    const tx = await rowByToken(s.card.id, await simulated(s.card.id, "financial_authorization", auth(8000, "ATM WITHDRAWAL 24TH ST")))
    expect(tx).toMatchObject({ status: "SETTLED", direction: "DEBIT", settledAmount: { amount: 8000 } })
    expect(await s.balance()).toBe(2000)
    expect((await eventsOf(tx.id)).map((e) => e.type)).toEqual(["CARD_TRANSACTION.SETTLED"])
  })
  it("credit_authorization: a CREDIT row AUTHORIZED, credited when cleared", async () => {
    const s = await setup(0)
    const tx = await rowByToken(s.card.id, await simulated(s.card.id, "credit_authorization", auth(2500, "ACME MARKETPLACE")))
    expect(tx).toMatchObject({ status: "AUTHORIZED", direction: "CREDIT" })
    expect(await s.balance()).toBe(0)
    await simulated(s.card.id, "clearing", { cardTransactionId: tx.id, amount: 2500 })
    expect(await row(tx.id)).toMatchObject({ status: "SETTLED", settledAmount: { amount: 2500 } })
    expect(await s.balance()).toBe(2500)
  })
  it("credit_authorization_advice: like credit_authorization; the spend limit does not apply", async () => {
    const s = await setup(0, { maxSpendPerTransaction: 100 })
    const tx = await rowByToken(s.card.id, await simulated(s.card.id, "credit_authorization_advice", auth(2500, "ACME MARKETPLACE")))
    expect(tx).toMatchObject({ status: "AUTHORIZED", direction: "CREDIT" })
  })
  it("financial_credit_authorization credits at once", async () => {
    const s = await setup(0)
    const tx = await rowByToken(s.card.id, await simulated(s.card.id, "financial_credit_authorization", auth(4000, "ACME PAYOUTS")))
    expect(tx).toMatchObject({ status: "SETTLED", direction: "CREDIT", settledAmount: { amount: 4000 } })
    expect(await s.balance()).toBe(4000)
  })
})

describe("GET /transactions with card rows", () => {
  it("lists payments and card rows together, newest first, paging across both", async () => {
    const s = await setup(10_000)
    const a = await authorize(s.card.id, 100)
    // A second apart on the sandbox clock: rows made in the same millisecond order by id
    // (docs/decisions.md, "In what order do lists come"), so back-to-back requests could tie.
    await c.advance(1)
    const b = await authorize(s.card.id, 200)
    const all = (await c.ok("GET", `/transactions?customerId=${encodeURIComponent(s.holder.id)}&limit=100`)).data as Array<Row>
    expect(all.map((r) => r.id).slice(0, 2)).toEqual([b.id, a.id])
    // Paging one at a time visits every row once.
    const seen: Array<string> = []
    let cursor: string | undefined
    for (let i = 0; i < 50; i++) {
      const page = await c.ok("GET", `/transactions?customerId=${encodeURIComponent(s.holder.id)}&limit=1${cursor === undefined ? "" : `&cursor=${cursor}`}`)
      seen.push(...(page.data as Array<Row>).map((r) => r.id))
      expect(page.totalCount).toBe(all.length)
      if (page.hasMore !== true) break
      cursor = page.nextCursor as string
    }
    expect(seen).toEqual(all.map((r) => r.id))
  })
  it("type=CARD and cardId (a Card id or its UUID) list card rows only; status with type=CARD is 400", async () => {
    const s = await setup(10_000)
    const a = await authorize(s.card.id, 100)
    const uuid = s.card.id.slice("Card:".length)
    expect(((await c.ok("GET", `/transactions?cardId=${uuid}`)).data as Array<Row>).map((r) => r.id)).toEqual([a.id])
    const cards = (await c.ok("GET", "/transactions?type=CARD&limit=100")).data as Array<Row>
    expect(cards.every((r) => r.type === "CARD")).toBe(true)
    expect(cards.map((r) => r.id)).toContain(a.id)
    expectError(await c.call("GET", "/transactions?type=CARD&status=COMPLETED"), 400, "INVALID_INPUT")
    expect(((await c.ok("GET", "/transactions?type=OUTGOING&limit=100")).data as Array<Row>).some((r) => r.type === "CARD")).toBe(false)
  })
  it("account filters: the funding account matches its card rows; sender matches DEBIT rows, receiver CREDIT rows; contradictory filters match none", async () => {
    const s = await setup(10_000)
    const debit = await authorize(s.card.id, 100)
    const credit = await rowByToken(s.card.id, await simulated(s.card.id, "financial_credit_authorization", auth(50)))
    const ids = async (q: string) => ((await c.ok("GET", `/transactions?limit=100&${q}`)).data as Array<Row>).filter((r) => r.type === "CARD").map((r) => r.id)
    expect((await ids(`accountIdentifier=${s.account}`)).sort()).toEqual([debit.id, credit.id].sort())
    expect(await ids(`senderAccountIdentifier=${s.account}`)).toEqual([debit.id])
    expect(await ids(`receiverAccountIdentifier=${s.account}`)).toEqual([credit.id])
    expect(await ids(`senderAccountIdentifier=${s.account}&receiverAccountIdentifier=${s.account}`)).toEqual([])
    expect(await ids(`cardId=${s.card.id}&type=OUTGOING`)).toEqual([])
    expect(await ids(`cardId=${s.card.id}&status=COMPLETED`)).toEqual([])
    expect((await ids(`cardId=${s.card.id}&startDate=2000-01-01T00:00:00Z`)).sort()).toEqual([debit.id, credit.id].sort())
    expect(await ids(`cardId=${s.card.id}&endDate=2000-01-01T00:00:00Z`)).toEqual([])
  })
  it("a cursor from another list is 400", async () => {
    expectError(await c.call("GET", "/transactions?cursor=m1.bm90LWpzb24"), 400, "INVALID_INPUT")
  })
})

describe("platforms without card simulations", () => {
  it("a sandbox platform with cards turned off: 501 NOT_IMPLEMENTED, as every card endpoint", async () => {
    expectError(await simulate("Card:00000000-0000-4000-8000-000000000000", "authorization", auth(1), off), 501, "NOT_IMPLEMENTED")
    expectError(await simulate("Card:00000000-0000-4000-8000-000000000000", "return_reversal", { cardTransactionId: "CardTransaction:x" }, off), 501, "NOT_IMPLEMENTED")
  })
})

describe("production platforms", () => {
  it("every simulate endpoint is 403 FORBIDDEN", async () => {
    for (const what of ["authorization", "clearing", "return", "balance_inquiry", "credit_authorization", "financial_authorization", "financial_credit_authorization", "authorization_advice", "credit_authorization_advice", "return_reversal"]) {
      const body = what === "balance_inquiry"
        ? { merchant: merchant() }
        : what === "return_reversal"
        ? { cardTransactionId: "CardTransaction:x" }
        : ["clearing", "return", "authorization_advice"].includes(what)
        ? { cardTransactionId: "CardTransaction:x", amount: 1 }
        : auth(1)
      expectError(await simulate("Card:00000000-0000-4000-8000-000000000000", what, body, prod), 403, "FORBIDDEN")
    }
  })
})
