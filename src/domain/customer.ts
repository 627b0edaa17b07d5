/**
 * Customers: individuals (KYC) and businesses (KYB). Field names follow the
 * reference file; SPEC.md adds `agreementConsents` and deprecates
 * `endUserTermsConsent`. Verification, documents and owners live beside this module.
 */
import { Schema, Struct } from "effect"
import {
  Address,
  CountryCode,
  DateString,
  DateTimeString,
  Email,
  MAX_COUNTRIES,
  MAX_DESCRIPTION_LENGTH,
  MAX_ID_LENGTH,
  MAX_NAME_LENGTH,
  maxChars,
  maxItems,
  NamedLiterals,
  NamedStruct,
  NonEmpty,
  NonEmptyTextUpTo,
  PhoneNumberE164,
  TextUpTo,
  Timestamps
} from "./common.js"
import { ContactVerification } from "./sca.js"

const opt = Schema.optionalKey

export const CustomerType = NamedLiterals("CustomerType", ["INDIVIDUAL", "BUSINESS"])
export type CustomerType = typeof CustomerType.Type

/** Where a customer's identity review stands: KYC for an individual, KYB for a business. */
const REVIEW_STATUSES = ["UNVERIFIED", "PENDING", "APPROVED", "REJECTED", "HOLD"] as const
export const KycStatus = Schema.Literals(REVIEW_STATUSES).annotate({ identifier: "KycStatus" })
export type KycStatus = typeof KycStatus.Type
export const KybStatus = Schema.Literals(REVIEW_STATUSES).annotate({ identifier: "KybStatus" })
export type KybStatus = typeof KybStatus.Type

export const IdentificationType = NamedLiterals("IdentificationType", ["SSN", "ITIN", "EIN", "NON_US_TAX_ID", "PASSPORT", "DRIVERS_LICENSE", "NATIONAL_ID"])

// ---------------------------------------------------------------- enhanced due diligence

export const IndividualSourceOfFundsCategory = Schema.Literals([
  "SALARY", "SELF_EMPLOYMENT_INCOME", "INVESTMENT_INCOME", "PENSION", "RENTAL_INCOME", "GIFT", "INHERITANCE", "LOAN",
  "SAVINGS", "SALE_OF_ASSETS", "OTHER"
])
export const SourceOfWealthCategory = Schema.Literals([
  "SALARY", "BUSINESS_INCOME", "INVESTMENTS", "INHERITANCE", "PROPERTY_SALE", "GIFT", "RETIREMENT", "SAVINGS", "OTHER"
])
export const PurposeOfAccount = Schema.Literals([
  "CONTRACTOR_PAYOUTS", "CREATOR_PAYOUTS", "EMPLOYEE_PAYOUTS", "MARKETPLACE_SELLER_PAYOUTS", "SUPPLIER_PAYMENTS",
  "CROSS_BORDER_B2B", "AR_AUTOMATION", "AP_AUTOMATION", "EMBEDDED_PAYMENTS", "PLATFORM_FEE_COLLECTION", "P2P_TRANSFERS",
  "CHARITABLE_DONATIONS", "OTHER"
])
export const ExpectedMonthlyTransactionCount = Schema.Literals([
  "COUNT_UNDER_10", "COUNT_10_TO_100", "COUNT_100_TO_500", "COUNT_500_TO_1000", "COUNT_OVER_1000"
])
export const ExpectedMonthlyTransactionVolume = Schema.Literals([
  "VOLUME_UNDER_10K", "VOLUME_10K_TO_100K", "VOLUME_100K_TO_1M", "VOLUME_1M_TO_10M", "VOLUME_OVER_10M"
])
export const AnnualIncomeRange = Schema.Literals(["UNDER_50K", "RANGE_50K_100K", "RANGE_100K_250K", "RANGE_250K_1M", "OVER_1M"])
export const NetWorthRange = Schema.Literals([
  "UNDER_100K", "RANGE_100K_500K", "RANGE_500K_1M", "RANGE_1M_5M", "RANGE_5M_25M", "OVER_25M"
])
export const PepStatus = Schema.Literals(["NONE", "DOMESTIC", "FOREIGN", "HIO", "FAMILY_OR_ASSOCIATE"])

/** A list of categories: no list needs more entries than there are categories. */
const categories = <S extends Schema.Literals<ReadonlyArray<string>>>(category: S) =>
  Schema.Array(category).check(maxItems(category.literals.length))

