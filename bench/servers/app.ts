import "effect/schema/SchemaJITCompiler/enable"
/** The reference server (HttpApi, validation, rules, the store DATABASE_URL / PAYMENTS_DATA_DIR choose) on an ephemeral port. */
import { Effect } from "effect"
import { serveReference } from "../../src/http/node.js"
import { servicesFor, storeChoiceFromEnv } from "../../src/server/services.js"
import { benchMoneyPlatform, benchPlatform } from "./platform.js"

const program = Effect.gen(function*() {
  // BENCH_DIRECT_LANE=0 measures the HttpApi path alone.
  const choice = storeChoiceFromEnv(process.env)
  if (typeof choice === "string") return yield* Effect.die(new Error(choice))
  const { address } = yield* serveReference({
    services: servicesFor(choice, [benchPlatform, benchMoneyPlatform], { webhookDestinations: ["loopback"] }),
    host: "127.0.0.1",
    port: 0,
    directLane: process.env["BENCH_DIRECT_LANE"] !== "0"
  })
  if (address._tag !== "UnixPathAddress") process.send?.({ port: address.port })
  return yield* Effect.never
})

// BENCH_GC_LOG=1: count the server's garbage-collection pauses and print them when it stops.
// The store the server runs on, as it picks it (the bench passes the unused variables empty).
const chosen = storeChoiceFromEnv(process.env)
const storeKind = typeof chosen === "string" ? "no" : chosen.kind
const gcPauses = new Map<string, Array<number>>()
if (process.env["BENCH_GC_LOG"] === "1") {
  const { PerformanceObserver, constants } = await import("node:perf_hooks")
  const kinds: Record<number, string> = {
    [constants.NODE_PERFORMANCE_GC_MINOR]: "minor",
    [constants.NODE_PERFORMANCE_GC_MAJOR]: "major",
    [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: "incremental",
    [constants.NODE_PERFORMANCE_GC_WEAKCB]: "weakcb"
  }
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const detail: unknown = "detail" in e ? e.detail : undefined
      const code = typeof detail === "object" && detail !== null && "kind" in detail && typeof detail.kind === "number" ? detail.kind : -1
      const kind = kinds[code] ?? "other"
      const list = gcPauses.get(kind) ?? []
      list.push(e.duration)
      gcPauses.set(kind, list)
    }
  }).observe({ entryTypes: ["gc"] })
  process.on("exit", () => {
    for (const [kind, pauses] of gcPauses) {
      const sorted = [...pauses].sort((a, b) => a - b)
      const total = sorted.reduce((a, b) => a + b, 0)
      process.stderr.write(`gc ${kind} (${storeKind} app, flags ${process.execArgv.join(" ") || "none"}): ${sorted.length}, total ${total.toFixed(0)} ms, ` +
        `p50 ${(sorted[Math.floor(sorted.length / 2)] ?? 0).toFixed(2)} ms, max ${(sorted.at(-1) ?? 0).toFixed(2)} ms, ` +
        `over 2 ms: ${sorted.filter((d) => d > 2).length}, over 5 ms: ${sorted.filter((d) => d > 5).length}\n`)
    }
  })
}

const fiber = Effect.runFork(Effect.scoped(program))
// The bench asks for CPU time to report CPU per request.
process.on("message", (m) => {
  if (m === "cpu") {
    const u = process.cpuUsage()
    process.send?.({ cpuMicros: u.user + u.system })
  }
  // bench/soak.ts reads the server's memory as it goes.
  if (m === "memory") {
    const { rss, heapUsed } = process.memoryUsage()
    process.send?.({ rss, heapUsed })
  }
})
process.on("SIGTERM", () => {
  fiber.interruptUnsafe()
  process.exit(0)
})
// The bench went away without stopping us (killed): don't outlive it.
process.on("disconnect", () => process.exit(0))
