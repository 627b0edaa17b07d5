/**
 * `npm run bench`: every number is reported beside a baseline measured in the same
 * run, as a ratio. Nothing here passes or fails on absolute time.
 *   BENCH_STORES (default memory,pglite,postgres): the stores whose HTTP pair runs
 *   BENCH_SECONDS (default 10): measured load per HTTP server (3 rounds; plus 3 s warm-up)
 *   BENCH_CONNECTIONS (default 10): concurrent connections
 *   BENCH_ACCOUNTS (default 100000): accounts stored for the memory figure
 *   BENCH_MONEY (default 1; 0 skips it, `only` runs nothing else): quote + execute throughput per store, beside a raw ledger
 *   BENCH_HOT (default 1; 0 skips it, `only` runs nothing else): quote + execute from a hot account (every connection pays
 *     from one shared account) per store, beside the raw ledger doing the same (one row lock per debit)
 *   BENCH_NODE_FLAGS (default: npm start's, `--max-semi-space-size=16` with a DATABASE_URL, else none): node flags of every server child, app and raw
 *   BENCH_GC_LOG (1: each app server prints its garbage-collection pauses by kind when it stops)
 *
 * Per store, the reference server and a raw node:http server doing the same work on the
 * same store with the store's plain client (none / `@electric-sql/pglite` / `pg`)
 * alternate in rounds. The PostgreSQL cluster and the PGlite data directories are
 * throwaway: created here, removed at the end, on failure and on Ctrl-C.
 */
import { fork } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { cpus, loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { cleanUp, isEnding, trackChild, trackDir } from "./cleanup.js"
import { runCryptoBench } from "./crypto.js"
import { type LoadResult, runHttpBench, type ServerResult, type ServerSpec } from "./http.js"
import { runMoneyBench } from "./money.js"
import { startBenchCluster } from "./postgres.js"

const STORES = ["memory", "pglite", "postgres"] as const
type StoreName = typeof STORES[number]
const isStore = (s: string): s is StoreName => STORES.some((x) => x === s)

const seconds = Number(process.env["BENCH_SECONDS"] ?? "10")
const connections = Number(process.env["BENCH_CONNECTIONS"] ?? "10")
const accounts = Number(process.env["BENCH_ACCOUNTS"] ?? "100000")
const storeList = (process.env["BENCH_STORES"] ?? STORES.join(",")).split(",").map((s) => s.trim().toLowerCase()).filter((s) => s !== "")
const unknown = storeList.filter((s) => !isStore(s))
if (unknown.length > 0) {
  console.error(`BENCH_STORES: unknown store ${unknown.join(", ")} (choose from ${STORES.join(", ")})`)
  process.exit(2)
}
const stores = STORES.filter((s) => storeList.includes(s))
const hotOnly = process.env["BENCH_HOT"] === "only"
const money = process.env["BENCH_MONEY"] !== "0" && !hotOnly
const moneyOnly = process.env["BENCH_MONEY"] === "only" || hotOnly
const hotMoney = process.env["BENCH_HOT"] !== "0" && (process.env["BENCH_MONEY"] !== "0" || hotOnly)

/** The issue's targets: app / raw throughput at least `ratio`, and app p99 under `p99Ms` in every round. */
const TARGETS: Record<StoreName, { readonly ratio: number; readonly p99Ms: number } | undefined> = {
  memory: { ratio: 0.4, p99Ms: 5 },
  postgres: { ratio: 0.6, p99Ms: 10 },
  pglite: undefined
}

const STORE_TITLES: Record<StoreName, string> = {
  memory: "memory store",
  pglite: "embedded store (PGlite on disk, PAYMENTS_DATA_DIR)",
  postgres: "PostgreSQL store (throwaway local cluster, DATABASE_URL)"
}

const fmt = (n: number, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })
const mib = (b: number) => `${fmt(b / 1024 / 1024, 1)} MiB`

/** The app and HttpApi servers on the memory store must not pick up a DATABASE_URL / PAYMENTS_DATA_DIR from the shell. */
const memoryEnv = { DATABASE_URL: "", PAYMENTS_DATA_DIR: "" }
const APP_PATH = "/2025-10-13/customers/external-accounts"

interface StoreRun {
  readonly store: StoreName
  readonly raw: ServerResult
  readonly app: ServerResult
  readonly extra: ReadonlyArray<readonly [string, ServerResult]>
  readonly labels: { readonly raw: string; readonly app: string }
  readonly notes: ReadonlyArray<string>
}

