/**
 * Conformance: POST /customers/{customerId}/kyc-link answers the reference's
 * KycLinkResponse (201), through the shared harness. The hosted flow behind the link
 * (GET/POST /sandbox/kyc-link) is ours: HTML, with no reference operation (coverage.test.ts
 * lists it as such).
 *
 * SPEC.md's differences that touch this body: none, so `SPEC_DIFFERENCES` is empty.
 */
import { afterAll, describe, expect, it } from "vitest"
import { platformFromConfig } from "../../src/domain/platform.js"
import { makeApi } from "../support/api.js"
import { conformance, referenceOperation, type Json } from "./harness.js"
import { KYC_LINK_OPERATIONS } from "./operations.js"

const SPEC_DIFFERENCES = (_: Record<string, Json>) => undefined

const { conforms, validator, checked } = conformance(SPEC_DIFFERENCES)

const platform = platformFromConfig({ id: "conformance-kyc-links", clientId: "conf-kyc-links", clientSecret: "conf-kyc-links-secret-1" })
const api = makeApi([platform])
afterAll(() => api.dispose())

describe("KYC link answers against the reference", () => {
  it("POST /customers/{customerId}/kyc-link: without a body and with a redirectUri", async () => {
    const customer = await api.call("POST", "/customers", { body: { customerType: "INDIVIDUAL", fullName: "Kim Park", platformCustomerId: "conf-kyc-1" } })
    expect(customer.status).toBe(201)
    conforms("POST", "/customers/{customerId}/kyc-link", await api.call("POST", `/customers/${customer.body.id}/kyc-link`))
    conforms("POST", "/customers/{customerId}/kyc-link", await api.call("POST", `/customers/${customer.body.id}/kyc-link`, { body: { redirectUri: "https://app.example.com/done" } }))
  })

  it("the validator bites; the hosted flow has no reference operation", () => {
    expect(validator("KycLinkResponse")({ kycUrl: "https://x", expiresAt: "2026-01-01T00:00:00Z", provider: "OTHER" })).toBe(false)
    expect(referenceOperation("GET", "/sandbox/kyc-link")).toBeUndefined()
    expect(referenceOperation("POST", "/sandbox/kyc-link")).toBeUndefined()
  })

  it("every KYC link endpoint was checked", () => {
    for (const op of KYC_LINK_OPERATIONS) expect(checked.get(op) ?? 0, op).toBeGreaterThan(0)
  })
})
