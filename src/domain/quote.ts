/**
 * Quotes: a priced, time-limited offer to move an amount from a source to a destination
 * (reference `QuoteRequest` / `Quote`). SPEC.md names the request fields
 * (`lockedCurrencyAmount`, `lockedCurrencySide`, `sourceType`, `destinationType`,
 * `immediatelyExecute`, `remittanceInformation`, `purposeOfPayment`, destination
 * `paymentRail`, `platformFeeOverride`); the shapes are the reference file's.
 */
import { Schema } from "effect"
import { CurrencyCode, MAX_DESCRIPTION_LENGTH, NamedLiterals, NamedStruct, TextUpTo } from "./common.js"
import { PaymentRail } from "./external-account.js"
import { PaymentInstructions } from "./internal-account.js"
import { Currency, MAX_AMOUNT, PositiveAmount } from "./money.js"
import { SCA_FACTORS, ScaChallenge } from "./sca.js"

const Id = Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(255))

export const QuoteLockSide = NamedLiterals("QuoteLockSide", ["SENDING", "RECEIVING"])
export type QuoteLockSide = typeof QuoteLockSide.Type

export const QuoteStatus = NamedLiterals("QuoteStatus", ["PENDING", "PENDING_AUTHORIZATION", "PROCESSING", "COMPLETED", "FAILED", "EXPIRED"])
export type QuoteStatus = typeof QuoteStatus.Type

export const PurposeOfPayment = NamedLiterals("PurposeOfPayment", [
  "GIFT",
  "SELF",
  "GOODS_OR_SERVICES",
  "EDUCATION",
  "HEALTH_OR_MEDICAL",
  "REAL_ESTATE_PURCHASE",
  "TAX_PAYMENT",
  "LOAN_PAYMENT",
  "UTILITY_BILL",
  "DONATION",
  "TRAVEL",
  "FAMILY_SUPPORT",
  "SALARY_PAYMENT",
  "OTHER"
])
export type PurposeOfPayment = typeof PurposeOfPayment.Type

export const FixedFee = NamedStruct("FixedFee", {
  amount: Schema.Number.check(Schema.isInt(), Schema.isBetween({ minimum: 0, maximum: MAX_AMOUNT })),
  currency: CurrencyCode
})
export type FixedFee = typeof FixedFee.Type

export const Bps = Schema.Number.check(Schema.isInt(), Schema.isBetween({ minimum: 0, maximum: 10_000 }))

export const PlatformFeeOverride = NamedStruct("PlatformFeeOverride", {
  platformFixedFee: FixedFee,
  platformVariableFeeBps: Bps
})
export type PlatformFeeOverride = typeof PlatformFeeOverride.Type

// ---------------------------------------------------------------- sources and destinations

/** Money from an account: an internal account (debited) or an external account (pulled). */
export const AccountQuoteSource = NamedStruct("AccountQuoteSource", {
  sourceType: Schema.Literal("ACCOUNT"),
  accountId: Id,
  customerId: Schema.optionalKey(Id)
})

/** Money the sender pays in from outside, following the quote's payment instructions. */
export const RealtimeFundingQuoteSource = NamedStruct("RealtimeFundingQuoteSource", {
  sourceType: Schema.Literal("REALTIME_FUNDING"),
  customerId: Schema.optionalKey(Id),
  currency: CurrencyCode,
  cryptoNetwork: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(64)))
})

export const QuoteSource = Schema.Union([AccountQuoteSource, RealtimeFundingQuoteSource])
  .annotate({ identifier: "QuoteSourceOneOf" })
export type QuoteSource = typeof QuoteSource.Type

export const AccountDestination = NamedStruct("AccountDestination", {
  destinationType: Schema.Literal("ACCOUNT"),
  accountId: Id,
  paymentRail: Schema.optionalKey(PaymentRail)
})

export const UmaAddressDestination = NamedStruct("UmaAddressDestination", {
  destinationType: Schema.Literal("UMA_ADDRESS"),
  umaAddress: Schema.String.check(Schema.isMaxLength(255)),
  currency: Schema.optionalKey(CurrencyCode)
})

export const QuoteDestination = Schema.Union([AccountDestination, UmaAddressDestination])
  .annotate({ identifier: "QuoteDestinationOneOf" })
export type QuoteDestination = typeof QuoteDestination.Type

// ---------------------------------------------------------------- request

/** The SCA factor a request picks, inline (not the `ScaFactor` component), as in the reference. */
const ScaFactorChoice = Schema.Literals(SCA_FACTORS)

/**
 * Customer details one side of a payment sends the other (field name → value, e.g.
 * `FULL_NAME`): the quote's `senderCustomerInfo`, an approval's `receiverCustomerInfo`.
 */
