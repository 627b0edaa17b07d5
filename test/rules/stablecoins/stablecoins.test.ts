/**
 * The stablecoin rules as tables (one `it` per row of SPEC.md's enablement machine and
 * of the operation machine), the amount precision rule, the sandbox tables, and bounded
 * fast-check properties: amounts convert exactly or are refused, and any sequence of
 * moves keeps each machine inside its table.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { MAX_AMOUNT } from "../../../src/domain/money.js"
import { StablecoinGridOperationsStatus, StablecoinOperationStatus } from "../../../src/domain/stablecoin.js"
import { fiatMinorUnits, tokenUnits } from "../../../src/rules/stablecoins/amount.js"
import * as Enablement from "../../../src/rules/stablecoins/enablement.js"
import * as Issuance from "../../../src/rules/stablecoins/issuance.js"
import * as Op from "../../../src/rules/stablecoins/operation.js"
import { counterpartyOutcome, credentialCheck, tokenOutcome } from "../../../src/rules/stablecoins/sandbox.js"

const numRuns = Number(process.env["FC_NUM_RUNS"] ?? 200)

describe("Grid-operations enablement (SPEC.md)", () => {
  it("a request is accepted while NOT_ENABLED: PENDING_APPROVAL, with the operator's approval scheduled", () => {
    expect(Enablement.transition("NOT_ENABLED", "REQUEST")).toEqual({
      ok: true,
      value: { state: "PENDING_APPROVAL", events: [], scheduled: [{ afterMillis: Enablement.APPROVAL_DELAY_MILLIS, event: "APPROVE" }] }
    })
  })
  it("a declined token's request schedules the operator's DECLINE", () => {
    const r = Enablement.transition("NOT_ENABLED", "REQUEST", { declined: true })
    expect(r.ok && r.value.scheduled[0]?.event).toBe("DECLINE")
  })
  it("a repeat while PENDING_APPROVAL succeeds and schedules nothing new", () => {
    expect(Enablement.transition("PENDING_APPROVAL", "REQUEST")).toEqual({ ok: true, value: { state: "PENDING_APPROVAL", events: [], scheduled: [] } })
  })
  for (const state of ["ENABLING", "ENABLED", "DISABLED"] as const) {
    it(`a request while ${state} is 409 STABLECOIN_GRID_ENABLEMENT_NOT_REQUESTABLE`, () => {
      const r = Enablement.transition(state, "REQUEST")
      expect(r.ok).toBe(false)
      if (!r.ok) expect(r.error.code).toBe("STABLECOIN_GRID_ENABLEMENT_NOT_REQUESTABLE")
    })
  }
  it("the operator: APPROVE → ENABLING (then COMPLETE scheduled), COMPLETE → ENABLED, DECLINE and DISABLE → DISABLED", () => {
    expect(Enablement.transition("PENDING_APPROVAL", "APPROVE")).toEqual({
      ok: true,
      value: { state: "ENABLING", events: [], scheduled: [{ afterMillis: Enablement.ENABLING_DELAY_MILLIS, event: "COMPLETE" }] }
    })
    expect(Enablement.transition("ENABLING", "COMPLETE")).toEqual({ ok: true, value: { state: "ENABLED", events: [], scheduled: [] } })
    expect(Enablement.transition("PENDING_APPROVAL", "DECLINE")).toEqual({ ok: true, value: { state: "DISABLED", events: [], scheduled: [] } })
    expect(Enablement.transition("ENABLED", "DISABLE")).toEqual({ ok: true, value: { state: "DISABLED", events: [], scheduled: [] } })
  })
  it("operator moves that do not apply are INVALID_STATE_TRANSITION", () => {
    const r = Enablement.transition("NOT_ENABLED", "APPROVE")
    expect(!r.ok && r.error.code).toBe("INVALID_STATE_TRANSITION")
  })
  it("property: any sequence of events stays in the table; a request succeeds exactly from NOT_ENABLED or PENDING_APPROVAL", () => {
    const events = fc.constantFrom<Enablement.EnablementEvent>("REQUEST", "APPROVE", "DECLINE", "COMPLETE", "DISABLE")
    fc.assert(
      fc.property(fc.array(events, { maxLength: 30 }), (seq) => {
        let state: StablecoinGridOperationsStatus = "NOT_ENABLED"
        for (const event of seq) {
          const r = Enablement.transition(state, event)
          if (event === "REQUEST") expect(r.ok).toBe(state === "NOT_ENABLED" || state === "PENDING_APPROVAL")
          if (r.ok) {
            expect(StablecoinGridOperationsStatus.literals).toContain(r.value.state)
            expect(Enablement.ENABLEMENT_TRANSITIONS[state][event]).toBe(r.value.state)
            state = r.value.state
          } else expect(Enablement.ENABLEMENT_TRANSITIONS[state][event]).toBeUndefined()
        }
      }),
      { numRuns }
    )
  })
})

describe("issuance", () => {
  it("registered: PENDING_REVIEW, the review scheduled (ACCEPT, or REJECT for a rejected token)", () => {
    expect(Issuance.registered("PROVISIONED").scheduled[0]?.event).toBe("ACCEPT")
    expect(Issuance.registered("FAILED").scheduled[0]?.event).toBe("ACCEPT")
    expect(Issuance.registered("REJECTED").scheduled[0]?.event).toBe("REJECT")
  })
  it("ACCEPT → PROVISIONING, then PROVISION (or FAIL for a failing token)", () => {
    const a = Issuance.transition("PENDING_REVIEW", "ACCEPT", "PROVISIONED")
    expect(a.ok && a.value).toEqual({ state: "PROVISIONING", events: [], scheduled: [{ afterMillis: Issuance.PROVISIONING_DELAY_MILLIS, event: "PROVISION" }] })
    const f = Issuance.transition("PENDING_REVIEW", "ACCEPT", "FAILED")
    expect(f.ok && f.value.scheduled[0]?.event).toBe("FAIL")
    expect(Issuance.transition("PROVISIONING", "FAIL", "FAILED")).toEqual({ ok: true, value: { state: "FAILED", events: [], scheduled: [] } })
    expect(Issuance.transition("PROVISIONED", "ACCEPT", "PROVISIONED").ok).toBe(false)
  })
})

describe("the operation machine", () => {
  const rows: ReadonlyArray<readonly [StablecoinOperationStatus, Op.OperationEventType, StablecoinOperationStatus | undefined]> = [
    ["PENDING_FUNDING", "FUNDS_RECEIVED", "PROCESSING"],
    ["PENDING_FUNDING", "EXPIRED", "EXPIRED"],
    ["PENDING_FUNDING", "SETTLED", undefined],
    ["PENDING_PROVIDER", "PROVIDER_ACCEPTED", "PROCESSING"],
    ["PENDING_PROVIDER", "FAILED", "FAILED"],
    ["PROCESSING", "SETTLED", "COMPLETED"],
    ["PROCESSING", "FAILED", "FAILED"],
    ["PROCESSING", "EXPIRED", undefined],
    ["COMPLETED", "FAILED", undefined],
    ["EXPIRED", "FUNDS_RECEIVED", undefined]
  ]
  for (const [from, event, to] of rows) {
    it(`${from} --${event}--> ${to ?? "refused"}`, () => {
      const r = Op.transition(from, { type: event })
      expect(r.ok ? r.value.state : undefined).toBe(to)
    })
  }
  it("timer events round-trip, failure reasons included", () => {
    expect(Op.decodeEvent(Op.encodeEvent({ type: "FAILED", failureReason: "ACCOUNT_INVALID" }))).toEqual({ type: "FAILED", failureReason: "ACCOUNT_INVALID" })
    expect(Op.decodeEvent("SETTLED")).toEqual({ type: "SETTLED" })
  })

  const outcome = fc.oneof(
    fc.constant<Op.CounterpartyOutcome>({ kind: "success" }),
    fc.record({ kind: fc.constant("fails" as const), failureReason: fc.constantFrom("INSUFFICIENT_FUNDS", "ACCOUNT_INVALID"), late: fc.boolean() })
  )
  const funding = fc.oneof(
    fc.record({ type: fc.constant("WIRE" as const), sandbox: fc.boolean() }),
    fc.record({ type: fc.constantFrom("ACH_DEBIT" as const, "SAME_DAY_ACH_DEBIT" as const), outcome }),
    fc.constant({ type: "GRID_INTERNAL_ACCOUNT" as const })
  )
  const course = fc.oneof(
    fc.tuple(funding, fc.integer({ min: 0, max: 2 ** 40 })).map(([f, now]) => ({ now, course: Op.mintCourse(f, now) })),
    fc.tuple(
      fc.oneof(fc.record({ type: fc.constant("EXTERNAL_ACCOUNT" as const), sandbox: fc.boolean() }), fc.constant({ type: "PROVIDER_INTERNAL_BALANCE" as const })),
      fc.constantFrom("WIRE" as const, "ACH_CREDIT" as const, "SAME_DAY_ACH_CREDIT" as const, "RTP_CREDIT" as const),
      outcome,
      fc.integer({ min: 0, max: 2 ** 40 })
    ).map(([s, rail, o, now]) => ({ now, course: Op.burnCourse(s, rail, o, now) }))
  )
  it("property: every course's steps are in time order after creation, each accepted by the machine, ending terminal", () => {
    fc.assert(
      fc.property(course, ({ now, course: c }) => {
        let state = c.status
        let last = now
        for (const step of c.steps) {
          expect(step.at).toBeGreaterThan(last)
          last = step.at
          const r = Op.transition(state, step.event)
          expect(r.ok).toBe(true)
          if (r.ok) state = r.value.state
        }
        expect(Op.isTerminal(state)).toBe(true)
        if (c.expiresAt !== undefined) expect(c.steps.every((s) => s.at <= c.expiresAt!)).toBe(true)
      }),
      { numRuns }
    )
  })
})

describe("amount precision", () => {
  it("6-decimal USD token: multiples of 10,000 units are whole cents; anything else is refused", () => {
    expect(fiatMinorUnits("1000000", 6, 2)).toEqual({ ok: true, value: 100 })
    expect(fiatMinorUnits("10000", 6, 2)).toEqual({ ok: true, value: 1 })
    expect(fiatMinorUnits("1234567", 6, 2)).toEqual({ ok: false, error: { kind: "fraction", step: "10000" } })
    expect(fiatMinorUnits("0", 6, 2)).toEqual({ ok: false, error: { kind: "zero" } })
    expect(fiatMinorUnits("000", 6, 2)).toEqual({ ok: false, error: { kind: "zero" } })
  })
  it("tokens with fewer decimals than the fiat scale up; too large is refused", () => {
    expect(fiatMinorUnits("3", 0, 2)).toEqual({ ok: true, value: 300 })
    expect(fiatMinorUnits("25", 2, 2)).toEqual({ ok: true, value: 25 })
    expect(fiatMinorUnits(String(BigInt(MAX_AMOUNT) * 10_000n), 6, 2)).toEqual({ ok: true, value: MAX_AMOUNT })
    const over = fiatMinorUnits(String((BigInt(MAX_AMOUNT) + 1n) * 10_000n), 6, 2)
    expect(!over.ok && over.error.kind).toBe("too-large")
    expect(!fiatMinorUnits("9".repeat(38), 6, 2).ok).toBe(true)
  })
  it("property: an amount converts exactly when it is a positive multiple of the step, and converts back to itself", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 24n }), fc.integer({ min: 0, max: 18 }), (units, decimals) => {
        const r = fiatMinorUnits(units.toString(), decimals, 2)
        const step = decimals >= 2 ? 10n ** BigInt(decimals - 2) : 1n
        const perToken = decimals >= 2 ? 1n : 10n ** BigInt(2 - decimals)
        const representable = units > 0n && units % step === 0n && (units / step) * perToken <= BigInt(MAX_AMOUNT)
        expect(r.ok).toBe(representable)
        if (r.ok) expect(tokenUnits(r.value, decimals, 2)).toBe(units.toString())
      }),
      { numRuns }
    )
  })
})

describe("sandbox tables", () => {
  it("credentials: 901 INVALID, 902 REVOKED, 903 rejected, others ACTIVE; production always ACTIVE", () => {
    expect(credentialCheck("id901", true)).toEqual({ kind: "linked", status: "INVALID" })
    expect(credentialCheck("id902", true)).toEqual({ kind: "linked", status: "REVOKED" })
    expect(credentialCheck("id903", true)).toEqual({ kind: "rejected" })
    expect(credentialCheck("id904", true)).toEqual({ kind: "linked", status: "ACTIVE" })
    expect(credentialCheck("id903", false)).toEqual({ kind: "linked", status: "ACTIVE" })
  })
  it("tokens: 901 REJECTED, 902 FAILED, 903 enablement declined; production no magic", () => {
    expect(tokenOutcome("A901", true).issuance).toBe("REJECTED")
    expect(tokenOutcome("A902", true).issuance).toBe("FAILED")
    expect(tokenOutcome("A903", true)).toEqual({ issuance: "PROVISIONED", enablementDeclined: true })
    expect(tokenOutcome("A901", false)).toEqual({ issuance: "PROVISIONED", enablementDeclined: false })
  })
  it("counterparties by the money table's suffixes, sandbox only", () => {
    expect(counterpartyOutcome("123002", true)).toEqual({ kind: "fails", failureReason: "INSUFFICIENT_FUNDS", late: false })
    expect(counterpartyOutcome("123005", true)).toEqual({ kind: "fails", failureReason: "PROVIDER_TRANSFER_FAILED", late: true })
    expect(counterpartyOutcome("123002", false)).toEqual({ kind: "success" })
    expect(counterpartyOutcome("123000", true)).toEqual({ kind: "success" })
  })
})
