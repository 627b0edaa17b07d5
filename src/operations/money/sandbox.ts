/**
 * Sandbox money simulations (sandbox platforms only; production platforms get 403):
 * POST /sandbox/send pays a real-time-funded quote's instructions; POST
 * /sandbox/uma/receive delivers an incoming UMA payment to a customer.
 */
import { Clock, Effect } from "effect"
import type { CustomerState } from "../../domain/customer.js"
import { badRequest, forbidden, invalidInput, notFound } from "../../domain/errors.js"
import { currencyOf } from "../../domain/money.js"
import { type Platform, sandboxUmaDomainOf } from "../../domain/platform.js"
import type { IncomingTransaction, IncomingTransactionFailureReason, SandboxSendRequest, SandboxUmaReceiveRequest } from "../../domain/transaction.js"
import { Ids } from "../../ports/ids.js"
import { Store, type TimerRecord, type TransactionRecord, type UnitOfWork } from "../../ports/store.js"
import { approvalMechanismApplies } from "../../rules/money/incoming-approval.js"
import * as SandboxPayments from "../../rules/money/sandbox-payments.js"
import { isoOf } from "../time.js"
import { emit, schedule } from "../transition.js"
import { balanceUpdated } from "./accounts.js"
import { configOf } from "./config.js"
import { postEntry, worldAccount } from "./ledger.js"
import { transactionOf } from "./payments.js"
import { quoteRecordOf, startPayment, turnsOfQuote } from "./quotes.js"

const sandboxOnly = (platform: Platform, what: string) =>
  platform.settings.sandbox ? Effect.void : Effect.fail(forbidden(`${what} is only available to sandbox platforms`))

/** POST /sandbox/send: the sender pays the quote's payment instructions; the payment starts. */
export const sandboxSend = Effect.fnUntraced(function*(platform: Platform, req: SandboxSendRequest) {
  yield* sandboxOnly(platform, "POST /sandbox/send")
  const store = yield* Store
  const turns = yield* turnsOfQuote(platform, req.quoteId)
  return yield* store.transact((uow) =>
    Effect.gen(function*() {
      const rec = yield* quoteRecordOf(platform, req.quoteId)
      const q = rec.quote
      if (rec.plan.source.kind !== "REALTIME") {
        return yield* badRequest("INVALID_INPUT", `Quote ${q.id} is funded from an account; execute it with POST /quotes/{quoteId}/execute`)
      }
      if (req.currencyCode !== q.sendingCurrency.code) {
        return yield* badRequest("INVALID_CURRENCY", `Quote ${q.id} is funded in ${q.sendingCurrency.code}, not ${req.currencyCode}`)
      }
      const amount = req.currencyAmount ?? q.totalSendingAmount
      if (amount !== q.totalSendingAmount) {
        return yield* badRequest("INVALID_AMOUNT", `Quote ${q.id} must be funded with exactly ${q.totalSendingAmount}`, {
          details: { expected: q.totalSendingAmount, received: amount }
        })
      }
      const nowMs = yield* Clock.currentTimeMillis
      if (q.status !== "PENDING") return yield* badRequest("INVALID_INPUT", `Quote ${q.id} was already funded (status ${q.status})`)
      if (Date.parse(q.expiresAt) <= nowMs) {
        yield* uow.putQuote({ ...rec, quote: { ...q, status: "EXPIRED" } })
        return yield* badRequest("QUOTE_EXPIRED", `Quote ${q.id} expired at ${q.expiresAt}; request a new quote`)
      }
      yield* startPayment(uow, platform, rec, nowMs)
      return (yield* transactionOf(platform, q.transactionId)).transaction
    }), turns)
})

export const INCOMING_TIMER = "incoming-payment"

const incomingEvent = Effect.fnUntraced(function*(
  uow: UnitOfWork,
  platform: Platform,
  type: "INCOMING_PAYMENT.PENDING" | "INCOMING_PAYMENT.COMPLETED" | "INCOMING_PAYMENT.FAILED" | "INCOMING_PAYMENT.REFUND_PENDING" | "INCOMING_PAYMENT.REFUND_COMPLETED",
  data: IncomingTransaction,
  at: string
) {
  yield* emit(uow, platform, type, { timestamp: at, data })
})

/** Credits an incoming payment: to an internal account (a ledger entry) or out to an external deposit account. */
const creditIncoming = Effect.fnUntraced(function*(uow: UnitOfWork, platform: Platform, t: IncomingTransaction, at: string) {
  const store = yield* Store
  if (t.destination.destinationType !== "ACCOUNT" || !t.destination.accountId.startsWith("InternalAccount:")) return
  const account = yield* store.internalAccounts.get(platform.id, t.destination.accountId)
  if (account === undefined) return
  const currency = t.receivedAmount.currency.code
  yield* postEntry(uow, platform.id, "CREDIT", [
    { account: worldAccount(currency), currency, amount: -t.receivedAmount.amount },
    { account: account.id, currency, amount: t.receivedAmount.amount }
  ], at, t.id).pipe(Effect.orDie)
  yield* balanceUpdated(uow, platform, account, at)
})

