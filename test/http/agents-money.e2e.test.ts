/**
 * The agent's money and account endpoints over HTTP (docs/agents.md): policy
 * enforcement (permissions, limits per transaction, day and month in the policy
 * currency, allowed accounts, account rules, thresholds, paused agents), AUTO vs
 * APPROVAL_REQUIRED, the platform's approval and rejection by both routes, the
 * AGENT_ACTION.PENDING_APPROVAL event, idempotency, and isolation between customers,
 * agents and platforms. test/postgres/agents-money.e2e.test.ts runs it on PostgreSQL.
 */
import { afterAll, describe, expect, it } from "vitest"
import { isErrorShape, makeApi, type Reply } from "../support/api.js"
import { accountNumberEnding, advanceTo, advanceToSettlement, moneyClient, noonOnFirstOfNextMonth, moneyPlatform } from "../support/money.js"

const sandbox = moneyPlatform("agent-money-sandbox")
const other = moneyPlatform("agent-money-other")
const api = makeApi([sandbox, other])
afterAll(() => api.dispose())

const c = moneyClient(api, sandbox)
const o = moneyClient(api, other)
type Client = typeof c

const expectError = (r: Reply, status: number, code: string) => {
  expect(r.status, JSON.stringify(r.body)).toBe(status)
  expect(r.body.code).toBe(code)
  expect(isErrorShape(r.body)).toBe(true)
}

const ALL = ["VIEW_TRANSACTIONS", "CREATE_TRANSFERS", "CREATE_QUOTES", "EXECUTE_QUOTES", "MANAGE_EXTERNAL_ACCOUNTS"]
const policy = (extra: Record<string, unknown> = {}) => ({
  permissions: ALL,
  defaultExecutionMode: "AUTO",
  spendingLimits: { currency: "USD", perTransactionLimit: 50_000, dailyLimit: 100_000, dailyTransactionLimit: 5, monthlyLimit: 150_000 },
  ...extra
})

