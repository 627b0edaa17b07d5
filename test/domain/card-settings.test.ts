/** The platforms file's `cards` settings (docs/configuration.md): defaults, values, refusals. */
import { Exit, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { cardSettingsOf, DEFAULT_CARD_SETTINGS, PaymentsConfig, platformFromConfig } from "../../src/domain/platform.js"

const entry = (extra: Record<string, unknown> = {}) => ({ id: "p", clientId: "c", clientSecret: "secret-123", ...extra })
const decode = (extra: Record<string, unknown>) => Schema.decodeUnknownExit(PaymentsConfig)({ platforms: [entry(extra)] })

describe("cards settings of a platform", () => {
  it("default: USD and USDC (the embedded-wallet currency) are card-eligible, 10,000 live cards, several per cardholder", () => {
    expect(DEFAULT_CARD_SETTINGS).toEqual({ enabled: true, eligibleCurrencies: ["USD", "USDC"], maxLiveCards: 10_000, oneCardPerCardholder: false })
    expect(cardSettingsOf(platformFromConfig(entry()))).toEqual(DEFAULT_CARD_SETTINGS)
  })

  it("a platform's own values, each optional (duplicates dropped)", () => {
    const decoded = decode({ cards: { eligibleCurrencies: ["EUR", "EUR", "USD"], maxLiveCards: 2, oneCardPerCardholder: true } })
    expect(Exit.isSuccess(decoded)).toBe(true)
    if (Exit.isSuccess(decoded)) {
      expect(cardSettingsOf(platformFromConfig(decoded.value.platforms[0]!))).toEqual({ enabled: true, eligibleCurrencies: ["EUR", "USD"], maxLiveCards: 2, oneCardPerCardholder: true })
    expect(cardSettingsOf(platformFromConfig(entry({ cards: { enabled: false } }))).enabled).toBe(false)
    }
    expect(cardSettingsOf(platformFromConfig(entry({ cards: { maxLiveCards: 0 } })))).toEqual({ ...DEFAULT_CARD_SETTINGS, maxLiveCards: 0 })
  })

  it("refuses an unknown currency, an empty list, a negative or fractional maximum", () => {
    for (const cards of [{ eligibleCurrencies: ["XXX"] }, { eligibleCurrencies: [] }, { maxLiveCards: -1 }, { maxLiveCards: 1.5 }, { oneCardPerCardholder: "yes" }]) {
      expect(Exit.isFailure(decode({ cards })), JSON.stringify(cards)).toBe(true)
    }
  })
})
