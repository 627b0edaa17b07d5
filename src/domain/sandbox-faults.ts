/**
 * Sandbox fault rules (docs/sandbox.md#fault-injection): what a sandbox platform asks
 * the server to do to its own requests and webhooks, on purpose, so a client can see
 * how it copes with errors, latency, lost answers and misbehaving webhook delivery.
 */
import { Schema } from "effect"
import { NamedStruct } from "./common.js"

/** Longest latency a rule may add to one request (real time), in ms. */
export const MAX_FAULT_LATENCY_MILLIS = 10_000
/** Longest delay a webhook rule may add before one POST (real time), in ms. */
export const MAX_WEBHOOK_DELAY_MILLIS = 10_000
/** Rules per list (requests, webhooks). */
export const MAX_FAULT_RULES = 50

const RuleId = Schema.String.check(Schema.isPattern(/^[A-Za-z0-9_.-]{1,64}$/))
  .annotate({ description: "1 to 64 letters, digits, '_', '.' or '-': the value of `x-sandbox-fault` when the rule fires." })

const Probability = Schema.Number.check(Schema.isBetween({ minimum: 0, maximum: 1 }))
  .annotate({ description: "Chance the rule fires on a request it matches, 0 to 1 (default 1)." })

/** A path pattern below the version base: `*` stands for one path segment or part of one. */
const PathPattern = Schema.String.check(Schema.isPattern(/^\/[A-Za-z0-9_.~:*/-]{0,255}$/))
  .annotate({ description: "A path below the version base, e.g. `/customers/*`; `*` matches any characters except `/`." })

export const RequestFaultMatch = Schema.Struct({
  /** The OpenAPI operationId (`customers.createCustomer`) or its last part (`createCustomer`). */
  operationId: Schema.optionalKey(Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(128))),
  method: Schema.optionalKey(Schema.Literals(["GET", "POST", "PUT", "PATCH", "DELETE"])),
  path: Schema.optionalKey(PathPattern)
})
export type RequestFaultMatch = typeof RequestFaultMatch.Type

export const FaultStatus = Schema.Literals([429, 500, 502, 503, 504])
export type FaultStatus = typeof FaultStatus.Type

export const RequestFaultAction = Schema.Union([
  Schema.Struct({
    type: Schema.Literal("ERROR"),
    status: FaultStatus,
    /** `retry-after` of a 429 or 503 (default 1). */
    retryAfterSeconds: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 3600 })))
  }),
  Schema.Struct({
    type: Schema.Literal("LATENCY"),
    millis: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: MAX_FAULT_LATENCY_MILLIS }))
  }),
  Schema.Struct({ type: Schema.Literal("LOSE_ANSWER") })
])
export type RequestFaultAction = typeof RequestFaultAction.Type

export const RequestFaultRule = Schema.Struct({
  id: RuleId,
  match: RequestFaultMatch,
  probability: Schema.optionalKey(Probability),
  action: RequestFaultAction
})
export type RequestFaultRule = typeof RequestFaultRule.Type

export const WebhookFaultAction = Schema.Union([
  /** The same webhook (same id, body and signature) is POSTed twice. */
  Schema.Struct({ type: Schema.Literal("DUPLICATE") }),
  /** The POST waits this long (real time) first. */
  Schema.Struct({
    type: Schema.Literal("DELAY"),
    millis: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: MAX_WEBHOOK_DELAY_MILLIS }))
  }),
  /** The first `attempts` attempts of a delivery fail without being sent; it is retried on its schedule. */
  Schema.Struct({
    type: Schema.Literal("FAIL_FIRST"),
    attempts: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 7 }))
  }),
  /** The delivery is held back for one retry interval: later webhooks about other resources arrive before it. */
  Schema.Struct({ type: Schema.Literal("OUT_OF_ORDER") })
])
export type WebhookFaultAction = typeof WebhookFaultAction.Type

export const WebhookFaultRule = Schema.Struct({
  id: RuleId,
  /** The webhook `type` it applies to (`*` as in paths); every type when omitted. */
  eventType: Schema.optionalKey(Schema.String.check(Schema.isPattern(/^[A-Z0-9_.*]{1,64}$/))),
  probability: Schema.optionalKey(Probability),
  action: WebhookFaultAction
})
export type WebhookFaultRule = typeof WebhookFaultRule.Type

/** `PUT /sandbox/faults`: the platform's whole rule set, replacing the one it had. */
export const SandboxFaults = NamedStruct("SandboxFaults", {
  /** Drives every probability: the same seed and the same requests give the same faults (default 0). */
  seed: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 2 ** 32 - 1 }))),
  requests: Schema.optionalKey(Schema.Array(RequestFaultRule).check(Schema.isMaxLength(MAX_FAULT_RULES))),
  webhooks: Schema.optionalKey(Schema.Array(WebhookFaultRule).check(Schema.isMaxLength(MAX_FAULT_RULES)))
})
export type SandboxFaults = typeof SandboxFaults.Type

/** What the platform has, as stored and answered: every field present. */
export const SandboxFaultsView = NamedStruct("SandboxFaultsView", {
  seed: Schema.Number,
  requests: Schema.Array(RequestFaultRule),
  webhooks: Schema.Array(WebhookFaultRule),
  /** Requests that matched a rule since the rules were set (the counter the probabilities are drawn with). */
  matchedRequests: Schema.Number
})
export type SandboxFaultsView = typeof SandboxFaultsView.Type

/** The stored rule set of a platform. */
export interface FaultConfig {
  readonly seed: number
  readonly requests: ReadonlyArray<RequestFaultRule>
  readonly webhooks: ReadonlyArray<WebhookFaultRule>
}

export const normalizeFaults = (f: SandboxFaults): FaultConfig => ({
  seed: f.seed ?? 0,
  requests: f.requests ?? [],
  webhooks: f.webhooks ?? []
})

/** A glob of `*` (any characters but `/`, or any characters at all when `slash` is false) as a whole-string regex. */
export const globRegex = (pattern: string, slash = true): RegExp =>
  new RegExp(`^${pattern.split("*").map((s) => s.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(slash ? "[^/]*" : ".*")}$`)
