/**
 * Payment rails: which rail pays an external account by default, which rails an account
 * accepts, the ACH same-day cap by date, and when a payout is expected to settle.
 *
 * Time is always an argument (epoch ms of the platform's clock); business days are
 * Monday to Friday in UTC, with no holiday calendar.
 */
import {
  currencyOfAccountType,
  PaymentRail as DomainPaymentRailSchema,
  type PaymentRail as DomainPaymentRail,
  paymentRailsOf
} from "../../domain/external-account.js"

/** The reference `PaymentRail` enum plus `ACH_SAME_DAY` (a SPEC.md addition): the domain's list. */
export const PAYMENT_RAILS = DomainPaymentRailSchema.literals
export type PaymentRail = DomainPaymentRail

export const isPaymentRail = (value: string): value is PaymentRail => (PAYMENT_RAILS as ReadonlyArray<string>).includes(value)

// ---------------------------------------------------------------- default rail per account type

const MOBILE_MONEY_ONLY = ["BWP", "HTG", "KES", "MWK", "RWF", "TZS", "UGX", "XAF", "XOF", "ZMW"] as const
const BANK_OR_MOBILE = ["BDT", "CNY", "COP", "EGP", "GHS", "PKR", "SLV"] as const
const BANK_TRANSFER_ONLY = ["AED", "CAD", "GTQ", "HKD", "IDR", "ILS", "JMD", "MYR", "NGN", "PHP", "THB", "TRY", "VND", "ZAR"] as const

/**
 * The rail a payout to each account type uses when the quote does not pin one.
 * `ACH_SAME_DAY` is never chosen automatically (SPEC.md). Crypto wallets and Lightning
 * pay on-chain / over Lightning: no rail (absent here).
 */
export const DEFAULT_RAILS: Readonly<Record<string, PaymentRail>> = {
  USD_ACCOUNT: "ACH",
  EUR_ACCOUNT: "SEPA_INSTANT",
  DKK_ACCOUNT: "SEPA_INSTANT",
  GBP_ACCOUNT: "FASTER_PAYMENTS",
  MXN_ACCOUNT: "SPEI",
  BRL_ACCOUNT: "PIX",
  INR_ACCOUNT: "UPI",
  SGD_ACCOUNT: "FAST",
  SWIFT_ACCOUNT: "SWIFT",
  ...Object.fromEntries(MOBILE_MONEY_ONLY.map((c) => [`${c}_ACCOUNT`, "MOBILE_MONEY" as const])),
  ...Object.fromEntries(BANK_OR_MOBILE.map((c) => [`${c}_ACCOUNT`, "BANK_TRANSFER" as const])),
  ...Object.fromEntries(BANK_TRANSFER_ONLY.map((c) => [`${c}_ACCOUNT`, "BANK_TRANSFER" as const]))
}

/** Whether an account type pays in this currency (SWIFT accounts take any; wallets have no rail). */
const currencyFits = (accountType: string, currency: string): boolean => {
  const own = currencyOfAccountType(accountType)
  return own === undefined ? accountType === "SWIFT_ACCOUNT" : own === currency
}

const text = (info: Readonly<Record<string, unknown>> | undefined, field: string): string | undefined => {
  const v = info?.[field]
  return typeof v === "string" && v.length > 0 ? v : undefined
}

/**
 * The rail a payout to an account uses by default, or undefined when the account is
 * paid without a rail (crypto wallets, Lightning) or the type and currency don't fit.
 *
 * With the account's `accountInfo`, two refinements: an INR account follows its own
 * `rail` field, else UPI when it has a `vpa` and NEFT when it has only an account
 * number; a bank-or-mobile-money account identified only by `phoneNumber` uses
 * MOBILE_MONEY.
 */
export const defaultRailFor = (
  accountType: string,
  currency: string,
  accountInfo?: Readonly<Record<string, unknown>>
): PaymentRail | undefined => {
  if (!currencyFits(accountType, currency)) return undefined
  if (accountType === "INR_ACCOUNT" && accountInfo !== undefined) {
    const rail = text(accountInfo, "rail")
    if (rail !== undefined && isPaymentRail(rail) && railAllowed(rail, accountType, currency)) return rail
    if (text(accountInfo, "vpa") !== undefined) return "UPI"
    if (text(accountInfo, "accountNumber") !== undefined) return "NEFT"
  }
  if ((BANK_OR_MOBILE as ReadonlyArray<string>).includes(currency) && accountInfo !== undefined) {
    const banked = text(accountInfo, "accountNumber") !== undefined || text(accountInfo, "iban") !== undefined
    if (!banked && text(accountInfo, "phoneNumber") !== undefined) return "MOBILE_MONEY"
  }
  return DEFAULT_RAILS[accountType]
}

/**
 * Whether a quote may pin this rail for a payout to the account: the rail must be one the
 * account type lists (`paymentRails`) and the currency must be the account's.
 * ACH_SAME_DAY is therefore only ever allowed for USD accounts paid in USD.
 */
export const railAllowed = (rail: PaymentRail, accountType: string, currency: string): boolean => {
  if (!currencyFits(accountType, currency)) return false
  if (rail === "ACH_SAME_DAY" && !(accountType === "USD_ACCOUNT" && currency === "USD")) return false
  return (paymentRailsOf(accountType) ?? []).includes(rail)
}

