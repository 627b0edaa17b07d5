/** The card PIN machine (SPEC.md "Card PIN status"), one `it` per stated rule, and a property over entries. */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { MAX_PIN_FAILURES, type PinEvent, type PinState, transition } from "../../../src/rules/cards/pin.js"
import { numRuns } from "../../support/runs.js"

const apply = (state: PinState, event: PinEvent) => {
  const r = transition(state, event)
  if (!r.ok) throw new Error(r.error.code)
  return r.value
}
const fresh: PinState = { pinStatus: "NOT_SET", failures: 0 }
const set: PinState = { pinStatus: "OK", failures: 0 }

describe("card PIN", () => {
  it("setting a PIN: NOT_SET -> OK, CARD.PIN_STATUS_CHANGE", () => {
    expect(apply(fresh, { type: "PIN_SET" })).toEqual({ state: set, events: ["CARD.PIN_STATUS_CHANGE"], scheduled: [], accepted: true })
  })
  it("three consecutive incorrect entries move the PIN to BLOCKED (the third fires CARD.PIN_STATUS_CHANGE)", () => {
    const one = apply(set, { type: "PIN_ENTERED", correct: false })
    const two = apply(one.state, { type: "PIN_ENTERED", correct: false })
    const three = apply(two.state, { type: "PIN_ENTERED", correct: false })
    expect([one.events, two.events, three.events]).toEqual([[], [], ["CARD.PIN_STATUS_CHANGE"]])
    expect(three.state).toEqual({ pinStatus: "BLOCKED", failures: MAX_PIN_FAILURES })
    expect(three.accepted).toBe(false)
  })
  it("a correct entry resets the count: incorrect entries must be consecutive", () => {
    let s = apply(set, { type: "PIN_ENTERED", correct: false }).state
    s = apply(s, { type: "PIN_ENTERED", correct: false }).state
    s = apply(s, { type: "PIN_ENTERED", correct: true }).state
    s = apply(s, { type: "PIN_ENTERED", correct: false }).state
    expect(s).toEqual({ pinStatus: "OK", failures: 1 })
  })
  it("a BLOCKED PIN refuses every entry, the correct one too", () => {
    const blocked: PinState = { pinStatus: "BLOCKED", failures: 3 }
    expect(apply(blocked, { type: "PIN_ENTERED", correct: true })).toEqual({ state: blocked, events: [], scheduled: [], accepted: false })
  })
  it("unblock clears a block without changing the PIN: BLOCKED -> OK", () => {
    expect(apply({ pinStatus: "BLOCKED", failures: 3 }, { type: "PIN_UNBLOCKED" })).toEqual({ state: set, events: ["CARD.PIN_STATUS_CHANGE"], scheduled: [], accepted: true })
  })
  it("unblock of a PIN that is not blocked: 409 INVALID_STATE_TRANSITION", () => {
    for (const s of [fresh, set]) {
      const r = transition(s, { type: "PIN_UNBLOCKED" })
      expect(r.ok ? "ok" : r.error.code).toBe("INVALID_STATE_TRANSITION")
    }
  })
  it("a new PIN replaces a blocked one: BLOCKED -> OK; over an OK PIN nothing is announced", () => {
    expect(apply({ pinStatus: "BLOCKED", failures: 3 }, { type: "PIN_SET" }).events).toEqual(["CARD.PIN_STATUS_CHANGE"])
    expect(apply({ pinStatus: "OK", failures: 2 }, { type: "PIN_SET" })).toEqual({ state: set, events: [], scheduled: [], accepted: true })
  })
  it("no PIN set: an entry cannot be checked (409)", () => {
    const r = transition(fresh, { type: "PIN_ENTERED", correct: true })
    expect(r.ok ? "ok" : r.error.code).toBe("INVALID_STATE_TRANSITION")
  })

  it("property: BLOCKED exactly after MAX consecutive failures since the last set/unblock; an event exactly when the status changes", () => {
    const eventArb: fc.Arbitrary<PinEvent> = fc.oneof(
      fc.constant<PinEvent>({ type: "PIN_SET" }),
      fc.constant<PinEvent>({ type: "PIN_UNBLOCKED" }),
      fc.boolean().map((correct): PinEvent => ({ type: "PIN_ENTERED", correct }))
    )
    fc.assert(
      fc.property(fc.array(eventArb, { maxLength: 40 }), (events) => {
        let state = fresh
        let run = 0
        for (const event of events) {
          const r = transition(state, event)
          if (!r.ok) {
            expect(event.type === "PIN_UNBLOCKED" || state.pinStatus === "NOT_SET").toBe(true)
            continue
          }
          if (event.type !== "PIN_ENTERED") run = 0
          else if (state.pinStatus === "OK") run = event.correct ? 0 : run + 1
          expect(r.value.events.length).toBe(r.value.state.pinStatus === state.pinStatus ? 0 : 1)
          state = r.value.state
          expect(state.pinStatus === "BLOCKED").toBe(run >= MAX_PIN_FAILURES)
        }
      }),
      { numRuns: numRuns(200) }
    )
  })
})
