import "effect/schema/SchemaJITCompiler/enable"
/**
 * The scale bench's server child (bench/scale.ts): the reference server on the store
 * DATABASE_URL / PAYMENTS_DATA_DIR choose, filled with SCALE_PAYMENTS payments before it
 * reports its port. The fill goes through the store port, not HTTP: one payment is made
 * over HTTP as a template (customers, internal and external accounts, funding, quote,
 * transaction, journal entries, events), then cloned with fresh ids and timestamps and
 * written in units of work of SCALE_BATCH payments (webhook deliveries, DELIVERED, one
 * per payment event, are added beside them).
 *
 * Who pays: half the payments are made by the 50 "hot" payers the load uses afterwards
 * (so their own history grows with N: what a per-customer check that reads history
 * would pay for), the rest by other payers, ten payments each. Creation times spread
 * over the 30 days before now, oldest first.
 */
import { writeFileSync } from "node:fs"
import { Session } from "node:inspector/promises"
import { join } from "node:path"
import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { RandomIdsLayer } from "../../src/adapters/memory/ids.js"
import { staticPlatformsLayer } from "../../src/adapters/memory/platforms.js"
import { pgliteClientLayer, pgliteStoreOnClient } from "../../src/adapters/sql/index.js"
import { LoopbackWebhookSenderLayer } from "../../src/adapters/webhook-http.js"
import { webhookBodyOf } from "../../src/domain/events.js"
import { serveReference } from "../../src/http/node.js"
import type { CustomerRecord, ExternalAccountRecord, InternalAccountRecord, JournalEntry, QuoteRecord, StoredEvent, TransactionRecord, UnitOfWork, WebhookDeliveryRecord } from "../../src/ports/store.js"
import { Store } from "../../src/ports/store.js"
import { Platforms } from "../../src/ports/platforms.js"
import type { Ids } from "../../src/ports/ids.js"
import { DEFAULT_WEBHOOK_RETENTION_MILLIS, sweepPlatform } from "../../src/operations/retention.js"
import { servicesFor, storeChoiceFromEnv } from "../../src/server/services.js"
import { benchCustomerBody, benchMoneyPlatform, moneyApi } from "./platform.js"
import { cloneId, type Exec, PAIR_TOKEN_BASE, sqlFill, type SqlFillTemplate } from "./scale-sql-fill.js"

const N = Number(process.env["SCALE_PAYMENTS"] ?? "1000")
const BATCH = Number(process.env["SCALE_BATCH"] ?? "500")
/**
 * How the SQL stores are filled: `sql` (default: the template's rows cloned set-wise in
 * the database, ./scale-sql-fill.ts) or `port` (through the store port, as the memory
 * store always is: the cross-check, and what the fill was before).
 */
const FILL = process.env["SCALE_FILL"] ?? "sql"
/**
 * SCALE_SQL_EVENTS=all: the SQL fill writes every clone's events and deliveries; by
 * default it leaves out those older than the retention period, which the sweep after
 * the fill would remove at once (the same rows remain either way; writing and then
 * sweeping them was most of the time at 1,000,000 payments).
 */
const SQL_EVENTS_ALL = process.env["SCALE_SQL_EVENTS"] === "all"
/** Payments per statement round of the SQL fill. */
const SQL_CHUNK = Number(process.env["SCALE_SQL_CHUNK"] ?? "20000")
/** Units of work in flight at once while filling (default 1: on PostgreSQL more conflict on the platform's own accounts the payments credit, and can exhaust the retries). */
const CONCURRENCY = Number(process.env["SCALE_FILL_CONCURRENCY"] ?? "1")
/** Load pairs (one per connection at most). */
export const HOT_PAIRS = 50
const PAYMENTS_PER_COLD_PAIR = 10
const SPREAD_MS = 30 * 24 * 3600_000

const platformId = benchMoneyPlatform.id

