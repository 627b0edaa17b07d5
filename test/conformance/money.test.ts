/**
 * Conformance: every success response of the money endpoints validates against the
 * reference OpenAPI file's schema for it, with SPEC.md's differences applied to a copy
 * of the reference explicitly (`SPEC_DIFFERENCES`), and carries none of the reference's
 * `writeOnly` fields.
 */
import { Ajv2020 } from "ajv/dist/2020.js"
import { afterAll, describe, expect, it } from "vitest"
import { type MoneyClient, moneyApp, moneyPlatform } from "../support/money.js"
import { MONEY_OPERATIONS } from "./operations.js"
import { referenceDocument } from "../support/fixtures.js"

type Json = Record<string, unknown>

const reference = referenceDocument<{
  components: { schemas: Record<string, Json> }
}>()

/** A required property dropped from an object schema (or from the allOf part that requires it). */
const unrequire = (s: Record<string, Json>, name: string, property: string) => {
  const schema = s[name] as { required?: Array<string>; allOf?: Array<{ required?: Array<string> }> } | undefined
  if (schema === undefined) throw new Error(`reference ${name} missing; update SPEC_DIFFERENCES`)
  const parts = [schema, ...(schema.allOf ?? [])]
  const holder = parts.find((p) => p.required?.includes(property))
  if (holder?.required === undefined) throw new Error(`reference ${name} no longer requires ${property}; update SPEC_DIFFERENCES`)
  holder.required = holder.required.filter((r) => r !== property)
}

/** A property added to an object schema. */
const addProperty = (s: Record<string, Json>, name: string, property: string, schema: Json) => {
  const target = s[name] as { properties?: Json } | undefined
  if (target?.properties === undefined) throw new Error(`reference ${name} has no properties; update SPEC_DIFFERENCES`)
  if (property in target.properties) throw new Error(`reference ${name} already has ${property}; drop it from SPEC_DIFFERENCES`)
  target.properties[property] = schema
}

/**
 * SPEC.md's differences, applied to a copy of the reference:
 * - transactions of the platform's own money carry no `customerId` / `platformCustomerId`
 *   (the reference requires them; our decision, see docs/decisions.md);
 * - PlatformConfig has SPEC.md's per-rail fee configs (`railFeeConfigs`, each with a
 *   `rail`, ACH_SAME_DAY included), `cardConfigs.pinTargetOrigin`, and our `limits`;
 * - the `ACH_SAME_DAY` rail exists wherever a PaymentRail is named.
 */
const SPEC_DIFFERENCES = (s: Record<string, Json>) => {
  unrequire(s, "Transaction", "customerId")
  const tx = s["Transaction"] as { required?: Array<string> }
  if (tx.required?.includes("platformCustomerId")) unrequire(s, "Transaction", "platformCustomerId")
  const fee = { type: "object", properties: { amount: { type: "integer" }, currency: { type: "string" } } }
  addProperty(s, "PlatformConfig", "railFeeConfigs", {
    type: "array",
    items: { type: "object", required: ["rail", "sourceCurrency"], properties: { rail: { $ref: "#/components/schemas/PaymentRail" }, sourceCurrency: { type: "string" }, variableFeeBps: { type: "integer" }, fixedFee: fee } }
  })
  const config = s["PlatformConfig"] as { properties: Json }
  if (!("cardConfigs" in config.properties)) {
    addProperty(s, "PlatformConfig", "cardConfigs", { type: "object", properties: { pinTargetOrigin: { type: "string" } } })
  }
  addProperty(s, "PlatformConfig", "limits", { type: "object" })
  const rail = s["PaymentRail"] as { enum?: Array<string> } | undefined
  if (rail?.enum !== undefined && !rail.enum.includes("ACH_SAME_DAY")) rail.enum = [...rail.enum, "ACH_SAME_DAY"]
}

const schemas = structuredClone(reference.components.schemas)
SPEC_DIFFERENCES(schemas)
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false })
ajv.addSchema({ $id: "ref", components: { schemas } })
const validators = new Map<string, ReturnType<typeof ajv.compile>>()
const validator = (name: string) => {
  let v = validators.get(name)
  if (v === undefined) {
    v = ajv.compile({ $ref: `ref#/components/schemas/${name}` })
    validators.set(name, v)
  }
  return v
}

/** The properties the reference marks writeOnly anywhere under a schema (following $refs). */
const writeOnlyNamesOf = (schema: string): ReadonlySet<string> => {
  const names = new Set<string>()
  const seen = new Set<string>()
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk)
    if (typeof node !== "object" || node === null) return
    const ref = (node as { $ref?: unknown }).$ref
    if (typeof ref === "string") {
      const name = ref.replace("#/components/schemas/", "")
      if (!seen.has(name)) {
        seen.add(name)
        walk(reference.components.schemas[name])
      }
    }
    const properties = (node as { properties?: Record<string, { writeOnly?: boolean }> }).properties
    for (const [name, p] of Object.entries(properties ?? {})) if (p?.writeOnly === true) names.add(name)
    Object.values(node).forEach(walk)
  }
  walk(reference.components.schemas[schema])
  return names
}

