/**
 * The Store contract for money movement: internal accounts, the ledger, quotes,
 * transactions and platform configurations, run against every Store (memory, PGlite in
 * memory, PostgreSQL on a fresh database of the run's throwaway cluster) so the three
 * behave the same. Every test uses its own platform id (see ../support/store-harness.ts).
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Exit, ManagedRuntime, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import { postgresStoreLayer } from "../../src/adapters/sql/index.js"
import type { InternalAccountType } from "../../src/domain/internal-account.js"
import type { Currency } from "../../src/domain/money.js"
import type { TransactionStatus } from "../../src/domain/transaction.js"
import {
  type InternalAccountQuery,
  type InternalAccountRecord,
  type InvalidCursor,
  type JournalEntry,
  LedgerRejected,
  type Page,
  type PageResult,
  type PlatformConfigRecord,
  type Posting,
  type QuoteRecord,
  Store,
  type TransactionQuery,
  type TransactionRecord
} from "../../src/ports/store.js"
import { createDatabase } from "../support/postgres.js"
import { expectConflict, failureOf, freshPlatform, KINDS, storeSuite, type StoreService, walk } from "../support/store-harness.js"

// ---------------------------------------------------------------- records

const T0 = Date.parse("2026-01-01T00:00:00.000Z")
const DAY = 86_400_000
const iso = (ms: number) => new Date(ms).toISOString()
const SEC = 1000
const MAX = Number.MAX_SAFE_INTEGER

const USD: Currency = { code: "USD", name: "United States Dollar", symbol: "$", decimals: 2 }
const EUR: Currency = { code: "EUR", name: "Euro", symbol: "€", decimals: 2 }

const internalAccount = (
  platformId: string,
  id: string,
  o: { readonly customerId?: string | null; readonly currency?: string; readonly type?: InternalAccountType; readonly createdAt?: number } = {}
): InternalAccountRecord => ({
  platformId,
  id,
  customerId: o.customerId === undefined ? "Customer:1" : o.customerId,
  type: o.type ?? "INTERNAL_FIAT",
  status: "ACTIVE",
  currency: o.currency ?? "USD",
  createdAt: iso(o.createdAt ?? T0),
  updatedAt: iso(o.createdAt ?? T0)
})

let entrySeq = 0
const entry = (platformId: string, postings: ReadonlyArray<Posting>, o: { readonly kind?: string; readonly transactionId?: string } = {}): JournalEntry => ({
  platformId,
  id: `JournalEntry:${++entrySeq}`,
  kind: o.kind ?? "FUND",
  ...(o.transactionId === undefined ? {} : { transactionId: o.transactionId }),
  at: iso(T0 + entrySeq),
  postings
})

/** A transfer of `amount` from one ledger account to another, in USD. */
const transfer = (platformId: string, from: string, to: string, amount: number, o: { readonly transactionId?: string; readonly currency?: string } = {}) =>
  entry(platformId, [
    { account: from, currency: o.currency ?? "USD", amount: -amount },
    { account: to, currency: o.currency ?? "USD", amount }
  ], o)

const WORLD = "system:world:USD"
const A = "InternalAccount:a"
const B = "InternalAccount:b"

const quoteRecord = (platformId: string, id: string): QuoteRecord => ({
  platformId,
  quote: {
    id,
    status: "PENDING",
    createdAt: iso(T0),
    expiresAt: iso(T0 + 300 * SEC),
    source: { sourceType: "ACCOUNT", accountId: A },
    destination: { destinationType: "ACCOUNT", accountId: "ExternalAccount:1" },
    sendingCurrency: USD,
    receivingCurrency: EUR,
    totalSendingAmount: 10_000,
    totalReceivingAmount: 9_100,
    exchangeRate: 0.91,
    feesIncluded: 12,
    transactionId: `Transaction:of-${id}`
  },
  plan: {
    customerId: "Customer:1",
    source: { kind: "INTERNAL", accountId: A },
    destination: { kind: "EXTERNAL", accountId: "ExternalAccount:1" },
    platformFee: 2,
    serviceFee: 10,
    outcome: "SUCCESS",
    steps: []
  }
})

interface TxOptions {
  readonly type?: "OUTGOING" | "INCOMING"
  readonly status?: TransactionStatus
  readonly customerId?: string | null
  readonly createdAt?: number
  readonly sender?: string
  readonly senderUma?: boolean
  readonly receiver?: string
  readonly receiverUma?: boolean
  readonly reference?: string
  readonly amount?: number
  readonly currency?: Currency
}

const transactionRecord = (platformId: string, id: string, o: TxOptions = {}): TransactionRecord => {
  const customerId = o.customerId === undefined ? "Customer:1" : o.customerId
  const amount = { amount: o.amount ?? 1000, currency: o.currency ?? USD }
  const base = {
    id,
    destination: o.receiverUma === true
      ? { destinationType: "UMA_ADDRESS" as const, umaAddress: o.receiver ?? "$bob@example.com" }
      : { destinationType: "ACCOUNT" as const, accountId: o.receiver ?? "ExternalAccount:1" },
    ...(customerId === null ? {} : { customerId, platformCustomerId: `pc-${customerId}` }),
    createdAt: iso(o.createdAt ?? T0),
    updatedAt: iso(o.createdAt ?? T0),
    ...(o.reference === undefined ? {} : { reconciliationInstructions: { reference: o.reference } })
  }
  const source = o.senderUma === true
    ? { sourceType: "UMA_ADDRESS" as const, umaAddress: o.sender ?? "$alice@example.com" }
    : { sourceType: "ACCOUNT" as const, accountId: o.sender ?? A }
  const plan = {
    debit: { account: A, currency: amount.currency.code, amount: amount.amount },
    credit: { account: "system:world:USD", currency: amount.currency.code, amount: amount.amount },
    fees: [],
    money: "NONE" as const,
    outcome: "SUCCESS",
    steps: [],
    internalAccounts: [A]
  }
  if (o.type === "INCOMING") {
    return {
      platformId,
      transaction: { ...base, type: "INCOMING", direction: "CREDIT", status: o.status ?? "COMPLETED", source, receivedAmount: amount },
      plan
    }
  }
  const status = o.status ?? "PENDING"
  if (status !== "PENDING" && status !== "PENDING_AUTHORIZATION" && status !== "EXPIRED" && status !== "PROCESSING" &&
    status !== "COMPLETED" && status !== "FAILED") throw new Error(`not an outgoing status: ${status}`)
  return {
    platformId,
    transaction: { ...base, type: "OUTGOING", direction: "DEBIT", status, source, sentAmount: amount },
    plan
  }
}

