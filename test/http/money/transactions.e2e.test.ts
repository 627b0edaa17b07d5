/**
 * Transactions over HTTP: GET /transactions with every filter and both sort orders with
 * cursors, GET /transactions/{id}, cancel (409 once settled; a long payment in flight is
 * refunded), approve/reject of a transaction not held for approval (409), confirm.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { isErrorShape } from "../../support/api.js"
import { type MoneyClient, moneyApp, moneyPlatform } from "../../support/money.js"

const p = moneyPlatform("transactions")
const other = moneyPlatform("transactions-other")
const app = moneyApp([p, other])
const [m, o] = app.clients as [MoneyClient, MoneyClient]
afterAll(() => app.dispose())

let a: Awaited<ReturnType<MoneyClient["fundedCustomer"]>>
let b: Awaited<ReturnType<MoneyClient["fundedCustomer"]>>
let ext: { id: string }
/** A's conversion (COMPLETED), A's long payout (PROCESSING), B's incoming UMA payment, then (a minute later) A -> B. */
let conversion: { transactionId: string }
let long: { transactionId: string }
let incoming: { id: string; reconciliationInstructions: { reference: string } }
let late: { transactionId: string }
let dayBoundary: string

const ids = (list: { data: Array<{ id: string }> }) => list.data.map((t) => t.id)

beforeAll(async () => {
  a = await m.fundedCustomer({ USD: 100_000, EUR: 100_000 }, { platformCustomerId: "pc-alice" })
  b = await m.fundedCustomer({}, { platformCustomerId: "pc-bob", umaAddress: "$bob@sandbox.uma.local" })
  ext = await m.externalEur(a.id, "DE89370400440532013003")
  // A second apart on the platform's clock: the lists below are in creation order, and
  // two payments created in the same millisecond would be ordered by their random ids.
  conversion = await m.pay(a.accounts.USD, a.accounts.EUR, 1_000)
  await m.advance(1)
  long = await m.pay(a.accounts.EUR, ext.id, 2_000)
  await m.advance(1)
  incoming = await m.ok("POST", "/sandbox/uma/receive", {
    senderUmaAddress: "$success.usd@sandbox.grid.uma.money",
    receiverUmaAddress: "$bob@sandbox.uma.local",
    receivingCurrencyCode: "USD",
    receivingCurrencyAmount: 500
  })
  await m.advance(30)
  dayBoundary = new Date(await m.clock()).toISOString()
  await m.advance(30)
  late = await m.pay(a.accounts.USD, b.accounts.USD, 300)
})

describe("GET /transactions", () => {
  it("lists every transaction of the platform, newest first by default", async () => {
    const all = await m.ok("GET", "/transactions")
    expect(all.totalCount).toBe(4)
    expect(ids(all)).toEqual([late.transactionId, incoming.id, long.transactionId, conversion.transactionId])
    // Another platform sees none of them.
    expect((await o.ok("GET", "/transactions")).data).toEqual([])
  })

  it("sortOrder asc and desc, walked one at a time with cursors", async () => {
    for (const order of ["asc", "desc"]) {
      const seen: Array<string> = []
      let cursor: string | undefined
      for (let i = 0; i < 10; i++) {
        const page = await m.ok("GET", `/transactions?limit=1&sortOrder=${order}${cursor === undefined ? "" : `&cursor=${encodeURIComponent(cursor)}`}`)
        seen.push(...ids(page))
        if (!page.hasMore) break
        cursor = page.nextCursor
      }
      const expected = [conversion.transactionId, long.transactionId, incoming.id, late.transactionId]
      expect(seen).toEqual(order === "asc" ? expected : [...expected].reverse())
    }
  })

  it("customerId and platformCustomerId", async () => {
    expect(ids(await m.ok("GET", `/transactions?customerId=${a.id}&sortOrder=asc`))).toEqual([conversion.transactionId, long.transactionId, late.transactionId])
    expect(ids(await m.ok("GET", `/transactions?customerId=${b.id}`))).toEqual([incoming.id])
    expect(ids(await m.ok("GET", "/transactions?platformCustomerId=pc-alice&sortOrder=asc"))).toEqual([conversion.transactionId, long.transactionId, late.transactionId])
    expect((await m.ok("GET", "/transactions?platformCustomerId=nobody")).data).toEqual([])
  })

  it("accountIdentifier, senderAccountIdentifier, receiverAccountIdentifier", async () => {
    expect(ids(await m.ok("GET", `/transactions?accountIdentifier=${a.accounts.EUR}&sortOrder=asc`))).toEqual([conversion.transactionId, long.transactionId])
    expect(ids(await m.ok("GET", `/transactions?senderAccountIdentifier=${a.accounts.EUR}`))).toEqual([long.transactionId])
    expect(ids(await m.ok("GET", `/transactions?receiverAccountIdentifier=${a.accounts.EUR}`))).toEqual([conversion.transactionId])
    expect(ids(await m.ok("GET", `/transactions?receiverAccountIdentifier=${ext.id}`))).toEqual([long.transactionId])
    expect(ids(await m.ok("GET", `/transactions?accountIdentifier=${b.accounts.USD}`))).toEqual([late.transactionId, incoming.id])
  })

  it("status and type", async () => {
    expect(ids(await m.ok("GET", "/transactions?status=PROCESSING"))).toEqual([long.transactionId])
    expect(ids(await m.ok("GET", "/transactions?type=INCOMING"))).toEqual([incoming.id])
    expect(ids(await m.ok("GET", "/transactions?type=OUTGOING&status=COMPLETED"))).toEqual([late.transactionId, conversion.transactionId])
    expect((await m.ok("GET", "/transactions?status=REFUNDED")).data).toEqual([])
  })

  it("status with type=CARD is 400; type=CARD alone lists no payment", async () => {
    const r = await m.call("GET", "/transactions?type=CARD&status=COMPLETED")
    expect(r.status).toBe(400)
    expect(isErrorShape(r.body)).toBe(true)
    expect(r.body.details.errors[0].field).toBe("status")
    expect((await m.ok("GET", "/transactions?type=CARD")).data).toEqual([])
  })

  it("reference", async () => {
    expect(ids(await m.ok("GET", `/transactions?reference=${encodeURIComponent(incoming.reconciliationInstructions.reference)}`))).toEqual([incoming.id])
    const t = await m.transaction(long.transactionId)
    expect(ids(await m.ok("GET", `/transactions?reference=${encodeURIComponent(t.reconciliationInstructions.reference)}`))).toEqual([long.transactionId])
  })

  it("startDate and endDate on createdAt", async () => {
    expect(ids(await m.ok("GET", `/transactions?startDate=${encodeURIComponent(dayBoundary)}`))).toEqual([late.transactionId])
    expect(ids(await m.ok("GET", `/transactions?endDate=${encodeURIComponent(dayBoundary)}&sortOrder=asc`))).toEqual([
      conversion.transactionId,
      long.transactionId,
      incoming.id
    ])
    expect((await m.call("GET", "/transactions?startDate=yesterday")).status).toBe(400)
  })

  it("an unknown status or sortOrder is 400", async () => {
    expect((await m.call("GET", "/transactions?status=DONE")).status).toBe(400)
    expect((await m.call("GET", "/transactions?sortOrder=up")).status).toBe(400)
  })
})

