/**
 * Stablecoin issuance (docs/stablecoins.md), as the reference file's `Stablecoin*`
 * schemas: provider account links, registered stablecoins and their issuer operations
 * (mints and burns). Amounts of a stablecoin are digit strings in the token's smallest
 * unit (the reference's exception to integer minor units).
 */
import { Schema } from "effect"
import { ListResponse, MAX_ID_LENGTH, maxChars, NamedLiterals, NamedStruct, NonEmpty, NonEmptyTextUpTo, Timestamps } from "./common.js"
import { MAX_NETWORK_TOKEN_IDENTIFIER_LENGTH, MAX_OPERATION_DESCRIPTION_LENGTH, MAX_PROVIDER_CREDENTIAL_LENGTH, MAX_PROVIDER_TOKEN_IDENTIFIER_LENGTH, MAX_STABLECOIN_AMOUNT_DIGITS } from "./limits.js"
export { MAX_NETWORK_TOKEN_IDENTIFIER_LENGTH, MAX_OPERATION_DESCRIPTION_LENGTH, MAX_PROVIDER_CREDENTIAL_LENGTH, MAX_PROVIDER_TOKEN_IDENTIFIER_LENGTH, MAX_STABLECOIN_AMOUNT_DIGITS } from "./limits.js"

const pattern = (regex: RegExp, message: string) => Schema.isPattern(regex, { message })

export const StablecoinIssuanceStatus = NamedLiterals("StablecoinIssuanceStatus", ["PENDING_REVIEW", "PROVISIONING", "PROVISIONED", "REJECTED", "FAILED"])
export type StablecoinIssuanceStatus = typeof StablecoinIssuanceStatus.Type

/** SPEC.md "Stablecoin Grid-operations enablement status". */
export const StablecoinGridOperationsStatus = NamedLiterals("StablecoinGridOperationsStatus", ["NOT_ENABLED", "PENDING_APPROVAL", "ENABLING", "ENABLED", "DISABLED"])
export type StablecoinGridOperationsStatus = typeof StablecoinGridOperationsStatus.Type

export const StablecoinProvider = NamedLiterals("StablecoinProvider", ["BRALE"])
export type StablecoinProvider = typeof StablecoinProvider.Type

export const StablecoinNetwork = NamedLiterals("StablecoinNetwork", ["SPARK"])
export type StablecoinNetwork = typeof StablecoinNetwork.Type

export const StablecoinProviderEnvironment = NamedLiterals("StablecoinProviderEnvironment", ["SANDBOX", "PRODUCTION"])
export type StablecoinProviderEnvironment = typeof StablecoinProviderEnvironment.Type

export const StablecoinProviderAccountStatus = NamedLiterals("StablecoinProviderAccountStatus", ["ACTIVE", "INVALID", "REVOKED"])
export type StablecoinProviderAccountStatus = typeof StablecoinProviderAccountStatus.Type

export const StablecoinOperationType = NamedLiterals("StablecoinOperationType", ["MINT", "BURN"])
export type StablecoinOperationType = typeof StablecoinOperationType.Type

export const StablecoinOperationStatus = NamedLiterals("StablecoinOperationStatus", ["CREATED", "PENDING_FUNDING", "PENDING_PROVIDER", "PROCESSING", "COMPLETED", "FAILED", "EXPIRED"])
export type StablecoinOperationStatus = typeof StablecoinOperationStatus.Type

// ---------------------------------------------------------------- provider accounts

export const StablecoinProviderAccount = NamedStruct("StablecoinProviderAccount", {
  id: Schema.String,
  provider: StablecoinProvider,
  providerAccountId: Schema.String,
  providerEnvironment: StablecoinProviderEnvironment,
  status: StablecoinProviderAccountStatus,
  lastVerifiedAt: Schema.optionalKey(Schema.String),
  ...Timestamps
})
export type StablecoinProviderAccount = typeof StablecoinProviderAccount.Type

export const StablecoinProviderAccountLinkRequest = NamedStruct("StablecoinProviderAccountLinkRequest", {
  provider: StablecoinProvider,
  apiClientId: NonEmptyTextUpTo(MAX_PROVIDER_CREDENTIAL_LENGTH),
  apiClientSecret: NonEmptyTextUpTo(MAX_PROVIDER_CREDENTIAL_LENGTH),
  providerAccountId: Schema.optionalKey(NonEmptyTextUpTo(MAX_PROVIDER_CREDENTIAL_LENGTH))
})
export type StablecoinProviderAccountLinkRequest = typeof StablecoinProviderAccountLinkRequest.Type

export const StablecoinProviderAccountListResponse = ListResponse(StablecoinProviderAccount, "StablecoinProviderAccountListResponse")

// ---------------------------------------------------------------- stablecoins

