/**
 * Agents (docs/agents.md): the platform's management endpoints (create, list, get,
 * update, delete, policy, device codes, approvals) and the agent's own reads
 * (`GET /agents/me`, its actions). The policy rules are in rules/agents/policy.ts; the
 * agent's money endpoints are in ./agent-money.ts.
 *
 * Installation: creating an agent issues a device code (`GRID-AGENT-XXXX-XXXX`, good
 * for 24 hours, once). Redeeming it (no platform credentials: the code is the proof)
 * returns the agent's bearer access token, shown once; only its SHA-256 is stored.
 */
import { sha256 } from "@noble/hashes/sha2.js"
import { bytesToHex } from "@noble/hashes/utils.js"
import { Clock, Effect } from "effect"
import {
  type Agent,
  type AgentAction,
  type AgentActionStatus,
  type AgentCreateRequest,
  type AgentCreateResponse,
  type AgentDeviceCode,
  type AgentDeviceCodeRedeemResponse,
  type AgentPolicy,
  type AgentPolicyUpdateRequest,
  type AgentUpdateRequest,
  DEVICE_CODE_ALPHABET
} from "../domain/agent.js"
import { badRequest, conflict, invalidInput, unauthorized } from "../domain/errors.js"
import { currencyOf } from "../domain/money.js"
import type { Platform } from "../domain/platform.js"
import type { AgentActionRecord, AgentDeviceCodeRecord, AgentRecord, AgentTokenRecord } from "../ports/agents.js"
import { Ids } from "../ports/ids.js"
import { Platforms } from "../ports/platforms.js"
import { type PageResult, Store, type UnitOfWork } from "../ports/store.js"
import { convertMinor, distinctPermissions, emptySpend, mergePolicy, policyProblem, usageOf } from "../rules/agents/policy.js"
import * as Rates from "../rules/money/rates.js"
import { decidedAction } from "./agent-actions.js"
import { referencedCustomer } from "./customers.js"
import { decideHeldPayment } from "./money/transactions.js"
import { type ChangedWindowQuery, changedWindowsOf, instantOf, pageOf, type PageQuery, pageRequestOf } from "./paging.js"
import { isoOf, nowMillis, onPlatformClock } from "./time.js"
import { missing } from "./not-found.js"

/** How long a device code can be redeemed: 24 hours (the reference's example). */
export const DEVICE_CODE_TTL_MILLIS = 24 * 60 * 60 * 1000

/** The prefix of an agent access token (the reference's example: `gat_…`). */
export const ACCESS_TOKEN_PREFIX = "gat_"

/** The hex SHA-256 of an access token: what the store keeps instead of the token. */
export const tokenHashOf = (token: string): string => bytesToHex(sha256(new TextEncoder().encode(token)))

/** A device code made from a random UUID: `GRID-AGENT-` and two groups of 4 characters of the code alphabet. */
export const deviceCodeOf = (uuid: string): string => {
  const hex = uuid.replace(/-/g, "")
  let chars = ""
  for (let i = 0; i < 8; i++) chars += DEVICE_CODE_ALPHABET[parseInt(hex.slice(i * 3, i * 3 + 3), 16) % DEVICE_CODE_ALPHABET.length]
  return `GRID-AGENT-${chars.slice(0, 4)}-${chars.slice(4)}`
}

const agentNotFound = (id: string) => missing("agent", `Agent ${id} not found`)
const actionNotFound = (id: string) => missing("agentAction", `Agent action ${id} not found`)
const codeNotFound = (code: string) => missing("deviceCode", `Device code ${code} not found`)

/** The API's Agent for a stored one, its usage as of `now`. */
export const agentView = (r: AgentRecord, now: number): Agent => ({
  id: r.id,
  name: r.name,
  customerId: r.customerId,
  isPaused: r.isPaused,
  isConnected: r.isConnected,
  policy: r.policy,
  usage: usageOf(r.spend, now),
  createdAt: r.createdAt,
  updatedAt: r.updatedAt
})

