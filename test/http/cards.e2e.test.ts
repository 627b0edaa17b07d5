/**
 * Cards over HTTP (docs/cards.md): issue, get, list (filters, paging, order), update
 * (the status machine of SPEC.md's "Card status" table, funding sources, spend limit),
 * reveal, the slot rules, every error code, the CARD.* events in the outbox and the
 * sandbox-only behaviour.
 */
import { afterAll, describe, expect, it } from "vitest"
import { isErrorShape, makeApi } from "../support/api.js"
import { cardClient } from "../support/cards.js"
import { moneyPlatform } from "../support/money.js"

const main = moneyPlatform("cards-main", { currencies: ["USD", "EUR", "USDC"] })
const eu = moneyPlatform("cards-eu", { currencies: ["USD", "EUR"], cards: { eligibleCurrencies: ["EUR", "USD"] } })
const limited = moneyPlatform("cards-limited", { cards: { maxLiveCards: 2 } })
const onePer = moneyPlatform("cards-one", { cards: { oneCardPerCardholder: true } })
const production = moneyPlatform("cards-production", { sandbox: false })
const noIssuer = moneyPlatform("cards-off", { cards: { enabled: false } })
const api = makeApi([main, eu, limited, onePer, production, noIssuer])
const c = cardClient(api, main)
const e = cardClient(api, eu)
const l = cardClient(api, limited)
const o = cardClient(api, onePer)
const prod = cardClient(api, production)
const off = cardClient(api, noIssuer)
afterAll(() => api.dispose())

const expectError = (r: { status: number; body: unknown }, status: number, code: string) => {
  expect(r.status, JSON.stringify(r.body)).toBe(status)
  expect(isErrorShape(r.body), JSON.stringify(r.body)).toBe(true)
  expect((r.body as { code: string }).code).toBe(code)
}