interface Setup {
  readonly agentId: string
  readonly token: string
  readonly customer: Awaited<ReturnType<Client["fundedCustomer"]>>
  readonly bank: string
  readonly as: (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<Reply>
}

/** A funded customer with a USD bank account and a connected agent under `p` (a function of the customer's accounts). */
const setup = async (p: (accounts: Record<string, string>) => Record<string, unknown> = () => policy(), client: Client = c): Promise<Setup> => {
  const customer = await client.fundedCustomer({ USD: 1_000_000, EUR: 100_000 })
  const bank = (await client.externalUsd(customer.id, accountNumberEnding("000"))).id
  const created = await client.ok("POST", "/agents", { name: "Treasury Agent", customerId: customer.id, policy: p(customer.accounts) }, 201)
  const redeemed = await api.call("POST", `/agents/device-codes/${created.deviceCode.code}/redeem`)
  expect(redeemed.status).toBe(200)
  const token = redeemed.body.accessToken as string
  const as = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    api.call(method, path, { headers: { authorization: `Bearer ${token}`, ...headers }, ...(body === undefined ? {} : { body }) })
  return { agentId: created.agent.id, token, customer, bank, as }
}

const out = (s: Setup, amount: number, headers?: Record<string, string>) =>
  s.as("POST", "/agents/me/transfer-out", { source: { accountId: s.customer.accounts.USD }, destination: { accountId: s.bank }, amount }, headers)

describe("AUTO: the agent's transfer runs at once", () => {
  it("transfer-out: 201 APPROVED action with its transaction, the balance debited, usage counted", async () => {
    const s = await setup()
    const r = await out(s, 10_000)
    expect(r.status, JSON.stringify(r.body)).toBe(201)
    expect(r.body).toMatchObject({
      agentId: s.agentId,
      customerId: s.customer.id,
      platformCustomerId: s.customer.platformCustomerId,
      status: "APPROVED",
      type: "TRANSFER_OUT",
      transferDetails: { amount: 10_000, currency: "USD", sourceAccountId: s.customer.accounts.USD, destinationAccountId: s.bank },
      transaction: { type: "OUTGOING", status: "PROCESSING", customerId: s.customer.id }
    })
    expect(r.body.id).toMatch(/^AgentAction:/)
    expect(await c.balance(s.customer.accounts.USD, s.customer.id)).toBe(990_000)
    const me = await s.as("GET", "/agents/me")
    expect(me.body.usage).toMatchObject({ dailyTransactionCount: 1, dailySpend: 10_000, monthlySpend: 10_000 })
    const actions = await s.as("GET", "/agents/me/actions")
    expect(actions.body.data.map((a: { id: string }) => a.id)).toEqual([r.body.id])
    expect((await s.as("GET", `/agents/me/actions/${r.body.id}`)).body).toEqual(r.body)
    // Not held: the platform has nothing to approve.
    expectError(await c.call("POST", `/transactions/${r.body.transaction.id}/approve`), 409, "TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL")
    expectError(await c.call("POST", `/agents/${s.agentId}/actions/${r.body.id}/approve`), 409, "CONFLICT")
  })

  it("transfer-in from the customer's bank account", async () => {
    const s = await setup()
    const r = await s.as("POST", "/agents/me/transfer-in", { source: { accountId: s.bank }, destination: { accountId: s.customer.accounts.USD }, amount: 2_000 })
    expect(r.status, JSON.stringify(r.body)).toBe(201)
    expect(r.body).toMatchObject({ status: "APPROVED", type: "TRANSFER_IN", transferDetails: { amount: 2_000, sourceAccountId: s.bank } })
    expectError(await s.as("POST", "/agents/me/transfer-in", { source: { accountId: s.customer.accounts.USD }, destination: { accountId: s.bank }, amount: 2_000 }), 400, "INVALID_INPUT")
  })

  it("Idempotency-Key replays the same action with one debit; another request with the key is 409", async () => {
    const s = await setup()
    const key = { "idempotency-key": `agent-out-${s.agentId}` }
    const first = await out(s, 1_000, key)
    const second = await out(s, 1_000, key)
    expect(first.status).toBe(201)
    expect(second.status).toBe(201)
    expect(second.body).toEqual(first.body)
    expect(await c.balance(s.customer.accounts.USD, s.customer.id)).toBe(999_000)
    expectError(await out(s, 1_001, key), 409, "CONFLICT")
    expect((await s.as("GET", "/agents/me")).body.usage.dailyTransactionCount).toBe(1)
  })
})

describe("APPROVAL_REQUIRED: the payment is held for the platform", () => {
  it("is PENDING_APPROVAL with AGENT_ACTION.PENDING_APPROVAL; approving runs it to completion", async () => {
    const s = await setup(() => policy({ defaultExecutionMode: "APPROVAL_REQUIRED" }))
    const r = await out(s, 20_000)
    expect(r.status, JSON.stringify(r.body)).toBe(201)
    expect(r.body).toMatchObject({ status: "PENDING_APPROVAL", type: "TRANSFER_OUT" })
    expect(r.body.transaction).toBeUndefined()
    // The money is reserved (in flight) while it waits.
    expect(await c.balance(s.customer.accounts.USD, s.customer.id)).toBe(980_000)
    const events = (await c.events()).filter((e) => e.type === "AGENT_ACTION.PENDING_APPROVAL")
    expect(events.map((e) => e.data)).toContainEqual(r.body)
    const approvals = await c.ok("GET", `/agents/approvals?agentId=${encodeURIComponent(s.agentId)}`)
    expect(approvals.data.map((a: { id: string }) => a.id)).toEqual([r.body.id])
    expect((await c.ok("GET", `/agents/approvals?customerId=${encodeURIComponent(s.customer.id)}`)).totalCount).toBe(1)
    expect((await o.ok("GET", "/agents/approvals")).data.some((a: { id: string }) => a.id === r.body.id)).toBe(false)
    const approved = await c.ok("POST", `/agents/${s.agentId}/actions/${r.body.id}/approve`)
    expect(approved).toMatchObject({ id: r.body.id, status: "APPROVED", transaction: { status: "PROCESSING" } })
    expect((await s.as("GET", `/agents/me/actions/${r.body.id}`)).body.status).toBe("APPROVED")
    expectError(await c.call("POST", `/agents/${s.agentId}/actions/${r.body.id}/approve`), 409, "CONFLICT")
    expectError(await c.call("POST", `/agents/${s.agentId}/actions/${r.body.id}/reject`), 409, "CONFLICT")
    expect((await c.ok("GET", `/agents/approvals?agentId=${encodeURIComponent(s.agentId)}`)).totalCount).toBe(0)
    await advanceToSettlement(c, approved.transaction.id)
    expect((await c.transaction(approved.transaction.id)).status).toBe("COMPLETED")
    // The action shows its transaction as it is now.
    expect((await s.as("GET", `/agents/me/actions/${r.body.id}`)).body.transaction.status).toBe("COMPLETED")
    expect((await s.as("GET", "/agents/me/actions")).body.data[0].transaction.status).toBe("COMPLETED")
  })

  it("rejecting refunds the held payment, keeps the reason and gives the amount back to the limits", async () => {
    const s = await setup(() => policy({ defaultExecutionMode: "APPROVAL_REQUIRED" }))
    const r = await out(s, 30_000)
    const txId = (await c.ok("GET", `/transactions?customerId=${encodeURIComponent(s.customer.id)}&type=OUTGOING`)).data[0].id
    expect((await c.transaction(txId)).status).toBe("PENDING")
    expect((await s.as("GET", "/agents/me")).body.usage.dailySpend).toBe(30_000)
    const rejected = await c.ok("POST", `/agents/${s.agentId}/actions/${r.body.id}/reject`, { reason: "Too large today" })
    expect(rejected).toMatchObject({ status: "REJECTED", rejectionReason: "Too large today" })
    expect(rejected.transaction).toBeUndefined()
    expect((await c.transaction(txId)).status).toBe("FAILED")
    expect(await c.balance(s.customer.accounts.USD, s.customer.id)).toBe(1_000_000)
    expect((await s.as("GET", "/agents/me")).body.usage).toMatchObject({ dailyTransactionCount: 0, dailySpend: 0 })
    const noReason = await out(s, 1_000)
    expect((await c.ok("POST", `/agents/${s.agentId}/actions/${noReason.body.id}/reject`)).rejectionReason).toBeUndefined()
  })

  it("approved on a Saturday, an ACH payment reports Monday 00:00 as expectedSettlementAt and completes exactly then", async () => {
    // On the platform's clock, whatever the wall clock: the next Saturday noon, strictly later.
    await advanceTo(c, (now) => Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + ((6 - now.getUTCDay() + 7) % 7 || 7), 12))
    const s = await setup(() => policy({ defaultExecutionMode: "APPROVAL_REQUIRED" }))
    const r = await out(s, 5_000)
    expect(r.body.status, JSON.stringify(r.body)).toBe("PENDING_APPROVAL")
    // Decided an hour later, still on the Saturday.
    await c.advance(3_600)
    const approvedAt = new Date(await c.clock())
    expect(approvedAt.getUTCDay()).toBe(6)
    const approved = await c.ok("POST", `/agents/${s.agentId}/actions/${r.body.id}/approve`)
    const monday = Date.UTC(approvedAt.getUTCFullYear(), approvedAt.getUTCMonth(), approvedAt.getUTCDate() + 2)
    expect(approved.transaction).toMatchObject({ status: "PROCESSING", paymentRail: "ACH", expectedSettlementAt: new Date(monday).toISOString() })
    expect((await c.transaction(approved.transaction.id)).expectedSettlementAt).toBe(new Date(monday).toISOString())
    // A minute before: still PROCESSING; at the instant reported: COMPLETED. (Not a second
    // before: the advance is whole seconds rounded up, and the clock runs on with real time
    // between reading it and advancing it, so a loaded machine landed past Monday 00:00.)
    await advanceTo(c, () => monday - 60_000)
    expect((await c.transaction(approved.transaction.id)).status).toBe("PROCESSING")
    // Settled by the move due at Monday 00:00, not before (the clock keeps ticking with real
    // time between two requests, so how far past it the advance lands depends on the machine).
    await advanceToSettlement(c, approved.transaction.id)
    const settled = await c.transaction(approved.transaction.id)
    expect(settled.status).toBe("COMPLETED")
    expect(Date.parse(settled.settledAt)).toBeGreaterThanOrEqual(monday)
  })

  it("POST /transactions/{id}/approve and /reject decide the held payment, and its action follows", async () => {
    const s = await setup(() => policy({ defaultExecutionMode: "APPROVAL_REQUIRED" }))
    const a1 = await out(s, 1_000)
    const a2 = await out(s, 2_000)
    // Told apart by amount: created within the same millisecond, their order is their random ids'.
    const listed: Array<{ id: string; sentAmount: { amount: number } }> = (await c.ok("GET", `/transactions?customerId=${encodeURIComponent(s.customer.id)}&type=OUTGOING`)).data
    const byAmount = (amount: number) => {
      const found = listed.find((t) => t.sentAmount.amount === amount)
      if (found === undefined) throw new Error(`no held payment of ${amount}: ${JSON.stringify(listed)}`)
      return found
    }
    const txs = [byAmount(1_000), byAmount(2_000)] as const
    const approved = await c.ok("POST", `/transactions/${txs[0].id}/approve`)
    expect(approved.status).toBe("PROCESSING")
    expect((await s.as("GET", `/agents/me/actions/${a1.body.id}`)).body).toMatchObject({ status: "APPROVED", transaction: { id: txs[0].id } })
    const rejected = await c.ok("POST", `/transactions/${txs[1].id}/reject`, { reason: "No" })
    expect(rejected.status).toBe("FAILED")
    expect((await s.as("GET", `/agents/me/actions/${a2.body.id}`)).body).toMatchObject({ status: "REJECTED", rejectionReason: "No" })
    expectError(await c.call("POST", `/transactions/${txs[0].id}/approve`), 409, "TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL")
    expectError(await c.call("POST", `/transactions/${txs[1].id}/reject`), 409, "TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL")
  })

  it("a held payment cancelled by the platform fails its action and gives its amount back", async () => {
    const s = await setup(() => policy({ defaultExecutionMode: "APPROVAL_REQUIRED" }))
    const a = await out(s, 4_000)
    const txId = (await c.ok("GET", `/transactions?customerId=${encodeURIComponent(s.customer.id)}&type=OUTGOING`)).data[0].id
    expect((await c.ok("POST", `/transactions/${txId}/cancel`)).status).toBe("FAILED")
    const action = (await s.as("GET", `/agents/me/actions/${a.body.id}`)).body
    expect(action).toMatchObject({ status: "FAILED", transaction: { id: txId, status: "FAILED" } })
    expect((await s.as("GET", "/agents/me")).body.usage.dailySpend).toBe(0)
    expect(await c.balance(s.customer.accounts.USD, s.customer.id)).toBe(1_000_000)
    expectError(await c.call("POST", `/agents/${s.agentId}/actions/${a.body.id}/approve`), 409, "CONFLICT")
  })

  it("a threshold or an account rule sends an AUTO agent's payment for approval", async () => {
    const s = await setup((a) => policy({ approvalThresholds: { currency: "USD", amount: 5_000 } }))
    expect((await out(s, 5_000)).body.status).toBe("APPROVED")
    expect((await out(s, 5_001)).body.status).toBe("PENDING_APPROVAL")
    const ruled = await setup((a) => policy({ accountRestrictions: { accountRules: [{ accountId: a["USD"], executionMode: "APPROVAL_REQUIRED" }] } }))
    expect((await out(ruled, 100)).body.status).toBe("PENDING_APPROVAL")
    const exempt = await setup((a) => policy({ defaultExecutionMode: "APPROVAL_REQUIRED", accountRestrictions: { accountRules: [{ accountId: a["USD"], executionMode: "AUTO" }] } }))
    expect((await out(exempt, 100)).body.status).toBe("APPROVED")
  })

  it("deleting the agent rejects its pending actions and refunds their payments", async () => {
    const s = await setup(() => policy({ defaultExecutionMode: "APPROVAL_REQUIRED" }))
    const r = await out(s, 7_000)
    expect(await c.balance(s.customer.accounts.USD, s.customer.id)).toBe(993_000)
    expect((await c.call("DELETE", `/agents/${s.agentId}`)).status).toBe(204)
    expect(await c.balance(s.customer.accounts.USD, s.customer.id)).toBe(1_000_000)
    const approvals = await c.ok("GET", "/agents/approvals")
    expect(approvals.data.some((a: { id: string }) => a.id === r.body.id)).toBe(false)
    expectError(await c.call("POST", `/agents/${s.agentId}/actions/${r.body.id}/approve`), 404, "NOT_FOUND")
  })
})

