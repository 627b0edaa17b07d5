/** SPEC.md's individual-KYC table, row by row, as pure rules. */
import { describe, expect, it } from "vitest"
import type { PlatformSettings } from "../../../src/domain/platform.js"
import { decideIndividualSubmission, kycRow, kycStatusAtCreation } from "../../../src/rules/sandbox/kyc.js"

const settings = (s: Partial<PlatformSettings> = {}): PlatformSettings => ({
  regulated: false,
  skipVerificationPaperwork: false,
  travelRule: false,
  sandbox: true,
  ...s
})
const unregulated = settings()
const regulated = settings({ regulated: true })
const skip = settings({ skipVerificationPaperwork: true })
const production = settings({ sandbox: false, regulated: true })

const complete = { problems: [], identityDocuments: [{ id: "Document:1", documentType: "PASSPORT" as const, poorQuality: false }], poorQualityReported: false }
const missing = [{ resourceId: "Customer:1", type: "MISSING_FIELD" as const, field: "birthDate", reason: "Birth date is required" }]

describe("| Suffix | Resolved kycStatus | On POST /verifications |", () => {
  it.each([
    ["Jane 001", "PENDING", "PENDING_MANUAL_REVIEW"],
    ["Jane 002", "REJECTED", "REJECTED"],
    ["Jane 003", "UNVERIFIED", "RESOLVE_ERRORS"],
    ["Jane Doe", "APPROVED", "APPROVED"]
  ] as const)("%s: resolves to %s on regulated/skip platforms; a complete submission gives %s", (name, atCreation, onSubmit) => {
    expect(kycStatusAtCreation(regulated, name)).toBe(atCreation)
    expect(kycStatusAtCreation(skip, name)).toBe(atCreation)
    expect(kycStatusAtCreation(unregulated, name)).toBe("UNVERIFIED")
    expect(kycStatusAtCreation(production, name)).toBe("UNVERIFIED")
    expect(decideIndividualSubmission({ settings: unregulated, fullName: name, ...complete }).kind).toBe(onSubmit)
  })

  it("reads only the last 3 characters", () => {
    expect(kycRow("x001")).toBe(kycRow("Someone 001"))
    expect(kycRow("0012").atCreation).toBe("APPROVED")
  })

  it.each(["Jane 001", "Jane 002", "Jane 003", "Jane Doe"])("%s: an incomplete packet is RESOLVE_ERRORS with every problem", (name) => {
    const r = decideIndividualSubmission({ settings: unregulated, fullName: name, ...complete, problems: missing })
    expect(r).toEqual({ kind: "RESOLVE_ERRORS", errors: missing, accepted: false })
  })

  it("003: poor quality is reported once, then a replaced document goes to manual review", () => {
    const first = decideIndividualSubmission({ settings: unregulated, fullName: "J 003", ...complete })
    expect(first).toMatchObject({ kind: "RESOLVE_ERRORS", accepted: true, flagDocuments: ["Document:1"] })
    const unchanged = decideIndividualSubmission({
      settings: unregulated,
      fullName: "J 003",
      problems: [],
      identityDocuments: [{ id: "Document:1", documentType: "PASSPORT", poorQuality: true }],
      poorQualityReported: true
    })
    expect(unchanged.kind).toBe("RESOLVE_ERRORS")
    const replaced = decideIndividualSubmission({ settings: unregulated, fullName: "J 003", ...complete, poorQualityReported: true })
    expect(replaced.kind).toBe("PENDING_MANUAL_REVIEW")
  })

  it("a production platform sends any complete packet to manual review", () => {
    expect(decideIndividualSubmission({ settings: production, fullName: "J 002", ...complete }).kind).toBe("PENDING_MANUAL_REVIEW")
  })
})
