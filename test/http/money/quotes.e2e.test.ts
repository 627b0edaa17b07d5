/**
 * Quotes over HTTP: the locked side's exact arithmetic (docs/money-rules.md), fees from
 * the platform config, per-rail fees, platformFeeOverride, rail pinning and the
 * ACH_SAME_DAY cap on the platform clock, expiry, immediatelyExecute, execution with and
 * without Idempotency-Key, and each rejection SPEC.md lists.
 */
import { afterAll, describe, expect, it } from "vitest"
import { isErrorShape } from "../../support/api.js"
import { consent, eutConsent, moneyApp, moneyPlatform } from "../../support/money.js"
import { rateAt } from "../../../src/rules/money/rates.js"

const p = moneyPlatform("quotes")
const fees = moneyPlatform("quotes-fees")
const clocked = moneyPlatform("quotes-clock")
const cap = moneyPlatform("quotes-cap")
const daily = moneyPlatform("quotes-daily")
const micro = moneyPlatform("quotes-micro")
const unregulated = moneyPlatform("quotes-unregulated", { regulated: false, skipVerificationPaperwork: true })
const travel = moneyPlatform("quotes-travel", { travelRule: true, currencies: ["USD", "USDC"] })
const crypto = moneyPlatform("quotes-crypto", { currencies: ["BTC", "VND", "USD"] })
const app = moneyApp([p, fees, clocked, cap, daily, micro, unregulated, travel, crypto])
const [m, f, ck, cp, dl, mi, un, tr, cr] = app.clients as [
  typeof app.clients[0], typeof app.clients[0], typeof app.clients[0], typeof app.clients[0], typeof app.clients[0],
  typeof app.clients[0], typeof app.clients[0], typeof app.clients[0], typeof app.clients[0]
]
afterAll(() => app.dispose())

// ---------------------------------------------------------------- exact arithmetic, written independently

/** A float rate as the exact decimal it is read as (15 significant digits). */
const exact = (rate: number): { num: bigint; den: bigint } => {
  const [mant, exp] = rate.toExponential(14).split("e") as [string, string]
  const digits = BigInt(mant.replace(".", ""))
  const e = Number(exp) - 14
  return e >= 0 ? { num: digits * 10n ** BigInt(e), den: 1n } : { num: digits, den: 10n ** BigInt(-e) }
}
const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b
/** Receiving minor units for `c` sending minor units (both currencies 2 decimals), rounded down. */
const receive = (c: number, rate: number) => {
  const r = exact(rate)
  return Number((BigInt(c) * r.num) / r.den)
}
/** Sending minor units needed for `amount` receiving minor units, rounded up. */
const needed = (amount: number, rate: number) => {
  const r = exact(rate)
  return Number(ceilDiv(BigInt(amount) * r.den, r.num))
}
const bpsFee = (amount: number, bps: number) => Number(ceilDiv(BigInt(amount) * BigInt(bps), 10_000n))
/** The largest c with c + fee(c) <= total. */
const largestConverted = (total: number, fee: (c: number) => number) => {
  let c = total
  while (c > 0 && c + fee(c) > total) c--
  return c
}
const rateOf = (q: { createdAt: string; sendingCurrency: { code: string }; receivingCurrency: { code: string } }) =>
  rateAt(q.sendingCurrency.code, q.receivingCurrency.code, Date.parse(q.createdAt))!.rate

// ---------------------------------------------------------------- pricing

