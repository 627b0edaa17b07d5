/**
 * What two single requests of the scale bench cost PostgreSQL, statement by statement, on
 * databases of different sizes side by side: `GET /quotes/{id}` (the quote's primary-key
 * read) and `GET /customers/internal-accounts?limit=20` (its page with the bounded count,
 * then the page's twenty balances), the statements the SQL store sends for them.
 *
 *   SCALE_READS_URLS=<url>,<url> node --import tsx bench/scale-reads.ts   # databases already filled
 *   SCALE_READS_FILL=1000,2000 node --import tsx bench/scale-reads.ts     # fill these levels first
 *
 * SCALE_READS_URLS: databases the scale bench's server child filled (e.g. held by
 * `SCALE_EXPLAIN_HOLD`, bench/scale-explain.ts). SCALE_READS_FILL: levels to fill now, each a
 * fresh database filled by the scale app (bench/servers/scale-app.ts) and kept up with its
 * server while measuring; on the cluster of the first URL when there is one (so both share
 * its `shared_buffers`, as in `npm run bench:scale`), else on a fresh throwaway cluster.
 *
 * Per database: the tables' and indexes' sizes, the B-tree depths (pageinspect, when the
 * cluster has it), the sample quote's document (its size, compression, and whether it is
 * stored out of line in TOAST), and `EXPLAIN (ANALYZE, BUFFERS)` of each statement, first
 * on a new connection and again after the timed runs. Then, on one connection per
 * database with the store's session settings (`enable_seqscan = off`, `plan_cache_mode =
 * force_generic_plan`), each statement prepared (a named statement, as the store's
 * statement cache sends it) and executed SCALE_READS_RUNS times (default 400, after 20),
 * alternating between the databases execution by execution: the median and p90 of the
 * backend's CPU per execution (/proc/<pid>/schedstat, run time in nanoseconds, read
 * around each execution from outside) and of the round trip. Nothing here is judged; it
 * prints what docs/performance.md quotes.
 */
import { readFileSync } from "node:fs"
import pg from "pg"
import { pageStatement } from "../src/adapters/sql/documents.js"
import { internalAccountWhere } from "../src/adapters/sql/money.js"
import { runThenExit } from "./cleanup.js"
import { startBenchCluster } from "./postgres.js"
import { type ScaleServer, startScaleServer } from "./scale-server.js"
import { benchMoneyPlatform } from "./servers/platform.js"

const URLS = (process.env["SCALE_READS_URLS"] ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "")
const FILL = (process.env["SCALE_READS_FILL"] ?? "").split(",").map((s) => s.trim().replace(/_/g, "")).filter((s) => s !== "").map(Number)
const RUNS = Number(process.env["SCALE_READS_RUNS"] ?? "400")
const WARMUP = 20
const platformId = benchMoneyPlatform.id

const quantile = (xs: ReadonlyArray<number>, q: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(s.length * q))] ?? Number.NaN
}

/** A backend's run time so far, microseconds. */
const backendMicros = (pid: number): number => Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]) / 1000

interface Statement {
  readonly name: string
  readonly text: string
  readonly params: ReadonlyArray<unknown>
}

interface Level {
  readonly label: string
  readonly client: pg.Client
  readonly pid: number
  readonly statements: ReadonlyArray<Statement>
}

const explain = async (client: pg.Client, s: Statement) => {
  const plan = await client.query<{ "QUERY PLAN": string }>(`explain (analyze, buffers) ${s.text}`, [...s.params])
  return plan.rows.map((r) => `    ${r["QUERY PLAN"]}`).join("\n")
}

