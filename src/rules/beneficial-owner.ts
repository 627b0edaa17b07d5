/**
 * The beneficial-owner status machine (the owner's `kycStatus`). An owner resolves
 * when its business resolves terminally; APPROVED and REJECTED are final. The
 * reference file has no webhook for owners, so changes emit nothing.
 */
import { reject } from "./rejection.js"
import { machine, type TransitionTable } from "./status-machine.js"
import type { KycState } from "./kyc.js"

export type OwnerState = KycState
export type OwnerEvent =
  | { readonly type: "REVIEW_STARTED" }
  | { readonly type: "APPROVED" }
  | { readonly type: "REJECTED" }

export const OWNER_TRANSITIONS: TransitionTable<OwnerState, OwnerEvent["type"]> = {
  UNVERIFIED: { REVIEW_STARTED: "PENDING", APPROVED: "APPROVED", REJECTED: "REJECTED" },
  PENDING: { REVIEW_STARTED: "PENDING", APPROVED: "APPROVED", REJECTED: "REJECTED" }
}

export const transition = machine<OwnerState, OwnerEvent["type"], never, "CONFLICT">({
  table: OWNER_TRANSITIONS,
  emits: () => [],
  reject: (state, event) =>
    reject("CONFLICT", `A beneficial owner in status ${state} cannot move on ${event}: the status is final`, { kycStatus: state, event })
})
