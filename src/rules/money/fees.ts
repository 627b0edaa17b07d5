/**
 * Platform fees: the configuration a platform sets (`feeConfigs`, rail fee configs,
 * a per-quote `platformFeeOverride`), the checks on it, and the fee a quote charges.
 *
 * Every fee is an integer in the sending currency's minor units and is included in the
 * quote's `totalSendingAmount`. The variable part is levied on the amount converted
 * (the sending amount before fees) and rounded up: ceil(amount × bps / 10,000), in exact
 * BigInt arithmetic, so a fee is never short by a fraction of a cent.
 */
import type { PaymentRail } from "./rails.js"
import { ceilDiv } from "./rates.js"

export interface FixedFee {
  readonly amount: number
  readonly currency: string
}

export interface FeeConfig {
  readonly feeType: "CROSS_CURRENCY_TRANSACTION"
  readonly sourceCurrency: string
  readonly variableFeeBps: number
  readonly fixedFee: FixedFee
}

/** A platform fee for payouts over one rail (SPEC.md: ACH_SAME_DAY is priced by its own). */
export interface RailFeeConfig {
  readonly rail: PaymentRail
  readonly sourceCurrency: string
  readonly variableFeeBps: number
  readonly fixedFee: FixedFee
}

export interface PlatformFeeOverride {
  readonly platformFixedFee: FixedFee
  readonly platformVariableFeeBps: number
}

/** One invalid field, in the shape of the API's `details.errors[]` entries. */
export interface FeeConfigProblem {
  readonly field: string
  readonly constraint: string
  readonly message: string
}

/** Platform fees and overrides are accepted for a USD source currency only (SPEC.md "Limits"). */
export const FEE_SOURCE_CURRENCIES: ReadonlySet<string> = new Set(["USD"])

export const MAX_BPS = 10_000

const bpsProblems = (field: string, bps: number): ReadonlyArray<FeeConfigProblem> =>
  Number.isInteger(bps) && bps >= 0 && bps <= MAX_BPS
    ? []
    : [{ field, constraint: "range", message: `must be an integer from 0 to ${MAX_BPS} basis points` }]

const fixedFeeProblems = (field: string, fee: FixedFee, currency: string): ReadonlyArray<FeeConfigProblem> => [
  ...(Number.isSafeInteger(fee.amount) && fee.amount >= 0
    ? []
    : [{ field: `${field}.amount`, constraint: "range", message: "must be a non-negative integer in minor units" }]),
  ...(fee.currency === currency
    ? []
    : [{ field: `${field}.currency`, constraint: "sameCurrency", message: `must be the source currency (${currency})` }])
]

const sourceCurrencyProblems = (field: string, currency: string): ReadonlyArray<FeeConfigProblem> =>
  FEE_SOURCE_CURRENCIES.has(currency)
    ? []
    : [{ field, constraint: "usdOnly", message: "platform fees require a USD source currency" }]

/**
 * Every problem in a platform's fee configuration, at once (empty when valid): USD
 * source currency, a fixed fee in that currency, bps 0..10,000, non-negative safe
 * integer amounts, and at most one config per fee type and source currency (per rail
 * and source currency for rail fees).
 */
export const feeConfigProblems = (
  configs: ReadonlyArray<FeeConfig>,
  railFeeConfigs: ReadonlyArray<RailFeeConfig> = []
): ReadonlyArray<FeeConfigProblem> => {
  const problems: Array<FeeConfigProblem> = []
  const seen = new Set<string>()
  configs.forEach((c, i) => {
    const at = `feeConfigs[${i}]`
    if (c.feeType !== "CROSS_CURRENCY_TRANSACTION") {
      problems.push({ field: `${at}.feeType`, constraint: "enum", message: "must be CROSS_CURRENCY_TRANSACTION" })
    }
    problems.push(...sourceCurrencyProblems(`${at}.sourceCurrency`, c.sourceCurrency))
    problems.push(...bpsProblems(`${at}.variableFeeBps`, c.variableFeeBps))
    problems.push(...fixedFeeProblems(`${at}.fixedFee`, c.fixedFee, c.sourceCurrency))
    const key = `${c.feeType}/${c.sourceCurrency}`
    if (seen.has(key)) {
      problems.push({ field: at, constraint: "unique", message: `a second ${c.feeType} fee for ${c.sourceCurrency}` })
    }
    seen.add(key)
  })
  const seenRails = new Set<string>()
  railFeeConfigs.forEach((c, i) => {
    const at = `railFeeConfigs[${i}]`
    problems.push(...sourceCurrencyProblems(`${at}.sourceCurrency`, c.sourceCurrency))
    problems.push(...bpsProblems(`${at}.variableFeeBps`, c.variableFeeBps))
    problems.push(...fixedFeeProblems(`${at}.fixedFee`, c.fixedFee, c.sourceCurrency))
    const key = `${c.rail}/${c.sourceCurrency}`
    if (seenRails.has(key)) {
      problems.push({ field: at, constraint: "unique", message: `a second ${c.rail} rail fee for ${c.sourceCurrency}` })
    }
    seenRails.add(key)
  })
  return problems
}

