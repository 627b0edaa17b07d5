/**
 * Authorization decisioning: whether an authorization-family message is approved, and
 * which funding source pays (or receives) it. Pure; the caller gathers the card, its
 * funding sources in priority order with their balances and delegated keys, and the
 * sandbox outcome of the merchant descriptor (`simulations.ts`).
 *
 * In order, the first that applies decides (docs/card-transactions.md):
 * 1. the card is not ACTIVE (FROZEN or CLOSED): declined CARD_NOT_ACTIVE;
 * 2. sandbox suffix 003: declined CARD_NOT_ACTIVE;
 * 3. a debit above the card's `maxSpendPerTransaction`: declined SPEND_LIMIT_EXCEEDED
 *    (exactly the limit is allowed; credits are not limited);
 * 4. no funding source is eligible at all: declined NO_ELIGIBLE_FUNDING_SOURCE. A source
 *    is eligible when its internal account exists, is ACTIVE and is in the card's
 *    currency, and, for an EMBEDDED_WALLET account, its binding has an ACTIVE delegated
 *    key (the service signs the wallet's pull with it);
 * 5. sandbox suffix 002: declined INSUFFICIENT_FUNDS (the pull fails);
 * 6. a credit: approved on the first eligible source;
 * 7. a debit: approved on the first eligible source, in priority order, whose available
 *    balance covers the amount; when none does, the sandbox declines INSUFFICIENT_FUNDS
 *    (SPEC.md: sandbox only) and production approves on the first eligible source,
 *    uncovered (SPEC.md: it resolves as EXCEPTION at clearing if still uncovered).
 */
import type { CardSimulationOutcome } from "./simulations.js"
import type { AuthorizationDecision, OpeningKind } from "./transactions.js"
import { directionOf } from "./transactions.js"
import { reject, type Rejection } from "../rejection.js"
import { currencyOf } from "../../domain/money.js"

/** A funding source of the card as the caller found it. */
export interface FundingCandidate {
  readonly accountId: string
  /** The binding's id (`CardFundingSource:<uuid>`): what a delegated key signs for. */
  readonly bindingId: string
  /** Undefined when the internal account no longer exists. */
  readonly account?: {
    readonly status: string
    readonly currency: string
    readonly type: string
  } | undefined
  /** The account's balance (what is already held for other authorizations is not in it). */
  readonly available: number
  /** An ACTIVE delegated key exists for the binding. */
  readonly delegatedKeyActive: boolean
}

export type FundingIneligibility = "ACCOUNT_NOT_FOUND" | "ACCOUNT_NOT_ACTIVE" | "CURRENCY_MISMATCH" | "NO_ACTIVE_DELEGATED_KEY"

/** Why a source cannot fund an authorization now, or undefined when it can. */
export const fundingIneligibility = (source: FundingCandidate, cardCurrency: string): FundingIneligibility | undefined => {
  const account = source.account
  if (account === undefined) return "ACCOUNT_NOT_FOUND"
  if (account.status !== "ACTIVE") return "ACCOUNT_NOT_ACTIVE"
  if (account.currency !== cardCurrency) return "CURRENCY_MISMATCH"
  if (account.type === "EMBEDDED_WALLET" && !source.delegatedKeyActive) return "NO_ACTIVE_DELEGATED_KEY"
  return undefined
}

export interface DecisionInput {
  readonly kind: OpeningKind
  /** Minor units of the card's currency (0 for a balance inquiry). */
  readonly amount: number
  readonly card: {
    readonly status: string
    readonly currency: string
    readonly maxSpendPerTransaction: number | null
  }
  /** The card's funding sources in priority order. */
  readonly sources: ReadonlyArray<FundingCandidate>
  /** The merchant descriptor's sandbox outcome (always APPROVED on production platforms). */
  readonly simulation: CardSimulationOutcome
  readonly sandbox: boolean
}

export const decide = (input: DecisionInput): AuthorizationDecision => {
  const { kind, amount, card, sources, simulation, sandbox } = input
  const eligible = sources.filter((s) => fundingIneligibility(s, card.currency) === undefined)
  const shownAccount = (eligible[0] ?? sources[0])?.accountId
  const declined = (reason: Extract<AuthorizationDecision, { approved: false }>["reason"]): AuthorizationDecision => ({
    approved: false,
    reason,
    ...(shownAccount === undefined ? {} : { accountId: shownAccount })
  })
  const debit = directionOf(kind) === "DEBIT"

  if (card.status !== "ACTIVE") return declined("CARD_NOT_ACTIVE")
  if (simulation.type === "DECLINED" && simulation.reason === "CARD_NOT_ACTIVE") return declined("CARD_NOT_ACTIVE")
  if (debit && card.maxSpendPerTransaction !== null && amount > card.maxSpendPerTransaction) return declined("SPEND_LIMIT_EXCEEDED")
  const first = eligible[0]
  if (first === undefined) return declined("NO_ELIGIBLE_FUNDING_SOURCE")
  if (simulation.type === "DECLINED") return declined(simulation.reason)

  const pulls = debit && amount > 0
  const pull = !pulls ? "CONFIRMED" : simulation.type === "DELAYED_PULL" ? "DELAYED" : simulation.type === "CONFIRMATION_FAILED" ? "CONFIRMATION_FAILED" : "CONFIRMED"
  if (!debit) return { approved: true, accountId: first.accountId, covered: true, pull }
  const covering = eligible.find((s) => s.available >= amount)
  if (covering !== undefined) return { approved: true, accountId: covering.accountId, covered: true, pull }
  if (sandbox) return { approved: false, reason: "INSUFFICIENT_FUNDS", accountId: first.accountId }
  return { approved: true, accountId: first.accountId, covered: false, pull: "CONFIRMED" }
}

/**
 * The simulated message's currency must be the card's (the network converts before it
 * reaches the issuer, so a card only sees its own currency); `decimals`, when sent, must
 * be the currency's (an amount in another unit would be misread). 400 INVALID_CURRENCY.
 */
export const authorizationCurrencyError = (
  requested: { readonly code: string; readonly decimals?: number | undefined },
  cardCurrency: string
): Rejection<"INVALID_CURRENCY"> | undefined => {
  const known = currencyOf(requested.code)
  if (known === undefined) {
    return reject("INVALID_CURRENCY", `Unknown currency ${requested.code}`, { field: "currency.code", currency: requested.code })
  }
  if (requested.code !== cardCurrency) {
    return reject("INVALID_CURRENCY", `The card is in ${cardCurrency}: an authorization in ${requested.code} cannot be simulated on it`, { field: "currency.code", currency: requested.code, cardCurrency })
  }
  if (requested.decimals !== undefined && requested.decimals !== known.decimals) {
    return reject("INVALID_CURRENCY", `${known.code} has ${known.decimals} decimals, not ${requested.decimals}`, { field: "currency.decimals", decimals: requested.decimals, expected: known.decimals })
  }
  return undefined
}