describe("the policy refuses with 403 naming the rule", () => {
  const refused = (r: Reply, rule: string) => {
    expectError(r, 403, "FORBIDDEN")
    expect(r.body.details.rule).toBe(rule)
  }

  it("permissions", async () => {
    const s = await setup(() => policy({ permissions: ["VIEW_TRANSACTIONS"] }))
    refused(await out(s, 100), "permission")
    refused(await s.as("POST", "/agents/me/quotes", { source: { sourceType: "ACCOUNT", accountId: s.customer.accounts.USD }, destination: { destinationType: "ACCOUNT", accountId: s.customer.accounts.EUR }, lockedCurrencySide: "SENDING", lockedCurrencyAmount: 100 }), "permission")
    refused(await s.as("GET", "/agents/me/external-accounts"), "permission")
    expect((await s.as("GET", "/agents/me/transactions")).status).toBe(200)
    const none = await setup(() => policy({ permissions: [] }))
    refused(await none.as("GET", "/agents/me/transactions"), "permission")
    refused(await none.as("GET", "/agents/me/internal-accounts"), "permission")
    expect(await c.balance(s.customer.accounts.USD, s.customer.id)).toBe(1_000_000)
  })

  it("per-transaction, daily count, daily and monthly limits (refusals count nothing)", async () => {
    const s = await setup()
    // Whatever day the suite runs: spend at noon on a 1st, so the spending shares a day and "a day later" shares the month.
    await advanceTo(c, noonOnFirstOfNextMonth)
    refused(await out(s, 50_001), "perTransactionLimit")
    expect((await out(s, 50_000)).status).toBe(201)
    expect((await out(s, 40_000)).status).toBe(201)
    refused(await out(s, 10_001), "dailyLimit")
    expect((await out(s, 10_000)).status).toBe(201)
    const me = await s.as("GET", "/agents/me")
    expect(me.body.usage).toMatchObject({ dailyTransactionCount: 3, dailySpend: 100_000, monthlySpend: 100_000 })
    // A new day: the daily counters reset, the monthly one keeps counting.
    await c.advance(86_400)
    expect((await out(s, 50_000)).status).toBe(201)
    refused(await out(s, 1), "monthlyLimit")
    const counted = await setup(() => policy({ spendingLimits: { currency: "USD", perTransactionLimit: 1_000, dailyTransactionLimit: 2 } }))
    expect((await out(counted, 1)).status).toBe(201)
    expect((await out(counted, 1)).status).toBe(201)
    refused(await out(counted, 1), "dailyTransactionLimit")
  })

  it("limits in another currency compare the converted amount", async () => {
    // 100 EUR cents per transaction: a 100 USD-cent transfer is worth less than 100 EUR cents.
    const s = await setup(() => policy({ spendingLimits: { currency: "EUR", perTransactionLimit: 100 } }))
    expect((await out(s, 100)).status).toBe(201)
    refused(await out(s, 200), "perTransactionLimit")
    const used = (await s.as("GET", "/agents/me")).body.usage.dailySpend
    expect(used).toBeGreaterThan(0)
    expect(used).toBeLessThan(100)
  })

  it("allowed accounts, account rule limits and a paused agent", async () => {
    const s = await setup((a) => policy({ accountRestrictions: { allowedAccountIds: [a["EUR"]] } }))
    refused(await out(s, 100), "allowedAccounts")
    const ruled = await setup((a) => policy({ accountRestrictions: { accountRules: [{ accountId: a["USD"], perTransactionLimit: 500 }] } }))
    refused(await out(ruled, 501), "perTransactionLimit")
    expect((await out(ruled, 500)).status).toBe(201)
    await c.ok("PATCH", `/agents/${ruled.agentId}`, { isPaused: true })
    refused(await out(ruled, 1), "paused")
    // A paused agent still reads.
    expect((await ruled.as("GET", "/agents/me/transactions")).status).toBe(200)
    await c.ok("PATCH", `/agents/${ruled.agentId}`, { isPaused: false })
    expect((await out(ruled, 1)).status).toBe(201)
    // Policy changes take effect at once.
    await c.ok("PATCH", `/agents/${ruled.agentId}/policy`, { permissions: ["VIEW_TRANSACTIONS"] })
    refused(await out(ruled, 1), "permission")
  })
})

