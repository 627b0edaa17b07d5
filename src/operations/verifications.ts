/**
 * POST /verifications: one submission of a customer's packet. What the packet must
 * hold is in rules/verification-requirements.ts, what the sandbox decides in
 * rules/sandbox/{kyc,kyb}.ts; the statuses move through the machines in rules/, and
 * every change is announced (CUSTOMER.*, VERIFICATION.*) in the same unit of work.
 */
import { Effect } from "effect"
import { badRequest } from "../domain/errors.js"
import { unverifiedChannels } from "../rules/sca.js"
import type { Platform } from "../domain/platform.js"
import { Verification, type VerificationRequest, type VerificationStatus } from "../domain/verification.js"
import { Ids } from "../ports/ids.js"
import { type DocumentRecord, Store } from "../ports/store.js"
import { conflictIsDefect, type PageQuery, pageRequestOf, shownPageOf } from "./paging.js"
import type { KycEvent } from "../rules/kyc.js"
import { decideIndividualSubmission, type SubmissionOutcome } from "../rules/sandbox/kyc.js"
import { decideBusinessSubmission } from "../rules/sandbox/kyb.js"
import type { VerificationEvent } from "../rules/verification.js"
import { businessRequirements, individualRequirements, isIdentityDocument } from "../rules/verification-requirements.js"
import { resolveOwnersOf } from "./beneficial-owners.js"
import { activeCustomer } from "./customers.js"
import { nowIso } from "./time.js"
import { applyTransition } from "./transition.js"
import { type CustomerEmitted, moveCustomer, runVerification, VERIFICATION_KIND, verificationEventOf, writeCustomer } from "./verification-events.js"
import { missing } from "./not-found.js"

/** The path a verification takes for an outcome, and the customer move it makes. */
const pathOf = (outcome: SubmissionOutcome): {
  readonly verification: ReadonlyArray<VerificationEvent>
  readonly customer?: KycEvent
} => {
  switch (outcome.kind) {
    case "RESOLVE_ERRORS":
      return { verification: outcome.accepted ? [{ type: "ACCEPTED" }, { type: "ERRORS_FOUND" }] : [{ type: "INCOMPLETE" }] }
    case "PENDING_MANUAL_REVIEW":
      return { verification: [{ type: "ACCEPTED" }, { type: "MANUAL_REVIEW" }], customer: { type: "REVIEW_STARTED" } }
    case "APPROVED":
      return { verification: [{ type: "ACCEPTED" }, { type: "APPROVED" }], customer: { type: "APPROVED" } }
    case "REJECTED":
      return { verification: [{ type: "ACCEPTED" }, { type: "REJECTED" }], customer: { type: "REJECTED" } }
  }
}

