/**
 * The deprecated POST /transfer-in and POST /transfer-out: still working, 201 with a
 * transaction (TransactionOneOf), same currency only, Idempotency-Key honoured.
 */
import { afterAll, describe, expect, it } from "vitest"
import { isErrorShape } from "../../support/api.js"
import { accountNumberEnding, type MoneyClient, moneyApp, moneyPlatform } from "../../support/money.js"

const p = moneyPlatform("transfers")
const app = moneyApp([p])
const [m] = app.clients as [MoneyClient]
afterAll(() => app.dispose())

describe("POST /transfer-out", () => {
  it("201 with the payout transaction; the internal account is debited", async () => {
    const c = await m.fundedCustomer({ EUR: 10_000 })
    const ext = await m.externalEur(c.id, "DE89370400440532015000")
    const r = await m.call("POST", "/transfer-out", {
      source: { accountId: c.accounts.EUR },
      destination: { accountId: ext.id },
      amount: 2_500,
      remittanceInformation: "Rent",
      purposeOfPayment: "FAMILY_SUPPORT"
    })
    expect(r.status).toBe(201)
    expect(r.body).toMatchObject({
      type: "OUTGOING",
      direction: "DEBIT",
      status: "COMPLETED",
      source: { sourceType: "ACCOUNT", accountId: c.accounts.EUR },
      destination: { destinationType: "ACCOUNT", accountId: ext.id },
      sentAmount: { amount: 2_500, currency: { code: "EUR" } },
      receivedAmount: { amount: 2_500, currency: { code: "EUR" } },
      customerId: c.id
    })
    expect(r.body.id).toMatch(/^Transaction:/)
    expect(await m.balance(c.accounts.EUR, c.id)).toBe(7_500)
    expect(await m.transaction(r.body.id)).toEqual(r.body)
  })

  it("a USD payout over ACH is PROCESSING until the next business day", async () => {
    const c = await m.fundedCustomer({ USD: 10_000 })
    const ext = await m.externalUsd(c.id, accountNumberEnding("000"))
    const r = await m.ok("POST", "/transfer-out", { source: { accountId: c.accounts.USD }, destination: { accountId: ext.id }, amount: 1_000 }, 201)
    expect(r).toMatchObject({ status: "PROCESSING", paymentRail: "ACH" })
    const pinned = await m.ok("POST", "/transfer-out", { source: { accountId: c.accounts.USD }, destination: { accountId: ext.id, paymentRail: "ACH_SAME_DAY" }, amount: 1_000 }, 201)
    expect(pinned.paymentRail).toBe("ACH_SAME_DAY")
  })

  it("Idempotency-Key: the same request replays the same transaction with one debit; another request with the key is 409", async () => {
    const c = await m.fundedCustomer({ EUR: 10_000 })
    const ext = await m.externalEur(c.id, "DE89370400440532016000")
    const body = { source: { accountId: c.accounts.EUR }, destination: { accountId: ext.id }, amount: 1_000 }
    const key = { "idempotency-key": `out-${c.id}` }
    const first = await m.call("POST", "/transfer-out", body, key)
    const second = await m.call("POST", "/transfer-out", body, key)
    expect(first.status).toBe(201)
    expect(second.status).toBe(201)
    expect(second.body).toEqual(first.body)
    expect(await m.balance(c.accounts.EUR, c.id)).toBe(9_000)
    const changed = await m.call("POST", "/transfer-out", { ...body, amount: 1_001 }, key)
    expect(changed.status).toBe(409)
    expect(isErrorShape(changed.body)).toBe(true)
    expect(await m.balance(c.accounts.EUR, c.id)).toBe(9_000)
    // Without a key, the same body is a new transfer.
    await m.ok("POST", "/transfer-out", body, 201)
    expect(await m.balance(c.accounts.EUR, c.id)).toBe(8_000)
  })

  it("without amount: the whole balance of the source account is sent; an empty account is 400 INVALID_AMOUNT", async () => {
    const c = await m.fundedCustomer({ EUR: 4_321 })
    const ext = await m.externalEur(c.id, "DE89370400440532017100")
    const all = await m.ok("POST", "/transfer-out", { source: { accountId: c.accounts.EUR }, destination: { accountId: ext.id } }, 201)
    expect(all).toMatchObject({ type: "OUTGOING", direction: "DEBIT", status: "COMPLETED", sentAmount: { amount: 4_321 }, receivedAmount: { amount: 4_321 } })
    expect(await m.balance(c.accounts.EUR, c.id)).toBe(0)
    const empty = await m.call("POST", "/transfer-out", { source: { accountId: c.accounts.EUR }, destination: { accountId: ext.id } })
    expect(empty.status).toBe(400)
    expect(isErrorShape(empty.body)).toBe(true)
    expect(empty.body).toMatchObject({ code: "INVALID_AMOUNT", details: { accountId: c.accounts.EUR, balance: 0 } })
  })

  it("refusals: another currency (INVALID_CURRENCY), wrong account kinds, insufficient funds, unknown accounts", async () => {
    const c = await m.fundedCustomer({ EUR: 1_000 })
    const ext = await m.externalEur(c.id, "DE89370400440532017000")
    const currency = await m.call("POST", "/transfer-out", { source: { accountId: c.accounts.USD }, destination: { accountId: ext.id }, amount: 100 })
    expect(currency.status).toBe(400)
    expect(currency.body.code).toBe("INVALID_CURRENCY")
    expect((await m.call("POST", "/transfer-out", { source: { accountId: ext.id }, destination: { accountId: c.accounts.EUR }, amount: 100 })).status).toBe(400)
    expect((await m.call("POST", "/transfer-out", { source: { accountId: c.accounts.EUR }, destination: { accountId: c.accounts.USD }, amount: 100 })).status).toBe(400)
    const poor = await m.call("POST", "/transfer-out", { source: { accountId: c.accounts.EUR }, destination: { accountId: ext.id }, amount: 1_001 })
    expect(poor.status).toBe(400)
    expect(poor.body.code).toBe("INSUFFICIENT_FUNDS")
    expect((await m.call("POST", "/transfer-out", { source: { accountId: c.accounts.EUR }, destination: { accountId: "ExternalAccount:00000000-0000-4000-8000-000000000000" }, amount: 100 })).status).toBe(404)
    expect(await m.balance(c.accounts.EUR, c.id)).toBe(1_000)
  })
})

