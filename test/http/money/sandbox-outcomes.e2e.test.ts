/**
 * SPEC.md's sandbox payment tables over HTTP, one test per row: quote execution to an
 * external account (last 3 digits 002..007 and other), and the external account as pull
 * source (POST /transfer-in) and payout destination (POST /transfer-out) (002..005 and
 * other). Each checks status, failureReason, refund, the balances after, the events, and
 * that delays complete only when the platform's sandbox clock is advanced. A production
 * platform gets none of it.
 */
import { afterAll, describe, expect, it } from "vitest"
import { accountNumberEnding, advanceToSettlement, allStrings, type MoneyClient, moneyApp, moneyPlatform, REMOVED_FAILURE_REASONS } from "../../support/money.js"

const q = moneyPlatform("outcomes-quote")
const po = moneyPlatform("outcomes-payout")
const pl = moneyPlatform("outcomes-pull")
const ach = moneyPlatform("outcomes-ach")
const production = moneyPlatform("outcomes-production", { sandbox: false })
const app = moneyApp([q, po, pl, ach, production])
const [mq, mpo, mpl, mach, prod] = app.clients as [MoneyClient, MoneyClient, MoneyClient, MoneyClient, MoneyClient]
afterAll(() => app.dispose())

const AMOUNT = 1_000
const START = 10_000

let ibanSeq = 0
/** A German-looking IBAN ending in `suffix` (the primary identifier of a EUR account). */
const ibanEnding = (suffix: string) => `DE8937040044053201${String(++ibanSeq % 10)}${suffix}`

/** The OUTGOING_PAYMENT.* event types of one transaction, in order. */
const paymentEvents = async (m: MoneyClient, transactionId: string) =>
  (await m.events()).filter((e) => e.type.startsWith("OUTGOING_PAYMENT.") && (e.data as { id: string }).id === transactionId).map((e) => e.type)

const noRemovedReason = (t: unknown) => {
  for (const s of allStrings(t)) expect(REMOVED_FAILURE_REASONS.includes(s) && s !== "TIMEOUT" ? s : "").toBe("")
  const body = t as { failureReason?: string }
  if (body.failureReason !== undefined) expect(REMOVED_FAILURE_REASONS).not.toContain(body.failureReason)
}

// ---------------------------------------------------------------- quote execution to an external account