describe("POST /quotes: the locked side's arithmetic", () => {
  it("SENDING, cross-currency: the total is the locked amount and the receiver gets floor(amount × rate)", async () => {
    const c = await m.fundedCustomer({ USD: 100_000 })
    const r = await m.quote(m.quoteBody(c.accounts.USD, c.accounts.EUR, 12_345))
    expect(r.status).toBe(201)
    const q = r.body
    const rate = rateOf(q)
    expect(q).toMatchObject({
      status: "PENDING",
      totalSendingAmount: 12_345,
      totalReceivingAmount: receive(12_345, rate),
      feesIncluded: 0,
      platformFeesIncluded: 0,
      sendingCurrency: { code: "USD", decimals: 2 },
      receivingCurrency: { code: "EUR", decimals: 2 },
      source: { sourceType: "ACCOUNT", accountId: c.accounts.USD },
      destination: { destinationType: "ACCOUNT", accountId: c.accounts.EUR }
    })
    // exchangeRate: sending units per receiving unit (1 / rate, 10 significant digits).
    expect(q.exchangeRate).toBe(Number((1 / rate).toPrecision(10)))
    expect(Date.parse(q.expiresAt) - Date.parse(q.createdAt)).toBe(300_000)
    expect(q.id).toMatch(/^Quote:/)
    expect(q.transactionId).toMatch(/^Transaction:/)
    const got = await m.ok("GET", `/quotes/${q.id}`)
    expect(got).toEqual(q)
    // A quote moves no money.
    expect(await m.balance(c.accounts.USD, c.id)).toBe(100_000)
  })

  it("RECEIVING, cross-currency: the receiver gets exactly the locked amount, the sender pays ceil(amount / rate)", async () => {
    const c = await m.fundedCustomer({ USD: 100_000 })
    const q = (await m.ok("POST", "/quotes", { ...m.quoteBody(c.accounts.USD, c.accounts.MXN, 0), lockedCurrencySide: "RECEIVING", lockedCurrencyAmount: 99_999 }, 201))
    const rate = rateOf(q)
    expect(q.totalReceivingAmount).toBe(99_999)
    expect(q.totalSendingAmount).toBe(needed(99_999, rate))
    expect(q.feesIncluded).toBe(0)
    // The sender never pays less than the rate asks: one cent less would not buy it.
    expect(receive(q.totalSendingAmount - 1, rate)).toBeLessThan(99_999)
    expect(receive(q.totalSendingAmount, rate)).toBeGreaterThanOrEqual(99_999)
  })

  it("same currency: rate 1, sending equals receiving on both sides", async () => {
    const a = await m.fundedCustomer({ EUR: 10_000 })
    const b = await m.fundedCustomer()
    for (const side of ["SENDING", "RECEIVING"]) {
      const q = await m.ok("POST", "/quotes", { ...m.quoteBody(a.accounts.EUR, b.accounts.EUR, 777), lockedCurrencySide: side }, 201)
      expect(q).toMatchObject({ totalSendingAmount: 777, totalReceivingAmount: 777, exchangeRate: 1, feesIncluded: 0 })
    }
  })

  it("carries remittanceInformation and purposeOfPayment onto nothing it should not; an unknown purpose is 400", async () => {
    const c = await m.fundedCustomer({ USD: 1_000 })
    const ok = await m.quote(m.quoteBody(c.accounts.USD, c.accounts.EUR, 500, { remittanceInformation: "Invoice 42", purposeOfPayment: "GIFT" }))
    expect(ok.status).toBe(201)
    const bad = await m.quote(m.quoteBody(c.accounts.USD, c.accounts.EUR, 500, { purposeOfPayment: "BRIBE" }))
    expect(bad.status).toBe(400)
    const long = await m.quote(m.quoteBody(c.accounts.USD, c.accounts.EUR, 500, { remittanceInformation: "x".repeat(81) }))
    expect(long.status).toBe(400)
  })

  it("a quote's description is carried to its transaction (executed at once or later); longer than 1000 characters is 400", async () => {
    const c = await m.fundedCustomer({ USD: 10_000 })
    const now = await m.quote(m.quoteBody(c.accounts.USD, c.accounts.EUR, 500, { immediatelyExecute: true, description: "Invoice #1234 payment" }))
    expect(now.status).toBe(201)
    expect(await m.transaction(now.body.transactionId)).toMatchObject({ description: "Invoice #1234 payment", quoteId: now.body.id })
    const later = await m.ok("POST", "/quotes", m.quoteBody(c.accounts.USD, c.accounts.EUR, 600, { description: "Rent, March" }), 201)
    await m.ok("POST", `/quotes/${later.id}/execute`)
    expect(await m.transaction(later.transactionId)).toMatchObject({ description: "Rent, March" })
    const none = await m.ok("POST", "/quotes", m.quoteBody(c.accounts.USD, c.accounts.EUR, 700, { immediatelyExecute: true }), 201)
    expect(await m.transaction(none.transactionId)).not.toHaveProperty("description")
    const long = await m.quote(m.quoteBody(c.accounts.USD, c.accounts.EUR, 500, { description: "x".repeat(1001) }))
    expect(long.status).toBe(400)
  })

  it("GET /quotes/{id} of an unknown quote is 404", async () => {
    const r = await m.call("GET", "/quotes/Quote:00000000-0000-4000-8000-000000000000")
    expect(r.status).toBe(404)
    expect(isErrorShape(r.body)).toBe(true)
    expect(r.body.code).toBe("QUOTE_NOT_FOUND")
  })
})

