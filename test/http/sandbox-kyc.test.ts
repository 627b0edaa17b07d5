/**
 * SPEC.md "Sandbox outcomes: individual KYC", one test per row and platform setting,
 * driven over HTTP.
 */
import { afterAll, describe, expect, it } from "vitest"
import {
  type Client,
  completeIndividualFields,
  files,
  individual,
  makeClient,
  makePlatform
} from "../support/onboarding-client.js"
import type { Platform } from "../../src/domain/platform.js"

const unregulated = makePlatform("kyc-unregulated")
const regulated = makePlatform("kyc-regulated", { regulated: true })
const skipPaperwork = makePlatform("kyc-skip", { skipVerificationPaperwork: true })
const production = makePlatform("kyc-production", { sandbox: false })
const api = makeClient([unregulated, regulated, skipPaperwork, production])
afterAll(() => api.dispose())

const create = async (p: Platform, fullName: string, complete = false) => {
  const r = await api.post(p, "/customers", individual(fullName, complete ? completeIndividualFields : {}))
  expect(r.status).toBe(201)
  return r.body as { id: string; kycStatus: string }
}

const uploadPassport = (p: Platform, holder: string) =>
  api.upload(p, { documentHolder: holder, documentType: "PASSPORT", country: "US" }, files.jpeg())

/** A customer with complete data and an identity document. */
const completeCustomer = async (p: Platform, fullName: string) => {
  const c = await create(p, fullName, true)
  expect((await uploadPassport(p, c.id)).status).toBe(201)
  return c
}

const submit = (p: Platform, customerId: string) => api.post(p, "/verifications", { customerId })
const kycStatus = async (p: Platform, id: string) => (await api.get(p, `/customers/${id}`)).body.kycStatus as string

const expectFinal = async (client: Client, p: Platform, id: string, status: string) => {
  const again = await client.post(p, "/verifications", { customerId: id })
  expect(again.status).toBe(400)
  expect(again.body.code).toBe("INVALID_INPUT")
  expect(again.body.details.kycStatus).toBe(status)
  expect(await kycStatus(p, id)).toBe(status)
}

describe("unregulated platform (default): UNVERIFIED until POST /verifications, then the suffix decides", () => {
  it.each(["Ann Lee 001", "Ann Lee 002", "Ann Lee 003", "Ann Lee"])("%s is created UNVERIFIED and an incomplete packet is RESOLVE_ERRORS", async (name) => {
    const c = await create(unregulated, name)
    expect(c.kycStatus).toBe("UNVERIFIED")
    const v = await submit(unregulated, c.id)
    expect(v.status).toBe(200)
    expect(v.body.verificationStatus).toBe("RESOLVE_ERRORS")
    expect(v.body.errors.length).toBeGreaterThan(0)
    expect(await kycStatus(unregulated, c.id)).toBe("UNVERIFIED")
  })

  it("001: complete packet -> PENDING_MANUAL_REVIEW, kycStatus PENDING", async () => {
    const c = await completeCustomer(unregulated, "Ann Lee 001")
    const v = await submit(unregulated, c.id)
    expect(v.body).toMatchObject({ verificationStatus: "PENDING_MANUAL_REVIEW", errors: [] })
    expect(await kycStatus(unregulated, c.id)).toBe("PENDING")
  })

  it("002: complete packet -> REJECTED (terminal)", async () => {
    const c = await completeCustomer(unregulated, "Ann Lee 002")
    expect((await submit(unregulated, c.id)).body.verificationStatus).toBe("REJECTED")
    await expectFinal(api, unregulated, c.id, "REJECTED")
  })

  it("003: complete packet -> RESOLVE_ERRORS with POOR_QUALITY_DOCUMENT, correctable by replacing the document", async () => {
    const c = await create(unregulated, "Ann Lee 003", true)
    const doc = (await uploadPassport(unregulated, c.id)).body
    const v = await submit(unregulated, c.id)
    expect(v.body.verificationStatus).toBe("RESOLVE_ERRORS")
    expect(v.body.errors).toEqual([expect.objectContaining({ resourceId: doc.id, type: "POOR_QUALITY_DOCUMENT" })])
    expect(await kycStatus(unregulated, c.id)).toBe("UNVERIFIED")
    // Resubmitting the same document reports it again.
    expect((await submit(unregulated, c.id)).body.errors[0].type).toBe("POOR_QUALITY_DOCUMENT")
    const replaced = await api.form(unregulated, "PUT", `/documents/${doc.id}`, { documentType: "PASSPORT", country: "US" }, files.png())
    expect(replaced.status).toBe(200)
    expect((await submit(unregulated, c.id)).body.verificationStatus).toBe("PENDING_MANUAL_REVIEW")
    expect(await kycStatus(unregulated, c.id)).toBe("PENDING")
  })

  it("any other suffix: complete packet -> APPROVED (terminal)", async () => {
    const c = await completeCustomer(unregulated, "Ann Lee")
    expect((await submit(unregulated, c.id)).body.verificationStatus).toBe("APPROVED")
    await expectFinal(api, unregulated, c.id, "APPROVED")
  })
})