describe("concurrency", () => {
  it("racing transfers never pass the daily limit together; racing decisions: exactly one wins", async () => {
    const s = await setup(() => policy({ spendingLimits: { currency: "USD", perTransactionLimit: 10_000, dailyLimit: 10_000 } }))
    const results = await Promise.all([1, 2, 3, 4, 5].map(() => out(s, 3_000)))
    expect(results.filter((r) => r.status === 201)).toHaveLength(3)
    for (const r of results.filter((x) => x.status !== 201)) {
      expectError(r, 403, "FORBIDDEN")
      expect(r.body.details.rule).toBe("dailyLimit")
    }
    expect((await s.as("GET", "/agents/me")).body.usage.dailySpend).toBe(9_000)
    expect(await c.balance(s.customer.accounts.USD, s.customer.id)).toBe(991_000)
    const held = await setup(() => policy({ defaultExecutionMode: "APPROVAL_REQUIRED" }))
    const a = await out(held, 5_000)
    const decisions = await Promise.all([
      c.call("POST", `/agents/${held.agentId}/actions/${a.body.id}/approve`),
      c.call("POST", `/agents/${held.agentId}/actions/${a.body.id}/reject`)
    ])
    expect(decisions.map((d) => d.status).sort()).toEqual([200, 409])
    const final = (await held.as("GET", `/agents/me/actions/${a.body.id}`)).body
    const winner = decisions.find((d) => d.status === 200)!.body
    expect(final.status).toBe(winner.status)
    expect(await c.balance(held.customer.accounts.USD, held.customer.id)).toBe(final.status === "APPROVED" ? 995_000 : 1_000_000)
  })
})

