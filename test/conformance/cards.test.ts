/**
 * Conformance of cards: every success answer of the card endpoints (issue, list, get,
 * update, reveal) validates against the reference operation's schema for its status,
 * and every CARD.* webhook a real receiver gets validates against the reference payload
 * schema of its type (CardStateChangeWebhook, CardFundingSourceChangeWebhook).
 *
 * SPEC.md's differences, applied to a copy of the reference (`SPEC_DIFFERENCES`):
 * - a Card also carries SPEC.md's `status` (ACTIVE, FROZEN, CLOSED: the same value as
 *   `state`), `pinStatus` (NOT_SET, OK, BLOCKED) and `cardCapabilities` (with
 *   `supportsDigitalWalletTokenization`); they are required here, and the copy's Card
 *   admits no other property, so nothing undeclared slips into a card;
 * - `CARD.PIN_STATUS_CHANGE` is a card webhook type (SPEC.md "Events"), carried by the
 *   CardStateChangeWebhook shape (as test/conformance/webhooks.test.ts does).
 * The untouched reference holds every card too (its Card admits extra properties).
 */
import { Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Card, CardSetPinUrlResponse, CardTokenizeResponse, SandboxCardPinEntryResponse } from "../../src/domain/card.js"
import { makeApi } from "../support/api.js"
import { cardClient } from "../support/cards.js"
import { moneyPlatform } from "../support/money.js"
import { eventually, type Receiver, startReceiver } from "../support/webhook-receiver.js"
import { conformance, type Json, reference, referenceOperation } from "./harness.js"
import { CARD_OPERATIONS, CARD_OURS } from "./operations.js"

const SPEC_DIFFERENCES = (s: Record<string, Json>) => {
  const card = s["Card"] as { required: Array<string>; properties: Json; additionalProperties?: boolean } | undefined
  if (card === undefined) throw new Error("reference Card missing; update SPEC_DIFFERENCES")
  for (const name of ["status", "pinStatus", "cardCapabilities"]) {
    if (name in card.properties) throw new Error(`reference Card already has ${name}; drop it from SPEC_DIFFERENCES`)
  }
  card.properties["status"] = { type: "string", enum: ["ACTIVE", "FROZEN", "CLOSED"] }
  card.properties["pinStatus"] = { type: "string", enum: ["NOT_SET", "OK", "BLOCKED"] }
  card.properties["cardCapabilities"] = {
    type: "object",
    required: ["supportsDigitalWalletTokenization"],
    properties: { supportsDigitalWalletTokenization: { type: "boolean" } },
    additionalProperties: false
  }
  card.required = [...card.required, "status", "pinStatus", "cardCapabilities"]
  card.additionalProperties = false
  const pin = s["CardStateChangeWebhook"] as { allOf: Array<{ properties?: { type?: { enum?: Array<string> } } }> }
  const pinType = pin.allOf.find((p) => p.properties?.type?.enum !== undefined)?.properties?.type
  if (pinType?.enum === undefined) throw new Error("reference CardStateChangeWebhook changed; update SPEC_DIFFERENCES")
  pinType.enum = [...pinType.enum, "CARD.PIN_STATUS_CHANGE"]
  const all = s["WebhookType"] as { enum?: Array<string> }
  if (all.enum === undefined) throw new Error("reference WebhookType changed; update SPEC_DIFFERENCES")
  all.enum = [...all.enum, "CARD.PIN_STATUS_CHANGE"]
}

const { conforms, schemaConforms, validator, checked } = conformance(SPEC_DIFFERENCES)

const platform = moneyPlatform("conformance-cards", { currencies: ["USD", "USDC"] })
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

/** Webhook `type` -> the reference payload schema whose `type` enum names it. */
const PAYLOADS: Readonly<Record<string, string>> = {
  "CARD.STATE_CHANGE": "CardStateChangeWebhook",
  "CARD.FUNDING_SOURCE_CHANGE": "CardFundingSourceChangeWebhook",
  "CARD.PIN_STATUS_CHANGE": "CardStateChangeWebhook"
}

