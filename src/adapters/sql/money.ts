/**
 * The money-movement part of the SQL Store: internal accounts, the ledger, quotes,
 * transactions and platform configurations (migration `3_money`), built from the same
 * SqlClient and statement helper as the rest of the store (./store.ts wires them in).
 *
 * The ledger keeps one row per internal account (`ledger_balances`) and moves it in
 * place with one statement per account (`balance = balance + n`, guarded), so no update
 * is lost however units of work interleave; system accounts have no row (their balance
 * is the sum of their postings), so payments of different accounts never touch one row; the unit of work is SERIALIZABLE, so a
 * balance read and a post made on it are as if no other unit of work ran in between
 * (PostgreSQL aborts one of two that raced, and `transact` reruns it; units of work
 * moving one platform's money take turns instead of racing, ./turns.ts). A refused
 * entry is a `LedgerRejected` that ends its level like a `StoreConflict`; the table's
 * CHECKs are the backstop, and a violation of one is the same `LedgerRejected`.
 *
 * Balances are bigint in SQL and read back as text, converted to numbers only when
 * exact (the CHECK keeps them within +/-(2^53 - 1)).
 */
import { Context, Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import {
  type InternalAccountQuery,
  type InternalAccountRecord,
  InvalidCursor,
  type JournalEntry,
  type LedgerRejected,
  type PlatformConfigRecord,
  type QuoteRecord,
  type Store,
  type StoreConflict,
  type TransactionQuery,
  type TransactionRecord,
  type UnitOfWork
} from "../../ports/store.js"
import { millisOf } from "../cursor.js"
import { decodeJournalCursor, encodeJournalCursor } from "../journal-cursor.js"
import { entryProblem, isInternalAccount } from "../ledger.js"
import { receiverOf, senderOf } from "../parties.js"
import { ledgerRejectedIn } from "../level.js"
import { conflictOrDie, documentReads, type Query, Where, type SqlArea } from "./documents.js"
import { cachedDoc, cachedVolume, makePaymentReads } from "./payment-reads.js"
import { balanceKey, CurrentPending, type makePending, type Pending } from "./pending.js"
import { turnKey } from "./turns.js"
import { makeRunIn } from "./direct.js"
import { Seen, seenVolumeKey } from "./guessed-reads.js"


/** The tables of migration `3_money`, all keyed by platform (what `resetPlatform` clears). */
export const MONEY_TABLES: ReadonlyArray<string> = [
  "internal_accounts",
  "ledger_balances",
  "journal_entries",
  // Migration 12: written with each journal entry (`post`).
  "journal_account_postings",
  "quotes",
  "transactions",
  "platform_configs",
  // After `transactions`: its delete trigger moves these rows (a new payment's are written with it).
  "sent_volumes"
]

const MAX_EXACT = BigInt(Number.MAX_SAFE_INTEGER)
const DAY_MILLIS = 86_400_000

/** The balances of the system accounts, summed from the journal's postings (append `group by 1, 2`). */
const SYSTEM_SUMS = `select p->>'account' as account, p->>'currency' as currency, sum((p->>'amount')::bigint)::text as balance
  from journal_entries j, json_array_elements(j.doc->'postings') p
  where j.platform_id = $1 and p->>'account' not like 'InternalAccount:%'`
const NONNEGATIVE_CHECK = "ledger_balances_internal_nonnegative"
const EXACT_CHECK = "ledger_balances_exact"

/** A ledger move of a balance the attempt knows (./money.ts `moveKnown`): a debit, a credit. */
const DEBIT_KNOWN = `update ledger_balances set balance = balance + $3::bigint where platform_id = $1 and account = $2`
const CREDIT_KNOWN = `insert into ledger_balances as b (platform_id, account, currency, balance) values ($1, $2, $3, $4::bigint)
         on conflict (platform_id, account) do update set balance = b.balance + excluded.balance`
/** A guarded ledger move (`moveNow`): a credit (an upsert), a debit (an update of an existing row). */
const CREDIT_GUARDED = `insert into ledger_balances as b (platform_id, account, currency, balance) values ($1, $2, $3, $4::bigint)
         on conflict (platform_id, account) do update set balance = b.balance + excluded.balance
         where b.balance + excluded.balance between -${MAX_EXACT} and ${MAX_EXACT}
           and (b.account not like 'InternalAccount:%' or b.balance + excluded.balance >= 0)
         returning balance::text as balance`
const DEBIT_GUARDED = `update ledger_balances as b set balance = b.balance + $3::bigint
         where b.platform_id = $1 and b.account = $2
           and b.balance + $3::bigint between -${MAX_EXACT} and ${MAX_EXACT}
           and (b.account not like 'InternalAccount:%' or b.balance + $3::bigint >= 0)
         returning balance::text as balance`

/** A journal entry's insert (`post`); with its rows of `journal_account_postings` (migration `20_lighter_money_writes`). */
const JOURNAL_INSERT = `insert into journal_entries (platform_id, id, kind, transaction_id, at_ms, doc) values ($1, $2, $3, $4, $5::bigint, $6::json)`
const JOURNAL_INSERT_RETURNING = `${JOURNAL_INSERT} returning seq`
/** After `JOURNAL_INSERT_RETURNING` (./pending.ts `also`): $7 is `accountPostings`. */
const JOURNAL_POSTINGS = `insert into journal_account_postings (platform_id, account, seq, currency, amount)
         select $1, p->>0, j.seq, p->>1, (p->>2)::bigint from {self} j, json_array_elements($7::json) p`

/**
 * An entry's rows of its internal accounts' journals, as JSON (`[account, currency, amount]`
 * each): one per internal account it posts to, its postings' amounts summed and their
 * least currency (what the trigger of migration `12_account_journal` wrote), or undefined
 * when it posts to none.
 */
const accountPostings = (entry: JournalEntry): string | undefined => {
  const byAccount = new Map<string, [string, string, bigint]>()
  for (const p of entry.postings) {
    if (!isInternalAccount(p.account)) continue
    const row = byAccount.get(p.account)
    if (row === undefined) byAccount.set(p.account, [p.account, p.currency, BigInt(p.amount)])
    else {
      if (p.currency < row[1]) row[1] = p.currency
      row[2] += BigInt(p.amount)
    }
  }
  if (byAccount.size === 0) return undefined
  return JSON.stringify([...byAccount.values()].map(([account, currency, amount]) => [account, currency, amount.toString()]))
}

/** A transaction's write (`putTransaction`). */
const TRANSACTION_UPSERT = `insert into transactions (platform_id, id, created_ms, customer_id, platform_customer_id, status, type, sender, receiver,
         reference, sent_currency, sent_amount, doc)
       values ($1, $2, $3::bigint, $4, $5, $6, $7, $8, $9, $10, $11, $12::bigint, $13::json)
       on conflict (platform_id, id) do update set customer_id = excluded.customer_id,
         platform_customer_id = excluded.platform_customer_id, status = excluded.status, type = excluded.type,
         sender = excluded.sender, receiver = excluded.receiver, reference = excluded.reference,
         sent_currency = excluded.sent_currency, sent_amount = excluded.sent_amount, doc = excluded.doc`

/** `TRANSACTION_UPSERT` with what `TRANSACTION_VOLUME` reads. */
const TRANSACTION_WRITE = `${TRANSACTION_UPSERT} returning xmax = 0 as inserted`

/**
 * A new payment's daily volume (migration `6_sent_volumes`), after the transaction's upsert
 * (./pending.ts `also`): added only when the upsert inserted the row (`xmax = 0`: a row the
 * upsert updated carries its lock's transaction id); an update's change of the volume is the
 * trigger's, which sees the row before it (migration `20_lighter_money_writes`).
 * $14 is the customer's key (null: the payment is not counted), $15 the UTC day of `created_ms`.
 */
const TRANSACTION_VOLUME = `insert into sent_volumes as v (platform_id, customer_key, currency, day_ms, amount)
         select $1, $14::text, $11, $15::bigint, $12::bigint from {self} t where t.inserted and $14::text is not null
         on conflict (platform_id, customer_key, currency, day_ms) do update set amount = v.amount + excluded.amount`

/** A bigint column read as text (or a number or bigint, whatever the driver gives), as an exact number. */
const exactNumber = (value: unknown): number => {
  const n = typeof value === "number" ? value : Number(typeof value === "bigint" ? value : String(value))
  if (!Number.isSafeInteger(n)) throw new Error(`a stored amount is not an exact integer: ${String(value)}`)
  return n
}

/** The reason a balance moved by `amount` is refused, exactly (the same rule as ../ledger.ts `nextBalance`). */
const refusal = (account: string, balance: bigint, amount: bigint): LedgerRejected["reason"] | undefined => {
  const next = balance + amount
  if (next > MAX_EXACT || next < -MAX_EXACT) return "OUT_OF_RANGE"
  if (next < 0n && isInternalAccount(account)) return "INSUFFICIENT_BALANCE"
  return undefined
}

/** One account's net move in a journal entry. */
interface Move {
  readonly account: string
  readonly currency: string
  readonly amount: bigint
}

/** The net amount per account of an entry, exactly, in account order (the order rows are locked in). */
const netMoves = (entry: JournalEntry): ReadonlyArray<Move> => {
  const byAccount = new Map<string, { readonly account: string; currency: string; amount: bigint }>()
  for (const p of entry.postings) {
    const move = byAccount.get(p.account)
    if (move === undefined) byAccount.set(p.account, { account: p.account, currency: p.currency, amount: BigInt(p.amount) })
    else {
      move.currency = p.currency
      move.amount += BigInt(p.amount)
    }
  }
  return [...byAccount.values()].sort((a, b) => a.account < b.account ? -1 : a.account > b.account ? 1 : 0)
}

/** The check constraint a failed statement broke, if it broke one of the ledger's. */
const brokenCheck = (e: SqlError): string | undefined => {
  if (e.reason._tag !== "ConstraintError") return undefined
  const cause: unknown = e.reason.cause
  const named = typeof cause === "object" && cause !== null && "constraint" in cause ? String(cause.constraint) : ""
  const text = `${named} ${e.reason.message ?? ""} ${cause instanceof Error ? cause.message : ""}`
  return [NONNEGATIVE_CHECK, EXACT_CHECK].find((name) => text.includes(name))
}

/**
 * The sum `transactions.sentVolume` reads for a window that does not start a day (exported
 * for the bounded-work tests, which EXPLAIN it): the customer's outgoing payments since
 * its start, through `transactions_customer_type` (migration `22_fewer_money_indexes`).
 */
export const sentVolumeStatement = (
  platformId: string,
  q: { readonly customerId: string | null; readonly currency: string; readonly since: number }
): { readonly text: string; readonly params: ReadonlyArray<unknown> } => {
  const w = Where.platform(platformId).raw("type = 'OUTGOING'")
  if (q.customerId === null) w.raw("customer_id is null")
  else w.add((x) => `customer_id = ${x}`, q.customerId)
  w.add((x) => `sent_currency = ${x}`, q.currency)
    .add((x) => `created_ms >= ${x}::bigint`, q.since)
    .raw("status not in ('FAILED', 'EXPIRED')")
  return { text: `select coalesce(sum(sent_amount), 0)::text as total from transactions where ${w.text}`, params: w.params }
}

export type MoneyStore = SqlArea<"internalAccounts" | "ledger" | "quotes" | "transactions" | "platformConfigs" | "paymentReads", Pick<UnitOfWork, "putInternalAccount" | "post" | "putQuote" | "putTransaction" | "putPlatformConfig">>

// ---------------------------------------------------------------- filters

/** The WHERE of an internal account list. */
export const internalAccountWhere = (platformId: string, q: InternalAccountQuery): Where => {
  const w = Where.platform(platformId)
  w.raw(q.owner === "platform" ? "customer_id is null" : "customer_id is not null")
  w.eq("customer_id", q.customerId)
  w.eq("currency", q.currency)
  w.eq("type", q.type)
  return w
}

/** The WHERE of a transaction list (exported for the bounded-work tests, which EXPLAIN it). */
export const transactionWhere = (platformId: string, q: TransactionQuery): Where => {
  const w = Where.platform(platformId)
  w.eq("customer_id", q.customerId)
  w.eq("platform_customer_id", q.platformCustomerId)
  // Either side: a page scans the sender and the receiver index apart and merges them (./documents.ts `pageStatement`).
  w.eitherEq(["sender", "receiver"], q.accountIdentifier)
  w.eq("sender", q.senderAccountIdentifier)
  w.eq("receiver", q.receiverAccountIdentifier)
  w.eq("status", q.status)
  w.eq("type", q.type)
  w.eq("reference", q.reference)
  w.within("created_ms", q.created)
  return w
}

export const makeMoneyStore = (
  sql: SqlClient.SqlClient,
  query: Query,
  sqlPending: Pick<ReturnType<typeof makePending>, "flushWrites" | "defer" | "deferIn" | "leadingIn" | "queryIn">,
  /** The store's last sight of the rows a payment reads (./guessed-reads.ts). */
  seen: Seen = new Seen()
): MoneyStore => {
  const { byId, many, one, page } = documentReads(query)
  const internalAccount = byId<InternalAccountRecord>("internal_accounts")
  const quote = byId<QuoteRecord>("quotes")

  // ------------------------------------------------------------ the ledger

  /** A ledger statement: a broken ledger CHECK is a LedgerRejected, anything else a defect. */
  const runIn = makeRunIn(sql)
  const ledgerStatementIn = (context: Context.Context<never>, pending: Pending | undefined, text: string, params: ReadonlyArray<unknown>, account: string) => {
    // The writes pending go in the same statement, before the move (it reads none of their tables).
    const s = sqlPending.leadingIn(pending, { text, params })
    return runIn<{ readonly balance: string }>(context, s.text, s.params).pipe(
      Effect.catch((e: SqlError) => {
        const check = brokenCheck(e)
        return check === undefined
          ? Effect.die(e)
          : check === NONNEGATIVE_CHECK
          ? ledgerRejectedIn("INSUFFICIENT_BALANCE", account)
          : ledgerRejectedIn("OUT_OF_RANGE", account)
      })
    )
  }

  /** The attempt knows `account`'s balance now (./pending.ts): a read of it asks nothing. */
  const knowBalance = (pending: Pending | undefined, platformId: string, account: string, balance: string): void => {
    pending?.balances.set(balanceKey(platformId, account), exactNumber(balance))
  }

  /** Why a move the guarded statement did not make is refused (the unit of work is intact: no statement failed). */
  const refuseMove = (platformId: string, account: string, amount: bigint) =>
    Effect.flatMap(
      query<{ readonly balance: string }>(
        `select balance::text as balance from ledger_balances where platform_id = $1 and account = $2`,
        [platformId, account]
      ),
      (rows) => {
        const balance = rows[0] === undefined ? 0n : BigInt(rows[0].balance)
        // The guard and this read see the same row (the row is ours now, or absent);
        // should they still disagree, refuse as out of range rather than commit.
        return ledgerRejectedIn(refusal(account, balance, amount) ?? "OUT_OF_RANGE", account)
      }
    )

  /**
   * A move of a balance the attempt knows (./pending.ts `balances`): decided here, by the
   * same rule as the guarded statements, and written with the unit of work's next
   * statement. Why the balance known is the one the write meets: the attempt is one
   * SERIALIZABLE transaction, and a balance another transaction changed since this one's
   * snapshot cannot be written by it (PostgreSQL refuses it, a serialization failure, and
   * the unit of work reruns). The write has no guard: a CHECK it broke (it cannot, but
   * for a bug) fails the statement and the unit of work, rather than move nothing.
   * Plain code: undefined when nothing is left to run, else the refusal or the writes
   * that must be sent first (`deferIn`).
   */
  const moveKnown = (
    context: Context.Context<never>,
    pending: Pending,
    platformId: string,
    { account, amount, currency }: Move,
    balance: bigint
  ): Effect.Effect<void, LedgerRejected> | undefined => {
    const reason = refusal(account, balance, amount)
    if (reason !== undefined) return ledgerRejectedIn(reason, account)
    const row = balanceKey(platformId, account)
    pending.moves.add(turnKey(platformId, account))
    // A debit updates the row (the upsert's insert would break the CHECK first); the
    // balance it takes from is above zero, so the row is there (or waits before it,
    // and `defer` sends that first).
    const write = amount < 0n
      ? sqlPending.deferIn(context, pending, DEBIT_KNOWN, [platformId, account, amount.toString()], row)
      : sqlPending.deferIn(context, pending, CREDIT_KNOWN, [platformId, account, currency, amount.toString()], row)
    knowBalance(pending, platformId, account, (balance + amount).toString())
    return write === Effect.void ? undefined : write
  }

  /**
   * Moves one account's balance by `amount` in one statement, or refuses. Where the amount
   * may stand as a new row (it passes the CHECKs on its own), an upsert adds it; otherwise
   * (an internal account debited, or an amount beyond the exact range) only an existing
   * row can take it: a guarded update.
   */
  const moveNow = (
    context: Context.Context<never>,
    pending: Pending | undefined,
    platformId: string,
    { account, amount, currency }: Move
  ): Effect.Effect<void, LedgerRejected> => {
    const standsAlone = refusal(account, 0n, amount) === undefined
    // Noted first: should this statement lose a race, the rerun takes the account's turn (./turns.ts).
    pending?.moves.add(turnKey(platformId, account))
    const statement = standsAlone
      ? ledgerStatementIn(context, pending, CREDIT_GUARDED, [platformId, account, currency, amount.toString()], account)
      : ledgerStatementIn(context, pending, DEBIT_GUARDED, [platformId, account, amount.toString()], account)
    return Effect.flatMap(statement, (rows) => {
      if (rows[0] === undefined) return refuseMove(platformId, account, amount)
      knowBalance(pending, platformId, account, rows[0].balance)
      return Effect.void
    })
  }

  const post = (entry: JournalEntry): Effect.Effect<void, LedgerRejected> =>
    Effect.contextWith((context: Context.Context<never>) => {
      const problem = entryProblem(entry)
      if (problem !== undefined) return ledgerRejectedIn(problem)
      const moves = netMoves(entry)
      // Beyond twice the exact range no balance can take it (and bigint could overflow).
      const huge = moves.find((m) => m.amount > 2n * MAX_EXACT || m.amount < -2n * MAX_EXACT)
      if (huge !== undefined) return ledgerRejectedIn("OUT_OF_RANGE", huge.account)
      const pending = Context.get(context, CurrentPending)
      // Only internal accounts keep a balance row: a system account (money in flight, the
      // outside world, ...) is touched by every payment of its currency, and one row
      // written by every unit of work would make concurrent payments abort each other.
      // Its balance is the sum of its postings in the journal, read when asked for.
      const internal = moves.filter((m) => isInternalAccount(m.account))
      // A fresh id: it can break no constraint; sent with the unit of work's next statement,
      // with its rows of the internal accounts' journals (`accountPostings`).
      const journal = () => {
        const params = [entry.platformId, entry.id, entry.kind, entry.transactionId ?? null, millisOf(entry.at), JSON.stringify(entry)]
        const postings = accountPostings(entry)
        // Its own row: the entries of one unit of work wait together.
        const row = `journal\u0000${entry.platformId}\u0000${entry.id}`
        return postings === undefined
          ? sqlPending.deferIn(context, pending, JOURNAL_INSERT, params, row)
          : sqlPending.deferIn(context, pending, JOURNAL_INSERT_RETURNING, [...params, postings], row, JOURNAL_POSTINGS)
      }
      // The moves in order, each after the one before has run. A balance the attempt knows
      // moves in plain code (`moveKnown`: undefined, or what must run first); any other in a
      // statement of its own (`moveNow`).
      const from = (i: number): Effect.Effect<void, LedgerRejected> => {
        for (; i < internal.length; i++) {
          const m = internal[i]!
          const known = pending?.balances.get(balanceKey(entry.platformId, m.account))
          const next = known === undefined || pending === undefined
            ? moveNow(context, pending, entry.platformId, m)
            : moveKnown(context, pending, entry.platformId, m, BigInt(known))
          if (next !== undefined) {
            const after = i + 1
            return Effect.andThen(next, () => from(after))
          }
        }
        return journal()
      }
      return from(0)
    })

  // ------------------------------------------------------------ writes

  const putInternalAccount = (r: InternalAccountRecord): Effect.Effect<void, StoreConflict> =>
    Effect.andThen(sqlPending.flushWrites, sql.unsafe(
      `insert into internal_accounts (platform_id, id, created_ms, customer_id, currency, type, status, doc)
       values ($1, $2, $3::bigint, $4, $5, $6, $7, $8::json)
       on conflict (platform_id, id) do update set customer_id = excluded.customer_id, currency = excluded.currency,
         type = excluded.type, status = excluded.status, doc = excluded.doc`,
      [r.platformId, r.id, millisOf(r.createdAt), r.customerId, r.currency, r.type, r.status, JSON.stringify(r)]
    )).pipe(Effect.asVoid, Effect.catch(conflictOrDie))

  /**
   * A write that can break no constraint of ours and whose result nobody reads (any
   * failure is a defect): sent with the unit of work's next statement (./pending.ts).
   */
  const exec = sqlPending.defer

  // The plan's customer, sending currency and accounts: what an execution's read ahead starts from (./payment-reads.ts).
  const putQuote = (r: QuoteRecord): Effect.Effect<void> => {
    const { destination, source } = r.plan
    const sourceId = source.kind === "REALTIME" ? null : source.accountId
    const destinationId = destination.kind === "UMA" ? destination.internalAccountId ?? null : destination.accountId
    const doc = JSON.stringify(r)
    // Once committed, the store has seen the quote as written (a `json` column keeps its text as sent);
    // its accounts' kinds decide which text the execution's read ahead sends (./payment-reads.ts).
    const written = { text: doc, customerId: r.plan.customerId, currency: r.quote.sendingCurrency.code, sourceId, destinationId }
    return CurrentPending.use((pending) => {
      pending?.onCommit.push(() => seen.rememberRow("quotes", r.platformId, r.quote.id, written))
      return exec(
      `insert into quotes (platform_id, id, created_ms, customer_id, currency, source_id, destination_id, doc)
       values ($1, $2, $3::bigint, $4, $5, $6, $7, $8::json)
       on conflict (platform_id, id) do update set customer_id = excluded.customer_id, currency = excluded.currency,
         source_id = excluded.source_id, destination_id = excluded.destination_id, doc = excluded.doc`,
      [
        r.platformId,
        r.quote.id,
        millisOf(r.quote.createdAt),
        r.plan.customerId,
        r.quote.sendingCurrency.code,
        sourceId,
        destinationId,
        doc
      ]
    )
    })
  }

  const putTransaction = (r: TransactionRecord): Effect.Effect<void> => {
    const t = r.transaction
    const createdMs = millisOf(t.createdAt)
    const params = [
      r.platformId,
      t.id,
      createdMs,
      t.customerId ?? null,
      t.platformCustomerId ?? null,
      t.status,
      t.type,
      senderOf(r) ?? null,
      receiverOf(r),
      t.reconciliationInstructions?.reference ?? null,
      t.sentAmount?.currency.code ?? null,
      t.sentAmount?.amount ?? null,
      JSON.stringify(r)
    ]
    // What the daily volume counts (the same test as the trigger's, migration `6_sent_volumes`).
    const counted = t.type === "OUTGOING" && t.sentAmount !== undefined && t.status !== "FAILED" && t.status !== "EXPIRED"
    const day = createdMs - (((createdMs % DAY_MILLIS) + DAY_MILLIS) % DAY_MILLIS)
    // One text whether counted or not (a null key adds no volume): ./pending.ts sends a
    // statement again only after the earlier one of the same text, so the same payment
    // written twice in a unit of work (created, then failed) never lands twice in one
    // statement, where the second upsert of its row would fail ("cannot affect row a second time").
    const sent = t.sentAmount
    return CurrentPending.use((pending) => {
      // What the store learns of the customer's daily volume once this commits (./store.ts).
      if (pending !== undefined && sent !== undefined) {
        pending.volumeWrites.push({
          key: seenVolumeKey(r.platformId, t.customerId ?? "", sent.currency.code),
          transactionId: t.id,
          day,
          amount: sent.amount,
          counted
        })
      }
      return exec(TRANSACTION_WRITE, [...params, counted ? t.customerId ?? "" : null, day], undefined, TRANSACTION_VOLUME)
    })
  }

  const putPlatformConfig = (r: PlatformConfigRecord): Effect.Effect<void> =>
    exec(
      `insert into platform_configs (platform_id, doc) values ($1, $2::json)
       on conflict (platform_id) do update set doc = excluded.doc`,
      [r.platformId, JSON.stringify(r)]
    )

  // ------------------------------------------------------------ repositories

  const repositories: MoneyStore["repositories"] = {
    internalAccounts: {
      get: (platformId, id) => cachedDoc("internal_accounts", platformId, id, internalAccount(platformId, id)),
      findByOwnerCurrency: (platformId, customerId, currency) =>
        one<InternalAccountRecord>(
          `select doc::text as doc from internal_accounts where platform_id = $1 and coalesce(customer_id, '') = $2 and currency = $3`,
          [platformId, customerId ?? "", currency]
        ),
      list: (platformId, q, p) =>
        page<InternalAccountRecord>("internal_accounts", internalAccountWhere(platformId, q), p, (r) => ({
          createdAt: millisOf(r.createdAt),
          id: r.id
        }))
    },
    ledger: {
      balances: (platformId, accounts) =>
        CurrentPending.use((known) => {
          if (accounts.length === 0) return Effect.succeed(new Map<string, number>())
          // The internal accounts' balances the attempt knows (read or moved by it) are not asked again.
          const knownBalance = (account: string) => known?.balances.get(balanceKey(platformId, account))
          const knownBalances = new Map<string, number>()
          const internal: Array<string> = []
          const system: Array<string> = []
          for (const account of accounts) {
            if (!isInternalAccount(account)) system.push(account)
            else {
              const balance = knownBalance(account)
              if (balance === undefined) internal.push(account)
              else knownBalances.set(account, balance)
            }
          }
          // Every one known (the usual case in a payment: read ahead, or moved): nothing to ask.
          if (internal.length === 0 && system.length === 0) return Effect.succeed(knownBalances)
          const rows = Effect.all([
            internal.length === 0 ? Effect.succeed([]) : query<{ readonly account: string; readonly balance: string }>(
              // One index lookup per account (the lateral subquery cannot be flattened into a
              // join), so only these rows are read: a semi-join or `= any(…)` scanned every
              // balance row of the platform, which under SERIALIZABLE predicate-locked them all
              // (a page lock) and made unrelated payments abort each other.
              `select b.account, b.balance::text as balance from jsonb_array_elements_text($2::jsonb) as wanted (account)
               cross join lateral (select account, balance from ledger_balances
                 where platform_id = $1 and account = wanted.account offset 0) as b`,
              [platformId, JSON.stringify(internal)]
            ),
            system.length === 0 ? Effect.succeed([]) : query<{ readonly account: string; readonly balance: string }>(
              `${SYSTEM_SUMS} and p->>'account' in (select jsonb_array_elements_text($2::jsonb)) group by 1, 2`,
              [platformId, JSON.stringify(system)]
            )
          ])
          return Effect.map(rows, ([a, b]) => {
            const read = new Map(a.map((row) => [row.account, exactNumber(row.balance)] as const))
            // An account without a row has a zero balance until a move makes one (which the attempt then knows).
            for (const account of internal) known?.balances.set(balanceKey(platformId, account), read.get(account) ?? 0)
            const found = new Map([...read, ...b.map((row) => [row.account, Number(row.balance)] as const)])
            return new Map(accounts.map((x) => [x, knownBalance(x) ?? found.get(x) ?? 0]))
          })
        }),
      allBalances: (platformId) =>
        Effect.map(
          query<{ readonly account: string; readonly currency: string; readonly balance: string }>(
            `select account, currency, balance::text as balance from ledger_balances where platform_id = $1
             union all (${SYSTEM_SUMS} group by 1, 2) order by account`,
            [platformId]
          ),
          (rows) =>
            rows.map((row) => ({
              account: row.account,
              currency: row.currency,
              // A system account's sum is not held to the exact range: the nearest number.
              balance: isInternalAccount(row.account) ? exactNumber(row.balance) : Number(row.balance)
            }))
        ),
      entries: (platformId, options) =>
        options?.transactionId === undefined
          ? many<JournalEntry>(`select doc::text as doc from journal_entries where platform_id = $1 order by seq`, [platformId])
          : many<JournalEntry>(
            `select doc::text as doc from journal_entries where platform_id = $1 and transaction_id = $2 order by seq`,
            [platformId, options.transactionId]
          ),
      journalPage: (platformId, options) =>
        Effect.gen(function*() {
          const after = options.after === undefined ? 0 : decodeJournalCursor(options.after)
          if (typeof after !== "number") return yield* Effect.fail(after)
          const rows = yield* query<{ readonly seq: string; readonly doc: string }>(
            `select seq::text as seq, doc::text as doc from journal_entries where platform_id = $1 and seq > $2 order by journal_entries.seq limit $3`,
            [platformId, after, options.limit + 1]
          )
          const page = rows.slice(0, options.limit)
          const entries = page.map((r) => JSON.parse(r.doc) as JournalEntry)
          const last = page[page.length - 1]
          return rows.length > options.limit && last !== undefined ? { entries, next: encodeJournalCursor(Number(last.seq)) } : { entries }
        }),
      accountJournal: (platformId, account, p) =>
        Effect.gen(function*() {
          const after = p.cursor === undefined ? undefined : decodeJournalCursor(p.cursor)
          if (after instanceof InvalidCursor) return yield* Effect.fail(after)
          const descending = p.descending === true
          const rows = yield* query<{ readonly seq: string; readonly currency: string; readonly amount: string; readonly doc: string }>(
            `select a.seq::text as seq, a.currency, a.amount::text as amount, j.doc::text as doc
             from journal_account_postings a join journal_entries j on j.platform_id = a.platform_id and j.seq = a.seq
             where a.platform_id = $1 and a.account = $2 ${after === undefined ? "" : descending ? "and a.seq < $4" : "and a.seq > $4"}
             order by a.seq ${descending ? "desc" : "asc"} limit $3`,
            after === undefined ? [platformId, account, p.limit + 1] : [platformId, account, p.limit + 1, after]
          )
          const [count] = yield* query<{ readonly n: string }>(
            `select count(*)::text as n from journal_account_postings where platform_id = $1 and account = $2`,
            [platformId, account]
          )
          const page = rows.slice(0, p.limit)
          const data = page.map((r) => ({ entry: JSON.parse(r.doc) as JournalEntry, currency: r.currency, amount: exactNumber(r.amount) }))
          const last = page[page.length - 1]
          const totalCount = Number(count?.n ?? 0)
          return rows.length > p.limit && last !== undefined
            ? { data, hasMore: true, nextCursor: encodeJournalCursor(Number(last.seq)), totalCount }
            : { data, hasMore: false, totalCount }
        })
    },
    quotes: {
      get: (platformId, id) => cachedDoc("quotes", platformId, id, quote(platformId, id))
    },
    transactions: {
      get: byId<TransactionRecord>("transactions"),
      list: (platformId, q, p) =>
        page<TransactionRecord>("transactions", transactionWhere(platformId, q), p, (r) => ({
          createdAt: millisOf(r.transaction.createdAt),
          id: r.transaction.id
        })),
      sentVolume: (platformId, q) => {
        // From a day's start (the daily window), one row per day of the customer's volume,
        // kept with the payments (migration `6_sent_volumes`, `putTransaction`): under SERIALIZABLE this reads and
        // locks that row, not a range of an index page every other payment writes into.
        if (q.since % DAY_MILLIS === 0) {
          return cachedVolume(platformId, q.customerId ?? "", q.currency, q.since, Effect.map(
            query<{ readonly total: string }>(
              `select coalesce(sum(amount), 0)::text as total from sent_volumes
               where platform_id = $1 and customer_key = $2 and currency = $3 and day_ms >= $4::bigint`,
              [platformId, q.customerId ?? "", q.currency, q.since]
            ),
            (rows) => Number(rows[0]?.total ?? "0")
          ))
        }
        const statement = sentVolumeStatement(platformId, q)
        return Effect.map(
          query<{ readonly total: string }>(statement.text, statement.params),
          // A sum of exact amounts may itself exceed 2^53; it is a limit check's input, so the nearest number.
          (rows) => Number(rows[0]?.total ?? "0")
        )
      }
    },
    platformConfigs: {
      get: (platformId) =>
        cachedDoc(
          "platform_configs",
          platformId,
          "",
          one<PlatformConfigRecord>(`select doc::text as doc from platform_configs where platform_id = $1`, [platformId])
        )
    },
    paymentReads: makePaymentReads(query, seen)
  }

  return {
    tables: MONEY_TABLES,
    repositories,
    writes: { putInternalAccount, post, putQuote, putTransaction, putPlatformConfig }
  }
}
