/**
 * Beneficial owners of business customers. An owner resolves when its business
 * resolves terminally (rules/sandbox/kyb.ts, by the last 3 characters of
 * `personalInfo.lastName`); one added to a business that has already resolved
 * terminally resolves at once.
 */
import { Effect } from "effect"
import { BeneficialOwner, type BeneficialOwnerCreateRequest, type BeneficialOwnerUpdateRequest } from "../domain/beneficial-owner.js"
import { conflict, invalidInput } from "../domain/errors.js"
import type { Platform } from "../domain/platform.js"
import { Ids } from "../ports/ids.js"
import { type BeneficialOwnerRecord, Store, type UnitOfWork } from "../ports/store.js"
import { type PageQuery, pageRequestOf, shownPageOf } from "./paging.js"
import { type OwnerEvent, transition } from "../rules/beneficial-owner.js"
import { isFinal } from "../rules/kyc.js"
import { type OwnerOutcome, ownerOutcome } from "../rules/sandbox/kyb.js"
import { activeCustomer } from "./customers.js"
import { nowIso } from "./time.js"
import { missing } from "./not-found.js"

const ownerNotFound = (id: string) => missing("beneficialOwner", `Beneficial owner ${id} not found`)

const OUTCOME_EVENTS: Readonly<Record<OwnerOutcome, OwnerEvent>> = {
  PENDING: { type: "REVIEW_STARTED" },
  APPROVED: { type: "APPROVED" },
  REJECTED: { type: "REJECTED" }
}

/** The owner after its business resolved terminally (unchanged when already final). */
export const resolvedOwner = (owner: BeneficialOwner, now: string): BeneficialOwner => {
  const r = transition(owner.kycStatus, OUTCOME_EVENTS[ownerOutcome(owner.personalInfo.lastName)])
  return r.ok && r.value.state !== owner.kycStatus ? { ...owner, kycStatus: r.value.state, updatedAt: now } : owner
}

/** Resolves every owner of a business that has just resolved terminally. */
export const resolveOwnersOf = Effect.fnUntraced(function*(uow: UnitOfWork, platform: Platform, customerId: string, now: string) {
  const store = yield* Store
  for (const rec of yield* store.beneficialOwners.listByCustomer(platform.id, customerId)) {
    const owner = resolvedOwner(rec.owner, now)
    if (owner !== rec.owner) yield* uow.putBeneficialOwner({ ...rec, owner })
  }
})

const businessOf = Effect.fnUntraced(function*(platform: Platform, customerId: string) {
  const rec = yield* activeCustomer(platform, customerId)
  if (rec.customer.customerType !== "BUSINESS") {
    return yield* invalidInput(`Customer ${customerId} is an individual; beneficial owners belong to BUSINESS customers`, [{
      field: "customerId",
      constraint: "businessCustomer",
      message: "must be the id of a BUSINESS customer"
    }])
  }
  return rec.customer
})

/** POST /beneficial-owners. */
export const createBeneficialOwner = Effect.fnUntraced(function*(
  platform: Platform,
  req: BeneficialOwnerCreateRequest
) {
  const store = yield* Store
  const ids = yield* Ids
  return yield* store.transact((uow) =>
    Effect.gen(function*() {
      const business = yield* businessOf(platform, req.customerId)
      const now = yield* nowIso
      const created: BeneficialOwner = {
        id: yield* ids.make("BeneficialOwner"),
        customerId: req.customerId,
        roles: req.roles,
        ownershipPercentage: req.ownershipPercentage,
        personalInfo: req.personalInfo,
        kycStatus: "UNVERIFIED",
        createdAt: now,
        updatedAt: now
      }
      const owner = platform.settings.sandbox && business.customerType === "BUSINESS" && isFinal(business.kybStatus)
        ? resolvedOwner(created, now)
        : created
      yield* uow.putBeneficialOwner({ platformId: platform.id, owner })
      return owner
    })
  )
})

export const getBeneficialOwner = Effect.fnUntraced(function*(platform: Platform, id: string) {
  const store = yield* Store
  const rec = yield* store.beneficialOwners.get(platform.id, id)
  if (rec === undefined) return yield* ownerNotFound(id)
  return rec.owner
})

export const listBeneficialOwners = Effect.fnUntraced(function*(
  platform: Platform,
  query: PageQuery & { readonly customerId: string }
) {
  const store = yield* Store
  return yield* shownPageOf(store.beneficialOwners.list(platform.id, { customerId: query.customerId }, pageRequestOf(query)), (r) => r.owner)
})

/** Updates roles, percentage or personal details. A status is never re-derived by an update. */
export const updateBeneficialOwner = Effect.fnUntraced(function*(
  platform: Platform,
  id: string,
  req: BeneficialOwnerUpdateRequest
) {
  const store = yield* Store
  return yield* store.transact((uow) =>
    Effect.gen(function*() {
      const rec: BeneficialOwnerRecord | undefined = yield* store.beneficialOwners.get(platform.id, id)
      if (rec === undefined) return yield* ownerNotFound(id)
      const now = yield* nowIso
      const owner: BeneficialOwner = {
        ...rec.owner,
        ...(req.roles !== undefined ? { roles: req.roles } : {}),
        ...(req.ownershipPercentage !== undefined ? { ownershipPercentage: req.ownershipPercentage } : {}),
        personalInfo: { ...rec.owner.personalInfo, ...req.personalInfo },
        updatedAt: now
      }
      yield* uow.putBeneficialOwner({ ...rec, owner })
      return owner
    })
  )
})

/** Deletes an owner and its documents, while its business's verification is still open. */
export const deleteBeneficialOwner = Effect.fnUntraced(function*(platform: Platform, id: string) {
  const store = yield* Store
  yield* store.transact((uow) =>
    Effect.gen(function*() {
      const rec = yield* store.beneficialOwners.get(platform.id, id)
      if (rec === undefined) return yield* ownerNotFound(id)
      const business = yield* store.customers.get(platform.id, rec.owner.customerId)
      if (business !== undefined && business.customer.customerType === "BUSINESS" && business.customer.kybStatus !== "UNVERIFIED") {
        return yield* conflict("CONFLICT", `Beneficial owner ${id} was part of a KYB verification that was taken for a decision (kybStatus ${business.customer.kybStatus}); it cannot be deleted`)
      }
      for (const doc of yield* store.documents.listByHolder(platform.id, id)) yield* uow.deleteDocument(platform.id, doc.document.id)
      yield* uow.deleteBeneficialOwner(platform.id, id)
    })
  )
})
