/**
 * Agents (docs/agents.md): programmatic actors that act for one customer under a
 * policy, as the reference file's `Agent*` schemas. An agent is installed by redeeming
 * a device code, which yields the bearer access token of the agent scheme.
 */
import { Schema } from "effect"
import { CurrencyCode, ListResponse, MAX_ID_LENGTH, maxChars, maxItems, NamedLiterals, NamedStruct, NonEmptyTextUpTo, Timestamps } from "./common.js"
import { Quote } from "./quote.js"
import { Transaction } from "./transaction.js"
import { MAX_AGENT_ACCOUNTS, MAX_AGENT_AMOUNT, MAX_AGENT_NAME_LENGTH, MAX_AGENT_REJECTION_REASON_LENGTH } from "./limits.js"
export { MAX_AGENT_ACCOUNTS, MAX_AGENT_AMOUNT, MAX_AGENT_NAME_LENGTH, MAX_AGENT_REJECTION_REASON_LENGTH } from "./limits.js"

/** A device code is the reference's shape `GRID-AGENT-XXXX-XXXX`: 8 characters of this alphabet (no 0/O, 1/I/L). */
export const DEVICE_CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
export const DEVICE_CODE_PATTERN = /^GRID-AGENT-[2-9A-HJKMNP-Z]{4}-[2-9A-HJKMNP-Z]{4}$/

const NonNegativeInt = Schema.Number.check(
  Schema.isInt({ message: "must be an integer" }),
  Schema.isBetween({ minimum: 0, maximum: MAX_AGENT_AMOUNT }, { message: `must be an integer from 0 to ${MAX_AGENT_AMOUNT}` })
)

const AccountId = NonEmptyTextUpTo(MAX_ID_LENGTH)

// ---------------------------------------------------------------- policy

export const AgentPermission = NamedLiterals("AgentPermission", ["VIEW_TRANSACTIONS", "CREATE_TRANSFERS", "CREATE_QUOTES", "EXECUTE_QUOTES", "MANAGE_EXTERNAL_ACCOUNTS"])
export type AgentPermission = typeof AgentPermission.Type

export const AgentExecutionMode = NamedLiterals("AgentExecutionMode", ["AUTO", "APPROVAL_REQUIRED"])
export type AgentExecutionMode = typeof AgentExecutionMode.Type

export const AgentSpendingLimits = NamedStruct("AgentSpendingLimits", {
  currency: CurrencyCode,
  perTransactionLimit: NonNegativeInt,
  dailyLimit: Schema.optionalKey(Schema.NullOr(NonNegativeInt)),
  dailyTransactionLimit: Schema.optionalKey(NonNegativeInt),
  monthlyLimit: Schema.optionalKey(Schema.NullOr(NonNegativeInt))
})
export type AgentSpendingLimits = typeof AgentSpendingLimits.Type

export const AgentAccountRule = NamedStruct("AgentAccountRule", {
  accountId: AccountId,
  executionMode: Schema.optionalKey(AgentExecutionMode),
  perTransactionLimit: Schema.optionalKey(Schema.NullOr(NonNegativeInt))
})
export type AgentAccountRule = typeof AgentAccountRule.Type

export const AgentAccountRestrictions = NamedStruct("AgentAccountRestrictions", {
  allowedAccountIds: Schema.optionalKey(Schema.NullOr(Schema.Array(AccountId).check(maxItems(MAX_AGENT_ACCOUNTS)))),
  accountRules: Schema.optionalKey(Schema.Array(AgentAccountRule).check(maxItems(MAX_AGENT_ACCOUNTS)))
})
export type AgentAccountRestrictions = typeof AgentAccountRestrictions.Type

export const AgentApprovalThresholds = NamedStruct("AgentApprovalThresholds", {
  currency: Schema.optionalKey(CurrencyCode),
  amount: Schema.optionalKey(Schema.NullOr(NonNegativeInt))
})
export type AgentApprovalThresholds = typeof AgentApprovalThresholds.Type

const Permissions = Schema.Array(AgentPermission).check(maxItems(5))

/** Opaque so declarations name it instead of spelling it out. */
export class AgentPolicy extends Schema.Opaque<AgentPolicy>()(NamedStruct("AgentPolicy", {
  permissions: Permissions,
  defaultExecutionMode: AgentExecutionMode,
  spendingLimits: AgentSpendingLimits,
  accountRestrictions: Schema.optionalKey(AgentAccountRestrictions),
  approvalThresholds: Schema.optionalKey(AgentApprovalThresholds)
})) {}

export const AgentUsage = NamedStruct("AgentUsage", {
  dailyTransactionCount: Schema.Number,
  dailySpend: Schema.Number,
  dailyResetDate: Schema.optionalKey(Schema.String),
  monthlySpend: Schema.Number,
  monthlyResetMonth: Schema.optionalKey(Schema.String)
})
export type AgentUsage = typeof AgentUsage.Type

// ---------------------------------------------------------------- agent