const runMemory = async (): Promise<StoreRun> => {
  const r = await runHttpBench({
    seconds,
    connections,
    servers: [
      { key: "raw", script: "./servers/raw.ts", path: "/", createsCustomer: false },
      { key: "app", script: "./servers/app.ts", env: memoryEnv, path: APP_PATH, createsCustomer: true },
      { key: "httpapi", script: "./servers/app.ts", env: { ...memoryEnv, BENCH_DIRECT_LANE: "0" }, path: APP_PATH, createsCustomer: true }
    ]
  })
  return {
    store: "memory",
    raw: r.raw,
    app: r.app,
    extra: [["payments-service, HttpApi path only (lane off)", r.httpapi]],
    labels: { raw: "raw node:http, no store (baseline)", app: "payments-service (npm start: direct lane + HttpApi)" },
    notes: [`HttpApi path alone / raw: ${fmt(r.httpapi.combined.requestsPerSecond / r.raw.combined.requestsPerSecond, 2)}`]
  }
}

const runPglite = async (): Promise<StoreRun> => {
  const dir = mkdtempSync(join(tmpdir(), "payments-bench-pglite-"))
  const removeDir = trackDir(dir)
  try {
    const r = await runHttpBench({
      seconds,
      connections,
      servers: [
        { key: "raw", script: "./servers/raw-pglite.ts", env: { PAYMENTS_DATA_DIR: join(dir, "raw") }, path: "/", createsCustomer: false },
        { key: "app", script: "./servers/app.ts", env: { DATABASE_URL: "", PAYMENTS_DATA_DIR: join(dir, "app") }, path: APP_PATH, createsCustomer: true }
      ]
    })
    return {
      store: "pglite",
      raw: r.raw,
      app: r.app,
      extra: [],
      labels: { raw: "raw node:http + @electric-sql/pglite, one INSERT … ON CONFLICT (baseline)", app: "payments-service on PGlite" },
      notes: ["PGlite runs inside each server process: its CPU is in the server's figure."]
    }
  } finally {
    await removeDir()
  }
}

const runPostgres = async (): Promise<StoreRun> => {
  const cluster = await startBenchCluster()
  try {
    const appUrl = await cluster.database("bench_app")
    const rawUrl = await cluster.database("bench_raw")
    const r = await runHttpBench({
      seconds,
      connections,
      servers: [
        { key: "raw", script: "./servers/raw-postgres.ts", env: { DATABASE_URL: rawUrl, PAYMENTS_DATA_DIR: "" }, path: "/", createsCustomer: false },
        { key: "app", script: "./servers/app.ts", env: { DATABASE_URL: appUrl, PAYMENTS_DATA_DIR: "" }, path: APP_PATH, createsCustomer: true }
      ],
      ...(cluster.cpuMicros === undefined ? {} : { dbCpu: cluster.cpuMicros })
    })
    const stats = await cluster.query<{ datname: string; xact_commit: string; xact_rollback: string; tup_inserted: string }>(
      cluster.adminUrl,
      "select datname, xact_commit, xact_rollback, tup_inserted from pg_stat_database where datname in ('bench_app', 'bench_raw') order by datname"
    )
    return {
      store: "postgres",
      raw: r.raw,
      app: r.app,
      extra: [],
      labels: { raw: "raw node:http + pg, one INSERT … ON CONFLICT (baseline)", app: "payments-service on PostgreSQL" },
      notes: [
        "DB CPU: all of the cluster's processes (backends, WAL writer, …) over the round, per request.",
        `database counters over the whole run (warm-up included): ${
          stats.map((s) => `${s.datname}: ${fmt(Number(s.xact_commit))} commits, ${fmt(Number(s.xact_rollback))} rollbacks, ${fmt(Number(s.tup_inserted))} rows inserted`).join("; ")
        }`
      ]
    }
  } finally {
    await cluster.stop()
  }
}

// ---------------------------------------------------------------- quote + execute

const MONEY_RAW = "./servers/raw-money.ts" as const
const MONEY_APP = "./servers/app.ts" as const
const moneyLabels = (store: string, hot = false) => ({
  raw: `raw node:http ledger${store === "memory" ? " (Maps)" : store === "pglite" ? " + @electric-sql/pglite" : " + pg"}: INSERT quote; one transaction per execute${
    hot ? ", every debit on one row" : ""
  } (baseline)`,
  app: `payments-service: POST /quotes, POST /quotes/{id}/execute${hot ? ", every payment from one account" : ""}`
})

