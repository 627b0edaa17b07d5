/**
 * Fault injection end to end (docs/sandbox.md#fault-injection), in process through the
 * app's web handler: the rule endpoints (sandbox only), injected errors with their
 * retry headers that change nothing, latency, a lost answer of an applied request (and
 * the idempotent retry that recovers it), deterministic draws from the seed, and the
 * webhook faults against a real receiver. test/postgres/ runs it again on PostgreSQL.
 */
import { afterEach, describe, expect, it } from "vitest"
import { platformFromConfig, type Platform } from "../../src/domain/platform.js"
import { SandboxAnswerLost } from "../../src/http/sandbox-faults.js"
import { type Api, basic, individual, makeApi, readReply } from "../support/api.js"
import { moneyClient, moneyPlatform } from "../support/money.js"
import { eventually, startReceiver } from "../support/webhook-receiver.js"

const sandbox = moneyPlatform("faults")
const other = moneyPlatform("faults-other")
const production = platformFromConfig({ id: "faults-prod", clientId: "faults-prod-client", clientSecret: "faults-prod-secret-1", sandbox: false })

const cleanup: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f()
})

const setup = () => {
  const api = makeApi([sandbox, other, production])
  cleanup.push(() => api.dispose())
  return api
}

/** A raw request: status, headers and parsed body. */
const send = async (api: Api, method: string, path: string, o: { body?: unknown; as?: Platform; headers?: Record<string, string> } = {}) => {
  const res = await api.handler(new Request(`http://test/2025-10-13${path}`, {
    method,
    headers: {
      authorization: basic(o.as ?? sandbox),
      ...(o.body === undefined ? {} : { "content-type": "application/json" }),
      ...o.headers
    },
    ...(o.body === undefined ? {} : { body: JSON.stringify(o.body) })
  }))
  return { headers: res.headers, ...(await readReply(res)) }
}

const putFaults = async (api: Api, faults: unknown, as: Platform = sandbox) => send(api, "PUT", "/sandbox/faults", { body: faults, as })

describe("the rule endpoints", () => {
  it("PUT replaces the rules, GET shows them with the counter, DELETE removes them (204); production platforms get 403 from all three", async () => {
    const api = setup()
    const rules = {
      seed: 7,
      requests: [{ id: "r1", match: { operationId: "createCustomer" }, probability: 0.5, action: { type: "ERROR", status: 503 } }],
      webhooks: [{ id: "w1", eventType: "CUSTOMER.*", action: { type: "DUPLICATE" } }]
    }
    const put = await putFaults(api, rules)
    expect(put.status).toBe(200)
    expect(put.body).toEqual({ ...rules, matchedRequests: 0 })
    expect((await send(api, "GET", "/sandbox/faults")).body).toEqual({ ...rules, matchedRequests: 0 })
    // Another platform has none.
    expect((await send(api, "GET", "/sandbox/faults", { as: other })).body).toEqual({ seed: 0, requests: [], webhooks: [], matchedRequests: 0 })
    expect((await send(api, "DELETE", "/sandbox/faults")).status).toBe(204)
    expect((await send(api, "GET", "/sandbox/faults")).body).toEqual({ seed: 0, requests: [], webhooks: [], matchedRequests: 0 })

    for (const [method, body] of [["PUT", rules], ["GET", undefined], ["DELETE", undefined]] as const) {
      const r = await send(api, method, "/sandbox/faults", { as: production, ...(body === undefined ? {} : { body }) })
      expect(r.status, method).toBe(403)
      expect(r.body.code).toBe("FORBIDDEN")
    }
  })

  it("400 INVALID_INPUT for a status it cannot inject, a latency over the maximum, a bad pattern, a duplicate rule id", async () => {
    const api = setup()
    const bad = [
      { requests: [{ id: "a", match: {}, action: { type: "ERROR", status: 418 } }] },
      { requests: [{ id: "a", match: {}, action: { type: "LATENCY", millis: 10_001 } }] },
      { requests: [{ id: "a", match: { path: "customers" }, action: { type: "LOSE_ANSWER" } }] },
      { requests: [{ id: "a", match: {}, probability: 1.5, action: { type: "LOSE_ANSWER" } }] },
      { requests: [{ id: "a", match: {}, action: { type: "LOSE_ANSWER" } }, { id: "a", match: {}, action: { type: "LOSE_ANSWER" } }] },
      { webhooks: [{ id: "w", action: { type: "FAIL_FIRST", attempts: 8 } }] }
    ]
    for (const rules of bad) {
      const r = await putFaults(api, rules)
      expect(r.status, JSON.stringify(rules)).toBe(400)
      expect(r.body.code).toBe("INVALID_INPUT")
    }
    expect((await send(api, "GET", "/sandbox/faults")).body.requests).toEqual([])
  })
})

