/** The documents part of the Store port (see ./store.ts). */
import type { Effect } from "effect"
import type { Document } from "../domain/document.js"
import type { RecordById, RecordList, StoreConflict } from "./shared.js"

export interface DocumentRecord {
  readonly platformId: string
  readonly document: Document
  /** What was stored of the file: its fingerprint, not its bytes. */
  readonly file: { readonly sizeBytes: number; readonly sha256: string; readonly mediaType: string }
  /** Marked of poor quality by a sandbox 003 submission; cleared when replaced. */
  readonly poorQuality?: boolean
  /** Part of a packet that was taken for a decision: the evidence can no longer change. */
  readonly locked?: boolean
}

export interface DocumentRepository extends RecordById<DocumentRecord>, RecordList<DocumentRecord, { readonly documentHolder?: string | undefined }> {
  /** Every document of one holder (a Customer or BeneficialOwner id), oldest first. */
  readonly listByHolder: (platformId: string, holderId: string) => Effect.Effect<ReadonlyArray<DocumentRecord>>
}

export interface DocumentWrites {
  readonly putDocument: (record: DocumentRecord) => Effect.Effect<void, StoreConflict>
  readonly deleteDocument: (platformId: string, id: string) => Effect.Effect<void>
}