const runMoneyMemory = async (hot = false): Promise<StoreRun> => {
  const r = await runMoneyBench({
    seconds,
    connections,
    hot,
    servers: [{ key: "raw", script: MONEY_RAW, env: { ...memoryEnv, RAW_STORE: "memory" } }, { key: "app", script: MONEY_APP, env: memoryEnv }]
  })
  return { store: "memory", raw: r.raw, app: r.app, extra: [], labels: moneyLabels("memory", hot), notes: [] }
}

const runMoneyPglite = async (hot = false): Promise<StoreRun> => {
  const dir = mkdtempSync(join(tmpdir(), "payments-bench-money-"))
  const removeDir = trackDir(dir)
  try {
    const r = await runMoneyBench({
      seconds,
      connections,
      hot,
      servers: [
        { key: "raw", script: MONEY_RAW, env: { DATABASE_URL: "", PAYMENTS_DATA_DIR: join(dir, "raw"), RAW_STORE: "pglite" } },
        { key: "app", script: MONEY_APP, env: { DATABASE_URL: "", PAYMENTS_DATA_DIR: join(dir, "app") } }
      ]
    })
    return { store: "pglite", raw: r.raw, app: r.app, extra: [], labels: moneyLabels("pglite", hot), notes: ["PGlite runs inside each server process: its CPU is in the server's figure."] }
  } finally {
    await removeDir()
  }
}

const runMoneyPostgres = async (hot = false): Promise<StoreRun> => {
  const cluster = await startBenchCluster()
  try {
    const appUrl = await cluster.database("bench_money_app")
    const rawUrl = await cluster.database("bench_money_raw")
    const r = await runMoneyBench({
      seconds,
      connections,
      hot,
      servers: [
        { key: "raw", script: MONEY_RAW, env: { DATABASE_URL: rawUrl, PAYMENTS_DATA_DIR: "", RAW_STORE: "postgres" } },
        { key: "app", script: MONEY_APP, env: { DATABASE_URL: appUrl, PAYMENTS_DATA_DIR: "" } }
      ],
      ...(cluster.cpuMicros === undefined ? {} : { dbCpu: cluster.cpuMicros })
    })
    const stats = await cluster.query<{ datname: string; xact_commit: string; xact_rollback: string }>(
      cluster.adminUrl,
      "select datname, xact_commit, xact_rollback from pg_stat_database where datname in ('bench_money_app', 'bench_money_raw') order by datname"
    )
    return {
      store: "postgres",
      raw: r.raw,
      app: r.app,
      extra: [],
      labels: moneyLabels("postgres", hot),
      notes: [
        "DB CPU: all of the cluster's processes over the round, per payment.",
        `database counters over the whole run (warm-up included): ${stats.map((s) => `${s.datname}: ${fmt(Number(s.xact_commit))} commits, ${fmt(Number(s.xact_rollback))} rollbacks`).join("; ")}`
      ]
    }
  } finally {
    await cluster.stop()
  }
}

const MONEY_RUNNERS: Record<StoreName, (hot?: boolean) => Promise<StoreRun>> = { memory: runMoneyMemory, pglite: runMoneyPglite, postgres: runMoneyPostgres }

/** Quote + execute has no target from the issue: figures and the ratio only. */
const printMoney = (s: StoreRun) => {
  const withDb = s.raw.combined.dbCpuMicrosPerRequest !== undefined
  console.log(`| server | payments/s (mean of rounds) | server CPU µs/payment |${withDb ? " DB CPU µs/payment |" : ""} p50 ms per request (worst round) | p99 ms per request (worst round) | non-2xx | errors |`)
  console.log(`|---|---|---|${withDb ? "---|" : ""}---|---|---|---|`)
  console.log(row(s.labels.raw, s.raw.combined, withDb))
  console.log(row(s.labels.app, s.app.combined, withDb))
  const perRound = s.app.rounds.map((r, i) => r.requestsPerSecond / s.raw.rounds[i]!.requestsPerSecond)
  const ratio = s.app.combined.requestsPerSecond / s.raw.combined.requestsPerSecond
  console.log(`\nthroughput ratio (payments-service / raw): ${fmt(ratio, 2)} (no target); per round: ${perRound.map((r) => fmt(r, 2)).join(", ")}`)
  console.log(`server CPU per payment, raw / payments-service: ${fmt(s.raw.combined.cpuMicrosPerRequest / s.app.combined.cpuMicrosPerRequest, 2)}`)
  for (const note of s.notes) console.log(note)
  console.log(`answers: ${s.app.combined.non2xx + s.app.combined.errors === 0 ? "every answer 2xx" : "NOT every answer 2xx"}; non-2xx other than INSUFFICIENT_FUNDS: ${
    s.app.combined.unexpected ?? "not counted"
  } (goal 0)\n`)
  return ratio
}

