/**
 * `npm run bench:scale`: does a request cost the same with many payments stored?
 *
 * Per store and level, a fresh server child (bench/servers/scale-app.ts) is filled with
 * that many payments (customers, internal and external accounts, quotes, transactions,
 * journal entries, events, webhook deliveries: through the store port on the memory
 * store, cloned set-wise in the database on PostgreSQL and PGlite, SCALE_FILL=port for
 * the port there too), each level's clones read back through the API and the ledger
 * audit run after it, then measured over
 * loopback: quote + execute throughput and p99 (one funded payer per connection, half of
 * the stored payments are those payers' own history), one create, gets by id, and the
 * first page of the list endpoints. Every figure is printed beside the first level's, as
 * a ratio; the target is every ratio within 1.25.
 *
 *   BENCH_STORES (default memory,postgres,pglite)
 *   BENCH_SCALE_LEVELS: payments stored per level, the first is the base (every store), e.g. 1000,100000,1000000
 *   BENCH_SCALE_LEVELS_MEMORY / _POSTGRES / _PGLITE: one store's levels (defaults 1000,100000 / 1000,100000,1000000 /
 *     1000,100000: the port fills memory at ~400-1,600 payments/s and a payment takes ~7 KB of heap there with its six
 *     deliveries (1,000,000 needs BENCH_SCALE_HEAP_MB=12288); the SQL fill loads ~1,000-1,400 payments/s on 2 shared cores)
 *   SCALE_FILL=port: fill PostgreSQL and PGlite through the store port (~30-50 payments/s); SCALE_SQL_EVENTS=all: the SQL
 *     fill writes the events and deliveries older than the retention period too (the sweep then removes them)
 *   BENCH_SCALE_SECONDS (default 5): quote + execute load per level (after 2 s of warm-up); a later level's load runs
 *     in 5 windows alternating with the same load on the first level's server, and is judged against that
 *   BENCH_CONNECTIONS (default 10)
 *   BENCH_SCALE_SAMPLES (default 60), BENCH_SCALE_ROUNDS (default 4): single requests. Once the server is idle after the
 *     load, each request is sampled SAMPLES times, in ROUNDS rounds over every request, its CPU read around each sample
 *     (from /proc/<pid>/task/<tid>/schedstat, ./scale-cpu.ts: the server's threads and the PostgreSQL cluster's processes,
 *     nanoseconds, read from outside); the figure is the median (p90 beside it). A request's DB CPU (judged) is that of
 *     the backends connected to its server's own database (pg_stat_activity); the whole cluster's around the same samples
 *     is printed beside it, not judged, and the cluster's CPU by process (backend_type) in the idle window after the load
 *     and in the single requests' windows is printed per level. The money path's DB CPU per payment likewise (the whole
 *     cluster's, from /proc/<pid>/stat, beside it). The first level's server stays up and
 *     each later level's single requests are measured beside it, alternating sample by sample: their ratios are
 *     against those, so the machine's load falls on both alike.
 *   BENCH_PG_CLUSTER_SETTINGS=name=value,…: the throwaway cluster's own settings (postgresql.conf, so shared_buffers too),
 *     e.g. shared_buffers=2GB (docs/decisions.md, "The scale bench's PostgreSQL cluster"); default PostgreSQL's (128 MB)
 *   BENCH_SCALE_PG_SETTINGS=name=value,…: PostgreSQL settings of each level's database (ALTER DATABASE … SET before its
 *     server starts), to try one, e.g. plan_cache_mode=force_generic_plan (docs/performance.md, "The database's CPU per request, and the first pages' plans")
 *   BENCH_SCALE_HEAP_MB (default 8192): the server child's --max-old-space-size
 *   BENCH_SCALE_PROFILE=<dir>: each server child writes CPU profiles of its measurements (from the moment it is
 *     filled) there, one per phase: scale-<store>-<payments>-<load | singles | audit | load-beside-<level> | singles-beside-<level> | idle-after-<level>>.cpuprofile
 *   SCALE_BATCH (default 500): payments per unit of work while filling; SCALE_FILL_CONCURRENCY (default 1; above, lanes of disjoint payers, but the platform's own accounts are shared)
 */
