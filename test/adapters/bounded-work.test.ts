/**
 * Bounded work: a first page, a get and the daily volume check read a number of rows
 * that does not grow with the table (issue #20). The tables hold several times more
 * rows than the bound allows, so a read that scans them fails here.
 *
 * Memory: the tables count the rows they examine (`rowsExamined`). PostgreSQL: the list
 * statement the store runs (`pageStatement` over `transactionWhere`) is EXPLAINed with
 * ANALYZE after the rows are written, and the rows its scans of `transactions` read are
 * summed (index entries and heap rows, filtered ones included). PGlite runs the same
 * statements and migrations.
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Exit, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { describe, expect } from "vitest"
import { outboxSweepWork } from "../../src/adapters/memory/events.js"
import { rowsExamined } from "../../src/adapters/memory/table.js"
import { customerWhere, externalAccountWhere } from "../../src/adapters/sql/customers.js"
import { pageStatement, type Where } from "../../src/adapters/sql/documents.js"
import { internalAccountWhere, sentVolumeStatement, transactionWhere } from "../../src/adapters/sql/money.js"
import type { CustomerResponse } from "../../src/domain/customer.js"
import type { Currency } from "../../src/domain/money.js"
import type { DomainEvent } from "../../src/ports/events.js"
import { type PageResult, TOTAL_COUNT_LIMIT } from "../../src/ports/shared.js"
import type { CustomerRecord, ExternalAccountRecord, InternalAccountRecord, TransactionQuery, TransactionRecord } from "../../src/ports/store.js"
import { explainGeneric, type PlanNode, rowsRead as rowsReadOf } from "../support/plans.js"
import { storeSuite, type StoreService } from "../support/store-harness.js"

const USD: Currency = { code: "USD", name: "United States Dollar", symbol: "$", decimals: 2 }
const DAY = 86_400_000
/** Rows written: twice what any bounded read may examine. */
const ROWS = 4 * (TOTAL_COUNT_LIMIT + 100)
const LIMIT = 20
/**
 * A first page reads its rows (and one more) and counts at most TOTAL_COUNT_LIMIT + 1
 * matches; an index that serves a filter only in part may pass over some rows that do
 * not match, as many again at most here (the rows are mixed, none rare in its index).
 */
const PAGE_BOUND = 2 * (LIMIT + 1 + TOTAL_COUNT_LIMIT + 1)

/**
 * Customer:hot makes half the payments, 97 others the rest (Customer:cold is one of
 * them, with its own account); every fifth is incoming. (Many customers, as a real
 * table has: a plan made for any customer expects few rows per customer.)
 */
const record = (platformId: string, i: number, now: number): TransactionRecord => {
  const customerId = i % 2 === 0 ? "Customer:hot" : i % 97 === 5 ? "Customer:cold" : `Customer:c${i % 97}`
  const createdAt = new Date(now - (ROWS - i) * 60_000).toISOString()
  const amount = { amount: 100, currency: USD }
  const base = {
    id: `Transaction:${String(i).padStart(8, "0")}`,
    // Every seventh pays Customer:hot's account (some of them from that account: sender and receiver both).
    // and every thirteenth pays InternalAccount:c7 (which sends a few: an account found sparsely on either side).
    destination: {
      destinationType: "ACCOUNT" as const,
      accountId: i % 7 === 3 ? "InternalAccount:hot" : i % 13 === 6 ? "InternalAccount:c7" : `InternalAccount:dst-${i % 89}`
    },
    customerId,
    platformCustomerId: `pc-${customerId}`,
    createdAt,
    updatedAt: createdAt
  }
  const source = { sourceType: "ACCOUNT" as const, accountId: `InternalAccount:${customerId.slice("Customer:".length)}` }
  const plan = {
    debit: { account: source.accountId, currency: "USD", amount: 100 },
    credit: { account: "system:world:USD", currency: "USD", amount: 100 },
    fees: [],
    money: "NONE" as const,
    outcome: "SUCCESS",
    steps: [],
    internalAccounts: [source.accountId]
  }
  if (i % 5 === 4) {
    return { platformId, transaction: { ...base, type: "INCOMING", direction: "CREDIT", status: "COMPLETED", source, receivedAmount: amount }, plan }
  }
  return {
    platformId,
    transaction: { ...base, type: "OUTGOING", direction: "DEBIT", status: i % 3 === 0 ? "FAILED" : "COMPLETED", source, sentAmount: amount },
    plan
  }
}

