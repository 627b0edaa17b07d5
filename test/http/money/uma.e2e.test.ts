/**
 * UMA over HTTP: quotes to the sandbox counterparties and to another customer's UMA
 * address, POST /sandbox/uma/receive (credited to the receiver's internal account or its
 * default UMA deposit account; compliance failure and long-pending senders), and POST
 * /sandbox/send for real-time-funded quotes. With the INCOMING_PAYMENT.* events.
 */
import { afterAll, describe, expect, it } from "vitest"
import { isErrorShape } from "../../support/api.js"
import { allStrings, type MoneyClient, moneyApp, moneyPlatform, REMOVED_FAILURE_REASONS } from "../../support/money.js"

const p = moneyPlatform("uma")
const custom = moneyPlatform("uma-custom", { sandboxUmaDomain: "sandbox.example.org" })
const app = moneyApp([p, custom])
const [m, cu] = app.clients as [MoneyClient, MoneyClient]
afterAll(() => app.dispose())

const SANDBOX = "sandbox.grid.uma.money"
const uma = (source: string, umaAddress: string, amount: number, extra: Record<string, unknown> = {}) => ({
  source: { sourceType: "ACCOUNT", accountId: source },
  destination: { destinationType: "UMA_ADDRESS", umaAddress, ...extra },
  lockedCurrencySide: "SENDING",
  lockedCurrencyAmount: amount,
  immediatelyExecute: true
})
const incomingEvents = async (c: MoneyClient, id: string) =>
  (await c.events()).filter((e) => e.type.startsWith("INCOMING_PAYMENT.") && (e.data as { id: string }).id === id).map((e) => e.type)

describe("quotes to the sandbox UMA counterparties", () => {
  it.each([["USD"], ["EUR"], ["MXN"]])("$success.%s receives in its currency and completes at once", async (ccy) => {
    const c = await m.fundedCustomer({ USD: 10_000 })
    const q = await m.ok("POST", "/quotes", uma(c.accounts.USD, `$success.${ccy.toLowerCase()}@${SANDBOX}`, 1_000), 201)
    expect(q.receivingCurrency.code).toBe(ccy)
    expect(q.status).toBe("COMPLETED")
    const t = await m.transaction(q.transactionId)
    expect(t).toMatchObject({ status: "COMPLETED", destination: { destinationType: "UMA_ADDRESS", umaAddress: `$success.${ccy.toLowerCase()}@${SANDBOX}` } })
    expect(await m.balance(c.accounts.USD, c.id)).toBe(9_000)
  })

  it("the address is matched case-insensitively; a currency the counterparty does not take is INVALID_CURRENCY", async () => {
    const c = await m.fundedCustomer({ USD: 10_000 })
    expect((await m.ok("POST", "/quotes", uma(c.accounts.USD, `$Success.USD@${SANDBOX.toUpperCase()}`, 100), 201)).status).toBe("COMPLETED")
    const wrong = await m.quote(uma(c.accounts.USD, `$success.usd@${SANDBOX}`, 100, { currency: "EUR" }))
    expect(wrong.status).toBe(400)
    expect(wrong.body.code).toBe("INVALID_CURRENCY")
  })

  it("$pending.long.usd: PROCESSING until 24 hours of the platform clock have passed, then COMPLETED", async () => {
    const c = await m.fundedCustomer({ USD: 10_000 })
    const q = await m.ok("POST", "/quotes", uma(c.accounts.USD, `$pending.long.usd@${SANDBOX}`, 2_000), 201)
    expect(q.status).toBe("PROCESSING")
    expect(await m.balance(c.accounts.USD, c.id)).toBe(8_000)
    await m.advance(86_399)
    expect((await m.transaction(q.transactionId)).status).toBe("PROCESSING")
    await m.advance(2)
    expect((await m.transaction(q.transactionId)).status).toBe("COMPLETED")
    expect((await m.ok("GET", `/quotes/${q.id}`)).status).toBe("COMPLETED")
    expect(await m.balance(c.accounts.USD, c.id)).toBe(8_000)
  })

  it("$fail.compliance.usd: FAILED (COMPLIANCE_REJECTED) after 5 s, refunded", async () => {
    const c = await m.fundedCustomer({ USD: 10_000 })
    const q = await m.ok("POST", "/quotes", uma(c.accounts.USD, `$fail.compliance.usd@${SANDBOX}`, 2_000), 201)
    expect(q.status).toBe("PROCESSING")
    await m.advance(5)
    const t = await m.transaction(q.transactionId)
    expect(t).toMatchObject({ status: "FAILED", failureReason: "COMPLIANCE_REJECTED", refund: { status: "COMPLETED", reason: "TRANSACTION_FAILED" } })
    expect(await m.balance(c.accounts.USD, c.id)).toBe(10_000)
  })

  it("a platform with its own sandbox UMA domain: counterparties live there, not on the default domain", async () => {
    const c = await cu.fundedCustomer({ USD: 10_000 })
    expect((await cu.ok("POST", "/quotes", uma(c.accounts.USD, "$success.usd@sandbox.example.org", 100), 201)).status).toBe("COMPLETED")
    const elsewhere = await cu.quote(uma(c.accounts.USD, `$success.usd@${SANDBOX}`, 100))
    expect(elsewhere.status).toBe(400)
    expect(elsewhere.body.code).toBe("INVALID_RECEIVER")
  })
})

