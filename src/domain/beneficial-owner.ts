/** Beneficial owners of a business customer (reference: /beneficial-owners). */
import { Schema, Struct } from "effect"
import {
  Address,
  CountryCode,
  DateString,
  Email,
  MAX_ID_LENGTH,
  MAX_NAME_LENGTH,
  maxItems,
  NamedLiterals,
  NamedStruct,
  NonEmptyTextUpTo,
  PhoneNumberE164,
  TextUpTo
} from "./common.js"
import { IdentificationType, KycStatus } from "./customer.js"

const opt = Schema.optionalKey

export const BeneficialOwnerRole = NamedLiterals("BeneficialOwnerRole", [
  "UBO",
  "DIRECTOR",
  "COMPANY_OFFICER",
  "CONTROL_PERSON",
  "TRUSTEE",
  "GENERAL_PARTNER"
])

const Name = NonEmptyTextUpTo(MAX_NAME_LENGTH)

const personalFields = {
  firstName: Name,
  middleName: opt(TextUpTo(MAX_NAME_LENGTH)),
  /** Its last 3 characters select the sandbox outcome. */
  lastName: Name,
  birthDate: DateString,
  nationality: CountryCode,
  email: opt(Email),
  phoneNumber: opt(PhoneNumberE164),
  address: Address,
  idType: IdentificationType,
  identifier: NonEmptyTextUpTo(MAX_ID_LENGTH),
  countryOfIssuance: opt(CountryCode)
}

export const BeneficialOwnerPersonalInfo = Schema.Struct(personalFields)
  .annotate({ identifier: "BeneficialOwnerPersonalInfo" })
export type BeneficialOwnerPersonalInfo = typeof BeneficialOwnerPersonalInfo.Type

/** An update may name any personal field. */
export const BeneficialOwnerPersonalInfoUpdate = Schema.Struct(
  Struct.mapPick(personalFields, ["firstName", "lastName", "birthDate", "nationality", "address", "idType", "identifier"], opt)
).annotate({ identifier: "BeneficialOwnerPersonalInfoUpdate" })

const Roles = Schema.Array(BeneficialOwnerRole).check(
  Schema.isMinLength(1, { message: "must name at least one role" }),
  maxItems(BeneficialOwnerRole.literals.length)
)
const Percentage = Schema.Number.check(
  Schema.isInt({ message: "must be a whole number" }),
  Schema.isBetween({ minimum: 0, maximum: 100 }, { message: "must be between 0 and 100" })
)

export const BeneficialOwnerCreateRequest = NamedStruct("BeneficialOwnerCreateRequest", {
  customerId: NonEmptyTextUpTo(MAX_ID_LENGTH),
  roles: Roles,
  ownershipPercentage: Percentage,
  personalInfo: BeneficialOwnerPersonalInfo
})
export type BeneficialOwnerCreateRequest = typeof BeneficialOwnerCreateRequest.Type

export const BeneficialOwnerUpdateRequest = NamedStruct("BeneficialOwnerUpdateRequest", {
  roles: opt(Roles),
  ownershipPercentage: opt(Percentage),
  personalInfo: opt(BeneficialOwnerPersonalInfoUpdate)
})
export type BeneficialOwnerUpdateRequest = typeof BeneficialOwnerUpdateRequest.Type

export const BeneficialOwner = NamedStruct("BeneficialOwner", {
  id: Schema.String,
  customerId: Schema.String,
  roles: Schema.Array(BeneficialOwnerRole),
  ownershipPercentage: Schema.Number,
  personalInfo: BeneficialOwnerPersonalInfo,
  kycStatus: KycStatus,
  createdAt: Schema.String,
  updatedAt: Schema.optionalKey(Schema.String)
})
export type BeneficialOwner = typeof BeneficialOwner.Type