const fill = (store: StoreService, p: string, now: number) =>
  store.transact((uow) => Effect.forEach(Array.from({ length: ROWS }, (_, i) => i), (i) => uow.putTransaction(record(p, i, now)), { discard: true }))

/** The filters the transaction list offers, each with a value that matches many rows or few. */
const QUERIES: ReadonlyArray<readonly [string, TransactionQuery]> = [
  ["no filter", {}],
  ["type", { type: "OUTGOING" }],
  ["status", { status: "FAILED" }],
  ["type and status", { type: "OUTGOING", status: "COMPLETED" }],
  ["customer (many)", { customerId: "Customer:hot" }],
  ["customer (few)", { customerId: "Customer:cold" }],
  ["customer and type", { customerId: "Customer:hot", type: "INCOMING" }],
  ["platform customer", { platformCustomerId: "pc-Customer:hot" }],
  ["sender (few)", { senderAccountIdentifier: "InternalAccount:cold" }],
  ["receiver", { receiverAccountIdentifier: "InternalAccount:dst-3" }],
  ["account (either side)", { accountIdentifier: "InternalAccount:cold" }],
  ["account (either side, many on both)", { accountIdentifier: "InternalAccount:hot" }],
  ["account (either side, scattered)", { accountIdentifier: "InternalAccount:c7" }],
  ["account (either side) and status", { accountIdentifier: "InternalAccount:hot", status: "COMPLETED" }],
  ["sender (many)", { senderAccountIdentifier: "InternalAccount:hot" }]
]

describe("bounded work on memory", () => {
  const { storeIt } = storeSuite("memory")
  storeIt("a first page of every transaction filter, a get and the volume check examine a bounded number of rows", (store, p) =>
    Effect.gen(function*() {
      const now = Date.now()
      yield* fill(store, p, now)
      for (const [name, q] of QUERIES) {
        for (const descending of [false, true]) {
          const before = rowsExamined.count
          const page = yield* store.transactions.list(p, q, { limit: LIMIT, descending })
          const examined = rowsExamined.count - before
          expect(page.data.length, name).toBeGreaterThan(0)
          expect(examined, `${name}${descending ? ", newest first" : ""}: rows examined`).toBeLessThanOrEqual(PAGE_BOUND)
        }
      }
      let before = rowsExamined.count
      expect(yield* store.transactions.get(p, "Transaction:00000005")).toBeDefined()
      expect(rowsExamined.count - before).toBeLessThanOrEqual(1)
      // The daily window (from a day's start) and any other window: neither reads the sender's history.
      const today = now - (now % DAY)
      before = rowsExamined.count
      yield* store.transactions.sentVolume(p, { customerId: "Customer:hot", currency: "USD", since: today })
      expect(rowsExamined.count - before).toBe(0)
      before = rowsExamined.count
      const lastHour = yield* store.transactions.sentVolume(p, { customerId: "Customer:hot", currency: "USD", since: now - 3_600_000 })
      expect(rowsExamined.count - before).toBeLessThanOrEqual(70)
      expect(lastHour).toBeGreaterThan(0)
    }), 60_000)
})

/**
 * Events in the outbox for the sweep tests, oldest first: the last tenth young (kept by the
 * sweep), and one in a thousand among the old ones (kept too: the sweep keeps them in place).
 */