const codeView = (r: AgentDeviceCodeRecord): AgentDeviceCode => ({ code: r.id, agentId: r.agentId, expiresAt: r.expiresAt, redeemed: r.redeemed })

/** The agent `id` of this platform, or 404. */
export const agentOf = Effect.fnUntraced(function*(platform: Platform, id: string) {
  const store = yield* Store
  const rec = yield* store.agents.get(platform.id, "agent", id)
  if (rec === undefined) return yield* agentNotFound(id)
  return rec
})

const knownCurrency = (code: string, now: number) => currencyOf(code) !== undefined && Rates.rateAt(code, "USD", now) !== undefined

/**
 * Checks what the policy schema cannot: a threshold amount has its currency, the
 * currencies are ones the rate table converts, and every account named in the
 * restrictions is an internal account of the agent's customer.
 */
const checkPolicy = Effect.fnUntraced(function*(platform: Platform, customerId: string, policy: AgentPolicy, prefix: string) {
  const store = yield* Store
  const now = yield* nowMillis
  const problem = policyProblem(policy)
  if (problem !== undefined) {
    const field = prefix === "policy" ? problem.field : problem.field.replace(/^policy\./, "")
    return yield* invalidInput(`${field} ${problem.message}`, [{ field, constraint: "policy", message: problem.message }])
  }
  const currencies: Array<[string, string]> = [[`${prefix}.spendingLimits.currency`, policy.spendingLimits.currency]]
  if (policy.approvalThresholds?.currency !== undefined) currencies.push([`${prefix}.approvalThresholds.currency`, policy.approvalThresholds.currency])
  for (const [field, code] of currencies) {
    if (!knownCurrency(code, now)) {
      return yield* badRequest("INVALID_CURRENCY", `${field} ${code} is not a currency the service supports`, {
        details: { errors: [{ field, constraint: "currency", message: "must be a currency the service supports" }] }
      })
    }
  }
  const named: Array<[string, string]> = []
  for (const [i, id] of (policy.accountRestrictions?.allowedAccountIds ?? []).entries()) named.push([`${prefix}.accountRestrictions.allowedAccountIds[${i}]`, id])
  for (const [i, r] of (policy.accountRestrictions?.accountRules ?? []).entries()) named.push([`${prefix}.accountRestrictions.accountRules[${i}].accountId`, r.accountId])
  const errors = []
  for (const [field, id] of named) {
    const account = yield* store.internalAccounts.get(platform.id, id)
    if (account === undefined || account.customerId !== customerId) {
      errors.push({ field, constraint: "customerAccount", message: `must be an internal account of customer ${customerId}` })
    }
  }
  if (errors.length > 0) return yield* invalidInput("The policy names accounts that are not internal accounts of the agent's customer", errors)
})

/** A fresh device code for `agent`, unused by any platform. */
const issueDeviceCode = Effect.fnUntraced(function*(uow: UnitOfWork, platform: Platform, agent: AgentRecord) {
  const store = yield* Store
  const ids = yield* Ids
  const now = yield* nowMillis
  let code = deviceCodeOf(yield* ids.uuid)
  for (let attempt = 0; attempt < 5 && (yield* store.agents.find("deviceCode", code)) !== undefined; attempt++) {
    code = deviceCodeOf(yield* ids.uuid)
  }
  const rec: AgentDeviceCodeRecord = {
    kind: "deviceCode",
    platformId: platform.id,
    id: code,
    agentId: agent.id,
    customerId: agent.customerId,
    createdAt: isoOf(now),
    expiresAt: isoOf(now + DEVICE_CODE_TTL_MILLIS),
    redeemed: false
  }
  yield* uow.putAgentRecord(rec)
  return rec
})

/** Marks the agent's unredeemed codes as replaced (a newer code, or the agent is gone). */
const invalidateCodes = Effect.fnUntraced(function*(uow: UnitOfWork, platform: Platform, agentId: string) {
  const store = yield* Store
  for (const c of yield* store.agents.ofAgent(platform.id, "deviceCode", agentId)) {
    if (!c.redeemed && c.invalidated !== true) yield* uow.putAgentRecord({ ...c, invalidated: true })
  }
})

