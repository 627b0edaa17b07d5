/**
 * Bulk customer import: `POST /customers/bulk/csv` and `GET /customers/bulk/jobs/{jobId}`.
 *
 * - The upload parses the CSV (csv-parse, bounded by MAX_BULK_CSV_BYTES and
 *   MAX_BULK_CSV_ROWS), checks the header, stores the job PENDING with its rows and
 *   schedules its first step BULK_STEP_SECONDS later on the platform's clock. A file
 *   that is not CSV, has no usable header or too many rows is a 400; rows are not
 *   validated here.
 * - Each step (a scheduler timer) takes the next BULK_ROWS_PER_STEP rows: each row is
 *   decoded into `CustomerCreateRequest` and given to `createCustomer`, the operation
 *   `POST /customers` runs (same rules, same sandbox outcomes by name suffix), in its own
 *   savepoint, so a failed row records its error and never blocks the others. The job's
 *   progress is written in the same unit of work; the next step is scheduled while rows
 *   remain, else the job ends COMPLETED (FAILED when no row succeeded) and
 *   BULK_UPLOAD.COMPLETED or BULK_UPLOAD.FAILED is emitted.
 */
import { Effect, Exit, Schema } from "effect"
import { parse } from "csv-parse/sync"
import {
  BULK_CSV_COLUMNS,
  BULK_CSV_REQUIRED_HEADER,
  type BulkCsvColumn,
  type BulkCsvRow,
  type BulkCustomerImportErrorEntry,
  type BulkCustomerImportJob,
  requestOfRow
} from "../domain/bulk-job.js"
import { CustomerCreateRequest } from "../domain/customer.js"
import type { UploadedFile } from "../domain/document.js"
import { type FieldError, invalidInput, notFound } from "../domain/errors.js"
import { BULK_ROWS_PER_STEP, BULK_STEP_SECONDS, MAX_BULK_CSV_BYTES, MAX_BULK_CSV_ROWS, MAX_BULK_JOB_ERRORS } from "../domain/limits.js"
import type { Platform } from "../domain/platform.js"
import { fieldErrors } from "../domain/validation.js"
import { Ids } from "../ports/ids.js"
import { type BulkJobRecord, Store, type TimerRecord, type UnitOfWork } from "../ports/store.js"
import { createCustomer } from "./customers.js"
import { emit, schedule } from "./transition.js"
import { nowIso, nowMillis } from "./time.js"

/** The scheduler's timer kind for bulk job steps. */
export const BULK_JOB_TIMER = "bulk-job"
const STEP_EVENT = "PROCESS_NEXT_ROWS"

const csvProblem = (message: string, extra: Partial<FieldError> = {}) =>
  invalidInput(`Invalid CSV file: ${message}`, [{ field: "file", constraint: "csv", message, ...extra }])

const isColumn = (name: string): name is BulkCsvColumn => (BULK_CSV_COLUMNS as ReadonlyArray<string>).includes(name)

/** The file's rows as column → non-empty cell, or a 400 naming what is wrong with the file. */
export const parseCustomersCsv = (bytes: Uint8Array) =>
  Effect.gen(function*() {
    if (bytes.byteLength > MAX_BULK_CSV_BYTES) {
      return yield* invalidInput(`The file is larger than the ${MAX_BULK_CSV_BYTES} byte limit`, [{
        field: "file",
        constraint: "maxBytes",
        message: `must be at most ${MAX_BULK_CSV_BYTES} bytes`
      }])
    }
    const text = new TextDecoder("utf-8", { fatal: false }).decode(bytes)
    const records = yield* Effect.try({
      // The header, at most MAX_BULK_CSV_ROWS rows, and one more to tell an oversized file.
      try: (): ReadonlyArray<ReadonlyArray<string>> =>
        parse(text, { bom: true, skip_empty_lines: true, relax_column_count_less: true, trim: true, to: MAX_BULK_CSV_ROWS + 2 }),
      catch: (e) => csvProblem(e instanceof Error ? e.message : "the file is not valid CSV")
    })
    const [header, ...data] = records
    if (header === undefined) return yield* csvProblem("the file is empty: a header row and at least one customer row are required")
    const problems: Array<FieldError> = []
    const seen = new Set<string>()
    for (const name of header) {
      if (!isColumn(name)) problems.push({ field: "file", constraint: "column", message: `unknown column ${JSON.stringify(name.slice(0, 64))}` })
      else if (seen.has(name)) problems.push({ field: "file", constraint: "column", message: `column ${name} appears twice` })
      seen.add(name)
    }
    for (const name of BULK_CSV_REQUIRED_HEADER) {
      if (!seen.has(name)) problems.push({ field: "file", constraint: "column", message: `the header must name the column ${name}` })
    }
    if (problems.length > 0) return yield* invalidInput(`Invalid CSV header: ${problems.map((p) => p.message).join("; ")}`, problems)
    if (data.length === 0) return yield* csvProblem("the file has no customer rows")
    if (data.length > MAX_BULK_CSV_ROWS) {
      return yield* invalidInput(`The file has more than ${MAX_BULK_CSV_ROWS} customer rows`, [{
        field: "file",
        constraint: "maxRows",
        message: `must hold at most ${MAX_BULK_CSV_ROWS} customer rows`
      }])
    }
    return data.map((cells): BulkCsvRow => {
      const row: Partial<Record<BulkCsvColumn, string>> = {}
      header.forEach((name, i) => {
        const cell = cells[i]
        if (isColumn(name) && cell !== undefined && cell !== "") row[name] = cell
      })
      return row
    })
  })

