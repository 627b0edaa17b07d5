/**
 * The card PIN machine (SPEC.md "Card PIN status"): NOT_SET, OK, BLOCKED. Three
 * consecutive incorrect entries block the PIN; POST /cards/{id}/pin/unblock clears a
 * block without changing the PIN; either PIN-entry flow (the set-pin iframe, POST
 * /cards/{id}/set-pin) replaces it. A change of the saved status fires
 * CARD.PIN_STATUS_CHANGE. SPEC.md does not say the status after an unblock or a new
 * PIN: ours is OK for both (docs/decisions.md).
 */
import type { CardPinStatus } from "../../domain/card.js"
import { reject, type Rejection } from "../rejection.js"
import { fail, type Moved, ok, type Result } from "../result.js"

/** Incorrect entries in a row that block the PIN. */
export const MAX_PIN_FAILURES = 3

export interface PinState {
  readonly pinStatus: CardPinStatus
  /** Consecutive incorrect entries since the PIN was set or unblocked. */
  readonly failures: number
}

export type PinEvent =
  | { readonly type: "PIN_SET" }
  | { readonly type: "PIN_UNBLOCKED" }
  | { readonly type: "PIN_ENTERED"; readonly correct: boolean }

export type PinTransitioned = Moved<PinState, "CARD.PIN_STATUS_CHANGE", never, {
  /** For PIN_ENTERED: whether the entry was accepted (a correct PIN that is not blocked). */
  readonly accepted: boolean
}>

const moved = (from: PinState, to: PinState, accepted: boolean): PinTransitioned => ({
  state: to,
  events: to.pinStatus === from.pinStatus ? [] : ["CARD.PIN_STATUS_CHANGE"],
  scheduled: [],
  accepted
})

export const transition = (state: PinState, event: PinEvent): Result<PinTransitioned, Rejection<"INVALID_STATE_TRANSITION">> => {
  switch (event.type) {
    case "PIN_SET":
      return ok(moved(state, { pinStatus: "OK", failures: 0 }, true))
    case "PIN_UNBLOCKED":
      return state.pinStatus === "BLOCKED"
        ? ok(moved(state, { pinStatus: "OK", failures: 0 }, true))
        : fail(reject("INVALID_STATE_TRANSITION", `The card's PIN is ${state.pinStatus}, not BLOCKED: there is nothing to unblock`, {
          pinStatus: state.pinStatus
        }))
    case "PIN_ENTERED": {
      if (state.pinStatus === "NOT_SET") {
        return fail(reject("INVALID_STATE_TRANSITION", "The card has no PIN set: a PIN entry cannot be checked", {
          pinStatus: state.pinStatus
        }))
      }
      if (state.pinStatus === "BLOCKED") return ok(moved(state, state, false))
      if (event.correct) return ok(moved(state, { pinStatus: "OK", failures: 0 }, true))
      const failures = state.failures + 1
      return ok(moved(state, { pinStatus: failures >= MAX_PIN_FAILURES ? "BLOCKED" : "OK", failures }, false))
    }
  }
}
