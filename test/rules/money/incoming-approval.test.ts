/** The approval mechanism's rules, one `it` per row of docs/webhooks.md#approving-incoming-payments. */
import { describe, expect, it } from "vitest"
import { approvalAnswerOf, approvalMechanismApplies, isApprovalAnswerStatus } from "../../../src/rules/money/incoming-approval.js"

describe("which incoming payments wait for the platform", () => {
  it("UMA payments do", () => expect(approvalMechanismApplies({ sourceType: "UMA_ADDRESS", umaAddress: "$a@b.c" })).toBe(true))
  it("bank rails (SWIFT), on-chain deposits and account transfers only inform", () => {
    expect(approvalMechanismApplies({ sourceType: "REALTIME_FUNDING", currency: "USD", paymentRail: "SWIFT" })).toBe(false)
    expect(approvalMechanismApplies({ sourceType: "REALTIME_FUNDING", currency: "USDC", onChainTransaction: { transactionHash: "0x1", network: "SOLANA" } })).toBe(false)
    expect(approvalMechanismApplies({ sourceType: "ACCOUNT", accountId: "ExternalAccount:1" })).toBe(false)
    expect(approvalMechanismApplies(undefined)).toBe(false)
  })
})

describe("what an answer to INCOMING_PAYMENT.PENDING decides", () => {
  it("200 (and 201, 204, 409) approves, with receiverCustomerInfo when given", () => {
    expect(approvalAnswerOf(200, "")).toEqual({ kind: "APPROVE" })
    expect(approvalAnswerOf(204, "")).toEqual({ kind: "APPROVE" })
    expect(approvalAnswerOf(409, "{\"code\":\"DUPLICATE\"}")).toEqual({ kind: "APPROVE" })
    expect(approvalAnswerOf(200, JSON.stringify({ receiverCustomerInfo: { NATIONALITY: "FR" } }))).toEqual({ kind: "APPROVE", receiverCustomerInfo: { NATIONALITY: "FR" } })
  })
  it("403 rejects, with the body's reason when given", () => {
    expect(approvalAnswerOf(403, JSON.stringify({ code: "X", message: "no", reason: "RESTRICTED_JURISDICTION" }))).toEqual({ kind: "REJECT", reason: "RESTRICTED_JURISDICTION" })
    expect(approvalAnswerOf(403, "not json")).toEqual({ kind: "REJECT" })
  })
  it("422 asks for requiredFields", () => {
    expect(approvalAnswerOf(422, JSON.stringify({ requiredFields: ["TAX_ID"] }))).toEqual({ kind: "INFORMATION_REQUIRED", requiredFields: ["TAX_ID"] })
    expect(approvalAnswerOf(422, "")).toEqual({ kind: "INFORMATION_REQUIRED", requiredFields: [] })
  })
  it("202 defers", () => expect(approvalAnswerOf(202, "")).toEqual({ kind: "DEFER" }))
  it("anything else decides nothing (retried)", () => {
    for (const status of [301, 400, 401, 404, 500, 503]) expect(approvalAnswerOf(status, ""), String(status)).toEqual({ kind: "NONE" })
  })
  it("403 and 422 end the delivery; other non-2xx do not", () => {
    expect(isApprovalAnswerStatus(403)).toBe(true)
    expect(isApprovalAnswerStatus(422)).toBe(true)
    expect(isApprovalAnswerStatus(400)).toBe(false)
  })
})
