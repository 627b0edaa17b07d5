/**
 * The card status machine, one `it` per row of SPEC.md's "Card status" table, the
 * PATCH request-shape rules, and properties over any sequence of updates.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { CardStatus, CardUpdateRequest } from "../../../src/domain/card.js"
import { STATUS_OF_CODE } from "../../../src/operations/rejection.js"
import { CARD_STATUS_TRANSITIONS, planUpdate, readUpdate, transition } from "../../../src/rules/cards/status.js"
import { numRuns } from "../../support/runs.js"

const STATUSES: ReadonlyArray<CardStatus> = ["ACTIVE", "FROZEN", "CLOSED"]

const moved = (from: CardStatus, to: CardStatus) => {
  const r = transition(from, { type: "STATUS_UPDATE", to })
  if (!r.ok) throw new Error(`refused: ${r.error.code}`)
  return r.value
}
const refusal = (from: CardStatus, event: Parameters<typeof transition>[1]) => {
  const r = transition(from, event)
  if (r.ok) throw new Error(`allowed: ${from} -> ${r.value.state}`)
  return r.error
}

describe("card status (SPEC.md table)", () => {
  it("ACTIVE + status update -> FROZEN, CARD.STATE_CHANGE", () => {
    expect(moved("ACTIVE", "FROZEN")).toEqual({ state: "FROZEN", events: ["CARD.STATE_CHANGE"], scheduled: [], freesSlot: false })
  })
  it("FROZEN + status update -> ACTIVE, CARD.STATE_CHANGE", () => {
    expect(moved("FROZEN", "ACTIVE")).toEqual({ state: "ACTIVE", events: ["CARD.STATE_CHANGE"], scheduled: [], freesSlot: false })
  })
  it("ACTIVE + status update to CLOSED -> CLOSED, frees a card slot", () => {
    expect(moved("ACTIVE", "CLOSED")).toEqual({ state: "CLOSED", events: ["CARD.STATE_CHANGE"], scheduled: [], freesSlot: true })
  })
  it("FROZEN + status update to CLOSED -> CLOSED, frees a card slot", () => {
    expect(moved("FROZEN", "CLOSED")).toEqual({ state: "CLOSED", events: ["CARD.STATE_CHANGE"], scheduled: [], freesSlot: true })
  })
  it("CLOSED + status update to CLOSED -> 409 CARD_ALREADY_CLOSED", () => {
    const e = refusal("CLOSED", { type: "STATUS_UPDATE", to: "CLOSED" })
    expect(STATUS_OF_CODE.get(e.code)).toBe(409)
    expect(e.code).toBe("CARD_ALREADY_CLOSED")
  })
  it("CLOSED + any mutation -> 409 CARD_NOT_MUTABLE", () => {
    expect(refusal("CLOSED", { type: "STATUS_UPDATE", to: "ACTIVE" }).code).toBe("CARD_NOT_MUTABLE")
    expect(refusal("CLOSED", { type: "STATUS_UPDATE", to: "FROZEN" }).code).toBe("CARD_NOT_MUTABLE")
    expect(refusal("CLOSED", { type: "MUTATION" }).code).toBe("CARD_NOT_MUTABLE")
  })
  it("any + a move not listed above -> 409 INVALID_STATE_TRANSITION (to the status it has)", () => {
    expect(refusal("ACTIVE", { type: "STATUS_UPDATE", to: "ACTIVE" }).code).toBe("INVALID_STATE_TRANSITION")
    expect(refusal("FROZEN", { type: "STATUS_UPDATE", to: "FROZEN" }).code).toBe("INVALID_STATE_TRANSITION")
  })
  it("a mutation of a live card keeps its status and emits nothing", () => {
    expect(transition("ACTIVE", { type: "MUTATION" })).toEqual({ ok: true, value: { state: "ACTIVE", events: [], scheduled: [], freesSlot: false } })
    expect(transition("FROZEN", { type: "MUTATION" })).toEqual({ ok: true, value: { state: "FROZEN", events: [], scheduled: [], freesSlot: false } })
  })
  it("the table lists exactly the reference's moves: ACTIVE ⇄ FROZEN, ACTIVE | FROZEN -> CLOSED", () => {
    expect(CARD_STATUS_TRANSITIONS).toEqual({ ACTIVE: ["FROZEN", "CLOSED"], FROZEN: ["ACTIVE", "CLOSED"], CLOSED: [] })
  })
})

describe("PATCH request shape (400 INVALID_INPUT)", () => {
  const code = (req: CardUpdateRequest) => {
    const r = readUpdate(req)
    return r.ok ? "ok" : r.error.code
  }
  it("needs at least one field", () => {
    expect(code({})).toBe("INVALID_INPUT")
    expect(code({ maxSpendPerTransaction: null })).toBe("ok")
  })
  it("state and status are one field: both sent must agree", () => {
    expect(code({ state: "FROZEN", status: "FROZEN" })).toBe("ok")
    expect(code({ state: "FROZEN", status: "ACTIVE" })).toBe("INVALID_INPUT")
    const r = readUpdate({ status: "FROZEN" })
    expect(r.ok && r.value.to).toBe("FROZEN")
  })
  it("CLOSED is not combined with fundingSources or maxSpendPerTransaction, naming each", () => {
    const r = readUpdate({ state: "CLOSED", fundingSources: ["a"], maxSpendPerTransaction: null })
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.error.details?.["errors"]).toMatchObject([{ field: "fundingSources" }, { field: "maxSpendPerTransaction" }])
    expect(code({ status: "CLOSED", fundingSources: ["a"] })).toBe("INVALID_INPUT")
    expect(code({ state: "FROZEN", fundingSources: ["a"], maxSpendPerTransaction: 5 })).toBe("ok")
  })
  it("the shape is checked before the card's status: a closed card with a bad body is a 400", () => {
    const r = planUpdate("CLOSED", { state: "CLOSED", fundingSources: ["a"] })
    expect(r.ok ? "ok" : r.error.code).toBe("INVALID_INPUT")
  })
})

// ---------------------------------------------------------------- properties

const requestArb: fc.Arbitrary<CardUpdateRequest> = fc.record({
  state: fc.constantFrom(...STATUSES),
  status: fc.constantFrom(...STATUSES),
  fundingSources: fc.constant(["InternalAccount:1"]),
  maxSpendPerTransaction: fc.option(fc.integer({ min: 1, max: 10_000 }), { nil: null })
}, { requiredKeys: [] })

describe("card status properties", () => {
  it("over any sequence of updates: CLOSED is terminal, a refused update changes nothing, a status change emits exactly one event", () => {
    fc.assert(
      fc.property(fc.array(requestArb, { maxLength: 30 }), (requests) => {
        let status: CardStatus = "ACTIVE"
        let closings = 0
        for (const req of requests) {
          const before: CardStatus = status
          const r = planUpdate(status, req)
          if (!r.ok) {
            // 409s only from the machine, 400s only from the shape.
            expect(STATUS_OF_CODE.get(r.error.code) === 409).toBe(readUpdate(req).ok)
            continue
          }
          status = r.value.moved.state
          expect(before).not.toBe("CLOSED")
          expect(r.value.moved.events.length).toBe(status === before ? 0 : 1)
          if (r.value.moved.freesSlot) {
            closings++
            expect(status).toBe("CLOSED")
          }
        }
        expect(closings).toBeLessThanOrEqual(1)
      }),
      { numRuns: numRuns(200) }
    )
  })

  it("every (status, requested status) pair is allowed exactly when the table lists it", () => {
    fc.assert(
      fc.property(fc.constantFrom(...STATUSES), fc.constantFrom(...STATUSES), (from, to) => {
        const r = transition(from, { type: "STATUS_UPDATE", to })
        expect(r.ok).toBe(CARD_STATUS_TRANSITIONS[from].includes(to))
        if (!r.ok) {
          const expected = from === "CLOSED" ? (to === "CLOSED" ? "CARD_ALREADY_CLOSED" : "CARD_NOT_MUTABLE") : "INVALID_STATE_TRANSITION"
          expect(r.error.code).toBe(expected)
        }
      }),
      { numRuns: numRuns(50) }
    )
  })
})
