/**
 * Applies the payment machine (rules/money/payment.ts) to stored transactions: the new
 * status, the ledger moves it asks for, the OUTGOING_PAYMENT.* events, balance events
 * and the next scheduled sandbox step, in one unit of work. The scheduler calls
 * `applyPaymentTimer` when a step falls due; execution and the transaction endpoints
 * call `movePayment` directly.
 */
import { sha256 } from "@noble/hashes/sha2.js"
import { bytesToHex } from "@noble/hashes/utils.js"
import { Effect, type Types } from "effect"
import { badRequest, type Error400, type Error404, type Error409, notFound } from "../../domain/errors.js"
import type { Platform } from "../../domain/platform.js"
import type { QuoteStatus } from "../../domain/quote.js"
import type { OutgoingTransaction, OutgoingTransactionFailureReason, PaymentPlan, PaymentStepRecord } from "../../domain/transaction.js"
import { Ids } from "../../ports/ids.js"
import { type InternalAccountRecord, type QuoteRecord, Store, type TimerRecord, type TransactionRecord, type UnitOfWork } from "../../ports/store.js"
import * as Machine from "../../rules/money/payment.js"
import { isoOf, nowMillis } from "../time.js"
import { emit, schedule } from "../transition.js"
import { renderAccount } from "./accounts.js"
import { type LedgerMove, postingsOf, postMove } from "./ledger.js"
import { rejected } from "../rejection.js"

export const PAYMENT_TIMER = "payment"

const millisOf = (iso: string | undefined): number | undefined => iso === undefined ? undefined : Date.parse(iso)

/** The machine's view of a stored outgoing payment. */
export const stateOf = (shown: OutgoingTransaction, plan: PaymentPlan): Machine.PaymentState =>
  stateOfShown(plan.pullReversal === undefined ? shown : { ...shown, refund: plan.pullReversal }, plan)

// The optional fields are set after the literal, not spread from `{}` or a one-field object:
// each spread but a literal's first is a runtime call in V8, and a payment moves a few times per request.
const stateOfShown = (t: OutgoingTransaction, plan: PaymentPlan): Machine.PaymentState => {
  const state: Types.Mutable<Machine.PaymentState> = {
    status: t.status,
    funds: plan.money,
    awaitingPlatformApproval: plan.awaitingPlatformApproval === true
  }
  if (t.failureReason !== undefined) state.failureReason = t.failureReason
  if (t.refund !== undefined) {
    state.refund = {
      status: t.refund.status,
      reason: t.refund.reason ?? "TRANSACTION_FAILED",
      initiatedAt: millisOf(t.refund.initiatedAt) ?? 0,
      ...(t.refund.settledAt === undefined ? {} : { settledAt: millisOf(t.refund.settledAt) ?? 0 })
    }
  }
  if (t.settledAt !== undefined) state.settledAt = millisOf(t.settledAt) ?? 0
  return state
}

const OUTGOING_STATUSES = new Set(["PENDING", "PENDING_AUTHORIZATION", "EXPIRED", "PROCESSING", "COMPLETED", "FAILED"])

/**
 * The payment without what a move decides anew (failure reason, refund, settlement),
 * and without `pendingReason` once it has ended. Copied only when it has any of them
 * (a payment starting out has none).
 */
const withoutOutcomeOf = (t: OutgoingTransaction, ended: boolean): OutgoingTransaction => {
  if (!("failureReason" in t) && !("refund" in t) && !("settledAt" in t) && !("pendingReason" in t)) return t
  const { failureReason: _f, refund: _r, settledAt: _s, pendingReason, ...kept } = t
  return ended || pendingReason === undefined ? kept : { ...kept, pendingReason }
}

