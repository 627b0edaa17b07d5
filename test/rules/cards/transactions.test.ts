import { describe, expect, it } from "vitest"
import {
  type AuthorizationDecision,
  type CardTransactionMove,
  type CardTransactionState,
  type CardTransitioned,
  debitMoneyAddsUp,
  merchantReturn,
  netOfLegs,
  open,
  type OpeningKind,
  returnReversal,
  transition
} from "../../../src/rules/cards/transactions.js"
import { AUTHORIZATION_EXPIRY_MS, DELAYED_PULL_MS } from "../../../src/rules/cards/simulations.js"

const NOW = Date.UTC(2026, 4, 9, 10, 0)
const APPROVED: AuthorizationDecision = { approved: true, accountId: "InternalAccount:a", covered: true, pull: "CONFIRMED" }

const opened = (kind: OpeningKind, amount: number, decision: AuthorizationDecision = APPROVED): CardTransitioned =>
  open({ kind, amount, currency: "USD", decision, now: NOW })

const step = (state: CardTransactionState, move: CardTransactionMove, now = NOW + 1000): CardTransitioned => {
  const r = transition(state, move, now)
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.reason}`)
  expect(debitMoneyAddsUp(r.value.state)).toBe(true)
  return r.value
}
const refusal = (state: CardTransactionState, move: CardTransactionMove): string => {
  const r = transition(state, move, NOW + 1000)
  return r.ok ? "accepted" : `${r.error.code}`
}

const authorized = opened("AUTHORIZATION", 1000).state
const clear = (amount: number, fundingAvailable = 1_000_000, delayedPull = false): CardTransactionMove => ({
  type: "CLEAR",
  amount,
  fundingAvailable,
  delayedPull
})

describe("card transactions: opening a row", () => {
  it("an approved authorization holds the amount on the funding account: AUTHORIZED, CARD_TRANSACTION.AUTHORIZED, expiry in 7 days", () => {
    const r = opened("AUTHORIZATION", 1250)
    expect(r.state).toMatchObject({ status: "AUTHORIZED", direction: "DEBIT", authorized: 1250, held: 1250, settled: 0, pulls: { count: 1, total: 1250, pending: 0 } })
    expect(r.events).toEqual(["CARD_TRANSACTION.AUTHORIZED"])
    expect(r.legs).toEqual([{ move: "CARD_HOLD", from: "FUNDING", to: "HOLD", amount: 1250 }])
    expect(r.scheduled).toEqual([{ at: NOW + AUTHORIZATION_EXPIRY_MS, move: "EXPIRE" }])
  })
  it("a declined authorization moves no money: DECLINED with the reason, CARD_TRANSACTION.DECLINED, nothing scheduled", () => {
    const r = opened("AUTHORIZATION", 1250, { approved: false, reason: "SPEND_LIMIT_EXCEEDED", accountId: "InternalAccount:a" })
    expect(r.state).toMatchObject({ status: "DECLINED", declinedReason: "SPEND_LIMIT_EXCEEDED", authorized: 1250, held: 0 })
    expect(r.events).toEqual(["CARD_TRANSACTION.DECLINED"])
    expect(r.legs).toEqual([])
    expect(r.scheduled).toEqual([])
  })
  it("suffix 005: the hold is placed, the pull stays PENDING and is CONFIRMED about 30 s later", () => {
    const r = opened("AUTHORIZATION", 500, { ...APPROVED, pull: "DELAYED" })
    expect(r.state.pulls).toEqual({ count: 1, total: 500, pending: 1 })
    expect(r.scheduled).toContainEqual({ at: NOW + DELAYED_PULL_MS, move: "PULL_CONFIRMED" })
    const confirmed = step(r.state, { type: "PULL_CONFIRMED" }, NOW + DELAYED_PULL_MS)
    expect(confirmed.state).toMatchObject({ status: "AUTHORIZED", pulls: { count: 1, total: 500, pending: 0 } })
    expect(confirmed.events).toEqual(["CARD_TRANSACTION.AUTHORIZED"])
    expect(confirmed.legs).toEqual([])
  })
  it("suffix 006: pulled, the confirmation FAILED: EXCEPTION, the money parked in suspense", () => {
    const r = opened("AUTHORIZATION", 700, { ...APPROVED, pull: "CONFIRMATION_FAILED" })
    expect(r.state).toMatchObject({ status: "EXCEPTION", held: 0, suspense: 700, pulls: { count: 1, total: 700, pending: 0 } })
    expect(r.events).toEqual(["CARD_TRANSACTION.AUTHORIZED", "CARD_TRANSACTION.EXCEPTION"])
    expect(r.legs).toEqual([{ move: "CARD_EXCEPTION", from: "FUNDING", to: "SUSPENSE", amount: 700 }])
    expect(r.scheduled).toEqual([])
  })
  it("production, uncovered: approved without a hold; the clearing's pull decides", () => {
    const r = opened("AUTHORIZATION", 4200, { ...APPROVED, covered: false })
    expect(r.state).toMatchObject({ status: "AUTHORIZED", held: 0, pulls: { count: 1, total: 0, pending: 0 } })
    expect(r.legs).toEqual([])
    const cleared = step(r.state, clear(4200, 100))
    expect(cleared.state).toMatchObject({ status: "EXCEPTION", settled: 4200, suspense: -4200 })
    expect(cleared.events).toEqual(["CARD_TRANSACTION.EXCEPTION"])
    expect(cleared.legs).toEqual([{ move: "CARD_EXCEPTION", from: "SUSPENSE", to: "NETWORK", amount: 4200 }])
  })
  it("a balance inquiry is a 0-amount authorization: AUTHORIZED, no money, expires like any authorization", () => {
    const r = opened("BALANCE_INQUIRY", 0, { ...APPROVED, pull: "DELAYED" })
    expect(r.state).toMatchObject({ status: "AUTHORIZED", authorized: 0, held: 0, pulls: { count: 0, total: 0, pending: 0 } })
    expect(r.legs).toEqual([])
    expect(r.scheduled).toEqual([{ at: NOW + AUTHORIZATION_EXPIRY_MS, move: "EXPIRE" }])
    expect(step(r.state, { type: "EXPIRE" }).state.status).toBe("VOIDED")
  })
  it("a financial authorization settles in the same message: SETTLED, funding -> network", () => {
    const r = opened("FINANCIAL_AUTHORIZATION", 8000)
    expect(r.state).toMatchObject({ status: "SETTLED", settled: 8000, held: 0, settlements: { count: 1, total: 8000 }, pulls: { count: 1, total: 8000, pending: 0 } })
    expect(r.events).toEqual(["CARD_TRANSACTION.SETTLED"])
    expect(r.legs).toEqual([{ move: "CARD_SETTLE", from: "FUNDING", to: "NETWORK", amount: 8000 }])
    expect(r.scheduled).toEqual([])
  })
  it("a financial authorization with suffix 005 settles with its pull PENDING", () => {
    const r = opened("FINANCIAL_AUTHORIZATION", 8000, { ...APPROVED, pull: "DELAYED" })
    expect(r.state.pulls.pending).toBe(1)
    expect(r.scheduled).toEqual([{ at: NOW + DELAYED_PULL_MS, move: "PULL_CONFIRMED" }])
    expect(step(r.state, { type: "PULL_CONFIRMED" }).events).toEqual(["CARD_TRANSACTION.SETTLED"])
  })
  it("a financial authorization with suffix 006 lands in EXCEPTION with the money parked", () => {
    const r = opened("FINANCIAL_AUTHORIZATION", 8000, { ...APPROVED, pull: "CONFIRMATION_FAILED" })
    expect(r.state).toMatchObject({ status: "EXCEPTION", suspense: 8000, settled: 0 })
    expect(r.events).toEqual(["CARD_TRANSACTION.EXCEPTION"])
    expect(r.legs).toEqual([{ move: "CARD_EXCEPTION", from: "FUNDING", to: "SUSPENSE", amount: 8000 }])
  })
  it("production, an uncovered financial authorization: EXCEPTION, the network paid from suspense", () => {
    const r = opened("FINANCIAL_AUTHORIZATION", 8000, { ...APPROVED, covered: false })
    expect(r.state).toMatchObject({ status: "EXCEPTION", settled: 8000, suspense: -8000, pulls: { count: 1, total: 0 } })
    expect(r.legs).toEqual([{ move: "CARD_EXCEPTION", from: "SUSPENSE", to: "NETWORK", amount: 8000 }])
  })
  it("a credit authorization is a CREDIT row AUTHORIZED with no money until it clears", () => {
    const r = opened("CREDIT_AUTHORIZATION", 2500)
    expect(r.state).toMatchObject({ status: "AUTHORIZED", direction: "CREDIT", authorized: 2500, held: 0, pulls: { count: 0, total: 0, pending: 0 } })
    expect(r.legs).toEqual([])
    const cleared = step(r.state, clear(2500, 0))
    expect(cleared.state).toMatchObject({ status: "SETTLED", settled: 2500 })
    expect(cleared.legs).toEqual([{ move: "CARD_CREDIT", from: "NETWORK", to: "FUNDING", amount: 2500 }])
    expect(cleared.cancel).toEqual(["EXPIRE"])
  })
  it("a financial credit authorization credits at once: SETTLED, network -> funding", () => {
    const r = opened("FINANCIAL_CREDIT_AUTHORIZATION", 4000)
    expect(r.state).toMatchObject({ status: "SETTLED", direction: "CREDIT", settled: 4000 })
    expect(r.events).toEqual(["CARD_TRANSACTION.SETTLED"])
    expect(r.legs).toEqual([{ move: "CARD_CREDIT", from: "NETWORK", to: "FUNDING", amount: 4000 }])
  })
})

describe("card transactions: clearing", () => {
  it("a full clearing settles: the hold goes to the network, SETTLED, the expiry is cancelled", () => {
    const r = step(authorized, clear(1000))
    expect(r.state).toMatchObject({ status: "SETTLED", held: 0, settled: 1000, settlements: { count: 1, total: 1000 } })
    expect(r.events).toEqual(["CARD_TRANSACTION.SETTLED"])
    expect(r.legs).toEqual([{ move: "CARD_SETTLE", from: "HOLD", to: "NETWORK", amount: 1000 }])
    expect(r.cancel).toEqual(["EXPIRE"])
  })
  it("a partial clearing: PARTIALLY_SETTLED, the rest stays held", () => {
    const r = step(authorized, clear(400))
    expect(r.state).toMatchObject({ status: "PARTIALLY_SETTLED", held: 600, settled: 400 })
    expect(r.events).toEqual(["CARD_TRANSACTION.PARTIALLY_SETTLED"])
    expect(r.legs).toEqual([{ move: "CARD_SETTLE", from: "HOLD", to: "NETWORK", amount: 400 }])
    expect(r.cancel).toEqual([])
    const second = step(r.state, clear(600))
    expect(second.state).toMatchObject({ status: "SETTLED", held: 0, settled: 1000, settlements: { count: 2, total: 1000 } })
  })
  it("over the authorization: the hold settles and the difference is pulled post-hoc (tip on top)", () => {
    const r = step(authorized, clear(1500))
    expect(r.state).toMatchObject({ status: "SETTLED", held: 0, settled: 1500, pulls: { count: 2, total: 1500, pending: 0 } })
    expect(r.legs).toEqual([
      { move: "CARD_SETTLE", from: "HOLD", to: "NETWORK", amount: 1000 },
      { move: "CARD_PULL", from: "FUNDING", to: "NETWORK", amount: 500 }
    ])
  })
  it("over the authorization with a 005 parent: the post-hoc pull stays PENDING 30 s", () => {
    const r = step(authorized, clear(1500, 1_000_000, true))
    expect(r.state.pulls).toEqual({ count: 2, total: 1500, pending: 1 })
    expect(r.scheduled).toEqual([{ at: NOW + 1000 + DELAYED_PULL_MS, move: "PULL_CONFIRMED" }])
  })
  it("over the authorization and the funding account cannot cover the difference: EXCEPTION, fronted from suspense", () => {
    const r = step(authorized, clear(1500, 499))
    expect(r.state).toMatchObject({ status: "EXCEPTION", held: 0, settled: 1500, suspense: -500, pulls: { count: 2, total: 1000 } })
    expect(r.events).toEqual(["CARD_TRANSACTION.EXCEPTION"])
    expect(r.legs).toEqual([
      { move: "CARD_SETTLE", from: "HOLD", to: "NETWORK", amount: 1000 },
      { move: "CARD_EXCEPTION", from: "SUSPENSE", to: "NETWORK", amount: 500 }
    ])
  })
  it("exactly covered post-hoc pull is no exception", () => {
    expect(step(authorized, clear(1500, 500)).state.status).toBe("SETTLED")
  })
  it("amount 0 is an authorization expiry: VOIDED, the hold released", () => {
    const r = step(authorized, clear(0))
    expect(r.state).toMatchObject({ status: "VOIDED", held: 0, released: 1000, settled: 0 })
    expect(r.events).toEqual(["CARD_TRANSACTION.VOIDED"])
    expect(r.legs).toEqual([{ move: "CARD_RELEASE", from: "HOLD", to: "FUNDING", amount: 1000 }])
    expect(r.cancel).toEqual(["EXPIRE"])
  })
  it("amount 0 after a partial clearing: SETTLED, the rest released", () => {
    const partial = step(authorized, clear(300)).state
    const r = step(partial, clear(0))
    expect(r.state).toMatchObject({ status: "SETTLED", held: 0, released: 700, settled: 300 })
    expect(r.events).toEqual(["CARD_TRANSACTION.SETTLED"])
  })
  it("a credit row cleared in part: PARTIALLY_SETTLED; the expiry then closes it SETTLED", () => {
    const credit = opened("CREDIT_AUTHORIZATION", 2500).state
    const r = step(credit, clear(1000, 0))
    expect(r.state).toMatchObject({ status: "PARTIALLY_SETTLED", settled: 1000 })
    expect(step(r.state, { type: "EXPIRE" }).state.status).toBe("SETTLED")
  })
  it("a credit authorization cleared with 0 is VOIDED", () => {
    expect(step(opened("CREDIT_AUTHORIZATION", 2500).state, clear(0)).state.status).toBe("VOIDED")
  })
  it.each([
    ["SETTLED", step(authorized, clear(1000)).state],
    ["VOIDED", step(authorized, clear(0)).state],
    ["DECLINED", opened("AUTHORIZATION", 5, { approved: false, reason: "CARD_NOT_ACTIVE" }).state],
    ["EXCEPTION", opened("AUTHORIZATION", 5, { ...APPROVED, pull: "CONFIRMATION_FAILED" }).state]
  ])("a clearing on a %s row is refused 400 INVALID_INPUT", (_status, state) => {
    expect(refusal(state, clear(10))).toBe("INVALID_INPUT")
  })
  it("a clearing on a return's own row is refused", () => {
    const settled = step(authorized, clear(1000)).state
    const r = merchantReturn(settled, 100, NOW)
    if (!r.ok) throw new Error(r.error.reason)
    expect(refusal(r.value.refund.state, clear(10))).toBe("INVALID_INPUT")
  })
})

describe("card transactions: authorization advice", () => {
  it("up: the new total is held (the increase pulled)", () => {
    const r = step(authorized, { type: "ADVICE", amount: 2000, fundingAvailable: 5000 })
    expect(r.state).toMatchObject({ status: "AUTHORIZED", authorized: 2000, held: 2000, pulls: { count: 2, total: 2000 } })
    expect(r.events).toEqual(["CARD_TRANSACTION.AUTHORIZED"])
    expect(r.legs).toEqual([{ move: "CARD_HOLD", from: "FUNDING", to: "HOLD", amount: 1000 }])
  })
  it("up beyond what the account holds: authorized grows, nothing more held (pulled post-hoc at clearing)", () => {
    const r = step(authorized, { type: "ADVICE", amount: 2000, fundingAvailable: 999 })
    expect(r.state).toMatchObject({ authorized: 2000, held: 1000, pulls: { count: 1, total: 1000 } })
    expect(r.legs).toEqual([])
    expect(step(r.state, clear(2000, 999)).state.status).toBe("EXCEPTION")
    expect(step(r.state, clear(2000, 1000)).state.status).toBe("SETTLED")
  })
  it("down: the difference is released", () => {
    const r = step(authorized, { type: "ADVICE", amount: 600, fundingAvailable: 0 })
    expect(r.state).toMatchObject({ status: "AUTHORIZED", authorized: 600, held: 600, released: 400 })
    expect(r.legs).toEqual([{ move: "CARD_RELEASE", from: "HOLD", to: "FUNDING", amount: 400 }])
  })
  it("down to what already settled closes a partially settled row: SETTLED", () => {
    const partial = step(authorized, clear(300)).state
    const r = step(partial, { type: "ADVICE", amount: 300, fundingAvailable: 0 })
    expect(r.state).toMatchObject({ status: "SETTLED", authorized: 300, held: 0, released: 700 })
    expect(r.events).toEqual(["CARD_TRANSACTION.SETTLED"])
    expect(netOfLegs(r.legs).FUNDING).toBe(700)
  })
  it("below what already settled: 400 INVALID_AMOUNT", () => {
    const partial = step(authorized, clear(300)).state
    expect(refusal(partial, { type: "ADVICE", amount: 299, fundingAvailable: 0 })).toBe("INVALID_AMOUNT")
  })
  it("the same total re-fires the status event and moves nothing", () => {
    const r = step(authorized, { type: "ADVICE", amount: 1000, fundingAvailable: 0 })
    expect(r.events).toEqual(["CARD_TRANSACTION.AUTHORIZED"])
    expect(r.legs).toEqual([])
  })
  it("on a credit authorization: re-sizes with no money", () => {
    const r = step(opened("CREDIT_AUTHORIZATION", 2500).state, { type: "ADVICE", amount: 3000, fundingAvailable: 0 })
    expect(r.state.authorized).toBe(3000)
    expect(r.legs).toEqual([])
  })
  it("on a SETTLED row: 400 INVALID_INPUT", () => {
    expect(refusal(step(authorized, clear(1000)).state, { type: "ADVICE", amount: 5, fundingAvailable: 0 })).toBe("INVALID_INPUT")
  })
})

describe("card transactions: expiry and pull confirmation (timers)", () => {
  it("EXPIRE on AUTHORIZED: VOIDED, hold released", () => {
    const r = step(authorized, { type: "EXPIRE" }, NOW + AUTHORIZATION_EXPIRY_MS)
    expect(r.state).toMatchObject({ status: "VOIDED", released: 1000, held: 0, lastEventAt: NOW + AUTHORIZATION_EXPIRY_MS })
    expect(r.events).toEqual(["CARD_TRANSACTION.VOIDED"])
  })
  it("EXPIRE on a closed row is refused (the timer outcome is recorded as refused)", () => {
    expect(refusal(step(authorized, clear(1000)).state, { type: "EXPIRE" })).toBe("INVALID_INPUT")
  })
  it("PULL_CONFIRMED without a pending pull is refused", () => {
    expect(refusal(authorized, { type: "PULL_CONFIRMED" })).toBe("INVALID_INPUT")
  })
  it("PULL_CONFIRMED after the row closed keeps its status (only the summary changes)", () => {
    const delayed = opened("AUTHORIZATION", 500, { ...APPROVED, pull: "DELAYED" }).state
    const voided = step(delayed, clear(0)).state
    const r = step(voided, { type: "PULL_CONFIRMED" })
    expect(r.state.status).toBe("VOIDED")
    expect(r.state.pulls.pending).toBe(0)
    expect(r.events).toEqual(["CARD_TRANSACTION.VOIDED"])
  })
})

describe("card transactions: merchant returns and their reversal", () => {
  const settled = step(authorized, clear(1000)).state
  const returned = (purchase: CardTransactionState, amount: number) => {
    const r = merchantReturn(purchase, amount, NOW + 5000)
    if (!r.ok) throw new Error(r.error.reason)
    return r.value
  }
  it("a partial return: the purchase stays SETTLED with refundedAmount, SETTLED re-fired; the return opens a CREDIT row SETTLED", () => {
    const r = returned(settled, 400)
    expect(r.purchase.state).toMatchObject({ status: "SETTLED", refunded: 400, refunds: { count: 1, total: 400 } })
    expect(r.purchase.events).toEqual(["CARD_TRANSACTION.SETTLED"])
    expect(r.purchase.legs).toEqual([])
    expect(r.refund.state).toMatchObject({ kind: "RETURN", status: "SETTLED", direction: "CREDIT", authorized: 400, settled: 400 })
    expect(r.refund.events).toEqual(["CARD_TRANSACTION.SETTLED"])
    expect(r.refund.legs).toEqual([{ move: "CARD_RETURN", from: "NETWORK", to: "FUNDING", amount: 400 }])
  })
  it("a full return keeps the purchase SETTLED (no REFUNDED status)", () => {
    expect(returned(settled, 1000).purchase.state).toMatchObject({ status: "SETTLED", refunded: 1000 })
  })
  it("returns add up to at most the net settled amount: above it is 400 INVALID_AMOUNT", () => {
    const once = returned(settled, 700).purchase.state
    expect(refusal(once, { type: "RETURN", amount: 301 })).toBe("INVALID_AMOUNT")
    expect(returned(once, 300).purchase.state.refunded).toBe(1000)
  })
  it("a return against a partially settled purchase is allowed up to what settled", () => {
    const partial = step(authorized, clear(300)).state
    expect(returned(partial, 300).purchase.state).toMatchObject({ status: "PARTIALLY_SETTLED", refunded: 300 })
    expect(refusal(partial, { type: "RETURN", amount: 301 })).toBe("INVALID_AMOUNT")
  })
  it.each([
    ["AUTHORIZED", authorized],
    ["VOIDED", step(authorized, clear(0)).state],
    ["DECLINED", opened("AUTHORIZATION", 5, { approved: false, reason: "OTHER" }).state],
    ["EXCEPTION", step(authorized, clear(1500, 0)).state],
    ["a CREDIT row", opened("FINANCIAL_CREDIT_AUTHORIZATION", 50).state]
  ])("a return against %s is refused 400 INVALID_INPUT", (_what, state) => {
    expect(refusal(state, { type: "RETURN", amount: 1 })).toBe("INVALID_INPUT")
  })
  it("a return reversal voids the return's row, takes the money back and lowers the purchase's refundedAmount", () => {
    const r = returned(settled, 400)
    const rev = returnReversal(r.refund.state, r.purchase.state, 400, NOW + 9000)
    if (!rev.ok) throw new Error(rev.error.reason)
    expect(rev.value.refund.state.status).toBe("VOIDED")
    expect(rev.value.refund.events).toEqual(["CARD_TRANSACTION.VOIDED"])
    expect(rev.value.refund.legs).toEqual([{ move: "CARD_RETURN_REVERSAL", from: "FUNDING", to: "NETWORK", amount: 400 }])
    expect(rev.value.purchase.state).toMatchObject({ status: "SETTLED", refunded: 0, refunds: { count: 1, total: 0 } })
    expect(rev.value.purchase.events).toEqual(["CARD_TRANSACTION.SETTLED"])
  })
  it("a return reversal the funding account cannot cover: the return's row lands in EXCEPTION, fronted from suspense", () => {
    const r = returned(settled, 400)
    const rev = returnReversal(r.refund.state, r.purchase.state, 399, NOW + 9000)
    if (!rev.ok) throw new Error(rev.error.reason)
    expect(rev.value.refund.state).toMatchObject({ status: "EXCEPTION", suspense: -400 })
    expect(rev.value.refund.legs).toEqual([{ move: "CARD_EXCEPTION", from: "SUSPENSE", to: "NETWORK", amount: 400 }])
    expect(rev.value.purchase.state.refunded).toBe(0)
  })
  it("a return reversal twice is refused", () => {
    const r = returned(settled, 400)
    const rev = returnReversal(r.refund.state, r.purchase.state, 400, NOW)
    if (!rev.ok) throw new Error(rev.error.reason)
    const again = returnReversal(rev.value.refund.state, rev.value.purchase.state, 400, NOW)
    expect(again.ok ? "accepted" : again.error.code).toBe("INVALID_INPUT")
  })
  it("a return reversal naming the purchase (not the return's row) is refused", () => {
    const r = returned(settled, 400)
    expect(refusal(r.purchase.state, { type: "REVERSE_RETURN", fundingAvailable: 10_000 })).toBe("INVALID_INPUT")
  })
  it("the purchase side refuses a reversal larger than what stays returned", () => {
    expect(refusal(settled, { type: "RETURN_REVERSED", amount: 1 })).toBe("INVALID_INPUT")
  })
})