import { mkdtempSync, readFileSync } from "node:fs"
import { cpus, loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { cleanUp, isEnding, trackDir } from "./cleanup.js"
import { askChild, cpuOf } from "./http.js"
import { type ClusterCpu, type ClusterMeter, clusterMeter, hasSchedstat, serverCpu } from "./scale-cpu.js"
import { type ScaleServer, startScaleServer } from "./scale-server.js"
import type { ScaleReady } from "./servers/scale-app.js"
import { run as moneyLoad } from "./money.js"
import { benchClusterSettings, startBenchCluster, type BenchCluster } from "./postgres.js"
import { benchMoneyPlatform } from "./servers/platform.js"

const STORES = ["memory", "postgres", "pglite"] as const
type StoreName = typeof STORES[number]
const levelsOf = (text: string | undefined, fallback: string) =>
  (text ?? fallback).split(",").map((s) => Number(s.trim().replace(/_/g, ""))).filter((n) => Number.isInteger(n) && n > 0)
/** Per store: BENCH_SCALE_LEVELS_<STORE>, else BENCH_SCALE_LEVELS, else defaults that fill in minutes on 2 shared cores. */
const DEFAULT_LEVELS: Record<StoreName, string> = { memory: "1000,100000", postgres: "1000,100000,1000000", pglite: "1000,100000" }
const levelsFor = (store: StoreName) =>
  levelsOf(process.env[`BENCH_SCALE_LEVELS_${store.toUpperCase()}`] ?? process.env["BENCH_SCALE_LEVELS"], DEFAULT_LEVELS[store])
/** The server child's heap limit (MB): the memory store keeps every payment in it (about 7 KB each with its events and deliveries, see docs/performance.md). */
const HEAP_MB = Number(process.env["BENCH_SCALE_HEAP_MB"] ?? "8192")
const SECONDS = Number(process.env["BENCH_SCALE_SECONDS"] ?? "5")
const CONNECTIONS = Number(process.env["BENCH_CONNECTIONS"] ?? "10")
const SAMPLES = Number(process.env["BENCH_SCALE_SAMPLES"] ?? "60")
const ROUNDS = Math.max(1, Number(process.env["BENCH_SCALE_ROUNDS"] ?? "4"))
/** After each single request's answer, before its CPU is read: what the server does after answering is its cost too. */
const TAIL_MS = 2
const stores = STORES.filter((s) => (process.env["BENCH_STORES"] ?? STORES.join(",")).split(",").map((x) => x.trim()).includes(s))
const TARGET = 1.25
/** BENCH_SCALE_PG_SETTINGS=name=value,…: set on each level's PostgreSQL database before its server starts (e.g. plan_cache_mode=force_generic_plan). */
const PG_SETTINGS: ReadonlyArray<readonly [string, string]> = (process.env["BENCH_SCALE_PG_SETTINGS"] ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "").map((s) => {
  const m = /^([a-z_][a-z0-9_.]*)=([A-Za-z0-9_.-]+)$/.exec(s)
  if (m === null) throw new Error(`BENCH_SCALE_PG_SETTINGS: "${s}" is not name=value`)
  return [m[1]!, m[2]!] as const
})

const PREFIX = "/2025-10-13"
const auth = `Basic ${Buffer.from(`${benchMoneyPlatform.clientId}:${benchMoneyPlatform.clientSecret}`).toString("base64")}`
const fmt = (n: number, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })

/** BENCH_SCALE_PROFILE=<dir>: each child profiles its measurements (not its fill) into <dir> (scale-app.ts, SCALE_PROFILE_DIR). */
const profileEnv = (): Record<string, string> =>
  process.env["BENCH_SCALE_PROFILE"] === undefined ? {} : { SCALE_PROFILE_DIR: process.env["BENCH_SCALE_PROFILE"] }

const request = async (port: number, method: string, path: string, body?: string): Promise<number> => {
  const began = performance.now()
  const res = await fetch(`http://127.0.0.1:${port}${PREFIX}${path}`, {
    method,
    headers: { authorization: auth, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body })
  })
  await res.arrayBuffer()
  const ms = performance.now() - began
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}`)
  return ms
}

let createSeq = 0

const getJson = async (port: number, path: string): Promise<{ status: number; body: Record<string, unknown> }> => {
  const res = await fetch(`http://127.0.0.1:${port}${PREFIX}${path}`, { headers: { authorization: auth } })
  const text = await res.text()
  let body: Record<string, unknown> = {}
  try {
    body = JSON.parse(text) as Record<string, unknown>
  } catch {
    body = { text }
  }
  return { status: res.status, body }
}

/**
 * The filled rows read back through the API (a clone's transaction, quote, customer and
 * its account's journal: each must answer 200 with the clone's own ids), and the ledger
 * audit over the whole store (GET /sandbox/ledger/audit: entries balance, currencies sum
 * to zero, balances equal their postings, holds reconcile; past its bounds the checks
 * over the journal answer NOT_CHECKED). Returns a one-line verdict; throws when a read fails.
 */
const verifyFill = async (s: ScaleServer): Promise<string> => {
  const { port, sample, pairs } = s.ready
  const tx = await getJson(port, `/transactions/${encodeURIComponent(sample.transactionId)}`)
  const problems: Array<string> = []
  if (tx.status !== 200 || tx.body["id"] !== sample.transactionId || tx.body["status"] !== "COMPLETED" || tx.body["customerId"] !== sample.customerId) {
    problems.push(`GET /transactions/{clone} answered ${tx.status} ${JSON.stringify(tx.body).slice(0, 300)}`)
  }
  const quote = await getJson(port, `/quotes/${encodeURIComponent(sample.quoteId)}`)
  if (quote.status !== 200 || quote.body["id"] !== sample.quoteId) problems.push(`GET /quotes/{clone} answered ${quote.status} ${JSON.stringify(quote.body).slice(0, 300)}`)
  const customer = await getJson(port, `/customers/${encodeURIComponent(sample.customerId)}`)
  if (customer.status !== 200 || customer.body["id"] !== sample.customerId) problems.push(`GET /customers/{clone} answered ${customer.status}`)
  const journal = await getJson(port, `/sandbox/internal-accounts/${encodeURIComponent(pairs[0]!.source)}/journal?limit=5`)
  if (journal.status !== 200 || !Array.isArray(journal.body["data"]) || journal.body["data"].length === 0) problems.push(`GET journal of a clone's account answered ${journal.status} ${JSON.stringify(journal.body).slice(0, 300)}`)
  if (problems.length > 0) throw new Error(`the filled rows do not read back:\n  ${problems.join("\n  ")}`)
  const began = performance.now()
  const audit = await getJson(port, "/sandbox/ledger/audit")
  const ms = performance.now() - began
  if (audit.status !== 200) return `ledger audit answered ${audit.status}`
  const checks = (audit.body["checks"] as ReadonlyArray<{ name: string; status: string; problemCount: number; problems: ReadonlyArray<{ message: string }> }>)
  const failed = checks.filter((c) => c.status === "FAILED")
  return `ledger audit ${String(audit.body["verdict"])} in ${fmt(ms / 1000, 1)} s (${checks.map((c) => `${c.name} ${c.status}`).join(", ")})` +
    (failed.length === 0 ? "" : `: ${failed.map((c) => `${c.name} ${c.problemCount} problems, e.g. ${c.problems[0]?.message}`).join("; ")}`)
}

