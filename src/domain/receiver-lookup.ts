/**
 * Receiver lookups: what a sender can pay a UMA address (GET /receiver/uma/{address}) or
 * an external account (GET /receiver/external-account/{accountId}), as the reference
 * file's `ReceiverUmaLookupResponse` and `ReceiverExternalAccountLookupResponse` (both a
 * `ReceiverLookupResponse`: the currencies the receiver takes, each with an estimated
 * rate and amount bounds, the payer data it needs, and a `lookupId`).
 */
import { Schema } from "effect"
import { IdText, NamedStruct, TextUpTo } from "./common.js"
import { Currency, MinorUnits } from "./money.js"
import { CustomerInfoFieldName } from "./platform-config.js"
import { MAX_UMA_ADDRESS_LENGTH } from "./limits.js"
export { MAX_UMA_ADDRESS_LENGTH } from "./limits.js"

/** Who is sending: a UMA address or a customer of the platform (at least one; both must agree). */
export const ReceiverLookupQuery = {
  senderUmaAddress: Schema.optionalKey(TextUpTo(MAX_UMA_ADDRESS_LENGTH)),
  customerId: Schema.optionalKey(IdText)
}

export const CurrencyPreference = NamedStruct("CurrencyPreference", {
  currency: Currency,
  /**
   * Sending currency units per unit of this currency, as a quote's `exchangeRate`
   * (not locked: the quote prices at its own time).
   */
  estimatedExchangeRate: Schema.Number,
  /** Minor units of this currency. */
  min: MinorUnits,
  max: MinorUnits
})
export type CurrencyPreference = typeof CurrencyPreference.Type

export const CounterpartyFieldDefinition = NamedStruct("CounterpartyFieldDefinition", {
  name: CustomerInfoFieldName,
  mandatory: Schema.Boolean
})
export type CounterpartyFieldDefinition = typeof CounterpartyFieldDefinition.Type

const lookupFields = {
  supportedCurrencies: Schema.Array(CurrencyPreference),
  requiredPayerDataFields: Schema.Array(CounterpartyFieldDefinition),
  /** `Lookup:<uuid>`; a quote may carry it as `lookupId`. */
  lookupId: Schema.String
}

export const ReceiverUmaLookupResponse = NamedStruct("ReceiverUmaLookupResponse", {
  ...lookupFields,
  receiverUmaAddress: Schema.String
})
export type ReceiverUmaLookupResponse = typeof ReceiverUmaLookupResponse.Type

export const ReceiverExternalAccountLookupResponse = NamedStruct("ReceiverExternalAccountLookupResponse", {
  ...lookupFields,
  accountId: Schema.String
})
export type ReceiverExternalAccountLookupResponse = typeof ReceiverExternalAccountLookupResponse.Type
