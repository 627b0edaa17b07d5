import { Effect } from "effect"
import { MAX_BULK_CSV_BYTES } from "../../domain/limits.js"
import * as Bulk from "../../operations/bulk-customers.js"
import { implement } from "../concerns.js"
import { BulkCustomersGroup } from "../groups/bulk-customers.js"
import { readFileOnlyForm } from "../multipart.js"
import { run } from "./run.js"

export const BulkCustomersHandlers = implement(BulkCustomersGroup, (handlers) =>
  handlers
    .handle("uploadCustomersCsv", ({ payload }) =>
      Effect.flatMap(readFileOnlyForm(payload, MAX_BULK_CSV_BYTES), (file) => run((p) => Bulk.uploadCustomersCsv(p, file))))
    .handle("getBulkCustomerImportJob", ({ params }) => run((p) => Bulk.getBulkJob(p, params.jobId))))
