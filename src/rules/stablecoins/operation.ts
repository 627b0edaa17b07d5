/**
 * The stablecoin issuer operation machine (reference `StablecoinOperationStatus`) and
 * the course an operation takes, decided when it is created, as data: its first status
 * and the moves the simulated provider makes later on the platform clock.
 *
 *   PENDING_FUNDING --FUNDS_RECEIVED--> PROCESSING --SETTLED--> COMPLETED
 *   PENDING_FUNDING --EXPIRED--> EXPIRED          (nobody sent the funds in time)
 *   PENDING_PROVIDER --PROVIDER_ACCEPTED--> PROCESSING
 *   PENDING_PROVIDER | PROCESSING --FAILED--> FAILED
 *
 * CREATED is the reference's status before the provider is asked; an operation is
 * answered after that, so it is never shown (docs/stablecoins.md).
 */
import type { StablecoinOperationStatus, StablecoinPayoutRail } from "../../domain/stablecoin.js"
import { reject } from "../rejection.js"
import { machine, type TransitionTable } from "../status-machine.js"

export type OperationEventType = "FUNDS_RECEIVED" | "PROVIDER_ACCEPTED" | "SETTLED" | "FAILED" | "EXPIRED"

export const OPERATION_TRANSITIONS: TransitionTable<StablecoinOperationStatus, OperationEventType> = {
  CREATED: { PROVIDER_ACCEPTED: "PROCESSING", FAILED: "FAILED" },
  PENDING_FUNDING: { FUNDS_RECEIVED: "PROCESSING", EXPIRED: "EXPIRED" },
  PENDING_PROVIDER: { PROVIDER_ACCEPTED: "PROCESSING", FAILED: "FAILED" },
  PROCESSING: { SETTLED: "COMPLETED", FAILED: "FAILED" },
  COMPLETED: {},
  FAILED: {},
  EXPIRED: {}
}

export const isTerminal = (s: StablecoinOperationStatus): boolean => s === "COMPLETED" || s === "FAILED" || s === "EXPIRED"

/** One move: the event, and for FAILED the failure reason (`FAILED:<reason>` as a timer event). */
export interface OperationEvent {
  readonly type: OperationEventType
  readonly failureReason?: string | undefined
}

export const encodeEvent = (e: OperationEvent): string => e.failureReason === undefined ? e.type : `${e.type}:${e.failureReason}`
export const decodeEvent = (s: string): OperationEvent => {
  const colon = s.indexOf(":")
  const type = (colon < 0 ? s : s.slice(0, colon)) as OperationEventType
  return colon < 0 ? { type } : { type, failureReason: s.slice(colon + 1) }
}

/**
 * One move: the next status. An operation's later moves are its course's (decided when it
 * is created), so a move schedules nothing itself.
 */
export const transition = machine<StablecoinOperationStatus, OperationEventType, never, "INVALID_STATE_TRANSITION">({
  table: OPERATION_TRANSITIONS,
  emits: () => [],
  reject: (status, event) => reject("INVALID_STATE_TRANSITION", `${event} does not apply to a stablecoin operation in ${status}`, { status, event })
})

// ---------------------------------------------------------------- timings

/** Operations awaiting external funding (wire, tokens to the deposit address) expire after 7 days. */
export const FUNDING_WINDOW_MILLIS = 7 * 86_400_000
/** The sandbox's simulated incoming wire: 30 minutes. */
export const SANDBOX_WIRE_ARRIVAL_MILLIS = 30 * 60_000
/** The sandbox's simulated tokens arriving at the burn deposit address: 60 seconds. */
export const SANDBOX_TOKEN_ARRIVAL_MILLIS = 60_000
/** The provider accepting an ACH debit instruction. */
export const PROVIDER_ACCEPT_MILLIS = 60_000
/** Minting once fiat is at the provider. */
export const MINT_SETTLE_MILLIS = 30_000
/** ACH debits clear: next day (standard), a few hours (same day). */
export const ACH_DEBIT_SETTLE_MILLIS = 86_400_000
export const SAME_DAY_ACH_DEBIT_SETTLE_MILLIS = 4 * 3_600_000

/** The fiat payout of a burn, per rail: when it lands and the reference's human estimate. */
export const PAYOUT_TIMINGS: Readonly<Record<StablecoinPayoutRail, { readonly millis: number; readonly timing: string }>> = {
  WIRE: { millis: 3_600_000, timing: "same business day" },
  ACH_CREDIT: { millis: 2 * 86_400_000, timing: "1-3 business days" },
  SAME_DAY_ACH_CREDIT: { millis: 4 * 3_600_000, timing: "same business day" },
  RTP_CREDIT: { millis: 30_000, timing: "seconds" }
}