describe("POST /cards", () => {
  it("issues an ACTIVE card at once (sandbox), with SPEC.md's and the reference's fields, and announces it", async () => {
    const h = await c.holder()
    const card = await c.issue({ cardholderId: h.id, fundingSources: [h.accounts["USD"]], maxSpendPerTransaction: 5000 })
    expect(card).toMatchObject({
      cardholderId: h.id,
      state: "ACTIVE",
      status: "ACTIVE",
      stateReason: null,
      pinStatus: "NOT_SET",
      cardCapabilities: { supportsDigitalWalletTokenization: true },
      brand: "VISA",
      form: "VIRTUAL",
      fundingSources: [h.accounts["USD"]],
      maxSpendPerTransaction: 5000,
      currency: "USD"
    })
    expect(card.id).toMatch(/^Card:[0-9a-f-]{36}$/)
    expect(card.platformCardId).toBe(card.id.slice("Card:".length))
    expect(card["last4"]).toMatch(/^\d{4}$/)
    expect(card["expMonth"]).toBeGreaterThanOrEqual(1)
    expect(card["expYear"]).toBe(new Date(card.createdAt as string).getUTCFullYear() + 3)
    expect(typeof card["processorRef"]).toBe("string")
    expect(typeof card["issuerRef"]).toBe("string")
    expect(card.createdAt).toBe(card.updatedAt)
    expect(await c.cardEvents(card.id)).toEqual([{ type: "CARD.STATE_CHANGE", card }])
    // Each binding has its own id, in the order of the funding sources.
    const rec = await c.record(card.id)
    expect(rec?.fundingSourceBindings.map((b) => b.internalAccountId)).toEqual([h.accounts["USD"]])
    expect(rec?.fundingSourceBindings[0]?.id).toMatch(/^CardFundingSource:[0-9a-f-]{36}$/)
    expect(await c.ok("GET", `/cards/${card.id}`)).toEqual(card)
  })

  it("keeps the platform's platformCardId; no limit is null; a USDC (embedded-wallet currency) card", async () => {
    const h = await c.holder()
    const card = await c.issue({ cardholderId: h.id, fundingSources: [h.accounts["USDC"]], platformCardId: `emp-${h.id}` })
    expect(card.platformCardId).toBe(`emp-${h.id}`)
    expect(card.maxSpendPerTransaction).toBeNull()
    expect(card.currency).toBe("USDC")
  })

  it("400 INVALID_INPUT on cardholderId for a cardholder that is not a customer of the platform (the reference lists no 404)", async () => {
    const other = await e.holder()
    const h = await c.holder()
    expectError(await c.call("POST", "/cards", { cardholderId: other.id, form: "VIRTUAL", fundingSources: [h.accounts["USD"]] }), 400, "INVALID_INPUT")
    const unknown = await c.call("POST", "/cards", { cardholderId: "Customer:nope", form: "VIRTUAL", fundingSources: [h.accounts["USD"]] })
    expectError(unknown, 400, "INVALID_INPUT")
    expect(unknown.body.details.errors).toEqual([expect.objectContaining({ field: "cardholderId", constraint: "exists" })])
  })

  it("400 CARDHOLDER_KYC_NOT_APPROVED for a cardholder whose KYC is not APPROVED", async () => {
    const rejected = await c.customer({}, "Rex Jected 002")
    expect(rejected.kycStatus).toBe("REJECTED")
    const h = await c.holder()
    const r = await c.call("POST", "/cards", { cardholderId: rejected.id, form: "VIRTUAL", fundingSources: [h.accounts["USD"]] })
    expectError(r, 400, "CARDHOLDER_KYC_NOT_APPROVED")
    expect(r.body.details).toMatchObject({ cardholderId: rejected.id, status: "REJECTED" })
  })

  it("400 FUNDING_SOURCE_INELIGIBLE: another customer's, the platform's, an unknown, a non-eligible currency, mixed currencies", async () => {
    const h = await c.holder()
    const other = await c.holder()
    const platformAccounts = await c.platformAccounts()
    const cases: ReadonlyArray<[ReadonlyArray<string>, string]> = [
      [[other.accounts["USD"]!], "NOT_CARDHOLDERS"],
      [[platformAccounts["USD"]!], "NOT_CARDHOLDERS"],
      [["InternalAccount:00000000-0000-0000-0000-000000000000"], "NOT_FOUND"],
      [[h.accounts["EUR"]!], "CURRENCY_NOT_ELIGIBLE"],
      [[h.accounts["USD"]!, h.accounts["USDC"]!], "CURRENCY_MISMATCH"]
    ]
    for (const [fundingSources, reason] of cases) {
      const r = await c.call("POST", "/cards", { cardholderId: h.id, form: "VIRTUAL", fundingSources })
      expectError(r, 400, "FUNDING_SOURCE_INELIGIBLE")
      expect(r.body.details.ineligible[0].reason).toBe(reason)
    }
    expect((await c.ok("GET", `/cards?cardholderId=${h.id}`)).data).toEqual([])
  })

  it("400 INVALID_INPUT for a malformed request, naming every field", async () => {
    const h = await c.holder()
    const r = await c.call("POST", "/cards", { cardholderId: h.id, form: "PHYSICAL", fundingSources: [], maxSpendPerTransaction: 0 })
    expectError(r, 400, "INVALID_INPUT")
    const fields = r.body.details.errors.map((x: { field: string }) => x.field).sort()
    expect(fields).toEqual(["form", "fundingSources", "maxSpendPerTransaction"])
    expectError(await c.call("POST", "/cards", { form: "VIRTUAL", fundingSources: [h.accounts["USD"]] }), 400, "INVALID_INPUT")
    expectError(await c.call("POST", "/cards", { cardholderId: h.id, form: "VIRTUAL", fundingSources: [h.accounts["USD"], h.accounts["USD"]] }), 400, "INVALID_INPUT")
    expectError(await c.call("POST", "/cards", { cardholderId: h.id, form: "VIRTUAL", fundingSources: Array.from({ length: 11 }, () => h.accounts["USD"]) }), 400, "INVALID_INPUT")
    expectError(await c.call("POST", "/cards", { cardholderId: h.id, form: "VIRTUAL", fundingSources: [h.accounts["USD"]], maxSpendPerTransaction: 1.5 }), 400, "INVALID_INPUT")
  })

  it("threeDSecurePassword: accepted for a EUR card (never returned), 400 for a USD card", async () => {
    const eh = await e.holder()
    const eur = await e.issue({ cardholderId: eh.id, fundingSources: [eh.accounts["EUR"]], threeDSecurePassword: "AbCd1234EfGh5678" })
    expect(eur.currency).toBe("EUR")
    expect(JSON.stringify(eur)).not.toContain("AbCd1234EfGh5678")
    expect(JSON.stringify(await e.record(eur.id))).not.toContain("AbCd1234EfGh5678")
    const r = await e.call("POST", "/cards", { cardholderId: eh.id, form: "VIRTUAL", fundingSources: [eh.accounts["USD"]], threeDSecurePassword: "AbCd1234EfGh5678" })
    expectError(r, 400, "INVALID_INPUT")
    expect(r.body.details.errors[0].field).toBe("threeDSecurePassword")
  })

  it("409 CONFLICT for a platformCardId another card holds (closed ones included)", async () => {
    const h = await c.holder()
    const first = await c.issueFor(h, { platformCardId: `dup-${h.id}` })
    const r = await c.call("POST", "/cards", { cardholderId: h.id, form: "VIRTUAL", fundingSources: [h.accounts["USD"]], platformCardId: `dup-${h.id}` })
    expectError(r, 409, "CONFLICT")
    expect(r.body.details.cardId).toBe(first.id)
    expect((await c.patch(first.id, { state: "CLOSED" })).status).toBe(200)
    expectError(await c.call("POST", "/cards", { cardholderId: h.id, form: "VIRTUAL", fundingSources: [h.accounts["USD"]], platformCardId: `dup-${h.id}` }), 409, "CONFLICT")
  })

  it("Idempotency-Key: the same request gets the first card again, another request 409", async () => {
    const h = await c.holder()
    const body = { cardholderId: h.id, form: "VIRTUAL", fundingSources: [h.accounts["USD"]] }
    const key = { "idempotency-key": `card-${h.id}` }
    const first = await c.ok("POST", "/cards", body, 201, key)
    expect(await c.ok("POST", "/cards", body, 201, key)).toEqual(first)
    expect((await c.ok("GET", `/cards?cardholderId=${h.id}`)).totalCount).toBe(1)
    expectError(await c.call("POST", "/cards", { ...body, maxSpendPerTransaction: 5 }, key), 409, "CONFLICT")
  })
})

