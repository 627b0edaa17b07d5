/** The discovery catalogue (sandbox data): complete, well-formed, and in step with the account types' rails. */
import { describe, expect, it } from "vitest"
import { paymentRailsOf } from "../../../src/domain/external-account.js"
import { currencyOf } from "../../../src/domain/money.js"
import {
  currenciesWithoutDiscovery,
  DISCOVERIES,
  DISCOVERY_CATALOGUE,
  discoveriesFor,
  railsOf,
  WALLET_CURRENCIES
} from "../../../src/rules/money/discoveries.js"

describe("the discovery catalogue", () => {
  it("covers every fiat currency of the service's catalogue; the wallet currencies have no entry", () => {
    expect(currenciesWithoutDiscovery()).toEqual([])
    for (const code of WALLET_CURRENCIES) expect(discoveriesFor({ currency: code }), code).toEqual([])
  })

  it("every corridor: a known currency, an alpha-2 country, at least one institution, names unique in the corridor", () => {
    for (const c of DISCOVERY_CATALOGUE) {
      expect(currencyOf(c.currency), c.currency).toBeDefined()
      expect(c.country).toMatch(/^[A-Z]{2}$/)
      expect(c.institutions.length).toBeGreaterThan(0)
      expect(new Set(c.institutions.map((i) => i.bankName)).size).toBe(c.institutions.length)
    }
    const corridors = DISCOVERY_CATALOGUE.map((c) => `${c.country}/${c.currency}`)
    expect(new Set(corridors).size).toBe(corridors.length)
  })

  it("every entry's rails are its account type's, never empty", () => {
    for (const d of DISCOVERIES) {
      expect(d.paymentRails.length, d.bankName).toBeGreaterThan(0)
      for (const rail of d.paymentRails) expect(paymentRailsOf(`${d.currency}_ACCOUNT`)).toContain(rail)
    }
  })

  it("banks take the non-mobile rails, mobile-money providers MOBILE_MONEY", () => {
    expect(railsOf("COP", "BANK")).toEqual(["BANK_TRANSFER"])
    expect(railsOf("COP", "MOBILE_MONEY_PROVIDER")).toEqual(["MOBILE_MONEY"])
    expect(railsOf("KES", "MOBILE_MONEY_PROVIDER")).toEqual(["MOBILE_MONEY"])
    expect(railsOf("KES", "BANK")).toEqual(["MOBILE_MONEY"])
    expect(railsOf("USD", "BANK")).toEqual(paymentRailsOf("USD_ACCOUNT"))
  })

  it("filters by country, currency, both or neither", () => {
    expect(discoveriesFor({})).toEqual(DISCOVERIES)
    expect(discoveriesFor({ country: "PH" }).map((d) => d.bankName)).toEqual(["BDO Unibank", "BPI", "Metrobank"])
    expect(discoveriesFor({ currency: "EUR" }).every((d) => d.currency === "EUR")).toBe(true)
    expect(discoveriesFor({ country: "US", currency: "EUR" })).toEqual([])
    expect(discoveriesFor({ country: "ZZ" })).toEqual([])
  })
})