export const Stablecoin = NamedStruct("Stablecoin", {
  id: Schema.String,
  name: Schema.String,
  symbol: Schema.String,
  baseCurrency: Schema.String,
  network: StablecoinNetwork,
  decimals: Schema.Number,
  issuanceStatus: StablecoinIssuanceStatus,
  gridOperationsStatus: StablecoinGridOperationsStatus,
  networkTokenIdentifier: Schema.String,
  currency: Schema.optionalKey(Schema.String),
  provider: StablecoinProvider,
  stablecoinProviderAccountId: Schema.String,
  providerEnvironment: StablecoinProviderEnvironment,
  providerTokenIdentifier: Schema.String,
  ...Timestamps
})
export type Stablecoin = typeof Stablecoin.Type

/** Brale's `value_type`: letters, digits, `_` and `-`. */
export const ProviderTokenIdentifier = NonEmpty.check(
  maxChars(MAX_PROVIDER_TOKEN_IDENTIFIER_LENGTH),
  pattern(/^[A-Za-z0-9_-]+$/, "must be letters, digits, '_' or '-' (the provider's token identifier, e.g. ACME)")
)

/** A Spark token identifier: bech32m with the `btkn` prefix family (mainnet `btkn1…`, test networks `btknrt1…`, `btkns1…`). */
export const SparkTokenIdentifier = NonEmpty.check(
  maxChars(MAX_NETWORK_TOKEN_IDENTIFIER_LENGTH),
  pattern(/^btkn[a-z]{0,4}1[qpzry9x8gf2tvdw0s3jn54khce6mua7l]{6,}$/, "must be a Spark token identifier such as btkn1qw508d6qejxtdg4y5r3zarvary0c5xw7k")
)

export const StablecoinRegisterRequest = NamedStruct("StablecoinRegisterRequest", {
  providerTokenIdentifier: ProviderTokenIdentifier,
  networkTokenIdentifier: SparkTokenIdentifier,
  network: StablecoinNetwork,
  stablecoinProviderAccountId: Schema.optionalKey(NonEmptyTextUpTo(MAX_ID_LENGTH))
})
export type StablecoinRegisterRequest = typeof StablecoinRegisterRequest.Type

export const StablecoinListResponse = ListResponse(Stablecoin, "StablecoinListResponse")

// ---------------------------------------------------------------- operations

/** An amount in the token's smallest unit: digits only (the rules check precision and range). */
export const StablecoinAmount = NonEmpty.check(
  maxChars(MAX_STABLECOIN_AMOUNT_DIGITS),
  pattern(/^[0-9]+$/, "must be a whole number of the token's smallest unit, as a string of digits such as \"1000000\"")
)

const AccountRef = NonEmptyTextUpTo(MAX_ID_LENGTH)

export const StablecoinWireFundingSource = NamedStruct("StablecoinWireFundingSource", { type: Schema.Literal("WIRE") })
export const StablecoinAchDebitFundingSource = NamedStruct("StablecoinAchDebitFundingSource", { type: Schema.Literal("ACH_DEBIT"), externalAccountId: AccountRef })
export const StablecoinSameDayAchDebitFundingSource = NamedStruct("StablecoinSameDayAchDebitFundingSource", { type: Schema.Literal("SAME_DAY_ACH_DEBIT"), externalAccountId: AccountRef })
export const StablecoinGridInternalFundingSource = NamedStruct("StablecoinGridInternalFundingSource", { type: Schema.Literal("GRID_INTERNAL_ACCOUNT"), accountId: AccountRef })
export const StablecoinProviderBalanceFundingSource = NamedStruct("StablecoinProviderBalanceFundingSource", {
  type: Schema.Literal("PROVIDER_INTERNAL_BALANCE"),
  sourceTokenIdentifier: NonEmptyTextUpTo(MAX_PROVIDER_TOKEN_IDENTIFIER_LENGTH),
  cryptoNetwork: NonEmptyTextUpTo(32)
})

export const StablecoinMintFundingSource = Schema.Union([
  StablecoinWireFundingSource,
  StablecoinAchDebitFundingSource,
  StablecoinSameDayAchDebitFundingSource,
  StablecoinGridInternalFundingSource,
  StablecoinProviderBalanceFundingSource
]).annotate({ identifier: "StablecoinMintFundingSource" })
export type StablecoinMintFundingSource = typeof StablecoinMintFundingSource.Type

export const StablecoinMintDestination = NamedStruct("StablecoinMintDestination", { accountId: AccountRef })

/**
 * A mint or burn request: the amount, where the money comes from (`fundingSource` for a
 * mint, `source` for a burn), where it goes, and an optional memo.
 */
const operationRequest = <From extends Schema.Struct.Fields, To extends Schema.Top>(identifier: string, from: From, destination: To) =>
  NamedStruct(identifier, {
    amount: StablecoinAmount,
    ...from,
    destination,
    description: Schema.optionalKey(Schema.String.check(maxChars(MAX_OPERATION_DESCRIPTION_LENGTH)))
  })

export const StablecoinMintRequest = operationRequest("StablecoinMintRequest", { fundingSource: StablecoinMintFundingSource }, StablecoinMintDestination)
export type StablecoinMintRequest = typeof StablecoinMintRequest.Type

