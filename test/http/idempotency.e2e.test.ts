/**
 * Idempotency-Key over HTTP, on the memory store and on PostgreSQL: a retry gets the
 * first result and has no second effect (racing retries included); the same key with
 * another request is a 409; keys are per platform, expire on the platform's clock and
 * are not stored for a failed request.
 */
import { afterAll, describe, expect, it } from "vitest"
import { type Api, individual, makeApi, platformA, platformB, type TestStore, usdAccount } from "../support/api.js"

const KEY = { "idempotency-key": "9f0c1d52-5b8e-4a51-9d7e-1c2b3a4d5e6f" }
const key = (k: string) => ({ "idempotency-key": k })

describe.each<TestStore>(["memory", "postgres"])("Idempotency-Key on %s", (store) => {
  const api: Api = makeApi([platformA, platformB], undefined, { store })
  afterAll(() => api.dispose())

  const countCustomers = async (as = platformA) => (await api.call("GET", "/customers?limit=100", { as })).body.totalCount as number

  it("the same key and request: the first response again, and one customer", async () => {
    const before = await countCustomers()
    const first = await api.call("POST", "/customers", { body: individual("Idem Potent"), headers: key(`same-${store}`) })
    expect(first.status).toBe(201)
    const again = await api.call("POST", "/customers", { body: individual("Idem Potent"), headers: key(`same-${store}`) })
    expect(again.status).toBe(201)
    expect(again.body).toEqual(first.body)
    expect(await countCustomers()).toBe(before + 1)
  })

  it("the same request with its JSON keys in another order is the same request", async () => {
    const k = key(`order-${store}`)
    const first = await api.call("POST", "/customers", { raw: JSON.stringify({ customerType: "INDIVIDUAL", fullName: "Key Order" }), headers: { ...k, "content-type": "application/json" } })
    const again = await api.call("POST", "/customers", { raw: JSON.stringify({ fullName: "Key Order", customerType: "INDIVIDUAL" }), headers: { ...k, "content-type": "application/json" } })
    expect(again.body.id).toBe(first.body.id)
  })

  it("the same key with another body or on another endpoint: 409 CONFLICT naming the key, nothing created", async () => {
    const k = key(`other-${store}`)
    const customer = (await api.call("POST", "/customers", { body: individual("First Body"), headers: k })).body
    const before = await countCustomers()
    const other = await api.call("POST", "/customers", { body: individual("Second Body"), headers: k })
    expect(other.status).toBe(409)
    expect(other.body.code).toBe("CONFLICT")
    expect(other.body.reason).toContain(k["idempotency-key"])
    expect(await countCustomers()).toBe(before)
    const elsewhere = await api.call("POST", "/customers/external-accounts", { body: usdAccount(customer.id), headers: k })
    expect(elsewhere.status).toBe(409)
    expect((await api.call("GET", `/customers/external-accounts?customerId=${customer.id}`)).body.totalCount).toBe(0)
  })

  it("keys are per platform", async () => {
    const a = await api.call("POST", "/customers", { body: individual("Tenant A"), headers: KEY })
    const b = await api.call("POST", "/customers", { body: individual("Tenant A"), headers: KEY, as: platformB })
    expect(a.status).toBe(201)
    expect(b.status).toBe(201)
    expect(b.body.id).not.toBe(a.body.id)
  })

  it("a refused request stores nothing: the key can then be used for a request that succeeds", async () => {
    const k = key(`refused-${store}`)
    const refused = await api.call("POST", "/customers/external-accounts", { body: usdAccount("Customer:00000000-0000-4000-8000-000000000000"), headers: k })
    expect(refused.status).toBe(400)
    const customer = (await api.call("POST", "/customers", { body: individual("After Refusal") })).body
    const ok = await api.call("POST", "/customers/external-accounts", { body: usdAccount(customer.id, "555000111"), headers: k })
    expect(ok.status).toBe(201)
  })

  it("racing retries with one key: every answer is the first customer, and only one exists", async () => {
    const k = key(`race-${store}`)
    const before = await countCustomers()
    const answers = await Promise.all(Array.from({ length: 12 }, () => api.call("POST", "/customers", { body: individual("Race Condition"), headers: k })))
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 201))
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1)
    expect(await countCustomers()).toBe(before + 1)
  })

  it("racing creates of one external account with one key: one account, the same answer everywhere", async () => {
    const customer = (await api.call("POST", "/customers", { body: individual("Account Race") })).body
    const k = key(`account-race-${store}`)
    const answers = await Promise.all(Array.from({ length: 8 }, () => api.call("POST", "/customers/external-accounts", { body: usdAccount(customer.id, "987654321"), headers: k })))
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 201))
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1)
    expect((await api.call("GET", `/customers/external-accounts?customerId=${customer.id}`)).body.totalCount).toBe(1)
  })

  it("a key over 255 characters or with spaces is a 400 naming the header", async () => {
    for (const bad of ["x".repeat(256), "has space"]) {
      const r = await api.call("POST", "/customers", { body: individual("Bad Key"), headers: key(bad) })
      expect(r.status).toBe(400)
      expect(r.body.code).toBe("INVALID_INPUT")
      expect(JSON.stringify(r.body)).toContain("idempotency-key")
    }
  })

  it("keys expire after 24 hours of the platform's clock; a sandbox reset forgets them", async () => {
    const k = key(`expiry-${store}`)
    const first = await api.call("POST", "/customers", { body: individual("Expiring Key"), headers: k, as: platformB })
    expect((await api.call("POST", "/sandbox/clock/advance", { body: { seconds: 23 * 3600 }, as: platformB })).status).toBe(200)
    expect((await api.call("POST", "/customers", { body: individual("Other Body"), headers: k, as: platformB })).status).toBe(409)
    expect((await api.call("POST", "/sandbox/clock/advance", { body: { seconds: 2 * 3600 }, as: platformB })).status).toBe(200)
    const later = await api.call("POST", "/customers", { body: individual("Other Body"), headers: k, as: platformB })
    expect(later.status).toBe(201)
    expect(later.body.id).not.toBe(first.body.id)
    expect((await api.call("POST", "/sandbox/reset", { as: platformB })).status).toBe(204)
    const afterReset = await api.call("POST", "/customers", { body: individual("Third Body"), headers: k, as: platformB })
    expect(afterReset.status).toBe(201)
    expect((await api.call("GET", "/customers", { as: platformB })).body.totalCount).toBe(1)
  })
})