/** The stored transaction after a move. */
const withState = (t: OutgoingTransaction, s: Machine.PaymentState, now: string): OutgoingTransaction => {
  // A payment that has ended is no longer held for anything: `pendingReason` goes.
  const ended = s.status === "COMPLETED" || s.status === "FAILED" || s.status === "EXPIRED"
  const rest = withoutOutcomeOf(t, ended)
  // The machine speaks every TransactionStatus; an outgoing payment only ever reaches these.
  const status = OUTGOING_STATUSES.has(s.status) ? s.status as OutgoingTransaction["status"] : "FAILED"
  // One copy, then the outcome's fields set in the order a literal would spread them (see stateOfShown).
  const moved: Types.Mutable<OutgoingTransaction> = { ...rest, status, updatedAt: now }
  if (s.failureReason !== undefined) moved.failureReason = s.failureReason as OutgoingTransactionFailureReason
  if (s.settledAt !== undefined) moved.settledAt = isoOf(s.settledAt)
  if (s.refund !== undefined) {
    moved.refund = {
      reference: `REFUND-${t.id.slice(t.id.indexOf(":") + 1, t.id.indexOf(":") + 9)}`,
      initiatedAt: isoOf(s.refund.initiatedAt),
      ...(s.refund.settledAt === undefined ? {} : { settledAt: isoOf(s.refund.settledAt) }),
      status: s.refund.status,
      reason: s.refund.reason
    }
  }
  return moved
}

/** A stable, fake transaction hash for a sandbox settlement (hex of SHA-256 of the transaction id). */
const settlementHash = (id: string, network: string | undefined): string => {
  const hex = bytesToHex(sha256(new TextEncoder().encode(id)))
  return network === "BITCOIN" || network === "SOLANA" || network === "SPARK" ? hex : `0x${hex}`
}

/**
 * On settlement: a payout to a wallet gets its `onChainTransaction` on the destination;
 * a UMA payment's inter-VASP leg gets `reconciliationInstructions.transactionHash` (kept
 * for that leg; deprecated for wallet transfers, SPEC.md Versioning).
 */
const withSettlementProof = (
  t: OutgoingTransaction,
  plan: PaymentPlan,
  ledger: ReadonlyArray<Machine.LedgerIntent>
): OutgoingTransaction => {
  if (!ledger.includes("SETTLE")) return t
  if (plan.onChainNetwork !== undefined && t.destination.destinationType === "ACCOUNT") {
    return {
      ...t,
      destination: { ...t.destination, onChainTransaction: { transactionHash: settlementHash(t.id, plan.onChainNetwork), network: plan.onChainNetwork } }
    }
  }
  if (plan.umaSettlement === true) {
    return { ...t, reconciliationInstructions: { ...t.reconciliationInstructions, transactionHash: settlementHash(t.id, undefined) } }
  }
  return t
}

/** The payment without its refund (copied only when it has one). */
const withoutRefundOf = (t: OutgoingTransaction): OutgoingTransaction => {
  if (!("refund" in t)) return t
  const { refund: _refund, ...rest } = t
  return rest
}

/** The quote without its SCA challenge (copied only when it has one). */
const withoutChallengeOf = (q: QuoteRecord["quote"]): QuoteRecord["quote"] => {
  if (!("scaChallenge" in q)) return q
  const { scaChallenge: _challenge, ...rest } = q
  return rest
}

const quoteStatusOf = (t: OutgoingTransaction): QuoteStatus =>
  t.status === "COMPLETED" ? "COMPLETED" : t.status === "FAILED" ? "FAILED" : t.status === "EXPIRED" ? "EXPIRED" : "PROCESSING"

const asMove = (step: PaymentStepRecord): Machine.PaymentMove | undefined => {
  const type = step.move.type
  if (!(Machine.PAYMENT_MOVE_TYPES as ReadonlyArray<string>).includes(type)) return undefined
  if (type === "FAIL") {
    const reason = step.move.failureReason
    return reason !== undefined && (Machine.OUTGOING_FAILURE_REASONS as ReadonlyArray<string>).includes(reason)
      ? { type: "FAIL", failureReason: reason as Machine.OutgoingFailureReason }
      : undefined
  }
  return { type } as Machine.PaymentMove
}

