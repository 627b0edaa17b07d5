/**
 * The card-transaction machine. Pure: every function takes the row's state, the
 * network's message and the time, and returns the next state, the webhook events, the
 * ledger legs and the moves due later (as data), or the API error a refused message
 * becomes. It never runs anything (docs/card-transactions.md).
 *
 * Money. Four ledger roles, which the caller maps to ledger accounts:
 *   FUNDING   the funding internal account (never below zero: the machine pulls only
 *             what the caller says is available)
 *   HOLD      money held for open authorizations (a system account per currency)
 *   NETWORK   the card network and merchants (the outside world)
 *   SUSPENSE  anomalies held for review (a pull whose confirmation failed is parked
 *             there; a clearing the funding account could not cover is fronted from it)
 * A debit row's money always adds up: pulled = held + released + settled + suspense,
 * where `suspense` is the net the row moved into suspense (fronted amounts count
 * negative). Every leg moves a positive amount from one role to another, so every entry
 * sums to zero by construction.
 *
 * Statuses: AUTHORIZED → PARTIALLY_SETTLED → SETTLED by clearings; AUTHORIZED → VOIDED by
 * a 0 clearing or the expiry; PARTIALLY_SETTLED → SETTLED likewise (the rest released);
 * any open row → EXCEPTION when a pull cannot be covered or confirmed. DECLINED, VOIDED
 * and EXCEPTION never change; a SETTLED purchase stays SETTLED (a merchant return
 * changes its `refundedAmount` and opens its own CREDIT row, SPEC.md); a return's own
 * row leaves SETTLED only when the return is reversed (VOIDED, or EXCEPTION when the
 * funding account cannot give the money back).
 */
import type {
  CardDeclinedReason,
  CardTransactionDirection,
  CardTransactionKind,
  CardTransactionState,
  CardTransactionStatus,
  PullTally,
  Tally
} from "../../domain/card-transaction.js"
import { reject, type Rejection } from "../rejection.js"
import { fail, type Moved, ok, type Result } from "../result.js"
import { AUTHORIZATION_EXPIRY_MS, DELAYED_PULL_MS } from "./simulations.js"

export type { CardTransactionKind, CardTransactionState, PullTally, Tally }

export type OpeningKind = Exclude<CardTransactionKind, "RETURN">

export const CARD_TRANSACTION_EVENTS = [
  "CARD_TRANSACTION.AUTHORIZED",
  "CARD_TRANSACTION.PARTIALLY_SETTLED",
  "CARD_TRANSACTION.SETTLED",
  "CARD_TRANSACTION.DECLINED",
  "CARD_TRANSACTION.VOIDED",
  "CARD_TRANSACTION.EXCEPTION"
] as const
export type CardTransactionEvent = (typeof CARD_TRANSACTION_EVENTS)[number]

/** The event that announces a row in a status (re-fired when the amounts of a row change but not its status). */
export const eventOf = (status: CardTransactionStatus): CardTransactionEvent => `CARD_TRANSACTION.${status}`

export type CardLedgerRole = "FUNDING" | "HOLD" | "NETWORK" | "SUSPENSE"

/** What a leg is, as the journal names it. */
export type CardLedgerMove =
  | "CARD_HOLD"
  | "CARD_RELEASE"
  | "CARD_SETTLE"
  | "CARD_PULL"
  | "CARD_CREDIT"
  | "CARD_RETURN"
  | "CARD_RETURN_REVERSAL"
  | "CARD_EXCEPTION"

/** `amount` (> 0) minor units of the row's currency from one role to another. */
export interface CardLedgerLeg {
  readonly move: CardLedgerMove
  readonly from: CardLedgerRole
  readonly to: CardLedgerRole
  readonly amount: number
}

/** Moves a row asks for later, applied with `transition` when due. */
export type CardTimerMove = "EXPIRE" | "PULL_CONFIRMED"
export interface ScheduledCardMove {
  readonly at: number
  readonly move: CardTimerMove
}

/** The next state, its events and later moves, plus the ledger legs to post and the timers the move ends. */
export type CardTransitioned = Moved<CardTransactionState, CardTransactionEvent, ScheduledCardMove, {
  readonly legs: ReadonlyArray<CardLedgerLeg>
  /** Pending timers of these moves that no longer apply (the row closed). */
  readonly cancel: ReadonlyArray<CardTimerMove>
}>