/** How many bodies each schema validated (every money endpoint must be seen). */
const checked = new Map<string, number>()
const conforms = (schema: string, body: unknown, what: string) => {
  const validate = validator(schema)
  const ok = validate(body)
  expect(ok, `${what} as ${schema}: ${(validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`).join("; ")}`).toBe(true)
  const text = JSON.stringify(body)
  for (const name of writeOnlyNamesOf(schema)) expect(text.includes(`"${name}":`), `${what} answers write-only ${name}`).toBe(false)
  checked.set(what, (checked.get(what) ?? 0) + 1)
}

const p = moneyPlatform("conformance-money")
const app = moneyApp([p])
const [m] = app.clients as [MoneyClient]
afterAll(() => app.dispose())

describe("money responses against the reference", () => {
  it("internal accounts, funding, config and exchange rates", async () => {
    const c = await m.fundedCustomer()
    conforms("InternalAccountListResponse", await m.ok("GET", `/customers/internal-accounts?customerId=${c.id}`), "GET /customers/internal-accounts")
    conforms("PlatformInternalAccountListResponse", await m.ok("GET", "/platform/internal-accounts"), "GET /platform/internal-accounts")
    conforms("InternalAccount", await m.fund(c.accounts.USD, 1_000_000), "POST /sandbox/internal-accounts/{id}/fund")
    conforms("InternalAccount", await m.fund((await m.platformAccounts()).EUR, 1_000_000), "POST /sandbox/internal-accounts/{id}/fund")
    conforms("PlatformConfig", await m.ok("GET", "/config"), "GET /config")
    conforms("PlatformConfig", await m.ok("PATCH", "/config", {
      webhookEndpoint: "https://hooks.payments-test.invalid/x",
      feeConfigs: [{ feeType: "CROSS_CURRENCY_TRANSACTION", sourceCurrency: "USD", variableFeeBps: 10, fixedFee: { amount: 5, currency: "USD" } }],
      railFeeConfigs: [{ rail: "ACH_SAME_DAY", sourceCurrency: "USD", fixedFee: { amount: 25, currency: "USD" } }],
      cardConfigs: { pinTargetOrigin: "https://app.example.com" },
      limits: { dailyVolume: [{ currency: "USD", maxAmount: 100_000_000 }] }
    }), "PATCH /config")
    conforms("PlatformConfig", await m.ok("PATCH", "/platform/config", { umaDomain: "pay.example.com" }), "PATCH /platform/config")
    conforms("ExchangeRateListResponse", await m.ok("GET", "/exchange-rates?sourceCurrency=USD"), "GET /exchange-rates")
    conforms("ExchangeRateListResponse", await m.ok("GET", "/exchange-rates"), "GET /exchange-rates")
  })

  it("quotes (created, read, executed, immediately executed, pinned rail, real-time funded, UMA) and their transactions", async () => {
    const c = await m.fundedCustomer({ USD: 1_000_000, EUR: 100_000 }, { umaAddress: "$conform@sandbox.uma.local" })
    const ext = await m.externalUsd(c.id, "123450000")
    const q = await m.ok("POST", "/quotes", m.quoteBody(c.accounts.USD, c.accounts.EUR, 10_000), 201)
    conforms("Quote", q, "POST /quotes")
    conforms("Quote", await m.ok("GET", `/quotes/${q.id}`), "GET /quotes/{id}")
    conforms("Quote", await m.ok("POST", `/quotes/${q.id}/execute`, undefined, 200, { "idempotency-key": "conform-1" }), "POST /quotes/{id}/execute")
    conforms("TransactionOneOf", await m.transaction(q.transactionId), "GET /transactions/{id}")
    const pinned = await m.pay(c.accounts.USD, ext.id, 5_000, { destination: { destinationType: "ACCOUNT", accountId: ext.id, paymentRail: "ACH_SAME_DAY" } })
    conforms("Quote", pinned, "POST /quotes")
    conforms("TransactionOneOf", await m.transaction(pinned.transactionId), "GET /transactions/{id}")
    const failing = await m.pay(c.accounts.EUR, (await m.externalEur(c.id, "DE89370400440532013002")).id, 1_000)
    conforms("TransactionOneOf", await m.transaction(failing.transactionId), "GET /transactions/{id}")
    const uma = await m.ok("POST", "/quotes", {
      source: { sourceType: "ACCOUNT", accountId: c.accounts.USD },
      destination: { destinationType: "UMA_ADDRESS", umaAddress: "$success.mxn@sandbox.grid.uma.money" },
      lockedCurrencySide: "RECEIVING",
      lockedCurrencyAmount: 10_000,
      immediatelyExecute: true
    }, 201)
    conforms("Quote", uma, "POST /quotes")
    conforms("TransactionOneOf", await m.transaction(uma.transactionId), "GET /transactions/{id}")
    const realtime = await m.ok("POST", "/quotes", {
      source: { sourceType: "REALTIME_FUNDING", customerId: c.id, currency: "USD" },
      destination: { destinationType: "ACCOUNT", accountId: c.accounts.MXN },
      lockedCurrencySide: "SENDING",
      lockedCurrencyAmount: 2_000
    }, 201)
    conforms("Quote", realtime, "POST /quotes")
    conforms("TransactionOneOf", await m.ok("POST", "/sandbox/send", { quoteId: realtime.id, currencyCode: "USD" }), "POST /sandbox/send")
    // The platform's own payment: no customerId (a SPEC_DIFFERENCES entry).
    const own = await m.platformAccounts()
    const platformPay = await m.pay(own.EUR, c.accounts.EUR, 100)
    const platformTx = await m.transaction(platformPay.transactionId)
    expect(platformTx.customerId).toBeUndefined()
    conforms("TransactionOneOf", platformTx, "GET /transactions/{id}")
    // The difference is needed (the untouched reference refuses it), and the validator bites.
    const strict = new Ajv2020({ strict: false, allErrors: true, validateFormats: false })
    strict.addSchema({ $id: "raw", components: { schemas: reference.components.schemas } })
    expect(strict.compile({ $ref: "raw#/components/schemas/TransactionOneOf" })(platformTx)).toBe(false)
    expect(validator("Quote")({ ...uma, status: "BOGUS" })).toBe(false)
    expect(validator("TransactionOneOf")({ ...platformTx, sentAmount: undefined })).toBe(false)
  })

  it("transactions: list, cancel, confirm; transfers; UMA receive", async () => {
    const c = await m.fundedCustomer({ EUR: 100_000 }, { umaAddress: "$conform2@sandbox.uma.local" })
    const ext = await m.externalEur(c.id, "DE89370400440532013003")
    const long = await m.pay(c.accounts.EUR, ext.id, 1_000)
    conforms("TransactionOneOf", await m.ok("POST", `/transactions/${long.transactionId}/cancel`), "POST /transactions/{id}/cancel")
    conforms("TransactionOneOf", await m.ok("POST", `/transactions/${long.transactionId}/confirm`), "POST /transactions/{id}/confirm")
    const out = await m.ok("POST", "/transfer-out", { source: { accountId: c.accounts.EUR }, destination: { accountId: ext.id }, amount: 500 }, 201)
    conforms("TransactionOneOf", out, "POST /transfer-out")
    const inn = await m.ok("POST", "/transfer-in", { source: { accountId: ext.id }, destination: { accountId: c.accounts.EUR }, amount: 500 }, 201)
    conforms("TransactionOneOf", inn, "POST /transfer-in")
    const received = await m.ok("POST", "/sandbox/uma/receive", {
      senderUmaAddress: "$success.usd@sandbox.grid.uma.money",
      receiverUmaAddress: "$conform2@sandbox.uma.local",
      receivingCurrencyCode: "USD",
      receivingCurrencyAmount: 700
    })
    conforms("IncomingTransaction", received, "POST /sandbox/uma/receive")
    const refused = await m.ok("POST", "/sandbox/uma/receive", {
      senderUmaAddress: "$fail.compliance.usd@sandbox.grid.uma.money",
      receiverUmaAddress: "$conform2@sandbox.uma.local",
      receivingCurrencyCode: "USD",
      receivingCurrencyAmount: 700
    })
    conforms("IncomingTransaction", refused, "POST /sandbox/uma/receive")
    conforms("TransactionOneOf", await m.transaction(received.id), "GET /transactions/{id}")
    conforms("TransactionListResponse", await m.ok("GET", "/transactions"), "GET /transactions")
    conforms("TransactionListResponse", await m.ok("GET", "/transactions?limit=2&sortOrder=asc"), "GET /transactions")
    // Every event's data conforms too.
    for (const e of await m.events()) {
      const schema = e.type.startsWith("INTERNAL_ACCOUNT.") ? "InternalAccount" : e.type.startsWith("INCOMING_PAYMENT.") ? "IncomingTransaction" : e.type.startsWith("OUTGOING_PAYMENT.") ? "OutgoingTransaction" : undefined
      if (schema !== undefined) conforms(schema, e.data, `${e.type} event data`)
    }
  })

  it("every money endpoint with a success body was checked", () => {
    // The list is shared with the coverage guard (test/conformance/operations.ts).
    for (const endpoint of MONEY_OPERATIONS) expect(checked.get(endpoint.replaceAll("{}", "{id}")) ?? 0, endpoint).toBeGreaterThan(0)
  })
})