const OUTBOX = 24_000
const SWEEP = 500
const OLD = Date.parse("2026-01-01T00:00:00.000Z")
const CUT = OLD + 3_600_000
const outboxEvent = (platformId: string, i: number): DomainEvent => ({
  id: `Webhook:event-${i}`,
  platformId,
  type: "TEST",
  timestamp: new Date(i >= OUTBOX * 0.9 || i % 1000 === 999 ? CUT + 60_000 + i : OLD + i).toISOString()
})

describe("bounded work of the memory outbox's retention sweep", () => {
  const { storeIt } = storeSuite("memory")
  storeIt("sweeping a batch costs the batch, not the outbox behind it; the whole backlog costs a few times its size", (store, p) =>
    Effect.gen(function*() {
      yield* store.transact((uow) => Effect.forEach(Array.from({ length: OUTBOX }, (_, i) => i), (i) => uow.emit(outboxEvent(p, i)), { discard: true }))
      const last = yield* store.webhooks.lastEventSeq(p)
      const sweep = { upToSeq: last - 1, before: CUT, limit: SWEEP }
      // One batch at the front of 24,000 events: the batch examined (and nothing moved: none young).
      let before = outboxSweepWork.count
      expect(yield* store.transact((uow) => uow.sweepEvents(p, sweep))).toBe(SWEEP)
      expect(outboxSweepWork.count - before, "one batch").toBeLessThanOrEqual(2 * SWEEP)
      // The backlog, batch by batch, until a batch removes nothing (the young tail): each
      // event examined and moved a few times at most (a splice of the front per batch would
      // move the whole outbox each time: OUTBOX² / (2 × SWEEP), 576,000 here).
      before = outboxSweepWork.count
      let batches = 0
      let removed = 0
      for (;;) {
        const r = yield* store.transact((uow) => uow.sweepEvents(p, sweep))
        if (r === 0) break
        removed += r
        batches++
      }
      expect(batches).toBeGreaterThan(40)
      // Every old one but the 21 young among them (each batch keeps those it examined) and the newest.
      expect(removed + SWEEP).toBe(OUTBOX * 0.9 - 21)
      expect(outboxSweepWork.count - before, "the backlog").toBeLessThanOrEqual(4 * OUTBOX)
      // What is left is what the sweep keeps: the young ones, in order, and the newest.
      const left = yield* store.events.list(p)
      expect(left.length).toBe(OUTBOX / 10 + 21)
      expect(left.every((e, i) => i === 0 || e.seq > left[i - 1]!.seq)).toBe(true)
      expect(left.every((e) => Date.parse(e.event.timestamp) > CUT)).toBe(true)
      expect(yield* store.webhooks.lastEventSeq(p)).toBe(last)
    }), 60_000)

  storeIt("a unit of work that fails after a sweep that cut the swept front off leaves the outbox as it was", (store, p) =>
    Effect.gen(function*() {
      // All old: the sweep's head moves to 12,000 of 20,000, then the next sweep cuts the front off.
      const total = 20_000
      yield* store.transact((uow) => Effect.forEach(Array.from({ length: total }, (_, i) => i), (i) => uow.emit({ ...outboxEvent(p, i), timestamp: new Date(OLD + i).toISOString() }), { discard: true }))
      const last = yield* store.webhooks.lastEventSeq(p)
      const sweep = { upToSeq: last - 1, before: CUT, limit: 2_000 }
      for (let k = 0; k < 6; k++) expect(yield* store.transact((uow) => uow.sweepEvents(p, sweep))).toBe(2_000)
      const kept = yield* store.events.list(p)
      expect(kept.length).toBe(total - 12_000)
      const work = outboxSweepWork.count
      const failed = yield* Effect.exit(store.transact((uow) =>
        Effect.gen(function*() {
          expect(yield* uow.sweepEvents(p, sweep)).toBe(2_000)
          expect(yield* uow.sweepEvents(p, { ...sweep, limit: 10 })).toBe(10)
          yield* uow.emit(outboxEvent(p, total))
          return yield* Effect.fail("boom")
        })
      ))
      expect(Exit.isFailure(failed)).toBe(true)
      // The cut moved the 8,000 events left (once), and each sweep examined its batch.
      expect(outboxSweepWork.count - work).toBeLessThanOrEqual(8_000 + 2 * 2_010)
      expect(yield* store.events.list(p)).toEqual(kept)
      expect((yield* store.events.list(p, { afterSeq: kept[100]!.seq, limit: 3 })).map((e) => e.seq)).toEqual(kept.slice(101, 104).map((e) => e.seq))
      expect(yield* store.webhooks.lastEventSeq(p)).toBe(last)
      // And it sweeps on from there.
      expect(yield* store.transact((uow) => uow.sweepEvents(p, sweep))).toBe(2_000)
      expect((yield* store.events.list(p)).map((e) => e.seq)).toEqual(kept.slice(2_000).map((e) => e.seq))
    }), 60_000)
})