describe("card slots (409 CARD_LIMIT_REACHED)", () => {
  it("the platform's live-card maximum: a FROZEN card holds its slot, closing frees it", async () => {
    const h = await l.holder()
    const a = await l.issueFor(h)
    await l.issueFor(h)
    const full = await l.call("POST", "/cards", { cardholderId: h.id, form: "VIRTUAL", fundingSources: [h.accounts["USD"]] })
    expectError(full, 409, "CARD_LIMIT_REACHED")
    expect(full.body.details).toMatchObject({ limit: "PLATFORM_LIVE_CARDS", maxLiveCards: 2, liveCards: 2 })
    expect((await l.patch(a.id, { state: "FROZEN" })).status).toBe(200)
    expectError(await l.call("POST", "/cards", { cardholderId: h.id, form: "VIRTUAL", fundingSources: [h.accounts["USD"]] }), 409, "CARD_LIMIT_REACHED")
    expect((await l.patch(a.id, { state: "CLOSED" })).status).toBe(200)
    await l.issueFor(h)
    expectError(await l.call("POST", "/cards", { cardholderId: h.id, form: "VIRTUAL", fundingSources: [h.accounts["USD"]] }), 409, "CARD_LIMIT_REACHED")
  })

  it("one card per cardholder where the platform says so; another cardholder is not affected; closing frees it", async () => {
    const h = await o.holder()
    const other = await o.holder()
    const first = await o.issueFor(h)
    const r = await o.call("POST", "/cards", { cardholderId: h.id, form: "VIRTUAL", fundingSources: [h.accounts["USD"]] })
    expectError(r, 409, "CARD_LIMIT_REACHED")
    expect(r.body.details.limit).toBe("ONE_PER_CARDHOLDER")
    await o.issueFor(other)
    expect((await o.patch(first.id, { status: "CLOSED" })).status).toBe(200)
    await o.issueFor(h)
  })

  it("without the restriction a cardholder may hold several cards", async () => {
    const h = await c.holder()
    await c.issueFor(h)
    await c.issueFor(h)
    expect((await c.ok("GET", `/cards?cardholderId=${h.id}`)).totalCount).toBe(2)
  })

  it("concurrent issues never take more slots than there are", async () => {
    const p = moneyPlatform("cards-race", { cards: { maxLiveCards: 3 } })
    const local = makeApi([p])
    try {
      const r = cardClient(local, p)
      const h = await r.holder()
      const replies = await Promise.all(Array.from({ length: 8 }, () =>
        r.call("POST", "/cards", { cardholderId: h.id, form: "VIRTUAL", fundingSources: [h.accounts["USD"]] })))
      expect(replies.filter((x) => x.status === 201)).toHaveLength(3)
      for (const x of replies.filter((x) => x.status !== 201)) expectError(x, 409, "CARD_LIMIT_REACHED")
      expect((await r.ok("GET", "/cards")).totalCount).toBe(3)
    } finally {
      await local.dispose()
    }
  })
})