// ---------------------------------------------------------------- management (Basic)

/** POST /agents: the agent and its first device code. */
export const createAgent = (platform: Platform, req: AgentCreateRequest) =>
  Effect.flatMap(Effect.service(Store), (store) =>
    store.transact((uow) =>
      Effect.gen(function*() {
        const ids = yield* Ids
        const customer = (yield* referencedCustomer(platform, req.customerId, "customerId")).customer
        const policy: AgentPolicy = { ...req.policy, permissions: distinctPermissions(req.policy.permissions) }
        yield* checkPolicy(platform, customer.id, policy, "policy")
        const now = yield* nowMillis
        const at = isoOf(now)
        const agent: AgentRecord = {
          kind: "agent",
          platformId: platform.id,
          id: yield* ids.make("Agent"),
          customerId: customer.id,
          createdAt: at,
          name: req.name,
          isPaused: false,
          isConnected: false,
          policy,
          spend: emptySpend(now),
          updatedAt: at
        }
        yield* uow.putAgentRecord(agent)
        const code = yield* issueDeviceCode(uow, platform, agent)
        return { agent: agentView(agent, now), deviceCode: codeView(code) } satisfies AgentCreateResponse
      })
    ))

export interface AgentListQuery extends ChangedWindowQuery, PageQuery {
  readonly customerId?: string | undefined
  readonly isPaused?: "true" | "false" | undefined
  readonly isConnected?: "true" | "false" | undefined
}

const flag = (v: "true" | "false" | undefined) => v === undefined ? undefined : v === "true"

/** GET /agents: oldest first, keyset paged. */
export const listAgents = Effect.fnUntraced(function*(platform: Platform, q: AgentListQuery) {
  const store = yield* Store
  const page = yield* pageOf(store.agents.list(platform.id, {
    customerId: q.customerId,
    isPaused: flag(q.isPaused),
    isConnected: flag(q.isConnected),
    ...(yield* changedWindowsOf(q))
  }, pageRequestOf(q)))
  const now = yield* nowMillis
  return { ...page, data: page.data.map((r) => agentView(r, now)) } satisfies PageResult<Agent>
})

/** One unit of work on the platform's agent `id` (404 when it has none). */
export const onAgent = <A, E, R>(
  platform: Platform,
  id: string,
  body: (uow: UnitOfWork, rec: AgentRecord, store: Store["Service"]) => Effect.Effect<A, E, R>
) => Effect.flatMap(Effect.service(Store), (store) => store.transact((uow) => Effect.flatMap(agentOf(platform, id), (rec) => body(uow, rec, store))))

/**
 * The agent an access token names (the /agents/me operations): 401 when it was deleted
 * after its token was checked, as the token itself answers from then on (those operations
 * list no 404 for the agent).
 */
export const currentAgent = (platform: Platform, id: string) =>
  Effect.mapError(agentOf(platform, id), () => unauthorized(`Agent ${id} no longer exists: its access token is revoked`))

/** `onAgent` for the agent an access token names (401 when it no longer exists). */
export const onCurrentAgent = <A, E, R>(
  platform: Platform,
  id: string,
  body: (uow: UnitOfWork, rec: AgentRecord, store: Store["Service"]) => Effect.Effect<A, E, R>
) => Effect.flatMap(Effect.service(Store), (store) => store.transact((uow) => Effect.flatMap(currentAgent(platform, id), (rec) => body(uow, rec, store))))

/** GET /agents/{agentId}. */
export const getAgent = Effect.fnUntraced(function*(platform: Platform, id: string) {
  const rec = yield* agentOf(platform, id)
  return agentView(rec, yield* nowMillis)
})

