/** Internal accounts, the ledger, quotes, transactions and platform configurations, in memory (see ./store.ts). */
import { Effect } from "effect"
import type {
  AccountPosting,
  InternalAccountQuery,
  JournalPage,
  InternalAccountRecord,
  JournalEntry,
  MoneyWrites,
  PlatformConfigRecord,
  QuoteRecord,
  TransactionQuery,
  TransactionRecord
} from "../../ports/money.js"
import { InvalidCursor, type LedgerRejected, UniqueConstraints } from "../../ports/shared.js"
import { millisOf } from "../cursor.js"
import { entryProblem, isInternalAccount, netByAccount, nextBalance } from "../ledger.js"
import { decodeJournalCursor, encodeJournalCursor } from "../journal-cursor.js"
import { receiverOf, senderOf } from "../parties.js"
import { ledgerRejectedIn } from "../level.js"
import { entityTable, inRange, is, keyOf, type MemoryArea, type MemoryContext, noFilter } from "./context.js"
import { MemoryTable } from "./table.js"

export interface MoneyTables {
  readonly internalAccounts: MemoryTable<InternalAccountRecord>
  /** Ledger account → balance. */
  readonly balances: Map<string, { readonly currency: string; balance: number }>
  readonly journal: Array<JournalEntry>
  /** Internal account → positions in `journal` of the entries that post to it, in order. */
  readonly journalByAccount: Map<string, Array<number>>
  readonly quotes: Map<string, QuoteRecord>
  readonly transactions: MemoryTable<TransactionRecord>
  config: PlatformConfigRecord | undefined
}

export const moneyTables = (): MoneyTables => ({
  internalAccounts: entityTable<InternalAccountRecord>((r) => r, {
    unique: [{ name: UniqueConstraints.internalAccountsOwnerCurrency, key: (r) => keyOf(r.customerId, r.currency) }]
  }),
  balances: new Map(),
  journal: [],
  journalByAccount: new Map(),
  quotes: new Map(),
  transactions: entityTable<TransactionRecord>((r) => r.transaction, {
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
      const position = t.journal.push(entry) - 1
      m.undo(() => void t.journal.pop())
      for (const account of next.keys()) {
        if (!isInternalAccount(account)) continue
        let positions = t.journalByAccount.get(account)
        if (positions === undefined) t.journalByAccount.set(account, positions = [])
        positions.push(position)
        const list = positions
        m.undo(() => void list.pop())
      }
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
          m.read(() => (m.peek(platformId)?.journal ?? []).filter((e) => options?.transactionId === undefined || e.transactionId === options.transactionId)),
        journalPage: (platformId, options) =>
          Effect.flatMap(m.read((): JournalPage | InvalidCursor => {
            const from = options.after === undefined ? 0 : decodeJournalCursor(options.after)
            if (typeof from !== "number") return from
            const journal = m.peek(platformId)?.journal ?? []
            const entries = journal.slice(from, from + options.limit)
            const end = from + entries.length
            return end < journal.length ? { entries, next: encodeJournalCursor(end) } : { entries }
          }), (r) => r instanceof InvalidCursor ? Effect.fail(r) : Effect.succeed(r)),
        accountJournal: (platformId, account, page) =>
          m.readPage(() => {
            const t = m.peek(platformId)
            const positions = t?.journalByAccount.get(account) ?? []
            // The cursor is the journal position of the last line given (exclusive), as on SQL.
            const after = page.cursor === undefined ? undefined : decodeJournalCursor(page.cursor)
            if (after instanceof InvalidCursor) return after
            const descending = page.descending === true
            const ordered = descending ? [...positions].reverse() : positions
            const rest = after === undefined ? ordered : ordered.filter((i) => descending ? i < after : i > after)
            const slice = rest.slice(0, page.limit)
            const data = slice.flatMap((i): Array<AccountPosting> => {
              const entry = t?.journal[i]
              if (entry === undefined) return []
              const amount = entry.postings.filter((p) => p.account === account).reduce((sum, p) => sum + p.amount, 0)
              const currency = entry.postings.find((p) => p.account === account)?.currency ?? ""
              return [{ entry, amount, currency }]
            })
            const last = slice[slice.length - 1]
            return rest.length > slice.length && last !== undefined
              ? { data, hasMore: true, nextCursor: encodeJournalCursor(last), totalCount: positions.length }
              : { data, hasMore: false, totalCount: positions.length }
          })
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
