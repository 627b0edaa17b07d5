/**
 * The UMA invitation lifecycle (reference: POST /invitations, .../claim, .../cancel):
 *
 *   PENDING --claim--> CLAIMED
 *   PENDING --cancel--> CANCELLED
 *   PENDING --(expiresAt passes on the creating platform's clock)--> EXPIRED
 *
 * CLAIMED, CANCELLED and EXPIRED are final. EXPIRED is not stored: it is what a PENDING
 * invitation whose `expiresAt` has passed is. Refusals are the reference's 400 codes:
 * INVITATION_ALREADY_CLAIMED, INVITATION_CANCELLED, and EXPIRED for an expired one
 * (docs/decisions.md).
 */
import type { UmaInvitation, UmaInvitationStatus } from "../domain/invitation.js"
import { reject, type Rejection } from "./rejection.js"
import { fail, type MoveResult, ok } from "./result.js"

/** The status an invitation has at `nowMillis` (its creating platform's clock). */
export const statusAt = (invitation: UmaInvitation, nowMillis: number): UmaInvitationStatus =>
  invitation.status === "PENDING" && invitation.expiresAt !== undefined && Date.parse(invitation.expiresAt) <= nowMillis
    ? "EXPIRED"
    : invitation.status

/** The invitation as shown at `nowMillis`. */
export const shownAt = (invitation: UmaInvitation, nowMillis: number): UmaInvitation => {
  const status = statusAt(invitation, nowMillis)
  return status === invitation.status ? invitation : { ...invitation, status }
}

export type InvitationMove =
  | { readonly type: "CLAIM"; readonly inviteeUma: string; readonly at: string }
  | { readonly type: "CANCEL" }

export type InvitationRefusal = "INVITATION_ALREADY_CLAIMED" | "INVITATION_CANCELLED" | "EXPIRED"

/** A claim announces INVITATION.CLAIMED to the creator (the operation builds its envelope). */
export type InvitationEvent = { readonly type: "INVITATION.CLAIMED" }

const refusal = (invitation: UmaInvitation, status: UmaInvitationStatus, what: string): Rejection<InvitationRefusal> => {
  switch (status) {
    case "CLAIMED":
      return reject("INVITATION_ALREADY_CLAIMED", `Invitation ${invitation.code} has already been claimed; it cannot be ${what}`)
    case "CANCELLED":
      return reject("INVITATION_CANCELLED", `Invitation ${invitation.code} has been cancelled; it cannot be ${what}`)
    default:
      return reject("EXPIRED", `Invitation ${invitation.code} expired at ${invitation.expiresAt ?? "?"}; it cannot be ${what}`)
  }
}

/** Applies a move to an invitation at `nowMillis`: the invitation after it and what it announces, or the rejection refusing it. */
export const transition = (
  invitation: UmaInvitation,
  move: InvitationMove,
  nowMillis: number
): MoveResult<UmaInvitation, InvitationEvent, never, InvitationRefusal> => {
  const status = statusAt(invitation, nowMillis)
  if (status !== "PENDING") return fail(refusal(invitation, status, move.type === "CLAIM" ? "claimed" : "cancelled"))
  switch (move.type) {
    case "CLAIM":
      return ok({
        state: { ...invitation, status: "CLAIMED", inviteeUma: move.inviteeUma, claimedAt: move.at },
        events: [{ type: "INVITATION.CLAIMED" }],
        scheduled: []
      })
    case "CANCEL":
      return ok({ state: { ...invitation, status: "CANCELLED" }, events: [], scheduled: [] })
  }
}