const configRecord = (platformId: string, umaDomain: string): PlatformConfigRecord => ({
  platformId,
  config: {
    id: `PlatformConfig:${platformId}`,
    umaDomain,
    supportedCurrencies: [{ currencyCode: "USD", minAmount: 1, maxAmount: 1_000_000, requiredCounterpartyFields: [], enabledTransactionTypes: ["OUTGOING"] }],
    isRegulatedFinancialInstitution: false,
    feeConfigs: [],
    railFeeConfigs: [],
    createdAt: iso(T0),
    updatedAt: iso(T0)
  }
})

// ---------------------------------------------------------------- helpers

const expectRejected = (exit: Exit.Exit<unknown, unknown>, reason: LedgerRejected["reason"], account?: string) => {
  const error = failureOf(exit)
  expect(error).toBeInstanceOf(LedgerRejected)
  expect((error as LedgerRejected).reason).toBe(reason)
  if (account !== undefined) expect((error as LedgerRejected).account).toBe(account)
}

const balancesOf = (store: StoreService, p: string, accounts: ReadonlyArray<string>) =>
  Effect.map(store.ledger.balances(p, accounts), (m) => accounts.map((a) => m.get(a)))

const sortedBalances = (store: StoreService, p: string) =>
  Effect.map(store.ledger.allBalances(p), (all) => [...all].sort((x, y) => (x.account < y.account ? -1 : x.account > y.account ? 1 : 0)))

const byKey = <R>(createdAt: (r: R) => string, id: (r: R) => string) => (a: R, b: R): number => {
  const d = Date.parse(createdAt(a)) - Date.parse(createdAt(b))
  if (d !== 0) return d
  return id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0
}
const accountOrder = byKey<InternalAccountRecord>((r) => r.createdAt, (r) => r.id)
const transactionOrder = byKey<TransactionRecord>((r) => r.transaction.createdAt, (r) => r.transaction.id)

const matchesAccount = (q: InternalAccountQuery) => (r: InternalAccountRecord) =>
  (q.owner === "platform" ? r.customerId === null : r.customerId !== null) &&
  (q.customerId === undefined || r.customerId === q.customerId) &&
  (q.currency === undefined || r.currency === q.currency) &&
  (q.type === undefined || r.type === q.type)

const senderOf = (r: TransactionRecord) => {
  const s = r.transaction.source
  return s === undefined ? undefined : s.sourceType === "ACCOUNT" ? s.accountId : s.sourceType === "UMA_ADDRESS" ? s.umaAddress : undefined
}
const receiverOf = (r: TransactionRecord) => {
  const d = r.transaction.destination
  return d.destinationType === "ACCOUNT" ? d.accountId : d.umaAddress
}
const matchesTransaction = (q: TransactionQuery) => (r: TransactionRecord) => {
  const t = r.transaction
  const ms = Date.parse(t.createdAt)
  return (q.customerId === undefined || t.customerId === q.customerId) &&
    (q.platformCustomerId === undefined || t.platformCustomerId === q.platformCustomerId) &&
    (q.accountIdentifier === undefined || senderOf(r) === q.accountIdentifier || receiverOf(r) === q.accountIdentifier) &&
    (q.senderAccountIdentifier === undefined || senderOf(r) === q.senderAccountIdentifier) &&
    (q.receiverAccountIdentifier === undefined || receiverOf(r) === q.receiverAccountIdentifier) &&
    (q.status === undefined || t.status === q.status) &&
    (q.type === undefined || t.type === q.type) &&
    (q.reference === undefined || t.reconciliationInstructions?.reference === q.reference) &&
    (q.created?.from === undefined || ms >= q.created.from) &&
    (q.created?.to === undefined || ms <= q.created.to)
}

/** Every page of a list, in one direction, as ids. */
const pagedIds = <R>(
  list: (page: Page) => Effect.Effect<PageResult<R>, InvalidCursor>,
  id: (r: R) => string,
  limit: number,
  descending: boolean,
  total: number
) => Effect.map(walk((page) => list({ ...page, descending }), limit, total), (rows) => rows.map(id))

const sleep = (ms: number) => Effect.sleep(`${ms} millis`)

/**
 * One unit of work moving `amount` from `from` to `to` if `from` holds it: read the
 * balance, wait so other units of work overlap, then post. Returns whether it moved.
 */
const checkedTransfer = (store: StoreService, p: string, from: string, to: string, amount: number) =>
  store.transact((uow) =>
    Effect.gen(function*() {
      const balance = (yield* store.ledger.balances(p, [from])).get(from) ?? 0
      yield* sleep(1)
      if (balance < amount) return false
      yield* uow.post(transfer(p, from, to, amount))
      return true
    })
  )

/** Deterministic amounts for the concurrency cases (no randomness: a failure replays). */
const amountAt = (i: number) => 1 + ((i * 7919) % 400)

const runTransfers = (store: StoreService, p: string, workers: number, each: number, offset = 0) =>
  Effect.all(
    Array.from({ length: workers }, (_, w) =>
      Effect.forEach(Array.from({ length: each }, (_, k) => k), (k) => {
        const i = offset + w * each + k
        return i % 2 === 0 ? checkedTransfer(store, p, A, B, amountAt(i)) : checkedTransfer(store, p, B, A, amountAt(i))
      })),
    { concurrency: "unbounded" }
  ).pipe(Effect.map((results) => results.flat().filter((moved) => moved).length))

/** Unchecked: posts and lets the store refuse; a refusal is counted, not raised. */
const blindTransfer = (store: StoreService, p: string, from: string, to: string, amount: number) =>
  store.transact((uow) => Effect.andThen(sleep(1), uow.post(transfer(p, from, to, amount)))).pipe(
    Effect.as(true),
    Effect.catchTag("LedgerRejected", (e) => {
      expect(e.reason).toBe("INSUFFICIENT_BALANCE")
      return Effect.succeed(false)
    })
  )

const fundAB = (store: StoreService, p: string, each: number) =>
  store.transact((uow) =>
    Effect.andThen(
      uow.post(transfer(p, WORLD, A, each)),
      uow.post(transfer(p, WORLD, B, each))
    )
  )

const expectConserved = (store: StoreService, p: string, total: number) =>
  Effect.gen(function*() {
    const [a, b] = yield* balancesOf(store, p, [A, B])
    expect((a ?? 0) + (b ?? 0)).toBe(total)
    expect(a).toBeGreaterThanOrEqual(0)
    expect(b).toBeGreaterThanOrEqual(0)
    const all = yield* store.ledger.allBalances(p)
    expect(all.reduce((s, x) => s + x.balance, 0)).toBe(0)
  })

// ---------------------------------------------------------------- the suite

