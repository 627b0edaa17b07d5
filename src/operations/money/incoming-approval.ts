/**
 * The platform's decision on an incoming payment on an approval-mechanism rail (UMA),
 * made while a webhook endpoint is configured (docs/webhooks.md#approving-incoming-payments):
 *
 * - the answer to its `INCOMING_PAYMENT.PENDING` webhook, recorded by the delivery
 *   worker in the unit of work that records the attempt (`answerIncomingPending`);
 * - POST /transactions/{id}/approve or /reject (`approveIncoming`, `rejectIncoming`);
 * - the deadline after a 202 (5 s) or a 422 (24 h): rejected automatically
 *   (`applyIncomingApprovalTimer`, a scheduled move on the platform's clock).
 *
 * The money is credited only on approval; a rejection refunds the sender (nothing was
 * credited, so the ledger does not move).
 */
import { Effect } from "effect"
import { conflict } from "../../domain/errors.js"
import type { Platform } from "../../domain/platform.js"
import type { IncomingApprovalRecord, IncomingTransaction, IncomingTransactionFailureReason } from "../../domain/transaction.js"
import { Store, type TimerRecord, type TransactionRecord, type UnitOfWork } from "../../ports/store.js"
import type { WebhookResponse } from "../../ports/webhooks.js"
import {
  APPROVAL_WINDOW_MILLIS,
  approvalAnswerOf,
  INFORMATION_WINDOW_MILLIS
} from "../../rules/money/incoming-approval.js"
import { isoOf } from "../time.js"
import { schedule } from "../transition.js"
import { failIncoming, releaseIncoming } from "./sandbox.js"

export const INCOMING_APPROVAL_TIMER = "incoming-approval"

type IncomingRecord = TransactionRecord & { readonly transaction: IncomingTransaction }

const AWAITING: ReadonlySet<IncomingApprovalRecord["stage"]> = new Set(["WEBHOOK", "DEFERRED", "INFORMATION_REQUIRED"])

/** The incoming payment when it is waiting for the platform's decision. */
const awaitingOf = (rec: TransactionRecord | undefined): IncomingRecord | undefined => {
  if (rec === undefined || rec.transaction.type !== "INCOMING" || rec.transaction.status !== "PENDING") return undefined
  const stage = rec.plan.incomingApproval?.stage
  return stage !== undefined && AWAITING.has(stage) ? { ...rec, transaction: rec.transaction } : undefined
}

const decided = (rec: IncomingRecord, approval: IncomingApprovalRecord): IncomingRecord => ({
  ...rec,
  plan: { ...rec.plan, incomingApproval: approval }
})

const approve = Effect.fnUntraced(function*(
  uow: UnitOfWork,
  platform: Platform,
  rec: IncomingRecord,
  nowMs: number,
  how: { readonly decidedBy: "WEBHOOK" | "CALL" | "DEFAULT"; readonly receiverCustomerInfo?: Readonly<Record<string, unknown>> | undefined }
) {
  yield* uow.cancelTimers(platform.id, rec.transaction.id, INCOMING_APPROVAL_TIMER)
  const { pendingReason: _asked, ...t } = rec.transaction
  const approval: IncomingApprovalRecord = {
    stage: "APPROVED",
    decidedBy: how.decidedBy,
    ...(how.receiverCustomerInfo === undefined ? {} : { receiverCustomerInfo: how.receiverCustomerInfo })
  }
  return yield* releaseIncoming(uow, platform, decided({ ...rec, transaction: t }, approval), nowMs)
})

const reject = Effect.fnUntraced(function*(
  uow: UnitOfWork,
  platform: Platform,
  rec: IncomingRecord,
  nowMs: number,
  how: { readonly decidedBy: "WEBHOOK" | "CALL" | "DEADLINE"; readonly reason?: string | undefined; readonly failureReason: IncomingTransactionFailureReason }
) {
  yield* uow.cancelTimers(platform.id, rec.transaction.id, INCOMING_APPROVAL_TIMER)
  const approval: IncomingApprovalRecord = {
    ...rec.plan.incomingApproval,
    stage: "REJECTED",
    decidedBy: how.decidedBy,
    deadline: undefined,
    ...(how.reason === undefined ? {} : { reason: how.reason })
  }
  if (how.reason !== undefined) yield* Effect.logDebug(`Incoming payment ${rec.transaction.id} rejected by the platform: ${how.reason}`)
  return yield* failIncoming(uow, platform, decided(rec, approval), how.failureReason, nowMs)
})

/** Waits for approve or reject until `deadline`, then is rejected (a scheduled move). */
const waitForCall = Effect.fnUntraced(function*(
  uow: UnitOfWork,
  platform: Platform,
  rec: IncomingRecord,
  nowMs: number,
  approval: IncomingApprovalRecord & { readonly deadline: number },
  transaction: IncomingTransaction
) {
  yield* uow.putTransaction({ ...decided(rec, approval), transaction })
  yield* schedule(uow, platform, INCOMING_APPROVAL_TIMER, rec.transaction.id, { at: approval.deadline, event: "TIMEOUT" })
  return transaction
})

