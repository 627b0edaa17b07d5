/**
 * The agent policy as plain functions (rules/agents/policy.ts): one `it` per rule in the
 * order docs/agents.md lists them, then bounded fast-check properties: a refusal never
 * counts, limits are never passed by what is counted, the counters reset per UTC day and
 * month, and conversion never rounds a limit away.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { AgentPermission, AgentPolicy } from "../../../src/domain/agent.js"
import {
  addSpend,
  convertMinor,
  emptySpend,
  evaluate,
  mergePolicy,
  periodOf,
  policyProblem,
  releaseSpend,
  rollSpend,
  usageOf
} from "../../../src/rules/agents/policy.js"
import { numRuns } from "../../support/runs.js"

const NOW = Date.parse("2025-07-21T17:32:28Z")
const ALL: ReadonlyArray<AgentPermission> = ["VIEW_TRANSACTIONS", "CREATE_TRANSFERS", "CREATE_QUOTES", "EXECUTE_QUOTES", "MANAGE_EXTERNAL_ACCOUNTS"]

const policy = (extra: Partial<AgentPolicy> = {}): AgentPolicy => ({
  permissions: ALL,
  defaultExecutionMode: "AUTO",
  spendingLimits: { currency: "USD", perTransactionLimit: 1_000, dailyLimit: 2_000, dailyTransactionLimit: 3, monthlyLimit: 5_000 },
  ...extra
})
const agent = (p: AgentPolicy = policy(), spend = emptySpend(NOW), isPaused = false) => ({ isPaused, policy: p, spend })
const send = (amount: number, extra: Record<string, unknown> = {}) => ({ permission: "CREATE_TRANSFERS" as const, internalAccountIds: ["A"], amount, ...extra })

describe("the rules, in order", () => {
  it("a paused agent is refused first", () => {
    expect(evaluate(agent(policy({ permissions: [] }), emptySpend(NOW), true), send(1), NOW)).toMatchObject({ ok: false, rule: "paused" })
  })
  it("a permission the policy does not grant", () => {
    expect(evaluate(agent(policy({ permissions: ["VIEW_TRANSACTIONS"] })), send(1), NOW)).toMatchObject({ ok: false, rule: "permission" })
    expect(evaluate(agent(policy({ permissions: ["VIEW_TRANSACTIONS"] })), { permission: "VIEW_TRANSACTIONS", internalAccountIds: [] }, NOW)).toMatchObject({ ok: true })
  })
  it("an account outside allowedAccountIds (null allows every account)", () => {
    expect(evaluate(agent(policy({ accountRestrictions: { allowedAccountIds: ["B"] } })), send(1), NOW)).toMatchObject({ ok: false, rule: "allowedAccounts" })
    expect(evaluate(agent(policy({ accountRestrictions: { allowedAccountIds: null } })), send(1), NOW)).toMatchObject({ ok: true })
    expect(evaluate(agent(policy({ accountRestrictions: { allowedAccountIds: ["A"] } })), send(1), NOW)).toMatchObject({ ok: true })
  })
  it("the per-transaction limit, an account rule's override first", () => {
    expect(evaluate(agent(), send(1_000), NOW).ok).toBe(true)
    expect(evaluate(agent(), send(1_001), NOW)).toMatchObject({ ok: false, rule: "perTransactionLimit" })
    const ruled = policy({ accountRestrictions: { accountRules: [{ accountId: "A", perTransactionLimit: 10 }] } })
    expect(evaluate(agent(ruled), send(11), NOW)).toMatchObject({ ok: false, rule: "perTransactionLimit" })
    const inherits = policy({ accountRestrictions: { accountRules: [{ accountId: "A", perTransactionLimit: null }] } })
    expect(evaluate(agent(inherits), send(1_000), NOW).ok).toBe(true)
  })
  it("the daily count, daily amount and monthly amount", () => {
    let spend = emptySpend(NOW)
    for (let i = 0; i < 3; i++) spend = addSpend(spend, 100, NOW)
    expect(evaluate(agent(policy(), spend), send(1), NOW)).toMatchObject({ ok: false, rule: "dailyTransactionLimit" })
    const daily = addSpend(emptySpend(NOW), 1_500, NOW)
    expect(evaluate(agent(policy(), daily), send(501), NOW)).toMatchObject({ ok: false, rule: "dailyLimit" })
    expect(evaluate(agent(policy(), daily), send(500), NOW).ok).toBe(true)
    const monthly = { ...emptySpend(NOW), monthlySpend: 4_900 }
    expect(evaluate(agent(policy(), monthly), send(101), NOW)).toMatchObject({ ok: false, rule: "monthlyLimit" })
    const unlimited = policy({ spendingLimits: { currency: "USD", perTransactionLimit: 10_000, dailyLimit: null, monthlyLimit: null } })
    expect(evaluate(agent(unlimited, { ...emptySpend(NOW), dailySpend: 1e9, monthlySpend: 1e9 }), send(10_000), NOW).ok).toBe(true)
  })
  it("the execution mode: an account rule, then the threshold, then the default", () => {
    expect(evaluate(agent(), send(1), NOW)).toEqual({ ok: true, mode: "AUTO", why: "defaultExecutionMode" })
    expect(evaluate(agent(policy({ defaultExecutionMode: "APPROVAL_REQUIRED" })), send(1), NOW)).toMatchObject({ mode: "APPROVAL_REQUIRED" })
    const threshold = policy({ approvalThresholds: { currency: "EUR", amount: 50 } })
    expect(evaluate(agent(threshold), send(100, { thresholdAmount: 50 }), NOW)).toMatchObject({ mode: "AUTO" })
    expect(evaluate(agent(threshold), send(100, { thresholdAmount: 51 }), NOW)).toMatchObject({ mode: "APPROVAL_REQUIRED", why: "approvalThreshold" })
    const exempt = policy({ defaultExecutionMode: "APPROVAL_REQUIRED", accountRestrictions: { accountRules: [{ accountId: "A", executionMode: "AUTO" }] } })
    expect(evaluate(agent(exempt), send(1), NOW)).toMatchObject({ mode: "AUTO", why: "accountRule" })
    const strict = policy({ accountRestrictions: { accountRules: [{ accountId: "A", executionMode: "APPROVAL_REQUIRED" }] } })
    expect(evaluate(agent(strict), send(1), NOW)).toMatchObject({ mode: "APPROVAL_REQUIRED", why: "accountRule" })
  })
})

describe("spend counters and usage", () => {
  it("reset per UTC day and month; usage names the reset date and month", () => {
    const spend = addSpend(emptySpend(NOW), 700, NOW)
    const nextDay = rollSpend(spend, NOW + 86_400_000)
    expect(nextDay).toMatchObject({ dailyTransactionCount: 0, dailySpend: 0, monthlySpend: 700 })
    const nextMonth = rollSpend(spend, Date.parse("2025-08-01T00:00:00Z"))
    expect(nextMonth).toMatchObject({ dailySpend: 0, monthlySpend: 0, month: "2025-08" })
    expect(usageOf(spend, NOW)).toEqual({ dailyTransactionCount: 1, dailySpend: 700, dailyResetDate: "2025-07-22", monthlySpend: 700, monthlyResetMonth: "2025-08" })
    expect(periodOf(Date.parse("2025-12-31T23:59:59Z"))).toEqual({ day: "2025-12-31", month: "2025-12" })
    expect(usageOf(emptySpend(Date.parse("2025-12-31T12:00:00Z")), Date.parse("2025-12-31T12:00:00Z"))).toMatchObject({ dailyResetDate: "2026-01-01", monthlyResetMonth: "2026-01" })
  })
  it("a released amount comes back only within its own day and month", () => {
    const spend = addSpend(emptySpend(NOW), 700, NOW)
    expect(releaseSpend(spend, 700, NOW, NOW)).toMatchObject({ dailyTransactionCount: 0, dailySpend: 0, monthlySpend: 0 })
    expect(releaseSpend(spend, 700, NOW, NOW + 86_400_000)).toMatchObject({ dailySpend: 0, monthlySpend: 0 })
    const lastMonth = Date.parse("2025-06-30T12:00:00Z")
    expect(releaseSpend(spend, 300, lastMonth, NOW)).toMatchObject({ dailySpend: 700, monthlySpend: 700 })
  })
})

describe("policy updates and problems", () => {
  it("merges field by field; null clears a limit; a new currency recasts the kept amounts", () => {
    const p = policy()
    const merged = mergePolicy(p, { spendingLimits: { dailyLimit: null }, permissions: ["VIEW_TRANSACTIONS", "VIEW_TRANSACTIONS"] }, (n) => n)
    expect(merged.spendingLimits).toMatchObject({ dailyLimit: null, monthlyLimit: 5_000, perTransactionLimit: 1_000 })
    expect(merged.permissions).toEqual(["VIEW_TRANSACTIONS"])
    const recast = mergePolicy(p, { spendingLimits: { currency: "EUR", monthlyLimit: 9 } }, (n) => n * 2)
    expect(recast.spendingLimits).toEqual({ currency: "EUR", perTransactionLimit: 2_000, dailyLimit: 4_000, dailyTransactionLimit: 3, monthlyLimit: 9 })
    expect(mergePolicy(p, {}, (n) => n * 2)).toEqual(p)
  })
  it("a threshold amount needs its currency; one rule per account", () => {
    expect(policyProblem(policy({ approvalThresholds: { amount: 1 } }))?.field).toBe("policy.approvalThresholds.currency")
    expect(policyProblem(policy({ approvalThresholds: { amount: null } }))).toBeUndefined()
    expect(policyProblem(policy({ accountRestrictions: { accountRules: [{ accountId: "A" }, { accountId: "A" }] } }))?.field)
      .toBe("policy.accountRestrictions.accountRules[1].accountId")
  })
})

describe("properties", () => {
  const RUNS = numRuns(200)
  const limits = fc.record({
    perTransactionLimit: fc.integer({ min: 0, max: 10_000 }),
    dailyLimit: fc.option(fc.integer({ min: 0, max: 50_000 }), { nil: null }),
    dailyTransactionLimit: fc.option(fc.integer({ min: 0, max: 20 }), { nil: undefined }),
    monthlyLimit: fc.option(fc.integer({ min: 0, max: 200_000 }), { nil: null })
  })
  const requests = fc.array(fc.record({ amount: fc.integer({ min: 0, max: 12_000 }), hours: fc.integer({ min: 0, max: 30 }) }), { maxLength: 40 })

  it("what is counted never passes a limit, and a refusal counts nothing", () => {
    fc.assert(fc.property(limits, requests, (l, rs) => {
      const { dailyTransactionLimit, ...rest } = l
      const p = policy({ spendingLimits: { currency: "USD", ...rest, ...(dailyTransactionLimit === undefined ? {} : { dailyTransactionLimit }) } })
      let now = NOW
      let spend = emptySpend(now)
      for (const r of rs) {
        now += r.hours * 3_600_000
        const before = rollSpend(spend, now)
        const verdict = evaluate({ isPaused: false, policy: p, spend }, send(r.amount), now)
        if (!verdict.ok) continue
        spend = addSpend(spend, r.amount, now)
        expect(r.amount).toBeLessThanOrEqual(l.perTransactionLimit)
        if (l.dailyLimit !== null) expect(spend.dailySpend).toBeLessThanOrEqual(l.dailyLimit)
        if (l.monthlyLimit !== null) expect(spend.monthlySpend).toBeLessThanOrEqual(l.monthlyLimit)
        if (dailyTransactionLimit !== undefined) expect(spend.dailyTransactionCount).toBeLessThanOrEqual(dailyTransactionLimit)
        expect(spend.dailySpend).toBe(before.dailySpend + r.amount)
      }
    }), { numRuns: RUNS })
  })

  it("adding then releasing the same amount the same day gives the counters back", () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 1e9 }), fc.integer({ min: 0, max: 1e6 }), fc.integer({ min: 0, max: 40 }), (amount, prior, count) => {
      const base = { ...emptySpend(NOW), dailySpend: prior, monthlySpend: prior, dailyTransactionCount: count }
      expect(releaseSpend(addSpend(base, amount, NOW), amount, NOW, NOW)).toEqual(base)
    }), { numRuns: RUNS })
  })

  it("conversion rounds up: converting back never comes out below the original", () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 1e9 }), fc.double({ min: 0.001, max: 1000, noNaN: true }), fc.constantFrom(0, 2, 8), (amount, rate, decimals) => {
      const there = convertMinor(amount, 2, decimals, rate)
      expect(there).toBeGreaterThanOrEqual(Math.floor((amount * rate * 10 ** decimals) / 100))
      expect(Number.isInteger(there)).toBe(true)
      expect(there).toBeGreaterThanOrEqual(0)
    }), { numRuns: RUNS })
    expect(convertMinor(100, 2, 2, 1)).toBe(100)
    expect(convertMinor(1, 2, 2, 0.5)).toBe(1)
  })

  it("without the permission nothing passes; with every permission and no limits, everything does", () => {
    fc.assert(fc.property(fc.subarray([...ALL]), fc.constantFrom(...ALL), fc.integer({ min: 0, max: 1e6 }), (granted, wanted, amount) => {
      const p = policy({ permissions: granted, spendingLimits: { currency: "USD", perTransactionLimit: 1e7 } })
      const verdict = evaluate(agent(p), { permission: wanted, internalAccountIds: [], amount }, NOW)
      expect(verdict.ok).toBe(granted.includes(wanted))
    }), { numRuns: RUNS })
  })
})
