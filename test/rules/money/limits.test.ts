import { describe, expect, it } from "vitest"
import { CURRENCIES } from "../../../src/domain/money.js"
import {
  DEFAULT_DAILY_VOLUME_LIMIT,
  DEFAULT_SINGLE_TRANSACTION_LIMITS,
  dailyVolumeLimitExceeded,
  dailyWindowEnd,
  dailyWindowStart,
  OWNERSHIP_VERIFICATION_THRESHOLD_USD,
  requiresOwnershipVerification,
  singleTransactionLimit,
  singleTransactionLimitExceeded
} from "../../../src/rules/money/limits.js"

describe("single-transaction limit", () => {
  it("defaults to 1,000,000.00 USD, carried to every currency by the base rates", () => {
    expect(DEFAULT_SINGLE_TRANSACTION_LIMITS["USD"]).toBe(100_000_000)
    expect(DEFAULT_SINGLE_TRANSACTION_LIMITS["EUR"]).toBe(92_000_000)
    expect(DEFAULT_SINGLE_TRANSACTION_LIMITS["BTC"]).toBe(1_050_000_000)
    expect(DEFAULT_SINGLE_TRANSACTION_LIMITS["VND"]).toBe(24_500_000_000)
    for (const code of Object.keys(CURRENCIES)) expect(Number.isSafeInteger(DEFAULT_SINGLE_TRANSACTION_LIMITS[code])).toBe(true)
  })
  it("corridor config beats currency config beats the default", () => {
    const configured = { byCorridor: { "USD->MXN": 500 }, byCurrency: { USD: 1_000 } }
    expect(singleTransactionLimit("USD", "MXN", configured)).toBe(500)
    expect(singleTransactionLimit("USD", "EUR", configured)).toBe(1_000)
    expect(singleTransactionLimit("USD", "EUR")).toBe(100_000_000)
    expect(singleTransactionLimit("XYZ", "EUR")).toBeUndefined()
  })
  it("the limit itself is allowed; one unit more is not", () => {
    expect(singleTransactionLimitExceeded({ amount: 100_000_000, sendingCurrency: "USD", receivingCurrency: "EUR" })).toBe(false)
    expect(singleTransactionLimitExceeded({ amount: 100_000_001, sendingCurrency: "USD", receivingCurrency: "EUR" })).toBe(true)
  })
})

describe("daily volume", () => {
  it("window is the platform-clock UTC day", () => {
    const now = Date.UTC(2026, 4, 5, 17, 45)
    expect(dailyWindowStart(now)).toBe(Date.UTC(2026, 4, 5))
    expect(dailyWindowEnd(now)).toBe(Date.UTC(2026, 4, 6))
  })
  it("defaults to 5,000,000.00 USD per customer and sending currency", () => {
    expect(DEFAULT_DAILY_VOLUME_LIMIT["USD"]).toBe(500_000_000)
    expect(dailyVolumeLimitExceeded({ sentInWindow: 400_000_000, amount: 100_000_000, sendingCurrency: "USD" })).toBe(false)
    expect(dailyVolumeLimitExceeded({ sentInWindow: 400_000_000, amount: 100_000_001, sendingCurrency: "USD" })).toBe(true)
    expect(dailyVolumeLimitExceeded({ sentInWindow: 0, amount: 2_000, sendingCurrency: "USD", configured: { USD: 1_000 } })).toBe(true)
  })
})

describe("ownership verification threshold", () => {
  it("1,000.00 USD; below it no verification, at or above it verification", () => {
    expect(OWNERSHIP_VERIFICATION_THRESHOLD_USD).toBe(100_000)
    expect(requiresOwnershipVerification(99_999, "USD")).toBe(false)
    expect(requiresOwnershipVerification(100_000, "USD")).toBe(true)
  })
  it("converts by the base rates for other currencies", () => {
    expect(requiresOwnershipVerification(91_999, "EUR")).toBe(false)
    expect(requiresOwnershipVerification(92_000, "EUR")).toBe(true)
    expect(requiresOwnershipVerification(999_999_999, "USDC")).toBe(false)
    expect(requiresOwnershipVerification(1_000_000_000, "USDC")).toBe(true)
    expect(requiresOwnershipVerification(1, "XYZ")).toBe(true)
  })
})
