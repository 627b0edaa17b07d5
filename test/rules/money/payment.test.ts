import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  isFinal,
  type LedgerIntent,
  newPayment,
  OUTGOING_FAILURE_REASONS,
  type PaymentMove,
  type PaymentState,
  type PaymentTransitioned,
  transition
} from "../../../src/rules/money/payment.js"

const numRuns = Number(process.env.FC_NUM_RUNS ?? 100)
const NOW = Date.UTC(2026, 2, 2, 10, 0)

const step = (state: PaymentState, move: PaymentMove, now = NOW): PaymentTransitioned => {
  const r = transition(state, move, now)
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.reason}`)
  return r.value
}
const refusal = (state: PaymentState, move: PaymentMove): string => {
  const r = transition(state, move, NOW)
  return r.ok ? "accepted" : r.error.code
}
const processing = step(newPayment(), { type: "PROCESS" }).state
const held = step(newPayment(), { type: "PROCESS", awaitingPlatformApproval: true }).state
const completed = step(processing, { type: "COMPLETE" }).state

describe("outgoing payment machine: table", () => {
  it("PENDING + PROCESS -> PROCESSING, OUTGOING_PAYMENT.PROCESSING, money in flight", () => {
    const r = step(newPayment(), { type: "PROCESS" })
    expect(r.state).toEqual({ status: "PROCESSING", funds: "IN_FLIGHT", awaitingPlatformApproval: false })
    expect(r.events).toEqual(["OUTGOING_PAYMENT.PROCESSING"])
    expect(r.ledger).toEqual([])
  })
  it("PROCESSING + COMPLETE -> COMPLETED, SETTLE", () => {
    const r = step(processing, { type: "COMPLETE" })
    expect(r.state).toMatchObject({ status: "COMPLETED", funds: "SETTLED", settledAt: NOW })
    expect(r.events).toEqual(["OUTGOING_PAYMENT.COMPLETED"])
    expect(r.ledger).toEqual(["SETTLE"])
  })
  it("PROCESSING + FAIL -> FAILED with the reason, refund PENDING, no money moved yet", () => {
    const r = step(processing, { type: "FAIL", failureReason: "ACCOUNT_INVALID" })
    expect(r.state).toMatchObject({ status: "FAILED", failureReason: "ACCOUNT_INVALID", funds: "IN_FLIGHT", refund: { status: "PENDING", reason: "TRANSACTION_FAILED", initiatedAt: NOW } })
    expect(r.events).toEqual(["OUTGOING_PAYMENT.FAILED", "OUTGOING_PAYMENT.REFUND_PENDING"])
    expect(r.ledger).toEqual([])
  })
  it("refund pending + REFUND_COMPLETE -> refund COMPLETED, REFUND", () => {
    const failed = step(processing, { type: "FAIL", failureReason: "QUOTE_EXECUTION_FAILED" }).state
    const r = step(failed, { type: "REFUND_COMPLETE" }, NOW + 1)
    expect(r.state).toMatchObject({ status: "FAILED", funds: "REFUNDED", refund: { status: "COMPLETED", settledAt: NOW + 1 } })
    expect(r.events).toEqual(["OUTGOING_PAYMENT.REFUND_COMPLETED"])
    expect(r.ledger).toEqual(["REFUND"])
  })
  it("refund pending + REFUND_FAIL -> refund FAILED, PARK", () => {
    const failed = step(processing, { type: "FAIL", failureReason: "QUOTE_EXECUTION_FAILED" }).state
    const r = step(failed, { type: "REFUND_FAIL" })
    expect(r.state).toMatchObject({ status: "FAILED", funds: "PARKED", refund: { status: "FAILED" } })
    expect(r.events).toEqual(["OUTGOING_PAYMENT.REFUND_FAILED"])
    expect(r.ledger).toEqual(["PARK"])
  })
  it("COMPLETED + RETURN -> FAILED PAYOUT_RETURNED, RETURN, refund COMPLETED", () => {
    const r = step(completed, { type: "RETURN" })
    expect(r.state).toMatchObject({ status: "FAILED", failureReason: "PAYOUT_RETURNED", funds: "RETURNED", refund: { status: "COMPLETED", reason: "TRANSACTION_FAILED" } })
    expect(r.events).toEqual(["OUTGOING_PAYMENT.FAILED", "OUTGOING_PAYMENT.REFUND_COMPLETED"])
    expect(r.ledger).toEqual(["RETURN"])
    expect(refusal(r.state, { type: "RETURN" })).toBe("CONFLICT")
  })
  it("CANCEL while PROCESSING -> FAILED, refunded at once for USER_CANCELLATION", () => {
    const r = step(processing, { type: "CANCEL" })
    expect(r.state).toMatchObject({ status: "FAILED", failureReason: "QUOTE_EXECUTION_FAILED", funds: "REFUNDED", refund: { status: "COMPLETED", reason: "USER_CANCELLATION" } })
    expect(r.events).toEqual(["OUTGOING_PAYMENT.FAILED", "OUTGOING_PAYMENT.REFUND_COMPLETED"])
    expect(r.ledger).toEqual(["REFUND"])
  })
  it("CANCEL of an unexecuted PENDING payment -> FAILED, nothing to refund", () => {
    const r = step(newPayment(), { type: "CANCEL" })
    expect(r.state.refund).toBeUndefined()
    expect(r.ledger).toEqual([])
  })
  it("CANCEL after settlement or after the end -> 409 TRANSACTION_NOT_CANCELLABLE", () => {
    expect(refusal(completed, { type: "CANCEL" })).toBe("TRANSACTION_NOT_CANCELLABLE")
    expect(refusal(step(processing, { type: "CANCEL" }).state, { type: "CANCEL" })).toBe("TRANSACTION_NOT_CANCELLABLE")
    expect(refusal(step(newPayment(), { type: "EXPIRE" }).state, { type: "CANCEL" })).toBe("TRANSACTION_NOT_CANCELLABLE")
  })
  it("held for platform approval: PENDING, money in flight; APPROVE -> PROCESSING", () => {
    expect(held).toEqual({ status: "PENDING", funds: "IN_FLIGHT", awaitingPlatformApproval: true })
    const r = step(held, { type: "APPROVE" })
    expect(r.state).toMatchObject({ status: "PROCESSING", awaitingPlatformApproval: false })
    expect(r.events).toEqual(["OUTGOING_PAYMENT.PROCESSING"])
  })
  it("REJECT by the platform -> FAILED, refunded at once", () => {
    const r = step(held, { type: "REJECT" })
    expect(r.state).toMatchObject({ status: "FAILED", funds: "REFUNDED", refund: { status: "COMPLETED", reason: "TRANSACTION_FAILED" } })
    expect(r.ledger).toEqual(["REFUND"])
  })
  it("APPROVE / REJECT of a payment not awaiting approval -> 409 TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL", () => {
    for (const s of [newPayment(), processing, completed]) {
      expect(refusal(s, { type: "APPROVE" })).toBe("TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL")
      expect(refusal(s, { type: "REJECT" })).toBe("TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL")
    }
  })
  it("EXPIRE an unexecuted quote -> EXPIRED; a held payment expires with a TIMEOUT refund", () => {
    const r = step(newPayment(), { type: "EXPIRE" })
    expect(r.state.status).toBe("EXPIRED")
    expect(r.events).toEqual(["OUTGOING_PAYMENT.EXPIRED"])
    const h = step(held, { type: "EXPIRE" })
    expect(h.state).toMatchObject({ status: "EXPIRED", funds: "REFUNDED", refund: { reason: "TIMEOUT", status: "COMPLETED" } })
    expect(h.ledger).toEqual(["REFUND"])
    expect(refusal(processing, { type: "EXPIRE" })).toBe("CONFLICT")
  })
  it("SCA: PENDING_AUTHORIZATION + AUTHORIZE -> PENDING; FAIL SCA_NOT_COMPLETED moves no money", () => {
    expect(step(newPayment("PENDING_AUTHORIZATION"), { type: "AUTHORIZE" }).state.status).toBe("PENDING")
    expect(refusal(newPayment("PENDING_AUTHORIZATION"), { type: "PROCESS" })).toBe("CONFLICT")
    const f = step(newPayment("PENDING_AUTHORIZATION"), { type: "FAIL", failureReason: "SCA_NOT_COMPLETED" })
    expect(f.state).toEqual({ status: "FAILED", funds: "NONE", awaitingPlatformApproval: false, failureReason: "SCA_NOT_COMPLETED" })
    expect(f.events).toEqual(["OUTGOING_PAYMENT.FAILED"])
  })
  it("terminal states accept nothing (COMPLETED only a RETURN)", () => {
    const ended = [step(newPayment(), { type: "EXPIRE" }).state, step(processing, { type: "CANCEL" }).state, step(completed, { type: "RETURN" }).state]
    for (const s of ended) {
      expect(isFinal(s)).toBe(true)
      for (const m of ALL_MOVES) expect(transition(s, m, NOW).ok).toBe(false)
    }
    for (const m of ALL_MOVES) expect(transition(completed, m, NOW).ok).toBe(m.type === "RETURN")
  })
})

const ALL_MOVES: ReadonlyArray<PaymentMove> = [
  { type: "AUTHORIZE" },
  { type: "PROCESS" },
  { type: "PROCESS", awaitingPlatformApproval: true },
  { type: "APPROVE" },
  { type: "REJECT" },
  { type: "COMPLETE" },
  { type: "FAIL", failureReason: "QUOTE_EXECUTION_FAILED" },
  { type: "RETURN" },
  { type: "REFUND_COMPLETE" },
  { type: "REFUND_FAIL" },
  { type: "CANCEL" },
  { type: "EXPIRE" }
]

const arbMove: fc.Arbitrary<PaymentMove> = fc.oneof(
  fc.constantFrom(...ALL_MOVES),
  fc.constantFrom(...OUTGOING_FAILURE_REASONS).map((failureReason): PaymentMove => ({ type: "FAIL", failureReason }))
)

const OUTGOING_STATUSES = new Set(["PENDING", "PENDING_AUTHORIZATION", "PROCESSING", "COMPLETED", "FAILED", "EXPIRED"])
const REFUSAL_CODES = new Set(["CONFLICT", "TRANSACTION_NOT_CANCELLABLE", "TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL"])

describe("outgoing payment machine: money invariants over any sequence of moves", () => {
  it("every debit has exactly one settlement, refund or parking; a return only after a settlement", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("PENDING" as const, "PENDING_AUTHORIZATION" as const, "CREATED" as const),
        fc.array(arbMove, { maxLength: 25 }),
        (initial, moves) => {
          let state = newPayment(initial)
          let debited = 0
          const ledger: Array<LedgerIntent> = []
          let now = NOW
          for (const move of moves) {
            now += 1_000
            const before = state
            const r = transition(state, move, now)
            if (!r.ok) {
              expect(REFUSAL_CODES.has(r.error.code)).toBe(true)
              continue
            }
            state = r.value.state
            if (before.funds === "NONE" && state.funds === "IN_FLIGHT") debited++
            for (const intent of r.value.ledger) {
              // SETTLE, REFUND and PARK only move money that is in flight; RETURN only money settled.
              if (intent === "RETURN") expect(before.funds).toBe("SETTLED")
              else expect(before.funds).toBe("IN_FLIGHT")
              ledger.push(intent)
            }
            const count = (i: LedgerIntent) => ledger.filter((x) => x === i).length
            const outOfFlight = count("SETTLE") + count("REFUND") + count("PARK")
            expect(debited).toBeLessThanOrEqual(1)
            expect(outOfFlight).toBeLessThanOrEqual(debited)
            expect(count("RETURN")).toBeLessThanOrEqual(count("SETTLE"))
            // The in-flight account holds the money exactly while funds say IN_FLIGHT.
            expect(debited - outOfFlight === 1).toBe(state.funds === "IN_FLIGHT")
            // Only statuses an outgoing transaction may show; FAILED always has a reason.
            expect(OUTGOING_STATUSES.has(state.status)).toBe(true)
            expect(state.failureReason !== undefined).toBe(state.status === "FAILED")
            // A refund exists only for a debited payment that ended; it is pending exactly while money is in flight.
            if (state.refund !== undefined) {
              expect(debited).toBe(1)
              expect(state.refund.status === "PENDING").toBe(state.funds === "IN_FLIGHT")
            }
            if (isFinal(state)) expect(state.funds === "IN_FLIGHT").toBe(false)
          }
        }
      ),
      { numRuns }
    )
  })
})
