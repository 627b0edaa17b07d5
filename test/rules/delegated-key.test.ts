import { describe, expect, it } from "vitest"
import type { DelegatedKeyStatus } from "../../src/domain/wallet.js"
import { activate, activeKeyConflict, DELEGATED_KEY_TRANSITIONS, revoke } from "../../src/rules/delegated-key.js"

const STATUSES: ReadonlyArray<DelegatedKeyStatus> = ["PENDING", "ACTIVE", "REVOKED"]

describe("delegated key status (reference DelegatedKeyStatus, DELETE /auth/delegated-keys/{id})", () => {
  it("PENDING + the last signed leg -> ACTIVE", () => {
    expect(activate("PENDING")).toEqual({ ok: true, value: { state: "ACTIVE", events: [], scheduled: [] } })
  })
  it("ACTIVE + DELETE -> REVOKED", () => {
    expect(revoke("ACTIVE")).toEqual({ ok: true, value: { state: "REVOKED", events: [], scheduled: [] } })
  })
  it("DELETE of a PENDING key: 400 INVALID_INPUT (not ACTIVE)", () => {
    const r = revoke("PENDING")
    expect(r.ok).toBe(false)
    if (!r.ok) expect([r.error.code, r.error.reason]).toEqual(["INVALID_INPUT", "The delegated key is PENDING: only an ACTIVE delegated key can be revoked"])
  })
  it("DELETE of a REVOKED key: 400 INVALID_INPUT (already revoked)", () => {
    const r = revoke("REVOKED")
    expect(r.ok).toBe(false)
    if (!r.ok) expect([r.error.code, r.error.reason]).toEqual(["INVALID_INPUT", "The delegated key is already REVOKED"])
  })
  it("activating an ACTIVE or REVOKED key: 409 CONFLICT", () => {
    for (const s of ["ACTIVE", "REVOKED"] as const) {
      const r = activate(s)
      expect(r.ok).toBe(false)
      if (!r.ok) expect(r.error.code).toBe("CONFLICT")
    }
  })
  it("the table holds exactly those two moves; REVOKED is final", () => {
    expect(DELEGATED_KEY_TRANSITIONS).toEqual({ PENDING: { ACTIVATE: "ACTIVE" }, ACTIVE: { REVOKE: "REVOKED" } })
    expect(STATUSES.filter((s) => activate(s).ok || revoke(s).ok)).toEqual(["PENDING", "ACTIVE"])
  })
})

describe("one ACTIVE delegated key per card funding source", () => {
  it("no keys, or only PENDING and REVOKED ones: allowed", () => {
    expect(activeKeyConflict("CardFundingSource:a", [])).toBeUndefined()
    expect(activeKeyConflict("CardFundingSource:a", [{ id: "DelegatedKey:1", status: "PENDING" }, { id: "DelegatedKey:2", status: "REVOKED" }])).toBeUndefined()
  })
  it("an ACTIVE key: 409 CONFLICT naming it", () => {
    const refused = activeKeyConflict("CardFundingSource:a", [{ id: "DelegatedKey:1", status: "PENDING" }, { id: "DelegatedKey:2", status: "ACTIVE" }])
    expect(refused?.code).toBe("CONFLICT")
    expect(refused?.reason).toContain("DelegatedKey:2")
    expect(refused?.details).toEqual({ delegatedKeyId: "DelegatedKey:2" })
  })
})
