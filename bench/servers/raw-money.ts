/**
 * The quote + execute baseline: a bare node:http server that answers POST …/quotes and
 * POST …/quotes/{id}/execute with the least work a ledger needs, on the store
 * RAW_STORE names with its plain client:
 * - quote: parse the JSON, check the fields, store the quote (one INSERT);
 * - execute: in one transaction, mark the quote executed (only if still pending), take
 *   the amount from the source balance (only if it covers it), give it to the
 *   destination, write the journal's postings; 400 when the balance is short, 409 when
 *   the quote was already executed.
 * memory: Maps; pglite: `@electric-sql/pglite` on PAYMENTS_DATA_DIR; postgres: `pg`
 * (pool of 16, READ COMMITTED) on DATABASE_URL. No framework, rules, fees, rates,
 * events or idempotency: what moving the money alone costs here.
 *
 * Statements go as the store sends its own, so the ratio measures the app rather than a
 * client: named prepared statements (`pg`'s `name`; on PGlite the store's own client,
 * `pgliteStatements`, one call per statement where `db.query` makes six), and on PGlite
 * the quote's insert waits its turn with the transactions on the one connection.
 */
import { randomUUID } from "node:crypto"
import { mkdirSync } from "node:fs"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { join } from "node:path"
import { RAW_ACCOUNT_PAIRS } from "./platform.js"

const FUNDING = 1_000_000_000_000_000

interface Quote {
  readonly id: string
  readonly source: string
  readonly destination: string
  readonly amount: number
}

interface RawLedger {
  readonly putQuote: (q: Quote) => Promise<void>
  readonly execute: (id: string) => Promise<"ok" | "executed" | "insufficient">
  readonly close: () => Promise<void>
}

const DDL = [
  `create table if not exists raw_quotes (id text collate "C" primary key, source text not null, destination text not null, amount bigint not null, status text not null, doc jsonb not null)`,
  `create table if not exists raw_balances (account text collate "C" primary key, balance bigint not null)`,
  `create table if not exists raw_postings (id bigserial primary key, tx text not null, account text not null, amount bigint not null)`
]
const SEED = `insert into raw_balances (account, balance)
  select 'raw-src-' || i, ${FUNDING} from generate_series(0, ${RAW_ACCOUNT_PAIRS - 1}) i
  union all select 'raw-dst-' || i, 0 from generate_series(0, ${RAW_ACCOUNT_PAIRS - 1}) i
  on conflict do nothing`
const INSERT_QUOTE = `insert into raw_quotes (id, source, destination, amount, status, doc) values ($1, $2, $3, $4::bigint, 'PENDING', $5::jsonb)`
const CLAIM = `update raw_quotes set status = 'EXECUTED' where id = $1 and status = 'PENDING' returning source, destination, amount`
const DEBIT = `update raw_balances set balance = balance - $2::bigint where account = $1 and balance >= $2::bigint returning account`
const CREDIT = `update raw_balances set balance = balance + $2::bigint where account = $1`
const POSTINGS = `insert into raw_postings (tx, account, amount) values ($1, $2, -$4::bigint), ($1, $3, $4::bigint)`

interface Sql {
  readonly query: (text: string, params?: Array<unknown>) => Promise<{ readonly rows: ReadonlyArray<Record<string, unknown>> }>
}

/** Execute as one transaction over `sql` (a client holding one connection). */
const executeOn = async (sql: Sql, id: string): Promise<"ok" | "executed" | "insufficient"> => {
  await sql.query("begin")
  try {
    const claimed = await sql.query(CLAIM, [id])
    const q = claimed.rows[0]
    if (q === undefined) {
      await sql.query("rollback")
      return "executed"
    }
    const debited = await sql.query(DEBIT, [q["source"], q["amount"]])
    if (debited.rows.length !== 1) {
      await sql.query("rollback")
      return "insufficient"
    }
    await sql.query(CREDIT, [q["destination"], q["amount"]])
    await sql.query(POSTINGS, [id, q["source"], q["destination"], q["amount"]])
    await sql.query("commit")
    return "ok"
  } catch (e) {
    await sql.query("rollback")
    throw e
  }
}

const memoryLedger = (): RawLedger => {
  const quotes = new Map<string, Quote & { status: string }>()
  const balances = new Map<string, number>()
  const postings: Array<{ tx: string; account: string; amount: number }> = []
  for (let i = 0; i < RAW_ACCOUNT_PAIRS; i++) {
    balances.set(`raw-src-${i}`, FUNDING)
    balances.set(`raw-dst-${i}`, 0)
  }
  return {
    putQuote: async (q) => void quotes.set(q.id, { ...q, status: "PENDING" }),
    execute: async (id) => {
      const q = quotes.get(id)
      if (q === undefined || q.status !== "PENDING") return "executed"
      const balance = balances.get(q.source) ?? 0
      if (balance < q.amount) return "insufficient"
      q.status = "EXECUTED"
      balances.set(q.source, balance - q.amount)
      balances.set(q.destination, (balances.get(q.destination) ?? 0) + q.amount)
      postings.push({ tx: id, account: q.source, amount: -q.amount }, { tx: id, account: q.destination, amount: q.amount })
      return "ok"
    },
    close: async () => {}
  }
}

