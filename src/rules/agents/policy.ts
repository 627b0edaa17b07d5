/**
 * The agent policy (docs/agents.md), as plain functions: what an agent may do, whether
 * an action runs at once or waits for the platform's approval, and what it has spent.
 *
 * A request is checked in this order, and the first rule it breaks refuses it (403):
 * paused agent, permission, allowed accounts, per-transaction limit (an account rule's
 * override first), daily transaction count, daily amount, monthly amount. A request
 * that passes runs at once (AUTO) unless the account's rule or the default execution
 * mode says APPROVAL_REQUIRED, or its amount is above the approval threshold.
 *
 * Amounts are integers in minor units of the policy's `spendingLimits.currency` (the
 * caller converts; `convertMinor`). Spend counts per UTC day and month.
 */
import type { AgentExecutionMode, AgentPermission, AgentPolicy, AgentPolicyUpdateRequest, AgentUsage } from "../../domain/agent.js"

export interface AgentSpendCounters {
  readonly day: string
  readonly dailyTransactionCount: number
  readonly dailySpend: number
  readonly month: string
  readonly monthlySpend: number
}

/** The UTC day (`YYYY-MM-DD`) and month (`YYYY-MM`) of an instant. */
export const periodOf = (nowMillis: number): { readonly day: string; readonly month: string } => {
  const iso = new Date(nowMillis).toISOString()
  return { day: iso.slice(0, 10), month: iso.slice(0, 7) }
}

/** Counters with nothing spent, for the period of `nowMillis`. */
export const emptySpend = (nowMillis: number): AgentSpendCounters => {
  const { day, month } = periodOf(nowMillis)
  return { day, dailyTransactionCount: 0, dailySpend: 0, month, monthlySpend: 0 }
}

/** The counters as of `nowMillis`: a new day resets the daily ones, a new month the monthly one. */
export const rollSpend = (spend: AgentSpendCounters, nowMillis: number): AgentSpendCounters => {
  const { day, month } = periodOf(nowMillis)
  const sameMonth = spend.month === month
  const sameDay = sameMonth && spend.day === day
  return {
    day,
    dailyTransactionCount: sameDay ? spend.dailyTransactionCount : 0,
    dailySpend: sameDay ? spend.dailySpend : 0,
    month,
    monthlySpend: sameMonth ? spend.monthlySpend : 0
  }
}

/** The counters after one more transaction of `amount`. */
export const addSpend = (spend: AgentSpendCounters, amount: number, nowMillis: number): AgentSpendCounters => {
  const s = rollSpend(spend, nowMillis)
  return { ...s, dailyTransactionCount: s.dailyTransactionCount + 1, dailySpend: s.dailySpend + amount, monthlySpend: s.monthlySpend + amount }
}

/** The counters after a counted transaction of `amount`, counted at `countedAt`, is given back (rejected or failed). */
export const releaseSpend = (spend: AgentSpendCounters, amount: number, countedAt: number, nowMillis: number): AgentSpendCounters => {
  const s = rollSpend(spend, nowMillis)
  const when = periodOf(countedAt)
  const sameMonth = when.month === s.month
  const sameDay = sameMonth && when.day === s.day
  return {
    ...s,
    dailyTransactionCount: sameDay ? Math.max(0, s.dailyTransactionCount - 1) : s.dailyTransactionCount,
    dailySpend: sameDay ? Math.max(0, s.dailySpend - amount) : s.dailySpend,
    monthlySpend: sameMonth ? Math.max(0, s.monthlySpend - amount) : s.monthlySpend
  }
}

/** The API's `usage`: the counters as of `nowMillis`, with the day and month they reset. */
export const usageOf = (spend: AgentSpendCounters, nowMillis: number): AgentUsage => {
  const s = rollSpend(spend, nowMillis)
  const next = new Date(nowMillis)
  const tomorrow = new Date(Date.UTC(next.getUTCFullYear(), next.getUTCMonth(), next.getUTCDate() + 1))
  const nextMonth = new Date(Date.UTC(next.getUTCFullYear(), next.getUTCMonth() + 1, 1))
  return {
    dailyTransactionCount: s.dailyTransactionCount,
    dailySpend: s.dailySpend,
    dailyResetDate: tomorrow.toISOString().slice(0, 10),
    monthlySpend: s.monthlySpend,
    monthlyResetMonth: nextMonth.toISOString().slice(0, 7)
  }
}

