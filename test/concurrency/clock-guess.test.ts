/**
 * A sandbox platform's clock offset, as a process that did not move it sees it
 * (src/adapters/sql/one-round-trip.ts): a request runs on the offset this process last
 * saw, and the unit of work checks that guess with its last statement, in its
 * transaction's snapshot. Two app instances on ONE PostgreSQL database (as two server
 * processes would be): after B advances the clock, A's next unit of work must run on the
 * new offset, whatever it reads or writes first, even though A last saw the old one.
 */
import { Context } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWebHandler } from "../../src/http/app.js"
import { Store } from "../../src/ports/store.js"
import { servicesFor } from "../../src/server/services.js"
import { basic, readReply, type Reply } from "../support/api.js"
import { migratedDatabase } from "../support/databases.js"
import { makePlatform } from "../support/onboarding-client.js"

type App = ReturnType<typeof makeWebHandler>

describe("a clock advanced through another process, on PostgreSQL", () => {
  const platform = makePlatform("clock-guess", { regulated: true })
  const apps: Array<App> = []

  const call = async (via: number, method: string, path: string, body?: unknown): Promise<Reply> => {
    const res = await apps[via]!.handler(new Request(`http://test/2025-10-13${path}`, {
      method,
      headers: { authorization: basic(platform), ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    }))
    return readReply(res)
  }
  let customerNumber = 0
  const createCustomer = (via: number) =>
    call(via, "POST", "/customers", {
      customerType: "INDIVIDUAL",
      platformCustomerId: `clock-guess-${++customerNumber}`,
      fullName: "Clock Guess",
      email: `clock-guess-${customerNumber}@example.invalid`
    })

  beforeAll(async () => {
    const url = await migratedDatabase()
    for (let i = 0; i < 2; i++) {
      apps.push(makeWebHandler({ services: servicesFor({ kind: "postgres", url }, [platform], {}), schedulerIntervalMillis: false }))
    }
    await Promise.all(apps.map((a) => a.ready))
    // Both stores are PostgreSQL ones on the same database.
    for (const a of apps) expect(Context.get(await a.ready, Store).info.kind).toBe("postgres")
  }, 60_000)
  afterAll(async () => {
    await Promise.allSettled(apps.map((a) => a.dispose()))
  })

  it("a unit of work runs on the offset stored by the other process, not the one this process last saw", async () => {
    // A sees the clock (and so guesses its offset from now on) and creates through it.
    const before = await call(0, "GET", "/sandbox/clock")
    expect(before.status).toBe(200)
    const first = await createCustomer(0)
    expect(first.status).toBe(201)
    for (const step of [1, 2, 3]) {
      // B moves the clock a day; A has not seen it.
      const advanced = await call(1, "POST", "/sandbox/clock/advance", { seconds: 86_400 })
      expect(advanced.status).toBe(200)
      expect(advanced.body.offsetSeconds).toBe((before.body.offsetSeconds as number) + step * 86_400)
      const floor = Date.parse(advanced.body.now as string)
      // A customer created through A is created on the new offset: at or after B's answer.
      const created = await createCustomer(0)
      expect(created.status).toBe(201)
      expect(Date.parse(created.body.createdAt as string)).toBeGreaterThanOrEqual(floor - 1_000)
      // And A's read of the clock agrees.
      expect((await call(0, "GET", "/sandbox/clock")).body.offsetSeconds).toBe(advanced.body.offsetSeconds)
    }
  })
})
