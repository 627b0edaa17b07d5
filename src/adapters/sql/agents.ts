/**
 * The agents part of the SQL Store (migration `10_agents`): agents, device codes,
 * access tokens and agent actions as JSON documents in one table keyed by
 * `(platform_id, kind, id)`, with real columns for what is queried (customer, agent,
 * status, creation time). Partial unique indexes on the ids of device codes and tokens
 * make them findable, and unique, across platforms. ./store.ts wires it in.
 */
import { Effect } from "effect"
import type {
  AgentActionRecord,
  AgentRecord,
  AgentRecordKind,
  AgentRepository,
  AgentStoreRecord,
  AgentStoreRecordOf,
  AgentWrites
} from "../../ports/agents.js"
import { millisOf } from "../cursor.js"
import { documentReads, type Query, Where } from "./documents.js"

/**
 * The partial unique indexes that make device codes and token hashes unique across
 * platforms. Never a `StoreConflict`: the ids are random, so a violation is a defect.
 */
export const AGENT_ID_INDEXES = { deviceCodes: "agent_records_device_codes", tokens: "agent_records_tokens" } as const

/** The tables of migration `10_agents` that `resetPlatform` clears. */
export const AGENT_TABLES: ReadonlyArray<string> = ["agent_records"]

export interface AgentStore {
  readonly writes: AgentWrites
  readonly repository: AgentRepository
}

const agentIdOf = (r: AgentStoreRecord): string | null => r.kind === "agent" ? null : r.agentId
const statusOf = (r: AgentStoreRecord): string | null => r.kind === "action" ? r.action.status : null

export const makeAgentStore = (query: Query): AgentStore => {
  const { one, many, page } = documentReads(query)
  const range = (w: Where, column: string, r: { readonly from?: number | undefined; readonly to?: number | undefined } | undefined) => {
    if (r?.from !== undefined) w.add((x) => `${column} >= ${x}::bigint`, r.from)
    if (r?.to !== undefined) w.add((x) => `${column} <= ${x}::bigint`, r.to)
  }
  return {
    writes: {
      putAgentRecord: (r) =>
        Effect.asVoid(query(
          `insert into agent_records (platform_id, kind, id, created_ms, agent_id, customer_id, status, doc)
           values ($1, $2, $3, $4::bigint, $5, $6, $7, $8::jsonb)
           on conflict (platform_id, kind, id) do update set agent_id = excluded.agent_id,
             customer_id = excluded.customer_id, status = excluded.status, doc = excluded.doc`,
          [r.platformId, r.kind, r.id, millisOf(r.createdAt), agentIdOf(r), r.customerId, statusOf(r), JSON.stringify(r)]
        )),
      deleteAgentRecord: (platformId, kind, id) =>
        Effect.asVoid(query(`delete from agent_records where platform_id = $1 and kind = $2 and id = $3`, [platformId, kind, id]))
    },
    repository: {
      get: <K extends AgentRecordKind>(platformId: string, kind: K, id: string) =>
        one<AgentStoreRecordOf<K>>(`select doc::text as doc from agent_records where platform_id = $1 and kind = $2 and id = $3`, [platformId, kind, id]),
      // The kind is spelled in the statement so the planner uses its partial unique index.
      find: <K extends "deviceCode" | "token">(kind: K, id: string) =>
        one<AgentStoreRecordOf<K>>(
          kind === "deviceCode"
            ? `select doc::text as doc from agent_records where kind = 'deviceCode' and id = $1`
            : `select doc::text as doc from agent_records where kind = 'token' and id = $1`,
          [id]
        ),
      ofAgent: <K extends "deviceCode" | "token">(platformId: string, kind: K, agentId: string) =>
        many<AgentStoreRecordOf<K>>(
          `select doc::text as doc from agent_records where platform_id = $1 and kind = $2 and agent_id = $3 order by created_ms, id`,
          [platformId, kind, agentId]
        ),
      list: (platformId, q, p) => {
        const w = new Where().add((x) => `platform_id = ${x}`, platformId).raw(`kind = 'agent'`)
        if (q.customerId !== undefined) w.add((x) => `customer_id = ${x}`, q.customerId)
        if (q.isPaused !== undefined) w.add((x) => `(doc->>'isPaused')::boolean = ${x}::boolean`, q.isPaused)
        if (q.isConnected !== undefined) w.add((x) => `(doc->>'isConnected')::boolean = ${x}::boolean`, q.isConnected)
        range(w, "created_ms", q.created)
        if (q.updated?.from !== undefined) w.add((x) => `(extract(epoch from (doc->>'updatedAt')::timestamptz) * 1000) >= ${x}::bigint`, q.updated.from)
        if (q.updated?.to !== undefined) w.add((x) => `(extract(epoch from (doc->>'updatedAt')::timestamptz) * 1000) <= ${x}::bigint`, q.updated.to)
        return page<AgentRecord>("agent_records", w, p, (r) => ({ createdAt: millisOf(r.createdAt), id: r.id }))
      },
      listActions: (platformId, q, p) => {
        const w = new Where().add((x) => `platform_id = ${x}`, platformId).raw(`kind = 'action'`)
        if (q.agentId !== undefined) w.add((x) => `agent_id = ${x}`, q.agentId)
        if (q.customerId !== undefined) w.add((x) => `customer_id = ${x}`, q.customerId)
        if (q.status !== undefined) w.add((x) => `status = ${x}`, q.status)
        range(w, "created_ms", q.created)
        return page<AgentActionRecord>("agent_records", w, p, (r) => ({ createdAt: millisOf(r.createdAt), id: r.id }))
      }
    }
  }
}
