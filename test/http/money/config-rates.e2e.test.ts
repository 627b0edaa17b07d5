/**
 * Platform configuration (GET /config, PATCH /config, PATCH /platform/config) and
 * exchange rates (GET /exchange-rates: platform fees included, cached 5 minutes on the
 * platform clock, QUOTE_RATE_UNAVAILABLE corridors left out).
 */
import { afterAll, describe, expect, it } from "vitest"
import { isErrorShape } from "../../support/api.js"
import { type MoneyClient, moneyApp, moneyPlatform } from "../../support/money.js"
import { rateAt } from "../../../src/rules/money/rates.js"

const p = moneyPlatform("config")
const unregulated = moneyPlatform("config-unregulated", { regulated: false, umaDomain: "pay.example.com" })
const rates = moneyPlatform("rates")
const crypto = moneyPlatform("rates-crypto", { currencies: ["BTC", "VND"] })
const app = moneyApp([p, unregulated, rates, crypto])
const [m, un, r, cr] = app.clients as [MoneyClient, MoneyClient, MoneyClient, MoneyClient]
afterAll(() => app.dispose())

describe("GET /config", () => {
  it("answers the defaults the platforms file implies", async () => {
    const cfg = await m.ok("GET", "/config")
    expect(cfg).toMatchObject({ id: "PlatformConfig:config", isRegulatedFinancialInstitution: true, feeConfigs: [], railFeeConfigs: [] })
    expect(cfg.supportedCurrencies.map((c: { currencyCode: string }) => c.currencyCode)).toEqual(["USD", "EUR", "MXN"])
    for (const c of cfg.supportedCurrencies) expect(c).toMatchObject({ minAmount: 1, enabledTransactionTypes: ["INCOMING", "OUTGOING"] })
    const other = await un.ok("GET", "/config")
    expect(other).toMatchObject({ isRegulatedFinancialInstitution: false, umaDomain: "pay.example.com" })
  })
})

describe("GET /config's instants", () => {
  it("are real instants on the platform clock from the first read; a PATCH keeps createdAt and moves updatedAt", async () => {
    const t = moneyPlatform("config-instants")
    const tapp = moneyApp([t])
    const [c] = tapp.clients as [MoneyClient]
    try {
      const before = Date.parse((await c.ok("GET", "/sandbox/clock")).now)
      const first = await c.ok("GET", "/config")
      expect(first.createdAt).toBe(first.updatedAt)
      expect(Date.parse(first.createdAt)).toBeGreaterThanOrEqual(before)
      await c.ok("POST", "/sandbox/clock/advance", { seconds: 3600 })
      expect(await c.ok("GET", "/config")).toEqual(first)
      const patched = await c.ok("PATCH", "/config", { feeConfigs: [] })
      expect(patched.createdAt).toBe(first.createdAt)
      expect(Date.parse(patched.updatedAt)).toBeGreaterThanOrEqual(Date.parse(first.createdAt) + 3_600_000)
    } finally {
      await tapp.dispose()
    }
  })
})