export interface ScaleReady {
  readonly port: number
  readonly fillMillis: number
  /** Heap used after the fill minus before it, per payment (after a full GC when --expose-gc). */
  readonly heapBytesPerPayment: number | undefined
  /**
   * The same after the retention sweep the server's scheduler makes (the default 7 days:
   * of payments spread over 30 days, the older three quarters lose their events and
   * delivered webhooks), per payment.
   */
  readonly heapBytesPerPaymentAfterRetention: number | undefined
  /** What that sweep removed, and how long it took. */
  readonly swept: { readonly deliveries: number; readonly events: number }
  readonly sweepMillis: number
  /** The server's heap after the sweep (after a full GC when --expose-gc), whatever the store. */
  readonly heapBytes: number | undefined
  readonly pairs: ReadonlyArray<{ readonly source: string; readonly destination: string; readonly customerId: string }>
  /** Ids of stored rows, for gets. */
  readonly sample: { readonly transactionId: string; readonly customerId: string; readonly externalAccountId: string; readonly quoteId: string }
}

const api = (port: number, method: string, path: string, body?: unknown) =>
  Effect.promise(() => moneyApi(port, method, path, body))

const customerBody = benchCustomerBody

interface Template {
  readonly customers: ReadonlyArray<CustomerRecord>
  readonly accounts: ReadonlyArray<InternalAccountRecord>
  readonly external: ExternalAccountRecord
  readonly funding: JournalEntry
  readonly quote: QuoteRecord
  readonly transaction: TransactionRecord
  readonly entries: ReadonlyArray<JournalEntry>
  /** Events of the pair (customers created) and of the payment. */
  readonly pairEvents: ReadonlyArray<StoredEvent>
  readonly paymentEvents: ReadonlyArray<StoredEvent>
  /** Every id, unique key and instant the template holds, to replace in clones. */
  readonly ids: ReadonlyArray<string>
  readonly at: number
}

const sleep = (ms: number) => Effect.promise(() => new Promise((r) => setTimeout(r, ms)))

