/**
 * GET /sandbox/ledger/audit: the books of the calling sandbox platform checked now, as
 * the test auditor (`auditLedger` in src/testing/money-model.ts) checks them after every
 * step of the money model:
 *
 * - ENTRIES_BALANCE: every journal entry sums to zero in each currency;
 * - CURRENCIES_SUM_TO_ZERO: all balances of a currency sum to zero (money is neither
 *   created nor destroyed);
 * - NO_NEGATIVE_INTERNAL_ACCOUNT: no internal account is below zero;
 * - BALANCES_MATCH_POSTINGS: every ledger account's balance is the sum of its postings;
 * - HOLDS_RECONCILE: money held (in flight, parked in suspense, held for card
 *   authorizations) is exactly what the payments and card transactions holding it say:
 *   a payment whose money is IN_FLIGHT holds its debit in `system:in_flight`, a PARKED
 *   one in `system:suspense`, any other none; a card transaction holds its `held` amount
 *   in `system:card_holds`; nothing holds a negative amount, and every posting to a
 *   holding account names what it holds for.
 *
 * Bounded work: the journal is read in pages up to `AUDIT_MAX_ENTRIES` entries, and
 * payments and card transactions up to `AUDIT_MAX_RECORDS` each. Past either bound the
 * checks that need the whole of it answer NOT_CHECKED (saying why) and the verdict is
 * INCOMPLETE; the checks over balances alone still run. Each check reports at most
 * `AUDIT_MAX_PROBLEMS` problems (and how many it found).
 */
import { Effect } from "effect"
import type { Platform } from "../domain/platform.js"
import { Store, type JournalEntry, type LedgerBalance } from "../ports/store.js"
import { inFlightAccount, suspenseAccount } from "./money/ledger.js"
import { cardHoldAccount } from "./card-transactions.js"
import { isoOf, nowMillis, onPlatformClock } from "./time.js"
import { isInternalAccount } from "../adapters/ledger.js"

export const AUDIT_MAX_ENTRIES = 100_000
export const AUDIT_MAX_RECORDS = 50_000
export const AUDIT_MAX_PROBLEMS = 100
const PAGE = 1000

export type AuditCheckName =
  | "ENTRIES_BALANCE"
  | "CURRENCIES_SUM_TO_ZERO"
  | "NO_NEGATIVE_INTERNAL_ACCOUNT"
  | "BALANCES_MATCH_POSTINGS"
  | "HOLDS_RECONCILE"

export const AUDIT_CHECKS: ReadonlyArray<AuditCheckName> = [
  "ENTRIES_BALANCE",
  "CURRENCIES_SUM_TO_ZERO",
  "NO_NEGATIVE_INTERNAL_ACCOUNT",
  "BALANCES_MATCH_POSTINGS",
  "HOLDS_RECONCILE"
]

/** Where an invariant fails: a message, and the account, currency, entry or transaction it names. */
export interface AuditProblem {
  readonly message: string
  readonly account?: string
  readonly currency?: string
  readonly entryId?: string
  readonly transactionId?: string
  /** What the books hold and what the invariant expects, in minor units. */
  readonly actual?: number
  readonly expected?: number
}

export interface AuditCheck {
  readonly name: AuditCheckName
  readonly status: "PASSED" | "FAILED" | "NOT_CHECKED"
  readonly description: string
  /** Why a check was not run (a bound was reached). */
  readonly reason?: string
  readonly problemCount: number
  /** The first `AUDIT_MAX_PROBLEMS` problems. */
  readonly problems: ReadonlyArray<AuditProblem>
}

export interface LedgerAudit {
  /** BALANCED: every check passed; UNBALANCED: one failed; INCOMPLETE: none failed, one could not run. */
  readonly verdict: "BALANCED" | "UNBALANCED" | "INCOMPLETE"
  /** When the books were read, on the platform's clock. */
  readonly checkedAt: string
  readonly entriesChecked: number
  readonly accountsChecked: number
  readonly transactionsChecked: number
  readonly checks: ReadonlyArray<AuditCheck>
}

const DESCRIPTIONS: Readonly<Record<AuditCheckName, string>> = {
  ENTRIES_BALANCE: "Every journal entry sums to zero in each currency",
  CURRENCIES_SUM_TO_ZERO: "All balances of each currency sum to zero: money is neither created nor destroyed",
  NO_NEGATIVE_INTERNAL_ACCOUNT: "No internal account is below zero",
  BALANCES_MATCH_POSTINGS: "Every ledger account's balance equals the sum of its postings",
  HOLDS_RECONCILE: "Money in flight, parked and held for card authorizations is exactly what the payments and card transactions holding it say"
}

