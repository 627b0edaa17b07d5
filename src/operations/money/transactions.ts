/**
 * Transactions: GET /transactions (filters and paging as the reference file has them),
 * GET /transactions/{id}, and the moves a platform makes on one: cancel, approve,
 * reject, confirm receipt delivery.
 */
import { Clock, Effect } from "effect"
import { DEFAULT_PAGE_LIMIT } from "../../domain/common.js"
import { type Error409, invalidInput } from "../../domain/errors.js"
import type { Platform } from "../../domain/platform.js"
import type { ApprovePaymentRequest, RejectPaymentRequest, Transaction, TransactionStatus, TransactionType } from "../../domain/transaction.js"
import type { Ids } from "../../ports/ids.js"
import { Store, type TransactionRecord, type UnitOfWork } from "../../ports/store.js"
import type { TransactionWithCard } from "../../domain/card-transaction.js"
import { cardIdOf, findCardTransaction, mergedPage } from "../card-transactions.js"
import { badCursor, pageOf } from "../paging.js"
import { isoOf } from "../time.js"
import { settleAgentActionOf } from "../agent-actions.js"
import { approveIncoming, rejectIncoming } from "./incoming-approval.js"
import { movePayment, outgoingOnly, runDueSteps, transactionOf } from "./payments.js"
import { holdUntilSettlement, settlementAt } from "../../rules/money/rails.js"

export interface TransactionListQuery {
  readonly limit?: number | undefined
  readonly cursor?: string | undefined
  readonly customerId?: string | undefined
  readonly platformCustomerId?: string | undefined
  readonly accountIdentifier?: string | undefined
  readonly senderAccountIdentifier?: string | undefined
  readonly receiverAccountIdentifier?: string | undefined
  readonly status?: TransactionStatus | undefined
  /** INCOMING, OUTGOING, or CARD (card transactions only). */
  readonly type?: TransactionType | "CARD" | undefined
  readonly reference?: string | undefined
  readonly startDate?: string | undefined
  readonly endDate?: string | undefined
  readonly sortOrder?: "asc" | "desc" | undefined
  /** A Card id or UUID: card transactions only. */
  readonly cardId?: string | undefined
}

const instant = (field: string, value: string | undefined) => {
  if (value === undefined) return Effect.succeed(undefined)
  const ms = Date.parse(value)
  return Number.isNaN(ms)
    ? Effect.fail(invalidInput(`${field} is not a date-time`, [{ field, constraint: "dateTime", message: "must be an ISO 8601 date-time" }]))
    : Effect.succeed(ms)
}

