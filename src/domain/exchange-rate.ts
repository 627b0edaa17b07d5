/** Exchange rates (reference `ExchangeRate`): a corridor's rate with the platform's fees included. */
import { Schema } from "effect"
import { PaymentRail } from "./external-account.js"
import { Currency } from "./money.js"

export const ExchangeRateFees = Schema.Struct({
  fixed: Schema.optionalKey(Schema.Number),
  total: Schema.optionalKey(Schema.Number)
}).annotate({ identifier: "ExchangeRateFees" })

export const ExchangeRate = Schema.Struct({
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
}).annotate({ identifier: "ExchangeRate" })
export type ExchangeRate = typeof ExchangeRate.Type

export const ExchangeRateListResponse = Schema.Struct({ data: Schema.Array(ExchangeRate) })
  .annotate({ identifier: "ExchangeRateListResponse" })