describe("quote execution to an external account (EUR over SEPA_INSTANT, same currency)", () => {
  const setup = async (suffix: string) => {
    const c = await mq.fundedCustomer({ EUR: START })
    const ext = await mq.externalEur(c.id, ibanEnding(suffix))
    const quote = await mq.pay(c.accounts.EUR, ext.id, AMOUNT)
    const balance = () => mq.balance(c.accounts.EUR, c.id)
    return { c, ext, quote, balance, t: () => mq.transaction(quote.transactionId) }
  }

  it("002: quote execution failed: FAILED at once, QUOTE_EXECUTION_FAILED, refund COMPLETED (TRANSACTION_FAILED), money back", async () => {
    const { quote, balance, t } = await setup("002")
    expect(quote.status).toBe("FAILED")
    const tx = await t()
    expect(tx).toMatchObject({ status: "FAILED", failureReason: "QUOTE_EXECUTION_FAILED", refund: { status: "COMPLETED", reason: "TRANSACTION_FAILED" } })
    expect(tx.refund.settledAt).toBeDefined()
    noRemovedReason(tx)
    expect(await balance()).toBe(START)
    expect(await paymentEvents(mq, quote.transactionId)).toEqual([
      "OUTGOING_PAYMENT.PROCESSING",
      "OUTGOING_PAYMENT.FAILED",
      "OUTGOING_PAYMENT.REFUND_PENDING",
      "OUTGOING_PAYMENT.REFUND_COMPLETED"
    ])
  })

  it("003: long payment: PROCESSING, money in flight, COMPLETED only once the clock passes 6 minutes", async () => {
    const { quote, balance, t } = await setup("003")
    expect(quote.status).toBe("PROCESSING")
    expect((await t()).status).toBe("PROCESSING")
    expect(await balance()).toBe(START - AMOUNT)
    await mq.advance(359)
    expect((await t()).status).toBe("PROCESSING")
    await mq.advance(2)
    const tx = await t()
    expect(tx.status).toBe("COMPLETED")
    expect(tx.settledAt).toBeDefined()
    expect(tx.refund).toBeUndefined()
    expect((await mq.ok("GET", `/quotes/${quote.id}`)).status).toBe("COMPLETED")
    expect(await balance()).toBe(START - AMOUNT)
    expect(await paymentEvents(mq, quote.transactionId)).toEqual(["OUTGOING_PAYMENT.PROCESSING", "OUTGOING_PAYMENT.COMPLETED"])
  })

  it("004: counterparty delivery failed: PROCESSING, then after 5 s FAILED (QUOTE_EXECUTION_FAILED), refunded", async () => {
    const { quote, balance, t } = await setup("004")
    expect(quote.status).toBe("PROCESSING")
    expect(await balance()).toBe(START - AMOUNT)
    await mq.advance(5)
    const tx = await t()
    expect(tx).toMatchObject({ status: "FAILED", failureReason: "QUOTE_EXECUTION_FAILED", refund: { status: "COMPLETED", reason: "TRANSACTION_FAILED" } })
    noRemovedReason(tx)
    expect(await balance()).toBe(START)
    expect((await mq.ok("GET", `/quotes/${quote.id}`)).status).toBe("FAILED")
    // The refund is announced with the restored balance.
    const balances = (await mq.events()).filter((e) => e.type === "INTERNAL_ACCOUNT.BALANCE_UPDATED" && (e.data as { id: string }).id === quote.source.accountId)
    expect((balances.at(-1)!.data as { balance: { amount: number } }).balance.amount).toBe(START)
  })

  it("005: returned by the receiving bank: COMPLETED at once, FAILED (PAYOUT_RETURNED) 60 s later, money back", async () => {
    const { quote, balance, t } = await setup("005")
    expect(quote.status).toBe("COMPLETED")
    expect((await t()).status).toBe("COMPLETED")
    expect(await balance()).toBe(START - AMOUNT)
    await mq.advance(59)
    expect((await t()).status).toBe("COMPLETED")
    await mq.advance(1)
    const tx = await t()
    expect(tx).toMatchObject({ status: "FAILED", failureReason: "PAYOUT_RETURNED", refund: { status: "COMPLETED", reason: "TRANSACTION_FAILED" } })
    noRemovedReason(tx)
    expect(await balance()).toBe(START)
    expect(await paymentEvents(mq, quote.transactionId)).toEqual([
      "OUTGOING_PAYMENT.PROCESSING",
      "OUTGOING_PAYMENT.COMPLETED",
      "OUTGOING_PAYMENT.FAILED",
      "OUTGOING_PAYMENT.REFUND_COMPLETED"
    ])
  })

  it("006: user cancellation: FAILED after 5 s (QUOTE_EXECUTION_FAILED), refund COMPLETED with reason USER_CANCELLATION", async () => {
    const { quote, balance, t } = await setup("006")
    expect(quote.status).toBe("PROCESSING")
    await mq.advance(5)
    const tx = await t()
    expect(tx).toMatchObject({ status: "FAILED", failureReason: "QUOTE_EXECUTION_FAILED", refund: { status: "COMPLETED", reason: "USER_CANCELLATION" } })
    noRemovedReason(tx)
    expect(await balance()).toBe(START)
  })

  it("007: payout and refund failed: FAILED after 5 s, refund FAILED, the money is not returned", async () => {
    const { quote, balance, t } = await setup("007")
    expect(quote.status).toBe("PROCESSING")
    await mq.advance(5)
    const tx = await t()
    expect(tx).toMatchObject({ status: "FAILED", failureReason: "QUOTE_EXECUTION_FAILED", refund: { status: "FAILED" } })
    noRemovedReason(tx)
    expect(await balance()).toBe(START - AMOUNT)
    expect(await paymentEvents(mq, quote.transactionId)).toEqual([
      "OUTGOING_PAYMENT.PROCESSING",
      "OUTGOING_PAYMENT.FAILED",
      "OUTGOING_PAYMENT.REFUND_PENDING",
      "OUTGOING_PAYMENT.REFUND_FAILED"
    ])
    // Nothing more happens later.
    await mq.advance(3_600)
    expect((await t()).refund.status).toBe("FAILED")
    expect(await balance()).toBe(START - AMOUNT)
  })

  it.each(["000", "001", "008", "102"])("other (%s): COMPLETED at execution", async (suffix) => {
    const { quote, balance, t } = await setup(suffix)
    expect(quote.status).toBe("COMPLETED")
    const tx = await t()
    expect(tx).toMatchObject({ status: "COMPLETED", paymentRail: "SEPA_INSTANT" })
    expect(tx.failureReason).toBeUndefined()
    expect(await balance()).toBe(START - AMOUNT)
  })

  it("cross-currency to a 002 account refunds the whole sending total", async () => {
    const c = await mq.fundedCustomer({ USD: START })
    const ext = await mq.externalEur(c.id, ibanEnding("002"))
    const quote = await mq.pay(c.accounts.USD, ext.id, AMOUNT)
    expect(quote.status).toBe("FAILED")
    expect(await mq.balance(c.accounts.USD, c.id)).toBe(START)
  })
})

