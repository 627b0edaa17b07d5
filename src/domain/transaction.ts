/**
 * Transactions: the payments quotes become (reference `OutgoingTransaction`,
 * `IncomingTransaction`, discriminated by `type`). Failure reasons are SPEC.md's list:
 * the removed reasons (EXECUTION_FAILED_POST_DEBIT, SETTLEMENT_FAILED, TIMEOUT,
 * MANUAL_REFUND) are not in the enum; TIMEOUT survives only as a refund reason.
 */
import { Schema } from "effect"
import { CurrencyCode, NamedLiterals, NamedStruct } from "./common.js"
import { PaymentRail } from "./external-account.js"
import { PaymentInstructions } from "./internal-account.js"
import { CurrencyAmount, PositiveAmount } from "./money.js"
import { CustomerInfoValues, OutgoingRateDetails, PurposeOfPayment } from "./quote.js"

const Id = Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(255))

export const TransactionStatus = NamedLiterals("TransactionStatus", [
  "CREATED",
  "PENDING",
  "PENDING_AUTHORIZATION",
  "PROCESSING",
  "COMPLETED",
  "REJECTED",
  "FAILED",
  "REFUNDED",
  "EXPIRED"
])
export type TransactionStatus = typeof TransactionStatus.Type

/** The statuses an outgoing payment takes (reference `OutgoingTransactionStatus`). */
export const OutgoingTransactionStatus = NamedLiterals("OutgoingTransactionStatus", ["PENDING", "PENDING_AUTHORIZATION", "EXPIRED", "PROCESSING", "COMPLETED", "FAILED"])
export type OutgoingTransactionStatus = typeof OutgoingTransactionStatus.Type

export const TransactionType = NamedLiterals("TransactionType", ["INCOMING", "OUTGOING"])
export type TransactionType = typeof TransactionType.Type

export const OutgoingTransactionFailureReason = NamedLiterals("OutgoingTransactionFailureReason", [
  "QUOTE_EXPIRED",
  "QUOTE_RATE_UNAVAILABLE",
  "QUOTE_EXECUTION_FAILED",
  "FUNDING_AMOUNT_MISMATCH",
  "SCA_NOT_COMPLETED",
  "PAYOUT_RETURNED",
  "LIMIT_EXCEEDED",
  "ACCOUNT_CANNOT_RECEIVE",
  "ACCOUNT_INVALID",
  "COMPLIANCE_REJECTED"
])
export type OutgoingTransactionFailureReason = typeof OutgoingTransactionFailureReason.Type

export const IncomingTransactionFailureReason = NamedLiterals("IncomingTransactionFailureReason", [
  "LNURLP_FAILED",
  "PAY_REQUEST_FAILED",
  "PAYMENT_APPROVAL_WEBHOOK_ERROR",
  "PAYMENT_APPROVAL_TIMED_OUT",
  "OFFRAMP_FAILED",
  "MISSING_MANDATORY_PAYEE_DATA",
  "QUOTE_EXPIRED",
  "QUOTE_EXECUTION_FAILED",
  "COMPLIANCE_REJECTED",
  "COLLECTION_FAILED"
])
export type IncomingTransactionFailureReason = typeof IncomingTransactionFailureReason.Type

export const TransactionPendingReason = NamedLiterals("TransactionPendingReason", [
  "COUNTERPARTY_DECLARATION_REQUIRED",
  "WALLET_VERIFICATION_REQUIRED",
  "COUNTERPARTY_INFORMATION_REQUIRED",
  "COMPLIANCE_REVIEW"
])
export type TransactionPendingReason = typeof TransactionPendingReason.Type

export const RefundStatus = NamedLiterals("RefundStatus", ["PENDING", "COMPLETED", "FAILED"])
export const RefundReason = NamedLiterals("RefundReason", ["TRANSACTION_FAILED", "USER_CANCELLATION", "TIMEOUT"])

export const Refund = NamedStruct("Refund", {
  reference: Schema.String,
  initiatedAt: Schema.String,
  settledAt: Schema.optionalKey(Schema.String),
  status: RefundStatus,
  reason: Schema.optionalKey(RefundReason)
})
export type Refund = typeof Refund.Type