/** The network's messages on an existing row, and the timers. */
export type CardTransactionMove =
  /** Re-sizes an open authorization to a new total (`simulate/authorization_advice`). */
  | { readonly type: "ADVICE"; readonly amount: number; readonly fundingAvailable: number }
  /**
   * A clearing (`simulate/clearing`); 0 is an authorization expiry. `delayedPull`: a
   * post-hoc pull stays PENDING (the parent's descriptor ends in 005).
   */
  | { readonly type: "CLEAR"; readonly amount: number; readonly fundingAvailable: number; readonly delayedPull?: boolean }
  /** The authorization window ended (timer). */
  | { readonly type: "EXPIRE" }
  /** Pending pulls CONFIRMED (timer, sandbox suffix 005). */
  | { readonly type: "PULL_CONFIRMED" }
  /** On a purchase: a merchant return of `amount` (the return's own row is `openReturn`'s). */
  | { readonly type: "RETURN"; readonly amount: number }
  /** On a purchase: a return of `amount` was reversed. */
  | { readonly type: "RETURN_REVERSED"; readonly amount: number }
  /** On a return's own row: the merchant takes the return back (`simulate/return_reversal`). */
  | { readonly type: "REVERSE_RETURN"; readonly fundingAvailable: number }
export type CardTransactionMoveType = CardTransactionMove["type"]

/** A message the row cannot take (the wrong status, or an amount it cannot carry). */
export type CardTransactionRejection = Rejection<"INVALID_INPUT" | "INVALID_AMOUNT">

export const CARD_TRANSACTION_MOVE_TYPES: ReadonlyArray<CardTransactionMoveType> = [
  "ADVICE",
  "CLEAR",
  "EXPIRE",
  "PULL_CONFIRMED",
  "RETURN",
  "RETURN_REVERSED",
  "REVERSE_RETURN"
]

/** Statuses a row never leaves. */
export const TERMINAL_STATUSES: ReadonlySet<CardTransactionStatus> = new Set(["DECLINED", "VOIDED", "EXCEPTION"])
/** Statuses of an authorization still open to clearings and advices. */
export const OPEN_STATUSES: ReadonlySet<CardTransactionStatus> = new Set(["AUTHORIZED", "PARTIALLY_SETTLED"])

// ---------------------------------------------------------------- helpers

const ZERO: Tally = { count: 0, total: 0 }
const NO_PULLS: PullTally = { count: 0, total: 0, pending: 0 }

const leg = (move: CardLedgerMove, from: CardLedgerRole, to: CardLedgerRole, amount: number): ReadonlyArray<CardLedgerLeg> =>
  amount > 0 ? [{ move, from, to, amount }] : []

const moved = (
  state: CardTransactionState,
  events: ReadonlyArray<CardTransactionEvent>,
  legs: ReadonlyArray<CardLedgerLeg> = [],
  scheduled: ReadonlyArray<ScheduledCardMove> = [],
  cancel: ReadonlyArray<CardTimerMove> = []
): CardTransitioned => ({ state, events, legs, scheduled, cancel })

const describe = (move: CardTransactionMoveType): string => move.toLowerCase().replace(/_/g, " ")

/** A message the row's status does not take: INVALID_INPUT (the simulate endpoints document a bad request for a wrong parent). */
const wrongState = (state: CardTransactionState, move: CardTransactionMoveType, expected: string): Result<never, CardTransactionRejection> =>
  fail(reject(
    "INVALID_INPUT",
    `A ${state.direction} card transaction in status ${state.status} does not take a ${describe(move)}: it must be ${expected}`,
    { status: state.status, direction: state.direction, move }))

const amountError = (reason: string, details: Record<string, unknown>): Result<never, CardTransactionRejection> =>
  fail(reject("INVALID_AMOUNT", reason, details))

const bump = (t: Tally, amount: number): Tally => ({ count: t.count + 1, total: t.total + amount })

// ---------------------------------------------------------------- opening a row

