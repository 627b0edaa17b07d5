/**
 * The external-account status machine. Pure: `transition(status, event)` returns the
 * next status and the events to emit, or the rejection a refused move meets.
 *
 * SPEC.md states the ownership-verification moves; the reference file adds that a new
 * challenge moves UNVERIFIED back to PENDING_OWNERSHIP_VERIFICATION. The micro-entry
 * moves (PENDING -> ACTIVE / INACTIVE) are ours: see docs/decisions.md.
 */
import type { ExternalAccountStatus } from "../domain/external-account.js"
import { reject } from "./rejection.js"
import type { Moved } from "./result.js"
import { machine, type TransitionTable } from "./status-machine.js"

export type ExternalAccountEvent =
  | { readonly type: "OWNERSHIP_CHALLENGE_STARTED" }
  | { readonly type: "OWNERSHIP_VERIFICATION_SUCCEEDED" }
  | { readonly type: "OWNERSHIP_VERIFICATION_FAILED" }
  | { readonly type: "BANK_VALIDATION_SUCCEEDED" }
  | { readonly type: "BANK_VALIDATION_FAILED" }

export type ExternalAccountEmitted = { readonly type: "EXTERNAL_ACCOUNT.STATUS_UPDATED"; readonly from: ExternalAccountStatus; readonly to: ExternalAccountStatus }

/** The next status and its events; what a move schedules is `movesOnCreate` / `movesOnChallenge`'s. */
export type Transitioned = Moved<ExternalAccountStatus, ExternalAccountEmitted>

/** Every allowed move: from -> event -> to. Anything not listed is refused. */
export const EXTERNAL_ACCOUNT_TRANSITIONS: TransitionTable<ExternalAccountStatus, ExternalAccountEvent["type"]> = {
  PENDING_OWNERSHIP_VERIFICATION: {
    OWNERSHIP_CHALLENGE_STARTED: "PENDING_OWNERSHIP_VERIFICATION",
    OWNERSHIP_VERIFICATION_SUCCEEDED: "ACTIVE",
    OWNERSHIP_VERIFICATION_FAILED: "UNVERIFIED"
  },
  UNVERIFIED: {
    OWNERSHIP_CHALLENGE_STARTED: "PENDING_OWNERSHIP_VERIFICATION"
  },
  PENDING: {
    BANK_VALIDATION_SUCCEEDED: "ACTIVE",
    BANK_VALIDATION_FAILED: "INACTIVE"
  }
}

const describe = (event: ExternalAccountEvent["type"]): string => event.toLowerCase().replace(/_/g, " ")

export const transition = machine<ExternalAccountStatus, ExternalAccountEvent["type"], ExternalAccountEmitted, "CONFLICT">({
  table: EXTERNAL_ACCOUNT_TRANSITIONS,
  emits: (from, to) => [{ type: "EXTERNAL_ACCOUNT.STATUS_UPDATED", from, to }],
  reject: (status, event) => reject("CONFLICT", `An external account in status ${status} does not accept: ${describe(event)}`, { status, event })
})

// ---------------------------------------------------------------- moves scheduled as data

/** A move the machine asks for later, as data: at `at` (epoch ms, platform clock), apply `event`. */
export interface ExternalAccountScheduledMove {
  readonly at: number
  readonly event: "BANK_VALIDATION_SUCCEEDED" | "BANK_VALIDATION_FAILED" | "OWNERSHIP_VERIFICATION_SUCCEEDED"
}

const DAY_MS = 86_400_000
/** How long the sandbox's hosted liveness check takes to pass. */
export const SANDBOX_LIVENESS_DELAY_MS = 30_000

/** What a new account schedules: its micro-entry validation result, when it has one. */
export const movesOnCreate = (
  bankValidation: { readonly outcome: "validated" | "failed"; readonly afterDays: number } | undefined,
  now: number
): ReadonlyArray<ExternalAccountScheduledMove> =>
  bankValidation === undefined ? [] : [{
    at: now + bankValidation.afterDays * DAY_MS,
    event: bankValidation.outcome === "validated" ? "BANK_VALIDATION_SUCCEEDED" : "BANK_VALIDATION_FAILED"
  }]

/** What an ownership challenge schedules: on a sandbox platform, a LIVENESS check passing by itself. */
export const movesOnChallenge = (
  method: "WALLET_SIGNATURE" | "LIVENESS",
  sandbox: boolean,
  now: number
): ReadonlyArray<ExternalAccountScheduledMove> =>
  method === "LIVENESS" && sandbox ? [{ at: now + SANDBOX_LIVENESS_DELAY_MS, event: "OWNERSHIP_VERIFICATION_SUCCEEDED" }] : []