export const OnChainTransaction = NamedStruct("OnChainTransaction", {
  transactionHash: Schema.String,
  network: Schema.String
})

/** `transactionHash` is deprecated for wallet transfers (use `onChainTransaction`), kept for UMA settlement. */
export const ReconciliationInstructions = NamedStruct("ReconciliationInstructions", {
  reference: Schema.optionalKey(Schema.String),
  transactionHash: Schema.optionalKey(Schema.String)
})

// ---------------------------------------------------------------- sources and destinations

/** An account end of a payment, source or destination alike (after its `sourceType` / `destinationType`). */
const accountEndFields = {
  accountId: Schema.String,
  currency: Schema.optionalKey(Schema.String),
  onChainTransaction: Schema.optionalKey(OnChainTransaction)
}

/** An UMA address end of a payment, source or destination alike. */
const umaAddressEndFields = {
  umaAddress: Schema.String,
  currency: Schema.optionalKey(Schema.String)
}

export const AccountTransactionSource = NamedStruct("AccountTransactionSource", { sourceType: Schema.Literal("ACCOUNT"), ...accountEndFields })

export const UmaAddressTransactionSource = NamedStruct("UmaAddressTransactionSource", { sourceType: Schema.Literal("UMA_ADDRESS"), ...umaAddressEndFields })

export const RealtimeFundingTransactionSource = NamedStruct("RealtimeFundingTransactionSource", {
  sourceType: Schema.Literal("REALTIME_FUNDING"),
  currency: Schema.String,
  customerId: Schema.optionalKey(Schema.String),
  paymentRail: Schema.optionalKey(PaymentRail),
  onChainTransaction: Schema.optionalKey(OnChainTransaction)
})

export const TransactionSource = Schema.Union([AccountTransactionSource, UmaAddressTransactionSource, RealtimeFundingTransactionSource])
  .annotate({ identifier: "TransactionSourceOneOf" })
export type TransactionSource = typeof TransactionSource.Type

export const AccountTransactionDestination = NamedStruct("AccountTransactionDestination", { destinationType: Schema.Literal("ACCOUNT"), ...accountEndFields })

export const UmaAddressTransactionDestination = NamedStruct("UmaAddressTransactionDestination", { destinationType: Schema.Literal("UMA_ADDRESS"), ...umaAddressEndFields })

export const TransactionDestination = Schema.Union([AccountTransactionDestination, UmaAddressTransactionDestination])
  .annotate({ identifier: "TransactionDestinationOneOf" })
export type TransactionDestination = typeof TransactionDestination.Type

// ---------------------------------------------------------------- transactions

const base = {
  id: Schema.String,
  pendingReason: Schema.optionalKey(TransactionPendingReason),
  destination: TransactionDestination,
  /** Absent on the platform's own payments (the reference requires it; see docs/decisions.md). */
  customerId: Schema.optionalKey(Schema.String),
  platformCustomerId: Schema.optionalKey(Schema.String),
  settledAt: Schema.optionalKey(Schema.String),
  createdAt: Schema.String,
  updatedAt: Schema.String,
  receiptDeliveryConfirmedAt: Schema.optionalKey(Schema.String),
  exchangeRate: Schema.optionalKey(Schema.Number),
  quoteId: Schema.optionalKey(Schema.String),
  refund: Schema.optionalKey(Refund),
  /** The memo of the quote the payment executes (the reference's `description`). */
  description: Schema.optionalKey(Schema.String),
  reconciliationInstructions: Schema.optionalKey(ReconciliationInstructions),
  counterpartyInformation: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown))
}

