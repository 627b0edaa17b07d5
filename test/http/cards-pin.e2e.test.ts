/**
 * A card's PIN and digital-wallet provisioning over HTTP (SPEC.md's endpoints, shapes
 * ours: docs/cards.md): the set-PIN iframe URL and its platform configuration, set-pin,
 * unblock, the sandbox PIN entry that blocks a PIN after three incorrect entries in a
 * row, CARD.PIN_STATUS_CHANGE, tokenization, and what a closed card, a production
 * platform and a platform with cards turned off get.
 */
import { afterAll, describe, expect, it } from "vitest"
import { isErrorShape, makeApi } from "../support/api.js"
import { cardClient } from "../support/cards.js"
import { moneyPlatform } from "../support/money.js"

const main = moneyPlatform("cards-pin")
const production = moneyPlatform("cards-pin-production", { sandbox: false })
const noIssuer = moneyPlatform("cards-pin-off", { cards: { enabled: false } })
const api = makeApi([main, production, noIssuer])
const c = cardClient(api, main)
const prod = cardClient(api, production)
const off = cardClient(api, noIssuer)
afterAll(() => api.dispose())

const expectError = (r: { status: number; body: unknown }, status: number, code: string) => {
  expect(r.status, JSON.stringify(r.body)).toBe(status)
  expect(isErrorShape(r.body), JSON.stringify(r.body)).toBe(true)
  expect((r.body as { code: string }).code).toBe(code)
}

const PIN = "0412AC89ABCDEF01"
const OTHER = "0412AC89ABCDEF02"

const newCard = async () => c.issueFor(await c.holder())
const entry = (id: string, encryptedPinBlock: string) => c.call("POST", `/sandbox/cards/${id}/pin-entry`, { encryptedPinBlock })
const pinEvents = async (id: string) => (await c.cardEvents(id)).filter((e) => e.type === "CARD.PIN_STATUS_CHANGE").map((e) => e.card.pinStatus)

describe("GET /cards/{id}/set-pin-url", () => {
  it("needs the platform's cardConfigs.pinTargetOrigin; then a short-lived URL that reports to it; nothing changes on the card", async () => {
    const card = await newCard()
    const missing = await c.call("GET", `/cards/${card.id}/set-pin-url`)
    expectError(missing, 400, "INVALID_INPUT")
    expect(missing.body.details.errors[0].field).toBe("cardConfigs.pinTargetOrigin")
    await c.ok("PATCH", "/config", { cardConfigs: { pinTargetOrigin: "https://app.example.com" } })
    const now = await c.clock()
    const r = await c.ok("GET", `/cards/${card.id}/set-pin-url`)
    expect(Object.keys(r).sort()).toEqual(["expiresAt", "setPinUrl", "targetOrigin"])
    expect(r.targetOrigin).toBe("https://app.example.com")
    const url = new URL(r.setPinUrl)
    expect(url.protocol).toBe("https:")
    expect(url.hostname.endsWith(".invalid")).toBe(true)
    expect(url.searchParams.get("targetOrigin")).toBe("https://app.example.com")
    expect(Math.abs(Date.parse(r.expiresAt) - now - 5 * 60 * 1000)).toBeLessThanOrEqual(1000)
    expect((await c.ok("GET", `/cards/${card.id}/set-pin-url`)).setPinUrl).not.toBe(r.setPinUrl)
    expect(await c.ok("GET", `/cards/${card.id}`)).toEqual(card)
    expect(await pinEvents(card.id)).toEqual([])
  })

  it("404 for an unknown card; 409 CARD_NOT_MUTABLE once CLOSED", async () => {
    expectError(await c.call("GET", "/cards/Card:00000000-0000-0000-0000-000000000000/set-pin-url"), 404, "NOT_FOUND")
    const card = await newCard()
    await c.ok("PATCH", `/cards/${card.id}`, { state: "CLOSED" })
    expectError(await c.call("GET", `/cards/${card.id}/set-pin-url`), 409, "CARD_NOT_MUTABLE")
  })
})

