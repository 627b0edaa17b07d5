/**
 * Assembles the reference HTTP application: the API routes, `/openapi.json`, the docs
 * page, and a safety net that answers endpoints not built yet (501), unknown routes
 * (404) and any escaped fault in the API's error shape, and marks the answers a client
 * should not retry.
 */
import { Cause, Effect, Layer } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiBuilder, HttpApiScalar } from "effect/http-api"
import { PaymentsApi, API_VERSION } from "./api.js"
import { DashboardRoutes } from "./dashboard.js"
import { HANDLERS } from "./routes.js"
import { AgentAuthLive, PlatformAuthLive, RequestGuardLive } from "./middleware-live.js"
import { apiErrorStatus } from "../domain/errors.js"
import { faultOf, retryHeaders } from "./pipeline.js"
import { makeApiRouter } from "./reference-endpoints.js"

const VERSION_PREFIX = `/${API_VERSION}`

const errorResponse = (status: number, code: string, reason: string) =>
  HttpServerResponse.jsonUnsafe({ code, reason, message: reason }, { status })

const notFound = () => errorResponse(404, "NOT_FOUND", `No such endpoint. The API lives under ${VERSION_PREFIX}; see /openapi.json`)

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const

/** A percent-encoded NUL in the path or query: no id or filter has one (and PostgreSQL text cannot hold one). */
const NUL_IN_URL = /%00/

/** A known path asked with a method it does not have: 405 with the methods it has. */
const methodNotAllowed = (method: string, allowed: ReadonlyArray<string>) =>
  HttpServerResponse.setHeader(
    errorResponse(405, "METHOD_NOT_ALLOWED", `${method} is not allowed on this path; it accepts ${allowed.join(", ")}`),
    "allow",
    allowed.join(", ")
  )

const notImplemented = (endpoint: string) =>
  errorResponse(501, "NOT_IMPLEMENTED", `${endpoint} is part of the API but not implemented by this version of payments-service (see docs/implemented.md)`)

const tagOf = (u: unknown): unknown => typeof u === "object" && u !== null ? (u as { readonly _tag?: unknown })._tag : undefined

const isRouteNotFound = (error: unknown): boolean =>
  tagOf(error) === "RouteNotFound" ||
  (typeof error === "object" && error !== null && tagOf((error as { readonly reason?: unknown }).reason) === "RouteNotFound")

/** Every route of the HttpApi app (method and full path). */
const API_ROUTES = Object.values(PaymentsApi.groups).flatMap((group) =>
  Object.values(group.endpoints).map((e) => ({ method: e.method, path: e.path, value: e }))
)

/** Step 8 of the pipeline on a response: the retry advice its status calls for. */
const withRetryAdvice = (response: HttpServerResponse.HttpServerResponse): HttpServerResponse.HttpServerResponse => {
  const headers = retryHeaders(response.status, response.headers["retry-after"])
  return headers === undefined ? response : HttpServerResponse.setHeaders(response, headers)
}

/**
 * The one global middleware around every route, in this order:
 * 1. Routing of endpoints not built yet: a request whose best route among the app's
 *    routes and every reference endpoint (static segments before parameters, as the
 *    router ranks them) is a reference endpoint without a handler is answered 501
 *    NOT_IMPLEMENTED naming it, before the router runs. So `GET /customers/internal-accounts`
 *    is never captured by `GET /customers/:customerId`.
 * 2. The safety net: unknown paths get 404 NOT_FOUND, a known path asked with another
 *    method 405 METHOD_NOT_ALLOWED (with `Allow`), and anything that escaped the
 *    endpoint guards becomes a 500 INTERNAL_ERROR in the error shape instead of an
 *    empty response. The server never crashes on a request.
 * 3. `x-should-retry: false` on every answer a client should not retry (4xx, 501),
 *    whichever of the above or of the endpoints produced it.
 */
export const SafetyNet = HttpRouter.middleware(
  Effect.gen(function*() {
    const config = yield* HttpRouter.RouterConfig
    // Without the parameter length limit: a too long parameter of a built endpoint
    // still reaches the router (and its 404); of one not built, it still names it.
    const route = makeApiRouter({ base: VERSION_PREFIX, served: API_ROUTES, config: { ...config, maxParamLength: Infinity } })
    return (httpEffect) =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
        const routed = route(request.method, request.url)
        const answer = NUL_IN_URL.test(request.url)
          ? Effect.succeed(errorResponse(400, "INVALID_INPUT", "The path or query contains a NUL (%00) character, which no parameter accepts"))
          : routed?._tag === "NotImplemented"
          ? Effect.succeed(notImplemented(routed.endpoint))
          : httpEffect
        return Effect.map(
          Effect.catchCause(answer, (cause) => {
            const failure = cause.reasons.find(Cause.isFailReason)
            if (isRouteNotFound(failure?.error)) {
              // A path the method has (a parameter too long for the router, say) is a 404.
              const allowed = route(request.method, request.url) !== undefined
                ? []
                : METHODS.filter((m) => m !== request.method && route(m, request.url) !== undefined)
              return Effect.succeed(allowed.length > 0 ? methodNotAllowed(request.method, allowed) : notFound())
            }
            if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause)
            // Contention: the store reran the unit of work as often as it may and it still
            // lost to concurrent ones (503, nothing applied); anything else a 500.
            return Effect.map(faultOf(cause, "Request failed outside the API guards"), (fault) =>
              errorResponse(apiErrorStatus(fault) ?? 500, fault.code, fault.reason))
          }),
          withRetryAdvice
        )
      })
  }),
  { global: true }
)

const Index = HttpRouter.add("GET", "/", HttpServerResponse.jsonUnsafe({
  service: "payments-service",
  apiBase: `/${API_VERSION}`,
  openapi: "/openapi.json",
  docs: "/docs",
  dashboard: "/dashboard"
}))

/**
 * The routes with their handlers (every group's, from routes.ts); needs Store, Events, Ids,
 * Platforms and VirtualClock.
 */
export const ApiRoutes = HttpApiBuilder.layer(PaymentsApi, { openapiPath: "/openapi.json" }).pipe(
  Layer.provide([
    ...HANDLERS
  ]),
  Layer.provide([PlatformAuthLive, RequestGuardLive, AgentAuthLive])
)

/** Everything the reference server serves. */
export const AppRoutes = Layer.mergeAll(ApiRoutes, HttpApiScalar.layer(PaymentsApi, { path: "/docs" }), Index, DashboardRoutes, SafetyNet)
