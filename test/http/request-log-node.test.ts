/**
 * The request log on the node:http server (`serveReference`): the capture around the
 * node listener sees requests answered by either pipeline (the direct lane and the
 * HttpApi app), with their bodies in and out, and logs nothing for requests without
 * valid credentials.
 */
import { Effect, Exit, Layer, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { LoopbackWebhookSenderLayer, memoryLayer } from "../../src/adapters/memory/index.js"
import { serveReference } from "../../src/http/node.js"
import { basic } from "../support/api.js"
import { moneyPlatform } from "../support/money.js"

const p = moneyPlatform("request-log-node")
const scope = Scope.makeUnsafe()
let base = ""

beforeAll(async () => {
  const served = await Effect.runPromise(Scope.provide(serveReference({
    services: Layer.merge(memoryLayer([p]), LoopbackWebhookSenderLayer),
    schedulerIntervalMillis: false,
    host: "127.0.0.1",
    port: 0
  }), scope))
  if (served.address._tag === "UnixPathAddress") throw new Error("expected a TCP address")
  base = `http://127.0.0.1:${served.address.port}/2025-10-13`
})
afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))

const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: basic(p), ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  return { status: res.status, body: await res.json() as Record<string, unknown> }
}

describe("the request log on node:http", () => {
  it("logs requests of both pipelines with their bodies, and none without valid credentials", async () => {
    // Warm the credentials (the first request of a header goes through the full check).
    await call("GET", "/customers")
    const created = await call("POST", "/customers", { customerType: "INDIVIDUAL", fullName: "Node Logged" }, { "request-id": "node-req-1" })
    expect(created.status).toBe(201)
    const fetched = await call("GET", `/customers/${encodeURIComponent(String(created.body["id"]))}`)
    expect(fetched.status).toBe(200)
    const anonymous = await fetch(`${base}/customers`, { headers: { "request-id": "node-anonymous" } })
    expect(anonymous.status).toBe(401)
    const wrong = await fetch(`${base}/customers`, { headers: { authorization: "Basic d3Jvbmc6d3Jvbmc=", "request-id": "node-wrong" } })
    expect(wrong.status).toBe(401)
    const log = await call("GET", "/sandbox/requests?limit=100")
    const entries = log.body["data"] as Array<Record<string, unknown>>
    const [get, post] = entries
    expect(get).toMatchObject({ method: "GET", status: 200, operationId: "getCustomer" })
    expect(get?.["responseBody"]).toMatchObject({ fullName: "Node Logged" })
    expect(post).toMatchObject({ method: "POST", path: "/2025-10-13/customers", status: 201, requestId: "node-req-1", operationId: "createCustomer" })
    expect(post?.["requestBody"]).toEqual({ customerType: "INDIVIDUAL", fullName: "Node Logged" })
    expect(post?.["responseBody"]).toMatchObject({ id: created.body["id"] })
    expect(entries.some((e) => e["requestId"] === "node-anonymous" || e["requestId"] === "node-wrong")).toBe(false)
  })
})