describe("GET /cards/{id}", () => {
  it("404 for an unknown card and for another platform's card", async () => {
    expectError(await c.call("GET", "/cards/Card:00000000-0000-0000-0000-000000000000"), 404, "NOT_FOUND")
    const eh = await e.holder()
    const theirs = await e.issueFor(eh)
    expectError(await c.call("GET", `/cards/${theirs.id}`), 404, "NOT_FOUND")
    expectError(await c.patch(theirs.id, { state: "FROZEN" }), 404, "NOT_FOUND")
    expectError(await c.call("POST", `/cards/${theirs.id}/reveal`), 404, "NOT_FOUND")
  })
})

describe("GET /cards", () => {
  it("filters by cardholderId, accountId, platformCardId, state and status; newest first unless asc; pages with a cursor", async () => {
    const p = moneyPlatform("cards-list", { currencies: ["USD", "USDC"] })
    const local = makeApi([p])
    try {
      const r = cardClient(local, p)
      const a = await r.holder()
      const b = await r.holder()
      // A second apart each, so creation order is the list order (ties fall back to the id).
      const a1 = await r.issueFor(a, { platformCardId: "a-one" })
      await r.advance(1)
      const a2 = await r.issue({ cardholderId: a.id, fundingSources: [a.accounts["USDC"]] })
      await r.advance(1)
      const b1 = await r.issueFor(b)
      await r.advance(1)
      const b2 = await r.issueFor(b)
      await r.patch(b2.id, { state: "FROZEN" })
      await r.patch(a1.id, { state: "CLOSED" })
      const ids = (list: { data: ReadonlyArray<{ id: string }> }) => list.data.map((x) => x.id)
      const all = await r.ok("GET", "/cards")
      expect(all.totalCount).toBe(4)
      expect(ids(all)).toEqual([b2.id, b1.id, a2.id, a1.id])
      expect(ids(await r.ok("GET", "/cards?sortOrder=asc"))).toEqual([a1.id, a2.id, b1.id, b2.id])
      expect(ids(await r.ok("GET", "/cards?sortOrder=desc"))).toEqual([b2.id, b1.id, a2.id, a1.id])
      expect(ids(await r.ok("GET", `/cards?cardholderId=${a.id}`))).toEqual([a2.id, a1.id])
      // accountId: cards whose fundingSources contain it (a closed card has none).
      expect(ids(await r.ok("GET", `/cards?accountId=${a.accounts["USDC"]}`))).toEqual([a2.id])
      expect(ids(await r.ok("GET", `/cards?accountId=${a.accounts["USD"]}`))).toEqual([])
      expect(ids(await r.ok("GET", `/cards?accountId=${b.accounts["USD"]}&sortOrder=asc`))).toEqual([b1.id, b2.id])
      expect(ids(await r.ok("GET", "/cards?platformCardId=a-one"))).toEqual([a1.id])
      expect(ids(await r.ok("GET", "/cards?state=FROZEN"))).toEqual([b2.id])
      expect(ids(await r.ok("GET", "/cards?status=CLOSED"))).toEqual([a1.id])
      expect(ids(await r.ok("GET", "/cards?state=ACTIVE&status=ACTIVE&sortOrder=asc"))).toEqual([a2.id, b1.id])
      expect(ids(await r.ok("GET", "/cards?state=PROCESSING"))).toEqual([])
      expect(ids(await r.ok("GET", `/cards?cardholderId=${b.id}&state=ACTIVE`))).toEqual([b1.id])
      // Paging: 3 + 1 in either order, no repeats.
      for (const order of ["asc", "desc"]) {
        const first = await r.ok("GET", `/cards?limit=3&sortOrder=${order}`)
        expect(first.data).toHaveLength(3)
        expect(first.hasMore).toBe(true)
        expect(first.totalCount).toBe(4)
        const second = await r.ok("GET", `/cards?limit=3&sortOrder=${order}&cursor=${encodeURIComponent(first.nextCursor)}`)
        expect(second.hasMore).toBe(false)
        expect(second.nextCursor).toBeUndefined()
        expect([...ids(first), ...ids(second)]).toEqual(ids(await r.ok("GET", `/cards?sortOrder=${order}`)))
      }
    } finally {
      await local.dispose()
    }
  })

  it("400 for state and status that disagree, an unknown state, a bad limit or cursor", async () => {
    expectError(await c.call("GET", "/cards?state=ACTIVE&status=FROZEN"), 400, "INVALID_INPUT")
    expectError(await c.call("GET", "/cards?state=OPEN"), 400, "INVALID_INPUT")
    expectError(await c.call("GET", "/cards?status=PROCESSING"), 400, "INVALID_INPUT")
    expectError(await c.call("GET", "/cards?sortOrder=up"), 400, "INVALID_INPUT")
    expectError(await c.call("GET", "/cards?limit=0"), 400, "INVALID_INPUT")
    expectError(await c.call("GET", "/cards?limit=101"), 400, "INVALID_INPUT")
    expectError(await c.call("GET", "/cards?cursor=not-a-cursor"), 400, "INVALID_INPUT")
  })

  it("never lists another platform's cards", async () => {
    const eh = await e.holder()
    await e.issueFor(eh)
    expect((await c.ok("GET", `/cards?cardholderId=${eh.id}`)).data).toEqual([])
  })
})

