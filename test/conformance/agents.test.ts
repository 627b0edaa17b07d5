/**
 * Conformance of agents: every success answer of the agent endpoints (management,
 * device codes, redeem, the agent's own reads) validates against the reference
 * operation's schema for its status, with every optional policy part present and
 * absent, and the AGENT_ACTION.PENDING_APPROVAL payload. SPEC.md's ACH_SAME_DAY rail is the
 * one difference applied (`SPEC_DIFFERENCES`).
 */
import { afterAll, describe, expect, it } from "vitest"
import { makeApi } from "../support/api.js"
import { webhookBodyOf } from "../../src/domain/events.js"
import { accountNumberEnding, moneyClient, moneyPlatform } from "../support/money.js"
import { conformance, type Json } from "./harness.js"
import { AGENT_OPERATIONS } from "./operations.js"

/**
 * SPEC.md's differences that agent answers show (as test/conformance/external-account.test.ts
 * and money.test.ts apply them): the `ACH_SAME_DAY` rail exists.
 */
const SPEC_DIFFERENCES = (s: Record<string, Json>) => {
  const usd = JSON.stringify(s["UsdAccountInfo"])
  const withSameDay = usd.replace('"enum":["ACH","WIRE","RTP","FEDNOW"]', '"enum":["ACH","ACH_SAME_DAY","WIRE","RTP","FEDNOW"]')
  if (withSameDay === usd) throw new Error("reference UsdAccountInfo rails changed; update SPEC_DIFFERENCES")
  s["UsdAccountInfo"] = JSON.parse(withSameDay) as Json
  const rail = s["PaymentRail"] as { enum?: Array<string> } | undefined
  if (rail?.enum !== undefined && !rail.enum.includes("ACH_SAME_DAY")) rail.enum = [...rail.enum, "ACH_SAME_DAY"]
}

const { conforms, schemaConforms, validator, checked } = conformance(SPEC_DIFFERENCES)

const platform = moneyPlatform("conformance-agents")
const api = makeApi([platform])
afterAll(() => api.dispose())
const c = moneyClient(api, platform)

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

