/**
 * The Store contract for `paymentReads.readAhead` (ports/money.ts), on memory, PGlite and
 * PostgreSQL: whatever a unit of work reads ahead, every later read in it answers what it
 * answers without the read ahead, including after the unit of work writes what was read
 * (a quote, a customer, an account, the configuration, a balance, the daily volume). On
 * PostgreSQL, the statement reads by index only, a bounded number of rows, however many
 * rows the tables hold (issue #20: a payment costs the same with a million in the books).
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { describe, expect } from "vitest"
import { Seen } from "../../src/adapters/sql/guessed-reads.js"
import { readAheadStatement } from "../../src/adapters/sql/payment-reads.js"
import type { CustomerResponse } from "../../src/domain/customer.js"
import type { Currency } from "../../src/domain/money.js"
import type {
  CustomerRecord,
  ExternalAccountRecord,
  InternalAccountRecord,
  PaymentReadAhead,
  PlatformConfigRecord,
  QuoteRecord,
  TransactionRecord
} from "../../src/ports/store.js"
import { type PlanNode, rowsRead } from "../support/plans.js"
import { KINDS, storeSuite, type StoreService } from "../support/store-harness.js"

const T0 = Date.parse("2026-01-01T00:00:00.000Z")
const DAY = 86_400_000
const iso = (ms: number) => new Date(ms).toISOString()
const USD: Currency = { code: "USD", name: "United States Dollar", symbol: "$", decimals: 2 }
const EUR: Currency = { code: "EUR", name: "Euro", symbol: "€", decimals: 2 }

const PAYER = "Customer:payer"
const PAYEE = "Customer:payee"
const SOURCE = "InternalAccount:source"
const DESTINATION = "InternalAccount:destination"
const EXTERNAL = "ExternalAccount:payout"
const WORLD = "system:world:USD"
/** The day of the volume window: the payments below are made on it. */
const SINCE = T0

const customer = (platformId: string, id: string, name = "Ada Lovelace"): CustomerRecord => {
  const c: CustomerResponse = {
    id,
    platformCustomerId: `pc-${id}`,
    umaAddress: `$${id.replace(/[^a-zA-Z0-9]/g, "")}@example.com`,
    customerType: "INDIVIDUAL",
    kycStatus: "APPROVED",
    fullName: name,
    agreementConsents: [],
    createdAt: iso(T0),
    updatedAt: iso(T0),
    isDeleted: false
  }
  return { platformId, customer: c }
}

const internal = (platformId: string, id: string, customerId: string, status: "ACTIVE" | "FROZEN" = "ACTIVE"): InternalAccountRecord => ({
  platformId,
  id,
  customerId,
  type: "INTERNAL_FIAT",
  status,
  currency: "USD",
  createdAt: iso(T0),
  updatedAt: iso(T0)
})

const external = (platformId: string, id: string, customerId: string, currency = "EUR"): ExternalAccountRecord => ({
  platformId,
  account: {
    id,
    customerId,
    status: "ACTIVE",
    currency,
    defaultUmaDepositAccount: false,
    accountInfo: { accountType: "ETHEREUM_WALLET", address: "0x52908400098527886E0F7030069857D2E4169EE7" },
    createdAt: iso(T0),
    updatedAt: iso(T0)
  },
  equivalenceKey: `eq-${id}-${currency}`,
  trusted: false
})

const quote = (platformId: string, id: string, destination: string, status: "PENDING" | "COMPLETED" = "PENDING"): QuoteRecord => ({
  platformId,
  quote: {
    id,
    status,
    createdAt: iso(T0),
    expiresAt: iso(T0 + 300_000),
    source: { sourceType: "ACCOUNT", accountId: SOURCE },
    destination: { destinationType: "ACCOUNT", accountId: destination },
    sendingCurrency: USD,
    receivingCurrency: destination === EXTERNAL ? EUR : USD,
    totalSendingAmount: 1_000,
    totalReceivingAmount: 900,
    exchangeRate: 0.9,
    feesIncluded: 0,
    transactionId: `Transaction:of-${id}`
  },
  plan: {
    customerId: PAYER,
    source: { kind: "INTERNAL", accountId: SOURCE },
    destination: destination === EXTERNAL ? { kind: "EXTERNAL", accountId: EXTERNAL } : { kind: "INTERNAL", accountId: destination },
    platformFee: 0,
    serviceFee: 0,
    outcome: "SUCCESS",
    steps: []
  }
})

