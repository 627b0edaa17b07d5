/**
 * The card status machine, as SPEC.md's "Card status" table (the reference's `state`
 * moves are the same: ACTIVE ⇄ FROZEN, ACTIVE | FROZEN → CLOSED, CLOSED terminal):
 *
 * | From   | Trigger                    | Next   | Else                             |
 * |--------|----------------------------|--------|----------------------------------|
 * | ACTIVE | status update (to FROZEN)  | FROZEN |                                  |
 * | FROZEN | status update (to ACTIVE)  | ACTIVE |                                  |
 * | ACTIVE | status update to CLOSED    | CLOSED | frees a card slot                |
 * | FROZEN | status update to CLOSED    | CLOSED | frees a card slot                |
 * | CLOSED | status update to CLOSED    | —      | 409 CARD_ALREADY_CLOSED          |
 * | CLOSED | any mutation               | —      | 409 CARD_NOT_MUTABLE             |
 * | any    | a move not listed above    | —      | 409 INVALID_STATE_TRANSITION     |
 *
 * Pure: `transition(status, event)` returns the next status, the events it announces
 * and whether it frees a slot, or the rejection a refused move meets. `planUpdate` reads a
 * whole PATCH body: the request-shape rules (400 INVALID_INPUT) first, then the machine.
 */
import type { CardStatus, CardUpdateRequest } from "../../domain/card.js"
import { invalidInput, reject, type Rejection } from "../rejection.js"
import { fail, type Moved, ok, type Result } from "../result.js"

export type CardEvent =
  /** A PATCH asking for `to` (as `state` or `status`). */
  | { readonly type: "STATUS_UPDATE"; readonly to: CardStatus }
  /** A PATCH changing anything but the status (funding sources, the spend limit). */
  | { readonly type: "MUTATION" }

export type CardEmitted = "CARD.STATE_CHANGE"

export type CardRejectionCode = "CARD_ALREADY_CLOSED" | "CARD_NOT_MUTABLE" | "INVALID_STATE_TRANSITION"

/** The next status, the events it announces (nothing is scheduled) and whether it frees a slot. */
export type CardTransitioned = Moved<CardStatus, CardEmitted, never, {
  /** The card stops counting against the live-card maximum. */
  readonly freesSlot: boolean
}>

/** The allowed status updates: from -> requested status. Anything else is refused. */
export const CARD_STATUS_TRANSITIONS: Readonly<Record<CardStatus, ReadonlyArray<CardStatus>>> = {
  ACTIVE: ["FROZEN", "CLOSED"],
  FROZEN: ["ACTIVE", "CLOSED"],
  CLOSED: []
}

export const transition = (status: CardStatus, event: CardEvent): Result<CardTransitioned, Rejection<CardRejectionCode>> => {
  if (status === "CLOSED") {
    return event.type === "STATUS_UPDATE" && event.to === "CLOSED"
      ? fail(reject("CARD_ALREADY_CLOSED", "The card is already CLOSED", { status }))
      : fail(reject("CARD_NOT_MUTABLE", "The card is CLOSED: a closed card cannot be changed", { status }))
  }
  if (event.type === "MUTATION") return ok({ state: status, events: [], scheduled: [], freesSlot: false })
  if (!CARD_STATUS_TRANSITIONS[status].includes(event.to)) {
    return fail(reject("INVALID_STATE_TRANSITION", `A card cannot move from ${status} to ${event.to}`, {
      from: status,
      to: event.to,
      allowed: CARD_STATUS_TRANSITIONS[status]
    }))
  }
  return ok({ state: event.to, events: ["CARD.STATE_CHANGE"], scheduled: [], freesSlot: event.to === "CLOSED" })
}

/** A PATCH body with `state` and `status` read as one requested status. */
export interface CardUpdatePlan {
  /** The requested status, if the body asks for one. */
  readonly to?: CardStatus | undefined
  readonly fundingSources?: ReadonlyArray<string> | undefined
  /** Present: set (a number) or clear (null); absent: unchanged. */
  readonly maxSpendPerTransaction?: number | null | undefined
  readonly hasMaxSpend: boolean
}

/**
 * The request-shape rules of `PATCH /cards/{id}` (400 INVALID_INPUT): at least one field;
 * `state` and `status` (the same field under the reference's and SPEC.md's names) agree
 * when both are sent; `CLOSED` is not combined with `fundingSources` or
 * `maxSpendPerTransaction`.
 */
export const readUpdate = (req: CardUpdateRequest): Result<CardUpdatePlan, Rejection<"INVALID_INPUT">> => {
  const hasMaxSpend = req.maxSpendPerTransaction !== undefined
  if (req.state === undefined && req.status === undefined && req.fundingSources === undefined && !hasMaxSpend) {
    return fail(invalidInput("At least one of state (or status), fundingSources or maxSpendPerTransaction must be supplied", [{
      field: "(body)",
      constraint: "minProperties",
      message: "must supply at least one of state, status, fundingSources, maxSpendPerTransaction"
    }]))
  }
  if (req.state !== undefined && req.status !== undefined && req.state !== req.status) {
    return fail(invalidInput(`state (${req.state}) and status (${req.status}) name the same field and must agree`, [{
      field: "status",
      constraint: "equalsState",
      message: `must equal state (${req.state}) when both are sent; send one of them`
    }]))
  }
  const to = req.state ?? req.status
  if (to === "CLOSED" && (req.fundingSources !== undefined || hasMaxSpend)) {
    const fields = [
      ...(req.fundingSources === undefined ? [] : ["fundingSources"]),
      ...(hasMaxSpend ? ["maxSpendPerTransaction"] : [])
    ]
    return fail(invalidInput(`CLOSED cannot be combined with ${fields.join(" or ")}`, fields.map((field) => ({
      field,
      constraint: "notWithClosed",
      message: "cannot be supplied alongside state CLOSED"
    }))))
  }
  return ok({
    to,
    fundingSources: req.fundingSources,
    ...(hasMaxSpend ? { maxSpendPerTransaction: req.maxSpendPerTransaction } : {}),
    hasMaxSpend
  })
}

/**
 * What a PATCH does to a card in `status`: the request-shape rules, then the machine
 * (the status update if one is asked for, else the other changes as a mutation).
 */
export const planUpdate = (
  status: CardStatus,
  req: CardUpdateRequest
): Result<{ readonly plan: CardUpdatePlan; readonly moved: CardTransitioned }, Rejection<"INVALID_INPUT" | CardRejectionCode>> => {
  const read = readUpdate(req)
  if (!read.ok) return read
  const plan = read.value
  const moved = transition(status, plan.to === undefined ? { type: "MUTATION" } : { type: "STATUS_UPDATE", to: plan.to })
  return moved.ok ? ok({ plan, moved: moved.value }) : moved
}
