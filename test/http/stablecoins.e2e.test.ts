/**
 * Stablecoin issuance over HTTP (docs/stablecoins.md): provider account links,
 * registration, Grid-operations enablement, mints and burns, on the sandbox clock; every
 * error code the endpoints answer, idempotent replays and key reuse, ledger balances
 * before and after, and a production platform's behaviour (no magic, no sandbox clock).
 * Memory store only (test/postgres/README.md says which suites run on PostgreSQL too);
 * `PAYMENTS_TEST_STORE=postgres npx vitest run` on this file runs it there.
 */
import { Effect } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { runDueTimers } from "../../src/operations/scheduler.js"
import { applyOperationTimer, STABLECOIN_OPERATION_TIMER } from "../../src/operations/stablecoins.js"
import { Store } from "../../src/ports/store.js"
import { isErrorShape, makeApi, type Reply } from "../support/api.js"
import { moneyClient, moneyPlatform } from "../support/money.js"

const sandbox = moneyPlatform("stablecoins-sandbox")
const other = moneyPlatform("stablecoins-other")
const production = moneyPlatform("stablecoins-production", { sandbox: false })
const api = makeApi([sandbox, other, production])
afterAll(() => api.dispose())

const c = moneyClient(api, sandbox)
const o = moneyClient(api, other)
const prod = moneyClient(api, production)

let keys = 0
const key = () => ({ "idempotency-key": `stablecoin-test-${++keys}` })
type Client = typeof c
const post = (client: Client, path: string, body: unknown, headers: Record<string, string> = key()) => client.call("POST", path, body, headers)
const created = async (client: Client, path: string, body: unknown) => {
  const r = await post(client, path, body)
  expect(r.status, `POST ${path}: ${JSON.stringify(r.body)}`).toBe(201)
  return r.body
}
const expectError = (r: Reply, status: number, code: string) => {
  expect(r.status, JSON.stringify(r.body)).toBe(status)
  expect(r.body.code).toBe(code)
  expect(isErrorShape(r.body)).toBe(true)
}

let tokens = 0
/** A fresh Spark token identifier (bech32 characters only). */
const sparkToken = () => `btkn1qw508d6qejxtdg4y5r3zarvary0c5xw7k${"qpzry9x8gf2tvdw0s3jn54khce6mua7l"[tokens % 32]}${"qpzry9x8gf2tvdw0s3jn54khce6mua7l"[Math.floor(tokens++ / 32) % 32]}`
const link = (client: Client, apiClientId: string, extra: Record<string, unknown> = {}) =>
  created(client, "/stablecoin-provider-accounts", { provider: "BRALE", apiClientId, apiClientSecret: "secret-456", ...extra })
const register = (client: Client, providerTokenIdentifier: string, extra: Record<string, unknown> = {}) =>
  post(client, "/stablecoins", { providerTokenIdentifier, networkTokenIdentifier: sparkToken(), network: "SPARK", ...extra })

/** A provisioned stablecoin on its own platform-wide link (the sandbox platform has exactly one active link by then). */
const provisioned = async (client: Client, symbol: string, linkId: string) => {
  const r = await register(client, symbol, { stablecoinProviderAccountId: linkId })
  expect(r.status, JSON.stringify(r.body)).toBe(201)
  await client.advance(60)
  const s = await client.ok("GET", `/stablecoins/${r.body.id}`)
  expect(s.issuanceStatus).toBe("PROVISIONED")
  return s as { id: string; symbol: string }
}

let sparkSeq = 0
const sparkWallet = async (client: Client) =>
  (await client.ok("POST", "/platform/external-accounts", {
    currency: "BTC",
    accountInfo: { accountType: "SPARK_WALLET", address: `sparkrt1pgss9${"qpzry9x8gf2tvdw0s3jn54khce6mua7l".slice(0, 20)}${"qpzry9x8gf2tvdw0s3jn54khce6mua7l"[sparkSeq++ % 32]}` }
  }, 201)) as { id: string }

let bankSeq = 0
const bank = (client: Client, suffix = "000") => client.externalUsd(undefined, `${String(20_000_000 + ++bankSeq)}${suffix}`)

const operation = (client: Client, id: string) => client.ok("GET", `/stablecoin-operations/${id}`)