describe("PATCH /config and PATCH /platform/config", () => {
  it("store the fields sent and leave the rest; both paths change the same settings", async () => {
    const a = await m.ok("PATCH", "/config", { webhookEndpoint: "https://hooks.payments-test.invalid/payments", cardConfigs: { pinTargetOrigin: "https://app.payments-test.invalid" } })
    expect(a).toMatchObject({ webhookEndpoint: "https://hooks.payments-test.invalid/payments", cardConfigs: { pinTargetOrigin: "https://app.payments-test.invalid" } })
    const b = await m.ok("PATCH", "/platform/config", {
      feeConfigs: [{ feeType: "CROSS_CURRENCY_TRANSACTION", sourceCurrency: "USD", variableFeeBps: 25 }],
      cardTokenization2faConfig: { displayName: "Example", logoUrl: "https://cdn.payments-test.invalid/logo.png" }
    })
    expect(b).toMatchObject({
      webhookEndpoint: "https://hooks.payments-test.invalid/payments",
      feeConfigs: [{ feeType: "CROSS_CURRENCY_TRANSACTION", sourceCurrency: "USD", variableFeeBps: 25 }],
      cardTokenization2faConfig: { displayName: "Example" }
    })
    expect(Date.parse(b.updatedAt)).toBeGreaterThanOrEqual(Date.parse(a.updatedAt))
    expect(await m.ok("GET", "/config")).toEqual(b)
  })

  it("validates every field: bad URLs, origins, currencies, limits are 400 with every problem, and nothing is stored", async () => {
    const before = await m.ok("GET", "/config")
    const bad = await m.call("PATCH", "/config", { webhookEndpoint: "ftp://x", cardConfigs: { pinTargetOrigin: "http://app.payments-test.invalid/path" } })
    expect(bad.status).toBe(400)
    expect(isErrorShape(bad.body)).toBe(true)
    expect(bad.body.details.errors.map((e: { field: string }) => e.field)).toEqual(expect.arrayContaining(["webhookEndpoint", "cardConfigs.pinTargetOrigin"]))
    const currencies = await m.call("PATCH", "/config", {
      supportedCurrencies: [{ currencyCode: "XYZ", minAmount: 10, maxAmount: 5, requiredCounterpartyFields: [], enabledTransactionTypes: ["OUTGOING"] }],
      limits: { singleTransaction: [{ currency: "ZZZ", maxAmount: 5 }] }
    })
    expect(currencies.status).toBe(400)
    expect(currencies.body.details.errors.map((e: { field: string }) => e.field)).toEqual(expect.arrayContaining([
      "supportedCurrencies[0].currencyCode",
      "supportedCurrencies[0].minAmount",
      "limits.singleTransaction[0].currency"
    ]))
    expect((await m.call("PATCH", "/config", { railFeeConfigs: [{ rail: "CARRIER_PIGEON", sourceCurrency: "USD", variableFeeBps: 1 }] })).status).toBe(400)
    expect((await m.call("PATCH", "/config", { supportedCurrencies: [] })).status).toBe(400)
    expect(await m.ok("GET", "/config")).toEqual(before)
  })

  it("supportedCurrencies decide the accounts a newly approved customer gets", async () => {
    const local = moneyPlatform("config-currencies")
    const lapp = moneyApp([local])
    try {
      const l = lapp.clients[0]!
      const entry = (currencyCode: string) => ({ currencyCode, minAmount: 1, maxAmount: 1_000_000, requiredCounterpartyFields: [], enabledTransactionTypes: ["INCOMING", "OUTGOING"] })
      await l.ok("PATCH", "/config", { supportedCurrencies: [entry("USD"), entry("GBP")] })
      const c = await l.customer()
      const accounts = await l.accountsOf(c.id)
      expect(Object.keys(accounts).sort()).toEqual(["GBP", "USD"])
    } finally {
      await lapp.dispose()
    }
  })
})