interface Figure {
  readonly name: string
  /** Bigger is better (throughput) or smaller is better (latency): the ratio is oriented so > 1 is worse. */
  readonly value: number
  readonly unit: string
  readonly higherIsBetter: boolean
  /** CPU time per request: judged (it drifts far less than latency on a shared machine). */
  readonly cpu?: boolean
  /** The first level's value measured side by side with this one (single requests): the ratio's base. */
  readonly base?: number
}

interface LoadTotals {
  seconds: number
  requests: number
  cpuMicros: number
  /** The whole cluster's CPU (every process under the postmaster, reaped ones too; /proc/<pid>/stat, clock ticks). */
  dbMicros: number | undefined
  /** The CPU of the backends connected to the server's own database (./scale-cpu.ts, `clusterMeter`). */
  appDbMicros: number | undefined
  non2xx: number
  errors: number
  p99: number
}

/** Windows of quote + execute load per server when two are measured side by side (`measureLoad`). */
const LOAD_WINDOWS = 5

/**
 * Quote + execute under load (the first measurement of a level: its writes are then part
 * of what the reads see), after 2 s of warm-up. One server: one window of
 * `BENCH_SCALE_SECONDS`. Two (the first level's server and the one being measured): the
 * same seconds each, in `LOAD_WINDOWS` windows alternating between them, so the machine's
 * drift over the minutes falls on both alike; the totals of each server's windows give
 * its payments/s and CPU per payment, its p99 is its worst window's. Returns each
 * server's figures, the later one's with the first's beside it (`base`).
 */
const measureLoad = async (
  servers: ReadonlyArray<ScaleServer>,
  databases: ReadonlyArray<string | undefined>,
  dbCpu: (() => Promise<number>) | undefined,
  db: ClusterMeter | undefined
): Promise<Array<Figure>> => {
  const loadPairs = (s: ScaleServer) => s.ready.pairs.slice(0, CONNECTIONS)
  for (const s of servers) await moneyLoad(s.ready.port, loadPairs(s), 2, CONNECTIONS)
  const totals: Array<LoadTotals> = servers.map((_, k) => ({
    seconds: 0,
    requests: 0,
    cpuMicros: 0,
    dbMicros: dbCpu === undefined ? undefined : 0,
    appDbMicros: db === undefined || databases[k] === undefined ? undefined : 0,
    non2xx: 0,
    errors: 0,
    p99: 0
  }))
  const windows = servers.length === 1 ? 1 : LOAD_WINDOWS
  for (let w = 0; w < windows; w++) {
    const order = w % 2 === 0 ? servers.map((_, k) => k) : servers.map((_, k) => servers.length - 1 - k)
    for (const k of order) {
      const s = servers[k]!
      const t = totals[k]!
      await db?.refresh()
      const cpu0 = await cpuOf(s.child)
      const db0 = await dbCpu?.()
      const app0 = db?.snapshot()
      const m = await moneyLoad(s.ready.port, loadPairs(s), SECONDS / windows, CONNECTIONS)
      const app1 = db?.snapshot()
      const db1 = await dbCpu?.()
      t.cpuMicros += (await cpuOf(s.child)) - cpu0
      if (t.dbMicros !== undefined && db0 !== undefined && db1 !== undefined) t.dbMicros += db1 - db0
      if (t.appDbMicros !== undefined && app0 !== undefined && app1 !== undefined) t.appDbMicros += db!.between(app0, app1).byDatabase.get(databases[k]!) ?? 0
      t.seconds += SECONDS / windows
      t.requests += m.requests
      t.non2xx += m.non2xx
      t.errors += m.errors
      t.p99 = Math.max(t.p99, m.p99)
    }
  }
  const figuresOf = (t: LoadTotals): Array<Figure> => {
    const payments = Math.max(1, t.requests / 2)
    const out: Array<Figure> = [
      { name: "quote+execute payments/s", value: t.requests / 2 / t.seconds, unit: "/s", higherIsBetter: true },
      { name: "quote+execute p99 per request", value: t.p99, unit: "ms", higherIsBetter: false },
      { name: "quote+execute server CPU per payment", value: t.cpuMicros / payments / 1000, unit: "ms", higherIsBetter: false, cpu: true }
    ]
    // Judged: the CPU of the backends serving the server's own connections. The whole
    // cluster's (its background and the other level's idle connections included) is shown, not judged.
    if (t.appDbMicros !== undefined) out.push({ name: "quote+execute DB CPU per payment", value: t.appDbMicros / payments / 1000, unit: "ms", higherIsBetter: false, cpu: true })
    if (t.dbMicros !== undefined) out.push({ name: "quote+execute DB CPU per payment, whole cluster (not judged)", value: t.dbMicros / payments / 1000, unit: "ms", higherIsBetter: false })
    out.push({ name: "quote+execute non-2xx", value: t.non2xx, unit: "", higherIsBetter: false })
    return out
  }
  const own = totals[totals.length - 1]!
  if (own.non2xx > 0 || own.errors > 0) console.log(`  quote+execute: ${own.non2xx} non-2xx, ${own.errors} errors`)
  const figures = figuresOf(own)
  if (servers.length === 1) return figures
  const base = figuresOf(totals[0]!)
  return figures.map((f) => {
    const b = base.find((g) => g.name === f.name)
    return b === undefined || f.unit === "" ? f : { ...f, base: b.value }
  })
}

