/**
 * Agents over HTTP (docs/agents.md): management (create, list, get, update, delete,
 * policy, device codes), redeeming a device code, the agent scheme on /agents/me, every
 * error the endpoints answer, cross-platform isolation and hostile Authorization headers.
 * Memory store only (test/postgres/README.md says which suites run on PostgreSQL too);
 * `PAYMENTS_TEST_STORE=postgres npx vitest run` on this file runs it there.
 */
import fc from "fast-check"
import { afterAll, describe, expect, it } from "vitest"
import { API_VERSION } from "../../src/http/api.js"
import { AGENT_GROUPS_PREFIX } from "../../src/http/groups/agents.js"
import { isErrorShape, makeApi, type Reply } from "../support/api.js"
import { moneyClient, moneyPlatform } from "../support/money.js"

const sandbox = moneyPlatform("agents-sandbox")
const other = moneyPlatform("agents-other")
const api = makeApi([sandbox, other])
afterAll(() => api.dispose())

const c = moneyClient(api, sandbox)
const o = moneyClient(api, other)
type Client = typeof c

const expectError = (r: Reply, status: number, code: string) => {
  expect(r.status, JSON.stringify(r.body)).toBe(status)
  expect(r.body.code).toBe(code)
  expect(isErrorShape(r.body)).toBe(true)
}

const policy = (extra: Record<string, unknown> = {}) => ({
  permissions: ["VIEW_TRANSACTIONS", "CREATE_TRANSFERS", "CREATE_QUOTES", "EXECUTE_QUOTES", "MANAGE_EXTERNAL_ACCOUNTS"],
  defaultExecutionMode: "AUTO",
  spendingLimits: { currency: "USD", perTransactionLimit: 50_000, dailyLimit: 500_000, dailyTransactionLimit: 10, monthlyLimit: 5_000_000 },
  ...extra
})

const createAgent = async (client: Client, customerId: string, extra: Record<string, unknown> = {}) => {
  const body = await client.ok("POST", "/agents", { name: "Payroll Agent", customerId, policy: policy(), ...extra }, 201)
  return body as { agent: { id: string; customerId: string }; deviceCode: { code: string; expiresAt: string; redeemed: boolean } }
}

/** Calls an /agents/me endpoint with `authorization` as given. */
const asAgent = (token: string, method: string, path: string, body?: unknown) =>
  api.call(method, path, { headers: { authorization: `Bearer ${token}` }, ...(body === undefined ? {} : { body }) })

const redeem = (code: string) => api.call("POST", `/agents/device-codes/${encodeURIComponent(code)}/redeem`, { headers: { authorization: "" } })

/** A connected agent of a fresh customer: its id, customer and token. */
const connected = async (client: Client = c, extra: Record<string, unknown> = {}) => {
  const customer = await client.fundedCustomer()
  const { agent, deviceCode } = await createAgent(client, customer.id, extra)
  const r = await redeem(deviceCode.code)
  expect(r.status, JSON.stringify(r.body)).toBe(200)
  return { agentId: agent.id, customer, token: r.body.accessToken as string }
}

