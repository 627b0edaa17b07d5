/**
 * API tokens end to end (docs/tokens.md): create → authenticate with the token's HTTP
 * Basic credentials → refusals for what its permissions do not cover → delete → refused
 * at once. (A request is decoded before its permission is checked: a malformed one is a
 * 400 whatever the token may do, and changes nothing either way.) Runs on the suite's store (memory; test/postgres/tokens.e2e.test.ts re-runs it
 * on PostgreSQL).
 */
import { afterAll, describe, expect, it } from "vitest"
import { type Api, individual, makeApi, platformA, platformB, type Reply } from "../support/api.js"

const api: Api = makeApi([platformA, platformB])
afterAll(() => api.dispose())

interface Created {
  readonly id: string
  readonly clientId: string
  readonly clientSecret: string
}

const basicOf = (clientId: string, secret: string) => `Basic ${Buffer.from(`${clientId}:${secret}`).toString("base64")}`

let names = 0
const createToken = async (permissions: ReadonlyArray<string>, as = platformA): Promise<Created> => {
  const r = await api.call("POST", "/tokens", { body: { name: `token ${++names}`, permissions }, as })
  expect(r.status, JSON.stringify(r.body)).toBe(201)
  return r.body
}

/** A call authenticated with the token's credentials. */
const withToken = (t: Created, method: string, path: string, body?: unknown): Promise<Reply> =>
  api.call(method, path, { ...(body === undefined ? {} : { body }), headers: { authorization: basicOf(t.clientId, t.clientSecret) } })

const expectForbidden = (r: Reply, what: string) => {
  expect(r.status, `${what}: ${JSON.stringify(r.body)}`).toBe(403)
  expect(r.body.code).toBe("FORBIDDEN")
  expect(r.body.reason).toMatch(/^Insufficient permissions/)
  expect(r.shouldRetry).toBe("false")
}

