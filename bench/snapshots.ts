/**
 * `npm run bench:snapshots`: how long a sandbox snapshot and a restore of it take on a
 * platform holding many payments (docs/sandbox.md#snapshots; aim: under a second each on
 * the memory store at 10,000 payments).
 *
 * Per store, a fresh server child (bench/servers/scale-app.ts, the scale bench's) is
 * filled with that many payments (customers, accounts, quotes, transactions, journal
 * entries, events, webhook deliveries: through the store port on the memory store, cloned
 * set-wise in the database on PostgreSQL, SCALE_FILL=port for the port there too; events
 * and deliveries older than the retention period are left out of the SQL fill unless
 * SCALE_SQL_EVENTS=all, see bench/servers/scale-app.ts), then over loopback:
 * `POST /sandbox/snapshots` and `POST /sandbox/snapshots/{id}/restore`, each SAMPLES
 * times in turn, median and worst reported, with the machine's load average (figures
 * taken on a loaded machine are inflated; compare only figures of one run).
 *
 *   BENCH_STORES (default memory,postgres)
 *   BENCH_SNAPSHOT_PAYMENTS (default 10000)
 *   BENCH_SNAPSHOT_SAMPLES (default 5)
 */
import { loadavg } from "node:os"
import { cleanUp, isEnding } from "./cleanup.js"
import { startBenchCluster, type BenchCluster } from "./postgres.js"
import { benchMoneyPlatform } from "./servers/platform.js"
import { startScaleServer } from "./scale-server.js"

const STORES = ["memory", "postgres"] as const
type StoreName = typeof STORES[number]
const stores = STORES.filter((s) => (process.env["BENCH_STORES"] ?? STORES.join(",")).split(",").map((x) => x.trim()).includes(s))
const PAYMENTS = Number(process.env["BENCH_SNAPSHOT_PAYMENTS"] ?? "10000")
const SAMPLES = Number(process.env["BENCH_SNAPSHOT_SAMPLES"] ?? "5")

const PREFIX = "/2025-10-13"
const auth = `Basic ${Buffer.from(`${benchMoneyPlatform.clientId}:${benchMoneyPlatform.clientSecret}`).toString("base64")}`
const fmt = (n: number, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })

/** One request, timed; its JSON answer. */
const timedCall = async (port: number, method: string, path: string, body?: unknown): Promise<{ ms: number; json: Record<string, unknown> }> => {
  const began = performance.now()
  const res = await fetch(`http://127.0.0.1:${port}${PREFIX}${path}`, {
    method,
    headers: { authorization: auth, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await res.text()
  const ms = performance.now() - began
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${text}`)
  return { ms, json: text === "" ? {} : JSON.parse(text) as Record<string, unknown> }
}

const summary = (xs: ReadonlyArray<number>) => {
  const sorted = [...xs].sort((a, b) => a - b)
  return `median ${fmt(sorted[Math.floor(sorted.length / 2)]!)} ms, worst ${fmt(sorted[sorted.length - 1]!)} ms`
}

const runStore = async (store: StoreName, cluster: BenchCluster | undefined) => {
  const env = store === "postgres"
    ? { DATABASE_URL: await cluster!.database(`snapshots_${Date.now()}`), PAYMENTS_DATA_DIR: "" }
    : { DATABASE_URL: "", PAYMENTS_DATA_DIR: "" }
  const s = await startScaleServer(PAYMENTS, env)
  try {
    const { port, sample } = s.ready
    const takes: Array<number> = []
    const restores: Array<number> = []
    for (let i = 0; i < SAMPLES && !isEnding(); i++) {
      const taken = await timedCall(port, "POST", "/sandbox/snapshots", { name: `bench ${i}` })
      takes.push(taken.ms)
      // Something to undo: one more customer, gone again after the restore.
      await timedCall(port, "POST", "/customers", { customerType: "INDIVIDUAL", fullName: `Bench ${i}` })
      restores.push((await timedCall(port, "POST", `/sandbox/snapshots/${encodeURIComponent(String(taken.json["id"]))}/restore`)).ms)
      await timedCall(port, "DELETE", `/sandbox/snapshots/${encodeURIComponent(String(taken.json["id"]))}`)
    }
    // The restored platform still answers its stored rows.
    await timedCall(port, "GET", `/transactions/${encodeURIComponent(sample.transactionId)}`)
    console.log(`${store}: ${fmt(PAYMENTS)} payments (filled in ${fmt(s.ready.fillMillis / 1000, 1)} s), load ${fmt(loadavg()[0] ?? 0, 1)}`)
    console.log(`  snapshot: ${summary(takes)}`)
    console.log(`  restore:  ${summary(restores)}`)
  } finally {
    await s.stop()
  }
}

let failed = false
for (const store of stores) {
  if (isEnding()) break
  let cluster: BenchCluster | undefined
  try {
    if (store === "postgres") cluster = await startBenchCluster()
    await runStore(store, cluster)
  } catch (e) {
    failed = true
    console.error(`${store}: ${e instanceof Error ? e.message : String(e)}`)
  } finally {
    if (store === "postgres") await cluster?.stop()
  }
}
await cleanUp()
process.exit(failed ? 1 : 0)
