/**
 * Sandbox snapshots end to end (docs/sandbox.md#snapshots): a snapshot saves everything the
 * calling sandbox platform holds and a restore puts it back exactly (records, ledger,
 * outbox and webhook deliveries, scheduled moves, idempotency records, config) with its
 * clock back at the snapshot's instant; other platforms, the platform's API tokens and
 * the snapshots themselves are untouched; production platforms get 403.
 * test/postgres/sandbox-snapshots.e2e.test.ts runs it again on PostgreSQL.
 */
import { Context } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { platformFromConfig } from "../../src/domain/platform.js"
import { MAX_SNAPSHOTS_PER_PLATFORM } from "../../src/domain/sandbox-snapshot.js"
import { Store } from "../../src/ports/store.js"
import { makeApi } from "../support/api.js"
import { accountNumberEnding, moneyClient, moneyPlatform } from "../support/money.js"
import { allOf, platformState } from "../support/platform-state.js"

const sandbox = moneyPlatform("snap-a")
const other = moneyPlatform("snap-b")
const production = platformFromConfig({ id: "snap-prod", clientId: "snap-prod-client", clientSecret: "snap-prod-secret-1", sandbox: false })

const cleanup: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f()
})

const setup = async () => {
  const api = makeApi([sandbox, other, production])
  cleanup.push(() => api.dispose())
  const store = Context.get(await api.ready, Store)
  return { api, store, a: moneyClient(api, sandbox), b: moneyClient(api, other) }
}

const DAY = 86_400

/** Customers, balances, a payment still settling (a scheduled move) and an idempotent create. */
const populate = async (m: ReturnType<typeof moneyClient>) => {
  const alice = await m.fundedCustomer({ USD: 100_000 })
  const payee = await m.externalUsd(alice.id, accountNumberEnding("000"))
  const payment = await m.pay(alice.accounts.USD, payee.id, 1_000)
  const keyed = await m.ok("POST", "/customers", { customerType: "INDIVIDUAL", fullName: "Keyed Once" }, 201, { "idempotency-key": "snap-key-1" })
  return { alice, payee, payment, keyed }
}

const audit = async (m: ReturnType<typeof moneyClient>) => (await m.ok("GET", "/sandbox/ledger/audit")).verdict

