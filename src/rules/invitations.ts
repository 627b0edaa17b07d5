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
import { badRequest, type Error400 } from "../domain/errors.js"
import type { UmaInvitation, UmaInvitationStatus } from "../domain/invitation.js"
import { fail, ok, type Result } from "./result.js"

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

const refusal = (invitation: UmaInvitation, status: UmaInvitationStatus, what: string): Error400 => {
  switch (status) {
    case "CLAIMED":
      return badRequest("INVITATION_ALREADY_CLAIMED", `Invitation ${invitation.code} has already been claimed; it cannot be ${what}`)
    case "CANCELLED":
      return badRequest("INVITATION_CANCELLED", `Invitation ${invitation.code} has been cancelled; it cannot be ${what}`)
    default:
      return badRequest("EXPIRED", `Invitation ${invitation.code} expired at ${invitation.expiresAt ?? "?"}; it cannot be ${what}`)
  }
}

/** Applies a move to an invitation at `nowMillis`: the invitation after it, or the 400 refusing it. */
export const transition = (invitation: UmaInvitation, move: InvitationMove, nowMillis: number): Result<UmaInvitation, Error400> => {
  const status = statusAt(invitation, nowMillis)
  if (status !== "PENDING") return fail(refusal(invitation, status, move.type === "CLAIM" ? "claimed" : "cancelled"))
  switch (move.type) {
    case "CLAIM":
      return ok({ ...invitation, status: "CLAIMED", inviteeUma: move.inviteeUma, claimedAt: move.at })
    case "CANCEL":
      return ok({ ...invitation, status: "CANCELLED" })
  }
}
