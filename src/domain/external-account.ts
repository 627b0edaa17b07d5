/**
 * External accounts: bank accounts and wallets registered to a customer or to the
 * platform. Field names and patterns per `accountType` come from the reference
 * OpenAPI file; SPEC.md's own rules (required `bankAccountType` on USD, date-typed
 * beneficiary `birthDate`, `platformAccountId` <= 255, the ILS/TRY/ARBITRUM types)
 * win where they speak. See docs/external-accounts.md.
 */
import { Schema } from "effect"
import {
  Address,
  CountryCode,
  CurrencyCode,
  DateString,
  IdText,
  MAX_EMAIL_LENGTH,
  MAX_ID_LENGTH,
  MAX_NAME_LENGTH,
  MAX_PHONE_LENGTH,
  maxChars,
  NamedLiterals,
  NamedStruct,
  NonEmptyTextUpTo,
  TextUpTo,
  Timestamps
} from "./common.js"
import { MAX_LIGHTNING_REQUEST_LENGTH } from "./limits.js"

// ---------------------------------------------------------------- enums

export const ExternalAccountStatus = NamedLiterals("ExternalAccountStatus", [
  "PENDING",
  "ACTIVE",
  "PENDING_OWNERSHIP_VERIFICATION",
  "UNVERIFIED",
  "UNDER_REVIEW",
  "INACTIVE"
])
export type ExternalAccountStatus = typeof ExternalAccountStatus.Type

export const OwnershipType = NamedLiterals("OwnershipType", ["FIRST_PARTY", "THIRD_PARTY"])
export type OwnershipType = typeof OwnershipType.Type

export const BeneficiaryVerificationStatus = NamedLiterals("BeneficiaryVerificationStatus", [
  "MATCHED",
  "PARTIAL_MATCH",
  "NOT_MATCHED",
  "UNSUPPORTED",
  "CHECKED_BY_RECEIVING_FI",
  "PENDING"
])
export type BeneficiaryVerificationStatus = typeof BeneficiaryVerificationStatus.Type

export const BankAccountType = NamedLiterals("BankAccountType", ["CHECKING", "SAVINGS"])

export const PaymentRail = NamedLiterals("PaymentRail", [
  "ACH",
  "ACH_SAME_DAY",
  "ACH_COLOMBIA",
  "BANK_TRANSFER",
  "BRE_B",
  "CIPS",
  "FAST",
  "FASTER_PAYMENTS",
  "FEDNOW",
  "INSTAPAY",
  "MOBILE_MONEY",
  "NEFT",
  "PAYNOW",
  "PESONET",
  "PIX",
  "RTGS",
  "RTP",
  "SEPA",
  "SEPA_INSTANT",
  "SPEI",
  "SWIFT",
  "UNIONPAY",
  "UPI",
  "WIRE"
])
export type PaymentRail = typeof PaymentRail.Type

// ---------------------------------------------------------------- field shapes

const str = (min: number, max: number) => Schema.String.check(Schema.isBetweenLength(min, max))
const pat = (regex: RegExp, example: string) =>
  Schema.String.check(Schema.isPattern(regex, { message: `must match ${regex.source} (for example ${example})` }))

const Fields = {
  accountNumber: str(1, 34),
  bankName: str(1, 255),
  provider: str(1, 255),
  swiftCode: pat(/^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/, "DEUTDEFF"),
  phone: pat(/^\+[0-9]{6,14}$/, "+233201234567"),
  branchCode5: pat(/^[0-9]{5}$/, "12345"),
  bankAccountType: BankAccountType
}

// ---------------------------------------------------------------- beneficiaries

// Beneficiary contact and identity fields are free text here (the reference gives them
// no format); each has a maximum all the same.
const Name = NonEmptyTextUpTo(MAX_NAME_LENGTH)
const ContactEmail = TextUpTo(MAX_EMAIL_LENGTH)
const ContactPhone = TextUpTo(MAX_PHONE_LENGTH)
const RegistrationNumber = TextUpTo(MAX_ID_LENGTH)

const individualBase = {
  beneficiaryType: Schema.Literal("INDIVIDUAL"),
  fullName: Name,
  birthDate: Schema.optionalKey(DateString),
  nationality: Schema.optionalKey(CountryCode),
  email: Schema.optionalKey(ContactEmail),
  phoneNumber: Schema.optionalKey(ContactPhone),
  countryOfResidence: Schema.optionalKey(CountryCode),
  address: Schema.optionalKey(Address)
}