/** PATCH /agents/{agentId}: name and paused state; at least one. */
export const updateAgent = (platform: Platform, id: string, req: AgentUpdateRequest) =>
  Effect.flatMap(Effect.service(Store), (store) =>
    store.transact((uow) =>
      Effect.gen(function*() {
        if (req.name === undefined && req.isPaused === undefined) {
          return yield* invalidInput("Give name or isPaused: an update changes at least one field", [{
            field: "(body)",
            constraint: "minProperties",
            message: "must have name or isPaused"
          }])
        }
        const rec = yield* agentOf(platform, id)
        const now = yield* nowMillis
        const next: AgentRecord = {
          ...rec,
          ...(req.name === undefined ? {} : { name: req.name }),
          ...(req.isPaused === undefined ? {} : { isPaused: req.isPaused }),
          updatedAt: isoOf(now)
        }
        yield* uow.putAgentRecord(next)
        return agentView(next, now)
      })
    ))

/**
 * DELETE /agents/{agentId}: the agent, its device codes and tokens go at once (its
 * token stops working); its actions stay for the audit trail, and the pending ones are
 * rejected.
 */
export const deleteAgent = (platform: Platform, id: string) =>
  onAgent(platform, id, (uow, rec, store) =>
    Effect.gen(function*() {
      for (const c of yield* store.agents.ofAgent(platform.id, "deviceCode", id)) yield* uow.deleteAgentRecord(platform.id, "deviceCode", c.id)
      for (const t of yield* store.agents.ofAgent(platform.id, "token", id)) yield* uow.deleteAgentRecord(platform.id, "token", t.id)
      // Its held payments are rejected (refunded); the actions become REJECTED with them.
      const reason = "The agent was deleted before the action was approved"
      const pending: Array<AgentActionRecord> = []
      let cursor: string | undefined
      do {
        const page = yield* pageOf(store.agents.listActions(platform.id, { agentId: id, status: "PENDING_APPROVAL" }, { limit: 100, cursor }))
        pending.push(...page.data)
        cursor = page.nextCursor
      } while (cursor !== undefined)
      for (const a of pending) {
        const payment = a.transactionId === undefined ? undefined : yield* store.transactions.get(platform.id, a.transactionId)
        if (payment !== undefined) yield* Effect.orDie(decideHeldPayment(uow, platform, payment, "REJECT", reason))
        else yield* decidedAction(uow, platform, a, "REJECTED", undefined, reason)
      }
      yield* uow.deleteAgentRecord(platform.id, "agent", rec.id)
    })
  )

/** PATCH /agents/{agentId}/policy: a partial update; a new limit currency recasts the kept limits at the current rate. */
export const updateAgentPolicy = (platform: Platform, id: string, req: AgentPolicyUpdateRequest) =>
  onAgent(platform, id, (uow, rec) =>
    Effect.gen(function*() {
      const now = yield* nowMillis
      const from = rec.policy.spendingLimits.currency
      const to = req.spendingLimits?.currency ?? from
      if (!knownCurrency(to, now)) {
        return yield* badRequest("INVALID_CURRENCY", `spendingLimits.currency ${to} is not a currency the service supports`, {
          details: { errors: [{ field: "spendingLimits.currency", constraint: "currency", message: "must be a currency the service supports" }] }
        })
      }
      const rate = Rates.rateAt(from, to, now)?.rate ?? 1
      const recast = (n: number) => convertMinor(n, currencyOf(from)?.decimals ?? 2, currencyOf(to)?.decimals ?? 2, rate)
      const policy = mergePolicy(rec.policy, req, recast)
      yield* checkPolicy(platform, rec.customerId, policy, "policy")
      const next: AgentRecord = { ...rec, policy, updatedAt: isoOf(now) }
      yield* uow.putAgentRecord(next)
      return agentView(next, now)
    })
  )

/**
 * POST /agents/{agentId}/device-codes: a new code for an agent that is not connected
 * (409 while it is: delete it and create another to reinstall); older unredeemed codes
 * stop working.
 */
export const regenerateDeviceCode = (platform: Platform, id: string) =>
  onAgent(platform, id, (uow, rec) =>
    Effect.gen(function*() {
      if (rec.isConnected) {
        return yield* conflict("CONFLICT", `Agent ${id} is already connected: its device code was redeemed, so no new code can be issued`, {
          details: { agentId: id, isConnected: true }
        })
      }
      yield* invalidateCodes(uow, platform, id)
      return codeView(yield* issueDeviceCode(uow, platform, rec))
    })
  )

