/** Customers and agreements over HTTP: fields, validation, conflicts, filters, consents. */
import { afterAll, describe, expect, it } from "vitest"
import { business, individual, isErrorShape, makeClient, makePlatform } from "../support/onboarding-client.js"

const p = makePlatform("customers")
const other = makePlatform("customers-other")
const api = makeClient([p, other])
afterAll(() => api.dispose())

const consent = (type: string, acceptedAt = "2025-10-13T09:30:00Z", termsVersion = "V1") => ({
  type,
  acceptedAt,
  ipAddress: "203.0.113.7",
  termsVersion,
  acceptanceMethod: "CHECKBOX"
})

describe("POST /customers", () => {
  it("keeps every individual field, the enhanced-due-diligence fields included", async () => {
    const edd = {
      sourceOfFundsCategories: ["SALARY", "SAVINGS"],
      sourceOfWealthCategories: ["INVESTMENTS"],
      purposeOfAccount: "P2P_TRANSFERS",
      expectedMonthlyTransactionCount: "COUNT_10_TO_100",
      expectedMonthlyTransactionVolume: "VOLUME_10K_TO_100K",
      annualIncomeRange: "RANGE_100K_250K",
      netWorthRange: "RANGE_500K_1M",
      pepStatus: "NONE"
    }
    const body = individual("Eve Fox", {
      birthDate: "1985-02-03",
      nationality: "GB",
      idType: "PASSPORT",
      identifier: "P1",
      countryOfIssuance: "GB",
      email: "eve@example.com",
      phoneNumber: "+447700900123",
      region: "GB",
      currencies: ["GBP", "USD"],
      address: { line1: "10 Downing St", city: "London", postalCode: "SW1A 2AA", country: "GB" },
      ...edd
    })
    const r = await api.post(p, "/customers", body)
    expect(r.status).toBe(201)
    // Every field comes back but `identifier`, which the reference marks write-only.
    const rest = Object.fromEntries(Object.entries(body).filter(([k]) => k !== "customerType" && k !== "identifier"))
    expect(r.body).toMatchObject(rest)
    expect(r.body).not.toHaveProperty("identifier")
    expect(r.body).toMatchObject({ customerType: "INDIVIDUAL", kycStatus: "UNVERIFIED", agreementConsents: [], isDeleted: false })
    expect((await api.get(p, `/customers/${r.body.id}`)).body).toEqual(r.body)
  })

  it("keeps every business field of the reference, the enhanced-due-diligence ones included, and refuses values outside its enums", async () => {
    const businessInfo = {
      legalName: "Gamma Foundation", registrationNumber: "REG-77", entityType: "PRIVATE_FOUNDATION", country: "GB",
      businessType: "FINANCE_AND_INSURANCE",
      sourceOfFundsCategories: ["OPERATING_REVENUE", "OTHER"],
      sourceOfFundsOtherDescription: "Proceeds from a legal settlement",
      purposeOfAccountOtherDescription: "Escrow for equipment leases",
      expectedCounterpartyCountries: ["US", "DE"]
    }
    const r = await api.post(p, "/customers", business("REG-77", { businessInfo }))
    expect(r.status).toBe(201)
    expect(r.body.businessInfo).toMatchObject(businessInfo)
    for (const entityType of ["PUBLICLY_LISTED_COMPANY", "CHARITY"]) {
      expect((await api.post(p, "/customers", business("REG-78", { businessInfo: { ...businessInfo, entityType } }))).status).toBe(201)
    }
    for (const [field, value] of [["businessType", "SPACESHIPS"], ["sourceOfFundsCategories", ["LOTTERY"]], ["sourceOfFundsOtherDescription", ""], ["expectedCounterpartyCountries", ["Narnia"]]] as const) {
      const bad = await api.post(p, "/customers", business("REG-79", { businessInfo: { ...businessInfo, [field]: value } }))
      expect(bad.status, field).toBe(400)
      expect(JSON.stringify(bad.body.details), field).toContain(field)
    }
  })

  it("an individual may be created without fullName; verification then lists it as missing", async () => {
    const r = await api.post(p, "/customers", { customerType: "INDIVIDUAL", email: "no.name@example.com" })
    expect(r.status).toBe(201)
    expect(r.body.fullName).toBeUndefined()
    expect(r.body.kycStatus).toBe("UNVERIFIED")
    const v = await api.post(p, "/verifications", { customerId: r.body.id })
    expect(v.body.verificationStatus).toBe("RESOLVE_ERRORS")
    expect(v.body.errors).toContainEqual(expect.objectContaining({ field: "fullName" }))
  })

  it("creates a business with businessInfo and kybStatus UNVERIFIED", async () => {
    const r = await api.post(p, "/customers", business("REG-9", { businessInfo: { legalName: "Beta LLC", registrationNumber: "REG-9", entityType: "LLC", country: "US" } }))
    expect(r.status).toBe(201)
    expect(r.body).toMatchObject({ customerType: "BUSINESS", kybStatus: "UNVERIFIED", businessInfo: { legalName: "Beta LLC", entityType: "LLC" } })
    expect(r.body.kycStatus).toBeUndefined()
  })

  it("lists every invalid field at once", async () => {
    const r = await api.post(p, "/customers", {
      customerType: "INDIVIDUAL",
      fullName: "",
      birthDate: "1990-02-30",
      nationality: "usa",
      email: "not-an-email",
      pepStatus: "MAYBE"
    })
    expect(r.status).toBe(400)
    expect(r.body.code).toBe("INVALID_INPUT")
    const fields = (r.body.details.errors as Array<{ field: string }>).map((e) => e.field).sort()
    expect(fields).toEqual(["birthDate", "email", "fullName", "nationality", "pepStatus"])
  })

  it("an unknown customerType names the discriminator", async () => {
    const r = await api.post(p, "/customers", { customerType: "TRUST", fullName: "X" })
    expect(r.status).toBe(400)
    expect(r.body.details.errors).toEqual([expect.objectContaining({ field: "customerType", constraint: "enum" })])
  })

  it("409 CONFLICT on a platformCustomerId held by an active customer; free again once deleted", async () => {
    const first = await api.post(p, "/customers", individual("Gus Hill", { platformCustomerId: "dup-1" }))
    expect(first.status).toBe(201)
    const clash = await api.post(p, "/customers", individual("Gus Hill Two", { platformCustomerId: "dup-1" }))
    expect(clash.status).toBe(409)
    expect(clash.body).toMatchObject({ code: "CONFLICT", details: { customerId: first.body.id } })
    // Another platform has its own namespace.
    expect((await api.post(other, "/customers", individual("Gus Hill", { platformCustomerId: "dup-1" }))).status).toBe(201)
    expect((await api.del(p, `/customers/${first.body.id}`)).status).toBe(200)
    expect((await api.post(p, "/customers", individual("Gus Hill Three", { platformCustomerId: "dup-1" }))).status).toBe(201)
  })
})

