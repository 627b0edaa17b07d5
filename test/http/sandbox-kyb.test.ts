/**
 * SPEC.md "Sandbox outcomes: business KYB" and "beneficial owners", one test per row
 * and platform setting, driven over HTTP.
 */
import { afterAll, describe, expect, it } from "vitest"
import type { Platform } from "../../src/domain/platform.js"
import {
  business,
  businessAddress,
  completeBusinessInfo,
  files,
  makeClient,
  makePlatform,
  ownerRequest
} from "../support/onboarding-client.js"

const unregulated = makePlatform("kyb-unregulated")
const regulated = makePlatform("kyb-regulated", { regulated: true })
const skipPaperwork = makePlatform("kyb-skip", { skipVerificationPaperwork: true })
const api = makeClient([unregulated, regulated, skipPaperwork])
afterAll(() => api.dispose())

const createBusiness = async (p: Platform, registrationNumber: string | undefined) => {
  const r = await api.post(p, "/customers", business(registrationNumber))
  expect(r.status).toBe(201)
  expect(r.body.kybStatus).toBe("UNVERIFIED")
  return r.body.id as string
}

/** Complete business information, a legal presence document and one beneficial owner. */
const completePacket = async (p: Platform, id: string, ownerLastName = "Smith") => {
  const patched = await api.patch(p, `/customers/${id}`, { customerType: "BUSINESS", businessInfo: completeBusinessInfo, address: businessAddress })
  expect(patched.status).toBe(200)
  expect((await api.upload(p, { documentHolder: id, documentType: "CERTIFICATE_OF_INCORPORATION", country: "US" }, files.pdf())).status).toBe(201)
  const owner = await api.post(p, "/beneficial-owners", ownerRequest(id, ownerLastName))
  expect(owner.status).toBe(201)
  return owner.body.id as string
}

const submit = (p: Platform, customerId: string) => api.post(p, "/verifications", { customerId })
const kybStatus = async (p: Platform, id: string) => (await api.get(p, `/customers/${id}`)).body.kybStatus as string

const expectIncomplete = async (p: Platform, id: string) => {
  const v = await submit(p, id)
  expect(v.body.verificationStatus).toBe("RESOLVE_ERRORS")
  const types = v.body.errors.map((e: { type: string }) => e.type)
  expect(types).toContain("MISSING_FIELD")
  expect(types).toContain("MISSING_LEGAL_PRESENCE_DOCUMENT")
  expect(types).toContain("MISSING_BENEFICIAL_OWNER")
  expect(await kybStatus(p, id)).toBe("UNVERIFIED")
}

describe("unregulated platform: the packet is validated first for every suffix", () => {
  it.each(["REG-001", "REG-002", "REG-003", "REG-777"])("%s: an incomplete packet is RESOLVE_ERRORS", async (reg) => {
    await expectIncomplete(unregulated, await createBusiness(unregulated, reg))
  })

  it.each(["REG-001", "REG-003"])("%s: a complete packet goes to manual review (kybStatus PENDING)", async (reg) => {
    const id = await createBusiness(unregulated, reg)
    await completePacket(unregulated, id)
    expect((await submit(unregulated, id)).body.verificationStatus).toBe("PENDING_MANUAL_REVIEW")
    expect(await kybStatus(unregulated, id)).toBe("PENDING")
  })

  it("002: a complete packet is REJECTED", async () => {
    const id = await createBusiness(unregulated, "REG-002")
    await completePacket(unregulated, id)
    expect((await submit(unregulated, id)).body.verificationStatus).toBe("REJECTED")
    expect(await kybStatus(unregulated, id)).toBe("REJECTED")
    expect((await submit(unregulated, id)).status).toBe(400)
  })

  it("any other suffix: a complete packet is APPROVED", async () => {
    const id = await createBusiness(unregulated, "REG-777")
    await completePacket(unregulated, id)
    expect((await submit(unregulated, id)).body.verificationStatus).toBe("APPROVED")
    expect(await kybStatus(unregulated, id)).toBe("APPROVED")
    expect((await submit(unregulated, id)).status).toBe(400)
  })
})

