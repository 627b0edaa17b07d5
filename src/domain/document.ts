/**
 * Verification documents (POST /documents, multipart/form-data). The file itself is
 * checked by content and kept only as a fingerprint; responses carry metadata.
 */
import { Schema } from "effect"
import { CountryCode, NamedLiterals, NamedStruct } from "./common.js"
export { MAX_DOCUMENT_BYTES } from "./limits.js"

export const DocumentType = NamedLiterals("DocumentType", [
  "PASSPORT",
  "DRIVERS_LICENSE",
  "NATIONAL_ID",
  "PROOF_OF_ADDRESS",
  "BANK_STATEMENT",
  "TAX_RETURN",
  "CERTIFICATE_OF_INCORPORATION",
  "ARTICLES_OF_INCORPORATION",
  "ARTICLES_OF_ASSOCIATION",
  "STATE_REGISTRY_EXCERPT",
  "GOOD_STANDING_CERTIFICATE",
  "INFORMATION_STATEMENT",
  "INCUMBENCY_CERTIFICATE",
  "BUSINESS_LICENSE",
  "SHAREHOLDER_REGISTER",
  "POWER_OF_ATTORNEY",
  "UTILITY_BILL",
  "ELECTRICITY_BILL",
  "RENT_OR_LEASE_AGREEMENT",
  "DIRECTOR_REGISTRY",
  "TRUST_AGREEMENT",
  "STATE_COMPANY_REGISTRY",
  "PARTNERSHIP_CONTROL_AGREEMENT",
  "PARTNERSHIP_AGREEMENT",
  "SELFIE",
  "OTHER"
])
export type DocumentType = typeof DocumentType.Type

export const DocumentSide = NamedLiterals("DocumentSide", ["FRONT", "BACK"])

const UUID = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"

/** A document belongs to a Customer or to a BeneficialOwner. */
export const DocumentHolderId = Schema.String.check(
  Schema.isPattern(new RegExp(`^(Customer|BeneficialOwner):${UUID}$`), {
    message: "must be a Customer id or a BeneficialOwner id (Customer:<uuid> or BeneficialOwner:<uuid>)"
  })
)

const Text = Schema.String.check(Schema.isBetweenLength(1, 255, { message: "must be 1 to 255 characters" }))

const metadataFields = {
  documentType: DocumentType,
  side: Schema.optionalKey(DocumentSide),
  country: CountryCode,
  documentNumber: Schema.optionalKey(Text),
  issuingAuthority: Schema.optionalKey(Text)
}

/** The text fields of a POST /documents form (the `file` part travels beside them). */
export const DocumentUploadFields = NamedStruct("DocumentUploadFields", {
  documentHolder: DocumentHolderId,
  ...metadataFields
})
export type DocumentUploadFields = typeof DocumentUploadFields.Type

/** The text fields of a PUT /documents/{documentId} form. */
export const DocumentReplaceFields = Schema.Struct(metadataFields).annotate({ identifier: "DocumentReplaceFields" })
export type DocumentReplaceFields = typeof DocumentReplaceFields.Type

/** The file part as the operations see it: bytes plus what the client claimed. */
export interface UploadedFile {
  readonly fileName: string
  readonly contentType: string
  readonly bytes: Uint8Array
}

/** For the OpenAPI document: the multipart form with its binary `file` part. */
const FilePart = Schema.String.annotate({
  description: "The document file: PDF, JPEG or PNG (checked by content), at most 10 MB",
  format: "binary"
})

export const DocumentUploadForm = NamedStruct("DocumentUploadRequest", { ...DocumentUploadFields.fields, file: FilePart })
export const DocumentReplaceForm = NamedStruct("DocumentReplaceRequest", { ...DocumentReplaceFields.fields, file: FilePart })

export const Document = NamedStruct("Document", {
  id: Schema.String,
  documentHolder: Schema.String,
  documentType: DocumentType,
  side: Schema.optionalKey(DocumentSide),
  country: Schema.String,
  documentNumber: Schema.optionalKey(Schema.String),
  issuingAuthority: Schema.optionalKey(Schema.String),
  fileName: Schema.String,
  createdAt: Schema.String,
  updatedAt: Schema.optionalKey(Schema.String)
})
export type Document = typeof Document.Type