const RUNNERS: Record<StoreName, () => Promise<StoreRun>> = { memory: runMemory, pglite: runPglite, postgres: runPostgres }

const row = (name: string, r: LoadResult, withDb: boolean) =>
  `| ${name} | ${fmt(r.requestsPerSecond)} | ${fmt(r.cpuMicrosPerRequest, 1)} |${
    withDb ? ` ${r.dbCpuMicrosPerRequest === undefined ? "n/a" : fmt(r.dbCpuMicrosPerRequest, 1)} |` : ""
  } ${r.p50} | ${r.p99} | ${r.non2xx} | ${r.errors} |`

interface Verdict {
  readonly ratio: number
  readonly perRound: ReadonlyArray<number>
  readonly p99PerRound: ReadonlyArray<number>
  readonly text: string
}

const verdictOf = (s: StoreRun): Verdict => {
  const ratio = s.app.combined.requestsPerSecond / s.raw.combined.requestsPerSecond
  const perRound = s.app.rounds.map((r, i) => r.requestsPerSecond / s.raw.rounds[i]!.requestsPerSecond)
  const p99PerRound = s.app.rounds.map((r) => r.p99)
  const target = TARGETS[s.store]
  const failedAnswers = s.app.combined.non2xx + s.app.combined.errors > 0 ? "; NOT every answer 2xx" : ""
  if (target === undefined) return { ratio, perRound, p99PerRound, text: `no target${failedAnswers}` }
  const misses = [
    ...(ratio >= target.ratio ? [] : [`ratio ${fmt(ratio, 2)} < ${fmt(target.ratio, 2)}`]),
    ...(p99PerRound.every((p) => p < target.p99Ms) ? [] : [`p99 ${Math.max(...p99PerRound)} ms >= ${target.p99Ms} ms`])
  ]
  return { ratio, perRound, p99PerRound, text: (misses.length === 0 ? "met" : `MISSED (${misses.join(", ")})`) + failedAnswers }
}

const printStore = (s: StoreRun, v: Verdict) => {
  const withDb = s.raw.combined.dbCpuMicrosPerRequest !== undefined
  console.log(`| server | req/s (mean of rounds) | server CPU µs/request |${withDb ? " DB CPU µs/request |" : ""} p50 ms (worst round) | p99 ms (worst round) | non-2xx | errors |`)
  console.log(`|---|---|---|${withDb ? "---|" : ""}---|---|---|---|`)
  console.log(row(s.labels.raw, s.raw.combined, withDb))
  console.log(row(s.labels.app, s.app.combined, withDb))
  for (const [name, r] of s.extra) console.log(row(name, r.combined, withDb))
  const target = TARGETS[s.store]
  console.log(
    `\nthroughput ratio (payments-service / raw): ${fmt(v.ratio, 2)}${target === undefined ? " (no target)" : `  (target >= ${fmt(target.ratio, 2)})`}; per round: ${
      v.perRound.map((r) => fmt(r, 2)).join(", ")
    }`
  )
  console.log(`server CPU per request, raw / payments-service: ${fmt(s.raw.combined.cpuMicrosPerRequest / s.app.combined.cpuMicrosPerRequest, 2)}`)
  console.log(`payments-service p99 per round: ${v.p99PerRound.join(", ")} ms${target === undefined ? "" : `  (target < ${target.p99Ms} ms in every round)`}`)
  for (const note of s.notes) console.log(note)
  console.log(`1-min load average after this section: ${fmt(loadavg()[0]!, 2)} (the bench itself keeps about 2 busy)`)
  console.log(`verdict: ${v.text}\n`)
}

