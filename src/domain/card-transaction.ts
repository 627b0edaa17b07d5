/**
 * Card transactions: the rows a card's authorizations, clearings and returns leave
 * behind (reference `CardTransaction`, `CardMerchant`, `Card*Summary`, the sandbox
 * simulate bodies `SandboxCard*`), with SPEC.md's changes, which win
 * (docs/card-transactions.md, docs/decisions.md):
 *
 * - statuses: SPEC.md's DECLINED, VOIDED, SETTLED, EXCEPTION plus the reference's
 *   AUTHORIZED and PARTIALLY_SETTLED (SPEC.md leaves the rest "not shown"); no REFUNDED;
 * - `cardDeclinedReason` (SPEC.md's values) on declined rows;
 * - a merchant return keeps the purchase SETTLED with `refundedAmount`, and opens its own
 *   row: direction CREDIT, status SETTLED, the credited value in `settledAmount`,
 *   `originalTransactionId` naming the purchase;
 * - merchant `city` and `state` when reported (SPEC.md; not in the reference).
 */
import { Schema } from "effect"
import { CountryCode, CurrencyCode, MAX_ID_LENGTH, maxChars, NamedLiterals, NamedStruct, NonEmptyTextUpTo, Timestamps } from "./common.js"
import { CurrencyAmount, MAX_AMOUNT, PositiveAmount } from "./money.js"
import { IncomingTransaction, OutgoingTransaction } from "./transaction.js"
import { MAX_MERCHANT_DESCRIPTOR_LENGTH, MAX_MERCHANT_PLACE_LENGTH } from "./limits.js"
export { MAX_MERCHANT_DESCRIPTOR_LENGTH, MAX_MERCHANT_PLACE_LENGTH } from "./limits.js"

/** Reference `CardTransactionStatus` with SPEC.md's changes: DECLINED and VOIDED added, REFUNDED removed. */
export const CardTransactionStatus = NamedLiterals("CardTransactionStatus", ["AUTHORIZED", "PARTIALLY_SETTLED", "SETTLED", "DECLINED", "VOIDED", "EXCEPTION"])
export type CardTransactionStatus = typeof CardTransactionStatus.Type

/** DEBIT: money out of the funding account (purchases); CREDIT: money in (merchant returns, credit authorizations). */
export const CardTransactionDirection = NamedLiterals("CardTransactionDirection", ["DEBIT", "CREDIT"])
export type CardTransactionDirection = typeof CardTransactionDirection.Type

/** SPEC.md "Card transaction status": why an authorization was declined (INSUFFICIENT_FUNDS in the sandbox only). */
export const CardDeclinedReason = NamedLiterals("CardDeclinedReason", [
  "CARD_NOT_ACTIVE",
  "SPEND_LIMIT_EXCEEDED",
  "INSUFFICIENT_FUNDS",
  "NO_ELIGIBLE_FUNDING_SOURCE",
  "BLOCKED",
  "UNSUPPORTED_NETWORK",
  "OTHER"
])
export type CardDeclinedReason = typeof CardDeclinedReason.Type

/** The merchant as the card network reports it; `city` and `state` only when reported (SPEC.md). */
export const CardMerchant = NamedStruct("CardMerchant", {
  descriptor: NonEmptyTextUpTo(MAX_MERCHANT_DESCRIPTOR_LENGTH),
  mcc: Schema.optionalKey(Schema.String.check(Schema.isPattern(/^[0-9]{4}$/, { message: "must be a four-digit merchant category code such as 5814" }))),
  country: Schema.optionalKey(CountryCode),
  city: Schema.optionalKey(NonEmptyTextUpTo(MAX_MERCHANT_PLACE_LENGTH)),
  state: Schema.optionalKey(NonEmptyTextUpTo(MAX_MERCHANT_PLACE_LENGTH))
})
export type CardMerchant = typeof CardMerchant.Type

const Count = Schema.Number.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(0))
const Total = Schema.Number.check(Schema.isInt(), Schema.isBetween({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }))

/** How many of something a row has had, and their total in minor units: every `Card*Summary`. */
const summaryFields = { count: Count, totalAmount: Total }

/** Pulls (debits) executed against the funding source for the row; `count > 1` means post-hoc pulls. */
export const CardPullSummary = NamedStruct("CardPullSummary", { ...summaryFields, pendingCount: Schema.optionalKey(Count) })
export type CardPullSummary = typeof CardPullSummary.Type