/** Opaque so declarations name it instead of spelling it out. */
export class Agent extends Schema.Opaque<Agent>()(NamedStruct("Agent", {
  id: Schema.String,
  name: Schema.String,
  customerId: Schema.String,
  isPaused: Schema.Boolean,
  isConnected: Schema.Boolean,
  policy: AgentPolicy,
  usage: AgentUsage,
  ...Timestamps
})) {}

export class AgentListResponse extends Schema.Opaque<AgentListResponse>()(ListResponse(Agent, "AgentListResponse")) {}

export class AgentCreateRequest extends Schema.Opaque<AgentCreateRequest>()(NamedStruct("AgentCreateRequest", {
  name: NonEmptyTextUpTo(MAX_AGENT_NAME_LENGTH),
  customerId: NonEmptyTextUpTo(MAX_ID_LENGTH),
  policy: AgentPolicy
})) {}

export class AgentDeviceCode extends Schema.Opaque<AgentDeviceCode>()(NamedStruct("AgentDeviceCode", {
  code: Schema.String,
  agentId: Schema.String,
  expiresAt: Schema.String,
  redeemed: Schema.Boolean
})) {}

export class AgentCreateResponse extends Schema.Opaque<AgentCreateResponse>()(NamedStruct("AgentCreateResponse", { agent: Agent, deviceCode: AgentDeviceCode })) {}

export class AgentUpdateRequest extends Schema.Opaque<AgentUpdateRequest>()(NamedStruct("AgentUpdateRequest", {
  name: Schema.optionalKey(NonEmptyTextUpTo(MAX_AGENT_NAME_LENGTH)),
  isPaused: Schema.optionalKey(Schema.Boolean)
})) {}

export const AgentSpendingLimitsUpdate = NamedStruct("AgentSpendingLimitsUpdate", {
  currency: Schema.optionalKey(CurrencyCode),
  perTransactionLimit: Schema.optionalKey(NonNegativeInt),
  dailyLimit: Schema.optionalKey(Schema.NullOr(NonNegativeInt)),
  dailyTransactionLimit: Schema.optionalKey(NonNegativeInt),
  monthlyLimit: Schema.optionalKey(Schema.NullOr(NonNegativeInt))
})
export type AgentSpendingLimitsUpdate = typeof AgentSpendingLimitsUpdate.Type

export class AgentPolicyUpdateRequest extends Schema.Opaque<AgentPolicyUpdateRequest>()(NamedStruct("AgentPolicyUpdateRequest", {
  permissions: Schema.optionalKey(Permissions),
  defaultExecutionMode: Schema.optionalKey(AgentExecutionMode),
  spendingLimits: Schema.optionalKey(AgentSpendingLimitsUpdate),
  accountRestrictions: Schema.optionalKey(AgentAccountRestrictions),
  approvalThresholds: Schema.optionalKey(AgentApprovalThresholds)
})) {}

export const AgentDeviceCodeStatusResponse = NamedStruct("AgentDeviceCodeStatusResponse", { code: Schema.String, redeemed: Schema.Boolean })

export class AgentDeviceCodeRedeemResponse extends Schema.Opaque<AgentDeviceCodeRedeemResponse>()(NamedStruct("AgentDeviceCodeRedeemResponse", {
  agentId: Schema.String,
  agentName: Schema.String,
  accessToken: Schema.String,
  policy: AgentPolicy
})) {}

// ---------------------------------------------------------------- actions

export const AgentActionStatus = NamedLiterals("AgentActionStatus", ["PENDING_APPROVAL", "APPROVED", "REJECTED", "FAILED"])
export type AgentActionStatus = typeof AgentActionStatus.Type

export const AgentActionType = NamedLiterals("AgentActionType", ["EXECUTE_QUOTE", "TRANSFER_OUT", "TRANSFER_IN"])
export type AgentActionType = typeof AgentActionType.Type

export const AgentTransferDetails = NamedStruct("AgentTransferDetails", {
  amount: Schema.Number,
  currency: Schema.String,
  sourceAccountId: Schema.String,
  destinationAccountId: Schema.String
})
export type AgentTransferDetails = typeof AgentTransferDetails.Type

/** Opaque so declarations name it instead of spelling it out. */
export class AgentAction extends Schema.Opaque<AgentAction>()(NamedStruct("AgentAction", {
  id: Schema.String,
  agentId: Schema.String,
  customerId: Schema.String,
  platformCustomerId: Schema.String,
  status: AgentActionStatus,
  type: AgentActionType,
  quote: Schema.optionalKey(Quote),
  transferDetails: Schema.optionalKey(AgentTransferDetails),
  transaction: Schema.optionalKey(Transaction),
  rejectionReason: Schema.optionalKey(Schema.String),
  ...Timestamps
})) {}

export class AgentActionListResponse extends Schema.Opaque<AgentActionListResponse>()(ListResponse(AgentAction, "AgentActionListResponse")) {}

export class AgentActionRejectRequest extends Schema.Opaque<AgentActionRejectRequest>()(NamedStruct("AgentActionRejectRequest", {
  reason: Schema.optionalKey(Schema.String.check(maxChars(MAX_AGENT_REJECTION_REASON_LENGTH)))
})) {}
