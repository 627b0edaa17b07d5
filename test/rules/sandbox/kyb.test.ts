/** SPEC.md's business-KYB and beneficial-owner tables, row by row, as pure rules. */
import { describe, expect, it } from "vitest"
import type { PlatformSettings } from "../../../src/domain/platform.js"
import { decideBusinessSubmission, ownerOutcome } from "../../../src/rules/sandbox/kyb.js"

const settings = (s: Partial<PlatformSettings> = {}): PlatformSettings => ({
  regulated: false,
  skipVerificationPaperwork: false,
  travelRule: false,
  sandbox: true,
  ...s
})
const problems = [{ resourceId: "Customer:1", type: "MISSING_BENEFICIAL_OWNER" as const, reason: "owner required" }]

describe("| Suffix | Outcome | (business KYB)", () => {
  describe.each([
    ["unregulated (validation first)", settings(), { "001": "RESOLVE_ERRORS", "002": "RESOLVE_ERRORS", "003": "RESOLVE_ERRORS", "777": "RESOLVE_ERRORS" }],
    ["regulated (suffix first)", settings({ regulated: true }), { "001": "RESOLVE_ERRORS", "002": "REJECTED", "003": "RESOLVE_ERRORS", "777": "APPROVED" }],
    ["skip paperwork (suffix first)", settings({ skipVerificationPaperwork: true }), { "001": "RESOLVE_ERRORS", "002": "REJECTED", "003": "RESOLVE_ERRORS", "777": "APPROVED" }]
  ] as const)("%s", (_label, s, incompleteOutcome) => {
    it.each([
      ["001", "PENDING_MANUAL_REVIEW"],
      ["002", "REJECTED"],
      ["003", "PENDING_MANUAL_REVIEW"],
      ["777", "APPROVED"]
    ] as const)("suffix %s: complete packet -> %s", (suffix, outcome) => {
      expect(decideBusinessSubmission({ settings: s, registrationNumber: `REG-${suffix}`, problems: [] }).kind).toBe(outcome)
    })

    it.each(["001", "002", "003", "777"] as const)("suffix %s: incomplete packet", (suffix) => {
      expect(decideBusinessSubmission({ settings: s, registrationNumber: `REG-${suffix}`, problems }).kind).toBe(incompleteOutcome[suffix])
    })
  })

  it("no registration number: validation decides", () => {
    expect(decideBusinessSubmission({ settings: settings({ regulated: true }), registrationNumber: undefined, problems }).kind).toBe("RESOLVE_ERRORS")
  })
})

describe("beneficial owners: last 3 characters of lastName", () => {
  it.each([
    ["Smith 001", "PENDING"],
    ["Smith 002", "REJECTED"],
    ["Smith", "APPROVED"],
    ["Smith003", "APPROVED"]
  ] as const)("%s -> %s", (lastName, outcome) => {
    expect(ownerOutcome(lastName)).toBe(outcome)
  })
})
