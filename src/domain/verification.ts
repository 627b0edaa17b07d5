/**
 * KYC/KYB verification submissions (POST /verifications) and what they report back.
 * Names and values follow the reference file; SPEC.md names `verificationStatus` and
 * the `errors[]` entry fields.
 */
import { Schema } from "effect"
import { MAX_ID_LENGTH, NamedLiterals, NamedStruct, NonEmptyTextUpTo } from "./common.js"
import { DocumentType } from "./document.js"

export const VerificationStatus = NamedLiterals("VerificationStatus", [
  "RESOLVE_ERRORS",
  "PENDING_MANUAL_REVIEW",
  "IN_PROGRESS",
  "APPROVED",
  "REJECTED",
  "READY_FOR_VERIFICATION"
])
export type VerificationStatus = typeof VerificationStatus.Type

export const VerificationErrorType = NamedLiterals("VerificationErrorType", [
  "MISSING_FIELD",
  "INVALID_FIELD",
  "MISSING_LEGAL_PRESENCE_DOCUMENT",
  "MISSING_CONTROL_STRUCTURE_DOCUMENT",
  "MISSING_OWNERSHIP_STRUCTURE_DOCUMENT",
  "MISSING_PROOF_OF_ADDRESS_DOCUMENT",
  "MISSING_IDENTITY_DOCUMENT",
  "INVALID_DOCUMENT",
  "EXPIRED_DOCUMENT",
  "POOR_QUALITY_DOCUMENT",
  "SUSPECTED_FRAUD_DOCUMENT",
  "WRONG_DOCUMENT_TYPE",
  "INCOMPLETE_DOCUMENT",
  "UNREADABLE_DOCUMENT",
  "DOCUMENT_VERIFICATION_FAILED",
  "APPLICANT_SANCTIONED",
  "APPLICANT_FRAUD",
  "APPLICANT_CRIMINAL_RECORD",
  "APPLICANT_REJECTED",
  "MISSING_BENEFICIAL_OWNER",
  "MISSING_CONTROL_PERSON",
  "MISSING_GOOD_STANDING_DOCUMENT"
])
export type VerificationErrorType = typeof VerificationErrorType.Type

/** One problem that keeps a submission from proceeding. */
export const VerificationError = NamedStruct("VerificationError", {
  /** The Customer, BeneficialOwner or Document the problem is about. */
  resourceId: Schema.String,
  type: VerificationErrorType,
  /** Dot path of the missing or invalid field, as the PATCH body spells it. */
  field: Schema.optionalKey(Schema.String),
  reason: Schema.String,
  acceptedDocumentTypes: Schema.optionalKey(Schema.Array(DocumentType))
})
export type VerificationError = typeof VerificationError.Type

export const Verification = NamedStruct("Verification", {
  id: Schema.String,
  customerId: Schema.String,
  verificationStatus: VerificationStatus,
  errors: Schema.Array(VerificationError),
  createdAt: Schema.String,
  updatedAt: Schema.optionalKey(Schema.String)
})
export type Verification = typeof Verification.Type

export const VerificationRequest = NamedStruct("VerificationRequest", {
  customerId: NonEmptyTextUpTo(MAX_ID_LENGTH)
})
export type VerificationRequest = typeof VerificationRequest.Type