// ---------------------------------------------------------------- ACH same-day cap

/** The instant (00:00 UTC, 2027-09-17) the ACH same-day per-entry cap rises. */
export const ACH_SAME_DAY_CAP_CHANGE = Date.UTC(2027, 8, 17)

/** Per-entry cap in USD cents: 1,000,000.00 before the change, 10,000,000.00 from it. */
export const achSameDayCap = (nowMillis: number): number => (nowMillis < ACH_SAME_DAY_CAP_CHANGE ? 100_000_000 : 1_000_000_000)

/** A payout above the cap is rejected, not slowed (send it over ACH instead). The cap itself is allowed. */
export const achSameDayCapExceeded = (amountUsdCents: number, nowMillis: number): boolean => amountUsdCents > achSameDayCap(nowMillis)

// ---------------------------------------------------------------- business days and settlement

export const DAY_MILLIS = 86_400_000

/** 00:00 UTC of the day an instant falls in. */
export const dayStart = (ms: number): number => Math.floor(ms / DAY_MILLIS) * DAY_MILLIS

/** Monday to Friday, UTC. No holiday calendar: a bank holiday on a weekday counts as a business day. */
export const isBusinessDay = (ms: number): boolean => {
  const weekday = new Date(dayStart(ms)).getUTCDay()
  return weekday >= 1 && weekday <= 5
}

/** 00:00 UTC of the first business day after the day of `ms`. */
export const nextBusinessDayStart = (ms: number): number => {
  let day = dayStart(ms) + DAY_MILLIS
  while (!isBusinessDay(day)) day += DAY_MILLIS
  return day
}

export type SettlementSpeed = "INSTANT" | "SAME_BUSINESS_DAY" | "NEXT_BUSINESS_DAY"

/**
 * How fast each rail settles at the beneficiary. ACH is the exception the function
 * below handles: same business day in production until the announced change, next
 * business day in the sandbox already (SPEC.md "Limits").
 */
export const RAIL_SETTLEMENT: Readonly<Record<PaymentRail, SettlementSpeed>> = {
  ACH: "NEXT_BUSINESS_DAY",
  ACH_SAME_DAY: "SAME_BUSINESS_DAY",
  ACH_COLOMBIA: "NEXT_BUSINESS_DAY",
  BANK_TRANSFER: "NEXT_BUSINESS_DAY",
  BRE_B: "INSTANT",
  CIPS: "SAME_BUSINESS_DAY",
  FAST: "INSTANT",
  FASTER_PAYMENTS: "INSTANT",
  FEDNOW: "INSTANT",
  INSTAPAY: "INSTANT",
  MOBILE_MONEY: "INSTANT",
  NEFT: "SAME_BUSINESS_DAY",
  PAYNOW: "INSTANT",
  PESONET: "SAME_BUSINESS_DAY",
  PIX: "INSTANT",
  RTGS: "SAME_BUSINESS_DAY",
  RTP: "INSTANT",
  SEPA: "NEXT_BUSINESS_DAY",
  SEPA_INSTANT: "INSTANT",
  SPEI: "INSTANT",
  SWIFT: "NEXT_BUSINESS_DAY",
  UNIONPAY: "SAME_BUSINESS_DAY",
  UPI: "INSTANT",
  WIRE: "SAME_BUSINESS_DAY"
}

/** The rails that settle at once: `expectedSettlementAt` is null for them in the API. */
export const isInstantRail = (rail: PaymentRail): boolean => RAIL_SETTLEMENT[rail] === "INSTANT"

/**
 * When a payout sent at `nowMillis` is expected to settle at the beneficiary (epoch ms).
 * INSTANT: now. SAME_BUSINESS_DAY: now on a business day, else the start of the next
 * one. NEXT_BUSINESS_DAY: the start of the next business day. ACH is next business day
 * in the sandbox and same business day in production.
 */
export const settlementAt = (rail: PaymentRail, nowMillis: number, sandbox: boolean): number => {
  const speed: SettlementSpeed = rail === "ACH" && !sandbox ? "SAME_BUSINESS_DAY" : RAIL_SETTLEMENT[rail]
  switch (speed) {
    case "INSTANT":
      return nowMillis
    case "SAME_BUSINESS_DAY":
      return isBusinessDay(nowMillis) ? nowMillis : nextBusinessDayStart(nowMillis)
    case "NEXT_BUSINESS_DAY":
      return nextBusinessDayStart(nowMillis)
  }
}

/**
 * A payment's sandbox steps (epoch ms, in order) held until its rail settles at
 * `settlement`: a completion due earlier moves to `settlement`, and every step from the
 * completion on (a return, say) keeps its spacing after it. So the payment completes
 * exactly when `expectedSettlementAt` says. Unchanged when nothing settles later.
 */
export const holdUntilSettlement = <S extends { readonly at: number; readonly move: { readonly type: string } }>(
  steps: ReadonlyArray<S>,
  settlement: number | undefined
): ReadonlyArray<S> => {
  const completion = steps.find((s) => s.move.type === "COMPLETE")
  if (settlement === undefined || completion === undefined || completion.at >= settlement) return steps
  const delay = settlement - completion.at
  return steps.map((s) => s.at >= completion.at ? { ...s, at: s.at + delay } : s)
}
