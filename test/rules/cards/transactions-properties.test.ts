/**
 * Invariants of the card-transaction machine over random sequences of network messages
 * and timers on several rows sharing one funding account, with an auditor after every
 * step (TigerBeetle style): amounts never negative, returned ≤ settled, a debit row's
 * money adds up (pulled = held + released + settled + suspense), the ledger legs sum to
 * zero and never take the funding account below zero, the HOLD and SUSPENSE balances
 * are the rows' own, and DECLINED / VOIDED / EXCEPTION never change.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { numRuns } from "../../support/runs.js"
import type { CardSimulationOutcome } from "../../../src/rules/cards/simulations.js"
import { decide } from "../../../src/rules/cards/transactions-decisioning.js"
import {
  type CardLedgerRole,
  type CardTransactionState,
  type CardTransitioned,
  debitMoneyAddsUp,
  merchantReturn,
  netOfLegs,
  open,
  type OpeningKind,
  returnReversal,
  TERMINAL_STATUSES,
  transition
} from "../../../src/rules/cards/transactions.js"

type Command =
  | { readonly t: "open"; readonly kind: OpeningKind; readonly amount: number; readonly simulation: CardSimulationOutcome; readonly sandbox: boolean; readonly limit: number | null }
  | { readonly t: "advice"; readonly row: number; readonly amount: Amount }
  | { readonly t: "clear"; readonly row: number; readonly amount: Amount; readonly delayed: boolean }
  | { readonly t: "expire"; readonly row: number }
  | { readonly t: "confirm"; readonly row: number }
  | { readonly t: "return"; readonly row: number; readonly amount: Amount }
  | { readonly t: "reverse"; readonly row: number }

/**
 * An amount, or one at the edge the move checks, off by -1, 0 or +1: for a clearing, what
 * is held plus the funding balance; for an advice, what is authorized plus the balance;
 * for a return, the net settled amount.
 */
type Amount = number | { readonly edge: -1 | 0 | 1 }
const amount = fc.integer({ min: 1, max: 5_000 })
const edgy: fc.Arbitrary<Amount> = fc.oneof(amount, fc.record({ edge: fc.constantFrom<-1 | 0 | 1>(-1, 0, 1) }))
const row = fc.nat({ max: 11 })
const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      t: fc.constant("open" as const),
      kind: fc.constantFrom<OpeningKind>("AUTHORIZATION", "AUTHORIZATION", "FINANCIAL_AUTHORIZATION", "BALANCE_INQUIRY", "CREDIT_AUTHORIZATION", "FINANCIAL_CREDIT_AUTHORIZATION"),
      amount,
      simulation: fc.constantFrom<CardSimulationOutcome>(
        { type: "APPROVED" },
        { type: "APPROVED" },
        { type: "DELAYED_PULL" },
        { type: "CONFIRMATION_FAILED" },
        { type: "DECLINED", reason: "INSUFFICIENT_FUNDS" },
        { type: "DECLINED", reason: "CARD_NOT_ACTIVE" }
      ),
      sandbox: fc.boolean(),
      limit: fc.option(fc.integer({ min: 1, max: 5_000 }), { nil: null })
    })
  },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("advice" as const), row, amount: edgy }) },
  { weight: 4, arbitrary: fc.record({ t: fc.constant("clear" as const), row, amount: fc.oneof(fc.constant(0), edgy), delayed: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("expire" as const), row }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("confirm" as const), row }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("return" as const), row, amount: edgy }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("reverse" as const), row }) }
)

interface Row {
  state: CardTransactionState
  /** A return's own row: the purchase's index. */
  readonly parent?: number
}

const resolve = (a: Amount, edge: number): number => (typeof a === "number" ? a : Math.max(0, edge + a.edge))

class Auditor {
  readonly balances: Record<CardLedgerRole, number>
  readonly rows: Array<Row> = []
  now = Date.UTC(2026, 0, 1)
  constructor(readonly initial: number) {
    this.balances = { FUNDING: initial, HOLD: 0, NETWORK: 0, SUSPENSE: 0 }
  }

  apply(index: number, r: CardTransitioned): void {
    const before = this.rows[index]?.state
    if (before !== undefined && TERMINAL_STATUSES.has(before.status)) {
      expect(r.state.status, `a ${before.status} row changed`).toBe(before.status)
      expect(r.legs).toEqual([])
    }
    for (const l of r.legs) {
      expect(l.amount).toBeGreaterThan(0)
      expect(l.from).not.toBe(l.to)
    }
    const net = netOfLegs(r.legs)
    expect(net.FUNDING + net.HOLD + net.NETWORK + net.SUSPENSE).toBe(0)
    for (const role of Object.keys(net) as Array<CardLedgerRole>) this.balances[role] += net[role]
    expect(this.balances.FUNDING, "the funding account went below zero").toBeGreaterThanOrEqual(0)
    if (index === this.rows.length) this.rows.push({ state: r.state })
    else this.rows[index] = { ...this.rows[index]!, state: r.state }
  }