describe("agent management", () => {
  it("creates an agent (201) with its device code, and gets and lists it", async () => {
    const customer = await c.customer()
    const { agent, deviceCode } = await createAgent(c, customer.id)
    expect(agent).toMatchObject({ name: "Payroll Agent", customerId: customer.id, isPaused: false, isConnected: false, policy: policy() })
    expect(agent.id).toMatch(/^Agent:/)
    expect((agent as unknown as { usage: unknown }).usage).toMatchObject({ dailyTransactionCount: 0, dailySpend: 0, monthlySpend: 0 })
    expect(deviceCode.code).toMatch(/^GRID-AGENT-[2-9A-HJKMNP-Z]{4}-[2-9A-HJKMNP-Z]{4}$/)
    expect(deviceCode.redeemed).toBe(false)
    const now = await c.clock()
    expect(Date.parse(deviceCode.expiresAt) - now).toBeGreaterThan(23 * 3600_000)
    expect(await c.ok("GET", `/agents/${agent.id}`)).toEqual(agent)
    const list = await c.ok("GET", `/agents?customerId=${encodeURIComponent(customer.id)}`)
    expect(list).toMatchObject({ hasMore: false, totalCount: 1 })
    expect(list.data[0]).toEqual(agent)
  })

  it("pages the list and filters by isPaused, isConnected and time", async () => {
    const customer = await c.customer()
    const ids: Array<string> = []
    // A second apart on the platform's clock: the list is in creation order, and two
    // agents created in the same millisecond would be ordered by their random ids.
    for (let i = 0; i < 3; i++) {
      if (i > 0) await c.advance(1)
      ids.push((await createAgent(c, customer.id, { name: `Agent ${i}` })).agent.id)
    }
    await c.ok("PATCH", `/agents/${ids[1]}`, { isPaused: true })
    const first = await c.ok("GET", `/agents?customerId=${encodeURIComponent(customer.id)}&limit=2`)
    expect(first.data.map((a: { id: string }) => a.id)).toEqual(ids.slice(0, 2))
    expect(first).toMatchObject({ hasMore: true, totalCount: 3 })
    const second = await c.ok("GET", `/agents?customerId=${encodeURIComponent(customer.id)}&limit=2&cursor=${first.nextCursor}`)
    expect(second.data.map((a: { id: string }) => a.id)).toEqual(ids.slice(2))
    expect(second.hasMore).toBe(false)
    const paused = await c.ok("GET", `/agents?customerId=${encodeURIComponent(customer.id)}&isPaused=true`)
    expect(paused.data.map((a: { id: string }) => a.id)).toEqual([ids[1]])
    const notConnected = await c.ok("GET", `/agents?customerId=${encodeURIComponent(customer.id)}&isConnected=false`)
    expect(notConnected.totalCount).toBe(3)
    const none = await c.ok("GET", `/agents?customerId=${encodeURIComponent(customer.id)}&createdAfter=2999-01-01T00:00:00Z`)
    expect(none.totalCount).toBe(0)
    expectError(await c.call("GET", "/agents?cursor=bogus"), 400, "INVALID_INPUT")
    expectError(await c.call("GET", "/agents?isPaused=maybe"), 400, "INVALID_INPUT")
    expectError(await c.call("GET", "/agents?limit=0"), 400, "INVALID_INPUT")
  })

  it("refuses bad create requests with 400 naming the fields, unknown customers included (the reference lists no 404)", async () => {
    const customer = await c.customer()
    const bad = await c.call("POST", "/agents", { name: "", customerId: customer.id, policy: { ...policy(), permissions: ["FLY"], spendingLimits: { currency: "usd", perTransactionLimit: -1 } } })
    expectError(bad, 400, "INVALID_INPUT")
    const fields = (bad.body.details.errors as Array<{ field: string }>).map((e) => e.field)
    expect(fields).toEqual(expect.arrayContaining(["name", "policy.permissions[0]", "policy.spendingLimits.currency", "policy.spendingLimits.perTransactionLimit"]))
    const unknown = await c.call("POST", "/agents", { name: "x", customerId: "Customer:nope", policy: policy() })
    expectError(unknown, 400, "INVALID_INPUT")
    expect(unknown.body.details.errors).toEqual([expect.objectContaining({ field: "customerId", constraint: "exists" })])
    expectError(await c.call("POST", "/agents", { name: "x", customerId: customer.id, policy: policy({ spendingLimits: { currency: "ZZZ", perTransactionLimit: 1 } }) }), 400, "INVALID_CURRENCY")
    const threshold = await c.call("POST", "/agents", { name: "x", customerId: customer.id, policy: policy({ approvalThresholds: { amount: 10 } }) })
    expectError(threshold, 400, "INVALID_INPUT")
    expect(threshold.body.details.errors[0].field).toBe("policy.approvalThresholds.currency")
    const foreign = await c.fundedCustomer()
    const restricted = await c.call("POST", "/agents", {
      name: "x",
      customerId: customer.id,
      policy: policy({ accountRestrictions: { allowedAccountIds: [foreign.accounts.USD] } })
    })
    expectError(restricted, 400, "INVALID_INPUT")
    expect(restricted.body.details.errors[0].field).toBe("policy.accountRestrictions.allowedAccountIds[0]")
    expectError(await c.call("POST", "/agents", { name: "x".repeat(256), customerId: customer.id, policy: policy() }), 400, "INVALID_INPUT")
  })

  it("updates name and paused state, and refuses an empty update", async () => {
    const customer = await c.customer()
    const { agent } = await createAgent(c, customer.id)
    await c.advance(5)
    const updated = await c.ok("PATCH", `/agents/${agent.id}`, { name: "Renamed", isPaused: true })
    expect(updated).toMatchObject({ name: "Renamed", isPaused: true })
    expect(Date.parse(updated.updatedAt)).toBeGreaterThan(Date.parse(updated.createdAt))
    expectError(await c.call("PATCH", `/agents/${agent.id}`, {}), 400, "INVALID_INPUT")
    expectError(await c.call("PATCH", "/agents/Agent:nope", { name: "x" }), 404, "NOT_FOUND")
  })

  it("updates the policy partially; a new limit currency recasts the kept limits", async () => {
    const customer = await c.fundedCustomer()
    const { agent } = await createAgent(c, customer.id)
    const p1 = await c.ok("PATCH", `/agents/${agent.id}/policy`, { permissions: ["VIEW_TRANSACTIONS", "VIEW_TRANSACTIONS"], spendingLimits: { dailyLimit: null } })
    expect(p1.policy.permissions).toEqual(["VIEW_TRANSACTIONS"])
    expect(p1.policy.spendingLimits).toEqual({ currency: "USD", perTransactionLimit: 50_000, dailyTransactionLimit: 10, monthlyLimit: 5_000_000, dailyLimit: null })
    expect(p1.policy.defaultExecutionMode).toBe("AUTO")
    const p2 = await c.ok("PATCH", `/agents/${agent.id}/policy`, { spendingLimits: { currency: "EUR", monthlyLimit: 1000 } })
    expect(p2.policy.spendingLimits.currency).toBe("EUR")
    expect(p2.policy.spendingLimits.monthlyLimit).toBe(1000)
    expect(p2.policy.spendingLimits.perTransactionLimit).toBeGreaterThan(30_000)
    expect(p2.policy.spendingLimits.perTransactionLimit).toBeLessThan(50_000)
    const p3 = await c.ok("PATCH", `/agents/${agent.id}/policy`, {
      defaultExecutionMode: "APPROVAL_REQUIRED",
      accountRestrictions: { allowedAccountIds: [customer.accounts.USD], accountRules: [{ accountId: customer.accounts.USD, executionMode: "AUTO" }] },
      approvalThresholds: { currency: "USD", amount: 100 }
    })
    expect(p3.policy).toMatchObject({ defaultExecutionMode: "APPROVAL_REQUIRED", approvalThresholds: { currency: "USD", amount: 100 } })
    expectError(await c.call("PATCH", `/agents/${agent.id}/policy`, { accountRestrictions: { allowedAccountIds: ["InternalAccount:nope"] } }), 400, "INVALID_INPUT")
    expectError(await c.call("PATCH", `/agents/${agent.id}/policy`, { spendingLimits: { currency: "QQQ" } }), 400, "INVALID_CURRENCY")
    expectError(await c.call("PATCH", `/agents/${agent.id}/policy`, { defaultExecutionMode: "SOMETIMES" }), 400, "INVALID_INPUT")
    expectError(await c.call("PATCH", "/agents/Agent:nope/policy", { defaultExecutionMode: "AUTO" }), 404, "NOT_FOUND")
  })

  it("deletes an agent (204): it is gone, and its token stops working at once", async () => {
    const { agentId, token } = await connected()
    expect((await asAgent(token, "GET", "/agents/me")).status).toBe(200)
    const r = await c.call("DELETE", `/agents/${agentId}`)
    expect(r.status).toBe(204)
    expectError(await c.call("GET", `/agents/${agentId}`), 404, "NOT_FOUND")
    expectError(await c.call("DELETE", `/agents/${agentId}`), 404, "NOT_FOUND")
    expectError(await asAgent(token, "GET", "/agents/me"), 401, "UNAUTHORIZED")
  })
})

