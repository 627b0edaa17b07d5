/**
 * What a first page costs PostgreSQL, message by message, per level of the scale bench's
 * fill: the statements the app's backends run for one request, with the duration and the
 * backend's CPU of each protocol message (parse, bind, execute), from the server's own log.
 *
 *   node --import tsx bench/scale-statements.ts               # levels 1000,100000
 *   SCALE_STATEMENTS_LEVELS=100000 SCALE_STATEMENTS_REQUESTS=100 node --import tsx bench/scale-statements.ts
 *   SCALE_STATEMENTS_PATHS='/quotes/{quote},/customers/internal-accounts?limit=20' SCALE_STATEMENTS_RUNS=0 …  # only these requests
 *
 * Each level is a fresh database of a throwaway cluster filled by the scale bench's server
 * child (bench/servers/scale-app.ts), then SCALE_STATEMENTS_LOAD_SECONDS (default 5; 0:
 * none) of the bench's quote + execute load, as `npm run bench:scale` does before its
 * single requests. Then, per request, 20 unlogged warm-up requests and
 * SCALE_STATEMENTS_REQUESTS (default 60) logged ones, with `log_min_duration_statement =
 * 0` and `log_statement_stats = on` set for the cluster (ALTER SYSTEM, reloaded; reset
 * after): PostgreSQL logs each parse, bind and execute message with its duration, and the
 * backend's user and system CPU (getrusage) around it. Printed per request: the messages
 * per request, their median duration and CPU by kind and by statement, and the sum per
 * request. What the server's idle background sends meanwhile (its scheduler's and webhook
 * worker's polls) is logged too: a statement seen in fewer than half the requests is
 * listed apart.
 *
 * Then the first pages' statements alone, on a connection of the bench's own with the
 * store's session setting (`enable_seqscan = off`), each prepared (a named statement, as
 * the store's statement cache sends it) and executed SCALE_STATEMENTS_RUNS times (default
 * 200, after 20) in three forms: with the page's `limit` a parameter (as the store sent it
 * before b40c314), as the store sends it now (the limit written into the text), and the
 * first with `plan_cache_mode = force_generic_plan`;
 * the median backend CPU per execution (/proc/<pid>/schedstat of its backend) and whether
 * PostgreSQL kept planning it afresh (`pg_prepared_statements.custom_plans`, PostgreSQL 14+).
 * Nothing here is judged; it prints what docs/performance.md quotes.
 */
import { readFileSync, statSync } from "node:fs"
import { dirname, join } from "node:path"
import pg from "pg"
import { customerWhere, externalAccountWhere } from "../src/adapters/sql/customers.js"
import { pageStatement, type Where } from "../src/adapters/sql/documents.js"
import { internalAccountWhere, transactionWhere } from "../src/adapters/sql/money.js"
import { runThenExit } from "./cleanup.js"
import { run as moneyLoad } from "./money.js"
import { startBenchCluster } from "./postgres.js"
import { startScaleServer } from "./scale-server.js"
import { benchMoneyPlatform } from "./servers/platform.js"

const LEVELS = (process.env["SCALE_STATEMENTS_LEVELS"] ?? "1000,100000").split(",").map((s) => Number(s.trim().replace(/_/g, "")))
const LOAD_SECONDS = Number(process.env["SCALE_STATEMENTS_LOAD_SECONDS"] ?? "5")
const REQUESTS = Number(process.env["SCALE_STATEMENTS_REQUESTS"] ?? "60")
const PREFIX = "/2025-10-13"
const auth = `Basic ${Buffer.from(`${benchMoneyPlatform.clientId}:${benchMoneyPlatform.clientSecret}`).toString("base64")}`

const PATHS = [
  "/customers?limit=20",
  "/customers/external-accounts?limit=20",
  "/customers/internal-accounts?limit=20",
  "/platform/external-accounts?limit=20",
  "/customers/{id}",
  "/transactions?limit=20",
  "/transactions?limit=20&type=OUTGOING",
  "/transactions?limit=20&customerId={id}",
  "/quotes/{quote}"
] as const
/** SCALE_STATEMENTS_PATHS=<path>,…: only these of PATHS (as written there), e.g. /quotes/{quote}. */
const ONLY = (process.env["SCALE_STATEMENTS_PATHS"] ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "")
const paths = ONLY.length === 0 ? PATHS : PATHS.filter((p) => ONLY.includes(p))