describe("stablecoin provider accounts", () => {
  it("links a provider account (201), never returns the secret, and lists and gets it", async () => {
    const a = await link(o, "client_alpha")
    expect(a).toMatchObject({ provider: "BRALE", providerEnvironment: "SANDBOX", status: "ACTIVE" })
    expect(a.id).toMatch(/^StablecoinProviderAccount:/)
    expect(typeof a.providerAccountId).toBe("string")
    expect(a.lastVerifiedAt).toBe(a.createdAt)
    expect(JSON.stringify(a)).not.toContain("secret-456")
    const named = await link(o, "client_beta", { providerAccountId: "2VcUIonJeVQzFoBuC7LdFT0dRe4" })
    expect(named.providerAccountId).toBe("2VcUIonJeVQzFoBuC7LdFT0dRe4")
    expect(await o.ok("GET", `/stablecoin-provider-accounts/${a.id}`)).toEqual(a)
    const list = await o.ok("GET", "/stablecoin-provider-accounts?limit=1")
    expect(list).toMatchObject({ hasMore: true, totalCount: 2, data: [a] })
    const next = await o.ok("GET", `/stablecoin-provider-accounts?limit=1&cursor=${encodeURIComponent(list.nextCursor)}`)
    expect(next).toMatchObject({ hasMore: false, data: [named] })
    expect((await o.ok("GET", "/stablecoin-provider-accounts?provider=BRALE&status=ACTIVE")).totalCount).toBe(2)
    expect((await o.ok("GET", "/stablecoin-provider-accounts?status=REVOKED")).totalCount).toBe(0)
    // Another platform sees none of them.
    expectError(await c.call("GET", `/stablecoin-provider-accounts/${a.id}`), 404, "STABLECOIN_PROVIDER_ACCOUNT_NOT_FOUND")
  })

  it("requires an Idempotency-Key; a replay answers the first link, a reused key with another body is 409", async () => {
    const body = { provider: "BRALE", apiClientId: "client_idem", apiClientSecret: "s" }
    const missing = await c.call("POST", "/stablecoin-provider-accounts", body)
    expectError(missing, 400, "INVALID_INPUT")
    expect(JSON.stringify(missing.body.details)).toContain("idempotency-key")
    const headers = key()
    const first = await post(c, "/stablecoin-provider-accounts", body, headers)
    expect(first.status).toBe(201)
    const again = await post(c, "/stablecoin-provider-accounts", body, headers)
    expect(again.status).toBe(201)
    expect(again.body).toEqual(first.body)
    expectError(await post(c, "/stablecoin-provider-accounts", { ...body, apiClientId: "client_other" }, headers), 409, "CONFLICT")
    // The same provider account linked again under a new key: 409 naming the existing link.
    const dup = await post(c, "/stablecoin-provider-accounts", body)
    expectError(dup, 409, "CONFLICT")
    expect(dup.body.details.existingStablecoinProviderAccountId).toBe(first.body.id)
  })

  it("sandbox credentials by apiClientId suffix: 901 INVALID, 902 REVOKED, 903 400 STABLECOIN_VERIFICATION_FAILED", async () => {
    expect((await link(o, "client_901")).status).toBe("INVALID")
    expect((await link(o, "client_902")).status).toBe("REVOKED")
    expectError(await post(o, "/stablecoin-provider-accounts", { provider: "BRALE", apiClientId: "client_903", apiClientSecret: "x" }), 400, "STABLECOIN_VERIFICATION_FAILED")
  })

  it("bad input is a 400 naming the field; an unknown link is 404", async () => {
    const r = await post(c, "/stablecoin-provider-accounts", { provider: "CIRCLE", apiClientId: "", apiClientSecret: "x".repeat(256) })
    expectError(r, 400, "INVALID_INPUT")
    const fields = (r.body.details.errors as Array<{ field: string }>).map((e) => e.field).sort()
    expect(fields).toEqual(["apiClientId", "apiClientSecret", "provider"])
    expectError(await c.call("GET", "/stablecoin-provider-accounts?status=GONE"), 400, "INVALID_INPUT")
    expectError(await c.call("GET", "/stablecoin-provider-accounts?cursor=nope"), 400, "INVALID_INPUT")
    expectError(await c.call("GET", "/stablecoin-provider-accounts/StablecoinProviderAccount:nope"), 404, "STABLECOIN_PROVIDER_ACCOUNT_NOT_FOUND")
  })
})

