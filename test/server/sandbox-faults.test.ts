/**
 * Fault injection on the real server (node:http, the listener path `npm start` uses):
 * a lost answer closes the connection after the request was applied, injected errors
 * and latency carry their headers, and on PostgreSQL two server processes share the
 * rules and the counter (requests spread over both draw the same faults as on one).
 */
import { afterAll, describe, expect, it } from "vitest"
import { migratedDatabase } from "../support/databases.js"
import { baseOf, keepAcrossTests, type Server, start } from "../support/server.js"

const AUTH = `Basic ${Buffer.from("sandbox_client_id:sandbox_client_secret").toString("base64")}`

const call = (base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, {
    method,
    headers: { authorization: AUTH, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })

const customer = { customerType: "INDIVIDUAL", fullName: "Ada Lovelace" }

describe("on the node server (memory store)", () => {
  it("LOSE_ANSWER closes the connection after the commit; ERROR and LATENCY answers carry their headers", async () => {
    const server = start({})
    const base = baseOf(await server.banner)
    expect((await call(base, "PUT", "/sandbox/faults", {
      requests: [
        { id: "lost", match: { operationId: "createCustomer" }, action: { type: "LOSE_ANSWER" } },
        { id: "slow", match: { method: "GET", path: "/customers/*" }, action: { type: "LATENCY", millis: 10 } },
        { id: "busy", match: { method: "GET", path: "/customers" }, action: { type: "ERROR", status: 429, retryAfterSeconds: 2 } }
      ]
    })).status).toBe(200)
    // The direct lane serves createCustomer: the answer is lost there too.
    await expect(call(base, "POST", "/customers", customer, { "idempotency-key": "lost-1" })).rejects.toThrow()
    const busy = await call(base, "GET", "/customers")
    expect(busy.status).toBe(429)
    expect(busy.headers.get("x-sandbox-fault")).toBe("busy")
    expect(busy.headers.get("retry-after")).toBe("2")
    expect(busy.headers.get("x-should-retry")).toBe("true")
    expect(await busy.json()).toMatchObject({ code: "RATE_LIMITED", details: { sandboxFault: "busy" } })
    expect((await call(base, "DELETE", "/sandbox/faults")).status).toBe(204)
    const list = await (await call(base, "GET", "/customers")).json() as { data: Array<{ id: string }> }
    expect(list.data).toHaveLength(1)
    const again = await call(base, "POST", "/customers", customer, { "idempotency-key": "lost-1" })
    expect(((await again.json()) as { id: string }).id).toBe(list.data[0]!.id)
    // LATENCY through the HttpApi pipeline: the normal answer, marked.
    await call(base, "PUT", "/sandbox/faults", { requests: [{ id: "slow", match: { method: "GET", path: "/customers/*" }, action: { type: "LATENCY", millis: 10 } }] })
    const slow = await call(base, "GET", `/customers/${list.data[0]!.id}`)
    expect(slow.status).toBe(200)
    expect(slow.headers.get("x-sandbox-fault")).toBe("slow")
  }, 60_000)
})

describe("two server processes on one PostgreSQL database", () => {
  let procs: ReadonlyArray<Server> = []
  afterAll(() => {
    for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL")
  })

  it("share the rules and one counter: requests alternating between them draw the faults one server draws", async () => {
    const url = await migratedDatabase()
    procs = [start({ DATABASE_URL: url }), start({ DATABASE_URL: url })]
    for (const p of procs) keepAcrossTests(p)
    const [a, b] = (await Promise.all(procs.map((p) => p.banner))).map(baseOf) as [string, string]
    const rules = { seed: 9, requests: [{ id: "coin", match: { method: "GET", path: "/customers" }, probability: 0.5, action: { type: "ERROR", status: 500 } }] }
    const sequence = async (bases: ReadonlyArray<string>) => {
      // Set on the first server; the second reads them from the database.
      expect((await call(a, "PUT", "/sandbox/faults", rules)).status).toBe(200)
      const statuses: Array<number> = []
      for (let i = 0; i < 16; i++) statuses.push((await call(bases[i % bases.length]!, "GET", "/customers")).status)
      return statuses
    }
    // b has not read the rules yet (a fresh process): it sees them at once.
    const spread = await sequence([b, a])
    expect(spread).toContain(500)
    expect(spread).toContain(200)
    expect(await sequence([a])).toEqual(spread)
    const view = await (await call(b, "GET", "/sandbox/faults")).json() as { matchedRequests: number }
    expect(view.matchedRequests).toBe(16)
  }, 60_000)
})
