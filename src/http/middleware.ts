/**
 * The two middlewares every endpoint runs behind:
 * - `PlatformAuth`: HTTP Basic with the platform's client id and secret; provides
 *   `CurrentPlatform`. Each failure names the check that failed.
 * - `RequestGuard`: turns request decoding failures, bodies of the wrong type or size
 *   and unexpected defects into the API's error shape, and gives handlers the clock.
 */
import { Context, Schema } from "effect"
import { HttpApiMiddleware, HttpApiSecurity } from "effect/http-api"
import { Error400, Error401, Error500 } from "../domain/errors.js"
import type { Platform } from "../domain/platform.js"

export class CurrentPlatform extends Context.Service<CurrentPlatform, Platform>()("payments-service/http/CurrentPlatform") {}

export class PlatformAuth extends HttpApiMiddleware.Service<PlatformAuth, { provides: CurrentPlatform }>()(
  "payments-service/http/PlatformAuth",
  {
    security: { basic: HttpApiSecurity.basic },
    error: Error401
  }
) {}

export class RequestGuard extends HttpApiMiddleware.Service<RequestGuard>()("payments-service/http/RequestGuard", {
  error: [Error400, Error500]
}) {}

/** Largest JSON body accepted (documented in docs/errors.md). */
export const MAX_JSON_BODY_BYTES = 1024 * 1024

/** Largest multipart body accepted (document uploads): the 10 MB file plus its form. */
export const MAX_MULTIPART_BODY_BYTES = 11 * 1024 * 1024

export const ErrorBody = Schema.Struct({
  code: Schema.String,
  reason: Schema.String,
  details: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown))
})