/** What authorization decisioning concluded (`transactions-decisioning.ts`). */
export type AuthorizationDecision =
  | { readonly approved: false; readonly reason: CardDeclinedReason; readonly accountId?: string | undefined }
  | {
    readonly approved: true
    readonly accountId: string
    /**
     * The funding account covers the amount. Only a production platform approves an
     * uncovered authorization (SPEC.md: it resolves as EXCEPTION if still uncovered at
     * clearing); the sandbox declines it INSUFFICIENT_FUNDS.
     */
    readonly covered: boolean
    /** The pull: at once, PENDING about 30 s (suffix 005), or pulled with a FAILED confirmation (006). */
    readonly pull: "CONFIRMED" | "DELAYED" | "CONFIRMATION_FAILED"
  }

export interface OpenInput {
  readonly kind: OpeningKind
  readonly amount: number
  readonly currency: string
  readonly decision: AuthorizationDecision
  readonly now: number
}

export const directionOf = (kind: CardTransactionKind): CardTransactionDirection =>
  kind === "CREDIT_AUTHORIZATION" || kind === "FINANCIAL_CREDIT_AUTHORIZATION" || kind === "RETURN" ? "CREDIT" : "DEBIT"

const fresh = (kind: CardTransactionKind, status: CardTransactionStatus, currency: string, amount: number, now: number): CardTransactionState => ({
  kind,
  status,
  direction: directionOf(kind),
  currency,
  authorized: amount,
  held: 0,
  settled: 0,
  refunded: 0,
  released: 0,
  suspense: 0,
  pulls: NO_PULLS,
  settlements: ZERO,
  refunds: ZERO,
  authorizedAt: now,
  lastEventAt: now
})

/**
 * A new row from an authorization-family message and its decision. A balance inquiry
 * is opened with amount 0.
 */
export const open = (input: OpenInput): CardTransitioned => {
  const { kind, amount, currency, decision, now } = input
  if (!decision.approved) {
    return moved({ ...fresh(kind, "DECLINED", currency, amount, now), declinedReason: decision.reason }, ["CARD_TRANSACTION.DECLINED"])
  }
  const expiry: ScheduledCardMove = { at: now + AUTHORIZATION_EXPIRY_MS, move: "EXPIRE" }
  const confirmLater: ReadonlyArray<ScheduledCardMove> = decision.pull === "DELAYED" && amount > 0
    ? [{ at: now + DELAYED_PULL_MS, move: "PULL_CONFIRMED" }]
    : []
  const pending = confirmLater.length
  switch (kind) {
    case "AUTHORIZATION":
    case "BALANCE_INQUIRY": {
      const base = fresh(kind, "AUTHORIZED", currency, amount, now)
      if (amount === 0) return moved(base, ["CARD_TRANSACTION.AUTHORIZED"], [], [expiry])
      if (!decision.covered) {
        // Production only: approved without a hold; the clearing pulls what it can.
        return moved({ ...base, pulls: { count: 1, total: 0, pending: 0 } }, ["CARD_TRANSACTION.AUTHORIZED"], [], [expiry])
      }
      if (decision.pull === "CONFIRMATION_FAILED") {
        return moved(
          { ...base, status: "EXCEPTION", suspense: amount, pulls: { count: 1, total: amount, pending: 0 } },
          ["CARD_TRANSACTION.AUTHORIZED", "CARD_TRANSACTION.EXCEPTION"],
          leg("CARD_EXCEPTION", "FUNDING", "SUSPENSE", amount)
        )
      }
      return moved(
        { ...base, held: amount, pulls: { count: 1, total: amount, pending } },
        ["CARD_TRANSACTION.AUTHORIZED"],
        leg("CARD_HOLD", "FUNDING", "HOLD", amount),
        [expiry, ...confirmLater]
      )
    }
    case "FINANCIAL_AUTHORIZATION": {
      const base = fresh(kind, "SETTLED", currency, amount, now)
      if (!decision.covered) {
        // Production only: the network settled, the pull failed: fronted from suspense.
        return moved(
          { ...base, status: "EXCEPTION", settled: amount, suspense: -amount, settlements: bump(ZERO, amount), pulls: { count: 1, total: 0, pending: 0 } },
          ["CARD_TRANSACTION.EXCEPTION"],
          leg("CARD_EXCEPTION", "SUSPENSE", "NETWORK", amount)
        )
      }
      if (decision.pull === "CONFIRMATION_FAILED") {
        return moved(
          { ...base, status: "EXCEPTION", suspense: amount, pulls: { count: 1, total: amount, pending: 0 } },
          ["CARD_TRANSACTION.EXCEPTION"],
          leg("CARD_EXCEPTION", "FUNDING", "SUSPENSE", amount)
        )
      }
      return moved(
        { ...base, settled: amount, settlements: bump(ZERO, amount), pulls: { count: 1, total: amount, pending } },
        ["CARD_TRANSACTION.SETTLED"],
        leg("CARD_SETTLE", "FUNDING", "NETWORK", amount),
        confirmLater
      )
    }
    case "CREDIT_AUTHORIZATION":
      return moved(fresh(kind, "AUTHORIZED", currency, amount, now), ["CARD_TRANSACTION.AUTHORIZED"], [], [expiry])
    case "FINANCIAL_CREDIT_AUTHORIZATION":
      return moved(
        { ...fresh(kind, "SETTLED", currency, amount, now), settled: amount, settlements: bump(ZERO, amount) },
        ["CARD_TRANSACTION.SETTLED"],
        leg("CARD_CREDIT", "NETWORK", "FUNDING", amount)
      )
  }
}

