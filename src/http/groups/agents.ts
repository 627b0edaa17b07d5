/**
 * Agents (docs/agents.md), as the reference file's Agent Management and Agent
 * Operations tags, in three groups by security scheme:
 * - `agents`: the platform's management endpoints (HTTP Basic, like every other group);
 * - `agentDeviceCodes`: redeeming a device code, without credentials (the code is the proof);
 * - `agentOperations`: the agent's own endpoints under /agents/me (the agent scheme: Bearer token).
 * Each group carries its own middleware and version base (the others get theirs from `apiGroup`).
 * The request and response schemas are wrapped opaque so the API's declared type names them.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import {
  Agent,
  AgentAction,
  AgentActionListResponse,
  AgentActionRejectRequest,
  AgentActionStatus,
  AgentCreateRequest,
  AgentCreateResponse,
  AgentDeviceCode,
  AgentDeviceCodeRedeemResponse,
  AgentDeviceCodeStatusResponse,
  AgentListResponse,
  AgentPolicyUpdateRequest,
  AgentUpdateRequest
} from "../../domain/agent.js"
import { CurrencyCode, IdempotencyHeaders, IdText, ListResponse } from "../../domain/common.js"
import { Error403, Error404, Error409, Error429 } from "../../domain/errors.js"
import { CustomerExternalAccountCreateRequest, ExternalAccount } from "../../domain/external-account.js"
import { InternalAccount, InternalAccountType } from "../../domain/internal-account.js"
import { Quote, QuoteRequest } from "../../domain/quote.js"
import { TransactionWithCard } from "../../domain/card-transaction.js"
import { TransactionStatus, TransactionType, TransferInRequest, TransferOutRequest } from "../../domain/transaction.js"
import { AgentAuth, PlatformAuth, RequestGuard } from "../middleware.js"
import { VERSION_PREFIX } from "../api-base.js"
import { Concerns, declare } from "../declarations.js"
import {
  AccountIdentifierFilters,
  acts,
  byId,
  created,
  CreatedUpdatedFilters,
  creates,
  creation,
  DateRangeFilters,
  deletes,
  MoneyErrors,
  NotFoundOrConflict,
  page
} from "../endpoints.js"

/** The version base of every path (api-base.ts). */
export const AGENT_GROUPS_PREFIX = VERSION_PREFIX

const BooleanFromString = Schema.Literals(["true", "false"])

const agentParams = { agentId: IdText }
const actionParams = { agentId: IdText, actionId: IdText }
const codeParams = { code: IdText }

/** The reference's ExternalAccountCreateRequest: `customerId` optional (the agent's customer). */
class AgentExternalAccountCreateRequest extends Schema.Opaque<AgentExternalAccountCreateRequest>()(Schema.Struct({
  ...CustomerExternalAccountCreateRequest.fields,
  customerId: Schema.optionalKey(IdText)
}).annotate({ identifier: "AgentExternalAccountCreateRequest" })) {}
class AgentQuoteRequest extends Schema.Opaque<AgentQuoteRequest>()(QuoteRequest) {}
class AgentTransferInRequest extends Schema.Opaque<AgentTransferInRequest>()(TransferInRequest) {}
class AgentTransferOutRequest extends Schema.Opaque<AgentTransferOutRequest>()(TransferOutRequest) {}
class AgentQuote extends Schema.Opaque<AgentQuote>()(Quote) {}

/** Opaque so declarations name them instead of spelling them out. */
class AgentTransactionListResponse extends Schema.Opaque<AgentTransactionListResponse>()(ListResponse(TransactionWithCard, "AgentTransactionListResponse")) {}
class AgentInternalAccountListResponse extends Schema.Opaque<AgentInternalAccountListResponse>()(ListResponse(InternalAccount, "AgentInternalAccountListResponse")) {}
class AgentExternalAccountListResponse extends Schema.Opaque<AgentExternalAccountListResponse>()(ListResponse(ExternalAccount, "AgentExternalAccountListResponse")) {}

