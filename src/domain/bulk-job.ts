/**
 * Bulk customer import (reference `BulkCustomerImportJobAccepted`, `BulkCustomerImportJob`,
 * `BulkCustomerImportErrorEntry`, and the CSV columns `POST /customers/bulk/csv`
 * describes). A job is PENDING after the upload, PROCESSING once its first batch ran,
 * COMPLETED when every row was tried, FAILED when every row failed.
 */
import { Schema } from "effect"
import { NamedStruct } from "./common.js"

export const BulkJobStatus = Schema.Literals(["PENDING", "PROCESSING", "COMPLETED", "FAILED"])
export type BulkJobStatus = typeof BulkJobStatus.Type

export const BulkCustomerImportJobAccepted = NamedStruct("BulkCustomerImportJobAccepted", {
  jobId: Schema.String,
  status: Schema.Literals(["PENDING", "PROCESSING"])
})

/** GridError (`code`, `message`, `details`) with the row's `correlationId` (its platformCustomerId, else `row_<n>`). */
export const BulkCustomerImportErrorEntry = NamedStruct("BulkCustomerImportErrorEntry", {
  correlationId: Schema.String,
  code: Schema.String,
  message: Schema.String,
  details: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown))
})
export type BulkCustomerImportErrorEntry = typeof BulkCustomerImportErrorEntry.Type

export const BulkCustomerImportJob = NamedStruct("BulkCustomerImportJob", {
  id: Schema.String,
  status: BulkJobStatus,
  progress: Schema.Struct({
    total: Schema.Number,
    processed: Schema.Number,
    successful: Schema.Number,
    failed: Schema.Number
  }),
  errors: Schema.optionalKey(Schema.Array(BulkCustomerImportErrorEntry)),
  completedAt: Schema.optionalKey(Schema.String)
})
export type BulkCustomerImportJob = typeof BulkCustomerImportJob.Type

// ---------------------------------------------------------------- CSV columns

/** Every column the reference names (required and optional, for both customer types). */
export const BULK_CSV_COLUMNS = [
  "umaAddress",
  "platformCustomerId",
  "customerType",
  "fullName",
  "birthDate",
  "addressLine1",
  "addressLine2",
  "city",
  "state",
  "postalCode",
  "country",
  "platformAccountId",
  "description",
  "email",
  "businessLegalName",
  "businessRegistrationNumber",
  "businessTaxId"
] as const
export type BulkCsvColumn = (typeof BULK_CSV_COLUMNS)[number]

/** The header must name these (a row may leave optional cells empty). */
export const BULK_CSV_REQUIRED_HEADER: ReadonlyArray<BulkCsvColumn> = ["platformCustomerId", "customerType"]

const ADDRESS_REQUIRED: ReadonlyArray<BulkCsvColumn> = ["addressLine1", "city", "state", "postalCode", "country"]

/** The reference's required columns per customer type (a row missing one fails with the column named). */
export const BULK_CSV_REQUIRED: Readonly<Record<"INDIVIDUAL" | "BUSINESS", ReadonlyArray<BulkCsvColumn>>> = {
  INDIVIDUAL: ["umaAddress", "platformCustomerId", "customerType", "fullName", "birthDate", ...ADDRESS_REQUIRED],
  BUSINESS: ["umaAddress", "platformCustomerId", "customerType", "businessLegalName", ...ADDRESS_REQUIRED]
}

/** Columns that belong to the other customer type only (a non-empty cell there is a row error). */
const ONLY_FOR: Readonly<Record<"INDIVIDUAL" | "BUSINESS", ReadonlyArray<BulkCsvColumn>>> = {
  INDIVIDUAL: ["fullName", "birthDate", "email"],
  BUSINESS: ["businessLegalName", "businessRegistrationNumber", "businessTaxId"]
}

/** One data row: column name to its non-empty cell. */
export type BulkCsvRow = Readonly<Partial<Record<BulkCsvColumn, string>>>

export interface RowProblem {
  readonly field: string
  readonly constraint: string
  readonly message: string
}

/**
 * The `POST /customers` body a row stands for (to be decoded by `CustomerCreateRequest`),
 * or the column problems that stop it before the schema. `umaAddress` gets its `$` when
 * the cell has none (the reference's own example writes `john.doe@uma.domain.com`).
 * `platformAccountId` and `description` have no place in a customer: accepted, not stored.
 */
export const requestOfRow = (row: BulkCsvRow): { readonly ok: true; readonly body: Record<string, unknown> } | { readonly ok: false; readonly problems: ReadonlyArray<RowProblem> } => {
  const type = row.customerType
  if (type !== "INDIVIDUAL" && type !== "BUSINESS") {
    return { ok: false, problems: [{ field: "customerType", constraint: "enum", message: "must be INDIVIDUAL or BUSINESS" }] }
  }
  const problems: Array<RowProblem> = []
  for (const column of BULK_CSV_REQUIRED[type]) {
    if (row[column] === undefined) problems.push({ field: column, constraint: "required", message: `is required for ${type} customers` })
  }
  const other = type === "INDIVIDUAL" ? "BUSINESS" : "INDIVIDUAL"
  for (const column of ONLY_FOR[other]) {
    if (row[column] !== undefined) problems.push({ field: column, constraint: "unexpected", message: `is for ${other} customers only` })
  }
  if (problems.length > 0) return { ok: false, problems }
  const uma = row.umaAddress
  const address = {
    line1: row.addressLine1,
    ...(row.addressLine2 === undefined ? {} : { line2: row.addressLine2 }),
    city: row.city,
    state: row.state,
    postalCode: row.postalCode,
    country: row.country
  }
  const common = {
    customerType: type,
    platformCustomerId: row.platformCustomerId,
    ...(uma === undefined ? {} : { umaAddress: uma.startsWith("$") ? uma : `$${uma}` }),
    address
  }
  if (type === "INDIVIDUAL") {
    return {
      ok: true,
      body: {
        ...common,
        fullName: row.fullName,
        birthDate: row.birthDate,
        ...(row.email === undefined ? {} : { email: row.email })
      }
    }
  }
  return {
    ok: true,
    body: {
      ...common,
      businessInfo: {
        legalName: row.businessLegalName,
        ...(row.businessRegistrationNumber === undefined ? {} : { registrationNumber: row.businessRegistrationNumber }),
        ...(row.businessTaxId === undefined ? {} : { taxId: row.businessTaxId })
      }
    }
  }
}