/** The single requests measured at each level, for one server (ids of its own fill). */
const singlesOf = (s: ScaleServer): ReadonlyArray<readonly [string, (i: number) => Promise<number>]> => {
  const { port, pairs, sample } = s.ready
  const customer = encodeURIComponent(sample.customerId)
  return [
    ["POST /customers/external-accounts", (i) =>
      request(port, "POST", "/customers/external-accounts", JSON.stringify({
        customerId: sample.customerId,
        currency: "USD",
        platformAccountId: `scale-create-${i}-${createSeq++}`,
        accountInfo: {
          accountType: "USD_ACCOUNT",
          accountNumber: `${200000000 + createSeq}0`,
          routingNumber: "021000021",
          bankAccountType: "CHECKING",
          bankName: "Bench Bank",
          beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Ada Lovelace", birthDate: "1990-01-31", nationality: "GB" }
        }
      }))],
    ["GET /transactions/{id}", () => request(port, "GET", `/transactions/${encodeURIComponent(sample.transactionId)}`)],
    ["GET /customers/{id}", () => request(port, "GET", `/customers/${customer}`)],
    ["GET /customers/external-accounts/{id}", () => request(port, "GET", `/customers/external-accounts/${encodeURIComponent(sample.externalAccountId)}`)],
    ["GET /quotes/{id}", () => request(port, "GET", `/quotes/${encodeURIComponent(sample.quoteId)}`)],
    ...([
      ["/transactions?limit=20", "/transactions?limit=20"],
      ["/transactions?limit=20&type=OUTGOING", "/transactions?limit=20&type=OUTGOING"],
      ["/transactions?limit=20&customerId={payer}", `/transactions?limit=20&customerId=${customer}`],
      ["/transactions?limit=20&customerId={payer}&type=OUTGOING", `/transactions?limit=20&customerId=${customer}&type=OUTGOING`],
      ["/transactions?limit=20&status=COMPLETED", "/transactions?limit=20&status=COMPLETED"],
      ["/transactions?limit=20&senderAccountIdentifier={hot account}", `/transactions?limit=20&senderAccountIdentifier=${encodeURIComponent(pairs[0]!.source)}`],
      ["/customers?limit=20", "/customers?limit=20"],
      ["/customers/external-accounts?limit=20", "/customers/external-accounts?limit=20"],
      ["/customers/external-accounts?limit=20&customerId={payer}", `/customers/external-accounts?limit=20&customerId=${customer}`],
      ["/customers/internal-accounts?limit=20", "/customers/internal-accounts?limit=20"],
      ["/customers/internal-accounts?limit=20&customerId={payer}", `/customers/internal-accounts?limit=20&customerId=${customer}`],
      ["/platform/internal-accounts?limit=20", "/platform/internal-accounts?limit=20"],
      ["/platform/external-accounts?limit=20", "/platform/external-accounts?limit=20"],
      ["/cards?limit=20", "/cards?limit=20"],
      ["/sandbox/webhooks/deliveries?limit=20", "/sandbox/webhooks/deliveries?limit=20"],
      ["/agents?limit=20", "/agents?limit=20"],
      ["/documents?limit=20", "/documents?limit=20"],
      ["/verifications?limit=20", "/verifications?limit=20"]
    ] as const).map(([name, p]) => [`GET ${name}`, () => request(port, "GET", p)] as const)
  ]
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** The idle window after the load in which the server's and the cluster's background CPU is read. */
const IDLE_SECONDS = 2

/**
 * Waits until the server is idle after the load (its scheduler applying the moves the
 * payments scheduled, webhook passes): until a half second passes in which it runs under
 * 1% of a core (10% with BENCH_SCALE_PROFILE: the sampling profiler alone takes a few
 * percent), 30 s at most. Then its background CPU over 2 idle seconds (the
 * scheduler's and webhook worker's ticks; the database's too), per second.
 */
const settle = async (s: ScaleServer, db: ClusterMeter | undefined): Promise<{ waitedSeconds: number; idle: number; idleDb: ClusterCpu | undefined }> => {
  const cpu = serverCpu(s.child)
  const began = performance.now()
  for (;;) {
    const c0 = await cpu.begin()
    await sleep(500)
    const used = await cpu.end(c0)
    if (used < (process.env["BENCH_SCALE_PROFILE"] === undefined ? 5_000 : 50_000) || performance.now() - began > 30_000) break
  }
  const waitedSeconds = (performance.now() - began) / 1000
  await db?.refresh()
  const c0 = await cpu.begin()
  const d0 = db?.snapshot()
  await sleep(IDLE_SECONDS * 1000)
  const idle = (await cpu.end(c0)) / IDLE_SECONDS
  const idleDb = db === undefined || d0 === undefined ? undefined : db.between(d0, db.snapshot())
  return { waitedSeconds, idle, idleDb }
}

interface Samples {
  readonly cpu: Array<number>
  /** The CPU of the backends connected to the server's own database, around each sample. */
  readonly db: Array<number>
  /** The whole cluster's, around the same samples (the app's backends, the cluster's background, the other server's idle backends). */
  readonly dbCluster: Array<number>
  readonly ms: Array<number>
}

/** One server's single-request samples, and the cluster's CPU in their windows by process (`ClusterCpu.byLabel`, summed). */
interface SinglesOf {
  readonly samples: Map<string, Samples>
  readonly dbByLabel: Map<string, number>
  /** Recorded samples with a DB reading. */
  dbWindows: number
}

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const p90 = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)]!

