/**
 * Conformance: the payment-discovery and receiver-lookup answers (GET /discoveries,
 * GET /receiver/uma/{receiverUmaAddress}, GET /receiver/external-account/{accountId})
 * validate against the reference OpenAPI operation's schema for their status, through
 * the shared harness. Driven as test/http/money/lookups.e2e.test.ts does, on a regulated
 * sandbox platform (customers APPROVED at creation, with USD, EUR and MXN accounts).
 *
 * SPEC.md's differences that touch these bodies: none (the lookups answer the
 * reference's shapes unchanged), so `SPEC_DIFFERENCES` is empty, on purpose.
 */
import { afterAll, describe, expect, it } from "vitest"
import { platformFromConfig } from "../../src/domain/platform.js"
import { evmWallet, makeApi, type Reply, usdAccount } from "../support/api.js"
import { conformance, type Json } from "./harness.js"
import { LOOKUP_OPERATIONS } from "./operations.js"

/** None: see the header comment. */
const SPEC_DIFFERENCES = (_: Record<string, Json>) => undefined

const { conforms, validator, checked } = conformance(SPEC_DIFFERENCES)

const platform = platformFromConfig({ id: "conformance-lookups", clientId: "conf-lookups", clientSecret: "conf-lookups-secret-1", regulated: true })
const api = makeApi([platform])
afterAll(() => api.dispose())

const SANDBOX_DOMAIN = "sandbox.grid.uma.money"

const call = (method: string, path: string, body?: unknown): Promise<Reply> => api.call(method, path, body === undefined ? {} : { body })
const ok = async (method: string, path: string, body?: unknown, status = 200) => {
  const r = await call(method, path, body)
  expect(r.status, `${method} ${path}: ${JSON.stringify(r.body)}`).toBe(status)
  return r.body
}
let seq = 0
const customer = async (extra: Record<string, unknown> = {}) =>
  (await ok("POST", "/customers", { customerType: "INDIVIDUAL", fullName: "Ada Lovelace", platformCustomerId: `conform-${++seq}`, ...extra }, 201)) as { id: string }

describe("lookup answers against the reference", () => {
  it("GET /discoveries: unfiltered, one corridor, one country", async () => {
    const all = await call("GET", "/discoveries")
    expect(all.body.data.length).toBeGreaterThan(0)
    conforms("GET", "/discoveries", all)
    const corridor = await call("GET", "/discoveries?country=PH&currency=PHP")
    expect(corridor.body.data.length).toBeGreaterThan(0)
    conforms("GET", "/discoveries", corridor)
    conforms("GET", "/discoveries", await call("GET", "/discoveries?country=MX"))
  })

  it("GET /receiver/uma/{address}: a customer of the platform, and the sandbox counterparties", async () => {
    await customer({ umaAddress: "$grace@lookups.test" })
    const sender = await customer()
    const mine = await call("GET", `/receiver/uma/${encodeURIComponent("$grace@lookups.test")}?customerId=${encodeURIComponent(sender.id)}`)
    expect(mine.body.supportedCurrencies.length).toBe(3)
    conforms("GET", "/receiver/uma/{receiverUmaAddress}", mine)
    for (const local of ["success.usd", "success.eur", "success.mxn", "fail.compliance.usd"]) {
      const r = await call("GET", `/receiver/uma/${encodeURIComponent(`$${local}@${SANDBOX_DOMAIN}`)}?senderUmaAddress=${encodeURIComponent(`$success.eur@${SANDBOX_DOMAIN}`)}`)
      conforms("GET", "/receiver/uma/{receiverUmaAddress}", r)
    }
  })

  it("GET /receiver/external-account/{id}: a customer's bank account, and a platform wallet", async () => {
    const owner = await customer()
    const bank = await ok("POST", "/customers/external-accounts", usdAccount(owner.id, "4400012345"), 201)
    const byCustomer = await call("GET", `/receiver/external-account/${encodeURIComponent(bank.id)}?customerId=${encodeURIComponent(owner.id)}`)
    expect(byCustomer.body.accountId).toBe(bank.id)
    conforms("GET", "/receiver/external-account/{accountId}", byCustomer)
    conforms("GET", "/receiver/external-account/{accountId}", await call("GET", `/receiver/external-account/${encodeURIComponent(bank.id)}?senderUmaAddress=${encodeURIComponent(`$success.eur@${SANDBOX_DOMAIN}`)}`))
    const wallet = await ok("POST", "/platform/external-accounts", evmWallet(undefined, "0x52908400098527886E0F7030069857D2E4169EE7"), 201)
    conforms("GET", "/receiver/external-account/{accountId}", await call("GET", `/receiver/external-account/${encodeURIComponent(wallet.id)}?customerId=${encodeURIComponent(owner.id)}`))
  })

  it("the validator bites", () => {
    expect(validator("DiscoveryListResponse")({ data: [{ bankName: 1 }] })).toBe(false)
    expect(validator("ReceiverUmaLookupResponse")({ receiverUmaAddress: "$x@y.z" })).toBe(false)
  })

  it("every lookup endpoint with a success body was checked", () => {
    // The list is shared with the coverage guard (test/conformance/operations.ts).
    for (const op of LOOKUP_OPERATIONS) expect(checked.get(op) ?? 0, op).toBeGreaterThan(0)
  })
})
