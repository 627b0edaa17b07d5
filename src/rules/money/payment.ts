/**
 * The outgoing payment (transaction) state machine. Pure: `transition(state, move, now)`
 * returns the next state, the webhook events to emit and the ledger intents to apply,
 * or the rejection a refused move meets. It never runs anything.
 *
 * Money: when a quote is executed the caller debits the source internal account into an
 * in-flight account (move PROCESS says that happened). From there exactly one of three
 * things happens to the money, each a ledger intent the caller applies in the same unit
 * of work as the new state:
 *   SETTLE  in-flight -> outside world       (the payout completed)
 *   REFUND  in-flight -> source account      (the payment failed and the refund landed)
 *   PARK    in-flight -> suspense            (the payment failed and so did the refund)
 * and, only after SETTLE, a returned payout brings the money back:
 *   RETURN  outside world -> source account
 * `state.funds` says where the debited money is, so an auditor can check that every
 * debit has its settlement or its refund.
 *
 * Statuses are the reference `TransactionStatus` values; this machine only ever lands
 * in those an outgoing transaction may show (PENDING, PENDING_AUTHORIZATION, PROCESSING,
 * COMPLETED, FAILED, EXPIRED). A failed payment stays FAILED and its `refund` object
 * tells what became of the money.
 */
import { type WebhookType, WebhookTypes } from "../../domain/events.js"
import { OutgoingTransactionFailureReason, TransactionStatus as TransactionStatusSchema } from "../../domain/transaction.js"
import { reject, type Rejection } from "../rejection.js"
import { fail, type Moved, ok, type Result } from "../result.js"

export const TRANSACTION_STATUSES = TransactionStatusSchema.literals
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number]

/**
 * The failure reasons this service produces: the domain's `OutgoingTransactionFailureReason`
 * (the reference's without the deprecated LIGHTNING_PAYMENT_FAILED and
 * COUNTERPARTY_POST_TX_FAILED, and none of the removed EXECUTION_FAILED_POST_DEBIT,
 * SETTLEMENT_FAILED, TIMEOUT, MANUAL_REFUND).
 */
export const OUTGOING_FAILURE_REASONS = OutgoingTransactionFailureReason.literals
export type OutgoingFailureReason = (typeof OUTGOING_FAILURE_REASONS)[number]

export type RefundStatus = "PENDING" | "COMPLETED" | "FAILED"
export type RefundReason = "TRANSACTION_FAILED" | "USER_CANCELLATION" | "TIMEOUT"

export interface PaymentRefund {
  readonly status: RefundStatus
  readonly reason: RefundReason
  readonly initiatedAt: number
  readonly settledAt?: number
}

/** Where the money debited at execution is. */
export type Funds = "NONE" | "IN_FLIGHT" | "SETTLED" | "REFUNDED" | "PARKED" | "RETURNED"

export interface PaymentState {
  readonly status: TransactionStatus
  readonly funds: Funds
  /** Executed and debited, held PENDING until the platform approves (agent-initiated payments). */
  readonly awaitingPlatformApproval: boolean
  readonly failureReason?: OutgoingFailureReason
  readonly refund?: PaymentRefund
  /** When the payout completed (epoch ms, platform clock). */
  readonly settledAt?: number
}

export type PaymentMove =
  | { readonly type: "AUTHORIZE" }
  | { readonly type: "PROCESS"; readonly awaitingPlatformApproval?: boolean }
  | { readonly type: "APPROVE" }
  | { readonly type: "REJECT" }
  | { readonly type: "COMPLETE" }
  | { readonly type: "FAIL"; readonly failureReason: OutgoingFailureReason }
  | { readonly type: "RETURN" }
  | { readonly type: "REFUND_COMPLETE" }
  | { readonly type: "REFUND_FAIL" }
  | { readonly type: "CANCEL" }
  | { readonly type: "EXPIRE" }
export type PaymentMoveType = PaymentMove["type"]

export const PAYMENT_MOVE_TYPES: ReadonlyArray<PaymentMoveType> = [
  "AUTHORIZE",
  "PROCESS",
  "APPROVE",
  "REJECT",
  "COMPLETE",
  "FAIL",
  "RETURN",
  "REFUND_COMPLETE",
  "REFUND_FAIL",
  "CANCEL",
  "EXPIRE"
]

/** The OUTGOING_PAYMENT.* webhooks this machine announces: every one but PENDING_AUTHORIZATION (the SCA flow's, at quote execution). */
export type OutgoingPaymentEvent = Exclude<Extract<WebhookType, `OUTGOING_PAYMENT.${string}`>, "OUTGOING_PAYMENT.PENDING_AUTHORIZATION">
export const OUTGOING_PAYMENT_EVENTS: ReadonlyArray<OutgoingPaymentEvent> = WebhookTypes.filter((t): t is OutgoingPaymentEvent =>
  t.startsWith("OUTGOING_PAYMENT.") && t !== "OUTGOING_PAYMENT.PENDING_AUTHORIZATION"
)