/** One payment over HTTP, then its rows read back through the store port. */
const makeTemplate = (port: number, store: Store["Service"]) =>
  Effect.gen(function*() {
    const before = (yield* store.events.list(platformId, { limit: 1_000_000 })).at(-1)?.seq ?? 0
    const payer = yield* api(port, "POST", "/customers", customerBody("Scale Payer"))
    const payee = yield* api(port, "POST", "/customers", customerBody("Scale Payee"))
    const payerId = String(payer["id"])
    const payeeId = String(payee["id"])
    const usdOf = (customerId: string) =>
      api(port, "GET", `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}&currency=USD`).pipe(
        Effect.map((list) => String((list["data"] as Array<{ id: string }>)[0]?.id))
      )
    const source = yield* usdOf(payerId)
    const destination = yield* usdOf(payeeId)
    yield* api(port, "POST", `/sandbox/internal-accounts/${encodeURIComponent(source)}/fund`, { amount: 100_000_000_000 })
    const ext = yield* api(port, "POST", "/customers/external-accounts", {
      customerId: payerId,
      currency: "USD",
      platformAccountId: "scale-template",
      accountInfo: {
        accountType: "USD_ACCOUNT",
        accountNumber: "1000000010",
        routingNumber: "021000021",
        bankAccountType: "CHECKING",
        bankName: "Bench Bank",
        beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Ada Lovelace", birthDate: "1990-01-31", nationality: "GB" }
      }
    })
    const afterPair = (yield* store.events.list(platformId, { afterSeq: before, limit: 1_000_000 })).at(-1)?.seq ?? before
    const quote = yield* api(port, "POST", "/quotes", {
      source: { sourceType: "ACCOUNT", accountId: source },
      destination: { destinationType: "ACCOUNT", accountId: destination },
      lockedCurrencySide: "SENDING",
      lockedCurrencyAmount: 100
    })
    const quoteId = String(quote["id"])
    const executed = yield* api(port, "POST", `/quotes/${encodeURIComponent(quoteId)}/execute`)
    const transactionId = String(executed["transactionId"] ?? "")
    // Let the sandbox settle it (its timers), so clones are settled payments.
    let transaction: TransactionRecord | undefined
    for (let i = 0; i < 40; i++) {
      transaction = (yield* store.transactions.list(platformId, { customerId: payerId, type: "OUTGOING" }, { limit: 1 })).data[0]
      if (transaction !== undefined && transaction.transaction.status === "COMPLETED") break
      yield* sleep(250)
    }
    if (transaction === undefined) return yield* Effect.die(new Error(`template payment not found (execute answered ${JSON.stringify(executed)})`))
    if (transactionId !== "" && transactionId !== transaction.transaction.id) return yield* Effect.die(new Error("template transaction mismatch"))
    const customers = [(yield* store.customers.get(platformId, payerId))!, (yield* store.customers.get(platformId, payeeId))!]
    const accounts = [
      ...(yield* store.internalAccounts.list(platformId, { owner: "customer", customerId: payerId }, { limit: 100 })).data,
      ...(yield* store.internalAccounts.list(platformId, { owner: "customer", customerId: payeeId }, { limit: 100 })).data
    ]
    const external = (yield* store.externalAccounts.get(platformId, String(ext["id"])))!
    const quoteRecord = (yield* store.quotes.get(platformId, quoteId))!
    const entries = yield* store.ledger.entries(platformId, { transactionId: transaction.transaction.id })
    const funding = (yield* store.ledger.entries(platformId)).find((e) => e.kind === "FUND" && e.postings.some((p) => p.account.includes(source)))
    if (funding === undefined) return yield* Effect.die(new Error("template funding entry not found"))
    const events = yield* store.events.list(platformId, { afterSeq: before, limit: 1_000_000 })
    const strings = new Set<string>([payerId, payeeId, quoteId, transaction.transaction.id, external.account.id, external.equivalenceKey, funding.id])
    for (const c of customers) {
      if (c.customer.platformCustomerId !== undefined) strings.add(c.customer.platformCustomerId)
      if (c.customer.umaAddress !== undefined) strings.add(c.customer.umaAddress)
    }
    for (const a of accounts) strings.add(a.id)
    for (const e of entries) strings.add(e.id)
    for (const e of events) strings.add(String((e.event as { readonly id: string }).id))
    return {
      customers,
      accounts,
      external,
      funding,
      quote: quoteRecord,
      transaction,
      entries,
      pairEvents: events.filter((e) => e.seq <= afterPair),
      paymentEvents: events.filter((e) => e.seq > afterPair),
      ids: [...strings].filter((s) => s.length >= 6).sort((a, b) => b.length - a.length),
      at: Date.parse(transaction.transaction.createdAt)
    } satisfies Template
  })

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
const ISO = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z/g

/**
 * Rewrites ids (each template id to a fresh one for this clone) and shifts every ISO
 * instant by `shift` ms. A clone keeps the template's sharing: `memo` (one per payment,
 * or per pair) maps each template object to its clone, so an object the template's
 * records share (the COMPLETED event's `data` is the stored transaction; a quote and its
 * transaction share amounts and currencies) is one object in the clones too, and a part
 * with nothing to rewrite (a currency) is the template's own object: the clones hold
 * what payments made through the API hold, not a JSON copy of everything per record.
 * Objects are copied by spread, so a clone has its template object's layout.
 */