describe("card answers against the reference", () => {
  it("the reference's webhooks name these payload schemas for the card types", () => {
    const named = new Map<string, string>()
    for (const hook of Object.values(reference.webhooks)) {
      const ref = hook["post"]?.requestBody?.content?.["application/json"]?.schema?.["$ref"]
      if (typeof ref === "string" && ref.includes("Card") && !ref.includes("Transaction")) named.set(ref.replace("#/components/schemas/", ""), ref)
    }
    expect([...named.keys()].sort()).toEqual(["CardFundingSourceChangeWebhook", "CardStateChangeWebhook"])
  })

  it("issue, list, get, update (freeze, limit, funding sources, close) and reveal; every CARD.* webhook", async () => {
    await c.ok("PATCH", "/config", { webhookEndpoint: receiver.url })
    const h = await c.holder()
    const issued = await c.call("POST", "/cards", { cardholderId: h.id, form: "VIRTUAL", fundingSources: [h.accounts["USD"]], maxSpendPerTransaction: 5000, platformCardId: "conf-1" })
    const card = conforms("POST", "/cards", issued) as { id: string }
    expect(validator("Card", true)(issued.body)).toBe(true)
    const wallet = await c.call("POST", "/cards", { cardholderId: h.id, form: "VIRTUAL", fundingSources: [h.accounts["USDC"]] })
    conforms("POST", "/cards", wallet)
    conforms("GET", "/cards/{id}", await c.call("GET", `/cards/${card.id}`))
    conforms("POST", "/cards/{id}/reveal", await c.call("POST", `/cards/${card.id}/reveal`))
    for (const body of [{ state: "FROZEN" }, { status: "ACTIVE" }, { maxSpendPerTransaction: null }, { fundingSources: [h.accounts["USD"]] }, { state: "CLOSED" }]) {
      const r = await c.call("PATCH", `/cards/${card.id}`, body)
      conforms("PATCH", "/cards/{id}", r)
      expect(validator("Card", true)(r.body)).toBe(true)
    }
    for (const q of ["", `?cardholderId=${h.id}`, `?accountId=${h.accounts["USDC"]}`, "?state=CLOSED", "?status=ACTIVE&sortOrder=asc", "?limit=1", "?platformCardId=none"]) {
      conforms("GET", "/cards", await c.call("GET", `/cards${q}`))
    }
    // The PIN: set, blocked by three incorrect entries, unblocked (CARD.PIN_STATUS_CHANGE each).
    const pinned = await c.issueFor(h)
    await c.ok("POST", `/cards/${pinned.id}/set-pin`, { encryptedPinBlock: "0412AC89ABCDEF01" })
    for (let i = 0; i < 3; i++) await c.ok("POST", `/sandbox/cards/${pinned.id}/pin-entry`, { encryptedPinBlock: "0412AC89ABCDEF02" })
    await c.ok("POST", `/cards/${pinned.id}/pin/unblock`)
    const page = await c.call("GET", "/cards?limit=1")
    conforms("GET", "/cards", await c.call("GET", `/cards?limit=1&cursor=${encodeURIComponent(page.body.nextCursor)}`))

    const events = await c.cardEvents()
    expect(events.length).toBeGreaterThanOrEqual(6)
    await eventually(() => receiver.got.filter((r) => r.type.startsWith("CARD.")).length >= events.length, 10_000, "the card webhooks")
    const cardHooks = receiver.got.filter((r) => r.type.startsWith("CARD."))
    for (const r of cardHooks) {
      const schema = PAYLOADS[r.type]
      expect(schema, r.type).toBeDefined()
      schemaConforms(schema!, JSON.parse(r.body), `webhook ${r.type}`)
    }
    expect(new Set(cardHooks.map((r) => r.type))).toEqual(new Set(["CARD.STATE_CHANGE", "CARD.FUNDING_SOURCE_CHANGE", "CARD.PIN_STATUS_CHANGE"]))
  })

  it("the validator bites: a card without SPEC.md's fields, an unknown state, an extra field", async () => {
    const h = await c.holder()
    const card = await c.issueFor(h) as unknown as Record<string, unknown>
    expect(validator("Card")(card)).toBe(true)
    const { status: _s, ...withoutStatus } = card
    expect(validator("Card")(withoutStatus)).toBe(false)
    expect(validator("Card")({ ...card, state: "OPEN" })).toBe(false)
    expect(validator("Card")({ ...card, pinStatus: "SET" })).toBe(false)
    expect(validator("Card")({ ...card, pan: "4111111111111111" })).toBe(false)
    expect(validator("CardRevealResponse")({ panEmbedUrl: "https://x" })).toBe(false)
  })

  it("SPEC.md's PIN and tokenization endpoints and our sandbox PIN entry: no reference operation; they answer our own schemas", async () => {
    for (const op of CARD_OURS) {
      const [method, path] = op.split(" ") as [string, string]
      expect(referenceOperation(method, path), op).toBeUndefined()
    }
    await c.ok("PATCH", "/config", { cardConfigs: { pinTargetOrigin: "https://app.example.com" } })
    const h = await c.holder()
    const card = await c.issueFor(h)
    Schema.decodeUnknownSync(CardSetPinUrlResponse, { onExcessProperty: "error" })(await c.ok("GET", `/cards/${card.id}/set-pin-url`))
    const pinned = await c.ok("POST", `/cards/${card.id}/set-pin`, { encryptedPinBlock: "0412AC89ABCDEF01" })
    Schema.decodeUnknownSync(Card, { onExcessProperty: "error" })(pinned)
    expect(validator("Card")(pinned)).toBe(true)
    const entry = await c.ok("POST", `/sandbox/cards/${card.id}/pin-entry`, { encryptedPinBlock: "0412AC89ABCDEF01" })
    Schema.decodeUnknownSync(SandboxCardPinEntryResponse, { onExcessProperty: "error" })(entry)
    for (let i = 0; i < 3; i++) await c.ok("POST", `/sandbox/cards/${card.id}/pin-entry`, { encryptedPinBlock: "0412AC89ABCDEF02" })
    const unblocked = await c.ok("POST", `/cards/${card.id}/pin/unblock`)
    expect(validator("Card")(unblocked)).toBe(true)
    Schema.decodeUnknownSync(CardTokenizeResponse, { onExcessProperty: "error" })(
      await c.ok("POST", `/cards/${card.id}/tokenize`, { walletProvider: "APPLE_PAY", certificates: ["MIIB"], nonce: "bm9uY2U=", nonceSignature: "c2ln" })
    )
  })

  it("every card endpoint with a success body was checked", () => {
    for (const op of CARD_OPERATIONS) expect(checked.get(op) ?? 0, op).toBeGreaterThan(0)
  })
})
