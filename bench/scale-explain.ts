/**
 * Where the time of a list's first page goes on PostgreSQL, per level of the scale
 * bench's fill: `EXPLAIN (ANALYZE, BUFFERS)` of the exact statements the SQL store sends
 * for the first pages (`limit=20`) of `GET /customers`, `/customers/external-accounts`,
 * `/customers/internal-accounts` and `/transactions?customerId={payer}`, and the median
 * execution time of the whole statement, of its bounded count alone and of its page alone.
 *
 *   node --import tsx bench/scale-explain.ts                 # levels 1000,100000
 *   SCALE_EXPLAIN_LEVELS=100000 SCALE_EXPLAIN_LOAD_SECONDS=5 node --import tsx bench/scale-explain.ts
 *
 * Each level is a fresh database of a throwaway cluster, filled by the scale bench's
 * server child (bench/servers/scale-app.ts, set-wise: bench/servers/scale-sql-fill.ts).
 * The plans are taken right after the fill (vacuumed and analyzed) and again after
 * SCALE_EXPLAIN_LOAD_SECONDS (default 5; 0: none) of the bench's quote + execute load on
 * 10 connections, which is what `npm run bench:scale` measures its single requests after.
 * SCALE_EXPLAIN_RUNS (default 200): executions per median. SCALE_EXPLAIN_WITHOUT=<index,…>: each
 * time also in a transaction that drops those indexes first (rolled back after), the
 * plans and times the tree had before them, on the same data in the same run.
 * SCALE_EXPLAIN_HOLD=<file>: after
 * each level, print its database URL and keep it (and its server) up while <file> exists,
 * to try statements on it by hand. Nothing here is judged; it prints what
 * docs/performance.md quotes.
 */
import { existsSync } from "node:fs"
import pg from "pg"
import { customerWhere, externalAccountWhere } from "../src/adapters/sql/customers.js"
import { pageStatement, type Where } from "../src/adapters/sql/documents.js"
import { internalAccountWhere, transactionWhere } from "../src/adapters/sql/money.js"
import { TOTAL_COUNT_LIMIT } from "../src/ports/shared.js"
import { runThenExit } from "./cleanup.js"
import { run as moneyLoad } from "./money.js"
import { startBenchCluster } from "./postgres.js"
import { startScaleServer } from "./scale-server.js"
import { benchMoneyPlatform } from "./servers/platform.js"

const LEVELS = (process.env["SCALE_EXPLAIN_LEVELS"] ?? "1000,100000").split(",").map((s) => Number(s.trim()))
const LOAD_SECONDS = Number(process.env["SCALE_EXPLAIN_LOAD_SECONDS"] ?? "5")
const RUNS = Number(process.env["SCALE_EXPLAIN_RUNS"] ?? "200")
const LIMIT = 20
const HOLD = process.env["SCALE_EXPLAIN_HOLD"]
const WITHOUT = (process.env["SCALE_EXPLAIN_WITHOUT"] ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "")

interface Listed {
  readonly name: string
  readonly table: string
  readonly where: Where
  readonly descending: boolean
}

const listsOf = (platformId: string, customerId: string): ReadonlyArray<Listed> => [
  { name: "GET /customers?limit=20", table: "customers", where: customerWhere(platformId, { includeDeleted: false }), descending: false },
  { name: "GET /customers/external-accounts?limit=20", table: "external_accounts", where: externalAccountWhere(platformId, { owner: "customer" }), descending: false },
  { name: "GET /customers/internal-accounts?limit=20", table: "internal_accounts", where: internalAccountWhere(platformId, { owner: "customer" }), descending: false },
  { name: "GET /transactions?limit=20&customerId={payer}", table: "transactions", where: transactionWhere(platformId, { customerId }), descending: true }
]

/** The statement's three forms: whole (what the store sends), its count alone, its page alone. */
const formsOf = (l: Listed): ReadonlyArray<readonly [string, string, ReadonlyArray<unknown>]> => {
  const statement = pageStatement(l.table, l.where, { limit: LIMIT, descending: l.descending })
  if (!("text" in statement)) throw new Error("no cursor was given")
  const direction = l.descending ? "desc" : "asc"
  return [
    ["whole", statement.text, statement.params],
    ["count", `select count(*)::int from (select 1 from ${l.table} where ${l.where.text} limit ${TOTAL_COUNT_LIMIT + 1}) counted`, l.where.params],
    [
      "page",
      // The limit in the text, as the store's page writes it (./src/adapters/sql/documents.ts `pageStatement`).
      `select doc::text as doc from ${l.table} where ${l.where.text} order by created_ms ${direction}, id ${direction} limit ${LIMIT + 1}`,
      l.where.params
    ]
  ]
}

