/**
 * Agents, their device codes, tokens, actions and links, in memory (see ./store.ts):
 * agents and actions by id, the other kinds keyed `kind\u0000id`.
 */
import { Effect } from "effect"
import type {
  AgentActionQuery,
  AgentActionRecord,
  AgentQuery,
  AgentRecord,
  AgentRecordKind,
  AgentStoreRecord,
  AgentStoreRecordOf,
  AgentWrites
} from "../../ports/agents.js"
import { millisOf } from "../cursor.js"
import { entityTable, inRange, is, keyOf, type MemoryArea, type MemoryContext } from "./context.js"
import { MemoryTable } from "./table.js"

/** The area's tables of one platform. */
export const agentTables = () => ({
  agents: entityTable<AgentRecord>((r) => r),
  agentActions: entityTable<AgentActionRecord>((r) => r),
  agentKeys: new MemoryTable<AgentStoreRecord>({
    id: (r) => keyOf(r.kind, r.id),
    createdAt: (r) => millisOf(r.createdAt),
    groups: [{ name: "agent", key: (r) => r.kind === "deviceCode" || r.kind === "token" ? keyOf(r.kind, r.agentId) : undefined }]
  })
}) as const

export type AgentTables = ReturnType<typeof agentTables>

/** The memory table of an agent record's kind. */
const agentTableOf = (t: AgentTables, kind: AgentRecordKind): MemoryTable<AgentStoreRecord> =>
  (kind === "agent" ? t.agents : kind === "action" ? t.agentActions : t.agentKeys) as MemoryTable<AgentStoreRecord>
const agentRowId = (kind: AgentRecordKind, id: string) => kind === "agent" || kind === "action" ? id : keyOf(kind, id)

const matchesAgent = (q: AgentQuery) => (r: AgentRecord): boolean =>
  is(q.customerId, r.customerId) &&
  is(q.isPaused, r.isPaused) &&
  is(q.isConnected, r.isConnected) &&
  inRange(millisOf(r.createdAt), q.created) &&
  inRange(millisOf(r.updatedAt), q.updated)

const matchesAgentAction = (q: AgentActionQuery) => (r: AgentActionRecord): boolean =>
  is(q.agentId, r.agentId) &&
  is(q.customerId, r.customerId) &&
  is(q.status, r.action.status) &&
  inRange(millisOf(r.createdAt), q.created)

export const makeAgentArea = (m: MemoryContext<AgentTables>): MemoryArea<"agents", AgentWrites> => ({
  repositories: {
    agents: {
      get: <K extends AgentRecordKind>(platformId: string, kind: K, id: string) =>
        m.read(() => {
          const t = m.peek(platformId)
          return t === undefined ? undefined : agentTableOf(t, kind).get(agentRowId(kind, id)) as AgentStoreRecordOf<K> | undefined
        }),
      find: <K extends "deviceCode" | "token">(kind: K, id: string) =>
        m.read(() => {
          // Codes and tokens are found without a platform (redeem, the agent scheme).
          for (const t of m.tenants()) {
            const r = t.agentKeys.get(keyOf(kind, id))
            if (r !== undefined) return r as AgentStoreRecordOf<K>
          }
          return undefined
        }),
      ofAgent: <K extends "deviceCode" | "token">(platformId: string, kind: K, agentId: string) =>
        m.read(() => (m.peek(platformId)?.agentKeys.byGroup("agent", keyOf(kind, agentId)) ?? []) as ReadonlyArray<AgentStoreRecordOf<K>>),
      list: (platformId, query, page) => m.readPage(() => m.tenantOf(platformId).agents.page(matchesAgent(query), page, false)),
      listActions: (platformId, query, page) => m.readPage(() => m.tenantOf(platformId).agentActions.page(matchesAgentAction(query), page, false))
    }
  },
  writes: {
    putAgentRecord: (r) => Effect.orDie(m.putRow(agentTableOf(m.tenantOf(r.platformId), r.kind), agentRowId(r.kind, r.id), r)),
    deleteAgentRecord: (platformId, kind, id) => m.removeRow(agentTableOf(m.tenantOf(platformId), kind), agentRowId(kind, id))
  }
})
