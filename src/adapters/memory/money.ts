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
import { conflictIn, ledgerRejectedIn } from "../level.js"
import { entityTable, inRange, is, keyOf, type MemoryArea, type MemoryContext, noFilter } from "./context.js"
import { trimArrays } from "./compact.js"
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
  /**
   * The daily volume check's running totals, as the SQL store keeps them (migration
   * `6_sent_volumes`): per sender (customer or platform) and currency, the days with
   * counted payments (OUTGOING, not FAILED or EXPIRED) in ascending order with their sums.
   */
  readonly sentVolumes: Map<string, Array<{ readonly day: number; amount: number }>>
  config: PlatformConfigRecord | undefined
}

export const moneyTables = (): MoneyTables => ({
  internalAccounts: entityTable<InternalAccountRecord>((r) => r, {
    unique: [{ name: UniqueConstraints.internalAccountsOwnerCurrency, key: (r) => keyOf(r.customerId, r.currency) }],
    // By owner: one customer's accounts, or all customers' / the platform's.
    groups: [
      { name: "customer", key: (r) => r.customerId ?? undefined },
      { name: "owner", key: (r) => r.customerId === null ? "platform" : "customer" }
    ]
  }),
  balances: new Map(),
  journal: [],
  journalByAccount: new Map(),
  quotes: new Map(),
  transactions: entityTable<TransactionRecord>((r) => r.transaction, {
    // Ordered indexes for the list filters (transactionIndexOf picks one), and the daily
    // volume check's window (one sender's outgoing payments in one currency).
    groups: [
      {
        name: "sent",
        key: (r) => r.transaction.type === "OUTGOING" ? keyOf(r.transaction.customerId ?? null, r.transaction.sentAmount.currency.code) : undefined
      },
      { name: "account", key: (r) => accountsOf(r) },
      { name: "sender", key: (r) => senderOf(r) },
      { name: "receiver", key: (r) => receiverOf(r) },
      { name: "reference", key: (r) => r.transaction.reconciliationInstructions?.reference },
      { name: "customerType", key: (r) => r.transaction.customerId === undefined ? undefined : keyOf(r.transaction.customerId, r.transaction.type) },
      { name: "customer", key: (r) => r.transaction.customerId },
      { name: "platformCustomer", key: (r) => r.transaction.platformCustomerId },
      { name: "typeStatus", key: (r) => keyOf(r.transaction.type, r.transaction.status) },
      { name: "type", key: (r) => r.transaction.type },
      { name: "status", key: (r) => r.transaction.status }
    ]
  }),
  sentVolumes: new Map(),
  config: undefined
})

const matchesInternalAccount = (q: InternalAccountQuery) => (r: InternalAccountRecord): boolean =>
  (q.owner === "platform" ? r.customerId === null : r.customerId !== null) &&
  is(q.customerId, r.customerId) &&
  is(q.currency, r.currency) &&
  is(q.type, r.type)

const accountsOf = (r: TransactionRecord): ReadonlyArray<string> => {
  const sender = senderOf(r)
  const receiver = receiverOf(r)
  return sender === undefined || sender === receiver ? [receiver] : [sender, receiver]
}

/**
 * The ordered index a transaction list reads (most selective first), and whether the
 * index alone answers the query (then the total is the index group's size). Every
 * filter but `created` has one, so a first page reads at most the rows of one group up
 * to the page, and its total counts one group, never the whole table.
 */
const transactionIndexOf = (q: TransactionQuery): { readonly name: string; readonly key: string; readonly exact: boolean } | undefined => {
  const set = Object.values(q).filter((v) => v !== undefined).length
  const pick = (name: string, key: string, covers: number) => ({ name, key, exact: set === covers })
  if (q.accountIdentifier !== undefined) return pick("account", q.accountIdentifier, 1)
  if (q.senderAccountIdentifier !== undefined) return pick("sender", q.senderAccountIdentifier, 1)
  if (q.receiverAccountIdentifier !== undefined) return pick("receiver", q.receiverAccountIdentifier, 1)
  if (q.reference !== undefined) return pick("reference", q.reference, 1)
  if (q.customerId !== undefined && q.type !== undefined) return pick("customerType", keyOf(q.customerId, q.type), 2)
  if (q.customerId !== undefined) return pick("customer", q.customerId, 1)
  if (q.platformCustomerId !== undefined) return pick("platformCustomer", q.platformCustomerId, 1)
  if (q.type !== undefined && q.status !== undefined) return pick("typeStatus", keyOf(q.type, q.status), 2)
  if (q.type !== undefined) return pick("type", q.type, 1)
  if (q.status !== undefined) return pick("status", q.status, 1)
  return undefined
}

