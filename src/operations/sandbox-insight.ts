/**
 * The sandbox's insight endpoints (docs/sandbox-insight.md): the ledger audit, an
 * internal account's journal and the request log, for sandbox platforms only (403 for
 * production platforms, as every sandbox endpoint).
 */
import { Effect } from "effect"
import { forbidden } from "../domain/errors.js"
import type { Platform } from "../domain/platform.js"
import { Store } from "../ports/store.js"
import { auditLedger } from "./ledger-audit.js"
import { internalAccount } from "./money/accounts.js"
import { pageOf, type PageQuery, pageRequestOf } from "./paging.js"
import { listRequests } from "./request-log.js"

const sandboxOnly = (platform: Platform) =>
  platform.settings.sandbox ? Effect.void : Effect.fail(forbidden("Sandbox endpoints are not available to production platforms"))

/** GET /sandbox/ledger/audit. */
export const getLedgerAudit = (platform: Platform) => Effect.andThen(sandboxOnly(platform), auditLedger(platform))

/** GET /sandbox/internal-accounts/{id}/journal: newest first unless `sortOrder=asc`. */
export const getAccountJournal = Effect.fnUntraced(function*(
  platform: Platform,
  id: string,
  query: PageQuery & { readonly sortOrder?: "asc" | "desc" | undefined }
) {
  yield* sandboxOnly(platform)
  const account = yield* internalAccount(platform, id)
  const store = yield* Store
  const page = yield* pageOf(store.ledger.accountJournal(platform.id, account.id, {
    ...pageRequestOf(query),
    descending: query.sortOrder !== "asc"
  }))
  return {
    ...page,
    data: page.data.map((line) => ({
      entryId: line.entry.id,
      kind: line.entry.kind,
      ...(line.entry.transactionId === undefined ? {} : { transactionId: line.entry.transactionId }),
      at: line.entry.at,
      amount: line.amount,
      currency: line.currency,
      postings: line.entry.postings.map((p) => ({ account: p.account, currency: p.currency, amount: p.amount }))
    }))
  }
})

const millisOrUndefined = (iso: string | undefined) => (iso === undefined ? undefined : Date.parse(iso))

/** GET /sandbox/requests. */
export const getRequestLog = (
  platform: Platform,
  query: {
    readonly limit?: number | undefined
    readonly cursor?: string | undefined
    readonly method?: string | undefined
    readonly pathPrefix?: string | undefined
    readonly status?: string | undefined
    readonly createdAfter?: string | undefined
    readonly createdBefore?: string | undefined
  }
) =>
  Effect.andThen(sandboxOnly(platform), listRequests(platform.id, {
    limit: query.limit,
    cursor: query.cursor,
    method: query.method,
    pathPrefix: query.pathPrefix,
    status: query.status,
    from: millisOrUndefined(query.createdAfter),
    to: millisOrUndefined(query.createdBefore)
  }))