export type LedgerIntent = "SETTLE" | "REFUND" | "PARK" | "RETURN"

/** The next state, its webhook events (nothing is scheduled: timers are the caller's) and the ledger intents to apply. */
export type PaymentTransitioned = Moved<PaymentState, OutgoingPaymentEvent, never, { readonly ledger: ReadonlyArray<LedgerIntent> }>

export type PaymentRejectionCode = "CONFLICT" | "TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL" | "TRANSACTION_NOT_CANCELLABLE"
export type PaymentResult = Result<PaymentTransitioned, Rejection<PaymentRejectionCode>>

/** A new transaction: PENDING once its quote exists (PENDING_AUTHORIZATION under SCA, CREATED for a bare lookup). */
export const newPayment = (status: "CREATED" | "PENDING" | "PENDING_AUTHORIZATION" = "PENDING"): PaymentState => ({
  status,
  funds: "NONE",
  awaitingPlatformApproval: false
})

/** Statuses from which nothing but the moves listed in the table can leave. */
export const TERMINAL_STATUSES: ReadonlySet<TransactionStatus> = new Set(["COMPLETED", "FAILED", "EXPIRED", "REJECTED", "REFUNDED"])

const NOT_EXECUTED: ReadonlySet<TransactionStatus> = new Set(["CREATED", "PENDING", "PENDING_AUTHORIZATION"])

const describeMove = (move: PaymentMoveType): string => move.toLowerCase().replace(/_/g, " ")

const refuse = (code: PaymentRejectionCode, state: PaymentState, move: PaymentMoveType, reason?: string) =>
  fail(reject(code, reason ?? `A transaction in status ${state.status} does not accept: ${describeMove(move)}`, { status: state.status, move }))

const moved = (
  state: PaymentState,
  events: ReadonlyArray<OutgoingPaymentEvent> = [],
  ledger: ReadonlyArray<LedgerIntent> = []
): PaymentResult => ok({ state, events, scheduled: [], ledger })

/** The payment fails; money in flight waits for its refund (REFUND_COMPLETE or REFUND_FAIL). */
const failed = (
  state: PaymentState,
  failureReason: OutgoingFailureReason,
  now: number
): PaymentResult => {
  const base: PaymentState = { status: "FAILED", funds: state.funds, awaitingPlatformApproval: false, failureReason }
  if (state.funds !== "IN_FLIGHT") return moved(base, ["OUTGOING_PAYMENT.FAILED"])
  return moved(
    { ...base, refund: { status: "PENDING", reason: "TRANSACTION_FAILED", initiatedAt: now } },
    ["OUTGOING_PAYMENT.FAILED", "OUTGOING_PAYMENT.REFUND_PENDING"]
  )
}

/** The payment ends and money in flight goes back to the source at once (an internal move that cannot fail). */
const endedWithImmediateRefund = (
  state: PaymentState,
  status: "FAILED" | "EXPIRED",
  event: OutgoingPaymentEvent,
  reason: RefundReason,
  failureReason: OutgoingFailureReason | undefined,
  now: number
): PaymentResult => {
  const base: PaymentState = {
    status,
    funds: state.funds === "IN_FLIGHT" ? "REFUNDED" : state.funds,
    awaitingPlatformApproval: false,
    ...(failureReason === undefined ? {} : { failureReason })
  }
  if (state.funds !== "IN_FLIGHT") return moved(base, [event])
  return moved(
    { ...base, refund: { status: "COMPLETED", reason, initiatedAt: now, settledAt: now } },
    [event, "OUTGOING_PAYMENT.REFUND_COMPLETED"],
    ["REFUND"]
  )
}

/**
 * Applies one move. Refusals: 409 TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL (APPROVE or
 * REJECT of a payment not awaiting approval), 409 TRANSACTION_NOT_CANCELLABLE (CANCEL
 * after settlement or after the payment ended), 409 CONFLICT for any other move the
 * status does not accept.
 */
