/**
 * What the raw baselines share: a bare node:http server that reads the body, parses
 * the JSON, checks two fields and answers a 201 with the new account, plus (for the
 * database baselines) one write through `store` with the same store client the app
 * uses. No framework, no rules, no transaction: what the work alone costs here.
 */
import { randomUUID } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"

/** The row a database baseline writes: the columns of the app's `external_accounts` table. */
export interface RawAccountRow {
  readonly platformId: string
  readonly id: string
  readonly createdMs: number
  readonly customerId: string
  readonly currency: string
  readonly equivalenceKey: string
  /** The response JSON, stored as the row's `doc` like the app stores its record. */
  readonly doc: string
}

/** Writes one row; "duplicate" when an account with the same equivalence key exists. */
export type RawInsert = (row: RawAccountRow) => Promise<"created" | "duplicate">

/** The app's `external_accounts` table and indexes (src/adapters/sql/migrations.ts), for the baselines' own databases. */
export const EXTERNAL_ACCOUNTS_DDL = [
  `create table if not exists external_accounts (
    platform_id text collate "C" not null,
    id text collate "C" not null,
    created_ms bigint not null,
    customer_id text collate "C",
    currency text not null,
    equivalence_key text collate "C" not null,
    default_uma boolean not null,
    doc jsonb not null,
    primary key (platform_id, id)
  )`,
  `create unique index if not exists external_accounts_equivalence on external_accounts (platform_id, equivalence_key)`,
  `create unique index if not exists external_accounts_default_uma on external_accounts (platform_id, customer_id) where default_uma`,
  `create index if not exists external_accounts_keyset on external_accounts (platform_id, created_ms, id)`
]

/** The one statement per request: insert, or nothing when the equivalence key is taken (then 409). */
export const INSERT_ACCOUNT_SQL = `insert into external_accounts (platform_id, id, created_ms, customer_id, currency, equivalence_key, default_uma, doc)
  values ($1, $2, $3::bigint, $4, $5, $6, false, $7::jsonb)
  on conflict (platform_id, equivalence_key) do nothing
  returning id`

export const rowParams = (r: RawAccountRow): Array<unknown> => [r.platformId, r.id, r.createdMs, r.customerId, r.currency, r.equivalenceKey, r.doc]

const json = (res: ServerResponse, status: number, body: string) =>
  res.writeHead(status, { "content-type": "application/json" }).end(body)

type Body = { customerId?: unknown; currency?: unknown; accountInfo?: Record<string, unknown> }

const handler = (insert: RawInsert | undefined) => (req: IncomingMessage, res: ServerResponse) => {
  const chunks: Array<Buffer> = []
  req.on("data", (c: Buffer) => chunks.push(c))
  req.on("end", () => {
    let body: Body
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
    } catch {
      json(res, 400, JSON.stringify({ code: "INVALID_INPUT", reason: "bad json" }))
      return
    }
    if (typeof body.customerId !== "string" || typeof body.accountInfo !== "object") {
      json(res, 400, JSON.stringify({ code: "INVALID_INPUT", reason: "bad body" }))
      return
    }
    const millis = Date.now()
    const now = new Date(millis).toISOString()
    const id = `ExternalAccount:${randomUUID()}`
    const out = JSON.stringify({
      id,
      customerId: body.customerId,
      status: "ACTIVE",
      currency: body.currency,
      defaultUmaDepositAccount: false,
      beneficiaryVerificationStatus: "MATCHED",
      accountInfo: body.accountInfo,
      createdAt: now,
      updatedAt: now
    })
    if (insert === undefined) {
      json(res, 201, out)
      return
    }
    const info = body.accountInfo
    insert({
      platformId: "bench",
      id,
      createdMs: millis,
      customerId: body.customerId,
      currency: String(body.currency),
      equivalenceKey: `${body.customerId}|${String(info["accountType"])}|${String(info["routingNumber"])}|${String(info["accountNumber"])}`,
      doc: out
    }).then(
      (outcome) =>
        outcome === "created"
          ? json(res, 201, out)
          : json(res, 409, JSON.stringify({ code: "DUPLICATE_EXTERNAL_ACCOUNT", reason: "duplicate" })),
      () => json(res, 500, JSON.stringify({ code: "INTERNAL", reason: "store failed" }))
    )
  })
}

/**
 * Listens on an ephemeral loopback port, tells the bench the port, answers its CPU
 * questions, and runs `close` (the store's) on SIGTERM before exiting.
 */
export const serveRaw = (insert?: RawInsert, close: () => Promise<void> = async () => {}) => {
  const server = createServer(handler(insert))
  server.listen(0, "127.0.0.1", () => {
    const addr = server.address()
    if (addr !== null && typeof addr === "object") process.send?.({ port: addr.port })
  })
  // The bench asks for CPU time to report CPU per request.
  process.on("message", (m) => {
    if (m === "cpu") {
      const u = process.cpuUsage()
      process.send?.({ cpuMicros: u.user + u.system })
    }
  })
  process.on("SIGTERM", () => {
    server.close()
    server.closeAllConnections()
    close().then(() => process.exit(0), () => process.exit(1))
  })
  // The bench went away without stopping us (killed): don't outlive it.
  process.on("disconnect", () => process.exit(0))
}