/** The list queries, opaque so declarations name them instead of spelling them out. */
class AgentListQuery extends Schema.Opaque<AgentListQuery>()(Schema.Struct(page({
  customerId: Schema.optionalKey(IdText),
  isPaused: Schema.optionalKey(BooleanFromString),
  isConnected: Schema.optionalKey(BooleanFromString),
  ...CreatedUpdatedFilters
}))) {}
class AgentApprovalListQuery extends Schema.Opaque<AgentApprovalListQuery>()(Schema.Struct(page({
  agentId: Schema.optionalKey(IdText),
  customerId: Schema.optionalKey(IdText),
  ...DateRangeFilters
}))) {}
class AgentActionListQuery extends Schema.Opaque<AgentActionListQuery>()(Schema.Struct(page({ status: Schema.optionalKey(AgentActionStatus) }))) {}
class AgentTransactionListQuery extends Schema.Opaque<AgentTransactionListQuery>()(Schema.Struct(page({
  ...AccountIdentifierFilters,
  status: Schema.optionalKey(TransactionStatus),
  type: Schema.optionalKey(TransactionType),
  reference: Schema.optionalKey(IdText),
  ...DateRangeFilters
}))) {}
class AgentInternalAccountListQuery extends Schema.Opaque<AgentInternalAccountListQuery>()(
  Schema.Struct(page({ currency: Schema.optionalKey(CurrencyCode), type: Schema.optionalKey(InternalAccountType) }))
) {}
class AgentExternalAccountListQuery extends Schema.Opaque<AgentExternalAccountListQuery>()(Schema.Struct(page({ currency: Schema.optionalKey(CurrencyCode) }))) {}

/** What the agent reads of its customer's money: 403 when its policy does not allow it. */
const AgentReadErrors = [Error403, Error404]
/** The agent's money movements: each becomes an action (201 with it). */
const agentMoves = <const P extends Schema.Top>(payload: P) => creates(payload, AgentAction, MoneyErrors)

export class AgentsGroup extends HttpApiGroup.make("agents")
  .annotate(Concerns, { permission: "MANAGE" })
  .add(
    HttpApiEndpoint.post("createAgent", "/agents", creation(AgentCreateRequest, AgentCreateResponse, [])).annotate(
      OpenApi.Description,
      "Creates an agent for one customer under a policy, and its first device code (good for 24 hours, redeemable once)."
    ),
    HttpApiEndpoint.get("listAgents", "/agents", {
      query: AgentListQuery,
      success: AgentListResponse
    }),
    HttpApiEndpoint.get("listAgentApprovals", "/agents/approvals", {
      query: AgentApprovalListQuery,
      success: AgentActionListResponse
    }),
    HttpApiEndpoint.get("getAgentById", "/agents/:agentId", byId(agentParams, Agent)),
    HttpApiEndpoint.patch("updateAgent", "/agents/:agentId", acts(agentParams, AgentUpdateRequest, Agent, Error404)),
    HttpApiEndpoint.delete("deleteAgent", "/agents/:agentId", deletes(agentParams, Error404)).annotate(OpenApi.Description, "Deletes the agent: its access token stops working at once; its pending actions are rejected."),
    HttpApiEndpoint.patch("updateAgentPolicy", "/agents/:agentId/policy", acts(agentParams, AgentPolicyUpdateRequest, Agent, Error404)),
    HttpApiEndpoint.post("regenerateAgentDeviceCode", "/agents/:agentId/device-codes", {
      params: agentParams,
      success: created(AgentDeviceCode),
      error: NotFoundOrConflict
    }),
    HttpApiEndpoint.post("approveAgentAction", "/agents/:agentId/actions/:actionId/approve", {
      params: actionParams,
      success: AgentAction,
      error: NotFoundOrConflict
    }).pipe(declare({ permission: "TRANSACT" })).annotate(OpenApi.Description, "The action's held payment proceeds (the same as POST /transactions/{transactionId}/approve on it); the action is APPROVED with its transaction."),
    HttpApiEndpoint.post("rejectAgentAction", "/agents/:agentId/actions/:actionId/reject", {
      params: actionParams,
      // The body is optional (the reference's `requestBody.required: false`): an empty body decodes as null.
      payload: [AgentActionRejectRequest, Schema.Null],
      success: AgentAction,
      error: NotFoundOrConflict
    }).pipe(declare({ permission: "TRANSACT" })).annotate(OpenApi.Description, "The action's held payment fails and is refunded; the action is REJECTED with the reason given."),
    HttpApiEndpoint.get("getAgentDeviceCodeStatus", "/agents/device-codes/:code/status", byId(codeParams, AgentDeviceCodeStatusResponse))
  )
  .middleware(RequestGuard)
  .middleware(PlatformAuth)
  .prefix(AGENT_GROUPS_PREFIX)
  .annotateMerge(OpenApi.annotations({ title: "Agent Management" }))
{}