const eddFields = {
  sourceOfFundsCategories: opt(categories(IndividualSourceOfFundsCategory)),
  sourceOfFundsOtherDescription: opt(Schema.String.check(Schema.isBetweenLength(1, 500))),
  sourceOfWealthCategories: opt(categories(SourceOfWealthCategory)),
  sourceOfWealthOtherDescription: opt(Schema.String.check(Schema.isBetweenLength(1, 500))),
  purposeOfAccount: opt(PurposeOfAccount),
  purposeOfAccountOtherDescription: opt(Schema.String.check(Schema.isBetweenLength(1, 500))),
  expectedMonthlyTransactionCount: opt(ExpectedMonthlyTransactionCount),
  expectedMonthlyTransactionVolume: opt(ExpectedMonthlyTransactionVolume),
  annualIncomeRange: opt(AnnualIncomeRange),
  netWorthRange: opt(NetWorthRange),
  pepStatus: opt(PepStatus)
}

// ---------------------------------------------------------------- agreements

export const AgreementType = NamedLiterals("AgreementType", [
  "SERVICE_END_USER_TERMS",
  "PRIVACY_POLICY",
  "E_SIGN_CONSENT",
  "CARDHOLDER_AGREEMENT",
  "DEPOSIT_ACCOUNT_AGREEMENT",
  "DIGITAL_ASSET_CUSTODY_AGREEMENT",
  "ELECTRONIC_FUND_TRANSFER_DISCLOSURE"
])
export type AgreementType = typeof AgreementType.Type

export const AcceptanceMethod = NamedLiterals("AcceptanceMethod", ["CHECKBOX", "CLICK_TO_ACCEPT"])

const IpAddress = Schema.String.check(Schema.isBetweenLength(1, 45))
/** An agreement version as GET /customers/agreements gives it. */
const TermsVersion = NonEmptyTextUpTo(64)

/** How and when the end user accepted an agreement: every consent carries these. */
const consentFields = {
  acceptedAt: DateTimeString,
  ipAddress: IpAddress,
  termsVersion: TermsVersion,
  acceptanceMethod: AcceptanceMethod
}

export const AgreementConsentRequest = NamedStruct("AgreementConsentRequest", { type: AgreementType, ...consentFields })
export type AgreementConsentRequest = typeof AgreementConsentRequest.Type

export const AgreementConsent = AgreementConsentRequest.annotate({ identifier: "AgreementConsent" })
export type AgreementConsent = typeof AgreementConsent.Type

/** One entry of GET /customers/agreements: the current version and where it is hosted. */
export const Agreement = NamedStruct("Agreement", {
  type: AgreementType,
  version: Schema.String,
  url: Schema.String
})
export type Agreement = typeof Agreement.Type

export const AgreementListResponse = NamedStruct("AgreementListResponse", { data: Schema.Array(Agreement) })

/** Deprecated GET /customers/end-user-terms: the SERVICE_END_USER_TERMS agreement alone. */
export const EndUserTerms = NamedStruct("EndUserTerms", { version: Schema.String, url: Schema.String })

export const EndUserTermsConsentRequest = Schema.Struct(consentFields).annotate({ identifier: "EndUserTermsConsentRequest" })
export type EndUserTermsConsentRequest = typeof EndUserTermsConsentRequest.Type

// ---------------------------------------------------------------- business info

export const EntityType = NamedLiterals("EntityType", [
  "SOLE_PROPRIETORSHIP", "PARTNERSHIP", "LLC", "CORPORATION", "S_CORPORATION", "NON_PROFIT",
  "PUBLICLY_LISTED_COMPANY", "TRUST", "PRIVATE_FOUNDATION", "CHARITY", "OTHER"
])

/** The high-level industry category of a business (the reference's 20 values). */
export const BusinessType = NamedLiterals("BusinessType", [
  "AGRICULTURE_FORESTRY_FISHING_AND_HUNTING",
  "MINING_QUARRYING_AND_OIL_AND_GAS_EXTRACTION",
  "UTILITIES",
  "CONSTRUCTION",
  "MANUFACTURING",
  "WHOLESALE_TRADE",
  "RETAIL_TRADE",
  "TRANSPORTATION_AND_WAREHOUSING",
  "INFORMATION",
  "FINANCE_AND_INSURANCE",
  "REAL_ESTATE_AND_RENTAL_AND_LEASING",
  "PROFESSIONAL_SCIENTIFIC_AND_TECHNICAL_SERVICES",
  "MANAGEMENT_OF_COMPANIES_AND_ENTERPRISES",
  "ADMINISTRATIVE_AND_SUPPORT_AND_WASTE_MANAGEMENT_AND_REMEDIATION_SERVICES",
  "EDUCATIONAL_SERVICES",
  "HEALTH_CARE_AND_SOCIAL_ASSISTANCE",
  "ARTS_ENTERTAINMENT_AND_RECREATION",
  "ACCOMMODATION_AND_FOOD_SERVICES",
  "OTHER_SERVICES",
  "PUBLIC_ADMINISTRATION"
])