describe("PATCH /cards/{id}: the status machine (SPEC.md \"Card status\")", () => {
  it("ACTIVE -> FROZEN -> ACTIVE, by state or by status, each with CARD.STATE_CHANGE", async () => {
    const h = await c.holder()
    const card = await c.issueFor(h)
    const frozen = await c.ok("PATCH", `/cards/${card.id}`, { state: "FROZEN" })
    expect(frozen).toMatchObject({ state: "FROZEN", status: "FROZEN", stateReason: null, fundingSources: card.fundingSources })
    const active = await c.ok("PATCH", `/cards/${card.id}`, { status: "ACTIVE" })
    expect(active).toMatchObject({ state: "ACTIVE", status: "ACTIVE" })
    const both = await c.ok("PATCH", `/cards/${card.id}`, { state: "FROZEN", status: "FROZEN" })
    expect(both.state).toBe("FROZEN")
    expect((await c.cardEvents(card.id)).map((x) => [x.type, x.card.state])).toEqual([
      ["CARD.STATE_CHANGE", "ACTIVE"],
      ["CARD.STATE_CHANGE", "FROZEN"],
      ["CARD.STATE_CHANGE", "ACTIVE"],
      ["CARD.STATE_CHANGE", "FROZEN"]
    ])
    expect((await c.cardEvents(card.id)).at(-1)?.card).toEqual(both)
  })

  it("ACTIVE or FROZEN -> CLOSED: stateReason CLOSED_BY_PLATFORM, funding sources detached; then 409 CARD_ALREADY_CLOSED and CARD_NOT_MUTABLE", async () => {
    const h = await c.holder()
    for (const start of ["ACTIVE", "FROZEN"]) {
      const card = await c.issueFor(h)
      if (start === "FROZEN") await c.ok("PATCH", `/cards/${card.id}`, { state: "FROZEN" })
      const closed = await c.ok("PATCH", `/cards/${card.id}`, { state: "CLOSED" })
      expect(closed).toMatchObject({ state: "CLOSED", status: "CLOSED", stateReason: "CLOSED_BY_PLATFORM", fundingSources: [] })
      expect((await c.record(card.id))?.fundingSourceBindings).toEqual([])
      const events = await c.cardEvents(card.id)
      expect(events.at(-1)).toEqual({ type: "CARD.STATE_CHANGE", card: closed })
      expect(events.filter((x) => x.type === "CARD.FUNDING_SOURCE_CHANGE")).toEqual([])
      expectError(await c.patch(card.id, { state: "CLOSED" }), 409, "CARD_ALREADY_CLOSED")
      expectError(await c.patch(card.id, { status: "CLOSED" }), 409, "CARD_ALREADY_CLOSED")
      expectError(await c.patch(card.id, { state: "ACTIVE" }), 409, "CARD_NOT_MUTABLE")
      expectError(await c.patch(card.id, { state: "FROZEN" }), 409, "CARD_NOT_MUTABLE")
      expectError(await c.patch(card.id, { maxSpendPerTransaction: 100 }), 409, "CARD_NOT_MUTABLE")
      expectError(await c.patch(card.id, { fundingSources: [h.accounts["USD"]] }), 409, "CARD_NOT_MUTABLE")
      // Nothing changed, nothing announced.
      expect(await c.ok("GET", `/cards/${card.id}`)).toEqual(closed)
      expect(await c.cardEvents(card.id)).toEqual(events)
    }
  })

  it("409 INVALID_STATE_TRANSITION for a move not in the table (to the status it already has)", async () => {
    const h = await c.holder()
    const card = await c.issueFor(h)
    const r = await c.patch(card.id, { state: "ACTIVE" })
    expectError(r, 409, "INVALID_STATE_TRANSITION")
    expect(r.body.details).toMatchObject({ from: "ACTIVE", to: "ACTIVE" })
    await c.ok("PATCH", `/cards/${card.id}`, { state: "FROZEN" })
    expectError(await c.patch(card.id, { status: "FROZEN" }), 409, "INVALID_STATE_TRANSITION")
  })

  it("400 INVALID_INPUT: no field, state and status that disagree, CLOSED with fundingSources or maxSpendPerTransaction, an unknown state", async () => {
    const h = await c.holder()
    const card = await c.issueFor(h)
    expectError(await c.patch(card.id, {}), 400, "INVALID_INPUT")
    expectError(await c.patch(card.id, { state: "FROZEN", status: "CLOSED" }), 400, "INVALID_INPUT")
    const closing = await c.patch(card.id, { state: "CLOSED", fundingSources: [h.accounts["USD"]], maxSpendPerTransaction: 10 })
    expectError(closing, 400, "INVALID_INPUT")
    expect(closing.body.details.errors.map((x: { field: string }) => x.field)).toEqual(["fundingSources", "maxSpendPerTransaction"])
    expectError(await c.patch(card.id, { status: "CLOSED", maxSpendPerTransaction: null }), 400, "INVALID_INPUT")
    expectError(await c.patch(card.id, { state: "PROCESSING" }), 400, "INVALID_INPUT")
    expectError(await c.patch(card.id, { fundingSources: [] }), 400, "INVALID_INPUT")
    expectError(await c.patch(card.id, { maxSpendPerTransaction: 0 }), 400, "INVALID_INPUT")
    expect((await c.ok("GET", `/cards/${card.id}`)).state).toBe("ACTIVE")
  })
})