/** GET /agents/device-codes/{code}/status: a code of this platform. */
export const deviceCodeStatus = Effect.fnUntraced(function*(platform: Platform, code: string) {
  const store = yield* Store
  const rec = yield* store.agents.get(platform.id, "deviceCode", code)
  if (rec === undefined) return yield* codeNotFound(code)
  return { code: rec.id, redeemed: rec.redeemed }
})

const codeRefused = (code: string, why: "ALREADY_REDEEMED" | "EXPIRED" | "REPLACED", reason: string) =>
  invalidInput(reason, [{ field: "code", constraint: why === "ALREADY_REDEEMED" ? "notRedeemed" : why === "EXPIRED" ? "notExpired" : "current", message: reason }])

/**
 * POST /agents/device-codes/{code}/redeem (no platform credentials): the agent's access
 * token, returned once. A code redeems once, before it expires, and only while it is
 * its agent's newest.
 */
export const redeemDeviceCode = (code: string) =>
  Effect.gen(function*() {
    const store = yield* Store
    const found = yield* store.agents.find("deviceCode", code)
    if (found === undefined) return yield* codeNotFound(code)
    const platform = (yield* (yield* Platforms).all).find((p) => p.id === found.platformId)
    if (platform === undefined) return yield* codeNotFound(code)
    return yield* onPlatformClock(platform, redeemOn(platform, code))
  })

const redeemOn = (platform: Platform, code: string) =>
  Effect.flatMap(Effect.service(Store), (store) =>
    store.transact((uow) =>
      Effect.gen(function*() {
        const ids = yield* Ids
        const rec = yield* store.agents.get(platform.id, "deviceCode", code)
        if (rec === undefined) return yield* codeNotFound(code)
        if (rec.redeemed) return yield* codeRefused(code, "ALREADY_REDEEMED", `Device code ${code} was already redeemed: a code works once`)
        if (rec.invalidated === true) return yield* codeRefused(code, "REPLACED", `Device code ${code} was replaced by a newer code of its agent`)
        const now = yield* Clock.currentTimeMillis
        if (now >= Date.parse(rec.expiresAt)) return yield* codeRefused(code, "EXPIRED", `Device code ${code} expired at ${rec.expiresAt}`)
        const agent = yield* store.agents.get(platform.id, "agent", rec.agentId)
        if (agent === undefined) return yield* codeNotFound(code)
        const token = `${ACCESS_TOKEN_PREFIX}${(yield* ids.uuid).replace(/-/g, "")}${(yield* ids.uuid).replace(/-/g, "")}`
        const at = isoOf(now)
        const tokenRec: AgentTokenRecord = {
          kind: "token",
          platformId: platform.id,
          id: tokenHashOf(token),
          agentId: agent.id,
          customerId: agent.customerId,
          createdAt: at
        }
        yield* uow.putAgentRecord({ ...rec, redeemed: true })
        yield* uow.putAgentRecord(tokenRec)
        yield* uow.putAgentRecord({ ...agent, isConnected: true, updatedAt: at })
        return { agentId: agent.id, agentName: agent.name, accessToken: token, policy: agent.policy } satisfies AgentDeviceCodeRedeemResponse
      })
    ))

// ---------------------------------------------------------------- the agent scheme

/** The agent an access token belongs to, with its platform; each failure names the check. */
export const authenticateAgent = Effect.fnUntraced(function*(header: string | undefined) {
  if (header === undefined || header.trim() === "") {
    return yield* unauthorized("Authorization header is missing: send the agent's access token as 'Bearer <accessToken>'")
  }
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header)
  if (m === null) {
    return yield* unauthorized(
      /^Basic\s/i.test(header)
        ? "Platform credentials (HTTP Basic) do not work on /agents/me endpoints: send the agent's access token as 'Bearer <accessToken>'"
        : "Authorization header is malformed: expected 'Bearer <accessToken>'"
    )
  }
  const token = m[1] ?? ""
  if (!token.startsWith(ACCESS_TOKEN_PREFIX) || token.length > 255) {
    return yield* unauthorized("The bearer token is not an agent access token (they start with gat_)")
  }
  const store = yield* Store
  const found = yield* store.agents.find("token", tokenHashOf(token))
  if (found === undefined) return yield* unauthorized("The agent access token is unknown or was revoked (its agent was deleted)")
  const platform = (yield* (yield* Platforms).all).find((p) => p.id === found.platformId)
  if (platform === undefined) return yield* unauthorized("The agent access token is unknown or was revoked (its agent was deleted)")
  const agent = yield* store.agents.get(platform.id, "agent", found.agentId)
  if (agent === undefined) return yield* unauthorized("The agent access token is unknown or was revoked (its agent was deleted)")
  return { platform, agentId: agent.id }
})