/** The statements the two requests send, with this database's sample values. */
const statementsOf = async (client: pg.Client): Promise<ReadonlyArray<Statement>> => {
  // The scale app's sample quote: the quote of the middle payer's newest payment (bench/servers/scale-app.ts).
  const payers = await client.query<{ id: string }>(
    `select customer_id as id from quotes where platform_id = $1 and customer_id is not null group by 1 order by 1`, [platformId]
  )
  const middle = payers.rows[Math.floor(payers.rows.length / 2)]!.id
  const quote = await client.query<{ id: string }>(
    `select id from quotes where platform_id = $1 and customer_id = $2 order by created_ms desc, id desc limit 1`, [platformId, middle]
  )
  const quoteId = quote.rows[0]!.id
  const page = pageStatement("internal_accounts", internalAccountWhere(platformId, { owner: "customer" }), { limit: 20 })
  if (!("text" in page)) throw new Error("no cursor was given")
  const accounts = await client.query<{ id: string }>(
    `select id from internal_accounts where platform_id = $1 and customer_id is not null order by created_ms, id limit 20`, [platformId]
  )
  return [
    { name: "clock offset (every request)", text: "select offset_ms::float8 as offset_ms from platform_clocks where platform_id = $1", params: [platformId] },
    { name: "GET /quotes/{id}: the quote", text: "select doc::text as doc from quotes where platform_id = $1 and id = $2", params: [platformId, quoteId] },
    { name: "GET /quotes/{id}: the row without its document", text: "select id, created_ms from quotes where platform_id = $1 and id = $2", params: [platformId, quoteId] },
    { name: "internal accounts: page and bounded count (as sent)", text: page.text, params: page.params },
    {
      name: "internal accounts: bounded count alone",
      text: "select count(*)::int from (select 1 from internal_accounts where platform_id = $1 and customer_id is not null limit 1001) counted",
      params: [platformId]
    },
    {
      name: "internal accounts: page alone",
      text: "select doc::text as doc from internal_accounts where platform_id = $1 and customer_id is not null order by created_ms, id limit 21",
      params: [platformId]
    },
    {
      name: "internal accounts: the page's 20 balances",
      text: `select b.account, b.balance::text as balance from jsonb_array_elements_text($2::jsonb) as wanted (account)
               cross join lateral (select account, balance from ledger_balances
                 where platform_id = $1 and account = wanted.account offset 0) as b`,
      params: [platformId, JSON.stringify(accounts.rows.map((r) => r.id))]
    }
  ]
}

const describe = async (client: pg.Client, label: string, statements: ReadonlyArray<Statement>) => {
  console.log(`\n===== ${label}`)
  const settings = await client.query<{ name: string; setting: string; unit: string | null }>(
    `select name, current_setting(name) as setting, null as unit from pg_settings where name in ('shared_buffers', 'effective_cache_size', 'plan_cache_mode', 'enable_seqscan')`
  )
  console.log(settings.rows.map((r) => `${r.name} = ${r.setting}${r.unit ?? ""}`).join(", "))
  const sizes = await client.query<{ relname: string; rows: string; pages: string; mb: string; toast_mb: string | null }>(
    `select c.relname, c.reltuples::bigint::text as rows, c.relpages::text as pages,
            round(pg_relation_size(c.oid) / 1048576.0, 1)::text as mb,
            case when c.reltoastrelid <> 0 then round(pg_total_relation_size(c.reltoastrelid) / 1048576.0, 1)::text end as toast_mb
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and (c.relname in ('quotes', 'internal_accounts', 'ledger_balances', 'platform_clocks')
         or c.relname in (select indexrelid::regclass::text from pg_index where indrelid in ('quotes'::regclass, 'internal_accounts'::regclass, 'ledger_balances'::regclass)))
      order by c.relname`
  )
  let depths = new Map<string, string>()
  try {
    await client.query("create extension if not exists pageinspect")
    const d = await client.query<{ relname: string; level: string }>(
      `select c.relname, (bt_metap(c.relname)).level::text as level from pg_class c join pg_am a on a.oid = c.relam
        where a.amname = 'btree' and c.relname in (select indexrelid::regclass::text from pg_index
          where indrelid in ('quotes'::regclass, 'internal_accounts'::regclass, 'ledger_balances'::regclass))`
    )
    depths = new Map(d.rows.map((r) => [r.relname, r.level] as const))
  } catch (e) {
    console.log(`(no B-tree depths: ${e instanceof Error ? e.message : String(e)})`)
  }
  for (const r of sizes.rows) {
    const depth = depths.get(r.relname)
    console.log(`  ${r.relname}: ${r.rows} rows, ${r.pages} pages, ${r.mb} MB${r.toast_mb === null ? "" : `, TOAST ${r.toast_mb} MB`}${depth === undefined ? "" : `, B-tree levels below the root ${depth}`}`)
  }
  const quote = statements[1]!.params
  const doc = await client.query<{ stored: number; text_bytes: number; compression: string | null; row_bytes: number }>(
    `select pg_column_size(doc) as stored, octet_length(doc::text) as text_bytes, pg_column_compression(doc) as compression,
            pg_column_size(q.*) as row_bytes
       from quotes q where platform_id = $1 and id = $2`, [...quote]
  )
  const d = doc.rows[0]!
  console.log(`  sample quote ${String(quote[1])}: document ${d.text_bytes} B as text, ${d.stored} B stored (compression ${d.compression ?? "none"}), row ${d.row_bytes} B`)
  const docs = await client.query<{ n: string; over2k: string; compressed: string; avg_stored: string; avg_text: string }>(
    `select count(*)::text as n, count(*) filter (where octet_length(doc::text) > 2032)::text as over2k,
            count(*) filter (where pg_column_compression(doc) is not null)::text as compressed,
            round(avg(pg_column_size(doc)))::text as avg_stored, round(avg(octet_length(doc::text)))::text as avg_text
       from (select doc from quotes tablesample system (1) repeatable (1)) s`
  )
  const a = docs.rows[0]!
  console.log(`  quotes sampled (1% of pages): ${a.n}, documents over 2,032 B as text ${a.over2k}, compressed ${a.compressed}, mean ${a.avg_text} B as text, ${a.avg_stored} B stored`)
  for (const s of statements) console.log(`\n  ## ${s.name} (first on a new connection)\n${await explain(client, s)}`)
}