/** POST /verifications. */
export const submitVerification = Effect.fnUntraced(function*(platform: Platform, req: VerificationRequest) {
  const store = yield* Store
  const ids = yield* Ids
  return yield* store.transact((uow) =>
    Effect.gen(function*() {
      const rec = yield* activeCustomer(platform, req.customerId)
      const now = yield* nowIso
      // A final kycStatus/kybStatus refuses the submission (400).
      let { customer } = yield* moveCustomer(rec.customer, { type: "SUBMITTED" }, now)
      // Where the provider requires contact verification, KYC begins once every channel is VERIFIED.
      const unverified = unverifiedChannels(rec.customer.contactVerification)
      if (unverified.length > 0) {
        return yield* badRequest("MISSING_MANDATORY_USER_INFO", `Contact verification is not complete: ${unverified.join(" and ")} must be VERIFIED before KYC begins (POST /customers/${rec.customer.id}/verify-email, /verify-phone and their /confirm)`, {
          details: { contactVerification: rec.customer.contactVerification, unverified }
        })
      }
      const documents = yield* store.documents.listByHolder(platform.id, customer.id)
      const types = documents.map((d) => d.document.documentType)
      let outcome: SubmissionOutcome
      let evidence: ReadonlyArray<DocumentRecord> = documents
      if (customer.customerType === "INDIVIDUAL") {
        outcome = decideIndividualSubmission({
          settings: platform.settings,
          fullName: customer.fullName ?? "",
          problems: individualRequirements(customer, types),
          identityDocuments: documents
            .filter((d) => isIdentityDocument(d.document.documentType))
            .map((d) => ({ id: d.document.id, documentType: d.document.documentType, poorQuality: d.poorQuality === true })),
          poorQualityReported: rec.poorQualityReported === true
        })
      } else {
        const owners = yield* store.beneficialOwners.listByCustomer(platform.id, customer.id)
        for (const o of owners) evidence = [...evidence, ...(yield* store.documents.listByHolder(platform.id, o.owner.id))]
        outcome = decideBusinessSubmission({
          settings: platform.settings,
          registrationNumber: customer.businessInfo.registrationNumber,
          problems: businessRequirements(customer, types, owners.length)
        })
      }

      const path = pathOf(outcome)
      const run = yield* runVerification(path.verification)
      if (run.state === "NEW") return yield* Effect.die(new Error("a verification path always leaves NEW"))
      const status: VerificationStatus = run.state
      const verification: Verification = {
        id: yield* ids.make("Verification"),
        customerId: customer.id,
        verificationStatus: status,
        errors: outcome.kind === "RESOLVE_ERRORS" ? outcome.errors : [],
        createdAt: now,
        updatedAt: now
      }
      let customerEvents: ReadonlyArray<CustomerEmitted> = []
      if (path.customer !== undefined) {
        const moved = yield* moveCustomer(customer, path.customer, now)
        customer = moved.customer
        customerEvents = moved.events
      }

      // Bookkeeping: poor-quality marks (sandbox 003), locked evidence, owners of a resolved business.
      const flagged = new Set(outcome.kind === "RESOLVE_ERRORS" ? outcome.flagDocuments ?? [] : [])
      const lock = outcome.kind !== "RESOLVE_ERRORS"
      for (const d of evidence) {
        if (flagged.has(d.document.id) || (lock && d.locked !== true)) {
          yield* uow.putDocument({ ...d, ...(flagged.has(d.document.id) ? { poorQuality: true } : {}), ...(lock ? { locked: true } : {}) })
        }
      }
      if (customer.customerType === "BUSINESS" && (outcome.kind === "APPROVED" || outcome.kind === "REJECTED") && platform.settings.sandbox) {
        yield* resolveOwnersOf(uow, platform, customer.id, now)
      }
      // The verification's steps, then the customer's move: each written with its events.
      const verificationEvents = []
      for (const type of run.events) {
        const at = type.slice("VERIFICATION.".length) as VerificationStatus
        verificationEvents.push(yield* verificationEventOf(platform, type, { ...verification, verificationStatus: at }, now))
      }
      yield* applyTransition(uow, platform, {
        write: uow.putVerification({ platformId: platform.id, verification }),
        subjectId: verification.id,
        kind: VERIFICATION_KIND,
        events: verificationEvents
      })
      yield* writeCustomer(uow, platform, { ...rec, customer, ...(flagged.size > 0 ? { poorQualityReported: true } : {}) }, customerEvents, now)
      return verification
    })
  ).pipe(Effect.catchTag("StoreConflict", conflictIsDefect))
})

export const getVerification = Effect.fnUntraced(function*(platform: Platform, id: string) {
  const store = yield* Store
  const rec = yield* store.verifications.get(platform.id, id)
  if (rec === undefined) return yield* missing("verification", `Verification ${id} not found`)
  return rec.verification
})

export const listVerifications = Effect.fnUntraced(function*(
  platform: Platform,
  query: PageQuery & {
    readonly customerId?: string | undefined
    readonly verificationStatus?: VerificationStatus | undefined
  }
) {
  const store = yield* Store
  return yield* shownPageOf(store.verifications.list(platform.id, {
    customerId: query.customerId,
    verificationStatus: query.verificationStatus
  }, pageRequestOf(query)), (r) => r.verification)
})