describe("PATCH /cards/{id}: funding sources and the spend limit", () => {
  it("fundingSources replaces the list, CARD.FUNDING_SOURCE_CHANGE even when it is the same; an account still bound keeps its binding id", async () => {
    // A customer has one internal account per currency and a card's sources share its
    // currency, so over HTTP a card has one source; rebinding is covered by the rule's tests.
    const h = await c.holder()
    const card = await c.issueFor(h)
    const before = await c.record(card.id)
    await c.advance(1)
    const same = await c.ok("PATCH", `/cards/${card.id}`, { fundingSources: [h.accounts["USD"]] })
    expect(same.fundingSources).toEqual([h.accounts["USD"]])
    expect(Date.parse(same.updatedAt)).toBeGreaterThan(Date.parse(card.updatedAt))
    expect((await c.record(card.id))?.fundingSourceBindings).toEqual(before?.fundingSourceBindings)
    const events = await c.cardEvents(card.id)
    expect(events.map((x) => x.type)).toEqual(["CARD.STATE_CHANGE", "CARD.FUNDING_SOURCE_CHANGE"])
    expect(events.at(-1)?.card).toEqual(same)
  })

  it("every binding has its own id: two cards on one account have two bindings", async () => {
    const h = await c.holder()
    const one = await c.issueFor(h)
    const two = await c.issueFor(h)
    const a = (await c.record(one.id))?.fundingSourceBindings[0]
    const b = (await c.record(two.id))?.fundingSourceBindings[0]
    expect(a?.internalAccountId).toBe(h.accounts["USD"])
    expect(b?.internalAccountId).toBe(h.accounts["USD"])
    expect(a?.id).toMatch(/^CardFundingSource:/)
    expect(b?.id).toMatch(/^CardFundingSource:/)
    expect(a?.id).not.toBe(b?.id)
  })

  it("400 FUNDING_SOURCE_INELIGIBLE for a source in another currency or of another customer; nothing changes", async () => {
    const h = await c.holder()
    const other = await c.holder()
    const card = await c.issueFor(h)
    const mismatch = await c.patch(card.id, { fundingSources: [h.accounts["USDC"]] })
    expectError(mismatch, 400, "FUNDING_SOURCE_INELIGIBLE")
    expect(mismatch.body.details.ineligible[0]).toMatchObject({ field: "fundingSources[0]", reason: "CURRENCY_MISMATCH" })
    const theirs = await c.patch(card.id, { fundingSources: [h.accounts["USD"], other.accounts["USD"]] })
    expectError(theirs, 400, "FUNDING_SOURCE_INELIGIBLE")
    expect(theirs.body.details.ineligible).toHaveLength(1)
    expect(theirs.body.details.ineligible[0]).toMatchObject({ field: "fundingSources[1]", reason: "NOT_CARDHOLDERS" })
    expectError(await c.patch(card.id, { fundingSources: [h.accounts["USD"], h.accounts["USD"]] }), 400, "INVALID_INPUT")
    expect((await c.ok("GET", `/cards/${card.id}`))).toEqual(card)
    expect((await c.cardEvents(card.id)).map((x) => x.type)).toEqual(["CARD.STATE_CHANGE"])
  })

  it("on a platform where EUR is eligible too, a USD card still takes USD sources only", async () => {
    const eh = await e.holder()
    const card = await e.issue({ cardholderId: eh.id, fundingSources: [eh.accounts["USD"]] })
    const r = await e.patch(card.id, { fundingSources: [eh.accounts["EUR"]] })
    expectError(r, 400, "FUNDING_SOURCE_INELIGIBLE")
    expect(r.body.details).toMatchObject({ cardCurrency: "USD", ineligible: [{ reason: "CURRENCY_MISMATCH" }] })
  })

  it("maxSpendPerTransaction: set, then cleared with null; no event; updatedAt moves", async () => {
    const h = await c.holder()
    const card = await c.issueFor(h)
    await c.advance(5)
    const set = await c.ok("PATCH", `/cards/${card.id}`, { maxSpendPerTransaction: 10000 })
    expect(set.maxSpendPerTransaction).toBe(10000)
    expect(Date.parse(set.updatedAt)).toBeGreaterThan(Date.parse(card.updatedAt))
    expect(set.createdAt).toBe(card.createdAt)
    const cleared = await c.ok("PATCH", `/cards/${card.id}`, { maxSpendPerTransaction: null })
    expect(cleared.maxSpendPerTransaction).toBeNull()
    expect((await c.cardEvents(card.id)).map((x) => x.type)).toEqual(["CARD.STATE_CHANGE"])
  })

  it("state and fundingSources in one call: CARD.STATE_CHANGE then CARD.FUNDING_SOURCE_CHANGE, both with the final card", async () => {
    const h = await c.holder()
    const card = await c.issueFor(h)
    const done = await c.ok("PATCH", `/cards/${card.id}`, { state: "FROZEN", fundingSources: [h.accounts["USD"]], maxSpendPerTransaction: 42 })
    expect(done).toMatchObject({ state: "FROZEN", maxSpendPerTransaction: 42 })
    const events = await c.cardEvents(card.id)
    expect(events.slice(1)).toEqual([
      { type: "CARD.STATE_CHANGE", card: done },
      { type: "CARD.FUNDING_SOURCE_CHANGE", card: done }
    ])
  })
})

