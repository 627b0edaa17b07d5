/**
 * Quote + execute through the request pipeline in process, without sockets: the direct
 * lane's `accept` (routing, credentials, body gates), its body read, request decoding,
 * concerns, the operations, response encoding and `JSON.stringify`, exactly as the node
 * listener drives them (src/http/node.ts), for 10 payers each paying its own payee on the
 * memory store. Prints CPU per payment (and `bench/money-ops.ts` gives the operations
 * alone, so the difference is the pipeline's); with `--cpu-prof` on node, a profile
 * without the kernel's socket writes and node's HTTP parsing (bundle it first with
 * esbuild for readable line numbers, as bench/http.ts bundles the servers).
 *   node --import tsx bench/money-lane.ts [payments]
 * `OPS_STEPS=1`: also the effect runtime's steps per quote and per execute request (a
 * tracer's `context` hook counts every primitive the lane's fibers evaluate), as
 * `bench/money-ops.ts` counts the operations' own.
 */
import "effect/schema/SchemaJITCompiler/enable"
import { Context, Tracer } from "effect"
import { laneOver, makeWebHandler } from "../src/http/app.js"
import type { DirectContinuation, DirectLane, DirectReply } from "../src/http/direct.js"
import { servicesFor } from "../src/server/services.js"
import { API_PREFIX, benchCustomerBody, benchMoneyAuth, benchMoneyPlatform as platform, moneyClient } from "./servers/platform.js"

const payments = Number(process.argv[2] ?? 3000)
const PAYERS = 10

const app = makeWebHandler({ services: servicesFor({ kind: "memory" }, [platform], { webhookDestinations: ["loopback"] }) })
const api = moneyClient((url, init) => app.handler(new Request(url, init)), "http://lane.invalid")

const usdOf = async (customerId: string) => {
  const list = await api("GET", `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}&currency=USD`)
  const account = (list["data"] as Array<{ id: string }>)[0]
  if (account === undefined) throw new Error(`customer ${customerId} has no USD internal account`)
  return account.id
}
const pairs: Array<{ source: string; destination: string }> = []
for (let i = 0; i < PAYERS; i++) {
  const source = await usdOf(String((await api("POST", "/customers", benchCustomerBody(`Lane Payer ${i}`)))["id"]))
  const destination = await usdOf(String((await api("POST", "/customers", benchCustomerBody(`Lane Payee ${i}`)))["id"]))
  await api("POST", `/sandbox/internal-accounts/${encodeURIComponent(source)}/fund`, { amount: 100_000_000_000 })
  pairs.push({ source, destination })
}
const context = await app.ready

let steps = 0
const counting = (native: Tracer.Tracer): Tracer.Tracer => ({
  span: (options) => native.span(options),
  context: (primitive, fiber) => {
    steps++
    return primitive["~effect/Effect/evaluate"](fiber)
  }
})
const plain = laneOver(context)
const counted = laneOver(Context.add(context, Tracer.Tracer, counting(Context.get(context, Tracer.Tracer))))

/** Headers as node gives them: lower-case names, strings. */
const reader = (headers: Readonly<Record<string, string>>) => (name: string) => headers[name]

const call = async (lane: DirectLane, method: string, path: string, body: string | undefined): Promise<DirectReply> => {
  const headers: Record<string, string> = { authorization: benchMoneyAuth }
  if (body !== undefined) {
    headers["content-type"] = "application/json"
    headers["content-length"] = String(Buffer.byteLength(body))
  }
  const accepted: DirectContinuation | undefined = lane.accept(method, `${API_PREFIX}${path}`, reader(headers))
  if (accepted === undefined) throw new Error(`the lane declined ${method} ${path}`)
  return accepted(body ?? "")
}

const pay = async (lane: DirectLane, pair: { source: string; destination: string }, onQuote?: () => void) => {
  const quote = await call(lane, "POST", "/quotes", JSON.stringify({
    source: { sourceType: "ACCOUNT", accountId: pair.source },
    destination: { destinationType: "ACCOUNT", accountId: pair.destination },
    lockedCurrencySide: "SENDING",
    lockedCurrencyAmount: 100
  }))
  if (quote.status !== 201) throw new Error(`quote answered ${quote.status}: ${quote.body}`)
  onQuote?.()
  const id = (JSON.parse(quote.body) as { id: string }).id
  const executed = await call(lane, "POST", `/quotes/${encodeURIComponent(id)}/execute`, undefined)
  if (executed.status !== 200) throw new Error(`execute answered ${executed.status}: ${executed.body}`)
}

if (process.env["OPS_STEPS"] === "1") {
  const SAMPLE = 100
  let quoteSteps = 0
  let executeSteps = 0
  for (let i = 0; i < SAMPLE; i++) {
    steps = 0
    await pay(counted, pairs[i % PAYERS]!, () => {
      quoteSteps += steps
      steps = 0
    })
    executeSteps += steps
  }
  console.log(`effect steps per quote request: ${quoteSteps / SAMPLE}, per execute request: ${executeSteps / SAMPLE}`)
}

/** One loop per payer (each paying its own payee in turn), all at once. */
const loop = (n: number) =>
  Promise.all(pairs.map(async (pair, p) => {
    for (let i = p; i < n; i += PAYERS) await pay(plain, pair)
  }))

await loop(Math.min(500, payments))
const before = process.cpuUsage()
const t0 = performance.now()
await loop(payments)
const cpu = process.cpuUsage(before)
const wall = performance.now() - t0
console.log(`${payments} payments through the lane: ${((cpu.user + cpu.system) / payments).toFixed(1)} µs CPU per payment, ${(wall * 1000 / payments).toFixed(1)} µs wall per payment`)
await app.dispose()
process.exit(0)
