/**
 * Our sandbox addition (SPEC.md names the document rejection codes but no way to
 * reach them): the last 3 characters of `documentNumber` select a rejection at
 * upload, so a platform can exercise its handling of each. Other numbers are accepted.
 */
import { reject, type Rejection } from "../rejection.js"
import { suffixOf } from "./suffix.js"

export type DocumentRejectionCode = "LOW_QUALITY" | "EXPIRED" | "SUSPECTED_FRAUD"

/** | documentNumber suffix | rejection code | */
export const DOCUMENT_NUMBER_SUFFIXES: Readonly<Record<string, { readonly code: DocumentRejectionCode; readonly reason: string }>> = {
  "911": { code: "LOW_QUALITY", reason: "The document image is of too low quality to read" },
  "912": { code: "EXPIRED", reason: "The document has expired" },
  "913": { code: "SUSPECTED_FRAUD", reason: "The document shows signs of tampering" }
}

export const sandboxDocumentRejection = (documentNumber: string): Rejection<DocumentRejectionCode> | undefined => {
  const row = DOCUMENT_NUMBER_SUFFIXES[suffixOf(documentNumber)]
  return row === undefined ? undefined : reject(row.code, row.reason, { errors: [{ field: "documentNumber", constraint: "sandbox", message: `sandbox rejection ${row.code}` }] })
}
