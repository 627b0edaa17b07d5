/**
 * Sandbox snapshots across two server processes on one PostgreSQL database: a snapshot
 * taken through one process is restored through the other, and the first then answers
 * from the restored state and on the restored clock (no process keeps a stale copy of
 * either); requests to the first while the second restores see the platform before or
 * after the restore, never half of it.
 */
import { afterAll, describe, expect, it } from "vitest"
import { migratedDatabase } from "../support/databases.js"
import { baseOf, CHILD_CLOCK_SKEW_MS, keepAcrossTests, type Server, start } from "../support/server.js"

const AUTH = `Basic ${Buffer.from("sandbox_client_id:sandbox_client_secret").toString("base64")}`

const call = async (base: string, method: string, path: string, body?: unknown) => {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: AUTH, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await res.text()
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are inspected freely
  const json: any = text === "" ? undefined : JSON.parse(text)
  return { status: res.status, body: json }
}

const ok = async (base: string, method: string, path: string, body?: unknown) => {
  const r = await call(base, method, path, body)
  expect(r.status, `${method} ${path}: ${JSON.stringify(r.body)}`).toBeLessThan(300)
  return r.body
}

const customerIds = async (base: string): Promise<Array<string>> =>
  ((await ok(base, "GET", "/customers?limit=100")).data as Array<{ id: string }>).map((c) => c.id).sort()

const DAY = 86_400

describe("two server processes on one PostgreSQL database", () => {
  let procs: ReadonlyArray<Server> = []
  afterAll(() => {
    for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL")
  })

  it("a snapshot taken through one is restored through the other; the first sees the restored state and clock at once", async () => {
    const url = await migratedDatabase()
    procs = [start({ DATABASE_URL: url }), start({ DATABASE_URL: url })]
    for (const p of procs) keepAcrossTests(p)
    const [a, b] = (await Promise.all(procs.map((p) => p.banner))).map(baseOf) as [string, string]

    const first = await ok(a, "POST", "/customers", { customerType: "INDIVIDUAL", fullName: "Before Snapshot" })
    const snapshot = await ok(a, "POST", "/sandbox/snapshots", { name: "one customer" })
    const taken = Date.parse(snapshot.platformTime)

    // Through b: three days on, another customer. Both processes read them (and b's clock).
    await ok(b, "POST", "/sandbox/clock/advance", { seconds: 3 * DAY })
    await ok(b, "POST", "/customers", { customerType: "INDIVIDUAL", fullName: "After Snapshot" })
    expect((await customerIds(a)).length).toBe(2)
    expect(Date.parse((await ok(a, "GET", "/sandbox/clock")).now)).toBeGreaterThanOrEqual(taken + 3 * DAY * 1000)
    const moved = await ok(a, "POST", "/customers", { customerType: "INDIVIDUAL", fullName: "On the moved clock" })
    expect(Date.parse(moved.createdAt)).toBeGreaterThanOrEqual(taken + 3 * DAY * 1000)

    // Restored through b, while a answers reads: each sees the platform before or after, never in between.
    const beforeIds = await customerIds(a)
    const reads = Array.from({ length: 8 }, () => customerIds(a))
    const restored = await ok(b, "POST", `/sandbox/snapshots/${encodeURIComponent(snapshot.id)}/restore`)
    expect(restored).toEqual(snapshot)
    for (const seen of await Promise.all(reads)) expect([beforeIds, [first.id]]).toContainEqual(seen)

    // a answers from the restored state, on the restored clock (a create through a is stamped on it).
    expect(await customerIds(a)).toEqual([first.id])
    // The restore set the clock through b, on b's clock: a's may differ by the children's skew (none but under faketime).
    const now = Date.parse((await ok(a, "GET", "/sandbox/clock")).now)
    expect(now).toBeGreaterThanOrEqual(taken - CHILD_CLOCK_SKEW_MS)
    expect(now).toBeLessThan(taken + DAY * 1000)
    const later = await ok(a, "POST", "/customers", { customerType: "INDIVIDUAL", fullName: "On the restored clock" })
    expect(Date.parse(later.createdAt)).toBeLessThan(taken + DAY * 1000)
    expect((await ok(a, "GET", "/sandbox/snapshots")).data).toEqual([snapshot])
  }, 90_000)
})