/** A merchant return's own row: CREDIT, SETTLED, the credited value in `settled` (SPEC.md). */
export const openReturn = (currency: string, amount: number, now: number): CardTransitioned =>
  moved(
    { ...fresh("RETURN", "SETTLED", currency, amount, now), settled: amount, settlements: bump(ZERO, amount) },
    ["CARD_TRANSACTION.SETTLED"],
    leg("CARD_RETURN", "NETWORK", "FUNDING", amount)
  )

// ---------------------------------------------------------------- moves on a row

/** Closes an open authorization: the hold goes back; VOIDED if nothing settled, else SETTLED. */
const close = (state: CardTransactionState, now: number): CardTransitioned => {
  const status: CardTransactionStatus = state.settled > 0 ? "SETTLED" : "VOIDED"
  return moved(
    { ...state, status, held: 0, released: state.released + state.held, lastEventAt: now },
    [eventOf(status)],
    leg("CARD_RELEASE", "HOLD", "FUNDING", state.held),
    [],
    ["EXPIRE"]
  )
}

const clearDebit = (state: CardTransactionState, amount: number, fundingAvailable: number, delayedPull: boolean, now: number): CardTransitioned => {
  const fromHold = Math.min(state.held, amount)
  const extra = amount - fromHold
  const settled = state.settled + amount
  const base: CardTransactionState = {
    ...state,
    held: state.held - fromHold,
    settled,
    settlements: bump(state.settlements, amount),
    lastEventAt: now
  }
  const fromHoldLeg = leg("CARD_SETTLE", "HOLD", "NETWORK", fromHold)
  if (extra > fundingAvailable) {
    // The post-hoc pull cannot be covered: the network is paid from suspense, the rest of the hold goes back.
    return moved(
      {
        ...base,
        status: "EXCEPTION",
        held: 0,
        released: state.released + base.held,
        suspense: state.suspense - extra,
        pulls: { ...state.pulls, count: state.pulls.count + 1 }
      },
      ["CARD_TRANSACTION.EXCEPTION"],
      [...fromHoldLeg, ...leg("CARD_EXCEPTION", "SUSPENSE", "NETWORK", extra), ...leg("CARD_RELEASE", "HOLD", "FUNDING", base.held)],
      [],
      ["EXPIRE"]
    )
  }
  const pulled: CardTransactionState = extra > 0
    ? { ...base, pulls: { count: state.pulls.count + 1, total: state.pulls.total + extra, pending: state.pulls.pending + (delayedPull ? 1 : 0) } }
    : base
  const legs = [...fromHoldLeg, ...leg("CARD_PULL", "FUNDING", "NETWORK", extra)]
  const confirm: ReadonlyArray<ScheduledCardMove> = extra > 0 && delayedPull ? [{ at: now + DELAYED_PULL_MS, move: "PULL_CONFIRMED" }] : []
  if (settled >= state.authorized) {
    // Fully cleared (or over the authorization): whatever is still held goes back.
    return moved(
      { ...pulled, status: "SETTLED", held: 0, released: state.released + pulled.held },
      ["CARD_TRANSACTION.SETTLED"],
      [...legs, ...leg("CARD_RELEASE", "HOLD", "FUNDING", pulled.held)],
      confirm,
      ["EXPIRE"]
    )
  }
  return moved({ ...pulled, status: "PARTIALLY_SETTLED" }, ["CARD_TRANSACTION.PARTIALLY_SETTLED"], legs, confirm)
}