describe("ACH settles next business day in the sandbox (the default rail for USD accounts)", () => {
  it("a successful USD payout stays PROCESSING until the next business day's start, then COMPLETED", async () => {
    const c = await mach.fundedCustomer({ USD: START })
    const ext = await mach.externalUsd(c.id, accountNumberEnding("000"))
    const quote = await mach.pay(c.accounts.USD, ext.id, AMOUNT)
    expect(quote.status).toBe("PROCESSING")
    const tx = await mach.transaction(quote.transactionId)
    expect(tx.paymentRail).toBe("ACH")
    const expected = Date.parse(tx.expectedSettlementAt)
    const now = await mach.clock()
    expect(expected).toBeGreaterThan(now)
    expect(expected % 86_400_000).toBe(0)
    expect([1, 2, 3, 4, 5]).toContain(new Date(expected).getUTCDay())
    expect(await mach.balance(c.accounts.USD, c.id)).toBe(START - AMOUNT)
    // Two seconds short of the next business day's start it is still in flight. When the
    // sandbox clock is already that close to it (a run started just before a UTC midnight,
    // on a slow machine) there is nothing to advance to, and the clock itself may cross it
    // before the read: only the settlement is checked then.
    const early = Math.floor((expected - now) / 1000) - 2
    if (early > 0) {
      await mach.advance(early)
      expect((await mach.transaction(quote.transactionId)).status).toBe("PROCESSING")
    }
    await mach.advance(Math.max(0, Math.ceil((expected - await mach.clock()) / 1000)) + 1)
    const done = await mach.transaction(quote.transactionId)
    expect(done.status).toBe("COMPLETED")
    expect(Date.parse(done.settledAt)).toBeGreaterThanOrEqual(expected)
  })

  it("a USD 002 payout over ACH still fails at once and is refunded", async () => {
    const c = await mach.fundedCustomer({ USD: START })
    const ext = await mach.externalUsd(c.id, accountNumberEnding("002"))
    const quote = await mach.pay(c.accounts.USD, ext.id, AMOUNT)
    expect(quote.status).toBe("FAILED")
    expect(await mach.balance(c.accounts.USD, c.id)).toBe(START)
  })

  it("a USD 005 payout over ACH completes at settlement, then is returned", async () => {
    const c = await mach.fundedCustomer({ USD: START })
    const ext = await mach.externalUsd(c.id, accountNumberEnding("005"))
    const quote = await mach.pay(c.accounts.USD, ext.id, AMOUNT)
    expect(quote.status).toBe("PROCESSING")
    // Completed at settlement, returned by the receiving bank 60 s later.
    await advanceToSettlement(mach, quote.transactionId, 60)
    const tx = await mach.transaction(quote.transactionId)
    expect(tx).toMatchObject({ status: "FAILED", failureReason: "PAYOUT_RETURNED", refund: { status: "COMPLETED" } })
    expect(await mach.balance(c.accounts.USD, c.id)).toBe(START)
  })
})

// ---------------------------------------------------------------- payout destination (transfer-out)