/**
 * What one request that moves a payment several times (an execution: the debit, PROCESS,
 * then the sandbox steps due at once) has read or written already, so that it reads each
 * row once and writes its quote once:
 * - `quote`: the payment's quote as this request read it, `quoteStatus` the status its
 *   moves gave it, `quoteDirty` when that is not written yet (`flushQuote` builds and
 *   writes it, once, at the end of the request's work);
 * - `accounts`: the internal accounts the balance events render (their records do not
 *   change while a payment moves).
 * Moves made with a scope do not write the payment either: the caller writes the record
 * the last move returned, once (`runDueSteps` does, at its end).
 * Lives for one unit of work only: nothing in it outlives the request.
 */
export interface PaymentScope {
  quote: QuoteRecord | undefined
  quoteDirty: boolean
  /** While `quoteDirty`: the status the moves gave `quote` (the record is rebuilt once, by `flushQuote`). */
  quoteStatus: QuoteStatus | undefined
  readonly accounts: Map<string, InternalAccountRecord>
}

export const paymentScope = (quote?: QuoteRecord): PaymentScope => ({ quote, quoteDirty: false, quoteStatus: undefined, accounts: new Map() })

/** The quote after its payment moved: its new status, and no SCA challenge (a move leaves PENDING_AUTHORIZATION behind). */
const quoteMovedTo = (q: QuoteRecord, status: QuoteStatus): QuoteRecord =>
  ({ ...q, quote: { ...withoutChallengeOf(q.quote), status }, authorization: undefined })

/** Writes the scope's quote if a move changed it; returns it. */
export const flushQuote = (uow: UnitOfWork, scope: PaymentScope): Effect.Effect<QuoteRecord | undefined> => {
  if (scope.quote === undefined || !scope.quoteDirty || scope.quoteStatus === undefined) return Effect.succeed(scope.quote)
  const quote = quoteMovedTo(scope.quote, scope.quoteStatus)
  scope.quote = quote
  return Effect.map(uow.putQuote(quote), () => {
    scope.quoteDirty = false
    scope.quoteStatus = undefined
    return quote
  })
}

/**
 * Applies one move to an outgoing payment inside `uow` and writes everything it causes.
 * Returns the record after the move. With a `scope`, the payment is not written (the
 * caller writes the record returned), the quote's new status is kept in the scope (the
 * caller flushes it) and the accounts it reads are remembered there.
 */