export const transition = (state: PaymentState, move: PaymentMove, nowMillis: number): PaymentResult => {
  const { status } = state
  switch (move.type) {
    case "AUTHORIZE":
      if (status !== "PENDING_AUTHORIZATION") return refuse("CONFLICT", state, move.type)
      return moved({ ...state, status: "PENDING" }, ["OUTGOING_PAYMENT.PENDING"])

    case "PROCESS":
      if (!(status === "CREATED" || status === "PENDING") || state.funds !== "NONE") return refuse("CONFLICT", state, move.type)
      if (move.awaitingPlatformApproval === true) {
        return moved({ ...state, status: "PENDING", funds: "IN_FLIGHT", awaitingPlatformApproval: true }, ["OUTGOING_PAYMENT.PENDING"])
      }
      return moved({ ...state, status: "PROCESSING", funds: "IN_FLIGHT" }, ["OUTGOING_PAYMENT.PROCESSING"])

    case "APPROVE":
      if (status !== "PENDING" || !state.awaitingPlatformApproval) {
        return refuse("TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL", state, move.type, "The transaction is not pending platform approval")
      }
      return moved({ ...state, status: "PROCESSING", awaitingPlatformApproval: false }, ["OUTGOING_PAYMENT.PROCESSING"])

    case "REJECT":
      if (status !== "PENDING" || !state.awaitingPlatformApproval) {
        return refuse("TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL", state, move.type, "The transaction is not pending platform approval")
      }
      return endedWithImmediateRefund(state, "FAILED", "OUTGOING_PAYMENT.FAILED", "TRANSACTION_FAILED", "QUOTE_EXECUTION_FAILED", nowMillis)

    case "COMPLETE":
      if (status !== "PROCESSING" || state.funds !== "IN_FLIGHT") return refuse("CONFLICT", state, move.type)
      return moved({ ...state, status: "COMPLETED", funds: "SETTLED", settledAt: nowMillis }, ["OUTGOING_PAYMENT.COMPLETED"], ["SETTLE"])

    case "FAIL":
      if (!(NOT_EXECUTED.has(status) || status === "PROCESSING")) return refuse("CONFLICT", state, move.type)
      return failed(state, move.failureReason, nowMillis)

    case "RETURN":
      if (status !== "COMPLETED" || state.funds !== "SETTLED") return refuse("CONFLICT", state, move.type)
      return moved(
        {
          ...state,
          status: "FAILED",
          funds: "RETURNED",
          failureReason: "PAYOUT_RETURNED",
          refund: { status: "COMPLETED", reason: "TRANSACTION_FAILED", initiatedAt: nowMillis, settledAt: nowMillis }
        },
        ["OUTGOING_PAYMENT.FAILED", "OUTGOING_PAYMENT.REFUND_COMPLETED"],
        ["RETURN"]
      )

    case "REFUND_COMPLETE":
    case "REFUND_FAIL": {
      const refund = state.refund
      if (refund === undefined || refund.status !== "PENDING" || state.funds !== "IN_FLIGHT") return refuse("CONFLICT", state, move.type)
      return move.type === "REFUND_COMPLETE"
        ? moved(
          { ...state, funds: "REFUNDED", refund: { ...refund, status: "COMPLETED", settledAt: nowMillis } },
          ["OUTGOING_PAYMENT.REFUND_COMPLETED"],
          ["REFUND"]
        )
        : moved({ ...state, funds: "PARKED", refund: { ...refund, status: "FAILED" } }, ["OUTGOING_PAYMENT.REFUND_FAILED"], ["PARK"])
    }

    case "CANCEL":
      if (!(NOT_EXECUTED.has(status) || status === "PROCESSING") || !(state.funds === "NONE" || state.funds === "IN_FLIGHT")) {
        return refuse("TRANSACTION_NOT_CANCELLABLE", state, move.type, "The transaction is already settled or past cancellation")
      }
      return endedWithImmediateRefund(state, "FAILED", "OUTGOING_PAYMENT.FAILED", "USER_CANCELLATION", "QUOTE_EXECUTION_FAILED", nowMillis)

    case "EXPIRE":
      if (!NOT_EXECUTED.has(status)) return refuse("CONFLICT", state, move.type)
      return endedWithImmediateRefund(state, "EXPIRED", "OUTGOING_PAYMENT.EXPIRED", "TIMEOUT", undefined, nowMillis)
  }
}

/** Whether a payment can still change (a COMPLETED one can, once, by a RETURN). */
export const isFinal = (state: PaymentState): boolean =>
  state.status !== "COMPLETED" && TERMINAL_STATUSES.has(state.status) && state.refund?.status !== "PENDING"

/** Applies moves in order, stopping at the first refusal; for tests and sandbox schedules. */
export const applyMoves = (
  state: PaymentState,
  moves: ReadonlyArray<{ readonly at: number; readonly move: PaymentMove }>
): PaymentResult => {
  let current = state
  const events: Array<OutgoingPaymentEvent> = []
  const ledger: Array<LedgerIntent> = []
  for (const { at, move } of moves) {
    const r = transition(current, move, at)
    if (!r.ok) return r
    current = r.value.state
    events.push(...r.value.events)
    ledger.push(...r.value.ledger)
  }
  return ok({ state: current, events, scheduled: [], ledger })
}
