/**
 * The stateless operations: GET /vasps, GET /uma-providers and
 * POST /crypto/estimate-withdrawal-fee (sandbox directories and fee models; paging,
 * filters, conversions on the platform clock, and every refusal in the API's error shape).
 */
import { afterAll, describe, expect, it } from "vitest"
import { VASP_DIRECTORY } from "../../src/rules/money/directories.js"
import { isErrorShape } from "../support/api.js"
import { type MoneyClient, moneyApp, moneyPlatform } from "../support/money.js"

const sandbox = moneyPlatform("directories", { umaDomain: "pay.example.com", currencies: ["USD", "EUR", "MXN", "USDC", "USDT", "BTC"] })
const production = moneyPlatform("directories-prod", { sandbox: false })
const other = moneyPlatform("directories-other")
const app = moneyApp([sandbox, production, other])
const [m, prod, oth] = app.clients as [MoneyClient, MoneyClient, MoneyClient]
afterAll(() => app.dispose())

const expectError = (r: { status: number; body: { code?: string } }, status: number, code: string) => {
  expect(r.status).toBe(status)
  expect(isErrorShape(r.body)).toBe(true)
  expect(r.body.code).toBe(code)
}

/** Every page of a list, following nextCursor. */
const walk = async (c: MoneyClient, path: string): Promise<{ items: Array<Record<string, unknown>>; pages: number }> => {
  const items: Array<Record<string, unknown>> = []
  let cursor: string | undefined
  let pages = 0
  do {
    const sep = path.includes("?") ? "&" : "?"
    const page = await c.ok("GET", cursor === undefined ? path : `${path}${sep}cursor=${encodeURIComponent(cursor)}`)
    pages++
    items.push(...page.data)
    expect(page.hasMore).toBe(page.nextCursor !== undefined)
    cursor = page.nextCursor
  } while (cursor !== undefined && pages < 100)
  return { items, pages }
}