/** Rows the scans of `table` read (default `transactions`); see ../support/plans.ts. */
const rowsRead = (node: PlanNode, pageOnly = false, table = "transactions") => rowsReadOf(node, pageOnly, table)

describe("bounded work on postgres", () => {
  const { storeIt, databaseUrl } = storeSuite("postgres")
  storeIt("every transaction filter's first page (and its bounded total) reads a bounded number of rows", (store, p) =>
    Effect.gen(function*() {
      const now = Date.now()
      yield* fill(store, p, now)
      // Either side merges two scans: every page in both orders holds exactly the account's
      // payments, each once (those it sent to itself too), and the total is exact when at most TOTAL_COUNT_LIMIT match.
      for (const account of ["InternalAccount:hot", "InternalAccount:cold", "InternalAccount:dst-3"]) {
        const expected = Array.from({ length: ROWS }, (_, i) => record(p, i, now))
          .filter((r) => r.transaction.source?.sourceType === "ACCOUNT" && r.transaction.source.accountId === account ||
            r.transaction.destination.destinationType === "ACCOUNT" && r.transaction.destination.accountId === account)
          .map((r) => r.transaction.id)
        for (const descending of [false, true]) {
          const seen: Array<string> = []
          let cursor: string | undefined = undefined
          let first = true
          do {
            const page: PageResult<TransactionRecord> = yield* store.transactions.list(p, { accountIdentifier: account }, { limit: 150, descending, ...(cursor === undefined ? {} : { cursor }) })
            if (first) expect(page.totalCount, account).toBe(expected.length > TOTAL_COUNT_LIMIT ? undefined : expected.length)
            first = false
            seen.push(...page.data.map((r) => r.transaction.id))
            cursor = page.nextCursor
          } while (cursor !== undefined)
          expect(seen, `${account}${descending ? ", newest first" : ""}`).toEqual(descending ? [...expected].reverse() : expected)
        }
      }
      yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql.unsafe("analyze transactions")
        // The plans a large table gets: on a table this small the planner may prefer a
        // sequential or bitmap scan (which cannot stop at a LIMIT) over walking an
        // index; with those priced out, a filter no index serves still scans (and reads
        // the whole table, failing here).
        yield* sql.unsafe("set local enable_seqscan = off")
        yield* sql.unsafe("set local random_page_cost = 1.1")
        for (const [name, q] of QUERIES) {
          // Either side of an account keeps bitmap scans allowed: the bitmap OR of its two
          // indexes (which reads every row of the account) must lose to the two ordered scans.
          yield* sql.unsafe(`set local enable_bitmapscan = ${q.accountIdentifier === undefined ? "off" : "on"}`)
          for (const [descending, generic] of [[false, false], [true, false], [false, true], [true, true]] as const) {
            const statement = pageStatement("transactions", transactionWhere(p, q), { limit: LIMIT, descending })
            if (!("text" in statement)) return expect.fail("no cursor was given")
            // The plan for these values, and the generic plan the store's sessions run
            // (`plan_cache_mode = force_generic_plan`, src/adapters/sql/index.ts), which does not know them.
            const plan = generic
              ? yield* explainGeneric(sql, statement.text, statement.params)
              : (yield* sql.unsafe<{ readonly "QUERY PLAN": ReadonlyArray<{ readonly Plan: PlanNode }> }>(
                `explain (analyze, format json) ${statement.text}`,
                [...statement.params] as Array<string | number>
              ))[0]?.["QUERY PLAN"][0]?.Plan
            if (plan === undefined) return expect.fail("no plan")
            const read = rowsRead(plan)
            const label = `${name}${descending ? ", newest first" : ""}${generic ? ", generic plan" : ""}`
            // Either side is two scans (./documents.ts `pageStatement`), each bounded as one
            // scan is; the hot account alone (no filter a scan passes over) within one bound.
            const bound = q.accountIdentifier !== undefined && q.status !== undefined ? 2 * PAGE_BOUND : PAGE_BOUND
            expect(read.rows, `${label}: rows read${read.seqScan ? " (sequential scan)" : ""}, plan ${JSON.stringify(plan)}`).toBeLessThanOrEqual(bound)
            if (q.accountIdentifier !== undefined) {
              // The page itself: each side's index walked in page order, stopping at limit + 1
              // rows (as many again passed over for another filter), whatever the account
              // holds; a bitmap OR of the two indexes reads all its rows and sorts them.
              const page = rowsRead(plan, true).rows
              expect(page, `${label}: rows the page read, plan ${JSON.stringify(plan)}`).toBeLessThanOrEqual(2 * (LIMIT + 1) * (q.status === undefined ? 1 : 2))
            }
          }
        }
        // The volume of a window that does not start a day (the daily one reads one row of
        // `sent_volumes`): the customer's outgoing payments since its start, by index.
        const volume = sentVolumeStatement(p, { customerId: "Customer:hot", currency: "USD", since: now - 3_600_000 })
        for (const generic of [false, true]) {
          const plan = generic
            ? yield* explainGeneric(sql, volume.text, volume.params)
            : (yield* sql.unsafe<{ readonly "QUERY PLAN": ReadonlyArray<{ readonly Plan: PlanNode }> }>(
              `explain (analyze, format json) ${volume.text}`,
              [...volume.params] as Array<string | number>
            ))[0]?.["QUERY PLAN"][0]?.Plan
          if (plan === undefined) return expect.fail("no plan")
          const read = rowsRead(plan)
          expect(read.seqScan, `the volume since an hour ago${generic ? ", generic plan" : ""}: plan ${JSON.stringify(plan)}`).toBe(false)
          expect(read.rows, `the volume since an hour ago${generic ? ", generic plan" : ""}: rows read, plan ${JSON.stringify(plan)}`).toBeLessThanOrEqual(70)
        }
      }).pipe((e) => Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) => sql.withTransaction(e)), Effect.provide(PgClient.layer({ url: Redacted.make(databaseUrl()!) })), Effect.scoped)
    }), 120_000)
})