const makeCloner = (template: Template) => {
  const pattern = new RegExp(template.ids.map(escape).join("|"), "g")
  const rewrite = (s: string, ids: ReadonlyMap<string, string>, shift: number) =>
    s.replace(pattern, (m) => ids.get(m) ?? m).replace(ISO, (m) => new Date(Date.parse(m) + shift).toISOString())
  const cloneValue = (v: unknown, ids: ReadonlyMap<string, string>, shift: number, memo: Map<unknown, unknown>): unknown => {
    if (typeof v !== "string" && (typeof v !== "object" || v === null)) return v
    if (memo.has(v)) return memo.get(v)
    let result: unknown = v
    if (typeof v === "string") result = rewrite(v, ids, shift)
    else if (Array.isArray(v)) {
      const out = v.map((x) => cloneValue(x, ids, shift, memo))
      if (out.some((x, i) => x !== v[i])) result = out
    } else {
      const source = v as Record<string, unknown>
      let out: Record<string, unknown> | undefined
      for (const key of Object.keys(source)) {
        const c = cloneValue(source[key], ids, shift, memo)
        if (c === source[key]) continue
        out ??= { ...source }
        out[key] = c
      }
      if (out !== undefined) result = out
    }
    memo.set(v, result)
    return result
  }
  return <T>(value: T, ids: ReadonlyMap<string, string>, shift: number, memo: Map<unknown, unknown>): T => cloneValue(value, ids, shift, memo) as T
}

let counter = 0
/** A fresh id of the template id's shape: its prefix and a UUID-shaped unique tail. */
const freshId = (templateId: string): string => {
  const n = (++counter).toString(16).padStart(12, "0")
  const colon = templateId.lastIndexOf(":")
  const tail = `00000000-0000-7000-8000-${n}`
  return colon >= 0 ? `${templateId.slice(0, colon + 1)}${tail}` : `${templateId}-${n}`
}

interface Pair {
  readonly ids: Map<string, string>
  readonly payerId: string
  readonly source: string
  readonly destination: string
}

