/**
 * SPEC.md "Stablecoin Grid-operations enablement status": NOT_ENABLED, PENDING_APPROVAL,
 * ENABLING, ENABLED, DISABLED. The platform may only request enablement: accepted while
 * NOT_ENABLED (to PENDING_APPROVAL), a repeat while PENDING_APPROVAL succeeds and changes
 * nothing, anything else is STABLECOIN_GRID_ENABLEMENT_NOT_REQUESTABLE. The other
 * moves are the service operator's (APPROVE, DECLINE, COMPLETE, DISABLE); the reference
 * server plays the operator with scheduled moves on the platform clock (docs/stablecoins.md).
 */
import type { StablecoinGridOperationsStatus } from "../../domain/stablecoin.js"
import { reject, type Rejection } from "../rejection.js"
import { fail, type Moved, ok, type Result } from "../result.js"

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

export type EnablementRejection = Rejection<"STABLECOIN_GRID_ENABLEMENT_NOT_REQUESTABLE" | "INVALID_STATE_TRANSITION">

/** A move the operator makes later: `afterMillis` from the move that asked for it. */
export interface EnablementScheduled {
  readonly afterMillis: number
  readonly event: EnablementEvent
}

/** The next status; enablement moves announce no webhook. */
export type EnablementMove = Moved<StablecoinGridOperationsStatus, never, EnablementScheduled>

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
      ? reject(
        "STABLECOIN_GRID_ENABLEMENT_NOT_REQUESTABLE",
        `Grid-operations enablement can only be requested while NOT_ENABLED (or repeated while PENDING_APPROVAL); it is ${state}`,
        { gridOperationsStatus: state }
      )
      : reject("INVALID_STATE_TRANSITION", `${event} does not apply to a stablecoin whose Grid operations are ${state}`, { gridOperationsStatus: state, event }))
  }
  const later = (afterMillis: number, next: EnablementEvent): EnablementMove => ({ state: to, events: [], scheduled: [{ afterMillis, event: next }] })
  if (event === "REQUEST" && state === "NOT_ENABLED") return ok(later(APPROVAL_DELAY_MILLIS, options.declined === true ? "DECLINE" : "APPROVE"))
  if (event === "APPROVE") return ok(later(ENABLING_DELAY_MILLIS, "COMPLETE"))
  return ok({ state: to, events: [], scheduled: [] })
}
