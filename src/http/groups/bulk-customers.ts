/**
 * Bulk customer import: POST /customers/bulk/csv (multipart, one `file` part, read as
 * a stream bounded by BULK_CSV_FORM_LIMITS) answers 202 with the PENDING job;
 * GET /customers/bulk/jobs/{jobId} reports its status, progress and per-row errors.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiSchema, OpenApi } from "effect/http-api"
import { BulkCustomerImportJob, BulkCustomerImportJobAccepted } from "../../domain/bulk-job.js"
import { IdText } from "../../domain/common.js"
import { Error404 } from "../../domain/errors.js"
import { BULK_CSV_FORM_LIMITS } from "../../domain/limits.js"
import { apiGroup } from "../endpoints.js"

const CsvFilePart = Schema.String.annotate({
  description: "The CSV file of customers (UTF-8, a header row naming the reference's columns), at most MAX_BULK_CSV_BYTES",
  format: "binary"
})

export const BulkCustomersCsvForm = Schema.Struct({ file: CsvFilePart }).annotate({ identifier: "BulkCustomersCsvRequest" })

export class BulkCustomersGroup extends apiGroup("bulkCustomers", { title: "Customers", permission: "MANAGE" },
  HttpApiEndpoint.post("uploadCustomersCsv", "/customers/bulk/csv", {
    payload: BulkCustomersCsvForm.pipe(HttpApiSchema.asMultipartStream(BULK_CSV_FORM_LIMITS)),
    success: BulkCustomerImportJobAccepted.pipe(HttpApiSchema.status(202))
  }).annotate(
    OpenApi.Description,
    "A CSV of customers (the reference's columns per customer type) becomes a PENDING job; it is processed in batches on the platform's clock, each row as POST /customers would create it. A file that is not CSV, has an unknown or missing header column, is too large or has too many rows: 400."
  ),
  HttpApiEndpoint.get("getBulkCustomerImportJob", "/customers/bulk/jobs/:jobId", {
    params: { jobId: IdText },
    success: BulkCustomerImportJob,
    error: Error404
  })
) {}
