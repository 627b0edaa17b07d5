/**
 * The stateless directories and estimates (reference shapes): GET /vasps (`Vasp`),
 * GET /uma-providers (`UmaProvider`) and POST /crypto/estimate-withdrawal-fee
 * (`EstimateCryptoWithdrawalFeeRequest` / `...Response`).
 */
import { Schema } from "effect"
import { CountryCode, CurrencyCode, ListResponse, MAX_ID_LENGTH, maxChars, NamedLiterals, NamedStruct, NonEmptyTextUpTo, PageQuery } from "./common.js"
import { Currency, PositiveAmount } from "./money.js"

// ---------------------------------------------------------------- VASPs

export const Vasp = NamedStruct("Vasp", {
  /** The value to pass as `vaspName` when declaring a VASP-hosted counterparty (a wallet's `vaspName`). */
  vaspName: Schema.String,
  url: Schema.optionalKey(Schema.String)
})
export type Vasp = typeof Vasp.Type

export const VaspListResponse = ListResponse(Vasp, "VaspListResponse")

// ---------------------------------------------------------------- UMA providers

export const UmaProvider = NamedStruct("UmaProvider", {
  name: Schema.String,
  supportedRegions: Schema.Array(Schema.String),
  domain: Schema.String,
  logoUrl: Schema.optionalKey(Schema.String),
  supportedCurrencies: Schema.Array(Currency),
  lei: Schema.optionalKey(Schema.String),
  allowListStatus: Schema.Boolean
})
export type UmaProvider = typeof UmaProvider.Type

export const UmaProviderListResponse = ListResponse(UmaProvider, "UmaProviderListResponse")

export const UmaProviderQuery = {
  ...PageQuery,
  countryCode: Schema.optionalKey(CountryCode),
  currencyCode: Schema.optionalKey(CurrencyCode),
  hasBlockedProviders: Schema.optionalKey(Schema.Literals(["true", "false"])),
  sortOrder: Schema.optionalKey(Schema.Literals(["asc", "desc"]))
}

// ---------------------------------------------------------------- crypto withdrawal fee

/** The networks a withdrawal can name (the reference's examples plus every network the server pays wallets on). */
export const WithdrawalNetwork = NamedLiterals("WithdrawalCryptoNetwork", [
  "BITCOIN",
  "LIGHTNING",
  "SPARK",
  "ETHEREUM",
  "BASE",
  "ARBITRUM",
  "POLYGON",
  "PLASMA",
  "SOLANA",
  "TRON"
])
export type WithdrawalNetwork = typeof WithdrawalNetwork.Type

/** The longest destination accepted: a BOLT11 invoice or BOLT12 offer (route hints make them long). */
export const MAX_DESTINATION_ADDRESS_LENGTH = 4096

export const EstimateCryptoWithdrawalFeeRequest = NamedStruct("EstimateCryptoWithdrawalFeeRequest", {
  internalAccountId: NonEmptyTextUpTo(MAX_ID_LENGTH),
  currency: CurrencyCode,
  cryptoNetwork: WithdrawalNetwork,
  amount: PositiveAmount,
  destinationAddress: Schema.String.check(Schema.isMinLength(1), maxChars(MAX_DESTINATION_ADDRESS_LENGTH))
})
export type EstimateCryptoWithdrawalFeeRequest = typeof EstimateCryptoWithdrawalFeeRequest.Type

export const EstimateCryptoWithdrawalFeeResponse = NamedStruct("EstimateCryptoWithdrawalFeeResponse", {
  networkFee: Schema.Number,
  networkFeeAsset: Schema.String,
  applicationFee: Schema.Number,
  totalFee: Schema.Number,
  netAmount: Schema.Number
})
export type EstimateCryptoWithdrawalFeeResponse = typeof EstimateCryptoWithdrawalFeeResponse.Type
