/**
 * SPEC.md "Stablecoin Grid-operations enablement status": NOT_ENABLED, PENDING_APPROVAL,
 * ENABLING, ENABLED, DISABLED. The platform may only request enablement: accepted while
 * NOT_ENABLED (to PENDING_APPROVAL), a repeat while PENDING_APPROVAL succeeds and changes
 * nothing, anything else is 409 STABLECOIN_GRID_ENABLEMENT_NOT_REQUESTABLE. The other
 * moves are the service operator's (APPROVE, DECLINE, COMPLETE, DISABLE); the reference
 * server plays the operator with scheduled moves on the platform clock (docs/stablecoins.md).
 */
import type { StablecoinGridOperationsStatus } from "../../domain/stablecoin.js"
import { fail, ok, type Result } from "../result.js"

export type EnablementEvent = "REQUEST" | "APPROVE" | "DECLINE" | "COMPLETE" | "DISABLE"

export const ENABLEMENT_TRANSITIONS: Readonly<Record<StablecoinGridOperationsStatus, Partial<Record<EnablementEvent, StablecoinGridOperationsStatus>>>> = {
  NOT_ENABLED: { REQUEST: "PENDING_APPROVAL" },
  PENDING_APPROVAL: { REQUEST: "PENDING_APPROVAL", APPROVE: "ENABLING", DECLINE: "DISABLED" },
  ENABLING: { COMPLETE: "ENABLED", DISABLE: "DISABLED" },
  ENABLED: { DISABLE: "DISABLED" },
  DISABLED: {}
}

/** The operator's review of a request, on the platform clock: about a minute. */
export const APPROVAL_DELAY_MILLIS = 60_000
/** Enabling (the operator's setup once approved): another minute. */
export const ENABLING_DELAY_MILLIS = 60_000

export interface EnablementRejection {
  readonly code: "STABLECOIN_GRID_ENABLEMENT_NOT_REQUESTABLE" | "INVALID_STATE_TRANSITION"
  readonly reason: string
}

export interface EnablementMove {
  readonly state: StablecoinGridOperationsStatus
  /** A move the operator makes later: `afterMillis` from now. */
  readonly scheduled?: { readonly afterMillis: number; readonly event: EnablementEvent } | undefined
}

/**
 * One move of the machine. `declined`: the operator will decline this request (the
 * sandbox's `903` token suffix); it decides which move a new request schedules.
 */
export const transition = (
  state: StablecoinGridOperationsStatus,
  event: EnablementEvent,
  options: { readonly declined?: boolean } = {}
): Result<EnablementMove, EnablementRejection> => {
  const to = ENABLEMENT_TRANSITIONS[state][event]
  if (to === undefined) {
    return fail(event === "REQUEST"
      ? { code: "STABLECOIN_GRID_ENABLEMENT_NOT_REQUESTABLE", reason: `Grid-operations enablement can only be requested while NOT_ENABLED (or repeated while PENDING_APPROVAL); it is ${state}` }
      : { code: "INVALID_STATE_TRANSITION", reason: `${event} does not apply to a stablecoin whose Grid operations are ${state}` })
  }
  if (event === "REQUEST" && state === "NOT_ENABLED") {
    return ok({ state: to, scheduled: { afterMillis: APPROVAL_DELAY_MILLIS, event: options.declined === true ? "DECLINE" : "APPROVE" } })
  }
  if (event === "APPROVE") return ok({ state: to, scheduled: { afterMillis: ENABLING_DELAY_MILLIS, event: "COMPLETE" } })
  return ok({ state: to })
}