describe("GET /vasps", () => {
  it("the directory by name, with totalCount; every entry has a vaspName and an https url", async () => {
    const page = await m.ok("GET", "/vasps")
    expect(page.hasMore).toBe(false)
    expect(page.totalCount).toBe(VASP_DIRECTORY.length)
    const names = page.data.map((v: { vaspName: string }) => v.vaspName)
    expect(names).toEqual([...names].sort())
    expect(names).toContain("Kraken")
    for (const v of page.data) expect(v.url).toMatch(/^https:\/\//)
  })

  it("pages of 4 cover the directory once, in order; a foreign cursor and a bad limit are 400", async () => {
    const all = (await m.ok("GET", "/vasps")).data
    const { items, pages } = await walk(m, "/vasps?limit=4")
    expect(items).toEqual(all)
    expect(pages).toBe(Math.ceil(all.length / 4))
    expectError(await m.call("GET", "/vasps?cursor=not-a-cursor"), 400, "INVALID_INPUT")
    expectError(await m.call("GET", "/vasps?limit=0"), 400, "INVALID_INPUT")
    expectError(await m.call("GET", "/vasps?limit=101"), 400, "INVALID_INPUT")
  })
})

describe("GET /uma-providers", () => {
  it("the sandbox counterparties and the platform's own domain on the allow list; the reference's example off it; by name, descending", async () => {
    const page = await m.ok("GET", "/uma-providers")
    expect(page.totalCount).toBe(3)
    const names = page.data.map((p: { name: string }) => p.name)
    expect(names).toEqual([...names].sort().reverse())
    const byDomain = Object.fromEntries(page.data.map((p: { domain: string }) => [p.domain, p]))
    expect(byDomain["sandbox.grid.uma.money"]).toMatchObject({ allowListStatus: true, supportedRegions: expect.arrayContaining(["US", "MX", "DE"]) })
    expect(byDomain["sandbox.grid.uma.money"].supportedCurrencies.map((c: { code: string }) => c.code).sort()).toEqual(["EUR", "MXN", "USD"])
    expect(byDomain["pay.example.com"]).toMatchObject({ name: "directories", allowListStatus: true })
    expect(byDomain["pay.example.com"].supportedCurrencies.map((c: { code: string }) => c.code)).toContain("BTC")
    expect(byDomain["uma.me"]).toMatchObject({ name: "Lightspark Group", allowListStatus: false, lei: "5493001KJTIIGC8Y1R12" })
    const asc = await m.ok("GET", "/uma-providers?sortOrder=asc")
    expect(asc.data).toEqual([...page.data].reverse())
  })

  it("filters: countryCode, currencyCode, hasBlockedProviders=false; paging by one", async () => {
    const domains = async (q: string) => (await m.ok("GET", `/uma-providers?${q}`)).data.map((p: { domain: string }) => p.domain).sort()
    expect(await domains("hasBlockedProviders=false")).toEqual(["pay.example.com", "sandbox.grid.uma.money"])
    expect(await domains("hasBlockedProviders=true")).toHaveLength(3)
    expect(await domains("countryCode=MX")).toEqual(["pay.example.com", "sandbox.grid.uma.money"])
    expect(await domains("currencyCode=USD&hasBlockedProviders=false")).toEqual(["pay.example.com", "sandbox.grid.uma.money"])
    expect(await domains("currencyCode=BTC")).toEqual(["pay.example.com"])
    expect(await domains("countryCode=JP")).toEqual([])
    const { items, pages } = await walk(m, "/uma-providers?limit=1&sortOrder=asc")
    expect(pages).toBe(3)
    expect(items).toEqual((await m.ok("GET", "/uma-providers?sortOrder=asc")).data)
    expectError(await m.call("GET", "/uma-providers?countryCode=mexico"), 400, "INVALID_INPUT")
    expectError(await m.call("GET", "/uma-providers?sortOrder=sideways"), 400, "INVALID_INPUT")
    expectError(await m.call("GET", "/uma-providers?hasBlockedProviders=maybe"), 400, "INVALID_INPUT")
  })

  it("a production platform without a UMA domain sees no sandbox counterparties", async () => {
    const page = await prod.ok("GET", "/uma-providers")
    expect(page.data.map((p: { domain: string }) => p.domain)).toEqual(["uma.me"])
  })
})

describe("POST /crypto/estimate-withdrawal-fee", () => {
  const SOLANA_ADDRESS = "7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV"
  const EVM_ADDRESS = "0x52908400098527886E0F7030069857D2E4169EE7"
  const estimate = (body: Record<string, unknown>) => m.call("POST", "/crypto/estimate-withdrawal-fee", body)

  it("USDC on Solana: 5,000 lamports, converted to USDC at the sandbox SOL price and rounded up; nothing moves", async () => {
    const c = await m.fundedCustomer({ USDC: 5_000_000 })
    const r = await estimate({ internalAccountId: c.accounts.USDC, currency: "USDC", cryptoNetwork: "SOLANA", amount: 1_000_000, destinationAddress: SOLANA_ADDRESS })
    expect(r.status).toBe(200)
    // 5,000 lamports = 0.000005 SOL × 150 USD = 0.00075 USDC = 750 micro-USDC.
    expect(r.body).toEqual({ networkFee: 5_000, networkFeeAsset: "SOL", applicationFee: 0, totalFee: 750, netAmount: 999_250 })
    expect(await m.balance(c.accounts.USDC ?? "", c.id)).toBe(5_000_000)
  })

  it("USDT on Ethereum, Tron and Plasma; the fee is in the network's asset, the total in the withdrawal currency", async () => {
    const c = await m.fundedCustomer()
    const base = { internalAccountId: c.accounts.USDT, currency: "USDT", amount: 10_000_000 }
    const eth = await m.ok("POST", "/crypto/estimate-withdrawal-fee", { ...base, cryptoNetwork: "ETHEREUM", destinationAddress: EVM_ADDRESS })
    expect(eth).toEqual({ networkFee: 650_000_000_000_000, networkFeeAsset: "ETH", applicationFee: 0, totalFee: 1_950_000, netAmount: 8_050_000 })
    const tron = await m.ok("POST", "/crypto/estimate-withdrawal-fee", { ...base, cryptoNetwork: "TRON", destinationAddress: "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL" })
    expect(tron).toMatchObject({ networkFee: 13_000_000, networkFeeAsset: "TRX", totalFee: 1_560_000, netAmount: 8_440_000 })
    const plasma = await m.ok("POST", "/crypto/estimate-withdrawal-fee", { ...base, cryptoNetwork: "PLASMA", destinationAddress: EVM_ADDRESS })
    expect(plasma).toMatchObject({ networkFee: 0, networkFeeAsset: "XPL", totalFee: 0, netAmount: 10_000_000 })
  })

  it("BTC on Bitcoin and Lightning: the fee is in sats already", async () => {
    const c = await m.fundedCustomer()
    const base = { internalAccountId: c.accounts.BTC, currency: "BTC", amount: 100_000 }
    const l1 = await m.ok("POST", "/crypto/estimate-withdrawal-fee", { ...base, cryptoNetwork: "BITCOIN", destinationAddress: "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx" })
    expect(l1).toEqual({ networkFee: 2_000, networkFeeAsset: "BTC", applicationFee: 0, totalFee: 2_000, netAmount: 98_000 })
    const ln = await m.ok("POST", "/crypto/estimate-withdrawal-fee", { ...base, cryptoNetwork: "LIGHTNING", destinationAddress: "alice@wallet.example" })
    expect(ln).toEqual({ networkFee: 101, networkFeeAsset: "BTC", applicationFee: 0, totalFee: 101, netAmount: 99_899 })
  })

  it("USDC on Base is converted at the USD rate of the platform clock (pegged: 1)", async () => {
    const c = await m.fundedCustomer()
    const r = await m.ok("POST", "/crypto/estimate-withdrawal-fee", { internalAccountId: c.accounts.USDC, currency: "USDC", cryptoNetwork: "BASE", amount: 10_000, destinationAddress: EVM_ADDRESS })
    // 65,000 gas × 0.01 gwei = 0.00000065 ETH × 3,000 USD = 0.00195 USDC: 1,950 micro-USDC.
    expect(r).toMatchObject({ networkFee: 650_000_000_000, totalFee: 1_950 })
  })

  it("refusals: unknown or another platform's account 404; a fiat account, another currency 400 INVALID_CURRENCY; wrong network or address 400 naming the field; fees over the amount 400 INVALID_AMOUNT", async () => {
    const c = await m.fundedCustomer()
    const o = await oth.fundedCustomer()
    const ok = { internalAccountId: c.accounts.USDC, currency: "USDC", cryptoNetwork: "SOLANA", amount: 1_000_000, destinationAddress: SOLANA_ADDRESS }
    const unknown = await estimate({ ...ok, internalAccountId: "InternalAccount:00000000-0000-4000-8000-000000000000" })
    expectError(unknown, 404, "NOT_FOUND")
    expectError(await estimate({ ...ok, internalAccountId: o.accounts.USD, currency: "USD" }), 404, "NOT_FOUND")
    expectError(await estimate({ ...ok, internalAccountId: c.accounts.USD, currency: "USD" }), 400, "INVALID_CURRENCY")
    expectError(await estimate({ ...ok, currency: "USDT" }), 400, "INVALID_CURRENCY")
    const network = await estimate({ ...ok, cryptoNetwork: "TRON", destinationAddress: "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL" })
    expectError(network, 400, "INVALID_INPUT")
    expect(network.body.details.errors[0]).toMatchObject({ field: "cryptoNetwork", constraint: "network" })
    expectError(await estimate({ ...ok, cryptoNetwork: "DOGECOIN" }), 400, "INVALID_INPUT")
    const address = await estimate({ ...ok, destinationAddress: EVM_ADDRESS })
    expectError(address, 400, "INVALID_INPUT")
    expect(address.body.details.errors[0]).toMatchObject({ field: "destinationAddress", constraint: "address" })
    const small = await estimate({ ...ok, cryptoNetwork: "ETHEREUM", destinationAddress: EVM_ADDRESS, amount: 1_950_000 })
    expectError(small, 400, "INVALID_AMOUNT")
    expect(small.body.details).toEqual({ amount: 1_950_000, totalFee: 1_950_000 })
    for (const bad of [{ ...ok, amount: 0 }, { ...ok, amount: 1.5 }, { ...ok, destinationAddress: "" }, { internalAccountId: c.accounts.USDC }]) {
      expectError(await estimate(bad), 400, "INVALID_INPUT")
    }
  })
})
