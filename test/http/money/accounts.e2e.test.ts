/**
 * Internal accounts over HTTP: opened on KYC/KYB approval (one per platform currency),
 * listed with filters and paging, the platform's own accounts, sandbox funding and its
 * bounds, balances after moves, and the INTERNAL_ACCOUNT.* events.
 */
import { afterAll, describe, expect, it } from "vitest"
import { isErrorShape } from "../../support/api.js"
import { moneyApp, moneyPlatform } from "../../support/money.js"

const regulated = moneyPlatform("acc-regulated")
const skip = moneyPlatform("acc-skip", { regulated: false, skipVerificationPaperwork: true })
const crypto = moneyPlatform("acc-crypto", { currencies: ["USD", "GBP", "BTC"] })
const production = moneyPlatform("acc-production", { sandbox: false })
const app = moneyApp([regulated, skip, crypto, production])
const [m, s, c, prod] = app.clients as [typeof app.clients[0], typeof app.clients[0], typeof app.clients[0], typeof app.clients[0]]
afterAll(() => app.dispose())

describe("internal accounts are opened on approval", () => {
  it("a customer approved at creation has one ACTIVE account per platform currency, empty", async () => {
    const cust = await m.customer()
    expect(cust.kycStatus).toBe("APPROVED")
    const list = await m.ok("GET", `/customers/internal-accounts?customerId=${cust.id}`)
    expect(list.data.map((a: { balance: { currency: { code: string } } }) => a.balance.currency.code).sort()).toEqual(["EUR", "MXN", "USD"])
    for (const a of list.data) {
      expect(a).toMatchObject({ customerId: cust.id, type: "INTERNAL_FIAT", status: "ACTIVE", balance: { amount: 0 }, totalBalance: { amount: 0 } })
      expect(a.id).toMatch(/^InternalAccount:/)
      expect(a.fundingPaymentInstructions.length).toBeGreaterThan(0)
    }
    expect(list.totalCount).toBe(3)
    expect(list.hasMore).toBe(false)
  })

  it("an unverified customer has none; KYB approval on first submission opens them with no further call", async () => {
    const biz = await s.ok("POST", "/customers", { customerType: "BUSINESS", businessInfo: { legalName: "Acme Ltd", registrationNumber: "REG-77" } }, 201)
    expect(biz.kybStatus).toBe("UNVERIFIED")
    expect((await s.ok("GET", `/customers/internal-accounts?customerId=${biz.id}`)).data).toEqual([])
    const v = await s.ok("POST", "/verifications", { customerId: biz.id })
    expect(v.verificationStatus).toBe("APPROVED")
    const after = await s.ok("GET", `/customers/internal-accounts?customerId=${biz.id}`)
    expect(after.data).toHaveLength(3)
  })

  it("a rejected customer gets no accounts", async () => {
    const rejected = await m.customer({}, "Rex Jected 002")
    expect(rejected.kycStatus).toBe("REJECTED")
    expect((await m.ok("GET", `/customers/internal-accounts?customerId=${rejected.id}`)).data).toEqual([])
  })

  it("the platform's currencies decide the accounts: a crypto currency gets an INTERNAL_CRYPTO account", async () => {
    const cust = await c.customer()
    const list = await c.ok("GET", `/customers/internal-accounts?customerId=${cust.id}`)
    const byCode = Object.fromEntries(list.data.map((a: { type: string; balance: { currency: { code: string; decimals: number } } }) => [a.balance.currency.code, a]))
    expect(Object.keys(byCode).sort()).toEqual(["BTC", "GBP", "USD"])
    expect(byCode["BTC"].type).toBe("INTERNAL_CRYPTO")
    expect(byCode["BTC"].balance.currency).toEqual({ code: "BTC", name: "Bitcoin", symbol: "₿", decimals: 8 })
    expect(byCode["GBP"].type).toBe("INTERNAL_FIAT")
  })
})