const fill = (store: Store["Service"], template: Template) =>
  Effect.gen(function*() {
    const clone = makeCloner(template)
    const payerT = template.customers[0]!.customer.id
    const sourceT = template.accounts.find((a) => a.customerId === payerT && a.currency === "USD")!.id
    const destinationT = template.accounts.find((a) => a.customerId !== payerT && a.currency === "USD")!.id
    const cold = Math.max(1, Math.ceil((N - Math.floor(N / 2)) / PAYMENTS_PER_COLD_PAIR))
    const pairCount = HOT_PAIRS + cold
    const start = Date.now() - SPREAD_MS
    const pairs: Array<Pair> = []
    const pairIds = (): Map<string, string> => {
      const ids = new Map<string, string>()
      for (const id of [payerT, template.customers[1]!.customer.id, template.external.account.id, template.funding.id, ...template.accounts.map((a) => a.id), ...template.pairEvents.map((e) => String((e.event as { readonly id: string }).id))]) ids.set(id, freshId(id))
      for (const c of template.customers) {
        if (c.customer.platformCustomerId !== undefined) ids.set(c.customer.platformCustomerId, `${c.customer.platformCustomerId}-${counter.toString(36)}`)
        if (c.customer.umaAddress !== undefined) ids.set(c.customer.umaAddress, c.customer.umaAddress.replace(/^\$?([^@]*)/, (_m, name: string) => `$${name}${counter.toString(36)}`))
      }
      ids.set(template.external.equivalenceKey, `${template.external.equivalenceKey}-${counter.toString(36)}`)
      return ids
    }
    // Pairs first, dated at the start of the spread.
    const pairShift = start - template.at
    for (let from = 0; from < pairCount; from += BATCH) {
      const batch: Array<Pair> = []
      for (let i = from; i < Math.min(pairCount, from + BATCH); i++) {
        const ids = pairIds()
        batch.push({ ids, payerId: ids.get(payerT)!, source: ids.get(sourceT)!, destination: ids.get(destinationT)! })
      }
      yield* store.transact((uow) =>
        Effect.gen(function*() {
          for (const p of batch) {
            const memo = new Map<unknown, unknown>()
            for (const c of template.customers) yield* uow.putCustomer(clone(c, p.ids, pairShift, memo))
            for (const a of template.accounts) yield* uow.putInternalAccount(clone(a, p.ids, pairShift, memo))
            yield* uow.putExternalAccount(clone(template.external, p.ids, pairShift, memo))
            yield* uow.post(clone(template.funding, p.ids, pairShift, memo))
            for (const e of template.pairEvents) yield* uow.emit(clone(e.event, p.ids, pairShift, memo))
          }
        })
      ).pipe(Effect.orDie)
      pairs.push(...batch)
    }
    // Payments, oldest first.
    const step = (SPREAD_MS - 60_000) / Math.max(1, N)
    const paymentTemplateIds = [template.quote.quote.id, template.transaction.transaction.id, ...template.entries.map((e) => e.id), ...template.paymentEvents.map((e) => String((e.event as { readonly id: string }).id))]
    // Units of work in flight together pay from disjoint payers (lanes: batch b takes lane
    // b mod CONCURRENCY), so they do not conflict on a payer's balance or daily total.
    const laneCount = Math.max(1, Math.min(CONCURRENCY, HOT_PAIRS, cold))
    const lanes = Array.from({ length: laneCount }, (_, l) => ({
      hot: pairs.slice(0, HOT_PAIRS).filter((_, i) => i % laneCount === l),
      cold: pairs.slice(HOT_PAIRS).filter((_, i) => i % laneCount === l)
    }))
    const seqStart = yield* store.webhooks.lastEventSeq(platformId)
    const eventsPerPayment = template.paymentEvents.length
    let done = 0
    const batches = Array.from({ length: Math.ceil(N / BATCH) }, (_, b) => b * BATCH)
    yield* Effect.forEach(batches, (from) =>
      Effect.gen(function*() {
        const to = Math.min(N, from + BATCH)
        const deliveries: Array<WebhookDeliveryRecord> = []
        yield* store.transact((uow: UnitOfWork) =>
          Effect.gen(function*() {
            for (let j = from; j < to; j++) {
              const lane = lanes[(from / BATCH) % lanes.length]!
              const pair = j % 2 === 0 ? lane.hot[(j / 2) % lane.hot.length]! : lane.cold[Math.floor(j / 2) % lane.cold.length]!
              const ids = new Map(pair.ids)
              for (const id of paymentTemplateIds) ids.set(id, freshId(id))
              const shift = start + 60_000 + j * step - template.at
              const memo = new Map<unknown, unknown>()
              yield* uow.putQuote(clone(template.quote, ids, shift, memo))
              for (const e of template.entries) yield* uow.post(clone(e, ids, shift, memo))
              yield* uow.putTransaction(clone(template.transaction, ids, shift, memo))
              let k = 0
              for (const e of template.paymentEvents) {
                const event = clone(e.event, ids, shift, memo)
                yield* uow.emit(event)
                const at = template.at + shift
                // Outbox order: the delivery's place among the fill's events (the store numbers the events themselves).
                deliveries.push(deliveredOnce(event, seqStart + j * eventsPerPayment + ++k, ids.get(template.transaction.transaction.id)!, at))
              }
            }
          })
        ).pipe(Effect.orDie)
        yield* store.transact((uow) => uow.addWebhookDeliveries(deliveries))
        done += to - from
        if (Math.floor(done / (BATCH * 20)) !== Math.floor((done - (to - from)) / (BATCH * 20))) {
          process.stderr.write(`  scale fill ${store.info.kind}: ${done.toLocaleString("en-US")} / ${N.toLocaleString("en-US")}\n`)
        }
      }), { discard: true, concurrency: CONCURRENCY })
    return pairs
  })

