/**
 * Deterministic sandbox exchange rates.
 *
 * A rate is read from a fixed table of "units of X per 1 USD" and moved by a small,
 * reproducible drift (at most ±0.5%) that depends only on the corridor and the
 * 5-minute cache bucket of the platform's clock. No `Math.random`, no `Date.now`:
 * the same corridor at the same platform time always gives the same rate, so tests
 * and the reference server can replay any quote.
 *
 * Also the exact-arithmetic helpers every money rule shares: a rate (a float) read as
 * an exact decimal rational, and USD-cent amounts converted into other currencies by
 * the base table (limits and thresholds use them).
 */
import { CURRENCIES, currencyOf } from "../../domain/money.js"
import { BoundedMemo } from "../../lib/bounded-memo.js"

/** Rates are cached about 5 minutes (SPEC.md "Limits"); one bucket of the platform's clock. */
export const RATE_CACHE_MILLIS = 300_000

/**
 * Units of each currency (major units) per 1 USD: the base of every sandbox rate.
 * Round, plausible values; not market data. Every catalogue currency has one.
 */
export const BASE_USD_RATES: Readonly<Record<string, number>> = {
  USD: 1,
  EUR: 0.92,
  MXN: 17.2,
  GBP: 0.79,
  CAD: 1.36,
  BRL: 5.0,
  INR: 83.2,
  NGN: 1550,
  KES: 129,
  PHP: 56.5,
  COP: 3900,
  DKK: 6.87,
  HKD: 7.81,
  SGD: 1.34,
  IDR: 15600,
  MYR: 4.7,
  THB: 35.5,
  VND: 24500,
  AED: 3.6725,
  CNY: 7.2,
  USDC: 1,
  USDT: 1,
  BTC: 0.0000105
}

/**
 * Currencies pegged to each other: a corridor between two of them trades at exactly 1,
 * with no drift (a dollar buys one USDC, whatever the clock says).
 */
export const PEGGED_TO_USD: ReadonlySet<string> = new Set(["USD", "USDC", "USDT"])

/**
 * Corridors with no rate at all, as `SOURCE->DESTINATION`: quoting one fails with
 * QUOTE_RATE_UNAVAILABLE. `BTC->VND` is here so that code is reachable in the sandbox.
 */
export const UNAVAILABLE_CORRIDORS: ReadonlySet<string> = new Set(["BTC->VND"])

/** The largest drift away from the base cross rate, as a fraction (0.5%). */
export const MAX_DRIFT = 0.005

/** Significant digits a sandbox rate is rounded to before it is served. */
export const RATE_SIGNIFICANT_DIGITS = 12

/** Significant digits of the API's `exchangeRate` field. */
export const API_EXCHANGE_RATE_SIGNIFICANT_DIGITS = 10

export interface Rate {
  /** Receiving major units per 1 sending major unit. */
  readonly rate: number
  /** Start of the cache bucket this rate belongs to (epoch ms, platform clock). */
  readonly updatedAt: number
  /** Start of the next bucket: the rate is stale from here on. */
  readonly expiresAt: number
}

/** The cache bucket an instant of the platform's clock falls in. */
export const rateBucket = (nowMillis: number): number => Math.floor(nowMillis / RATE_CACHE_MILLIS)

