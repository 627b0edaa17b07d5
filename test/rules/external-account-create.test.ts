import { describe, expect, it } from "vitest"
import type { PlatformSettings } from "../../src/domain/platform.js"
import { equivalenceKey, planExternalAccountCreate, usability } from "../../src/rules/external-account-create.js"

const sandbox: PlatformSettings = { regulated: false, skipVerificationPaperwork: false, travelRule: false, sandbox: true }
const travelRule: PlatformSettings = { ...sandbox, travelRule: true }
const production: PlatformSettings = { ...sandbox, sandbox: false }

const usd = (accountNumber: string, routingNumber = "021000021") => ({
  currency: "USD",
  accountInfo: {
    accountType: "USD_ACCOUNT",
    accountNumber,
    routingNumber,
    bankAccountType: "CHECKING",
    beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Ada Lovelace" }
  }
})
const wallet = (ownershipType?: "FIRST_PARTY" | "THIRD_PARTY", beneficiary?: unknown) => ({
  currency: "USDC",
  ownershipType,
  accountInfo: {
    accountType: "ETHEREUM_WALLET",
    address: "0x52908400098527886E0F7030069857D2E4169EE7",
    ...(beneficiary === undefined ? {} : { beneficiary })
  }
})

const plan = (input: Parameters<typeof planExternalAccountCreate>[0], settings = sandbox) =>
  planExternalAccountCreate(input, "Customer:1", settings)

describe("planExternalAccountCreate", () => {
  it("a plain account starts ACTIVE with a MATCHED name check and the rail's verified name", () => {
    const r = plan(usd("123456789"))
    expect(r).toMatchObject({
      ok: true,
      value: { status: "ACTIVE", beneficiaryVerificationStatus: "MATCHED", beneficiaryVerifiedData: { fullName: "Ada Lovelace" } }
    })
  })
  it("a partial match returns the name the rail holds", () => {
    const r = plan(usd("123456103"))
    expect(r).toMatchObject({ ok: true, value: { beneficiaryVerificationStatus: "PARTIAL_MATCH", beneficiaryVerifiedData: { fullName: "Ada L." } } })
  })
  it("a non-match returns no verified name", () => {
    const r = plan(usd("123456102"))
    expect(r.ok && r.value.beneficiaryVerifiedData).toBe(undefined)
  })
  it("suffix 105 is rejected with 400 INVALID_BANK_ACCOUNT", () => {
    const r = plan(usd("123456105"))
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.error.code).toBe("INVALID_BANK_ACCOUNT")
  })
  it("production platforms get no sandbox magic", () => {
    const r = plan(usd("123456105"), production)
    expect(r.ok).toBe(true)
    if (r.ok) expect(r.value.beneficiaryVerificationStatus).toBe(undefined)
  })
  it("the currency must be the account type's currency", () => {
    const r = plan({ ...usd("1"), currency: "EUR" })
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.error.details).toEqual({ errors: [expect.objectContaining({ field: "currency" })] })
  })
  it("routing ...901 waits in micro-entry validation (PENDING) and then validates", () => {
    expect(plan(usd("123456789", "021000901"))).toMatchObject({
      ok: true,
      value: { status: "PENDING", bankValidation: { outcome: "validated", afterDays: 3 } }
    })
  })
  it("routing ...902 waits in micro-entry validation and then fails", () => {
    expect(plan(usd("123456789", "021000902"))).toMatchObject({ ok: true, value: { bankValidation: { outcome: "failed" } } })
  })
  describe("Travel Rule platforms", () => {
    it("a self-custody wallet without ownershipType is refused", () => {
      const r = plan(wallet(), travelRule)
      expect(r.ok).toBe(false)
      if (!r.ok) expect(JSON.stringify(r.error.details)).toContain("ownershipType")
    })
    it("a FIRST_PARTY wallet starts PENDING_OWNERSHIP_VERIFICATION", () => {
      expect(plan(wallet("FIRST_PARTY"), travelRule)).toMatchObject({ ok: true, value: { status: "PENDING_OWNERSHIP_VERIFICATION" } })
    })
    it("a THIRD_PARTY wallet needs a beneficiary", () => {
      const r = plan(wallet("THIRD_PARTY"), travelRule)
      expect(r.ok).toBe(false)
      if (!r.ok) expect(JSON.stringify(r.error.details)).toContain("accountInfo.beneficiary")
    })
    it("a THIRD_PARTY wallet with a beneficiary starts ACTIVE", () => {
      const ben = { beneficiaryType: "INDIVIDUAL", fullName: "Bob", countryOfResidence: "DE" }
      expect(plan(wallet("THIRD_PARTY", ben), travelRule)).toMatchObject({ ok: true, value: { status: "ACTIVE" } })
    })
    it("off Travel Rule platforms a FIRST_PARTY wallet starts ACTIVE", () => {
      expect(plan(wallet("FIRST_PARTY"), sandbox)).toMatchObject({ ok: true, value: { status: "ACTIVE" } })
    })
  })
})

describe("equivalence", () => {
  const info = (accountNumber: string, routingNumber = "021000021") => ({ accountType: "USD_ACCOUNT", accountNumber, routingNumber })
  it("ignores names, case and spacing", () => {
    expect(equivalenceKey("o", "USD", info("12 34"))).toBe(equivalenceKey("o", "USD", info("1234")))
    expect(equivalenceKey("o", "EUR", { accountType: "EUR_ACCOUNT", iban: "de89 3704" }))
      .toBe(equivalenceKey("o", "EUR", { accountType: "EUR_ACCOUNT", iban: "DE893704" }))
  })
  it("differs by owner, currency, routing number and identifier", () => {
    const base = equivalenceKey("o", "USD", info("1234"))
    expect(equivalenceKey("p", "USD", info("1234"))).not.toBe(base)
    expect(equivalenceKey("o", "USD", info("1235"))).not.toBe(base)
    expect(equivalenceKey("o", "USD", info("1234", "011000015"))).not.toBe(base)
  })
})

describe("usability (for payments)", () => {
  it("validation pending -> 409 BANK_ACCOUNT_VALIDATION_PENDING", () => {
    const r = usability({ status: "PENDING", bankValidationPending: true })
    expect(!r.ok && r.error.code).toBe("BANK_ACCOUNT_VALIDATION_PENDING")
  })
  it("validation failed -> 400 INVALID_BANK_ACCOUNT", () => {
    const r = usability({ status: "INACTIVE", bankValidationFailed: true })
    expect(!r.ok && r.error.code).toBe("INVALID_BANK_ACCOUNT")
  })
  it("an active account is usable", () => expect(usability({ status: "ACTIVE" }).ok).toBe(true))
})
