/**
 * Fault injection on sandbox platforms (docs/sandbox.md#fault-injection): the rules a
 * platform sets with `PUT /sandbox/faults`, and the decisions drawn from them.
 *
 * Every decision is deterministic: a rule fires when a hash of the platform's seed, the
 * rule's id and a counter is below its probability. For requests the counter is the
 * platform's count of requests that matched any of its rules (kept by the
 * SandboxFaultStore, shared by every process on a SQL store); for webhooks it is the
 * delivery's id and attempt. No `Math.random`: the same seed and the same requests give
 * the same faults.
 */
import { createHash } from "node:crypto"
import { Effect } from "effect"
import { badRequest, forbidden } from "../domain/errors.js"
import type { Platform } from "../domain/platform.js"
import {
  type FaultConfig,
  globRegex,
  MAX_WEBHOOK_DELAY_MILLIS,
  normalizeFaults,
  type RequestFaultAction,
  type RequestFaultRule,
  type SandboxFaults,
  type SandboxFaultsView,
  type WebhookFaultAction,
  type WebhookFaultRule
} from "../domain/sandbox-faults.js"
import { SandboxFaultStore } from "../ports/sandbox-faults.js"
import { type WebhookRequest, type WebhookResponse, WebhookSender } from "../ports/webhooks.js"
import { memoize } from "../lib/bounded-memo.js"

const sandboxOnly = (platform: Platform) =>
  platform.settings.sandbox ? Effect.void : Effect.fail(forbidden("Sandbox endpoints are not available to production platforms"))

const viewOf = (config: FaultConfig | undefined, matched: number): SandboxFaultsView => ({
  seed: config?.seed ?? 0,
  requests: config?.requests ?? [],
  webhooks: config?.webhooks ?? [],
  matchedRequests: matched
})

export const getSandboxFaults = Effect.fnUntraced(function*(platform: Platform) {
  yield* sandboxOnly(platform)
  const store = yield* SandboxFaultStore
  const config = yield* store.get(platform.id)
  return viewOf(config, config === undefined ? 0 : yield* store.matched(platform.id))
})

/** Replaces the platform's rules (and starts its counter over); an empty set removes them. */
export const putSandboxFaults = Effect.fnUntraced(function*(platform: Platform, faults: SandboxFaults) {
  yield* sandboxOnly(platform)
  const store = yield* SandboxFaultStore
  const config = normalizeFaults(faults)
  const duplicate = [config.requests, config.webhooks].flatMap((rules) =>
    rules.map((r) => r.id).filter((id, i, ids) => ids.indexOf(id) !== i)
  )[0]
  if (duplicate !== undefined) {
    // Rule ids name the rule in `x-sandbox-fault`: they must tell rules apart.
    return yield* Effect.fail(invalidRuleId(duplicate))
  }
  yield* store.put(platform.id, config)
  return viewOf(config, 0)
})

const invalidRuleId = (id: string) =>
  badRequest("INVALID_INPUT", `Rule id ${id} appears twice in one list; every rule of a list needs its own id`)

export const deleteSandboxFaults = Effect.fnUntraced(function*(platform: Platform) {
  yield* sandboxOnly(platform)
  const store = yield* SandboxFaultStore
  yield* store.remove(platform.id)
})

// ---------------------------------------------------------------- decisions

/** A number in [0, 1) drawn from the seed, the rule and the counter. */
export const draw = (seed: number, ruleId: string, counter: string | number): number =>
  createHash("sha256").update(`${seed}:${ruleId}:${counter}`).digest().readUInt32BE(0) / 0x1_0000_0000

const fires = (seed: number, rule: { readonly id: string; readonly probability?: number }, counter: string | number) =>
  draw(seed, rule.id, counter) < (rule.probability ?? 1)

/** Globs compiled, per kind (a `*` that crosses a slash or not): one memo each, so no key is shared by both. */
const pathPatterns = memoize(1_000, (glob: string) => globRegex(glob, true))
const namePatterns = memoize(1_000, (glob: string) => globRegex(glob, false))
const patternOf = (glob: string, slash: boolean): RegExp => slash ? pathPatterns(glob) : namePatterns(glob)

/** What a request is, for matching: its method, its path below the version base, its operation (when it is one). */
export interface FaultRequest {
  readonly method: string
  readonly path: string
  /** The OpenAPI operationId, `group.endpoint`. */
  readonly operationId: string | undefined
}

export const matchesRequest = (rule: RequestFaultRule, request: FaultRequest): boolean => {
  const m = rule.match
  if (m.method !== undefined && m.method !== request.method) return false
  if (m.path !== undefined && !patternOf(m.path, true).test(request.path)) return false
  if (m.operationId !== undefined) {
    const op = request.operationId
    if (op === undefined || (op !== m.operationId && op.slice(op.lastIndexOf(".") + 1) !== m.operationId)) return false
  }
  return true
}