export const StablecoinExternalAccountBurnSource = NamedStruct("StablecoinExternalAccountBurnSource", { type: Schema.Literal("EXTERNAL_ACCOUNT") })
export const StablecoinGridInternalBurnSource = NamedStruct("StablecoinGridInternalBurnSource", { type: Schema.Literal("GRID_INTERNAL_ACCOUNT"), accountId: AccountRef })
export const StablecoinProviderBalanceBurnSource = NamedStruct("StablecoinProviderBalanceBurnSource", { type: Schema.Literal("PROVIDER_INTERNAL_BALANCE") })

export const StablecoinBurnSource = Schema.Union([
  StablecoinExternalAccountBurnSource,
  StablecoinGridInternalBurnSource,
  StablecoinProviderBalanceBurnSource
]).annotate({ identifier: "StablecoinBurnSource" })
export type StablecoinBurnSource = typeof StablecoinBurnSource.Type

export const StablecoinPayoutRail = NamedLiterals("StablecoinPayoutRail", ["WIRE", "ACH_CREDIT", "SAME_DAY_ACH_CREDIT", "RTP_CREDIT"])
export type StablecoinPayoutRail = typeof StablecoinPayoutRail.Type

export const StablecoinBurnDestination = NamedStruct("StablecoinBurnDestination", {
  type: Schema.Literal("EXTERNAL_ACCOUNT"),
  externalAccountId: AccountRef,
  rail: StablecoinPayoutRail
})

export const StablecoinBurnRequest = operationRequest("StablecoinBurnRequest", { source: StablecoinBurnSource }, StablecoinBurnDestination)
export type StablecoinBurnRequest = typeof StablecoinBurnRequest.Type

export const StablecoinOperationSource = NamedStruct("StablecoinOperationSource", {
  type: Schema.Literals(["WIRE", "ACH_DEBIT", "SAME_DAY_ACH_DEBIT", "EXTERNAL_ACCOUNT", "GRID_INTERNAL_ACCOUNT", "PROVIDER_INTERNAL_BALANCE"]),
  externalAccountId: Schema.optionalKey(Schema.String),
  accountId: Schema.optionalKey(Schema.String),
  sourceTokenIdentifier: Schema.optionalKey(Schema.String),
  cryptoNetwork: Schema.optionalKey(Schema.String)
})
export type StablecoinOperationSource = typeof StablecoinOperationSource.Type

export const StablecoinFundingInstructions = Schema.Record(Schema.String, Schema.String)
  .annotate({ identifier: "StablecoinFundingInstructions" })
export type StablecoinFundingInstructions = typeof StablecoinFundingInstructions.Type

export const StablecoinOperationDestination = NamedStruct("StablecoinOperationDestination", {
  accountId: Schema.String,
  rail: Schema.optionalKey(StablecoinPayoutRail)
})
export type StablecoinOperationDestination = typeof StablecoinOperationDestination.Type

export const StablecoinEstimatedDelivery = NamedStruct("StablecoinEstimatedDelivery", {
  rail: Schema.String,
  amount: Schema.String,
  currency: Schema.String,
  timing: Schema.String
})
export type StablecoinEstimatedDelivery = typeof StablecoinEstimatedDelivery.Type

export const StablecoinOperation = NamedStruct("StablecoinOperation", {
  id: Schema.String,
  stablecoinId: Schema.String,
  operationType: StablecoinOperationType,
  status: StablecoinOperationStatus,
  amount: Schema.String,
  provider: StablecoinProvider,
  providerEnvironment: StablecoinProviderEnvironment,
  stablecoinProviderAccountId: Schema.String,
  source: Schema.optionalKey(StablecoinOperationSource),
  fundingInstructions: Schema.optionalKey(StablecoinFundingInstructions),
  destination: Schema.optionalKey(StablecoinOperationDestination),
  estimatedDelivery: Schema.optionalKey(StablecoinEstimatedDelivery),
  expiresAt: Schema.optionalKey(Schema.String),
  providerStatus: Schema.optionalKey(Schema.String),
  failureReason: Schema.optionalKey(Schema.String),
  description: Schema.optionalKey(Schema.String),
  ...Timestamps
})
export type StablecoinOperation = typeof StablecoinOperation.Type

export const StablecoinOperationListResponse = ListResponse(StablecoinOperation, "StablecoinOperationListResponse")

/**
 * The required `Idempotency-Key` of the stablecoin POSTs (INVENTORY "Idem(req)"): a
 * request without one is `400 INVALID_INPUT` naming the header.
 */
export const RequiredIdempotencyHeaders = {
  "idempotency-key": Schema.String.check(
    Schema.isMinLength(1, { message: "is required: send an Idempotency-Key of 1 to 255 printable characters" }),
    Schema.isMaxLength(255),
    pattern(/^[\x21-\x7e]+$/, "must be 1 to 255 printable ASCII characters without spaces")
  )
}