describe.each([
  ["regulated platform", regulated],
  ["unregulated platform with Skip verification paperwork on", skipPaperwork]
])("%s: a final suffix resolves before validation", (_label, p) => {
  it("any other suffix is auto-approved at first submission, asking for no documents or owners", async () => {
    const id = await createBusiness(p, "REG-777")
    const v = await submit(p, id)
    expect(v.body).toMatchObject({ verificationStatus: "APPROVED", errors: [] })
    expect(await kybStatus(p, id)).toBe("APPROVED")
    expect((await submit(p, id)).status).toBe(400)
  })

  it("002 is REJECTED at first submission even when incomplete", async () => {
    const id = await createBusiness(p, "REG-002")
    expect((await submit(p, id)).body.verificationStatus).toBe("REJECTED")
    expect(await kybStatus(p, id)).toBe("REJECTED")
  })

  it.each(["REG-001", "REG-003"])("%s still needs complete information, business documents and a beneficial owner", async (reg) => {
    const id = await createBusiness(p, reg)
    await expectIncomplete(p, id)
    await completePacket(p, id)
    expect((await submit(p, id)).body.verificationStatus).toBe("PENDING_MANUAL_REVIEW")
    expect(await kybStatus(p, id)).toBe("PENDING")
  })

  it("without a registration number there is no suffix: validation applies", async () => {
    const id = await createBusiness(p, undefined)
    const v = await submit(p, id)
    expect(v.body.verificationStatus).toBe("RESOLVE_ERRORS")
    expect(v.body.errors).toContainEqual(expect.objectContaining({ type: "MISSING_FIELD", field: "businessInfo.registrationNumber" }))
  })
})

describe("beneficial owners resolve when the business resolves terminally, by the last 3 characters of lastName", () => {
  const ownersAfter = async (registrationNumber: string, lastNames: ReadonlyArray<string>) => {
    const id = await createBusiness(unregulated, registrationNumber)
    await completePacket(unregulated, id, lastNames[0])
    for (const n of lastNames.slice(1)) expect((await api.post(unregulated, "/beneficial-owners", ownerRequest(id, n))).status).toBe(201)
    const before = await api.get(unregulated, `/beneficial-owners?customerId=${id}`)
    expect(before.body.data.map((o: { kycStatus: string }) => o.kycStatus)).toEqual(lastNames.map(() => "UNVERIFIED"))
    await submit(unregulated, id)
    const after = await api.get(unregulated, `/beneficial-owners?customerId=${id}`)
    // Lists are ordered by (createdAt, id): owners created in one millisecond come in id order, so match by name.
    const byName = new Map<string, string>(
      after.body.data.map((o: { kycStatus: string; personalInfo: { lastName: string } }) => [o.personalInfo.lastName, o.kycStatus])
    )
    return { id, statuses: lastNames.map((n) => byName.get(n)) }
  }

  it("001 -> PENDING, 002 -> REJECTED, any other -> APPROVED when the business is APPROVED", async () => {
    expect((await ownersAfter("REG-777", ["Lee 001", "Lee 002", "Lee"])).statuses).toEqual(["PENDING", "REJECTED", "APPROVED"])
  })

  it("the same table applies when the business is REJECTED", async () => {
    expect((await ownersAfter("REG-002", ["Lee 001", "Lee 002", "Lee"])).statuses).toEqual(["PENDING", "REJECTED", "APPROVED"])
  })

  it("owners stay UNVERIFIED while the business is only in manual review", async () => {
    expect((await ownersAfter("REG-001", ["Lee 002", "Lee"])).statuses).toEqual(["UNVERIFIED", "UNVERIFIED"])
  })

  it("an owner added after the business resolved resolves at once; renaming does not re-derive", async () => {
    const { id } = await ownersAfter("REG-777", ["Lee"])
    const late = await api.post(unregulated, "/beneficial-owners", ownerRequest(id, "Late 002"))
    expect(late.body.kycStatus).toBe("REJECTED")
    const renamed = await api.patch(unregulated, `/beneficial-owners/${late.body.id}`, { personalInfo: { lastName: "Late" } })
    expect(renamed.status).toBe(200)
    expect(renamed.body).toMatchObject({ kycStatus: "REJECTED", personalInfo: { lastName: "Late", firstName: "Jane" } })
  })
})
