/**
 * The business KYB status machine (`kybStatus`). Same moves as KYC: UNVERIFIED and
 * PENDING can still move; APPROVED and REJECTED are final.
 */
import { finalStatusRejection, KYC_TRANSITIONS, type KycEvent, type KycState } from "./kyc.js"
import { machine, type TransitionTable } from "./status-machine.js"

export type KybState = KycState
export type KybEvent = KycEvent
export type KybEmitted = "CUSTOMER.KYB_PENDING" | "CUSTOMER.KYB_APPROVED" | "CUSTOMER.KYB_REJECTED"

export const KYB_TRANSITIONS: TransitionTable<KybState, KybEvent["type"]> = KYC_TRANSITIONS

export const transition = machine<KybState, KybEvent["type"], KybEmitted, "INVALID_INPUT">({
  table: KYB_TRANSITIONS,
  emits: (_from, to) => to === "UNVERIFIED" || to === "HOLD" ? [] : [`CUSTOMER.KYB_${to}`],
  reject: (state) => finalStatusRejection("KYB", state)
})
