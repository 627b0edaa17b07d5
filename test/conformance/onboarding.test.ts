/**
 * Conformance: every success answer of the onboarding endpoints (customers, documents,
 * beneficial owners, verifications) validates against the reference OpenAPI operation's
 * schema for its status (the shared harness), with our one deliberate difference applied
 * explicitly (`OUR_DIFFERENCES`), and carries none of the reference's `writeOnly` fields.
 */
import { afterAll, describe, expect, it } from "vitest"
import {
  business,
  completeBusinessInfo,
  completeIndividualFields,
  files,
  makeClient,
  makePlatform,
  ownerRequest
} from "../support/onboarding-client.js"
import { conformance, type Json, markedIn } from "./harness.js"
import { ONBOARDING_OPERATIONS } from "./operations.js"

/**
 * `idType` also takes the identity-document types (PASSPORT, DRIVERS_LICENSE,
 * NATIONAL_ID) besides the reference's tax-id kinds, so a document number can be
 * matched against the holder's identifier (docs/decisions.md).
 */
const OUR_DIFFERENCES = (s: Record<string, Json>) => {
  const idType = s["IdentificationType"] as { enum: Array<string> } | undefined
  if (idType === undefined) throw new Error("reference IdentificationType missing; update OUR_DIFFERENCES")
  s["IdentificationType"] = { ...idType, enum: [...idType.enum, "PASSPORT", "DRIVERS_LICENSE", "NATIONAL_ID"] }
}

const { conforms, checked } = conformance(OUR_DIFFERENCES)

const p = makePlatform("conformance-onboarding")
const api = makeClient([p])
afterAll(() => api.dispose())

describe("onboarding responses against the reference", () => {
  it("the reference has write-only fields to check: a customer's identifier", () => {
    expect(markedIn("CustomerOneOf").writeOnly.has("identifier")).toBe(true)
  })

  it("individual and business customers (create, get, list, update, delete)", async () => {
    const ind = await api.post(p, "/customers", { customerType: "INDIVIDUAL", ...completeIndividualFields, fullName: "Con Form" })
    expect(ind.status).toBe(201)
    conforms("POST", "/customers", ind)
    const biz = await api.post(p, "/customers", business("REG-5", { businessInfo: { legalName: "Form Ltd", registrationNumber: "REG-5", ...completeBusinessInfo } }))
    conforms("POST", "/customers", biz)
    conforms("GET", "/customers/{customerId}", await api.get(p, `/customers/${ind.body.id}`))
    conforms("GET", "/customers", await api.get(p, "/customers"))
    conforms("PATCH", "/customers/{customerId}", await api.patch(p, `/customers/${ind.body.id}`, { customerType: "INDIVIDUAL", email: "c@f.test" }))
    conforms("DELETE", "/customers/{customerId}", await api.del(p, `/customers/${biz.body.id}`))
  })

  it("the deprecated end-user terms (GET /customers/agreements is SPEC.md's own, with no reference schema)", async () => {
    const terms = await api.get(p, "/customers/end-user-terms")
    expect(terms.status).toBe(200)
    conforms("GET", "/customers/end-user-terms", terms)
  })

  it("documents: upload, list, get, replace (multipart PUT)", async () => {
    const ind = (await api.post(p, "/customers", { customerType: "INDIVIDUAL", ...completeIndividualFields, fullName: "Doc Form" })).body
    const doc = await api.upload(p, { documentHolder: ind.id, documentType: "PASSPORT", country: "US" }, files.jpeg())
    expect(doc.status).toBe(201)
    conforms("POST", "/documents", doc)
    conforms("GET", "/documents", await api.get(p, `/documents?documentHolder=${ind.id}`))
    conforms("GET", "/documents/{documentId}", await api.get(p, `/documents/${doc.body.id}`))
    const replaced = await api.form(p, "PUT", `/documents/${doc.body.id}`, { documentType: "NATIONAL_ID", country: "GB", documentNumber: "N1" }, files.png("id.png"))
    expect(replaced.body.documentType).toBe("NATIONAL_ID")
    conforms("PUT", "/documents/{documentId}", replaced)
    conforms("GET", "/documents/{documentId}", await api.get(p, `/documents/${doc.body.id}`))
  })

  it("verifications: create, get, list (with and without filters)", async () => {
    const ind = (await api.post(p, "/customers", { customerType: "INDIVIDUAL", ...completeIndividualFields, fullName: "Ver Form" })).body
    expect((await api.upload(p, { documentHolder: ind.id, documentType: "PASSPORT", country: "US" }, files.jpeg())).status).toBe(201)
    const v = await api.post(p, "/verifications", { customerId: ind.id })
    conforms("POST", "/verifications", v)
    conforms("GET", "/verifications/{verificationId}", await api.get(p, `/verifications/${v.body.id}`))
    // An incomplete packet's verification, with its errors[], conforms too.
    const bare = (await api.post(p, "/customers", { customerType: "INDIVIDUAL", fullName: "Bare Form" })).body
    conforms("POST", "/verifications", await api.post(p, "/verifications", { customerId: bare.id }))
    const all = await api.get(p, "/verifications")
    expect(all.body.data.length).toBeGreaterThanOrEqual(2)
    conforms("GET", "/verifications", all)
    conforms("GET", "/verifications", await api.get(p, `/verifications?customerId=${encodeURIComponent(bare.id)}`))
    conforms("GET", "/verifications", await api.get(p, "/verifications?limit=1"))
  })

  it("beneficial owners: create, list, get, update", async () => {
    const biz = (await api.post(p, "/customers", business("REG-6", { businessInfo: { legalName: "Own Ltd", registrationNumber: "REG-6", ...completeBusinessInfo } }))).body
    const owner = await api.post(p, "/beneficial-owners", ownerRequest(biz.id, "Lee"))
    expect(owner.status).toBe(201)
    conforms("POST", "/beneficial-owners", owner)
    conforms("GET", "/beneficial-owners", await api.get(p, `/beneficial-owners?customerId=${biz.id}`))
    conforms("GET", "/beneficial-owners/{beneficialOwnerId}", await api.get(p, `/beneficial-owners/${owner.body.id}`))
    const updated = await api.patch(p, `/beneficial-owners/${owner.body.id}`, { roles: ["UBO", "DIRECTOR"], ownershipPercentage: 40, personalInfo: { middleName: "Q" } })
    expect(updated.body.ownershipPercentage).toBe(40)
    conforms("PATCH", "/beneficial-owners/{beneficialOwnerId}", updated)
  })

  it("every onboarding endpoint with a success body was checked", () => {
    // The list is shared with the coverage guard (test/conformance/operations.ts).
    for (const op of ONBOARDING_OPERATIONS) expect(checked.get(op) ?? 0, op).toBeGreaterThan(0)
  })
})