describe("POST /cards/{id}/set-pin, the sandbox PIN entry and POST /cards/{id}/pin/unblock (SPEC.md \"Card PIN status\")", () => {
  it("NOT_SET -> OK on set, CARD.PIN_STATUS_CHANGE with the card; setting it again announces nothing", async () => {
    const card = await newCard()
    expect(card.pinStatus).toBe("NOT_SET")
    const set = await c.ok("POST", `/cards/${card.id}/set-pin`, { encryptedPinBlock: PIN })
    expect(set).toMatchObject({ id: card.id, pinStatus: "OK", state: "ACTIVE" })
    const events = await c.cardEvents(card.id)
    expect(events.at(-1)).toEqual({ type: "CARD.PIN_STATUS_CHANGE", card: set })
    const again = await c.ok("POST", `/cards/${card.id}/set-pin`, { encryptedPinBlock: OTHER })
    expect(again.pinStatus).toBe("OK")
    expect(await pinEvents(card.id)).toEqual(["OK"])
    // The PIN stored is the last one set.
    expect((await entry(card.id, OTHER)).body).toEqual({ accepted: true, pinStatus: "OK", consecutiveFailures: 0 })
    expect((await entry(card.id, PIN)).body).toEqual({ accepted: false, pinStatus: "OK", consecutiveFailures: 1 })
  })

  it("three incorrect entries in a row block the PIN (CARD.PIN_STATUS_CHANGE); blocked refuses the correct PIN; unblock clears it (OK)", async () => {
    const card = await newCard()
    expectError(await entry(card.id, PIN), 409, "INVALID_STATE_TRANSITION")
    await c.ok("POST", `/cards/${card.id}/set-pin`, { encryptedPinBlock: PIN })
    expect((await entry(card.id, PIN.toLowerCase())).body).toEqual({ accepted: true, pinStatus: "OK", consecutiveFailures: 0 })
    expect((await entry(card.id, OTHER)).body.consecutiveFailures).toBe(1)
    expect((await entry(card.id, OTHER)).body.consecutiveFailures).toBe(2)
    expect((await c.ok("GET", `/cards/${card.id}`)).pinStatus).toBe("OK")
    expect((await entry(card.id, OTHER)).body).toEqual({ accepted: false, pinStatus: "BLOCKED", consecutiveFailures: 3 })
    const blocked = await c.ok("GET", `/cards/${card.id}`)
    expect(blocked.pinStatus).toBe("BLOCKED")
    expect((await c.cardEvents(card.id)).at(-1)).toEqual({ type: "CARD.PIN_STATUS_CHANGE", card: blocked })
    expect((await entry(card.id, PIN)).body).toEqual({ accepted: false, pinStatus: "BLOCKED", consecutiveFailures: 3 })
    const unblocked = await c.ok("POST", `/cards/${card.id}/pin/unblock`)
    expect(unblocked.pinStatus).toBe("OK")
    expect(await pinEvents(card.id)).toEqual(["OK", "BLOCKED", "OK"])
    // Unblocked without changing the PIN: the same PIN is accepted, the count starts over.
    expect((await entry(card.id, PIN)).body).toEqual({ accepted: true, pinStatus: "OK", consecutiveFailures: 0 })
    expectError(await c.call("POST", `/cards/${card.id}/pin/unblock`), 409, "INVALID_STATE_TRANSITION")
  })

  it("incorrect entries must be consecutive: a correct one resets the count", async () => {
    const card = await newCard()
    await c.ok("POST", `/cards/${card.id}/set-pin`, { encryptedPinBlock: PIN })
    await entry(card.id, OTHER)
    await entry(card.id, OTHER)
    await entry(card.id, PIN)
    expect((await entry(card.id, OTHER)).body).toEqual({ accepted: false, pinStatus: "OK", consecutiveFailures: 1 })
  })

  it("a new PIN replaces a blocked one (OK)", async () => {
    const card = await newCard()
    await c.ok("POST", `/cards/${card.id}/set-pin`, { encryptedPinBlock: PIN })
    for (let i = 0; i < 3; i++) await entry(card.id, OTHER)
    expect((await c.ok("GET", `/cards/${card.id}`)).pinStatus).toBe("BLOCKED")
    const replaced = await c.ok("POST", `/cards/${card.id}/set-pin`, { encryptedPinBlock: OTHER })
    expect(replaced.pinStatus).toBe("OK")
    expect((await entry(card.id, OTHER)).body.accepted).toBe(true)
  })

  it("unblock of a PIN that is not BLOCKED: 409 INVALID_STATE_TRANSITION", async () => {
    const card = await newCard()
    expectError(await c.call("POST", `/cards/${card.id}/pin/unblock`), 409, "INVALID_STATE_TRANSITION")
  })

  it("400 for a PIN block that is not 16 or 32 hex characters; a FROZEN card's PIN can be set; a CLOSED card's cannot", async () => {
    const card = await newCard()
    for (const encryptedPinBlock of ["1234", "0412AC89ABCDEF0", "0412AC89ABCDEF0G", `${PIN}00`, ""]) {
      expectError(await c.call("POST", `/cards/${card.id}/set-pin`, { encryptedPinBlock }), 400, "INVALID_INPUT")
    }
    expectError(await c.call("POST", `/cards/${card.id}/set-pin`, {}), 400, "INVALID_INPUT")
    await c.ok("POST", `/cards/${card.id}/set-pin`, { encryptedPinBlock: `${PIN}${PIN}` })
    await c.ok("PATCH", `/cards/${card.id}`, { state: "FROZEN" })
    await c.ok("POST", `/cards/${card.id}/set-pin`, { encryptedPinBlock: PIN })
    await c.ok("PATCH", `/cards/${card.id}`, { state: "CLOSED" })
    expectError(await c.call("POST", `/cards/${card.id}/set-pin`, { encryptedPinBlock: PIN }), 409, "CARD_NOT_MUTABLE")
    expectError(await c.call("POST", `/cards/${card.id}/pin/unblock`), 409, "CARD_NOT_MUTABLE")
    expectError(await entry(card.id, PIN), 409, "CARD_NOT_MUTABLE")
  })
})