describe("platform fees", () => {
  it("PATCH /config feeConfigs: variable bps rounded up plus fixed, levied on the amount converted, included in the total (SENDING)", async () => {
    const cfg = await f.ok("PATCH", "/config", {
      feeConfigs: [{ feeType: "CROSS_CURRENCY_TRANSACTION", sourceCurrency: "USD", variableFeeBps: 150, fixedFee: { amount: 50, currency: "USD" } }]
    })
    expect(cfg.feeConfigs).toHaveLength(1)
    const c = await f.fundedCustomer({ USD: 100_000 })
    const q = await f.ok("POST", "/quotes", f.quoteBody(c.accounts.USD, c.accounts.EUR, 10_001), 201)
    const fee = (x: number) => bpsFee(x, 150) + 50
    const converted = largestConverted(10_001, fee)
    expect(q.totalSendingAmount).toBe(10_001)
    expect(q.feesIncluded).toBe(10_001 - converted)
    expect(q.platformFeesIncluded).toBe(q.feesIncluded)
    expect(q.feesIncluded).toBeGreaterThanOrEqual(fee(converted))
    expect(q.totalReceivingAmount).toBe(receive(converted, rateOf(q)))
  })

  it("RECEIVING with fees: total = ceil(locked / rate) + fee of it", async () => {
    const c = await f.fundedCustomer({ USD: 100_000 })
    const q = await f.ok("POST", "/quotes", { ...f.quoteBody(c.accounts.USD, c.accounts.EUR, 0), lockedCurrencySide: "RECEIVING", lockedCurrencyAmount: 9_000 }, 201)
    const converted = needed(9_000, rateOf(q))
    const fee = bpsFee(converted, 150) + 50
    expect(q).toMatchObject({ totalReceivingAmount: 9_000, totalSendingAmount: converted + fee, feesIncluded: fee, platformFeesIncluded: fee })
    // Executing debits the whole total; the receiver gets exactly the locked amount.
    const x = await f.ok("POST", `/quotes/${q.id}/execute`)
    expect(x.status).toBe("COMPLETED")
    expect(await f.balance(c.accounts.USD, c.id)).toBe(100_000 - q.totalSendingAmount)
    expect(await f.balance(c.accounts.EUR, c.id)).toBe(9_000)
    const t = await f.transaction(q.transactionId)
    expect(t).toMatchObject({ fees: fee, platformFees: fee, sentAmount: { amount: q.totalSendingAmount }, receivedAmount: { amount: 9_000 } })
  })

  it("the cross-currency fee does not apply to same-currency payments nor to other sending currencies", async () => {
    const a = await f.fundedCustomer({ USD: 10_000, EUR: 10_000 })
    const b = await f.fundedCustomer()
    const same = await f.ok("POST", "/quotes", f.quoteBody(a.accounts.USD, b.accounts.USD, 5_000), 201)
    expect(same.feesIncluded).toBe(0)
    const eur = await f.ok("POST", "/quotes", f.quoteBody(a.accounts.EUR, a.accounts.USD, 5_000), 201)
    expect(eur.feesIncluded).toBe(0)
  })

  it("a fee config must have a USD source, a fixed fee in it, and some fee: 400 with every problem", async () => {
    const r = await f.call("PATCH", "/config", {
      feeConfigs: [
        { feeType: "CROSS_CURRENCY_TRANSACTION", sourceCurrency: "EUR", variableFeeBps: 10 },
        { feeType: "CROSS_CURRENCY_TRANSACTION", sourceCurrency: "USD", fixedFee: { amount: 5, currency: "EUR" } },
        { feeType: "CROSS_CURRENCY_TRANSACTION", sourceCurrency: "USD" }
      ]
    })
    expect(r.status).toBe(400)
    const fields = r.body.details.errors.map((e: { field: string }) => e.field)
    expect(fields).toEqual(expect.arrayContaining(["feeConfigs[0].sourceCurrency", "feeConfigs[1].fixedFee.currency", "feeConfigs[2]"]))
    expect((await f.call("PATCH", "/config", { feeConfigs: [{ feeType: "CROSS_CURRENCY_TRANSACTION", sourceCurrency: "USD", variableFeeBps: 10_001 }] })).status).toBe(400)
    // Nothing was stored.
    expect((await f.ok("GET", "/config")).feeConfigs[0].variableFeeBps).toBe(150)
  })

  it("railFeeConfigs: ACH_SAME_DAY is priced by its own config, same-currency too; ACH is not", async () => {
    const cfg = await f.ok("PATCH", "/platform/config", { railFeeConfigs: [{ rail: "ACH_SAME_DAY", sourceCurrency: "USD", fixedFee: { amount: 25, currency: "USD" }, variableFeeBps: 10 }] })
    expect(cfg.railFeeConfigs).toEqual([{ rail: "ACH_SAME_DAY", sourceCurrency: "USD", fixedFee: { amount: 25, currency: "USD" }, variableFeeBps: 10 }])
    const c = await f.fundedCustomer({ USD: 100_000 })
    const ext = await f.externalUsd(c.id, "555000111")
    const pinned = await f.ok("POST", "/quotes", { ...f.quoteBody(c.accounts.USD, ext.id, 10_000), destination: { destinationType: "ACCOUNT", accountId: ext.id, paymentRail: "ACH_SAME_DAY" } }, 201)
    const converted = largestConverted(10_000, (x) => bpsFee(x, 10) + 25)
    expect(pinned).toMatchObject({ totalSendingAmount: 10_000, totalReceivingAmount: converted, feesIncluded: 10_000 - converted, platformFeesIncluded: 10_000 - converted })
    const ach = await f.ok("POST", "/quotes", f.quoteBody(c.accounts.USD, ext.id, 10_000), 201)
    expect(ach).toMatchObject({ totalReceivingAmount: 10_000, feesIncluded: 0 })
    // Duplicate rails are refused.
    const dup = await f.call("PATCH", "/config", {
      railFeeConfigs: [{ rail: "ACH_SAME_DAY", sourceCurrency: "USD", fixedFee: { amount: 1, currency: "USD" } }, { rail: "ACH_SAME_DAY", sourceCurrency: "USD", variableFeeBps: 1 }]
    })
    expect(dup.status).toBe(400)
  })

  it("platformFeeOverride replaces the configured fees (USD source); another source currency is 400", async () => {
    const c = await f.fundedCustomer({ USD: 100_000, EUR: 100_000 })
    const override = { platformFixedFee: { amount: 7, currency: "USD" }, platformVariableFeeBps: 20 }
    const q = await f.ok("POST", "/quotes", f.quoteBody(c.accounts.USD, c.accounts.EUR, 10_000, { platformFeeOverride: override }), 201)
    const converted = largestConverted(10_000, (x) => bpsFee(x, 20) + 7)
    expect(q.feesIncluded).toBe(10_000 - converted)
    expect(q.platformFeesIncluded).toBe(10_000 - converted)
    expect(q.totalReceivingAmount).toBe(receive(converted, rateOf(q)))
    const zero = await f.ok("POST", "/quotes", f.quoteBody(c.accounts.USD, c.accounts.EUR, 10_000, {
      platformFeeOverride: { platformFixedFee: { amount: 0, currency: "USD" }, platformVariableFeeBps: 0 }
    }), 201)
    expect(zero.feesIncluded).toBe(0)
    const eur = await f.call("POST", "/quotes", f.quoteBody(c.accounts.EUR, c.accounts.USD, 10_000, {
      platformFeeOverride: { platformFixedFee: { amount: 7, currency: "EUR" }, platformVariableFeeBps: 20 }
    }))
    expect(eur.status).toBe(400)
    expect(eur.body.code).toBe("INVALID_INPUT")
    expect(eur.body.details.errors.length).toBeGreaterThan(0)
  })
})