/** Merchant returns received against the row; `totalAmount` is what stays returned (a reversed return comes off it). */
export const CardRefundSummary = Schema.Struct(summaryFields).annotate({ identifier: "CardRefundSummary" })
export type CardRefundSummary = typeof CardRefundSummary.Type

/** Clearings posted against the row. */
export const CardSettlementSummary = Schema.Struct(summaryFields).annotate({ identifier: "CardSettlementSummary" })
export type CardSettlementSummary = typeof CardSettlementSummary.Type

export const CardTransaction = NamedStruct("CardTransaction", {
  type: Schema.Literal("CARD"),
  id: Schema.String,
  cardId: Schema.String,
  customerId: Schema.String,
  platformCustomerId: Schema.String,
  issuerTransactionToken: Schema.String,
  status: CardTransactionStatus,
  direction: CardTransactionDirection,
  merchant: CardMerchant,
  authorizedAmount: CurrencyAmount,
  settledAmount: Schema.optionalKey(CurrencyAmount),
  refundedAmount: Schema.optionalKey(CurrencyAmount),
  /** On a merchant return's own row: the purchase it returns (SPEC.md). */
  originalTransactionId: Schema.optionalKey(Schema.String),
  /** On DECLINED rows only. */
  cardDeclinedReason: Schema.optionalKey(CardDeclinedReason),
  /**
   * The internal account that funded (or, for a credit, received) the row. Absent only on
   * a decline of a card with no funding source left (a closed card): docs/decisions.md.
   */
  accountId: Schema.optionalKey(Schema.String),
  pullSummary: CardPullSummary,
  refundSummary: CardRefundSummary,
  settlementSummary: CardSettlementSummary,
  authorizedAt: Schema.String,
  lastEventAt: Schema.optionalKey(Schema.String),
  ...Timestamps
})
export type CardTransaction = typeof CardTransaction.Type

/**
 * What GET /transactions and GET /transactions/{id} answer: payments and card rows
 * (the reference's `TransactionOneOf`, whose `type: CARD` member is the CardTransaction).
 */
export const TransactionWithCard = Schema.Union([IncomingTransaction, OutgoingTransaction, CardTransaction])
  .annotate({ identifier: "TransactionWithCardOneOf" })
export type TransactionWithCard = typeof TransactionWithCard.Type

// ---------------------------------------------------------------- the machine's state (stored beside the row, never answered)

/** What opened a row. */
export type CardTransactionKind =
  /** Dual-message debit: a hold, then clearings. */
  | "AUTHORIZATION"
  /** Single-message debit (an ATM withdrawal): settles in the same message. */
  | "FINANCIAL_AUTHORIZATION"
  /** A 0-amount authorization: decisioning only, no money. */
  | "BALANCE_INQUIRY"
  /** Dual-message credit (credit authorization, and its advice): credited at clearing. */
  | "CREDIT_AUTHORIZATION"
  /** Single-message credit (a push credit): credited at once. */
  | "FINANCIAL_CREDIT_AUTHORIZATION"
  /** A merchant return's own row (SPEC.md): CREDIT, SETTLED at once. */
  | "RETURN"

export interface Tally {
  readonly count: number
  readonly total: number
}
export interface PullTally extends Tally {
  /** Pulls not yet CONFIRMED (sandbox suffix 005). */
  readonly pending: number
}

export interface CardTransactionState {
  readonly kind: CardTransactionKind
  readonly status: CardTransactionStatus
  readonly direction: CardTransactionDirection
  readonly currency: string
  /** The amount authorized (an advice re-sizes it; a declined row keeps what was asked). */
  readonly authorized: number
  /** Held for the open authorization, in HOLD. */
  readonly held: number
  /** Cleared by the network (credited, for a credit row). */
  readonly settled: number
  /** Returned by the merchant (purchase rows), net of reversed returns. */
  readonly refunded: number
  /** Released from the hold back to the funding account. */
  readonly released: number
  /** Net moved into SUSPENSE by this row: parked pulls positive, fronted clearings negative. */
  readonly suspense: number
  readonly pulls: PullTally
  readonly settlements: Tally
  readonly refunds: Tally
  readonly declinedReason?: CardDeclinedReason | undefined
  /** Epoch ms of the platform's clock. */
  readonly authorizedAt: number
  readonly lastEventAt?: number | undefined
}

