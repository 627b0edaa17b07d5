/**
 * The bulk jobs part of the SQL Store (migration `15_bulk_jobs`): one row per bulk
 * customer import job, its state as a JSON document (rewritten after each batch) and its
 * rows as a JSON array written once at the upload (a batch reads only its slice).
 * ./store.ts wires it in.
 */
import { Effect } from "effect"
import type { BulkCsvRow } from "../../domain/bulk-job.js"
import type { BulkJobRecord, BulkJobWrites } from "../../ports/bulk-jobs.js"
import { millisOf } from "../cursor.js"
import { documentReads, type Query, type SqlArea } from "./documents.js"

/** The tables of migration `15_bulk_jobs` that `resetPlatform` clears. */
export const BULK_JOB_TABLES: ReadonlyArray<string> = ["bulk_jobs"]

export type BulkJobStore = SqlArea<"bulkJobs", BulkJobWrites>

export const makeBulkJobStore = (query: Query): BulkJobStore => {
  const { one } = documentReads(query)
  return {
    tables: BULK_JOB_TABLES,
    writes: {
      createBulkJob: (r: BulkJobRecord, rows: ReadonlyArray<BulkCsvRow>) =>
        Effect.asVoid(query(
          `insert into bulk_jobs (platform_id, id, created_ms, status, doc, rows)
           values ($1, $2, $3::bigint, $4, $5::jsonb, $6::jsonb)`,
          [r.platformId, r.job.id, millisOf(r.createdAt), r.job.status, JSON.stringify(r), JSON.stringify(rows)]
        )),
      putBulkJob: (r: BulkJobRecord) =>
        Effect.flatMap(
          query<{ id: string }>(
            `update bulk_jobs set status = $3, doc = $4::jsonb where platform_id = $1 and id = $2 returning id`,
            [r.platformId, r.job.id, r.job.status, JSON.stringify(r)]
          ),
          (updated) => updated.length === 1 ? Effect.void : Effect.die(new Error(`bulk job ${r.job.id} is not stored`))
        )
    },
    repositories: {
      bulkJobs: {
        get: (platformId, id) => one<BulkJobRecord>(`select doc::text as doc from bulk_jobs where platform_id = $1 and id = $2`, [platformId, id]),
        rows: (platformId, id, from, count) =>
          Effect.map(
            query<{ rows: string }>(
              `select coalesce(jsonb_agg(t.e order by t.i), '[]'::jsonb)::text as rows
                 from bulk_jobs, jsonb_array_elements(bulk_jobs.rows) with ordinality as t(e, i)
                where bulk_jobs.platform_id = $1 and bulk_jobs.id = $2 and t.i > $3::bigint and t.i <= $4::bigint`,
              [platformId, id, Math.max(0, from), Math.max(0, from) + Math.max(0, count)]
            ),
            (result) => (result[0] === undefined ? [] : JSON.parse(result[0].rows) as ReadonlyArray<BulkCsvRow>)
          )
      }
    }
  }
}