// ---------------------------------------------------------------- rails

describe("destination paymentRail", () => {
  it("a USD payout defaults to ACH (AUTO); ACH_SAME_DAY only when pinned (MANUAL)", async () => {
    const c = await m.fundedCustomer({ USD: 100_000 })
    const ext = await m.externalUsd(c.id, "600000111")
    const auto = await m.pay(c.accounts.USD, ext.id, 1_000)
    expect(await m.transaction(auto.transactionId)).toMatchObject({ paymentRail: "ACH", railSelectionMode: "AUTO" })
    const pinned = await m.pay(c.accounts.USD, ext.id, 1_000, { destination: { destinationType: "ACCOUNT", accountId: ext.id, paymentRail: "ACH_SAME_DAY" } })
    expect(await m.transaction(pinned.transactionId)).toMatchObject({ paymentRail: "ACH_SAME_DAY", railSelectionMode: "MANUAL" })
    const wire = await m.pay(c.accounts.USD, ext.id, 1_000, { destination: { destinationType: "ACCOUNT", accountId: ext.id, paymentRail: "WIRE" } })
    expect(await m.transaction(wire.transactionId)).toMatchObject({ paymentRail: "WIRE", railSelectionMode: "MANUAL" })
  })

  it("ACH_SAME_DAY cannot be pinned for a EUR account nor for an internal destination: 400", async () => {
    const c = await m.fundedCustomer({ USD: 100_000 })
    const eur = await m.externalEur(c.id, "DE89370400440532013000")
    const r = await m.quote({ ...m.quoteBody(c.accounts.USD, eur.id, 1_000), destination: { destinationType: "ACCOUNT", accountId: eur.id, paymentRail: "ACH_SAME_DAY" } })
    expect(r.status).toBe(400)
    expect(r.body.details.errors[0].field).toBe("destination.paymentRail")
    const internal = await m.quote({ ...m.quoteBody(c.accounts.USD, c.accounts.EUR, 1_000), destination: { destinationType: "ACCOUNT", accountId: c.accounts.EUR, paymentRail: "ACH_SAME_DAY" } })
    expect(internal.status).toBe(400)
  })

  it("ACH_SAME_DAY cap: 1,000,000 USD per entry before 2027-09-17, 10,000,000 from then, on the platform clock", async () => {
    const CHANGE = Date.UTC(2027, 8, 17)
    await cp.ok("PATCH", "/config", {
      limits: { singleTransaction: [{ currency: "USD", maxAmount: 5_000_000_000 }], dailyVolume: [{ currency: "USD", maxAmount: 50_000_000_000 }] }
    })
    const c = await cp.fundedCustomer({ USD: 100_000_000_000 })
    const ext = await cp.externalUsd(c.id, "700000111")
    const sameDay = (amount: number) =>
      cp.quote({ ...cp.quoteBody(c.accounts.USD, ext.id, amount), destination: { destinationType: "ACCOUNT", accountId: ext.id, paymentRail: "ACH_SAME_DAY" } })
    if (await cp.clock() < CHANGE) {
      expect((await sameDay(100_000_000)).status).toBe(201)
      const above = await sameDay(100_000_001)
      expect(above.status).toBe(400)
      expect(above.body.code).toBe("TRANSACTION_SIZE_LIMIT_EXCEEDED")
      // Over ACH the same amount is fine: rejected, not slowed.
      expect((await cp.quote(cp.quoteBody(c.accounts.USD, ext.id, 100_000_001))).status).toBe(201)
      await cp.advance(Math.ceil((CHANGE - await cp.clock()) / 1000) + 60)
    }
    expect(await cp.clock()).toBeGreaterThanOrEqual(CHANGE)
    expect((await sameDay(100_000_001)).status).toBe(201)
    expect((await sameDay(1_000_000_000)).status).toBe(201)
    const above = await sameDay(1_000_000_001)
    expect(above.status).toBe(400)
    expect(above.body.code).toBe("TRANSACTION_SIZE_LIMIT_EXCEEDED")
  })
})

// ---------------------------------------------------------------- execution