/**
 * The customer and account lists: customers (every fifth deleted), each with one external
 * account (every tenth of them the platform's own) and two internal accounts, and the
 * platform's own two; ids as long as real ones (the width of an index entry is what a
 * count of 1,001 of them pays for).
 */
const PEOPLE = 2 * (TOTAL_COUNT_LIMIT + 100)
/**
 * Pages the bounded count of a list matching most of its table may read: 1,001 entries of
 * the list's narrow count index (migration 19: the platform alone, partial on the list's
 * predicate, deduplicated into posting lists) fill one or two leaf pages under a root. The
 * wider indexes the counts read before (`customers_active_platform_customer_id`,
 * `*_accounts_customer`) took 10 to 20 pages for the same entries.
 */
const COUNT_PAGES = 6
const T0 = Date.parse("2026-01-01T00:00:00.000Z")
const uuidOf = (i: number) => `00000000-0000-7000-8000-${String(i).padStart(12, "0")}`
const customerIdOf = (i: number) => `Customer:${uuidOf(i)}`

const customerOf = (platformId: string, i: number): CustomerRecord => {
  const at = new Date(T0 + i * 1_000).toISOString()
  const customer: CustomerResponse = {
    id: customerIdOf(i),
    platformCustomerId: `pc-${uuidOf(i)}`,
    umaAddress: `$c${i}@example.com`,
    agreementConsents: [],
    createdAt: at,
    updatedAt: at,
    isDeleted: i % 5 === 4,
    customerType: "INDIVIDUAL",
    kycStatus: "UNVERIFIED",
    fullName: "Ada Lovelace"
  }
  return i % 5 === 4 ? { platformId, customer, deletedAt: at } : { platformId, customer }
}