/**
 * An amount in minor units of one currency in minor units of another, at `rate`
 * (major units of `to` per major unit of `from`), rounded up: a limit is never passed
 * by rounding.
 */
export const convertMinor = (amount: number, fromDecimals: number, toDecimals: number, rate: number): number => {
  const value = (amount * rate * 10 ** toDecimals) / 10 ** fromDecimals
  const rounded = Math.ceil(value - 1e-9)
  return Math.max(0, rounded)
}

export interface PolicyRequest {
  readonly permission: AgentPermission
  /** The customer's internal accounts the request touches (restrictions and account rules apply to these). */
  readonly internalAccountIds: ReadonlyArray<string>
  /** For a money movement: its amount in minor units of the policy currency. */
  readonly amount?: number | undefined
  /** For a money movement: its amount in minor units of the approval threshold's currency (when it has one). */
  readonly thresholdAmount?: number | undefined
}

export type PolicyRule =
  | "paused"
  | "permission"
  | "allowedAccounts"
  | "perTransactionLimit"
  | "dailyTransactionLimit"
  | "dailyLimit"
  | "monthlyLimit"

export type PolicyVerdict =
  | { readonly ok: true; readonly mode: AgentExecutionMode; readonly why: "defaultExecutionMode" | "accountRule" | "approvalThreshold" }
  | { readonly ok: false; readonly rule: PolicyRule; readonly reason: string }

const refuse = (rule: PolicyRule, reason: string): PolicyVerdict => ({ ok: false, rule, reason })

/** Whether the agent's policy lets it read or act with `permission` on these accounts (no amounts). */
export const evaluate = (
  agent: { readonly isPaused: boolean; readonly policy: AgentPolicy; readonly spend: AgentSpendCounters },
  request: PolicyRequest,
  nowMillis: number
): PolicyVerdict => {
  const { policy } = agent
  if (agent.isPaused) return refuse("paused", "The agent is paused: a paused agent cannot act until the platform resumes it")
  if (!policy.permissions.includes(request.permission)) {
    return refuse("permission", `The agent's policy does not grant ${request.permission}`)
  }
  const allowed = policy.accountRestrictions?.allowedAccountIds
  if (allowed !== undefined && allowed !== null) {
    const outside = request.internalAccountIds.find((id) => !allowed.includes(id))
    if (outside !== undefined) return refuse("allowedAccounts", `The agent's policy does not allow it to use account ${outside}`)
  }
  const rules = (policy.accountRestrictions?.accountRules ?? []).filter((r) => request.internalAccountIds.includes(r.accountId))
  const amount = request.amount
  if (amount !== undefined) {
    const limits = policy.spendingLimits
    const overrides = rules.flatMap((r) => (r.perTransactionLimit === undefined || r.perTransactionLimit === null ? [] : [r.perTransactionLimit]))
    const perTransaction = overrides.length > 0 ? Math.min(...overrides) : limits.perTransactionLimit
    if (amount > perTransaction) {
      return refuse("perTransactionLimit", `${amount} ${limits.currency} (minor units) is above the agent's per-transaction limit of ${perTransaction}`)
    }
    const spend = rollSpend(agent.spend, nowMillis)
    if (limits.dailyTransactionLimit !== undefined && spend.dailyTransactionCount + 1 > limits.dailyTransactionLimit) {
      return refuse("dailyTransactionLimit", `The agent already initiated ${spend.dailyTransactionCount} of its ${limits.dailyTransactionLimit} transactions today`)
    }
    if (limits.dailyLimit !== undefined && limits.dailyLimit !== null && spend.dailySpend + amount > limits.dailyLimit) {
      return refuse("dailyLimit", `${amount} more would take today's spend to ${spend.dailySpend + amount} ${limits.currency}, above the daily limit of ${limits.dailyLimit}`)
    }
    if (limits.monthlyLimit !== undefined && limits.monthlyLimit !== null && spend.monthlySpend + amount > limits.monthlyLimit) {
      return refuse("monthlyLimit", `${amount} more would take this month's spend to ${spend.monthlySpend + amount} ${limits.currency}, above the monthly limit of ${limits.monthlyLimit}`)
    }
  }
  if (rules.some((r) => r.executionMode === "APPROVAL_REQUIRED")) return { ok: true, mode: "APPROVAL_REQUIRED", why: "accountRule" }
  const threshold = policy.approvalThresholds?.amount
  if (threshold !== undefined && threshold !== null) {
    const compared = policy.approvalThresholds?.currency === undefined ? amount : request.thresholdAmount
    if (compared !== undefined && compared > threshold) return { ok: true, mode: "APPROVAL_REQUIRED", why: "approvalThreshold" }
  }
  const ruleMode = rules.find((r) => r.executionMode !== undefined)?.executionMode
  if (ruleMode !== undefined) return { ok: true, mode: ruleMode, why: "accountRule" }
  return { ok: true, mode: policy.defaultExecutionMode, why: "defaultExecutionMode" }
}

