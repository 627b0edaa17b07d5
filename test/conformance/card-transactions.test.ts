/**
 * Conformance of card transactions: the 202 answer of every sandbox simulate endpoint,
 * card rows in GET /transactions and GET /transactions/{id}, and every CARD_TRANSACTION.*
 * webhook a real receiver gets, against the reference schemas.
 *
 * SPEC.md's differences, applied to a copy of the reference (`SPEC_DIFFERENCES`):
 * - `CardTransactionStatus` is AUTHORIZED, PARTIALLY_SETTLED, SETTLED, DECLINED, VOIDED,
 *   EXCEPTION (DECLINED and VOIDED added, REFUNDED removed);
 * - a CardTransaction may carry `originalTransactionId` (a return's own row) and
 *   `cardDeclinedReason` (SPEC.md's values); the copy admits no other property;
 * - `CardMerchant` may carry `city` and `state`;
 * - `CardTransactionWebhook.type` has DECLINED and VOIDED, not REFUNDED (also in `WebhookType`).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeApi } from "../support/api.js"
import { cardClient } from "../support/cards.js"
import { moneyPlatform } from "../support/money.js"
import { eventually, type Receiver, startReceiver } from "../support/webhook-receiver.js"
import { conformance, type Json } from "./harness.js"
import { CARD_TRANSACTION_OPERATIONS } from "./operations.js"

const OURS = ["AUTHORIZED", "PARTIALLY_SETTLED", "SETTLED", "DECLINED", "VOIDED", "EXCEPTION"]
const DECLINE_REASONS = ["CARD_NOT_ACTIVE", "SPEND_LIMIT_EXCEEDED", "INSUFFICIENT_FUNDS", "NO_ELIGIBLE_FUNDING_SOURCE", "BLOCKED", "UNSUPPORTED_NETWORK", "OTHER"]

const SPEC_DIFFERENCES = (s: Record<string, Json>) => {
  const status = s["CardTransactionStatus"] as { enum?: Array<string> }
  if (status.enum === undefined || !status.enum.includes("REFUNDED")) throw new Error("reference CardTransactionStatus changed; update SPEC_DIFFERENCES")
  status.enum = OURS
  const tx = s["CardTransaction"] as { properties: Record<string, Json>; additionalProperties?: boolean }
  for (const name of ["originalTransactionId", "cardDeclinedReason"]) {
    if (name in tx.properties) throw new Error(`reference CardTransaction already has ${name}; drop it from SPEC_DIFFERENCES`)
  }
  tx.properties["originalTransactionId"] = { type: "string" }
  tx.properties["cardDeclinedReason"] = { type: "string", enum: DECLINE_REASONS }
  tx.additionalProperties = false
  const merchant = s["CardMerchant"] as { properties: Record<string, Json>; additionalProperties?: boolean }
  merchant.properties["city"] = { type: "string" }
  merchant.properties["state"] = { type: "string" }
  merchant.additionalProperties = false
  const hook = s["CardTransactionWebhook"] as { allOf: Array<{ properties?: { type?: { enum?: Array<string> } } }> }
  const hookType = hook.allOf.find((p) => p.properties?.type?.enum !== undefined)?.properties?.type
  if (hookType?.enum === undefined) throw new Error("reference CardTransactionWebhook changed; update SPEC_DIFFERENCES")
  hookType.enum = OURS.map((st) => `CARD_TRANSACTION.${st}`)
  const all = s["WebhookType"] as { enum?: Array<string> }
  if (all.enum === undefined) throw new Error("reference WebhookType changed; update SPEC_DIFFERENCES")
  all.enum = [...all.enum.filter((t) => t !== "CARD_TRANSACTION.REFUNDED"), "CARD_TRANSACTION.DECLINED", "CARD_TRANSACTION.VOIDED", "CARD.PIN_STATUS_CHANGE"]
}

const { conforms, schemaConforms, validator, checked } = conformance(SPEC_DIFFERENCES)

const platform = moneyPlatform("conformance-card-tx", { currencies: ["USD"] })
const api = makeApi([platform])
const c = cardClient(api, platform)
let receiver: Receiver
beforeAll(async () => {
  receiver = await startReceiver(() => 200)
})
afterAll(async () => {
  await receiver.close()
  await api.dispose()
})

const merchant = (descriptor: string) => ({ descriptor, mcc: "5814", country: "US", city: "San Francisco", state: "CA" })
const auth = (amount: number, descriptor = "BLUE BOTTLE COFFEE SF") => ({ amount, currency: { code: "USD" }, merchant: merchant(descriptor) })

describe("card transactions against the reference", () => {
  it("every simulate endpoint's 202, card rows in GET /transactions, every CARD_TRANSACTION.* webhook", async () => {
    await c.ok("PATCH", "/config", { webhookEndpoint: receiver.url })
    const h = await c.holder()
    await c.fund(h.accounts["USD"]!, 100_000)
    const card = await c.issueFor(h, { maxSpendPerTransaction: 50_000 })
    const sim = async (what: string, body: unknown) =>
      conforms("POST", `/sandbox/cards/{id}/simulate/${what}`, await c.call("POST", `/sandbox/cards/${card.id}/simulate/${what}`, body)) as { issuerTransactionToken: string }
    const rows = async () => (await c.ok("GET", `/transactions?cardId=${card.id}&limit=100`)).data as Array<{ id: string; issuerTransactionToken: string }>
    const idOf = async (token: string) => (await rows()).find((r) => r.issuerTransactionToken === token)!.id

    const purchase = await idOf((await sim("authorization", auth(1000))).issuerTransactionToken)
    await sim("authorization_advice", { cardTransactionId: purchase, amount: 1500 })
    await sim("clearing", { cardTransactionId: purchase, amount: 500 })
    await sim("clearing", { cardTransactionId: purchase, amount: 1000 })
    const refund = await idOf((await sim("return", { cardTransactionId: purchase, amount: 300 })).issuerTransactionToken)
    await sim("return_reversal", { cardTransactionId: refund })
    const voided = await idOf((await sim("authorization", auth(100))).issuerTransactionToken)
    await sim("clearing", { cardTransactionId: voided, amount: 0 })
    await sim("authorization", auth(100, "AMAZON RETAIL US-002"))
    await sim("authorization", auth(100, "BROKEN 006"))
    await sim("balance_inquiry", { merchant: merchant("SHELL OIL 12345678") })
    const credit = await idOf((await sim("credit_authorization", auth(2500))).issuerTransactionToken)
    await sim("clearing", { cardTransactionId: credit, amount: 2500 })
    await sim("credit_authorization_advice", auth(700))
    await sim("financial_authorization", auth(800))
    await sim("financial_credit_authorization", auth(900))

    for (const q of [`?cardId=${card.id}`, "?type=CARD", "", "?limit=2", "?sortOrder=asc&limit=3"]) {
      conforms("GET", "/transactions", await c.call("GET", `/transactions${q}`))
    }
    for (const r of await rows()) {
      conforms("GET", "/transactions/{transactionId}", await c.call("GET", `/transactions/${r.id}`))
      expect(validator("CardTransaction")(await c.ok("GET", `/transactions/${r.id}`))).toBe(true)
    }

    const events = (await c.events()).filter((e) => e.type.startsWith("CARD_TRANSACTION."))
    expect(events.length).toBeGreaterThanOrEqual(15)
    await eventually(() => receiver.got.filter((r) => r.type.startsWith("CARD_TRANSACTION.")).length >= events.length, 10_000, "the card-transaction webhooks")
    const hooks = receiver.got.filter((r) => r.type.startsWith("CARD_TRANSACTION."))
    for (const r of hooks) schemaConforms("CardTransactionWebhook", JSON.parse(r.body), `webhook ${r.type}`)
    expect(new Set(hooks.map((r) => r.type))).toEqual(new Set(OURS.map((st) => `CARD_TRANSACTION.${st}`)))
  })

  it("the validator bites: REFUNDED, an unknown decline reason, an extra field", async () => {
    const h = await c.holder()
    const card = await c.issueFor(h)
    await c.call("POST", `/sandbox/cards/${card.id}/simulate/authorization`, auth(1))
    const row = ((await c.ok("GET", `/transactions?cardId=${card.id}`)).data as Array<Record<string, unknown>>)[0]!
    expect(validator("CardTransaction")(row)).toBe(true)
    expect(validator("CardTransaction")({ ...row, status: "REFUNDED" })).toBe(false)
    expect(validator("CardTransaction")({ ...row, cardDeclinedReason: "CARD_PAUSED" })).toBe(false)
    expect(validator("CardTransaction")({ ...row, holdAmount: 1 })).toBe(false)
  })

  it("every simulate endpoint was checked", () => {
    for (const op of CARD_TRANSACTION_OPERATIONS) expect(checked.get(op) ?? 0, op).toBeGreaterThan(0)
  })
})
