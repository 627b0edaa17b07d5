/**
 * `npm run bench:heap`: what a payment made through the API keeps on the memory store's
 * heap (the scale bench fills through the store port with clones, which are flatter
 * than what the request path builds). In process, no HTTP socket, no background
 * scheduler, no webhook endpoint (so no deliveries): 10 funded payers pay 1.00 USD
 * each in turn, their timers are applied (a clock advance), then the heap is measured
 * after a full GC, then again after the retention sweep with a retention of 0 (every
 * consumed event removed: what a payment older than the retention period keeps).
 *
 *   BENCH_HEAP_PAYMENTS (default 3000)
 *
 * Needs --expose-gc (the npm script gives it).
 */
import { Effect, Layer } from "effect"
import { LoopbackWebhookSenderLayer, memoryLayer } from "../src/adapters/memory/index.js"
import { makeWebHandler } from "../src/http/app.js"
import { SWEEP_BATCH, sweepAllPlatforms } from "../src/operations/retention.js"
import { Store } from "../src/ports/store.js"
import { benchMoneyPlatform, moneyClient } from "./servers/platform.js"

const N = Number(process.env["BENCH_HEAP_PAYMENTS"] ?? "3000")
const gc = (globalThis as { gc?: () => void }).gc
if (gc === undefined) {
  console.error("bench:heap needs node --expose-gc (npm run bench:heap)")
  process.exit(1)
}
const heapUsed = () => {
  gc()
  gc()
  return process.memoryUsage().heapUsed
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
const run = <A>(effect: Effect.Effect<A, never, Store | import("../src/ports/platforms.js").Platforms>) =>
  Effect.runPromise(Effect.provideContext(effect, context))
const outboxSize = () => run(Effect.flatMap(Effect.service(Store), (s) => s.events.list(benchMoneyPlatform.id))).then((es) => es.length)

// Warm up (compiled code, caches, the request log's 500 entries) before the first measure.
for (let i = 0; i < 600; i++) await pay(i)
await call("POST", "/sandbox/clock/advance", { seconds: 3600 })
for (;;) if ((await run(sweepAllPlatforms(0))) < SWEEP_BATCH) break
const before = heapUsed()
for (let i = 0; i < N; i++) await pay(i)
await call("POST", "/sandbox/clock/advance", { seconds: 3600 })
const after = heapUsed()
const events = await outboxSize()
for (;;) if ((await run(sweepAllPlatforms(0))) < SWEEP_BATCH) break
const swept = heapUsed()
console.log(`${N.toLocaleString("en-US")} payments through the API (memory store, no webhook endpoint), heap per payment after a full GC:`)
console.log(`  everything kept (${(events / N).toFixed(1)} events per payment in the outbox): ${Math.round((after - before) / N).toLocaleString("en-US")} B`)
console.log(`  after the retention sweep removed the consumed events: ${Math.round((swept - before) / N).toLocaleString("en-US")} B`)
await app.dispose()
process.exit(0)
