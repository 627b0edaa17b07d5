/**
 * `npm run bench:soak`: the money load kept running while the books grow, as a team's
 * shared sandbox sees it. One reference server on a store; 10 connections, each paying
 * from its own funded payer to its own payee (bench/money.ts), without pause for
 * BENCH_SOAK_MINUTES; every window of BENCH_SOAK_WINDOW_SECONDS prints the payments
 * stored so far, payments/s, p50 / p99 per request, answers other than 2xx, the server's
 * CPU per payment (and the database cluster's on PostgreSQL), the server's resident
 * memory and heap in use, and the store's size on disk (PGlite's data directory,
 * PostgreSQL's database). The end compares the last window with the first (ratios) and
 * gives the growth of memory and disk per payment over the run. The server's background
 * work (the scheduler, the retention sweep, PGlite's vacuum) runs as in any server, so
 * its cost is inside the windows it falls in.
 *   BENCH_STORES (default pglite; memory, pglite, postgres: one after the other)
 *   BENCH_SOAK_MINUTES (default 10), BENCH_SOAK_WINDOW_SECONDS (default 60), BENCH_CONNECTIONS (default 10)
 *   BENCH_SOAK_WEBHOOKS=1: the platform's webhook endpoint set (PATCH /config) to a receiver
 *     in this process on loopback, answering 200, before the load: every window also
 *     prints the webhooks received and per payment, and after the load the time the
 *     server takes to deliver what it still owes (until three seconds pass with nothing
 *     received, at most BENCH_SOAK_DRAIN_SECONDS, default 300).
 * Nothing here passes or fails on time: it reports. Throwaway data directories and
 * cluster, removed at the end, on failure and on Ctrl-C.
 */