describe("quotes to another customer's UMA address", () => {
  it("credit the receiver's internal account in the requested currency", async () => {
    const sender = await m.fundedCustomer({ USD: 10_000 })
    const receiver = await m.fundedCustomer({}, { umaAddress: "$carol@sandbox.uma.local" })
    const q = await m.ok("POST", "/quotes", uma(sender.accounts.USD, "$carol@sandbox.uma.local", 1_000, { currency: "EUR" }), 201)
    expect(q.status).toBe("COMPLETED")
    expect(q.receivingCurrency.code).toBe("EUR")
    expect(await m.balance(receiver.accounts.EUR, receiver.id)).toBe(q.totalReceivingAmount)
    expect(await m.balance(sender.accounts.USD, sender.id)).toBe(9_000)
    const same = await m.ok("POST", "/quotes", uma(sender.accounts.USD, "$carol@sandbox.uma.local", 500, { currency: "USD" }), 201)
    expect(same.totalReceivingAmount).toBe(500)
    expect(await m.balance(receiver.accounts.USD, receiver.id)).toBe(500)
  })

  it("paying one's own UMA address from the very account it credits is SELF_PAYMENT", async () => {
    const c = await m.fundedCustomer({ USD: 10_000 }, { umaAddress: "$dave@sandbox.uma.local" })
    const r = await m.quote(uma(c.accounts.USD, "$dave@sandbox.uma.local", 100, { currency: "USD" }))
    expect(r.status).toBe(400)
    expect(r.body.code).toBe("SELF_PAYMENT")
  })

  it("a second customer cannot take an address in use: 409 UMA_ADDRESS_EXISTS", async () => {
    await m.customer({ umaAddress: "$erin@sandbox.uma.local" })
    const r = await m.call("POST", "/customers", { customerType: "INDIVIDUAL", fullName: "Erin Two", umaAddress: "$erin@sandbox.uma.local" })
    expect(r.status).toBe(409)
    expect(r.body.code).toBe("UMA_ADDRESS_EXISTS")
  })
})

