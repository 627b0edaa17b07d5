/** The KYC, KYB, beneficial-owner and verification status machines, move by move. */
import { describe, expect, it } from "vitest"
import * as Owner from "../../src/rules/beneficial-owner.js"
import * as Kyb from "../../src/rules/kyb.js"
import * as Kyc from "../../src/rules/kyc.js"
import { allowedMoves } from "../../src/rules/status-machine.js"
import * as Verification from "../../src/rules/verification.js"

const KYC_EVENTS = ["SUBMITTED", "REVIEW_STARTED", "APPROVED", "REJECTED"] as const

describe("KYC machine", () => {
  it.each([
    ["UNVERIFIED", "SUBMITTED", "UNVERIFIED", []],
    ["UNVERIFIED", "REVIEW_STARTED", "PENDING", ["CUSTOMER.KYC_PENDING"]],
    ["UNVERIFIED", "APPROVED", "APPROVED", ["CUSTOMER.KYC_APPROVED"]],
    ["UNVERIFIED", "REJECTED", "REJECTED", ["CUSTOMER.KYC_REJECTED"]],
    ["PENDING", "SUBMITTED", "PENDING", []],
    ["PENDING", "REVIEW_STARTED", "PENDING", []],
    ["PENDING", "APPROVED", "APPROVED", ["CUSTOMER.KYC_APPROVED"]],
    ["PENDING", "REJECTED", "REJECTED", ["CUSTOMER.KYC_REJECTED"]]
  ] as const)("%s --%s--> %s emits %j", (from, event, to, events) => {
    const r = Kyc.transition(from, { type: event })
    expect(r).toEqual({ ok: true, value: { state: to, events, scheduled: [] } })
  })

  it.each(["APPROVED", "REJECTED"] as const)("%s is final: every event is refused with 400", (state) => {
    for (const event of KYC_EVENTS) {
      const r = Kyc.transition(state, { type: event })
      expect(r.ok).toBe(false)
      if (!r.ok) {
        expect(r.error.code).toBe("INVALID_INPUT")
        expect(r.error.details).toEqual({ kycStatus: state })
      }
    }
  })

  it("lists exactly the moves above", () => {
    expect(allowedMoves(Kyc.KYC_TRANSITIONS)).toHaveLength(8)
  })
})

describe("KYB machine", () => {
  it("emits CUSTOMER.KYB_* and refuses moves out of final statuses", () => {
    expect(Kyb.transition("UNVERIFIED", { type: "REVIEW_STARTED" })).toEqual({ ok: true, value: { state: "PENDING", events: ["CUSTOMER.KYB_PENDING"], scheduled: [] } })
    expect(Kyb.transition("PENDING", { type: "APPROVED" })).toEqual({ ok: true, value: { state: "APPROVED", events: ["CUSTOMER.KYB_APPROVED"], scheduled: [] } })
    expect(Kyb.transition("UNVERIFIED", { type: "REJECTED" })).toEqual({ ok: true, value: { state: "REJECTED", events: ["CUSTOMER.KYB_REJECTED"], scheduled: [] } })
    const r = Kyb.transition("APPROVED", { type: "SUBMITTED" })
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.error.details).toEqual({ kybStatus: "APPROVED" })
  })
})

describe("beneficial-owner machine", () => {
  it("resolves from UNVERIFIED or PENDING and never leaves APPROVED or REJECTED", () => {
    expect(Owner.transition("UNVERIFIED", { type: "REVIEW_STARTED" })).toEqual({ ok: true, value: { state: "PENDING", events: [], scheduled: [] } })
    expect(Owner.transition("PENDING", { type: "REJECTED" })).toEqual({ ok: true, value: { state: "REJECTED", events: [], scheduled: [] } })
    expect(Owner.transition("APPROVED", { type: "REJECTED" }).ok).toBe(false)
    expect(Owner.transition("REJECTED", { type: "APPROVED" }).ok).toBe(false)
  })
})

describe("verification machine", () => {
  it.each([
    [["INCOMPLETE"], "RESOLVE_ERRORS", ["VERIFICATION.RESOLVE_ERRORS"]],
    [["ACCEPTED", "ERRORS_FOUND"], "RESOLVE_ERRORS", ["VERIFICATION.IN_PROGRESS", "VERIFICATION.RESOLVE_ERRORS"]],
    [["ACCEPTED", "MANUAL_REVIEW"], "PENDING_MANUAL_REVIEW", ["VERIFICATION.IN_PROGRESS", "VERIFICATION.PENDING_MANUAL_REVIEW"]],
    [["ACCEPTED", "APPROVED"], "APPROVED", ["VERIFICATION.IN_PROGRESS", "VERIFICATION.APPROVED"]],
    [["ACCEPTED", "REJECTED"], "REJECTED", ["VERIFICATION.IN_PROGRESS", "VERIFICATION.REJECTED"]],
    [["ACCEPTED", "MANUAL_REVIEW", "APPROVED"], "APPROVED", ["VERIFICATION.IN_PROGRESS", "VERIFICATION.PENDING_MANUAL_REVIEW", "VERIFICATION.APPROVED"]]
  ] as const)("%j ends %s", (events, state, emitted) => {
    expect(Verification.run(events.map((type) => ({ type })))).toEqual({ ok: true, value: { state, events: emitted, scheduled: [] } })
  })

  it.each([
    [["APPROVED"]],
    [["INCOMPLETE", "ACCEPTED"]],
    [["ACCEPTED", "APPROVED", "REJECTED"]],
    [["ACCEPTED", "REJECTED", "MANUAL_REVIEW"]]
  ] as const)("refuses %j", (events) => {
    const r = Verification.run(events.map((type) => ({ type })))
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.error.code).toBe("INVALID_STATE_TRANSITION")
  })
})
