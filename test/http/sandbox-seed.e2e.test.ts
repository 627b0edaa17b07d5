/**
 * Seed documents end to end (docs/sandbox.md#fixtures): examples/sandbox-seed.json
 * applied to a fresh regulated sandbox platform gives the customers (KYC by magic
 * suffix), accounts and balances it describes; applied again it creates nothing; a
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
  config: await m.ok("GET", "/config")
})

describe("POST /sandbox/seed", () => {
  it("applies the example: customers with their sandbox KYC outcome, accounts, balances, config; the second application creates nothing", async () => {
    const { m } = setup()
    const first = await m.ok("POST", "/sandbox/seed", example)
    expect(first.created).toEqual({ customers: 2, externalAccounts: 2, fundings: 2 })
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

    const second = await m.ok("POST", "/sandbox/seed", example)
    expect(second).toEqual({ ...first, created: { customers: 0, externalAccounts: 0, fundings: 0 } })
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
