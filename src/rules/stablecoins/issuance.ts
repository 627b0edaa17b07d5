/**
 * The provider's issuance status of a registered stablecoin (reference
 * `StablecoinIssuanceStatus`): PENDING_REVIEW, then PROVISIONING, then PROVISIONED; the
 * provider may reject a token under review (REJECTED) or fail to provision it (FAILED).
 * The simulated provider moves it on the platform clock (docs/stablecoins.md).
 */
import type { StablecoinIssuanceStatus } from "../../domain/stablecoin.js"
import { reject, type Rejection } from "../rejection.js"
import { fail, type Moved, ok, type Result } from "../result.js"

export type IssuanceEvent = "ACCEPT" | "REJECT" | "PROVISION" | "FAIL"

export const ISSUANCE_TRANSITIONS: Readonly<Record<StablecoinIssuanceStatus, Partial<Record<IssuanceEvent, StablecoinIssuanceStatus>>>> = {
  PENDING_REVIEW: { ACCEPT: "PROVISIONING", REJECT: "REJECTED" },
  PROVISIONING: { PROVISION: "PROVISIONED", FAIL: "FAILED" },
  PROVISIONED: {},
  REJECTED: {},
  FAILED: {}
}

/** The provider's review of a newly registered token, and then its provisioning: 30 seconds each. */
export const REVIEW_DELAY_MILLIS = 30_000
export const PROVISIONING_DELAY_MILLIS = 30_000

/** What the provider will do with a token: the sandbox's suffix table (rules/stablecoins/sandbox.ts). */
export type IssuanceOutcome = "PROVISIONED" | "REJECTED" | "FAILED"

/** A move the provider makes later: `afterMillis` from the move that asked for it. */
export interface IssuanceScheduled {
  readonly afterMillis: number
  readonly event: IssuanceEvent
}

/** The next status; issuance moves announce no webhook. */
export type IssuanceMove = Moved<StablecoinIssuanceStatus, never, IssuanceScheduled>

/** The status a token is registered in and the provider's first move. */
export const registered = (outcome: IssuanceOutcome): IssuanceMove => ({
  state: "PENDING_REVIEW",
  events: [],
  scheduled: [{ afterMillis: REVIEW_DELAY_MILLIS, event: outcome === "REJECTED" ? "REJECT" : "ACCEPT" }]
})

export const transition = (
  state: StablecoinIssuanceStatus,
  event: IssuanceEvent,
  outcome: IssuanceOutcome
): Result<IssuanceMove, Rejection<"INVALID_STATE_TRANSITION">> => {
  const to = ISSUANCE_TRANSITIONS[state][event]
  if (to === undefined) return fail(reject("INVALID_STATE_TRANSITION", `${event} does not apply to a stablecoin whose issuance is ${state}`, { issuanceStatus: state, event }))
  if (event === "ACCEPT") {
    return ok({ state: to, events: [], scheduled: [{ afterMillis: PROVISIONING_DELAY_MILLIS, event: outcome === "FAILED" ? "FAIL" : "PROVISION" }] })
  }
  return ok({ state: to, events: [], scheduled: [] })
}