export const OutgoingTransaction = NamedStruct("OutgoingTransaction", {
  ...base,
  type: Schema.Literal("OUTGOING"),
  /**
   * DEBIT: the customer's money leaves their account. CREDIT: a payment the platform
   * initiated that brings money into the customer's internal account (a pull from an
   * external account, POST /transfer-in): the reference makes direction independent of
   * type (docs/decisions.md).
   */
  direction: Schema.Literals(["DEBIT", "CREDIT"]),
  status: OutgoingTransactionStatus,
  source: TransactionSource,
  sentAmount: CurrencyAmount,
  receivedAmount: Schema.optionalKey(CurrencyAmount),
  fees: Schema.optionalKey(Schema.Number),
  platformFees: Schema.optionalKey(Schema.Number),
  paymentInstructions: Schema.optionalKey(Schema.Array(PaymentInstructions)),
  rateDetails: Schema.optionalKey(OutgoingRateDetails),
  failureReason: Schema.optionalKey(OutgoingTransactionFailureReason),
  paymentRail: Schema.optionalKey(Schema.NullOr(PaymentRail)),
  railSelectionMode: Schema.optionalKey(Schema.NullOr(Schema.Literals(["AUTO", "MANUAL"]))),
  expectedSettlementAt: Schema.optionalKey(Schema.NullOr(Schema.String)),
  settlementTimelineSeconds: Schema.optionalKey(Schema.NullOr(Schema.Number)),
  remittanceInformation: Schema.optionalKey(Schema.String),
  purposeOfPayment: Schema.optionalKey(PurposeOfPayment)
})
export type OutgoingTransaction = typeof OutgoingTransaction.Type

export const IncomingTransaction = NamedStruct("IncomingTransaction", {
  ...base,
  type: Schema.Literal("INCOMING"),
  direction: Schema.Literal("CREDIT"),
  status: TransactionStatus,
  source: Schema.optionalKey(TransactionSource),
  sentAmount: Schema.optionalKey(CurrencyAmount),
  receivedAmount: CurrencyAmount,
  fees: Schema.optionalKey(Schema.Number),
  failureReason: Schema.optionalKey(IncomingTransactionFailureReason)
})
export type IncomingTransaction = typeof IncomingTransaction.Type

export const Transaction = Schema.Union([IncomingTransaction, OutgoingTransaction])
  .annotate({ identifier: "TransactionOneOf" })
  .pipe(Schema.toTaggedUnion("type"))
export type Transaction = typeof Transaction.Type

// ---------------------------------------------------------------- requests

const AccountRef = Schema.Struct({ accountId: Id })

/** Deprecated (SPEC.md Versioning), still working: pull from an external account into an internal one. */
export const TransferInRequest = NamedStruct("TransferInRequest", {
  source: AccountRef,
  destination: AccountRef,
  amount: Schema.optionalKey(PositiveAmount)
})
export type TransferInRequest = typeof TransferInRequest.Type

/** Deprecated, still working: pay out from an internal account to an external one. */
export const TransferOutRequest = NamedStruct("TransferOutRequest", {
  source: AccountRef,
  destination: Schema.Struct({ accountId: Id, paymentRail: Schema.optionalKey(PaymentRail) }),
  amount: Schema.optionalKey(PositiveAmount),
  remittanceInformation: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(80))),
  purposeOfPayment: Schema.optionalKey(PurposeOfPayment)
})
export type TransferOutRequest = typeof TransferOutRequest.Type

export const CancelTransactionRequest = NamedStruct("CancelTransactionRequest", {
  reason: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(255)))
})

export const SandboxSendRequest = NamedStruct("SandboxSendRequest", {
  quoteId: Id,
  currencyCode: CurrencyCode,
  currencyAmount: Schema.optionalKey(PositiveAmount)
})
export type SandboxSendRequest = typeof SandboxSendRequest.Type

export const SandboxUmaReceiveRequest = NamedStruct("SandboxUmaReceiveRequest", {
  senderUmaAddress: Schema.String.check(Schema.isMaxLength(255)),
  receiverUmaAddress: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(255))),
  customerId: Schema.optionalKey(Id),
  receivingCurrencyCode: CurrencyCode,
  receivingCurrencyAmount: PositiveAmount
})
export type SandboxUmaReceiveRequest = typeof SandboxUmaReceiveRequest.Type

/** POST /transactions/{id}/approve (optional body): the receiver's information the sender's VASP asked for, if any. */
export const ApprovePaymentRequest = NamedStruct("ApprovePaymentRequest", {
  /** Receiver details the sender's institution asked for (field name → value), e.g. `FULL_NAME`. */
  receiverCustomerInfo: Schema.optionalKey(CustomerInfoValues)
})
export type ApprovePaymentRequest = typeof ApprovePaymentRequest.Type

