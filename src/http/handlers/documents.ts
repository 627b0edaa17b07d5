import { Effect } from "effect"
import { DocumentReplaceFields, DocumentUploadFields } from "../../domain/document.js"
import * as Documents from "../../operations/documents.js"
import { implement } from "../concerns.js"
import { DocumentsGroup } from "../groups/documents.js"
import { readDocumentForm } from "../multipart.js"
import { run } from "./run.js"

export const DocumentsHandlers = implement(DocumentsGroup, (handlers) =>
  handlers
    .handle("uploadDocument", ({ payload }) =>
      Effect.flatMap(readDocumentForm(payload, DocumentUploadFields), (form) =>
        run((p) => Documents.uploadDocument(p, form.fields, form.file))))
    .handle("listDocuments", ({ query }) => run((p) => Documents.listDocuments(p, query)))
    .handle("getDocument", ({ params }) => run((p) => Documents.getDocument(p, params.documentId)))
    .handle("replaceDocument", ({ params, payload }) =>
      Effect.flatMap(readDocumentForm(payload, DocumentReplaceFields), (form) =>
        run((p) => Documents.replaceDocument(p, params.documentId, form.fields, form.file))))
    .handle("deleteDocument", ({ params }) => run((p) => Documents.deleteDocument(p, params.documentId))))