describe("device codes", () => {
  it("redeems a code once (no platform credentials) for a token; the agent is connected", async () => {
    const customer = await c.customer()
    const { agent, deviceCode } = await createAgent(c, customer.id)
    expect(await c.ok("GET", `/agents/device-codes/${deviceCode.code}/status`)).toEqual({ code: deviceCode.code, redeemed: false })
    const r = await redeem(deviceCode.code)
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    expect(r.body).toMatchObject({ agentId: agent.id, agentName: "Payroll Agent", policy: policy() })
    expect(r.body.accessToken).toMatch(/^gat_[0-9a-f]{64}$/)
    expect(await c.ok("GET", `/agents/device-codes/${deviceCode.code}/status`)).toEqual({ code: deviceCode.code, redeemed: true })
    expect((await c.ok("GET", `/agents/${agent.id}`)).isConnected).toBe(true)
    const again = await redeem(deviceCode.code)
    expectError(again, 400, "INVALID_INPUT")
    expect(again.body.reason).toContain("already redeemed")
    // A connected agent gets no new code.
    expectError(await c.call("POST", `/agents/${agent.id}/device-codes`), 409, "CONFLICT")
  })

  it("expires a code after 24 hours; a new code replaces the old one", async () => {
    const customer = await c.customer()
    const { agent, deviceCode } = await createAgent(c, customer.id)
    await c.advance(24 * 3600)
    const expired = await redeem(deviceCode.code)
    expectError(expired, 400, "INVALID_INPUT")
    expect(expired.body.reason).toContain("expired")
    const fresh = await c.ok("POST", `/agents/${agent.id}/device-codes`, undefined, 201)
    expect(fresh).toMatchObject({ agentId: agent.id, redeemed: false })
    expect(fresh.code).not.toBe(deviceCode.code)
    const second = await c.ok("POST", `/agents/${agent.id}/device-codes`, undefined, 201)
    const replaced = await redeem(fresh.code)
    expectError(replaced, 400, "INVALID_INPUT")
    expect(replaced.body.reason).toContain("replaced")
    expect((await redeem(second.code)).status).toBe(200)
  })

  it("answers 404 for unknown codes and other platforms' codes and agents", async () => {
    expectError(await redeem("GRID-AGENT-AAAA-BBBB"), 404, "NOT_FOUND")
    expectError(await c.call("GET", "/agents/device-codes/GRID-AGENT-AAAA-BBBB/status"), 404, "NOT_FOUND")
    expectError(await c.call("POST", "/agents/Agent:nope/device-codes"), 404, "NOT_FOUND")
    const customer = await c.customer()
    const { agent, deviceCode } = await createAgent(c, customer.id)
    expectError(await o.call("GET", `/agents/device-codes/${deviceCode.code}/status`), 404, "NOT_FOUND")
    expectError(await o.call("GET", `/agents/${agent.id}`), 404, "NOT_FOUND")
    expectError(await o.call("PATCH", `/agents/${agent.id}`, { isPaused: true }), 404, "NOT_FOUND")
    expectError(await o.call("DELETE", `/agents/${agent.id}`), 404, "NOT_FOUND")
    expectError(await o.call("POST", `/agents/${agent.id}/device-codes`), 404, "NOT_FOUND")
    expectError(await o.call("POST", "/agents", { name: "x", customerId: customer.id, policy: policy() }), 400, "INVALID_INPUT")
    expect((await o.ok("GET", "/agents")).data.some((a: { id: string }) => a.id === agent.id)).toBe(false)
  })

  it("redeems a code once when two redeems race", async () => {
    const customer = await c.customer()
    const { deviceCode } = await createAgent(c, customer.id)
    const results = await Promise.all([redeem(deviceCode.code), redeem(deviceCode.code), redeem(deviceCode.code)])
    expect(results.filter((r) => r.status === 200)).toHaveLength(1)
    expect(results.filter((r) => r.status === 400)).toHaveLength(2)
  })
})