describe("POST /sandbox/uma/receive", () => {
  const receive = (c: MoneyClient, body: Record<string, unknown>) =>
    c.call("POST", "/sandbox/uma/receive", { senderUmaAddress: `$success.usd@${SANDBOX}`, receivingCurrencyCode: "USD", receivingCurrencyAmount: 1_234, ...body })

  it("credits the receiver's internal account: INCOMING COMPLETED, INCOMING_PAYMENT.PENDING then COMPLETED, balance announced", async () => {
    const c = await m.fundedCustomer({}, { umaAddress: "$frank@sandbox.uma.local" })
    const r = await receive(m, { receiverUmaAddress: "$frank@sandbox.uma.local" })
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({
      type: "INCOMING",
      direction: "CREDIT",
      status: "COMPLETED",
      customerId: c.id,
      source: { sourceType: "UMA_ADDRESS", umaAddress: `$success.usd@${SANDBOX}` },
      destination: { destinationType: "ACCOUNT", accountId: c.accounts.USD },
      receivedAmount: { amount: 1_234, currency: { code: "USD" } }
    })
    expect(await m.balance(c.accounts.USD, c.id)).toBe(1_234)
    expect(await incomingEvents(m, r.body.id)).toEqual(["INCOMING_PAYMENT.PENDING", "INCOMING_PAYMENT.COMPLETED"])
    const balanceEvents = (await m.events()).filter((e) => e.type === "INTERNAL_ACCOUNT.BALANCE_UPDATED" && (e.data as { id: string }).id === c.accounts.USD)
    expect((balanceEvents.at(-1)!.data as { balance: { amount: number } }).balance.amount).toBe(1_234)
    expect((await m.transaction(r.body.id)).status).toBe("COMPLETED")
  })

  it("goes to the default UMA deposit external account when it has one in that currency; other currencies to the internal account", async () => {
    const c = await m.fundedCustomer({}, { umaAddress: "$gina@sandbox.uma.local" })
    const depositId = (await m.ok("POST", "/customers/external-accounts", {
      customerId: c.id,
      currency: "USD",
      defaultUmaDepositAccount: true,
      accountInfo: { accountType: "USD_ACCOUNT", accountNumber: "900000222", routingNumber: "021000021", bankAccountType: "SAVINGS", beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Gina" } }
    }, 201)).id as string
    const usd = await receive(m, { receiverUmaAddress: "$gina@sandbox.uma.local" })
    expect(usd.status).toBe(200)
    expect(usd.body).toMatchObject({ status: "COMPLETED", destination: { destinationType: "ACCOUNT", accountId: depositId } })
    expect(await m.balance(c.accounts.USD, c.id)).toBe(0)
    const eur = await receive(m, { receiverUmaAddress: "$gina@sandbox.uma.local", receivingCurrencyCode: "EUR", receivingCurrencyAmount: 99 })
    expect(eur.body.destination.accountId).toBe(c.accounts.EUR)
    expect(await m.balance(c.accounts.EUR, c.id)).toBe(99)
  })

  it("from $fail.compliance.usd: FAILED (COMPLIANCE_REJECTED), refunded to the sender, nothing credited, INCOMING_PAYMENT.REFUND_* events", async () => {
    const c = await m.fundedCustomer({}, { umaAddress: "$hank@sandbox.uma.local" })
    const r = await receive(m, { senderUmaAddress: `$fail.compliance.usd@${SANDBOX}`, receiverUmaAddress: "$hank@sandbox.uma.local" })
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ status: "FAILED", failureReason: "COMPLIANCE_REJECTED", refund: { status: "COMPLETED" } })
    for (const s of allStrings(r.body)) expect(REMOVED_FAILURE_REASONS.filter((x) => x !== "TIMEOUT")).not.toContain(s)
    expect(await m.balance(c.accounts.USD, c.id)).toBe(0)
    expect(await incomingEvents(m, r.body.id)).toEqual([
      "INCOMING_PAYMENT.PENDING",
      "INCOMING_PAYMENT.FAILED",
      "INCOMING_PAYMENT.REFUND_PENDING",
      "INCOMING_PAYMENT.REFUND_COMPLETED"
    ])
  })

  it("from $pending.long.usd: PENDING, credited only after 24 hours of the platform clock", async () => {
    const c = await m.fundedCustomer({}, { umaAddress: "$ivy@sandbox.uma.local" })
    const r = await receive(m, { senderUmaAddress: `$pending.long.usd@${SANDBOX}`, receiverUmaAddress: "$ivy@sandbox.uma.local" })
    expect(r.body.status).toBe("PENDING")
    expect(await m.balance(c.accounts.USD, c.id)).toBe(0)
    await m.advance(86_399)
    expect((await m.transaction(r.body.id)).status).toBe("PENDING")
    await m.advance(2)
    expect((await m.transaction(r.body.id)).status).toBe("COMPLETED")
    expect(await m.balance(c.accounts.USD, c.id)).toBe(1_234)
    expect(await incomingEvents(m, r.body.id)).toEqual(["INCOMING_PAYMENT.PENDING", "INCOMING_PAYMENT.COMPLETED"])
  })

  it("refusals: INVALID_UMA_ADDRESS, UMA_NOT_FOUND (404), INVALID_CURRENCY", async () => {
    await m.customer({ umaAddress: "$jack@sandbox.uma.local" })
    const badSender = await receive(m, { senderUmaAddress: "not-an-address", receiverUmaAddress: "$jack@sandbox.uma.local" })
    expect(badSender.status).toBe(400)
    expect(badSender.body.code).toBe("INVALID_UMA_ADDRESS")
    const badReceiver = await receive(m, { receiverUmaAddress: "jack@sandbox.uma.local" })
    expect(badReceiver.body.code).toBe("INVALID_UMA_ADDRESS")
    const nobody = await receive(m, { receiverUmaAddress: "$nobody@sandbox.uma.local" })
    expect(nobody.status).toBe(404)
    expect(nobody.body.code).toBe("UMA_NOT_FOUND")
    const ccy = await receive(m, { receiverUmaAddress: "$jack@sandbox.uma.local", receivingCurrencyCode: "XYZ" })
    expect(ccy.status).toBe(400)
    expect(ccy.body.code).toBe("INVALID_CURRENCY")
    // A currency the receiver holds no account in.
    const gbp = await receive(m, { receiverUmaAddress: "$jack@sandbox.uma.local", receivingCurrencyCode: "GBP" })
    expect(gbp.status).toBe(400)
    expect(gbp.body.code).toBe("INVALID_CURRENCY")
    expect(isErrorShape(gbp.body)).toBe(true)
  })
})