describe("execution", () => {
  it("immediatelyExecute creates and executes in one request; the source is debited once", async () => {
    const c = await m.fundedCustomer({ USD: 10_000 })
    const r = await m.quote(m.quoteBody(c.accounts.USD, c.accounts.EUR, 4_000, { immediatelyExecute: true }))
    expect(r.status).toBe(201)
    expect(r.body.status).toBe("COMPLETED")
    expect(await m.balance(c.accounts.USD, c.id)).toBe(6_000)
    const t = await m.transaction(r.body.transactionId)
    expect(t).toMatchObject({ id: r.body.transactionId, type: "OUTGOING", status: "COMPLETED", quoteId: r.body.id, customerId: c.id })
    // Executing it again is a conflict.
    const again = await m.call("POST", `/quotes/${r.body.id}/execute`)
    expect(again.status).toBe(409)
    expect(await m.balance(c.accounts.USD, c.id)).toBe(6_000)
  })

  it("executing twice without a key: 409 the second time, one debit", async () => {
    const c = await m.fundedCustomer({ USD: 10_000 })
    const q = await m.ok("POST", "/quotes", m.quoteBody(c.accounts.USD, c.accounts.MXN, 1_000), 201)
    const first = await m.ok("POST", `/quotes/${q.id}/execute`)
    expect(first.status).toBe("COMPLETED")
    const second = await m.call("POST", `/quotes/${q.id}/execute`)
    expect(second.status).toBe(409)
    expect(isErrorShape(second.body)).toBe(true)
    expect(await m.balance(c.accounts.USD, c.id)).toBe(9_000)
  })

  it("Idempotency-Key: the same key replays the same quote with one debit; the key on another quote is 409", async () => {
    const c = await m.fundedCustomer({ USD: 10_000 })
    const q = await m.ok("POST", "/quotes", m.quoteBody(c.accounts.USD, c.accounts.EUR, 1_000), 201)
    const key = { "idempotency-key": `exec-${q.id}` }
    const a = await m.call("POST", `/quotes/${q.id}/execute`, undefined, key)
    const b = await m.call("POST", `/quotes/${q.id}/execute`, undefined, key)
    expect(a.status).toBe(200)
    expect(b.status).toBe(200)
    expect(b.body).toEqual(a.body)
    expect(await m.balance(c.accounts.USD, c.id)).toBe(9_000)
    const list = await m.ok("GET", `/transactions?customerId=${c.id}`)
    expect(list.data).toHaveLength(1)
    const other = await m.ok("POST", "/quotes", m.quoteBody(c.accounts.USD, c.accounts.EUR, 1_000), 201)
    const reused = await m.call("POST", `/quotes/${other.id}/execute`, undefined, key)
    expect(reused.status).toBe(409)
    expect(await m.balance(c.accounts.USD, c.id)).toBe(9_000)
    expect((await m.ok("GET", `/quotes/${other.id}`)).status).toBe("PENDING")
  })

  it("Idempotency-Key on POST /quotes: the same request gives the same quote; another request with the key is 409", async () => {
    const c = await m.fundedCustomer({ USD: 10_000 })
    const key = { "idempotency-key": `quote-${c.id}` }
    const body = m.quoteBody(c.accounts.USD, c.accounts.EUR, 1_000, { immediatelyExecute: true })
    const a = await m.quote(body, key)
    const b = await m.quote(body, key)
    expect(a.status).toBe(201)
    expect(b.status).toBe(201)
    expect(b.body.id).toBe(a.body.id)
    expect(await m.balance(c.accounts.USD, c.id)).toBe(9_000)
    expect((await m.quote({ ...body, lockedCurrencyAmount: 1_001 }, key)).status).toBe(409)
    expect(await m.balance(c.accounts.USD, c.id)).toBe(9_000)
  })

  it("executing an unknown quote is 404", async () => {
    expect((await m.call("POST", "/quotes/Quote:00000000-0000-4000-8000-000000000000/execute")).status).toBe(404)
  })

  it("expiry: after 5 minutes execution is 400 QUOTE_EXPIRED, GET shows EXPIRED, nothing is debited", async () => {
    const c = await ck.fundedCustomer({ USD: 10_000 })
    const q = await ck.ok("POST", "/quotes", ck.quoteBody(c.accounts.USD, c.accounts.EUR, 1_000), 201)
    await ck.advance(299)
    expect((await ck.ok("GET", `/quotes/${q.id}`)).status).toBe("PENDING")
    await ck.advance(2)
    expect((await ck.ok("GET", `/quotes/${q.id}`)).status).toBe("EXPIRED")
    const r = await ck.call("POST", `/quotes/${q.id}/execute`)
    expect(r.status).toBe(400)
    expect(r.body.code).toBe("QUOTE_EXPIRED")
    expect((await ck.ok("GET", `/quotes/${q.id}`)).status).toBe("EXPIRED")
    expect(await ck.balance(c.accounts.USD, c.id)).toBe(10_000)
  })

  it("a rate is cached 5 minutes on the platform clock: quotes within a bucket share it", async () => {
    const c = await ck.fundedCustomer({ USD: 10_000 })
    const a = await ck.ok("POST", "/quotes", ck.quoteBody(c.accounts.USD, c.accounts.EUR, 1_000), 201)
    const b = await ck.ok("POST", "/quotes", ck.quoteBody(c.accounts.USD, c.accounts.EUR, 1_000), 201)
    if (Math.floor(Date.parse(a.createdAt) / 300_000) === Math.floor(Date.parse(b.createdAt) / 300_000)) expect(b.exchangeRate).toBe(a.exchangeRate)
    const rates = await ck.ok("GET", "/exchange-rates?sourceCurrency=USD&destinationCurrency=EUR")
    expect(rates.data).toHaveLength(1)
  })
})

