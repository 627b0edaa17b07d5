/**
 * Answers a client should not retry (every 4xx, and 501) carry `x-should-retry: false`;
 * 2xx and the other 5xx do not. Checked on the HttpApi app (handlers, the auth
 * middleware, the safety net) and on the direct lane's replies.
 */
import { Context, Effect, Layer } from "effect"
import { SerializationError, SqlError } from "effect/sql/SqlError"
import { RandomIdsLayer } from "../../src/adapters/memory/ids.js"
import { staticPlatformsLayer } from "../../src/adapters/memory/platforms.js"
import { platformFromConfig } from "../../src/domain/platform.js"
import { makeMemoryStore } from "../../src/adapters/memory/store.js"
import { LoopbackWebhookSenderLayer } from "../../src/adapters/webhook-http.js"
import { makeWebHandler } from "../../src/http/app.js"
import { Store } from "../../src/ports/store.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { laneOver } from "../../src/http/app.js"
import { VerifiedCredentials } from "../../src/http/credentials.js"
import type { DirectLane, DirectReply } from "../../src/http/direct.js"
import { isNotRetryable, retryAdvice } from "../../src/http/middleware.js"
import { basic, individual, makeApi, platformA, platformB, usdAccount } from "../support/api.js"

const BASE = "/2025-10-13"
const noCards = platformFromConfig({ id: "retry-no-cards", clientId: "retry-no-cards", clientSecret: "retry-no-cards-secret", cards: { enabled: false } })
const platforms = [platformA, platformB, noCards]

describe("which statuses are not retryable", () => {
  it("every 4xx and 501; no 2xx, 3xx or other 5xx", () => {
    for (const s of [400, 401, 403, 404, 405, 409, 410, 413, 415, 422, 429, 499, 501]) expect(isNotRetryable(s), String(s)).toBe(true)
    for (const s of [200, 201, 204, 301, 304, 500, 502, 503, 504]) expect(isNotRetryable(s), String(s)).toBe(false)
  })
})

describe("the x-should-retry value of an answer", () => {
  it("true for a 503 and for a 429 that says when to come back; false for other 4xx and 501; none otherwise", () => {
    expect(retryAdvice(503, false)).toBe("true")
    expect(retryAdvice(429, true)).toBe("true")
    expect(retryAdvice(429, false)).toBe("false")
    for (const s of [400, 401, 404, 409, 501]) expect(retryAdvice(s, true), String(s)).toBe("false")
    for (const s of [200, 201, 204, 500, 502, 504]) expect(retryAdvice(s, false), String(s)).toBeUndefined()
  })
})

describe("the HttpApi app", () => {
  const app = makeApi(platforms, undefined, { directLane: false })
  afterAll(() => app.dispose())

  const send = async (method: string, path: string, options: { body?: unknown; authorization?: string } = {}) => {
    const headers: Record<string, string> = { authorization: options.authorization ?? basic(platformA) }
    if (options.body !== undefined) headers["content-type"] = "application/json"
    const res = await app.handler(new Request(`http://test${path}`, {
      method,
      headers,
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) })
    }))
    const text = await res.text()
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test bodies are inspected freely
    const body: any = text === "" ? undefined : JSON.parse(text)
    return { status: res.status, retry: res.headers.get("x-should-retry"), body }
  }

  it("201 and 200: no header", async () => {
    const created = await send("POST", `${BASE}/customers`, { body: individual() })
    expect(created.status).toBe(201)
    expect(created.retry).toBeNull()
    const listed = await send("GET", `${BASE}/customers`)
    expect(listed.status).toBe(200)
    expect(listed.retry).toBeNull()
  })

  it("400 from request validation", async () => {
    const r = await send("POST", `${BASE}/customers`, { body: {} })
    expect(r.status).toBe(400)
    expect(r.retry).toBe("false")
  })

  it("401 from the auth middleware", async () => {
    for (const authorization of ["", "Basic nope", basic({ ...platformA, clientSecret: "wrong" })]) {
      const r = await send("GET", `${BASE}/customers`, { authorization })
      expect(r.status).toBe(401)
      expect(r.retry).toBe("false")
    }
  })

  it("404 from a handler and from the safety net", async () => {
    const missing = await send("GET", `${BASE}/customers/Customer:nope`)
    expect(missing.status).toBe(404)
    expect(missing.body.reason).toMatch(/not found/)
    expect(missing.retry).toBe("false")
    const unknown = await send("GET", "/nowhere")
    expect(unknown.status).toBe(404)
    expect(unknown.body.reason).toMatch(/^No such endpoint/)
    expect(unknown.retry).toBe("false")
  })

  it("409 from a handler", async () => {
    const customer = individual("Grace Hopper", { platformCustomerId: "retry-409" })
    expect((await send("POST", `${BASE}/customers`, { body: customer })).status).toBe(201)
    const clash = await send("POST", `${BASE}/customers`, { body: customer })
    expect(clash.status).toBe(409)
    expect(clash.retry).toBe("false")
  })

  it("501 from a handler (cards on a platform without a card issuer)", async () => {
    for (const path of ["/cards", "/cards/Card:1"]) {
      const r = await send("GET", BASE + path, { authorization: basic(noCards) })
      expect(r.status).toBe(501)
      expect(r.retry).toBe("false")
    }
  })
})