describe("registering stablecoins", () => {
  it("404 STABLECOIN_PROVIDER_ACCOUNT_NOT_FOUND while the platform has no active link", async () => {
    const fresh = moneyClient(api, sandbox)
    await fresh.ok("POST", "/sandbox/reset", undefined, 204)
    expectError(await register(fresh, "NOLINK"), 404, "STABLECOIN_PROVIDER_ACCOUNT_NOT_FOUND")
  })

  it("registers on the only active link, then moves PENDING_REVIEW → PROVISIONING → PROVISIONED on the sandbox clock", async () => {
    await c.ok("POST", "/sandbox/reset", undefined, 204)
    const l = await link(c, "client_main")
    const headers = key()
    const body = { providerTokenIdentifier: "acme", networkTokenIdentifier: sparkToken(), network: "SPARK" }
    const r = await post(c, "/stablecoins", body, headers)
    expect(r.status).toBe(201)
    expect(r.body).toMatchObject({
      name: "ACME Dollar",
      symbol: "ACME",
      baseCurrency: "USD",
      network: "SPARK",
      decimals: 6,
      issuanceStatus: "PENDING_REVIEW",
      gridOperationsStatus: "NOT_ENABLED",
      networkTokenIdentifier: body.networkTokenIdentifier,
      provider: "BRALE",
      stablecoinProviderAccountId: l.id,
      providerEnvironment: "SANDBOX",
      providerTokenIdentifier: "acme"
    })
    expect(r.body.currency).toBeUndefined()
    // Replay: the first answer, nothing new.
    expect((await post(c, "/stablecoins", body, headers)).body).toEqual(r.body)
    expectError(await post(c, "/stablecoins", { ...body, providerTokenIdentifier: "acme2" }, headers), 409, "CONFLICT")
    expect((await c.ok("GET", "/stablecoins")).totalCount).toBe(1)
    await c.advance(29)
    expect((await c.ok("GET", `/stablecoins/${r.body.id}`)).issuanceStatus).toBe("PENDING_REVIEW")
    await c.advance(1)
    expect((await c.ok("GET", `/stablecoins/${r.body.id}`)).issuanceStatus).toBe("PROVISIONING")
    await c.advance(30)
    const done = await c.ok("GET", `/stablecoins/${r.body.id}`)
    expect(done.issuanceStatus).toBe("PROVISIONED")
    expect(done.updatedAt > done.createdAt).toBe(true)
    expect((await c.ok("GET", "/stablecoins?issuanceStatus=PROVISIONED")).data.map((s: { id: string }) => s.id)).toEqual([r.body.id])

    // The same token or the same symbol again: 409, whatever the key.
    const token = await post(c, "/stablecoins", { ...body, providerTokenIdentifier: "OTHER" })
    expectError(token, 409, "STABLECOIN_TOKEN_IDENTIFIER_ALREADY_EXISTS")
    expect(token.body.details.existingStablecoinId).toBe(r.body.id)
    expectError(await register(c, "ACME"), 409, "STABLECOIN_SYMBOL_ALREADY_EXISTS")
    expect((await c.ok("GET", "/stablecoins")).totalCount).toBe(1)
  })

  it("several active links need stablecoinProviderAccountId; INVALID and REVOKED links are refused; an unknown one is 404", async () => {
    const second = await link(c, "client_second")
    expectError(await register(c, "TWOLINKS"), 400, "STABLECOIN_PROVIDER_ACCOUNT_SELECTION_REQUIRED")
    const chosen = await register(c, "TWOLINKS", { stablecoinProviderAccountId: second.id })
    expect(chosen.status).toBe(201)
    expect(chosen.body.stablecoinProviderAccountId).toBe(second.id)
    const invalid = await link(c, "client_x901")
    const revoked = await link(c, "client_x902")
    expectError(await register(c, "BADLINK", { stablecoinProviderAccountId: invalid.id }), 400, "STABLECOIN_PROVIDER_ACCOUNT_INVALID")
    expectError(await register(c, "BADLINK", { stablecoinProviderAccountId: revoked.id }), 400, "STABLECOIN_PROVIDER_ACCOUNT_REVOKED")
    expectError(await register(c, "BADLINK", { stablecoinProviderAccountId: "StablecoinProviderAccount:none" }), 404, "STABLECOIN_PROVIDER_ACCOUNT_NOT_FOUND")
  })

  it("racing registrations of one symbol: exactly one 201, the others 409 STABLECOIN_SYMBOL_ALREADY_EXISTS", async () => {
    const [l] = (await c.ok("GET", "/stablecoin-provider-accounts?status=ACTIVE")).data
    const replies = await Promise.all(Array.from({ length: 6 }, () => register(c, "RACER", { stablecoinProviderAccountId: l.id })))
    expect(replies.filter((r) => r.status === 201)).toHaveLength(1)
    for (const r of replies.filter((x) => x.status !== 201)) expectError(r, 409, "STABLECOIN_SYMBOL_ALREADY_EXISTS")
    expect((await c.ok("GET", "/stablecoins")).data.filter((s: { symbol: string }) => s.symbol === "RACER")).toHaveLength(1)
  })

  it("sandbox tokens by suffix: 901 REJECTED under review, 902 FAILED while provisioning", async () => {
    const [l] = (await c.ok("GET", "/stablecoin-provider-accounts?status=ACTIVE")).data
    const rejected = await register(c, "REJ901", { stablecoinProviderAccountId: l.id })
    const failed = await register(c, "FAIL902", { stablecoinProviderAccountId: l.id })
    await c.advance(30)
    expect((await c.ok("GET", `/stablecoins/${rejected.body.id}`)).issuanceStatus).toBe("REJECTED")
    expect((await c.ok("GET", `/stablecoins/${failed.body.id}`)).issuanceStatus).toBe("PROVISIONING")
    await c.advance(30)
    expect((await c.ok("GET", `/stablecoins/${failed.body.id}`)).issuanceStatus).toBe("FAILED")
    expect((await c.ok("GET", "/stablecoins?issuanceStatus=REJECTED")).totalCount).toBe(1)
    expect((await c.ok("GET", "/stablecoins?provider=BRALE&gridOperationsStatus=NOT_ENABLED")).totalCount).toBeGreaterThanOrEqual(4)
  })

  it("bad input is a 400 naming each field; a missing key is a 400; an unknown stablecoin is 404", async () => {
    const r = await post(c, "/stablecoins", { providerTokenIdentifier: "bad token", networkTokenIdentifier: "0xabc", network: "SOLANA" })
    expectError(r, 400, "INVALID_INPUT")
    const fields = (r.body.details.errors as Array<{ field: string }>).map((e) => e.field).sort()
    expect(fields).toEqual(["network", "networkTokenIdentifier", "providerTokenIdentifier"])
    expectError(await c.call("POST", "/stablecoins", { providerTokenIdentifier: "NOKEY", networkTokenIdentifier: sparkToken(), network: "SPARK" }), 400, "INVALID_INPUT")
    expectError(await c.call("GET", "/stablecoins/Stablecoin:none"), 404, "NOT_FOUND")
    expectError(await c.call("GET", "/stablecoins?issuanceStatus=DONE"), 400, "INVALID_INPUT")
    expectError(await c.call("GET", "/stablecoins?limit=101"), 400, "INVALID_INPUT")
  })
})

