import { Exit } from "effect"
import { describe, expect, it } from "vitest"
import { CustomerExternalAccountCreateRequest } from "../../src/domain/external-account.js"
import { decodeRequest } from "../../src/domain/validation.js"

const decode = decodeRequest(CustomerExternalAccountCreateRequest)
const errorsOf = (input: unknown) => {
  const exit = decode(input)
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const reason = exit.cause.reasons[0]
  if (reason === undefined || reason._tag !== "Fail") throw new Error("expected a typed failure")
  expect(reason.error.code).toBe("INVALID_INPUT")
  return (reason.error.details as { errors: Array<{ field: string; constraint: string; message: string }> }).errors
}

describe("field errors", () => {
  it("lists every invalid field at once, with dot paths", () => {
    const errors = errorsOf({
      customerId: 1,
      currency: "usd",
      accountInfo: {
        accountType: "USD_ACCOUNT",
        accountNumber: "",
        routingNumber: "12",
        beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "A", birthDate: "1990-02-30" }
      },
      platformAccountId: "x".repeat(256)
    })
    expect(errors.map((e) => e.field).sort()).toEqual([
      "accountInfo.accountNumber",
      "accountInfo.bankAccountType",
      "accountInfo.beneficiary.birthDate",
      "accountInfo.routingNumber",
      "currency",
      "customerId",
      "platformAccountId"
    ])
    expect(errors.find((e) => e.field === "accountInfo.bankAccountType")?.constraint).toBe("required")
  })
  it("names the discriminator when accountType is unknown", () => {
    const errors = errorsOf({ customerId: "c", currency: "USD", accountInfo: { accountType: "MARS_ACCOUNT" } })
    expect(errors).toEqual([expect.objectContaining({ field: "accountInfo.accountType", constraint: "enum" })])
    expect(errors[0]!.message).toContain("USD_ACCOUNT")
  })
  it("names the discriminator when it is missing", () => {
    expect(errorsOf({ customerId: "c", currency: "USD", accountInfo: {} })[0]).toMatchObject({
      field: "accountInfo.accountType",
      constraint: "required"
    })
  })
  it("reports a body that is not an object", () => {
    expect(errorsOf([1, 2])[0]).toMatchObject({ field: "(body)", constraint: "type" })
  })
  it("accepts a valid request", () => {
    const exit = decode({
      customerId: "Customer:x",
      currency: "EUR",
      accountInfo: {
        accountType: "EUR_ACCOUNT",
        iban: "DE89370400440532013000",
        beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Ada", countryOfResidence: "DE" }
      }
    })
    expect(Exit.isSuccess(exit)).toBe(true)
  })
})