/** A delivery of `event` (seq `seq`) made once, with a 200, at `at`: what the fill stores per payment event. */
const deliveredOnce = (event: StoredEvent["event"], seq: number, resourceId: string, at: number): WebhookDeliveryRecord => ({
  platformId,
  id: String((event as { readonly id: string }).id),
  seq,
  type: event.type,
  resourceId,
  // What the service stores: the event's webhook body (its envelope, encoded).
  body: webhookBodyOf(event),
  status: "DELIVERED",
  attempts: [{ at: at + 50, url: "https://receiver.invalid/webhooks", durationMs: 12, statusCode: 200 }],
  round: 1,
  nextAttemptAt: at,
  createdAt: at,
  updatedAt: at + 62
})

/** A connection for the SQL fill: PostgreSQL through `pg` (DATABASE_URL). */
const postgresExec = (url: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const pg = (await import("pg")).default
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      return client
    }),
    (client) => Effect.promise(() => client.end())
  ).pipe(Effect.map((client): Exec => async (text, params) => (await client.query(text, params === undefined ? [] : [...params])).rows))

/** The SQL fill (./scale-sql-fill.ts): the template's rows cloned in the database; the pairs as the port fill makes them. */
const fillSql = (store: Store["Service"], template: Template, exec: Exec) =>
  Effect.gen(function*() {
    // The template payment's own deliveries (DELIVERED, one per event), so they are cloned with it.
    const at = template.at
    yield* store.transact((uow) =>
      uow.addWebhookDeliveries(template.paymentEvents.map((e) => deliveredOnce(e.event, e.seq, template.transaction.transaction.id, at)))).pipe(Effect.orDie)
    const payerT = template.customers[0]!.customer.id
    const sourceT = template.accounts.find((a) => a.customerId === payerT && a.currency === "USD")!.id
    const destinationT = template.accounts.find((a) => a.customerId !== payerT && a.currency === "USD")!.id
    const pairIds = [payerT, template.customers[1]!.customer.id, template.external.account.id, template.funding.id, ...template.accounts.map((a) => a.id), ...template.pairEvents.map((e) => String((e.event as { readonly id: string }).id))]
    const pairKeys = [template.external.equivalenceKey]
    for (const c of template.customers) {
      if (c.customer.platformCustomerId !== undefined) pairKeys.push(c.customer.platformCustomerId)
      if (c.customer.umaAddress !== undefined) pairKeys.push(c.customer.umaAddress)
    }
    const paymentIds = [template.quote.quote.id, template.transaction.transaction.id, ...template.entries.map((e) => e.id), ...template.paymentEvents.map((e) => String((e.event as { readonly id: string }).id))]
    const t: SqlFillTemplate = { platformId, pairIds, pairKeys, paymentIds, at }
    const start = Date.now() - SPREAD_MS
    const result = yield* Effect.promise(() => sqlFill(exec, t, {
      payments: N,
      hotPairs: HOT_PAIRS,
      paymentsPerColdPair: PAYMENTS_PER_COLD_PAIR,
      spreadMs: SPREAD_MS,
      chunk: SQL_CHUNK,
      eventsSince: SQL_EVENTS_ALL ? undefined : Date.now() - DEFAULT_WEBHOOK_RETENTION_MILLIS,
      log: (line) => process.stderr.write(`${line}\n`)
    }, start))
    const idOf = (id: string, p: number) => cloneId(id, PAIR_TOKEN_BASE + pairIds.indexOf(id), p)
    return Array.from({ length: result.pairCount }, (_, p): Pair => ({
      ids: new Map(),
      payerId: idOf(payerT, p),
      source: idOf(sourceT, p),
      destination: idOf(destinationT, p)
    }))
  })

/**
 * PGlite with its SqlClient in the context too (the SQL fill runs its statements on the
 * server's own connection: PGlite is one process's): what `pgliteLayer` builds
 * (src/adapters/sql/index.ts), with the client kept.
 */