/**
 * Problems of a quote's `platformFeeOverride` for a sending currency: the source must be
 * USD and the fixed fee in it; bps 0..10,000; a non-negative integer fixed amount.
 */
export const platformFeeOverrideProblems = (
  override: PlatformFeeOverride,
  sendingCurrency: string
): ReadonlyArray<FeeConfigProblem> => [
  ...sourceCurrencyProblems("platformFeeOverride", sendingCurrency),
  ...bpsProblems("platformFeeOverride.platformVariableFeeBps", override.platformVariableFeeBps),
  ...fixedFeeProblems("platformFeeOverride.platformFixedFee", override.platformFixedFee, sendingCurrency)
]

/** ceil(amount × bps / 10,000), exact. `amount` a non-negative safe integer, bps 0..10,000. */
export const variableFee = (amount: number, bps: number): number =>
  Number(ceilDiv(BigInt(amount) * BigInt(bps), BigInt(MAX_BPS)))

const feeOf = (amount: number, bps: number, fixed: FixedFee, currency: string): number =>
  // A fixed fee in another currency is a configuration error caught by the checks above;
  // if one slips through it contributes nothing rather than a wrongly-scaled amount.
  variableFee(amount, bps) + (fixed.currency === currency ? fixed.amount : 0)

export interface PlatformFeeInput {
  readonly sendingCurrency: string
  /** The amount fees are levied on: the sending amount before fees, in minor units. */
  readonly sendingAmount: number
  /** Whether the receiving currency differs from the sending currency. */
  readonly crossCurrency: boolean
  /** The quote's payout rail, when it has one. */
  readonly rail?: PaymentRail | undefined
  readonly feeConfigs?: ReadonlyArray<FeeConfig> | undefined
  readonly railFeeConfigs?: ReadonlyArray<RailFeeConfig> | undefined
  readonly override?: PlatformFeeOverride | undefined
}

/**
 * The platform fee of a quote, in sending minor units.
 *
 * - An override replaces every configured platform fee: fixed + ceil(amount × bps / 10,000).
 * - Otherwise the sum of: the CROSS_CURRENCY_TRANSACTION config for the sending currency
 *   (only when the quote is cross-currency) and the rail fee config for the quote's rail
 *   and sending currency (same- or cross-currency alike).
 * - A config applies only to its own source currency (USD today), so other sending
 *   currencies pay no platform fee.
 */
export const platformFee = (input: PlatformFeeInput): number => platformFeeOn(input, input.sendingAmount)

/** `platformFee` of `input` on `sendingAmount` (no copy of the input per amount: the pricing asks for a few). */
export const platformFeeOn = (input: Omit<PlatformFeeInput, "sendingAmount">, sendingAmount: number): number => {
  const { sendingCurrency } = input
  if (!Number.isSafeInteger(sendingAmount) || sendingAmount < 0) return 0
  if (input.override !== undefined) {
    return feeOf(sendingAmount, input.override.platformVariableFeeBps, input.override.platformFixedFee, sendingCurrency)
  }
  let fee = 0
  if (input.crossCurrency) {
    const c = (input.feeConfigs ?? []).find((f) => f.feeType === "CROSS_CURRENCY_TRANSACTION" && f.sourceCurrency === sendingCurrency)
    if (c !== undefined) fee += feeOf(sendingAmount, c.variableFeeBps, c.fixedFee, sendingCurrency)
  }
  if (input.rail !== undefined) {
    const r = (input.railFeeConfigs ?? []).find((f) => f.rail === input.rail && f.sourceCurrency === sendingCurrency)
    if (r !== undefined) fee += feeOf(sendingAmount, r.variableFeeBps, r.fixedFee, sendingCurrency)
  }
  return fee
}

/**
 * The service's own ("network") fee per rail, in USD cents, charged on USD-sending quotes.
 * The sandbox charges none: the table is empty, so `feesIncluded` equals
 * `platformFeesIncluded` everywhere. An entry here would be added to every quote over
 * that rail.
 */
export const SERVICE_FEES_USD_CENTS: Readonly<Partial<Record<PaymentRail, number>>> = {}

/** The service fee of a quote, in sending minor units (0 in the sandbox). */
export const serviceFee = (rail: PaymentRail | undefined, sendingCurrency: string): number =>
  rail !== undefined && sendingCurrency === "USD" ? SERVICE_FEES_USD_CENTS[rail] ?? 0 : 0

/**
 * The fee function a quote is priced with: service fee plus platform fee, as a function
 * of the amount converted. Non-decreasing in the amount, as `priceQuote` requires.
 */
export const quoteFee = (input: Omit<PlatformFeeInput, "sendingAmount">) => (amountConverted: number): number =>
  serviceFee(input.rail, input.sendingCurrency) + platformFeeOn(input, amountConverted)