// ---------------------------------------------------------------- the agent's reads

/** GET /agents/me. */
export const getAgentMe = Effect.fnUntraced(function*(platform: Platform, agentId: string) {
  return agentView(yield* currentAgent(platform, agentId), yield* nowMillis)
})

export interface AgentActionListQuery extends PageQuery {
  readonly status?: AgentActionStatus | undefined
}

/** An action as answered now: its transaction and quote as they are now, not as they were when it was decided. */
export const currentAction = Effect.fnUntraced(function*(platform: Platform, action: AgentAction) {
  const store = yield* Store
  let out = action
  if (action.transaction !== undefined) {
    const t = yield* store.transactions.get(platform.id, action.transaction.id)
    if (t !== undefined) out = { ...out, transaction: t.transaction }
  }
  if (action.quote !== undefined) {
    const q = yield* store.quotes.get(platform.id, action.quote.id)
    if (q !== undefined) out = { ...out, quote: q.quote }
  }
  return out
})

const actionsPage = Effect.fnUntraced(function*(
  platform: Platform,
  query: Parameters<Store["Service"]["agents"]["listActions"]>[1],
  page: PageQuery & { readonly descending?: boolean | undefined }
) {
  const store = yield* Store
  const result = yield* pageOf(store.agents.listActions(platform.id, query, { ...pageRequestOf(page), descending: page.descending }))
  const data = yield* Effect.forEach(result.data, (r) => currentAction(platform, r.action))
  return { ...result, data } satisfies PageResult<AgentAction>
})

/** GET /agents/me/actions: the agent's own actions, newest first. */
export const listMyActions = (platform: Platform, agentId: string, q: AgentActionListQuery) =>
  actionsPage(platform, { agentId, status: q.status }, { limit: q.limit, cursor: q.cursor, descending: true })

/** The action `actionId`, of `agentId` when given (another agent's is a 404). */
export const actionOf = Effect.fnUntraced(function*(platform: Platform, actionId: string, agentId?: string) {
  const store = yield* Store
  const rec = yield* store.agents.get(platform.id, "action", actionId)
  if (rec === undefined || (agentId !== undefined && rec.agentId !== agentId)) return yield* actionNotFound(actionId)
  return rec satisfies AgentActionRecord
})

/** GET /agents/me/actions/{actionId}. */
export const getMyAction = (platform: Platform, agentId: string, actionId: string) =>
  Effect.flatMap(actionOf(platform, actionId, agentId), (r) => currentAction(platform, r.action))

export interface AgentApprovalListQuery extends PageQuery {
  readonly agentId?: string | undefined
  readonly customerId?: string | undefined
  readonly startDate?: string | undefined
  readonly endDate?: string | undefined
  readonly sortOrder?: "asc" | "desc" | undefined
}

/** GET /agents/approvals: the platform's actions waiting for its approval (newest first by default). */
export const listApprovals = Effect.fnUntraced(function*(platform: Platform, q: AgentApprovalListQuery) {
  return yield* actionsPage(platform, {
    agentId: q.agentId,
    customerId: q.customerId,
    status: "PENDING_APPROVAL",
    created: { from: yield* instantOf("startDate", q.startDate), to: yield* instantOf("endDate", q.endDate) }
  }, { limit: q.limit, cursor: q.cursor, descending: q.sortOrder !== "asc" })
})
