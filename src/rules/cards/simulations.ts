/**
 * The sandbox's card-authorization table as data (reference `simulate/authorization`:
 * the last three characters of `merchant.descriptor` select the outcome), and the
 * timings of the card-transaction machine. Production platforms never see a magic
 * value: `cardSimulationOutcome(descriptor, false)` is always APPROVED.
 *
 * | Suffix | Outcome |
 * |---|---|
 * | 002 | Declined INSUFFICIENT_FUNDS (the pull on the funding source fails) |
 * | 003 | Declined CARD_NOT_ACTIVE (the reference's CARD_PAUSED, which SPEC.md's decline reasons do not have: a paused card is a card that is not active) |
 * | 005 | Approved; the pull stays PENDING about 30 seconds, then CONFIRMED |
 * | 006 | Approved and pulled; the confirmation reports FAILED: EXCEPTION |
 * | any other | Approved |
 *
 * The table applies to every authorization-family simulation. 002 and 003 decline
 * credits too (the reference: "as with simulate/authorization"); 005 and 006 shape a
 * pull, which credits and balance inquiries have none of, so there they are approvals.
 */
import type { CardDeclinedReason } from "../../domain/card-transaction.js"
import { suffixOf } from "../sandbox/suffix.js"

export type CardSimulationOutcome =
  | { readonly type: "APPROVED" }
  | { readonly type: "DECLINED"; readonly reason: CardDeclinedReason }
  | { readonly type: "DELAYED_PULL" }
  | { readonly type: "CONFIRMATION_FAILED" }

export interface CardSimulationRow {
  readonly suffix: string
  readonly description: string
  readonly outcome: CardSimulationOutcome
}

/** Suffix 005: how long the pull stays PENDING before it is CONFIRMED ("~30s"). */
export const DELAYED_PULL_MS = 30_000
/**
 * How long an approved authorization stays open without a clearing before it expires
 * (VOIDED; a partially settled one SETTLED with the rest released): 7 days of the
 * platform's clock (our choice: the common network window for most merchant categories).
 */
export const AUTHORIZATION_EXPIRY_MS = 7 * 24 * 60 * 60 * 1000

export const CARD_SIMULATION_OUTCOMES: Readonly<Record<string, CardSimulationRow>> = {
  "002": {
    suffix: "002",
    description: "Declined: INSUFFICIENT_FUNDS (the pull on the funding source fails).",
    outcome: { type: "DECLINED", reason: "INSUFFICIENT_FUNDS" }
  },
  "003": {
    suffix: "003",
    description: "Declined: CARD_NOT_ACTIVE (the reference's CARD_PAUSED: a frozen card refuses authorizations).",
    outcome: { type: "DECLINED", reason: "CARD_NOT_ACTIVE" }
  },
  "005": {
    suffix: "005",
    description: "Approved; the pull stays PENDING about 30 seconds, then CONFIRMED.",
    outcome: { type: "DELAYED_PULL" }
  },
  "006": {
    suffix: "006",
    description: "Approved and pulled, but the confirmation reports FAILED: the row lands in EXCEPTION.",
    outcome: { type: "CONFIRMATION_FAILED" }
  }
}

export const CARD_SIMULATION_APPROVED: CardSimulationRow = {
  suffix: "other",
  description: "Approved.",
  outcome: { type: "APPROVED" }
}

/** The row a merchant descriptor selects; on a production platform always the approval. */
export const cardSimulationRow = (descriptor: string, sandbox: boolean): CardSimulationRow => {
  if (!sandbox) return CARD_SIMULATION_APPROVED
  const suffix = suffixOf(descriptor)
  return Object.prototype.hasOwnProperty.call(CARD_SIMULATION_OUTCOMES, suffix) ? CARD_SIMULATION_OUTCOMES[suffix]! : CARD_SIMULATION_APPROVED
}

export const cardSimulationOutcome = (descriptor: string, sandbox: boolean): CardSimulationOutcome =>
  cardSimulationRow(descriptor, sandbox).outcome
