/**
 * The bulk jobs part of the Store port (see ./store.ts): bulk customer import jobs. A job
 * is stored with its rows (written once, at the upload) and its state (rewritten after
 * each batch), so a job survives a restart on the durable stores and the scheduler's
 * next step picks up at `nextRow`.
 */
import type { Effect } from "effect"
import type { BulkCsvRow, BulkCustomerImportJob } from "../domain/bulk-job.js"

export interface BulkJobRecord {
  readonly platformId: string
  readonly job: BulkCustomerImportJob
  /** When it was uploaded (ISO, platform clock). */
  readonly createdAt: string
  /** Index of the first row not yet processed. */
  readonly nextRow: number
}

export interface BulkJobRepository {
  readonly get: (platformId: string, id: string) => Effect.Effect<BulkJobRecord | undefined>
  /** Rows `from` (0-based) up to `from + count` (fewer at the end), in file order. */
  readonly rows: (platformId: string, id: string, from: number, count: number) => Effect.Effect<ReadonlyArray<BulkCsvRow>>
}

export interface BulkJobWrites {
  /** Stores a new job with its rows. */
  readonly createBulkJob: (record: BulkJobRecord, rows: ReadonlyArray<BulkCsvRow>) => Effect.Effect<void>
  /** Rewrites a stored job's state (its rows stay). */
  readonly putBulkJob: (record: BulkJobRecord) => Effect.Effect<void>
}