describe("POST /cards/{id}/reveal", () => {
  it("a short-lived https URL (5 minutes), a new one each time; FROZEN cards too; 409 CARD_NOT_MUTABLE once CLOSED", async () => {
    const h = await c.holder()
    const card = await c.issueFor(h)
    const now = await c.clock()
    const r = await c.ok("POST", `/cards/${card.id}/reveal`)
    expect(Object.keys(r).sort()).toEqual(["expiresAt", "panEmbedUrl"])
    const url = new URL(r.panEmbedUrl)
    expect(url.protocol).toBe("https:")
    expect(url.hostname.endsWith(".invalid")).toBe(true)
    expect(url.searchParams.get("t")).toMatch(/^[0-9a-f]{32}$/)
    const ttl = Date.parse(r.expiresAt) - now
    expect(ttl).toBeGreaterThanOrEqual(5 * 60 * 1000 - 1000)
    expect(ttl).toBeLessThanOrEqual(5 * 60 * 1000 + 1000)
    expect((await c.ok("POST", `/cards/${card.id}/reveal`)).panEmbedUrl).not.toBe(r.panEmbedUrl)
    await c.ok("PATCH", `/cards/${card.id}`, { state: "FROZEN" })
    await c.ok("POST", `/cards/${card.id}/reveal`)
    await c.ok("PATCH", `/cards/${card.id}`, { state: "CLOSED" })
    expectError(await c.call("POST", `/cards/${card.id}/reveal`), 409, "CARD_NOT_MUTABLE")
    // A reveal changes nothing and announces nothing.
    expect((await c.cardEvents(card.id)).map((x) => x.card.state)).toEqual(["ACTIVE", "FROZEN", "CLOSED"])
  })
})

