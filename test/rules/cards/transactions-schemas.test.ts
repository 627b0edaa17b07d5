import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import {
  CardDeclinedReason,
  CardTransactionStatus,
  SandboxCardAuthorizationRequest,
  SandboxCardBalanceInquiryRequest,
  SandboxCardClearingRequest,
  SandboxCardReturnRequest,
  SandboxCardTransactionRefRequest
} from "../../../src/domain/card-transaction.js"
import { CARD_TRANSACTION_EVENTS } from "../../../src/rules/cards/transactions.js"
import { WebhookTypes } from "../../../src/domain/events.js"

const accepts = <S extends Schema.Top>(schema: S, u: unknown): boolean =>
  Schema.decodeUnknownExit(schema as unknown as Schema.Codec<unknown, unknown>)(u)._tag === "Success"

const merchant = { descriptor: "BLUE BOTTLE COFFEE SF", mcc: "5814", country: "US" }

describe("card transaction schemas", () => {
  it("statuses are SPEC.md's plus AUTHORIZED and PARTIALLY_SETTLED, without REFUNDED", () => {
    expect(CardTransactionStatus.literals).toEqual(["AUTHORIZED", "PARTIALLY_SETTLED", "SETTLED", "DECLINED", "VOIDED", "EXCEPTION"])
  })
  it("decline reasons are SPEC.md's", () => {
    expect(CardDeclinedReason.literals).toEqual(["CARD_NOT_ACTIVE", "SPEND_LIMIT_EXCEEDED", "INSUFFICIENT_FUNDS", "NO_ELIGIBLE_FUNDING_SOURCE", "BLOCKED", "UNSUPPORTED_NETWORK", "OTHER"])
  })
  it("every event the machine fires is a webhook type, and REFUNDED is none of them", () => {
    for (const e of CARD_TRANSACTION_EVENTS) expect(WebhookTypes as ReadonlyArray<string>).toContain(e)
    expect(CARD_TRANSACTION_EVENTS as ReadonlyArray<string>).not.toContain("CARD_TRANSACTION.REFUNDED")
  })
  it("an authorization needs a positive integer amount, a currency code and a merchant descriptor", () => {
    expect(accepts(SandboxCardAuthorizationRequest, { amount: 1250, currency: { code: "USD" }, merchant })).toBe(true)
    expect(accepts(SandboxCardAuthorizationRequest, { amount: 0, currency: { code: "USD" }, merchant })).toBe(false)
    expect(accepts(SandboxCardAuthorizationRequest, { amount: 1.5, currency: { code: "USD" }, merchant })).toBe(false)
    expect(accepts(SandboxCardAuthorizationRequest, { amount: 10, currency: { code: "usd" }, merchant })).toBe(false)
    expect(accepts(SandboxCardAuthorizationRequest, { amount: 10, currency: { code: "USD" }, merchant: { descriptor: "" } })).toBe(false)
    expect(accepts(SandboxCardAuthorizationRequest, { amount: 10, currency: { code: "USD" }, merchant: { descriptor: "X", mcc: "58" } })).toBe(false)
  })
  it("merchant city and state are optional (SPEC.md)", () => {
    expect(accepts(SandboxCardBalanceInquiryRequest, { merchant: { descriptor: "SHELL 1", city: "San Francisco", state: "CA" } })).toBe(true)
    expect(accepts(SandboxCardBalanceInquiryRequest, { merchant: { descriptor: "SHELL 1" } })).toBe(true)
  })
  it("a clearing of 0 is an expiry; a return needs a positive amount", () => {
    expect(accepts(SandboxCardClearingRequest, { cardTransactionId: "CardTransaction:x", amount: 0 })).toBe(true)
    expect(accepts(SandboxCardClearingRequest, { cardTransactionId: "CardTransaction:x", amount: -1 })).toBe(false)
    expect(accepts(SandboxCardReturnRequest, { cardTransactionId: "CardTransaction:x", amount: 0 })).toBe(false)
  })
  it("return_reversal takes cardTransactionId", () => {
    expect(accepts(SandboxCardTransactionRefRequest, { cardTransactionId: "CardTransaction:x" })).toBe(true)
    expect(accepts(SandboxCardTransactionRefRequest, {})).toBe(false)
  })
})
