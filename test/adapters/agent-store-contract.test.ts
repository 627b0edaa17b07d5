/**
 * The Store contract for agents (`agents`, `putAgentRecord`, `deleteAgentRecord`), run
 * against every Store (memory, PGlite in memory, PostgreSQL on a fresh database of the
 * run's throwaway cluster): each record kind read back as written, per platform; device
 * codes and tokens found without a platform; an agent's codes; the agent and action
 * lists' filters and keyset paging; rollback; deletes; resetPlatform.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import type { AgentActionRecord, AgentDeviceCodeRecord, AgentRecord, AgentTokenRecord } from "../../src/ports/agents.js"
import { Store } from "../../src/ports/store.js"
import { KINDS, storeSuite, walk } from "../support/store-harness.js"

const T0 = Date.parse("2026-01-01T00:00:00.000Z")
const iso = (ms: number) => new Date(ms).toISOString()

const agentRecord = (platformId: string, id: string, o: { customerId?: string; at?: number; isPaused?: boolean; isConnected?: boolean } = {}): AgentRecord => ({
  kind: "agent",
  platformId,
  id,
  customerId: o.customerId ?? "Customer:1",
  createdAt: iso(o.at ?? T0),
  name: `Agent ${id}`,
  isPaused: o.isPaused ?? false,
  isConnected: o.isConnected ?? false,
  policy: { permissions: ["VIEW_TRANSACTIONS"], defaultExecutionMode: "AUTO", spendingLimits: { currency: "USD", perTransactionLimit: 100 } },
  spend: { day: "2026-01-01", dailyTransactionCount: 0, dailySpend: 0, month: "2026-01", monthlySpend: 0 },
  updatedAt: iso((o.at ?? T0) + 1000)
})

const codeRecord = (platformId: string, code: string, agentId: string, at = T0): AgentDeviceCodeRecord => ({
  kind: "deviceCode", platformId, id: code, agentId, customerId: "Customer:1", createdAt: iso(at), expiresAt: iso(at + 86_400_000), redeemed: false
})

const tokenRecord = (platformId: string, hash: string, agentId: string): AgentTokenRecord => ({
  kind: "token", platformId, id: hash, agentId, customerId: "Customer:1", createdAt: iso(T0)
})

const actionRecord = (platformId: string, id: string, agentId: string, status: AgentActionRecord["action"]["status"], at: number, customerId = "Customer:1"): AgentActionRecord => ({
  kind: "action",
  platformId,
  id,
  agentId,
  customerId,
  createdAt: iso(at),
  action: {
    id,
    agentId,
    customerId,
    platformCustomerId: "pc-1",
    status,
    type: "TRANSFER_OUT",
    transferDetails: { amount: 100, currency: "USD", sourceAccountId: "InternalAccount:1", destinationAccountId: "ExternalAccount:1" },
    createdAt: iso(at),
    updatedAt: iso(at)
  },
  policyAmount: 100,
  operation: { type: "TRANSFER_OUT", sourceAccountId: "InternalAccount:1", destinationAccountId: "ExternalAccount:1", amount: 100 }
})

describe.each(KINDS)("Agent store contract on %s", (kind) => {
  const { storeIt, runtime, databaseUrl } = storeSuite(kind)

  storeIt("each kind reads back as written, per platform; codes and tokens are found without a platform", (store, p) =>
    Effect.gen(function*() {
      const agent = agentRecord(p, "Agent:1")
      const code = codeRecord(p, `GRID-AGENT-${p.slice(-4).toUpperCase()}-AAAA`, agent.id)
      const token = tokenRecord(p, `hash-${p}`, agent.id)
      const action = actionRecord(p, "AgentAction:1", agent.id, "PENDING_APPROVAL", T0)
      yield* store.transact((uow) => Effect.all([agent, code, token, action].map((r) => uow.putAgentRecord(r)), { discard: true }))
      expect(yield* store.agents.get(p, "agent", agent.id)).toEqual(agent)
      expect(yield* store.agents.get(p, "action", action.id)).toEqual(action)
      expect(yield* store.agents.get(`${p}-other`, "agent", agent.id)).toBeUndefined()
      expect(yield* store.agents.get(p, "action", agent.id)).toBeUndefined()
      expect(yield* store.agents.find("deviceCode", code.id)).toEqual(code)
      expect(yield* store.agents.find("token", token.id)).toEqual(token)
      expect(yield* store.agents.find("token", code.id)).toBeUndefined()
      expect(yield* store.agents.ofAgent(p, "deviceCode", agent.id)).toEqual([code])
      expect(yield* store.agents.ofAgent(p, "token", agent.id)).toEqual([token])
      const redeemed = { ...code, redeemed: true }
      yield* store.transact((uow) => uow.putAgentRecord(redeemed))
      expect(yield* store.agents.find("deviceCode", code.id)).toEqual(redeemed)
      yield* store.transact((uow) => Effect.andThen(uow.deleteAgentRecord(p, "token", token.id), uow.deleteAgentRecord(p, "agent", agent.id)))
      expect(yield* store.agents.find("token", token.id)).toBeUndefined()
      expect(yield* store.agents.get(p, "agent", agent.id)).toBeUndefined()
      expect(yield* store.agents.get(p, "action", action.id)).toEqual(action)
    }))

  storeIt("a failed unit of work leaves nothing; resetPlatform clears every kind", (store, p) =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(store.transact((uow) =>
        Effect.andThen(uow.putAgentRecord(agentRecord(p, "Agent:1")), Effect.fail("boom" as const))))
      expect(exit._tag).toBe("Failure")
      expect(yield* store.agents.get(p, "agent", "Agent:1")).toBeUndefined()
      yield* store.transact((uow) =>
        Effect.all([agentRecord(p, "Agent:2"), tokenRecord(p, `reset-${p}`, "Agent:2"), actionRecord(p, "AgentAction:2", "Agent:2", "APPROVED", T0)].map((r) => uow.putAgentRecord(r)), { discard: true }))
      yield* store.transact((uow) => uow.resetPlatform(p))
      expect(yield* store.agents.get(p, "agent", "Agent:2")).toBeUndefined()
      expect(yield* store.agents.find("token", `reset-${p}`)).toBeUndefined()
      expect((yield* store.agents.listActions(p, {}, { limit: 10 })).totalCount).toBe(0)
    }))

  storeIt("the lists filter and page keyset, in either direction", (store, p) =>
    Effect.gen(function*() {
      const agents = [
        agentRecord(p, "Agent:a", { at: T0, customerId: "Customer:1" }),
        agentRecord(p, "Agent:b", { at: T0 + 1, customerId: "Customer:1", isPaused: true }),
        agentRecord(p, "Agent:c", { at: T0 + 2, customerId: "Customer:2", isConnected: true })
      ]
      const actions = [0, 1, 2, 3, 4].map((i) => actionRecord(p, `AgentAction:${i}`, i % 2 === 0 ? "Agent:a" : "Agent:b", i < 3 ? "PENDING_APPROVAL" : "APPROVED", T0 + i * 1000))
      yield* store.transact((uow) => Effect.all([...agents, ...actions].map((r) => uow.putAgentRecord(r)), { discard: true }))
      const ids = (rs: ReadonlyArray<{ readonly id: string }>) => rs.map((r) => r.id)
      expect(ids((yield* store.agents.list(p, {}, { limit: 10 })).data)).toEqual(["Agent:a", "Agent:b", "Agent:c"])
      expect(ids((yield* store.agents.list(p, { customerId: "Customer:1" }, { limit: 10 })).data)).toEqual(["Agent:a", "Agent:b"])
      expect(ids((yield* store.agents.list(p, { isPaused: true }, { limit: 10 })).data)).toEqual(["Agent:b"])
      expect(ids((yield* store.agents.list(p, { isConnected: true }, { limit: 10 })).data)).toEqual(["Agent:c"])
      expect(ids((yield* store.agents.list(p, { created: { from: T0 + 1 } }, { limit: 10 })).data)).toEqual(["Agent:b", "Agent:c"])
      expect(ids((yield* store.agents.list(p, { updated: { to: T0 + 1000 } }, { limit: 10 })).data)).toEqual(["Agent:a"])
      const walked = yield* walk((page) => store.agents.list(p, {}, page), 1, 3)
      expect(ids(walked)).toEqual(["Agent:a", "Agent:b", "Agent:c"])
      const pending = yield* store.agents.listActions(p, { status: "PENDING_APPROVAL" }, { limit: 10, descending: true })
      expect(ids(pending.data)).toEqual(["AgentAction:2", "AgentAction:1", "AgentAction:0"])
      expect(ids((yield* store.agents.listActions(p, { agentId: "Agent:b" }, { limit: 10 })).data)).toEqual(["AgentAction:1", "AgentAction:3"])
      expect(ids((yield* store.agents.listActions(p, { customerId: "Customer:9" }, { limit: 10 })).data)).toEqual([])
      expect(ids((yield* store.agents.listActions(p, { created: { from: T0 + 1000, to: T0 + 3000 } }, { limit: 10 })).data)).toEqual(["AgentAction:1", "AgentAction:2", "AgentAction:3"])
      const first = yield* store.agents.listActions(p, {}, { limit: 2, descending: true })
      expect(first).toMatchObject({ hasMore: true, totalCount: 5 })
      const second = yield* store.agents.listActions(p, {}, { limit: 2, descending: true, cursor: first.nextCursor })
      expect(ids(second.data)).toEqual(["AgentAction:2", "AgentAction:1"])
    }))
})