export const IndividualBeneficiary = Schema.Struct(individualBase).annotate({ identifier: "IndividualBeneficiary" })
const IndividualBeneficiaryWithAddress = NamedStruct("IndividualBeneficiaryWithAddress", { ...individualBase, address: Address })
const IndividualBeneficiaryWithResidence = NamedStruct("IndividualBeneficiaryWithResidence", { ...individualBase, countryOfResidence: CountryCode })
const IndividualBeneficiaryGtq = NamedStruct("GtqBeneficiary", {
  ...individualBase,
  countryOfResidence: CountryCode,
  phoneNumber: NonEmptyTextUpTo(MAX_PHONE_LENGTH)
})
const IndividualBeneficiaryJmd = NamedStruct("JmdBeneficiary", { ...individualBase, address: Address, phoneNumber: NonEmptyTextUpTo(MAX_PHONE_LENGTH) })
const IndividualBeneficiaryCad = NamedStruct("CadBeneficiary", { ...individualBase, registrationNumber: Schema.optionalKey(RegistrationNumber) })
const IndividualBeneficiaryCop = NamedStruct("CopBeneficiary", {
  ...individualBase,
  documentType: Schema.optionalKey(Schema.Literals(["CC", "CE", "TI", "NIT", "PP"])),
  documentNumber: Schema.optionalKey(str(1, 50))
})

export const BusinessBeneficiary = NamedStruct("BusinessBeneficiary", {
  beneficiaryType: Schema.Literal("BUSINESS"),
  legalName: Name,
  registrationNumber: Schema.optionalKey(RegistrationNumber),
  taxId: Schema.optionalKey(TextUpTo(MAX_ID_LENGTH)),
  email: Schema.optionalKey(ContactEmail),
  phoneNumber: Schema.optionalKey(ContactPhone),
  countryOfResidence: Schema.optionalKey(CountryCode),
  address: Schema.optionalKey(Address)
})

const beneficiary = <I extends Schema.Top>(individual: I) => Schema.Union([individual, BusinessBeneficiary])

export const WalletIndividualBeneficiary = NamedStruct("WalletIndividualBeneficiary", {
  beneficiaryType: Schema.Literal("INDIVIDUAL"),
  fullName: Name,
  countryOfResidence: CountryCode
})
export const WalletBeneficiary = Schema.Union([WalletIndividualBeneficiary, BusinessBeneficiary])

const Beneficiary = beneficiary(IndividualBeneficiary)

// ---------------------------------------------------------------- account-info variants

const opt = Schema.optionalKey
const req = <S extends Schema.Top>(s: S) => s

/**
 * Fiat variants: one per currency. `rails` are the payment rails a response lists
 * for the variant (`paymentRails`).
 */
const fiat = <const T extends string, const F extends Schema.Struct.Fields>(
  accountType: T,
  fields: F,
  rails: ReadonlyArray<PaymentRail>,
  identifiedByOneOf?: readonly [string, string, ...Array<string>]
) => {
  const prefix = accountType.slice(0, accountType.indexOf("_"))
  const struct = Schema.Struct({ accountType: Schema.Literal(accountType), ...fields })
  const name = `${prefix.charAt(0)}${prefix.slice(1).toLowerCase()}`
  return {
    accountType,
    rails,
    /** The response form: the same fields plus the variant's `paymentRails`. */
    response: Schema.Struct({ accountType: Schema.Literal(accountType), ...fields, paymentRails: Schema.Array(PaymentRail) })
      .annotate({ identifier: `${name}ExternalAccountInfo` }),
    create: (identifiedByOneOf === undefined ? struct : struct.check(atLeastOneOf(identifiedByOneOf))).annotate({
      identifier: `${prefix.charAt(0)}${prefix.slice(1).toLowerCase()}ExternalAccountCreateInfo`
    })
  }
}

/** Rail-dependent variants must carry at least one identifier (the reference describes this in prose). */
const atLeastOneOf = (fields: ReadonlyArray<string>) =>
  Schema.makeFilter<object>(
    (value) =>
      fields.some((f) => (value as Record<string, unknown>)[f] !== undefined) ||
      { path: [fields[0]!], issue: `is required unless ${fields.slice(1).join(" or ")} is given (one of ${fields.join(", ")})` },
    { identifier: "atLeastOneOf" }
  )