const DAY_MILLIS = 86_400_000
const dayOf = (ms: number) => ms - (((ms % DAY_MILLIS) + DAY_MILLIS) % DAY_MILLIS)

/** Whether a transaction counts in its sender's daily volume. */
const counts = (t: TransactionRecord["transaction"]): t is Extract<TransactionRecord["transaction"], { readonly type: "OUTGOING" }> =>
  t.type === "OUTGOING" && t.status !== "FAILED" && t.status !== "EXPIRED"

/** What a transaction adds to the daily volume: its sender key, currency, day and amount; undefined if it does not count. */
const sentOf = (r: TransactionRecord | undefined) => {
  const t = r?.transaction
  if (t === undefined || !counts(t)) return undefined
  return { key: keyOf(t.customerId ?? null, t.sentAmount.currency.code), day: dayOf(millisOf(t.createdAt)), amount: t.sentAmount.amount }
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

/** Ledger accounts of the platform's own (`system:<role>:<currency>`): few, shared by every store. */
const SYSTEM_ACCOUNTS_LIMIT = 4096
const systemAccounts = new Map<string, string>()

/**
 * The copy of `s` the platform's tables hold already, when `s` is the id of a stored
 * internal account, transaction or quote, or a system ledger account; else undefined
 * (keep `s`). For `trimArrays`: a record keeps the stored id, not a copy a request decoded.
 */
const canonOf = (t: MoneyTables) => (s: string): string | undefined => {
  // By the first character, then the prefix: no allocation for the many strings that are no id.
  switch (s.charCodeAt(0)) {
    case 73: // I
      return s.startsWith("InternalAccount:") ? t.internalAccounts.get(s)?.id : undefined
    case 84: // T
      return s.startsWith("Transaction:") ? t.transactions.get(s)?.transaction.id : undefined
    case 81: // Q
      return s.startsWith("Quote:") ? t.quotes.get(s)?.quote.id : undefined
    case 115: { // s
      if (!s.startsWith("system:")) return undefined
      const shared = systemAccounts.get(s)
      if (shared !== undefined) return shared
      if (systemAccounts.size < SYSTEM_ACCOUNTS_LIMIT) systemAccounts.set(s, s)
      return undefined
    }
    default:
      return undefined
  }
}

export const makeMoneyArea = (
  m: MemoryContext<MoneyTables>
): MemoryArea<"internalAccounts" | "ledger" | "quotes" | "transactions" | "platformConfigs" | "paymentReads", MoneyWrites> => {
  const post = (written: JournalEntry): Effect.Effect<void, LedgerRejected> =>
    Effect.suspend(() => {
      const t = m.tenantOf(written.platformId)
      const entry = trimArrays(written, canonOf(t))
      const problem = entryProblem(entry)
      if (problem !== undefined) return ledgerRejectedIn(problem)
      const next = new Map<string, number>()
      for (const [account, amount] of netByAccount(entry)) {
        const balance = next.get(account) ?? t.balances.get(account)?.balance ?? 0
        const moved = nextBalance(account, balance, amount)
        if (typeof moved === "string") return ledgerRejectedIn(moved, account)
        next.set(account, moved)
      }
      // What to undo, kept as data and undone by one action (newest first, as separate actions would).
      const created: Array<string> = []
      const moved: Array<{ readonly row: { balance: number }; readonly previous: number }> = []
      for (const [account, balance] of next) {
        const row = t.balances.get(account)
        if (row === undefined) {
          // A new ledger account (rare): its currency from its last posting, as a map of the postings would give.
          t.balances.set(account, { currency: entry.postings.findLast((p) => p.account === account)?.currency ?? "", balance })
          created.push(account)
        } else {
          moved.push({ row, previous: row.balance })
          row.balance = balance
        }
      }
      const position = t.journal.push(entry) - 1
      const lists: Array<Array<number>> = []
      for (const account of next.keys()) {
        if (!isInternalAccount(account)) continue
        let positions = t.journalByAccount.get(account)
        if (positions === undefined) t.journalByAccount.set(account, positions = [])
        positions.push(position)
        lists.push(positions)
      }
      m.undo(() => {
        for (let i = lists.length - 1; i >= 0; i--) lists[i]!.pop()
        t.journal.pop()
        for (let i = moved.length - 1; i >= 0; i--) moved[i]!.row.balance = moved[i]!.previous
        for (const account of created) t.balances.delete(account)
      })
      return Effect.void
    })

  /** Moves one day's running total, undoably; days stay in ascending order. */
  const moveSent = (t: MoneyTables, key: string, day: number, amount: number) => {
    if (amount === 0) return
    let days = t.sentVolumes.get(key)
    if (days === undefined) t.sentVolumes.set(key, days = [])
    let at = days.length
    while (at > 0 && days[at - 1]!.day > day) at--
    let row = days[at - 1]
    if (row === undefined || row.day !== day) {
      row = { day, amount: 0 }
      days.splice(at, 0, row)
    }
    const moved = row
    moved.amount += amount
    m.undo(() => void (moved.amount -= amount))
  }

  return {
    repositories: {
      internalAccounts: {
        get: (platformId, id) => m.read(() => m.peek(platformId)?.internalAccounts.get(id)),
        findByOwnerCurrency: (platformId, customerId, currency) =>
          m.read(() => m.peek(platformId)?.internalAccounts.byUnique(UniqueConstraints.internalAccountsOwnerCurrency, keyOf(customerId, currency))),
        list: (platformId, query, page) =>
          m.readPage(() => {
            const table = m.tenantOf(platformId).internalAccounts
            const filter = matchesInternalAccount(query)
            if (query.customerId !== undefined) return table.pageGroup("customer", query.customerId, filter, page, false)
            const exact = query.currency === undefined && query.type === undefined
            return table.pageGroup("owner", query.owner, filter, page, exact)
          })
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
          m.readPage(() => {
            const table = m.tenantOf(platformId).transactions
            const index = transactionIndexOf(query)
            return index === undefined
              ? table.page(matchesTransaction(query), page, noFilter(query))
              : table.pageGroup(index.name, index.key, matchesTransaction(query), page, index.exact)
          }),
        sentVolume: (platformId, query) =>
          m.read(() => {
            const t = m.peek(platformId)
            if (t === undefined) return 0
            const key = keyOf(query.customerId, query.currency)
            let sum = 0
            if (query.since % DAY_MILLIS === 0) {
              // From a day's start (the daily window): the running totals of the days since.
              const days = t.sentVolumes.get(key) ?? []
              for (let i = days.length - 1; i >= 0 && days[i]!.day >= query.since; i--) sum += days[i]!.amount
              return sum
            }
            // Any other window: the sender's payments from the newest back to `since` only.
            for (const r of t.transactions.groupSince("sent", key, query.since)) {
              const counted = sentOf(r)
              if (counted !== undefined) sum += counted.amount
            }
            return sum
          })
      },
      platformConfigs: {
        get: (platformId) => m.read(() => m.peek(platformId)?.config)
      },
      // Every read here is a lookup in memory already: nothing to read ahead.
      paymentReads: { readAhead: () => Effect.void }
    },
    writes: {
      putInternalAccount: (r) => m.putRow(m.tenantOf(r.platformId).internalAccounts, r.id, r),
      post,
      putQuote: (written) =>
        Effect.sync(() => {
          const t = m.tenantOf(written.platformId)
          const r = trimArrays(written, canonOf(t), t.quotes.get(written.quote.id))
          const quotes = t.quotes
          const previous = quotes.get(r.quote.id)
          quotes.set(r.quote.id, r)
          m.undo(() => void (previous === undefined ? quotes.delete(r.quote.id) : quotes.set(r.quote.id, previous)))
        }),
      putTransaction: (written) =>
        Effect.suspend(() => {
          const t = m.tenantOf(written.platformId)
          const stored = t.transactions.get(written.transaction.id)
          const r = trimArrays(written, canonOf(t), stored)
          const constraint = m.writeRow(t.transactions, r.transaction.id, r)
          if (constraint !== undefined) return Effect.orDie(conflictIn(constraint))
          // A payment rewritten with the same sender, currency and creation instant (every
          // status move; the spread keeps the very strings): only a change of its amount
          // moves its day's total, and it mostly has none: no key, day or undo to build.
          const was = stored?.transaction
          const now = r.transaction
          if (
            was !== undefined && counts(was) && counts(now) && was.customerId === now.customerId &&
            was.createdAt === now.createdAt && was.sentAmount.currency.code === now.sentAmount.currency.code
          ) {
            const delta = now.sentAmount.amount - was.sentAmount.amount
            const after = delta === 0 ? undefined : sentOf(r)
            if (after !== undefined) moveSent(t, after.key, after.day, delta)
            return Effect.void
          }
          const before = sentOf(stored)
          const after = sentOf(r)
          if (before !== undefined) moveSent(t, before.key, before.day, -before.amount)
          if (after !== undefined) moveSent(t, after.key, after.day, after.amount)
          return Effect.void
        }),
      putPlatformConfig: (r) => m.setField(m.tenantOf(r.platformId), "config", r)
    }
  }
}
