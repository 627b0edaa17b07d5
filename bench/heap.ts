/**
 * `npm run bench:heap`: what a payment made through the API keeps on the memory store's
 * heap (the scale bench fills through the store port with clones, which are flatter
 * than what the request path builds). In process, no HTTP socket, no background
 * scheduler, no webhook endpoint (so no deliveries): 10 funded payers pay 1.00 USD
 * each in turn, their timers are applied (a clock advance), then the heap is measured
 * after a full GC, then again after the retention sweep with a retention of 0 (every
 * consumed event removed: what a payment older than the retention period keeps).
 * With `BENCH_HEAP_WEBHOOKS=1` the platform has a webhook endpoint (a receiver on
 * loopback in this process answering 200): every event becomes a delivery, delivered
 * before the heap is measured, and the sweep removes the finished deliveries too.
 *
 *   BENCH_HEAP_PAYMENTS (default 3000), BENCH_HEAP_WEBHOOKS (default 0),
 *   BENCH_HEAP_SNAPSHOTS=<dir>: V8 heap snapshots at the three measures (before.heapsnapshot,
 *   kept.heapsnapshot, swept.heapsnapshot), to compare object by object
 *
 * Needs --expose-gc (the npm script gives it).
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import { writeHeapSnapshot } from "node:v8"
import { Clock, type Context, Effect, Layer } from "effect"
import { LoopbackWebhookSenderLayer, memoryLayer } from "../src/adapters/memory/index.js"
import { makeWebHandler } from "../src/http/app.js"
import { SWEEP_BATCH, sweepAllPlatforms } from "../src/operations/retention.js"
import { asPlatformWork, platformNowOf } from "../src/operations/time.js"
import { runDueWebhooks } from "../src/operations/webhooks.js"
import { Store } from "../src/ports/store.js"
import { benchMoneyPlatform, moneyClient } from "./servers/platform.js"

const N = Number(process.env["BENCH_HEAP_PAYMENTS"] ?? "3000")
const WEBHOOKS = process.env["BENCH_HEAP_WEBHOOKS"] === "1"
const gc = (globalThis as { gc?: () => void }).gc
if (gc === undefined) {
  console.error("bench:heap needs node --expose-gc (npm run bench:heap)")
  process.exit(1)
}
const SNAPSHOTS = process.env["BENCH_HEAP_SNAPSHOTS"]
/**
 * After a turn of the event loop: until the job that made them ends, V8 keeps the targets
 * of the WeakRefs it made alive (a request's abort signals, about 330 B a request), and a
 * chain of in-process requests can run as one job.
 */
const heapUsed = async (name: string) => {
  await new Promise((resolve) => setImmediate(resolve))
  gc()
  gc()
  const used = process.memoryUsage().heapUsed
  if (SNAPSHOTS !== undefined) writeHeapSnapshot(join(SNAPSHOTS, `${name}.heapsnapshot`))
  return used
}

const app = makeWebHandler({ services: Layer.merge(memoryLayer([benchMoneyPlatform]), LoopbackWebhookSenderLayer), schedulerIntervalMillis: false })
const call = moneyClient((url, init) => app.handler(new Request(url, init)), "http://bench")
const customer = async (fullName: string) =>
  String((await call("POST", "/customers", {
    customerType: "INDIVIDUAL",
    fullName,
    birthDate: "1990-04-12",
    nationality: "US",
    idType: "PASSPORT",
    identifier: "X1234567",
    address: { line1: "1 Main St", city: "Springfield", postalCode: "12345", country: "US" }
  }))["id"])
const usdAccount = async (customerId: string) =>
  String(((await call("GET", `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}&currency=USD`))["data"] as Array<{ id: string }>)[0]?.id)

