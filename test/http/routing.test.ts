/**
 * Static path segments win everywhere: every reference endpoint, called with sample ids
 * for its parameters, is answered by that endpoint (its handler when built, else 501
 * NOT_IMPLEMENTED naming it), never by a built route whose parameter matches a static
 * segment (`GET /customers/internal-accounts` is not `GET /customers/:customerId`).
 * The same holds for the direct lane's routing decision.
 */
import { Context, Effect, Schema } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { makeMemoryStore } from "../../src/adapters/memory/store.js"
import { PaymentsApi } from "../../src/http/api.js"
import { VerifiedCredentials } from "../../src/http/credentials.js"
import { laneRoute, makeDirectLane } from "../../src/http/direct.js"
import { REFERENCE_ENDPOINTS } from "../../src/http/reference-endpoints.js"
import { Store } from "../../src/ports/store.js"
import { basic, makeApi, platformA } from "../support/api.js"

const BASE = "/2025-10-13"

/** Method and path shape (parameter names dropped) of every route the app serves. */
const shape = (method: string, path: string) => `${method} ${path.replace(/\{[^}]+\}|:[^/]+/g, "{}")}`
const API_ENDPOINTS = Object.values(PaymentsApi.groups).flatMap((group) =>
  Object.values(group.endpoints).map((e) => ({ method: e.method, path: e.path }))
)
const IMPLEMENTED = new Set(API_ENDPOINTS.map((e) => shape(e.method, e.path.slice(BASE.length))))

const sampleId = (name: string) => `sample-${name}`
const withSampleIds = (path: string) => path.replace(/\{([^}]+)\}/g, (_, name: string) => sampleId(name))
const paramsOf = (path: string) => [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!)

const api = makeApi()
afterAll(() => api.dispose())