export const movePayment = Effect.fnUntraced(function*(
  uow: UnitOfWork,
  platform: Platform,
  rec: TransactionRecord,
  move: Machine.PaymentMove,
  scope?: PaymentScope
): Effect.fn.Return<TransactionRecord, Error409, Store | Ids> {
  const t = rec.transaction
  if (t.type !== "OUTGOING") return yield* Effect.die(new Error(`movePayment on an ${t.type} transaction`))
  const nowMs = yield* nowMillis
  const now = isoOf(nowMs)
  const r = Machine.transition(stateOf(t, rec.plan), move, nowMs)
  if (!r.ok) return yield* rejected(r.error)
  const moved = withSettlementProof(withState(t, r.value.state, now), rec.plan, r.value.ledger)
  // A failed pull took nothing from the customer: the ledger reverses what it held in
  // flight, but there is no refund to show or announce.
  const pullFailed = rec.plan.pull === true && moved.status === "FAILED"
  const transaction: OutgoingTransaction = pullFailed ? withoutRefundOf(moved) : moved
  const events = pullFailed ? r.value.events.filter((e) => !e.startsWith("OUTGOING_PAYMENT.REFUND_")) : r.value.events
  const plan: Types.Mutable<PaymentPlan> = {
    ...rec.plan,
    money: r.value.state.funds,
    awaitingPlatformApproval: r.value.state.awaitingPlatformApproval
  }
  if (pullFailed && moved.refund !== undefined) plan.pullReversal = moved.refund
  for (const intent of r.value.ledger) {
    // The machine asks for each move at most once, in a state that holds the money:
    // a refusal here would be a bookkeeping bug.
    yield* postMove(uow, platform.id, t.id, plan, intent, now).pipe(Effect.orDie)
  }
  const next: TransactionRecord = { ...rec, transaction, plan }
  if (scope === undefined) yield* uow.putTransaction(next)
  yield* announce(uow, platform, transaction, events, now)
  if (r.value.ledger.length > 0) yield* announceBalances(uow, platform, plan, r.value.ledger, now, scope)
  const quoteId = plan.quoteId
  if (quoteId !== undefined) {
    const q = scope?.quote?.quote.id === quoteId ? scope.quote : yield* Store.use((store) => store.quotes.get(platform.id, quoteId))
    if (q !== undefined) {
      if (scope === undefined) yield* uow.putQuote(quoteMovedTo(q, quoteStatusOf(transaction)))
      else {
        // Rebuilt once, when flushed (moving it twice is moving it once, to the last status).
        scope.quote = q
        scope.quoteStatus = quoteStatusOf(transaction)
        scope.quoteDirty = true
      }
    }
  }
  return next
})

/** The payment's events of a move, in order (a move has one or two: no generator for them). */
const announce = (
  uow: UnitOfWork,
  platform: Platform,
  transaction: OutgoingTransaction,
  types: ReadonlyArray<Machine.OutgoingPaymentEvent>,
  now: string
): Effect.Effect<void, never, Ids> => {
  let all: Effect.Effect<void, never, Ids> | undefined
  for (const type of types) {
    const one = emit(uow, platform, type, { timestamp: now, data: transaction })
    all = all === undefined ? one : Effect.andThen(all, one)
  }
  return all ?? Effect.void
}

/**
 * The payment's internal accounts whose balance `moves` (just posted, in order) changed:
 * a move that leaves an account's balance as it was (the payee's on the debit into
 * flight, the payer's on the settlement) changes nothing to announce.
 */
export const accountsMovedBy = (plan: PaymentPlan, moves: ReadonlyArray<LedgerMove>): ReadonlyArray<string> => {
  const internal = plan.internalAccounts
  if (internal.length === 0) return internal
  const net = new Map<string, number>()
  for (const move of moves) {
    for (const p of postingsOf(plan, move)) net.set(p.account, (net.get(p.account) ?? 0) + p.amount)
  }
  return internal.filter((a) => (net.get(a) ?? 0) !== 0)
}

/**
 * INTERNAL_ACCOUNT.BALANCE_UPDATED ("fired when the balance of an internal account
 * changes") for each internal account of the payment whose balance `moves` changed:
 * their balances read in one batch; their records from `scope` when read already. A
 * plain effect (no generator: it runs twice per execution), the accounts read one after
 * the other only when the scope does not have them.
 */
export const announceBalances = (
  uow: UnitOfWork,
  platform: Platform,
  plan: PaymentPlan,
  moves: ReadonlyArray<LedgerMove>,
  now: string,
  scope?: PaymentScope
): Effect.Effect<void, never, Store | Ids> =>
  Store.use((store) => {
    const ids = accountsMovedBy(plan, moves)
    const accounts: Array<InternalAccountRecord> = []
    const announce = (): Effect.Effect<void, never, Ids> =>
      accounts.length === 0 ? Effect.void : Effect.flatMap(store.ledger.balances(platform.id, accounts.map((a) => a.id)), (balances) => {
        let all: Effect.Effect<void, never, Ids> | undefined
        for (const account of accounts) {
          const one = emit(uow, platform, "INTERNAL_ACCOUNT.BALANCE_UPDATED", { timestamp: now, data: renderAccount(account, balances.get(account.id) ?? 0) })
          all = all === undefined ? one : Effect.andThen(all, one)
        }
        return all ?? Effect.void
      })
    // From the i-th account on: each one known to the scope is taken as it is, the first
    // one that is not is read (and remembered), then the rest.
    const from = (i: number): Effect.Effect<void, never, Ids> => {
      for (; i < ids.length; i++) {
        const id = ids[i]!
        const known = scope?.accounts.get(id)
        if (known === undefined) {
          const next = i + 1
          return Effect.flatMap(store.internalAccounts.get(platform.id, id), (account) => {
            if (account !== undefined) {
              scope?.accounts.set(id, account)
              accounts.push(account)
            }
            return from(next)
          })
        }
        accounts.push(known)
      }
      return announce()
    }
    return from(0)
  })

