/** Exchange rates (reference `ExchangeRate`): a corridor's rate with the platform's fees included. */
import { Schema } from "effect"
import { NamedStruct } from "./common.js"
import { PaymentRail } from "./external-account.js"
import { Currency } from "./money.js"

export const ExchangeRateFees = NamedStruct("ExchangeRateFees", {
  fixed: Schema.optionalKey(Schema.Number),
  total: Schema.optionalKey(Schema.Number)
})

export const ExchangeRate = NamedStruct("ExchangeRate", {
  sourceCurrency: Currency,
  sendingAmount: Schema.Number,
  minSendingAmount: Schema.Number,
  maxSendingAmount: Schema.Number,
  destinationCurrency: Currency,
  destinationPaymentRail: PaymentRail,
  receivingAmount: Schema.Number,
  exchangeRate: Schema.Number,
  fees: ExchangeRateFees,
  updatedAt: Schema.String
})
export type ExchangeRate = typeof ExchangeRate.Type

export const ExchangeRateListResponse = NamedStruct("ExchangeRateListResponse", { data: Schema.Array(ExchangeRate) })
