/**
 * Conformance of the sandbox insight endpoints (docs/sandbox-insight.md): GET
 * /sandbox/ledger/audit, GET /sandbox/internal-accounts/{internalAccountId}/journal and
 * GET /sandbox/requests are ours: the reference has no such operation and no schema to
 * hold them to, so their answers are checked against our own schemas
 * (src/http/groups/insight.ts). The request log's redaction is held to the reference:
 * every property it marks write-only, anywhere, is a field the log redacts.
 */
import { Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ListResponse } from "../../src/domain/common.js"
import { AccountJournalLine, LedgerAuditResponse, RequestLogEntry } from "../../src/http/groups/insight.js"
import { isSecretField } from "../../src/operations/request-log.js"
import { moneyApp, type MoneyClient, moneyPlatform } from "../support/money.js"
import { markedIn, reference, referenceOperation } from "./harness.js"
import { INSIGHT_OURS } from "./operations.js"

const p = moneyPlatform("insight-conformance")
const app = moneyApp([p])
const [m] = app.clients as [MoneyClient]
afterAll(() => app.dispose())

let account: string
beforeAll(async () => {
  const a = await m.fundedCustomer({ USD: 10_000 })
  const b = await m.fundedCustomer({})
  await m.pay(a.accounts.USD, b.accounts.USD, 700)
  account = a.accounts.USD
})

describe("sandbox insight endpoints", () => {
  it("are ours: the reference has no such operation, nor schemas of their names", () => {
    for (const op of ["GET /sandbox/ledger/audit", "GET /sandbox/internal-accounts/{internalAccountId}/journal", "GET /sandbox/requests"]) {
      const [method, path] = op.split(" ") as [string, string]
      expect(referenceOperation(method, path), op).toBeUndefined()
    }
    for (const name of ["LedgerAudit", "AccountJournalLine", "AccountJournalListResponse", "RequestLogEntry", "RequestLogListResponse"]) {
      expect(reference.components.schemas[name], name).toBeUndefined()
    }
    expect(INSIGHT_OURS.length).toBe(3)
  })

  it("answer our own schemas", async () => {
    Schema.decodeUnknownSync(LedgerAuditResponse)(await m.ok("GET", "/sandbox/ledger/audit"))
    const journal = await m.ok("GET", `/sandbox/internal-accounts/${encodeURIComponent(account)}/journal`)
    Schema.decodeUnknownSync(ListResponse(AccountJournalLine, "AccountJournalListResponse"))(journal)
    expect(journal.data.length).toBe(2)
    const log = await m.ok("GET", "/sandbox/requests?limit=100")
    Schema.decodeUnknownSync(ListResponse(RequestLogEntry, "RequestLogListResponse"))(log)
    expect(log.data.length).toBeGreaterThan(5)
  })

  it("the request log redacts every property the reference marks write-only", () => {
    const writeOnly = new Set<string>()
    for (const name of Object.keys(reference.components.schemas)) for (const field of markedIn(name).writeOnly) writeOnly.add(field)
    expect(writeOnly.size).toBeGreaterThan(0)
    for (const field of writeOnly) expect(isSecretField(field, true), field).toBe(true)
  })
})