describe("platforms", () => {
  it("a production platform has the card endpoints with the same rules (its customers' KYC is never approved here: no provider)", async () => {
    const h = await prod.holder()
    expect(h.kycStatus).not.toBe("APPROVED")
    const refused = await prod.call("POST", "/cards", { cardholderId: h.id, form: "VIRTUAL", fundingSources: ["InternalAccount:00000000-0000-0000-0000-000000000000"] })
    expectError(refused, 400, "CARDHOLDER_KYC_NOT_APPROVED")
    const listed = await prod.ok("GET", "/cards")
    expect(listed).toMatchObject({ data: [], hasMore: false })
    expectError(await prod.call("GET", "/cards/Card:00000000-0000-0000-0000-000000000000"), 404, "NOT_FOUND")
  })

  it("a platform with cards turned off (cards.enabled false) has no card issuer: every card endpoint answers 501 NOT_IMPLEMENTED", async () => {
    const id = "Card:00000000-0000-0000-0000-000000000000"
    expectError(await off.call("POST", "/cards", { cardholderId: "Customer:x", form: "VIRTUAL", fundingSources: ["InternalAccount:x"] }), 501, "NOT_IMPLEMENTED")
    expectError(await off.call("GET", "/cards"), 501, "NOT_IMPLEMENTED")
    expectError(await off.call("GET", `/cards/${id}`), 501, "NOT_IMPLEMENTED")
    expectError(await off.call("PATCH", `/cards/${id}`, { state: "FROZEN" }), 501, "NOT_IMPLEMENTED")
    expectError(await off.call("POST", `/cards/${id}/reveal`), 501, "NOT_IMPLEMENTED")
  })

  it("a sandbox reset deletes the platform's cards", async () => {
    const p = moneyPlatform("cards-reset")
    const local = makeApi([p])
    try {
      const r = cardClient(local, p)
      const h = await r.holder()
      const card = await r.issueFor(h)
      expect((await r.call("POST", "/sandbox/reset")).status).toBe(204)
      expectError(await r.call("GET", `/cards/${card.id}`), 404, "NOT_FOUND")
      expect((await r.ok("GET", "/cards")).totalCount).toBe(0)
    } finally {
      await local.dispose()
    }
  })
})