// ---------------------------------------------------------------- rejections

describe("rejections", () => {
  it("INSUFFICIENT_FUNDS counts the fees: a RECEIVING quote whose total exceeds the balance", async () => {
    const c = await f.fundedCustomer({ USD: 10_000 })
    const r = await f.quote({ ...f.quoteBody(c.accounts.USD, c.accounts.EUR, 0), lockedCurrencySide: "RECEIVING", lockedCurrencyAmount: Math.floor(10_000 * rateAt("USD", "EUR", await f.clock())!.rate) - 1 })
    expect(r.status).toBe(400)
    expect(r.body.code).toBe("INSUFFICIENT_FUNDS")
  })

  it("INSUFFICIENT_FUNDS at quote time, and at execution when the balance went meanwhile", async () => {
    const c = await m.fundedCustomer({ USD: 1_000 })
    const r = await m.quote(m.quoteBody(c.accounts.USD, c.accounts.EUR, 1_001))
    expect(r.status).toBe(400)
    expect(r.body.code).toBe("INSUFFICIENT_FUNDS")
    const q = await m.ok("POST", "/quotes", m.quoteBody(c.accounts.USD, c.accounts.EUR, 800), 201)
    await m.pay(c.accounts.USD, c.accounts.MXN, 500)
    const x = await m.call("POST", `/quotes/${q.id}/execute`)
    expect(x.status).toBe(400)
    expect(x.body.code).toBe("INSUFFICIENT_FUNDS")
    expect(await m.balance(c.accounts.USD, c.id)).toBe(500)
    expect((await m.ok("GET", `/quotes/${q.id}`)).status).toBe("PENDING")
  })

  it("END_USER_TERMS_NOT_ACCEPTED (403) on an unregulated platform until SERVICE_END_USER_TERMS is on file", async () => {
    const none = await un.fundedCustomer({ USD: 1_000 })
    expect(none.kycStatus).toBe("APPROVED")
    const r = await un.quote(un.quoteBody(none.accounts.USD, none.accounts.EUR, 100))
    expect(r.status).toBe(403)
    expect(r.body.code).toBe("END_USER_TERMS_NOT_ACCEPTED")
    // Another agreement is not enough.
    const privacy = await un.fundedCustomer({ USD: 1_000 }, { agreementConsents: [consent("PRIVACY_POLICY")] })
    expect((await un.quote(un.quoteBody(privacy.accounts.USD, privacy.accounts.EUR, 100))).body.code).toBe("END_USER_TERMS_NOT_ACCEPTED")
    // Accepted later by PATCH: quotes work.
    await un.ok("PATCH", `/customers/${none.id}`, { customerType: "INDIVIDUAL", agreementConsents: [consent()] })
    expect((await un.quote(un.quoteBody(none.accounts.USD, none.accounts.EUR, 100))).status).toBe(201)
  })

  it("the new field and the deprecated endUserTermsConsent are both accepted", async () => {
    const modern = await un.fundedCustomer({ USD: 1_000 }, { agreementConsents: [consent()] })
    expect((await un.quote(un.quoteBody(modern.accounts.USD, modern.accounts.EUR, 100))).status).toBe(201)
    const legacy = await un.fundedCustomer({ USD: 1_000 }, { endUserTermsConsent: eutConsent() })
    expect((await un.quote(un.quoteBody(legacy.accounts.USD, legacy.accounts.EUR, 100))).status).toBe(201)
    // A regulated platform needs no acceptance.
    const reg = await m.fundedCustomer({ USD: 1_000 })
    expect((await m.quote(m.quoteBody(reg.accounts.USD, reg.accounts.EUR, 100))).status).toBe(201)
  })

  it("EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED at 1,000 USD and above to a wallet awaiting ownership verification; below is allowed", async () => {
    const c = await tr.fundedCustomer({ USD: 1_000_000 })
    const w = await tr.ok("POST", "/customers/external-accounts", {
      customerId: c.id,
      currency: "USDC",
      ownershipType: "FIRST_PARTY",
      accountInfo: { accountType: "ETHEREUM_WALLET", address: "0x52908400098527886e0f7030069857d2e4169ee7" }
    }, 201)
    expect(w.status).toBe("PENDING_OWNERSHIP_VERIFICATION")
    const above = await tr.quote(tr.quoteBody(c.accounts.USD, w.id, 100_000))
    expect(above.status).toBe(400)
    expect(above.body.code).toBe("EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED")
    const below = await tr.quote(tr.quoteBody(c.accounts.USD, w.id, 99_999))
    expect(below.status).toBe(201)
    expect(below.body.totalReceivingAmount).toBe(999_990_000)
  })

  it("BANK_ACCOUNT_VALIDATION_PENDING (409) while micro-entry validation runs; validated after 3 days", async () => {
    const c = await mi.fundedCustomer({ USD: 10_000 })
    const pending = await mi.externalUsd(c.id, "800000111", { routingNumber: "021000901" })
    expect(pending.status).toBe("PENDING")
    const r = await mi.quote(mi.quoteBody(c.accounts.USD, pending.id, 1_000))
    expect(r.status).toBe(409)
    expect(r.body.code).toBe("BANK_ACCOUNT_VALIDATION_PENDING")
    const failing = await mi.externalUsd(c.id, "800000222", { routingNumber: "021000902" })
    expect((await mi.quote(mi.quoteBody(c.accounts.USD, failing.id, 1_000))).body.code).toBe("BANK_ACCOUNT_VALIDATION_PENDING")
    await mi.advance(3 * 86_400 + 60)
    expect((await mi.quote(mi.quoteBody(c.accounts.USD, pending.id, 1_000))).status).toBe(201)
    const invalid = await mi.quote(mi.quoteBody(c.accounts.USD, failing.id, 1_000))
    expect(invalid.status).toBe(400)
    expect(invalid.body.code).toBe("INVALID_BANK_ACCOUNT")
  })

  it("a US account needing no micro-entry validation is ACTIVE and can be paid at once", async () => {
    const c = await mi.fundedCustomer({ USD: 10_000 })
    const ok = await mi.externalUsd(c.id, "800000333")
    expect(ok.status).toBe("ACTIVE")
    const q = await mi.ok("POST", "/quotes", mi.quoteBody(c.accounts.USD, ok.id, 1_000), 201)
    expect((await mi.call("POST", `/quotes/${q.id}/execute`)).status).toBe(200)
  })

  it("TRANSACTION_SIZE_LIMIT_EXCEEDED above the default 1,000,000 USD and above a configured limit", async () => {
    const local = moneyPlatform("quotes-size")
    const lapp = moneyApp([local])
    try {
      const l = lapp.clients[0]!
      const c = await l.fundedCustomer({ USD: 100_000_000_000 })
      const over = await l.quote(l.quoteBody(c.accounts.USD, c.accounts.EUR, 100_000_001))
      expect(over.status).toBe(400)
      expect(over.body.code).toBe("TRANSACTION_SIZE_LIMIT_EXCEEDED")
      expect((await l.quote(l.quoteBody(c.accounts.USD, c.accounts.EUR, 100_000_000))).status).toBe(201)
      await l.ok("PATCH", "/config", { limits: { singleTransaction: [{ currency: "USD", maxAmount: 5_000 }] } })
      expect((await l.quote(l.quoteBody(c.accounts.USD, c.accounts.EUR, 5_000))).status).toBe(201)
      const configured = await l.quote(l.quoteBody(c.accounts.USD, c.accounts.EUR, 5_001))
      expect(configured.status).toBe(400)
      expect(configured.body.code).toBe("TRANSACTION_SIZE_LIMIT_EXCEEDED")
      // The limit is per sending currency: EUR is untouched.
      await l.fund(c.accounts.EUR, 100_000)
      expect((await l.quote(l.quoteBody(c.accounts.EUR, c.accounts.USD, 50_000))).status).toBe(201)
    } finally {
      await lapp.dispose()
    }
  })

  it("429 DAILY_VOLUME_LIMIT_EXCEEDED over the configured daily volume; the next day on the platform clock it resets", async () => {
    await dl.ok("PATCH", "/config", { limits: { dailyVolume: [{ currency: "USD", maxAmount: 10_000 }] } })
    const c = await dl.fundedCustomer({ USD: 100_000 })
    const other = await dl.fundedCustomer({ USD: 100_000 })
    await dl.pay(c.accounts.USD, c.accounts.EUR, 6_000)
    const over = await dl.quote(dl.quoteBody(c.accounts.USD, c.accounts.EUR, 5_000))
    expect(over.status).toBe(429)
    expect(over.body.code).toBe("DAILY_VOLUME_LIMIT_EXCEEDED")
    expect(isErrorShape(over.body)).toBe(true)
    // Nothing changes before the next day: a generated client must not retry it.
    expect(over.shouldRetry).toBe("false")
    // Up to the limit is fine; per customer.
    expect((await dl.quote(dl.quoteBody(c.accounts.USD, c.accounts.EUR, 4_000))).status).toBe(201)
    // A payment that failed and was refunded does not count.
    const failing = await dl.externalEur(other.id, "DE89370400440532011002")
    expect((await dl.pay(other.accounts.USD, failing.id, 1_000)).status).toBe("FAILED")
    expect((await dl.quote(dl.quoteBody(other.accounts.USD, other.accounts.EUR, 10_000))).status).toBe(201)
    const now = await dl.clock()
    await dl.advance(Math.ceil((86_400_000 - (now % 86_400_000)) / 1000) + 1)
    expect((await dl.quote(dl.quoteBody(c.accounts.USD, c.accounts.EUR, 9_000))).status).toBe(201)
  })

  it("QUOTE_RATE_UNAVAILABLE on the BTC -> VND corridor; VND -> BTC has a rate", async () => {
    const c = await cr.fundedCustomer({ BTC: 100_000_000, VND: 100_000_000 })
    const r = await cr.quote(cr.quoteBody(c.accounts["BTC"]!, c.accounts["VND"]!, 1_000_000))
    expect(r.status).toBe(400)
    expect(r.body.code).toBe("QUOTE_RATE_UNAVAILABLE")
    const back = await cr.quote(cr.quoteBody(c.accounts["VND"]!, c.accounts["BTC"]!, 10_000_000))
    expect(back.status).toBe(201)
    expect(back.body.receivingCurrency).toMatchObject({ code: "BTC", decimals: 8 })
    expect(back.body.sendingCurrency).toMatchObject({ code: "VND", decimals: 0 })
  })

  it("SELF_PAYMENT when the source is the destination", async () => {
    const c = await m.fundedCustomer({ USD: 1_000 })
    const r = await m.quote(m.quoteBody(c.accounts.USD, c.accounts.USD, 100))
    expect(r.status).toBe(400)
    expect(r.body.code).toBe("SELF_PAYMENT")
  })

  it("amounts: not a positive integer is 400; fees above the amount or a receiving amount of 0 is AMOUNT_OUT_OF_RANGE", async () => {
    const c = await f.fundedCustomer({ USD: 100_000 })
    for (const amount of [0, -5, 1.5, 9_000_000_000_000_001]) {
      const r = await f.quote(f.quoteBody(c.accounts.USD, c.accounts.EUR, amount))
      expect(r.status, String(amount)).toBe(400)
      expect(isErrorShape(r.body)).toBe(true)
    }
    // The fixed fee of 50 is more than 30.
    const tiny = await f.quote(f.quoteBody(c.accounts.USD, c.accounts.EUR, 30))
    expect(tiny.status).toBe(400)
    expect(tiny.body.code).toBe("AMOUNT_OUT_OF_RANGE")
    // One USD cent buys less than one EUR cent.
    const oneCent = await m.fundedCustomer({ USD: 100 })
    const zero = await m.quote(m.quoteBody(oneCent.accounts.USD, oneCent.accounts.EUR, 1))
    expect(zero.status).toBe(400)
    expect(zero.body.code).toBe("AMOUNT_OUT_OF_RANGE")
  })

  it("INVALID_CURRENCY for a real-time-funded quote in an unknown currency", async () => {
    const c = await m.fundedCustomer()
    const r = await m.quote({
      source: { sourceType: "REALTIME_FUNDING", customerId: c.id, currency: "XYZ" },
      destination: { destinationType: "ACCOUNT", accountId: c.accounts.USD },
      lockedCurrencySide: "SENDING",
      lockedCurrencyAmount: 1_000
    })
    expect(r.status).toBe(400)
    expect(r.body.code).toBe("INVALID_CURRENCY")
  })

  it("INVALID_UMA_ADDRESS for a destination that is not $name@domain; INVALID_RECEIVER (400, the reference lists no 404) for nobody's address", async () => {
    const c = await m.fundedCustomer({ USD: 1_000 })
    for (const umaAddress of ["alice@example.com", "$@example.com", "$alice", "$al ice@example.com"]) {
      const r = await m.quote({ ...m.quoteBody(c.accounts.USD, "x", 100), destination: { destinationType: "UMA_ADDRESS", umaAddress } })
      expect(r.status, umaAddress).toBe(400)
      expect(r.body.code).toBe("INVALID_UMA_ADDRESS")
    }
    const nobody = await m.quote({ ...m.quoteBody(c.accounts.USD, "x", 100), destination: { destinationType: "UMA_ADDRESS", umaAddress: "$nobody@sandbox.uma.local" } })
    expect(nobody.status).toBe(400)
    expect(nobody.body.code).toBe("INVALID_RECEIVER")
    expect(nobody.body.details.errors).toEqual([expect.objectContaining({ field: "destination.umaAddress", constraint: "exists" })])
  })

  it("an unknown source or destination account is 400 naming the field (the reference lists no 404); a customer not yet approved is 403", async () => {
    const c = await m.fundedCustomer({ USD: 1_000 })
    const unknownField = async (body: Record<string, unknown>, field: string) => {
      const r = await m.quote(body)
      expect(r.status, JSON.stringify(r.body)).toBe(400)
      expect(r.body.code).toBe("INVALID_INPUT")
      expect(r.body.details.errors).toEqual([expect.objectContaining({ field, constraint: "exists" })])
    }
    await unknownField(m.quoteBody("InternalAccount:00000000-0000-4000-8000-000000000000", c.accounts.EUR, 100), "source.accountId")
    await unknownField(m.quoteBody(c.accounts.USD, "ExternalAccount:00000000-0000-4000-8000-000000000000", 100), "destination.accountId")
    const foreign = await f.fundedCustomer()
    await unknownField(m.quoteBody(c.accounts.USD, foreign.accounts.EUR, 100), "destination.accountId")
    // A customer still in review cannot move money (here: paying in by real-time funding).
    const pending = await un.customer({}, "Pen Ding 001")
    expect(pending.kycStatus).toBe("PENDING")
    const payee = await un.fundedCustomer({}, { agreementConsents: [consent()] })
    const r = await un.quote({
      source: { sourceType: "REALTIME_FUNDING", customerId: pending.id, currency: "USD" },
      destination: { destinationType: "ACCOUNT", accountId: payee.accounts.USD },
      lockedCurrencySide: "SENDING",
      lockedCurrencyAmount: 1_000
    })
    expect(r.status).toBe(403)
    expect(isErrorShape(r.body)).toBe(true)
  })
})