describe("external account as payout destination (POST /transfer-out)", () => {
  const payout = async (suffix: string) => {
    const c = await mpo.fundedCustomer({ EUR: START })
    const ext = await mpo.externalEur(c.id, ibanEnding(suffix))
    const r = await mpo.call("POST", "/transfer-out", { source: { accountId: c.accounts.EUR }, destination: { accountId: ext.id }, amount: AMOUNT })
    expect(r.status, JSON.stringify(r.body)).toBe(201)
    return { c, ext, tx: r.body, balance: () => mpo.balance(c.accounts.EUR, c.id), get: () => mpo.transaction(r.body.id) }
  }

  it.each([
    ["002", "insufficient funds", "QUOTE_EXECUTION_FAILED"],
    ["003", "account closed or invalid", "ACCOUNT_INVALID"],
    ["004", "bank rejects the transfer", "ACCOUNT_CANNOT_RECEIVE"]
  ])("%s (%s): FAILED immediately with %s, the debit refunded", async (suffix, _what, reason) => {
    const { tx, balance } = await payout(suffix)
    expect(tx).toMatchObject({ type: "OUTGOING", status: "FAILED", failureReason: reason, refund: { status: "COMPLETED", reason: "TRANSACTION_FAILED" } })
    noRemovedReason(tx)
    expect(await balance()).toBe(START)
  })

  it("005: PROCESSING about 30 seconds, then FAILED (QUOTE_EXECUTION_FAILED), refunded", async () => {
    const { tx, balance, get } = await payout("005")
    expect(tx.status).toBe("PROCESSING")
    expect(await balance()).toBe(START - AMOUNT)
    await mpo.advance(29)
    expect((await get()).status).toBe("PROCESSING")
    await mpo.advance(1)
    const after = await get()
    expect(after).toMatchObject({ status: "FAILED", failureReason: "QUOTE_EXECUTION_FAILED", refund: { status: "COMPLETED" } })
    noRemovedReason(after)
    expect(await balance()).toBe(START)
  })

  it.each(["000", "006", "007"])("other (%s): success", async (suffix) => {
    const { tx, balance } = await payout(suffix)
    expect(tx).toMatchObject({ status: "COMPLETED", sentAmount: { amount: AMOUNT }, receivedAmount: { amount: AMOUNT } })
    expect(tx.failureReason).toBeUndefined()
    expect(await balance()).toBe(START - AMOUNT)
  })
})

// ---------------------------------------------------------------- pull source (transfer-in)

describe("external account as pull source (POST /transfer-in)", () => {
  const pull = async (suffix: string) => {
    const c = await mpl.fundedCustomer({ EUR: START })
    const ext = await mpl.externalEur(c.id, ibanEnding(suffix))
    const r = await mpl.call("POST", "/transfer-in", { source: { accountId: ext.id }, destination: { accountId: c.accounts.EUR }, amount: AMOUNT })
    expect(r.status, JSON.stringify(r.body)).toBe(201)
    return { c, ext, tx: r.body, balance: () => mpl.balance(c.accounts.EUR, c.id), get: () => mpl.transaction(r.body.id) }
  }

  it.each([
    ["002", "insufficient funds", "QUOTE_EXECUTION_FAILED"],
    ["003", "account closed or invalid", "ACCOUNT_INVALID"],
    ["004", "bank rejects the transfer", "ACCOUNT_CANNOT_RECEIVE"]
  ])("%s (%s): FAILED immediately with %s, nothing credited", async (suffix, _what, reason) => {
    const { tx, balance } = await pull(suffix)
    expect(tx).toMatchObject({ status: "FAILED", failureReason: reason, source: { accountId: expect.stringMatching(/^ExternalAccount:/) } })
    noRemovedReason(tx)
    expect(await balance()).toBe(START)
    // Nothing of the customer's was taken: no refund is shown or announced.
    expect(tx.refund).toBeUndefined()
    const announced = (await mpl.events())
      .filter((e) => typeof e.data === "object" && e.data !== null && "id" in e.data && e.data.id === tx.id)
      .map((e) => e.type)
    expect(announced.some((t) => t.startsWith("OUTGOING_PAYMENT.REFUND_"))).toBe(false)
    expect(announced).toContain("OUTGOING_PAYMENT.FAILED")
  })

  it("005: PROCESSING about 30 seconds, then FAILED; nothing credited", async () => {
    const { tx, balance, get } = await pull("005")
    expect(tx.status).toBe("PROCESSING")
    expect(await balance()).toBe(START)
    await mpl.advance(29)
    expect((await get()).status).toBe("PROCESSING")
    await mpl.advance(1)
    expect((await get())).toMatchObject({ status: "FAILED", failureReason: "QUOTE_EXECUTION_FAILED" })
    expect(await balance()).toBe(START)
  })

  it.each(["000", "006", "007"])("other (%s): success, the internal account is credited", async (suffix) => {
    const { tx, balance } = await pull(suffix)
    expect(tx.status).toBe("COMPLETED")
    expect(await balance()).toBe(START + AMOUNT)
  })
})