describe("quotes", () => {
  const quoteBody = (s: Setup, amount = 10_000, extra: Record<string, unknown> = {}) => ({
    source: { sourceType: "ACCOUNT", accountId: s.customer.accounts.USD },
    destination: { destinationType: "ACCOUNT", accountId: s.customer.accounts.EUR },
    lockedCurrencySide: "SENDING",
    lockedCurrencyAmount: amount,
    ...extra
  })

  it("creates (201), reads and executes a cross-currency quote as an EXECUTE_QUOTE action", async () => {
    const s = await setup()
    const q = await s.as("POST", "/agents/me/quotes", quoteBody(s), { "idempotency-key": `q-${s.agentId}` })
    expect(q.status, JSON.stringify(q.body)).toBe(201)
    expect(q.body).toMatchObject({ status: "PENDING", sendingCurrency: { code: "USD" }, receivingCurrency: { code: "EUR" } })
    expect((await s.as("POST", "/agents/me/quotes", quoteBody(s), { "idempotency-key": `q-${s.agentId}` })).body).toEqual(q.body)
    expect((await s.as("GET", `/agents/me/quotes/${q.body.id}`)).body).toEqual(q.body)
    const executed = await s.as("POST", `/agents/me/quotes/${q.body.id}/execute`)
    expect(executed.status, JSON.stringify(executed.body)).toBe(200)
    expect(executed.body).toMatchObject({ type: "EXECUTE_QUOTE", status: "APPROVED", quote: { id: q.body.id }, transaction: { id: q.body.transactionId } })
    expect(executed.body.transferDetails).toBeUndefined()
    expectError(await s.as("POST", `/agents/me/quotes/${q.body.id}/execute`), 409, "CONFLICT")
    expect((await s.as("GET", `/agents/me/transactions/${q.body.transactionId}`)).body.id).toBe(q.body.transactionId)
  })

  it("refuses immediatelyExecute, accounts of other customers and quotes of other agents", async () => {
    const s = await setup()
    expectError(await s.as("POST", "/agents/me/quotes", quoteBody(s, 100, { immediatelyExecute: true })), 400, "INVALID_INPUT")
    const stranger = await c.fundedCustomer({ USD: 1_000 })
    expectError(await s.as("POST", "/agents/me/quotes", { ...quoteBody(s), destination: { destinationType: "ACCOUNT", accountId: stranger.accounts.USD } }), 400, "INVALID_INPUT")
    expectError(await s.as("POST", "/agents/me/quotes", { ...quoteBody(s), source: { sourceType: "ACCOUNT", accountId: stranger.accounts.USD } }), 400, "INVALID_INPUT")
    const platformQuote = await c.ok("POST", "/quotes", quoteBody(s), 201)
    expectError(await s.as("GET", `/agents/me/quotes/${platformQuote.id}`), 404, "QUOTE_NOT_FOUND")
    expectError(await s.as("POST", `/agents/me/quotes/${platformQuote.id}/execute`), 404, "QUOTE_NOT_FOUND")
    const t = await setup()
    const mine = await t.as("POST", "/agents/me/quotes", quoteBody(t), {})
    expectError(await s.as("GET", `/agents/me/quotes/${mine.body.id}`), 404, "QUOTE_NOT_FOUND")
    expectError(await s.as("GET", "/agents/me/quotes/Quote:nope"), 404, "QUOTE_NOT_FOUND")
    expectError(await s.as("POST", "/agents/me/quotes", { source: {} }), 400, "INVALID_INPUT")
  })

  it("an expired quote cannot be executed", async () => {
    const s = await setup()
    const q = await s.as("POST", "/agents/me/quotes", quoteBody(s))
    await c.advance(6 * 60)
    const r = await s.as("POST", `/agents/me/quotes/${q.body.id}/execute`)
    expect([400, 409]).toContain(r.status)
    expect(isErrorShape(r.body)).toBe(true)
    expect((await s.as("GET", "/agents/me")).body.usage.dailyTransactionCount).toBe(0)
  })
})

