/**
 * The Store contract for bulk customer import jobs (`bulkJobs.get`, `bulkJobs.rows`,
 * `createBulkJob`, `putBulkJob`), run against every Store (memory, PGlite in memory,
 * PostgreSQL on a fresh database of the run's throwaway cluster): a job and its rows
 * stored once, its state rewritten while the rows stay, slices in file order, per
 * platform, a failed unit of work leaves nothing, resetPlatform deletes only its own
 * platform's jobs, and on PostgreSQL a job survives a restart (a new store on the same
 * database reads it and its rows).
 */
import { Effect, ManagedRuntime } from "effect"
import { describe, expect, it } from "vitest"
import type { BulkCsvRow } from "../../src/domain/bulk-job.js"
import { Store, type BulkJobRecord } from "../../src/ports/store.js"
import { KINDS, layerFor, storeSuite } from "../support/store-harness.js"

let seq = 0
const record = (platformId: string): BulkJobRecord => ({
  platformId,
  createdAt: "2026-01-01T00:00:00.000Z",
  nextRow: 0,
  job: { id: `Job:contract-${Date.now().toString(36)}-${++seq}`, status: "PENDING", progress: { total: 5, processed: 0, successful: 0, failed: 0 }, errors: [] }
})
const rows: ReadonlyArray<BulkCsvRow> = Array.from({ length: 5 }, (_, i) => ({
  platformCustomerId: `pc-${i}`,
  customerType: "INDIVIDUAL",
  fullName: i === 3 ? "Quote \"and\", comma" : `Row ${i}`
}))

describe.each(KINDS)("Bulk job store contract on %s", (kind) => {
  const { storeIt, databaseUrl } = storeSuite(kind)

  storeIt("create with rows, read slices in order, rewrite the state while the rows stay", (store, p) =>
    Effect.gen(function*() {
      const r = record(p)
      expect(yield* store.bulkJobs.get(p, r.job.id)).toBeUndefined()
      expect(yield* store.bulkJobs.rows(p, r.job.id, 0, 10)).toEqual([])
      yield* store.transact((uow) => uow.createBulkJob(r, rows))
      expect(yield* store.bulkJobs.get(p, r.job.id)).toEqual(r)
      expect(yield* store.bulkJobs.rows(p, r.job.id, 0, 2)).toEqual(rows.slice(0, 2))
      expect(yield* store.bulkJobs.rows(p, r.job.id, 2, 10)).toEqual(rows.slice(2))
      expect(yield* store.bulkJobs.rows(p, r.job.id, 5, 10)).toEqual([])
      const moved: BulkJobRecord = {
        ...r,
        nextRow: 2,
        job: {
          ...r.job,
          status: "PROCESSING",
          progress: { total: 5, processed: 2, successful: 1, failed: 1 },
          errors: [{ correlationId: "pc-1", code: "INVALID_INPUT", message: "Invalid row", details: { row: 2 } }]
        }
      }
      yield* store.transact((uow) => uow.putBulkJob(moved))
      expect(yield* store.bulkJobs.get(p, r.job.id)).toEqual(moved)
      expect(yield* store.bulkJobs.rows(p, r.job.id, 0, 5)).toEqual(rows)
      // Another platform does not see it.
      expect(yield* store.bulkJobs.get(`${p}-other`, r.job.id)).toBeUndefined()
      expect(yield* store.bulkJobs.rows(`${p}-other`, r.job.id, 0, 5)).toEqual([])
    }))

  storeIt("a failed unit of work leaves nothing; rewriting a job never stored is a defect", (store, p) =>
    Effect.gen(function*() {
      const r = record(p)
      const exit = yield* Effect.exit(store.transact((uow) => Effect.andThen(uow.createBulkJob(r, rows), Effect.fail("abandon"))))
      expect(exit._tag).toBe("Failure")
      expect(yield* store.bulkJobs.get(p, r.job.id)).toBeUndefined()
      const missing = yield* Effect.exit(store.transact((uow) => uow.putBulkJob(record(p))))
      expect(missing._tag).toBe("Failure")
    }))

  storeIt("resetPlatform deletes the platform's jobs and no other's", (store, p) =>
    Effect.gen(function*() {
      const mine = record(p)
      const theirs = record(`${p}-other`)
      yield* store.transact((uow) => Effect.andThen(uow.createBulkJob(mine, rows), uow.createBulkJob(theirs, rows)))
      yield* store.transact((uow) => uow.resetPlatform(p))
      expect(yield* store.bulkJobs.get(p, mine.job.id)).toBeUndefined()
      expect(yield* store.bulkJobs.get(`${p}-other`, theirs.job.id)).toEqual(theirs)
    }))

  if (kind === "postgres") {
    it("a job survives a restart: a new store on the same database reads it and its rows", async () => {
      const url = databaseUrl()
      const r = record("plat-restart")
      const first = ManagedRuntime.make(layerFor(kind, url))
      await first.runPromise(Effect.flatMap(Effect.service(Store), (s) => s.transact((uow) => uow.createBulkJob(r, rows))))
      await first.dispose()
      const second = ManagedRuntime.make(layerFor(kind, url))
      const [job, stored] = await second.runPromise(
        Effect.flatMap(Effect.service(Store), (s) => Effect.all([s.bulkJobs.get(r.platformId, r.job.id), s.bulkJobs.rows(r.platformId, r.job.id, 0, 10)]))
      )
      await second.dispose()
      expect(job).toEqual(r)
      expect(stored).toEqual(rows)
    })
  }
})