describe("sandbox snapshots", () => {
  it("a restore gives back everything the platform held when the snapshot was taken, and its clock", async () => {
    const { api, store, a } = await setup()
    const { alice, payee, keyed } = await populate(a)
    const taken = await a.clock()
    const snapshot = await a.ok("POST", "/sandbox/snapshots", { name: "one payment settling" }, 201)
    expect(snapshot).toMatchObject({ name: "one payment settling" })
    expect(snapshot.id).toMatch(/^Snapshot:/)
    expect(Date.parse(snapshot.platformTime)).toBeGreaterThanOrEqual(taken)
    const saved = await platformState(api, store, sandbox)
    expect(saved.timers.length).toBeGreaterThan(0)
    expect(await audit(a)).toBe("BALANCED")

    // Afterwards: more customers and payments, three days on (the payment settles), a new idempotency key.
    const bob = await a.fundedCustomer({ USD: 5_000 })
    await a.pay(alice.accounts.USD, payee.id, 2_000)
    await a.advance(3 * DAY)
    const later = await a.ok("POST", "/customers", { customerType: "INDIVIDUAL", fullName: "Keyed Later" }, 201, { "idempotency-key": "snap-key-2" })
    const changed = await platformState(api, store, sandbox)
    expect(changed).not.toEqual(saved)

    const restored = await a.ok("POST", `/sandbox/snapshots/${encodeURIComponent(snapshot.id)}/restore`)
    expect(restored).toEqual(snapshot)
    expect(await platformState(api, store, sandbox)).toEqual(saved)
    expect(await audit(a)).toBe("BALANCED")
    // The clock resumes at the snapshot's instant: three days back, not before it.
    const now = await a.clock()
    expect(now).toBeGreaterThanOrEqual(Date.parse(snapshot.platformTime))
    expect(now).toBeLessThan(taken + DAY * 1000)
    expect((await a.call("GET", `/customers/${encodeURIComponent(bob.id)}`)).status).toBe(404)
    // Idempotency records as they were: the first key answers its customer again, the later one is unknown.
    const again = await a.ok("POST", "/customers", { customerType: "INDIVIDUAL", fullName: "Keyed Once" }, 201, { "idempotency-key": "snap-key-1" })
    expect(again.id).toBe(keyed.id)
    const fresh = await a.ok("POST", "/customers", { customerType: "INDIVIDUAL", fullName: "Keyed Later" }, 201, { "idempotency-key": "snap-key-2" })
    expect(fresh.id).not.toBe(later.id)

    // The scheduled move still comes: the payment settles when the restored clock reaches it.
    await a.advance(3 * DAY)
    expect((await platformState(api, store, sandbox)).timers.length).toBeLessThan(saved.timers.length)

    // A snapshot restores as often as asked.
    await a.ok("POST", `/sandbox/snapshots/${encodeURIComponent(snapshot.id)}/restore`)
    expect(await platformState(api, store, sandbox)).toEqual(saved)
  })

  it("other platforms, the platform's API tokens and its snapshots are untouched by a restore", async () => {
    const { api, store, a, b } = await setup()
    await populate(a)
    await populate(b)
    const snapshot = await a.ok("POST", "/sandbox/snapshots", { name: "before" }, 201)
    const token = await a.ok("POST", "/tokens", { name: "after the snapshot", permissions: ["VIEW", "TRANSACT", "MANAGE"] }, 201)
    await a.fundedCustomer({ USD: 1_000 })
    await b.fundedCustomer({ USD: 2_000 })
    const bBefore = await platformState(api, store, other)
    const second = await a.ok("POST", "/sandbox/snapshots", { name: "after" }, 201)

    await a.ok("POST", `/sandbox/snapshots/${encodeURIComponent(snapshot.id)}/restore`)
    expect(await platformState(api, store, other)).toEqual(bBefore)
    expect((await allOf(api, sandbox, "/customers")).length).toBe(2)
    // The token issued after the snapshot still works; both snapshots are still there.
    const withToken = await api.handler(new Request("http://test/2025-10-13/sandbox/snapshots", {
      headers: { authorization: `Basic ${Buffer.from(`${token.clientId}:${token.clientSecret}`).toString("base64")}` }
    }))
    expect(withToken.status).toBe(200)
    const listed = (await withToken.json()) as { data: Array<{ id: string }> }
    expect(listed.data.map((s) => s.id)).toEqual([snapshot.id, second.id])
    // Restoring the later one brings the customer back.
    await a.ok("POST", `/sandbox/snapshots/${encodeURIComponent(second.id)}/restore`)
    expect((await allOf(api, sandbox, "/customers")).length).toBe(3)
  })

  it("snapshots survive a sandbox reset: reset, then restore", async () => {
    const { api, store, a } = await setup()
    await populate(a)
    const snapshot = await a.ok("POST", "/sandbox/snapshots", { name: "seeded" }, 201)
    const saved = await platformState(api, store, sandbox)
    await a.ok("POST", "/sandbox/reset", undefined, 204)
    expect(await allOf(api, sandbox, "/customers")).toEqual([])
    expect((await a.ok("GET", "/sandbox/snapshots")).data).toEqual([snapshot])
    await a.ok("POST", `/sandbox/snapshots/${encodeURIComponent(snapshot.id)}/restore`)
    expect(await platformState(api, store, sandbox)).toEqual(saved)
  })

  it("lists page like every list; get, delete (204) and then 404; unknown ids 404; a bad name 400", async () => {
    const { api, a } = await setup()
    const made = []
    for (let i = 0; i < 3; i++) made.push(await a.ok("POST", "/sandbox/snapshots", { name: `s${i}` }, 201))
    // In list order: by createdAt, then id (two made within one millisecond go by their random ids).
    made.sort((x, y) => x.createdAt.localeCompare(y.createdAt) || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0))
    const first = await a.ok("GET", "/sandbox/snapshots?limit=2")
    expect(first).toMatchObject({ hasMore: true, totalCount: 3 })
    expect(first.data).toEqual(made.slice(0, 2))
    const second = await a.ok("GET", `/sandbox/snapshots?limit=2&cursor=${encodeURIComponent(first.nextCursor)}`)
    expect(second.data).toEqual(made.slice(2))
    expect(second.hasMore).toBe(false)
    expect((await a.call("GET", "/sandbox/snapshots?cursor=nonsense")).status).toBe(400)

    const id = encodeURIComponent(made[1].id)
    expect(await a.ok("GET", `/sandbox/snapshots/${id}`)).toEqual(made[1])
    await a.ok("DELETE", `/sandbox/snapshots/${id}`, undefined, 204)
    for (const [method, path] of [["GET", `/sandbox/snapshots/${id}`], ["DELETE", `/sandbox/snapshots/${id}`], ["POST", `/sandbox/snapshots/${id}/restore`]] as const) {
      const r = await a.call(method, path)
      expect(r.status, `${method} ${path}`).toBe(404)
      expect(r.body.code).toBe("NOT_FOUND")
    }
    expect((await a.ok("GET", "/sandbox/snapshots")).data).toEqual([made[0], made[2]])
    // Another platform's snapshot is not found either.
    expect((await api.call("GET", `/sandbox/snapshots/${encodeURIComponent(made[0].id)}`, { as: other })).status).toBe(404)
    expect((await api.call("POST", `/sandbox/snapshots/${encodeURIComponent(made[0].id)}/restore`, { as: other })).status).toBe(404)

    for (const body of [{}, { name: "" }, { name: "x".repeat(201) }, { name: 7 }]) {
      const r = await a.call("POST", "/sandbox/snapshots", body)
      expect(r.status, JSON.stringify(body)).toBe(400)
      expect(r.body.code).toBe("INVALID_INPUT")
    }
  })

  it(`a platform holds at most ${MAX_SNAPSHOTS_PER_PLATFORM} snapshots: one more is 409 CONFLICT until one is deleted`, async () => {
    const { a } = await setup()
    const made = []
    for (let i = 0; i < MAX_SNAPSHOTS_PER_PLATFORM; i++) made.push(await a.ok("POST", "/sandbox/snapshots", { name: `s${i}` }, 201))
    const refused = await a.call("POST", "/sandbox/snapshots", { name: "one too many" })
    expect(refused.status).toBe(409)
    expect(refused.body.code).toBe("CONFLICT")
    expect((await a.ok("GET", "/sandbox/snapshots?limit=1")).totalCount).toBe(MAX_SNAPSHOTS_PER_PLATFORM)
    await a.ok("DELETE", `/sandbox/snapshots/${encodeURIComponent(made[0].id)}`, undefined, 204)
    await a.ok("POST", "/sandbox/snapshots", { name: "in its place" }, 201)
  })

  it("every snapshot endpoint answers 403 to a production platform", async () => {
    const { api } = await setup()
    const calls = [
      ["POST", "/sandbox/snapshots", { name: "x" }],
      ["GET", "/sandbox/snapshots", undefined],
      ["GET", "/sandbox/snapshots/Snapshot:1", undefined],
      ["DELETE", "/sandbox/snapshots/Snapshot:1", undefined],
      ["POST", "/sandbox/snapshots/Snapshot:1/restore", undefined]
    ] as const
    for (const [method, path, body] of calls) {
      const r = await api.call(method, path, { as: production, ...(body === undefined ? {} : { body }) })
      expect(r.status, `${method} ${path}`).toBe(403)
      expect(r.body.code).toBe("FORBIDDEN")
    }
  })
})
