/**
 * SPEC.md "Sandbox outcomes: individual KYC", as tables. The last 3 characters of
 * `fullName` select the row. Where the platform resolves customers at creation
 * (regulated, or Skip verification paperwork on) `atCreation` applies; a complete
 * submission gets `onCompleteSubmission`. Non-sandbox platforms have no magic values:
 * a complete packet goes to manual review.
 */
import type { DocumentType } from "../../domain/document.js"
import type { PlatformSettings } from "../../domain/platform.js"
import type { VerificationError } from "../../domain/verification.js"
import { IDENTITY_DOCUMENT_TYPES } from "../verification-requirements.js"
import { suffixOf } from "./suffix.js"

export type KycAtCreation = "PENDING" | "REJECTED" | "UNVERIFIED" | "APPROVED"
export type KycOnCompleteSubmission = "PENDING_MANUAL_REVIEW" | "REJECTED" | "POOR_QUALITY_DOCUMENT" | "APPROVED"

export interface KycRow {
  readonly atCreation: KycAtCreation
  readonly onCompleteSubmission: KycOnCompleteSubmission
}

/** | Suffix | Resolved kycStatus | On POST /verifications | */
export const KYC_SUFFIXES: Readonly<Record<string, KycRow>> = {
  "001": { atCreation: "PENDING", onCompleteSubmission: "PENDING_MANUAL_REVIEW" },
  "002": { atCreation: "REJECTED", onCompleteSubmission: "REJECTED" },
  "003": { atCreation: "UNVERIFIED", onCompleteSubmission: "POOR_QUALITY_DOCUMENT" }
}
/** | any other | APPROVED | ... | */
export const KYC_ANY_OTHER: KycRow = { atCreation: "APPROVED", onCompleteSubmission: "APPROVED" }

export const kycRow = (fullName: string): KycRow => KYC_SUFFIXES[suffixOf(fullName)] ?? KYC_ANY_OTHER

/** Regulated platforms, and unregulated ones with Skip verification paperwork on, resolve at creation. */
export const resolvesAtCreation = (settings: PlatformSettings): boolean =>
  settings.sandbox && (settings.regulated || settings.skipVerificationPaperwork)

/** The kycStatus a new individual gets. */
export const kycStatusAtCreation = (settings: PlatformSettings, fullName: string): KycAtCreation =>
  resolvesAtCreation(settings) ? kycRow(fullName).atCreation : "UNVERIFIED"

/** What one submission of an individual's packet decides. */
export type SubmissionOutcome =
  | {
    readonly kind: "RESOLVE_ERRORS"
    readonly errors: ReadonlyArray<VerificationError>
    /** The packet was complete and taken for a decision that found correctable problems. */
    readonly accepted: boolean
    /** Documents to mark as of poor quality (sandbox 003). */
    readonly flagDocuments?: ReadonlyArray<string>
  }
  | { readonly kind: "PENDING_MANUAL_REVIEW" }
  | { readonly kind: "APPROVED" }
  | { readonly kind: "REJECTED" }

export interface IdentityDocumentView {
  readonly id: string
  readonly documentType: DocumentType
  /** Marked as of poor quality by an earlier submission and not replaced since. */
  readonly poorQuality: boolean
}

export interface IndividualSubmission {
  readonly settings: PlatformSettings
  readonly fullName: string
  /** Missing data and documents (verification-requirements). */
  readonly problems: ReadonlyArray<VerificationError>
  readonly identityDocuments: ReadonlyArray<IdentityDocumentView>
  /** Whether a POOR_QUALITY_DOCUMENT was already reported for this customer. */
  readonly poorQualityReported: boolean
}

const poorQuality = (docs: ReadonlyArray<IdentityDocumentView>): ReadonlyArray<VerificationError> =>
  docs.map((d) => ({
    resourceId: d.id,
    type: "POOR_QUALITY_DOCUMENT" as const,
    reason: `The ${d.documentType} image is of poor quality: replace it with PUT /documents/${d.id} (or upload another identity document) and submit again`,
    acceptedDocumentTypes: IDENTITY_DOCUMENT_TYPES
  }))

/**
 * Decides one submission. Validation comes first (an incomplete packet is
 * RESOLVE_ERRORS whatever the suffix); then the suffix decides. The 003 row reports
 * POOR_QUALITY_DOCUMENT once; it is corrected by replacing the document (or adding
 * another identity document), after which the packet goes to manual review.
 */
export const decideIndividualSubmission = (s: IndividualSubmission): SubmissionOutcome => {
  if (s.problems.length > 0) return { kind: "RESOLVE_ERRORS", errors: s.problems, accepted: false }
  if (!s.settings.sandbox) return { kind: "PENDING_MANUAL_REVIEW" }
  const outcome = kycRow(s.fullName).onCompleteSubmission
  if (outcome !== "POOR_QUALITY_DOCUMENT") return { kind: outcome }
  if (!s.poorQualityReported) {
    return {
      kind: "RESOLVE_ERRORS",
      errors: poorQuality(s.identityDocuments),
      accepted: true,
      flagDocuments: s.identityDocuments.map((d) => d.id)
    }
  }
  const stillPoor = s.identityDocuments.filter((d) => d.poorQuality)
  return stillPoor.length < s.identityDocuments.length
    ? { kind: "PENDING_MANUAL_REVIEW" }
    : { kind: "RESOLVE_ERRORS", errors: poorQuality(stillPoor), accepted: true }
}