describe("GET, PATCH, DELETE /customers", () => {
  it("DELETE marks the customer deleted; a second DELETE is 410 CUSTOMER_DELETED; PATCH is then 404", async () => {
    const c = (await api.post(p, "/customers", individual("Ida Jones"))).body
    const d = await api.del(p, `/customers/${c.id}`)
    expect(d.body).toMatchObject({ id: c.id, isDeleted: true })
    const again = await api.del(p, `/customers/${c.id}`)
    expect(again.status).toBe(410)
    expect(again.body.code).toBe("CUSTOMER_DELETED")
    expect(isErrorShape(again.body)).toBe(true)
    expect((await api.patch(p, `/customers/${c.id}`, { customerType: "INDIVIDUAL", fullName: "New" })).status).toBe(404)
    expect((await api.get(p, `/customers/${c.id}`)).body.isDeleted).toBe(true)
  })

  it("another platform's customer is not found", async () => {
    const c = (await api.post(p, "/customers", individual("Jo King"))).body
    expect((await api.get(other, `/customers/${c.id}`)).status).toBe(404)
    expect((await api.del(other, `/customers/${c.id}`)).status).toBe(404)
  })

  it("PATCH cannot change customerType", async () => {
    const c = (await api.post(p, "/customers", individual("Kim Lo"))).body
    const r = await api.patch(p, `/customers/${c.id}`, { customerType: "BUSINESS", businessInfo: { legalName: "X" } })
    expect(r.status).toBe(400)
    expect(r.body.details.errors[0].field).toBe("customerType")
  })

  it("filters by platformCustomerId, customerType, region, currency, umaAddress and isIncludingDeleted", async () => {
    const f = makePlatform("customers-filters")
    const local = makeClient([f])
    try {
      const a = (await local.post(f, "/customers", individual("A", { platformCustomerId: "a", region: "US", currencies: ["USD"] }))).body
      const b = (await local.post(f, "/customers", individual("B", { platformCustomerId: "b", region: "MX", currencies: ["MXN", "USD"], umaAddress: "$bee@uma.test" }))).body
      const c = (await local.post(f, "/customers", business("R1", { platformCustomerId: "c", region: "MX" }))).body
      await local.del(f, `/customers/${a.id}`)
      // Lists are ordered by (createdAt, id); customers created in one millisecond come in id order.
      const ids = async (q: string) => (await local.get(f, `/customers?${q}`)).body.data.map((x: { id: string }) => x.id).sort()
      expect(await ids("")).toEqual([b.id, c.id].sort())
      expect(await ids("isIncludingDeleted=true")).toEqual([a.id, b.id, c.id].sort())
      expect(await ids("platformCustomerId=b")).toEqual([b.id].sort())
      expect(await ids("customerType=BUSINESS")).toEqual([c.id].sort())
      expect(await ids("region=MX")).toEqual([b.id, c.id].sort())
      expect(await ids("currency=USD")).toEqual([b.id].sort())
      expect(await ids(`umaAddress=${encodeURIComponent("$bee@uma.test")}`)).toEqual([b.id].sort())
      const bad = await local.get(f, "/customers?customerType=ROBOT")
      expect(bad.status).toBe(400)
      // Every filter is decoded: a value that cannot be one is a 400 naming it.
      for (const [q, field] of [["region=Mexico", "region"], ["currency=dollars", "currency"], ["createdAfter=not-a-date", "createdAfter"], ["updatedBefore=2025-13-45", "updatedBefore"], ["limit=0", "limit"]] as const) {
        const r = await local.get(f, `/customers?${q}`)
        expect(r.status, q).toBe(400)
        expect(r.body.code).toBe("INVALID_INPUT")
        expect(JSON.stringify(r.body.details), q).toContain(field)
      }
    } finally {
      await local.dispose()
    }
  })
})