const pgliteWithClient = (dataDir: string) =>
  Layer.mergeAll(
    Layer.provideMerge(pgliteStoreOnClient(dataDir), pgliteClientLayer(dataDir, {})),
    RandomIdsLayer,
    staticPlatformsLayer([benchMoneyPlatform]),
    LoopbackWebhookSenderLayer
  )

const sqlClientExec = (sql: SqlClient.SqlClient): Exec => (text, params) =>
  Effect.runPromise(Effect.orDie(sql.unsafe(text, params === undefined ? [] : [...params]))) as never

/**
 * SCALE_PROFILE_DIR: CPU profiles of what the server does once filled (the bench's
 * measurements, not the fill), one per phase the bench names (`{ profilePhase }` over
 * IPC: the profile so far is written and the next one starts; the first phase is
 * `load`), written there as scale-<store>-<payments>-<phase>.cpuprofile; the last one
 * when the child is stopped (BENCH_SCALE_PROFILE in bench/scale.ts).
 */
const PROFILE_DIR = process.env["SCALE_PROFILE_DIR"] || undefined
let profiler: Session | undefined
let phase = "load"
const startProfile = async () => {
  if (profiler === undefined) {
    profiler = new Session()
    profiler.connect()
    await profiler.post("Profiler.enable")
  }
  await profiler.post("Profiler.start")
}
const writeProfile = async () => {
  if (profiler === undefined || PROFILE_DIR === undefined) return
  const { profile } = await profiler.post("Profiler.stop")
  const kind = process.env["DATABASE_URL"] ? "postgres" : process.env["PAYMENTS_DATA_DIR"] ? "pglite" : "memory"
  writeFileSync(join(PROFILE_DIR, `scale-${kind}-${N}-${phase}.cpuprofile`), JSON.stringify(profile))
}
const nextProfilePhase = async (next: string) => {
  if (profiler !== undefined && PROFILE_DIR !== undefined) {
    await writeProfile()
    phase = next
    await startProfile()
  }
  process.send?.({ profilePhaseDone: next })
}

const heapUsed = () => {
  const gc = (globalThis as { gc?: () => void }).gc
  if (gc === undefined) return undefined
  gc()
  gc()
  return process.memoryUsage().heapUsed
}