describe("Grid-operations enablement (SPEC.md's machine)", () => {
  it("NOT_ENABLED → PENDING_APPROVAL (a repeat succeeds) → ENABLING → ENABLED; requests outside NOT_ENABLED/PENDING_APPROVAL are 409", async () => {
    const [l] = (await c.ok("GET", "/stablecoin-provider-accounts?status=ACTIVE")).data
    const fresh = await register(c, "ENABLEME", { stablecoinProviderAccountId: l.id })
    const path = `/stablecoins/${fresh.body.id}/grid-operations-enablement`
    expectError(await c.call("POST", path), 400, "STABLECOIN_NOT_PROVISIONED")
    await c.advance(60)
    const requested = await c.ok("POST", path)
    expect(requested.gridOperationsStatus).toBe("PENDING_APPROVAL")
    const repeat = await c.ok("POST", path)
    expect(repeat).toEqual(requested)
    await c.advance(60)
    expect((await c.ok("GET", `/stablecoins/${fresh.body.id}`)).gridOperationsStatus).toBe("ENABLING")
    const refused = await c.call("POST", path)
    expectError(refused, 409, "STABLECOIN_GRID_ENABLEMENT_NOT_REQUESTABLE")
    expect(refused.body.details.gridOperationsStatus).toBe("ENABLING")
    await c.advance(60)
    const enabled = await c.ok("GET", `/stablecoins/${fresh.body.id}`)
    expect(enabled).toMatchObject({ gridOperationsStatus: "ENABLED", currency: "ENABLEME" })
    expectError(await c.call("POST", path), 409, "STABLECOIN_GRID_ENABLEMENT_NOT_REQUESTABLE")
    expect((await c.ok("GET", "/stablecoins?gridOperationsStatus=ENABLED")).data.map((s: { id: string }) => s.id)).toContain(fresh.body.id)
  })

  it("sandbox token suffix 903: the operator declines (DISABLED), and no further request is accepted", async () => {
    const [l] = (await c.ok("GET", "/stablecoin-provider-accounts?status=ACTIVE")).data
    const s = await provisioned(c, "DECL903", l.id)
    const path = `/stablecoins/${s.id}/grid-operations-enablement`
    expect((await c.ok("POST", path)).gridOperationsStatus).toBe("PENDING_APPROVAL")
    await c.advance(60)
    expect((await c.ok("GET", `/stablecoins/${s.id}`)).gridOperationsStatus).toBe("DISABLED")
    expectError(await c.call("POST", path), 409, "STABLECOIN_GRID_ENABLEMENT_NOT_REQUESTABLE")
    expectError(await c.call("POST", "/stablecoins/Stablecoin:none/grid-operations-enablement"), 404, "NOT_FOUND")
  })
})

