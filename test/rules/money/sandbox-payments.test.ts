import { describe, expect, it } from "vitest"
import { applyMoves, newPayment, type PaymentState, transition } from "../../../src/rules/money/payment.js"
import {
  LONG_PAYMENT_DELAY_MS,
  parseUmaAddress,
  PENDING_THEN_FAIL_DELAY_MS,
  pullOrPayoutOutcome,
  pullOrPayoutSteps,
  quoteExecutionOutcome,
  RETURN_DELAY_MS,
  SANDBOX_UMA_DOMAIN_DEFAULT,
  sandboxUmaCounterparty,
  type PaymentStep,
  scheduleSteps,
  UMA_LONG_PENDING_MS
} from "../../../src/rules/money/sandbox-payments.js"
import { primaryIdentifier } from "../../../src/rules/sandbox/identifiers.js"

const EXECUTED_AT = Date.UTC(2026, 5, 1, 9, 0)

const executed = (): PaymentState => {
  const r = transition(newPayment(), { type: "PROCESS" }, EXECUTED_AT)
  if (!r.ok) throw new Error(r.error.reason)
  return r.value.state
}

/** Runs a row's steps through the payment machine, as the scheduler would. */
const run = (steps: ReadonlyArray<PaymentStep>, start: PaymentState = executed()) => {
  const r = applyMoves(start, scheduleSteps(steps, EXECUTED_AT))
  if (!r.ok) throw new Error(r.error.reason)
  return r.value
}

/** The state once the platform's clock reaches `at`: only the steps due by then applied. */
const at = (steps: ReadonlyArray<PaymentStep>, clock: number) => run(steps.filter((s) => EXECUTED_AT + s.afterMillis <= clock))

describe("sandbox: quote execution to an external account (SPEC.md table)", () => {
  it("002 quote execution failed: FAILED at once, QUOTE_EXECUTION_FAILED, refund COMPLETED at once", () => {
    const row = quoteExecutionOutcome("DE89370400440532013002")
    expect(row.suffix).toBe("002")
    const end = at(row.steps, EXECUTED_AT)
    expect(end.state).toMatchObject({ status: "FAILED", failureReason: "QUOTE_EXECUTION_FAILED", refund: { status: "COMPLETED", reason: "TRANSACTION_FAILED" } })
    expect(end.ledger).toEqual(["REFUND"])
  })
  it("003 long payment: PROCESSING until about 6 minutes, then COMPLETED", () => {
    const row = quoteExecutionOutcome("003")
    expect(LONG_PAYMENT_DELAY_MS).toBe(360_000)
    expect(at(row.steps, EXECUTED_AT + LONG_PAYMENT_DELAY_MS - 1).state.status).toBe("PROCESSING")
    const end = at(row.steps, EXECUTED_AT + LONG_PAYMENT_DELAY_MS)
    expect(end.state.status).toBe("COMPLETED")
    expect(end.ledger).toEqual(["SETTLE"])
  })
  it("004 counterparty delivery failed: FAILED after a short delay, refunded", () => {
    const end = run(quoteExecutionOutcome("004").steps)
    expect(end.state).toMatchObject({ status: "FAILED", failureReason: "QUOTE_EXECUTION_FAILED", refund: { status: "COMPLETED" } })
    expect(end.events).toEqual(["OUTGOING_PAYMENT.FAILED", "OUTGOING_PAYMENT.REFUND_PENDING", "OUTGOING_PAYMENT.REFUND_COMPLETED"])
    expect(end.ledger).toEqual(["REFUND"])
  })
  it("005 returned: COMPLETED first, then FAILED with PAYOUT_RETURNED and the money back", () => {
    const row = quoteExecutionOutcome("005")
    expect(at(row.steps, EXECUTED_AT).state.status).toBe("COMPLETED")
    const end = at(row.steps, EXECUTED_AT + RETURN_DELAY_MS)
    expect(end.state).toMatchObject({ status: "FAILED", failureReason: "PAYOUT_RETURNED", refund: { status: "COMPLETED" } })
    expect(end.events).toEqual(["OUTGOING_PAYMENT.COMPLETED", "OUTGOING_PAYMENT.FAILED", "OUTGOING_PAYMENT.REFUND_COMPLETED"])
    expect(end.ledger).toEqual(["SETTLE", "RETURN"])
  })
  it("006 user cancellation: FAILED, refunded with reason USER_CANCELLATION", () => {
    const end = run(quoteExecutionOutcome("006").steps)
    expect(end.state).toMatchObject({ status: "FAILED", refund: { status: "COMPLETED", reason: "USER_CANCELLATION" } })
    expect(end.ledger).toEqual(["REFUND"])
  })
  it("007 payout and refund failed: FAILED, refund FAILED, money parked", () => {
    const end = run(quoteExecutionOutcome("007").steps)
    expect(end.state).toMatchObject({ status: "FAILED", failureReason: "QUOTE_EXECUTION_FAILED", funds: "PARKED", refund: { status: "FAILED" } })
    expect(end.events).toEqual(["OUTGOING_PAYMENT.FAILED", "OUTGOING_PAYMENT.REFUND_PENDING", "OUTGOING_PAYMENT.REFUND_FAILED"])
    expect(end.ledger).toEqual(["PARK"])
  })
  it("any other suffix: successful payment", () => {
    for (const id of ["001", "008", "123456789", "ada@bank"]) {
      const end = run(quoteExecutionOutcome(id).steps)
      expect(end.state.status).toBe("COMPLETED")
      expect(end.ledger).toEqual(["SETTLE"])
    }
  })
  it("reads the primary identifier's username portion for identifiers with a domain", () => {
    expect(quoteExecutionOutcome(primaryIdentifier({ accountType: "LIGHTNING", lightningAddress: "ada007@wallet.example" })).suffix).toBe("007")
    expect(quoteExecutionOutcome(primaryIdentifier({ accountType: "MXN_ACCOUNT", clabeNumber: "032180000118359003" })).suffix).toBe("003")
  })
  it("never uses a removed or deprecated failure reason", () => {
    const banned = ["EXECUTION_FAILED_POST_DEBIT", "SETTLEMENT_FAILED", "TIMEOUT", "MANUAL_REFUND", "LIGHTNING_PAYMENT_FAILED", "COUNTERPARTY_POST_TX_FAILED"]
    for (const s of ["002", "003", "004", "005", "006", "007", "000"]) {
      for (const st of quoteExecutionOutcome(s).steps) if (st.move.type === "FAIL") expect(banned).not.toContain(st.move.failureReason)
    }
  })
})