describe("GET /customers/internal-accounts", () => {
  it("filters by customerId, currency and type, and pages with a cursor", async () => {
    const p = moneyPlatform("acc-list")
    const local = moneyApp([p])
    try {
      const lm = local.clients[0]!
      const a = await lm.customer()
      const b = await lm.customer()
      const all = await lm.ok("GET", "/customers/internal-accounts")
      expect(all.totalCount).toBe(6)
      const eur = await lm.ok("GET", "/customers/internal-accounts?currency=EUR")
      expect(eur.data).toHaveLength(2)
      expect(eur.data.every((x: { balance: { currency: { code: string } } }) => x.balance.currency.code === "EUR")).toBe(true)
      expect(new Set(eur.data.map((x: { customerId: string }) => x.customerId))).toEqual(new Set([a.id, b.id]))
      const oneCustomerUsd = await lm.ok("GET", `/customers/internal-accounts?customerId=${a.id}&currency=USD`)
      expect(oneCustomerUsd.data).toHaveLength(1)
      expect(oneCustomerUsd.data[0].customerId).toBe(a.id)
      expect((await lm.ok("GET", "/customers/internal-accounts?type=INTERNAL_CRYPTO")).data).toEqual([])
      expect((await lm.ok("GET", "/customers/internal-accounts?type=INTERNAL_FIAT")).totalCount).toBe(6)
      // Paging: 4 + 2, no repeats, the customers' accounts only (never the platform's).
      const first = await lm.ok("GET", "/customers/internal-accounts?limit=4")
      expect(first.data).toHaveLength(4)
      expect(first.hasMore).toBe(true)
      const second = await lm.ok("GET", `/customers/internal-accounts?limit=4&cursor=${encodeURIComponent(first.nextCursor)}`)
      expect(second.data).toHaveLength(2)
      expect(second.hasMore).toBe(false)
      const ids = [...first.data, ...second.data].map((x: { id: string }) => x.id)
      expect(new Set(ids).size).toBe(6)
      expect(ids.sort()).toEqual(all.data.map((x: { id: string }) => x.id).sort())
      expect([...first.data, ...second.data].every((x: { customerId?: string }) => x.customerId !== undefined)).toBe(true)
    } finally {
      await local.dispose()
    }
  })

  it("rejects an unknown type and a limit out of range with 400", async () => {
    expect((await m.call("GET", "/customers/internal-accounts?type=SAVINGS")).status).toBe(400)
    expect((await m.call("GET", "/customers/internal-accounts?limit=0")).status).toBe(400)
    expect((await m.call("GET", "/customers/internal-accounts?limit=101")).status).toBe(400)
  })

  it("never lists another platform's accounts", async () => {
    const other = await c.customer()
    const mine = await m.ok("GET", `/customers/internal-accounts?customerId=${other.id}`)
    expect(mine.data).toEqual([])
  })
})

describe("GET /platform/internal-accounts", () => {
  it("lists the platform's own accounts, one per currency, with no customerId; filters by currency and type", async () => {
    const list = await m.ok("GET", "/platform/internal-accounts")
    expect(list.data.map((a: { balance: { currency: { code: string } } }) => a.balance.currency.code).sort()).toEqual(["EUR", "MXN", "USD"])
    for (const a of list.data) {
      expect(a.customerId).toBeUndefined()
      expect(a.status).toBe("ACTIVE")
      expect(a.fundingPaymentInstructions[0].isPlatformAccount).toBe(true)
    }
    // The same accounts on every read.
    expect((await m.ok("GET", "/platform/internal-accounts")).data.map((a: { id: string }) => a.id)).toEqual(list.data.map((a: { id: string }) => a.id))
    const usd = await m.ok("GET", "/platform/internal-accounts?currency=USD")
    expect(usd.data).toHaveLength(1)
    expect(usd.data[0].balance.currency.code).toBe("USD")
    expect((await m.ok("GET", "/platform/internal-accounts?type=INTERNAL_CRYPTO")).data).toEqual([])
    expect((await c.ok("GET", "/platform/internal-accounts?type=INTERNAL_CRYPTO")).data).toHaveLength(1)
  })
})

describe("POST /sandbox/internal-accounts/{accountId}/fund", () => {
  it("credits the amount in minor units, within 1..100,000,000,000", async () => {
    const cust = await m.fundedCustomer()
    const one = await m.fund(cust.accounts.USD, 1)
    expect(one.balance.amount).toBe(1)
    const max = await m.fund(cust.accounts.USD, 100_000_000_000)
    expect(max.balance.amount).toBe(100_000_000_001)
    expect(max.id).toBe(cust.accounts.USD)
    expect(await m.balance(cust.accounts.USD, cust.id)).toBe(100_000_000_001)
  })

  it.each([0, -1, 100_000_000_001, 1.5])("amount %s is 400 and credits nothing", async (amount) => {
    const cust = await m.fundedCustomer()
    const r = await m.call("POST", `/sandbox/internal-accounts/${cust.accounts.USD}/fund`, { amount })
    expect(r.status).toBe(400)
    expect(isErrorShape(r.body)).toBe(true)
    expect(await m.balance(cust.accounts.USD, cust.id)).toBe(0)
  })

  it("a missing amount is 400", async () => {
    const cust = await m.fundedCustomer()
    expect((await m.call("POST", `/sandbox/internal-accounts/${cust.accounts.USD}/fund`, {})).status).toBe(400)
  })

  it("an unknown account, or another platform's, is 404", async () => {
    const r = await m.call("POST", "/sandbox/internal-accounts/InternalAccount:00000000-0000-4000-8000-000000000000/fund", { amount: 100 })
    expect(r.status).toBe(404)
    expect(isErrorShape(r.body)).toBe(true)
    const foreign = await c.fundedCustomer()
    expect((await m.call("POST", `/sandbox/internal-accounts/${foreign.accounts.USD}/fund`, { amount: 100 })).status).toBe(404)
  })

  it("a production platform (sandbox: false) gets 403", async () => {
    // No customer is approved on production without a review, so fund the platform's own account.
    const accounts = await prod.platformAccounts()
    const r = await prod.call("POST", `/sandbox/internal-accounts/${accounts.USD}/fund`, { amount: 100 })
    expect(r.status).toBe(403)
    expect(isErrorShape(r.body)).toBe(true)
    expect(await prod.balance(accounts.USD)).toBe(0)
  })

  it("funds the platform's own accounts too", async () => {
    const accounts = await m.platformAccounts()
    const before = await m.balance(accounts.EUR)
    const r = await m.fund(accounts.EUR, 5_000)
    expect(r.balance.amount).toBe(before + 5_000)
    expect(r.customerId).toBeUndefined()
  })
})