export class AgentDeviceCodesGroup extends HttpApiGroup.make("agentDeviceCodes")
  .add(
    HttpApiEndpoint.post("redeemAgentDeviceCode", "/agents/device-codes/:code/redeem", byId(codeParams, AgentDeviceCodeRedeemResponse)).annotate(
      OpenApi.Description,
      "Called by the agent software, without platform credentials: returns the agent's bearer access token, once. A code redeems once and expires 24 hours after it was issued (400 otherwise)."
    )
  )
  .middleware(RequestGuard)
  .prefix(AGENT_GROUPS_PREFIX)
  .annotateMerge(OpenApi.annotations({ title: "Agent Management" }))
{}

export class AgentOperationsGroup extends HttpApiGroup.make("agentOperations")
  .add(
    HttpApiEndpoint.get("getAgentMe", "/agents/me", { success: Agent, error: [] }),
    HttpApiEndpoint.get("agentListActions", "/agents/me/actions", {
      query: AgentActionListQuery,
      success: AgentActionListResponse,
      error: []
    }),
    HttpApiEndpoint.get("agentGetAction", "/agents/me/actions/:actionId", byId({ actionId: IdText }, AgentAction)),
    HttpApiEndpoint.get("agentListTransactions", "/agents/me/transactions", {
      query: AgentTransactionListQuery,
      success: AgentTransactionListResponse,
      error: Error403
    }),
    HttpApiEndpoint.get("agentGetTransaction", "/agents/me/transactions/:transactionId", {
      params: { transactionId: IdText },
      success: TransactionWithCard,
      error: AgentReadErrors
    }),
    HttpApiEndpoint.post("agentCreateQuote", "/agents/me/quotes", creates(AgentQuoteRequest, AgentQuote, [Error403, Error409, Error429])),
    HttpApiEndpoint.get("agentGetQuote", "/agents/me/quotes/:quoteId", byId({ quoteId: IdText }, AgentQuote)),
    HttpApiEndpoint.post("agentExecuteQuote", "/agents/me/quotes/:quoteId/execute", {
      params: { quoteId: IdText },
      headers: IdempotencyHeaders,
      success: AgentAction,
      error: MoneyErrors
    }),
    HttpApiEndpoint.post("agentCreateTransferIn", "/agents/me/transfer-in", agentMoves(AgentTransferInRequest)),
    HttpApiEndpoint.post("agentCreateTransferOut", "/agents/me/transfer-out", agentMoves(AgentTransferOutRequest)),
    HttpApiEndpoint.get("agentListInternalAccounts", "/agents/me/internal-accounts", {
      query: AgentInternalAccountListQuery,
      success: AgentInternalAccountListResponse,
      error: Error403
    }),
    HttpApiEndpoint.get("agentListExternalAccounts", "/agents/me/external-accounts", {
      query: AgentExternalAccountListQuery,
      success: AgentExternalAccountListResponse,
      error: Error403
    }),
    HttpApiEndpoint.post("agentCreateExternalAccount", "/agents/me/external-accounts", creation(AgentExternalAccountCreateRequest, ExternalAccount, [Error403, Error409])),
    HttpApiEndpoint.get("agentGetExternalAccount", "/agents/me/external-accounts/:externalAccountId", {
      params: { externalAccountId: IdText },
      success: ExternalAccount,
      error: AgentReadErrors
    }),
    HttpApiEndpoint.delete("agentDeleteExternalAccount", "/agents/me/external-accounts/:externalAccountId", deletes({ externalAccountId: IdText }, [Error403, Error404, Error409]))
  )
  .middleware(RequestGuard)
  .middleware(AgentAuth)
  .prefix(AGENT_GROUPS_PREFIX)
  .annotateMerge(OpenApi.annotations({ title: "Agent Operations" }))
{}
