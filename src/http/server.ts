/**
 * Assembles the reference HTTP application: the API routes, `/openapi.json`, the docs
 * page, and a safety net that answers unknown routes and any escaped fault in the
 * API's error shape.
 */
import { Cause, Effect, Layer } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiBuilder, HttpApiScalar } from "effect/http-api"
import { PaymentsApi, API_VERSION } from "./api.js"
import { CustomersHandlers } from "./handlers/customers.js"
import { CustomerExternalAccountsHandlers, PlatformExternalAccountsHandlers } from "./handlers/external-accounts.js"
import { SandboxHandlers } from "./handlers/sandbox.js"
import { AgreementsHandlers } from "./handlers/agreements.js"
import { BeneficialOwnersHandlers } from "./handlers/beneficial-owners.js"
import { DocumentsHandlers } from "./handlers/documents.js"
import { VerificationsHandlers } from "./handlers/verifications.js"
import { PlatformAuthLive, RequestGuardLive } from "./middleware-live.js"
import { referenceEndpointOf } from "./reference-endpoints.js"

const VERSION_PREFIX = `/${API_VERSION}`

const errorResponse = (status: number, code: string, reason: string) =>
  HttpServerResponse.jsonUnsafe({ code, reason }, { status })

const tagOf = (u: unknown): unknown => typeof u === "object" && u !== null ? (u as { readonly _tag?: unknown })._tag : undefined

const isRouteNotFound = (error: unknown): boolean =>
  tagOf(error) === "RouteNotFound" ||
  (typeof error === "object" && error !== null && tagOf((error as { readonly reason?: unknown }).reason) === "RouteNotFound")

/**
 * Answers what the API routes did not: unknown paths get 404 NOT_FOUND, and anything
 * that escaped the endpoint guards becomes a 500 INTERNAL_ERROR in the error shape
 * instead of an empty response. The server never crashes on a request.
 */
export const SafetyNet = HttpRouter.middleware(
  (httpEffect) =>
    Effect.catchCause(httpEffect, (cause) => {
      const failure = cause.reasons.find(Cause.isFailReason)
      if (isRouteNotFound(failure?.error)) {
        return Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
          const path = new URL(request.url, "http://localhost").pathname
          const endpoint = path.startsWith(VERSION_PREFIX) ? referenceEndpointOf(request.method, path.slice(VERSION_PREFIX.length)) : undefined
          return endpoint === undefined
            ? errorResponse(404, "NOT_FOUND", `No such endpoint. The API lives under ${VERSION_PREFIX}; see /openapi.json`)
            : errorResponse(501, "NOT_IMPLEMENTED", `${endpoint} is part of the API but not implemented by this version of payments-service (see docs/implemented.md)`)
        })
      }
      if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause)
      return Effect.logError("Request failed outside the API guards", cause).pipe(
        Effect.as(errorResponse(500, "INTERNAL_ERROR", "An internal error occurred; the request was not applied"))
      )
    }),
  { global: true }
)

const Index = HttpRouter.add("GET", "/", HttpServerResponse.jsonUnsafe({
  service: "payments-service",
  apiBase: `/${API_VERSION}`,
  openapi: "/openapi.json",
  docs: "/docs"
}))

/** The routes with their handlers; needs Store, Events, Ids, Platforms and VirtualClock. */
export const ApiRoutes = HttpApiBuilder.layer(PaymentsApi, { openapiPath: "/openapi.json" }).pipe(
  Layer.provide([
    CustomersHandlers,
    CustomerExternalAccountsHandlers,
    PlatformExternalAccountsHandlers,
    SandboxHandlers,
    AgreementsHandlers,
    VerificationsHandlers,
    DocumentsHandlers,
    BeneficialOwnersHandlers
  ]),
  Layer.provide([PlatformAuthLive, RequestGuardLive])
)

/** Everything the reference server serves. */
export const AppRoutes = Layer.mergeAll(ApiRoutes, HttpApiScalar.layer(PaymentsApi, { path: "/docs" }), Index, SafetyNet)