const payment = (platformId: string, id: string, amount: number): TransactionRecord => ({
  platformId,
  transaction: {
    id,
    type: "OUTGOING",
    direction: "DEBIT",
    status: "PENDING",
    source: { sourceType: "ACCOUNT", accountId: SOURCE },
    destination: { destinationType: "ACCOUNT", accountId: DESTINATION },
    customerId: PAYER,
    platformCustomerId: `pc-${PAYER}`,
    sentAmount: { amount, currency: USD },
    createdAt: iso(T0 + 60_000),
    updatedAt: iso(T0 + 60_000)
  },
  plan: {
    debit: { account: SOURCE, currency: "USD", amount },
    credit: { account: DESTINATION, currency: "USD", amount },
    fees: [],
    money: "NONE",
    outcome: "SUCCESS",
    steps: [],
    internalAccounts: [SOURCE, DESTINATION]
  }
})

const config = (platformId: string, umaDomain: string): PlatformConfigRecord => ({
  platformId,
  config: {
    id: `PlatformConfig:${platformId}`,
    umaDomain,
    supportedCurrencies: [],
    isRegulatedFinancialInstitution: false,
    feeConfigs: [],
    railFeeConfigs: [],
    createdAt: iso(T0),
    updatedAt: iso(T0)
  }
})

/** A payer funded with 5,000, its payee, a payout account, a quote of each kind and a payment of 700 today. */
const seed = (store: StoreService, p: string, withConfig: boolean) =>
  store.transact((uow) =>
    Effect.gen(function*() {
      yield* uow.putCustomer(customer(p, PAYER))
      yield* uow.putCustomer(customer(p, PAYEE, "Grace Hopper"))
      yield* uow.putInternalAccount(internal(p, SOURCE, PAYER))
      yield* uow.putInternalAccount(internal(p, DESTINATION, PAYEE))
      yield* uow.putExternalAccount(external(p, EXTERNAL, PAYER))
      yield* uow.post({
        platformId: p,
        id: "JournalEntry:fund",
        kind: "FUND",
        at: iso(T0),
        postings: [{ account: WORLD, currency: "USD", amount: -5_000 }, { account: SOURCE, currency: "USD", amount: 5_000 }]
      })
      yield* uow.putQuote(quote(p, "Quote:internal", DESTINATION))
      yield* uow.putQuote(quote(p, "Quote:payout", EXTERNAL))
      yield* uow.putTransaction(payment(p, "Transaction:today", 700))
      if (withConfig) yield* uow.putPlatformConfig(config(p, "first.example.com"))
    })
  )

/** Everything a payment reads, read through the repositories. */
type Reads = Effect.Success<ReturnType<typeof readAll>>

/** A unit of work's reads, as the failure that undoes it. */
class Undone {
  constructor(readonly after: Reads) {}
}


const readAll = (store: StoreService, p: string) =>
  Effect.all({
    quotes: Effect.all([store.quotes.get(p, "Quote:internal"), store.quotes.get(p, "Quote:payout"), store.quotes.get(p, "Quote:absent")]),
    customers: Effect.all([store.customers.get(p, PAYER), store.customers.get(p, PAYEE), store.customers.get(p, "Customer:absent")]),
    internal: Effect.all([store.internalAccounts.get(p, SOURCE), store.internalAccounts.get(p, DESTINATION), store.internalAccounts.get(p, "InternalAccount:absent")]),
    external: Effect.all([store.externalAccounts.get(p, EXTERNAL), store.externalAccounts.get(p, "ExternalAccount:absent")]),
    config: store.platformConfigs.get(p),
    balances: Effect.map(store.ledger.balances(p, [SOURCE, DESTINATION, WORLD]), (m) => Object.fromEntries(m)),
    volume: store.transactions.sentVolume(p, { customerId: PAYER, currency: "USD", since: SINCE }),
    volumeEarlier: store.transactions.sentVolume(p, { customerId: PAYER, currency: "USD", since: SINCE - DAY })
  })

