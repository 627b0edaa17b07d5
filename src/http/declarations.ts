/**
 * What an endpoint declares about itself beside its schemas: the cross-cutting concerns
 * the HTTP layer applies to it in one place (src/http/concerns.ts), on the HttpApi path
 * and the direct lane alike. Declared where the endpoint is defined (api.ts,
 * groups/*.ts), with `declare`:
 *
 *   HttpApiEndpoint.post("authorizeQuote", "/quotes/:quoteId/authorize", { ... })
 *     .pipe(declare({ retryAfter: true }))
 *
 * Idempotency is declared by the endpoint's headers: an endpoint whose headers include
 * `Idempotency-Key` (`IdempotencyHeaders`, `RequiredIdempotencyHeaders`) runs under it.
 * A group may declare defaults for its endpoints (`apiGroup(id, { title, permission }, ...)`
 * in endpoints.ts, or `group.annotate(Concerns, {...})`); an endpoint's own declaration
 * overrides them property by property.
 *
 * `sandboxOnly` keeps an endpoint to sandbox platforms (see the property).
 *
 * `permission` is what an API token (docs/tokens.md) must hold to call the endpoint; a
 * GET endpoint that declares none requires VIEW, any other must declare one (a test
 * walks every endpoint). The platforms file's own credentials may call every endpoint.
 */
import { Context } from "effect"
import type { Permission } from "../domain/token.js"

export interface EndpointConcerns {
  /**
   * A 429 RATE_LIMITED of this endpoint says when to come back: `Retry-After` (seconds,
   * the error's `details.retryAfterSeconds`, else 60) and `x-should-retry: true`.
   */
  readonly retryAfter?: boolean
  /** The permission an API token needs for this endpoint (see the module comment). */
  readonly permission?: Permission
  /**
   * Sandbox platforms only: a production platform's request is answered 403 FORBIDDEN
   * before the handler runs. Every platform endpoint under `/sandbox/` declares it (a test
   * walks them); the operations behind them check it again for embedders who call them
   * directly.
   */
  readonly sandboxOnly?: boolean
}

export class Concerns extends Context.Service<Concerns, EndpointConcerns>()("payments-service/http/Concerns") {}

/** Declares an endpoint's concerns (see the module comment). */
export const declare = (concerns: EndpointConcerns) =>
<E extends { readonly annotate: (key: typeof Concerns, value: EndpointConcerns) => E }>(endpoint: E): E =>
  endpoint.annotate(Concerns, concerns)

/** The header that binds a request to an idempotency key. */
export const IDEMPOTENCY_KEY_HEADER = "idempotency-key"