describe("request faults", () => {
  it("an injected 503 is in the error shape with retry-after and x-should-retry: true, marked x-sandbox-fault, and applies nothing", async () => {
    const api = setup()
    await putFaults(api, { requests: [{ id: "down", match: { operationId: "customers.createCustomer" }, action: { type: "ERROR", status: 503, retryAfterSeconds: 3 } }] })
    const r = await send(api, "POST", "/customers", { body: individual() })
    expect(r.status).toBe(503)
    expect(r.body).toEqual({ code: "SERVICE_UNAVAILABLE", reason: expect.stringContaining("down"), details: { sandboxFault: "down" } })
    expect(r.headers.get("x-sandbox-fault")).toBe("down")
    expect(r.headers.get("retry-after")).toBe("3")
    expect(r.shouldRetry).toBe("true")
    expect((await send(api, "GET", "/customers")).body.data).toEqual([])
    // Other operations and other platforms are untouched.
    expect((await send(api, "POST", "/customers", { body: individual(), as: other })).status).toBe(201)
  })

  it("429 with retry-after (x-should-retry: true), 500/502/504 without retry headers; each status has its code", async () => {
    const api = setup()
    const cases = [[429, "RATE_LIMITED", "true"], [500, "INTERNAL_ERROR", null], [502, "BAD_GATEWAY", null], [504, "GATEWAY_TIMEOUT", null]] as const
    for (const [status, code, retry] of cases) {
      await putFaults(api, { requests: [{ id: `e${status}`, match: { method: "GET", path: "/customers" }, action: { type: "ERROR", status } }] })
      const r = await send(api, "GET", "/customers")
      expect(r.status).toBe(status)
      expect(r.body.code).toBe(code)
      expect(r.headers.get("x-sandbox-fault")).toBe(`e${status}`)
      expect(r.headers.get("x-should-retry")).toBe(retry)
      expect(r.headers.get("retry-after")).toBe(status === 429 ? "1" : null)
    }
  })

  it("path patterns: `*` stands for one segment; the pattern must match the whole path", async () => {
    const api = setup()
    const c = (await send(api, "POST", "/customers", { body: individual() })).body
    await putFaults(api, { requests: [{ id: "one", match: { method: "GET", path: "/customers/*" }, action: { type: "ERROR", status: 500 } }] })
    expect((await send(api, "GET", `/customers/${c.id}`)).status).toBe(500)
    expect((await send(api, "GET", "/customers")).status).toBe(200)
    // Another method on the same path is not matched.
    const deleted = await send(api, "DELETE", `/customers/${c.id}`)
    expect(deleted.status).toBeLessThan(300)
    expect(deleted.headers.get("x-sandbox-fault")).toBeNull()
    expect((await send(api, "GET", "/sandbox/faults")).body.matchedRequests).toBe(1)
  })

  it("LATENCY answers normally, marked", async () => {
    const api = setup()
    await putFaults(api, { requests: [{ id: "slow", match: { operationId: "listCustomers" }, action: { type: "LATENCY", millis: 20 } }] })
    const r = await send(api, "GET", "/customers")
    expect(r.status).toBe(200)
    expect(r.headers.get("x-sandbox-fault")).toBe("slow")
  })

  it("LOSE_ANSWER applies the request and gives no answer; the retry with the same Idempotency-Key gets the one customer", async () => {
    const api = setup()
    await putFaults(api, { requests: [{ id: "lost", match: { operationId: "createCustomer" }, probability: 1, action: { type: "LOSE_ANSWER" } }] })
    const key = { "idempotency-key": "faults-lost-1" }
    await expect(send(api, "POST", "/customers", { body: individual(), headers: key })).rejects.toBeInstanceOf(SandboxAnswerLost)
    const listed = (await send(api, "GET", "/customers")).body.data
    expect(listed).toHaveLength(1)
    await send(api, "DELETE", "/sandbox/faults")
    const retried = await send(api, "POST", "/customers", { body: individual(), headers: key })
    expect(retried.status).toBe(201)
    expect(retried.body.id).toBe(listed[0].id)
    expect((await send(api, "GET", "/customers")).body.data).toHaveLength(1)
  })

  it("deterministic: the same seed and the same requests give the same faults; another seed another sequence", async () => {
    const api = setup()
    const run = async (seed: number) => {
      await putFaults(api, { seed, requests: [{ id: "coin", match: { method: "GET", path: "/customers" }, probability: 0.5, action: { type: "ERROR", status: 502 } }] })
      const statuses: Array<number> = []
      for (let i = 0; i < 24; i++) statuses.push((await send(api, "GET", "/customers")).status)
      return statuses
    }
    const first = await run(42)
    expect(first).toContain(502)
    expect(first).toContain(200)
    expect(await run(42)).toEqual(first)
    expect(await run(43)).not.toEqual(first)
    expect((await send(api, "GET", "/sandbox/faults")).body.matchedRequests).toBe(24)
  })

  it("probability 0 never fires; /sandbox/faults itself is never faulted by a catch-all rule", async () => {
    const api = setup()
    await putFaults(api, { requests: [{ id: "never", match: {}, probability: 0, action: { type: "ERROR", status: 500 } }] })
    expect((await send(api, "GET", "/customers")).status).toBe(200)
    await putFaults(api, { requests: [{ id: "all", match: {}, action: { type: "ERROR", status: 500 } }] })
    expect((await send(api, "GET", "/customers")).status).toBe(500)
    expect((await send(api, "GET", "/sandbox/faults")).status).toBe(200)
    expect((await send(api, "DELETE", "/sandbox/faults")).status).toBe(204)
    expect((await send(api, "GET", "/customers")).status).toBe(200)
  })

  it("a request made with an API token of the platform is faulted as the platform's own; a wrong token secret gets its 401", async () => {
    const api = setup()
    const token = (await send(api, "POST", "/tokens", { body: { name: "faulted", permissions: ["VIEW"] } })).body
    await putFaults(api, { requests: [{ id: "reads-down", match: { method: "GET" }, action: { type: "ERROR", status: 502 } }] })
    const byToken = await send(api, "GET", "/customers", { headers: { authorization: `Basic ${Buffer.from(`${token.clientId}:${token.clientSecret}`).toString("base64")}` } })
    expect(byToken.status).toBe(502)
    expect(byToken.headers.get("x-sandbox-fault")).toBe("reads-down")
    const wrong = await send(api, "GET", "/customers", { headers: { authorization: `Basic ${Buffer.from(`${token.clientId}:not-the-secret`).toString("base64")}` } })
    expect(wrong.status).toBe(401)
    expect(wrong.headers.get("x-sandbox-fault")).toBeNull()
  })

  it("wrong credentials get their 401, not a fault", async () => {
    const api = setup()
    await putFaults(api, { requests: [{ id: "all", match: {}, action: { type: "ERROR", status: 500 } }] })
    const r = await send(api, "GET", "/customers", { headers: { authorization: basic({ ...sandbox, clientSecret: "wrong-secret-123" }) } })
    expect(r.status).toBe(401)
    expect(r.headers.get("x-sandbox-fault")).toBeNull()
  })
})