describe("sandbox: external account as pull source or payout destination (SPEC.md table)", () => {
  const rows: ReadonlyArray<[string, string | undefined, number]> = [
    ["002", "QUOTE_EXECUTION_FAILED", 0],
    ["003", "ACCOUNT_INVALID", 0],
    ["004", "ACCOUNT_CANNOT_RECEIVE", 0],
    ["005", "QUOTE_EXECUTION_FAILED", PENDING_THEN_FAIL_DELAY_MS],
    ["999", undefined, 0]
  ]
  for (const [suffix, reason, after] of rows) {
    it(`${suffix}: ${reason ?? "success"} after ${after} ms`, () => {
      const row = pullOrPayoutOutcome(`12345678${suffix}`)
      expect(row.failureReason).toBe(reason)
      expect(row.afterMillis).toBe(after)
      const payout = run(pullOrPayoutSteps(row, "PAYOUT"))
      expect(payout.state.status).toBe(reason === undefined ? "COMPLETED" : "FAILED")
      expect(payout.ledger).toEqual(reason === undefined ? ["SETTLE"] : ["REFUND"])
      // A pull debited nothing of ours: it only fails, with no refund step and no money moved.
      if (reason !== undefined) {
        const pull = applyMoves(newPayment(), scheduleSteps(pullOrPayoutSteps(row, "PULL"), EXECUTED_AT))
        expect(pull.ok).toBe(true)
        if (pull.ok) {
          expect(pull.value.state).toMatchObject({ status: "FAILED", failureReason: reason })
          expect(pull.value.state.refund).toBeUndefined()
          expect(pull.value.ledger).toEqual([])
        }
      }
    })
  }
  it("005 stays pending about 30 seconds", () => {
    const row = pullOrPayoutOutcome("005")
    expect(at(pullOrPayoutSteps(row, "PAYOUT"), EXECUTED_AT + 29_999).state.status).toBe("PROCESSING")
    expect(at(pullOrPayoutSteps(row, "PAYOUT"), EXECUTED_AT + 30_000).state.status).toBe("FAILED")
  })
})

describe("sandbox UMA addresses", () => {
  const D = SANDBOX_UMA_DOMAIN_DEFAULT
  it("$success.<cur> succeeds in that currency", () => {
    for (const cur of ["usd", "eur", "mxn"]) {
      const c = sandboxUmaCounterparty(`$success.${cur}@${D}`)
      expect(c?.currency).toBe(cur.toUpperCase())
      expect(run(c?.steps ?? []).state.status).toBe("COMPLETED")
    }
  })
  it("$pending.long.usd stays PROCESSING for 24 h, then completes", () => {
    const steps = sandboxUmaCounterparty(`$pending.long.usd@${D}`)?.steps ?? []
    expect(at(steps, EXECUTED_AT + UMA_LONG_PENDING_MS - 1).state.status).toBe("PROCESSING")
    expect(at(steps, EXECUTED_AT + UMA_LONG_PENDING_MS).state.status).toBe("COMPLETED")
  })
  it("$fail.compliance.usd fails with COMPLIANCE_REJECTED and the money comes back", () => {
    const end = run(sandboxUmaCounterparty(`$fail.compliance.usd@${D}`)?.steps ?? [])
    expect(end.state).toMatchObject({ status: "FAILED", failureReason: "COMPLIANCE_REJECTED", refund: { status: "COMPLETED" } })
    expect(end.ledger).toEqual(["REFUND"])
  })
  it("case-insensitive; other names, other domains and non-addresses are not sandbox counterparties", () => {
    expect(sandboxUmaCounterparty(`$Success.USD@${D.toUpperCase()}`)?.currency).toBe("USD")
    expect(sandboxUmaCounterparty(`$alice@${D}`)).toBeUndefined()
    expect(sandboxUmaCounterparty("$success.usd@other.example")).toBeUndefined()
    expect(sandboxUmaCounterparty("$success.usd@platform.example", "platform.example")?.currency).toBe("USD")
    expect(sandboxUmaCounterparty("success.usd")).toBeUndefined()
    expect(sandboxUmaCounterparty(`$toString@${D}`)).toBeUndefined()
  })
})

describe("parseUmaAddress", () => {
  it("parses $name@domain, lower-cased", () => {
    expect(parseUmaAddress("$Alice.B_c-1@Uma.Example.com")).toEqual({ localPart: "alice.b_c-1", domain: "uma.example.com" })
    expect(parseUmaAddress("$bob@localhost")).toEqual({ localPart: "bob", domain: "localhost" })
  })
  it("refuses malformed addresses", () => {
    for (const s of ["alice@uma.example", "$@uma.example", "$alice", "$alice@", "$al ice@uma.example", "$alice@uma..example", "$alice@-uma.example", "$a@b@c", "$alice@uma_example.com", `$${"a".repeat(250)}@b.co`]) {
      expect(parseUmaAddress(s), s).toBeUndefined()
    }
  })
})