describe("POST /transfer-in", () => {
  it("201 with the pull transaction; the internal account is credited", async () => {
    const c = await m.fundedCustomer()
    const ext = await m.externalEur(c.id, "DE89370400440532018000")
    const r = await m.call("POST", "/transfer-in", { source: { accountId: ext.id }, destination: { accountId: c.accounts.EUR }, amount: 3_000 })
    expect(r.status).toBe(201)
    // Money into the customer's account: a CREDIT (the reference makes direction independent of type).
    expect(r.body).toMatchObject({
      type: "OUTGOING",
      direction: "CREDIT",
      status: "COMPLETED",
      source: { sourceType: "ACCOUNT", accountId: ext.id },
      destination: { destinationType: "ACCOUNT", accountId: c.accounts.EUR },
      sentAmount: { amount: 3_000 },
      receivedAmount: { amount: 3_000 }
    })
    expect(await m.balance(c.accounts.EUR, c.id)).toBe(3_000)
  })

  it("Idempotency-Key: one credit for a replay; another request with the key is 409", async () => {
    const c = await m.fundedCustomer()
    const ext = await m.externalEur(c.id, "DE89370400440532019000")
    const body = { source: { accountId: ext.id }, destination: { accountId: c.accounts.EUR }, amount: 700 }
    const key = { "idempotency-key": `in-${c.id}` }
    const first = await m.call("POST", "/transfer-in", body, key)
    const second = await m.call("POST", "/transfer-in", body, key)
    expect(first.status).toBe(201)
    expect(second.body).toEqual(first.body)
    expect(await m.balance(c.accounts.EUR, c.id)).toBe(700)
    expect((await m.call("POST", "/transfer-in", { ...body, amount: 1 }, key)).status).toBe(409)
    expect(await m.balance(c.accounts.EUR, c.id)).toBe(700)
  })

  it("refusals: missing amount (the external balance is unknown: INVALID_AMOUNT saying so), wrong account kinds, another currency", async () => {
    const c = await m.fundedCustomer()
    const ext = await m.externalEur(c.id, "DE89370400440532010100")
    const missing = await m.call("POST", "/transfer-in", { source: { accountId: ext.id }, destination: { accountId: c.accounts.EUR } })
    expect(missing.body.code).toBe("INVALID_AMOUNT")
    expect(missing.body.reason).toMatch(/required on a transfer-in/)
    expect((await m.call("POST", "/transfer-in", { source: { accountId: c.accounts.USD }, destination: { accountId: c.accounts.EUR }, amount: 1 })).status).toBe(400)
    expect((await m.call("POST", "/transfer-in", { source: { accountId: ext.id }, destination: { accountId: ext.id }, amount: 1 })).status).toBe(400)
    expect((await m.call("POST", "/transfer-in", { source: { accountId: ext.id }, destination: { accountId: c.accounts.USD }, amount: 1 })).body.code).toBe("INVALID_CURRENCY")
  })
})
