/**
 * The approval mechanism of incoming payments (docs/webhooks.md#approving-incoming-payments),
 * end to end with a real receiver on a loopback port: with a webhook endpoint, the
 * answer to an incoming UMA payment's INCOMING_PAYMENT.PENDING webhook decides it (200
 * approves, 403 rejects, 422 asks for information, 202 defers to approve / reject within
 * 5 s of the platform's clock); a delivery that gives up approves; a bank-rail payment's
 * webhook is informational; approve / reject of a payment not waiting is 409. The money
 * is credited only on approval.
 */
import { Effect } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { makeEvent } from "../../src/domain/events.js"
import type { Platform } from "../../src/domain/platform.js"
import type { IncomingTransaction } from "../../src/domain/transaction.js"
import { MAX_ATTEMPTS } from "../../src/operations/webhooks.js"
import { Store } from "../../src/ports/store.js"
import { makeApi } from "../support/api.js"
import { type MoneyClient, moneyClient, moneyPlatform } from "../support/money.js"
import { type Respond, startReceiver } from "../support/webhook-receiver.js"

const cleanup: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f()
})

const SENDER = "$success.usd@sandbox.grid.uma.money"
let run = 0

/** A platform with a receiver whose answer to INCOMING_PAYMENT.PENDING is `pending` (200 to every other webhook), and a customer with a UMA address. */
const setup = async (pending: Respond, options: { readonly endpoint?: boolean } = {}) => {
  const platform: Platform = moneyPlatform(`approval-${++run}`)
  const receiver = await startReceiver((r) => (r.type === "INCOMING_PAYMENT.PENDING" ? pending(r) : 200))
  const api = makeApi([platform])
  cleanup.push(() => receiver.close(), () => api.dispose())
  const m = moneyClient(api, platform)
  if (options.endpoint !== false) await m.ok("PATCH", "/config", { webhookEndpoint: receiver.url })
  const umaAddress = `$approval${run}@sandbox.uma.local`
  const c = await m.fundedCustomer({}, { umaAddress })
  const receive = async (sender = SENDER, amount = 500): Promise<IncomingTransaction> =>
    m.ok("POST", "/sandbox/uma/receive", { senderUmaAddress: sender, receiverUmaAddress: umaAddress, receivingCurrencyCode: "USD", receivingCurrencyAmount: amount })
  const incomingEvents = async (id: string) =>
    (await m.events()).filter((e) => e.type.startsWith("INCOMING_PAYMENT.") && (e as { data: { id: string } }).data.id === id).map((e) => e.type)
  const received = (id: string) => receiver.got.filter((r) => r.resourceId === id)
  const deliveryOf = async (id: string, type = "INCOMING_PAYMENT.PENDING") =>
    ((await m.ok("GET", "/sandbox/webhooks/deliveries?limit=100")).data as Array<{ resourceId: string; type: string; status: string; attempts: Array<{ statusCode?: number }> }>)
      .find((d) => d.resourceId === id && d.type === type)
  return { platform, api, receiver, m, c, receive, incomingEvents, received, deliveryOf }
}

const usd = (m: MoneyClient, c: { id: string; accounts: { USD: string } }) => m.balance(c.accounts.USD, c.id)

const REFUNDED = ["INCOMING_PAYMENT.PENDING", "INCOMING_PAYMENT.FAILED", "INCOMING_PAYMENT.REFUND_PENDING", "INCOMING_PAYMENT.REFUND_COMPLETED"]

