/**
 * Money limits: the single-transaction maximum (400 TRANSACTION_SIZE_LIMIT_EXCEEDED),
 * the daily volume per customer (429 DAILY_VOLUME_LIMIT_EXCEEDED), and the threshold
 * above which an unverified destination wallet must have its ownership verified
 * (400 EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED).
 *
 * SPEC.md names the limits but not their values; the values here are ours, stated in
 * USD and carried to every catalogue currency by the base rate table (no drift), rounded
 * down. A platform's configured values are passed in as arguments and win over these.
 */
import { CURRENCIES } from "../../domain/money.js"
import { DAY_MILLIS, dayStart } from "./rails.js"
import { corridorKey, usdCentsIn } from "./rates.js"

/** Default single-transaction maximum: 1,000,000.00 USD. */
export const DEFAULT_SINGLE_TRANSACTION_LIMIT_USD_CENTS = 100_000_000

/** Default daily volume per customer and sending currency: 5,000,000.00 USD. */
export const DEFAULT_DAILY_VOLUME_LIMIT_USD_CENTS = 500_000_000

/**
 * Transfers to a destination awaiting ownership verification are allowed below this
 * amount: 1,000.00 USD (our reading of the EU Travel Rule's EUR 1,000 for self-hosted
 * wallets). An amount at or above it requires verification.
 */
export const OWNERSHIP_VERIFICATION_THRESHOLD_USD = 100_000

const perCurrency = (usdCents: number): Readonly<Record<string, number>> =>
  Object.fromEntries(Object.keys(CURRENCIES).flatMap((code) => {
    const v = usdCentsIn(usdCents, code)
    return v === undefined ? [] : [[code, v]]
  }))

/** The default single-transaction maximum per sending currency, in its minor units. */
export const DEFAULT_SINGLE_TRANSACTION_LIMITS: Readonly<Record<string, number>> = perCurrency(DEFAULT_SINGLE_TRANSACTION_LIMIT_USD_CENTS)

/** The default daily volume limit per sending currency, in its minor units. */
export const DEFAULT_DAILY_VOLUME_LIMIT: Readonly<Record<string, number>> = perCurrency(DEFAULT_DAILY_VOLUME_LIMIT_USD_CENTS)

/** The ownership-verification threshold per currency, in its minor units. */
export const OWNERSHIP_VERIFICATION_THRESHOLDS: Readonly<Record<string, number>> = perCurrency(OWNERSHIP_VERIFICATION_THRESHOLD_USD)

/**
 * A platform's configured single-transaction limits (minor units of the sending
 * currency): per trade corridor (`"USD->EUR"`) or per withdrawal (sending) currency.
 */
export interface SingleTransactionLimits {
  readonly byCorridor?: Readonly<Record<string, number>> | undefined
  readonly byCurrency?: Readonly<Record<string, number>> | undefined
}

const own = (record: Readonly<Record<string, number>> | undefined, key: string): number | undefined =>
  record !== undefined && Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined

/**
 * The maximum for one transaction: the corridor's configured limit, else the sending
 * currency's configured limit, else the default. Undefined for a currency with neither.
 */
export const singleTransactionLimit = (
  sendingCurrency: string,
  receivingCurrency: string,
  configured?: SingleTransactionLimits
): number | undefined =>
  own(configured?.byCorridor, corridorKey(sendingCurrency, receivingCurrency)) ??
    own(configured?.byCurrency, sendingCurrency) ??
    own(DEFAULT_SINGLE_TRANSACTION_LIMITS, sendingCurrency)

/** Whether a sending amount is above the single-transaction maximum (the maximum itself is allowed). */
export const singleTransactionLimitExceeded = (input: {
  readonly amount: number
  readonly sendingCurrency: string
  readonly receivingCurrency: string
  readonly configured?: SingleTransactionLimits | undefined
}): boolean => {
  const limit = singleTransactionLimit(input.sendingCurrency, input.receivingCurrency, input.configured)
  return limit !== undefined && input.amount > limit
}

/** 00:00 UTC of the platform-clock day: the start of the daily volume window. */
export const dailyWindowStart = (nowMillis: number): number => dayStart(nowMillis)

/** The end (exclusive) of the daily volume window. */
export const dailyWindowEnd = (nowMillis: number): number => dayStart(nowMillis) + DAY_MILLIS

/** The daily volume limit of a sending currency: configured, else the default. */
export const dailyVolumeLimit = (sendingCurrency: string, configured?: Readonly<Record<string, number>>): number | undefined =>
  own(configured, sendingCurrency) ?? own(DEFAULT_DAILY_VOLUME_LIMIT, sendingCurrency)

/**
 * Whether a new transaction would take the customer's volume in a sending currency for
 * the current window above the limit. `sentInWindow` is the sum of the customer's
 * outgoing amounts in that currency since `dailyWindowStart(now)` (failed ones that
 * were refunded excluded; the caller decides).
 */
export const dailyVolumeLimitExceeded = (input: {
  readonly sentInWindow: number
  readonly amount: number
  readonly sendingCurrency: string
  readonly configured?: Readonly<Record<string, number>> | undefined
}): boolean => {
  const limit = dailyVolumeLimit(input.sendingCurrency, input.configured)
  return limit !== undefined && input.sentInWindow + input.amount > limit
}

/**
 * Whether a transfer of `amount` (minor units of `currency`) to a destination awaiting
 * ownership verification needs that verification first. A currency outside the
 * catalogue always does (no threshold can be computed).
 */
export const requiresOwnershipVerification = (amount: number, currency: string): boolean => {
  const threshold = own(OWNERSHIP_VERIFICATION_THRESHOLDS, currency)
  return threshold === undefined || amount >= threshold
}