const iban = (regex: RegExp, example: string) => pat(regex, example)

export const FiatVariants = [
  fiat("AED_ACCOUNT", {
    iban: iban(/^AE[0-9]{21}$/, "AE070331234567890123456"),
    swiftCode: opt(Fields.swiftCode),
    beneficiary: beneficiary(IndividualBeneficiaryWithAddress)
  }, ["BANK_TRANSFER"]),
  fiat("BDT_ACCOUNT", {
    accountNumber: opt(Fields.accountNumber),
    bankName: Fields.bankName,
    branchCode: opt(Fields.branchCode5),
    swiftCode: opt(Fields.swiftCode),
    phoneNumber: opt(Fields.phone),
    beneficiary: Beneficiary
  }, ["BANK_TRANSFER", "MOBILE_MONEY"], ["accountNumber", "phoneNumber"]),
  fiat("BRL_ACCOUNT", {
    pixKey: str(1, 77),
    pixKeyType: Schema.Literals(["CPF", "CNPJ", "EMAIL", "PHONE", "RANDOM"]),
    taxId: pat(/^[0-9]{11,14}$/, "12345678901"),
    beneficiary: Beneficiary
  }, ["PIX"]),
  fiat("BWP_ACCOUNT", { phoneNumber: Fields.phone, provider: Fields.provider, beneficiary: Beneficiary }, ["MOBILE_MONEY"]),
  fiat("CAD_ACCOUNT", {
    bankCode: pat(/^[0-9]{3}$/, "001"),
    branchCode: Fields.branchCode5,
    accountNumber: pat(/^[0-9]{7,12}$/, "1234567"),
    beneficiary: beneficiary(IndividualBeneficiaryCad)
  }, ["BANK_TRANSFER"]),
  fiat("CNY_ACCOUNT", {
    accountNumber: opt(Fields.accountNumber),
    bankName: Fields.bankName,
    phoneNumber: opt(Fields.phone),
    beneficiary: Beneficiary
  }, ["BANK_TRANSFER", "MOBILE_MONEY"], ["accountNumber", "phoneNumber"]),
  fiat("COP_ACCOUNT", {
    accountNumber: opt(Fields.accountNumber),
    bankAccountType: opt(Fields.bankAccountType),
    bankName: Fields.bankName,
    phoneNumber: opt(Fields.phone),
    beneficiary: beneficiary(IndividualBeneficiaryCop)
  }, ["BANK_TRANSFER", "MOBILE_MONEY"], ["accountNumber", "phoneNumber"]),
  fiat("DKK_ACCOUNT", {
    iban: iban(/^DK[0-9]{16}$/, "DK5000400440116243"),
    swiftCode: opt(Fields.swiftCode),
    beneficiary: Beneficiary
  }, ["SEPA", "SEPA_INSTANT"]),
  fiat("EGP_ACCOUNT", {
    iban: opt(iban(/^EG[0-9]{27}$/, "EG380019000500000000263180002")),
    bankName: Fields.bankName,
    phoneNumber: opt(Fields.phone),
    beneficiary: Beneficiary
  }, ["BANK_TRANSFER", "MOBILE_MONEY"], ["iban", "phoneNumber"]),
  fiat("EUR_ACCOUNT", {
    iban: iban(/^[A-Z]{2}[0-9]{2}[A-Za-z0-9]{11,30}$/, "DE89370400440532013000"),
    swiftCode: opt(Fields.swiftCode),
    beneficiary: beneficiary(IndividualBeneficiaryWithResidence)
  }, ["SEPA", "SEPA_INSTANT"]),
  fiat("GBP_ACCOUNT", {
    sortCode: pat(/^[0-9]{6}$/, "040004"),
    accountNumber: pat(/^[0-9]{8}$/, "12345678"),
    beneficiary: Beneficiary
  }, ["FASTER_PAYMENTS"]),
  fiat("GHS_ACCOUNT", {
    accountNumber: opt(Fields.accountNumber),
    bankName: Fields.bankName,
    phoneNumber: opt(Fields.phone),
    beneficiary: Beneficiary
  }, ["BANK_TRANSFER", "MOBILE_MONEY"], ["accountNumber", "phoneNumber"]),
  fiat("GTQ_ACCOUNT", {
    accountNumber: Fields.accountNumber,
    bankAccountType: Fields.bankAccountType,
    bankName: Fields.bankName,
    beneficiary: beneficiary(IndividualBeneficiaryGtq)
  }, ["BANK_TRANSFER"]),
  fiat("HKD_ACCOUNT", {
    bankName: Fields.bankName,
    accountNumber: Fields.accountNumber,
    swiftCode: Fields.swiftCode,
    beneficiary: Beneficiary
  }, ["BANK_TRANSFER"]),
  fiat("HTG_ACCOUNT", { phoneNumber: Fields.phone, beneficiary: Beneficiary }, ["MOBILE_MONEY"]),
  fiat("IDR_ACCOUNT", {
    bankName: Fields.bankName,
    accountNumber: Fields.accountNumber,
    swiftCode: Fields.swiftCode,
    phoneNumber: pat(/^\+62[0-9]{9,12}$/, "+6281234567890"),
    beneficiary: Beneficiary
  }, ["BANK_TRANSFER"]),
  fiat("ILS_ACCOUNT", {
    iban: iban(/^IL[0-9]{21}$/, "IL620108000000099999999"),
    swiftCode: opt(Fields.swiftCode),
    beneficiary: Beneficiary
  }, ["BANK_TRANSFER"]),
  fiat("INR_ACCOUNT", {
    vpa: opt(pat(/^[a-zA-Z0-9.\-_]+@[a-zA-Z0-9]+$/, "name@bank").check(maxChars(255))),
    accountNumber: opt(pat(/^[0-9]{9,18}$/, "123456789012")),
    ifsc: opt(pat(/^[A-Z]{4}0[A-Z0-9]{6}$/, "HDFC0001234")),
    rail: opt(Schema.Literals(["UPI", "NEFT", "RTGS"])),
    bankName: opt(Fields.bankName),
    beneficiary: Beneficiary
  }, ["UPI", "NEFT", "RTGS"], ["accountNumber", "vpa"]),
  fiat("JMD_ACCOUNT", {
    accountNumber: Fields.accountNumber,
    branchCode: Fields.branchCode5,
    bankAccountType: Fields.bankAccountType,
    bankName: Fields.bankName,
    beneficiary: beneficiary(IndividualBeneficiaryJmd)
  }, ["BANK_TRANSFER"]),
  fiat("KES_ACCOUNT", {
    phoneNumber: pat(/^\+254[0-9]{9}$/, "+254712345678"),
    provider: Fields.provider,
    beneficiary: Beneficiary
  }, ["MOBILE_MONEY"]),
  fiat("MWK_ACCOUNT", { phoneNumber: Fields.phone, provider: Fields.provider, beneficiary: Beneficiary }, ["MOBILE_MONEY"]),
  fiat("MXN_ACCOUNT", {
    clabeNumber: pat(/^[0-9]{18}$/, "032180000118359719"),
    beneficiary: Beneficiary
  }, ["SPEI"]),
  fiat("MYR_ACCOUNT", {
    bankName: Fields.bankName,
    accountNumber: Fields.accountNumber,
    swiftCode: Fields.swiftCode,
    beneficiary: Beneficiary
  }, ["BANK_TRANSFER"]),
  fiat("NGN_ACCOUNT", {
    accountNumber: pat(/^[0-9]{10}$/, "0123456789"),
    bankName: Fields.bankName,
    beneficiary: Beneficiary
  }, ["BANK_TRANSFER"]),
  fiat("PHP_ACCOUNT", {
    bankName: Fields.bankName,
    accountNumber: pat(/^[0-9]{8,16}$/, "123456789012"),
    beneficiary: Beneficiary
  }, ["BANK_TRANSFER"]),
  fiat("PKR_ACCOUNT", {
    bankName: Fields.bankName,
    accountNumber: opt(Fields.accountNumber),
    iban: opt(iban(/^PK[0-9]{2}[A-Z]{4}[0-9]{16}$/, "PK36SCBL0000001123456702")),
    phoneNumber: opt(Fields.phone),
    beneficiary: Beneficiary
  }, ["BANK_TRANSFER", "MOBILE_MONEY"], ["accountNumber", "iban", "phoneNumber"]),
  fiat("RWF_ACCOUNT", {
    phoneNumber: pat(/^\+250[0-9]{9}$/, "+250781234567"),
    provider: Fields.provider,
    beneficiary: Beneficiary
  }, ["MOBILE_MONEY"]),
  fiat("SGD_ACCOUNT", {
    bankName: opt(Fields.bankName),
    accountNumber: Fields.accountNumber,
    swiftCode: Fields.swiftCode,
    beneficiary: Beneficiary
  }, ["PAYNOW", "FAST", "BANK_TRANSFER"]),
  fiat("SLV_ACCOUNT", {
    bankName: opt(Fields.bankName),
    accountNumber: opt(Fields.accountNumber),
    bankAccountType: opt(Fields.bankAccountType),
    phoneNumber: opt(Fields.phone),
    beneficiary: Beneficiary
  }, ["BANK_TRANSFER", "MOBILE_MONEY"], ["accountNumber", "phoneNumber"]),
  fiat("THB_ACCOUNT", {
    bankName: Fields.bankName,
    accountNumber: Fields.accountNumber,
    swiftCode: Fields.swiftCode,
    beneficiary: Beneficiary
  }, ["BANK_TRANSFER"]),
  fiat("TRY_ACCOUNT", {
    iban: iban(/^TR[0-9]{24}$/, "TR330006100519786457841326"),
    swiftCode: opt(Fields.swiftCode),
    beneficiary: Beneficiary
  }, ["BANK_TRANSFER"]),
  fiat("TZS_ACCOUNT", {
    phoneNumber: pat(/^\+255[0-9]{9}$/, "+255712345678"),
    provider: Fields.provider,
    beneficiary: Beneficiary
  }, ["MOBILE_MONEY"]),
  fiat("UGX_ACCOUNT", { phoneNumber: Fields.phone, provider: Fields.provider, beneficiary: Beneficiary }, ["MOBILE_MONEY"]),
  fiat("USD_ACCOUNT", {
    accountNumber: Fields.accountNumber,
    routingNumber: pat(/^[0-9]{9}$/, "021000021"),
    // SPEC.md: required (the reference file has it optional).
    bankAccountType: req(Fields.bankAccountType),
    bankName: opt(str(1, 140)),
    intermediaryBankName: opt(str(1, 140)),
    intermediaryRoutingNumber: opt(pat(/^[0-9]{9}$/, "021000021")),
    fiToFiInformation: opt(Schema.String.check(Schema.isMaxLength(210))),
    beneficiary: Beneficiary
  }, ["ACH", "ACH_SAME_DAY", "WIRE", "RTP", "FEDNOW"]),
  fiat("VND_ACCOUNT", {
    bankName: Fields.bankName,
    accountNumber: Fields.accountNumber,
    swiftCode: Fields.swiftCode,
    beneficiary: Beneficiary
  }, ["BANK_TRANSFER"]),
  fiat("XAF_ACCOUNT", {
    phoneNumber: Fields.phone,
    provider: Fields.provider,
    region: Schema.Literals(["CM", "CG"]),
    beneficiary: Beneficiary
  }, ["MOBILE_MONEY"]),
  fiat("XOF_ACCOUNT", {
    phoneNumber: Fields.phone,
    provider: Fields.provider,
    region: Schema.Literals(["BJ", "CI", "SN", "TG"]),
    beneficiary: Beneficiary
  }, ["MOBILE_MONEY"]),
  fiat("ZAR_ACCOUNT", {
    accountNumber: pat(/^[0-9]{9,13}$/, "123456789"),
    bankName: Fields.bankName,
    beneficiary: Beneficiary
  }, ["BANK_TRANSFER"]),
  fiat("ZMW_ACCOUNT", {
    phoneNumber: pat(/^\+260[0-9]{9}$/, "+260971234567"),
    provider: Fields.provider,
    beneficiary: Beneficiary
  }, ["MOBILE_MONEY"]),
  fiat("SWIFT_ACCOUNT", {
    country: CountryCode,
    swiftCode: Fields.swiftCode,
    bankName: Fields.bankName,
    accountNumber: opt(Fields.accountNumber),
    iban: opt(iban(/^[A-Z]{2}[0-9]{2}[A-Za-z0-9]{11,30}$/, "GB29NWBK60161331926819")),
    beneficiary: Beneficiary
  }, ["SWIFT"], ["accountNumber", "iban"])
] as const