describe("POST /sandbox/send (real-time funding)", () => {
  const realtimeQuote = async (c: MoneyClient, customerId: string, destination: string, amount = 5_000) =>
    c.ok("POST", "/quotes", {
      source: { sourceType: "REALTIME_FUNDING", customerId, currency: "USD" },
      destination: { destinationType: "ACCOUNT", accountId: destination },
      lockedCurrencySide: "SENDING",
      lockedCurrencyAmount: amount
    }, 201)

  it("the quote carries payment instructions; paying them exactly starts the payment and credits the destination", async () => {
    const c = await m.fundedCustomer()
    const q = await realtimeQuote(m, c.id, c.accounts.EUR)
    expect(q.paymentInstructions.length).toBeGreaterThan(0)
    expect(q.paymentInstructions[0].accountOrWalletInfo.accountType).toBe("USD_ACCOUNT")
    // It is not executed like an account-funded quote.
    expect((await m.call("POST", `/quotes/${q.id}/execute`)).status).toBe(400)
    const wrongCurrency = await m.call("POST", "/sandbox/send", { quoteId: q.id, currencyCode: "EUR" })
    expect(wrongCurrency.status).toBe(400)
    expect(wrongCurrency.body.code).toBe("INVALID_CURRENCY")
    const wrongAmount = await m.call("POST", "/sandbox/send", { quoteId: q.id, currencyCode: "USD", currencyAmount: 4_999 })
    expect(wrongAmount.status).toBe(400)
    expect(wrongAmount.body.code).toBe("INVALID_AMOUNT")
    expect(await m.balance(c.accounts.EUR, c.id)).toBe(0)
    const sent = await m.ok("POST", "/sandbox/send", { quoteId: q.id, currencyCode: "USD" })
    expect(sent).toMatchObject({ id: q.transactionId, status: "COMPLETED", source: { sourceType: "REALTIME_FUNDING", currency: "USD" } })
    expect(await m.balance(c.accounts.EUR, c.id)).toBe(q.totalReceivingAmount)
    // Paying twice does not credit twice.
    expect((await m.call("POST", "/sandbox/send", { quoteId: q.id, currencyCode: "USD" })).status).toBe(400)
    expect(await m.balance(c.accounts.EUR, c.id)).toBe(q.totalReceivingAmount)
  })

  it("an expired quote is QUOTE_EXPIRED; an unknown quote 404; an account-funded quote 400", async () => {
    const c = await m.fundedCustomer({ USD: 1_000 })
    const q = await realtimeQuote(m, c.id, c.accounts.MXN)
    await m.advance(301)
    const r = await m.call("POST", "/sandbox/send", { quoteId: q.id, currencyCode: "USD" })
    expect(r.status).toBe(400)
    expect(r.body.code).toBe("QUOTE_EXPIRED")
    expect(await m.balance(c.accounts.MXN, c.id)).toBe(0)
    expect((await m.call("POST", "/sandbox/send", { quoteId: "Quote:00000000-0000-4000-8000-000000000000", currencyCode: "USD" })).status).toBe(404)
    const funded = await m.ok("POST", "/quotes", m.quoteBody(c.accounts.USD, c.accounts.EUR, 100), 201)
    expect((await m.call("POST", "/sandbox/send", { quoteId: funded.id, currencyCode: "USD" })).status).toBe(400)
    // immediatelyExecute needs an account source.
    expect((await m.call("POST", "/quotes", {
      source: { sourceType: "REALTIME_FUNDING", customerId: c.id, currency: "USD" },
      destination: { destinationType: "ACCOUNT", accountId: c.accounts.EUR },
      lockedCurrencySide: "SENDING",
      lockedCurrencyAmount: 100,
      immediatelyExecute: true
    })).status).toBe(400)
  })
})