/** GET /transactions, newest first unless `sortOrder=asc`. */
export const listTransactions = Effect.fnUntraced(function*(platform: Platform, q: TransactionListQuery) {
  // SPEC.md: `status` applies to payment transactions only.
  if (q.type === "CARD" && q.status !== undefined) {
    return yield* invalidInput("status cannot be combined with type=CARD", [{
      field: "status",
      constraint: "cardStatus",
      message: "status filters payment transactions only; card transactions have their own states"
    }])
  }
  const from = yield* instant("startDate", q.startDate)
  const to = yield* instant("endDate", q.endDate)
  const store = yield* Store
  const created = from === undefined && to === undefined ? undefined : { from, to }
  const limit = q.limit ?? DEFAULT_PAGE_LIMIT
  const descending = q.sortOrder !== "asc"
  const payments = (cursor: string | undefined, n: number) =>
    Effect.map(pageOf(store.transactions.list(platform.id, {
      customerId: q.customerId,
      platformCustomerId: q.platformCustomerId,
      accountIdentifier: q.accountIdentifier,
      senderAccountIdentifier: q.senderAccountIdentifier,
      receiverAccountIdentifier: q.receiverAccountIdentifier,
      status: q.status,
      type: q.type === "CARD" ? undefined : q.type,
      reference: q.reference,
      created
    }, { limit: n, cursor, descending })), (page) => ({ ...page, data: page.data.map((r): TransactionWithCard => r.transaction) }))
  // Card rows (type: CARD): their funding account is the sender of a DEBIT, the receiver of a CREDIT.
  const cards = (cursor: string | undefined, n: number) =>
    Effect.map(pageOf(store.cardTransactions.list(platform.id, {
      cardId: q.cardId === undefined ? undefined : cardIdOf(q.cardId),
      customerId: q.customerId,
      platformCustomerId: q.platformCustomerId,
      accountId: q.accountIdentifier ?? q.senderAccountIdentifier ?? q.receiverAccountIdentifier,
      direction: q.senderAccountIdentifier !== undefined ? "DEBIT" : q.receiverAccountIdentifier !== undefined ? "CREDIT" : undefined,
      created
    }, { limit: n, cursor, descending })), (page) => ({ ...page, data: page.data.map((r): TransactionWithCard => r.transaction) }))
  // `status`, `reference` and a type other than CARD are about payments only; a card row
  // has one account, so account filters naming different accounts (or both a sender and
  // a receiver) match none.
  const paymentsOnly = q.status !== undefined || q.reference !== undefined || q.type === "INCOMING" || q.type === "OUTGOING"
  const accounts = [q.accountIdentifier, q.senderAccountIdentifier, q.receiverAccountIdentifier].filter((a) => a !== undefined)
  const noCardMatches = paymentsOnly || new Set(accounts).size > 1 ||
    (q.senderAccountIdentifier !== undefined && q.receiverAccountIdentifier !== undefined)
  if (q.type === "CARD" || q.cardId !== undefined) {
    return noCardMatches ? { data: [] as Array<TransactionWithCard>, hasMore: false, totalCount: 0 } : yield* cards(q.cursor, limit)
  }
  if (noCardMatches) return yield* payments(q.cursor, limit)
  return yield* mergedPage({ payments, cards, limit, cursor: q.cursor, descending, invalid: badCursor })
})

/** GET /transactions/{id}: a payment or a card row. */
export const getTransaction = Effect.fnUntraced(function*(platform: Platform, id: string) {
  const card: TransactionWithCard | undefined = yield* findCardTransaction(platform, id)
  if (card !== undefined) return card
  const payment: TransactionWithCard = (yield* transactionOf(platform, id)).transaction
  return payment
})

/** Approve or reject of an incoming payment (operations/money/incoming-approval.ts), at `nowMs`. */
type IncomingDecision = (uow: UnitOfWork, rec: TransactionRecord, nowMs: number) => Effect.Effect<Transaction, Error409, Store | Ids>

/**
 * Approves or rejects an outgoing payment held for the platform's approval (an agent's
 * payment its policy sent for approval; docs/agents.md), inside `uow`: 409
 * TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL unless it is held. An approved payment takes
 * its sandbox steps from the approval on (they keep their spacing); a rejected one is
 * FAILED and refunded. The agent action that made it follows.
 */
export const decideHeldPayment = Effect.fnUntraced(function*(
  uow: UnitOfWork,
  platform: Platform,
  rec: TransactionRecord,
  decision: "APPROVE" | "REJECT",
  reason?: string
) {
  const nowMs = yield* Clock.currentTimeMillis
  // Approved: the rail settles as seen from now (ACH approved on a Saturday: Monday's
  // start), so the payment reports that expectedSettlementAt and completes then.
  const settlement = decision === "APPROVE" ? approvedSettlementAt(platform, rec.transaction, nowMs) : undefined
  const approving = settlement === undefined
    ? rec
    : { ...rec, transaction: { ...rec.transaction, expectedSettlementAt: isoOf(Math.max(settlement, nowMs)) } }
  const moved = yield* movePayment(uow, platform, approving, { type: decision })
  let next: TransactionRecord
  if (decision === "APPROVE") {
    // Its steps start from the approval (they keep their spacing), held until the settlement.
    const held = Math.max(0, nowMs - Date.parse(rec.transaction.createdAt))
    const steps = holdUntilSettlement(moved.plan.steps.map((s) => ({ ...s, at: s.at + held })), settlement)
    next = yield* runDueSteps(uow, platform, { ...moved, plan: { ...moved.plan, steps } })
  } else {
    yield* uow.cancelTimers(platform.id, rec.transaction.id)
    next = { ...moved, plan: { ...moved.plan, steps: [] } }
    yield* uow.putTransaction(next)
  }
  yield* settleAgentActionOf(uow, platform, next.transaction, decision === "APPROVE" ? "APPROVED" : "REJECTED", reason)
  return next
})