let failed = false
try {
  console.log(
    `# payments-service bench (node ${process.version}, ${cpus().length} CPUs, ${seconds}s per server, ${connections} connections, stores: ${stores.join(", ") || "none"})\n`
  )
  console.log(`machine load before the run (1-min load average): ${fmt(loadavg()[0]!, 2)}\n`)

  const done: Array<readonly [StoreRun, Verdict]> = []
  for (const store of moneyOnly ? [] : stores) {
    if (isEnding()) break
    console.log(`## POST /customers/external-accounts over loopback (autocannon), ${STORE_TITLES[store]}`)
    try {
      const s = await RUNNERS[store]()
      const v = verdictOf(s)
      printStore(s, v)
      done.push([s, v])
    } catch (e) {
      failed = true
      console.log(`FAILED: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`)
    }
  }
  if (done.length > 0) {
    console.log("## Summary: payments-service against the raw server on the same store")
    console.log("| store | raw req/s | payments-service req/s | ratio (per round) | ratio target | p99 ms per round | p99 target | verdict |")
    console.log("|---|---|---|---|---|---|---|---|")
    for (const [s, v] of done) {
      const t = TARGETS[s.store]
      console.log(
        `| ${s.store} | ${fmt(s.raw.combined.requestsPerSecond)} | ${fmt(s.app.combined.requestsPerSecond)} | ${fmt(v.ratio, 2)} (${v.perRound.map((r) => fmt(r, 2)).join(", ")}) | ${
          t === undefined ? "—" : `>= ${fmt(t.ratio, 2)}`
        } | ${v.p99PerRound.join(", ")} | ${t === undefined ? "—" : `< ${t.p99Ms}`} | ${v.text} |`
      )
    }
    console.log("")
  }

  if (money) {
    const ratios: Array<readonly [StoreName, StoreRun, number]> = []
    for (const store of stores) {
      if (isEnding()) break
      console.log(`## Quote + execute (POST /quotes, then POST /quotes/{id}/execute; one funded payer per connection), ${STORE_TITLES[store]}`)
      try {
        const s = await MONEY_RUNNERS[store]()
        ratios.push([store, s, printMoney(s)])
      } catch (e) {
        failed = true
        console.log(`FAILED: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`)
      }
    }
    if (ratios.length > 0) {
      console.log("## Summary: quote + execute against the raw ledger on the same store")
      console.log("| store | raw payments/s | payments-service payments/s | ratio | app p99 ms per request (worst round) | non-2xx other than INSUFFICIENT_FUNDS |")
      console.log("|---|---|---|---|---|---|")
      for (const [store, s, ratio] of ratios) {
        console.log(`| ${store} | ${fmt(s.raw.combined.requestsPerSecond)} | ${fmt(s.app.combined.requestsPerSecond)} | ${fmt(ratio, 2)} | ${s.app.combined.p99} | ${s.app.combined.unexpected ?? "—"} |`)
      }
      console.log("")
    }
  }

  if (hotMoney) {
    const ratios: Array<readonly [StoreName, StoreRun, number]> = []
    for (const store of stores) {
      if (isEnding()) break
      console.log(`## Quote + execute from a hot account (every connection pays from ONE shared account, each to its own payee), ${STORE_TITLES[store]}`)
      try {
        const s = await MONEY_RUNNERS[store](true)
        ratios.push([store, s, printMoney(s)])
      } catch (e) {
        failed = true
        console.log(`FAILED: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`)
      }
    }
    if (ratios.length > 0) {
      console.log("## Summary: quote + execute from a hot account against the raw ledger debiting one row")
      console.log("| store | raw payments/s | payments-service payments/s | ratio | app p99 ms per request (worst round) | non-2xx other than INSUFFICIENT_FUNDS (goal 0) |")
      console.log("|---|---|---|---|---|---|")
      for (const [store, s, ratio] of ratios) {
        console.log(`| ${store} | ${fmt(s.raw.combined.requestsPerSecond)} | ${fmt(s.app.combined.requestsPerSecond)} | ${fmt(ratio, 2)} | ${s.app.combined.p99} | ${s.app.combined.unexpected ?? "—"} |`)
      }
      console.log("")
    }
  }

  if (isEnding()) throw new Error("interrupted")
  if (!moneyOnly) {
    console.log(`## Memory per ${fmt(accounts)} stored external accounts (memory store)`)
    const mem = await new Promise<{ count: number; rssBytes: number; heapBytes: number; gcExposed: boolean }>((resolve, reject) => {
      const child = fork(fileURLToPath(new URL("./memory.ts", import.meta.url)), ["child", String(accounts)], {
        execArgv: ["--import", "tsx", "--expose-gc"]
      })
      trackChild(child)
      child.once("message", (m) => resolve(m as never))
      child.once("exit", (code) => code !== 0 && reject(new Error(`memory bench exited with ${code}`)))
    })
    const per100k = 100_000 / mem.count
    console.log(`heap: ${mib(mem.heapBytes * per100k)} per 100,000 accounts (${fmt(mem.heapBytes / mem.count)} bytes each)`)
    console.log(`rss:  ${mib(mem.rssBytes * per100k)} per 100,000 accounts${mem.gcExposed ? "" : " (gc not exposed: upper bound)"}\n`)

    console.log("## Crypto verifiers")
    await runCryptoBench({ seconds: Math.max(1, Math.min(5, seconds / 2)) })
  }
} catch (e) {
  failed = true
  console.error(e)
} finally {
  await cleanUp()
}
if (failed) process.exitCode = 1
