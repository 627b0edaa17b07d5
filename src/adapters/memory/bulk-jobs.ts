/** Bulk customer import jobs, in memory (see ./store.ts): per platform, each with its rows. */
import { Effect } from "effect"
import type { BulkCsvRow } from "../../domain/bulk-job.js"
import type { BulkJobRecord, BulkJobWrites } from "../../ports/bulk-jobs.js"
import { millisOf } from "../cursor.js"
import type { MemoryArea, MemoryContext } from "./context.js"
import { MemoryTable } from "./table.js"

interface StoredBulkJob {
  readonly record: BulkJobRecord
  readonly rows: ReadonlyArray<BulkCsvRow>
}

export interface BulkJobTables {
  readonly bulkJobs: MemoryTable<StoredBulkJob>
}

export const bulkJobTables = (): BulkJobTables => ({
  bulkJobs: new MemoryTable<StoredBulkJob>({
    id: (r) => r.record.job.id,
    createdAt: (r) => millisOf(r.record.createdAt)
  })
})

export const makeBulkJobArea = (m: MemoryContext<BulkJobTables>): MemoryArea<"bulkJobs", BulkJobWrites> => ({
  repositories: {
    bulkJobs: {
      get: (platformId, id) => m.read(() => m.peek(platformId)?.bulkJobs.get(id)?.record),
      rows: (platformId, id, from, count) =>
        m.read(() => m.peek(platformId)?.bulkJobs.get(id)?.rows.slice(Math.max(0, from), Math.max(0, from) + Math.max(0, count)) ?? [])
    }
  },
  writes: {
    createBulkJob: (record, rows) =>
      Effect.orDie(m.putRow(m.tenantOf(record.platformId).bulkJobs, record.job.id, { record, rows: [...rows] })),
    putBulkJob: (record) =>
      Effect.suspend(() => {
        const table = m.tenantOf(record.platformId).bulkJobs
        const held = table.get(record.job.id)
        if (held === undefined) return Effect.die(new Error(`bulk job ${record.job.id} is not stored`))
        return Effect.orDie(m.putRow(table, record.job.id, { record, rows: held.rows }))
      })
  }
})
