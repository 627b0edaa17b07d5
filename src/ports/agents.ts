/**
 * The agents part of the Store port (docs/agents.md): agents, their device codes and
 * access tokens, and the actions they submit. Each is a record of one kind, keyed by
 * `(platformId, kind, id)`. A device code (its id is the code) and an access token (its
 * id is the SHA-256 of the token) are found without a platform: the redeem endpoint and
 * the agent scheme know only the code or the token. Their ids are unique across
 * platforms (unique indexes on the ids of each of those two kinds).
 */
import type { Effect } from "effect"
import type { AgentAction, AgentActionStatus, AgentPolicy } from "../domain/agent.js"
import type { InvalidCursor, Page, PageResult, RecordList, TimeRange } from "./shared.js"

export type AgentRecordKind = "agent" | "deviceCode" | "token" | "action" | "quote" | "transaction"

/** What an agent has spent, per UTC day and month, in its policy currency (reset when the day or month changes). */
export interface AgentSpend {
  /** `YYYY-MM-DD` (UTC) the daily counters are for. */
  readonly day: string
  readonly dailyTransactionCount: number
  readonly dailySpend: number
  /** `YYYY-MM` (UTC) the monthly counter is for. */
  readonly month: string
  readonly monthlySpend: number
}

/** An agent as stored; `usage` is derived from `spend` when answered. */
export interface AgentRecord {
  readonly kind: "agent"
  readonly platformId: string
  readonly id: string
  readonly customerId: string
  readonly createdAt: string
  readonly name: string
  readonly isPaused: boolean
  /** Whether a device code of the agent was redeemed (and the agent not reset since). */
  readonly isConnected: boolean
  readonly policy: AgentPolicy
  readonly spend: AgentSpend
  readonly updatedAt: string
}

/** A device code: `id` is the code (`GRID-AGENT-XXXX-XXXX`). */
export interface AgentDeviceCodeRecord {
  readonly kind: "deviceCode"
  readonly platformId: string
  readonly id: string
  readonly agentId: string
  readonly customerId: string
  readonly createdAt: string
  readonly expiresAt: string
  readonly redeemed: boolean
  /** Set when a newer code replaced it or its agent was deleted: it can no longer be redeemed. */
  readonly invalidated?: boolean | undefined
}

/** An access token: `id` is the hex SHA-256 of the token (the token itself is never stored). */
export interface AgentTokenRecord {
  readonly kind: "token"
  readonly platformId: string
  readonly id: string
  readonly agentId: string
  readonly customerId: string
  readonly createdAt: string
}

/** What approving a pending action runs (kept beside the action, never answered). */
export type AgentPendingOperation =
  | { readonly type: "EXECUTE_QUOTE"; readonly quoteId: string }
  | {
    readonly type: "TRANSFER_OUT" | "TRANSFER_IN"
    readonly sourceAccountId: string
    readonly destinationAccountId: string
    readonly amount: number
  }

export interface AgentActionRecord {
  readonly kind: "action"
  readonly platformId: string
  readonly id: string
  readonly agentId: string
  readonly customerId: string
  readonly createdAt: string
  readonly action: AgentAction
  /** The amount in the policy currency the action counts for against the agent's limits. */
  readonly policyAmount: number
  readonly operation: AgentPendingOperation
  /** The payment the action made (held PENDING for approval, or running). */
  readonly transactionId?: string | undefined
}

/**
 * What an agent made: a quote (`id` the quote id; GET /agents/me/quotes/{id} answers only
 * the agent's own), or a payment (`id` the transaction id) and the action it belongs to.
 */
export interface AgentLinkRecord {
  readonly kind: "quote" | "transaction"
  readonly platformId: string
  readonly id: string
  readonly agentId: string
  readonly customerId: string
  readonly createdAt: string
  readonly actionId?: string | undefined
}

export type AgentStoreRecord = AgentRecord | AgentDeviceCodeRecord | AgentTokenRecord | AgentActionRecord | AgentLinkRecord
export type AgentStoreRecordOf<K extends AgentRecordKind> = K extends "quote" | "transaction" ? AgentLinkRecord
  : Extract<AgentStoreRecord, { readonly kind: K }>

export interface AgentQuery {
  readonly customerId?: string | undefined
  readonly isPaused?: boolean | undefined
  readonly isConnected?: boolean | undefined
  readonly created?: TimeRange | undefined
  readonly updated?: TimeRange | undefined
}

export interface AgentActionQuery {
  readonly agentId?: string | undefined
  readonly customerId?: string | undefined
  readonly status?: AgentActionStatus | undefined
  readonly created?: TimeRange | undefined
}

export interface AgentRepository extends RecordList<AgentRecord, AgentQuery> {
  readonly get: <K extends AgentRecordKind>(platformId: string, kind: K, id: string) => Effect.Effect<AgentStoreRecordOf<K> | undefined>
  /** A device code or token record by its id, whatever platform holds it. */
  readonly find: <K extends "deviceCode" | "token">(kind: K, id: string) => Effect.Effect<AgentStoreRecordOf<K> | undefined>
  /** The device codes or tokens of one agent, oldest first. */
  readonly ofAgent: <K extends "deviceCode" | "token">(platformId: string, kind: K, agentId: string) => Effect.Effect<ReadonlyArray<AgentStoreRecordOf<K>>>
  readonly listActions: (platformId: string, query: AgentActionQuery, page: Page) => Effect.Effect<PageResult<AgentActionRecord>, InvalidCursor>
}

export interface AgentWrites {
  /** Writes an agent record (insert or replace by `(platformId, kind, id)`). */
  readonly putAgentRecord: (record: AgentStoreRecord) => Effect.Effect<void>
  readonly deleteAgentRecord: (platformId: string, kind: AgentRecordKind, id: string) => Effect.Effect<void>
}

/** The epoch-ms moment a record was created and its `(createdAt, id)` keyset order. */
export const agentRecordCreatedAt = (r: AgentStoreRecord): string => r.createdAt
