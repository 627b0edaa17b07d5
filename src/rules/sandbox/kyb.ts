/**
 * SPEC.md "Sandbox outcomes: business KYB" and "beneficial owners", as tables.
 * Businesses are always created UNVERIFIED; the outcome lands on the first
 * submission. The last 3 characters of `businessInfo.registrationNumber` select it.
 */
import type { PlatformSettings } from "../../domain/platform.js"
import type { VerificationError } from "../../domain/verification.js"
import type { SubmissionOutcome } from "./kyc.js"
import { resolvesAtCreation } from "./kyc.js"
import { suffixOf } from "./suffix.js"

/** REAL_REVIEW: no auto-decision; documents and owners are checked for real. */
export type KybRow = "REAL_REVIEW" | "REJECTED" | "APPROVED"

/** | Suffix | Outcome | */
export const KYB_SUFFIXES: Readonly<Record<string, KybRow>> = {
  "003": "REAL_REVIEW",
  "001": "REAL_REVIEW",
  "002": "REJECTED"
}
/** | any other | kybStatus: APPROVED | */
export const KYB_ANY_OTHER: KybRow = "APPROVED"

export const kybRow = (registrationNumber: string): KybRow => KYB_SUFFIXES[suffixOf(registrationNumber)] ?? KYB_ANY_OTHER

/**
 * Unregulated platforms (Skip verification paperwork off) validate first for every
 * suffix. Regulated platforms, or Skip on, let a final suffix (002, any other) decide
 * before validation, even on an incomplete packet, so an auto-approved business is
 * asked for no documents or owners. Without a registration number there is no suffix
 * and validation applies.
 */
export const suffixBeforeValidation = resolvesAtCreation

export interface BusinessSubmission {
  readonly settings: PlatformSettings
  readonly registrationNumber: string | undefined
  readonly problems: ReadonlyArray<VerificationError>
}

export const decideBusinessSubmission = (s: BusinessSubmission): SubmissionOutcome => {
  const incomplete: SubmissionOutcome = { kind: "RESOLVE_ERRORS", errors: s.problems, accepted: false }
  if (!s.settings.sandbox) return s.problems.length > 0 ? incomplete : { kind: "PENDING_MANUAL_REVIEW" }
  const row = s.registrationNumber === undefined ? "REAL_REVIEW" : kybRow(s.registrationNumber)
  if (row !== "REAL_REVIEW" && suffixBeforeValidation(s.settings)) return { kind: row }
  if (s.problems.length > 0) return incomplete
  return row === "REAL_REVIEW" ? { kind: "PENDING_MANUAL_REVIEW" } : { kind: row }
}

// ---------------------------------------------------------------- beneficial owners

export type OwnerOutcome = "PENDING" | "REJECTED" | "APPROVED"

/** When a business resolves terminally: the last 3 characters of `personalInfo.lastName`. */
export const OWNER_SUFFIXES: Readonly<Record<string, OwnerOutcome>> = {
  "001": "PENDING",
  "002": "REJECTED"
}
export const OWNER_ANY_OTHER: OwnerOutcome = "APPROVED"

export const ownerOutcome = (lastName: string): OwnerOutcome => OWNER_SUFFIXES[suffixOf(lastName)] ?? OWNER_ANY_OTHER
