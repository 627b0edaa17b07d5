/**
 * What a verification packet must hold before anything is decided: SPEC.md
 * "Sandbox outcomes: individual KYC" (full name, birth date, nationality, idType plus
 * identifier, address and an identity document) and "business KYB" (complete business
 * information, business documents and at least one beneficial owner). Each problem is
 * one `errors[]` entry; `field` is the dot path a PATCH would fix.
 */
import type { DocumentType } from "../domain/document.js"
import type { VerificationError } from "../domain/verification.js"

export const IDENTITY_DOCUMENT_TYPES: ReadonlyArray<DocumentType> = ["PASSPORT", "DRIVERS_LICENSE", "NATIONAL_ID"]

export const LEGAL_PRESENCE_DOCUMENT_TYPES: ReadonlyArray<DocumentType> = [
  "CERTIFICATE_OF_INCORPORATION",
  "ARTICLES_OF_INCORPORATION",
  "ARTICLES_OF_ASSOCIATION",
  "STATE_REGISTRY_EXCERPT"
]

export const isIdentityDocument = (t: DocumentType): boolean => IDENTITY_DOCUMENT_TYPES.includes(t)

type Fields = Readonly<Record<string, unknown>>

const present = (v: unknown): boolean => v !== undefined && v !== null && !(typeof v === "string" && v.trim() === "")

/** Required fields of an individual's packet: path -> how a person reads it. */
export const INDIVIDUAL_REQUIRED_FIELDS: ReadonlyArray<readonly [string, string]> = [
  ["fullName", "Full name"],
  ["birthDate", "Birth date"],
  ["nationality", "Nationality"],
  ["idType", "Identification type (idType)"],
  ["identifier", "Identification number (identifier)"],
  ["address", "Address"]
]

/** Required fields of a business's packet. */
export const BUSINESS_REQUIRED_FIELDS: ReadonlyArray<readonly [string, string]> = [
  ["businessInfo.legalName", "Business legal name"],
  ["businessInfo.country", "Country of incorporation"],
  ["businessInfo.registrationNumber", "Business registration number"],
  ["businessInfo.incorporatedOn", "Date of incorporation"],
  ["businessInfo.taxId", "Business tax id"],
  ["address", "Business address"]
]

const valueAt = (record: Fields, path: string): unknown =>
  path.split(".").reduce<unknown>((v, k) => (typeof v === "object" && v !== null ? (v as Fields)[k] : undefined), record)

const missingFields = (resourceId: string, record: Fields, required: ReadonlyArray<readonly [string, string]>) =>
  required.flatMap(([field, label]): Array<VerificationError> =>
    present(valueAt(record, field)) ? [] : [{ resourceId, type: "MISSING_FIELD", field, reason: `${label} is required` }]
  )

export const individualRequirements = (
  customer: Fields & { readonly id: string },
  documentTypes: ReadonlyArray<DocumentType>
): ReadonlyArray<VerificationError> => [
  ...missingFields(customer.id, customer, INDIVIDUAL_REQUIRED_FIELDS),
  ...(documentTypes.some(isIdentityDocument) ? [] : [{
    resourceId: customer.id,
    type: "MISSING_IDENTITY_DOCUMENT" as const,
    reason: "An identity document is required: upload a PASSPORT, DRIVERS_LICENSE or NATIONAL_ID with POST /documents",
    acceptedDocumentTypes: IDENTITY_DOCUMENT_TYPES
  }])
]

export const businessRequirements = (
  customer: Fields & { readonly id: string },
  documentTypes: ReadonlyArray<DocumentType>,
  ownerCount: number
): ReadonlyArray<VerificationError> => [
  ...missingFields(customer.id, customer, BUSINESS_REQUIRED_FIELDS),
  ...(documentTypes.some((t) => LEGAL_PRESENCE_DOCUMENT_TYPES.includes(t)) ? [] : [{
    resourceId: customer.id,
    type: "MISSING_LEGAL_PRESENCE_DOCUMENT" as const,
    reason: "A legal presence document is required: upload one of the accepted types with POST /documents",
    acceptedDocumentTypes: LEGAL_PRESENCE_DOCUMENT_TYPES
  }]),
  ...(ownerCount > 0 ? [] : [{
    resourceId: customer.id,
    type: "MISSING_BENEFICIAL_OWNER" as const,
    reason: "At least one beneficial owner is required: add one with POST /beneficial-owners"
  }])
]
