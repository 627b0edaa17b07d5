import { Effect } from "effect"
import * as AgentMoney from "../../operations/agent-money.js"
import * as Agents from "../../operations/agents.js"
import { onPlatformClock } from "../../operations/time.js"
import { implement } from "../concerns.js"
import { AgentDeviceCodesGroup, AgentOperationsGroup, AgentsGroup } from "../groups/agents.js"
import { CurrentAgent, CurrentPlatform } from "../middleware.js"
import { run } from "./run.js"

/** Runs an operation for the authenticated agent (its platform, on the platform's clock). */
const asAgent = <A, E, R>(operation: (platform: Parameters<Parameters<typeof run>[0]>[0], agentId: string) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(Effect.service(CurrentPlatform), (platform) =>
    Effect.flatMap(Effect.service(CurrentAgent), ({ agentId }) => onPlatformClock(platform, operation(platform, agentId))))

export const AgentsHandlers = implement(AgentsGroup, (handlers) =>
  handlers
    .handle("createAgent", ({ payload }) => run((p) => Agents.createAgent(p, payload)))
    .handle("listAgents", ({ query }) => run((p) => Agents.listAgents(p, query)))
    .handle("listAgentApprovals", ({ query }) => run((p) => Agents.listApprovals(p, query)))
    .handle("getAgentById", ({ params }) => run((p) => Agents.getAgent(p, params.agentId)))
    .handle("updateAgent", ({ params, payload }) => run((p) => Agents.updateAgent(p, params.agentId, payload)))
    .handle("deleteAgent", ({ params }) => run((p) => Agents.deleteAgent(p, params.agentId)))
    .handle("updateAgentPolicy", ({ params, payload }) => run((p) => Agents.updateAgentPolicy(p, params.agentId, payload)))
    .handle("regenerateAgentDeviceCode", ({ params }) => run((p) => Agents.regenerateDeviceCode(p, params.agentId)))
    .handle("approveAgentAction", ({ params }) => run((p) => AgentMoney.approveAction(p, params.agentId, params.actionId)))
    .handle("rejectAgentAction", ({ params, payload }) => run((p) => AgentMoney.rejectAction(p, params.agentId, params.actionId, payload?.reason ?? undefined)))
    .handle("getAgentDeviceCodeStatus", ({ params }) => run((p) => Agents.deviceCodeStatus(p, params.code))))

export const AgentDeviceCodesHandlers = implement(AgentDeviceCodesGroup, (handlers) =>
  handlers.handle("redeemAgentDeviceCode", ({ params }) => Agents.redeemDeviceCode(params.code)))

export const AgentOperationsHandlers = implement(AgentOperationsGroup, (handlers) =>
  handlers
    .handle("getAgentMe", () => asAgent((p, agentId) => Agents.getAgentMe(p, agentId)))
    .handle("agentListActions", ({ query }) => asAgent((p, agentId) => Agents.listMyActions(p, agentId, query)))
    .handle("agentGetAction", ({ params }) => asAgent((p, agentId) => Agents.getMyAction(p, agentId, params.actionId)))
    .handle("agentListTransactions", ({ query }) => asAgent((p, agentId) => AgentMoney.listMyTransactions(p, agentId, query)))
    .handle("agentGetTransaction", ({ params }) => asAgent((p, agentId) => AgentMoney.getMyTransaction(p, agentId, params.transactionId)))
    .handle("agentCreateQuote", ({ payload }) => asAgent((p, agentId) => AgentMoney.createMyQuote(p, agentId, payload)))
    .handle("agentGetQuote", ({ params }) => asAgent((p, agentId) => AgentMoney.getMyQuote(p, agentId, params.quoteId)))
    .handle("agentExecuteQuote", ({ params }) =>
      asAgent((p, agentId) => AgentMoney.executeMyQuote(p, agentId, params.quoteId)))
    .handle("agentCreateTransferIn", ({ payload }) => asAgent((p, agentId) => AgentMoney.myTransferIn(p, agentId, payload)))
    .handle("agentCreateTransferOut", ({ payload }) => asAgent((p, agentId) => AgentMoney.myTransferOut(p, agentId, payload)))
    .handle("agentListInternalAccounts", ({ query }) => asAgent((p, agentId) => AgentMoney.listMyInternalAccounts(p, agentId, query)))
    .handle("agentListExternalAccounts", ({ query }) => asAgent((p, agentId) => AgentMoney.listMyExternalAccounts(p, agentId, query)))
    .handle("agentCreateExternalAccount", ({ payload }) => asAgent((p, agentId) => AgentMoney.createMyExternalAccount(p, agentId, payload)))
    .handle("agentGetExternalAccount", ({ params }) => asAgent((p, agentId) => AgentMoney.getMyExternalAccount(p, agentId, params.externalAccountId)))
    .handle("agentDeleteExternalAccount", ({ params }) => asAgent((p, agentId) => AgentMoney.deleteMyExternalAccount(p, agentId, params.externalAccountId))))
