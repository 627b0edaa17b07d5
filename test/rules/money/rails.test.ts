import { describe, expect, it } from "vitest"
import { ExternalAccountType, PaymentRail as DomainPaymentRail, paymentRailsOf } from "../../../src/domain/external-account.js"
import {
  ACH_SAME_DAY_CAP_CHANGE,
  achSameDayCap,
  achSameDayCapExceeded,
  defaultRailFor,
  holdUntilSettlement,
  isBusinessDay,
  nextBusinessDayStart,
  PAYMENT_RAILS,
  railAllowed,
  settlementAt
} from "../../../src/rules/money/rails.js"

// 2026-01-12 is a Monday.
const MON = Date.UTC(2026, 0, 12, 15, 30)
const FRI = Date.UTC(2026, 0, 16, 15, 30)
const SAT = Date.UTC(2026, 0, 17, 10, 0)
const SUN = Date.UTC(2026, 0, 18, 23, 59)
const day = (y: number, m: number, d: number) => Date.UTC(y, m, d)

describe("PAYMENT_RAILS", () => {
  it("is the reference enum plus ACH_SAME_DAY, the same set as the domain schema", () => {
    expect(PAYMENT_RAILS).toHaveLength(24)
    expect([...PAYMENT_RAILS].sort()).toEqual([...DomainPaymentRail.literals].sort())
  })
})

describe("defaultRailFor", () => {
  const rows: ReadonlyArray<[string, string, string | undefined]> = [
    ["USD_ACCOUNT", "USD", "ACH"],
    ["MXN_ACCOUNT", "MXN", "SPEI"],
    ["EUR_ACCOUNT", "EUR", "SEPA_INSTANT"],
    ["DKK_ACCOUNT", "DKK", "SEPA_INSTANT"],
    ["BRL_ACCOUNT", "BRL", "PIX"],
    ["GBP_ACCOUNT", "GBP", "FASTER_PAYMENTS"],
    ["INR_ACCOUNT", "INR", "UPI"],
    ["SGD_ACCOUNT", "SGD", "FAST"],
    ["KES_ACCOUNT", "KES", "MOBILE_MONEY"],
    ["NGN_ACCOUNT", "NGN", "BANK_TRANSFER"],
    ["CNY_ACCOUNT", "CNY", "BANK_TRANSFER"],
    ["SWIFT_ACCOUNT", "HKD", "SWIFT"],
    ["ETHEREUM_WALLET", "USDC", undefined],
    ["SPARK_WALLET", "BTC", undefined],
    ["LIGHTNING", "BTC", undefined],
    ["USD_ACCOUNT", "EUR", undefined],
    ["NOPE_ACCOUNT", "NOP", undefined]
  ]
  for (const [type, currency, rail] of rows) {
    it(`${type} in ${currency} -> ${rail ?? "no rail"}`, () => expect(defaultRailFor(type, currency)).toBe(rail))
  }
  it("every fiat account type has a default, one of the rails it lists, and never ACH_SAME_DAY", () => {
    for (const type of ExternalAccountType.literals) {
      const rails = paymentRailsOf(type)
      const currency = type === "SWIFT_ACCOUNT" ? "USD" : type.slice(0, 3)
      const rail = defaultRailFor(type, currency)
      if (rails === undefined) {
        expect(rail, type).toBeUndefined()
      } else {
        expect(rail, type).toBeDefined()
        expect(rails, type).toContain(rail)
        expect(rail).not.toBe("ACH_SAME_DAY")
      }
    }
  })
  it("INR follows the account's rail, vpa or account number", () => {
    expect(defaultRailFor("INR_ACCOUNT", "INR", { rail: "RTGS", accountNumber: "123456789" })).toBe("RTGS")
    expect(defaultRailFor("INR_ACCOUNT", "INR", { vpa: "ada@upi" })).toBe("UPI")
    expect(defaultRailFor("INR_ACCOUNT", "INR", { accountNumber: "123456789", ifsc: "HDFC0001234" })).toBe("NEFT")
  })
  it("a bank-or-mobile account with only a phone number uses MOBILE_MONEY", () => {
    expect(defaultRailFor("GHS_ACCOUNT", "GHS", { phoneNumber: "+233201234567" })).toBe("MOBILE_MONEY")
    expect(defaultRailFor("GHS_ACCOUNT", "GHS", { accountNumber: "1", phoneNumber: "+233201234567" })).toBe("BANK_TRANSFER")
  })
})