const clearCredit = (state: CardTransactionState, amount: number, now: number): CardTransitioned => {
  const settled = state.settled + amount
  const status: CardTransactionStatus = settled >= state.authorized ? "SETTLED" : "PARTIALLY_SETTLED"
  return moved(
    { ...state, status, settled, settlements: bump(state.settlements, amount), lastEventAt: now },
    [eventOf(status)],
    leg("CARD_CREDIT", "NETWORK", "FUNDING", amount),
    [],
    status === "SETTLED" ? ["EXPIRE"] : []
  )
}

const advise = (state: CardTransactionState, total: number, fundingAvailable: number, now: number): Result<CardTransitioned, CardTransactionRejection> => {
  if (total < state.settled) {
    return amountError(`The new total authorized (${total}) is below what already settled (${state.settled})`, {
      amount: total,
      settledAmount: state.settled
    })
  }
  const base: CardTransactionState = { ...state, authorized: total, lastEventAt: now }
  if (state.direction === "CREDIT") {
    if (total === state.settled) return ok(close(base, now))
    return ok(moved(base, [eventOf(state.status)]))
  }
  if (total > state.authorized) {
    const more = total - state.authorized
    // An advice is the network's word, never declined: an increase the account cannot
    // cover is not held, and the clearing pulls it post-hoc (EXCEPTION if still uncovered).
    if (more > fundingAvailable) return ok(moved(base, [eventOf(state.status)]))
    return ok(moved(
      { ...base, held: state.held + more, pulls: bump2(state.pulls, more) },
      [eventOf(state.status)],
      leg("CARD_HOLD", "FUNDING", "HOLD", more)
    ))
  }
  const release = Math.min(state.held, state.authorized - total)
  const resized: CardTransactionState = { ...base, held: state.held - release, released: state.released + release }
  const releaseLeg = leg("CARD_RELEASE", "HOLD", "FUNDING", release)
  if (total === state.settled) {
    const closed = close(resized, now)
    return ok({ ...closed, legs: [...releaseLeg, ...closed.legs] })
  }
  return ok(moved(resized, [eventOf(state.status)], releaseLeg))
}

const bump2 = (t: PullTally, amount: number): PullTally => ({ count: t.count + 1, total: t.total + amount, pending: t.pending })

/**
 * Applies one message or timer to a row. Refusals are 400s: INVALID_INPUT when the row's
 * status or direction does not take the message, INVALID_AMOUNT when the amount does
 * not fit (a return above the net settled amount, an advice below what settled).
 */
