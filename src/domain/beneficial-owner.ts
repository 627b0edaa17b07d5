/** Beneficial owners of a business customer (reference: /beneficial-owners). */
import { Schema } from "effect"
import { Address, CountryCode, DateString, Email, NonEmpty, PhoneNumberE164 } from "./common.js"
import { IdentificationType, KycStatus } from "./customer.js"

const opt = Schema.optionalKey

export const BeneficialOwnerRole = Schema.Literals([
  "UBO",
  "DIRECTOR",
  "COMPANY_OFFICER",
  "CONTROL_PERSON",
  "TRUSTEE",
  "GENERAL_PARTNER"
]).annotate({ identifier: "BeneficialOwnerRole" })

const personalFields = {
  firstName: NonEmpty,
  middleName: opt(Schema.String),
  /** Its last 3 characters select the sandbox outcome. */
  lastName: NonEmpty,
  birthDate: DateString,
  nationality: CountryCode,
  email: opt(Email),
  phoneNumber: opt(PhoneNumberE164),
  address: Address,
  idType: IdentificationType,
  identifier: NonEmpty,
  countryOfIssuance: opt(CountryCode)
}

export const BeneficialOwnerPersonalInfo = Schema.Struct(personalFields)
  .annotate({ identifier: "BeneficialOwnerPersonalInfo" })
export type BeneficialOwnerPersonalInfo = typeof BeneficialOwnerPersonalInfo.Type

export const BeneficialOwnerPersonalInfoUpdate = Schema.Struct({
  ...personalFields,
  firstName: opt(NonEmpty),
  lastName: opt(NonEmpty),
  birthDate: opt(DateString),
  nationality: opt(CountryCode),
  address: opt(Address),
  idType: opt(IdentificationType),
  identifier: opt(NonEmpty)
}).annotate({ identifier: "BeneficialOwnerPersonalInfoUpdate" })

const Roles = Schema.Array(BeneficialOwnerRole).check(Schema.isMinLength(1, { message: "must name at least one role" }))
const Percentage = Schema.Number.check(
  Schema.isInt({ message: "must be a whole number" }),
  Schema.isBetween({ minimum: 0, maximum: 100 }, { message: "must be between 0 and 100" })
)

export const BeneficialOwnerCreateRequest = Schema.Struct({
  customerId: NonEmpty,
  roles: Roles,
  ownershipPercentage: Percentage,
  personalInfo: BeneficialOwnerPersonalInfo
}).annotate({ identifier: "BeneficialOwnerCreateRequest" })
export type BeneficialOwnerCreateRequest = typeof BeneficialOwnerCreateRequest.Type

export const BeneficialOwnerUpdateRequest = Schema.Struct({
  roles: opt(Roles),
  ownershipPercentage: opt(Percentage),
  personalInfo: opt(BeneficialOwnerPersonalInfoUpdate)
}).annotate({ identifier: "BeneficialOwnerUpdateRequest" })
export type BeneficialOwnerUpdateRequest = typeof BeneficialOwnerUpdateRequest.Type

export const BeneficialOwner = Schema.Struct({
  id: Schema.String,
  customerId: Schema.String,
  roles: Schema.Array(BeneficialOwnerRole),
  ownershipPercentage: Schema.Number,
  personalInfo: BeneficialOwnerPersonalInfo,
  kycStatus: KycStatus,
  createdAt: Schema.String,
  updatedAt: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "BeneficialOwner" })
export type BeneficialOwner = typeof BeneficialOwner.Type