describe("agent answers against the reference", () => {
  it("management, device codes, redeem and the agent's reads", async () => {
    const customer = await c.fundedCustomer()
    const minimal = { permissions: ["VIEW_TRANSACTIONS"], defaultExecutionMode: "AUTO", spendingLimits: { currency: "USD", perTransactionLimit: 1000 } }
    const full = {
      permissions: ["VIEW_TRANSACTIONS", "CREATE_TRANSFERS", "CREATE_QUOTES", "EXECUTE_QUOTES", "MANAGE_EXTERNAL_ACCOUNTS"],
      defaultExecutionMode: "APPROVAL_REQUIRED",
      spendingLimits: { currency: "USD", perTransactionLimit: 50_000, dailyLimit: null, dailyTransactionLimit: 10, monthlyLimit: 5_000_000 },
      accountRestrictions: { allowedAccountIds: [customer.accounts.USD], accountRules: [{ accountId: customer.accounts.USD, executionMode: "AUTO", perTransactionLimit: null }] },
      approvalThresholds: { currency: "USD", amount: 100_000 }
    }
    const a = conforms("POST", "/agents", await c.call("POST", "/agents", { name: "Minimal", customerId: customer.id, policy: minimal })) as {
      agent: { id: string }
      deviceCode: { code: string }
    }
    const b = conforms("POST", "/agents", await c.call("POST", "/agents", { name: "Full", customerId: customer.id, policy: full })) as {
      agent: { id: string }
      deviceCode: { code: string }
    }
    for (const q of ["", "?limit=1", `?customerId=${encodeURIComponent(customer.id)}&isPaused=false&isConnected=false`]) {
      conforms("GET", "/agents", await c.call("GET", `/agents${q}`))
    }
    const page = await c.call("GET", "/agents?limit=1")
    conforms("GET", "/agents", await c.call("GET", `/agents?limit=1&cursor=${encodeURIComponent(page.body.nextCursor)}`))
    conforms("GET", "/agents/{}", await c.call("GET", `/agents/${a.agent.id}`))
    conforms("GET", "/agents/{}", await c.call("GET", `/agents/${b.agent.id}`))
    conforms("PATCH", "/agents/{}", await c.call("PATCH", `/agents/${a.agent.id}`, { name: "Renamed", isPaused: true }))
    conforms("PATCH", "/agents/{}/policy", await c.call("PATCH", `/agents/${a.agent.id}/policy`, { spendingLimits: { dailyLimit: 100, monthlyLimit: null } }))
    conforms("PATCH", "/agents/{}/policy", await c.call("PATCH", `/agents/${b.agent.id}/policy`, { spendingLimits: { currency: "EUR" } }))
    const fresh = conforms("POST", "/agents/{}/device-codes", await c.call("POST", `/agents/${a.agent.id}/device-codes`)) as { code: string }
    conforms("GET", "/agents/device-codes/{}/status", await c.call("GET", `/agents/device-codes/${fresh.code}/status`))
    const redeemed = conforms("POST", "/agents/device-codes/{}/redeem", await c.call("POST", `/agents/device-codes/${b.deviceCode.code}/redeem`)) as { accessToken: string }
    conforms("GET", "/agents/device-codes/{}/status", await c.call("GET", `/agents/device-codes/${b.deviceCode.code}/status`))
    conforms("GET", "/agents/me", await c.call("GET", "/agents/me", undefined, bearer(redeemed.accessToken)))
    conforms("GET", "/agents/me/actions", await c.call("GET", "/agents/me/actions", undefined, bearer(redeemed.accessToken)))
    conforms("GET", "/agents/approvals", await c.call("GET", "/agents/approvals"))
    conforms("GET", "/agents/approvals", await c.call("GET", `/agents/approvals?agentId=${encodeURIComponent(b.agent.id)}&sortOrder=asc`))
  })

  it("the agent's money and account answers, and the AGENT_ACTION.PENDING_APPROVAL payload", async () => {
    const customer = await c.fundedCustomer({ USD: 1_000_000, EUR: 100_000 })
    const bank = await c.externalUsd(customer.id, accountNumberEnding("000"))
    const policy = {
      permissions: ["VIEW_TRANSACTIONS", "CREATE_TRANSFERS", "CREATE_QUOTES", "EXECUTE_QUOTES", "MANAGE_EXTERNAL_ACCOUNTS"],
      defaultExecutionMode: "AUTO",
      spendingLimits: { currency: "USD", perTransactionLimit: 500_000 },
      approvalThresholds: { currency: "USD", amount: 10_000 }
    }
    const created = await c.ok("POST", "/agents", { name: "Money", customerId: customer.id, policy }, 201)
    const token = (await c.ok("POST", `/agents/device-codes/${created.deviceCode.code}/redeem`)).accessToken as string
    const as = (method: string, path: string, body?: unknown) => c.call(method, path, body, bearer(token))
    const quoteBody = (amount: number) => ({
      source: { sourceType: "ACCOUNT", accountId: customer.accounts.USD },
      destination: { destinationType: "ACCOUNT", accountId: customer.accounts.EUR },
      lockedCurrencySide: "SENDING",
      lockedCurrencyAmount: amount
    })
    const quote = conforms("POST", "/agents/me/quotes", await as("POST", "/agents/me/quotes", quoteBody(5_000))) as { id: string }
    conforms("GET", "/agents/me/quotes/{}", await as("GET", `/agents/me/quotes/${quote.id}`))
    const auto = conforms("POST", "/agents/me/quotes/{}/execute", await as("POST", `/agents/me/quotes/${quote.id}/execute`)) as { id: string }
    const big = await as("POST", "/agents/me/quotes", quoteBody(50_000))
    const held = conforms("POST", "/agents/me/quotes/{}/execute", await as("POST", `/agents/me/quotes/${big.body.id}/execute`)) as { id: string; status: string }
    expect(held.status).toBe("PENDING_APPROVAL")
    const out = conforms("POST", "/agents/me/transfer-out", await as("POST", "/agents/me/transfer-out", { source: { accountId: customer.accounts.USD }, destination: { accountId: bank.id }, amount: 20_000 })) as { id: string }
    conforms("POST", "/agents/me/transfer-in", await as("POST", "/agents/me/transfer-in", { source: { accountId: bank.id }, destination: { accountId: customer.accounts.USD }, amount: 1_000 }))
    for (const q of ["", "?status=PENDING_APPROVAL", "?limit=1"]) conforms("GET", "/agents/me/actions", await as("GET", `/agents/me/actions${q}`))
    conforms("GET", "/agents/me/actions/{}", await as("GET", `/agents/me/actions/${auto.id}`))
    conforms("GET", "/agents/me/actions/{}", await as("GET", `/agents/me/actions/${held.id}`))
    conforms("GET", "/agents/approvals", await c.call("GET", "/agents/approvals"))
    const events = (await c.events()).filter((e) => e.type === "AGENT_ACTION.PENDING_APPROVAL")
    expect(events.length).toBeGreaterThanOrEqual(2)
    for (const e of events) schemaConforms("AgentActionWebhook", JSON.parse(webhookBodyOf(e)), `webhook ${e.type}`)
    conforms("POST", "/agents/{}/actions/{}/approve", await c.call("POST", `/agents/${created.agent.id}/actions/${held.id}/approve`))
    conforms("POST", "/agents/{}/actions/{}/reject", await c.call("POST", `/agents/${created.agent.id}/actions/${out.id}/reject`, { reason: "No" }))
    conforms("GET", "/agents/me/actions/{}", await as("GET", `/agents/me/actions/${out.id}`))
    for (const q of ["", "?limit=1", "?type=OUTGOING&sortOrder=asc", "?status=FAILED"]) conforms("GET", "/agents/me/transactions", await as("GET", `/agents/me/transactions${q}`))
    const txs = await as("GET", "/agents/me/transactions")
    for (const t of txs.body.data as Array<{ id: string }>) conforms("GET", "/agents/me/transactions/{}", await as("GET", `/agents/me/transactions/${t.id}`))
    for (const q of ["", "?currency=USD", "?limit=1"]) conforms("GET", "/agents/me/internal-accounts", await as("GET", `/agents/me/internal-accounts${q}`))
    const ext = conforms("POST", "/agents/me/external-accounts", await as("POST", "/agents/me/external-accounts", {
      currency: "USD",
      accountInfo: {
        accountType: "USD_ACCOUNT",
        accountNumber: accountNumberEnding("000"),
        routingNumber: "021000021",
        bankAccountType: "CHECKING",
        beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Ada Lovelace" }
      }
    })) as { id: string }
    for (const q of ["", "?currency=USD", "?limit=1"]) conforms("GET", "/agents/me/external-accounts", await as("GET", `/agents/me/external-accounts${q}`))
    conforms("GET", "/agents/me/external-accounts/{}", await as("GET", `/agents/me/external-accounts/${ext.id}`))
  })

  it("the validator tells a wrong agent from a right one", async () => {
    const list = await c.ok("GET", "/agents")
    const agent = list.data[0] as Record<string, unknown>
    expect(validator("Agent")(agent)).toBe(true)
    const { usage: _u, ...withoutUsage } = agent
    expect(validator("Agent")(withoutUsage)).toBe(false)
    expect(validator("Agent")({ ...agent, isPaused: "no" })).toBe(false)
  })

  it("every agent endpoint with a success body was checked", () => {
    for (const op of AGENT_OPERATIONS) expect(checked.get(op) ?? 0, op).toBeGreaterThan(0)
  })
})
