/**
 * UMA invitations: POST /invitations, GET /invitations/{code}, POST .../claim and
 * POST .../cancel. The lifecycle is rules/invitations.ts; times are on the creating
 * platform's clock (a sandbox platform's own offset), whoever asks. A claim fires
 * INVITATION.CLAIMED to the creating platform in the same unit of work.
 */
import { Effect } from "effect"
import { badRequest, forbidden, invalidInput } from "../domain/errors.js"
import type { UmaInvitation, UmaInvitationClaimRequest, UmaInvitationCreateRequest } from "../domain/invitation.js"
import { amountIn } from "../domain/money.js"
import { isDeterministic, type Platform, platformCurrencies } from "../domain/platform.js"
import { Ids } from "../ports/ids.js"
import { Platforms } from "../ports/platforms.js"
import { type InvitationRecord, Store } from "../ports/store.js"
import * as Rules from "../rules/invitations.js"
import { parseUmaAddress } from "../rules/money/sandbox-payments.js"
import { fromResult } from "./rejection.js"
import { ClockUnderStanding, clockOffsetOf, isoOf, nowMillis, platformNowOf } from "./time.js"
import { emit } from "./transition.js"
import { missing } from "./not-found.js"

const invalidUma = (field: string, value: string) =>
  badRequest("INVALID_UMA_ADDRESS", `${field} ${JSON.stringify(value)} is not a UMA address ($name@domain)`, { details: { field } })

const notFoundCode = (code: string) => missing("invitation", `Invitation ${code} not found`)

/** The invitation with this code, from any platform (the code is the capability). */
const recordOf = Effect.fnUntraced(function*(code: string) {
  const store = yield* Store
  const rec = yield* store.invitations.getByCode(code)
  if (rec === undefined) return yield* notFoundCode(code)
  return rec
})

/**
 * Now on the creating platform's clock, seen from the caller's (the operation runs on
 * the caller's clock: its offset is taken off and the creator's put on).
 */
const creatorNow = Effect.fnUntraced(function*(caller: Platform, creatorId: string) {
  const now = yield* nowMillis
  if (creatorId === caller.id) return now
  const creator = (yield* (yield* Platforms).all).find((p) => p.id === creatorId)
  if (creator !== undefined && isDeterministic(creator)) return yield* platformNowOf(creator)
  // The base clock: the caller's clock less its offset, or under a deterministic caller's standing clock.
  const under = yield* Effect.service(ClockUnderStanding)
  const base = under !== undefined && isDeterministic(caller) ? under.currentTimeMillisUnsafe() : now - (yield* clockOffsetOf(caller))
  return creator === undefined ? base : base + (yield* clockOffsetOf(creator))
})

/** POST /invitations: a customer of the platform (by its UMA address) invites someone. */
export const createInvitation = Effect.fnUntraced(function*(platform: Platform, req: UmaInvitationCreateRequest) {
  const inviter = parseUmaAddress(req.inviterUma)
  if (inviter === undefined) return yield* invalidUma("inviterUma", req.inviterUma)
  const store = yield* Store
  const ids = yield* Ids
  const customer = yield* store.customers.findActiveByUmaAddress(platform.id, req.inviterUma)
  if (customer === undefined) {
    return yield* invalidInput("inviterUma is not the UMA address of a customer of this platform", [{
      field: "inviterUma",
      constraint: "exists",
      message: "must be the UMA address of an active customer of this platform"
    }])
  }
  const nowMs = yield* nowMillis
  if (req.expiresAt !== undefined && Date.parse(req.expiresAt) <= nowMs) {
    return yield* invalidInput("expiresAt must be in the future", [{
      field: "expiresAt",
      constraint: "future",
      message: `must be after now (${isoOf(nowMs)} on the platform's clock)`
    }])
  }
  const currency = customer.customer.currencies?.[0] ?? platformCurrencies(platform)[0] ?? "USD"
  const amount = req.amountToSend === undefined ? undefined : amountIn(currency, req.amountToSend)
  const code = (yield* ids.uuid).replace(/-/g, "").slice(0, 16)
  const invitation: UmaInvitation = {
    code,
    createdAt: isoOf(nowMs),
    url: `https://${platform.umaDomain ?? inviter.domain}/i/${code}`,
    ...(req.expiresAt === undefined ? {} : { expiresAt: isoOf(Date.parse(req.expiresAt)) }),
    inviterUma: customer.customer.umaAddress,
    status: "PENDING",
    ...(req.firstName === undefined ? {} : { firstName: req.firstName }),
    ...(amount === undefined ? {} : { amountToSend: amount })
  }
  const record: InvitationRecord = { platformId: platform.id, customerId: customer.customer.id, invitation }
  yield* store.transact((uow) => uow.putInvitation(record))
  return invitation
})

/** GET /invitations/{code}: any platform holding the code may read it. */
export const getInvitation = Effect.fnUntraced(function*(platform: Platform, code: string) {
  const rec = yield* recordOf(code)
  return Rules.shownAt(rec.invitation, yield* creatorNow(platform, rec.platformId))
})

/** POST /invitations/{code}/claim: the invitee's UMA address is recorded; INVITATION.CLAIMED goes to the creator. */
export const claimInvitation = (platform: Platform, code: string, req: UmaInvitationClaimRequest) =>
  Effect.gen(function*() {
    if (parseUmaAddress(req.inviteeUma) === undefined) return yield* invalidUma("inviteeUma", req.inviteeUma)
    const store = yield* Store
    return yield* store.transact((uow) =>
      Effect.gen(function*() {
        const rec = yield* recordOf(code)
        if (req.inviteeUma.toLowerCase() === rec.invitation.inviterUma.toLowerCase()) {
          return yield* invalidInput("An invitation cannot be claimed by its inviter", [{
            field: "inviteeUma",
            constraint: "notInviter",
            message: "must not be the inviter's UMA address"
          }])
        }
        const now = yield* creatorNow(platform, rec.platformId)
        const moved = Rules.transition(rec.invitation, { type: "CLAIM", inviteeUma: req.inviteeUma, at: isoOf(now) }, now)
        const claimed = (yield* fromResult(moved)).state
        yield* uow.putInvitation({ ...rec, invitation: claimed })
        // Announced to the creating platform, on its clock.
        yield* emit(uow, { id: rec.platformId }, "INVITATION.CLAIMED", { timestamp: isoOf(now), data: claimed })
        return claimed
      })
    )
  })

/** POST /invitations/{code}/cancel: only the creating platform; only a PENDING invitation. */
export const cancelInvitation = (platform: Platform, code: string) =>
  Effect.flatMap(Effect.service(Store), (store) =>
    store.transact((uow) =>
      Effect.gen(function*() {
        const rec = yield* recordOf(code)
        if (rec.platformId !== platform.id) {
          return yield* forbidden(`Only the platform which created invitation ${code} can cancel it`)
        }
        const now = yield* nowMillis
        const moved = Rules.transition(rec.invitation, { type: "CANCEL" }, now)
        const cancelled = (yield* fromResult(moved)).state
        yield* uow.putInvitation({ ...rec, invitation: cancelled })
        return cancelled
      })
    ))