const pairs: Array<readonly [string, string]> = []
for (let i = 0; i < 10; i++) {
  const source = await usdAccount(await customer("Heap Payer"))
  const destination = await usdAccount(await customer("Heap Payee"))
  await call("POST", `/sandbox/internal-accounts/${encodeURIComponent(source)}/fund`, { amount: 100_000_000_000 })
  pairs.push([source, destination])
}
const pay = async (i: number) => {
  const [source, destination] = pairs[i % pairs.length]!
  const quote = await call("POST", "/quotes", {
    source: { sourceType: "ACCOUNT", accountId: source },
    destination: { destinationType: "ACCOUNT", accountId: destination },
    lockedCurrencySide: "SENDING",
    lockedCurrencyAmount: 100
  })
  await call("POST", `/quotes/${encodeURIComponent(String(quote["id"]))}/execute`)
}
const context = await app.ready
type Services = typeof context extends Context.Context<infer R> ? R : never
const run = <A>(effect: Effect.Effect<A, never, Services>) => Effect.runPromise(Effect.provideContext(effect, context))
const outboxSize = () => run(Effect.flatMap(Effect.service(Store), (s) => s.events.list(benchMoneyPlatform.id))).then((es) => es.length)

/** Every delivery due now attempted (a pass makes at most 500 attempts; a clock advance's pass may still hold leases). */
const deliverAll = async () => {
  if (!WEBHOOKS) return
  const pass = asPlatformWork(
    benchMoneyPlatform,
    Effect.gen(function*() {
      return yield* runDueWebhooks(benchMoneyPlatform, yield* platformNowOf(benchMoneyPlatform), yield* Clock.currentTimeMillis)
    })
  )
  for (let idle = 0; idle < 3;) {
    if ((await run(pass)) > 0) idle = 0
    else {
      idle++
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
}
const receiver = createServer((req, res) => req.resume().on("end", () => res.writeHead(200).end()))
if (WEBHOOKS) {
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
  await call("PATCH", "/config", { webhookEndpoint: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks` })
}

/** The platform's deliveries, and how many of them are DELIVERED. */
const deliveryCounts = async () => {
  let all = 0
  let delivered = 0
  for (let cursor: string | undefined = undefined; ;) {
    const page = await run(Effect.orDie(Effect.flatMap(Effect.service(Store), (s) => s.webhooks.list(benchMoneyPlatform.id, { limit: 500, ...(cursor === undefined ? {} : { cursor }) }))))
    all += page.data.length
    delivered += page.data.filter((d) => d.status === "DELIVERED").length
    if (!page.hasMore || page.nextCursor === undefined) return { all, delivered }
    cursor = page.nextCursor
  }
}

// Warm up (compiled code, caches, the request log's 500 entries) before the first measure.
for (let i = 0; i < 600; i++) await pay(i)
await call("POST", "/sandbox/clock/advance", { seconds: 3600 })
await deliverAll()
for (;;) if ((await run(sweepAllPlatforms(0))) < SWEEP_BATCH) break
const deliveriesBefore = WEBHOOKS ? (await deliveryCounts()).all : 0
const before = await heapUsed("before")
for (let i = 0; i < N; i++) await pay(i)
await call("POST", "/sandbox/clock/advance", { seconds: 3600 })
await deliverAll()
const after = await heapUsed("kept")
const events = await outboxSize()
const deliveries = WEBHOOKS ? await deliveryCounts() : undefined
for (;;) if ((await run(sweepAllPlatforms(0))) < SWEEP_BATCH) break
const swept = await heapUsed("swept")
const endpoint = WEBHOOKS ? "a webhook endpoint, every event delivered" : "no webhook endpoint"
console.log(`${N.toLocaleString("en-US")} payments through the API (memory store, ${endpoint}), heap per payment after a full GC:`)
const deliveriesKept = deliveries === undefined ? "" : `, ${((deliveries.all - deliveriesBefore) / N).toFixed(1)} deliveries (${deliveries.delivered.toLocaleString("en-US")} of ${deliveries.all.toLocaleString("en-US")} DELIVERED in all)`
console.log(`  everything kept (${(events / N).toFixed(1)} events per payment in the outbox${deliveriesKept}): ${Math.round((after - before) / N).toLocaleString("en-US")} B`)
console.log(`  after the retention sweep removed the consumed events${WEBHOOKS ? " and finished deliveries" : ""}: ${Math.round((swept - before) / N).toLocaleString("en-US")} B`)
await app.dispose()
receiver.close()
process.exit(0)
