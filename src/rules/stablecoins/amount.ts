/**
 * Stablecoin amounts: digit strings in the token's smallest unit. A mint or burn must
 * convert exactly to a whole fiat minor unit (a cent for USD) at the token's decimals
 * (the reference: "must convert exactly to a whole fiat cent"), and the fiat amount must
 * stay within the service's amount range (`MAX_AMOUNT`, exact in a JSON number).
 */
import { MAX_AMOUNT } from "../../domain/money.js"
import { fail, ok, type Result } from "../result.js"

export type AmountProblem =
  | { readonly kind: "zero" }
  | { readonly kind: "fraction"; readonly step: string }
  | { readonly kind: "too-large"; readonly max: string }

/** Token units per fiat minor unit, or fiat minor units per token unit (decimals below the fiat's). */
const scale = (tokenDecimals: number, fiatDecimals: number): { readonly tokenPerFiat: bigint; readonly fiatPerToken: bigint } =>
  tokenDecimals >= fiatDecimals
    ? { tokenPerFiat: 10n ** BigInt(tokenDecimals - fiatDecimals), fiatPerToken: 1n }
    : { tokenPerFiat: 1n, fiatPerToken: 10n ** BigInt(fiatDecimals - tokenDecimals) }

/**
 * The fiat minor units an amount of `tokenDecimals` converts to, when it converts
 * exactly and is positive and in range.
 */
export const fiatMinorUnits = (amount: string, tokenDecimals: number, fiatDecimals: number): Result<number, AmountProblem> => {
  const units = BigInt(amount)
  if (units === 0n) return fail({ kind: "zero" })
  const { tokenPerFiat, fiatPerToken } = scale(tokenDecimals, fiatDecimals)
  if (units % tokenPerFiat !== 0n) return fail({ kind: "fraction", step: tokenPerFiat.toString() })
  const minor = (units / tokenPerFiat) * fiatPerToken
  if (minor > BigInt(MAX_AMOUNT)) return fail({ kind: "too-large", max: ((BigInt(MAX_AMOUNT) / fiatPerToken) * tokenPerFiat).toString() })
  return ok(Number(minor))
}

/** The token amount (digit string) of `minor` fiat minor units: the inverse of `fiatMinorUnits`. */
export const tokenUnits = (minor: number, tokenDecimals: number, fiatDecimals: number): string => {
  const { tokenPerFiat, fiatPerToken } = scale(tokenDecimals, fiatDecimals)
  return ((BigInt(minor) * tokenPerFiat) / fiatPerToken).toString()
}