/** A structured source-of-funds category of a business. */
export const SourceOfFundsCategory = NamedLiterals("SourceOfFundsCategory", [
  "OPERATING_REVENUE", "INVESTMENT_INCOME", "LOANS", "VENTURE_CAPITAL", "PERSONAL_SAVINGS", "DONATIONS", "OTHER"
])

const OtherDescription = Schema.String.check(Schema.isBetweenLength(1, 500))

const Countries = Schema.Array(CountryCode).check(maxItems(MAX_COUNTRIES))

const businessInfoFields = {
  legalName: NonEmptyTextUpTo(MAX_NAME_LENGTH),
  doingBusinessAs: opt(TextUpTo(MAX_NAME_LENGTH)),
  country: CountryCode,
  registrationNumber: opt(NonEmptyTextUpTo(MAX_ID_LENGTH)),
  incorporatedOn: DateString,
  entityType: opt(EntityType),
  taxId: NonEmptyTextUpTo(MAX_ID_LENGTH),
  countriesOfOperation: opt(Countries),
  businessType: opt(BusinessType),
  purposeOfAccount: opt(PurposeOfAccount),
  sourceOfFunds: opt(TextUpTo(MAX_DESCRIPTION_LENGTH)),
  expectedMonthlyTransactionCount: opt(ExpectedMonthlyTransactionCount),
  expectedMonthlyTransactionVolume: opt(ExpectedMonthlyTransactionVolume),
  expectedRecipientJurisdictions: opt(Countries),
  naicsCode: opt(Schema.String.check(Schema.isPattern(/^\d{2,6}$/))),
  sourceOfFundsCategories: opt(categories(SourceOfFundsCategory)),
  sourceOfFundsOtherDescription: opt(OtherDescription),
  purposeOfAccountOtherDescription: opt(OtherDescription),
  expectedCounterpartyCountries: opt(Countries),
  primaryContactFirstName: opt(Schema.String.check(Schema.isMaxLength(250))),
  primaryContactLastName: opt(Schema.String.check(Schema.isMaxLength(250)))
}

/**
 * On create every business field is optional except `legalName`: an incomplete
 * packet is a verification error (RESOLVE_ERRORS), not a 400, as SPEC.md's fix-and-
 * resubmit loop needs. `registrationNumber` selects the sandbox KYB outcome.
 */
export const BusinessInfo = Schema.Struct(Struct.mapPick(businessInfoFields, ["country", "incorporatedOn", "taxId"], opt))
  .annotate({ identifier: "BusinessInfo" })
export type BusinessInfo = typeof BusinessInfo.Type

/** An update may name any business field. */
export const BusinessInfoUpdate = Schema.Struct(Struct.mapPick(BusinessInfo.fields, ["legalName"], opt))
  .annotate({ identifier: "BusinessInfoUpdate" })

// ---------------------------------------------------------------- requests

const commonCreate = {
  platformCustomerId: opt(Schema.String.check(Schema.isBetweenLength(1, 255))),
  region: opt(CountryCode),
  // Currency codes and tickers as the platform spells them (3 to 5 letters today).
  currencies: opt(Schema.Array(TextUpTo(16)).check(maxItems(100))),
  email: opt(Email),
  phoneNumber: opt(PhoneNumberE164),
  umaAddress: opt(Schema.String.check(
    Schema.isPattern(/^\$[a-zA-Z0-9._-]+@[a-zA-Z0-9.-]+$/, { message: "must look like $name@domain" }),
    maxChars(255)
  )),
  // SPEC.md: one consent per agreement type.
  agreementConsents: opt(Schema.Array(AgreementConsentRequest).check(maxItems(AgreementType.literals.length))),
  endUserTermsConsent: opt(EndUserTermsConsentRequest),
  address: opt(Address)
}