describe("webhook faults", () => {
  const hooks = async (faults: unknown) => {
    const api = setup()
    const receiver = await startReceiver()
    cleanup.push(() => receiver.close())
    const m = moneyClient(api, sandbox)
    await m.ok("PATCH", "/config", { webhookEndpoint: receiver.url })
    await m.advance(0)
    await eventually(() => receiver.got.length >= 1, 5_000, "the TEST webhook")
    expect((await putFaults(api, faults)).status).toBe(200)
    return { api, receiver, m }
  }
  const customerHooks = (receiver: { got: ReadonlyArray<{ type: string; id: string; n: number }> }) => receiver.got.filter((r) => r.type.startsWith("CUSTOMER."))

  it("FAIL_FIRST: the first N attempts fail without being sent (logged with the rule), then it is delivered", async () => {
    const { receiver, m } = await hooks({ webhooks: [{ id: "flaky", eventType: "CUSTOMER.*", action: { type: "FAIL_FIRST", attempts: 2 } }] })
    await m.customer()
    await m.advance(0)
    expect(customerHooks(receiver)).toEqual([])
    await m.advance(90)
    expect(customerHooks(receiver)).toEqual([])
    await m.advance(300)
    await eventually(() => customerHooks(receiver).length >= 1, 5_000, "the customer webhook")
    const log = await m.ok("GET", "/sandbox/webhooks/deliveries")
    const delivery = log.data.find((d: { type: string }) => d.type.startsWith("CUSTOMER."))
    expect(delivery.status).toBe("DELIVERED")
    expect(delivery.attempts.map((a: { error?: string; statusCode?: number }) => a.error ?? a.statusCode)).toEqual([
      expect.stringContaining("sandbox fault flaky"),
      expect.stringContaining("sandbox fault flaky"),
      200
    ])
  })

  it("DUPLICATE: the same webhook (id, body, signature) arrives twice, marked x-sandbox-fault", async () => {
    const { receiver, m } = await hooks({ webhooks: [{ id: "twice", eventType: "CUSTOMER.*", action: { type: "DUPLICATE" } }] })
    await m.customer()
    await m.advance(0)
    await eventually(() => customerHooks(receiver).some((r) => r.n === 2), 5_000, "the duplicate")
    const [a, b] = customerHooks(receiver).filter((r, _, all) => all.filter((x) => x.id === r.id).length === 2)
    expect(a!.id).toBe(b!.id)
    expect(receiver.got.find((r) => r.id === a!.id && r.n === 1)!.body).toBe(receiver.got.find((r) => r.id === a!.id && r.n === 2)!.body)
  })

  it("OUT_OF_ORDER: a held-back delivery arrives after webhooks committed later", async () => {
    const { receiver, m } = await hooks({ webhooks: [{ id: "late", eventType: "CUSTOMER.*", action: { type: "OUT_OF_ORDER" } }] })
    await m.customer()
    await m.advance(0)
    expect(customerHooks(receiver)).toEqual([])
    // A TEST webhook sent meanwhile overtakes it.
    await m.ok("POST", "/sandbox/webhooks/test")
    await m.ok("DELETE", "/sandbox/faults", undefined, 204)
    await m.advance(120)
    await eventually(() => customerHooks(receiver).length >= 1, 5_000, "the held-back webhook")
    const types = receiver.got.map((r) => r.type)
    expect(types.lastIndexOf("TEST")).toBeLessThan(types.findIndex((t) => t.startsWith("CUSTOMER.")))
  })
})