/** What the audit reads: the books and the records that hold money. */
export interface AuditInput {
  readonly balances: ReadonlyArray<LedgerBalance>
  /** The whole journal, or undefined when it is past the bound. */
  readonly entries: ReadonlyArray<JournalEntry> | undefined
  /** Outgoing payments: id, money state and debit; undefined past the bound. */
  readonly payments: ReadonlyArray<{ readonly id: string; readonly money: string; readonly debit: { readonly currency: string; readonly amount: number } }> | undefined
  /** Card transactions: id, currency and amount held; undefined past the bound. */
  readonly cardTransactions: ReadonlyArray<{ readonly id: string; readonly currency: string; readonly held: number }> | undefined
}

const HOLDING_PREFIXES = ["system:in_flight:", "system:card_holds:", "system:suspense:"] as const
const isHolding = (account: string) => HOLDING_PREFIXES.some((p) => account.startsWith(p))

/** The checks over what was read (pure: the tests feed it broken books). */
export const auditBooks = (input: AuditInput): Pick<LedgerAudit, "verdict" | "checks"> => {
  const found = new Map<AuditCheckName, Array<AuditProblem>>(AUDIT_CHECKS.map((c) => [c, []]))
  const problem = (check: AuditCheckName, p: AuditProblem) => void found.get(check)?.push(p)
  const notChecked = new Map<AuditCheckName, string>()
  const { balances, entries } = input

  // Over balances alone.
  const totals = new Map<string, number>()
  for (const b of balances) {
    totals.set(b.currency, (totals.get(b.currency) ?? 0) + b.balance)
    if (isInternalAccount(b.account) && b.balance < 0) {
      problem("NO_NEGATIVE_INTERNAL_ACCOUNT", { message: `internal account ${b.account} is negative: ${b.balance} ${b.currency}`, account: b.account, currency: b.currency, actual: b.balance, expected: 0 })
    }
  }
  for (const [currency, sum] of totals) {
    if (sum !== 0) problem("CURRENCIES_SUM_TO_ZERO", { message: `the ${currency} balances sum to ${sum}: money was created or destroyed`, currency, actual: sum, expected: 0 })
  }

  if (entries === undefined) {
    const why = `the journal has more than ${AUDIT_MAX_ENTRIES} entries, the most one audit reads`
    notChecked.set("ENTRIES_BALANCE", why)
    notChecked.set("BALANCES_MATCH_POSTINGS", why)
    notChecked.set("HOLDS_RECONCILE", why)
  } else {
    const sums = new Map<string, { readonly account: string; readonly currency: string; sum: number }>()
    /** Per holding account and transaction: the amount it holds there. */
    const holds = new Map<string, Map<string, number>>()
    for (const e of entries) {
      const perCurrency = new Map<string, number>()
      for (const p of e.postings) {
        perCurrency.set(p.currency, (perCurrency.get(p.currency) ?? 0) + p.amount)
        const key = `${p.account}|${p.currency}`
        const s = sums.get(key)
        if (s === undefined) sums.set(key, { account: p.account, currency: p.currency, sum: p.amount })
        else s.sum += p.amount
        if (isHolding(p.account)) {
          if (e.transactionId === undefined) {
            problem("HOLDS_RECONCILE", { message: `entry ${e.id} (${e.kind}) posts ${p.amount} ${p.currency} to ${p.account} for no transaction`, entryId: e.id, account: p.account, currency: p.currency, actual: p.amount })
          } else {
            let perTx = holds.get(p.account)
            if (perTx === undefined) holds.set(p.account, perTx = new Map())
            perTx.set(e.transactionId, (perTx.get(e.transactionId) ?? 0) + p.amount)
          }
        }
      }
      for (const [currency, sum] of perCurrency) {
        if (sum !== 0) problem("ENTRIES_BALANCE", { message: `entry ${e.id} (${e.kind}) sums to ${sum} ${currency}`, entryId: e.id, currency, actual: sum, expected: 0, ...(e.transactionId === undefined ? {} : { transactionId: e.transactionId }) })
      }
    }
    const balanceOf = new Map(balances.map((b) => [`${b.account}|${b.currency}`, b.balance]))
    for (const b of balances) {
      const sum = sums.get(`${b.account}|${b.currency}`)?.sum ?? 0
      if (sum !== b.balance) problem("BALANCES_MATCH_POSTINGS", { message: `${b.account} holds ${b.balance} ${b.currency}; its postings sum to ${sum}`, account: b.account, currency: b.currency, actual: b.balance, expected: sum })
    }
    for (const [key, s] of sums) {
      if (s.sum !== 0 && !balanceOf.has(key)) problem("BALANCES_MATCH_POSTINGS", { message: `${s.account} has postings summing to ${s.sum} ${s.currency} but no balance`, account: s.account, currency: s.currency, actual: 0, expected: s.sum })
    }

    // Holds: what each transaction holds against what it says it holds.
    const heldBy = (account: string, id: string) => holds.get(account)?.get(id) ?? 0
    const expected = new Map<string, Map<string, number>>()
    const expect = (account: string, id: string, amount: number) => {
      let m = expected.get(account)
      if (m === undefined) expected.set(account, m = new Map())
      m.set(id, amount)
    }
    if (input.payments === undefined || input.cardTransactions === undefined) {
      notChecked.set("HOLDS_RECONCILE", `the platform has more than ${AUDIT_MAX_RECORDS} payments or card transactions, the most one audit reads`)
    } else {
      for (const p of input.payments) {
        expect(inFlightAccount(p.debit.currency), p.id, p.money === "IN_FLIGHT" ? p.debit.amount : 0)
        expect(suspenseAccount(p.debit.currency), p.id, p.money === "PARKED" ? p.debit.amount : 0)
      }
      for (const t of input.cardTransactions) expect(cardHoldAccount(t.currency), t.id, t.held)
      for (const [account, perTx] of expected) {
        for (const [id, amount] of perTx) {
          const held = heldBy(account, id)
          if (held !== amount) {
            problem("HOLDS_RECONCILE", { message: `${id} holds ${held} in ${account}; it should hold ${amount}`, account, transactionId: id, actual: held, expected: amount })
          }
        }
      }
      // What nothing above accounts for (stablecoin operations, card exceptions): never negative.
      for (const [account, perTx] of holds) {
        for (const [id, held] of perTx) {
          if (expected.get(account)?.has(id) === true) continue
          if (held < 0) problem("HOLDS_RECONCILE", { message: `${id} holds ${held} in ${account}: more was released than held`, account, transactionId: id, actual: held, expected: 0 })
        }
      }
    }
  }

  const checks = AUDIT_CHECKS.map((name): AuditCheck => {
    const problems = found.get(name) ?? []
    const reason = notChecked.get(name)
    const status = problems.length > 0 ? "FAILED" : reason !== undefined ? "NOT_CHECKED" : "PASSED"
    return {
      name,
      status,
      description: DESCRIPTIONS[name],
      ...(reason === undefined ? {} : { reason }),
      problemCount: problems.length,
      problems: problems.slice(0, AUDIT_MAX_PROBLEMS)
    }
  })
  const verdict = checks.some((c) => c.status === "FAILED") ? "UNBALANCED" : checks.some((c) => c.status === "NOT_CHECKED") ? "INCOMPLETE" : "BALANCED"
  return { verdict, checks }
}