/** The networks whose wallets are EVM accounts (`0x` + 40 hex digits). */
export const EvmWalletTypes = ["BASE_WALLET", "ETHEREUM_WALLET", "POLYGON_WALLET", "PLASMA_WALLET", "ARBITRUM_WALLET"] as const

const walletAddress = {
  evm: pat(/^0x[0-9a-fA-F]{40}$/, "0x52908400098527886E0F7030069857D2E4169EE7"),
  solana: pat(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, "7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV"),
  tron: pat(/^T[1-9A-HJ-NP-Za-km-z]{33}$/, "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL"),
  spark: pat(/^(sp|spark|sprt|sparkrt)1[02-9ac-hj-np-z]{20,200}$/, "sp1pgss9…")
}

const wallet = <const T extends string, S extends Schema.Top>(accountType: T, address: S) => ({
  accountType,
  create: Schema.Struct({
    accountType: Schema.Literal(accountType),
    address,
    beneficiary: opt(WalletBeneficiary),
    vaspName: opt(str(1, 255))
  }).annotate({ identifier: `${accountType}Info` })
})

export const WalletVariants = [
  wallet("BASE_WALLET", walletAddress.evm),
  wallet("ETHEREUM_WALLET", walletAddress.evm),
  wallet("POLYGON_WALLET", walletAddress.evm),
  wallet("PLASMA_WALLET", walletAddress.evm),
  wallet("ARBITRUM_WALLET", walletAddress.evm),
  wallet("SOLANA_WALLET", walletAddress.solana),
  wallet("SPARK_WALLET", walletAddress.spark),
  wallet("TRON_WALLET", walletAddress.tron)
] as const

