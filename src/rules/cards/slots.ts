/**
 * Card slots (SPEC.md "Limits"): a platform holds at most its live-card maximum of live
 * (not CLOSED) cards, and where one card per cardholder applies a cardholder holds at
 * most one live card; otherwise issuing is 409 CARD_LIMIT_REACHED. Closing a card frees
 * its slot (a FROZEN card still holds one).
 */
import type { CardStatus } from "../../domain/card.js"
import { reject, type Rejection } from "../rejection.js"

/** Whether a card in this status holds a slot. */
export const holdsSlot = (status: CardStatus): boolean => status !== "CLOSED"

/** The rejection issuing one more card meets, or undefined when there is a slot. */
export const slotRefusal = (input: {
  readonly liveOnPlatform: number
  readonly maxLiveCards: number
  /** Live cards of the cardholder (read only where one per cardholder applies). */
  readonly liveForCardholder?: number | undefined
  readonly oneCardPerCardholder: boolean
}): Rejection<"CARD_LIMIT_REACHED"> | undefined => {
  if (input.liveOnPlatform >= input.maxLiveCards) {
    return reject("CARD_LIMIT_REACHED", `The platform holds its maximum of ${input.maxLiveCards} live cards; close a card to free a slot`, {
      limit: "PLATFORM_LIVE_CARDS",
      maxLiveCards: input.maxLiveCards,
      liveCards: input.liveOnPlatform
    })
  }
  if (input.oneCardPerCardholder && (input.liveForCardholder ?? 0) >= 1) {
    return reject("CARD_LIMIT_REACHED", "The cardholder already holds a live card and this platform allows one per cardholder; close it to issue another", {
      limit: "ONE_PER_CARDHOLDER",
      liveCards: input.liveForCardholder
    })
  }
  return undefined
}