// ---------------------------------------------------------------- sandbox simulate requests

const CardTransactionId = NonEmptyTextUpTo(MAX_ID_LENGTH)
/** A clearing amount: 0 is an authorization expiry (the reference's `minimum: 0`). */
const ClearingAmount = Schema.Number.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(0), Schema.isLessThanOrEqualTo(MAX_AMOUNT))

/**
 * The reference's `Currency` as a request names it: `code` is what counts; `name`,
 * `symbol` and `decimals` may be sent, and `decimals` must then agree with the catalogue
 * (an amount in another unit would be misread).
 */
export const SandboxCardCurrency = NamedStruct("SandboxCardCurrency", {
  code: CurrencyCode,
  name: Schema.optionalKey(Schema.String.check(maxChars(64))),
  symbol: Schema.optionalKey(Schema.String.check(maxChars(16))),
  decimals: Schema.optionalKey(Schema.Number.check(Schema.isInt(), Schema.isBetween({ minimum: 0, maximum: 18 })))
})
export type SandboxCardCurrency = typeof SandboxCardCurrency.Type

/** Body of `simulate/authorization`, `credit_authorization`, `financial_authorization`, `financial_credit_authorization`, `credit_authorization_advice`. */
export const SandboxCardAuthorizationRequest = NamedStruct("SandboxCardAuthorizationRequest", {
  amount: PositiveAmount,
  currency: SandboxCardCurrency,
  merchant: CardMerchant
})
export type SandboxCardAuthorizationRequest = typeof SandboxCardAuthorizationRequest.Type

/** A simulate body naming a row and an amount: `cardTransactionId` and `amount`. */
const rowAmountRequest = (identifier: string, amount: typeof PositiveAmount) =>
  NamedStruct(identifier, { cardTransactionId: CardTransactionId, amount })

/** Body of `simulate/clearing`: `amount` 0 is an authorization expiry. */
export const SandboxCardClearingRequest = rowAmountRequest("SandboxCardClearingRequest", ClearingAmount)
export type SandboxCardClearingRequest = typeof SandboxCardClearingRequest.Type

/** Body of `simulate/return`: at most the purchase's net settled amount (settled minus returned). */
export const SandboxCardReturnRequest = rowAmountRequest("SandboxCardReturnRequest", PositiveAmount)
export type SandboxCardReturnRequest = typeof SandboxCardReturnRequest.Type

/** Body of `simulate/balance_inquiry`: a 0-amount authorization, so no amount. */
export const SandboxCardBalanceInquiryRequest = NamedStruct("SandboxCardBalanceInquiryRequest", { merchant: CardMerchant })
export type SandboxCardBalanceInquiryRequest = typeof SandboxCardBalanceInquiryRequest.Type

/** Body of `simulate/authorization_advice`: `amount` is the new total authorized. */
export const SandboxCardAuthorizationAdviceRequest = rowAmountRequest("SandboxCardAuthorizationAdviceRequest", PositiveAmount)
export type SandboxCardAuthorizationAdviceRequest = typeof SandboxCardAuthorizationAdviceRequest.Type

/**
 * Body of `simulate/return_reversal`. SPEC.md: it takes a refund row's id, so
 * `cardTransactionId` (the reference's field name) names the merchant return's own row
 * (direction CREDIT, with `originalTransactionId`), not the purchase.
 */
export const SandboxCardTransactionRefRequest = NamedStruct("SandboxCardTransactionRefRequest", { cardTransactionId: CardTransactionId })
export type SandboxCardTransactionRefRequest = typeof SandboxCardTransactionRefRequest.Type

/** Every simulate endpoint answers 202 with the issuer's token of the row the simulated event landed on. */
export const SandboxCardSimulationResponse = NamedStruct("SandboxCardSimulationResponse", {
  issuerTransactionToken: Schema.String
})
export type SandboxCardSimulationResponse = typeof SandboxCardSimulationResponse.Type

/** The ten simulate endpoints, by the path segment after `simulate/`. */
export const CARD_SIMULATIONS = [
  "authorization",
  "clearing",
  "return",
  "balance_inquiry",
  "credit_authorization",
  "financial_authorization",
  "financial_credit_authorization",
  "authorization_advice",
  "credit_authorization_advice",
  "return_reversal"
] as const
export type CardSimulation = (typeof CARD_SIMULATIONS)[number]