/**
 * Each single request on each of `servers` (one: a level alone; two: the first level and
 * the one being measured, side by side), `SAMPLES` times: in `ROUNDS` rounds, each round
 * going through every request (starting one further each round), and for each request
 * alternating between the servers sample by sample, so that what the machine does
 * meanwhile falls on both alike. Each sample's CPU is read around that one request (from
 * outside the server where the machine allows, ./scale-cpu.ts, and `TAIL_MS` after the
 * answer, so work the server finishes after answering is counted): the figure is the
 * median of the samples, so a scheduler tick or a collection that lands in a few of them
 * does not move it, and the p90 is shown beside it. Every sample is kept.
 */
const measureSingles = async (
  servers: ReadonlyArray<ScaleServer>,
  databases: ReadonlyArray<string | undefined>,
  db: ClusterMeter | undefined
): Promise<Array<SinglesOf>> => {
  const lists = servers.map(singlesOf)
  const cpus = servers.map((s) => serverCpu(s.child))
  const all: Array<SinglesOf> = servers.map(() => ({ samples: new Map<string, Samples>(), dbByLabel: new Map<string, number>(), dbWindows: 0 }))
  const out = all.map((x) => x.samples)
  const failed = servers.map(() => new Set<string>())
  const names = lists[0]!.map(([name]) => name)
  const one = async (k: number, index: number, i: number, record: boolean) => {
    const name = names[index]!
    if (failed[k]!.has(name)) return
    const make = lists[k]![index]![1]
    try {
      const c0 = await cpus[k]!.begin()
      const d0 = db?.snapshot()
      const ms = await make(i)
      await sleep(TAIL_MS)
      const c = await cpus[k]!.end(c0)
      const d = db === undefined || d0 === undefined ? undefined : db.between(d0, db.snapshot())
      if (!record) return
      let samples = out[k]!.get(name)
      if (samples === undefined) out[k]!.set(name, samples = { cpu: [], db: [], dbCluster: [], ms: [] })
      samples.cpu.push(c)
      const database = databases[k]
      if (d !== undefined && database !== undefined) {
        samples.db.push(d.byDatabase.get(database) ?? 0)
        samples.dbCluster.push(d.total)
        all[k]!.dbWindows++
        for (const [label, us] of d.byLabel) {
          const key = label.startsWith("client backend ") && label.includes(` ${database} `) ? "client backends of this server's database" : label
          all[k]!.dbByLabel.set(key, (all[k]!.dbByLabel.get(key) ?? 0) + us)
        }
      }
      samples.ms.push(ms)
    } catch (e) {
      failed[k]!.add(name)
      out[k]!.delete(name)
      console.log(`  ${name}: ${e instanceof Error ? e.message : String(e)}`)
    }
  }
  for (let index = 0; index < names.length; index++) {
    for (let k = 0; k < servers.length; k++) for (let w = 0; w < 5; w++) await one(k, index, -1 - w, false)
  }
  const perRound = Math.ceil(SAMPLES / ROUNDS)
  let n = 0
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of cpus) c.refresh()
    await db?.refresh()
    for (let j = 0; j < names.length; j++) {
      const index = (j + round * Math.ceil(names.length / ROUNDS)) % names.length
      for (let r = 0; r < perRound && round * perRound + r < SAMPLES; r++) {
        const order = r % 2 === 0 ? servers.map((_, k) => k) : servers.map((_, k) => servers.length - 1 - k)
        for (const k of order) await one(k, index, n++, true)
      }
    }
  }
  return all
}

/** The single-request figures of one server's samples; `base`: the first level's samples taken beside them. */
const singleFigures = (samples: Map<string, Samples>, base: Map<string, Samples> | undefined): Array<Figure> => {
  const figures: Array<Figure> = []
  for (const [name, x] of samples) {
    const b = base?.get(name)
    const paired = (f: (s: Samples) => number | undefined) => b === undefined ? {} : f(b) === undefined ? {} : { base: f(b)! }
    figures.push({ name: `${name} server CPU`, value: median(x.cpu) / 1000, unit: "ms", higherIsBetter: false, cpu: true, ...paired((s) => median(s.cpu) / 1000) })
    if (x.db.length > 0) {
      // Judged: the backends serving this server's connections. The whole cluster's around the same samples: shown, not judged.
      figures.push({ name: `${name} DB CPU`, value: median(x.db) / 1000, unit: "ms", higherIsBetter: false, cpu: true, ...paired((s) => s.db.length > 0 ? median(s.db) / 1000 : undefined) })
      figures.push({
        name: `${name} DB CPU, whole cluster (not judged)`,
        value: median(x.dbCluster) / 1000,
        unit: "ms",
        higherIsBetter: false,
        ...paired((s) => s.dbCluster.length > 0 ? median(s.dbCluster) / 1000 : undefined)
      })
    }
    figures.push({ name: `${name} server CPU p90`, value: p90(x.cpu) / 1000, unit: "ms", higherIsBetter: false, ...paired((s) => p90(s.cpu) / 1000) })
    figures.push({ name: `${name} median`, value: median(x.ms), unit: "ms", higherIsBetter: false, ...paired((s) => median(s.ms)) })
    figures.push({ name: `${name} p90`, value: p90(x.ms), unit: "ms", higherIsBetter: false, ...paired((s) => p90(s.ms)) })
  }
  return figures
}