const lightningFields = {
  invoice: opt(pat(/^ln(bc|tb|bcrt|tbs)[0-9a-z]+$/i, "lnbc10u1p…").check(maxChars(MAX_LIGHTNING_REQUEST_LENGTH))),
  bolt12: opt(pat(/^lno1[0-9a-z]+$/i, "lno1qcp4…").check(maxChars(MAX_LIGHTNING_REQUEST_LENGTH))),
  lightningAddress: opt(pat(/^[a-z0-9._+-]+@[a-z0-9.-]+\.[a-z]{2,}$/i, "alice@wallet.example").check(maxChars(MAX_EMAIL_LENGTH)))
}

const exactlyOneLightningTarget = Schema.makeFilter<{
  readonly invoice?: string
  readonly bolt12?: string
  readonly lightningAddress?: string
}>(
  (info) => {
    const n = [info.invoice, info.bolt12, info.lightningAddress].filter((v) => v !== undefined).length
    return n === 1 || "exactly one of invoice, bolt12 or lightningAddress must be provided"
  },
  { identifier: "ExactlyOneLightningTarget" }
)

export const LightningCreateInfo = Schema.Struct({ accountType: Schema.Literal("LIGHTNING"), ...lightningFields })
  .check(exactlyOneLightningTarget)
  .annotate({ identifier: "LightningExternalAccountInfo" })

