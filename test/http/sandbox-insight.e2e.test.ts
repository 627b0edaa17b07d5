/**
 * Seeing into the sandbox over HTTP (docs/sandbox-insight.md): GET /sandbox/ledger/audit
 * (its verdict on real books, and every check failing on broken ones), GET
 * /sandbox/internal-accounts/{id}/journal (postings with their transactions, paged both
 * ways) and GET /sandbox/requests (the log: fields, filters, paging, redaction, bound,
 * isolation between platforms); production platforms get 403 from all three.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { auditBooks } from "../../src/operations/ledger-audit.js"
import { RequestLog, redactJson, REDACTED } from "../../src/operations/request-log.js"
import { isErrorShape } from "../support/api.js"
import { advanceToSettlement, type MoneyClient, moneyApp, moneyPlatform } from "../support/money.js"

const p = moneyPlatform("insight")
const other = moneyPlatform("insight-other")
const production = moneyPlatform("insight-production", { sandbox: false })
const app = moneyApp([p, other, production])
const [m, o, prod] = app.clients as [MoneyClient, MoneyClient, MoneyClient]
afterAll(() => app.dispose())

let a: Awaited<ReturnType<MoneyClient["fundedCustomer"]>>
let b: Awaited<ReturnType<MoneyClient["fundedCustomer"]>>
let ext: { id: string }
let internal: { transactionId: string }
let payout: { transactionId: string }

beforeAll(async () => {
  a = await m.fundedCustomer({ USD: 100_000, EUR: 50_000 })
  b = await m.fundedCustomer({})
  ext = await m.externalUsd(a.id, "000123456789")
  internal = await m.pay(a.accounts.USD, b.accounts.USD, 1_500)
  payout = await m.pay(a.accounts.USD, ext.id, 2_000)
})

describe("GET /sandbox/ledger/audit", () => {
  it("says the books balance with a payment in flight and after it settles", async () => {
    const before = await m.clock()
    const inFlight = await m.ok("GET", "/sandbox/ledger/audit")
    const after = await m.clock()
    expect(inFlight.verdict).toBe("BALANCED")
    expect(inFlight.checks.map((c: { name: string; status: string }) => [c.name, c.status])).toEqual([
      ["ENTRIES_BALANCE", "PASSED"],
      ["CURRENCIES_SUM_TO_ZERO", "PASSED"],
      ["NO_NEGATIVE_INTERNAL_ACCOUNT", "PASSED"],
      ["BALANCES_MATCH_POSTINGS", "PASSED"],
      ["HOLDS_RECONCILE", "PASSED"]
    ])
    expect(inFlight.entriesChecked).toBeGreaterThanOrEqual(5)
    expect(inFlight.transactionsChecked).toBe(2)
    expect(Date.parse(inFlight.checkedAt)).toBeGreaterThanOrEqual(before)
    expect(Date.parse(inFlight.checkedAt)).toBeLessThanOrEqual(after)
    await advanceToSettlement(m, payout.transactionId)
    expect((await m.transaction(payout.transactionId)).status).toBe("COMPLETED")
    const settled = await m.ok("GET", "/sandbox/ledger/audit")
    expect(settled.verdict).toBe("BALANCED")
    expect(settled.entriesChecked).toBeGreaterThan(inFlight.entriesChecked)
  })

  it("answers 403 to a production platform", async () => {
    const r = await prod.call("GET", "/sandbox/ledger/audit")
    expect(r.status).toBe(403)
    expect(isErrorShape(r.body)).toBe(true)
  })

  it("names the invariant that fails and where, for each check", () => {
    const USD = "USD"
    const internalId = "InternalAccount:1"
    const result = auditBooks({
      balances: [
        { account: internalId, currency: USD, balance: -5 },
        { account: "system:world:USD", currency: USD, balance: -100 },
        { account: "system:in_flight:USD", currency: USD, balance: 60 }
      ],
      entries: [
        { platformId: "x", id: "E1", kind: "FUND", at: "2026-01-01T00:00:00.000Z", postings: [
          { account: "system:world:USD", currency: USD, amount: -100 },
          { account: internalId, currency: USD, amount: 90 }
        ] },
        { platformId: "x", id: "E2", kind: "DEBIT", transactionId: "Transaction:1", at: "2026-01-01T00:00:00.000Z", postings: [
          { account: internalId, currency: USD, amount: -50 },
          { account: "system:in_flight:USD", currency: USD, amount: 50 }
        ] }
      ],
      payments: [{ id: "Transaction:1", money: "SETTLED", debit: { currency: USD, amount: 50 } }],
      cardTransactions: []
    })
    expect(result.verdict).toBe("UNBALANCED")
    const byName = new Map(result.checks.map((c) => [c.name, c]))
    expect(byName.get("ENTRIES_BALANCE")?.problems[0]).toMatchObject({ entryId: "E1", currency: USD, actual: -10 })
    expect(byName.get("CURRENCIES_SUM_TO_ZERO")?.problems[0]).toMatchObject({ currency: USD, actual: -45 })
    expect(byName.get("NO_NEGATIVE_INTERNAL_ACCOUNT")?.problems[0]).toMatchObject({ account: internalId, actual: -5 })
    expect(byName.get("BALANCES_MATCH_POSTINGS")?.problems).toEqual(expect.arrayContaining([
      expect.objectContaining({ account: internalId, actual: -5, expected: 40 }),
      expect.objectContaining({ account: "system:in_flight:USD", actual: 60, expected: 50 })
    ]))
    expect(byName.get("HOLDS_RECONCILE")?.problems[0]).toMatchObject({ transactionId: "Transaction:1", account: "system:in_flight:USD", actual: 50, expected: 0 })
  })

  it("is INCOMPLETE, not BALANCED, when the journal is past the bound", () => {
    const result = auditBooks({ balances: [], entries: undefined, payments: undefined, cardTransactions: undefined })
    expect(result.verdict).toBe("INCOMPLETE")
    expect(result.checks.filter((c) => c.status === "NOT_CHECKED").map((c) => c.name)).toEqual(["ENTRIES_BALANCE", "BALANCES_MATCH_POSTINGS", "HOLDS_RECONCILE"])
  })
})

describe("GET /sandbox/internal-accounts/{id}/journal", () => {
  const journal = (id: string, query = "") => m.ok("GET", `/sandbox/internal-accounts/${encodeURIComponent(id)}/journal${query}`)

  it("lists the account's postings newest first, each with its entry and transaction", async () => {
    const page = await journal(a.accounts.USD)
    expect(page.totalCount).toBe(3)
    expect(page.hasMore).toBe(false)
    expect(page.data.map((l: { kind: string; amount: number }) => [l.kind, l.amount])).toEqual([["DEBIT", -2_000], ["DEBIT", -1_500], ["FUND", 100_000]])
    expect(page.data[0].transactionId).toBe(payout.transactionId)
    expect(page.data[1].transactionId).toBe(internal.transactionId)
    expect(page.data[2].transactionId).toBeUndefined()
    expect(page.data[0].currency).toBe("USD")
    const debit = page.data[0].postings as Array<{ account: string; amount: number }>
    expect(debit.reduce((s, x) => s + x.amount, 0)).toBe(0)
    expect(debit.find((x) => x.account === a.accounts.USD)?.amount).toBe(-2_000)
  })

  it("pages with cursors in either order", async () => {
    for (const order of ["asc", "desc"] as const) {
      const all = await journal(a.accounts.USD, `?sortOrder=${order}&limit=100`)
      const seen: Array<string> = []
      let cursor: string | undefined
      for (;;) {
        const page = await journal(a.accounts.USD, `?sortOrder=${order}&limit=1${cursor === undefined ? "" : `&cursor=${cursor}`}`)
        seen.push(...page.data.map((l: { entryId: string }) => l.entryId))
        if (!page.hasMore) break
        cursor = page.nextCursor
      }
      expect(seen).toEqual(all.data.map((l: { entryId: string }) => l.entryId))
    }
    const asc = await journal(a.accounts.USD, "?sortOrder=asc")
    expect(asc.data[0].kind).toBe("FUND")
  })

  it("shows the receiving side of a payment", async () => {
    const page = await journal(b.accounts.USD)
    expect(page.data.map((l: { kind: string; amount: number; transactionId?: string }) => [l.kind, l.amount, l.transactionId])).toEqual([["SETTLE", 1_500, internal.transactionId]])
  })

  it("answers 404 for an account that is not the platform's, 400 for a bad cursor, 403 to production", async () => {
    expect((await o.call("GET", `/sandbox/internal-accounts/${encodeURIComponent(a.accounts.USD)}/journal`)).status).toBe(404)
    const bad = await m.call("GET", `/sandbox/internal-accounts/${encodeURIComponent(a.accounts.USD)}/journal?cursor=nope`)
    expect(bad.status).toBe(400)
    expect(bad.body.code).toBe("INVALID_INPUT")
    expect((await prod.call("GET", `/sandbox/internal-accounts/${encodeURIComponent(a.accounts.USD)}/journal`)).status).toBe(403)
  })
})

describe("GET /sandbox/requests", () => {
  it("logs the platform's requests newest first with what each did", async () => {
    await m.call("GET", "/customers?limit=2", undefined, { "request-id": "req-insight-1" })
    await m.call("POST", "/customers", { customerType: "INDIVIDUAL", fullName: "Logged Person", platformCustomerId: "pc-logged" }, { "idempotency-key": "idem-insight-1" })
    await m.call("GET", "/customers/Customer:does-not-exist")
    const log = await m.ok("GET", "/sandbox/requests?limit=3")
    expect(log.data.map((e: { method: string; path: string; status: number }) => [e.method, e.path, e.status])).toEqual([
      ["GET", "/2025-10-13/customers/Customer:does-not-exist", 404],
      ["POST", "/2025-10-13/customers", 201],
      ["GET", "/2025-10-13/customers", 200]
    ])
    const [missing, created, listed] = log.data
    expect(missing.errorCode).toBe("USER_NOT_FOUND")
    expect(missing.operationId).toBe("getCustomer")
    expect(created.operationId).toBe("createCustomer")
    expect(created.idempotencyKey).toBe("idem-insight-1")
    expect(created.requestBody).toMatchObject({ fullName: "Logged Person" })
    expect(created.responseBody).toMatchObject({ platformCustomerId: "pc-logged" })
    expect(listed.requestId).toBe("req-insight-1")
    expect(listed.query).toBe("limit=2")
    expect(typeof listed.durationMillis).toBe("number")
    expect(log.hasMore).toBe(true)
    expect(log.totalCount).toBeGreaterThan(3)
  })

  it("logs requests made with an API token and with an agent's bearer token under their platform", async () => {
    const token = await m.ok("POST", "/tokens", { name: "insight reader", permissions: ["VIEW"] }, 201)
    const basic = `Basic ${Buffer.from(`${token.clientId}:${token.clientSecret}`).toString("base64")}`
    const byToken = await app.api.call("GET", "/customers?limit=1", { headers: { authorization: basic, "request-id": "req-insight-token" } })
    expect(byToken.status).toBe(200)
    const agent = await m.ok("POST", "/agents", { name: "Insight Agent", customerId: a.id, policy: { permissions: ["VIEW_TRANSACTIONS"], defaultExecutionMode: "AUTO", spendingLimits: { currency: "USD", perTransactionLimit: 1_000, dailyLimit: 1_000, dailyTransactionLimit: 1, monthlyLimit: 1_000 } } }, 201)
    const redeemed = await app.api.call("POST", `/agents/device-codes/${agent.deviceCode.code}/redeem`)
    expect(redeemed.status).toBe(200)
    const byAgent = await app.api.call("GET", "/agents/me", { headers: { authorization: `Bearer ${redeemed.body.accessToken as string}`, "request-id": "req-insight-agent" } })
    expect(byAgent.status).toBe(200)
    const log = await m.ok("GET", "/sandbox/requests?limit=5")
    const ids = log.data.map((e: { requestId?: string }) => e.requestId)
    expect(ids).toContain("req-insight-token")
    expect(ids).toContain("req-insight-agent")
    const agentEntry = log.data.find((e: { requestId?: string }) => e.requestId === "req-insight-agent")
    expect(agentEntry.operationId).toBe("getAgentMe")
    // Neither reaches another platform's log.
    const others = await o.ok("GET", "/sandbox/requests?limit=100")
    expect(others.data.map((e: { requestId?: string }) => e.requestId)).not.toContain("req-insight-token")
  })

  it("stamps each request with the platform's clock and the wall clock", async () => {
    await m.advance(86_400)
    const now = await m.clock()
    const log = await m.ok("GET", "/sandbox/requests?limit=1&pathPrefix=/2025-10-13/sandbox/clock")
    const [last] = log.data
    expect(last.path).toBe("/2025-10-13/sandbox/clock")
    expect(Math.abs(Date.parse(last.platformTime) - now)).toBeLessThan(60_000)
    expect(Date.parse(last.platformTime) - Date.parse(last.wallTime)).toBeGreaterThanOrEqual(86_400_000)
  })

  it("filters by method, path prefix, status and time, and pages", async () => {
    const posts = await m.ok("GET", "/sandbox/requests?method=POST&limit=100")
    expect(posts.data.length).toBeGreaterThan(0)
    expect(posts.data.every((e: { method: string }) => e.method === "POST")).toBe(true)
    const clientErrors = await m.ok("GET", "/sandbox/requests?status=4xx&limit=100")
    expect(clientErrors.data.every((e: { status: number }) => e.status >= 400 && e.status < 500)).toBe(true)
    const exact = await m.ok("GET", "/sandbox/requests?status=404&limit=100")
    expect(exact.data.length).toBeGreaterThan(0)
    expect(exact.data.every((e: { status: number }) => e.status === 404)).toBe(true)
    const prefix = await m.ok("GET", "/sandbox/requests?pathPrefix=/2025-10-13/customers&limit=100")
    expect(prefix.data.every((e: { path: string }) => e.path.startsWith("/2025-10-13/customers"))).toBe(true)
    const future = await m.ok("GET", `/sandbox/requests?createdAfter=${new Date(Date.now() + 3_600_000).toISOString()}`)
    expect(future.data).toEqual([])
    const all = await m.ok("GET", "/sandbox/requests?limit=100")
    const seen: Array<string> = []
    let cursor: string | undefined
    for (;;) {
      const page = await m.ok("GET", `/sandbox/requests?limit=7${cursor === undefined ? "" : `&cursor=${cursor}`}`)
      seen.push(...page.data.map((e: { id: string }) => e.id))
      if (!page.hasMore) break
      cursor = page.nextCursor
    }
    // Each page is itself a logged request, newer than the first listing's: compare the older ones.
    expect(seen.filter((id) => all.data.some((e: { id: string }) => e.id === id))).toEqual(all.data.map((e: { id: string }) => e.id).slice(0, seen.filter((id) => all.data.some((e: { id: string }) => e.id === id)).length))
    const bad = await m.call("GET", "/sandbox/requests?status=abc")
    expect(bad.status).toBe(400)
    expect((await m.call("GET", "/sandbox/requests?cursor=nope")).status).toBe(400)
  })

  it("redacts secrets in bodies in and out", async () => {
    await m.call("POST", "/customers", {
      customerType: "INDIVIDUAL",
      fullName: "Secret Holder",
      identification: { idType: "SSN", identifier: "123-45-6789", countryOfIssuance: "US" }
    })
    const [entry] = (await m.ok("GET", "/sandbox/requests?method=POST&limit=1")).data
    expect(JSON.stringify(entry)).not.toContain("123-45-6789")
    expect(redactJson({ apiClientSecret: "s", code: "123456", nested: [{ encryptedPinBlock: "x", cvc: "123", accessToken: "t", publicKey: "pk" }] }, true)).toEqual({
      apiClientSecret: REDACTED,
      code: REDACTED,
      nested: [{ encryptedPinBlock: REDACTED, cvc: REDACTED, accessToken: REDACTED, publicKey: "pk" }]
    })
    // Nested past the depth kept: replaced, never kept unredacted (and never a stack overflow).
    let deep: unknown = { clientSecret: "deep-secret" }
    for (let i = 0; i < 50_000; i++) deep = { a: deep }
    expect(JSON.stringify(redactJson(deep, true))).not.toContain("deep-secret")
    // An answer's `code` is an error code, kept.
    expect(redactJson({ code: "NOT_FOUND" }, false)).toEqual({ code: "NOT_FOUND" })
  })

  it("never shows another platform's requests, and keeps none of production platforms", async () => {
    await o.call("GET", "/customers?limit=1", undefined, { "request-id": "req-other-only" })
    const mine = await m.ok("GET", "/sandbox/requests?limit=100")
    expect(mine.data.some((e: { requestId?: string }) => e.requestId === "req-other-only")).toBe(false)
    const theirs = await o.ok("GET", "/sandbox/requests?limit=100")
    expect(theirs.data.some((e: { requestId?: string }) => e.requestId === "req-other-only")).toBe(true)
    expect((await prod.call("GET", "/sandbox/requests")).status).toBe(403)
  })

  it("ends a page early rather than answer more than 64 KB of entries", async () => {
    const log = RequestLog.make(50)
    const big = JSON.stringify({ note: "x".repeat(15_000) })
    for (let n = 0; n < 20; n++) {
      await log.record("p", {
        method: "POST", url: `/x/${n}`, operationId: undefined, status: 200, durationMillis: 1, requestId: `r${n}`, idempotencyKey: undefined,
        wallMillis: 1_000 + n, requestText: big, responseText: big, responseContentType: "application/json"
      }, 0)
    }
    const seen: Array<string> = []
    let cursor: string | undefined
    for (;;) {
      const page = log.list("p", {}, { limit: 100, cursor })
      expect(page).toBeDefined()
      expect(page!.data.length).toBeGreaterThan(0)
      expect(JSON.stringify(page!.data).length).toBeLessThan(100 * 1024)
      seen.push(...page!.data.map((e) => e.requestId ?? ""))
      if (!page!.hasMore) break
      cursor = page!.nextCursor
    }
    expect(seen).toEqual(Array.from({ length: 20 }, (_, i) => `r${19 - i}`))
  })

  it("keeps at most its bound per platform, the oldest dropped first", async () => {
    const log = RequestLog.make(5)
    const captured = (n: number) => ({
      method: "GET", url: `/x/${n}`, operationId: undefined, status: 200, durationMillis: 1, requestId: `r${n}`, idempotencyKey: undefined,
      wallMillis: 1_000 + n, requestText: "", responseText: "", responseContentType: "application/json"
    })
    for (let n = 0; n < 20; n++) await log.record("p", captured(n), 0)
    const page = log.list("p", {}, { limit: 100 })
    expect(page?.data.map((e) => e.requestId)).toEqual(["r19", "r18", "r17", "r16", "r15"])
    expect(page?.totalCount).toBe(5)
    expect(log.list("q", {}, { limit: 100 })?.data).toEqual([])
  })
})