const externalOf = (platformId: string, i: number): ExternalAccountRecord => {
  const at = new Date(T0 + i * 1_000 + 1).toISOString()
  return {
    platformId,
    account: {
      id: `ExternalAccount:${uuidOf(i)}`,
      customerId: i % 10 === 7 ? null : customerIdOf(i),
      status: "ACTIVE",
      currency: "USDC",
      defaultUmaDepositAccount: false,
      accountInfo: { accountType: "ETHEREUM_WALLET", address: "0x52908400098527886E0F7030069857D2E4169EE7" },
      createdAt: at,
      updatedAt: at
    },
    equivalenceKey: `eq-${uuidOf(i)}`,
    trusted: false
  }
}

const internalOf = (platformId: string, i: number | null, currency: string): InternalAccountRecord => {
  const at = new Date(T0 + (i ?? 0) * 1_000 + (currency === "USD" ? 2 : 3)).toISOString()
  return {
    platformId,
    id: `InternalAccount:${currency}-${i === null ? "platform" : uuidOf(i)}`,
    customerId: i === null ? null : customerIdOf(i),
    type: "INTERNAL_FIAT",
    status: "ACTIVE",
    currency,
    createdAt: at,
    updatedAt: at
  }
}

interface CountedList {
  readonly name: string
  readonly table: string
  readonly where: (platformId: string) => Where
  /** The list through the store: its totalCount (answers as before: exact up to TOTAL_COUNT_LIMIT, else none). */
  readonly total: (store: StoreService, platformId: string) => Effect.Effect<number | undefined, unknown>
  readonly expected: number | undefined
  /** Matches most of its table: its count reads the list's narrow count index, within COUNT_PAGES. */
  readonly narrow: boolean
}

const payer = customerIdOf(7 * 10 + 3)
const firstPage = { limit: LIMIT }
const COUNTED: ReadonlyArray<CountedList> = [
  {
    name: "GET /customers",
    table: "customers",
    where: (p) => customerWhere(p, { includeDeleted: false }),
    total: (store, p) => Effect.map(store.customers.list(p, { includeDeleted: false }, firstPage), (r) => r.totalCount),
    expected: undefined,
    narrow: true
  },
  {
    name: "GET /customers/external-accounts",
    table: "external_accounts",
    where: (p) => externalAccountWhere(p, { owner: "customer" }),
    total: (store, p) => Effect.map(store.externalAccounts.list(p, { owner: "customer" }, firstPage), (r) => r.totalCount),
    expected: undefined,
    narrow: true
  },
  {
    name: "GET /customers/external-accounts?customerId=",
    table: "external_accounts",
    where: (p) => externalAccountWhere(p, { owner: "customer", customerId: payer }),
    total: (store, p) => Effect.map(store.externalAccounts.list(p, { owner: "customer", customerId: payer }, firstPage), (r) => r.totalCount),
    expected: 1,
    narrow: false
  },
  {
    name: "GET /platform/external-accounts",
    table: "external_accounts",
    where: (p) => externalAccountWhere(p, { owner: "platform" }),
    total: (store, p) => Effect.map(store.externalAccounts.list(p, { owner: "platform" }, firstPage), (r) => r.totalCount),
    expected: PEOPLE / 10,
    narrow: false
  },
  {
    name: "GET /customers/internal-accounts",
    table: "internal_accounts",
    where: (p) => internalAccountWhere(p, { owner: "customer" }),
    total: (store, p) => Effect.map(store.internalAccounts.list(p, { owner: "customer" }, firstPage), (r) => r.totalCount),
    expected: undefined,
    narrow: true
  },
  {
    name: "GET /customers/internal-accounts?customerId=",
    table: "internal_accounts",
    where: (p) => internalAccountWhere(p, { owner: "customer", customerId: payer }),
    total: (store, p) => Effect.map(store.internalAccounts.list(p, { owner: "customer", customerId: payer }, firstPage), (r) => r.totalCount),
    expected: 2,
    narrow: false
  },
  {
    name: "the platform's internal accounts",
    table: "internal_accounts",
    where: (p) => internalAccountWhere(p, { owner: "platform" }),
    total: (store, p) => Effect.map(store.internalAccounts.list(p, { owner: "platform" }, firstPage), (r) => r.totalCount),
    expected: 2,
    narrow: false
  }
]

