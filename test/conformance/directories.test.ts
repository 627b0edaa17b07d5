/**
 * Conformance: the stateless operations (GET /vasps, GET /uma-providers,
 * POST /crypto/estimate-withdrawal-fee) validate against the reference OpenAPI
 * operation's schema for their status, through the shared harness, on a regulated
 * sandbox platform with a UMA domain and crypto accounts.
 *
 * SPEC.md's differences that touch these bodies: none (the reference's shapes unchanged;
 * the lists add `totalCount` as every list of the API does, which the reference's
 * VaspListResponse leaves open), so `SPEC_DIFFERENCES` is empty, on purpose.
 */
import { afterAll, describe, expect, it } from "vitest"
import { platformFromConfig } from "../../src/domain/platform.js"
import { makeApi, type Reply } from "../support/api.js"
import { conformance, type Json } from "./harness.js"
import { DIRECTORY_OPERATIONS } from "./operations.js"

/** None: see the header comment. */
const SPEC_DIFFERENCES = (_: Record<string, Json>) => undefined

const { conforms, validator, checked } = conformance(SPEC_DIFFERENCES)

const platform = platformFromConfig({
  id: "conformance-directories",
  clientId: "conf-directories",
  clientSecret: "conf-directories-secret-1",
  regulated: true,
  umaDomain: "conformance.example.com",
  currencies: ["USD", "USDC", "BTC"]
})
const api = makeApi([platform])
afterAll(() => api.dispose())

const call = (method: string, path: string, body?: unknown): Promise<Reply> => api.call(method, path, body === undefined ? {} : { body })

describe("directory answers against the reference", () => {
  it("GET /vasps: the first page and a later one", async () => {
    const first = await call("GET", "/vasps?limit=5")
    expect(first.body.nextCursor).toBeDefined()
    conforms("GET", "/vasps", first)
    conforms("GET", "/vasps", await call("GET", `/vasps?limit=5&cursor=${encodeURIComponent(first.body.nextCursor)}`))
  })

  it("GET /uma-providers: unfiltered, filtered, allow-listed only", async () => {
    const all = await call("GET", "/uma-providers")
    expect(all.body.data.length).toBe(3)
    conforms("GET", "/uma-providers", all)
    conforms("GET", "/uma-providers", await call("GET", "/uma-providers?countryCode=US&currencyCode=USD&sortOrder=asc"))
    conforms("GET", "/uma-providers", await call("GET", "/uma-providers?hasBlockedProviders=false&limit=1"))
  })

  it("POST /crypto/estimate-withdrawal-fee: USDC on Solana, BTC on Lightning", async () => {
    const customer = await call("POST", "/customers", { customerType: "INDIVIDUAL", fullName: "Ada Lovelace", platformCustomerId: "conform-dir-1" })
    expect(customer.status).toBe(201)
    const accounts = await call("GET", `/customers/internal-accounts?customerId=${encodeURIComponent(customer.body.id)}`)
    const idOf = (code: string) => accounts.body.data.find((a: { balance: { currency: { code: string } } }) => a.balance.currency.code === code).id
    conforms("POST", "/crypto/estimate-withdrawal-fee", await call("POST", "/crypto/estimate-withdrawal-fee", {
      internalAccountId: idOf("USDC"), currency: "USDC", cryptoNetwork: "SOLANA", amount: 1_000_000, destinationAddress: "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU"
    }))
    conforms("POST", "/crypto/estimate-withdrawal-fee", await call("POST", "/crypto/estimate-withdrawal-fee", {
      internalAccountId: idOf("BTC"), currency: "BTC", cryptoNetwork: "LIGHTNING", amount: 50_000, destinationAddress: "alice@wallet.example"
    }))
  })

  it("the validator bites", () => {
    expect(validator("VaspListResponse")({ data: [{ url: "https://x.example" }], hasMore: false })).toBe(false)
    expect(validator("EstimateCryptoWithdrawalFeeResponse")({ networkFee: 1, networkFeeAsset: "SOL", applicationFee: 0, totalFee: 1 })).toBe(false)
  })

  it("every directory endpoint was checked", () => {
    for (const op of DIRECTORY_OPERATIONS) expect(checked.get(op) ?? 0, op).toBeGreaterThan(0)
  })
})