describe("write-only fields never come back", () => {
  it("identifier (an SSN, a passport number) is stored, used by the rules, and in no answer", async () => {
    const created = await api.post(p, "/customers", individual("Write Only", { idType: "SSN", identifier: "123-45-6789", platformCustomerId: "write-only" }))
    expect(created.status).toBe(201)
    const answers = [
      created.body,
      (await api.get(p, `/customers/${created.body.id}`)).body,
      ...(await api.get(p, "/customers?platformCustomerId=write-only")).body.data,
      (await api.patch(p, `/customers/${created.body.id}`, { customerType: "INDIVIDUAL", email: "w@o.test" })).body
    ]
    expect(answers).toHaveLength(4)
    for (const a of answers) {
      expect(a.id).toBe(created.body.id)
      expect(a).not.toHaveProperty("identifier")
      expect(JSON.stringify(a)).not.toContain("123-45-6789")
    }
  })
})

describe("UMA addresses are unique per platform (409 UMA_ADDRESS_EXISTS)", () => {
  it("a second active customer cannot take an address in use, in any case; another platform can; deleting frees it", async () => {
    const first = await api.post(p, "/customers", individual("Uma One", { umaAddress: "$alice@uma.test" }))
    expect(first.status).toBe(201)
    for (const address of ["$alice@uma.test", "$ALICE@uma.test"]) {
      const clash = await api.post(p, "/customers", individual("Uma Two", { umaAddress: address }))
      expect(clash.status).toBe(409)
      expect(clash.body.code).toBe("UMA_ADDRESS_EXISTS")
      expect(isErrorShape(clash.body)).toBe(true)
    }
    expect((await api.post(other, "/customers", individual("Elsewhere", { umaAddress: "$alice@uma.test" }))).status).toBe(201)
    const second = await api.post(p, "/customers", individual("Uma Two", { umaAddress: "$bob@uma.test" }))
    const patched = await api.patch(p, `/customers/${second.body.id}`, { customerType: "INDIVIDUAL", umaAddress: "$alice@uma.test" })
    expect(patched.status).toBe(409)
    expect(patched.body.code).toBe("UMA_ADDRESS_EXISTS")
    // Re-stating one's own address is no clash.
    expect((await api.patch(p, `/customers/${first.body.id}`, { customerType: "INDIVIDUAL", umaAddress: "$alice@uma.test" })).status).toBe(200)
    await api.del(p, `/customers/${first.body.id}`)
    expect((await api.post(p, "/customers", individual("Uma Three", { umaAddress: "$alice@uma.test" }))).status).toBe(201)
  })

  it("default addresses never clash: ids that normalise alike get distinct addresses", async () => {
    const a = await api.post(p, "/customers", individual("Norm A", { platformCustomerId: "Norm-Case" }))
    const b = await api.post(p, "/customers", individual("Norm B", { platformCustomerId: "norm-case" }))
    expect(a.status).toBe(201)
    expect(b.status).toBe(201)
    expect(b.body.umaAddress.toLowerCase()).not.toBe(a.body.umaAddress.toLowerCase())
  })
})

