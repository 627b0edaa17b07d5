/**
 * Ours, sandbox only: seeing into the sandbox (docs/sandbox-insight.md): the ledger
 * audit, an internal account's journal and the request log.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, OpenApi } from "effect/http-api"
import { DateTimeString, IdText, ListResponse, PageQuery, TextUpTo } from "../../domain/common.js"
import { Error400, Error403, Error404 } from "../../domain/errors.js"
import { apiGroup } from "../endpoints.js"

const AuditProblem = Schema.Struct({
  message: Schema.String,
  account: Schema.optionalKey(Schema.String),
  currency: Schema.optionalKey(Schema.String),
  entryId: Schema.optionalKey(Schema.String),
  transactionId: Schema.optionalKey(Schema.String),
  actual: Schema.optionalKey(Schema.Number),
  expected: Schema.optionalKey(Schema.Number)
}).annotate({ identifier: "LedgerAuditProblem" })

const AuditCheck = Schema.Struct({
  name: Schema.Literals(["ENTRIES_BALANCE", "CURRENCIES_SUM_TO_ZERO", "NO_NEGATIVE_INTERNAL_ACCOUNT", "BALANCES_MATCH_POSTINGS", "HOLDS_RECONCILE"]),
  status: Schema.Literals(["PASSED", "FAILED", "NOT_CHECKED"]),
  description: Schema.String,
  reason: Schema.optionalKey(Schema.String),
  problemCount: Schema.Number,
  problems: Schema.Array(AuditProblem)
}).annotate({ identifier: "LedgerAuditCheck" })

export const LedgerAuditResponse = Schema.Struct({
  verdict: Schema.Literals(["BALANCED", "UNBALANCED", "INCOMPLETE"]),
  checkedAt: Schema.String,
  entriesChecked: Schema.Number,
  accountsChecked: Schema.Number,
  transactionsChecked: Schema.Number,
  checks: Schema.Array(AuditCheck)
}).annotate({ identifier: "LedgerAudit" })

const JournalPosting = Schema.Struct({ account: Schema.String, currency: Schema.String, amount: Schema.Number })
  .annotate({ identifier: "JournalPosting" })

export const AccountJournalLine = Schema.Struct({
  entryId: Schema.String,
  kind: Schema.String,
  transactionId: Schema.optionalKey(Schema.String),
  at: Schema.String,
  amount: Schema.Number,
  currency: Schema.String,
  postings: Schema.Array(JournalPosting)
}).annotate({ identifier: "AccountJournalLine" })

export const RequestLogEntry = Schema.Struct({
  id: Schema.String,
  method: Schema.String,
  path: Schema.String,
  query: Schema.optionalKey(Schema.String),
  operationId: Schema.optionalKey(Schema.String),
  status: Schema.Number,
  errorCode: Schema.optionalKey(Schema.String),
  durationMillis: Schema.Number,
  requestId: Schema.optionalKey(Schema.String),
  idempotencyKey: Schema.optionalKey(Schema.String),
  platformTime: Schema.String,
  wallTime: Schema.String,
  requestBody: Schema.optionalKey(Schema.Unknown),
  responseBody: Schema.optionalKey(Schema.Unknown)
}).annotate({ identifier: "RequestLogEntry" })

const HttpMethod = Schema.Literals(["GET", "POST", "PUT", "PATCH", "DELETE"])
const StatusFilter = Schema.String.check(Schema.isPattern(/^[1-5]([0-9]{2}|xx)$/, { message: "must be a status such as 404 or a class such as 4xx" }))

export class SandboxInsightGroup extends apiGroup(
  "sandboxInsight",
  { title: "Sandbox insight", description: "Ours, sandbox only: the ledger audit, account journals and the request log.", sandboxOnly: true },
  HttpApiEndpoint.get("getLedgerAudit", "/sandbox/ledger/audit", {
    success: LedgerAuditResponse,
    error: Error403
  }).annotate(
    OpenApi.Description,
    "Ours: the platform's books checked now (every entry balances, each currency sums to zero, no internal account below zero, balances equal their postings, holds reconcile); each failed check says where. Bounded: see docs/sandbox-insight.md."
  ),
  HttpApiEndpoint.get("getInternalAccountJournal", "/sandbox/internal-accounts/:internalAccountId/journal", {
    params: { internalAccountId: IdText },
    query: { ...PageQuery, sortOrder: Schema.optionalKey(Schema.Literals(["asc", "desc"])) },
    success: ListResponse(AccountJournalLine, "AccountJournalListResponse"),
    error: [Error400, Error403, Error404]
  }).annotate(OpenApi.Description, "Ours: the journal entries that moved an internal account's balance, with the transaction each belongs to; newest first unless sortOrder=asc."),
  HttpApiEndpoint.get("listSandboxRequests", "/sandbox/requests", {
    query: {
      ...PageQuery,
      method: Schema.optionalKey(HttpMethod),
      pathPrefix: Schema.optionalKey(TextUpTo(2048)),
      status: Schema.optionalKey(StatusFilter),
      createdAfter: Schema.optionalKey(DateTimeString),
      createdBefore: Schema.optionalKey(DateTimeString)
    },
    success: ListResponse(RequestLogEntry, "RequestLogListResponse"),
    error: [Error400, Error403]
  }).annotate(
    OpenApi.Description,
    "Ours: the platform's recent requests to this server, newest first, with secrets redacted from the bodies. At most 500 per platform, kept per server process (docs/sandbox-insight.md)."
  )
) {}
