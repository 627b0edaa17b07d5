/** /beneficial-owners CRUD over HTTP. */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { business, files, individual, isErrorShape, makeClient, makePlatform, ownerRequest } from "../support/onboarding-client.js"

const p = makePlatform("owners")
const other = makePlatform("owners-other")
const api = makeClient([p, other])
afterAll(() => api.dispose())

let businessId = ""
beforeAll(async () => {
  businessId = (await api.post(p, "/customers", business("REG-123"))).body.id
})

describe("/beneficial-owners", () => {
  it("creates, gets, lists by customer, updates and deletes (with the owner's documents)", async () => {
    const created = await api.post(p, "/beneficial-owners", ownerRequest(businessId, "Owner"))
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ customerId: businessId, roles: ["UBO"], ownershipPercentage: 60, kycStatus: "UNVERIFIED" })
    expect(created.body.id).toMatch(/^BeneficialOwner:/)
    const id = created.body.id as string
    expect((await api.get(p, `/beneficial-owners/${id}`)).body).toEqual(created.body)
    const list = await api.get(p, `/beneficial-owners?customerId=${businessId}`)
    expect(list.body).toMatchObject({ hasMore: false, totalCount: 1, data: [created.body] })
    const updated = await api.patch(p, `/beneficial-owners/${id}`, { roles: ["UBO", "DIRECTOR"], ownershipPercentage: 40, personalInfo: { middleName: "Q" } })
    expect(updated.status).toBe(200)
    expect(updated.body).toMatchObject({ roles: ["UBO", "DIRECTOR"], ownershipPercentage: 40, personalInfo: { middleName: "Q", lastName: "Owner" } })
    const doc = await api.upload(p, { documentHolder: id, documentType: "PASSPORT", country: "US" }, files.jpeg())
    expect(doc.status).toBe(201)
    expect((await api.del(p, `/beneficial-owners/${id}`)).status).toBe(204)
    expect((await api.get(p, `/beneficial-owners/${id}`)).status).toBe(404)
    expect((await api.get(p, `/documents/${doc.body.id}`)).status).toBe(404)
  })

  it("validates every field at once", async () => {
    const r = await api.post(p, "/beneficial-owners", {
      customerId: businessId,
      roles: ["OWNER"],
      ownershipPercentage: 140,
      personalInfo: { firstName: "A", birthDate: "1980-13-40", nationality: "US", address: { line1: "x", postalCode: "1", country: "US" }, idType: "PASSPORT", identifier: "1" }
    })
    expect(r.status).toBe(400)
    const fields = (r.body.details.errors as Array<{ field: string }>).map((e) => e.field).sort()
    expect(fields).toEqual(["ownershipPercentage", "personalInfo.birthDate", "personalInfo.lastName", "roles[0]"])
  })

  it("404 for an unknown or another platform's business; 400 for an individual", async () => {
    expect((await api.post(p, "/beneficial-owners", ownerRequest("Customer:00000000-0000-4000-8000-000000000000", "X"))).status).toBe(404)
    const foreign = (await api.post(other, "/customers", business("REG-1"))).body.id
    const r = await api.post(p, "/beneficial-owners", ownerRequest(foreign, "X"))
    expect(r.status).toBe(404)
    expect(isErrorShape(r.body)).toBe(true)
    const person = (await api.post(p, "/customers", individual("Not A Business"))).body.id
    const s = await api.post(p, "/beneficial-owners", ownerRequest(person, "X"))
    expect(s.status).toBe(400)
    expect(s.body.details.errors[0].field).toBe("customerId")
  })

  it("customerId is required to list", async () => {
    const r = await api.get(p, "/beneficial-owners")
    expect(r.status).toBe(400)
    expect(r.body.details.errors[0].field).toBe("customerId")
  })

  it("an owner of a business whose verification was decided cannot be deleted (409)", async () => {
    const id = (await api.post(p, "/customers", business("REG-555"))).body.id
    const owner = (await api.post(p, "/beneficial-owners", ownerRequest(id, "Kept"))).body
    // Unregulated: packet validated first; complete it so it is decided.
    await api.patch(p, `/customers/${id}`, { customerType: "BUSINESS", businessInfo: { country: "US", incorporatedOn: "2015-01-01", taxId: "1" }, address: { line1: "1", postalCode: "1", country: "US" } })
    await api.upload(p, { documentHolder: id, documentType: "ARTICLES_OF_ASSOCIATION", country: "US" }, files.pdf())
    expect((await api.post(p, "/verifications", { customerId: id })).body.verificationStatus).toBe("APPROVED")
    const r = await api.del(p, `/beneficial-owners/${owner.id}`)
    expect(r.status).toBe(409)
    expect(r.body.code).toBe("CONFLICT")
  })
})