/**
 * What the receiver of an `INCOMING_PAYMENT.PENDING` webhook answered, applied in the
 * unit of work that records the attempt (at `atMs`, the attempt's time on the platform's
 * clock). Only a payment still waiting for the webhook's answer moves: a bank-rail
 * payment's webhook, a redelivery, or an answer after an approve / reject call is
 * informational. `deliveryStatus`: the delivery after this attempt; a delivery that
 * gives up (FAILED) without a decision approves (the platform did not refuse).
 */
export const answerIncomingPending = Effect.fnUntraced(function*(
  uow: UnitOfWork,
  platform: Platform,
  transactionId: string,
  atMs: number,
  response: WebhookResponse | undefined,
  deliveryStatus: "PENDING" | "DELIVERED" | "FAILED"
) {
  const store = yield* Store
  const rec = awaitingOf(yield* store.transactions.get(platform.id, transactionId))
  if (rec === undefined || rec.plan.incomingApproval?.stage !== "WEBHOOK") return
  const answer = response?._tag === "Answered" ? approvalAnswerOf(response.status, response.body) : { kind: "NONE" as const }
  const now = isoOf(atMs)
  switch (answer.kind) {
    case "APPROVE":
      yield* approve(uow, platform, rec, atMs, { decidedBy: "WEBHOOK", receiverCustomerInfo: answer.receiverCustomerInfo })
      return
    case "REJECT":
      yield* reject(uow, platform, rec, atMs, { decidedBy: "WEBHOOK", reason: answer.reason, failureReason: "COMPLIANCE_REJECTED" })
      return
    case "DEFER":
      yield* waitForCall(uow, platform, rec, atMs, { stage: "DEFERRED", deadline: atMs + APPROVAL_WINDOW_MILLIS }, { ...rec.transaction, updatedAt: now })
      return
    case "INFORMATION_REQUIRED":
      yield* waitForCall(
        uow,
        platform,
        rec,
        atMs,
        { stage: "INFORMATION_REQUIRED", deadline: atMs + INFORMATION_WINDOW_MILLIS, requiredFields: answer.requiredFields },
        { ...rec.transaction, pendingReason: "COUNTERPARTY_INFORMATION_REQUIRED", updatedAt: now }
      )
      return
    case "NONE":
      if (deliveryStatus === "FAILED") yield* approve(uow, platform, rec, atMs, { decidedBy: "DEFAULT" })
      return
  }
})

const notAwaiting = (id: string) =>
  conflict("TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL", `Transaction ${id} is not a payment pending the platform's approval`)

/** POST /transactions/{id}/approve of an incoming payment waiting for the platform; else 409. */
export const approveIncoming = Effect.fnUntraced(function*(
  uow: UnitOfWork,
  platform: Platform,
  rec: TransactionRecord,
  nowMs: number,
  receiverCustomerInfo: Readonly<Record<string, unknown>> | undefined
) {
  const awaiting = awaitingOf(rec)
  if (awaiting === undefined) return yield* notAwaiting(rec.transaction.id)
  return yield* approve(uow, platform, awaiting, nowMs, { decidedBy: "CALL", receiverCustomerInfo })
})

/** POST /transactions/{id}/reject of an incoming payment waiting for the platform; else 409. */
export const rejectIncoming = Effect.fnUntraced(function*(
  uow: UnitOfWork,
  platform: Platform,
  rec: TransactionRecord,
  nowMs: number,
  reason: string | undefined
) {
  const awaiting = awaitingOf(rec)
  if (awaiting === undefined) return yield* notAwaiting(rec.transaction.id)
  return yield* reject(uow, platform, awaiting, nowMs, { decidedBy: "CALL", reason, failureReason: "COMPLIANCE_REJECTED" })
})

/** The scheduler's handler: the platform did not decide in time (after a 202 or a 422): rejected, PAYMENT_APPROVAL_TIMED_OUT. */
export const applyIncomingApprovalTimer = (uow: UnitOfWork, platform: Platform, timer: TimerRecord) =>
  Effect.gen(function*() {
    const store = yield* Store
    const rec = awaitingOf(yield* store.transactions.get(platform.id, timer.subjectId))
    if (rec === undefined || rec.plan.incomingApproval?.deadline === undefined || rec.plan.incomingApproval.deadline > timer.at) {
      return yield* Effect.fail(new Error(`incoming payment ${timer.subjectId} is not waiting for an approval due by then`))
    }
    yield* reject(uow, platform, rec, timer.at, { decidedBy: "DEADLINE", failureReason: "PAYMENT_APPROVAL_TIMED_OUT" })
  })