describe.each([
  ["regulated platform", regulated],
  ["unregulated platform with Skip verification paperwork on", skipPaperwork]
])("%s: the suffix resolves the customer at creation", (_label, p) => {
  it("001 -> PENDING at creation; a complete submission -> PENDING_MANUAL_REVIEW", async () => {
    const c = await create(p, "Bo Chen 001")
    expect(c.kycStatus).toBe("PENDING")
    // Still needs the full data and documents.
    const incomplete = await submit(p, c.id)
    expect(incomplete.body.verificationStatus).toBe("RESOLVE_ERRORS")
    await api.patch(p, `/customers/${c.id}`, { customerType: "INDIVIDUAL", ...completeIndividualFields })
    await uploadPassport(p, c.id)
    expect((await submit(p, c.id)).body.verificationStatus).toBe("PENDING_MANUAL_REVIEW")
    expect(await kycStatus(p, c.id)).toBe("PENDING")
  })

  it("002 -> REJECTED at creation; POST /verifications is 400 (terminal)", async () => {
    const c = await create(p, "Bo Chen 002")
    expect(c.kycStatus).toBe("REJECTED")
    await expectFinal(api, p, c.id, "REJECTED")
  })

  it("003 -> UNVERIFIED at creation; a complete submission -> RESOLVE_ERRORS with POOR_QUALITY_DOCUMENT", async () => {
    const c = await create(p, "Bo Chen 003")
    expect(c.kycStatus).toBe("UNVERIFIED")
    expect((await submit(p, c.id)).body.verificationStatus).toBe("RESOLVE_ERRORS")
    await api.patch(p, `/customers/${c.id}`, { customerType: "INDIVIDUAL", ...completeIndividualFields })
    await uploadPassport(p, c.id)
    const v = await submit(p, c.id)
    expect(v.body.verificationStatus).toBe("RESOLVE_ERRORS")
    expect(v.body.errors.map((e: { type: string }) => e.type)).toEqual(["POOR_QUALITY_DOCUMENT"])
  })

  it("any other suffix -> APPROVED at creation with no documents; POST /verifications is 400", async () => {
    const c = await create(p, "Bo Chen")
    expect(c.kycStatus).toBe("APPROVED")
    await expectFinal(api, p, c.id, "APPROVED")
  })
})

describe("finality: renaming does not re-derive a final status", () => {
  it("an APPROVED customer renamed to a 002 name stays APPROVED and further submissions are 400", async () => {
    const c = await create(regulated, "Cy Diaz")
    const renamed = await api.patch(regulated, `/customers/${c.id}`, { customerType: "INDIVIDUAL", fullName: "Cy Diaz 002" })
    expect(renamed.status).toBe(200)
    expect(renamed.body.kycStatus).toBe("APPROVED")
    await expectFinal(api, regulated, c.id, "APPROVED")
  })

  it("a REJECTED customer renamed to an approving name stays REJECTED", async () => {
    const c = await create(regulated, "Cy Diaz 002")
    await api.patch(regulated, `/customers/${c.id}`, { customerType: "INDIVIDUAL", fullName: "Cy Diaz" })
    await expectFinal(api, regulated, c.id, "REJECTED")
  })
})

describe("a production (non-sandbox) platform has no magic values", () => {
  it("a 002 name is created UNVERIFIED and a complete packet goes to manual review", async () => {
    const c = await create(production, "Di Evans 002")
    expect(c.kycStatus).toBe("UNVERIFIED")
    await uploadPassport(production, c.id)
    await api.patch(production, `/customers/${c.id}`, { customerType: "INDIVIDUAL", ...completeIndividualFields })
    expect((await submit(production, c.id)).body.verificationStatus).toBe("PENDING_MANUAL_REVIEW")
    expect(await kycStatus(production, c.id)).toBe("PENDING")
  })
})
