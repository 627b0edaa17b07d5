/**
 * Verification documents. Uploads are multipart/form-data, read as a stream so the
 * file never touches disk and the 10 MB limit stops an oversized part early.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiSchema, OpenApi } from "effect/http-api"
import { IdText, ListResponse } from "../../domain/common.js"
import { Document, DocumentReplaceForm, DocumentUploadForm } from "../../domain/document.js"
import { DOCUMENT_FORM_LIMITS } from "../../domain/limits.js"
import { acts, apiGroup, byId, created, deletes, NotFoundOrConflict, page } from "../endpoints.js"

const params = { documentId: IdText }

export class DocumentsGroup extends apiGroup("documents", { title: "Documents", permission: "MANAGE" },
  HttpApiEndpoint.post("uploadDocument", "/documents", {
    payload: DocumentUploadForm.pipe(HttpApiSchema.asMultipartStream(DOCUMENT_FORM_LIMITS)),
    success: created(Document),
    error: NotFoundOrConflict
  }),
  HttpApiEndpoint.get("listDocuments", "/documents", {
    query: page({ documentHolder: Schema.optionalKey(IdText) }),
    success: ListResponse(Document, "DocumentListResponse")
  }),
  HttpApiEndpoint.get("getDocument", "/documents/:documentId", byId(params, Document)),
  HttpApiEndpoint.put("replaceDocument", "/documents/:documentId", acts(
    params,
    DocumentReplaceForm.pipe(HttpApiSchema.asMultipartStream(DOCUMENT_FORM_LIMITS)),
    Document,
    NotFoundOrConflict
  )),
  HttpApiEndpoint.delete("deleteDocument", "/documents/:documentId", deletes(params, NotFoundOrConflict))
) {}