/** POST /transactions/{id}/reject (optional body): why, for the platform's own purposes. */
export const RejectPaymentRequest = NamedStruct("RejectPaymentRequest", {
  reason: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(1_024)))
})
export type RejectPaymentRequest = typeof RejectPaymentRequest.Type

// ---------------------------------------------------------------- the money behind a payment

/** Where a payment's money stands in the ledger. */
export type PaymentMoney = "NONE" | "IN_FLIGHT" | "SETTLED" | "REFUNDED" | "PARKED" | "RETURNED"

export interface PaymentLeg {
  readonly account: string
  readonly currency: string
  readonly amount: number
}

/** A payment's plan: stored beside the transaction, never answered. */
export interface PaymentPlan {
  /** Debited at execution (an internal account, or the outside world for pulls and funding). */
  readonly debit: PaymentLeg
  /** Credited at settlement (an internal account, or the outside world for payouts). */
  readonly credit: PaymentLeg
  /** Fees taken from the debit at settlement, in the debit's currency. */
  readonly fees: ReadonlyArray<{ readonly account: string; readonly amount: number }>
  readonly money: PaymentMoney
  /** The sandbox outcome driving the payment ("SUCCESS" off the sandbox). */
  readonly outcome: string
  /** Held PENDING until the platform approves or rejects it. */
  readonly awaitingPlatformApproval?: boolean | undefined
  /** Moves still to come, at epoch ms of the platform's clock, in order (the next one is a timer). */
  readonly steps: ReadonlyArray<PaymentStepRecord>
  /** The quote the payment executes, if any. */
  readonly quoteId?: string | undefined
  /** Internal accounts whose balance a move changes (for INTERNAL_ACCOUNT.BALANCE_UPDATED). */
  readonly internalAccounts: ReadonlyArray<string>
  /** A payout to a wallet settles on this network (`onChainTransaction.network`). */
  readonly onChainNetwork?: string | undefined
  /**
   * Pulled from an external account: if the pull fails, the amount the ledger held in
   * flight goes back to the outside world, which is no refund the customer sees.
   */
  readonly pull?: boolean | undefined
  /** The machine's refund of a failed pull, kept here since the transaction does not show it. */
  readonly pullReversal?: Refund | undefined
  /** A UMA payment: its inter-VASP settlement leg carries `reconciliationInstructions.transactionHash`. */
  readonly umaSettlement?: boolean | undefined
  /** An incoming payment on an approval-mechanism rail, while and after the platform decides on it. */
  readonly incomingApproval?: IncomingApprovalRecord | undefined
}

/**
 * Where the platform's decision on an incoming payment stands: WEBHOOK (the
 * INCOMING_PAYMENT.PENDING webhook is out, its answer decides), DEFERRED (answered 202:
 * approve or reject by `deadline`), INFORMATION_REQUIRED (answered 422), then APPROVED
 * or REJECTED.
 */
export interface IncomingApprovalRecord {
  readonly stage: "WEBHOOK" | "DEFERRED" | "INFORMATION_REQUIRED" | "APPROVED" | "REJECTED"
  /** Epoch ms of the platform's clock: rejected automatically then (DEFERRED, INFORMATION_REQUIRED). */
  readonly deadline?: number | undefined
  /** What a 422 answer asked for. */
  readonly requiredFields?: ReadonlyArray<string> | undefined
  /** What the approval carried. */
  readonly receiverCustomerInfo?: Readonly<Record<string, unknown>> | undefined
  /** The rejection's reason (a 403 body's or the reject call's), for the platform's own purposes. */
  readonly reason?: string | undefined
  /** How it was decided: the webhook's answer, a call, the default of an undecided webhook, or the deadline. */
  readonly decidedBy?: "WEBHOOK" | "CALL" | "DEFAULT" | "DEADLINE" | undefined
}

/** A scheduled move of a payment, as stored (`type` is a payment-machine move). */
export interface PaymentStepRecord {
  readonly at: number
  readonly move: { readonly type: string; readonly failureReason?: string | undefined }
}
