/**
 * Status changes append CUSTOMER.* and VERIFICATION.* events to the outbox in the same
 * unit of work; a refused submission appends nothing and stores nothing.
 */
import { Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { memoryLayer } from "../../src/adapters/memory/index.js"
import type { CustomerCreateRequest } from "../../src/domain/customer.js"
import { createCustomer, updateCustomer } from "../../src/operations/customers.js"
import { uploadDocument } from "../../src/operations/documents.js"
import { createBeneficialOwner } from "../../src/operations/beneficial-owners.js"
import { listVerifications, submitVerification } from "../../src/operations/verifications.js"
import { Store } from "../../src/ports/store.js"
import { completeIndividualFields, files, makePlatform } from "../support/onboarding-client.js"

const unregulated = makePlatform("events")
const regulated = makePlatform("events-regulated", { regulated: true })

const run = <A, E>(program: Effect.Effect<A, E, Layer.Success<ReturnType<typeof memoryLayer>>>) =>
  Effect.runPromise(program.pipe(Effect.provide(memoryLayer([unregulated, regulated], { seed: 3 }))))

const Effects = {
  list: (platformId: string) =>
    Effect.gen(function*() {
      const store = yield* Store
      return (yield* store.events.list(platformId)).map((e) => e.event)
    })
}
const types = (platformId: string) => Effect.map(Effects.list(platformId), (es) => es.map((e) => e.type))

describe("verification events", () => {
  it("the fix-and-resubmit loop emits RESOLVE_ERRORS, then IN_PROGRESS, PENDING_MANUAL_REVIEW and KYC_PENDING", async () => {
    const result = await run(Effect.gen(function*() {
      const c = yield* createCustomer(unregulated, { customerType: "INDIVIDUAL", fullName: "Ev Ent 001" })
      yield* submitVerification(unregulated, { customerId: c.id })
      yield* updateCustomer(unregulated, c.id, { customerType: "INDIVIDUAL", ...completeIndividualFields })
      const f = files.jpeg()
      yield* uploadDocument(unregulated, { documentHolder: c.id, documentType: "PASSPORT", country: "US" }, { fileName: f.name, contentType: f.type, bytes: f.bytes })
      const v = yield* submitVerification(unregulated, { customerId: c.id })
      const events = yield* Effects.list(unregulated.id)
      return { c, v, events }
    }))
    expect(result.events.map((e) => e.type)).toEqual([
      "VERIFICATION.RESOLVE_ERRORS",
      "VERIFICATION.IN_PROGRESS",
      "VERIFICATION.PENDING_MANUAL_REVIEW",
      "CUSTOMER.KYC_PENDING"
    ])
    for (const e of result.events) {
      expect(e.id).toMatch(/^Webhook:/)
      expect(e.platformId).toBe(unregulated.id)
    }
    expect(result.events[2]!.data).toEqual(result.v)
    expect(result.events[1]!.data).toMatchObject({ id: result.v.id, verificationStatus: "IN_PROGRESS" })
    expect(result.events[3]!.data).toMatchObject({ id: result.c.id, kycStatus: "PENDING" })
  })

  it("regulated creation emits the resolved status; a refused submission emits and stores nothing", async () => {
    const result = await run(Effect.gen(function*() {
      const approved = yield* createCustomer(regulated, { customerType: "INDIVIDUAL", fullName: "Reg Ular" })
      const rejected = yield* createCustomer(regulated, { customerType: "INDIVIDUAL", fullName: "Reg Ular 002" })
      const pending = yield* createCustomer(regulated, { customerType: "INDIVIDUAL", fullName: "Reg Ular 001" })
      yield* createCustomer(regulated, { customerType: "INDIVIDUAL", fullName: "Reg Ular 003" })
      const before = yield* types(regulated.id)
      const refused = yield* Effect.flip(submitVerification(regulated, { customerId: approved.id }))
      const after = yield* types(regulated.id)
      const stored = yield* listVerifications(regulated, { customerId: approved.id })
      return { approved, rejected, pending, before, after, refused, stored }
    }))
    // The approved customer's internal accounts open with it (one per platform currency).
    expect(result.before).toEqual([
      "CUSTOMER.KYC_APPROVED",
      "INTERNAL_ACCOUNT.STATUS_UPDATED",
      "INTERNAL_ACCOUNT.STATUS_UPDATED",
      "INTERNAL_ACCOUNT.STATUS_UPDATED",
      "CUSTOMER.KYC_REJECTED",
      "CUSTOMER.KYC_PENDING"
    ])
    expect(result.refused.code).toBe("INVALID_INPUT")
    expect(result.after).toEqual(result.before)
    expect(result.stored.totalCount).toBe(0)
  })

  it("a business resolving emits KYB events and resolves its owners in the same unit of work", async () => {
    const result = await run(Effect.gen(function*() {
      const req: CustomerCreateRequest = { customerType: "BUSINESS", businessInfo: { legalName: "Ev Co", registrationNumber: "R-002" } }
      const b = yield* createCustomer(regulated, req)
      const o = yield* createBeneficialOwner(regulated, {
        customerId: b.id,
        roles: ["UBO"],
        ownershipPercentage: 100,
        personalInfo: {
          firstName: "A",
          lastName: "B 001",
          birthDate: "1970-01-01",
          nationality: "US",
          address: { line1: "1", postalCode: "1", country: "US" },
          idType: "PASSPORT",
          identifier: "1"
        }
      })
      const v = yield* submitVerification(regulated, { customerId: b.id })
      return { o, v, events: yield* types(regulated.id) }
    }))
    expect(result.v.verificationStatus).toBe("REJECTED")
    expect(result.events).toEqual(["VERIFICATION.IN_PROGRESS", "VERIFICATION.REJECTED", "CUSTOMER.KYB_REJECTED"])
  })
})