/** All accepted `accountType` values on create. */
export const ExternalAccountType = NamedLiterals("ExternalAccountType", [
  ...FiatVariants.map((v) => v.accountType),
  ...WalletVariants.map((v) => v.accountType),
  "LIGHTNING"
])
export type ExternalAccountType = typeof ExternalAccountType.Type

export const ExternalAccountCreateInfo = Schema.Union([
  ...FiatVariants.map((v) => v.create),
  ...WalletVariants.map((v) => v.create),
  LightningCreateInfo
]).annotate({ identifier: "ExternalAccountCreateInfoOneOf" })
export type ExternalAccountCreateInfo = typeof ExternalAccountCreateInfo.Type

/** The currency a fiat account type holds (`SWIFT_ACCOUNT` and wallets take any). */
export const currencyOfAccountType = (accountType: string): string | undefined =>
  accountType === "SWIFT_ACCOUNT" || !accountType.endsWith("_ACCOUNT") ? undefined : accountType.slice(0, 3)

const RAILS_BY_TYPE: ReadonlyMap<string, ReadonlyArray<PaymentRail>> = new Map(FiatVariants.map((v) => [v.accountType, v.rails]))

export const paymentRailsOf = (accountType: string): ReadonlyArray<PaymentRail> | undefined => RAILS_BY_TYPE.get(accountType)

// ---------------------------------------------------------------- requests

const PlatformAccountId = Schema.String.check(
  Schema.isBetweenLength(1, 255, { message: "must be 1 to 255 characters" })
)