/** A name per statement text, so `pg` prepares each once per connection. */
const statementNames = new Map<string, string>()
const statementName = (text: string): string => {
  let name = statementNames.get(text)
  if (name === undefined) statementNames.set(text, name = `raw-${statementNames.size + 1}`)
  return name
}

const postgresLedger = async (url: string): Promise<RawLedger> => {
  const { default: pg } = await import("pg")
  const pool = new pg.Pool({ connectionString: url, max: 16, idleTimeoutMillis: 0, application_name: "bench-raw-money" })
  for (const ddl of [...DDL, SEED]) await pool.query(ddl)
  return {
    putQuote: async (q) => void (await pool.query({ name: "raw-quote", text: INSERT_QUOTE, values: [q.id, q.source, q.destination, q.amount, JSON.stringify(q)] })),
    execute: async (id) => {
      const client = await pool.connect()
      try {
        return await executeOn({ query: async (text, params) => {
          const r = await client.query(params === undefined ? text : { name: statementName(text), text, values: params })
          return { rows: r.rows }
        } }, id)
      } finally {
        client.release()
      }
    },
    close: () => pool.end()
  }
}

const pgliteLedger = async (dir: string): Promise<RawLedger> => {
  const { PGlite } = await import("@electric-sql/pglite")
  const { pgliteStatements } = await import("../../src/adapters/sql/pglite.js")
  mkdirSync(dir, { recursive: true })
  const db = await PGlite.create({ dataDir: join(dir, "pgdata") })
  for (const ddl of [...DDL, SEED]) await db.query(ddl)
  const statement = pgliteStatements(db)
  // One connection: the quotes' inserts and the transactions take turns.
  let queue: Promise<unknown> = Promise.resolve()
  const inTurn = <A>(f: () => Promise<A>): Promise<A> => {
    const run = queue.then(f)
    queue = run.catch(() => undefined)
    return run
  }
  const sql: Sql = { query: async (text, params) => ({ rows: await statement(text, params) }) }
  return {
    putQuote: (q) => inTurn(async () => void (await statement(INSERT_QUOTE, [q.id, q.source, q.destination, q.amount, JSON.stringify(q)]))),
    execute: (id) => inTurn(() => executeOn(sql, id)),
    close: () => db.close()
  }
}

const json = (res: ServerResponse, status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body))

const handler = (ledger: RawLedger) => (req: IncomingMessage, res: ServerResponse) => {
  const chunks: Array<Buffer> = []
  req.on("data", (c: Buffer) => chunks.push(c))
  req.on("end", () => {
    const url = req.url ?? "/"
    const execute = /\/quotes\/([^/]+)\/execute$/.exec(url)
    const fail = () => json(res, 500, { code: "INTERNAL", reason: "store failed" })
    if (execute !== null) {
      const id = decodeURIComponent(execute[1]!)
      ledger.execute(id).then((outcome) =>
        outcome === "ok"
          ? json(res, 200, { id, status: "COMPLETED" })
          : outcome === "executed"
          ? json(res, 409, { code: "CONFLICT", reason: "already executed" })
          : json(res, 400, { code: "INSUFFICIENT_FUNDS", reason: "insufficient funds" }), fail)
      return
    }
    let body: { source?: { accountId?: unknown }; destination?: { accountId?: unknown }; lockedCurrencyAmount?: unknown }
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
    } catch {
      return json(res, 400, { code: "INVALID_INPUT", reason: "bad json" })
    }
    const source = body.source?.accountId
    const destination = body.destination?.accountId
    const amount = body.lockedCurrencyAmount
    if (typeof source !== "string" || typeof destination !== "string" || typeof amount !== "number" || !Number.isSafeInteger(amount) || amount <= 0) {
      return json(res, 400, { code: "INVALID_INPUT", reason: "bad body" })
    }
    const now = new Date().toISOString()
    const quote = { id: `Quote:${randomUUID()}`, source, destination, amount }
    ledger.putQuote(quote).then(() =>
      json(res, 201, {
        ...quote,
        status: "PENDING",
        createdAt: now,
        totalSendingAmount: amount,
        totalReceivingAmount: amount,
        transactionId: `Transaction:${randomUUID()}`
      }), fail)
  })
}

const store = process.env["RAW_STORE"] ?? "memory"
const ledger = store === "postgres"
  ? await postgresLedger(process.env["DATABASE_URL"] ?? "")
  : store === "pglite"
  ? await pgliteLedger(process.env["PAYMENTS_DATA_DIR"] ?? "")
  : memoryLedger()

const server = createServer(handler(ledger))
server.listen(0, "127.0.0.1", () => {
  const addr = server.address()
  if (addr !== null && typeof addr === "object") process.send?.({ port: addr.port })
})
process.on("message", (m) => {
  if (m === "cpu") {
    const u = process.cpuUsage()
    process.send?.({ cpuMicros: u.user + u.system })
  }
})
process.on("SIGTERM", () => {
  server.close()
  server.closeAllConnections()
  ledger.close().then(() => process.exit(0), () => process.exit(1))
})
process.on("disconnect", () => process.exit(0))