describe("mints", () => {
  it("refuses what cannot be minted, each with its code, and stores nothing", async () => {
    const [l] = (await c.ok("GET", "/stablecoin-provider-accounts?status=ACTIVE")).data
    const s = await provisioned(c, "MINTERR", l.id)
    const wallet = await sparkWallet(c)
    const usd = await bank(c)
    const base = { amount: "1000000", fundingSource: { type: "WIRE" }, destination: { accountId: wallet.id } }
    const mint = (body: unknown, id = s.id) => post(c, `/stablecoins/${id}/mints`, body)
    const unprovisioned = await register(c, "NOTYET", { stablecoinProviderAccountId: l.id })
    expectError(await mint(base, unprovisioned.body.id), 400, "STABLECOIN_NOT_PROVISIONED")
    expectError(await mint(base, "Stablecoin:none"), 404, "NOT_FOUND")
    const fraction = await mint({ ...base, amount: "1234567" })
    expectError(fraction, 400, "STABLECOIN_AMOUNT_NOT_REPRESENTABLE")
    expect(fraction.body.details).toEqual({ decimals: 6, multipleOf: "10000" })
    expectError(await mint({ ...base, amount: "9".repeat(30) }), 400, "STABLECOIN_AMOUNT_NOT_REPRESENTABLE")
    expectError(await mint({ ...base, amount: "0" }), 400, "INVALID_INPUT")
    expectError(await mint({ ...base, amount: "1.5" }), 400, "INVALID_INPUT")
    expectError(await mint({ ...base, amount: 1000000 }), 400, "INVALID_INPUT")
    expectError(await mint({ ...base, destination: { accountId: usd.id } }), 400, "STABLECOIN_EXTERNAL_ACCOUNT_NOT_SUPPORTED")
    expectError(await mint({ ...base, destination: { accountId: "InternalAccount:x" } }), 400, "STABLECOIN_OPERATION_NOT_SUPPORTED")
    expectError(await mint({ ...base, destination: { accountId: "ExternalAccount:none" } }), 404, "NOT_FOUND")
    expectError(await mint({ ...base, fundingSource: { type: "PROVIDER_INTERNAL_BALANCE", sourceTokenIdentifier: "USDC", cryptoNetwork: "SOLANA" } }), 400, "STABLECOIN_OPERATION_NOT_SUPPORTED")
    expectError(await mint({ ...base, fundingSource: { type: "ACH_DEBIT", externalAccountId: wallet.id } }), 400, "STABLECOIN_EXTERNAL_ACCOUNT_NOT_SUPPORTED")
    expectError(await mint({ ...base, fundingSource: { type: "ACH_DEBIT" } }), 400, "INVALID_INPUT")
    expectError(await mint({ ...base, fundingSource: { type: "CHEQUE" } }), 400, "INVALID_INPUT")
    const accounts = await c.platformAccounts()
    const notEnabled = await mint({ ...base, fundingSource: { type: "GRID_INTERNAL_ACCOUNT", accountId: accounts["USD"] } })
    expectError(notEnabled, 400, "STABLECOIN_SERVICE_OPERATIONS_NOT_ENABLED")
    expectError(await c.call("POST", `/stablecoins/${s.id}/mints`, base), 400, "INVALID_INPUT")
    expect((await c.ok("GET", `/stablecoins/${s.id}/operations`)).totalCount).toBe(0)
  })

  it("WIRE: PENDING_FUNDING with funding instructions, funds arrive after 30 minutes, COMPLETED 30 s later", async () => {
    const [l] = (await c.ok("GET", "/stablecoin-provider-accounts?status=ACTIVE")).data
    const s = await provisioned(c, "WIREMINT", l.id)
    const wallet = await sparkWallet(c)
    const op = await created(c, `/stablecoins/${s.id}/mints`, { amount: "2500000", fundingSource: { type: "WIRE" }, destination: { accountId: wallet.id }, description: "Initial program funding mint" })
    expect(op).toMatchObject({
      stablecoinId: s.id,
      operationType: "MINT",
      status: "PENDING_FUNDING",
      amount: "2500000",
      provider: "BRALE",
      providerEnvironment: "SANDBOX",
      stablecoinProviderAccountId: l.id,
      source: { type: "WIRE" },
      destination: { accountId: wallet.id },
      description: "Initial program funding mint"
    })
    expect(op.id).toMatch(/^StablecoinOperation:/)
    expect(op.fundingInstructions).toMatchObject({ rail: "WIRE", amount: "250", currency: "USD" })
    expect(Date.parse(op.expiresAt) - Date.parse(op.createdAt)).toBe(7 * 86_400_000)
    await c.advance(30 * 60)
    expect((await operation(c, op.id)).status).toBe("PROCESSING")
    await c.advance(30)
    const done = await operation(c, op.id)
    expect(done).toMatchObject({ status: "COMPLETED", providerStatus: "completed" })
  })

  it("ACH_DEBIT: PENDING_PROVIDER, PROCESSING after a minute, COMPLETED a day later; sandbox suffix 002 fails (INSUFFICIENT_FUNDS)", async () => {
    const [l] = (await c.ok("GET", "/stablecoin-provider-accounts?status=ACTIVE")).data
    const s = await provisioned(c, "ACHMINT", l.id)
    const wallet = await sparkWallet(c)
    const good = await bank(c)
    const poor = await bank(c, "002")
    const op = await created(c, `/stablecoins/${s.id}/mints`, { amount: "1000000", fundingSource: { type: "ACH_DEBIT", externalAccountId: good.id }, destination: { accountId: wallet.id } })
    expect(op).toMatchObject({ status: "PENDING_PROVIDER", source: { type: "ACH_DEBIT", externalAccountId: good.id } })
    expect(op.fundingInstructions).toBeUndefined()
    const bad = await created(c, `/stablecoins/${s.id}/mints`, { amount: "1000000", fundingSource: { type: "SAME_DAY_ACH_DEBIT", externalAccountId: poor.id }, destination: { accountId: wallet.id } })
    await c.advance(60)
    expect((await operation(c, op.id)).status).toBe("PROCESSING")
    expect(await operation(c, bad.id)).toMatchObject({ status: "FAILED", failureReason: "INSUFFICIENT_FUNDS" })
    await c.advance(86_400)
    expect((await operation(c, op.id)).status).toBe("COMPLETED")
  })

  it("GRID_INTERNAL_ACCOUNT (Grid operations ENABLED): debits the account at once, settles out of the ledger when COMPLETED; replays debit once", async () => {
    const [l] = (await c.ok("GET", "/stablecoin-provider-accounts?status=ACTIVE")).data
    const s = await provisioned(c, "GRIDMINT", l.id)
    await c.ok("POST", `/stablecoins/${s.id}/grid-operations-enablement`)
    await c.advance(120)
    const wallet = await sparkWallet(c)
    const accounts = await c.platformAccounts()
    const usd = accounts["USD"]!
    await c.fund(usd, 100_000)
    const before = await c.balance(usd)
    const headers = key()
    const body = { amount: "10000000", fundingSource: { type: "GRID_INTERNAL_ACCOUNT", accountId: usd }, destination: { accountId: wallet.id } }
    const first = await post(c, `/stablecoins/${s.id}/mints`, body, headers)
    expect(first.status).toBe(201)
    expect(first.body).toMatchObject({ status: "PROCESSING", source: { type: "GRID_INTERNAL_ACCOUNT", accountId: usd } })
    expect(await c.balance(usd)).toBe(before - 1_000)
    const replay = await post(c, `/stablecoins/${s.id}/mints`, body, headers)
    expect(replay.body).toEqual(first.body)
    expect(await c.balance(usd)).toBe(before - 1_000)
    expectError(await post(c, `/stablecoins/${s.id}/mints`, { ...body, amount: "20000000" }, headers), 409, "CONFLICT")
    const tooMuch = await post(c, `/stablecoins/${s.id}/mints`, { ...body, amount: String((before + 1) * 10_000) })
    expectError(tooMuch, 400, "INSUFFICIENT_FUNDS")
    expectError(await post(c, `/stablecoins/${s.id}/mints`, { ...body, fundingSource: { type: "GRID_INTERNAL_ACCOUNT", accountId: accounts["EUR"] } }), 400, "INVALID_INPUT")
    expectError(await post(c, `/stablecoins/${s.id}/mints`, { ...body, fundingSource: { type: "GRID_INTERNAL_ACCOUNT", accountId: "InternalAccount:none" } }), 404, "NOT_FOUND")
    await c.advance(30)
    expect((await operation(c, first.body.id)).status).toBe("COMPLETED")
    expect(await c.balance(usd)).toBe(before - 1_000)
    const context = await api.ready
    const balances = await Effect.runPromise(Effect.provideContext(
      Effect.flatMap(Effect.service(Store), (store) => store.ledger.balances(sandbox.id, ["system:in_flight:USD"])),
      context
    ))
    expect(balances.get("system:in_flight:USD")).toBe(0)
    const events = await c.events()
    expect(events.filter((e) => e.type === "INTERNAL_ACCOUNT.BALANCE_UPDATED").length).toBeGreaterThanOrEqual(2)
  })

  it("a Grid-funded mint the provider fails is refunded to the account (the machine's PROCESSING → FAILED)", async () => {
    const [l] = (await c.ok("GET", "/stablecoin-provider-accounts?status=ACTIVE")).data
    const s = await provisioned(c, "GRIDFAIL", l.id)
    await c.ok("POST", `/stablecoins/${s.id}/grid-operations-enablement`)
    await c.advance(120)
    const wallet = await sparkWallet(c)
    const usd = (await c.platformAccounts())["USD"]!
    await c.fund(usd, 5_000)
    const before = await c.balance(usd)
    const op = await created(c, `/stablecoins/${s.id}/mints`, { amount: "30000000", fundingSource: { type: "GRID_INTERNAL_ACCOUNT", accountId: usd }, destination: { accountId: wallet.id } })
    expect(await c.balance(usd)).toBe(before - 3_000)
    // The provider reports a failure before the scheduled settlement (no sandbox value does: applied as the scheduler would).
    const context = await api.ready
    const now = await c.clock()
    await Effect.runPromise(Effect.provideContext(
      Effect.flatMap(Effect.service(Store), (store) =>
        store.transact((uow) =>
          applyOperationTimer(uow, sandbox, { platformId: sandbox.id, id: "Timer:manual", at: now, kind: STABLECOIN_OPERATION_TIMER, subjectId: op.id, event: "FAILED:PROVIDER_TRANSFER_FAILED" }))),
      context
    ))
    expect(await operation(c, op.id)).toMatchObject({ status: "FAILED", failureReason: "PROVIDER_TRANSFER_FAILED", providerStatus: "failed" })
    expect(await c.balance(usd)).toBe(before)
    // The settlement scheduled earlier is refused by the machine and moves nothing.
    await c.advance(60)
    expect((await operation(c, op.id)).status).toBe("FAILED")
    expect(await c.balance(usd)).toBe(before)
    const balances = await Effect.runPromise(Effect.provideContext(
      Effect.flatMap(Effect.service(Store), (store) => store.ledger.balances(sandbox.id, ["system:in_flight:USD"])),
      context
    ))
    expect(balances.get("system:in_flight:USD")).toBe(0)
  })
})

