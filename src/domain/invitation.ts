/**
 * UMA invitations (reference `UmaInvitation`, `UmaInvitationCreateRequest`,
 * `UmaInvitationClaimRequest`): a customer of the platform invites someone by a link;
 * whoever holds the code can read and claim it (from any platform: the code is the
 * capability), only the creating platform can cancel it. Statuses PENDING, CLAIMED,
 * CANCELLED, and EXPIRED once `expiresAt` has passed on the creating platform's clock.
 */
import { Schema } from "effect"
import { DateTimeString, NamedStruct, NonEmptyTextUpTo, TextUpTo } from "./common.js"
import { CurrencyAmount, PositiveAmount } from "./money.js"

export const UmaInvitationStatus = Schema.Literals(["PENDING", "CLAIMED", "EXPIRED", "CANCELLED"])
export type UmaInvitationStatus = typeof UmaInvitationStatus.Type

export const UmaInvitation = NamedStruct("UmaInvitation", {
  code: Schema.String,
  createdAt: Schema.String,
  claimedAt: Schema.optionalKey(Schema.String),
  url: Schema.String,
  expiresAt: Schema.optionalKey(Schema.String),
  inviterUma: Schema.String,
  inviteeUma: Schema.optionalKey(Schema.String),
  status: UmaInvitationStatus,
  firstName: Schema.optionalKey(Schema.String),
  amountToSend: Schema.optionalKey(CurrencyAmount)
})
export type UmaInvitation = typeof UmaInvitation.Type

/** The longest UMA address accepted (as everywhere else). */
export const MAX_INVITATION_UMA_LENGTH = 255
/** The longest first name shown on an invite. */
export const MAX_INVITATION_FIRST_NAME_LENGTH = 255

export const UmaInvitationCreateRequest = NamedStruct("UmaInvitationCreateRequest", {
  inviterUma: NonEmptyTextUpTo(MAX_INVITATION_UMA_LENGTH),
  firstName: Schema.optionalKey(TextUpTo(MAX_INVITATION_FIRST_NAME_LENGTH)),
  amountToSend: Schema.optionalKey(PositiveAmount),
  expiresAt: Schema.optionalKey(DateTimeString)
})
export type UmaInvitationCreateRequest = typeof UmaInvitationCreateRequest.Type

export const UmaInvitationClaimRequest = NamedStruct("UmaInvitationClaimRequest", {
  inviteeUma: NonEmptyTextUpTo(MAX_INVITATION_UMA_LENGTH)
})
export type UmaInvitationClaimRequest = typeof UmaInvitationClaimRequest.Type

/** The longest invitation code a path may carry (the ones issued are 16 characters). */
export const MAX_INVITATION_CODE_LENGTH = 64