const openLevel = async (url: string, label: string): Promise<Level> => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  await client.query("set enable_seqscan = off")
  const statements = await statementsOf(client)
  await describe(client, label, statements)
  await client.end()
  // A fresh connection for the timed runs, with the store's session settings.
  const timed = new pg.Client({ connectionString: url, options: "-c enable_seqscan=off -c plan_cache_mode=force_generic_plan" })
  await timed.connect()
  const pid = (await timed.query<{ pid: number }>("select pg_backend_pid() as pid")).rows[0]!.pid
  return { label, client: timed, pid, statements }
}

const time = async (levels: ReadonlyArray<Level>) => {
  const count = levels[0]!.statements.length
  for (let i = 0; i < count; i++) {
    const cpu = levels.map(() => [] as Array<number>)
    const wall = levels.map(() => [] as Array<number>)
    for (let run = 0; run < WARMUP + RUNS; run++) {
      for (const [j, level] of levels.entries()) {
        const s = level.statements[i]!
        const before = backendMicros(level.pid)
        const t0 = performance.now()
        await level.client.query({ name: `reads_${i}`, text: s.text, values: [...s.params] })
        const t1 = performance.now()
        const after = backendMicros(level.pid)
        if (run >= WARMUP) {
          cpu[j]!.push(after - before)
          wall[j]!.push((t1 - t0) * 1000)
        }
      }
    }
    const name = levels[0]!.statements[i]!.name
    const cells = levels.map((l, j) =>
      `${l.label}: CPU median ${quantile(cpu[j]!, 0.5).toFixed(0)} µs (p90 ${quantile(cpu[j]!, 0.9).toFixed(0)}), round trip ${quantile(wall[j]!, 0.5).toFixed(0)} µs`
    )
    const ratio = quantile(cpu[levels.length - 1]!, 0.5) / quantile(cpu[0]!, 0.5)
    console.log(`${name}\n  ${cells.join("\n  ")}\n  CPU median ratio, last to first: ${ratio.toFixed(2)}`)
  }
}

const main = async () => {
  const servers: Array<ScaleServer> = []
  const urls: Array<readonly [string, string]> = URLS.map((u) => [u, new URL(u).pathname.slice(1)] as const)
  const filled: Array<readonly [string, string]> = []
  let stopCluster: (() => Promise<void>) | undefined
  try {
    if (FILL.length > 0) {
      let database: (name: string) => Promise<string>
      if (urls.length > 0) {
        const admin = new URL(urls[0]![0])
        admin.pathname = "/postgres"
        const adminUrl = admin.toString()
        database = async (name) => {
          const c = new pg.Client({ connectionString: adminUrl })
          await c.connect()
          try {
            await c.query(`create database "${name}"`)
          } finally {
            await c.end()
          }
          const u = new URL(adminUrl)
          u.pathname = `/${name}`
          return u.toString()
        }
      } else {
        const cluster = await startBenchCluster()
        stopCluster = cluster.stop
        database = cluster.database
      }
      for (const level of FILL) {
        const url = await database(`reads_${level}_${Date.now()}`)
        process.stderr.write(`filling ${level} payments…\n`)
        servers.push(await startScaleServer(level, { DATABASE_URL: url, PAYMENTS_DATA_DIR: "" }, ["--max-old-space-size=4096"]))
        filled.push([url, `${level} payments (filled now)`])
      }
    }
    const levels: Array<Level> = []
    for (const [url, label] of [...filled, ...urls]) levels.push(await openLevel(url, label))
    console.log(`\n===== backend CPU per execution, ${RUNS} executions after ${WARMUP}, alternating between the databases`)
    await time(levels)
    for (const level of levels) {
      console.log(`\n===== ${level.label}: again after the timed runs`)
      for (const s of level.statements) console.log(`  ## ${s.name}\n${await explain(level.client, s)}`)
      await level.client.end()
    }
  } finally {
    for (const s of servers) await s.stop()
    if (stopCluster !== undefined) await stopCluster()
  }
}

await runThenExit(main)