const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)] ?? Number.NaN
}

/** `explainLevel`, and again without the WITHOUT indexes (dropped in a transaction rolled back after). */
const explainBoth = async (client: pg.Client, lists: ReadonlyArray<Listed>, when: string) => {
  await explainLevel(client, lists, when)
  if (WITHOUT.length === 0) return
  await client.query("begin")
  try {
    for (const index of WITHOUT) await client.query(`drop index ${index}`)
    await explainLevel(client, lists, `${when}, without ${WITHOUT.join(", ")}`)
  } finally {
    await client.query("rollback")
  }
}

const explainLevel = async (client: pg.Client, lists: ReadonlyArray<Listed>, when: string) => {
  console.log(`\n--- ${when}`)
  const vis = await client.query<{ relname: string; relpages: number; relallvisible: number; reltuples: number }>(
    `select relname, relpages, relallvisible, reltuples::bigint as reltuples from pg_class
      where relname in ('customers', 'external_accounts', 'internal_accounts', 'transactions') order by relname`
  )
  for (const r of vis.rows) console.log(`${r.relname}: ${r.reltuples} rows, ${r.relpages} pages, ${r.relallvisible} all-visible (pg_class, as of the last vacuum / analyze)`)
  for (const l of lists) {
    console.log(`\n## ${l.name}`)
    for (const [form, text, params] of formsOf(l)) {
      if (form === "whole") {
        const plan = await client.query<{ "QUERY PLAN": string }>(`explain (analyze, buffers) ${text}`, [...params])
        console.log(plan.rows.map((r) => r["QUERY PLAN"]).join("\n"))
      }
      const times: Array<number> = []
      const planning: Array<number> = []
      for (let i = 0; i < RUNS; i++) {
        const r = await client.query<{ "QUERY PLAN": ReadonlyArray<{ "Execution Time": number; "Planning Time": number }> }>(
          `explain (analyze, timing off, format json) ${text}`,
          [...params]
        )
        times.push(r.rows[0]!["QUERY PLAN"][0]!["Execution Time"])
        planning.push(r.rows[0]!["QUERY PLAN"][0]!["Planning Time"])
      }
      console.log(`${form}: median execution ${median(times).toFixed(3)} ms, planning ${median(planning).toFixed(3)} ms over ${RUNS}`)
    }
  }
}

const main = async () => {
  const cluster = await startBenchCluster()
  try {
    for (const level of LEVELS) {
      const url = await cluster.database(`explain_${level}_${Date.now()}`)
      process.stderr.write(`filling ${level} payments…\n`)
      const server = await startScaleServer(level, { DATABASE_URL: url, PAYMENTS_DATA_DIR: "" }, ["--max-old-space-size=4096"])
      try {
        console.log(`\n===== ${level} payments (fill ${(server.ready.fillMillis / 1000).toFixed(1)} s)`)
        const lists = listsOf(benchMoneyPlatform.id, server.ready.sample.customerId)
        const client = new pg.Client({ connectionString: url })
        await client.connect()
        // The store's sessions' own setting (src/adapters/sql/index.ts, STEERING): without it a
        // count matching most of a small table plans as a sequential scan the store never runs.
        await client.query("set enable_seqscan = off")
        try {
          await explainBoth(client, lists, "after the fill")
          if (LOAD_SECONDS > 0) {
            const m = await moneyLoad(server.ready.port, server.ready.pairs.slice(0, 10), LOAD_SECONDS, 10)
            await explainBoth(client, lists, `after ${LOAD_SECONDS} s of quote + execute load (${m.requests} requests)`)
          }
        } finally {
          await client.end()
        }
        if (HOLD !== undefined && existsSync(HOLD)) {
          console.log(`holding ${url} while ${HOLD} exists`)
          while (existsSync(HOLD)) await new Promise((r) => setTimeout(r, 1000))
        }
      } finally {
        await server.stop()
      }
    }
  } finally {
    await cluster.stop()
  }
}

await runThenExit(main)