/** A full collection in the child (two `gc()`s: scale-app.ts, "heap"), and its heap after it. */
const heapOf = (s: ScaleServer): Promise<number> =>
  askChild(s.child, "heap", (m) => (typeof m === "object" && m !== null && "heapUsed" in m && typeof m.heapUsed === "number" ? m.heapUsed : undefined))

/** BENCH_SCALE_PROFILE: the child writes the profile of what it did since the last phase, and starts the next (scale-app.ts). */
const profilePhase = (s: ScaleServer, phase: string): Promise<void> =>
  process.env["BENCH_SCALE_PROFILE"] === undefined || !s.child.connected
    ? Promise.resolve()
    : new Promise((resolve) => {
      const onMessage = (m: unknown) => {
        if (typeof m === "object" && m !== null && "profilePhaseDone" in m) {
          s.child.off("message", onMessage)
          resolve()
        }
      }
      s.child.on("message", onMessage)
      s.child.send({ profilePhase: phase })
    })

/**
 * The PostgreSQL cluster's processes (the postmaster, from its data directory's
 * postmaster.pid, and every process under it, each named by pg_stat_activity), for
 * per-request DB CPU: the app's backends apart from the rest (./scale-cpu.ts).
 */
const openClusterMeter = async (cluster: BenchCluster): Promise<ClusterMeter | undefined> => {
  if (!hasSchedstat) return undefined
  const [row] = await cluster.query<{ setting: string }>(cluster.adminUrl, "select setting from pg_settings where name = 'data_directory'")
  const postmaster = row === undefined ? Number.NaN : Number(readFileSync(join(row.setting, "postmaster.pid"), "utf8").split("\n")[0])
  if (!Number.isInteger(postmaster)) {
    console.log("  (the PostgreSQL postmaster was not found: no per-request DB CPU)")
    return undefined
  }
  return clusterMeter(postmaster, () =>
    cluster.query<{ pid: number; backend_type: string | null; datname: string | null; application_name: string | null }>(
      cluster.adminUrl,
      "select pid, backend_type, datname, application_name from pg_stat_activity"
    ))
}

interface LevelResult {
  readonly payments: number
  readonly fillSeconds: number
  readonly heapBytesPerPayment: number | undefined
  readonly heapBytesPerPaymentAfterRetention: number | undefined
  readonly swept: ScaleReady["swept"]
  readonly sweepMillis: number
  readonly heapBytes: number | undefined
  /** The server's heap after the load, after the full collection made before the single requests. */
  readonly heapAfterLoad: number
  /** The machine's 1-minute load average when the level was measured. */
  readonly load: number
  /** How long the server took to go idle after the load, before the single requests. */
  readonly settledSeconds: number
  readonly figures: ReadonlyArray<Figure>
  /** PostgreSQL: the cluster's CPU per second in the idle window after the load, by process (`labelOf`). */
  readonly dbIdleByLabel: ReadonlyMap<string, number> | undefined
  /** PostgreSQL: the cluster's CPU in this level's single-request windows, mean per sample, by process. */
  readonly dbSinglesByLabel: ReadonlyMap<string, number> | undefined
  /** The fill read back through the API and the ledger audit's verdict. */
  readonly verified: string
}

interface Started {
  readonly server: ScaleServer
  readonly removeDir: (() => Promise<void>) | undefined
  /** PostgreSQL: the server's own database (its backends are the ones whose CPU is its DB CPU). */
  readonly database: string | undefined
}

const startLevel = async (store: StoreName, cluster: BenchCluster | undefined, level: number): Promise<Started | undefined> => {
  let env: Record<string, string> = { DATABASE_URL: "", PAYMENTS_DATA_DIR: "", ...profileEnv() }
  let removeDir: (() => Promise<void>) | undefined
  const database = store === "postgres" ? `scale_${level}_${Date.now()}` : undefined
  if (database !== undefined) {
    env = { ...env, DATABASE_URL: await cluster!.database(database) }
    // BENCH_SCALE_PG_SETTINGS: settings of the level's database (its sessions' defaults), an experiment's knob.
    for (const [name, value] of PG_SETTINGS) await cluster!.query(cluster!.adminUrl, `alter database ${database} set ${name} = '${value}'`)
  }
  if (store === "pglite") {
    const dir = mkdtempSync(join(tmpdir(), "payments-bench-scale-"))
    removeDir = trackDir(dir)
    env = { ...env, PAYMENTS_DATA_DIR: dir }
  }
  process.stderr.write(`${store}: filling ${fmt(level)} payments…\n`)
  try {
    return { server: await startScaleServer(level, env, ["--expose-gc", `--max-old-space-size=${HEAP_MB}`]), removeDir, database }
  } catch (e) {
    // A level that cannot be filled (the heap limit, on the memory store) ends the store's levels; the ones measured are printed.
    console.log(`${store} at ${fmt(level)} payments: ${e instanceof Error ? e.message : String(e)}`)
    await removeDir?.()
    return undefined
  }
}

const stopLevel = async (started: Started) => {
  await started.server.stop()
  await started.removeDir?.()
}

/**
 * Every level of one store. The first level's server stays up while the others are
 * filled and measured: each later level's single requests are measured side by side with
 * it (`measureSingles`), and their ratios are taken against those.
 */