describe("GET /transactions/{id}", () => {
  it("answers the transaction; 404 for an unknown id or another platform's", async () => {
    const t = await m.transaction(conversion.transactionId)
    expect(t).toMatchObject({ id: conversion.transactionId, type: "OUTGOING", direction: "DEBIT", status: "COMPLETED", customerId: a.id, platformCustomerId: "pc-alice" })
    const missing = await m.call("GET", "/transactions/Transaction:00000000-0000-4000-8000-000000000000")
    expect(missing.status).toBe(404)
    expect(isErrorShape(missing.body)).toBe(true)
    expect((await o.call("GET", `/transactions/${conversion.transactionId}`)).status).toBe(404)
  })
})

describe("POST /transactions/{id}/cancel", () => {
  it("a completed payment is 409 TRANSACTION_NOT_CANCELLABLE", async () => {
    const r = await m.call("POST", `/transactions/${conversion.transactionId}/cancel`)
    expect(r.status).toBe(409)
    expect(r.body.code).toBe("TRANSACTION_NOT_CANCELLABLE")
    expect((await m.transaction(conversion.transactionId)).status).toBe("COMPLETED")
  })

  it("a long (003) payment in flight is cancelled: FAILED, refunded (USER_CANCELLATION), and never completes later", async () => {
    const c = await m.fundedCustomer({ EUR: 10_000 })
    const dest = await m.externalEur(c.id, "DE89370400440532014003")
    const q = await m.pay(c.accounts.EUR, dest.id, 4_000)
    expect(q.status).toBe("PROCESSING")
    expect(await m.balance(c.accounts.EUR, c.id)).toBe(6_000)
    const r = await m.ok("POST", `/transactions/${q.transactionId}/cancel`)
    expect(r).toMatchObject({ status: "FAILED", failureReason: "QUOTE_EXECUTION_FAILED", refund: { status: "COMPLETED", reason: "USER_CANCELLATION" } })
    expect(await m.balance(c.accounts.EUR, c.id)).toBe(10_000)
    await m.advance(400)
    expect((await m.transaction(q.transactionId)).status).toBe("FAILED")
    expect(await m.balance(c.accounts.EUR, c.id)).toBe(10_000)
    // Once ended it cannot be cancelled again.
    const again = await m.call("POST", `/transactions/${q.transactionId}/cancel`)
    expect(again.status).toBe(409)
    expect(again.body.code).toBe("TRANSACTION_NOT_CANCELLABLE")
  })

  it("an unknown transaction is 404", async () => {
    expect((await m.call("POST", "/transactions/Transaction:00000000-0000-4000-8000-000000000000/cancel")).status).toBe(404)
  })
})

describe("approve, reject, confirm", () => {
  it("approve and reject of a transaction not held for approval: 409 TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL", async () => {
    for (const action of ["approve", "reject"]) {
      const r = await m.call("POST", `/transactions/${conversion.transactionId}/${action}`)
      expect(r.status, action).toBe(409)
      expect(r.body.code).toBe("TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL")
    }
    expect((await m.transaction(conversion.transactionId)).status).toBe("COMPLETED")
    expect((await m.call("POST", "/transactions/Transaction:00000000-0000-4000-8000-000000000000/approve")).status).toBe(404)
  })

  it("confirm records receiptDeliveryConfirmedAt on the platform clock", async () => {
    const r = await m.ok("POST", `/transactions/${late.transactionId}/confirm`)
    expect(r.id).toBe(late.transactionId)
    expect(Math.abs(Date.parse(r.receiptDeliveryConfirmedAt) - await m.clock())).toBeLessThan(5_000)
    expect((await m.transaction(late.transactionId)).receiptDeliveryConfirmedAt).toBe(r.receiptDeliveryConfirmedAt)
    expect((await m.call("POST", "/transactions/Transaction:00000000-0000-4000-8000-000000000000/confirm")).status).toBe(404)
  })
})