describe("API tokens", () => {
  it("create answers the secret once; reads never show it", async () => {
    const r = await api.call("POST", "/tokens", { body: { name: "Sandbox read-only", permissions: ["VIEW", "VIEW"] } })
    expect(r.status).toBe(201)
    expect(r.body).toMatchObject({ name: "Sandbox read-only", permissions: ["VIEW"] })
    expect(r.body.id).toMatch(/^Token:[0-9a-f-]{36}$/)
    expect(r.body.clientId).toMatch(/^[0-9a-f]{32}$/)
    expect(r.body.clientSecret).toMatch(/^[0-9a-f]{64}$/)
    expect(r.body.createdAt).toBe(r.body.updatedAt)
    const got = await api.call("GET", `/tokens/${encodeURIComponent(r.body.id)}`)
    expect(got.status).toBe(200)
    const { clientSecret: _secret, ...shown } = r.body
    expect(got.body).toEqual(shown)
    const listed = await api.call("GET", `/tokens?name=${encodeURIComponent("Sandbox read-only")}`)
    expect(listed.status).toBe(200)
    expect(listed.body.data).toEqual([shown])
    expect(listed.body.totalCount).toBe(1)
    expect(JSON.stringify(listed.body)).not.toContain(r.body.clientSecret)
  })

  it("bad requests are 400s naming the field; unknown ids 404", async () => {
    for (const body of [{ name: "x", permissions: [] }, { name: "x", permissions: ["ADMIN"] }, { name: "", permissions: ["VIEW"] }, { permissions: ["VIEW"] }]) {
      const r = await api.call("POST", "/tokens", { body })
      expect(r.status, JSON.stringify(body)).toBe(400)
      expect(r.body.code).toBe("INVALID_INPUT")
    }
    expect((await api.call("GET", "/tokens?createdAfter=yesterday")).status).toBe(400)
    expect((await api.call("GET", "/tokens/Token:nope")).status).toBe(404)
    expect((await api.call("DELETE", "/tokens/Token:nope")).status).toBe(404)
  })

  it("a token is its platform's: another platform neither sees nor deletes it, and it acts as its platform", async () => {
    const t = await createToken(["VIEW"])
    expect((await api.call("GET", `/tokens/${encodeURIComponent(t.id)}`, { as: platformB })).status).toBe(404)
    expect((await api.call("DELETE", `/tokens/${encodeURIComponent(t.id)}`, { as: platformB })).status).toBe(404)
    const c = await api.call("POST", "/customers", { body: individual("Token Owner A") })
    expect(c.status).toBe(201)
    const seen = await withToken(t, "GET", `/customers/${encodeURIComponent(c.body.id)}`)
    expect(seen.status).toBe(200)
    expect(seen.body.id).toBe(c.body.id)
  })

  it("wrong secrets and unknown client ids are 401s", async () => {
    const t = await createToken(["VIEW"])
    const wrong = await api.call("GET", "/customers", { headers: { authorization: basicOf(t.clientId, `${t.clientSecret.slice(0, -1)}${t.clientSecret.endsWith("0") ? "1" : "0"}`) } })
    expect(wrong.status).toBe(401)
    const unknown = await api.call("GET", "/customers", { headers: { authorization: basicOf("0".repeat(32), t.clientSecret) } })
    expect(unknown.status).toBe(401)
  })

  it("VIEW reads everything and changes nothing", async () => {
    const t = await createToken(["VIEW"])
    for (const path of ["/customers", "/tokens", "/config", "/transactions", "/quotes/Quote:1"]) {
      const r = await withToken(t, "GET", path)
      expect(r.status, path).not.toBe(403)
      expect(r.status, path).toBeLessThan(500)
    }
    expectForbidden(await withToken(t, "POST", "/customers", individual("Not Allowed")), "POST /customers")
    expectForbidden(await withToken(t, "POST", "/tokens", { name: "escalate", permissions: ["MANAGE"] }), "POST /tokens")
    expectForbidden(await withToken(t, "PATCH", "/config", {}), "PATCH /config")
    expectForbidden(await withToken(t, "POST", "/quotes/Quote:1/execute"), "POST /quotes/{quoteId}/execute")
    expectForbidden(await withToken(t, "POST", "/sandbox/clock/advance", { seconds: 60 }), "POST /sandbox/clock/advance")
    expect((await api.call("GET", "/customers?platformCustomerId=not-allowed")).body.totalCount).toBe(0)
  })

  it("TRANSACT executes quotes but manages nothing; MANAGE manages but moves no money", async () => {
    const transact = await createToken(["TRANSACT"])
    const executed = await withToken(transact, "POST", "/quotes/Quote:1/execute")
    expect(executed.status, JSON.stringify(executed.body)).toBe(404)
    expectForbidden(await withToken(transact, "POST", "/customers", individual("Not Allowed")), "POST /customers as TRANSACT")
    expectForbidden(await withToken(transact, "POST", "/tokens", { name: "t", permissions: ["VIEW"] }), "POST /tokens as TRANSACT")

    const manage = await createToken(["MANAGE"])
    const created = await withToken(manage, "POST", "/customers", individual("Managed Customer"))
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const child = await withToken(manage, "POST", "/tokens", { name: "child", permissions: ["VIEW"] })
    expect(child.status).toBe(201)
    // No escalation: a token grants only permissions it holds.
    const escalated = await withToken(manage, "POST", "/tokens", { name: "escalate", permissions: ["MANAGE", "TRANSACT"] })
    expect(escalated.status).toBe(403)
    expect(escalated.body.code).toBe("FORBIDDEN")
    expect(escalated.body.reason).toContain("not TRANSACT")
    const both = await createToken(["TRANSACT", "MANAGE"])
    expect((await withToken(both, "POST", "/tokens", { name: "peer", permissions: ["TRANSACT", "MANAGE"] })).status).toBe(201)
    expectForbidden(await withToken(manage, "POST", "/quotes/Quote:1/execute"), "POST /quotes/{quoteId}/execute as MANAGE")
    const transfer = { source: { accountId: "InternalAccount:1" }, destination: { accountId: "ExternalAccount:1" }, amount: 100 }
    expectForbidden(await withToken(manage, "POST", "/transfer-out", transfer), "POST /transfer-out as MANAGE")
    expect((await withToken(transact, "POST", "/transfer-out", transfer)).status).toBe(404)
  })

  it("delete revokes at once: the next request with it is refused", async () => {
    const t = await createToken(["VIEW", "MANAGE"])
    expect((await withToken(t, "GET", "/customers")).status).toBe(200)
    expect((await withToken(t, "GET", "/customers")).status).toBe(200)
    const deleted = await api.call("DELETE", `/tokens/${encodeURIComponent(t.id)}`)
    expect(deleted.status).toBe(204)
    const after = await withToken(t, "GET", "/customers")
    expect(after.status).toBe(401)
    expect(after.body.code).toBe("UNAUTHORIZED")
    expect((await api.call("GET", `/tokens/${encodeURIComponent(t.id)}`)).status).toBe(404)
    // A MANAGE token may revoke itself; that request is its last.
    const self = await createToken(["MANAGE"])
    expect((await withToken(self, "DELETE", `/tokens/${encodeURIComponent(self.id)}`)).status).toBe(204)
    expect((await withToken(self, "GET", "/tokens")).status).toBe(401)
  })
})
