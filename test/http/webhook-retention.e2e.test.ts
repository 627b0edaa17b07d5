/**
 * Retention end to end (docs/webhooks.md#retention), with a real receiver on a loopback
 * port and the background scheduler running: once the platform's clock has moved past
 * the retention period, the delivered webhooks (and the events they came from) are gone
 * from GET /sandbox/webhooks/deliveries and the outbox, while deliveries still being
 * retried stay; with retention off nothing is removed.
 */
import { Effect } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { makeWebHandler } from "../../src/http/app.js"
import type { Platform } from "../../src/domain/platform.js"
import { Store } from "../../src/ports/store.js"
import { basic, defaultTestStore, readReply, testServices } from "../support/api.js"
import { moneyClient, moneyPlatform } from "../support/money.js"
import { eventually, startReceiver } from "../support/webhook-receiver.js"

const DAY = 86_400

const cleanup: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f()
})

const setup = async (platform: Platform, retention: number | false) => {
  const receiver = await startReceiver()
  const app = makeWebHandler({
    services: testServices(defaultTestStore(), [platform]),
    schedulerIntervalMillis: 20,
    webhookRetentionMillis: retention,
    retentionSweepIntervalMillis: 20
  })
  const call = async (method: string, path: string, o: { body?: unknown; as?: Platform } = {}) =>
    readReply(await app.handler(new Request(`http://test/2025-10-13${path}`, {
      method,
      headers: { authorization: basic(o.as ?? platform), ...(o.body === undefined ? {} : { "content-type": "application/json" }) },
      ...(o.body === undefined ? {} : { body: JSON.stringify(o.body) })
    })))
  const api = { ...app, call }
  cleanup.push(() => receiver.close(), () => app.dispose())
  const m = moneyClient(api as Parameters<typeof moneyClient>[0], platform)
  const outbox = async () => {
    const context = await app.ready
    return Effect.runPromise(Effect.provideContext(Effect.flatMap(Effect.service(Store), (s) => s.events.list(platform.id)), context))
  }
  const lastSeq = async () => {
    const context = await app.ready
    return Effect.runPromise(Effect.provideContext(Effect.flatMap(Effect.service(Store), (s) => s.webhooks.lastEventSeq(platform.id)), context))
  }
  const deliveries = async (): Promise<ReadonlyArray<{ readonly id: string; readonly resourceId: string; readonly status: string }>> =>
    (await m.ok("GET", "/sandbox/webhooks/deliveries?limit=100")).data
  return { receiver, m, outbox, lastSeq, deliveries }
}

describe("webhook retention", () => {
  it("past the retention period delivered deliveries and consumed events are gone; ones still retrying stay", async () => {
    const { receiver, m, outbox, lastSeq, deliveries } = await setup(moneyPlatform("hooks-retention"), 7 * DAY * 1000)
    await m.ok("PATCH", "/config", { webhookEndpoint: receiver.url })
    const old = await m.customer()
    await eventually(async () => (await deliveries()).length >= 2 && (await deliveries()).every((d) => d.status === "DELIVERED"), 10_000, "the first deliveries")
    const delivered = await deliveries()
    expect(delivered.some((d) => d.resourceId === old.id)).toBe(true)

    // Eight days later the receiver fails: the next customer's webhooks are retried.
    await m.advance(8 * DAY)
    receiver.state.respond = () => 503
    const fresh = await m.customer()
    await m.advance(0)
    await eventually(async () => (await deliveries()).some((d) => d.resourceId === fresh.id && d.status === "PENDING"), 10_000, "a delivery being retried")

    // The scheduler's sweep removes what finished more than 7 days ago.
    await eventually(async () => !(await deliveries()).some((d) => delivered.some((e) => e.id === d.id)), 10_000, "the old deliveries to go")
    const left = await deliveries()
    // What the receiver refused since it started failing is all still there, being retried.
    const refused = new Set(receiver.got.filter((r) => r.status === 503).map((r) => r.id))
    expect(refused.size).toBeGreaterThan(0)
    const retrying = left.filter((d) => refused.has(d.id))
    expect(retrying.length).toBe(refused.size)
    expect(retrying.every((d) => d.status === "PENDING")).toBe(true)
    expect(retrying.some((d) => d.resourceId === fresh.id)).toBe(true)
    // A retained delivery still answers by id (redelivery), a removed one is 404.
    expect((await m.call("POST", `/sandbox/webhooks/deliveries/${encodeURIComponent(delivered[0]!.id)}/redeliver`)).status).toBe(404)

    // Consumed events older than the retention period are gone from the outbox; the newest
    // is kept, so the outbox position never goes back.
    const last = await lastSeq()
    await eventually(async () => !(await outbox()).some((e) => delivered.some((d) => d.id === e.event.id)), 10_000, "the old events to go")
    expect(await lastSeq()).toBe(last)
    // Still retrying after more sweeps.
    await new Promise((r) => setTimeout(r, 200))
    expect((await deliveries()).filter((d) => refused.has(d.id)).length).toBe(refused.size)
  })

  it("with retention off nothing is removed", async () => {
    const { receiver, m, outbox, deliveries } = await setup(moneyPlatform("hooks-retention-off"), false)
    await m.ok("PATCH", "/config", { webhookEndpoint: receiver.url })
    await m.customer()
    await eventually(async () => (await deliveries()).length >= 2 && (await deliveries()).every((d) => d.status === "DELIVERED"), 10_000, "the first deliveries")
    const before = await deliveries()
    const events = (await outbox()).length
    await m.advance(30 * DAY)
    await new Promise((r) => setTimeout(r, 300))
    expect((await deliveries()).map((d) => d.id)).toEqual(expect.arrayContaining(before.map((d) => d.id)))
    expect((await outbox()).length).toBeGreaterThanOrEqual(events)
  })
})