describe.each(KINDS)("Money store contract on %s", (kind) => {
  const { storeIt, runtime, databaseUrl } = storeSuite(kind)

  // ------------------------------------------------------------ internal accounts

  describe("internal accounts", () => {
    storeIt("put, get, findByOwnerCurrency, and rewrite in place", (store, p) =>
      Effect.gen(function*() {
        const mine = internalAccount(p, "InternalAccount:1", { customerId: "Customer:1", currency: "USD" })
        const platforms = internalAccount(p, "InternalAccount:2", { customerId: null, currency: "USD" })
        yield* store.transact((uow) => Effect.andThen(uow.putInternalAccount(mine), uow.putInternalAccount(platforms)))
        expect(yield* store.internalAccounts.get(p, "InternalAccount:1")).toEqual(mine)
        expect(yield* store.internalAccounts.get(p, "InternalAccount:missing")).toBeUndefined()
        expect(yield* store.internalAccounts.findByOwnerCurrency(p, "Customer:1", "USD")).toEqual(mine)
        expect(yield* store.internalAccounts.findByOwnerCurrency(p, null, "USD")).toEqual(platforms)
        expect(yield* store.internalAccounts.findByOwnerCurrency(p, "Customer:1", "EUR")).toBeUndefined()
        expect(yield* store.internalAccounts.findByOwnerCurrency(p, "Customer:2", "USD")).toBeUndefined()
        // A rewrite of the same account (a new status) keeps its key.
        const frozen: InternalAccountRecord = { ...mine, status: "FROZEN", updatedAt: iso(T0 + SEC) }
        yield* store.transact((uow) => uow.putInternalAccount(frozen))
        expect(yield* store.internalAccounts.findByOwnerCurrency(p, "Customer:1", "USD")).toEqual(frozen)
        expect((yield* store.internalAccounts.list(p, { owner: "customer" }, { limit: 10 })).data).toEqual([frozen])
      }))

    storeIt("lists by owner, customer, currency and type, paged in (createdAt, id) order", (store, p) =>
      Effect.gen(function*() {
        const currencies = ["USD", "EUR", "MXN"]
        const rows: Array<InternalAccountRecord> = []
        for (let c = 0; c < 3; c++) {
          for (const [i, currency] of currencies.entries()) {
            rows.push(internalAccount(p, `InternalAccount:c${c}-${currency}`, {
              customerId: `Customer:${c}`,
              currency,
              type: i === 2 ? "INTERNAL_CRYPTO" : "INTERNAL_FIAT",
              createdAt: T0 + ((c + i) % 2) * SEC
            }))
          }
        }
        for (const currency of currencies) {
          rows.push(internalAccount(p, `InternalAccount:p-${currency}`, { customerId: null, currency, createdAt: T0 }))
        }
        yield* store.transact((uow) => Effect.forEach([...rows].reverse(), (r) => uow.putInternalAccount(r), { discard: true }))
        const queries: ReadonlyArray<InternalAccountQuery> = [
          { owner: "customer" },
          { owner: "platform" },
          { owner: "customer", customerId: "Customer:1" },
          { owner: "customer", currency: "EUR" },
          { owner: "platform", currency: "MXN" },
          { owner: "customer", type: "INTERNAL_CRYPTO" },
          { owner: "customer", customerId: "Customer:2", currency: "MXN", type: "INTERNAL_CRYPTO" },
          { owner: "customer", customerId: "Customer:nobody" }
        ]
        for (const q of queries) {
          const expected = rows.filter(matchesAccount(q)).sort(accountOrder).map((r) => r.id)
          for (const limit of [1, 2, 20]) {
            const got = yield* walk((page) => store.internalAccounts.list(p, q, page), limit, expected.length)
            expect(got.map((r) => r.id)).toEqual(expected)
          }
        }
      }))

    storeIt("one account per owner and currency: a second is a StoreConflict", (store, p) =>
      Effect.gen(function*() {
        yield* store.transact((uow) =>
          Effect.andThen(
            uow.putInternalAccount(internalAccount(p, "InternalAccount:1", { customerId: "Customer:1" })),
            uow.putInternalAccount(internalAccount(p, "InternalAccount:2", { customerId: null }))
          )
        )
        expectConflict(
          yield* Effect.exit(store.transact((uow) => uow.putInternalAccount(internalAccount(p, "InternalAccount:3", { customerId: "Customer:1" })))),
          "internal_accounts_owner_currency"
        )
        expectConflict(
          yield* Effect.exit(store.transact((uow) => uow.putInternalAccount(internalAccount(p, "InternalAccount:4", { customerId: null })))),
          "internal_accounts_owner_currency"
        )
        // Moving an existing account onto a taken (owner, currency) conflicts too.
        yield* store.transact((uow) => uow.putInternalAccount(internalAccount(p, "InternalAccount:5", { customerId: "Customer:1", currency: "EUR" })))
        expectConflict(
          yield* Effect.exit(store.transact((uow) => uow.putInternalAccount(internalAccount(p, "InternalAccount:5", { customerId: "Customer:1", currency: "USD" })))),
          "internal_accounts_owner_currency"
        )
        // Another owner, another currency, another platform: no conflict.
        yield* store.transact((uow) =>
          Effect.andThen(
            uow.putInternalAccount(internalAccount(p, "InternalAccount:6", { customerId: "Customer:2" })),
            uow.putInternalAccount(internalAccount(`${p}-other`, "InternalAccount:7", { customerId: "Customer:1" }))
          )
        )
        expect((yield* store.internalAccounts.list(p, { owner: "customer" }, { limit: 10 })).data.map((r) => r.id)).toEqual([
          "InternalAccount:1",
          "InternalAccount:5",
          "InternalAccount:6"
        ])
        expect((yield* store.internalAccounts.findByOwnerCurrency(p, "Customer:1", "EUR"))?.id).toBe("InternalAccount:5")
      }))
  })

  // ------------------------------------------------------------ the ledger

  describe("ledger", () => {
    storeIt("a balanced entry moves balances; balances, allBalances and entries read them back", (store, p) =>
      Effect.gen(function*() {
        expect(yield* balancesOf(store, p, [A, WORLD])).toEqual([0, 0])
        expect(yield* store.ledger.allBalances(p)).toEqual([])
        expect(yield* store.ledger.balances(p, [])).toEqual(new Map())
        const fund = transfer(p, WORLD, A, 10_000)
        const pay = entry(p, [
          { account: A, currency: "USD", amount: -3_000 },
          { account: B, currency: "USD", amount: 2_900 },
          { account: "system:revenue:USD", currency: "USD", amount: 100 }
        ], { kind: "DEBIT", transactionId: "Transaction:1" })
        const fx = entry(p, [
          { account: B, currency: "USD", amount: -1_000 },
          { account: "system:conversion:USD", currency: "USD", amount: 1_000 },
          { account: "system:conversion:EUR", currency: "EUR", amount: -910 },
          { account: "InternalAccount:b-eur", currency: "EUR", amount: 910 }
        ], { kind: "SETTLE", transactionId: "Transaction:2" })
        yield* store.transact((uow) => uow.post(fund))
        yield* store.transact((uow) => Effect.andThen(uow.post(pay), uow.post(fx)))
        expect(yield* balancesOf(store, p, [A, B, WORLD, "InternalAccount:b-eur", "system:none"])).toEqual([7_000, 1_900, -10_000, 910, 0])
        expect(yield* sortedBalances(store, p)).toEqual([
          { account: A, currency: "USD", balance: 7_000 },
          { account: B, currency: "USD", balance: 1_900 },
          { account: "InternalAccount:b-eur", currency: "EUR", balance: 910 },
          { account: "system:conversion:EUR", currency: "EUR", balance: -910 },
          { account: "system:conversion:USD", currency: "USD", balance: 1_000 },
          { account: "system:revenue:USD", currency: "USD", balance: 100 },
          { account: WORLD, currency: "USD", balance: -10_000 }
        ])
        expect(yield* store.ledger.entries(p)).toEqual([fund, pay, fx])
        expect(yield* store.ledger.entries(p, { transactionId: "Transaction:1" })).toEqual([pay])
        expect(yield* store.ledger.entries(p, { transactionId: "Transaction:none" })).toEqual([])
      }))

    storeIt("an account named in several postings of one entry moves by their net; a zero net still opens it", (store, p) =>
      Effect.gen(function*() {
        yield* store.transact((uow) => uow.post(transfer(p, WORLD, A, 100)))
        // A is debited 150 and credited 100 in one entry: its net (-50) is what counts.
        yield* store.transact((uow) =>
          uow.post(entry(p, [
            { account: A, currency: "USD", amount: -150 },
            { account: A, currency: "USD", amount: 100 },
            { account: B, currency: "USD", amount: 50 },
            { account: "system:suspense:USD", currency: "USD", amount: 7 },
            { account: "system:suspense:USD", currency: "USD", amount: -7 }
          ]))
        )
        expect(yield* balancesOf(store, p, [A, B, "system:suspense:USD"])).toEqual([50, 50, 0])
        expect((yield* sortedBalances(store, p)).map((b) => b.account)).toEqual([A, B, "system:suspense:USD", WORLD])
      }))

    storeIt("refuses an unbalanced entry whole (per currency)", (store, p) =>
      Effect.gen(function*() {
        expectRejected(
          yield* Effect.exit(store.transact((uow) => uow.post(entry(p, [{ account: A, currency: "USD", amount: 5 }, { account: WORLD, currency: "USD", amount: -4 }])))),
          "UNBALANCED"
        )
        expectRejected(
          yield* Effect.exit(store.transact((uow) =>
            uow.post(entry(p, [{ account: A, currency: "USD", amount: 5 }, { account: "system:world:EUR", currency: "EUR", amount: -5 }]))
          )),
          "UNBALANCED"
        )
        expect(yield* store.ledger.allBalances(p)).toEqual([])
        expect(yield* store.ledger.entries(p)).toEqual([])
      }))

    storeIt("refuses taking an internal account below zero (system accounts may go negative)", (store, p) =>
      Effect.gen(function*() {
        expectRejected(yield* Effect.exit(store.transact((uow) => uow.post(transfer(p, A, B, 1)))), "INSUFFICIENT_BALANCE", A)
        yield* store.transact((uow) => uow.post(transfer(p, WORLD, A, 500)))
        expectRejected(yield* Effect.exit(store.transact((uow) => uow.post(transfer(p, A, B, 501)))), "INSUFFICIENT_BALANCE", A)
        // To exactly zero is fine.
        yield* store.transact((uow) => uow.post(transfer(p, A, B, 500)))
        expect(yield* balancesOf(store, p, [A, B, WORLD])).toEqual([0, 500, -500])
        // The whole entry is refused: B's credit in it did not happen either.
        expectRejected(
          yield* Effect.exit(store.transact((uow) =>
            uow.post(entry(p, [
              { account: "InternalAccount:c", currency: "USD", amount: 10 },
              { account: B, currency: "USD", amount: -510 },
              { account: WORLD, currency: "USD", amount: 500 }
            ]))
          )),
          "INSUFFICIENT_BALANCE",
          B
        )
        expect(yield* balancesOf(store, p, [A, B, "InternalAccount:c", WORLD])).toEqual([0, 500, 0, -500])
        expect((yield* store.ledger.entries(p)).length).toBe(2)
      }))

    storeIt("refuses amounts and balances outside the exact integer range", (store, p) =>
      Effect.gen(function*() {
        expectRejected(
          yield* Effect.exit(store.transact((uow) => uow.post(transfer(p, WORLD, A, MAX + 1)))),
          "OUT_OF_RANGE"
        )
        expectRejected(
          yield* Effect.exit(store.transact((uow) => uow.post(entry(p, [{ account: A, currency: "USD", amount: 0.5 }, { account: WORLD, currency: "USD", amount: -0.5 }])))),
          "OUT_OF_RANGE"
        )
        yield* store.transact((uow) => uow.post(transfer(p, WORLD, A, MAX)))
        expect(yield* balancesOf(store, p, [A, WORLD])).toEqual([MAX, -MAX])
        // A can take no more.
        expectRejected(yield* Effect.exit(store.transact((uow) => uow.post(transfer(p, "system:other:USD", A, 1)))), "OUT_OF_RANGE", A)
        // Net of one entry beyond the range on a fresh internal account.
        expectRejected(
          yield* Effect.exit(store.transact((uow) =>
            uow.post(entry(p, [
              { account: B, currency: "USD", amount: MAX },
              { account: B, currency: "USD", amount: MAX },
              { account: "system:y:USD", currency: "USD", amount: -MAX },
              { account: "system:z:USD", currency: "USD", amount: -MAX }
            ]))
          )),
          "OUT_OF_RANGE",
          B
        )
        expect(yield* balancesOf(store, p, [A, B, WORLD, "system:other:USD"])).toEqual([MAX, 0, -MAX, 0])
        // System accounts hold no balance of their own (it is the sum of their postings), so
        // the range is not theirs to keep: the world may give more.
        yield* store.transact((uow) => uow.post(transfer(p, WORLD, "system:other:USD", 1)))
        yield* store.transact((uow) => uow.post(transfer(p, "system:other:USD", WORLD, 1)))
        // Back within range is fine.
        yield* store.transact((uow) => uow.post(transfer(p, A, WORLD, MAX)))
        expect(yield* balancesOf(store, p, [A, WORLD])).toEqual([0, 0])
      }))

    storeIt("a unit of work reads its own posts; one that fails afterwards leaves no trace", (store, p) =>
      Effect.gen(function*() {
        yield* store.transact((uow) => uow.post(transfer(p, WORLD, A, 1_000)))
        const failed = yield* Effect.exit(store.transact((uow) =>
          Effect.gen(function*() {
            yield* uow.post(transfer(p, A, B, 400, { transactionId: "Transaction:x" }))
            expect(yield* balancesOf(store, p, [A, B])).toEqual([600, 400])
            expect((yield* store.ledger.entries(p, { transactionId: "Transaction:x" })).length).toBe(1)
            yield* uow.putInternalAccount(internalAccount(p, "InternalAccount:new"))
            yield* uow.putTransaction(transactionRecord(p, "Transaction:x"))
            return yield* Effect.fail("later failure" as const)
          })
        ))
        expect(failureOf(failed)).toBe("later failure")
        expect(yield* balancesOf(store, p, [A, B])).toEqual([1_000, 0])
        expect((yield* sortedBalances(store, p)).map((b) => b.account)).toEqual([A, WORLD])
        expect((yield* store.ledger.entries(p)).length).toBe(1)
        expect(yield* store.internalAccounts.get(p, "InternalAccount:new")).toBeUndefined()
        expect(yield* store.transactions.get(p, "Transaction:x")).toBeUndefined()
        // A defect rolls back too.
        const died = yield* Effect.exit(store.transact((uow) => Effect.andThen(uow.post(transfer(p, A, B, 1)), Effect.die("boom"))))
        expect(Exit.isFailure(died)).toBe(true)
        expect(yield* balancesOf(store, p, [A, B])).toEqual([1_000, 0])
      }))

    storeIt("a refusal ends its level: a nested unit of work's partial moves are undone, the outer one goes on", (store, p) =>
      Effect.gen(function*() {
        yield* store.transact((uow) => uow.post(transfer(p, WORLD, B, 100)))
        const outcome = yield* store.transact((uow) =>
          Effect.gen(function*() {
            yield* uow.post(transfer(p, WORLD, B, 1))
            // A (credited, first in account order) and B (refused): the whole entry goes.
            const inner = yield* Effect.exit(store.transact((inner) =>
              inner.post(entry(p, [
                { account: A, currency: "USD", amount: 200 },
                { account: B, currency: "USD", amount: -200 }
              ]))
            ))
            expectRejected(inner, "INSUFFICIENT_BALANCE", B)
            expect(yield* balancesOf(store, p, [A, B])).toEqual([0, 101])
            yield* uow.post(transfer(p, B, A, 1))
            return "committed"
          })
        )
        expect(outcome).toBe("committed")
        expect(yield* balancesOf(store, p, [A, B, WORLD])).toEqual([1, 100, -101])
        expect((yield* store.ledger.entries(p)).length).toBe(3)
        // Swallowing a refusal inside the unit of work that raised it and committing is refused.
        const swallowed = yield* Effect.exit(store.transact((uow) =>
          Effect.andThen(Effect.exit(uow.post(transfer(p, A, B, 5))), uow.post(transfer(p, WORLD, A, 5)))
        ))
        expect(Exit.isFailure(swallowed)).toBe(true)
        expect(yield* balancesOf(store, p, [A, B, WORLD])).toEqual([1, 100, -101])
      }))
  })

  // ------------------------------------------------------------ quotes and configurations

  describe("quotes and platform configurations", () => {
    storeIt("quotes: put, get, rewrite", (store, p) =>
      Effect.gen(function*() {
        const q = quoteRecord(p, "Quote:1")
        yield* store.transact((uow) => uow.putQuote(q))
        expect(yield* store.quotes.get(p, "Quote:1")).toEqual(q)
        expect(yield* store.quotes.get(p, "Quote:2")).toBeUndefined()
        expect(yield* store.quotes.get(`${p}-other`, "Quote:1")).toBeUndefined()
        const done: QuoteRecord = { ...q, quote: { ...q.quote, status: "COMPLETED" } }
        yield* store.transact((uow) => uow.putQuote(done))
        expect(yield* store.quotes.get(p, "Quote:1")).toEqual(done)
      }))

    storeIt("platform configurations: undefined until put, then the last put", (store, p) =>
      Effect.gen(function*() {
        expect(yield* store.platformConfigs.get(p)).toBeUndefined()
        const first = configRecord(p, "one.example.com")
        yield* store.transact((uow) => uow.putPlatformConfig(first))
        expect(yield* store.platformConfigs.get(p)).toEqual(first)
        const second = configRecord(p, "two.example.com")
        yield* store.transact((uow) => uow.putPlatformConfig(second))
        expect(yield* store.platformConfigs.get(p)).toEqual(second)
        expect(yield* store.platformConfigs.get(`${p}-other`)).toBeUndefined()
        const failed = yield* Effect.exit(store.transact((uow) => Effect.andThen(uow.putPlatformConfig(first), Effect.fail("undo" as const))))
        expect(failureOf(failed)).toBe("undo")
        expect(yield* store.platformConfigs.get(p)).toEqual(second)
      }))
  })

  // ------------------------------------------------------------ transactions

  describe("transactions", () => {
    const fixture = (p: string): ReadonlyArray<TransactionRecord> => [
      transactionRecord(p, "Transaction:01", { createdAt: T0, customerId: "Customer:1", reference: "REF-1", status: "PENDING" }),
      transactionRecord(p, "Transaction:02", { createdAt: T0, customerId: "Customer:2", status: "COMPLETED", receiver: "ExternalAccount:2" }),
      transactionRecord(p, "Transaction:03", { createdAt: T0 + SEC, customerId: null, sender: "InternalAccount:p", status: "FAILED" }),
      transactionRecord(p, "Transaction:04", { createdAt: T0 + SEC, type: "INCOMING", customerId: "Customer:1", senderUma: true, receiver: A, status: "COMPLETED" }),
      transactionRecord(p, "Transaction:05", { createdAt: T0 + 2 * SEC, customerId: "Customer:1", receiverUma: true, receiver: "$bob@example.com", reference: "REF-2", status: "PROCESSING" }),
      transactionRecord(p, "Transaction:06", { createdAt: T0 + 2 * SEC, customerId: "Customer:2", sender: B, receiver: A, status: "COMPLETED" }),
      transactionRecord(p, "Transaction:07", { createdAt: T0 + 3 * SEC, type: "INCOMING", customerId: "Customer:2", senderUma: true, sender: "$carol@example.com", receiver: B, status: "PENDING" }),
      transactionRecord(p, "Transaction:08", { createdAt: T0 + 3 * SEC, customerId: "Customer:1", reference: "REF-1", status: "EXPIRED" }),
      transactionRecord(p, "Transaction:09", { createdAt: T0 + 4 * SEC, customerId: null, sender: "InternalAccount:p", receiver: "ExternalAccount:2", status: "COMPLETED" })
    ]

    storeIt("put, get and rewrite (a new status moves it between filters)", (store, p) =>
      Effect.gen(function*() {
        const t = transactionRecord(p, "Transaction:1")
        yield* store.transact((uow) => uow.putTransaction(t))
        expect(yield* store.transactions.get(p, "Transaction:1")).toEqual(t)
        expect(yield* store.transactions.get(`${p}-other`, "Transaction:1")).toBeUndefined()
        const done = transactionRecord(p, "Transaction:1", { status: "COMPLETED", reference: "R" })
        yield* store.transact((uow) => uow.putTransaction(done))
        expect(yield* store.transactions.get(p, "Transaction:1")).toEqual(done)
        expect((yield* store.transactions.list(p, { status: "PENDING" }, { limit: 5 })).totalCount).toBe(0)
        expect((yield* store.transactions.list(p, { status: "COMPLETED", reference: "R" }, { limit: 5 })).data).toEqual([done])
      }))

    storeIt("lists with every filter, oldest or newest first, paged with cursors", (store, p) =>
      Effect.gen(function*() {
        const rows = fixture(p)
        yield* store.transact((uow) => Effect.forEach([...rows].reverse(), (r) => uow.putTransaction(r), { discard: true }))
        const queries: ReadonlyArray<TransactionQuery> = [
          {},
          { customerId: "Customer:1" },
          { platformCustomerId: "pc-Customer:2" },
          { accountIdentifier: A },
          { accountIdentifier: "$bob@example.com" },
          { senderAccountIdentifier: "InternalAccount:p" },
          { senderAccountIdentifier: "$carol@example.com" },
          { receiverAccountIdentifier: "ExternalAccount:2" },
          { receiverAccountIdentifier: B },
          { status: "COMPLETED" },
          { type: "INCOMING" },
          { type: "OUTGOING", status: "COMPLETED" },
          { reference: "REF-1" },
          { created: { from: T0 + SEC } },
          { created: { to: T0 + 2 * SEC } },
          { created: { from: T0 + SEC, to: T0 + 3 * SEC }, customerId: "Customer:1" },
          { customerId: "Customer:none" }
        ]
        for (const q of queries) {
          const ascending = rows.filter(matchesTransaction(q)).sort(transactionOrder).map((r) => r.transaction.id)
          for (const limit of [1, 2, 4, 50]) {
            for (const descending of [false, true]) {
              const got = yield* pagedIds<TransactionRecord>(
                (page) => store.transactions.list(p, q, page),
                (r) => r.transaction.id,
                limit,
                descending,
                ascending.length
              )
              expect(got, JSON.stringify({ q, limit, descending })).toEqual(descending ? [...ascending].reverse() : ascending)
            }
          }
        }
        // A descending page continues strictly below its cursor, ties in createdAt by id.
        const first = yield* store.transactions.list(p, {}, { limit: 3, descending: true })
        expect(first.data.map((r) => r.transaction.id)).toEqual(["Transaction:09", "Transaction:08", "Transaction:07"])
        const next = yield* store.transactions.list(p, {}, { limit: 3, descending: true, cursor: first.nextCursor })
        expect(next.data.map((r) => r.transaction.id)).toEqual(["Transaction:06", "Transaction:05", "Transaction:04"])
        expect(next.totalCount).toBe(rows.length)
        // A cursor the store did not issue.
        const bad = yield* Effect.exit(store.transactions.list(p, {}, { limit: 3, descending: true, cursor: "not-a-cursor" }))
        expect(failureOf(bad)).toMatchObject({ _tag: "InvalidCursor" })
      }))

    storeIt("sentVolume sums one owner's outgoing payments in a currency since an instant, failed and expired ones aside", (store, p) =>
      Effect.gen(function*() {
        const rows = [
          transactionRecord(p, "Transaction:1", { createdAt: T0, amount: 100 }),
          transactionRecord(p, "Transaction:2", { createdAt: T0 + SEC, amount: 200, status: "COMPLETED" }),
          transactionRecord(p, "Transaction:3", { createdAt: T0 + 2 * SEC, amount: 400, status: "FAILED" }),
          transactionRecord(p, "Transaction:4", { createdAt: T0 + 2 * SEC, amount: 800, status: "EXPIRED" }),
          transactionRecord(p, "Transaction:5", { createdAt: T0 + 2 * SEC, amount: 1_600, type: "INCOMING" }),
          transactionRecord(p, "Transaction:6", { createdAt: T0 + 3 * SEC, amount: 3_200, currency: EUR }),
          transactionRecord(p, "Transaction:7", { createdAt: T0 + 3 * SEC, amount: 6_400, customerId: "Customer:2" }),
          transactionRecord(p, "Transaction:8", { createdAt: T0 + 3 * SEC, amount: 12_800, customerId: null, status: "PROCESSING" }),
          transactionRecord(p, "Transaction:9", { createdAt: T0 + 4 * SEC, amount: MAX - 20_000, customerId: "Customer:big" })
        ]
        yield* store.transact((uow) => Effect.forEach(rows, (r) => uow.putTransaction(r), { discard: true }))
        const volume = (customerId: string | null, currency: string, since: number) =>
          store.transactions.sentVolume(p, { customerId, currency, since })
        expect(yield* volume("Customer:1", "USD", T0)).toBe(300)
        expect(yield* volume("Customer:1", "USD", T0 + 1)).toBe(200)
        expect(yield* volume("Customer:1", "USD", T0 + SEC)).toBe(200)
        expect(yield* volume("Customer:1", "USD", T0 + 2 * SEC)).toBe(0)
        expect(yield* volume("Customer:1", "EUR", T0)).toBe(3_200)
        expect(yield* volume("Customer:2", "USD", T0)).toBe(6_400)
        expect(yield* volume(null, "USD", T0)).toBe(12_800)
        expect(yield* volume("Customer:big", "USD", T0)).toBe(MAX - 20_000)
        expect(yield* volume("Customer:none", "USD", T0)).toBe(0)
        expect(yield* store.transactions.sentVolume(`${p}-other`, { customerId: "Customer:1", currency: "USD", since: T0 })).toBe(0)
      }))

    storeIt("sentVolume follows a payment's rewrites: a failure takes it out, a later day and another owner count apart", (store, p) =>
      Effect.gen(function*() {
        const volume = (customerId: string | null, since: number) => store.transactions.sentVolume(p, { customerId, currency: "USD", since })
        const put = (r: ReturnType<typeof transactionRecord>) => store.transact((uow) => uow.putTransaction(r))
        yield* put(transactionRecord(p, "Transaction:1", { createdAt: T0 + SEC, amount: 100 }))
        yield* put(transactionRecord(p, "Transaction:2", { createdAt: T0 + DAY + SEC, amount: 200 }))
        expect(yield* volume("Customer:1", T0)).toBe(300)
        expect(yield* volume("Customer:1", T0 + DAY)).toBe(200)
        yield* put(transactionRecord(p, "Transaction:1", { createdAt: T0 + SEC, amount: 100, status: "COMPLETED" }))
        expect(yield* volume("Customer:1", T0)).toBe(300)
        // Rewritten with another amount (same sender, currency and day): the day's total follows it, and back.
        yield* put(transactionRecord(p, "Transaction:1", { createdAt: T0 + SEC, amount: 150, status: "COMPLETED" }))
        expect(yield* volume("Customer:1", T0)).toBe(350)
        expect(yield* volume("Customer:1", T0 + DAY)).toBe(200)
        yield* put(transactionRecord(p, "Transaction:1", { createdAt: T0 + SEC, amount: 100, status: "COMPLETED" }))
        expect(yield* volume("Customer:1", T0)).toBe(300)
        yield* put(transactionRecord(p, "Transaction:2", { createdAt: T0 + DAY + SEC, amount: 200, status: "FAILED" }))
        expect(yield* volume("Customer:1", T0)).toBe(100)
        expect(yield* volume("Customer:1", T0 + DAY)).toBe(0)
        yield* put(transactionRecord(p, "Transaction:1", { createdAt: T0 + SEC, amount: 100, customerId: "Customer:2" }))
        expect(yield* volume("Customer:1", T0)).toBe(0)
        expect(yield* volume("Customer:2", T0)).toBe(100)
        // A payment rolled back with its unit of work leaves the volume as it was.
        yield* Effect.exit(store.transact((uow) =>
          Effect.andThen(uow.putTransaction(transactionRecord(p, "Transaction:3", { createdAt: T0 + SEC, amount: 400, customerId: "Customer:2" })), Effect.fail("undo"))
        ))
        expect(yield* volume("Customer:2", T0)).toBe(100)
        yield* store.transact((uow) => uow.resetPlatform(p))
        expect(yield* volume("Customer:2", T0)).toBe(0)
      }))

    storeIt("a payment written twice in one unit of work, counted then not (or back), keeps its last record and volume", (store, p) =>
      Effect.gen(function*() {
        const volume = () => store.transactions.sentVolume(p, { customerId: "Customer:1", currency: "USD", since: T0 })
        const tx = (id: string, status: TransactionStatus) => transactionRecord(p, id, { createdAt: T0 + SEC, amount: 100, status })
        // Created and failed at once; created failed, then revived; and an incoming one beside a counted one.
        yield* store.transact((uow) => Effect.andThen(uow.putTransaction(tx("Transaction:1", "PENDING")), uow.putTransaction(tx("Transaction:1", "FAILED"))))
        expect((yield* store.transactions.get(p, "Transaction:1"))?.transaction.status).toBe("FAILED")
        expect(yield* volume()).toBe(0)
        yield* store.transact((uow) => Effect.andThen(uow.putTransaction(tx("Transaction:2", "FAILED")), uow.putTransaction(tx("Transaction:2", "PENDING"))))
        expect((yield* store.transactions.get(p, "Transaction:2"))?.transaction.status).toBe("PENDING")
        expect(yield* volume()).toBe(100)
        yield* store.transact((uow) =>
          Effect.andThen(uow.putTransaction(tx("Transaction:2", "COMPLETED")), uow.putTransaction(tx("Transaction:2", "EXPIRED")))
        )
        expect(yield* volume()).toBe(0)
      }))
  })

  // ------------------------------------------------------------ reset and tenants

  const writeMoney = (store: StoreService, p: string) =>
    store.transact((uow) =>
      Effect.gen(function*() {
        yield* uow.putInternalAccount(internalAccount(p, A, { customerId: "Customer:1" }))
        yield* uow.putInternalAccount(internalAccount(p, B, { customerId: null }))
        yield* uow.post(transfer(p, WORLD, A, 700, { transactionId: "Transaction:1" }))
        yield* uow.post(transfer(p, A, B, 200, { transactionId: "Transaction:1" }))
        yield* uow.putQuote(quoteRecord(p, "Quote:1"))
        yield* uow.putTransaction(transactionRecord(p, "Transaction:1", { amount: 200 }))
        yield* uow.putPlatformConfig(configRecord(p, "pay.example.com"))
      })
    )

  const moneySnapshot = (store: StoreService, p: string) =>
    Effect.gen(function*() {
      return {
        accounts: (yield* store.internalAccounts.list(p, { owner: "customer" }, { limit: 10 })).data.map((r) => r.id),
        platformAccounts: (yield* store.internalAccounts.list(p, { owner: "platform" }, { limit: 10 })).data.map((r) => r.id),
        account: (yield* store.internalAccounts.get(p, A))?.id,
        byOwner: (yield* store.internalAccounts.findByOwnerCurrency(p, "Customer:1", "USD"))?.id,
        balances: yield* balancesOf(store, p, [A, B, WORLD]),
        allBalances: (yield* sortedBalances(store, p)).map((b) => [b.account, b.balance]),
        entries: (yield* store.ledger.entries(p)).length,
        quote: (yield* store.quotes.get(p, "Quote:1"))?.quote.id,
        transaction: (yield* store.transactions.get(p, "Transaction:1"))?.transaction.id,
        transactions: (yield* store.transactions.list(p, {}, { limit: 10 })).totalCount,
        volume: yield* store.transactions.sentVolume(p, { customerId: "Customer:1", currency: "USD", since: T0 }),
        config: (yield* store.platformConfigs.get(p))?.config.umaDomain
      }
    })

  const FULL = {
    accounts: [A],
    platformAccounts: [B],
    account: A,
    byOwner: A,
    balances: [500, 200, -700],
    allBalances: [[A, 500], [B, 200], [WORLD, -700]],
    entries: 2,
    quote: "Quote:1",
    transaction: "Transaction:1",
    transactions: 1,
    volume: 200,
    config: "pay.example.com"
  }
  const EMPTY = {
    accounts: [],
    platformAccounts: [],
    account: undefined,
    byOwner: undefined,
    balances: [0, 0, 0],
    allBalances: [],
    entries: 0,
    quote: undefined,
    transaction: undefined,
    transactions: 0,
    volume: 0,
    config: undefined
  }

  describe("resetPlatform and tenants", () => {
    storeIt("resetPlatform clears every account, balance, entry, quote, transaction and configuration of that platform only", (store, p) =>
      Effect.gen(function*() {
        const q = `${p}-kept`
        yield* writeMoney(store, p)
        yield* writeMoney(store, q)
        expect(yield* moneySnapshot(store, p)).toEqual(FULL)
        const failed = yield* Effect.exit(store.transact((uow) => Effect.andThen(uow.resetPlatform(p), Effect.fail("undo" as const))))
        expect(failureOf(failed)).toBe("undo")
        expect(yield* moneySnapshot(store, p)).toEqual(FULL)
        yield* store.transact((uow) => uow.resetPlatform(p))
        expect(yield* moneySnapshot(store, p)).toEqual(EMPTY)
        expect(yield* moneySnapshot(store, q)).toEqual(FULL)
        // Its keys are free again, and balances start from zero.
        yield* writeMoney(store, p)
        expect(yield* moneySnapshot(store, p)).toEqual(FULL)
      }))

    storeIt("two platforms hold the same ids, owners and ledger accounts apart", (store, p) =>
      Effect.gen(function*() {
        const q = `${p}-b`
        yield* writeMoney(store, p)
        expect(yield* moneySnapshot(store, q)).toEqual(EMPTY)
        // Q cannot spend P's money.
        expectRejected(yield* Effect.exit(store.transact((uow) => uow.post(transfer(q, A, B, 1)))), "INSUFFICIENT_BALANCE", A)
        yield* writeMoney(store, q)
        expect(yield* moneySnapshot(store, q)).toEqual(FULL)
        yield* store.transact((uow) => uow.post(transfer(q, A, B, 500)))
        expect(yield* balancesOf(store, p, [A, B])).toEqual([500, 200])
        expect(yield* balancesOf(store, q, [A, B])).toEqual([0, 700])
        // A cursor of P's list used on Q pages only Q's rows.
        yield* store.transact((uow) => uow.putTransaction(transactionRecord(p, "Transaction:2", { createdAt: T0 + SEC })))
        const cursor = (yield* store.transactions.list(p, {}, { limit: 1 })).nextCursor
        const page = yield* store.transactions.list(q, {}, { limit: 10, cursor })
        expect(page.data.every((r) => r.platformId === q)).toBe(true)
      }))
  })

  // ------------------------------------------------------------ concurrency

  describe("concurrency", () => {
    storeIt("concurrent check-then-post transfers between two internal accounts create and destroy no money", (store, p) =>
      Effect.gen(function*() {
        yield* fundAB(store, p, 1_000)
        const moved = yield* runTransfers(store, p, 8, 4)
        expect(moved).toBeGreaterThan(0)
        yield* expectConserved(store, p, 2_000)
        expect((yield* store.ledger.entries(p)).length).toBe(2 + moved)
      }), 60_000)

    storeIt("concurrent unchecked posts: the store refuses overdrafts and keeps the total", (store, p) =>
      Effect.gen(function*() {
        yield* fundAB(store, p, 300)
        const results = yield* Effect.all(
          Array.from({ length: 16 }, (_, i) => i % 2 === 0 ? blindTransfer(store, p, A, B, 100) : blindTransfer(store, p, B, A, 150)),
          { concurrency: "unbounded" }
        )
        yield* expectConserved(store, p, 600)
        expect((yield* store.ledger.entries(p)).length).toBe(2 + results.filter((ok) => ok).length)
      }), 60_000)
  })

  // ------------------------------------------------------------ PostgreSQL only

  if (kind === "postgres") {
    describe("two store instances on one database (two processes)", () => {
      let second: ManagedRuntime.ManagedRuntime<Store, unknown>
      beforeAll(async () => {
        second = ManagedRuntime.make(postgresStoreLayer({ url: databaseUrl()!, maxConnections: 24 }))
        await second.runPromise(Effect.void)
      }, 30_000)
      afterAll(async () => {
        await second?.dispose()
      })

      it("concurrent transfers from both instances conserve money and never overdraw", async () => {
        const [one, two] = await Promise.all([runtime().runPromise(Effect.service(Store)), second.runPromise(Effect.service(Store))])
        const p = freshPlatform(kind)
        await runtime().runPromise(fundAB(one, p, 1_000))
        const [a, b] = await Promise.all([
          runtime().runPromise(runTransfers(one, p, 4, 4, 0)),
          second.runPromise(runTransfers(two, p, 4, 4, 1000))
        ])
        await second.runPromise(expectConserved(two, p, 2_000))
        expect((await runtime().runPromise(one.ledger.entries(p))).length).toBe(2 + a + b)
        // Blind posts from both: overdrafts refused, total kept.
        await Promise.all([
          runtime().runPromise(Effect.all(Array.from({ length: 6 }, () => blindTransfer(one, p, A, B, 400)), { concurrency: "unbounded" })),
          second.runPromise(Effect.all(Array.from({ length: 6 }, () => blindTransfer(two, p, B, A, 400)), { concurrency: "unbounded" }))
        ])
        await runtime().runPromise(expectConserved(one, p, 2_000))
      }, 60_000)
    })

    it("a broken balance CHECK (the backstop) surfaces as LedgerRejected, not a defect", async () => {
      // A database of its own whose range CHECK is stricter than the adapter's guard.
      const url = await createDatabase(inject("databaseAdminUrl"))
      const rt = ManagedRuntime.make(postgresStoreLayer({ url, maxConnections: 4 }))
      try {
        const store = await rt.runPromise(Effect.service(Store))
        await Effect.runPromise(
          Effect.gen(function*() {
            const sql = yield* SqlClient.SqlClient
            yield* sql.unsafe(`alter table ledger_balances drop constraint ledger_balances_exact`)
            yield* sql.unsafe(`alter table ledger_balances add constraint ledger_balances_exact check (balance between -1000 and 1000)`)
          }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(url) })), Effect.scoped)
        )
        const p = freshPlatform(kind)
        await rt.runPromise(store.transact((uow) => uow.post(transfer(p, WORLD, A, 1_000))))
        const exit = await rt.runPromise(Effect.exit(store.transact((uow) => uow.post(transfer(p, WORLD, A, 1)))))
        expectRejected(exit, "OUT_OF_RANGE")
        expect(await rt.runPromise(balancesOf(store, p, [A, WORLD]))).toEqual([1_000, -1_000])
      } finally {
        await rt.dispose()
      }
    }, 60_000)
  }
})