export const CustomerInfoValues = Schema.Record(
  Schema.String.check(Schema.isMaxLength(64)),
  Schema.Union([Schema.String.check(Schema.isMaxLength(1000)), Schema.Number, Schema.Boolean])
).check(Schema.isMaxProperties(50))

export const QuoteRequest = NamedStruct("QuoteRequest", {
  lookupId: Schema.optionalKey(Id),
  source: QuoteSource,
  destination: QuoteDestination,
  lockedCurrencySide: QuoteLockSide,
  lockedCurrencyAmount: PositiveAmount,
  immediatelyExecute: Schema.optionalKey(Schema.Boolean),
  remittanceInformation: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(80))),
  purposeOfPayment: Schema.optionalKey(PurposeOfPayment),
  /** A memo for the transfer, carried to its transaction's `description`. */
  description: Schema.optionalKey(TextUpTo(MAX_DESCRIPTION_LENGTH)),
  platformFeeOverride: Schema.optionalKey(PlatformFeeOverride),
  scaFactor: Schema.optionalKey(ScaFactorChoice),
  /** Sender details a counterparty may require (field name → value), e.g. `FULL_NAME`. */
  senderCustomerInfo: Schema.optionalKey(CustomerInfoValues)
})
export type QuoteRequest = typeof QuoteRequest.Type

export const ExecuteQuoteRequest = NamedStruct("ExecuteQuoteRequest", {
  scaFactor: Schema.optionalKey(ScaFactorChoice)
})

// ---------------------------------------------------------------- response

export const OutgoingRateDetails = NamedStruct("OutgoingRateDetails", {
  counterpartyMultiplier: Schema.Number,
  counterpartyFixedFee: Schema.Number,
  gridApiMultiplier: Schema.Number,
  gridApiFixedFee: Schema.Number,
  gridApiVariableFeeRate: Schema.Number,
  gridApiVariableFeeAmount: Schema.Number
})

export const Quote = NamedStruct("Quote", {
  id: Schema.String,
  status: QuoteStatus,
  createdAt: Schema.String,
  expiresAt: Schema.String,
  source: QuoteSource,
  destination: QuoteDestination,
  sendingCurrency: Currency,
  receivingCurrency: Currency,
  totalSendingAmount: Schema.Number,
  totalReceivingAmount: Schema.Number,
  exchangeRate: Schema.Number,
  feesIncluded: Schema.Number,
  platformFeesIncluded: Schema.optionalKey(Schema.Number),
  paymentInstructions: Schema.optionalKey(Schema.Array(PaymentInstructions)),
  transactionId: Schema.String,
  rateDetails: Schema.optionalKey(OutgoingRateDetails),
  /** Only while PENDING_AUTHORIZATION: the SCA challenge to satisfy (SCA-region customers; docs/sca.md). */
  scaChallenge: Schema.optionalKey(ScaChallenge)
})
export type Quote = typeof Quote.Type

// ---------------------------------------------------------------- what execution needs

/** Where a quote's money comes from. */
export type QuotePlanSource =
  | { readonly kind: "INTERNAL"; readonly accountId: string }
  | { readonly kind: "EXTERNAL"; readonly accountId: string }
  | { readonly kind: "REALTIME" }

/** Where a quote's money goes. */
export type QuotePlanDestination =
  | { readonly kind: "INTERNAL"; readonly accountId: string }
  | { readonly kind: "EXTERNAL"; readonly accountId: string }
  | { readonly kind: "UMA"; readonly umaAddress: string; readonly internalAccountId?: string | undefined }

/** A quote's plan: stored beside the quote, never answered. */
export interface QuotePlan {
  /** The customer the quote is for, or null for the platform's own money. */
  readonly customerId: string | null
  readonly platformCustomerId?: string | undefined
  readonly source: QuotePlanSource
  readonly destination: QuotePlanDestination
  readonly rail?: string | undefined
  readonly railSelectionMode?: "AUTO" | "MANUAL" | undefined
  /** Fees in sending minor units, included in `feesIncluded`. */
  readonly platformFee: number
  readonly serviceFee: number
  readonly remittanceInformation?: string | undefined
  readonly purposeOfPayment?: string | undefined
  /** The quote request's `description`, shown on the transaction. */
  readonly description?: string | undefined
  /** The sandbox outcome the destination or source selects ("SUCCESS" off the sandbox). */
  readonly outcome: string
  /** The payment's moves after execution (delays in ms; a success completes at once). */
  readonly steps: ReadonlyArray<{ readonly afterMillis: number; readonly move: { readonly type: string; readonly failureReason?: string | undefined } }>
}