/** 32-bit FNV-1a over the UTF-16 code units of a string: a pure, portable integer hash. */
export const fnv1a32 = (text: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

/**
 * The drift of a corridor in a bucket, as a fraction in [-MAX_DRIFT, +MAX_DRIFT], in
 * steps of one millionth: (hash mod 10,001 - 5,000) / 1,000,000.
 */
export const rateDrift = (source: string, destination: string, bucket: number): number =>
  ((fnv1a32(`${source}->${destination}#${bucket}`) % 10_001) - 5_000) / 1_000_000

export const corridorKey = (source: string, destination: string): string => `${source}->${destination}`

const hasBase = (code: string): boolean =>
  currencyOf(code) !== undefined && Object.prototype.hasOwnProperty.call(BASE_USD_RATES, code)

/**
 * The sandbox rate of a corridor at an instant of the platform's clock, or undefined
 * when there is none (a currency outside the catalogue, or an unavailable corridor).
 * Same currency (or two pegged currencies): exactly 1, no drift.
 */
export const rateAt = (source: string, destination: string, nowMillis: number): Rate | undefined => {
  if (!hasBase(source) || !hasBase(destination)) return undefined
  if (UNAVAILABLE_CORRIDORS.has(corridorKey(source, destination))) return undefined
  const bucket = rateBucket(nowMillis)
  const updatedAt = bucket * RATE_CACHE_MILLIS
  const expiresAt = updatedAt + RATE_CACHE_MILLIS
  if (source === destination || (PEGGED_TO_USD.has(source) && PEGGED_TO_USD.has(destination))) {
    return { rate: 1, updatedAt, expiresAt }
  }
  const base = (BASE_USD_RATES[destination] ?? Number.NaN) / (BASE_USD_RATES[source] ?? Number.NaN)
  const rate = Number((base * (1 + rateDrift(source, destination, bucket))).toPrecision(RATE_SIGNIFICANT_DIGITS))
  return { rate, updatedAt, expiresAt }
}

/**
 * The API's `exchangeRate`: "number of sending currency units per receiving currency
 * unit", i.e. 1 / rate, rounded to 10 significant digits.
 */
export const apiExchangeRate = (rate: number): number => {
  // 0 and -0 are one key of a Map, and their inverses differ: never remembered.
  if (rate === 0) return shownExchangeRate(rate)
  // Remembered (the same few rates are shown on every quote; `toPrecision` and parsing
  // it back cost about a microsecond).
  return apiRates.getOrCompute(rate, shownExchangeRate)
}

const shownExchangeRate = (rate: number): number => Number((1 / rate).toPrecision(API_EXCHANGE_RATE_SIGNIFICANT_DIGITS))
const apiRates = new BoundedMemo<number, number>(1024)

// ---------------------------------------------------------------- exact arithmetic

/** A non-negative rational number num / den with den > 0. */
export interface Rational {
  readonly num: bigint
  readonly den: bigint
}

/** Significant digits a float rate is read with when it becomes an exact rational. */
export const RATIONAL_SIGNIFICANT_DIGITS = 15

/**
 * A positive finite float as an exact decimal rational, read to 15 significant digits
 * (a double carries 15 to 17; 15 reproduce every decimal a person would write, so
 * 0.92 is 92/100 and not the binary neighbour of 0.92). Undefined for anything else.
 */
export const toRational = (value: number): Rational | undefined => rationals.getOrCompute(value, rationalOf)

/** Rationals remembered (a few rates and fees are converted on every quote). */
const rationals = new BoundedMemo<number, Rational>(1024)

const rationalOf = (value: number): Rational | undefined => {
  if (!Number.isFinite(value) || value <= 0) return undefined
  const [mantissa = "", exponentText = "0"] = value.toExponential(RATIONAL_SIGNIFICANT_DIGITS - 1).split("e")
  const digits = BigInt(mantissa.replace(".", ""))
  const exponent = Number(exponentText) - (RATIONAL_SIGNIFICANT_DIGITS - 1)
  return exponent >= 0 ? { num: digits * 10n ** BigInt(exponent), den: 1n } : { num: digits, den: 10n ** BigInt(-exponent) }
}

/** floor(a / b) for b > 0 (BigInt division truncates toward zero). */
export const floorDiv = (a: bigint, b: bigint): bigint => {
  const q = a / b
  return a % b !== 0n && a < 0n ? q - 1n : q
}

/** ceil(a / b) for b > 0. */
export const ceilDiv = (a: bigint, b: bigint): bigint => -floorDiv(-a, b)

/**
 * An amount of USD cents expressed in another catalogue currency's minor units at the
 * base table's rate (no drift), rounded down. Undefined for a currency outside the
 * catalogue. Limits and thresholds use it so a value stated in dollars means the same
 * in every currency.
 */
export const usdCentsIn = (usdCents: number, currency: string): number | undefined => {
  const c = currencyOf(currency)
  const base = BASE_USD_RATES[currency]
  if (c === undefined || base === undefined || !Number.isSafeInteger(usdCents)) return undefined
  const r = toRational(base)
  if (r === undefined) return undefined
  // cents * 10^-2 USD * base (major per USD) * 10^decimals (minor per major)
  const num = BigInt(usdCents) * r.num * 10n ** BigInt(c.decimals)
  const den = r.den * 100n
  return Number(floorDiv(num, den))
}

/** Every catalogue currency has a base rate (checked by the tests; exported for them). */
export const currenciesWithoutBaseRate = (): ReadonlyArray<string> =>
  Object.keys(CURRENCIES).filter((code) => !Object.prototype.hasOwnProperty.call(BASE_USD_RATES, code))
