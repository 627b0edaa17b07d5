import { describe, expect, it } from "vitest"
import {
  beneficiaryNameCheck,
  identifierSuffix,
  microEntryValidation,
  primaryIdentifier,
  transferOutcome
} from "../../../src/rules/sandbox/identifiers.js"

describe("primary identifier", () => {
  const cases: ReadonlyArray<[string, Record<string, unknown>, string]> = [
    ["USD_ACCOUNT", { accountNumber: "123", routingNumber: "021000021" }, "123"],
    ["EUR_ACCOUNT", { iban: "DE89370400440532013000" }, "DE89370400440532013000"],
    ["AED_ACCOUNT", { iban: "AE070331234567890123456" }, "AE070331234567890123456"],
    ["MXN_ACCOUNT", { clabeNumber: "032180000118359719" }, "032180000118359719"],
    ["BRL_ACCOUNT", { pixKey: "ada@example.com" }, "ada@example.com"],
    ["KES_ACCOUNT", { phoneNumber: "+254712345678" }, "+254712345678"],
    ["BDT_ACCOUNT", { phoneNumber: "+8801712345678" }, "+8801712345678"],
    ["BDT_ACCOUNT", { accountNumber: "999", phoneNumber: "+8801712345678" }, "999"],
    ["INR_ACCOUNT", { vpa: "ada102@upi" }, "ada102@upi"],
    ["SWIFT_ACCOUNT", { iban: "GB29NWBK60161331926819" }, "GB29NWBK60161331926819"],
    ["ETHEREUM_WALLET", { address: "0xabc" }, "0xabc"],
    ["ARBITRUM_WALLET", { address: "0xdef" }, "0xdef"],
    ["LIGHTNING", { lightningAddress: "ada104@wallet.example" }, "ada104@wallet.example"],
    ["GBP_ACCOUNT", { sortCode: "040004", accountNumber: "12345678" }, "12345678"]
  ]
  for (const [accountType, fields, expected] of cases) {
    it(`${accountType} ${JSON.stringify(fields)} -> ${expected}`, () => {
      expect(primaryIdentifier({ accountType, ...fields })).toBe(expected)
    })
  }

  it("takes the suffix from the username part of identifiers with a domain", () => {
    expect(identifierSuffix("ada102@upi")).toBe("102")
    expect(identifierSuffix("GB29NWBK60161331926103")).toBe("103")
  })
})

describe("sandbox beneficiary name verification (SPEC.md table)", () => {
  it("102 -> NOT_MATCHED", () => expect(beneficiaryNameCheck("000102")).toEqual({ kind: "status", status: "NOT_MATCHED" }))
  it("103 -> PARTIAL_MATCH", () => expect(beneficiaryNameCheck("000103")).toEqual({ kind: "status", status: "PARTIAL_MATCH" }))
  it("104 -> PENDING", () => expect(beneficiaryNameCheck("000104")).toEqual({ kind: "status", status: "PENDING" }))
  it("105 -> 400 invalid account", () => expect(beneficiaryNameCheck("000105")).toEqual({ kind: "invalid-account" }))
  it("106 -> UNSUPPORTED", () => expect(beneficiaryNameCheck("000106")).toEqual({ kind: "status", status: "UNSUPPORTED" }))
  it("107 -> CHECKED_BY_RECEIVING_FI", () =>
    expect(beneficiaryNameCheck("000107")).toEqual({ kind: "status", status: "CHECKED_BY_RECEIVING_FI" }))
  it("any other -> MATCHED", () => {
    for (const id of ["000101", "000108", "000002", "123456789", "x"]) {
      expect(beneficiaryNameCheck(id)).toEqual({ kind: "status", status: "MATCHED" })
    }
  })
})

describe("sandbox transfer outcomes (SPEC.md table, for payments)", () => {
  it("002 -> insufficient funds", () => expect(transferOutcome("1002").kind).toBe("insufficient-funds"))
  it("003 -> account closed or invalid", () => expect(transferOutcome("1003").kind).toBe("account-closed-or-invalid"))
  it("004 -> bank rejects", () => expect(transferOutcome("1004").kind).toBe("bank-rejected"))
  it("005 -> pending about 30 s then fails", () =>
    expect(transferOutcome("1005")).toEqual({ kind: "pending-then-failed", afterSeconds: 30 }))
  it("any other -> success", () => expect(transferOutcome("1006").kind).toBe("success"))
  it("domain identifiers use the username part", () => expect(transferOutcome("ada002@bank").kind).toBe("insufficient-funds"))
})

describe("US micro-entry validation (our sandbox choice)", () => {
  it("routing ...901 -> pending, then validated", () =>
    expect(microEntryValidation("021000901")).toEqual({ kind: "pending", outcome: "validated", afterDays: 3 }))
  it("routing ...902 -> pending, then failed", () =>
    expect(microEntryValidation("021000902")).toEqual({ kind: "pending", outcome: "failed", afterDays: 3 }))
  it("any other routing number -> no validation", () => expect(microEntryValidation("021000021")).toEqual({ kind: "none" }))
})