/** Reads up to `max` items page by page; undefined when there are more. */
const readBounded = <A, E>(
  max: number,
  pageOf: (cursor: string | undefined) => Effect.Effect<{ readonly items: ReadonlyArray<A>; readonly next: string | undefined }, E>
): Effect.Effect<ReadonlyArray<A> | undefined, E> =>
  Effect.gen(function*() {
    const out: Array<A> = []
    let cursor: string | undefined
    for (;;) {
      const page = yield* pageOf(cursor)
      for (const item of page.items) out.push(item)
      if (out.length > max) return undefined
      if (page.next === undefined) return out
      cursor = page.next
    }
  })

/** The audit of a platform's books now (the caller checks it is a sandbox platform). */
export const auditLedger = (platform: Platform) =>
  onPlatformClock(platform, Effect.gen(function*() {
    const store = yield* Store
    const id = platform.id
    const at = yield* nowMillis
    const balances = yield* store.ledger.allBalances(id)
    const entries = yield* Effect.orDie(readBounded(AUDIT_MAX_ENTRIES, (after) =>
      Effect.map(store.ledger.journalPage(id, { after, limit: PAGE }), (p) => ({ items: p.entries, next: p.next }))))
    const payments = yield* Effect.orDie(readBounded(AUDIT_MAX_RECORDS, (cursor) =>
      Effect.map(store.transactions.list(id, {}, { limit: PAGE, cursor }), (p) => ({
        items: p.data.filter((r) => r.transaction.type === "OUTGOING").map((r) => ({ id: r.transaction.id, money: r.plan.money, debit: r.plan.debit })),
        next: p.hasMore ? p.nextCursor : undefined
      }))))
    const cardTransactions = yield* Effect.orDie(readBounded(AUDIT_MAX_RECORDS, (cursor) =>
      Effect.map(store.cardTransactions.list(id, {}, { limit: PAGE, cursor }), (p) => ({
        items: p.data.map((r) => ({ id: r.transaction.id, currency: r.state.currency, held: r.state.held })),
        next: p.hasMore ? p.nextCursor : undefined
      }))))
    const result = auditBooks({ balances, entries, payments, cardTransactions })
    return {
      verdict: result.verdict,
      checkedAt: isoOf(at),
      entriesChecked: entries?.length ?? 0,
      accountsChecked: balances.length,
      transactionsChecked: (payments?.length ?? 0) + (cardTransactions?.length ?? 0),
      checks: result.checks
    } satisfies LedgerAudit
  }))
