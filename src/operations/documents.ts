/**
 * Document use cases. The file is checked by content (rules/documents.ts) before
 * anything is stored; only its fingerprint is kept. A document belongs to a customer
 * or a beneficial owner of the same platform; another platform's holder is not found.
 */
import { sha256 } from "@noble/hashes/sha2.js"
import { bytesToHex } from "@noble/hashes/utils.js"
import { Effect } from "effect"
import type { Document, DocumentReplaceFields, DocumentUploadFields, UploadedFile } from "../domain/document.js"
import { conflict } from "../domain/errors.js"
import type { Platform } from "../domain/platform.js"
import { Ids } from "../ports/ids.js"
import { type DocumentRecord, Store, type StoreConflict } from "../ports/store.js"
import { conflictIsDefect, type PageQuery, pageRequestOf, shownPageOf } from "./paging.js"
import { fromResult, rejected } from "./rejection.js"
import { checkDocumentFile, checkDocumentMetadata, type HolderView } from "../rules/documents.js"
import { nowIso } from "./time.js"
import { missing } from "./not-found.js"

const documentNotFound = (id: string) => missing("document", `Document ${id} not found`)

/** The holder a document names, as the document rules see it, or 404. */
export const documentHolder = Effect.fnUntraced(function*(platform: Platform, holderId: string) {
  const store = yield* Store
  const gone = missing(holderId.startsWith("BeneficialOwner:") ? "beneficialOwner" : "customer", `Document holder ${holderId} not found: it must be an active customer or a beneficial owner of this platform`)
  if (holderId.startsWith("BeneficialOwner:")) {
    const rec = yield* store.beneficialOwners.get(platform.id, holderId)
    if (rec === undefined) return yield* gone
    const info = rec.owner.personalInfo
    return { kind: "BENEFICIAL_OWNER", idType: info.idType, identifier: info.identifier } satisfies HolderView
  }
  const rec = yield* store.customers.get(platform.id, holderId)
  if (rec === undefined || rec.deletedAt !== undefined) return yield* gone
  const c = rec.customer
  return c.customerType === "INDIVIDUAL"
    ? { kind: "INDIVIDUAL", idType: c.idType, identifier: c.identifier } satisfies HolderView
    : { kind: "BUSINESS" } satisfies HolderView
})

const checkFile = (file: UploadedFile) => {
  return fromResult(checkDocumentFile(file))
}

const fingerprint = (file: UploadedFile, mediaType: string) => ({
  sizeBytes: file.bytes.length,
  sha256: bytesToHex(sha256(file.bytes)),
  mediaType
})

const fileNameOf = (file: UploadedFile, kind: string) =>
  file.fileName.trim() !== "" ? file.fileName.trim().slice(0, 255) : `document.${kind.toLowerCase()}`

const optionalMetadata = (fields: DocumentReplaceFields) => ({
  ...(fields.side !== undefined ? { side: fields.side } : {}),
  ...(fields.documentNumber !== undefined ? { documentNumber: fields.documentNumber } : {}),
  ...(fields.issuingAuthority !== undefined ? { issuingAuthority: fields.issuingAuthority } : {})
})

const sameTypeExists = (documentType: string, holderId: string, existing: DocumentRecord) =>
  conflict(
    "DOCUMENT_ALREADY_EXISTS",
    `${holderId} already has a ${documentType} document (${existing.document.id}); replace it with PUT /documents/${existing.document.id}`,
    { details: { existingDocumentId: existing.document.id, documentType } }
  )

/** The store's unique index refused a second document of one type for a holder (a concurrent upload won). */
const documentRaceLost = (e: StoreConflict) =>
  e.constraint === "documents_holder_type"
    ? Effect.fail(conflict("DOCUMENT_ALREADY_EXISTS", "A document of this type was uploaded for this holder by a concurrent request"))
    : conflictIsDefect(e)

