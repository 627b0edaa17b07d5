/**
 * Exact quote arithmetic: from a locked amount, a rate and a fee rule to the quote's
 * totals. BigInt inside, safe-integer numbers out.
 *
 * Rounding rule: the receiver never gets more than the rate gives, and the sender never
 * pays less than the rate asks. Receiving amounts round down; the amount to convert for
 * a locked receiving amount rounds up; fees round up; any leftover minor unit of a
 * locked sending amount goes to the fees, never to the receiver.
 *
 * Fees are in the sending currency, computed on the amount converted (the sending
 * amount before fees), and included in `totalSendingAmount`:
 *   totalSendingAmount = amountConverted + feesIncluded
 *   totalReceivingAmount = floor(amountConverted × rate), in receiving minor units
 */
import { type Currency, MAX_AMOUNT } from "../../domain/money.js"
import { ceilDiv, floorDiv, type Rational, toRational } from "./rates.js"
import { reject, type Rejection } from "../rejection.js"
import { fail, type Result } from "../result.js"

export type LockedSide = "SENDING" | "RECEIVING"

/**
 * The fee of a quote: a fixed number of sending minor units, or a function of the amount
 * converted. A function must be non-decreasing and return non-negative safe integers.
 */
export type QuoteFee = number | ((sendingAmountBeforeFees: number) => number)

export interface QuoteInput {
  readonly lockedSide: LockedSide
  /** Minor units of the locked side's currency. */
  readonly lockedAmount: number
  readonly sending: Currency
  readonly receiving: Currency
  /** Receiving major units per 1 sending major unit (as `rateAt` gives it). */
  readonly rate: number
  readonly fee: QuoteFee
}

export interface PricedQuote {
  readonly totalSendingAmount: number
  readonly totalReceivingAmount: number
  readonly feesIncluded: number
  /** The sending amount before fees: what is converted at the rate. */
  readonly amountConverted: number
}

export type QuoteRejection = Rejection<"INVALID_AMOUNT" | "AMOUNT_OUT_OF_RANGE" | "QUOTE_RATE_UNAVAILABLE">

export type QuoteResult = Result<PricedQuote, QuoteRejection>

const refuse = (code: QuoteRejection["code"], reason: string): QuoteResult => fail(reject(code, reason))

const MAX = BigInt(MAX_AMOUNT)

/**
 * The rate in minor units, exactly: receiving minor units per sending minor unit as
 * num / den = rate × 10^(receiving decimals − sending decimals).
 */
export const minorUnitRate = (rate: number, sending: Currency, receiving: Currency): Rational | undefined => {
  const r = toRational(rate)
  if (r === undefined) return undefined
  return { num: r.num * 10n ** BigInt(receiving.decimals), den: r.den * 10n ** BigInt(sending.decimals) }
}

/** floor(sendingMinor × rate): what the receiver gets for an amount converted. */
export const convertDown = (amount: bigint, r: Rational): bigint => floorDiv(amount * r.num, r.den)

/** ceil(receivingMinor / rate): the least amount to convert for the receiver to get `amount`. */
export const convertUp = (amount: bigint, r: Rational): bigint => ceilDiv(amount * r.den, r.num)

const feeAt = (fee: QuoteFee, amount: bigint): bigint | undefined => {
  const value = typeof fee === "number" ? fee : fee(Number(amount))
  return Number.isSafeInteger(value) && value >= 0 ? BigInt(value) : undefined
}