describe("railAllowed", () => {
  it("ACH_SAME_DAY only for USD accounts in USD", () => {
    expect(railAllowed("ACH_SAME_DAY", "USD_ACCOUNT", "USD")).toBe(true)
    expect(railAllowed("ACH_SAME_DAY", "EUR_ACCOUNT", "EUR")).toBe(false)
    expect(railAllowed("ACH_SAME_DAY", "SWIFT_ACCOUNT", "USD")).toBe(false)
    expect(railAllowed("ACH_SAME_DAY", "USD_ACCOUNT", "EUR")).toBe(false)
  })
  it("a rail the account lists is allowed; others and wallets are not", () => {
    expect(railAllowed("WIRE", "USD_ACCOUNT", "USD")).toBe(true)
    expect(railAllowed("SEPA", "EUR_ACCOUNT", "EUR")).toBe(true)
    expect(railAllowed("SPEI", "EUR_ACCOUNT", "EUR")).toBe(false)
    expect(railAllowed("SWIFT", "SWIFT_ACCOUNT", "EUR")).toBe(true)
    expect(railAllowed("ACH", "ETHEREUM_WALLET", "USDC")).toBe(false)
  })
})

describe("ACH same-day cap (SPEC.md Limits)", () => {
  it("is 1,000,000.00 USD before 2027-09-17 and 10,000,000.00 USD from it", () => {
    expect(ACH_SAME_DAY_CAP_CHANGE).toBe(day(2027, 8, 17))
    expect(achSameDayCap(ACH_SAME_DAY_CAP_CHANGE - 1)).toBe(100_000_000)
    expect(achSameDayCap(ACH_SAME_DAY_CAP_CHANGE)).toBe(1_000_000_000)
  })
  it("rejects above the cap, allows the cap itself", () => {
    expect(achSameDayCapExceeded(100_000_000, MON)).toBe(false)
    expect(achSameDayCapExceeded(100_000_001, MON)).toBe(true)
    expect(achSameDayCapExceeded(100_000_001, ACH_SAME_DAY_CAP_CHANGE)).toBe(false)
    expect(achSameDayCapExceeded(1_000_000_001, ACH_SAME_DAY_CAP_CHANGE)).toBe(true)
  })
})

describe("business days (Mon–Fri UTC, no holidays)", () => {
  it("weekdays are business days, weekends are not", () => {
    expect(isBusinessDay(MON)).toBe(true)
    expect(isBusinessDay(FRI)).toBe(true)
    expect(isBusinessDay(SAT)).toBe(false)
    expect(isBusinessDay(SUN)).toBe(false)
  })
  it("next business day start", () => {
    expect(nextBusinessDayStart(MON)).toBe(day(2026, 0, 13))
    expect(nextBusinessDayStart(FRI)).toBe(day(2026, 0, 19))
    expect(nextBusinessDayStart(SAT)).toBe(day(2026, 0, 19))
    expect(nextBusinessDayStart(SUN)).toBe(day(2026, 0, 19))
    expect(nextBusinessDayStart(day(2026, 0, 16))).toBe(day(2026, 0, 19))
  })
})

describe("settlementAt", () => {
  it("ACH: next business day in the sandbox, same business day in production", () => {
    expect(settlementAt("ACH", MON, true)).toBe(day(2026, 0, 13))
    expect(settlementAt("ACH", FRI, true)).toBe(day(2026, 0, 19))
    expect(settlementAt("ACH", MON, false)).toBe(MON)
    expect(settlementAt("ACH", SAT, false)).toBe(day(2026, 0, 19))
  })
  it("ACH_SAME_DAY: now on a business day, else next business day start", () => {
    expect(settlementAt("ACH_SAME_DAY", MON, true)).toBe(MON)
    expect(settlementAt("ACH_SAME_DAY", SAT, true)).toBe(day(2026, 0, 19))
  })
  it("instant rails settle now, any day", () => {
    for (const rail of ["RTP", "FEDNOW", "SEPA_INSTANT", "SPEI", "PIX", "FASTER_PAYMENTS", "UPI"] as const) {
      expect(settlementAt(rail, SUN, true)).toBe(SUN)
    }
  })
})

describe("holdUntilSettlement: the sandbox steps complete when the rail settles", () => {
  const steps = [
    { at: 1_000, move: { type: "PROCESS" } },
    { at: 2_000, move: { type: "COMPLETE" } },
    { at: 5_000, move: { type: "RETURN" } }
  ]
  it("moves a completion due before the settlement to it; later steps keep their spacing", () => {
    expect(holdUntilSettlement(steps, 10_000).map((s) => s.at)).toEqual([1_000, 10_000, 13_000])
  })
  it("leaves the steps alone when the completion is already at or after the settlement, or nothing settles later", () => {
    expect(holdUntilSettlement(steps, 2_000)).toEqual(steps)
    expect(holdUntilSettlement(steps, 1_500)).toEqual(steps)
    expect(holdUntilSettlement(steps, undefined)).toEqual(steps)
    expect(holdUntilSettlement([{ at: 1_000, move: { type: "FAIL" } }], 10_000)).toEqual([{ at: 1_000, move: { type: "FAIL" } }])
  })
  it("from a Saturday, an ACH payment completes at Monday's start (what expectedSettlementAt reports)", () => {
    const settlement = settlementAt("ACH", SAT, true)
    expect(settlement).toBe(Date.UTC(2026, 0, 19))
    const held = holdUntilSettlement([{ at: SAT + 3_600_000 + 500, move: { type: "COMPLETE" } }], settlement)
    expect(held[0]?.at).toBe(settlement)
  })
})