export const transition = (state: CardTransactionState, move: CardTransactionMove, now: number): Result<CardTransitioned, CardTransactionRejection> => {
  const isOpen = OPEN_STATUSES.has(state.status)
  switch (move.type) {
    case "ADVICE":
      if (!isOpen || state.kind === "RETURN") return wrongState(state, move.type, "AUTHORIZED or PARTIALLY_SETTLED")
      return advise(state, move.amount, move.fundingAvailable, now)

    case "CLEAR":
      if (!isOpen || state.kind === "RETURN") return wrongState(state, move.type, "AUTHORIZED or PARTIALLY_SETTLED")
      if (move.amount === 0) return ok(close(state, now))
      return ok(
        state.direction === "CREDIT"
          ? clearCredit(state, move.amount, now)
          : clearDebit(state, move.amount, move.fundingAvailable, move.delayedPull === true, now)
      )

    case "EXPIRE":
      if (!isOpen) return wrongState(state, move.type, "AUTHORIZED or PARTIALLY_SETTLED")
      return ok(close(state, now))

    case "PULL_CONFIRMED":
      if (state.pulls.pending === 0) {
        return fail(reject("INVALID_INPUT", "The card transaction has no pending pull", { status: state.status }))
      }
      return ok(moved({ ...state, pulls: { ...state.pulls, pending: 0 }, lastEventAt: now }, [eventOf(state.status)]))

    case "RETURN": {
      if (state.direction !== "DEBIT" || !(state.status === "SETTLED" || state.status === "PARTIALLY_SETTLED")) {
        return wrongState(state, move.type, "a DEBIT purchase with a settled clearing (SETTLED or PARTIALLY_SETTLED)")
      }
      const net = state.settled - state.refunded
      if (move.amount > net) {
        return amountError(`The return (${move.amount}) is above the net settled amount (${net}: settled minus already returned)`, {
          amount: move.amount,
          netSettledAmount: net
        })
      }
      return ok(moved(
        { ...state, refunded: state.refunded + move.amount, refunds: bump(state.refunds, move.amount), lastEventAt: now },
        [eventOf(state.status)]
      ))
    }

    case "RETURN_REVERSED":
      if (state.direction !== "DEBIT" || state.refunded < move.amount || move.amount <= 0) {
        return wrongState(state, move.type, "a purchase with a posted return (a non-zero refundedAmount)")
      }
      return ok(moved(
        { ...state, refunded: state.refunded - move.amount, refunds: { ...state.refunds, total: state.refunds.total - move.amount }, lastEventAt: now },
        [eventOf(state.status)]
      ))

    case "REVERSE_RETURN": {
      if (state.kind !== "RETURN" || state.status !== "SETTLED") {
        return wrongState(state, move.type, "a SETTLED merchant return's own row (direction CREDIT, with originalTransactionId)")
      }
      const amount = state.settled
      if (amount > move.fundingAvailable) {
        // The merchant takes the money back but the account no longer has it: fronted from suspense.
        return ok(moved(
          { ...state, status: "EXCEPTION", suspense: state.suspense - amount, lastEventAt: now },
          ["CARD_TRANSACTION.EXCEPTION"],
          leg("CARD_EXCEPTION", "SUSPENSE", "NETWORK", amount)
        ))
      }
      return ok(moved(
        { ...state, status: "VOIDED", lastEventAt: now },
        ["CARD_TRANSACTION.VOIDED"],
        leg("CARD_RETURN_REVERSAL", "FUNDING", "NETWORK", amount)
      ))
    }
  }
}

// ---------------------------------------------------------------- returns (two rows)

export interface TwoRows {
  /** The purchase. */
  readonly purchase: CardTransitioned
  /** The merchant return's own row. */
  readonly refund: CardTransitioned
}

/** A merchant return: the purchase keeps its status with a larger `refundedAmount`; the return opens its own row. */
export const merchantReturn = (purchase: CardTransactionState, amount: number, now: number): Result<TwoRows, CardTransactionRejection> => {
  const p = transition(purchase, { type: "RETURN", amount }, now)
  if (!p.ok) return p
  return ok({ purchase: p.value, refund: openReturn(purchase.currency, amount, now) })
}

/** A return reversal: the return's own row is VOIDED (EXCEPTION if uncovered), the purchase's `refundedAmount` goes down again. */
export const returnReversal = (
  refund: CardTransactionState,
  purchase: CardTransactionState,
  fundingAvailable: number,
  now: number
): Result<TwoRows, CardTransactionRejection> => {
  const r = transition(refund, { type: "REVERSE_RETURN", fundingAvailable }, now)
  if (!r.ok) return r
  const p = transition(purchase, { type: "RETURN_REVERSED", amount: refund.settled }, now)
  if (!p.ok) return p
  return ok({ purchase: p.value, refund: r.value })
}

// ---------------------------------------------------------------- checks for tests and auditors

/** The money of a debit row adds up: pulled = held + released + settled + suspense. */
export const debitMoneyAddsUp = (s: CardTransactionState): boolean =>
  s.direction !== "DEBIT" || s.pulls.total === s.held + s.released + s.settled + s.suspense

/** The net effect of legs on each role. */
export const netOfLegs = (legs: ReadonlyArray<CardLedgerLeg>): Readonly<Record<CardLedgerRole, number>> => {
  const net: Record<CardLedgerRole, number> = { FUNDING: 0, HOLD: 0, NETWORK: 0, SUSPENSE: 0 }
  for (const l of legs) {
    net[l.from] -= l.amount
    net[l.to] += l.amount
  }
  return net
}