describe("the answer to INCOMING_PAYMENT.PENDING decides an incoming UMA payment", () => {
  it("200 approves: COMPLETED and credited; the PENDING webhook carried the PENDING payment", async () => {
    const { m, c, receive, incomingEvents, received, deliveryOf } = await setup(() => ({ status: 200, body: { receiverCustomerInfo: { NATIONALITY: "FR" } } }))
    const t = await receive()
    expect(t).toMatchObject({ type: "INCOMING", status: "PENDING" })
    expect(t.pendingReason).toBeUndefined()
    await m.advance(0)
    const done = await m.transaction(t.id)
    expect(done).toMatchObject({ status: "COMPLETED", settledAt: expect.any(String) })
    expect(await usd(m, c)).toBe(500)
    expect(await incomingEvents(t.id)).toEqual(["INCOMING_PAYMENT.PENDING", "INCOMING_PAYMENT.COMPLETED"])
    // The approval's COMPLETED goes out in the same pass, after the PENDING it answers.
    expect(received(t.id).map((r) => [r.type, r.status])).toEqual([["INCOMING_PAYMENT.PENDING", 200], ["INCOMING_PAYMENT.COMPLETED", 200]])
    expect(JSON.parse(received(t.id)[0]!.body).data).toMatchObject({ id: t.id, status: "PENDING" })
    expect((await deliveryOf(t.id))?.status).toBe("DELIVERED")
    // Decided: approve and reject are 409 now.
    for (const action of ["approve", "reject"]) {
      const r = await m.call("POST", `/transactions/${t.id}/${action}`)
      expect(r.status, action).toBe(409)
      expect(r.body.code).toBe("TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL")
    }
  })

  it("403 rejects: FAILED, the sender refunded, nothing credited; the 403 is an answer (delivered, not retried)", async () => {
    const { m, c, receive, incomingEvents, deliveryOf } = await setup(() => ({ status: 403, body: { code: "PAYMENT_REJECTED", message: "not for us", reason: "RESTRICTED_JURISDICTION" } }))
    const t = await receive()
    await m.advance(0)
    const failed = await m.transaction(t.id)
    expect(failed).toMatchObject({ status: "FAILED", failureReason: "COMPLIANCE_REJECTED", refund: { status: "COMPLETED", reason: "TRANSACTION_FAILED", settledAt: expect.any(String) } })
    expect(await usd(m, c)).toBe(0)
    expect(await incomingEvents(t.id)).toEqual(REFUNDED)
    await m.advance(3_600)
    const delivery = await deliveryOf(t.id)
    expect(delivery?.status).toBe("DELIVERED")
    expect(delivery?.attempts.map((a) => a.statusCode)).toEqual([403])
    expect((await m.call("POST", `/transactions/${t.id}/approve`)).body.code).toBe("TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL")
  })

  it("422 asks for information: PENDING with COUNTERPARTY_INFORMATION_REQUIRED until approve (or 24 h, then rejected)", async () => {
    const { m, c, receive, incomingEvents, deliveryOf } = await setup(() => ({ status: 422, body: { code: "MISSING_INFO", message: "more", requiredFields: ["TAX_ID"] } }))
    const t = await receive()
    await m.advance(60)
    expect(await m.transaction(t.id)).toMatchObject({ status: "PENDING", pendingReason: "COUNTERPARTY_INFORMATION_REQUIRED" })
    expect(await usd(m, c)).toBe(0)
    expect((await deliveryOf(t.id))?.attempts.map((a) => a.statusCode)).toEqual([422])
    const approved = await m.ok("POST", `/transactions/${t.id}/approve`, { receiverCustomerInfo: { TAX_ID: "123-45-6789" } })
    expect(approved).toMatchObject({ id: t.id, type: "INCOMING", status: "COMPLETED" })
    expect(approved.pendingReason).toBeUndefined()
    expect(await usd(m, c)).toBe(500)
    expect(await incomingEvents(t.id)).toEqual(["INCOMING_PAYMENT.PENDING", "INCOMING_PAYMENT.COMPLETED"])

    const silent = await receive()
    await m.advance(86_399)
    expect((await m.transaction(silent.id)).status).toBe("PENDING")
    await m.advance(2)
    expect(await m.transaction(silent.id)).toMatchObject({ status: "FAILED", failureReason: "PAYMENT_APPROVAL_TIMED_OUT", refund: { status: "COMPLETED" } })
    expect(await usd(m, c)).toBe(500)
  })

  it("202 then approve within 5 s: COMPLETED and credited; the deadline no longer applies", async () => {
    const { m, c, receive, incomingEvents, received } = await setup(() => 202)
    const t = await receive()
    await m.advance(0)
    expect((await m.transaction(t.id)).status).toBe("PENDING")
    expect(await usd(m, c)).toBe(0)
    // Approved with no advance since the 202: the deadline's move applies only when the
    // clock is advanced (this app runs no scheduler), so the call is in time however long
    // the machine takes (the sandbox clock ticks with the wall clock).
    const approved = await m.ok("POST", `/transactions/${t.id}/approve`, { receiverCustomerInfo: { NATIONALITY: "FR" } })
    expect(approved).toMatchObject({ id: t.id, type: "INCOMING", direction: "CREDIT", status: "COMPLETED" })
    expect(await usd(m, c)).toBe(500)
    await m.advance(10)
    expect((await m.transaction(t.id)).status).toBe("COMPLETED")
    expect(await incomingEvents(t.id)).toEqual(["INCOMING_PAYMENT.PENDING", "INCOMING_PAYMENT.COMPLETED"])
    expect(received(t.id).map((r) => r.type)).toEqual(["INCOMING_PAYMENT.PENDING", "INCOMING_PAYMENT.COMPLETED"])
    expect((await m.call("POST", `/transactions/${t.id}/reject`)).status).toBe(409)
  })

  it("202 then reject (with a reason): FAILED, refunded, nothing credited", async () => {
    const { m, c, receive, incomingEvents } = await setup(() => 202)
    const t = await receive()
    await m.advance(0)
    const rejected = await m.ok("POST", `/transactions/${t.id}/reject`, { reason: "RESTRICTED_JURISDICTION" })
    expect(rejected).toMatchObject({ id: t.id, type: "INCOMING", status: "FAILED", failureReason: "COMPLIANCE_REJECTED", refund: { status: "COMPLETED" } })
    expect(await usd(m, c)).toBe(0)
    expect(await incomingEvents(t.id)).toEqual(REFUNDED)
    // A body is optional: an empty one works as well (here: 409, already decided).
    expect((await m.call("POST", `/transactions/${t.id}/reject`)).body.code).toBe("TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL")
  })

  it("202 then silence: rejected automatically once 5 s of the platform's clock have passed (PAYMENT_APPROVAL_TIMED_OUT)", async () => {
    const { m, c, receive, incomingEvents, received } = await setup(() => 202)
    const t = await receive()
    await m.advance(0)
    // The 202 answer is the deferred payment's last change: the deadline is 5 s after it,
    // measured on the instants the server reports (the sandbox clock ticks with the wall
    // clock, so a fixed advance could overshoot on a slow machine).
    const deferred = await m.transaction(t.id)
    expect(deferred.status).toBe("PENDING")
    const deadline = Date.parse(deferred.updatedAt) + 5_000
    await m.advance(Math.max(0, Math.ceil((deadline - (await m.clock())) / 1_000)))
    const failed = await m.transaction(t.id)
    expect(failed).toMatchObject({ status: "FAILED", failureReason: "PAYMENT_APPROVAL_TIMED_OUT", refund: { status: "COMPLETED", reason: "TRANSACTION_FAILED" } })
    // Rejected exactly at the deadline, 5 s of the platform's clock after the answer.
    expect(Date.parse(failed.updatedAt)).toBe(deadline)
    expect(await usd(m, c)).toBe(0)
    expect(await incomingEvents(t.id)).toEqual(REFUNDED)
    expect(received(t.id).map((r) => r.type)).toEqual(REFUNDED)
    const late = await m.call("POST", `/transactions/${t.id}/approve`)
    expect(late.status).toBe(409)
    expect(late.body.code).toBe("TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL")
  })

  it("a delivery that never gets an answer approves once it gives up; the platform may decide by a call before that", async () => {
    const { m, c, receive, deliveryOf } = await setup(() => 500)
    const t = await receive()
    await m.advance(0)
    expect((await m.transaction(t.id)).status).toBe("PENDING")
    const decidedByCall = await receive(SENDER, 100)
    await m.ok("POST", `/transactions/${decidedByCall.id}/reject`)
    await m.advance(2 * 86_400)
    const delivery = await deliveryOf(t.id)
    expect(delivery?.status).toBe("FAILED")
    expect(delivery?.attempts.length).toBe(MAX_ATTEMPTS)
    expect((await m.transaction(t.id)).status).toBe("COMPLETED")
    // The later answers (500s) changed nothing for the one rejected by a call.
    expect((await m.transaction(decidedByCall.id)).status).toBe("FAILED")
    expect(await usd(m, c)).toBe(500)
  })

  it("$pending.long.usd: approved by the webhook, then held in compliance review for 24 hours; $fail.compliance.usd fails before the platform is asked", async () => {
    const { m, c, receive, received } = await setup(() => 200)
    const held = await receive("$pending.long.usd@sandbox.grid.uma.money")
    await m.advance(0)
    expect(await m.transaction(held.id)).toMatchObject({ status: "PENDING", pendingReason: "COMPLIANCE_REVIEW" })
    await m.advance(86_401)
    expect((await m.transaction(held.id)).status).toBe("COMPLETED")
    expect(await usd(m, c)).toBe(500)
    const refused = await receive("$fail.compliance.usd@sandbox.grid.uma.money")
    expect(refused).toMatchObject({ status: "FAILED", failureReason: "COMPLIANCE_REJECTED" })
    await m.advance(0)
    expect(received(refused.id).map((r) => r.type)).toEqual(REFUNDED)
  })
})