describe("GET /exchange-rates", () => {
  it("one corridor: the rate of the platform clock's 5-minute bucket, as sending units per receiving unit", async () => {
    const res = await r.ok("GET", "/exchange-rates?sourceCurrency=USD&destinationCurrency=EUR")
    expect(res.data).toHaveLength(1)
    const x = res.data[0]
    const at = Date.parse(x.updatedAt)
    expect(at % 300_000).toBe(0)
    const rate = rateAt("USD", "EUR", at)!.rate
    expect(x).toMatchObject({
      sourceCurrency: { code: "USD" },
      destinationCurrency: { code: "EUR" },
      sendingAmount: 10_000,
      exchangeRate: Number((1 / rate).toPrecision(10)),
      receivingAmount: Math.floor(10_000 * rate + 1e-9),
      destinationPaymentRail: "SEPA_INSTANT"
    })
  })

  it("several destinations, a sending amount, and the platform's fees included", async () => {
    await r.ok("PATCH", "/config", { feeConfigs: [{ feeType: "CROSS_CURRENCY_TRANSACTION", sourceCurrency: "USD", fixedFee: { amount: 100, currency: "USD" } }] })
    const res = await r.ok("GET", "/exchange-rates?sourceCurrency=USD&destinationCurrency=EUR&destinationCurrency=MXN&sendingAmount=50000")
    expect(res.data.map((x: { destinationCurrency: { code: string } }) => x.destinationCurrency.code).sort()).toEqual(["EUR", "MXN"])
    for (const x of res.data) {
      expect(x.sendingAmount).toBe(50_000)
      expect(x.fees).toMatchObject({ fixed: 100, total: 100 })
      const rate = rateAt("USD", x.destinationCurrency.code, Date.parse(x.updatedAt))!.rate
      expect(x.receivingAmount).toBeLessThanOrEqual(Math.floor(49_900 * rate + 1e-6))
      expect(x.receivingAmount).toBeGreaterThanOrEqual(Math.floor(49_900 * rate) - 1)
    }
  })

  it("sendingAmount=0 (the reference's minimum) answers the rates for nothing sent; a negative amount is a 400", async () => {
    const zero = await r.call("GET", "/exchange-rates?sourceCurrency=USD&destinationCurrency=EUR&sendingAmount=0")
    expect(zero.status, JSON.stringify(zero.body)).toBe(200)
    for (const x of zero.body.data) {
      expect(x.sendingAmount).toBe(0)
      expect(x.receivingAmount).toBe(0)
    }
    expect((await r.call("GET", "/exchange-rates?sourceCurrency=USD&destinationCurrency=EUR&sendingAmount=-1")).status).toBe(400)
    // With a fee larger than the amount: still an answer, nothing received.
    await r.ok("PATCH", "/config", { feeConfigs: [{ feeType: "CROSS_CURRENCY_TRANSACTION", sourceCurrency: "USD", fixedFee: { amount: 100, currency: "USD" } }] })
    const feed = await r.call("GET", "/exchange-rates?sourceCurrency=USD&destinationCurrency=EUR&sendingAmount=0")
    expect(feed.status, JSON.stringify(feed.body)).toBe(200)
    for (const x of feed.body.data) expect(x.receivingAmount).toBe(0)
  })

  it("destinationCurrency comma-joined (the SDK's form), repeated (the reference's) or mixed: the same answer", async () => {
    const codes = (res: { data: ReadonlyArray<{ destinationCurrency: { code: string } }> }) => res.data.map((x) => x.destinationCurrency.code).sort()
    const repeated = await r.ok("GET", "/exchange-rates?sourceCurrency=USD&destinationCurrency=EUR&destinationCurrency=MXN")
    const joined = await r.ok("GET", "/exchange-rates?sourceCurrency=USD&destinationCurrency=EUR,MXN")
    const encoded = await r.ok("GET", "/exchange-rates?sourceCurrency=USD&destinationCurrency=EUR%2CMXN")
    const mixed = await r.ok("GET", "/exchange-rates?sourceCurrency=USD&destinationCurrency=EUR,MXN&destinationCurrency=EUR")
    expect(codes(repeated)).toEqual(["EUR", "MXN"])
    for (const res of [joined, encoded, mixed]) expect(codes(res)).toEqual(["EUR", "MXN"])
  })

  it("an empty or invalid piece of a comma-joined destinationCurrency is a 400 naming the parameter", async () => {
    for (const q of ["EUR,", "EUR,,MXN", "EUR,mxn"]) {
      const res = await r.call("GET", `/exchange-rates?sourceCurrency=USD&destinationCurrency=${q}`)
      expect(res.status, q).toBe(400)
      expect(isErrorShape(res.body)).toBe(true)
      expect(JSON.stringify(res.body)).toContain("destinationCurrency")
    }
    const many = Array.from({ length: 51 }, () => "EUR").join(",")
    expect((await r.call("GET", `/exchange-rates?sourceCurrency=USD&destinationCurrency=${many}`)).status).toBe(400)
  })

  it("the rate changes only when the 5-minute cache expires on the platform clock", async () => {
    const first = (await r.ok("GET", "/exchange-rates?sourceCurrency=USD&destinationCurrency=MXN")).data[0]
    const now = await r.clock()
    const bucketEnd = (Math.floor(now / 300_000) + 1) * 300_000
    if (bucketEnd - now > 2_000) {
      await r.advance(1)
      expect((await r.ok("GET", "/exchange-rates?sourceCurrency=USD&destinationCurrency=MXN")).data[0]).toEqual(first)
    }
    await r.advance(300)
    const later = (await r.ok("GET", "/exchange-rates?sourceCurrency=USD&destinationCurrency=MXN")).data[0]
    expect(Date.parse(later.updatedAt)).toBeGreaterThan(Date.parse(first.updatedAt))
    expect(later.exchangeRate).toBe(Number((1 / rateAt("USD", "MXN", Date.parse(later.updatedAt))!.rate).toPrecision(10)))
  })

  it("an unknown currency is 400 INVALID_CURRENCY; a corridor with no rate (BTC -> VND) is left out", async () => {
    const bad = await r.call("GET", "/exchange-rates?sourceCurrency=XYZ")
    expect(bad.status).toBe(400)
    expect(bad.body.code).toBe("INVALID_CURRENCY")
    expect((await cr.ok("GET", "/exchange-rates?sourceCurrency=BTC&destinationCurrency=VND")).data).toEqual([])
    expect((await cr.ok("GET", "/exchange-rates?sourceCurrency=VND&destinationCurrency=BTC")).data).toHaveLength(1)
  })

  it("without a source: every supported currency to every other", async () => {
    const res = await r.ok("GET", "/exchange-rates?destinationCurrency=GBP")
    expect(res.data.map((x: { sourceCurrency: { code: string } }) => x.sourceCurrency.code).sort()).toEqual(["EUR", "MXN", "USD"])
  })
})

describe("GET /discoveries", () => {
  it("answers the static catalogue", async () => {
    const res = await m.call("GET", "/discoveries")
    expect(res.status).toBe(200)
    expect(Array.isArray(res.body.data)).toBe(true)
  })
})