const get = async (port: number, path: string) => {
  const res = await fetch(`http://127.0.0.1:${port}${PREFIX}${path}`, { headers: { authorization: auth } })
  await res.arrayBuffer()
  if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}`)
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

interface Message {
  readonly pid: number
  readonly kind: string
  readonly statement: string
  readonly ms: number
  /** user + system CPU of the backend in that message, ms (log_statement_stats). */
  cpu: number | undefined
}

/**
 * The log's messages: "… [pid] LOG:  duration: 0.051 ms  bind S_1: select …", each followed
 * (PostgreSQL logs the duration first) by "… [pid] LOG:  BIND MESSAGE STATISTICS" and its
 * "… [pid] DETAIL:  ! system usage stats: !	0.000049 s user, 0.000000 s system, …".
 */
const parseLog = (text: string): Array<Message> => {
  const out: Array<Message> = []
  const last = new Map<number, Message>()
  const statsOf = new Map<number, string>()
  for (const entry of text.split(/\n(?=\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)/)) {
    const head = /^\S+ \S+ \S+ \[(\d+)\] (\w+):\s+([\s\S]*)$/.exec(entry)
    if (head === null) continue
    const pid = Number(head[1])
    const level = head[2]!
    const body = head[3]!
    const stats = /^(PARSE|BIND|EXECUTE) MESSAGE STATISTICS/.exec(body)
    if (level === "LOG" && stats !== null) {
      statsOf.set(pid, stats[1]!.toLowerCase())
      continue
    }
    const usage = /([\d.]+) s user, ([\d.]+) s system/.exec(body)
    if (level === "DETAIL" && usage !== null) {
      const kind = statsOf.get(pid)
      statsOf.delete(pid)
      const m = last.get(pid)
      if (m !== undefined && m.kind === kind && m.cpu === undefined) m.cpu = (Number(usage[1]) + Number(usage[2])) * 1000
      continue
    }
    const duration = /^duration: ([\d.]+) ms\s+(parse|bind|execute) ([^:]*):\s*([\s\S]*)$/.exec(body)
    if (level !== "LOG" || duration === null) continue
    const m: Message = { pid, kind: duration[2]!, statement: duration[4]!.replace(/\s+/g, " ").trim().slice(0, 160), ms: Number(duration[1]), cpu: undefined }
    out.push(m)
    last.set(pid, m)
  }
  return out
}

const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)] ?? Number.NaN
}
const f3 = (n: number) => Number.isFinite(n) ? n.toFixed(3) : "—"

const RUNS = Number(process.env["SCALE_STATEMENTS_RUNS"] ?? "200")

const schedNanos = (pid: number) => Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0])

/** The first pages' statements alone, prepared, in the three forms (header). */
const statementsAlone = async (url: string) => {
  const lists: ReadonlyArray<readonly [string, string, Where, boolean]> = [
    ["GET /customers?limit=20", "customers", customerWhere(benchMoneyPlatform.id, { includeDeleted: false }), false],
    ["GET /customers/external-accounts?limit=20", "external_accounts", externalAccountWhere(benchMoneyPlatform.id, { owner: "customer" }), false],
    ["GET /customers/internal-accounts?limit=20", "internal_accounts", internalAccountWhere(benchMoneyPlatform.id, { owner: "customer" }), false],
    ["the transactions' page and count (unfiltered)", "transactions", transactionWhere(benchMoneyPlatform.id, {}), true],
    ["the transactions' page and count (type OUTGOING)", "transactions", transactionWhere(benchMoneyPlatform.id, { type: "OUTGOING" }), true]
  ]
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query("set enable_seqscan = off")
    const pid = Number((await client.query<{ pid: number }>("select pg_backend_pid() as pid")).rows[0]!.pid)
    console.log("\n| statement alone | form | median backend CPU per execution | custom plans / generic plans |\n|---|---|---|---|")
    let n = 0
    for (const [name, table, where, descending] of lists) {
      const statement = pageStatement(table, where, { limit: 20, descending })
      if (!("text" in statement)) throw new Error("no cursor was given")
      // The store writes the page's limit (20, and one more row) into the text (b40c314); the
      // form before it passed it as the statement's last parameter.
      const params = [...statement.params]
      const asParameter = statement.text.replace(/\blimit 21\b/g, `limit $${params.length + 1}`)
      if (asParameter === statement.text) throw new Error(`no page limit in the text of ${name}`)
      const forms: ReadonlyArray<readonly [string, string, ReadonlyArray<unknown>, string]> = [
        ["limit a parameter (as sent before b40c314)", asParameter, [...params, 21], "auto"],
        ["limit in the text (as sent)", statement.text, params, "auto"],
        ["limit a parameter, force_generic_plan", asParameter, [...params, 21], "force_generic_plan"]
      ]
      for (const [form, text, values, mode] of forms) {
        await client.query(`set plan_cache_mode = ${mode}`)
        const prepared = `scale_statements_${n++}`
        for (let i = 0; i < 20; i++) await client.query({ name: prepared, text, values: [...values] })
        const cpu: Array<number> = []
        for (let i = 0; i < RUNS; i++) {
          const before = schedNanos(pid)
          await client.query({ name: prepared, text, values: [...values] })
          cpu.push((schedNanos(pid) - before) / 1e6)
        }
        const plans = await client.query<{ custom_plans: string; generic_plans: string }>(
          "select custom_plans::text, generic_plans::text from pg_prepared_statements where name = $1",
          [prepared]
        )
        console.log(`| ${name} | ${form} | ${f3(median(cpu))} ms | ${plans.rows[0]?.custom_plans ?? "?"} / ${plans.rows[0]?.generic_plans ?? "?"} |`)
      }
      await client.query("set plan_cache_mode = auto")
    }
  } finally {
    await client.end()
  }
}

const main = async () => {
  const cluster = await startBenchCluster()
  try {
    const [row] = await cluster.query<{ setting: string }>(cluster.adminUrl, "select setting from pg_settings where name = 'data_directory'")
    const logFile = join(dirname(row!.setting), "server.log")
    const setLogging = async (on: boolean) => {
      for (const name of ["log_min_duration_statement", "log_statement_stats"]) {
        await cluster.query(cluster.adminUrl, on ? `alter system set ${name} = ${name === "log_statement_stats" ? "on" : "0"}` : `alter system reset ${name}`)
      }
      await cluster.query(cluster.adminUrl, "select pg_reload_conf()")
      await sleep(300)
    }
    for (const level of LEVELS) {
      const url = await cluster.database(`statements_${level}_${Date.now()}`)
      process.stderr.write(`filling ${level} payments…\n`)
      const server = await startScaleServer(level, { DATABASE_URL: url, PAYMENTS_DATA_DIR: "" }, ["--max-old-space-size=4096"])
      try {
        console.log(`\n===== ${level} payments (fill ${(server.ready.fillMillis / 1000).toFixed(1)} s)`)
        const port = server.ready.port
        if (LOAD_SECONDS > 0) await moneyLoad(port, server.ready.pairs.slice(0, 10), LOAD_SECONDS, 10)
        await sleep(2000)
        for (const template of REQUESTS > 0 ? paths : []) {
          const path = template.replace("{id}", encodeURIComponent(server.ready.sample.customerId)).replace("{quote}", encodeURIComponent(server.ready.sample.quoteId))
          for (let i = 0; i < 20; i++) await get(port, path)
          await setLogging(true)
          const from = statSync(logFile).size
          for (let i = 0; i < REQUESTS; i++) {
            await get(port, path)
            await sleep(5)
          }
          await setLogging(false)
          const text = readFileSync(logFile, "utf8").slice(from)
          // The bench's own connection's statements (ALTER SYSTEM, pg_reload_conf) are simple-protocol: not parsed here.
          const messages = parseLog(text)
          const byStatement = new Map<string, Array<Message>>()
          for (const m of messages) {
            const key = `${m.kind} ${m.statement}`
            let list = byStatement.get(key)
            if (list === undefined) byStatement.set(key, list = [])
            list.push(m)
          }
          const common = [...byStatement].filter(([, list]) => list.length >= REQUESTS / 2)
          const rare = [...byStatement].filter(([, list]) => list.length < REQUESTS / 2)
          const sum = (xs: ReadonlyArray<readonly [string, ReadonlyArray<Message>]>, f: (m: Message) => number | undefined) =>
            xs.reduce((acc, [, list]) => acc + median(list.map(f).filter((x): x is number => x !== undefined)) * (list.length / REQUESTS), 0)
          console.log(`\n## GET ${template}: ${messages.length} messages over ${REQUESTS} requests; per request (medians × messages per request): ` +
            `duration ${f3(sum(common, (m) => m.ms))} ms, backend CPU ${f3(sum(common, (m) => m.cpu))} ms`)
          console.log("| per request | message | statement | median duration | median backend CPU |")
          console.log("|---|---|---|---|---|")
          for (const [key, list] of common) {
            const kind = key.slice(0, key.indexOf(" "))
            console.log(`| ${(list.length / REQUESTS).toFixed(2)} | ${kind} | ${list[0]!.statement.replaceAll("|", "\\|")} | ${f3(median(list.map((m) => m.ms)))} ms | ${
              f3(median(list.map((m) => m.cpu).filter((x): x is number => x !== undefined)))} ms |`)
          }
          if (rare.length > 0) {
            console.log(`seen in fewer than half the requests (the server's background, or a statement prepared once): ${
              rare.map(([key, list]) => `${list.length}× ${key.slice(0, 100)}`).join("; ")}`)
          }
        }
        if (RUNS > 0) await statementsAlone(url)
      } finally {
        await server.stop()
      }
    }
  } finally {
    await cluster.stop()
  }
}

await runThenExit(main)