describe("balances after moves", () => {
  it("an internal USD -> EUR conversion debits the total and credits the receiving amount", async () => {
    const cust = await m.fundedCustomer({ USD: 50_000 })
    const q = await m.pay(cust.accounts.USD, cust.accounts.EUR, 20_000)
    expect(q.status).toBe("COMPLETED")
    expect(await m.balance(cust.accounts.USD, cust.id)).toBe(30_000)
    expect(await m.balance(cust.accounts.EUR, cust.id)).toBe(q.totalReceivingAmount)
    expect(await m.balance(cust.accounts.MXN, cust.id)).toBe(0)
  })

  it("a same-currency payment between two customers moves the exact amount", async () => {
    const a = await m.fundedCustomer({ MXN: 10_000 })
    const b = await m.fundedCustomer()
    const q = await m.pay(a.accounts.MXN, b.accounts.MXN, 2_500)
    expect(q).toMatchObject({ status: "COMPLETED", totalSendingAmount: 2_500, totalReceivingAmount: 2_500, feesIncluded: 0 })
    expect(await m.balance(a.accounts.MXN, a.id)).toBe(7_500)
    expect(await m.balance(b.accounts.MXN, b.id)).toBe(2_500)
  })
})

describe("INTERNAL_ACCOUNT.* events", () => {
  it("opening announces STATUS_UPDATED (ACTIVE) per account; funding and payments announce BALANCE_UPDATED with the new balance", async () => {
    const p = moneyPlatform("acc-events")
    const local = moneyApp([p])
    try {
      const lm = local.clients[0]!
      const cust = await lm.fundedCustomer({ USD: 1_000 })
      const events = await lm.events()
      const opened = events.filter((e) => e.type === "INTERNAL_ACCOUNT.STATUS_UPDATED")
      // The customer's three and the platform's own three.
      expect(opened).toHaveLength(6)
      const customerOpened = opened.filter((e) => (e.data as { customerId?: string }).customerId === cust.id)
      expect(customerOpened.map((e) => (e.data as { id: string }).id).sort()).toEqual(Object.values(cust.accounts).sort())
      for (const e of customerOpened) expect(e.data).toMatchObject({ status: "ACTIVE", balance: { amount: 0 } })
      const funded = events.filter((e) => e.type === "INTERNAL_ACCOUNT.BALANCE_UPDATED")
      expect(funded).toHaveLength(1)
      expect(funded[0]!.data).toMatchObject({ id: cust.accounts.USD, balance: { amount: 1_000 } })
      expect(funded[0]!.id).toMatch(/^Webhook:/)
      await lm.pay(cust.accounts.USD, cust.accounts.EUR, 400)
      const after = (await lm.events()).filter((e) => e.type === "INTERNAL_ACCOUNT.BALANCE_UPDATED").map((e) => e.data as { id: string; balance: { amount: number } })
      const usd = after.filter((d) => d.id === cust.accounts.USD).map((d) => d.balance.amount)
      const eur = after.filter((d) => d.id === cust.accounts.EUR).map((d) => d.balance.amount)
      // One announcement per change: the payer's on the debit into flight, the payee's on
      // the settlement; neither again for the move that left its balance as it was.
      expect(usd).toEqual([1_000, 600])
      expect(eur).toEqual([await lm.balance(cust.accounts.EUR, cust.id)])
      expect(eur[0]).toBeGreaterThan(0)
    } finally {
      await local.dispose()
    }
  })
})