/** The nodes under the plan's InitPlans (the bounded total of `pageStatement`), each subtree's root. */
const initPlans = (node: PlanNode): ReadonlyArray<PlanNode> =>
  (node.Plans ?? []).flatMap((child) => (child["Parent Relationship"] === "InitPlan" ? [child] : initPlans(child)))

/** Every node of the subtree. */
const nodesOf = (node: PlanNode): ReadonlyArray<PlanNode> => [node, ...(node.Plans ?? []).flatMap(nodesOf)]

describe("bounded work on postgres: the customer and account lists' counts", () => {
  const { storeIt, databaseUrl } = storeSuite("postgres")
  storeIt("each first page's bounded count reads index entries only, a narrow index's few pages where most rows match", (store, p) =>
    Effect.gen(function*() {
      const people = Array.from({ length: PEOPLE }, (_, i) => i)
      yield* store.transact((uow) =>
        Effect.gen(function*() {
          yield* Effect.forEach(people, (i) => uow.putCustomer(customerOf(p, i)), { discard: true })
          yield* Effect.forEach(people, (i) => uow.putExternalAccount(externalOf(p, i)), { discard: true })
          yield* Effect.forEach(people, (i) => Effect.andThen(uow.putInternalAccount(internalOf(p, i, "USD")), uow.putInternalAccount(internalOf(p, i, "EUR"))), { discard: true })
          yield* Effect.andThen(uow.putInternalAccount(internalOf(p, null, "USD")), uow.putInternalAccount(internalOf(p, null, "EUR")))
        })
      )
      for (const list of COUNTED) expect(yield* list.total(store, p), `${list.name}: totalCount`).toBe(list.expected)
      yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        // What autovacuum does to a table that grew this much: the visibility map, without
        // which no scan is index-only. Right after the writes commit (asynchronously, in the
        // test cluster) a vacuum marks no page until their commits are known flushed, a few
        // hundred milliseconds later: a table left unmarked is vacuumed again.
        for (const table of ["customers", "external_accounts", "internal_accounts"]) {
          for (let attempt = 1; ; attempt++) {
            yield* sql.unsafe(`vacuum (analyze) ${table}`)
            const [vm] = yield* sql.unsafe<{ readonly pages: number; readonly visible: number }>(
              `select relpages as pages, relallvisible as visible from pg_class where oid = '${table}'::regclass`
            )
            if (vm === undefined || vm.visible >= vm.pages) break
            if (attempt === 100) {
              // What the plans below are read for needs the map (an older snapshot still open
              // elsewhere on the cluster also keeps pages out of it): say so rather than fail on heap fetches.
              return yield* Effect.die(new Error(`vacuum left ${vm.pages - vm.visible} of ${table}'s ${vm.pages} pages out of the visibility map after 100 tries (10 s): the plans' index-only counts cannot be checked`))
            }
            yield* Effect.sleep("100 millis")
          }
        }
        yield* Effect.gen(function*() {
          // The store's own sessions' setting (src/adapters/sql/index.ts), and the plans a large table gets.
          yield* sql.unsafe("set local enable_seqscan = off")
          yield* sql.unsafe("set local enable_bitmapscan = off")
          for (const [list, generic] of COUNTED.flatMap((list) => [[list, false], [list, true]] as const)) {
            const statement = pageStatement(list.table, list.where(p), { limit: LIMIT })
            if (!("text" in statement)) return expect.fail("no cursor was given")
            // The plan for these values, and the generic plan the store's sessions run.
            const plan = generic
              ? yield* explainGeneric(sql, statement.text, statement.params, "analyze, buffers, format json")
              : (yield* sql.unsafe<{ readonly "QUERY PLAN": ReadonlyArray<{ readonly Plan: PlanNode }> }>(
                `explain (analyze, buffers, format json) ${statement.text}`,
                [...statement.params] as Array<string | number>
              ))[0]?.["QUERY PLAN"][0]?.Plan
            if (plan === undefined) return expect.fail("no plan")
            const shown = `${generic ? "generic " : ""}${JSON.stringify(plan)}`
            const [count] = initPlans(plan)
            if (count === undefined) return expect.fail(`${list.name}: no count in ${shown}`)
            const scans = nodesOf(count).filter((n) => n["Relation Name"] === list.table)
            expect(scans.length, `${list.name}: the count's scans, plan ${shown}`).toBeGreaterThan(0)
            // Index-only: entries of an index that holds the list's whole predicate, no heap row read or filtered.
            for (const scan of scans) {
              expect(scan["Node Type"], `${list.name}: the count's scan, plan ${shown}`).toBe("Index Only Scan")
              expect(scan["Heap Fetches"], `${list.name}: the count's heap fetches, plan ${shown}`).toBe(0)
            }
            expect(rowsRead(count, false, list.table).rows, `${list.name}: entries the count read, plan ${shown}`).toBeLessThanOrEqual(TOTAL_COUNT_LIMIT + 1)
            if (list.narrow) {
              const pages = (count["Shared Hit Blocks"] ?? 0) + (count["Shared Read Blocks"] ?? 0)
              expect(pages, `${list.name}: pages the count read, plan ${shown}`).toBeLessThanOrEqual(COUNT_PAGES)
            }
            // The page: its rows and one more, down an index in page order (deleted customers passed over).
            expect(rowsRead(plan, true, list.table).rows, `${list.name}: rows the page read, plan ${shown}`).toBeLessThanOrEqual(2 * (LIMIT + 1))
            if (generic) continue
            // Run as a session in `plan_cache_mode = auto` runs it (a prepared statement, executed again and again), the
            // statement keeps one generic plan after PostgreSQL's five custom ones: with the
            // page's limit a parameter, a generic plan priced a tenth of the matching rows and
            // lost to a fresh custom plan at every execution over a large list.
            for (let i = 0; i < 10; i++) yield* sql.unsafe(statement.text, [...statement.params] as Array<string | number>)
            const [plans] = yield* sql.unsafe<{ readonly generic: number; readonly custom: number }>(
              "select generic_plans::int as generic, custom_plans::int as custom from pg_prepared_statements where statement = $1",
              [statement.text]
            )
            expect(plans?.custom, `${list.name}: the page statement's custom plans`).toBeLessThanOrEqual(5)
            expect(plans?.generic, `${list.name}: the page statement's generic plans`).toBe(10 - (plans?.custom ?? 0))
          }
        }).pipe(sql.withTransaction)
      }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(databaseUrl()!) })), Effect.scoped)
    }), 120_000)
})