describe("the outbox after every row", () => {
  it("no event carries a removed failure reason (EXECUTION_FAILED_POST_DEBIT, SETTLEMENT_FAILED, TIMEOUT, MANUAL_REFUND)", async () => {
    let payments = 0
    for (const client of [mq, mpo, mpl, mach]) {
      for (const e of await client.events()) {
        if (!e.type.startsWith("OUTGOING_PAYMENT.") && !e.type.startsWith("INCOMING_PAYMENT.")) continue
        payments++
        const data = e.data as { failureReason?: string }
        if (data.failureReason !== undefined) expect(REMOVED_FAILURE_REASONS).not.toContain(data.failureReason)
        for (const s of allStrings(e.data)) expect(["EXECUTION_FAILED_POST_DEBIT", "SETTLEMENT_FAILED", "MANUAL_REFUND"]).not.toContain(s)
      }
    }
    expect(payments).toBeGreaterThan(50)
  })
})

// ---------------------------------------------------------------- production

describe("a production platform (sandbox: false) has no magic suffixes", () => {
  it("pull and payout suffixes 002..005 all succeed; quote suffixes 002..007 all complete", async () => {
    const accounts = await prod.platformAccounts()
    for (const suffix of ["002", "003", "004", "005"]) {
      const src = await prod.ok("POST", "/platform/external-accounts", {
        currency: "EUR",
        accountInfo: { accountType: "EUR_ACCOUNT", iban: ibanEnding(suffix), beneficiary: { beneficiaryType: "BUSINESS", legalName: "Prod Co", countryOfResidence: "DE" } }
      }, 201)
      const pulled = await prod.ok("POST", "/transfer-in", { source: { accountId: src.id }, destination: { accountId: accounts.EUR }, amount: AMOUNT }, 201)
      expect(pulled.status, suffix).toBe("COMPLETED")
      const paid = await prod.ok("POST", "/transfer-out", { source: { accountId: accounts.EUR }, destination: { accountId: src.id }, amount: AMOUNT }, 201)
      expect(paid.status, suffix).toBe("COMPLETED")
    }
    await prod.ok("POST", "/transfer-in", {
      source: { accountId: (await prod.ok("POST", "/platform/external-accounts", {
        currency: "EUR",
        accountInfo: { accountType: "EUR_ACCOUNT", iban: ibanEnding("000"), beneficiary: { beneficiaryType: "BUSINESS", legalName: "Prod Co", countryOfResidence: "DE" } }
      }, 201)).id },
      destination: { accountId: accounts.EUR },
      amount: 10 * AMOUNT
    }, 201)
    for (const suffix of ["002", "003", "004", "005", "006", "007"]) {
      const dest = await prod.ok("POST", "/platform/external-accounts", {
        currency: "EUR",
        accountInfo: { accountType: "EUR_ACCOUNT", iban: ibanEnding(suffix), beneficiary: { beneficiaryType: "BUSINESS", legalName: "Prod Co", countryOfResidence: "DE" } }
      }, 201)
      const quote = await prod.pay(accounts.EUR, dest.id, AMOUNT)
      expect(quote.status, suffix).toBe("COMPLETED")
    }
    expect(await prod.balance(accounts.EUR)).toBe(4 * AMOUNT)
  })

  it("the sandbox endpoints answer 403", async () => {
    const accounts = await prod.platformAccounts()
    expect((await prod.call("POST", `/sandbox/internal-accounts/${accounts.USD}/fund`, { amount: 100 })).status).toBe(403)
    expect((await prod.call("POST", "/sandbox/clock/advance", { seconds: 5 })).status).toBe(403)
    expect((await prod.call("POST", "/sandbox/send", { quoteId: "Quote:00000000-0000-4000-8000-000000000000", currencyCode: "USD" })).status).toBe(403)
    expect((await prod.call("POST", "/sandbox/uma/receive", {
      senderUmaAddress: "$success.usd@sandbox.grid.uma.money",
      receiverUmaAddress: "$someone@sandbox.uma.local",
      receivingCurrencyCode: "USD",
      receivingCurrencyAmount: 100
    })).status).toBe(403)
  })
})