const individualFields = {
  fullName: opt(NonEmptyTextUpTo(MAX_NAME_LENGTH)),
  birthDate: opt(DateString),
  nationality: opt(CountryCode),
  idType: opt(IdentificationType),
  identifier: opt(NonEmptyTextUpTo(MAX_ID_LENGTH)),
  countryOfIssuance: opt(CountryCode),
  ...eddFields
}

/**
 * The request bodies of one operation (`Create`, `Update`): an INDIVIDUAL and a BUSINESS
 * variant over the fields both take, and their union, named `IndividualCustomer<Op>Request`,
 * `BusinessCustomer<Op>Request` and `Customer<Op>RequestOneOf` as in the reference.
 */
const customerRequests = <Common extends Schema.Struct.Fields, Info extends Schema.Top>(
  operation: "Create" | "Update",
  common: Common,
  businessInfo: Info
) => {
  const individual = NamedStruct(`IndividualCustomer${operation}Request`, { customerType: Schema.Literal("INDIVIDUAL"), ...common, ...individualFields })
  const business = NamedStruct(`BusinessCustomer${operation}Request`, { customerType: Schema.Literal("BUSINESS"), ...common, businessInfo })
  return { individual, business, either: Schema.Union([individual, business]).annotate({ identifier: `Customer${operation}RequestOneOf` }) }
}

/**
 * `fullName` is optional at creation, as in the reference (SPEC.md does not ask for it
 * then); verification lists it as missing until it is given.
 */
const createRequests = customerRequests("Create", commonCreate, BusinessInfo)
export const IndividualCustomerCreateRequest = createRequests.individual
export const BusinessCustomerCreateRequest = createRequests.business
export const CustomerCreateRequest = createRequests.either
export type CustomerCreateRequest = typeof CustomerCreateRequest.Type

/** An update takes the create fields but `platformCustomerId`, and any part of the business info. */
const { platformCustomerId: _pcid, ...commonUpdate } = commonCreate
const updateRequests = customerRequests("Update", commonUpdate, opt(BusinessInfoUpdate))
export const IndividualCustomerUpdateRequest = updateRequests.individual
export const BusinessCustomerUpdateRequest = updateRequests.business
export const CustomerUpdateRequest = updateRequests.either
export type CustomerUpdateRequest = typeof CustomerUpdateRequest.Type

// ---------------------------------------------------------------- responses

const commonResponse = {
  id: Schema.String,
  platformCustomerId: Schema.String,
  region: opt(Schema.String),
  currencies: opt(Schema.Array(Schema.String)),
  email: opt(Schema.String),
  phoneNumber: opt(Schema.String),
  umaAddress: Schema.String,
  address: opt(Address),
  agreementConsents: Schema.Array(AgreementConsent),
  endUserTermsConsent: opt(EndUserTermsConsentRequest),
  ...Timestamps,
  isDeleted: Schema.Boolean,
  /** Only for customers whose provider requires contact verification (SCA regions; docs/sca.md). */
  contactVerification: opt(ContactVerification)
}

/** `identifier` (an SSN, a passport number) is write-only: stored, never answered. */
const { identifier: _identifier, ...individualResponseFields } = individualFields

/** An individual customer as the API answers it (no write-only fields). */
export const IndividualCustomer = NamedStruct("IndividualCustomer", {
  customerType: Schema.Literal("INDIVIDUAL"),
  ...commonResponse,
  kycStatus: KycStatus,
  ...individualResponseFields
})
export type IndividualCustomer = typeof IndividualCustomer.Type

/** An individual customer as stored: the answer plus its write-only `identifier`. */
export const IndividualCustomerState = NamedStruct("IndividualCustomerState", {
  ...IndividualCustomer.fields,
  identifier: opt(NonEmpty)
})

export const BusinessCustomer = NamedStruct("BusinessCustomer", {
  customerType: Schema.Literal("BUSINESS"),
  ...commonResponse,
  kybStatus: KybStatus,
  businessInfo: BusinessInfo
})
export type BusinessCustomer = typeof BusinessCustomer.Type

/**
 * A customer as the API answers it. Encoding a stored customer with this schema drops
 * its write-only fields.
 */
export const CustomerResponse = Schema.Union([IndividualCustomer, BusinessCustomer]).annotate({ identifier: "CustomerOneOf" })
export type CustomerResponse = typeof CustomerResponse.Type

/** A customer as the store keeps it and the rules see it (write-only fields included). */
export const CustomerState = Schema.Union([IndividualCustomerState, BusinessCustomer])
export type CustomerState = typeof CustomerState.Type