/** POST /customers/bulk/csv: 202 with the PENDING job; processing runs on the platform's clock. */
export const uploadCustomersCsv = Effect.fnUntraced(function*(platform: Platform, file: UploadedFile) {
  const rows = yield* parseCustomersCsv(file.bytes)
  const store = yield* Store
  const ids = yield* Ids
  const id = yield* ids.make("Job")
  const createdAt = yield* nowIso
  const now = yield* nowMillis
  const record: BulkJobRecord = {
    platformId: platform.id,
    createdAt,
    nextRow: 0,
    job: { id, status: "PENDING", progress: { total: rows.length, processed: 0, successful: 0, failed: 0 }, errors: [] }
  }
  yield* store.transact((uow) =>
    Effect.gen(function*() {
      yield* uow.createBulkJob(record, rows)
      yield* schedule(uow, platform, BULK_JOB_TIMER, id, { at: now + BULK_STEP_SECONDS * 1000, event: STEP_EVENT })
    })
  )
  return { jobId: id, status: "PENDING" as const }
})

/** GET /customers/bulk/jobs/{jobId}. */
export const getBulkJob = Effect.fnUntraced(function*(platform: Platform, jobId: string) {
  const store = yield* Store
  const record = yield* store.bulkJobs.get(platform.id, jobId)
  if (record === undefined) return yield* notFound(`Bulk upload job ${jobId} not found`, "BULK_UPLOAD_JOB_NOT_FOUND")
  return record.job
})

interface ApiErrorLike {
  readonly code: string
  readonly reason: string
  readonly details?: Readonly<Record<string, unknown>> | undefined
}

const isApiError = (e: unknown): e is ApiErrorLike =>
  typeof e === "object" && e !== null && "code" in e && typeof e.code === "string" && "reason" in e && typeof e.reason === "string"

const correlationIdOf = (row: BulkCsvRow, index: number) => row.platformCustomerId ?? `row_${index + 1}`

const rowError = (row: BulkCsvRow, index: number, code: string, message: string, details: Record<string, unknown> = {}): BulkCustomerImportErrorEntry => ({
  correlationId: correlationIdOf(row, index),
  code,
  message,
  details: { row: index + 1, ...details }
})

const decodeRequest = Schema.decodeUnknownExit(CustomerCreateRequest, { errors: "all", onExcessProperty: "error" })

/** Creates the customer one row stands for, as POST /customers would; its error entry when it fails. */
const processRow = (platform: Platform, row: BulkCsvRow, index: number) =>
  Effect.gen(function*() {
    const mapped = requestOfRow(row)
    if (!mapped.ok) {
      const message = mapped.problems.map((p) => `${p.field} ${p.message}`).join("; ")
      return rowError(row, index, "INVALID_INPUT", `Invalid row: ${message}`, { errors: mapped.problems })
    }
    const decoded = decodeRequest(mapped.body)
    if (Exit.isFailure(decoded)) {
      const failure = decoded.cause.reasons.find((r) => r._tag === "Fail")
      const errors = failure !== undefined && failure._tag === "Fail" && Schema.isSchemaError(failure.error)
        ? fieldErrors(failure.error.issue, mapped.body)
        : [{ field: "(row)", constraint: "invalid", message: "is not a valid customer" }]
      return rowError(row, index, "INVALID_INPUT", `Invalid row: ${errors.map((e) => `${e.field} ${e.message}`).join("; ")}`, { errors })
    }
    const store = yield* Store
    const created = yield* Effect.result(store.transact(() => createCustomer(platform, decoded.value)))
    if (created._tag === "Success") return undefined
    const error: unknown = created.failure
    return isApiError(error)
      ? rowError(row, index, error.code, error.reason, error.details === undefined ? {} : { ...error.details })
      : rowError(row, index, "INVALID_INPUT", "The row could not be created")
  })

/** One step of a bulk job (the scheduler's handler for BULK_JOB_TIMER). */
export const applyBulkJobTimer = (uow: UnitOfWork, platform: Platform, timer: TimerRecord) =>
  Effect.gen(function*() {
    const store = yield* Store
    const record = yield* store.bulkJobs.get(platform.id, timer.subjectId)
    if (record === undefined) return yield* Effect.fail(notFound(`Bulk upload job ${timer.subjectId} not found`, "BULK_UPLOAD_JOB_NOT_FOUND"))
    const job = record.job
    if (job.status === "COMPLETED" || job.status === "FAILED") return
    const rows = yield* store.bulkJobs.rows(platform.id, job.id, record.nextRow, BULK_ROWS_PER_STEP)
    let { successful, failed } = job.progress
    const errors: Array<BulkCustomerImportErrorEntry> = [...(job.errors ?? [])]
    for (const [offset, row] of rows.entries()) {
      const problem = yield* processRow(platform, row, record.nextRow + offset)
      if (problem === undefined) {
        successful++
      } else {
        failed++
        if (errors.length < MAX_BULK_JOB_ERRORS) errors.push(problem)
      }
    }
    const nextRow = record.nextRow + rows.length
    const done = nextRow >= job.progress.total || rows.length === 0
    const processed = successful + failed
    const next: BulkCustomerImportJob = {
      id: job.id,
      status: !done ? "PROCESSING" : successful === 0 ? "FAILED" : "COMPLETED",
      progress: { total: job.progress.total, processed, successful, failed },
      errors,
      ...(done ? { completedAt: yield* nowIso } : {})
    }
    yield* uow.putBulkJob({ ...record, job: next, nextRow })
    if (!done) {
      yield* schedule(uow, platform, BULK_JOB_TIMER, job.id, { at: timer.at + BULK_STEP_SECONDS * 1000, event: STEP_EVENT })
    } else {
      yield* emit(uow, platform, next.status === "FAILED" ? "BULK_UPLOAD.FAILED" : "BULK_UPLOAD.COMPLETED", { data: next })
    }
  })