describe("the direct lane's replies", () => {
  const app = makeApi(platforms)
  afterAll(() => app.dispose())
  const authorization = basic(platformA)
  let lane: DirectLane
  beforeAll(async () => {
    const context = await app.ready
    Context.get(context, VerifiedCredentials).remember(authorization, platformA)
    lane = laneOver(context)
  })

  const send = async (method: string, path: string, body?: unknown, raw?: string): Promise<DirectReply> => {
    const text = raw ?? (body === undefined ? "" : JSON.stringify(body))
    const headers: Record<string, string> = { authorization }
    if (text !== "") {
      headers["content-type"] = "application/json"
      headers["content-length"] = String(Buffer.byteLength(text))
    }
    const accepted = lane.accept(method, BASE + path, (name) => headers[name])
    expect(accepted, `${method} ${path} taken by the lane`).toBeDefined()
    return await accepted!(text)
  }

  it("201: no header; 400, 404, 409: x-should-retry false", async () => {
    const created = await send("POST", "/customers", individual("Ada", { platformCustomerId: "lane-409" }))
    expect(created.status).toBe(201)
    expect(created.headers?.["x-should-retry"]).toBeUndefined()
    const account = await send("POST", "/customers/external-accounts", usdAccount(JSON.parse(created.body).id))
    expect(account.status).toBe(201)
    expect(account.headers?.["x-should-retry"]).toBeUndefined()

    const invalid = await send("POST", "/customers", {})
    expect(invalid.status).toBe(400)
    expect(invalid.headers?.["x-should-retry"]).toBe("false")
    const malformed = await send("POST", "/customers", undefined, "{")
    expect(malformed.status).toBe(400)
    expect(malformed.headers?.["x-should-retry"]).toBe("false")
    const missing = await send("GET", "/customers/external-accounts/ExternalAccount:nope")
    expect(missing.status).toBe(404)
    expect(missing.headers?.["x-should-retry"]).toBe("false")
    const clash = await send("POST", "/customers", individual("Ada", { platformCustomerId: "lane-409" }))
    expect(clash.status).toBe(409)
    expect(clash.headers?.["x-should-retry"]).toBe("false")
  })
})

describe("the in-process app with the lane (what clients see)", () => {
  const api = makeApi()
  afterAll(() => api.dispose())

  it("a 400 and a 409 the lane answers carry x-should-retry false", async () => {
    const post = (body: unknown) =>
      api.handler(new Request(`http://test${BASE}/customers`, {
        method: "POST",
        headers: { authorization: basic(platformA), "content-type": "application/json" },
        body: JSON.stringify(body)
      }))
    // The first call verifies the credentials (HttpApi); the lane takes the next ones.
    expect((await post(individual("Ada", { platformCustomerId: "e2e-409" }))).status).toBe(201)
    const invalid = await post({})
    expect(invalid.status).toBe(400)
    expect(invalid.headers.get("x-should-retry")).toBe("false")
    const clash = await post(individual("Ada", { platformCustomerId: "e2e-409" }))
    expect(clash.status).toBe(409)
    expect(clash.headers.get("x-should-retry")).toBe("false")
  })
})

describe("a unit of work that keeps losing to concurrent ones", () => {
  // A store whose every unit of work dies with a serialization failure, as a SQL store
  // does once it has rerun one as often as it may.
  const contended = Layer.effect(Store, Effect.map(makeMemoryStore, (store) =>
    Store.of({
      ...store,
      transact: () => Effect.die(new SqlError({ reason: new SerializationError({ cause: "could not serialize access" }) }))
    })))
  const { handler, dispose } = makeWebHandler({
    services: Layer.mergeAll(contended, RandomIdsLayer, staticPlatformsLayer(platforms), LoopbackWebhookSenderLayer),
    schedulerIntervalMillis: false,
    directLane: false
  })
  afterAll(() => dispose())

  it("answers 503 SERVICE_UNAVAILABLE with Retry-After and x-should-retry: true, not a 500", async () => {
    const res = await handler(new Request(`http://test${BASE}/customers`, {
      method: "POST",
      headers: { authorization: basic(platformA), "content-type": "application/json" },
      body: JSON.stringify(individual())
    }))
    expect(res.status).toBe(503)
    expect(res.headers.get("retry-after")).toBe("1")
    expect(res.headers.get("x-should-retry")).toBe("true")
    const body = await res.json()
    expect(body.code).toBe("SERVICE_UNAVAILABLE")
    expect(typeof body.reason).toBe("string")
  })
})
