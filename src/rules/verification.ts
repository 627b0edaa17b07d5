/**
 * The status machine of one verification (one POST /verifications submission).
 *
 *   NEW --INCOMPLETE--> RESOLVE_ERRORS
 *   NEW --ACCEPTED--> IN_PROGRESS --ERRORS_FOUND--> RESOLVE_ERRORS
 *                                 --MANUAL_REVIEW--> PENDING_MANUAL_REVIEW --APPROVED/REJECTED--> final
 *                                 --APPROVED/REJECTED--> final
 *
 * Every change of status emits VERIFICATION.<new status>, as the reference file's
 * verification webhook does.
 */
import type { VerificationStatus } from "../domain/verification.js"
import { reject } from "./rejection.js"
import { ok } from "./result.js"
import { machine, type Transitioned, type TransitionTable } from "./status-machine.js"

export type VerificationState = "NEW" | Exclude<VerificationStatus, "READY_FOR_VERIFICATION">

export type VerificationEvent =
  /** The packet misses data or documents. */
  | { readonly type: "INCOMPLETE" }
  /** The packet is taken for a decision. */
  | { readonly type: "ACCEPTED" }
  /** The decision found correctable problems (for example a poor-quality document). */
  | { readonly type: "ERRORS_FOUND" }
  | { readonly type: "MANUAL_REVIEW" }
  | { readonly type: "APPROVED" }
  | { readonly type: "REJECTED" }

export type VerificationEmitted = `VERIFICATION.${Exclude<VerificationState, "NEW">}`

export const VERIFICATION_TRANSITIONS: TransitionTable<VerificationState, VerificationEvent["type"]> = {
  NEW: { INCOMPLETE: "RESOLVE_ERRORS", ACCEPTED: "IN_PROGRESS" },
  IN_PROGRESS: { ERRORS_FOUND: "RESOLVE_ERRORS", MANUAL_REVIEW: "PENDING_MANUAL_REVIEW", APPROVED: "APPROVED", REJECTED: "REJECTED" },
  PENDING_MANUAL_REVIEW: { APPROVED: "APPROVED", REJECTED: "REJECTED" }
}

export const transition = machine<VerificationState, VerificationEvent["type"], VerificationEmitted, "INVALID_STATE_TRANSITION">({
  table: VERIFICATION_TRANSITIONS,
  emits: (_from, to) => to === "NEW" ? [] : [`VERIFICATION.${to}`],
  reject: (state, event) =>
    reject("INVALID_STATE_TRANSITION", `A verification in status ${state} does not accept ${event}`, { state, event })
})

/** Runs a sequence of events from `NEW`; the path a submission takes. */
export const run = (events: ReadonlyArray<VerificationEvent>) => {
  let state: VerificationState = "NEW"
  const emitted: Array<VerificationEmitted> = []
  for (const e of events) {
    const r = transition(state, e)
    if (!r.ok) return r
    state = r.value.state
    emitted.push(...r.value.events)
  }
  return ok<Transitioned<VerificationState, VerificationEmitted>>({ state, events: emitted, scheduled: [] })
}
