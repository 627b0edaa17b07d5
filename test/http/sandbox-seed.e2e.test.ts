/**
 * Seed documents end to end (docs/sandbox.md#fixtures): examples/sandbox-seed.json
 * applied to a fresh regulated sandbox platform gives the customers (KYC by magic
 * suffix), accounts, balances and cards it describes; applied again it creates nothing; a
 * refused item is a 400 naming it with nothing of the document applied; production
 * platforms get 403. test/postgres/ runs it
 * again on PostgreSQL.
 */
import { readFileSync } from "node:fs"
import { afterEach, describe, expect, it } from "vitest"
import { platformFromConfig } from "../../src/domain/platform.js"
import { makeApi } from "../support/api.js"
import { moneyClient, moneyPlatform } from "../support/money.js"

const example: unknown = JSON.parse(readFileSync(new URL("../../examples/sandbox-seed.json", import.meta.url), "utf8"))

const sandbox = moneyPlatform("seeded")
const production = platformFromConfig({ id: "seeded-prod", clientId: "seeded-prod-client", clientSecret: "seeded-prod-secret-1", sandbox: false })

const cleanup: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f()
})

const setup = () => {
  const api = makeApi([sandbox, production])
  cleanup.push(() => api.dispose())
  return { api, m: moneyClient(api, sandbox) }
}

/** Everything the seed touches, as the API shows it. */
const state = async (m: ReturnType<typeof moneyClient>) => ({
  customers: (await m.ok("GET", "/customers")).data,
  customerAccounts: (await m.ok("GET", "/customers/external-accounts")).data,
  platformAccounts: (await m.ok("GET", "/platform/external-accounts")).data,
  internal: (await m.ok("GET", "/customers/internal-accounts")).data,
  platformInternal: (await m.ok("GET", "/platform/internal-accounts")).data,
  cards: (await m.ok("GET", "/cards")).data,
  config: await m.ok("GET", "/config")
})

