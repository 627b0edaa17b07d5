/**
 * SPEC.md's fix-and-resubmit loop, exactly as written: create with a 001 name, POST
 * /verifications (errors listed), PATCH the missing fields, upload the document, POST
 * /verifications again -> PENDING_MANUAL_REVIEW and kycStatus PENDING.
 */
import { afterAll, expect, it } from "vitest"
import { files, makeClient, makePlatform } from "../support/onboarding-client.js"

const p = makePlatform("fix-loop")
const api = makeClient([p], 7)
afterAll(() => api.dispose())

it("create 001 -> submit (errors) -> PATCH -> upload -> submit -> PENDING_MANUAL_REVIEW, kycStatus PENDING", async () => {
  const created = await api.post(p, "/customers", { customerType: "INDIVIDUAL", fullName: "Jane Doe 001", platformCustomerId: "jane-1" })
  expect(created.status).toBe(201)
  expect(created.body.kycStatus).toBe("UNVERIFIED")
  const id = created.body.id as string

  const first = await api.post(p, "/verifications", { customerId: id })
  expect(first.status).toBe(200)
  expect(first.body.verificationStatus).toBe("RESOLVE_ERRORS")
  expect(first.body.id).toMatch(/^Verification:/)
  const errors = first.body.errors as Array<{ resourceId: string; type: string; field?: string; reason: string; acceptedDocumentTypes?: Array<string> }>
  for (const e of errors) {
    expect(e.resourceId).toBe(id)
    expect(e.reason.length).toBeGreaterThan(0)
  }
  expect(errors.filter((e) => e.type === "MISSING_FIELD").map((e) => e.field)).toEqual([
    "birthDate",
    "nationality",
    "idType",
    "identifier",
    "address"
  ])
  expect(errors.filter((e) => e.type === "MISSING_IDENTITY_DOCUMENT")).toEqual([
    expect.objectContaining({ acceptedDocumentTypes: ["PASSPORT", "DRIVERS_LICENSE", "NATIONAL_ID"] })
  ])

  const patched = await api.patch(p, `/customers/${id}`, {
    customerType: "INDIVIDUAL",
    birthDate: "1990-04-12",
    nationality: "US",
    idType: "PASSPORT",
    identifier: "X1234567",
    address: { line1: "1 Main St", city: "Springfield", postalCode: "12345", country: "US" }
  })
  expect(patched.status).toBe(200)
  expect(patched.body.kycStatus).toBe("UNVERIFIED")

  const second = await api.post(p, "/verifications", { customerId: id })
  expect(second.body.errors.map((e: { type: string }) => e.type)).toEqual(["MISSING_IDENTITY_DOCUMENT"])

  const uploaded = await api.upload(p, { documentHolder: id, documentType: "PASSPORT", country: "US", documentNumber: "X1234567" }, files.pdf("passport.pdf"))
  expect(uploaded.status).toBe(201)

  const last = await api.post(p, "/verifications", { customerId: id })
  expect(last.status).toBe(200)
  expect(last.body).toMatchObject({ customerId: id, verificationStatus: "PENDING_MANUAL_REVIEW", errors: [] })
  expect((await api.get(p, `/customers/${id}`)).body.kycStatus).toBe("PENDING")

  // The submissions are listed, newest last, and each can be read back.
  const list = await api.get(p, `/verifications?customerId=${encodeURIComponent(id)}`)
  expect(list.body.data.map((v: { verificationStatus: string }) => v.verificationStatus)).toEqual([
    "RESOLVE_ERRORS",
    "RESOLVE_ERRORS",
    "PENDING_MANUAL_REVIEW"
  ])
  const pending = await api.get(p, "/verifications?verificationStatus=PENDING_MANUAL_REVIEW")
  expect(pending.body.data).toEqual([last.body])
  expect((await api.get(p, `/verifications/${last.body.id}`)).body).toEqual(last.body)
  expect((await api.get(p, "/verifications/Verification:00000000-0000-4000-8000-000000000000")).status).toBe(404)
})

it("POST /verifications for an unknown customer is 404; a malformed body is 400", async () => {
  const unknown = await api.post(p, "/verifications", { customerId: "Customer:00000000-0000-4000-8000-000000000000" })
  expect(unknown.status).toBe(404)
  const bad = await api.post(p, "/verifications", { customer: "x" })
  expect(bad.status).toBe(400)
  expect(bad.body.details.errors[0].field).toBe("customerId")
})
