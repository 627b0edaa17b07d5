/**
 * The two middlewares every endpoint runs behind:
 * - `PlatformAuth`: HTTP Basic with the platform's client id and secret; provides
 *   `CurrentPlatform`. Each failure names the check that failed.
 * - `RequestGuard`: turns request decoding failures, bodies of the wrong type or size
 *   and unexpected defects into the API's error shape, and gives handlers the clock.
 * Also: which answers carry `x-should-retry: false` (applied by `SafetyNet` in server.ts, and by the direct lane).
 */
import { Context, Schema } from "effect"
import { HttpApiMiddleware, HttpApiSecurity } from "effect/http-api"
import { Error400, Error401, Error500, Error503 } from "../domain/errors.js"
import type { Platform } from "../domain/platform.js"
import type { Permission } from "../domain/token.js"
export { MAX_JSON_BODY_BYTES, MAX_MULTIPART_BODY_BYTES } from "../domain/limits.js"

export class CurrentPlatform extends Context.Service<CurrentPlatform, Platform>()("payments-service/http/CurrentPlatform") {}

/**
 * The permissions of the API token a request authenticated with (docs/tokens.md).
 * Absent when it authenticated with the platforms file's own credentials (full access).
 */
export class CurrentTokenPermissions extends Context.Service<CurrentTokenPermissions, ReadonlyArray<Permission>>()(
  "payments-service/http/CurrentTokenPermissions"
) {}

export class PlatformAuth extends HttpApiMiddleware.Service<PlatformAuth, { provides: CurrentPlatform }>()(
  "payments-service/http/PlatformAuth",
  {
    security: { basic: HttpApiSecurity.basic },
    error: Error401
  }
) {}

/** The agent an `/agents/me/*` request authenticated as (its platform is `CurrentPlatform`). */
export class CurrentAgent extends Context.Service<CurrentAgent, { readonly agentId: string }>()("payments-service/http/CurrentAgent") {}

/**
 * The agent scheme (docs/agents.md): `Authorization: Bearer <accessToken>`, the token a
 * redeemed device code returned; provides `CurrentPlatform` and `CurrentAgent`. Each
 * failure names the check that failed; platform credentials are refused here, as agent
 * tokens are by `PlatformAuth`.
 */
export class AgentAuth extends HttpApiMiddleware.Service<AgentAuth, { provides: CurrentPlatform | CurrentAgent }>()(
  "payments-service/http/AgentAuth",
  {
    security: { agentBearer: HttpApiSecurity.bearer },
    error: Error401
  }
) {}

export class RequestGuard extends HttpApiMiddleware.Service<RequestGuard>()("payments-service/http/RequestGuard", {
  error: [Error400, Error500, Error503]
}) {}

export const ErrorBody = Schema.Struct({
  code: Schema.String,
  reason: Schema.String,
  /** The same text as `reason`, under the reference's name (docs/errors.md). */
  message: Schema.String,
  details: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown))
})

/**
 * Answers a client should not retry unchanged carry `x-should-retry: false`: every 4xx
 * (the request itself is wrong, or conflicts with the state) and 501 (not built here),
 * except a 429 that says when to come back (`retry-after`: a rate limit's window), which
 * carries `x-should-retry: true` like a 503. A 429 without `retry-after` (the daily
 * volume limit: nothing changes before the next day) is not retryable. Other 5xx and
 * 2xx carry nothing.
 */
export const SHOULD_RETRY_HEADER = "x-should-retry"

/** Whether an answer with this status is one a client should not retry as it is (every 4xx, and 501); `retryAdvice` makes the exception for a 429 with `retry-after`. */
export const isNotRetryable = (status: number): boolean => (status >= 400 && status < 500) || status === 501

/** The `x-should-retry` value of an answer, or undefined for none (2xx, 3xx, 500, 502, 504). */
export const retryAdvice = (status: number, hasRetryAfter: boolean): "true" | "false" | undefined =>
  status === 503 || (status === 429 && hasRetryAfter) ? "true" : isNotRetryable(status) ? "false" : undefined

/** The headers of a not-retryable answer, for replies written outside HttpRouter (the direct lane). */
export const NOT_RETRYABLE_HEADERS: Readonly<Record<string, string>> = Object.freeze({ [SHOULD_RETRY_HEADER]: "false" })

/** A 503 says the request was not applied and may be retried after `retry-after` seconds. */
export const RETRY_LATER_HEADERS: Readonly<Record<string, string>> = Object.freeze({ [SHOULD_RETRY_HEADER]: "true", "retry-after": "1" })
