/**
 * GET /discoveries, GET /receiver/uma/{receiverUmaAddress} and
 * GET /receiver/external-account/{accountId} through the HTTP API in-process, each
 * answer validated against the reference file's schema (Ajv, as
 * test/conformance/onboarding.test.ts does).
 */
import { Ajv2020 } from "ajv/dist/2020.js"
import { afterAll, describe, expect, it } from "vitest"
import { parse } from "yaml"
import { paymentRailsOf } from "../../../src/domain/external-account.js"
import { CURRENCIES } from "../../../src/domain/money.js"
import { type Platform, platformFromConfig } from "../../../src/domain/platform.js"
import { DISCOVERY_CATALOGUE, WALLET_CURRENCIES } from "../../../src/rules/money/discoveries.js"
import { DEFAULT_SINGLE_TRANSACTION_LIMITS } from "../../../src/rules/money/limits.js"
import { apiExchangeRate, rateAt } from "../../../src/rules/money/rates.js"
import { evmWallet, makeApi, type Reply, usdAccount } from "../../support/api.js"
import { referenceDocument } from "../../support/fixtures.js"

// ---------------------------------------------------------------- reference schemas

const reference = referenceDocument<{
  components: { schemas: Record<string, unknown> }
}>()
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false })
ajv.addSchema({ $id: "ref", components: { schemas: reference.components.schemas } })
const conforms = (schema: string, body: unknown) => {
  const validate = ajv.compile({ $ref: `ref#/components/schemas/${schema}` })
  const ok = validate(body)
  expect(ok, `${schema}: ${(validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`).join("; ")}`).toBe(true)
}

// ---------------------------------------------------------------- app

const platform = (id: string, extra: Partial<Parameters<typeof platformFromConfig>[0]> = {}): Platform =>
  platformFromConfig({ id, clientId: `${id}-client`, clientSecret: `${id}-secret-123`, regulated: true, ...extra })

/** Regulated sandbox platforms: customers APPROVED at creation, with USD, EUR and MXN internal accounts. */
const sandboxA = platform("lookups-a")
const sandboxB = platform("lookups-b")
const production = platform("lookups-prod", { sandbox: false })
const configured = platform("lookups-config")

const api = makeApi([sandboxA, sandboxB, production, configured])
afterAll(() => api.dispose())

const get = (path: string, as: Platform = sandboxA): Promise<Reply> => api.call("GET", path, { as })
const ok = async (method: string, path: string, as: Platform = sandboxA, body?: unknown, status = 200) => {
  const r = await api.call(method, path, { as, ...(body === undefined ? {} : { body }) })
  expect(r.status, `${method} ${path}: ${JSON.stringify(r.body)}`).toBe(status)
  return r.body
}

let seq = 0
const customer = async (as: Platform = sandboxA, extra: Record<string, unknown> = {}) =>
  (await ok("POST", "/customers", as, { customerType: "INDIVIDUAL", fullName: "Ada Lovelace", platformCustomerId: `pc-${++seq}`, ...extra }, 201)) as {
    id: string
    umaAddress: string
  }

const accountsOf = async (customerId: string, as: Platform = sandboxA): Promise<Record<string, string>> => {
  const list = await ok("GET", `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}`, as)
  return Object.fromEntries((list.data as Array<{ id: string; balance: { currency: { code: string } } }>).map((a) => [a.balance.currency.code, a.id]))
}

const lookupUma = (address: string, query: Record<string, string>, as: Platform = sandboxA) =>
  get(`/receiver/uma/${encodeURIComponent(address)}?${new URLSearchParams(query)}`, as)
const lookupAccount = (id: string, query: Record<string, string>, as: Platform = sandboxA) =>
  get(`/receiver/external-account/${encodeURIComponent(id)}?${new URLSearchParams(query)}`, as)

const SANDBOX_DOMAIN = "sandbox.grid.uma.money"
const LOOKUP_ID = /^Lookup:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

interface Preference {
  readonly currency: { readonly code: string }
  readonly estimatedExchangeRate: number
  readonly min: number
  readonly max: number
}
const codesOf = (body: { supportedCurrencies: ReadonlyArray<Preference> }) => body.supportedCurrencies.map((c) => c.currency.code).sort()
const preferenceIn = (body: { supportedCurrencies: ReadonlyArray<Preference> }, code: string): Preference => {
  const p = body.supportedCurrencies.find((c) => c.currency.code === code)
  if (p === undefined) throw new Error(`no ${code} in ${JSON.stringify(body)}`)
  return p
}

/** The estimate a corridor has on the platform's clock around a call (the 5-minute bucket may turn during it). */
const estimateAround = async (source: string, destination: string, call: () => Promise<Reply>, as: Platform = sandboxA) => {
  const before = Date.parse((await ok("GET", "/sandbox/clock", as)).now)
  const reply = await call()
  const after = Date.parse((await ok("GET", "/sandbox/clock", as)).now)
  const expected = [before, after].map((t) => apiExchangeRate(rateAt(source, destination, t)!.rate))
  return { reply, expected }
}

// ---------------------------------------------------------------- discoveries

describe("GET /discoveries", () => {
  it("without filters: every catalogue entry, with the reference's fields, for every fiat currency the service knows", async () => {
    const body = await ok("GET", "/discoveries")
    conforms("DiscoveryListResponse", body)
    const data = body.data as Array<Record<string, unknown>>
    expect(data.length).toBe(DISCOVERY_CATALOGUE.reduce((n, c) => n + c.institutions.length, 0))
    for (const d of data) expect(Object.keys(d).sort()).toEqual(["bankName", "country", "currency", "displayName", "paymentRails"])
    const currencies = new Set(data.map((d) => d["currency"]))
    for (const code of Object.keys(CURRENCIES)) expect(currencies.has(code), code).toBe(!WALLET_CURRENCIES.has(code))
  })

  it("each institution's rails are rails its currency's account type takes", async () => {
    const data = (await ok("GET", "/discoveries")).data as Array<{ currency: string; paymentRails: Array<string> }>
    for (const d of data) {
      expect(d.paymentRails.length).toBeGreaterThan(0)
      for (const rail of d.paymentRails) expect(paymentRailsOf(`${d.currency}_ACCOUNT`)).toContain(rail)
    }
  })

  it("one corridor: the Philippines in PHP (the reference's own example)", async () => {
    const body = await ok("GET", "/discoveries?country=PH&currency=PHP")
    conforms("DiscoveryListResponse", body)
    expect(body.data).toContainEqual({ bankName: "BDO Unibank", displayName: "BDO Unibank", country: "PH", currency: "PHP", paymentRails: ["BANK_TRANSFER"] })
    expect(body.data).toContainEqual({ bankName: "BPI", displayName: "Bank of the Philippine Islands", country: "PH", currency: "PHP", paymentRails: ["BANK_TRANSFER"] })
    for (const d of body.data) expect([d.country, d.currency]).toEqual(["PH", "PHP"])
  })

  it("by currency only (EUR: several countries, SEPA rails) and by country only (Kenya: mobile-money providers)", async () => {
    const eur = (await ok("GET", "/discoveries?currency=EUR")).data as Array<{ country: string; currency: string; paymentRails: Array<string> }>
    expect(new Set(eur.map((d) => d.country)).size).toBeGreaterThan(1)
    for (const d of eur) {
      expect(d.currency).toBe("EUR")
      expect(d.paymentRails).toEqual(["SEPA", "SEPA_INSTANT"])
    }
    const ke = (await ok("GET", "/discoveries?country=KE")).data as Array<{ bankName: string; paymentRails: Array<string> }>
    expect(ke.map((d) => d.bankName)).toContain("M-Pesa")
    for (const d of ke) expect(d.paymentRails).toEqual(["MOBILE_MONEY"])
    const usd = (await ok("GET", "/discoveries?currency=USD")).data as Array<{ paymentRails: Array<string> }>
    for (const d of usd) expect(d.paymentRails).toEqual(paymentRailsOf("USD_ACCOUNT"))
  })

  it("a well-formed country or currency the catalogue does not list: an empty list", async () => {
    for (const q of ["country=ZZ", "currency=XYZ", "country=US&currency=EUR", "currency=USDC", "currency=BTC"]) {
      const body = await ok("GET", `/discoveries?${q}`)
      expect(body, q).toEqual({ data: [] })
    }
  })

  it("a malformed filter: 400 INVALID_INPUT naming it", async () => {
    for (const [q, fields] of [
      ["country=usa", ["country"]],
      ["country=us", ["country"]],
      ["currency=usd", ["currency"]],
      ["currency=DOLLARS", ["currency"]],
      ["country=1&currency=2", ["country", "currency"]]
    ] as const) {
      const r = await get(`/discoveries?${q}`)
      expect(r.status, q).toBe(400)
      expect(r.body.code).toBe("INVALID_INPUT")
      expect((r.body.details.errors as Array<{ field: string }>).map((e) => e.field).sort(), q).toEqual([...fields])
    }
  })

  it("needs the platform's credentials", async () => {
    const r = await api.handler(new Request("http://test/2025-10-13/discoveries"))
    expect(r.status).toBe(401)
  })
})

// ---------------------------------------------------------------- UMA lookup

describe("GET /receiver/uma/{receiverUmaAddress}", () => {
  it("a customer of the platform: the currencies of its internal accounts, priced from the sender's", async () => {
    const receiver = await customer(sandboxA, { umaAddress: "$grace@lookups.test" })
    const sender = await customer()
    const { reply, expected } = await estimateAround("USD", "EUR", () => lookupUma("$grace@lookups.test", { customerId: sender.id }))
    expect(reply.status, JSON.stringify(reply.body)).toBe(200)
    conforms("ReceiverUmaLookupResponse", reply.body)
    expect(reply.body.receiverUmaAddress).toBe("$grace@lookups.test")
    expect(codesOf(reply.body)).toEqual(Object.keys(await accountsOf(receiver.id)).sort())
    expect(codesOf(reply.body)).toEqual(["EUR", "MXN", "USD"])
    expect(reply.body.lookupId).toMatch(LOOKUP_ID)
    expect(reply.body.requiredPayerDataFields).toEqual([])
    // The sender holds USD first: USD to USD is exactly 1, USD to EUR the sandbox rate of the platform's clock.
    const usd = preferenceIn(reply.body, "USD")
    expect(usd).toEqual({ currency: CURRENCIES["USD"], estimatedExchangeRate: 1, min: 1, max: DEFAULT_SINGLE_TRANSACTION_LIMITS["USD"] })
    expect(expected).toContain(preferenceIn(reply.body, "EUR").estimatedExchangeRate)
    for (const p of reply.body.supportedCurrencies as Array<Preference>) {
      expect(p.min).toBe(1)
      expect(p.max).toBeGreaterThan(p.min)
    }
  })

  it("each lookup has its own lookupId", async () => {
    await customer(sandboxA, { umaAddress: "$twice@lookups.test" })
    const sender = await customer()
    const a = await lookupUma("$twice@lookups.test", { customerId: sender.id })
    const b = await lookupUma("$twice@lookups.test", { customerId: sender.id })
    expect(a.body.lookupId).toMatch(LOOKUP_ID)
    expect(b.body.lookupId).not.toBe(a.body.lookupId)
  })

  it("the address is matched case-insensitively and may be sent unencoded", async () => {
    await customer(sandboxA, { umaAddress: "$hopper@lookups.test" })
    const sender = await customer()
    const upper = await lookupUma("$HOPPER@Lookups.Test", { customerId: sender.id })
    expect(upper.status).toBe(200)
    expect(upper.body.receiverUmaAddress).toBe("$HOPPER@Lookups.Test")
    const raw = await get(`/receiver/uma/$hopper@lookups.test?customerId=${encodeURIComponent(sender.id)}`)
    expect(raw.status, JSON.stringify(raw.body)).toBe(200)
    expect(codesOf(raw.body)).toEqual(["EUR", "MXN", "USD"])
  })

  it("the sandbox UMA counterparties receive in their own currency", async () => {
    const sender = await customer()
    for (const [local, code] of [["success.usd", "USD"], ["success.eur", "EUR"], ["success.mxn", "MXN"], ["pending.long.usd", "USD"], ["fail.compliance.usd", "USD"]] as const) {
      const r = await lookupUma(`$${local}@${SANDBOX_DOMAIN}`, { customerId: sender.id })
      expect(r.status, local).toBe(200)
      conforms("ReceiverUmaLookupResponse", r.body)
      expect(codesOf(r.body), local).toEqual([code])
    }
    const unknown = await lookupUma(`$nobody@${SANDBOX_DOMAIN}`, { customerId: sender.id })
    expect(unknown.status).toBe(404)
    expect(unknown.body.code).toBe("UMA_NOT_FOUND")
  })

  it("the sender's currency: a customer by UMA address, a sandbox counterparty's own, else the platform's first", async () => {
    await customer(sandboxA, { umaAddress: "$sender@lookups.test" })
    const byAddress = await lookupUma(`$success.eur@${SANDBOX_DOMAIN}`, { senderUmaAddress: "$sender@lookups.test" })
    expect(byAddress.status).toBe(200)
    const mxnSender = await estimateAround("MXN", "EUR", () => lookupUma(`$success.eur@${SANDBOX_DOMAIN}`, { senderUmaAddress: `$success.mxn@${SANDBOX_DOMAIN}` }))
    expect(mxnSender.reply.status).toBe(200)
    expect(mxnSender.expected).toContain(preferenceIn(mxnSender.reply.body, "EUR").estimatedExchangeRate)
    const foreign = await lookupUma(`$success.usd@${SANDBOX_DOMAIN}`, { senderUmaAddress: "$bob@elsewhere.test" })
    expect(foreign.status).toBe(200)
    expect(preferenceIn(foreign.body, "USD").estimatedExchangeRate).toBe(1)
  })

  it("the receiving platform's required counterparty fields are the payer data it asks for", async () => {
    const bounds = { minAmount: 1, maxAmount: 100_000_000, enabledTransactionTypes: ["INCOMING", "OUTGOING"] }
    await ok("PATCH", "/config", configured, {
      supportedCurrencies: [
        { currencyCode: "USD", ...bounds, requiredCounterpartyFields: [{ name: "FULL_NAME", mandatory: false }] },
        { currencyCode: "EUR", ...bounds, requiredCounterpartyFields: [{ name: "FULL_NAME", mandatory: true }, { name: "BIRTH_DATE", mandatory: false }] },
        { currencyCode: "MXN", ...bounds, requiredCounterpartyFields: [] }
      ]
    })
    await customer(configured, { umaAddress: "$payee@configured.test" })
    const sender = await customer(configured)
    const r = await lookupUma("$payee@configured.test", { customerId: sender.id }, configured)
    expect(r.status).toBe(200)
    conforms("ReceiverUmaLookupResponse", r.body)
    expect(r.body.requiredPayerDataFields).toEqual([{ name: "FULL_NAME", mandatory: true }, { name: "BIRTH_DATE", mandatory: false }])
  })

  it("a platform's single-transaction limit bounds the amount: the limit converted into the receiving currency", async () => {
    await ok("PATCH", "/config", sandboxB, { limits: { singleTransaction: [{ currency: "USD", maxAmount: 50_000 }] } })
    await customer(sandboxB, { umaAddress: "$limited@lookups.test" })
    const sender = await customer(sandboxB)
    const r = await lookupUma("$limited@lookups.test", { customerId: sender.id }, sandboxB)
    expect(preferenceIn(r.body, "USD").max).toBe(50_000)
  })

  it("a malformed address: 400 INVALID_UMA_ADDRESS", async () => {
    const sender = await customer()
    for (const address of ["not-an-address", "grace@lookups.test", "$grace", "$a@b@c", "$bad space@lookups.test", "$x@-bad-.test"]) {
      const r = await lookupUma(address, { customerId: sender.id })
      expect(r.status, address).toBe(400)
      expect(r.body.code).toBe("INVALID_UMA_ADDRESS")
    }
    const badSender = await lookupUma(`$success.usd@${SANDBOX_DOMAIN}`, { senderUmaAddress: "sender" })
    expect(badSender.status).toBe(400)
    expect(badSender.body.code).toBe("INVALID_UMA_ADDRESS")
    expect(badSender.body.reason).toContain("senderUmaAddress")
  })

  it("an address no one receives at: 404 UMA_NOT_FOUND (another platform's customers and deleted customers included)", async () => {
    const sender = await customer()
    const unknown = await lookupUma("$nobody@lookups.test", { customerId: sender.id })
    expect(unknown.status).toBe(404)
    expect(unknown.body.code).toBe("UMA_NOT_FOUND")
    await customer(sandboxB, { umaAddress: "$other-platform@lookups.test" })
    expect((await lookupUma("$other-platform@lookups.test", { customerId: sender.id })).body.code).toBe("UMA_NOT_FOUND")
    const gone = await customer(sandboxA, { umaAddress: "$gone@lookups.test" })
    await ok("DELETE", `/customers/${encodeURIComponent(gone.id)}`)
    expect((await lookupUma("$gone@lookups.test", { customerId: sender.id })).body.code).toBe("UMA_NOT_FOUND")
  })

  it("on a production platform the sandbox counterparties do not exist", async () => {
    const sender = await customer(production)
    const r = await lookupUma(`$success.usd@${SANDBOX_DOMAIN}`, { customerId: sender.id }, production)
    expect(r.status).toBe(404)
    expect(r.body.code).toBe("UMA_NOT_FOUND")
  })

  it("the sender: one of senderUmaAddress and customerId is required, and they must agree", async () => {
    const none = await lookupUma(`$success.usd@${SANDBOX_DOMAIN}`, {})
    expect(none.status).toBe(400)
    expect(none.body.code).toBe("INVALID_INPUT")
    expect(none.body.details.errors[0].field).toBe("senderUmaAddress")
    const missing = await lookupUma(`$success.usd@${SANDBOX_DOMAIN}`, { customerId: "Customer:00000000-0000-4000-8000-000000000000" })
    expect(missing.status).toBe(404)
    expect(missing.body.code).toBe("USER_NOT_FOUND")
    await customer(sandboxA, { umaAddress: "$one@lookups.test" })
    const two = await customer()
    const mismatch = await lookupUma(`$success.usd@${SANDBOX_DOMAIN}`, { customerId: two.id, senderUmaAddress: "$one@lookups.test" })
    expect(mismatch.status).toBe(400)
    expect(mismatch.body.details.errors[0].field).toBe("customerId")
  })

  it("a query parameter past its maximum: 400 INVALID_INPUT naming it", async () => {
    const long = `$${"a".repeat(300)}@lookups.test`
    const r = await lookupUma(`$success.usd@${SANDBOX_DOMAIN}`, { senderUmaAddress: long })
    expect(r.status).toBe(400)
    expect(r.body.code).toBe("INVALID_INPUT")
    expect(r.body.details.errors[0].field).toBe("senderUmaAddress")
  })

  it("a quote may carry the lookupId (it is not required)", async () => {
    const sender = await customer()
    const accounts = await accountsOf(sender.id)
    await ok("POST", `/sandbox/internal-accounts/${encodeURIComponent(accounts["USD"]!)}/fund`, sandboxA, { amount: 100_000 })
    const lookup = await lookupUma(`$success.eur@${SANDBOX_DOMAIN}`, { customerId: sender.id })
    const quote = await ok("POST", "/quotes", sandboxA, {
      lookupId: lookup.body.lookupId,
      source: { sourceType: "ACCOUNT", accountId: accounts["USD"] },
      destination: { destinationType: "UMA_ADDRESS", umaAddress: `$success.eur@${SANDBOX_DOMAIN}`, currency: "EUR" },
      lockedCurrencySide: "SENDING",
      lockedCurrencyAmount: 10_000
    }, 201)
    expect(quote.receivingCurrency.code).toBe("EUR")
    // The estimate is the quote's rate unless the 5-minute bucket turned in between (drift is at most 0.5% each way).
    const estimate = preferenceIn(lookup.body, "EUR").estimatedExchangeRate
    expect(Math.abs(quote.exchangeRate / estimate - 1)).toBeLessThan(0.011)
  })
})

// ---------------------------------------------------------------- external account lookup

describe("GET /receiver/external-account/{accountId}", () => {
  it("a customer's external account: its currency, priced from the sender's", async () => {
    const owner = await customer()
    const account = await ok("POST", "/customers/external-accounts", sandboxA, usdAccount(owner.id, "4400012345"), 201)
    const r = await lookupAccount(account.id, { customerId: owner.id })
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    conforms("ReceiverExternalAccountLookupResponse", r.body)
    expect(r.body.accountId).toBe(account.id)
    expect(r.body.lookupId).toMatch(LOOKUP_ID)
    expect(r.body.supportedCurrencies).toEqual([{ currency: CURRENCIES["USD"], estimatedExchangeRate: 1, min: 1, max: DEFAULT_SINGLE_TRANSACTION_LIMITS["USD"] }])
    const eurSender = await estimateAround("EUR", "USD", () => lookupAccount(account.id, { senderUmaAddress: `$success.eur@${SANDBOX_DOMAIN}` }))
    expect(eurSender.reply.status).toBe(200)
    expect(eurSender.expected).toContain(preferenceIn(eurSender.reply.body, "USD").estimatedExchangeRate)
  })

  it("a platform-owned account and a wallet", async () => {
    const sender = await customer()
    const platformAccount = await ok("POST", "/platform/external-accounts", sandboxA, {
      currency: "USD",
      accountInfo: usdAccount("x", "4400067890").accountInfo
    }, 201)
    const r = await lookupAccount(platformAccount.id, { customerId: sender.id })
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    conforms("ReceiverExternalAccountLookupResponse", r.body)
    const wallet = await ok("POST", "/customers/external-accounts", sandboxA, evmWallet(sender.id, "0x52908400098527886E0F7030069857D2E4169EE7"), 201)
    const w = await lookupAccount(wallet.id, { customerId: sender.id })
    expect(w.status, JSON.stringify(w.body)).toBe(200)
    conforms("ReceiverExternalAccountLookupResponse", w.body)
    expect(w.body.supportedCurrencies[0].currency.code).toBe("USDC")
    expect(w.body.supportedCurrencies[0].estimatedExchangeRate).toBe(1)
  })

  it("an account the platform does not have: 404 (another platform's included)", async () => {
    const sender = await customer()
    const missing = await lookupAccount("ExternalAccount:00000000-0000-4000-8000-000000000000", { customerId: sender.id })
    expect(missing.status).toBe(404)
    expect(missing.body.code).toBe("NOT_FOUND")
    const ownerB = await customer(sandboxB)
    const theirs = await ok("POST", "/customers/external-accounts", sandboxB, usdAccount(ownerB.id, "4400054321"), 201)
    expect((await lookupAccount(theirs.id, { customerId: sender.id })).status).toBe(404)
  })

  it("the sender rules are the UMA lookup's", async () => {
    const owner = await customer()
    const account = await ok("POST", "/customers/external-accounts", sandboxA, usdAccount(owner.id, "4400011111"), 201)
    const none = await lookupAccount(account.id, {})
    expect(none.status).toBe(400)
    expect(none.body.details.errors[0].field).toBe("senderUmaAddress")
    const bad = await lookupAccount(account.id, { senderUmaAddress: "nope" })
    expect(bad.body.code).toBe("INVALID_UMA_ADDRESS")
  })
})
