/**
 * Conformance of stablecoin issuance: every success answer of the stablecoin endpoints
 * (provider account links, register, list, get, mints, burns, operations) validates
 * against the reference operation's schema for its status, across the statuses an
 * operation takes (pending funding with instructions, pending provider, processing,
 * completed, failed with a reason) and the list filters and cursors. Our enablement
 * request (SPEC.md's machine; the reference has no endpoint for it) answers the
 * reference `Stablecoin`. No SPEC.md difference applies: the reference is used as is.
 */
import { afterAll, describe, expect, it } from "vitest"
import { makeApi } from "../support/api.js"
import { moneyClient, moneyPlatform } from "../support/money.js"
import { conformance, referenceOperation } from "./harness.js"
import { STABLECOIN_OPERATIONS, STABLECOIN_OURS } from "./operations.js"

const { conforms, validator, checked } = conformance(() => undefined)

const platform = moneyPlatform("conformance-stablecoins")
const api = makeApi([platform])
afterAll(() => api.dispose())
const c = moneyClient(api, platform)

let n = 0
const post = (path: string, body: unknown) => c.call("POST", path, body, { "idempotency-key": `conf-${++n}` })

describe("stablecoin answers against the reference", () => {
  it("links, registrations, enablement, mints, burns and operations in every status", async () => {
    const link = conforms("POST", "/stablecoin-provider-accounts", await post("/stablecoin-provider-accounts", { provider: "BRALE", apiClientId: "conf_client", apiClientSecret: "conf_secret" })) as { id: string }
    conforms("POST", "/stablecoin-provider-accounts", await post("/stablecoin-provider-accounts", { provider: "BRALE", apiClientId: "conf_client_902", apiClientSecret: "s", providerAccountId: "acct-2" }))
    for (const q of ["", "?provider=BRALE", "?status=REVOKED", "?limit=1"]) {
      conforms("GET", "/stablecoin-provider-accounts", await c.call("GET", `/stablecoin-provider-accounts${q}`))
    }
    const page = await c.call("GET", "/stablecoin-provider-accounts?limit=1")
    conforms("GET", "/stablecoin-provider-accounts", await c.call("GET", `/stablecoin-provider-accounts?limit=1&cursor=${encodeURIComponent(page.body.nextCursor)}`))
    conforms("GET", "/stablecoin-provider-accounts/{}", await c.call("GET", `/stablecoin-provider-accounts/${link.id}`))

    const coin = conforms("POST", "/stablecoins", await post("/stablecoins", {
      providerTokenIdentifier: "CONF",
      networkTokenIdentifier: "btkn1qw508d6qejxtdg4y5r3zarvary0c5xw7k",
      network: "SPARK",
      stablecoinProviderAccountId: link.id
    })) as { id: string }
    conforms("GET", "/stablecoins/{}", await c.call("GET", `/stablecoins/${coin.id}`))
    await c.advance(60)
    const enabling = await c.call("POST", `/stablecoins/${coin.id}/grid-operations-enablement`)
    expect(enabling.status).toBe(200)
    expect(validator("Stablecoin")(enabling.body)).toBe(true)
    await c.advance(120)
    const enabled = conforms("GET", "/stablecoins/{}", await c.call("GET", `/stablecoins/${coin.id}`)) as { currency?: string }
    expect(enabled.currency).toBe("CONF")
    for (const q of ["", "?issuanceStatus=PROVISIONED", "?gridOperationsStatus=ENABLED&provider=BRALE", "?limit=1"]) {
      conforms("GET", "/stablecoins", await c.call("GET", `/stablecoins${q}`))
    }

    const wallet = await c.ok("POST", "/platform/external-accounts", {
      currency: "BTC",
      accountInfo: { accountType: "SPARK_WALLET", address: "sparkrt1pgss9qpzry9x8gf2tvdw0s3jn54khce6mua7l" }
    }, 201)
    const bank = await c.externalUsd(undefined, "77000000000")
    const failing = await c.externalUsd(undefined, "77000000003")
    const usd = (await c.platformAccounts())["USD"]!
    await c.fund(usd, 10_000)
    const mints = [
      { amount: "1000000", fundingSource: { type: "WIRE" }, destination: { accountId: wallet.id }, description: "wire" },
      { amount: "1000000", fundingSource: { type: "ACH_DEBIT", externalAccountId: bank.id }, destination: { accountId: wallet.id } },
      { amount: "1000000", fundingSource: { type: "SAME_DAY_ACH_DEBIT", externalAccountId: failing.id }, destination: { accountId: wallet.id } },
      { amount: "1000000", fundingSource: { type: "GRID_INTERNAL_ACCOUNT", accountId: usd }, destination: { accountId: wallet.id } }
    ]
    const ops: Array<{ id: string }> = []
    for (const body of mints) ops.push(conforms("POST", "/stablecoins/{}/mints", await post(`/stablecoins/${coin.id}/mints`, body)) as { id: string })
    const burns = [
      { amount: "1000000", source: { type: "EXTERNAL_ACCOUNT" }, destination: { type: "EXTERNAL_ACCOUNT", externalAccountId: bank.id, rail: "WIRE" }, description: "redeem" },
      { amount: "1000000", source: { type: "PROVIDER_INTERNAL_BALANCE" }, destination: { type: "EXTERNAL_ACCOUNT", externalAccountId: failing.id, rail: "SAME_DAY_ACH_CREDIT" } }
    ]
    for (const body of burns) ops.push(conforms("POST", "/stablecoins/{}/burns", await post(`/stablecoins/${coin.id}/burns`, body)) as { id: string })
    const seen = new Set<string>()
    const look = async () => {
      for (const op of ops) seen.add((conforms("GET", "/stablecoin-operations/{}", await c.call("GET", `/stablecoin-operations/${op.id}`)) as { status: string }).status)
      for (const q of ["", "?operationType=MINT", "?operationType=BURN&limit=1"]) {
        conforms("GET", "/stablecoins/{}/operations", await c.call("GET", `/stablecoins/${coin.id}/operations${q}`))
      }
    }
    await look()
    await c.advance(60)
    await look()
    await c.advance(2 * 86_400)
    await look()
    const first = await c.call("GET", `/stablecoins/${coin.id}/operations?limit=2`)
    conforms("GET", "/stablecoins/{}/operations", await c.call("GET", `/stablecoins/${coin.id}/operations?limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`))
    expect([...seen].sort()).toEqual(["COMPLETED", "FAILED", "PENDING_FUNDING", "PENDING_PROVIDER", "PROCESSING"])
  })

  it("the validator bites: a missing required field, an unknown status, a wrong type", async () => {
    const list = await c.ok("GET", "/stablecoins")
    const coin = list.data[0] as Record<string, unknown>
    expect(validator("Stablecoin")(coin)).toBe(true)
    const { symbol: _s, ...withoutSymbol } = coin
    expect(validator("Stablecoin")(withoutSymbol)).toBe(false)
    expect(validator("Stablecoin")({ ...coin, gridOperationsStatus: "ON" })).toBe(false)
    expect(validator("Stablecoin")({ ...coin, decimals: "6" })).toBe(false)
  })

  it("our enablement endpoint has no reference operation", () => {
    for (const op of STABLECOIN_OURS) {
      const [method, path] = op.split(" ") as [string, string]
      expect(referenceOperation(method, path), op).toBeUndefined()
    }
  })

  it("every stablecoin endpoint with a success body was checked", () => {
    for (const op of STABLECOIN_OPERATIONS) expect(checked.get(op) ?? 0, op).toBeGreaterThan(0)
  })
})