describe("burns", () => {
  it("EXTERNAL_ACCOUNT source: deposit instructions, tokens arrive after a minute, the payout lands by its rail", async () => {
    const [l] = (await c.ok("GET", "/stablecoin-provider-accounts?status=ACTIVE")).data
    const s = await provisioned(c, "BURNEXT", l.id)
    const payee = await bank(c)
    const op = await created(c, `/stablecoins/${s.id}/burns`, {
      amount: "1000000",
      source: { type: "EXTERNAL_ACCOUNT" },
      destination: { type: "EXTERNAL_ACCOUNT", externalAccountId: payee.id, rail: "RTP_CREDIT" },
      description: "Redeem"
    })
    expect(op).toMatchObject({
      operationType: "BURN",
      status: "PENDING_FUNDING",
      source: { type: "EXTERNAL_ACCOUNT" },
      destination: { accountId: payee.id, rail: "RTP_CREDIT" },
      estimatedDelivery: { rail: "RTP_CREDIT", amount: "100", currency: "USD", timing: "seconds" },
      fundingInstructions: { rail: "SPARK", network: "SPARK", valueType: "BURNEXT" }
    })
    expect(op.fundingInstructions.address).toMatch(/^sparkrt1[02-9ac-hj-np-z]+$/)
    await c.advance(60)
    expect((await operation(c, op.id)).status).toBe("PROCESSING")
    await c.advance(30)
    expect((await operation(c, op.id)).status).toBe("COMPLETED")
  })

  it("PROVIDER_INTERNAL_BALANCE source: PROCESSING at once; a destination ending 003 fails (ACCOUNT_INVALID); errors", async () => {
    const [l] = (await c.ok("GET", "/stablecoin-provider-accounts?status=ACTIVE")).data
    const s = await provisioned(c, "BURNPIB", l.id)
    const payee = await bank(c)
    const closed = await bank(c, "003")
    const burn = (body: Record<string, unknown>) => post(c, `/stablecoins/${s.id}/burns`, { amount: "5000000", source: { type: "PROVIDER_INTERNAL_BALANCE" }, ...body })
    const ok = await burn({ destination: { type: "EXTERNAL_ACCOUNT", externalAccountId: payee.id, rail: "ACH_CREDIT" } })
    expect(ok.status).toBe(201)
    expect(ok.body).toMatchObject({ status: "PROCESSING", estimatedDelivery: { timing: "1-3 business days", amount: "500" } })
    expect(ok.body.fundingInstructions).toBeUndefined()
    const failing = await burn({ destination: { type: "EXTERNAL_ACCOUNT", externalAccountId: closed.id, rail: "WIRE" } })
    expect(failing.status).toBe(201)
    expectError(await burn({ source: { type: "GRID_INTERNAL_ACCOUNT", accountId: "InternalAccount:x" }, destination: { type: "EXTERNAL_ACCOUNT", externalAccountId: payee.id, rail: "WIRE" } }), 400, "STABLECOIN_BURN_SOURCE_NOT_SUPPORTED")
    const wallet = await sparkWallet(c)
    expectError(await burn({ destination: { type: "EXTERNAL_ACCOUNT", externalAccountId: wallet.id, rail: "WIRE" } }), 400, "STABLECOIN_EXTERNAL_ACCOUNT_NOT_SUPPORTED")
    expectError(await burn({ destination: { type: "EXTERNAL_ACCOUNT", externalAccountId: "ExternalAccount:none", rail: "WIRE" } }), 404, "NOT_FOUND")
    expectError(await burn({ destination: { type: "EXTERNAL_ACCOUNT", externalAccountId: payee.id, rail: "SWIFT" } }), 400, "INVALID_INPUT")
    expectError(await burn({ amount: "100", destination: { type: "EXTERNAL_ACCOUNT", externalAccountId: payee.id, rail: "WIRE" } }), 400, "STABLECOIN_AMOUNT_NOT_REPRESENTABLE")
    // Replays answer the first burn; the key on another body or another stablecoin is 409 CONFLICT.
    const headers = key()
    const body = { amount: "5000000", source: { type: "PROVIDER_INTERNAL_BALANCE" }, destination: { type: "EXTERNAL_ACCOUNT", externalAccountId: payee.id, rail: "RTP_CREDIT" } }
    const first = await post(c, `/stablecoins/${s.id}/burns`, body, headers)
    expect(first.status).toBe(201)
    const before = (await c.ok("GET", `/stablecoins/${s.id}/operations`)).totalCount
    expect((await post(c, `/stablecoins/${s.id}/burns`, { ...body }, headers)).body).toEqual(first.body)
    expectError(await post(c, `/stablecoins/${s.id}/burns`, { ...body, amount: "6000000" }, headers), 409, "CONFLICT")
    const otherCoin = await provisioned(c, "BURNPIB2", l.id)
    expectError(await post(c, `/stablecoins/${otherCoin.id}/burns`, body, headers), 409, "CONFLICT")
    expectError(await post(c, `/stablecoins/${s.id}/mints`, { amount: "5000000", fundingSource: { type: "WIRE" }, destination: { accountId: wallet.id } }, headers), 409, "CONFLICT")
    expect((await c.ok("GET", `/stablecoins/${s.id}/operations`)).totalCount).toBe(before)
    expect((await c.ok("GET", `/stablecoins/${otherCoin.id}/operations`)).totalCount).toBe(0)
    expect(await operation(c, failing.body.id)).toMatchObject({ status: "FAILED", failureReason: "ACCOUNT_INVALID" })
    await c.advance(2 * 86_400)
    expect((await operation(c, ok.body.id)).status).toBe("COMPLETED")
  })
})