/**
 * Where an incoming UMA payment lands: the customer's default UMA deposit account when
 * it has one in that currency, else its internal account in that currency.
 */
const depositTarget = Effect.fnUntraced(function*(platform: Platform, customer: CustomerState, currency: string) {
  const store = yield* Store
  const deposit = yield* store.externalAccounts.findDefaultUmaDeposit(platform.id, customer.id)
  if (deposit !== undefined && deposit.account.currency === currency) return deposit.account.id
  const internal = yield* store.internalAccounts.findByOwnerCurrency(platform.id, customer.id, currency)
  return internal?.id
})

/** POST /sandbox/uma/receive: an incoming UMA payment to a customer of the platform. */
export const sandboxUmaReceive = Effect.fnUntraced(function*(platform: Platform, req: SandboxUmaReceiveRequest) {
  yield* sandboxOnly(platform, "POST /sandbox/uma/receive")
  if (SandboxPayments.parseUmaAddress(req.senderUmaAddress) === undefined) {
    return yield* badRequest("INVALID_UMA_ADDRESS", `senderUmaAddress ${req.senderUmaAddress} is not a UMA address ($name@domain)`)
  }
  if (req.receiverUmaAddress === undefined && req.customerId === undefined) {
    return yield* invalidInput("Name the receiver", [{ field: "receiverUmaAddress", constraint: "required", message: "receiverUmaAddress or customerId is required" }])
  }
  if (req.receiverUmaAddress !== undefined && SandboxPayments.parseUmaAddress(req.receiverUmaAddress) === undefined) {
    return yield* badRequest("INVALID_UMA_ADDRESS", `receiverUmaAddress ${req.receiverUmaAddress} is not a UMA address ($name@domain)`)
  }
  const currency = currencyOf(req.receivingCurrencyCode)
  if (currency === undefined) return yield* badRequest("INVALID_CURRENCY", `${req.receivingCurrencyCode} is not a currency the service supports`)
  const store = yield* Store
  const ids = yield* Ids
  return yield* store.transact((uow) =>
    Effect.gen(function*() {
      const byAddress = req.receiverUmaAddress === undefined ? undefined : yield* store.customers.findActiveByUmaAddress(platform.id, req.receiverUmaAddress)
      const byId = req.customerId === undefined ? undefined : yield* store.customers.get(platform.id, req.customerId)
      const receiver = byAddress ?? (byId?.deletedAt === undefined ? byId : undefined)
      if (receiver === undefined) return yield* notFound("No customer of this platform receives at that address", "UMA_NOT_FOUND")
      if (byAddress !== undefined && byId !== undefined && byAddress.customer.id !== byId.customer.id) {
        return yield* invalidInput("receiverUmaAddress and customerId name different customers", [{
          field: "customerId",
          constraint: "receiver",
          message: "must be the customer holding receiverUmaAddress"
        }])
      }
      const customer = receiver.customer
      const target = yield* depositTarget(platform, customer, currency.code)
      if (target === undefined) return yield* badRequest("INVALID_CURRENCY", `Customer ${customer.id} cannot receive ${currency.code}`)
      const nowMs = yield* Clock.currentTimeMillis
      const now = isoOf(nowMs)
      const counterparty = SandboxPayments.sandboxUmaCounterparty(req.senderUmaAddress, sandboxUmaDomainOf(platform))
      const base: IncomingTransaction = {
        id: yield* ids.make("Transaction"),
        type: "INCOMING",
        direction: "CREDIT",
        status: "PENDING",
        source: { sourceType: "UMA_ADDRESS", umaAddress: req.senderUmaAddress, currency: currency.code },
        destination: { destinationType: "ACCOUNT", accountId: target, currency: currency.code },
        customerId: customer.id,
        platformCustomerId: customer.platformCustomerId,
        receivedAmount: { amount: req.receivingCurrencyAmount, currency },
        fees: 0,
        reconciliationInstructions: { reference: `UMA-${nowMs.toString(36).toUpperCase()}` },
        createdAt: now,
        updatedAt: now
      }
      yield* incomingEvent(uow, platform, "INCOMING_PAYMENT.PENDING", base, now)
      const plan = {
        debit: { account: worldAccount(currency.code), currency: currency.code, amount: req.receivingCurrencyAmount },
        credit: { account: target, currency: currency.code, amount: req.receivingCurrencyAmount },
        fees: [],
        money: "NONE" as const,
        outcome: counterparty === undefined ? "SUCCESS" : `UMA_${counterparty.localPart}`,
        steps: [],
        internalAccounts: target.startsWith("InternalAccount:") ? [target] : []
      }
      if (counterparty?.localPart === "fail.compliance.usd") {
        // Compliance stops it before it is credited (and before the platform is asked); the sender's money goes back.
        return yield* failIncoming(uow, platform, { platformId: platform.id, transaction: base, plan }, "COMPLIANCE_REJECTED", nowMs)
      }
      // With a webhook endpoint, the INCOMING_PAYMENT.PENDING webhook's answer (or an
      // approve / reject call) decides it (operations/money/incoming-approval.ts).
      if ((yield* configOf(platform)).webhookEndpoint !== undefined && approvalMechanismApplies(base.source)) {
        yield* uow.putTransaction({ platformId: platform.id, transaction: base, plan: { ...plan, incomingApproval: { stage: "WEBHOOK" } } })
        return base
      }
      return yield* releaseIncoming(uow, platform, { platformId: platform.id, transaction: base, plan }, nowMs)
      // The account credited is found inside: it takes its turn only should it lose a race.
    }), { movesMoneyOf: platform.id })
})