const WANTS: ReadonlyArray<readonly [string, PaymentReadAhead]> = [
  ["an execution to an internal account", { kind: "quote", quoteId: "Quote:internal", volumeSince: SINCE }],
  ["an execution to an external account", { kind: "quote", quoteId: "Quote:payout", volumeSince: SINCE }],
  ["an absent quote", { kind: "quote", quoteId: "Quote:absent", volumeSince: SINCE }],
  ["a new quote to an internal account", { kind: "accounts", sourceAccountId: SOURCE, destinationAccountId: DESTINATION, volumeSince: SINCE }],
  ["a new quote to an external account", { kind: "accounts", sourceAccountId: SOURCE, destinationAccountId: EXTERNAL, volumeSince: SINCE }],
  ["a new quote from an external account", { kind: "accounts", sourceAccountId: EXTERNAL, volumeSince: SINCE }],
  ["a new quote from an absent account", { kind: "accounts", sourceAccountId: "InternalAccount:absent", volumeSince: SINCE }],
  ["a window that is not a day's start", { kind: "quote", quoteId: "Quote:internal", volumeSince: SINCE + 1 }]
]

for (const kind of KINDS) {
  describe(`paymentReads.readAhead on ${kind}`, () => {
    const { storeIt, databaseUrl } = storeSuite(kind)

    for (const withConfig of [true, false]) {
      storeIt(`every read answers as without it (${withConfig ? "a stored configuration" : "no configuration stored"})`, (store, p) =>
        Effect.gen(function*() {
          yield* seed(store, p, withConfig)
          const expected = yield* store.transact(() => readAll(store, p))
          expect(expected.balances[SOURCE]).toBe(5_000)
          expect(expected.volume).toBe(700)
          for (const [name, wants] of WANTS) {
            const seen = yield* store.transact(() => Effect.andThen(store.paymentReads.readAhead(p, wants), readAll(store, p)))
            expect(seen, name).toEqual(expected)
          }
          // Outside a unit of work it does nothing.
          yield* store.paymentReads.readAhead(p, WANTS[0]![1])
          expect(yield* readAll(store, p)).toEqual(expected)
        }))
    }

    storeIt("an execution whose quote names other kinds of account than the text read ahead for answers as without it", (store, p) =>
      Effect.gen(function*() {
        yield* seed(store, p, true)
        // Each quote rewritten with the other kind of destination. On PostgreSQL by another
        // process (a client of its own): this store last saw the quote as it wrote it, so the
        // text chosen for its execution reads the kind the quote no longer names. On PGlite
        // (one process per data directory) and memory, by this store.
        for (const [id, destination] of [["Quote:payout", DESTINATION], ["Quote:internal", EXTERNAL]] as const) {
          const rewritten = quote(p, id, destination)
          if (kind === "postgres") {
            yield* Effect.gen(function*() {
              const sql = yield* SqlClient.SqlClient
              yield* sql.unsafe("update quotes set destination_id = $3, doc = $4::json where platform_id = $1 and id = $2", [
                p,
                id,
                destination,
                JSON.stringify(rewritten)
              ])
            }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(databaseUrl()!) })), Effect.scoped)
          } else yield* store.transact((uow) => uow.putQuote(rewritten))
          const expected = yield* store.transact(() => readAll(store, p))
          const seen = yield* store.transact(() =>
            Effect.andThen(store.paymentReads.readAhead(p, { kind: "quote", quoteId: id, volumeSince: SINCE }), readAll(store, p))
          )
          expect(seen, id).toEqual(expected)
        }
      }))

    storeIt("a unit of work's writes after it are seen by its later reads", (store, p) =>
      Effect.gen(function*() {
        yield* seed(store, p, false)
        for (const [name, wants] of WANTS) {
          const seen = yield* store.transact((uow) =>
            Effect.gen(function*() {
              yield* store.paymentReads.readAhead(p, wants)
              yield* uow.putQuote(quote(p, "Quote:internal", DESTINATION, "COMPLETED"))
              yield* uow.putCustomer(customer(p, PAYER, "Ada King"))
              yield* uow.putInternalAccount(internal(p, DESTINATION, PAYEE, "FROZEN"))
              yield* uow.putExternalAccount(external(p, EXTERNAL, PAYER, "GBP"))
              yield* uow.putPlatformConfig(config(p, "second.example.com"))
              yield* uow.post({
                platformId: p,
                id: `JournalEntry:move-${name}`,
                kind: "DEBIT",
                at: iso(T0 + 1),
                postings: [{ account: SOURCE, currency: "USD", amount: -1_000 }, { account: DESTINATION, currency: "USD", amount: 1_000 }]
              })
              yield* uow.putTransaction(payment(p, `Transaction:${name}`, 300))
              const after = yield* readAll(store, p)
              // Undone: each case starts from the seed.
              return yield* Effect.fail(new Undone(after))
            })
          ).pipe(Effect.flip)
          if (!(seen instanceof Undone)) return expect.fail(`${name}: ${String(seen)}`)
          const after = seen.after
          expect(after.quotes[0]?.quote.status, name).toBe("COMPLETED")
          expect(after.customers[0]?.customer.customerType === "INDIVIDUAL" && after.customers[0].customer.fullName, name).toBe("Ada King")
          expect(after.internal[1]?.status, name).toBe("FROZEN")
          expect(after.external[0]?.account.currency, name).toBe("GBP")
          expect(after.config?.config.umaDomain, name).toBe("second.example.com")
          expect(after.balances, name).toEqual({ [SOURCE]: 4_000, [DESTINATION]: 1_000, [WORLD]: -5_000 })
          expect(after.volume, name).toBe(1_000)
        }
        // Nothing of the failed units of work stayed.
        const now = yield* store.transact(() => readAll(store, p))
        expect(now.quotes[0]?.quote.status).toBe("PENDING")
        expect(now.balances[SOURCE]).toBe(5_000)
        expect(now.volume).toBe(700)
      }))

    storeIt("moves of balances read ahead: refused by the same rules, credit then debit of one account, to zero", (store, p) =>
      Effect.gen(function*() {
        yield* seed(store, p, false)
        const move = (id: string, from: string, to: string, amount: number) =>
          ({ platformId: p, id, kind: "DEBIT", at: iso(T0 + 1), postings: [{ account: from, currency: "USD", amount: -amount }, { account: to, currency: "USD", amount }] })
        const ahead = store.paymentReads.readAhead(p, WANTS[0]![1])
        // More than the source holds: refused, whatever the attempt knows.
        const short = yield* store.transact((uow) => Effect.andThen(ahead, uow.post(move("JournalEntry:short", SOURCE, DESTINATION, 5_001)))).pipe(Effect.flip)
        expect(short._tag === "LedgerRejected" && short.reason).toBe("INSUFFICIENT_BALANCE")
        expect(short._tag === "LedgerRejected" && short.account).toBe(SOURCE)
        const huge = yield* store.transact((uow) =>
          Effect.andThen(ahead, uow.post(move("JournalEntry:huge", WORLD, DESTINATION, Number.MAX_SAFE_INTEGER - 10)).pipe(
            Effect.andThen(uow.post(move("JournalEntry:huger", WORLD, DESTINATION, 11)))
          ))
        ).pipe(Effect.flip)
        expect(huge._tag === "LedgerRejected" && huge.reason).toBe("OUT_OF_RANGE")
        // Credit the destination (it has no balance row yet), then debit it, in one unit of work;
        // then the source to zero.
        const balances = yield* store.transact((uow) =>
          Effect.gen(function*() {
            yield* ahead
            yield* uow.post(move("JournalEntry:in", SOURCE, DESTINATION, 1_000))
            yield* uow.post(move("JournalEntry:back", DESTINATION, SOURCE, 400))
            yield* uow.post(move("JournalEntry:again", DESTINATION, SOURCE, 600))
            yield* uow.post(move("JournalEntry:all", SOURCE, WORLD, 5_000))
            return yield* store.ledger.balances(p, [SOURCE, DESTINATION])
          })
        )
        expect(Object.fromEntries(balances)).toEqual({ [SOURCE]: 0, [DESTINATION]: 0 })
        // As committed, read afresh.
        expect(Object.fromEntries(yield* store.ledger.balances(p, [SOURCE, DESTINATION, WORLD]))).toEqual({ [SOURCE]: 0, [DESTINATION]: 0, [WORLD]: 0 })
        expect((yield* store.ledger.entries(p)).map((e) => e.id)).toEqual(["JournalEntry:fund", "JournalEntry:in", "JournalEntry:back", "JournalEntry:again", "JournalEntry:all"])
      }))

    storeIt("a nested unit of work that fails leaves nothing read ahead behind", (store, p) =>
      Effect.gen(function*() {
        yield* seed(store, p, true)
        const quoteAfter = yield* store.transact((uow) =>
          Effect.gen(function*() {
            yield* store.paymentReads.readAhead(p, WANTS[0]![1])
            yield* store.transact((inner) =>
              Effect.andThen(inner.putQuote(quote(p, "Quote:internal", DESTINATION, "COMPLETED")), Effect.fail("undo"))
            ).pipe(Effect.ignore)
            const inside = yield* store.quotes.get(p, "Quote:internal")
            yield* uow.putPlatformConfig(config(p, "third.example.com"))
            return inside
          })
        )
        expect(quoteAfter?.quote.status).toBe("PENDING")
      }))

    if (kind === "postgres") {
      storeIt("reads by index, a bounded number of rows, however many the tables hold", (store, p) =>
        Effect.gen(function*() {
          yield* seed(store, p, true)
          // Other payers' rows beside the payer's: a statement that scans reads them.
          const OTHERS = 300
          yield* store.transact((uow) =>
            Effect.forEach(Array.from({ length: OTHERS }, (_, i) => i), (i) =>
              Effect.gen(function*() {
                yield* uow.putCustomer(customer(p, `Customer:other-${i}`))
                yield* uow.putInternalAccount({ ...internal(p, `InternalAccount:other-${i}`, `Customer:other-${i}`) })
                yield* uow.putQuote({ ...quote(p, `Quote:other-${i}`, DESTINATION), plan: { ...quote(p, "q", DESTINATION).plan, customerId: `Customer:other-${i}` } })
                yield* uow.putTransaction({ ...payment(p, `Transaction:other-${i}`, 10), transaction: { ...payment(p, "t", 10).transaction, id: `Transaction:other-${i}`, customerId: `Customer:other-${i}` } })
              }), { discard: true }))
          yield* Effect.gen(function*() {
            const sql = yield* SqlClient.SqlClient
            yield* sql.unsafe("analyze")
            // As the store's sessions run (`enable_seqscan = off`, ../../src/adapters/sql/index.ts).
            yield* sql.unsafe("set local enable_seqscan = off")
            for (const [name, wants] of WANTS) {
              // A store that saw none of the quotes: an execution's text reads accounts of both kinds.
              const statement = readAheadStatement(new Seen(), p, wants)
              if (statement === undefined) continue
              const rows = yield* sql.unsafe<{ readonly "QUERY PLAN": ReadonlyArray<{ readonly Plan: PlanNode }> }>(
                `explain (analyze, format json) ${statement.text}`,
                [...statement.params] as Array<string | number | null>
              )
              const plan = rows[0]?.["QUERY PLAN"][0]?.Plan
              if (plan === undefined) return expect.fail("no plan")
              const read = rowsRead(plan)
              expect(read.seqScan, `${name}: a sequential scan, plan ${JSON.stringify(plan)}`).toBe(false)
              // One row (or one day's volume row) per lookup: a quote, a customer, the
              // configuration, two accounts, two balances, a volume; each at most a few entries.
              expect(read.rows, `${name}: rows read, plan ${JSON.stringify(plan)}`).toBeLessThanOrEqual(20)
            }
          }).pipe((e) => Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) => sql.withTransaction(e)), Effect.provide(PgClient.layer({ url: Redacted.make(databaseUrl()!) })), Effect.scoped)
        }), 120_000)
    }
  })
}