  audit(): void {
    let held = 0
    let suspense = 0
    for (const { state: s } of this.rows) {
      for (const v of [s.authorized, s.held, s.settled, s.refunded, s.released, s.pulls.total, s.pulls.count, s.pulls.pending, s.settlements.total, s.refunds.total]) {
        expect(v).toBeGreaterThanOrEqual(0)
      }
      expect(s.refunded).toBeLessThanOrEqual(s.settled)
      expect(s.settlements.total).toBe(s.settled)
      expect(s.refunds.total).toBe(s.refunded)
      expect(debitMoneyAddsUp(s), JSON.stringify(s)).toBe(true)
      if (s.status !== "AUTHORIZED" && s.status !== "PARTIALLY_SETTLED") expect(s.held).toBe(0)
      if (s.status === "DECLINED") expect(s.pulls.total + s.settled + s.held).toBe(0)
      held += s.held
      suspense += s.suspense
    }
    expect(this.balances.HOLD).toBe(held)
    expect(this.balances.SUSPENSE).toBe(suspense)
    expect(this.balances.FUNDING + this.balances.HOLD + this.balances.NETWORK + this.balances.SUSPENSE).toBe(this.initial)
  }

  run(c: Command): void {
    this.now += 1000
    const pick = (i: number) => (this.rows.length === 0 ? undefined : i % this.rows.length)
    switch (c.t) {
      case "open": {
        const kindAmount = c.kind === "BALANCE_INQUIRY" ? 0 : c.amount
        const decision = decide({
          kind: c.kind,
          amount: kindAmount,
          card: { status: "ACTIVE", currency: "USD", maxSpendPerTransaction: c.limit },
          sources: [{
            accountId: "InternalAccount:f",
            bindingId: "CardFundingSource:f",
            account: { status: "ACTIVE", currency: "USD", type: "INTERNAL_FIAT" },
            available: this.balances.FUNDING,
            delegatedKeyActive: false
          }],
          simulation: c.sandbox ? c.simulation : { type: "APPROVED" },
          sandbox: c.sandbox
        })
        this.apply(this.rows.length, open({ kind: c.kind, amount: kindAmount, currency: "USD", decision, now: this.now }))
        return
      }
      case "return": {
        const i = pick(c.row)
        if (i === undefined) return
        const p = this.rows[i]!.state
        const r = merchantReturn(p, resolve(c.amount, p.settled - p.refunded), this.now)
        if (!r.ok) return
        this.apply(i, r.value.purchase)
        const at = this.rows.length
        this.apply(at, r.value.refund)
        this.rows[at] = { state: r.value.refund.state, parent: i }
        return
      }
      case "reverse": {
        const i = pick(c.row)
        if (i === undefined) return
        const refund = this.rows[i]!
        if (refund.parent === undefined) {
          expect(transition(refund.state, { type: "REVERSE_RETURN", fundingAvailable: this.balances.FUNDING }, this.now).ok).toBe(false)
          return
        }
        const r = returnReversal(refund.state, this.rows[refund.parent]!.state, this.balances.FUNDING, this.now)
        if (!r.ok) return
        this.apply(i, r.value.refund)
        this.apply(refund.parent, r.value.purchase)
        return
      }
      default: {
        const i = pick(c.row)
        if (i === undefined) return
        const state = this.rows[i]!.state
        const available = this.balances.FUNDING
        const move = c.t === "advice"
          ? { type: "ADVICE" as const, amount: Math.max(1, resolve(c.amount, state.authorized + available)), fundingAvailable: available }
          : c.t === "clear"
          ? { type: "CLEAR" as const, amount: resolve(c.amount, state.held + available), fundingAvailable: this.balances.FUNDING, delayedPull: c.delayed }
          : c.t === "expire"
          ? { type: "EXPIRE" as const }
          : { type: "PULL_CONFIRMED" as const }
        const r = transition(state, move, this.now)
        if (r.ok) this.apply(i, r.value)
        else expect(r.error.code === "INVALID_INPUT" || r.error.code === "INVALID_AMOUNT").toBe(true)
      }
    }
  }
}

describe("card transactions: invariants over random message sequences", () => {
  it("amounts, money conservation, the funding floor and terminal statuses hold after every step", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 20_000 }), fc.array(command, { maxLength: 60 }), (initial, commands) => {
        const auditor = new Auditor(initial)
        for (const c of commands) {
          auditor.run(c)
          auditor.audit()
        }
      }),
      { numRuns: numRuns(200) }
    )
  })

  it("a covered authorization that closes without an exception: settled + released = authorized, plus what was pulled post-hoc", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5_000 }),
        fc.array(fc.integer({ min: 0, max: 3_000 }), { maxLength: 5 }),
        (authorizedAmount, clearings) => {
          const start = Date.UTC(2026, 0, 1)
          const decision = { approved: true as const, accountId: "a", covered: true, pull: "CONFIRMED" as const }
          let s = open({ kind: "AUTHORIZATION", amount: authorizedAmount, currency: "USD", decision, now: start }).state
          let postHoc = 0
          for (const c of [...clearings, 0]) {
            const r = transition(s, { type: "CLEAR", amount: c, fundingAvailable: Number.MAX_SAFE_INTEGER }, start)
            if (!r.ok) break
            for (const l of r.value.legs) if (l.move === "CARD_PULL") postHoc += l.amount
            s = r.value.state
          }
          expect(["SETTLED", "VOIDED"]).toContain(s.status)
          expect(s.settled + s.released).toBe(authorizedAmount + postHoc)
        }
      ),
      { numRuns: numRuns(200) }
    )
  })
})