export const uploadDocument = Effect.fnUntraced(function*(
  platform: Platform,
  fields: DocumentUploadFields,
  file: UploadedFile
) {
  const store = yield* Store
  const ids = yield* Ids
  const checked = yield* checkFile(file)
  return yield* store.transact((uow) =>
    Effect.gen(function*() {
      const holder = yield* documentHolder(platform, fields.documentHolder)
      const meta = checkDocumentMetadata(holder, fields, platform.settings.sandbox)
      if (!meta.ok) return yield* rejected(meta.error)
      const existing = (yield* store.documents.listByHolder(platform.id, fields.documentHolder))
        .find((d) => d.document.documentType === fields.documentType)
      if (existing !== undefined) return yield* sameTypeExists(fields.documentType, fields.documentHolder, existing)
      const now = yield* nowIso
      const document: Document = {
        id: yield* ids.make("Document"),
        documentHolder: fields.documentHolder,
        documentType: fields.documentType,
        country: fields.country,
        ...optionalMetadata(fields),
        fileName: fileNameOf(file, checked.kind),
        createdAt: now,
        updatedAt: now
      }
      yield* uow.putDocument({ platformId: platform.id, document, file: fingerprint(file, checked.mediaType) })
      return document
    })
  ).pipe(Effect.catchTag("StoreConflict", documentRaceLost))
})

/** PUT /documents/{id}: new file and metadata for the same holder; clears a poor-quality mark. */
export const replaceDocument = Effect.fnUntraced(function*(
  platform: Platform,
  id: string,
  fields: DocumentReplaceFields,
  file: UploadedFile
) {
  const store = yield* Store
  const checked = yield* checkFile(file)
  return yield* store.transact((uow) =>
    Effect.gen(function*() {
      const rec = yield* store.documents.get(platform.id, id)
      if (rec === undefined) return yield* documentNotFound(id)
      if (rec.locked === true) {
        return yield* conflict("CONFLICT", `Document ${id} was part of a verification that was taken for a decision; it can no longer be replaced`)
      }
      const holderId = rec.document.documentHolder
      const holder = yield* documentHolder(platform, holderId)
      const meta = checkDocumentMetadata(holder, fields, platform.settings.sandbox)
      if (!meta.ok) return yield* rejected(meta.error)
      const clash = (yield* store.documents.listByHolder(platform.id, holderId))
        .find((d) => d.document.id !== id && d.document.documentType === fields.documentType)
      if (clash !== undefined) return yield* sameTypeExists(fields.documentType, holderId, clash)
      const now = yield* nowIso
      const document: Document = {
        id,
        documentHolder: holderId,
        documentType: fields.documentType,
        country: fields.country,
        ...optionalMetadata(fields),
        fileName: fileNameOf(file, checked.kind),
        createdAt: rec.document.createdAt,
        updatedAt: now
      }
      yield* uow.putDocument({ platformId: platform.id, document, file: fingerprint(file, checked.mediaType) })
      return document
    })
  ).pipe(Effect.catchTag("StoreConflict", documentRaceLost))
})

export const getDocument = Effect.fnUntraced(function*(platform: Platform, id: string) {
  const store = yield* Store
  const rec = yield* store.documents.get(platform.id, id)
  if (rec === undefined) return yield* documentNotFound(id)
  return rec.document
})

export const listDocuments = Effect.fnUntraced(function*(
  platform: Platform,
  query: PageQuery & { readonly documentHolder?: string | undefined }
) {
  const store = yield* Store
  return yield* shownPageOf(store.documents.list(platform.id, { documentHolder: query.documentHolder }, pageRequestOf(query)), (r) => r.document)
})

export const deleteDocument = Effect.fnUntraced(function*(platform: Platform, id: string) {
  const store = yield* Store
  yield* store.transact((uow) =>
    Effect.gen(function*() {
      const rec = yield* store.documents.get(platform.id, id)
      if (rec === undefined) return yield* documentNotFound(id)
      if (rec.locked === true) {
        return yield* conflict("CONFLICT", `Document ${id} was part of a verification that was taken for a decision; it cannot be deleted`)
      }
      yield* uow.deleteDocument(platform.id, id)
    })
  )
})
