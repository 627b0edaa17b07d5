/**
 * The individual KYC status machine (`kycStatus`). SPEC.md "Customer verification":
 * UNVERIFIED and PENDING can still move; APPROVED and REJECTED are final, so a further
 * submission is refused with 400 and nothing (a rename included) re-derives them.
 */
import { reject, type Rejection } from "./rejection.js"
import { machine, type TransitionTable } from "./status-machine.js"

export type KycState = "UNVERIFIED" | "PENDING" | "APPROVED" | "REJECTED" | "HOLD"

export type KycEvent =
  /** A verification packet was submitted: allowed only while the status can still move. */
  | { readonly type: "SUBMITTED" }
  /** The packet went to manual review. */
  | { readonly type: "REVIEW_STARTED" }
  | { readonly type: "APPROVED" }
  | { readonly type: "REJECTED" }

export type KycEmitted = "CUSTOMER.KYC_PENDING" | "CUSTOMER.KYC_APPROVED" | "CUSTOMER.KYC_REJECTED"

export const FINAL_STATUSES: ReadonlySet<string> = new Set(["APPROVED", "REJECTED"])
export const isFinal = (status: string): boolean => FINAL_STATUSES.has(status)

export const KYC_TRANSITIONS: TransitionTable<KycState, KycEvent["type"]> = {
  UNVERIFIED: { SUBMITTED: "UNVERIFIED", REVIEW_STARTED: "PENDING", APPROVED: "APPROVED", REJECTED: "REJECTED" },
  PENDING: { SUBMITTED: "PENDING", REVIEW_STARTED: "PENDING", APPROVED: "APPROVED", REJECTED: "REJECTED" }
}

/** The rejection a move out of a final (or held) status becomes. */
export const finalStatusRejection = (what: "KYC" | "KYB", status: string): Rejection<"INVALID_INPUT"> =>
  reject(
    "INVALID_INPUT",
    isFinal(status)
      ? `${what} status is ${status}, which is final: no further verification submissions are accepted`
      : `${what} status is ${status}: verification cannot proceed from this status`,
    { [what === "KYC" ? "kycStatus" : "kybStatus"]: status }
  )

export const transition = machine<KycState, KycEvent["type"], KycEmitted, "INVALID_INPUT">({
  table: KYC_TRANSITIONS,
  emits: (_from, to) => to === "UNVERIFIED" || to === "HOLD" ? [] : [`CUSTOMER.KYC_${to}`],
  reject: (state) => finalStatusRejection("KYC", state)
})