export interface RequestFault {
  readonly ruleId: string
  readonly action: RequestFaultAction
}

/**
 * The fault for a request of `platform` (`requestOf` describes it), if one fires: undefined when the platform is
 * not a sandbox, has no rules, or none matches or fires. A request that matches a rule
 * moves the platform's counter by one, whether or not a rule fires.
 */
export const requestFaultFor = Effect.fnUntraced(function*(platform: Platform, requestOf: () => FaultRequest) {
  if (!platform.settings.sandbox) return undefined
  const store = yield* SandboxFaultStore
  const config = yield* store.get(platform.id)
  if (config === undefined || config.requests.length === 0) return undefined
  // Described (its operation routed) only when the platform has rules to match it against.
  const request = requestOf()
  const matching = config.requests.filter((r) => matchesRequest(r, request))
  if (matching.length === 0) return undefined
  const n = yield* store.nextMatch(platform.id)
  const rule = matching.find((r) => fires(config.seed, r, n))
  return rule === undefined ? undefined : ({ ruleId: rule.id, action: rule.action } satisfies RequestFault)
})

export interface WebhookFault {
  readonly ruleId: string
  readonly action: WebhookFaultAction
}

const matchesWebhook = (rule: WebhookFaultRule, eventType: string) =>
  rule.eventType === undefined || patternOf(rule.eventType, false).test(eventType)

/**
 * The webhook faults that fire for attempt `round + 1` of a delivery: at most one of
 * each action type, first rule first. FAIL_FIRST is drawn once per delivery (so a
 * delivery that fails its first attempt fails the next ones up to N), the others per attempt.
 */
export const webhookFaultsFor = Effect.fnUntraced(function*(
  platform: Platform,
  delivery: { readonly id: string; readonly type: string; readonly round: number }
) {
  if (!platform.settings.sandbox) return []
  const config = yield* (yield* SandboxFaultStore).get(platform.id)
  if (config === undefined || config.webhooks.length === 0) return []
  const faults: Array<WebhookFault> = []
  for (const rule of config.webhooks) {
    if (!matchesWebhook(rule, delivery.type) || faults.some((f) => f.action.type === rule.action.type)) continue
    const counter = rule.action.type === "FAIL_FIRST" ? delivery.id : `${delivery.id}:${delivery.round}`
    if (rule.action.type === "FAIL_FIRST" && delivery.round >= rule.action.attempts) continue
    if (fires(config.seed, rule, counter)) faults.push({ ruleId: rule.id, action: rule.action })
  }
  return faults
})

/**
 * One attempt of a webhook with the platform's webhook faults applied: FAIL_FIRST and
 * OUT_OF_ORDER make the attempt fail without sending (recorded as a failed attempt
 * naming the rule; the delivery is retried on its schedule, and webhooks about other
 * resources go out meanwhile), DELAY waits before the POST, DUPLICATE POSTs the same
 * webhook twice (the second answer is recorded). A sent webhook that a fault touched
 * carries `x-sandbox-fault` with the rule ids.
 */
export const sendWithFaults = Effect.fnUntraced(function*(
  platform: Platform,
  delivery: { readonly id: string; readonly type: string; readonly round: number },
  request: WebhookRequest
) {
  const sender = yield* WebhookSender
  const faults = yield* webhookFaultsFor(platform, delivery)
  if (faults.length === 0) return yield* sender.send(request)
  const withheld = faults.find((f) => f.action.type === "FAIL_FIRST") ?? faults.find((f) => f.action.type === "OUT_OF_ORDER")
  if (withheld !== undefined) {
    const what = withheld.action.type === "FAIL_FIRST"
      ? `attempt ${delivery.round + 1} of the first ${withheld.action.attempts} fails`
      : "held back so later webhooks arrive first"
    return { _tag: "Failed", error: `sandbox fault ${withheld.ruleId}: ${what} (not sent)`, durationMs: 0 } satisfies WebhookResponse
  }
  const marked: WebhookRequest = { ...request, headers: { ...request.headers, "x-sandbox-fault": faults.map((f) => f.ruleId).join(",") } }
  for (const f of faults) if (f.action.type === "DELAY") yield* Effect.sleep(Math.min(f.action.millis, MAX_WEBHOOK_DELAY_MILLIS))
  const first = yield* sender.send(marked)
  return faults.some((f) => f.action.type === "DUPLICATE") ? yield* sender.send(marked) : first
})