import { mkdtempSync, readdirSync, statSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import type { ChildProcess } from "node:child_process"
import { runThenExit, trackDir } from "./cleanup.js"
import { askChild, start, WARM_UP_SECONDS } from "./http.js"
import { appPairs, load, run } from "./money.js"
import { startBenchCluster } from "./postgres.js"
import { moneyApi } from "./servers/platform.js"

const minutes = Number(process.env["BENCH_SOAK_MINUTES"] ?? "10")
const windowSeconds = Number(process.env["BENCH_SOAK_WINDOW_SECONDS"] ?? "60")
const connections = Number(process.env["BENCH_CONNECTIONS"] ?? "10")
const webhooks = process.env["BENCH_SOAK_WEBHOOKS"] === "1"
const drainSeconds = Number(process.env["BENCH_SOAK_DRAIN_SECONDS"] ?? "300")
const stores = (process.env["BENCH_STORES"] ?? "pglite").split(",").map((s) => s.trim()).filter((s) => s !== "")

const memoryOf = (child: ChildProcess) =>
  askChild(child, "memory", (m) =>
    typeof m === "object" && m !== null && "rss" in m && "heapUsed" in m && typeof m.rss === "number" && typeof m.heapUsed === "number"
      ? { rss: m.rss, heapUsed: m.heapUsed }
      : undefined)

/**
 * A webhook receiver on loopback that answers 200 to every request and counts them. Not
 * the tests' receiver (test/support/webhook-receiver.ts): that one parses and keeps every
 * request, hundreds of thousands over a soak, in the process that also drives the load.
 */
const startReceiver = async () => {
  let received = 0
  const server = createServer((req, res) => {
    req.resume()
    req.on("end", () => {
      received++
      res.writeHead(200).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    received: () => received,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

const bytesUnder = (dir: string): number => {
  let total = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    try {
      total += entry.isDirectory() ? bytesUnder(path) : statSync(path).size
    } catch {
      // Removed while walking (a WAL segment recycled): not counted.
    }
  }
  return total
}

interface Window {
  readonly stored: number
  readonly paymentsPerSecond: number
  readonly p50: number
  readonly p99: number
  readonly other: number
  readonly cpuPerPayment: number
  readonly dbCpuPerPayment: number | undefined
  readonly rss: number
  readonly heapUsed: number
  readonly disk: number | undefined
  readonly webhooks: number | undefined
}

const mb = (bytes: number) => (bytes / 1048576).toFixed(1)
const fmt = (n: number, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })

const soak = async (store: string, env: Record<string, string>, disk: () => Promise<number | undefined>, dbCpu: (() => Promise<number>) | undefined) => {
  console.log(`\n## ${store}: ${minutes} min of quote + execute, ${connections} connections, windows of ${windowSeconds} s (load average before: ${loadavg()[0]!.toFixed(2)})\n`)
  const server = await start("./servers/app.ts", env)
  const receiver = webhooks ? await startReceiver() : undefined
  try {
    const pairs = await appPairs(server.port, connections, false)
    // Events committed from here on are delivered (docs/webhooks.md), the warm-up's too.
    if (receiver !== undefined) await moneyApi(server.port, "PATCH", "/config", { webhookEndpoint: receiver.url })
    await run(server.port, pairs, WARM_UP_SECONDS, connections)
    const receivedBefore = receiver?.received() ?? 0
    console.log(`| window | payments stored | payments/s | p50 ms | p99 ms | non-2xx | server CPU µs/payment | DB CPU µs/payment | server RSS MB | heap used MB | on disk MB |${webhooks ? " webhooks received | per payment |" : ""}`)
    console.log(`|---|---|---|---|---|---|---|---|---|---|---|${webhooks ? "---|---|" : ""}`)
    const windows: Array<Window> = []
    let stored = 0
    const end = Date.now() + minutes * 60_000
    let receivedSoFar = receivedBefore
    while (Date.now() < end) {
      const r = await load(server, pairs, windowSeconds, connections, dbCpu)
      const receivedNow = receiver?.received()
      stored += r.payments
      const memory = await memoryOf(server.child)
      const w: Window = {
        stored,
        paymentsPerSecond: r.requestsPerSecond,
        p50: r.p50,
        p99: r.p99,
        other: r.non2xx + r.errors + (r.unexpected ?? 0),
        cpuPerPayment: r.cpuMicrosPerRequest,
        dbCpuPerPayment: r.dbCpuMicrosPerRequest,
        rss: memory.rss,
        heapUsed: memory.heapUsed,
        disk: await disk(),
        webhooks: receivedNow === undefined ? undefined : receivedNow - receivedSoFar
      }
      if (receivedNow !== undefined) receivedSoFar = receivedNow
      windows.push(w)
      console.log(`| ${windows.length} | ${fmt(w.stored)} | ${fmt(w.paymentsPerSecond)} | ${w.p50} | ${w.p99} | ${w.other} | ${fmt(w.cpuPerPayment)} | ${w.dbCpuPerPayment === undefined ? "" : fmt(w.dbCpuPerPayment)} | ${mb(w.rss)} | ${mb(w.heapUsed)} | ${w.disk === undefined ? "" : mb(w.disk)} |` +
        (w.webhooks === undefined ? "" : ` ${fmt(w.webhooks)} | ${(w.webhooks / Math.max(1, r.payments)).toFixed(2)} |`))
    }
    const first = windows[0]!
    const last = windows.at(-1)!
    const grown = last.stored - first.stored
    console.log(`\nlast window against the first: payments/s ${(last.paymentsPerSecond / first.paymentsPerSecond).toFixed(2)}, ` +
      `server CPU per payment ${(last.cpuPerPayment / first.cpuPerPayment).toFixed(2)}` +
      (last.dbCpuPerPayment !== undefined && first.dbCpuPerPayment !== undefined ? `, DB CPU per payment ${(last.dbCpuPerPayment / first.dbCpuPerPayment).toFixed(2)}` : "") +
      `, p99 ${(last.p99 / Math.max(1, first.p99)).toFixed(2)}`)
    console.log(`growth from the first window's end to the last's (${fmt(grown)} payments): RSS ${fmt((last.rss - first.rss) / Math.max(1, grown))} B per payment, ` +
      `heap used ${fmt((last.heapUsed - first.heapUsed) / Math.max(1, grown))} B per payment` +
      (last.disk !== undefined && first.disk !== undefined ? `, on disk ${fmt((last.disk - first.disk) / Math.max(1, grown))} B per payment` : ""))
    console.log(`answers other than 2xx (INSUFFICIENT_FUNDS aside) over the run: ${windows.reduce((a, w) => a + w.other, 0)}`)
    if (receiver !== undefined) {
      // What the server still owes when the load stops: delivered until three seconds pass with nothing new (the scheduler passes once a second).
      const loadEnded = Date.now()
      let last = receiver.received()
      let lastAt = loadEnded
      while (Date.now() - lastAt < 3_000 && Date.now() - loadEnded < drainSeconds * 1_000) {
        await new Promise((resolve) => setTimeout(resolve, 100))
        if (receiver.received() !== last) {
          last = receiver.received()
          lastAt = Date.now()
        }
      }
      const during = receivedSoFar - receivedBefore
      console.log(`webhooks: ${fmt(during)} received during the ${fmt(windows.length)} windows (${(during / Math.max(1, stored)).toFixed(2)} per payment), ` +
        `${fmt(last - receivedSoFar)} more in the ${((lastAt - loadEnded) / 1000).toFixed(1)} s after the load stopped` +
        (Date.now() - loadEnded >= drainSeconds * 1_000 ? ` (still arriving after BENCH_SOAK_DRAIN_SECONDS=${drainSeconds})` : ""))
    }
  } finally {
    await receiver?.stop()
    await server.stop()
  }
}

await runThenExit(async () => {
  console.log(`# payments-service soak (node ${process.version}; stores: ${stores.join(", ")})`)
  for (const store of stores) {
    if (store === "memory") {
      await soak("memory", { DATABASE_URL: "", PAYMENTS_DATA_DIR: "" }, async () => undefined, undefined)
    } else if (store === "pglite") {
      const dir = mkdtempSync(join(tmpdir(), "payments-soak-"))
      const removeDir = trackDir(dir)
      try {
        await soak("pglite", { DATABASE_URL: "", PAYMENTS_DATA_DIR: dir }, async () => bytesUnder(dir), undefined)
      } finally {
        await removeDir()
      }
    } else if (store === "postgres") {
      const cluster = await startBenchCluster()
      try {
        const url = await cluster.database("bench_soak")
        const size = async () => {
          const [row] = await cluster.query<{ size: string }>(cluster.adminUrl, "select pg_database_size('bench_soak')::text as size")
          return Number(row?.size ?? 0)
        }
        await soak("postgres", { DATABASE_URL: url, PAYMENTS_DATA_DIR: "" }, size, cluster.cpuMicros)
      } finally {
        await cluster.stop()
      }
    } else {
      throw new Error(`BENCH_STORES: unknown store ${store} (memory, pglite, postgres)`)
    }
  }
})