describe("without an endpoint, on bank rails, and on payments not waiting", () => {
  it("no webhook endpoint: the payment completes at once, as before; approve / reject are 409", async () => {
    const { m, c, receive } = await setup(() => 403, { endpoint: false })
    const t = await receive()
    expect(t.status).toBe("COMPLETED")
    expect(await usd(m, c)).toBe(500)
    for (const action of ["approve", "reject"]) {
      const r = await m.call("POST", `/transactions/${t.id}/${action}`, {})
      expect(r.status, action).toBe(409)
      expect(r.body.code).toBe("TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL")
    }
    expect((await m.call("POST", "/transactions/Transaction:00000000-0000-4000-8000-000000000000/approve")).status).toBe(404)
  })

  it("a bank-rail (SWIFT) incoming payment's PENDING webhook is informational: 403, 422 and 202 change nothing; bank deposits are credited whatever the receiver says", async () => {
    const answers = [403, 422, 202]
    // Wire n is answered answers[n - 1].
    const { platform, api, m, c, received, deliveryOf } = await setup((r) => answers[Number(r.resourceId.slice(-1)) - 1] ?? 200)
    const context = await api.ready
    const at = new Date(await m.clock()).toISOString()
    const wires = [1, 2, 3].map((n): IncomingTransaction => ({
      id: `Transaction:00000000-0000-4000-8000-00000000000${n}`,
      type: "INCOMING",
      direction: "CREDIT",
      status: "PENDING",
      source: { sourceType: "REALTIME_FUNDING", currency: "USD", paymentRail: "SWIFT" },
      destination: { destinationType: "ACCOUNT", accountId: c.accounts.USD, currency: "USD" },
      customerId: c.id,
      receivedAmount: { amount: 1_000, currency: { code: "USD", name: "United States Dollar", symbol: "$", decimals: 2 } },
      createdAt: at,
      updatedAt: at
    }))
    // No sandbox endpoint makes a bank-rail incoming transaction yet: written as a rail would, with its event.
    await Effect.runPromise(Effect.provideContext(
      Effect.flatMap(Effect.service(Store), (store) =>
        store.transact((uow) =>
          Effect.forEach(wires, (t, i) =>
            Effect.andThen(
              uow.putTransaction({
                platformId: platform.id,
                transaction: t,
                plan: {
                  debit: { account: "world", currency: "USD", amount: 1_000 },
                  credit: { account: c.accounts.USD, currency: "USD", amount: 1_000 },
                  fees: [],
                  money: "NONE",
                  outcome: "SUCCESS",
                  steps: [],
                  internalAccounts: [c.accounts.USD]
                }
              }),
              uow.emit(makeEvent("INCOMING_PAYMENT.PENDING", { id: `Webhook:00000000-0000-4000-8000-00000000000${i + 1}`, platformId: platform.id, timestamp: at, data: t }))
            ), { discard: true }))),
      context
    ))
    await m.advance(0)
    await m.advance(10)
    for (const [i, t] of wires.entries()) {
      expect(received(t.id).map((r) => r.status)).toEqual([[403, 422, 202][i]])
      expect((await deliveryOf(t.id))?.status).toBe("DELIVERED")
      const after = await m.transaction(t.id)
      expect(after).toMatchObject({ status: "PENDING", updatedAt: t.updatedAt })
      expect(after.failureReason).toBeUndefined()
      expect((await m.call("POST", `/transactions/${t.id}/approve`)).body.code).toBe("TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL")
    }
    // A deposit to the funding instructions (the sandbox fund endpoint) is credited: nothing to approve.
    await m.fund(c.accounts.USD, 700)
    expect(await usd(m, c)).toBe(700)
  })
})