/** The largest amount converted c in [0, total] with c + fee(c) ≤ total, or undefined. */
const largestConvertible = (fee: QuoteFee, total: bigint): bigint | undefined | "bad-fee" => {
  if (typeof fee === "number") {
    if (!Number.isSafeInteger(fee) || fee < 0) return "bad-fee"
    return total - BigInt(fee) >= 0n ? total - BigInt(fee) : undefined
  }
  const at0 = feeAt(fee, 0n)
  if (at0 === undefined) return "bad-fee"
  if (at0 > total) return undefined
  // c + fee(c) is strictly increasing when fee is non-decreasing: binary search. Since
  // fee(c) ≤ fee(total) for c ≤ total, c = total − fee(total) already fits: the answer
  // lies in [total − fee(total), total], a range as wide as the fee, not the amount.
  const atTotal = feeAt(fee, total)
  if (atTotal === undefined) return "bad-fee"
  let lo = total - atTotal > 0n ? total - atTotal : 0n
  let hi = total
  while (lo < hi) {
    const mid = (lo + hi + 1n) / 2n
    const f = feeAt(fee, mid)
    if (f === undefined) return "bad-fee"
    if (mid + f <= total) lo = mid
    else hi = mid - 1n
  }
  return lo
}

/**
 * Prices a quote, or says why it can't be priced.
 *
 * SENDING locked: totalSending = lockedAmount; amountConverted is the largest c with
 * c + fee(c) ≤ lockedAmount; feesIncluded = lockedAmount − c; receiving = floor(c × rate).
 * RECEIVING locked: totalReceiving = lockedAmount; amountConverted = ceil(lockedAmount / rate);
 * feesIncluded = fee(amountConverted); totalSending = amountConverted + feesIncluded.
 *
 * INVALID_AMOUNT: the locked amount is not a positive integer (or the fee rule returned
 * something that is not a non-negative integer). AMOUNT_OUT_OF_RANGE: the locked amount
 * is above 9e15, too small to cover the fees, gives a receiving amount of 0, or a total
 * beyond 9e15. QUOTE_RATE_UNAVAILABLE: the rate is not a positive finite number.
 */
export const priceQuote = (input: QuoteInput): QuoteResult => {
  const { lockedAmount, lockedSide, fee } = input
  if (!Number.isInteger(lockedAmount) || lockedAmount <= 0) {
    return refuse("INVALID_AMOUNT", "lockedCurrencyAmount must be a positive integer in minor units")
  }
  if (lockedAmount > MAX_AMOUNT) return refuse("AMOUNT_OUT_OF_RANGE", `lockedCurrencyAmount must be at most ${MAX_AMOUNT}`)
  const r = minorUnitRate(input.rate, input.sending, input.receiving)
  if (r === undefined) return refuse("QUOTE_RATE_UNAVAILABLE", "no usable exchange rate for this corridor")
  const locked = BigInt(lockedAmount)

  if (lockedSide === "SENDING") {
    const c = largestConvertible(fee, locked)
    if (c === "bad-fee") return refuse("INVALID_AMOUNT", "the fee rule gave an amount that is not a non-negative integer")
    if (c === undefined || c === 0n) return refuse("AMOUNT_OUT_OF_RANGE", "the sending amount does not cover the fees")
    const receiving = convertDown(c, r)
    if (receiving <= 0n) return refuse("AMOUNT_OUT_OF_RANGE", "the sending amount is too small: the receiving amount rounds to 0")
    if (receiving > MAX) return refuse("AMOUNT_OUT_OF_RANGE", `the receiving amount would exceed ${MAX_AMOUNT}`)
    return {
      ok: true,
      value: {
        totalSendingAmount: lockedAmount,
        totalReceivingAmount: Number(receiving),
        feesIncluded: Number(locked - c),
        amountConverted: Number(c)
      }
    }
  }

  const c = convertUp(locked, r)
  if (c > MAX) return refuse("AMOUNT_OUT_OF_RANGE", `the sending amount would exceed ${MAX_AMOUNT}`)
  const f = feeAt(fee, c)
  if (f === undefined) return refuse("INVALID_AMOUNT", "the fee rule gave an amount that is not a non-negative integer")
  const total = c + f
  if (total > MAX) return refuse("AMOUNT_OUT_OF_RANGE", `the total sending amount would exceed ${MAX_AMOUNT}`)
  return {
    ok: true,
    value: {
      totalSendingAmount: Number(total),
      totalReceivingAmount: lockedAmount,
      feesIncluded: Number(f),
      amountConverted: Number(c)
    }
  }
}
