import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { ExternalAccountStatus } from "../../src/domain/external-account.js"
import {
  EXTERNAL_ACCOUNT_TRANSITIONS,
  type ExternalAccountEvent,
  movesOnChallenge,
  movesOnCreate,
  SANDBOX_LIVENESS_DELAY_MS,
  transition
} from "../../src/rules/external-account-status.js"
import { numRuns } from "../support/runs.js"

const EVENTS: ReadonlyArray<ExternalAccountEvent["type"]> = [
  "OWNERSHIP_CHALLENGE_STARTED",
  "OWNERSHIP_VERIFICATION_SUCCEEDED",
  "OWNERSHIP_VERIFICATION_FAILED",
  "BANK_VALIDATION_SUCCEEDED",
  "BANK_VALIDATION_FAILED"
]

const moved = (from: ExternalAccountStatus, event: ExternalAccountEvent["type"]) => {
  const r = transition(from, { type: event })
  if (!r.ok) throw new Error(`refused: ${r.error.reason}`)
  return r.value
}

describe("external account status (SPEC.md table)", () => {
  it("PENDING_OWNERSHIP_VERIFICATION + verification succeeds -> ACTIVE, STATUS_UPDATED", () => {
    expect(moved("PENDING_OWNERSHIP_VERIFICATION", "OWNERSHIP_VERIFICATION_SUCCEEDED")).toEqual({
      state: "ACTIVE",
      events: [{ type: "EXTERNAL_ACCOUNT.STATUS_UPDATED", from: "PENDING_OWNERSHIP_VERIFICATION", to: "ACTIVE" }],
      scheduled: []
    })
  })
  it("PENDING_OWNERSHIP_VERIFICATION + verification fails -> UNVERIFIED, STATUS_UPDATED", () => {
    expect(moved("PENDING_OWNERSHIP_VERIFICATION", "OWNERSHIP_VERIFICATION_FAILED").state).toBe("UNVERIFIED")
  })
  it("UNVERIFIED + new challenge, then verification succeeds -> ACTIVE", () => {
    const challenged = moved("UNVERIFIED", "OWNERSHIP_CHALLENGE_STARTED")
    expect(challenged.state).toBe("PENDING_OWNERSHIP_VERIFICATION")
    expect(challenged.events).toHaveLength(1)
    expect(moved(challenged.state, "OWNERSHIP_VERIFICATION_SUCCEEDED").state).toBe("ACTIVE")
  })
  it("UNVERIFIED cannot be verified without a new challenge", () => {
    const r = transition("UNVERIFIED", { type: "OWNERSHIP_VERIFICATION_SUCCEEDED" })
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.error.code).toBe("CONFLICT")
  })
  it("a repeated challenge while pending changes nothing and emits nothing", () => {
    expect(moved("PENDING_OWNERSHIP_VERIFICATION", "OWNERSHIP_CHALLENGE_STARTED")).toEqual({
      state: "PENDING_OWNERSHIP_VERIFICATION",
      events: [],
      scheduled: []
    })
  })
  it("micro-entry validation: PENDING -> ACTIVE or INACTIVE", () => {
    expect(moved("PENDING", "BANK_VALIDATION_SUCCEEDED").state).toBe("ACTIVE")
    expect(moved("PENDING", "BANK_VALIDATION_FAILED").state).toBe("INACTIVE")
  })
  it("ACTIVE accepts no ownership or validation events", () => {
    for (const e of EVENTS) expect(transition("ACTIVE", { type: e }).ok).toBe(false)
  })

  it("property: any event sequence keeps a valid status, and emits exactly when the status changes", () => {
    const statuses = ExternalAccountStatus.literals
    fc.assert(
      fc.property(fc.constantFrom(...statuses), fc.array(fc.constantFrom(...EVENTS), { maxLength: 20 }), (start, events) => {
        let status: ExternalAccountStatus = start
        for (const type of events) {
          const r = transition(status, { type })
          const allowed = EXTERNAL_ACCOUNT_TRANSITIONS[status]?.[type]
          expect(r.ok).toBe(allowed !== undefined)
          if (!r.ok) continue
          expect(statuses).toContain(r.value.state)
          expect(r.value.events.length).toBe(r.value.state === status ? 0 : 1)
          status = r.value.state
        }
      }),
      { numRuns: numRuns(200) }
    )
  })
})

describe("moves the machine schedules, as data", () => {
  const now = Date.parse("2026-01-05T10:00:00Z")
  it("micro-entry validation 901: BANK_VALIDATION_SUCCEEDED 3 days later", () => {
    expect(movesOnCreate({ outcome: "validated", afterDays: 3 }, now)).toEqual([{ at: now + 3 * 86_400_000, event: "BANK_VALIDATION_SUCCEEDED" }])
  })
  it("micro-entry validation 902: BANK_VALIDATION_FAILED 3 days later", () => {
    expect(movesOnCreate({ outcome: "failed", afterDays: 3 }, now)).toEqual([{ at: now + 3 * 86_400_000, event: "BANK_VALIDATION_FAILED" }])
  })
  it("no validation: nothing scheduled", () => {
    expect(movesOnCreate(undefined, now)).toEqual([])
  })
  it("a LIVENESS challenge on a sandbox platform passes 30 s later", () => {
    expect(movesOnChallenge("LIVENESS", true, now)).toEqual([{ at: now + SANDBOX_LIVENESS_DELAY_MS, event: "OWNERSHIP_VERIFICATION_SUCCEEDED" }])
    expect(SANDBOX_LIVENESS_DELAY_MS).toBe(30_000)
  })
  it("no magic on a production platform, and none for WALLET_SIGNATURE", () => {
    expect(movesOnChallenge("LIVENESS", false, now)).toEqual([])
    expect(movesOnChallenge("WALLET_SIGNATURE", true, now)).toEqual([])
  })
})
