/**
 * An agent action follows the payment it made (docs/agents.md): when the platform
 * approves or rejects a held payment, by `POST /agents/{agentId}/actions/{actionId}/…`
 * or by `POST /transactions/{transactionId}/…` (SPEC.md), the action becomes APPROVED
 * (with the transaction) or REJECTED (its amount no longer counts against the agent's
 * limits), in the same unit of work. Kept apart from ./agent-money.ts so the money
 * operations can call it without depending on the agent endpoints.
 */
import { Clock, Effect } from "effect"
import type { Transaction } from "../domain/transaction.js"
import type { Platform } from "../domain/platform.js"
import type { AgentActionRecord } from "../ports/agents.js"
import { Store, type UnitOfWork } from "../ports/store.js"
import { releaseSpend } from "../rules/agents/policy.js"
import { isoOf } from "./time.js"

export type AgentDecision = "APPROVED" | "REJECTED" | "FAILED"

/** The action after the platform's decision (its amount released when it did not go ahead). */
export const decidedAction = Effect.fnUntraced(function*(
  uow: UnitOfWork,
  platform: Platform,
  rec: AgentActionRecord,
  decision: AgentDecision,
  transaction: Transaction | undefined,
  reason?: string
) {
  const store = yield* Store
  const nowMs = yield* Clock.currentTimeMillis
  const { transaction: _t, rejectionReason: _r, ...rest } = rec.action
  const next: AgentActionRecord = {
    ...rec,
    action: {
      ...rest,
      status: decision,
      ...(decision !== "REJECTED" && transaction !== undefined ? { transaction } : {}),
      ...(decision === "REJECTED" && reason !== undefined ? { rejectionReason: reason } : {}),
      updatedAt: isoOf(nowMs)
    }
  }
  yield* uow.putAgentRecord(next)
  if (decision !== "APPROVED") {
    const agent = yield* store.agents.get(platform.id, "agent", rec.agentId)
    if (agent !== undefined) {
      yield* uow.putAgentRecord({ ...agent, spend: releaseSpend(agent.spend, rec.policyAmount, Date.parse(rec.createdAt), nowMs) })
    }
  }
  return next
})

/** The pending action that made `transaction`, if any, follows the decision on it (FAILED: cancelled meanwhile). */
export const settleAgentActionOf = Effect.fnUntraced(function*(
  uow: UnitOfWork,
  platform: Platform,
  transaction: Transaction,
  decision: AgentDecision,
  reason?: string
) {
  const store = yield* Store
  const link = yield* store.agents.get(platform.id, "transaction", transaction.id)
  if (link?.actionId === undefined) return
  const action = yield* store.agents.get(platform.id, "action", link.actionId)
  if (action === undefined || action.action.status !== "PENDING_APPROVAL") return
  yield* decidedAction(uow, platform, action, decision, transaction, reason)
})