const runStore = async (store: StoreName, cluster: BenchCluster | undefined): Promise<Array<LevelResult>> => {
  const out: Array<LevelResult> = []
  const db = cluster === undefined ? undefined : await openClusterMeter(cluster)
  let first: Started | undefined
  try {
    for (const level of levelsFor(store)) {
      if (isEnding()) break
      const started = await startLevel(store, cluster, level)
      if (started === undefined) break
      const s = started.server
      try {
        process.stderr.write(`${store}: filled ${fmt(level)} in ${fmt(s.ready.fillMillis / 1000, 1)} s; measuring\n`)
        const load = loadavg()[0] ?? 0
        if (first !== undefined) await profilePhase(first.server, `load-beside-${level}`)
        const pair = first === undefined ? [started] : [first, started]
        const figures = await measureLoad(pair.map((x) => x.server), pair.map((x) => x.database), cluster?.cpuMicros, db)
        await profilePhase(s, "singles")
        // A full collection first (the child runs with --expose-gc): the load's garbage is
        // collected now, not by a major collection that would land in the idle window or
        // in some of the samples, more of it after a faster load.
        const heapAfterLoad = await heapOf(s)
        const settled = await settle(s, db)
        figures.push({ name: "server background CPU per second, idle", value: settled.idle / 1000, unit: "ms", higherIsBetter: false })
        const idleDb = settled.idleDb
        if (idleDb !== undefined) {
          figures.push({ name: "DB background CPU per second, idle, whole cluster", value: idleDb.total / IDLE_SECONDS / 1000, unit: "ms", higherIsBetter: false })
          figures.push({
            name: "DB CPU per second, idle, this server's backends",
            value: (started.database === undefined ? 0 : idleDb.byDatabase.get(started.database) ?? 0) / IDLE_SECONDS / 1000,
            unit: "ms",
            higherIsBetter: false
          })
        }
        let singles: SinglesOf
        if (first === undefined) {
          const [own] = await measureSingles([s], [started.database], db)
          singles = own!
          figures.push(...singleFigures(own!.samples, undefined))
        } else {
          await profilePhase(first.server, `singles-beside-${level}`)
          await heapOf(first.server)
          const [base, own] = await measureSingles([first.server, s], [first.database, started.database], db)
          await profilePhase(first.server, `idle-after-${level}`)
          singles = own!
          figures.push(...singleFigures(own!.samples, base!.samples))
        }
        await profilePhase(s, "audit")
        const verified = await verifyFill(s)
        process.stderr.write(`${store} at ${fmt(level)}: ${verified}\n`)
        out.push({
          payments: level,
          fillSeconds: s.ready.fillMillis / 1000,
          heapBytesPerPayment: s.ready.heapBytesPerPayment,
          heapBytesPerPaymentAfterRetention: s.ready.heapBytesPerPaymentAfterRetention,
          swept: s.ready.swept,
          sweepMillis: s.ready.sweepMillis,
          heapAfterLoad,
          heapBytes: s.ready.heapBytes,
          load,
          settledSeconds: settled.waitedSeconds,
          figures,
          dbIdleByLabel: idleDb === undefined ? undefined : new Map([...idleDb.byLabel].map(([label, us]) => [label, us / IDLE_SECONDS])),
          dbSinglesByLabel: singles.dbWindows === 0 ? undefined : new Map([...singles.dbByLabel].map(([label, us]) => [label, us / singles.dbWindows])),
          verified
        })
      } catch (e) {
        await stopLevel(started)
        throw e
      }
      if (first === undefined) first = started
      else await stopLevel(started)
    }
  } finally {
    if (first !== undefined) await stopLevel(first)
  }
  return out
}

