/** Internal accounts, the ledger, quotes, transactions and platform configurations, in memory (see ./store.ts). */
import { Effect } from "effect"
import type {
  InternalAccountQuery,
  InternalAccountRecord,
  JournalEntry,
  MoneyWrites,
  PlatformConfigRecord,
  QuoteRecord,
  TransactionQuery,
  TransactionRecord
} from "../../ports/money.js"
import { type LedgerRejected, UniqueConstraints } from "../../ports/shared.js"
import { millisOf } from "../cursor.js"
import { entryProblem, netByAccount, nextBalance } from "../ledger.js"
import { ledgerRejectedIn } from "../level.js"
import { inRange, is, keyOf, type MemoryArea, type MemoryContext, noFilter } from "./context.js"
import { MemoryTable } from "./table.js"

export interface MoneyTables {
  readonly internalAccounts: MemoryTable<InternalAccountRecord>
  /** Ledger account → balance. */
  readonly balances: Map<string, { readonly currency: string; balance: number }>
  readonly journal: Array<JournalEntry>
  readonly quotes: Map<string, QuoteRecord>
  readonly transactions: MemoryTable<TransactionRecord>
  config: PlatformConfigRecord | undefined
}

export const moneyTables = (): MoneyTables => ({
  internalAccounts: new MemoryTable<InternalAccountRecord>({
    id: (r) => r.id,
    createdAt: (r) => millisOf(r.createdAt),
    unique: [{ name: UniqueConstraints.internalAccountsOwnerCurrency, key: (r) => keyOf(r.customerId, r.currency) }]
  }),
  balances: new Map(),
  journal: [],
  quotes: new Map(),
  transactions: new MemoryTable<TransactionRecord>({
    id: (r) => r.transaction.id,
    createdAt: (r) => millisOf(r.transaction.createdAt),
    // The daily volume check reads one sender's outgoing payments in one currency.
    groups: [{
      name: "sent",
      key: (r) => r.transaction.type === "OUTGOING" ? keyOf(r.transaction.customerId ?? null, r.transaction.sentAmount.currency.code) : undefined
    }]
  }),
  config: undefined
})

const matchesInternalAccount = (q: InternalAccountQuery) => (r: InternalAccountRecord): boolean =>
  (q.owner === "platform" ? r.customerId === null : r.customerId !== null) &&
  is(q.customerId, r.customerId) &&
  is(q.currency, r.currency) &&
  is(q.type, r.type)

const senderOf = (r: TransactionRecord): string | undefined => {
  const source = r.transaction.source
  if (source === undefined) return undefined
  return source.sourceType === "ACCOUNT" ? source.accountId : source.sourceType === "UMA_ADDRESS" ? source.umaAddress : undefined
}
const receiverOf = (r: TransactionRecord): string => {
  const d = r.transaction.destination
  return d.destinationType === "ACCOUNT" ? d.accountId : d.umaAddress
}

const matchesTransaction = (q: TransactionQuery) => (r: TransactionRecord): boolean => {
  const t = r.transaction
  return is(q.customerId, t.customerId) &&
    is(q.platformCustomerId, t.platformCustomerId) &&
    (q.accountIdentifier === undefined || senderOf(r) === q.accountIdentifier || receiverOf(r) === q.accountIdentifier) &&
    is(q.senderAccountIdentifier, senderOf(r)) &&
    is(q.receiverAccountIdentifier, receiverOf(r)) &&
    is(q.status, t.status) &&
    is(q.type, t.type) &&
    is(q.reference, t.reconciliationInstructions?.reference) &&
    inRange(millisOf(t.createdAt), q.created)
}

