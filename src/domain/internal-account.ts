/**
 * Internal accounts: balances the service holds for a customer or for the platform, as
 * the reference file's `InternalAccount`. The balance is derived from the ledger (see
 * docs/money.md): `balance` is what can be spent now; `totalBalance` adds funds held
 * for payments in flight. A customer gets one account per platform currency when its
 * KYC/KYB is approved; the platform has its own from the start.
 */
import { Schema } from "effect"
import { NamedLiterals, NamedStruct, Timestamps } from "./common.js"
import { CurrencyAmount } from "./money.js"

export const InternalAccountType = NamedLiterals("InternalAccountType", ["INTERNAL_FIAT", "INTERNAL_CRYPTO", "EMBEDDED_WALLET"])
export type InternalAccountType = typeof InternalAccountType.Type

export const InternalAccountStatus = NamedLiterals("InternalAccountStatus", ["PENDING", "ACTIVE", "CLOSED", "FROZEN", "FAILED"])
export type InternalAccountStatus = typeof InternalAccountStatus.Type

/**
 * Where to send money to fund an account (reference `PaymentInstructions`). The account
 * details vary by currency (`accountType` discriminates: USD_ACCOUNT, EUR_ACCOUNT, ...),
 * so they are kept open beyond `accountType` and `reference`.
 */
export const PaymentAccountOrWalletInfo = Schema.StructWithRest(
  Schema.Struct({ accountType: Schema.String, reference: Schema.optionalKey(Schema.String) }),
  [Schema.Record(Schema.String, Schema.Unknown)]
).annotate({ identifier: "PaymentAccountOrWalletInfo" })

export const PaymentInstructions = NamedStruct("PaymentInstructions", {
  instructionsNotes: Schema.optionalKey(Schema.String),
  isPlatformAccount: Schema.optionalKey(Schema.Boolean),
  accountOrWalletInfo: PaymentAccountOrWalletInfo
})
export type PaymentInstructions = typeof PaymentInstructions.Type

export const InternalAccount = NamedStruct("InternalAccount", {
  id: Schema.String,
  customerId: Schema.optionalKey(Schema.String),
  type: InternalAccountType,
  status: InternalAccountStatus,
  balance: CurrencyAmount,
  totalBalance: CurrencyAmount,
  fundingPaymentInstructions: Schema.Array(PaymentInstructions),
  /** EMBEDDED_WALLET only: whether wallet privacy is on. */
  privateEnabled: Schema.optionalKey(Schema.Boolean),
  ...Timestamps
})
export type InternalAccount = typeof InternalAccount.Type

/** `POST /sandbox/internal-accounts/{accountId}/fund`: minor units of the account's currency. */
export const SandboxFundRequest = NamedStruct("SandboxFundRequest", {
  amount: Schema.Number.check(Schema.isInt(), Schema.isGreaterThan(0), Schema.isLessThanOrEqualTo(100_000_000_000))
})
export type SandboxFundRequest = typeof SandboxFundRequest.Type