const createFields = {
  currency: CurrencyCode,
  accountInfo: ExternalAccountCreateInfo,
  platformAccountId: opt(PlatformAccountId),
  ownershipType: opt(OwnershipType)
}

export const CustomerExternalAccountCreateRequest = NamedStruct("CustomerExternalAccountCreateRequest", {
  customerId: IdText,
  ...createFields,
  defaultUmaDepositAccount: opt(Schema.Boolean)
})
export type CustomerExternalAccountCreateRequest = typeof CustomerExternalAccountCreateRequest.Type

export const PlatformExternalAccountCreateRequest = Schema.Struct(createFields)
  .annotate({ identifier: "PlatformExternalAccountCreateRequest" })
export type PlatformExternalAccountCreateRequest = typeof PlatformExternalAccountCreateRequest.Type

// ---------------------------------------------------------------- response

/**
 * In responses `accountInfo` is the create variant plus `paymentRails` on fiat
 * variants; `LIGHTNING_ACCOUNT` is accepted as an alias of `LIGHTNING` (SPEC.md).
 */
const LightningFields = { accountType: Schema.Literal("LIGHTNING"), ...lightningFields }

export const ExternalAccountInfo = Schema.Union([
  ...FiatVariants.map((v) => v.response),
  ...WalletVariants.map((v) => v.create),
  Schema.Struct(LightningFields).annotate({ identifier: "LightningExternalAccountResponseInfo" }),
  NamedStruct("LightningAccountAliasInfo", { ...LightningFields, accountType: Schema.Literal("LIGHTNING_ACCOUNT") })
]).annotate({ identifier: "ExternalAccountInfoOneOf" })
export type ExternalAccountInfo = typeof ExternalAccountInfo.Type

export const BeneficiaryVerifiedData = NamedStruct("BeneficiaryVerifiedData", { fullName: Schema.String })

/** Opaque so declarations name it instead of spelling out its 50-variant union. */
export class ExternalAccount extends Schema.Opaque<ExternalAccount>()(NamedStruct("ExternalAccount", {
  id: Schema.String,
  customerId: Schema.NullOr(Schema.String),
  status: ExternalAccountStatus,
  platformAccountId: opt(Schema.String),
  ownershipType: opt(OwnershipType),
  currency: Schema.String,
  defaultUmaDepositAccount: Schema.Boolean,
  beneficiaryVerificationStatus: opt(BeneficiaryVerificationStatus),
  beneficiaryVerifiedData: opt(BeneficiaryVerifiedData),
  accountInfo: ExternalAccountInfo,
  ...Timestamps
})) {}

// ---------------------------------------------------------------- ownership verification

export const OwnershipVerificationMethod = NamedLiterals("OwnershipVerificationMethod", ["WALLET_SIGNATURE", "LIVENESS"])

export const OwnershipChallengeRequest = NamedStruct("OwnershipChallengeRequest", { method: OwnershipVerificationMethod })

export const WalletSignatureChallenge = NamedStruct("WalletSignatureChallenge", {
  method: Schema.Literal("WALLET_SIGNATURE"),
  messageToSign: Schema.String,
  expiresAt: Schema.String
})

export const LivenessChallenge = NamedStruct("LivenessChallenge", {
  method: Schema.Literal("LIVENESS"),
  verificationLink: Schema.String,
  expiresAt: Schema.String
})

export const OwnershipChallenge = Schema.Union([WalletSignatureChallenge, LivenessChallenge])
  .annotate({ identifier: "OwnershipChallenge" })
export type OwnershipChallenge = typeof OwnershipChallenge.Type

/** Wallet signatures are at most a few hundred characters (hex, base64 or base58). */
export const OwnershipVerifyRequest = NamedStruct("OwnershipVerifyRequest", { signature: NonEmptyTextUpTo(1024) })

type FiatCreateInfo = (typeof FiatVariants)[number]["create"]["Type"]

const isFiatCreateInfo = (info: ExternalAccountCreateInfo): info is FiatCreateInfo => RAILS_BY_TYPE.has(info.accountType)

/** The response form of a validated create `accountInfo`: fiat variants gain their `paymentRails`. */
export const responseInfoOf = (info: ExternalAccountCreateInfo): ExternalAccountInfo =>
  isFiatCreateInfo(info) ? { ...info, paymentRails: RAILS_BY_TYPE.get(info.accountType) ?? [] } : info