export const makeMoneyArea = (
  m: MemoryContext<MoneyTables>
): MemoryArea<"internalAccounts" | "ledger" | "quotes" | "transactions" | "platformConfigs", MoneyWrites> => {
  const post = (entry: JournalEntry): Effect.Effect<void, LedgerRejected> =>
    Effect.suspend(() => {
      const problem = entryProblem(entry)
      if (problem !== undefined) return ledgerRejectedIn(problem)
      const t = m.tenantOf(entry.platformId)
      const currencyOf = new Map(entry.postings.map((p) => [p.account, p.currency]))
      const next = new Map<string, number>()
      for (const [account, amount] of netByAccount(entry)) {
        const balance = next.get(account) ?? t.balances.get(account)?.balance ?? 0
        const moved = nextBalance(account, balance, amount)
        if (typeof moved === "string") return ledgerRejectedIn(moved, account)
        next.set(account, moved)
      }
      for (const [account, balance] of next) {
        const row = t.balances.get(account)
        if (row === undefined) {
          t.balances.set(account, { currency: currencyOf.get(account) ?? "", balance })
          m.undo(() => void t.balances.delete(account))
        } else {
          const previous = row.balance
          row.balance = balance
          m.undo(() => void (row.balance = previous))
        }
      }
      t.journal.push(entry)
      m.undo(() => void t.journal.pop())
      return Effect.void
    })

  return {
    repositories: {
      internalAccounts: {
        get: (platformId, id) => m.read(() => m.peek(platformId)?.internalAccounts.get(id)),
        findByOwnerCurrency: (platformId, customerId, currency) =>
          m.read(() => m.peek(platformId)?.internalAccounts.byUnique(UniqueConstraints.internalAccountsOwnerCurrency, keyOf(customerId, currency))),
        list: (platformId, query, page) =>
          m.readPage(() => m.tenantOf(platformId).internalAccounts.page(matchesInternalAccount(query), page, false))
      },
      ledger: {
        balances: (platformId, accounts) =>
          m.read(() => {
            const balances = m.peek(platformId)?.balances
            return new Map(accounts.map((a) => [a, balances?.get(a)?.balance ?? 0]))
          }),
        allBalances: (platformId) =>
          m.read(() => [...(m.peek(platformId)?.balances ?? [])].map(([account, b]) => ({ account, currency: b.currency, balance: b.balance }))),
        entries: (platformId, options) =>
          m.read(() => (m.peek(platformId)?.journal ?? []).filter((e) => options?.transactionId === undefined || e.transactionId === options.transactionId))
      },
      quotes: {
        get: (platformId, id) => m.read(() => m.peek(platformId)?.quotes.get(id))
      },
      transactions: {
        get: (platformId, id) => m.read(() => m.peek(platformId)?.transactions.get(id)),
        list: (platformId, query, page) =>
          m.readPage(() => m.tenantOf(platformId).transactions.page(matchesTransaction(query), page, noFilter(query))),
        sentVolume: (platformId, query) =>
          m.read(() => {
            let sum = 0
            for (const r of m.peek(platformId)?.transactions.byGroup("sent", keyOf(query.customerId, query.currency)) ?? []) {
              const t = r.transaction
              if (t.type !== "OUTGOING" || t.status === "FAILED" || t.status === "EXPIRED") continue
              if (millisOf(t.createdAt) < query.since) continue
              sum += t.sentAmount.amount
            }
            return sum
          })
      },
      platformConfigs: {
        get: (platformId) => m.read(() => m.peek(platformId)?.config)
      }
    },
    writes: {
      putInternalAccount: (r) => m.putRow(m.tenantOf(r.platformId).internalAccounts, r.id, r),
      post,
      putQuote: (r) =>
        Effect.sync(() => {
          const quotes = m.tenantOf(r.platformId).quotes
          const previous = quotes.get(r.quote.id)
          quotes.set(r.quote.id, r)
          m.undo(() => void (previous === undefined ? quotes.delete(r.quote.id) : quotes.set(r.quote.id, previous)))
        }),
      putTransaction: (r) => Effect.orDie(m.putRow(m.tenantOf(r.platformId).transactions, r.transaction.id, r)),
      putPlatformConfig: (r) => m.setField(m.tenantOf(r.platformId), "config", r)
    }
  }
}