describe("a bank account whose micro-entry validation failed (SPEC.md Endpoints rule 4)", () => {
  it("as mint funding or burn destination: 400 INVALID_BANK_ACCOUNT, as every other money path answers; pending: 409", async () => {
    const [l] = (await c.ok("GET", "/stablecoin-provider-accounts?status=ACTIVE")).data
    const s = await provisioned(c, "FAILEDBANK", l.id)
    const wallet = await sparkWallet(c)
    const failing = await c.externalUsd(undefined, `${String(30_000_000 + ++bankSeq)}222`, { routingNumber: "021000902" })
    const mint = () => post(c, `/stablecoins/${s.id}/mints`, { amount: "1000000", fundingSource: { type: "ACH_DEBIT", externalAccountId: failing.id }, destination: { accountId: wallet.id } })
    const burn = () => post(c, `/stablecoins/${s.id}/burns`, { amount: "5000000", source: { type: "PROVIDER_INTERNAL_BALANCE" }, destination: { type: "EXTERNAL_ACCOUNT", externalAccountId: failing.id, rail: "WIRE" } })
    expectError(await mint(), 409, "BANK_ACCOUNT_VALIDATION_PENDING")
    await c.advance(3 * 86_400 + 60)
    for (const r of [await mint(), await burn()]) {
      expectError(r, 400, "INVALID_BANK_ACCOUNT")
      expect(r.body.details).toMatchObject({ field: expect.any(String) })
    }
  })
})

