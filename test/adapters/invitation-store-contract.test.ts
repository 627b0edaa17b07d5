/**
 * The Store contract for UMA invitations (`invitations.getByCode`, `putInvitation`), run
 * against every Store (memory, PGlite in memory, PostgreSQL on a fresh database of the
 * run's throwaway cluster): found by code from no platform at all, rewritten in place, a
 * failed unit of work leaves nothing, and resetPlatform deletes only its own platform's.
 */
import { Effect } from "effect"
import { describe, expect } from "vitest"
import type { InvitationRecord } from "../../src/ports/store.js"
import { KINDS, storeSuite } from "../support/store-harness.js"

let seq = 0
const record = (platformId: string, o: { status?: InvitationRecord["invitation"]["status"] } = {}): InvitationRecord => {
  const code = `${Date.now().toString(16)}${(++seq).toString(16)}`.padStart(16, "0").slice(-16)
  return {
    platformId,
    customerId: "Customer:1",
    invitation: {
      code,
      createdAt: "2026-01-01T00:00:00.000Z",
      url: `https://invite.example.com/i/${code}`,
      inviterUma: "$ann@invite.example.com",
      status: o.status ?? "PENDING",
      amountToSend: { amount: 500, currency: { code: "USD", name: "United States Dollar", symbol: "$", decimals: 2 } }
    }
  }
}

describe.each(KINDS)("Invitation store contract on %s", (kind) => {
  const { storeIt } = storeSuite(kind)

  storeIt("put, get by code (any platform asks), rewrite in place", (store, p) =>
    Effect.gen(function*() {
      const r = record(p)
      expect(yield* store.invitations.getByCode(r.invitation.code)).toBeUndefined()
      yield* store.transact((uow) => uow.putInvitation(r))
      expect(yield* store.invitations.getByCode(r.invitation.code)).toEqual(r)
      const claimed: InvitationRecord = { ...r, invitation: { ...r.invitation, status: "CLAIMED", inviteeUma: "$bob@x.example.com", claimedAt: "2026-01-02T00:00:00.000Z" } }
      yield* store.transact((uow) => uow.putInvitation(claimed))
      expect(yield* store.invitations.getByCode(r.invitation.code)).toEqual(claimed)
    }))

  storeIt("a failed unit of work leaves nothing; its own reads saw the write", (store, p) =>
    Effect.gen(function*() {
      const r = record(p)
      const exit = yield* Effect.exit(store.transact((uow) =>
        Effect.gen(function*() {
          yield* uow.putInvitation(r)
          expect(yield* store.invitations.getByCode(r.invitation.code)).toEqual(r)
          return yield* Effect.fail("abandon")
        })
      ))
      expect(exit._tag).toBe("Failure")
      expect(yield* store.invitations.getByCode(r.invitation.code)).toBeUndefined()
    }))

  storeIt("a code another platform holds is never taken over (a defect; the holder's invitation is unchanged)", (store, p) =>
    Effect.gen(function*() {
      const theirs = record(`${p}-other`)
      yield* store.transact((uow) => uow.putInvitation(theirs))
      const exit = yield* Effect.exit(store.transact((uow) => uow.putInvitation({ ...theirs, platformId: p })))
      expect(exit._tag).toBe("Failure")
      expect(yield* store.invitations.getByCode(theirs.invitation.code)).toEqual(theirs)
    }))

  storeIt("resetPlatform deletes the platform's invitations and no other's", (store, p) =>
    Effect.gen(function*() {
      const mine = record(p)
      const theirs = record(`${p}-other`)
      yield* store.transact((uow) => Effect.andThen(uow.putInvitation(mine), uow.putInvitation(theirs)))
      yield* store.transact((uow) => uow.resetPlatform(p))
      expect(yield* store.invitations.getByCode(mine.invitation.code)).toBeUndefined()
      expect(yield* store.invitations.getByCode(theirs.invitation.code)).toEqual(theirs)
    }))
})
