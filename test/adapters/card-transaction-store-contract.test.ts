/**
 * The Store contract for card transactions (`cardTransactions`, `putCardTransaction`),
 * run against every Store (memory, PGlite in memory, PostgreSQL on a fresh database of
 * the run's throwaway cluster): reads and writes (a rewrite in place), rollback, the
 * list's filters and keyset paging in both orders, and resetPlatform. Every test uses its
 * own platform id (see ../support/store-harness.ts).
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import type { CardTransaction, CardTransactionState } from "../../src/domain/card-transaction.js"
import { CURRENCIES } from "../../src/domain/money.js"
import { type CardTransactionQuery, type CardTransactionRecord, Store } from "../../src/ports/store.js"
import { failureOf, KINDS, storeSuite, type StoreService, walk } from "../support/store-harness.js"

const T0 = Date.parse("2026-01-01T00:00:00.000Z")
const iso = (ms: number) => new Date(ms).toISOString()
const usd = (amount: number) => ({ amount, currency: CURRENCIES["USD"]! })

interface Options {
  readonly cardId?: string
  readonly customerId?: string
  readonly accountId?: string
  readonly direction?: "DEBIT" | "CREDIT"
  readonly createdAt?: number
  readonly status?: CardTransaction["status"]
}

const record = (platformId: string, id: string, o: Options = {}): CardTransactionRecord => {
  const createdAt = iso(o.createdAt ?? T0)
  const status = o.status ?? "AUTHORIZED"
  const direction = o.direction ?? "DEBIT"
  const state: CardTransactionState = {
    kind: direction === "DEBIT" ? "AUTHORIZATION" : "CREDIT_AUTHORIZATION",
    status,
    direction,
    currency: "USD",
    authorized: 100,
    held: direction === "DEBIT" ? 100 : 0,
    settled: 0,
    refunded: 0,
    released: 0,
    suspense: 0,
    pulls: { count: 1, total: 100, pending: 0 },
    settlements: { count: 0, total: 0 },
    refunds: { count: 0, total: 0 },
    authorizedAt: o.createdAt ?? T0,
    lastEventAt: o.createdAt ?? T0
  }
  const transaction: CardTransaction = {
    type: "CARD",
    id,
    cardId: o.cardId ?? "Card:1",
    customerId: o.customerId ?? "Customer:1",
    platformCustomerId: `pc-${o.customerId ?? "Customer:1"}`,
    issuerTransactionToken: `token-${id}`,
    status,
    direction,
    merchant: { descriptor: "SHOP", city: "Berlin" },
    authorizedAmount: usd(100),
    ...(o.accountId === null ? {} : { accountId: o.accountId ?? "InternalAccount:1" }),
    pullSummary: { count: 1, totalAmount: 100, pendingCount: 0 },
    refundSummary: { count: 0, totalAmount: 0 },
    settlementSummary: { count: 0, totalAmount: 0 },
    authorizedAt: createdAt,
    lastEventAt: createdAt,
    createdAt,
    updatedAt: createdAt
  }
  return { platformId, transaction, state }
}

const put = (store: StoreService, ...records: ReadonlyArray<CardTransactionRecord>) =>
  store.transact((uow) => Effect.forEach(records, (r) => uow.putCardTransaction(r), { discard: true }))

const byKey = (a: CardTransactionRecord, b: CardTransactionRecord): number => {
  const x = Date.parse(a.transaction.createdAt) - Date.parse(b.transaction.createdAt)
  return x !== 0 ? x : a.transaction.id < b.transaction.id ? -1 : a.transaction.id > b.transaction.id ? 1 : 0
}

const matches = (q: CardTransactionQuery) => (r: CardTransactionRecord) => {
  const t = r.transaction
  const ms = Date.parse(t.createdAt)
  return (q.cardId === undefined || t.cardId === q.cardId) &&
    (q.customerId === undefined || t.customerId === q.customerId) &&
    (q.platformCustomerId === undefined || t.platformCustomerId === q.platformCustomerId) &&
    (q.accountId === undefined || t.accountId === q.accountId) &&
    (q.direction === undefined || t.direction === q.direction) &&
    (q.created?.from === undefined || ms >= q.created.from) &&
    (q.created?.to === undefined || ms <= q.created.to)
}

describe.each(KINDS)("Card transaction store contract on %s", (kind) => {
  const { storeIt, runtime, databaseUrl } = storeSuite(kind)

  storeIt("put, get (the row and the machine's state), rewrite in place, other platforms see nothing", (store, p) =>
    Effect.gen(function*() {
      const a = record(p, "CardTransaction:a")
      yield* put(store, a)
      expect(yield* store.cardTransactions.get(p, "CardTransaction:a")).toEqual(a)
      expect(yield* store.cardTransactions.get(p, "CardTransaction:b")).toBeUndefined()
      expect(yield* store.cardTransactions.get(`${p}-other`, "CardTransaction:a")).toBeUndefined()
      const settled: CardTransactionRecord = {
        ...a,
        transaction: { ...a.transaction, status: "SETTLED", settledAmount: usd(100), updatedAt: iso(T0 + 5) },
        state: { ...a.state, status: "SETTLED", held: 0, settled: 100, settlements: { count: 1, total: 100 } }
      }
      yield* put(store, settled)
      expect(yield* store.cardTransactions.get(p, "CardTransaction:a")).toEqual(settled)
      expect((yield* store.cardTransactions.list(p, {}, { limit: 10 })).totalCount).toBe(1)
    }))

  storeIt("a unit of work reads its own writes; a failed one leaves nothing", (store, p) =>
    Effect.gen(function*() {
      const seen = yield* store.transact((uow) =>
        Effect.andThen(uow.putCardTransaction(record(p, "CardTransaction:1")), store.cardTransactions.get(p, "CardTransaction:1"))
      )
      expect(seen?.transaction.id).toBe("CardTransaction:1")
      const failed = yield* Effect.exit(store.transact((uow) =>
        Effect.andThen(uow.putCardTransaction(record(p, "CardTransaction:2")), Effect.fail("undo" as const))
      ))
      expect(failureOf(failed)).toBe("undo")
      expect(yield* store.cardTransactions.get(p, "CardTransaction:2")).toBeUndefined()
    }))

  storeIt("list: every filter, keyset paging in both orders, the total", (store, p) =>
    Effect.gen(function*() {
      const rows = [
        record(p, "CardTransaction:01", { cardId: "Card:a", customerId: "Customer:a", accountId: "InternalAccount:a", createdAt: T0 }),
        record(p, "CardTransaction:02", { cardId: "Card:a", customerId: "Customer:a", accountId: "InternalAccount:a", direction: "CREDIT", createdAt: T0 + 1 }),
        record(p, "CardTransaction:03", { cardId: "Card:b", customerId: "Customer:b", accountId: "InternalAccount:b", createdAt: T0 + 1 }),
        record(p, "CardTransaction:04", { cardId: "Card:b", customerId: "Customer:b", accountId: "InternalAccount:b", status: "DECLINED", createdAt: T0 + 2 }),
        record(p, "CardTransaction:05", { cardId: "Card:a", customerId: "Customer:a", accountId: "InternalAccount:a2", createdAt: T0 + 3 }),
        record(p, "CardTransaction:06", { cardId: "Card:c", customerId: "Customer:c", accountId: "InternalAccount:c", direction: "CREDIT", createdAt: T0 + 3 })
      ]
      yield* put(store, ...rows)
      yield* put(store, record(`${p}-other`, "CardTransaction:01"))
      const queries: ReadonlyArray<CardTransactionQuery> = [
        {},
        { cardId: "Card:a" },
        { customerId: "Customer:b" },
        { platformCustomerId: "pc-Customer:a" },
        { accountId: "InternalAccount:a" },
        { direction: "CREDIT" },
        { cardId: "Card:a", direction: "DEBIT" },
        { created: { from: T0 + 1, to: T0 + 2 } },
        { cardId: "Card:none" }
      ]
      for (const q of queries) {
        const expected = rows.filter(matches(q)).sort(byKey).map((r) => r.transaction.id)
        for (const limit of [1, 2, 100]) {
          for (const descending of [false, true]) {
            const got = yield* walk((page) => store.cardTransactions.list(p, q, { ...page, descending }), limit, expected.length)
            expect(got.map((r) => r.transaction.id), JSON.stringify({ q, limit, descending })).toEqual(descending ? [...expected].reverse() : expected)
          }
        }
      }
      const bad = yield* Effect.exit(store.cardTransactions.list(p, {}, { limit: 1, cursor: "not-a-cursor" }))
      expect(failureOf(bad)).toMatchObject({ _tag: "InvalidCursor" })
    }), 60_000)

  storeIt("resetPlatform clears the platform's card transactions only", (store, p) =>
    Effect.gen(function*() {
      const q = `${p}-kept`
      yield* put(store, record(p, "CardTransaction:1"), record(q, "CardTransaction:1"))
      yield* store.transact((uow) => uow.resetPlatform(p))
      expect(yield* store.cardTransactions.get(p, "CardTransaction:1")).toBeUndefined()
      expect((yield* store.cardTransactions.list(p, {}, { limit: 10 })).totalCount).toBe(0)
      expect(yield* store.cardTransactions.get(q, "CardTransaction:1")).toBeDefined()
    }))
})