describe("reads and external accounts, scoped to the agent's customer", () => {
  it("transactions and internal accounts of its customer only", async () => {
    const s = await setup()
    const mine = await out(s, 1_000)
    const stranger = await c.fundedCustomer({ USD: 10_000 })
    const theirs = await c.pay(stranger.accounts.USD, stranger.accounts.EUR ?? stranger.accounts.USD, 100)
    const list = await s.as("GET", "/agents/me/transactions")
    expect(list.status).toBe(200)
    expect(list.body.data.every((t: { customerId?: string }) => t.customerId === s.customer.id)).toBe(true)
    expect(list.body.data.map((t: { id: string }) => t.id)).toContain(mine.body.transaction.id)
    expectError(await s.as("GET", `/agents/me/transactions/${theirs.transactionId}`), 404, "TRANSACTION_NOT_FOUND")
    expectError(await s.as("GET", "/agents/me/transactions?status=NOPE"), 400, "INVALID_INPUT")
    const accounts = await s.as("GET", "/agents/me/internal-accounts?currency=USD")
    expect(accounts.body.data.map((a: { id: string }) => a.id)).toEqual([s.customer.accounts.USD])
  })

  it("creates, lists, gets and deletes the customer's external accounts", async () => {
    const s = await setup()
    const body = {
      currency: "USD",
      accountInfo: {
        accountType: "USD_ACCOUNT",
        accountNumber: accountNumberEnding("000"),
        routingNumber: "021000021",
        bankAccountType: "CHECKING",
        beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Ada Lovelace" }
      }
    }
    const created = await s.as("POST", "/agents/me/external-accounts", body)
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    expect(created.body.customerId).toBe(s.customer.id)
    expectError(await s.as("POST", "/agents/me/external-accounts", body), 409, "DUPLICATE_EXTERNAL_ACCOUNT")
    const stranger = await c.customer()
    expectError(await s.as("POST", "/agents/me/external-accounts", { ...body, customerId: stranger.id }), 400, "INVALID_INPUT")
    const { bankAccountType: _b, ...noType } = body.accountInfo
    expectError(await s.as("POST", "/agents/me/external-accounts", { ...body, accountInfo: { ...noType, accountNumber: accountNumberEnding("000") } }), 400, "INVALID_INPUT")
    const list = await s.as("GET", "/agents/me/external-accounts")
    expect(list.body.data.map((a: { id: string }) => a.id).sort()).toEqual([s.bank, created.body.id].sort())
    expect((await s.as("GET", `/agents/me/external-accounts/${created.body.id}`)).body).toEqual(created.body)
    const theirs = await c.externalUsd(stranger.id, accountNumberEnding("000"))
    expectError(await s.as("GET", `/agents/me/external-accounts/${theirs.id}`), 404, "NOT_FOUND")
    expectError(await s.as("DELETE", `/agents/me/external-accounts/${theirs.id}`), 404, "NOT_FOUND")
    expect((await s.as("DELETE", `/agents/me/external-accounts/${created.body.id}`)).status).toBe(204)
    expectError(await s.as("GET", `/agents/me/external-accounts/${created.body.id}`), 404, "NOT_FOUND")
  })

  it("another platform's agent sees nothing of this one", async () => {
    const s = await setup()
    const a = await out(s, 1_000)
    const t = await setup(undefined, o)
    expectError(await t.as("GET", `/agents/me/actions/${a.body.id}`), 404, "NOT_FOUND")
    expectError(await t.as("GET", `/agents/me/transactions/${a.body.transaction.id}`), 404, "TRANSACTION_NOT_FOUND")
    expectError(await t.as("POST", "/agents/me/transfer-out", { source: { accountId: s.customer.accounts.USD }, destination: { accountId: s.bank }, amount: 1 }), 404, "NOT_FOUND")
    expectError(await o.call("POST", `/agents/${s.agentId}/actions/${a.body.id}/approve`), 404, "NOT_FOUND")
  })
})