// ---------------------------------------------------------------- courses

/** A move due `at` (epoch ms on the platform clock). */
export interface ScheduledStep {
  readonly at: number
  readonly event: OperationEvent
}

export interface Course {
  readonly status: StablecoinOperationStatus
  /** The moves to come, in time order; the scheduler applies them one at a time. */
  readonly steps: ReadonlyArray<ScheduledStep>
  readonly expiresAt?: number | undefined
}

/** How a sandbox counterparty account behaves (rules/sandbox/identifiers.ts `transferOutcome`), as a failure reason and when. */
export type CounterpartyOutcome =
  | { readonly kind: "success" }
  | { readonly kind: "fails"; readonly failureReason: string; readonly late: boolean }

export type MintFunding =
  | { readonly type: "WIRE"; readonly sandbox: boolean }
  | { readonly type: "ACH_DEBIT" | "SAME_DAY_ACH_DEBIT"; readonly outcome: CounterpartyOutcome }
  | { readonly type: "GRID_INTERNAL_ACCOUNT" }

/** The course of a mint created at `now`. */
export const mintCourse = (funding: MintFunding, now: number): Course => {
  switch (funding.type) {
    case "WIRE": {
      const expiresAt = now + FUNDING_WINDOW_MILLIS
      // Production: nothing here wires money, so the window runs out (as a real-time funded quote's does).
      return funding.sandbox
        ? {
          status: "PENDING_FUNDING",
          expiresAt,
          steps: [
            { at: now + SANDBOX_WIRE_ARRIVAL_MILLIS, event: { type: "FUNDS_RECEIVED" } },
            { at: now + SANDBOX_WIRE_ARRIVAL_MILLIS + MINT_SETTLE_MILLIS, event: { type: "SETTLED" } }
          ]
        }
        : { status: "PENDING_FUNDING", expiresAt, steps: [{ at: expiresAt, event: { type: "EXPIRED" } }] }
    }
    case "ACH_DEBIT":
    case "SAME_DAY_ACH_DEBIT": {
      const accepted = now + PROVIDER_ACCEPT_MILLIS
      const settle = accepted + (funding.type === "ACH_DEBIT" ? ACH_DEBIT_SETTLE_MILLIS : SAME_DAY_ACH_DEBIT_SETTLE_MILLIS)
      const o = funding.outcome
      if (o.kind === "fails" && !o.late) {
        return { status: "PENDING_PROVIDER", steps: [{ at: accepted, event: { type: "FAILED", failureReason: o.failureReason } }] }
      }
      return {
        status: "PENDING_PROVIDER",
        steps: [
          { at: accepted, event: { type: "PROVIDER_ACCEPTED" } },
          o.kind === "fails"
            ? { at: accepted + 30_000, event: { type: "FAILED", failureReason: o.failureReason } }
            : { at: settle, event: { type: "SETTLED" } }
        ]
      }
    }
    case "GRID_INTERNAL_ACCOUNT":
      return { status: "PROCESSING", steps: [{ at: now + MINT_SETTLE_MILLIS, event: { type: "SETTLED" } }] }
  }
}

export type BurnSource =
  | { readonly type: "EXTERNAL_ACCOUNT"; readonly sandbox: boolean }
  | { readonly type: "PROVIDER_INTERNAL_BALANCE" }

/** The course of a burn created at `now`, paying out over `rail` to a destination that behaves as `payout`. */
export const burnCourse = (source: BurnSource, rail: StablecoinPayoutRail, payout: CounterpartyOutcome, now: number): Course => {
  const payoutSteps = (from: number): ReadonlyArray<ScheduledStep> =>
    payout.kind === "fails"
      ? [{ at: from + (payout.late ? PAYOUT_TIMINGS[rail].millis : PROVIDER_ACCEPT_MILLIS), event: { type: "FAILED", failureReason: payout.failureReason } }]
      : [{ at: from + PAYOUT_TIMINGS[rail].millis, event: { type: "SETTLED" } }]
  if (source.type === "PROVIDER_INTERNAL_BALANCE") return { status: "PROCESSING", steps: payoutSteps(now) }
  const expiresAt = now + FUNDING_WINDOW_MILLIS
  if (!source.sandbox) return { status: "PENDING_FUNDING", expiresAt, steps: [{ at: expiresAt, event: { type: "EXPIRED" } }] }
  const arrived = now + SANDBOX_TOKEN_ARRIVAL_MILLIS
  return { status: "PENDING_FUNDING", expiresAt, steps: [{ at: arrived, event: { type: "FUNDS_RECEIVED" } }, ...payoutSteps(arrived)] }
}
