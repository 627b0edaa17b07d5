/**
 * GET /exchange-rates: the rate of each corridor from a source currency, including the
 * platform's fees, cached about 5 minutes on the platform's clock (rules/money/rates.ts:
 * a rate changes only when its 5-minute bucket ends; the sandbox drift is reproducible).
 */
import { Clock, Effect } from "effect"
import { badRequest } from "../../domain/errors.js"
import type { ExchangeRate } from "../../domain/exchange-rate.js"
import { CURRENCIES, currencyOf } from "../../domain/money.js"
import type { Platform } from "../../domain/platform.js"
import * as Fees from "../../rules/money/fees.js"
import * as Limits from "../../rules/money/limits.js"
import * as QuoteMath from "../../rules/money/quote-math.js"
import * as Rails from "../../rules/money/rails.js"
import * as Rates from "../../rules/money/rates.js"
import { isoOf } from "../time.js"
import { configOf, feeRulesOf } from "./config.js"

/** The reference file's default `sendingAmount`: 10,000 minor units. */
export const DEFAULT_SENDING_AMOUNT = 10_000

export interface ExchangeRateQuery {
  readonly sourceCurrency?: string | undefined
  readonly destinationCurrency?: ReadonlyArray<string> | undefined
  readonly sendingAmount?: number | undefined
}

export const getExchangeRates = Effect.fnUntraced(function*(platform: Platform, q: ExchangeRateQuery) {
  const config = yield* configOf(platform)
  const nowMs = yield* Clock.currentTimeMillis
  for (const code of [q.sourceCurrency, ...(q.destinationCurrency ?? [])]) {
    if (code !== undefined && currencyOf(code) === undefined) {
      return yield* badRequest("INVALID_CURRENCY", `${code} is not a currency the service supports`)
    }
  }
  const sources = q.sourceCurrency === undefined ? config.supportedCurrencies.map((c) => c.currencyCode) : [q.sourceCurrency]
  const destinations = q.destinationCurrency === undefined || q.destinationCurrency.length === 0 ? Object.keys(CURRENCIES) : [...new Set(q.destinationCurrency)]
  const sendingAmount = q.sendingAmount ?? DEFAULT_SENDING_AMOUNT
  const data: Array<ExchangeRate> = []
  for (const source of sources) {
    const sending = currencyOf(source)
    if (sending === undefined) continue
    const bounds = config.supportedCurrencies.find((c) => c.currencyCode === source)
    for (const destination of destinations) {
      const receiving = currencyOf(destination)
      if (receiving === undefined || destination === source) continue
      const rate = Rates.rateAt(source, destination, nowMs)
      if (rate === undefined) continue
      const rail = Rails.DEFAULT_RAILS[`${destination}_ACCOUNT`]
      const feeInput: Omit<Fees.PlatformFeeInput, "sendingAmount"> = {
        sendingCurrency: source,
        crossCurrency: true,
        rail,
        ...feeRulesOf(config)
      }
      const priced = QuoteMath.priceQuote({ lockedSide: "SENDING", lockedAmount: sendingAmount, sending, receiving, rate: rate.rate, fee: Fees.quoteFee(feeInput) })
      const fixed = config.feeConfigs.find((f) => f.sourceCurrency === source)?.fixedFee?.amount ?? 0
      data.push({
        sourceCurrency: sending,
        destinationCurrency: receiving,
        destinationPaymentRail: rail ?? "BANK_TRANSFER",
        sendingAmount,
        minSendingAmount: bounds?.minAmount ?? 1,
        maxSendingAmount: bounds?.maxAmount ?? Limits.singleTransactionLimit(source, destination) ?? 0,
        receivingAmount: priced.ok ? priced.value.totalReceivingAmount : 0,
        exchangeRate: Rates.apiExchangeRate(rate.rate),
        fees: { fixed, total: priced.ok ? priced.value.feesIncluded : 0 },
        updatedAt: isoOf(rate.updatedAt)
      })
    }
  }
  return { data }
})
