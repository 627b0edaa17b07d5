/**
 * Conformance: the bulk customer upload answers (POST /customers/bulk/csv's 202,
 * GET /customers/bulk/jobs/{jobId} while PENDING, PROCESSING and COMPLETED with per-row
 * errors, and its 404) validate against the reference OpenAPI operation's schema for
 * their status, through the shared harness; so does the BULK_UPLOAD.COMPLETED event's
 * data (the reference's BulkCustomerImportJob).
 *
 * SPEC.md's differences that touch these bodies: none, so `SPEC_DIFFERENCES` is empty,
 * on purpose.
 */
import { afterAll, describe, expect, it } from "vitest"
import { BULK_ROWS_PER_STEP, BULK_STEP_SECONDS } from "../../src/domain/limits.js"
import { platformFromConfig } from "../../src/domain/platform.js"
import { basic, makeApi, type Reply } from "../support/api.js"
import { conformance, type Json } from "./harness.js"
import { BULK_CUSTOMER_OPERATIONS } from "./operations.js"

/** None: see the header comment. */
const SPEC_DIFFERENCES = (_: Record<string, Json>) => undefined

const { conforms, validator, schemaConforms, checked } = conformance(SPEC_DIFFERENCES)

const a = platformFromConfig({ id: "conformance-bulk", clientId: "conf-bulk", clientSecret: "conf-bulk-secret-1", regulated: true })
// Platform time moves only with the advances: the job runs in steps of a second.
const api = makeApi([a], undefined, { standingClock: true })
afterAll(() => api.dispose())

const upload = async (csv: string): Promise<Reply> => {
  const fd = new FormData()
  fd.append("file", new Blob([csv], { type: "text/csv" }), "customers.csv")
  const res = await api.handler(new Request("http://test/2025-10-13/customers/bulk/csv", { method: "POST", headers: { authorization: basic(a) }, body: fd }))
  return { status: res.status, body: await res.json() }
}

describe("bulk customer upload answers against the reference", () => {
  it("202 accepted; the job PENDING, PROCESSING, COMPLETED with per-row errors; the 404's code", async () => {
    const header = "umaAddress,platformCustomerId,customerType,fullName,birthDate,addressLine1,city,state,postalCode,country"
    const rows = Array.from({ length: BULK_ROWS_PER_STEP + 1 }, (_, i) =>
      i === 0 ? `conf${i}@conf.example.com,conf-bulk-${i},INDIVIDUAL,,1990-01-15,1 St,City,ST,12345,US`
      : `conf${i}@conf.example.com,conf-bulk-${i},INDIVIDUAL,Conf Person ${i},1990-01-15,1 St,City,ST,12345,US`)
    const accepted = await upload([header, ...rows].join("\n"))
    conforms("POST", "/customers/bulk/csv", accepted)
    const path = `/customers/bulk/jobs/${encodeURIComponent(accepted.body.jobId)}`
    conforms("GET", "/customers/bulk/jobs/{jobId}", await api.call("GET", path))
    await api.call("POST", "/sandbox/clock/advance", { body: { seconds: BULK_STEP_SECONDS } })
    const processing = await api.call("GET", path)
    expect(processing.body.status).toBe("PROCESSING")
    conforms("GET", "/customers/bulk/jobs/{jobId}", processing)
    await api.call("POST", "/sandbox/clock/advance", { body: { seconds: BULK_STEP_SECONDS } })
    const completed = await api.call("GET", path)
    expect(completed.body).toMatchObject({ status: "COMPLETED", progress: { failed: 1 } })
    conforms("GET", "/customers/bulk/jobs/{jobId}", completed)
    // The 404 carries the reference's Error404 code for it (the body is SPEC.md's error shape).
    const missing = await api.call("GET", "/customers/bulk/jobs/Job:unknown")
    expect(missing.status).toBe(404)
    expect(missing.body.code).toBe("BULK_UPLOAD_JOB_NOT_FOUND")
    schemaConforms("BulkUploadWebhook", { id: "Webhook:019542f5-b3e7-1d02-0000-000000000007", type: "BULK_UPLOAD.COMPLETED", timestamp: completed.body.completedAt, data: completed.body }, "BULK_UPLOAD.COMPLETED")
  })

  it("the validator bites", () => {
    expect(validator("BulkCustomerImportJob")({ id: "Job:x", status: "RUNNING", progress: { total: 1, processed: 0, successful: 0, failed: 0 } })).toBe(false)
    expect(validator("BulkCustomerImportJob")({ id: "Job:x", status: "PENDING", progress: { total: 1 } })).toBe(false)
  })

  it("every bulk endpoint was checked", () => {
    for (const op of BULK_CUSTOMER_OPERATIONS) expect(checked.get(op) ?? 0, op).toBeGreaterThan(0)
  })
})