describe("the agent scheme", () => {
  it("the agent groups live under the API's version base", () => {
    expect(AGENT_GROUPS_PREFIX).toBe(`/${API_VERSION}`)
  })

  it("GET /agents/me answers the authenticated agent", async () => {
    const { agentId, customer, token } = await connected()
    const me = await asAgent(token, "GET", "/agents/me")
    expect(me.status).toBe(200)
    expect(me.body).toMatchObject({ id: agentId, customerId: customer.id, isConnected: true })
    expect(me.body).toEqual(await c.ok("GET", `/agents/${agentId}`))
  })

  it("refuses missing, malformed, unknown and platform credentials with 401 naming the check", async () => {
    const cases: Array<[string | undefined, string]> = [
      [undefined, "missing"],
      ["", "missing"],
      ["Bearer", "malformed"],
      ["Bearer a b", "malformed"],
      ["Token gat_abc", "malformed"],
      ["Bearer not-a-token", "not an agent access token"],
      [`Bearer gat_${"0".repeat(64)}`, "unknown"],
      [`Bearer gat_${"x".repeat(300)}`, "not an agent access token"],
      ["Bearer gat_\u00e9\u00e9", "unknown"],
      [`Basic ${Buffer.from(`${sandbox.clientId}:${sandbox.clientSecret}`).toString("base64")}`, "Platform credentials"]
    ]
    for (const [header, says] of cases) {
      const r = await api.call("GET", "/agents/me", { headers: header === undefined ? {} : { authorization: header } })
      if (header === undefined) {
        // makeApi always sends the platform's Basic credentials unless told otherwise.
        expectError(r, 401, "UNAUTHORIZED")
        continue
      }
      expectError(r, 401, "UNAUTHORIZED")
      expect(r.body.reason, header).toContain(says)
    }
  })

  it("any other Authorization header is a 401 in the error shape, never a 5xx (generated headers)", async () => {
    const printable = fc.string({ maxLength: 400, unit: fc.constantFrom(..."abcdefABCDEF0123456789_-+/=.: \t\u007e!\"#$%&'()*,;<>?@[]^`{|}".split("")) })
    const header = fc.oneof(
      printable,
      printable.map((t) => `Bearer ${t}`),
      printable.map((t) => `bearer gat_${t}`),
      fc.stringMatching(/^[0-9a-f]{0,80}$/).map((h) => `Bearer gat_${h}`),
      printable.map((t) => `Basic ${t}`)
    )
    await fc.assert(fc.asyncProperty(header, async (h) => {
      const r = await api.call("GET", "/agents/me", { headers: { authorization: h } })
      expect(r.status, h).toBe(401)
      expect(isErrorShape(r.body)).toBe(true)
      expect(r.body.code).toBe("UNAUTHORIZED")
    }), { numRuns: 150 })
  })

  it("agent tokens never work on platform endpoints, and platform credentials never on /agents/me", async () => {
    const { token } = await connected()
    for (const [method, path] of [["GET", "/agents"], ["GET", "/customers"], ["GET", "/transactions"], ["POST", "/agents"]] as const) {
      const r = await asAgent(token, method, path, method === "POST" ? { name: "x" } : undefined)
      expectError(r, 401, "UNAUTHORIZED")
      expect(r.body.reason).toContain("work only on /agents/me")
    }
    expectError(await c.call("GET", "/agents/me"), 401, "UNAUTHORIZED")
    expectError(await c.call("GET", "/agents/me/actions"), 401, "UNAUTHORIZED")
  })

  it("lists the agent's actions (none yet) and answers 404 for an unknown one", async () => {
    const { token } = await connected()
    const list = await asAgent(token, "GET", "/agents/me/actions")
    expect(list.status).toBe(200)
    expect(list.body).toEqual({ data: [], hasMore: false, totalCount: 0 })
    expectError(await asAgent(token, "GET", "/agents/me/actions?status=NOPE"), 400, "INVALID_INPUT")
    expectError(await asAgent(token, "GET", "/agents/me/actions/AgentAction:nope"), 404, "NOT_FOUND")
  })

  it("a token of one platform reads only its own agent", async () => {
    const a = await connected(c)
    const b = await connected(o)
    expect((await asAgent(a.token, "GET", "/agents/me")).body.id).toBe(a.agentId)
    expect((await asAgent(b.token, "GET", "/agents/me")).body.id).toBe(b.agentId)
  })

  it("a sandbox reset clears agents, codes and tokens", async () => {
    const resetPlatform = moneyPlatform("agents-reset")
    const resetApi = makeApi([resetPlatform])
    try {
      const r = moneyClient(resetApi, resetPlatform)
      const customer = await r.customer()
      const created = await r.ok("POST", "/agents", { name: "x", customerId: customer.id, policy: policy() }, 201)
      const redeemed = await resetApi.call("POST", `/agents/device-codes/${created.deviceCode.code}/redeem`)
      expect(redeemed.status).toBe(200)
      expect((await r.call("POST", "/sandbox/reset")).status).toBe(204)
      expect((await r.ok("GET", "/agents")).totalCount).toBe(0)
      const me = await resetApi.call("GET", "/agents/me", { headers: { authorization: `Bearer ${redeemed.body.accessToken}` } })
      expect(me.status).toBe(401)
    } finally {
      await resetApi.dispose()
    }
  })
})
