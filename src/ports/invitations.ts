/**
 * The invitations part of the Store port (see ./store.ts): UMA invitations.
 *
 * The one deliberate exception to "every query names the platform": an invitation is
 * found by its code alone, because the code is the capability the reference shares by
 * link (whoever holds it may read and claim it, from any platform). Codes are unique
 * service-wide; each record still belongs to the platform that created it (cancel checks
 * it, `resetPlatform` deletes it).
 */
import type { Effect } from "effect"
import type { UmaInvitation } from "../domain/invitation.js"

/** An invitation as stored: `invitation.status` is PENDING, CLAIMED or CANCELLED (EXPIRED is read off the clock). */
export interface InvitationRecord {
  /** The platform that created it. */
  readonly platformId: string
  /** The inviting customer. */
  readonly customerId: string
  readonly invitation: UmaInvitation
}

export interface InvitationRepository {
  /** The invitation with this code, whichever platform created it. */
  readonly getByCode: (code: string) => Effect.Effect<InvitationRecord | undefined>
}

export interface InvitationWrites {
  /** Writes an invitation (a new code, or the same platform's invitation again). */
  readonly putInvitation: (record: InvitationRecord) => Effect.Effect<void>
}
