/**
 * `npm run bench`: every number is reported beside a baseline measured in the same
 * run, as a ratio. Nothing here passes or fails on absolute time.
 *   BENCH_SECONDS (default 10): load duration per HTTP server
 *   BENCH_CONNECTIONS (default 10): concurrent connections
 *   BENCH_ACCOUNTS (default 100000): accounts stored for the memory figure
 */
import { fork } from "node:child_process"
import { fileURLToPath } from "node:url"
import { runCryptoBench } from "./crypto.js"
import { runHttpBench } from "./http.js"

const seconds = Number(process.env["BENCH_SECONDS"] ?? "10")
const connections = Number(process.env["BENCH_CONNECTIONS"] ?? "10")
const accounts = Number(process.env["BENCH_ACCOUNTS"] ?? "100000")

const fmt = (n: number, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })
const mib = (b: number) => `${fmt(b / 1024 / 1024, 1)} MiB`

console.log(`# payments-service bench (node ${process.version}, ${seconds}s per server, ${connections} connections)\n`)

console.log("## POST /customers/external-accounts over loopback (autocannon)")
const http = await runHttpBench({ seconds, connections })
console.log("| server | req/s (mean of rounds) | server CPU µs/request | p50 ms (worst round) | p99 ms (worst round) | non-2xx | errors |")
console.log("|---|---|---|---|---|---|---|")
for (
  const [name, r] of [
    ["raw node:http (baseline)", http.raw],
    ["payments-service (npm start: direct lane + HttpApi)", http.app],
    ["payments-service, HttpApi path only (lane off)", http.httpapi]
  ] as const
) {
  console.log(`| ${name} | ${fmt(r.requestsPerSecond)} | ${fmt(r.cpuMicrosPerRequest, 1)} | ${r.p50} | ${r.p99} | ${r.non2xx} | ${r.errors} |`)
}
console.log(`\nthroughput ratio (payments-service / raw): ${fmt(http.throughputRatio, 2)}  (target >= 0.40); per round: ${http.perRound.map((r) => fmt(r, 2)).join(", ")}`)
console.log(`HttpApi path alone / raw: ${fmt(http.httpapiRatio, 2)}`)
console.log(`server CPU per request, raw / payments-service: ${fmt(http.raw.cpuMicrosPerRequest / http.app.cpuMicrosPerRequest, 2)}`)
console.log(`payments-service p99 at that load: ${http.app.p99} ms  (target < 5 ms)\n`)

console.log(`## Memory per ${fmt(accounts)} stored external accounts`)
const mem = await new Promise<{ count: number; rssBytes: number; heapBytes: number; gcExposed: boolean }>((resolve, reject) => {
  const child = fork(fileURLToPath(new URL("./memory.ts", import.meta.url)), ["child", String(accounts)], {
    execArgv: ["--import", "tsx", "--expose-gc"]
  })
  child.once("message", (m) => resolve(m as never))
  child.once("exit", (code) => code !== 0 && reject(new Error(`memory bench exited with ${code}`)))
})
const per100k = 100_000 / mem.count
console.log(`heap: ${mib(mem.heapBytes * per100k)} per 100,000 accounts (${fmt(mem.heapBytes / mem.count)} bytes each)`)
console.log(`rss:  ${mib(mem.rssBytes * per100k)} per 100,000 accounts${mem.gcExposed ? "" : " (gc not exposed: upper bound)"}\n`)

console.log("## Crypto verifiers")
await runCryptoBench({ seconds: Math.max(1, Math.min(5, seconds / 2)) })
