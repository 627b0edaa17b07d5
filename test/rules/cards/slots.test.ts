/** Card slots (409 CARD_LIMIT_REACHED): the platform's live-card maximum and one card per cardholder. */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { CardStatus } from "../../../src/domain/card.js"
import { STATUS_OF_CODE } from "../../../src/operations/rejection.js"
import { holdsSlot, slotRefusal } from "../../../src/rules/cards/slots.js"
import { transition } from "../../../src/rules/cards/status.js"
import { numRuns } from "../../support/runs.js"

describe("slots", () => {
  it("below the maximum there is a slot", () => {
    expect(slotRefusal({ liveOnPlatform: 1, maxLiveCards: 2, oneCardPerCardholder: false })).toBeUndefined()
  })
  it("at the maximum: 409 CARD_LIMIT_REACHED", () => {
    const e = slotRefusal({ liveOnPlatform: 2, maxLiveCards: 2, oneCardPerCardholder: false })
    expect(e === undefined ? undefined : STATUS_OF_CODE.get(e.code)).toBe(409)
    expect([e?.code, e?.details?.["limit"]]).toEqual(["CARD_LIMIT_REACHED", "PLATFORM_LIVE_CARDS"])
  })
  it("a maximum of 0 issues nothing", () => {
    expect(slotRefusal({ liveOnPlatform: 0, maxLiveCards: 0, oneCardPerCardholder: false })?.code).toBe("CARD_LIMIT_REACHED")
  })
  it("one per cardholder: a cardholder with a live card gets none, others do", () => {
    expect(slotRefusal({ liveOnPlatform: 1, maxLiveCards: 10, liveForCardholder: 1, oneCardPerCardholder: true })?.details?.["limit"]).toBe("ONE_PER_CARDHOLDER")
    expect(slotRefusal({ liveOnPlatform: 1, maxLiveCards: 10, liveForCardholder: 0, oneCardPerCardholder: true })).toBeUndefined()
    expect(slotRefusal({ liveOnPlatform: 1, maxLiveCards: 10, liveForCardholder: 3, oneCardPerCardholder: false })).toBeUndefined()
  })
  it("ACTIVE and FROZEN hold a slot, CLOSED does not", () => {
    expect([holdsSlot("ACTIVE"), holdsSlot("FROZEN"), holdsSlot("CLOSED")]).toEqual([true, true, false])
  })

  it("property: issuing under the rule and moving cards by the machine never holds more live cards than the maximum", () => {
    type Step = { readonly kind: "issue"; readonly holder: number } | { readonly kind: "move"; readonly card: number; readonly to: CardStatus }
    const stepArb: fc.Arbitrary<Step> = fc.oneof(
      fc.record({ kind: fc.constant("issue" as const), holder: fc.integer({ min: 0, max: 2 }) }),
      fc.record({ kind: fc.constant("move" as const), card: fc.nat(20), to: fc.constantFrom<CardStatus>("ACTIVE", "FROZEN", "CLOSED") })
    )
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4 }), fc.boolean(), fc.array(stepArb, { maxLength: 40 }), (max, onePer, steps) => {
        const cards: Array<{ holder: number; status: CardStatus }> = []
        for (const step of steps) {
          if (step.kind === "issue") {
            const live = cards.filter((c) => holdsSlot(c.status))
            const refused = slotRefusal({
              liveOnPlatform: live.length,
              maxLiveCards: max,
              liveForCardholder: live.filter((c) => c.holder === step.holder).length,
              oneCardPerCardholder: onePer
            })
            if (refused === undefined) cards.push({ holder: step.holder, status: "ACTIVE" })
          } else {
            const card = cards[step.card % Math.max(cards.length, 1)]
            if (card === undefined) continue
            const r = transition(card.status, { type: "STATUS_UPDATE", to: step.to })
            if (r.ok) card.status = r.value.state
          }
          const live = cards.filter((c) => holdsSlot(c.status))
          expect(live.length).toBeLessThanOrEqual(max)
          if (onePer) for (const h of [0, 1, 2]) expect(live.filter((c) => c.holder === h).length).toBeLessThanOrEqual(1)
        }
      }),
      { numRuns: numRuns(200) }
    )
  })
})