type IncomingRecord = TransactionRecord & { readonly transaction: IncomingTransaction }

/**
 * An incoming payment that may proceed: from `$pending.long.usd` it is held in
 * compliance review for 24 hours (then completes), any other completes now.
 */
export const releaseIncoming = Effect.fnUntraced(function*(uow: UnitOfWork, platform: Platform, rec: IncomingRecord, nowMs: number) {
  if (rec.plan.outcome !== "UMA_pending.long.usd") return yield* completeIncoming(uow, platform, rec, isoOf(nowMs))
  const held: IncomingTransaction = { ...rec.transaction, pendingReason: "COMPLIANCE_REVIEW", updatedAt: isoOf(nowMs) }
  yield* uow.putTransaction({ ...rec, transaction: held })
  yield* schedule(uow, platform, INCOMING_TIMER, rec.transaction.id, { at: nowMs + SandboxPayments.UMA_LONG_PENDING_MS, event: "COMPLETE" })
  return held
})

/**
 * An incoming payment that ends before it is credited: FAILED with `failureReason`, and
 * the sender's money goes back (a refund, COMPLETED at once: nothing was credited, so
 * the ledger does not move).
 */
export const failIncoming = Effect.fnUntraced(function*(
  uow: UnitOfWork,
  platform: Platform,
  rec: IncomingRecord,
  failureReason: IncomingTransactionFailureReason,
  nowMs: number
) {
  const now = isoOf(nowMs)
  const { pendingReason: _held, ...t } = rec.transaction
  const refund = { reference: `REFUND-${t.id.slice(12, 20)}`, initiatedAt: now, reason: "TRANSACTION_FAILED" as const }
  const failed: IncomingTransaction = { ...t, status: "FAILED", failureReason, refund: { ...refund, settledAt: now, status: "COMPLETED" }, updatedAt: now }
  yield* uow.putTransaction({ ...rec, transaction: failed })
  yield* incomingEvent(uow, platform, "INCOMING_PAYMENT.FAILED", failed, now)
  yield* incomingEvent(uow, platform, "INCOMING_PAYMENT.REFUND_PENDING", { ...failed, refund: { ...refund, status: "PENDING" } }, now)
  yield* incomingEvent(uow, platform, "INCOMING_PAYMENT.REFUND_COMPLETED", failed, now)
  return failed
})

const completeIncoming = Effect.fnUntraced(function*(
  uow: UnitOfWork,
  platform: Platform,
  rec: TransactionRecord & { readonly transaction: IncomingTransaction },
  now: string
) {
  const { pendingReason: _held, ...released } = rec.transaction
  const done: IncomingTransaction = { ...released, status: "COMPLETED", settledAt: now, updatedAt: now }
  yield* uow.putTransaction({ ...rec, transaction: done, plan: { ...rec.plan, money: "SETTLED" } })
  yield* creditIncoming(uow, platform, done, now)
  yield* incomingEvent(uow, platform, "INCOMING_PAYMENT.COMPLETED", done, now)
  return done
})

/** The scheduler's handler for incoming payments that complete later (`$pending.long.usd`). */
export const applyIncomingTimer = (uow: UnitOfWork, platform: Platform, timer: TimerRecord) =>
  Effect.gen(function*() {
    const store = yield* Store
    const rec = yield* store.transactions.get(platform.id, timer.subjectId)
    if (rec === undefined || rec.transaction.type !== "INCOMING" || rec.transaction.status !== "PENDING") {
      return yield* Effect.fail(new Error(`incoming payment ${timer.subjectId} is not pending`))
    }
    yield* completeIncoming(uow, platform, { ...rec, transaction: rec.transaction }, isoOf(timer.at))
  })