/** A call through the in-process app (lane included), with the response headers. */
const send = async (method: string, path: string, body?: unknown) => {
  const headers: Record<string, string> = { authorization: basic(platformA) }
  if (body !== undefined) headers["content-type"] = "application/json"
  const res = await api.handler(new Request(`http://test${BASE}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  }))
  const text = await res.text()
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test bodies are inspected freely
  const parsed: any = text === "" ? undefined : JSON.parse(text)
  return { status: res.status, headers: res.headers, body: parsed }
}

const bodyFor = (method: string) => method === "GET" || method === "DELETE" ? undefined : {}

const expectNotImplemented = (r: Awaited<ReturnType<typeof send>>, endpoint: string) => {
  expect(r.status, endpoint).toBe(501)
  expect(r.body.code).toBe("NOT_IMPLEMENTED")
  expect(r.body.reason).toMatch(new RegExp(`^${endpoint.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} is part of the API`))
  expect(r.headers.get("x-should-retry")).toBe("false")
}

describe("every reference endpoint is answered by itself", () => {
  const unbuilt = REFERENCE_ENDPOINTS.filter(([m, p]) => !IMPLEMENTED.has(shape(m, p)))
  const built = REFERENCE_ENDPOINTS.filter(([m, p]) => IMPLEMENTED.has(shape(m, p)))

  it("covers both kinds", () => {
    expect(built.length).toBeGreaterThan(20)
    // Every operation of the reference is built: none answers 501 any more.
    expect(unbuilt.map(([m, p]) => `${m} ${p}`)).toEqual([])
    expect(built.length + unbuilt.length).toBe(REFERENCE_ENDPOINTS.length)
  })

  it.each(unbuilt.map(([m, p]) => [`${m} ${p}`, m, p] as const))("%s: 501 naming it", async (endpoint, method, path) => {
    expectNotImplemented(await send(method, withSampleIds(path), bodyFor(method)), endpoint)
  })

  it.each(built.map(([m, p]) => [`${m} ${p}`, m, p] as const))("%s: its handler", async (endpoint, method, path) => {
    const r = await send(method, withSampleIds(path), bodyFor(method))
    expect(r.status, endpoint).not.toBe(501)
    expect(r.status, endpoint).toBeLessThan(500)
    if (r.status === 404) {
      // Only about the resource its own (last) parameter names: a 404 from a route that
      // captured a static segment as an id would name that segment instead, and a route
      // that does not exist says "No such endpoint".
      const params = paramsOf(path)
      expect(params.length, `${endpoint}: 404 on a path without parameters`).toBeGreaterThan(0)
      expect(r.body.reason).toContain(sampleId(params[params.length - 1]!))
    }
  })
})

describe("a static segment is not captured by a parameter route", () => {
  it("GET /agents/approvals is the approvals list, not GET /agents/{agentId}", async () => {
    const r = await send("GET", "/agents/approvals")
    expect(r.status).toBe(200)
    expect(Array.isArray(r.body.data)).toBe(true)
  })

  it("however the router normalizes the path (trailing slash, case, duplicate slashes, query, HEAD)", async () => {
    for (const path of ["/agents/approvals/", "/Agents/APPROVALS", "//agents//approvals", "/agents/approvals?limit=2"]) {
      const r = await send("GET", path)
      expect(r.status, path).toBe(200)
      expect(Array.isArray(r.body.data), path).toBe(true)
    }
    const head = await send("HEAD", "/agents/approvals")
    expect(head.status).toBe(200)
  })

  it("other values still reach the parameter route", async () => {
    const r = await send("GET", "/agents/approvals-2")
    expect(r.status).toBe(404)
    expect(r.body.reason).toBe("Agent approvals-2 not found")
  })

  it("a built static segment answers itself: GET /customers/internal-accounts is a list, not a customer", async () => {
    const r = await send("GET", "/customers/internal-accounts")
    expect(r.status).toBe(200)
    expect(Array.isArray(r.body.data)).toBe(true)
    const other = await send("GET", "/customers/internal-accounts-2")
    expect(other.status).toBe(404)
    expect(other.body.reason).toBe("Customer internal-accounts-2 not found")
  })

  it("a parameter longer than the router's limit: 404 for a built endpoint", async () => {
    const long = "x".repeat(150)
    for (const path of [`/customers/${long}`, `/customers/bulk/jobs/${long}`, `/tokens/${long}`, `/agents/${long}`, `/cards/${long}`, `/stablecoins/${long}`, `/stablecoin-operations/${long}`]) {
      const built = await send("GET", path)
      expect(built.status, path).toBe(404)
      expect(built.body.code).toBe("NOT_FOUND")
    }
  })

  it("a method the reference does not have on that path stays 404 NOT_FOUND", async () => {
    const r = await send("DELETE", "/customers/internal-accounts")
    expect(r.status).toBe(404)
    expect(r.body.reason).toMatch(/not found/)
  })

  it("a path outside the API stays 404 NOT_FOUND", async () => {
    const r = await send("GET", "/customers/internal-accounts/x/y")
    expect(r.status).toBe(404)
    expect(r.body.code).toBe("NOT_FOUND")
    expect(r.body.reason).toMatch(/^No such endpoint/)
  })
})

describe("the direct lane routes as the router does", () => {
  const context = Context.make(VerifiedCredentials, VerifiedCredentials.make()).pipe(Context.add(Store, Effect.runSync(makeMemoryStore)))
  // As if GET /customers/:customerId were served by the lane.
  const getCustomer = laneRoute(PaymentsApi.groups.customers.endpoints.getCustomer, 200, ({ params }) =>
    Effect.die(`not called: routing only (${params.customerId})`))
  const lane = makeDirectLane({ base: BASE, endpoints: API_ENDPOINTS, routes: [getCustomer], context })

  it("declines a path the router gives to an endpoint not built yet", () => {
    expect(lane.matches("GET", `${BASE}/customers/internal-accounts`)).toBe(false)
    expect(lane.matches("GET", `${BASE}/customers/internal-accounts/`)).toBe(false)
  })

  it("takes its own routes", () => {
    expect(lane.matches("GET", `${BASE}/customers/Customer:1`)).toBe(true)
    expect(lane.matches("GET", `${BASE}/CUSTOMERS/Customer:1/`)).toBe(true)
    expect(lane.matches("GET", `${BASE}/customers/Customer:1?expand=x`)).toBe(true)
    // An encoded colon is the only encoding the lane decodes (clients that encode path segments send ids so).
    expect(lane.matches("GET", `${BASE}/customers/Customer%3A1`)).toBe(true)
    expect(lane.matches("GET", `${BASE}/customers/Customer%3a1`)).toBe(true)
  })

  it("leaves built static routes, HEAD and other percent-encoded paths to the router", () => {
    expect(lane.matches("GET", `${BASE}/customers/end-user-terms`)).toBe(false)
    expect(lane.matches("GET", `${BASE}/customers/agreements`)).toBe(false)
    expect(lane.matches("GET", `${BASE}/customers/external-accounts`)).toBe(false)
    expect(lane.matches("POST", `${BASE}/customers`)).toBe(false)
    expect(lane.matches("HEAD", `${BASE}/customers/Customer:1`)).toBe(false)
    expect(lane.matches("GET", `${BASE}/customers/Customer%3A1%20`)).toBe(false)
    expect(lane.matches("GET", `${BASE}/customers/Customer%2F1`)).toBe(false)
  })
})