const program = Effect.gen(function*() {
  const choice = storeChoiceFromEnv(process.env)
  if (typeof choice === "string") return yield* Effect.die(new Error(choice))
  // PGlite filled set-wise: its layer keeps the SqlClient, whose connection the fill shares.
  let pgliteExec: Exec | undefined
  let context: Context.Context<Store | Ids | Platforms>
  if (choice.kind === "pglite" && choice.dataDir !== undefined && FILL === "sql") {
    const built = yield* Layer.build(pgliteWithClient(choice.dataDir))
    pgliteExec = sqlClientExec(Context.get(built, SqlClient.SqlClient))
    context = built
  } else {
    context = yield* Layer.build(servicesFor(choice, [benchMoneyPlatform], { webhookDestinations: ["loopback"] }))
  }
  const store = Context.get(context, Store)
  // The scheduler's own retention sweep is off: the sweep below is made once, after the
  // fill, so that the heap figures do not depend on when a background sweep happened to run.
  const { address } = yield* serveReference({ services: Layer.succeedContext(context), host: "127.0.0.1", port: 0, webhookRetentionMillis: false })
  if (address._tag === "UnixPathAddress") return yield* Effect.die(new Error("unexpected unix socket"))
  const port = address.port
  const template = yield* makeTemplate(port, store)
  if (process.env["SCALE_DUMP"] === "1") {
    const size = (x: unknown) => JSON.stringify(x).length
    process.stderr.write(`template bytes (JSON): quote ${size(template.quote)}, transaction ${size(template.transaction)}, entries ${template.entries.length} × ${size(template.entries[0])}, ` +
      `payment events ${template.paymentEvents.length}: ${template.paymentEvents.map((e) => `${e.event.type} ${size(e)}`).join(", ")}; pair events ${template.pairEvents.length}: ${template.pairEvents.map((e) => e.event.type).join(", ")}\n`)
  }
  const heapBefore = heapUsed()
  const began = Date.now()
  const pairs = choice.kind === "postgres" && FILL === "sql"
    ? yield* Effect.flatMap(postgresExec(choice.url), (exec) => fillSql(store, template, exec))
    : pgliteExec !== undefined
    ? yield* fillSql(store, template, pgliteExec)
    : yield* fill(store, template)
  const fillMillis = Date.now() - began
  // What the measurements need of the fill's own bookkeeping (one entry per payer, with
  // its id map on the port fill): the hot payers and one in the middle. The rest is let go
  // before the heap is read, so that neither the heap figures nor the collector's work
  // while measuring carry it (at 1,000,000 payments 50,050 payers).
  const hot = pairs.slice(0, HOT_PAIRS)
  const middle = pairs[Math.floor(pairs.length / 2)]!
  pairs.length = 0
  const heapAfter = heapUsed()
  // The retention sweep, as the background scheduler makes it, until no backlog is left.
  const platforms = Context.get(context, Platforms)
  const platform = (yield* platforms.all).find((p) => p.id === platformId)!
  const swept = { deliveries: 0, events: 0 }
  const sweepBegan = Date.now()
  for (;;) {
    const r = yield* Effect.provideContext(sweepPlatform(platform, Date.now(), DEFAULT_WEBHOOK_RETENTION_MILLIS), context)
    swept.deliveries += r.deliveries
    swept.events += r.events
    if (r.deliveries === 0 && r.events === 0) break
  }
  const sweepMillis = Date.now() - sweepBegan
  const heapSwept = heapUsed()
  const sampleTx = (yield* store.transactions.list(platformId, { customerId: middle.payerId }, { limit: 1 })).data[0]
  const sampleExt = (yield* store.externalAccounts.list(platformId, { owner: "customer", customerId: middle.payerId }, { limit: 1 })).data[0]
  if (sampleTx === undefined || sampleExt === undefined) return yield* Effect.die(new Error("fill wrote no sample rows"))
  const ready: ScaleReady = {
    port,
    fillMillis,
    heapBytesPerPayment: heapBefore === undefined || heapAfter === undefined ? undefined : (heapAfter - heapBefore) / Math.max(1, N),
    heapBytesPerPaymentAfterRetention: heapBefore === undefined || heapSwept === undefined ? undefined : (heapSwept - heapBefore) / Math.max(1, N),
    swept,
    sweepMillis,
    heapBytes: heapSwept,
    pairs: hot.map((p) => ({ source: p.source, destination: p.destination, customerId: p.payerId })),
    sample: { transactionId: sampleTx.transaction.id, customerId: middle.payerId, externalAccountId: sampleExt.account.id, quoteId: sampleTx.transaction.quoteId ?? "" }
  }
  if (PROFILE_DIR !== undefined) yield* Effect.promise(startProfile)
  process.send?.({ ready })
  return yield* Effect.never
})

const fiber = Effect.runFork(Effect.scoped(program).pipe(Effect.tapCause((cause) => Effect.sync(() => {
  process.stderr.write(`scale server failed: ${String(cause)}\n`)
  process.exit(1)
}))))
process.on("message", (m) => {
  if (m === "cpu") {
    const u = process.cpuUsage()
    process.send?.({ cpuMicros: u.user + u.system })
  }
  if (m === "heap") process.send?.({ heapUsed: heapUsed() ?? process.memoryUsage().heapUsed })
  if (typeof m === "object" && m !== null && "profilePhase" in m && typeof m.profilePhase === "string") void nextProfilePhase(m.profilePhase)
})
process.on("SIGTERM", () => {
  fiber.interruptUnsafe()
  void writeProfile().finally(() => process.exit(0))
})
process.on("disconnect", () => process.exit(0))