const print = (store: StoreName, levels: ReadonlyArray<LevelResult>) => {
  const base = levels[0]
  if (base === undefined) return
  console.log(`## ${store}: ${levels.map((l) => fmt(l.payments)).join(" / ")} payments stored`)
  console.log(`fill (${store !== "memory" && (process.env["SCALE_FILL"] ?? "sql") === "sql" ? "set-wise in the database" : "through the store port"}): ${levels.map((l) => `${fmt(l.payments)} in ${fmt(l.fillSeconds, 1)} s`).join(", ")}`)
  for (const l of levels) console.log(`at ${fmt(l.payments)}: clones read back through the API; ${l.verified}`)
  const clusterSettings = Object.entries(benchClusterSettings())
  if (store === "postgres") console.log(`the cluster's settings (BENCH_PG_CLUSTER_SETTINGS): ${clusterSettings.length === 0 ? "PostgreSQL's defaults (shared_buffers 128 MB)" : clusterSettings.map(([n, v]) => `${n} = ${v}`).join(", ")}`)
  if (store === "postgres" && PG_SETTINGS.length > 0) console.log(`each level's database set (BENCH_SCALE_PG_SETTINGS): ${PG_SETTINGS.map(([n, v]) => `${n} = ${v}`).join(", ")}`)
  console.log(`machine load average (1 min) when measured: ${levels.map((l) => fmt(l.load, 1)).join(" / ")} on ${cpus().length} cores`)
  console.log(`server idle after the load in: ${levels.map((l) => `${fmt(l.settledSeconds, 1)} s`).join(" / ")}; single requests: ${SAMPLES} samples each in ${ROUNDS} interleaved rounds, ` +
    `CPU ${hasSchedstat ? "read from /proc/<pid>/task/*/schedstat around each request" : "asked over IPC around each request"}, median (p90 beside it)` +
    (levels.length > 1 ? `; each later level's against the ${fmt(base.payments)} level measured beside it, sample by sample` : ""))
  console.log(`retention sweep after the fill: ${levels.map((l) => `${fmt(l.sweepMillis / 1000, 1)} s`).join(" / ")}; server heap then (after a full GC): ${
    levels.map((l) => l.heapBytes === undefined ? "—" : `${fmt(l.heapBytes / 1048576)} MB`).join(" / ")}; after the load: ${levels.map((l) => `${fmt(l.heapAfterLoad / 1048576)} MB`).join(" / ")}`)
  if (store === "memory") {
    const bytes = (b: number | undefined) => b === undefined ? "—" : `${fmt(b)} B`
    console.log(`heap per stored payment (after full GC), everything kept: ${levels.map((l) => bytes(l.heapBytesPerPayment)).join(" / ")}`)
    console.log(`heap per stored payment after the retention sweep (7 days; payments spread over 30 days): ${levels.map((l) => bytes(l.heapBytesPerPaymentAfterRetention)).join(" / ")}` +
      ` (swept ${levels.map((l) => `${fmt(l.swept.deliveries)} deliveries and ${fmt(l.swept.events)} events`).join(" / ")})`)
  }
  const byLabel = (m: ReadonlyMap<string, number>, unit: string) =>
    [...m].filter(([, us]) => us >= 0.5).sort((a, b) => b[1] - a[1]).map(([label, us]) => `${label} ${fmt(us / 1000, 3)} ${unit}`).join(", ")
  for (const l of levels) {
    if (l.dbIdleByLabel !== undefined) console.log(`at ${fmt(l.payments)}: DB CPU per second idle after the load, by process: ${byLabel(l.dbIdleByLabel, "ms/s")}`)
    if (l.dbSinglesByLabel !== undefined) console.log(`at ${fmt(l.payments)}: DB CPU in its single-request windows, mean per sample, by process: ${byLabel(l.dbSinglesByLabel, "ms")}`)
  }
  if (levels.some((l) => l.dbSinglesByLabel !== undefined)) {
    console.log("DB CPU (judged) is the CPU of the backends connected to the server's own database (pg_stat_activity, /proc/<pid>/schedstat); the whole cluster's is shown beside it, not judged")
  }
  console.log(`| figure | ${levels.map((l) => fmt(l.payments)).join(" | ")} | ${levels.slice(1).map((l) => `ratio at ${fmt(l.payments)}`).join(" | ")} |`)
  console.log(`|---|${levels.map(() => "---").join("|")}|${levels.slice(1).map(() => "---").join("|")}|`)
  let worst = 0
  let worstLatency = 0
  for (const f of base.figures) {
    const at = levels.map((l) => l.figures.find((g) => g.name === f.name))
    const values = at.map((g) => g?.value)
    // A later level's single requests are judged against the first level measured beside them (`base`).
    const baseOf = (i: number) => at[i + 1]?.base ?? f.value
    const ratios = values.slice(1).map((v, i) => v === undefined || v === 0 || baseOf(i) === 0 ? undefined : f.higherIsBetter ? baseOf(i) / v : v / baseOf(i))
    // Judged: throughput and CPU per request (CPU under 0.1 ms counted as 0.1 ms). Latency
    // medians are shown and their worst ratio reported apart (1 ms floor): on a shared
    // machine they move with the neighbours' load more than with the data. Without
    // schedstat the cluster's CPU is read in clock ticks (10 ms steps), so DB CPU then gets a 1 ms floor.
    const floor = f.cpu === true ? (f.name.includes("DB CPU") && !hasSchedstat ? 1 : 0.1) : 1
    const judged = values.slice(1).map((v, i) => v === undefined ? undefined : f.higherIsBetter ? baseOf(i) / v : Math.max(v, floor) / Math.max(baseOf(i), floor))
    const isJudged = f.cpu === true || f.higherIsBetter
    for (const r of judged) {
      if (r === undefined) continue
      if (isJudged) worst = Math.max(worst, r)
      else if (f.name.endsWith("median")) worstLatency = Math.max(worstLatency, r)
    }
    if (f.unit === "") {
      console.log(`| ${f.name} | ${values.map((v) => v === undefined ? "—" : fmt(v)).join(" | ")} | ${values.slice(1).map(() => "").join(" | ")} |`)
      continue
    }
    const cell = (g: Figure | undefined) =>
      g === undefined ? "—" : `${fmt(g.value, g.unit === "/s" ? 0 : 2)} ${g.unit}${g.base === undefined ? "" : ` (${fmt(base.payments)} beside it: ${fmt(g.base, g.unit === "/s" ? 0 : 2)})`}`
    console.log(`| ${f.name} | ${at.map(cell).join(" | ")} | ${
      ratios.map((r, i) => r === undefined ? "—" : `${fmt(r, 2)}${isJudged && (judged[i] ?? 0) > TARGET ? " ✗" : ""}`).join(" | ")
    } |`)
  }
  console.log(`worst latency-median ratio (1 ms floor, not judged): ${fmt(worstLatency, 2)}`)
  console.log(`worst judged ratio (throughput and CPU per request): ${fmt(worst, 2)} (target ≤ ${TARGET})\n`)
}

let failed = false
try {
  let cluster: BenchCluster | undefined
  for (const store of stores) {
    if (isEnding()) break
    try {
      if (store === "postgres") cluster = await startBenchCluster()
      print(store, await runStore(store, cluster))
    } catch (e) {
      failed = true
      console.log(`${store} FAILED: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`)
    } finally {
      if (store === "postgres") await cluster?.stop()
    }
  }
} finally {
  await cleanUp()
}
// Done: leave even if a client's keep-alive socket or timer would hold the loop open.
process.exit(failed ? 1 : 0)