describe("POST /sandbox/seed", () => {
  it("applies the example: customers with their sandbox KYC outcome, accounts, balances, config; the second application creates nothing", async () => {
    const { m } = setup()
    const first = await m.ok("POST", "/sandbox/seed", example)
    expect(first.created).toEqual({ customers: 2, externalAccounts: 2, fundings: 2, cards: 1 })
    expect(Object.keys(first.customers)).toEqual(["alice", "bob"])
    expect(Object.keys(first.platformExternalAccounts)).toEqual(["treasury"])

    const alice = await m.ok("GET", `/customers/${encodeURIComponent(first.customers.alice)}`)
    expect(alice).toMatchObject({ platformCustomerId: "alice", kycStatus: "APPROVED" })
    const bob = await m.ok("GET", `/customers/${encodeURIComponent(first.customers.bob)}`)
    expect(bob).toMatchObject({ platformCustomerId: "bob", kycStatus: "REJECTED" })
    const accounts = await m.accountsOf(first.customers.alice)
    expect(await m.balance(accounts.USD, first.customers.alice)).toBe(250_000)
    const platformUsd = (await m.platformAccounts()).USD
    expect(await m.balance(platformUsd)).toBe(1_000_000)
    const before = await state(m)
    expect(before.config.webhookEndpoint).toBe("https://hooks.example.invalid/payments")
    expect(before.customerAccounts.map((a: { platformAccountId?: string }) => a.platformAccountId)).toEqual(["alice-checking"])
    // The card, issued by POST /cards' operation: Alice's, funded by her USD account.
    expect(Object.keys(first.cards)).toEqual(["alice-virtual"])
    expect(before.cards).toHaveLength(1)
    expect(before.cards[0]).toMatchObject({
      id: first.cards["alice-virtual"],
      platformCardId: "alice-virtual",
      cardholderId: first.customers.alice,
      fundingSources: [accounts.USD],
      maxSpendPerTransaction: 50_000,
      currency: "USD",
      state: "ACTIVE"
    })

    const second = await m.ok("POST", "/sandbox/seed", example)
    expect(second).toEqual({ ...first, created: { customers: 0, externalAccounts: 0, fundings: 0, cards: 0 } })
    expect(await state(m)).toEqual(before)
  })

  it("balances are targets: money spent is funded back up to them, money above them stays", async () => {
    const { m } = setup()
    const doc = { customers: [{ customer: { customerType: "INDIVIDUAL", platformCustomerId: "c1", fullName: "Cy Ok" }, balances: { USD: 1_000 } }] }
    const first = await m.ok("POST", "/sandbox/seed", doc)
    const usd = (await m.accountsOf(first.customers.c1)).USD
    await m.fund(usd, 500)
    expect((await m.ok("POST", "/sandbox/seed", doc)).created.fundings).toBe(0)
    expect(await m.balance(usd, first.customers.c1)).toBe(1_500)
  })

  it("a refused document applies nothing: customers, accounts, fundings and config made before the refused item are gone", async () => {
    const { m } = setup()
    const before = await state(m)
    const treasury = (example as { platformExternalAccounts: Array<unknown> }).platformExternalAccounts[0]
    const doc = {
      config: { webhookEndpoint: "https://seed-refused.example.invalid/hooks" },
      customers: [
        { customer: { customerType: "INDIVIDUAL", platformCustomerId: "first", fullName: "First Ok" }, balances: { USD: 100 } },
        { customer: { customerType: "INDIVIDUAL", platformCustomerId: "second", fullName: "Second Ok" }, balances: { JPY: 5 } }
      ],
      platformExternalAccounts: [treasury]
    }
    const refused = await m.call("POST", "/sandbox/seed", doc)
    expect(refused.status).toBe(400)
    expect(refused.body.reason).toContain("customers[1]")
    expect(await state(m)).toEqual(before)
    // The same refusal late in the document (the key twice, after a customer and an account were made).
    const twice = await m.call("POST", "/sandbox/seed", { customers: [doc.customers[0]], platformExternalAccounts: [treasury, treasury] })
    expect(twice.status).toBe(400)
    expect(await state(m)).toEqual(before)
  })

  it("a refused card refuses the whole document: the customers, fundings and cards before it are gone", async () => {
    const { m } = setup()
    const before = await state(m)
    const doc = {
      customers: [
        { customer: { customerType: "INDIVIDUAL", platformCustomerId: "carla", fullName: "Carla Ok" }, balances: { USD: 100 } },
        { customer: { customerType: "INDIVIDUAL", platformCustomerId: "dan", fullName: "Dan Ok" } }
      ],
      cards: [
        { platformCardId: "carla-1", platformCustomerId: "carla", form: "VIRTUAL", fundingCurrencies: ["USD"] },
        // POST /cards refuses a static 3DS password on a USD card.
        { platformCardId: "dan-1", platformCustomerId: "dan", form: "VIRTUAL", fundingCurrencies: ["USD"], threeDSecurePassword: "static-3ds" }
      ]
    }
    const refused = await m.call("POST", "/sandbox/seed", doc)
    expect(refused.status).toBe(400)
    expect(refused.body.reason).toContain("cards[1]")
    expect(refused.body.details).toMatchObject({ item: "cards[1]", code: "INVALID_INPUT" })
    expect(refused.body.details.reason).toContain("threeDSecurePassword")
    expect(await state(m)).toEqual(before)
    // Without Dan's card it applies; a card's key held by another cardholder's card is refused, changing nothing.
    const applied = await m.ok("POST", "/sandbox/seed", { ...doc, cards: [doc.cards[0]] })
    expect(applied.created.cards).toBe(1)
    const after = await state(m)
    const stolen = await m.call("POST", "/sandbox/seed", {
      customers: [{ customer: { customerType: "INDIVIDUAL", platformCustomerId: "erin", fullName: "Erin Ok" } }],
      cards: [{ platformCardId: "carla-1", platformCustomerId: "erin", form: "VIRTUAL", fundingCurrencies: ["USD"] }]
    })
    expect(stolen.status).toBe(400)
    expect(stolen.body.reason).toContain("another cardholder")
    expect(await state(m)).toEqual(after)
  })

  it("a card item needs its platformCardId, a known cardholder and an account in each funding currency", async () => {
    const { m } = setup()
    const holder = { customer: { customerType: "INDIVIDUAL", platformCustomerId: "fay", fullName: "Fay Ok" } }
    const card = { platformCardId: "fay-1", platformCustomerId: "fay", form: "VIRTUAL", fundingCurrencies: ["USD"] }
    const { platformCardId: _key, ...unkeyed } = card
    const cases: ReadonlyArray<[unknown, string]> = [
      [{ customers: [holder], cards: [unkeyed] }, "cards[0].platformCardId is required"],
      [{ customers: [holder], cards: [card, card] }, "appears twice"],
      [{ cards: [card] }, "no customer of the platform or the document has platformCustomerId fay"],
      [{ customers: [holder], cards: [{ ...card, fundingCurrencies: ["JPY"] }] }, "has no JPY internal account"]
    ]
    for (const [doc, reason] of cases) {
      const r = await m.call("POST", "/sandbox/seed", doc)
      expect(r.status, reason).toBe(400)
      expect(r.body.code).toBe("INVALID_INPUT")
      expect(r.body.reason).toContain(reason)
    }
    expect((await m.ok("GET", "/cards")).data).toEqual([])
  })

  it("a refused item is a 400 naming it; an item without its key is a 400; production platforms get 403", async () => {
    const { api, m } = setup()
    const bad = await m.call("POST", "/sandbox/seed", {
      customers: [{ customer: { customerType: "INDIVIDUAL", platformCustomerId: "x", fullName: "X Y" }, balances: { JPY: 5 } }]
    })
    expect(bad.status).toBe(400)
    expect(bad.body.code).toBe("INVALID_INPUT")
    expect(bad.body.reason).toContain("customers[0]")
    const unkeyed = await m.call("POST", "/sandbox/seed", { customers: [{ customer: { customerType: "INDIVIDUAL", fullName: "No Key" } }] })
    expect(unkeyed.status).toBe(400)
    expect(unkeyed.body.reason).toContain("platformCustomerId is required")
    const twice = await m.call("POST", "/sandbox/seed", {
      platformExternalAccounts: [(example as { platformExternalAccounts: Array<unknown> }).platformExternalAccounts[0], (example as { platformExternalAccounts: Array<unknown> }).platformExternalAccounts[0]]
    })
    expect(twice.status).toBe(400)
    const prod = await api.call("POST", "/sandbox/seed", { body: example, as: production })
    expect(prod.status).toBe(403)
  })
})
