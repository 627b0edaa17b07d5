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
import { pageOf } from "../paging.js"
import { isoOf } from "../time.js"
import { approveIncoming, rejectIncoming } from "./incoming-approval.js"
import { movePayment, outgoingOnly, transactionOf } from "./payments.js"

export interface TransactionListQuery {
  readonly limit?: number | undefined
  readonly cursor?: string | undefined
  readonly customerId?: string | undefined
  readonly platformCustomerId?: string | undefined
  readonly accountIdentifier?: string | undefined
  readonly senderAccountIdentifier?: string | undefined
  readonly receiverAccountIdentifier?: string | undefined
  readonly status?: TransactionStatus | undefined
  /** INCOMING, OUTGOING, or CARD (card transactions: none yet). */
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
  // Cards are not built yet: a card filter matches no transaction.
  if (q.type === "CARD" || q.cardId !== undefined) {
    return { data: [] as Array<Transaction>, hasMore: false, totalCount: 0 }
  }
  const store = yield* Store
  const page = yield* pageOf(store.transactions.list(platform.id, {
    customerId: q.customerId,
    platformCustomerId: q.platformCustomerId,
    accountIdentifier: q.accountIdentifier,
    senderAccountIdentifier: q.senderAccountIdentifier,
    receiverAccountIdentifier: q.receiverAccountIdentifier,
    status: q.status,
    type: q.type,
    reference: q.reference,
    created: from === undefined && to === undefined ? undefined : { from, to }
  }, { limit: q.limit ?? DEFAULT_PAGE_LIMIT, cursor: q.cursor, descending: q.sortOrder !== "asc" }))
  return { ...page, data: page.data.map((r) => r.transaction) }
})

export const getTransaction = Effect.fnUntraced(function*(platform: Platform, id: string) {
  return (yield* transactionOf(platform, id)).transaction
})

/** Approve or reject of an incoming payment (operations/money/incoming-approval.ts), at `nowMs`. */
type IncomingDecision = (uow: UnitOfWork, rec: TransactionRecord, nowMs: number) => Effect.Effect<Transaction, Error409, Store | Ids>

const moveOne = (platform: Platform, id: string, move: Parameters<typeof movePayment>[3], incoming?: IncomingDecision) =>
  Effect.flatMap(Effect.service(Store), (store) =>
    store.transact((uow) =>
      Effect.gen(function*() {
        const found = yield* transactionOf(platform, id)
        if (incoming !== undefined && found.transaction.type === "INCOMING") return yield* incoming(uow, found, yield* Clock.currentTimeMillis)
        const rec = yield* outgoingOnly(found)
        const next = yield* movePayment(uow, platform, rec, move)
        // Whatever was still scheduled for it no longer applies once it has ended.
        if (next.transaction.status === "FAILED" || next.transaction.status === "EXPIRED") {
          yield* uow.cancelTimers(platform.id, id)
          yield* uow.putTransaction({ ...next, plan: { ...next.plan, steps: [] } })
        }
        return next.transaction
      })
    ))

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
  moveOne(platform, id, { type: "REJECT" }, (uow, rec, nowMs) => rejectIncoming(uow, platform, rec, nowMs, request?.reason))

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