/**
 * Applies every step of the payment due by now, in order, then schedules the next one
 * (if any) as the payment's timer. Returns the record after the steps.
 */
export const runDueSteps = Effect.fnUntraced(function*(
  uow: UnitOfWork,
  platform: Platform,
  rec: TransactionRecord,
  options?: {
    /** The request's scope (see PaymentScope): moves keep the quote there. */
    readonly scope?: PaymentScope | undefined
    /** The payment was created by this unit of work: it has no timer to cancel yet. */
    readonly fresh?: boolean | undefined
  }
) {
  const nowMs = yield* nowMillis
  let current = rec
  // Whether `current` is what the store holds (a move without a scope writes the record it returns).
  let written = false
  while (current.plan.steps.length > 0) {
    // Not `[step, ...rest]`: an array rest pattern runs the iterator protocol.
    const step = current.plan.steps[0]
    if (step === undefined || step.at > nowMs) break
    current = { ...current, plan: { ...current.plan, steps: current.plan.steps.slice(1) } }
    written = false
    const move = asMove(step)
    if (move === undefined) continue
    const before = current
    current = yield* movePayment(uow, platform, current, move, options?.scope).pipe(
      // A step the payment no longer accepts (cancelled meanwhile, say) is dropped.
      Effect.catch(() => Effect.succeed(before))
    )
    written = current !== before && options?.scope === undefined
  }
  if (!written) yield* uow.putTransaction(current)
  const next = current.plan.steps[0]
  if (options?.fresh !== true) yield* uow.cancelTimers(platform.id, current.transaction.id, PAYMENT_TIMER)
  if (next !== undefined) yield* schedule(uow, platform, PAYMENT_TIMER, current.transaction.id, { at: next.at, event: next.move.type })
  return current
})

/** The scheduler's handler for payment timers. */
export const applyPaymentTimer = (uow: UnitOfWork, platform: Platform, timer: TimerRecord) =>
  Effect.gen(function*() {
    const store = yield* Store
    const rec = yield* store.transactions.get(platform.id, timer.subjectId)
    if (rec === undefined) return yield* Effect.fail(new Error(`transaction ${timer.subjectId} no longer exists`))
    yield* runDueSteps(uow, platform, rec)
  })

/** A transaction of the platform, or 404 TRANSACTION_NOT_FOUND. */
export const transactionOf = Effect.fnUntraced(function*(platform: Platform, id: string): Effect.fn.Return<TransactionRecord, Error404, Store> {
  const store = yield* Store
  const rec = yield* store.transactions.get(platform.id, id)
  if (rec === undefined) return yield* notFound(`Transaction ${id} not found`, "TRANSACTION_NOT_FOUND")
  return rec
})

/** Refuses a move on an incoming transaction with a clear 400. */
export const outgoingOnly = (rec: TransactionRecord): Effect.Effect<TransactionRecord, Error400> =>
  rec.transaction.type === "OUTGOING"
    ? Effect.succeed(rec)
    : Effect.fail(badRequest("INVALID_INPUT", "This operation applies to outgoing payments only"))