describe("listing operations", () => {
  it("most recent first, by operationType, paged; 404 for an unknown stablecoin or operation; other platforms see nothing", async () => {
    const [l] = (await c.ok("GET", "/stablecoin-provider-accounts?status=ACTIVE")).data
    const s = await provisioned(c, "LISTOPS", l.id)
    const wallet = await sparkWallet(c)
    const payee = await bank(c)
    const m1 = await created(c, `/stablecoins/${s.id}/mints`, { amount: "1000000", fundingSource: { type: "WIRE" }, destination: { accountId: wallet.id } })
    await c.advance(1)
    const b1 = await created(c, `/stablecoins/${s.id}/burns`, { amount: "1000000", source: { type: "PROVIDER_INTERNAL_BALANCE" }, destination: { type: "EXTERNAL_ACCOUNT", externalAccountId: payee.id, rail: "WIRE" } })
    await c.advance(1)
    const m2 = await created(c, `/stablecoins/${s.id}/mints`, { amount: "2000000", fundingSource: { type: "WIRE" }, destination: { accountId: wallet.id } })
    const all = await c.ok("GET", `/stablecoins/${s.id}/operations`)
    expect(all.data.map((x: { id: string }) => x.id)).toEqual([m2.id, b1.id, m1.id])
    expect(all.totalCount).toBe(3)
    const mints = await c.ok("GET", `/stablecoins/${s.id}/operations?operationType=MINT`)
    expect(mints.data.map((x: { id: string }) => x.id)).toEqual([m2.id, m1.id])
    const page1 = await c.ok("GET", `/stablecoins/${s.id}/operations?limit=2`)
    expect(page1.hasMore).toBe(true)
    const page2 = await c.ok("GET", `/stablecoins/${s.id}/operations?limit=2&cursor=${encodeURIComponent(page1.nextCursor)}`)
    expect(page2.data.map((x: { id: string }) => x.id)).toEqual([m1.id])
    expectError(await c.call("GET", "/stablecoins/Stablecoin:none/operations"), 404, "NOT_FOUND")
    expectError(await c.call("GET", `/stablecoins/${s.id}/operations?operationType=SWAP`), 400, "INVALID_INPUT")
    expectError(await c.call("GET", "/stablecoin-operations/StablecoinOperation:none"), 404, "NOT_FOUND")
    expectError(await o.call("GET", `/stablecoin-operations/${m1.id}`), 404, "NOT_FOUND")
    expectError(await o.call("GET", `/stablecoins/${s.id}`), 404, "NOT_FOUND")
  })

  it("a sandbox reset deletes the platform's links, stablecoins and operations", async () => {
    const fresh = moneyClient(api, other)
    await fresh.ok("POST", "/sandbox/reset", undefined, 204)
    expect((await fresh.ok("GET", "/stablecoin-provider-accounts")).totalCount).toBe(0)
    expect((await fresh.ok("GET", "/stablecoins")).totalCount).toBe(0)
  })
})

describe("a production platform", () => {
  /** What the background scheduler does as real time passes: the moves due by `millis` from now. */
  const later = async (millis: number) => {
    const context = await api.ready
    await Effect.runPromise(Effect.provideContext(runDueTimers(production, Date.now() + millis), context))
  }

  it("gets no magic: suffixes behave as any value, the environment is PRODUCTION, the sandbox clock is 403, unfunded wires expire", async () => {
    const l = await link(prod, "client_901")
    expect(l).toMatchObject({ status: "ACTIVE", providerEnvironment: "PRODUCTION" })
    const r = await register(prod, "PROD901")
    expect(r.status).toBe(201)
    expect(r.body).toMatchObject({ issuanceStatus: "PENDING_REVIEW", providerEnvironment: "PRODUCTION" })
    expectError(await prod.call("POST", "/sandbox/clock/advance", { seconds: 60 }), 403, "FORBIDDEN")
    await later(60_000)
    expect((await prod.ok("GET", `/stablecoins/${r.body.id}`)).issuanceStatus).toBe("PROVISIONED")
    const wallet = await sparkWallet(prod)
    const op = await created(prod, `/stablecoins/${r.body.id}/mints`, { amount: "1000000", fundingSource: { type: "WIRE" }, destination: { accountId: wallet.id } })
    expect(op).toMatchObject({ status: "PENDING_FUNDING", providerEnvironment: "PRODUCTION" })
    await later(3_600_000)
    expect((await operation(prod, op.id)).status).toBe("PENDING_FUNDING")
    await later(7 * 86_400_000 + 1000)
    expect((await operation(prod, op.id)).status).toBe("EXPIRED")
    const burn = await created(prod, `/stablecoins/${r.body.id}/burns`, { amount: "1000000", source: { type: "EXTERNAL_ACCOUNT" }, destination: { type: "EXTERNAL_ACCOUNT", externalAccountId: (await bank(prod, "003")).id, rail: "WIRE" } })
    expect(burn.fundingInstructions.address).toMatch(/^spark1/)
  })
})