describe("agreements", () => {
  it("GET /customers/agreements lists the seven agreements with version and url", async () => {
    const r = await api.get(p, "/customers/agreements")
    expect(r.status).toBe(200)
    expect(r.body.data).toHaveLength(7)
    expect(r.body.data.map((a: { type: string }) => a.type)).toContain("SERVICE_END_USER_TERMS")
    for (const a of r.body.data) {
      expect(a.version).toBe("V1")
      expect(a.url).toMatch(/^https:\/\//)
    }
  })

  it("deprecated GET /customers/end-user-terms returns the SERVICE_END_USER_TERMS version and url", async () => {
    const list = (await api.get(p, "/customers/agreements")).body.data
    const eut = list.find((a: { type: string }) => a.type === "SERVICE_END_USER_TERMS")
    const r = await api.get(p, "/customers/end-user-terms")
    expect(r.status).toBe(200)
    expect(r.body).toEqual({ version: eut.version, url: eut.url })
  })

  it("records consents on create; PATCH adds acceptances and leaves other types untouched; latest per type", async () => {
    const c = await api.post(p, "/customers", individual("Lu Ma", { agreementConsents: [consent("PRIVACY_POLICY"), consent("E_SIGN_CONSENT")] }))
    expect(c.status).toBe(201)
    expect(c.body.agreementConsents).toEqual([consent("PRIVACY_POLICY"), consent("E_SIGN_CONSENT")])
    expect(c.body.endUserTermsConsent).toBeUndefined()
    const later = consent("PRIVACY_POLICY", "2025-11-01T00:00:00Z")
    const u = await api.patch(p, `/customers/${c.body.id}`, { customerType: "INDIVIDUAL", agreementConsents: [later, consent("SERVICE_END_USER_TERMS")] })
    expect(u.status).toBe(200)
    expect(u.body.agreementConsents).toEqual([later, consent("E_SIGN_CONSENT"), consent("SERVICE_END_USER_TERMS")])
    // The SERVICE_END_USER_TERMS acceptance also shows the deprecated way.
    const { type: _t, ...eut } = consent("SERVICE_END_USER_TERMS")
    expect(u.body.endUserTermsConsent).toEqual(eut)
    // An older acceptance does not replace a newer one.
    const older = await api.patch(p, `/customers/${c.body.id}`, { customerType: "INDIVIDUAL", agreementConsents: [consent("PRIVACY_POLICY", "2024-01-01T00:00:00Z")] })
    expect(older.body.agreementConsents[0]).toEqual(later)
  })

  it("the deprecated endUserTermsConsent is recorded as a SERVICE_END_USER_TERMS entry", async () => {
    const { type: _t, ...eut } = consent("SERVICE_END_USER_TERMS")
    const c = await api.post(p, "/customers", individual("Mo Ng", { endUserTermsConsent: eut }))
    expect(c.status).toBe(201)
    expect(c.body.agreementConsents).toEqual([consent("SERVICE_END_USER_TERMS")])
    expect(c.body.endUserTermsConsent).toEqual(eut)
    const u = await api.patch(p, `/customers/${c.body.id}`, { customerType: "INDIVIDUAL", endUserTermsConsent: { ...eut, acceptedAt: "2025-12-01T00:00:00Z" } })
    expect(u.body.agreementConsents).toEqual([consent("SERVICE_END_USER_TERMS", "2025-12-01T00:00:00Z")])
  })

  it("rejects both agreementConsents and endUserTermsConsent, a repeated type and an unknown version; nothing is stored", async () => {
    const c = (await api.post(p, "/customers", individual("Ned Ott"))).body
    const { type: _t, ...eut } = consent("SERVICE_END_USER_TERMS")
    const both = await api.patch(p, `/customers/${c.id}`, { customerType: "INDIVIDUAL", agreementConsents: [consent("PRIVACY_POLICY")], endUserTermsConsent: eut })
    expect(both.status).toBe(400)
    expect(both.body.code).toBe("INVALID_INPUT")
    const repeated = await api.patch(p, `/customers/${c.id}`, { customerType: "INDIVIDUAL", agreementConsents: [consent("PRIVACY_POLICY"), consent("PRIVACY_POLICY")] })
    expect(repeated.status).toBe(400)
    expect(repeated.body.details.errors[0]).toMatchObject({ field: "agreementConsents[1].type", constraint: "unique" })
    const unknown = await api.patch(p, `/customers/${c.id}`, { customerType: "INDIVIDUAL", agreementConsents: [consent("PRIVACY_POLICY", undefined, "V9")] })
    expect(unknown.status).toBe(400)
    expect(unknown.body.code).toBe("END_USER_TERMS_VERSION_NOT_FOUND")
    expect(unknown.body.details.errors[0].field).toBe("agreementConsents[0].termsVersion")
    const onCreate = await api.post(p, "/customers", individual("Oz Pi", { endUserTermsConsent: { ...eut, termsVersion: "V0" } }))
    expect(onCreate.status).toBe(400)
    expect(onCreate.body.code).toBe("END_USER_TERMS_VERSION_NOT_FOUND")
    expect((await api.get(p, `/customers/${c.id}`)).body.agreementConsents).toEqual([])
  })

  it("an unknown agreement type is a field error", async () => {
    const r = await api.post(p, "/customers", individual("Pa Qu", { agreementConsents: [consent("COOKIE_POLICY")] }))
    expect(r.status).toBe(400)
    expect(r.body.details.errors[0].field).toBe("agreementConsents[0].type")
  })
})
