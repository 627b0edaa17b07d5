/**
 * Verification documents. Uploads are multipart/form-data, read as a stream so the
 * file never touches disk and the 10 MB limit stops an oversized part early.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { IdText, ListResponse, PageQuery } from "../../domain/common.js"
import { Document, DocumentReplaceForm, DocumentUploadForm, MAX_DOCUMENT_BYTES } from "../../domain/document.js"
import { Error404, Error409 } from "../../domain/errors.js"

/**
 * Parser limits: they bound memory (the file a little over 10 MB, small text fields, a
 * handful of parts); the exact 10 MB rule is rules/documents.ts's.
 */
export const DOCUMENT_FORM_LIMITS = {
  maxFileSize: MAX_DOCUMENT_BYTES + 64 * 1024,
  maxFieldSize: 64 * 1024,
  maxParts: 16,
  maxTotalSize: MAX_DOCUMENT_BYTES + 1024 * 1024
} as const

const params = { documentId: IdText }

export class DocumentsGroup extends HttpApiGroup.make("documents")
  .add(
    HttpApiEndpoint.post("uploadDocument", "/documents", {
      payload: DocumentUploadForm.pipe(HttpApiSchema.asMultipartStream(DOCUMENT_FORM_LIMITS)),
      success: Document.pipe(HttpApiSchema.status(201)),
      error: [Error404, Error409]
    }),
    HttpApiEndpoint.get("listDocuments", "/documents", {
      query: { ...PageQuery, documentHolder: Schema.optionalKey(IdText) },
      success: ListResponse(Document, "DocumentListResponse")
    }),
    HttpApiEndpoint.get("getDocument", "/documents/:documentId", {
      params,
      success: Document,
      error: Error404
    }),
    HttpApiEndpoint.put("replaceDocument", "/documents/:documentId", {
      params,
      payload: DocumentReplaceForm.pipe(HttpApiSchema.asMultipartStream(DOCUMENT_FORM_LIMITS)),
      success: Document,
      error: [Error404, Error409]
    }),
    HttpApiEndpoint.delete("deleteDocument", "/documents/:documentId", {
      params,
      success: HttpApiSchema.NoContent,
      error: [Error404, Error409]
    })
  )
  .annotateMerge(OpenApi.annotations({ title: "Documents" }))
{}
