/**
 * Money: amounts are integers in the currency's smallest unit (cents for USD, satoshis
 * for BTC), as the reference file's `CurrencyAmount`; a currency is described by
 * `Currency { code, name, symbol, decimals }`.
 *
 * `CURRENCIES` is the catalogue the service knows: every currency an internal account,
 * a quote or a rate can be in. A code outside it is `INVALID_CURRENCY`.
 */
import { Schema } from "effect"
import { NamedStruct } from "./common.js"

export const Currency = NamedStruct("Currency", {
  code: Schema.String,
  name: Schema.String,
  symbol: Schema.String,
  decimals: Schema.Number.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(0))
})
export type Currency = typeof Currency.Type

/**
 * An amount in minor units. The reference types it int64; JSON numbers are exact up to
 * 2^53 - 1, and no amount the service accepts or produces exceeds that (the largest
 * request amount is 9e15, see `MAX_AMOUNT`).
 */
export const MinorUnits = Schema.Number.check(Schema.isInt(), Schema.isBetween({ minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER }))

export const CurrencyAmount = NamedStruct("CurrencyAmount", {
  amount: MinorUnits,
  currency: Currency
})
export type CurrencyAmount = typeof CurrencyAmount.Type

/** The largest amount a request may name (reference `lockedCurrencyAmount` maximum). */
export const MAX_AMOUNT = 9_000_000_000_000_000

/** A request amount in minor units: a whole number above 0 (the reference's `exclusiveMinimum: 0`), at most `MAX_AMOUNT`. */
export const PositiveAmount = Schema.Number.check(Schema.isInt(), Schema.isGreaterThan(0), Schema.isLessThanOrEqualTo(MAX_AMOUNT))

/** The currencies the service knows, by code. */
export const CURRENCIES: Readonly<Record<string, Currency>> = Object.fromEntries(
  ([
    ["USD", "United States Dollar", "$", 2],
    ["EUR", "Euro", "€", 2],
    ["MXN", "Mexican Peso", "$", 2],
    ["GBP", "Pound Sterling", "£", 2],
    ["CAD", "Canadian Dollar", "$", 2],
    ["BRL", "Brazilian Real", "R$", 2],
    ["INR", "Indian Rupee", "₹", 2],
    ["NGN", "Nigerian Naira", "₦", 2],
    ["KES", "Kenyan Shilling", "KSh", 2],
    ["PHP", "Philippine Peso", "₱", 2],
    ["COP", "Colombian Peso", "$", 2],
    ["DKK", "Danish Krone", "kr", 2],
    ["HKD", "Hong Kong Dollar", "HK$", 2],
    ["SGD", "Singapore Dollar", "S$", 2],
    ["IDR", "Indonesian Rupiah", "Rp", 2],
    ["MYR", "Malaysian Ringgit", "RM", 2],
    ["THB", "Thai Baht", "฿", 2],
    ["VND", "Vietnamese Dong", "₫", 0],
    ["AED", "UAE Dirham", "د.إ", 2],
    ["CNY", "Chinese Yuan", "¥", 2],
    ["USDC", "USD Coin", "USDC", 6],
    ["USDT", "Tether USD", "USDT", 6],
    ["BTC", "Bitcoin", "₿", 8]
  ] as const).map(([code, name, symbol, decimals]) => [code, { code, name, symbol, decimals }])
)

/** The catalogue entry of a code, or undefined for a currency the service does not know. */
export const currencyOf = (code: string): Currency | undefined =>
  Object.prototype.hasOwnProperty.call(CURRENCIES, code) ? CURRENCIES[code] : undefined

/** `{ amount, currency }` for a known currency code. */
export const amountIn = (code: string, amount: number): CurrencyAmount | undefined => {
  const currency = currencyOf(code)
  return currency === undefined ? undefined : { amount, currency }
}

/** The currencies a platform supports unless its configuration says otherwise. */
export const DEFAULT_PLATFORM_CURRENCIES: ReadonlyArray<string> = ["USD", "EUR", "MXN"]
