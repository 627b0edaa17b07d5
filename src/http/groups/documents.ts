/**
 * Verification documents. Uploads are multipart/form-data, read as a stream so the
 * file never touches disk and the 10 MB limit stops an oversized part early.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { IdText, ListResponse, PageQuery } from "../../domain/common.js"
import { Document, DocumentReplaceForm, DocumentUploadForm } from "../../domain/document.js"
import { DOCUMENT_FORM_LIMITS } from "../../domain/limits.js"
import { Error404, Error409 } from "../../domain/errors.js"
import { Concerns, declare } from "../declarations.js"

const params = { documentId: IdText }

export class DocumentsGroup extends HttpApiGroup.make("documents")
  .annotate(Concerns, { permission: "MANAGE" })
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