describe("POST /cards/{id}/tokenize", () => {
  const apple = { walletProvider: "APPLE_PAY", certificates: ["MIIB", "MIIC"], nonce: "bm9uY2U=", nonceSignature: "c2lnbmF0dXJl" }
  const google = { walletProvider: "GOOGLE_PAY", deviceId: "device-1", walletAccountId: "wallet-1" }

  it("Apple Pay: an encrypted payload, activation data and a P-256 ephemeral key; a new payload each time", async () => {
    const card = await newCard()
    const now = await c.clock()
    const r = await c.ok("POST", `/cards/${card.id}/tokenize`, apple)
    expect(r.walletProvider).toBe("APPLE_PAY")
    expect(Buffer.from(r.encryptedPayload, "base64").length).toBe(64)
    expect(Buffer.from(r.activationData, "base64").length).toBe(32)
    const key = Buffer.from(r.ephemeralPublicKey, "base64")
    expect(key.length).toBe(65)
    expect(key[0]).toBe(4)
    expect(Date.parse(r.expiresAt)).toBeGreaterThan(now)
    expect((await c.ok("POST", `/cards/${card.id}/tokenize`, apple)).encryptedPayload).not.toBe(r.encryptedPayload)
  })

  it("Google Pay and Samsung Pay: no ephemeral key; a FROZEN card can be provisioned", async () => {
    const card = await newCard()
    await c.ok("PATCH", `/cards/${card.id}`, { state: "FROZEN" })
    const r = await c.ok("POST", `/cards/${card.id}/tokenize`, google)
    expect(r.walletProvider).toBe("GOOGLE_PAY")
    expect(r.ephemeralPublicKey).toBeUndefined()
    expect((await c.ok("POST", `/cards/${card.id}/tokenize`, { ...google, walletProvider: "SAMSUNG_PAY" })).walletProvider).toBe("SAMSUNG_PAY")
    // Provisioning changes nothing on the card and announces nothing.
    expect((await c.cardEvents(card.id)).map((e) => e.card.state)).toEqual(["ACTIVE", "FROZEN"])
  })

  it("400 naming the fields the wallet needs, an unknown wallet, bad base64; 409 once CLOSED; 404 for an unknown card", async () => {
    const card = await newCard()
    const r = await c.call("POST", `/cards/${card.id}/tokenize`, { walletProvider: "APPLE_PAY", nonce: "bm9uY2U=" })
    expectError(r, 400, "INVALID_INPUT")
    expect(r.body.details.errors.map((e: { field: string }) => e.field)).toEqual(["certificates", "nonceSignature"])
    const g = await c.call("POST", `/cards/${card.id}/tokenize`, { walletProvider: "GOOGLE_PAY" })
    expect(g.body.details.errors.map((e: { field: string }) => e.field)).toEqual(["deviceId", "walletAccountId"])
    expectError(await c.call("POST", `/cards/${card.id}/tokenize`, { ...apple, certificates: [] }), 400, "INVALID_INPUT")
    expectError(await c.call("POST", `/cards/${card.id}/tokenize`, { ...apple, walletProvider: "PAYPAL" }), 400, "INVALID_INPUT")
    expectError(await c.call("POST", `/cards/${card.id}/tokenize`, { ...apple, nonce: "not base64!" }), 400, "INVALID_INPUT")
    expectError(await c.call("POST", "/cards/Card:00000000-0000-0000-0000-000000000000/tokenize", apple), 404, "NOT_FOUND")
    await c.ok("PATCH", `/cards/${card.id}`, { state: "CLOSED" })
    expectError(await c.call("POST", `/cards/${card.id}/tokenize`, apple), 409, "CARD_NOT_MUTABLE")
  })
})

describe("other platforms", () => {
  it("a production platform has the PIN endpoints (an unknown card is 404); the sandbox PIN entry is 403 FORBIDDEN there", async () => {
    const id = "Card:00000000-0000-0000-0000-000000000000"
    expectError(await prod.call("POST", `/cards/${id}/set-pin`, { encryptedPinBlock: PIN }), 404, "NOT_FOUND")
    expectError(await prod.call("POST", `/cards/${id}/pin/unblock`), 404, "NOT_FOUND")
    expectError(await prod.call("POST", `/sandbox/cards/${id}/pin-entry`, { encryptedPinBlock: PIN }), 403, "FORBIDDEN")
  })

  it("a platform with cards turned off has no card issuer: 501 NOT_IMPLEMENTED", async () => {
    const id = "Card:00000000-0000-0000-0000-000000000000"
    expectError(await off.call("GET", `/cards/${id}/set-pin-url`), 501, "NOT_IMPLEMENTED")
    expectError(await off.call("POST", `/cards/${id}/set-pin`, { encryptedPinBlock: PIN }), 501, "NOT_IMPLEMENTED")
    expectError(await off.call("POST", `/cards/${id}/pin/unblock`), 501, "NOT_IMPLEMENTED")
    expectError(await off.call("POST", `/cards/${id}/tokenize`, { walletProvider: "GOOGLE_PAY", deviceId: "d", walletAccountId: "w" }), 501, "NOT_IMPLEMENTED")
  })
})
