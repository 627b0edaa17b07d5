/**
 * What a document upload must be, decided from the bytes: JPEG, PNG or PDF recognised
 * by content (magic bytes at the start, end marker at the end), at most 10 MB, agreeing
 * with what the client claimed (part content type and file-name extension), of a type
 * that suits its holder, and with a number that matches the holder's identifier. A
 * refusal is the document rejection code that names the problem.
 */
import { type DocumentType, DocumentType as DocumentTypeSchema, MAX_DOCUMENT_BYTES } from "../domain/document.js"
import { invalidInput, reject, type Rejection } from "./rejection.js"
import { fail, ok, type Result } from "./result.js"
import { type DocumentRejectionCode, sandboxDocumentRejection } from "./sandbox/documents.js"
import { isIdentityDocument } from "./verification-requirements.js"

export { MAX_DOCUMENT_BYTES }

export type FileKind = "PDF" | "JPEG" | "PNG"

export const MEDIA_TYPES: Readonly<Record<FileKind, string>> = {
  PDF: "application/pdf",
  JPEG: "image/jpeg",
  PNG: "image/png"
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
const PNG_IEND = [0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82]
const PDF_SIGNATURE = [0x25, 0x50, 0x44, 0x46, 0x2d] // %PDF-
const PDF_EOF = [0x25, 0x25, 0x45, 0x4f, 0x46] // %%EOF

const startsWith = (bytes: Uint8Array, sig: ReadonlyArray<number>): boolean =>
  bytes.length >= sig.length && sig.every((b, i) => bytes[i] === b)

const indexOf = (bytes: Uint8Array, needle: ReadonlyArray<number>, from: number): number => {
  outer: for (let i = Math.max(0, from); i <= bytes.length - needle.length; i++) {
    for (let j = 0; j < needle.length; j++) if (bytes[i + j] !== needle[j]) continue outer
    return i
  }
  return -1
}

/** The kind of file the bytes are, by their leading magic bytes. */
export const sniff = (bytes: Uint8Array): FileKind | undefined =>
  startsWith(bytes, PNG_SIGNATURE)
    ? "PNG"
    : bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff
    ? "JPEG"
    : startsWith(bytes, PDF_SIGNATURE)
    ? "PDF"
    : undefined

/** Whether the file carries its end marker (a truncated upload does not). */
export const isComplete = (kind: FileKind, bytes: Uint8Array): boolean => {
  switch (kind) {
    case "PNG":
      return indexOf(bytes, PNG_IEND, bytes.length - PNG_IEND.length) >= 0
    case "JPEG": {
      // EOI, possibly followed by padding some encoders append.
      let end = bytes.length
      while (end > 0 && (bytes[end - 1] === 0x00 || bytes[end - 1] === 0x0a || bytes[end - 1] === 0x0d)) end--
      return end >= 5 && bytes[end - 2] === 0xff && bytes[end - 1] === 0xd9
    }
    case "PDF":
      return indexOf(bytes, PDF_EOF, bytes.length - 1024) >= 0
  }
}

const CLAIMED_BY_MEDIA_TYPE: Readonly<Record<string, FileKind>> = {
  "application/pdf": "PDF",
  "application/x-pdf": "PDF",
  "image/jpeg": "JPEG",
  "image/jpg": "JPEG",
  "image/pjpeg": "JPEG",
  "image/png": "PNG"
}
const CLAIMED_BY_EXTENSION: Readonly<Record<string, FileKind>> = { pdf: "PDF", jpg: "JPEG", jpeg: "JPEG", png: "PNG" }
/** Content types that claim nothing in particular. */
const NEUTRAL_MEDIA_TYPES = new Set(["", "application/octet-stream", "binary/octet-stream"])

const fileError = (code: "UNSUITABLE_DOCUMENT" | "INCOMPLETE", reason: string, message: string): Rejection<"UNSUITABLE_DOCUMENT" | "INCOMPLETE"> =>
  reject(code, reason, { errors: [{ field: "file", constraint: code === "INCOMPLETE" ? "complete" : "fileType", message }] })

export interface FileCheck {
  readonly kind: FileKind
  readonly mediaType: string
}

/** Checks the file part; nothing about it is trusted except its bytes. */
export const checkDocumentFile = (file: {
  readonly fileName: string
  readonly contentType: string
  readonly bytes: Uint8Array
}): Result<FileCheck, Rejection<"INVALID_INPUT" | "UNSUITABLE_DOCUMENT" | "INCOMPLETE">> => {
  const size = file.bytes.length
  if (size > MAX_DOCUMENT_BYTES) {
    return fail(invalidInput(`The file is ${size} bytes; the limit is ${MAX_DOCUMENT_BYTES} bytes (10 MB)`, [{
      field: "file",
      constraint: "maxBytes",
      message: `must be at most ${MAX_DOCUMENT_BYTES} bytes (10 MB)`
    }]))
  }
  if (size === 0) return fail(fileError("INCOMPLETE", "The file is empty", "must not be empty"))
  const kind = sniff(file.bytes)
  if (kind === undefined) {
    return fail(fileError("UNSUITABLE_DOCUMENT", "The file is not a JPEG, PNG or PDF (checked by its content)", "must be a JPEG, PNG or PDF file"))
  }
  const media = file.contentType.split(";")[0]!.trim().toLowerCase()
  if (!NEUTRAL_MEDIA_TYPES.has(media)) {
    const claimed = CLAIMED_BY_MEDIA_TYPE[media]
    if (claimed !== kind) {
      return fail(fileError(
        "UNSUITABLE_DOCUMENT",
        `The file part claims ${media} but its content is a ${kind}`,
        `content type must match the content (${MEDIA_TYPES[kind]})`
      ))
    }
  }
  const dot = file.fileName.lastIndexOf(".")
  const ext = dot >= 0 ? file.fileName.slice(dot + 1).toLowerCase() : ""
  const byExt = CLAIMED_BY_EXTENSION[ext]
  if (ext !== "" && byExt !== undefined && byExt !== kind) {
    return fail(fileError(
      "UNSUITABLE_DOCUMENT",
      `The file name ${file.fileName} claims a ${byExt} but its content is a ${kind}`,
      `file name extension must match the content (${kind})`
    ))
  }
  if (!isComplete(kind, file.bytes)) {
    return fail(fileError("INCOMPLETE", `The ${kind} file is truncated (its end marker is missing)`, `must be a complete ${kind} file`))
  }
  return ok({ kind, mediaType: MEDIA_TYPES[kind] })
}

// ---------------------------------------------------------------- holder and metadata

export type HolderKind = "INDIVIDUAL" | "BUSINESS" | "BENEFICIAL_OWNER"

/** Documents only a person can hold. */
export const PERSON_ONLY_DOCUMENT_TYPES: ReadonlySet<DocumentType> = new Set<DocumentType>([
  "PASSPORT",
  "DRIVERS_LICENSE",
  "NATIONAL_ID",
  "SELFIE"
])

/** Documents any holder can hold (an address, a statement, an authority, anything else). */
export const ANY_HOLDER_DOCUMENT_TYPES: ReadonlySet<DocumentType> = new Set<DocumentType>([
  "PROOF_OF_ADDRESS",
  "BANK_STATEMENT",
  "TAX_RETURN",
  "POWER_OF_ATTORNEY",
  "UTILITY_BILL",
  "ELECTRICITY_BILL",
  "RENT_OR_LEASE_AGREEMENT",
  "OTHER"
])

/** Documents only a business can hold: every other type (its registrations, registers and agreements). */
export const BUSINESS_ONLY_DOCUMENT_TYPES: ReadonlySet<DocumentType> = new Set<DocumentType>(
  DocumentTypeSchema.literals.filter((t) => !PERSON_ONLY_DOCUMENT_TYPES.has(t) && !ANY_HOLDER_DOCUMENT_TYPES.has(t))
)

export interface HolderView {
  readonly kind: HolderKind
  readonly idType?: string | undefined
  readonly identifier?: string | undefined
}

const normaliseNumber = (s: string): string => s.replace(/[\s.-]/g, "").toUpperCase()

/** Checks the metadata against its holder; sandbox platforms add the magic document numbers. */
export const checkDocumentMetadata = (
  holder: HolderView,
  meta: { readonly documentType: DocumentType; readonly documentNumber?: string | undefined },
  sandbox: boolean
): Result<void, Rejection<"UNSUITABLE_DOCUMENT" | "DATA_MISMATCH" | DocumentRejectionCode>> => {
  const unsuitable = holder.kind === "BUSINESS"
    ? PERSON_ONLY_DOCUMENT_TYPES.has(meta.documentType)
    : BUSINESS_ONLY_DOCUMENT_TYPES.has(meta.documentType)
  if (unsuitable) {
    const who = holder.kind === "BUSINESS" ? "a business" : holder.kind === "INDIVIDUAL" ? "an individual" : "a beneficial owner"
    return fail(reject("UNSUITABLE_DOCUMENT", `A ${meta.documentType} cannot belong to ${who}`, { errors: [{ field: "documentType", constraint: "suitableForHolder", message: `is not a document ${who} can hold` }] }))
  }
  if (
    isIdentityDocument(meta.documentType) && meta.documentType === holder.idType &&
    meta.documentNumber !== undefined && holder.identifier !== undefined &&
    normaliseNumber(meta.documentNumber) !== normaliseNumber(holder.identifier)
  ) {
    return fail(reject("DATA_MISMATCH", `The ${meta.documentType} number does not match the holder's identifier`, { errors: [{ field: "documentNumber", constraint: "matchesHolder", message: "must match the holder's identifier for this idType" }] }))
  }
  if (sandbox && meta.documentNumber !== undefined) {
    const rejection = sandboxDocumentRejection(meta.documentNumber)
    if (rejection !== undefined) return fail(rejection)
  }
  return ok(undefined)
}