/** Permissions without repeats, in the order given. */
export const distinctPermissions = (ps: ReadonlyArray<AgentPermission>): ReadonlyArray<AgentPermission> => [...new Set(ps)]

/**
 * A policy after a partial update: given fields replace, omitted ones stay; spending
 * limits merge field by field (`null` clears a daily or monthly limit). `recast` turns
 * a kept amount into the new limit currency when the update changes it.
 */
export const mergePolicy = (current: AgentPolicy, update: AgentPolicyUpdateRequest, recast: (amount: number) => number): AgentPolicy => {
  const limitsUpdate = update.spendingLimits ?? {}
  const changesCurrency = limitsUpdate.currency !== undefined && limitsUpdate.currency !== current.spendingLimits.currency
  const kept = (n: number) => changesCurrency ? recast(n) : n
  const keptNullable = (n: number | null | undefined) => n === undefined || n === null ? n : kept(n)
  const c = current.spendingLimits
  const dailyLimit = "dailyLimit" in limitsUpdate ? limitsUpdate.dailyLimit : keptNullable(c.dailyLimit)
  const monthlyLimit = "monthlyLimit" in limitsUpdate ? limitsUpdate.monthlyLimit : keptNullable(c.monthlyLimit)
  const dailyTransactionLimit = limitsUpdate.dailyTransactionLimit ?? c.dailyTransactionLimit
  const spendingLimits = {
    currency: limitsUpdate.currency ?? c.currency,
    perTransactionLimit: limitsUpdate.perTransactionLimit ?? kept(c.perTransactionLimit),
    ...(dailyLimit === undefined ? {} : { dailyLimit }),
    ...(dailyTransactionLimit === undefined ? {} : { dailyTransactionLimit }),
    ...(monthlyLimit === undefined ? {} : { monthlyLimit })
  }
  const accountRestrictions = update.accountRestrictions ?? current.accountRestrictions
  const approvalThresholds = update.approvalThresholds ?? current.approvalThresholds
  return {
    permissions: update.permissions === undefined ? current.permissions : distinctPermissions(update.permissions),
    defaultExecutionMode: update.defaultExecutionMode ?? current.defaultExecutionMode,
    spendingLimits,
    ...(accountRestrictions === undefined ? {} : { accountRestrictions }),
    ...(approvalThresholds === undefined ? {} : { approvalThresholds })
  }
}

/** What is wrong with a policy that its schema cannot say, if anything: a field path and a message. */
export const policyProblem = (policy: AgentPolicy): { readonly field: string; readonly message: string } | undefined => {
  const t = policy.approvalThresholds
  if (t !== undefined && t.amount !== undefined && t.amount !== null && t.currency === undefined) {
    return { field: "policy.approvalThresholds.currency", message: "is required when amount is set" }
  }
  const rules = policy.accountRestrictions?.accountRules ?? []
  const seen = new Set<string>()
  for (const [i, r] of rules.entries()) {
    if (seen.has(r.accountId)) return { field: `policy.accountRestrictions.accountRules[${i}].accountId`, message: `repeats ${r.accountId}: one rule per account` }
    seen.add(r.accountId)
  }
  return undefined
}