/** When an outgoing payment approved at `nowMs` settles (epoch ms), if its rail reports one. */
const approvedSettlementAt = (platform: Platform, transaction: Transaction, nowMs: number): number | undefined =>
  transaction.type !== "OUTGOING" || transaction.paymentRail == null || transaction.expectedSettlementAt == null
    ? undefined
    : settlementAt(transaction.paymentRail, nowMs, platform.settings.sandbox)

const moveOne = (platform: Platform, id: string, move: Parameters<typeof movePayment>[3], incoming?: IncomingDecision, reason?: string) =>
  Effect.flatMap(Effect.service(Store), (store) =>
    store.transact((uow) =>
      Effect.gen(function*() {
        const found = yield* transactionOf(platform, id)
        if (incoming !== undefined && found.transaction.type === "INCOMING") return yield* incoming(uow, found, yield* Clock.currentTimeMillis)
        const rec = yield* outgoingOnly(found)
        if (move.type === "APPROVE" || move.type === "REJECT") return (yield* decideHeldPayment(uow, platform, rec, move.type, reason)).transaction
        const next = yield* movePayment(uow, platform, rec, move)
        // Whatever was still scheduled for it no longer applies once it has ended.
        if (next.transaction.status === "FAILED" || next.transaction.status === "EXPIRED") {
          yield* uow.cancelTimers(platform.id, id)
          yield* uow.putTransaction({ ...next, plan: { ...next.plan, steps: [] } })
          // A held agent payment cancelled before the platform decided: its action failed.
          yield* settleAgentActionOf(uow, platform, next.transaction, "FAILED")
        }
        return next.transaction
        // The accounts are the payment's, read inside: they take their turns only should it lose a race.
      }), { movesMoneyOf: platform.id }))

/** POST /transactions/{id}/cancel: 409 TRANSACTION_NOT_CANCELLABLE once settled or ended. */
export const cancelTransaction = (platform: Platform, id: string) => moveOne(platform, id, { type: "CANCEL" })

/**
 * POST /transactions/{id}/approve: an incoming payment waiting for the platform's
 * decision is credited (answering the IncomingTransaction; `receiverCustomerInfo` is
 * kept with it), an outgoing one held for approval proceeds; any other is 409
 * TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL.
 */
export const approveTransaction = (platform: Platform, id: string, request?: ApprovePaymentRequest) =>
  moveOne(platform, id, { type: "APPROVE" }, (uow, rec, nowMs) => approveIncoming(uow, platform, rec, nowMs, request?.receiverCustomerInfo))

/** POST /transactions/{id}/reject: as approve; a rejected incoming payment is FAILED and the sender refunded (`reason` kept with it). */
export const rejectTransaction = (platform: Platform, id: string, request?: RejectPaymentRequest) =>
  moveOne(platform, id, { type: "REJECT" }, (uow, rec, nowMs) => rejectIncoming(uow, platform, rec, nowMs, request?.reason), request?.reason)

/** POST /transactions/{id}/confirm: records when the platform delivered the receipt. */
export const confirmReceiptDelivery = Effect.fnUntraced(function*(platform: Platform, id: string, at: string | undefined) {
  const store = yield* Store
  const ms = yield* instant("receiptDeliveryConfirmedAt", at)
  return yield* store.transact((uow) =>
    Effect.gen(function*() {
      const rec = yield* transactionOf(platform, id)
      const now = isoOf(yield* Clock.currentTimeMillis)
      const transaction = { ...rec.transaction, receiptDeliveryConfirmedAt: ms === undefined ? now : isoOf(ms), updatedAt: now }
      yield* uow.putTransaction({ ...rec, transaction })
      return transaction
    })
  )
})
