/**
 * The cross-cutting concerns an endpoint declares (src/http/declarations.ts), applied
 * in this one place around the handler its group registers:
 * - idempotency: an endpoint whose headers include `Idempotency-Key` runs under the key
 *   (operations/idempotency.ts), bound to the endpoint's operation (`POST /quotes/{quoteId}/execute`,
 *   derived from its method and path), its decoded request (path parameters and body,
 *   and the calling agent on /agents/me endpoints) and its success schema (how the first
 *   result is stored and replayed). Nothing is restated per endpoint.
 * - retry advice: `retryAfter` turns a 429 RATE_LIMITED into an answer with `Retry-After`.
 * - permission: a request made with an API token whose permissions do not cover the
 *   endpoint's (`permissionOf`) is answered 403 FORBIDDEN before anything else runs.
 *
 * `implement(group, build)` (instead of `HttpApiBuilder.group`) registers a group's
 * handlers with their concerns applied; the direct lane applies the same `applyConcerns`
 * to the handlers it serves, so both paths run the same steps.
 */
import { Context, Effect, Layer, Option, SchemaAST, type Schema, type Scope } from "effect"
import { HttpServerResponse } from "effect/http"
import { type HttpApi, HttpApiBuilder, type HttpApiEndpoint, type HttpApiGroup } from "effect/http-api"
import { encodeApiError, Error429, type Error409, forbidden } from "../domain/errors.js"
import { type Permission, permits } from "../domain/token.js"
import { idempotent } from "../operations/idempotency.js"
import { aroundPlatformClock } from "../operations/time.js"
import type { Store } from "../ports/store.js"
import { API_ID, API_VERSION, type ApiGroup, apiOf, groupOf } from "./api-base.js"
import { Concerns, type EndpointConcerns, IDEMPOTENCY_KEY_HEADER } from "./declarations.js"
import { CurrentAgent, CurrentPlatform, CurrentTokenPermissions, PlatformAuth } from "./middleware.js"

/** What a concern reads of a decoded request. */
export interface ConcernRequest {
  readonly headers?: unknown
  readonly params?: unknown
  readonly payload?: unknown
}

/** What the concerns read of an HttpApi group: its identifier, annotations and endpoints. */
export interface GroupLike {
  readonly identifier: string
  readonly annotations: Context.Context<never>
  readonly endpoints: Readonly<Record<string, HttpApiEndpoint.Top>>
}

/** The names of the headers an endpoint declares (lower case). */
export const headerNamesOf = (schema: Schema.Top | undefined): ReadonlyArray<string> =>
  schema !== undefined && SchemaAST.isObjects(schema.ast)
    ? schema.ast.propertySignatures.flatMap((ps) => (typeof ps.name === "string" ? [ps.name] : []))
    : []

/** The concerns an endpoint declares, over its group's defaults (property by property). */
export const concernsOf = (endpoint: HttpApiEndpoint.Top): EndpointConcerns => {
  const group = groupOf(endpoint)
  return {
    ...(group === undefined ? undefined : Context.getOrUndefined(group.annotations, Concerns)),
    ...Context.getOrUndefined(endpoint.annotations, Concerns)
  }
}

/**
 * The permission an API token needs for an endpoint: its own declaration, else VIEW for
 * a GET, else its group's default; undefined (refused to every token) when none applies.
 */
export const permissionOf = (endpoint: HttpApiEndpoint.Top): Permission | undefined =>
  Context.getOrUndefined(endpoint.annotations, Concerns)?.permission ??
    (endpoint.method === "GET" ? "VIEW" : concernsOf(endpoint).permission)

/** Whether an endpoint takes the platform's HTTP Basic credentials (so an API token may call it). */
export const takesPlatformCredentials = (endpoint: HttpApiEndpoint.Top): boolean =>
  [...endpoint.middlewares].some((m) => m.key === PlatformAuth.key)

const VERSION_PREFIX = `/${API_VERSION}`

/** The operation an idempotency key is bound to: `POST /quotes/{quoteId}/execute` (no version base). */
export const operationOf = (endpoint: { readonly method: string; readonly path: string }): string => {
  const path = endpoint.path.startsWith(VERSION_PREFIX) ? endpoint.path.slice(VERSION_PREFIX.length) : endpoint.path
  return `${endpoint.method} ${path.replace(/:(\w+)/g, "{$1}")}`
}

const objectOrEmpty = (u: unknown): object => (typeof u === "object" && u !== null ? u : {})

const headerOf = (request: ConcernRequest, name: string): string | undefined => {
  const value: unknown = (objectOrEmpty(request.headers) as Readonly<Record<string, unknown>>)[name]
  return typeof value === "string" ? value : undefined
}

type Handler<Req, A, E, R> = (request: Req) => Effect.Effect<A, E, R>

/** The idempotency step of an endpoint that declares the `Idempotency-Key` header, else the handler as it is. */
const idempotencyStep = <Req extends ConcernRequest, A, E, R>(
  endpoint: HttpApiEndpoint.Top,
  handler: Handler<Req, A, E, R>
): Handler<Req, A, E | Error409, R | Store | CurrentPlatform> => {
  if (!headerNamesOf(endpoint.headers).includes(IDEMPOTENCY_KEY_HEADER)) return handler
  const successes = [...endpoint.success]
  const result = successes[0]
  if (result === undefined || successes.length !== 1) {
    throw new Error(`Idempotent endpoint ${endpoint.identifier} must have exactly one success schema`)
  }
  const operation = operationOf(endpoint)
  // Every schema of this API encodes and decodes plain JSON with no services.
  const codec = result as Schema.Codec<A, unknown>
  return (request) => {
    const key = headerOf(request, IDEMPOTENCY_KEY_HEADER)
    if (key === undefined) return handler(request)
    return Effect.flatMap(Effect.service(CurrentPlatform), (platform) =>
      Effect.flatMap(Effect.serviceOption(CurrentAgent), (agent) => {
        // The body's fields and the path parameters (as the operations bound them before),
        // and on /agents/me endpoints the agent: another agent's request is another request.
        const bound = {
          ...objectOrEmpty(request.payload),
          ...objectOrEmpty(request.params),
          ...(Option.isSome(agent) ? { agentId: agent.value.agentId } : {})
        }
        return aroundPlatformClock(platform, idempotent(platform, { key, operation, request: bound, result: codec }, handler(request)))
      }))
  }
}

/** 429 RATE_LIMITED with `Retry-After` (seconds), as the reference file gives it. */
const retryAfterStep = <Req, A, E, R>(handler: Handler<Req, A, E, R>): Handler<Req, A | HttpServerResponse.HttpServerResponse, E, R> => (request) =>
  Effect.catch(handler(request), (e) => {
    if (!(e instanceof Error429)) return Effect.fail(e)
    const encoded = encodeApiError(e)
    const seconds = e.details?.["retryAfterSeconds"]
    return Effect.succeed(HttpServerResponse.jsonUnsafe(encoded?.body ?? { code: e.code, reason: e.reason }, {
      status: 429,
      headers: { "retry-after": String(typeof seconds === "number" ? seconds : 60) }
    }))
  })

/** A 403 FORBIDDEN with `reason`, as an answer in the error shape. */
const forbiddenAnswer = (reason: string): HttpServerResponse.HttpServerResponse => {
  const error = forbidden(reason)
  return HttpServerResponse.jsonUnsafe(encodeApiError(error)?.body ?? { code: error.code, reason: error.reason }, { status: 403 })
}

/** The reference's 403 FORBIDDEN "insufficient permissions", as an answer. */
const insufficientPermissions = (required: Permission | undefined): HttpServerResponse.HttpServerResponse =>
  forbiddenAnswer(required === undefined
    ? "Insufficient permissions: this endpoint is not open to API tokens"
    : `Insufficient permissions: this endpoint needs an API token with the ${required} permission`)

/**
 * Refuses a request made with an API token whose permissions do not cover the
 * endpoint's; the platforms file's credentials (no `CurrentTokenPermissions`) pass.
 * `applyConcerns` applies it; exported for a handler registered outside `group`.
 */
export const permissionStep = <Req, A, E, R>(
  endpoint: HttpApiEndpoint.Top,
  handler: Handler<Req, A, E, R>
): Handler<Req, A | HttpServerResponse.HttpServerResponse, E, R> => {
  const required = permissionOf(endpoint)
  // The granted permissions read from the fiber's context in one step (every request
  // passes here; `serviceOption` and a `flatMap` are three).
  return (request) =>
    Effect.contextWith((context: Context.Context<never>): Effect.Effect<A | HttpServerResponse.HttpServerResponse, E, R> => {
      const granted = Context.getOption(context, CurrentTokenPermissions)
      return Option.isNone(granted) || (required !== undefined && permits(granted.value, required))
        ? handler(request)
        : Effect.succeed(insufficientPermissions(required))
    })
}

/**
 * Refuses a production platform's request to an endpoint that declares `sandboxOnly`
 * (no step at all for the others). `applyConcerns` applies it, after the permission.
 */
export const sandboxOnlyStep = <Req, A, E, R>(
  endpoint: HttpApiEndpoint.Top,
  handler: Handler<Req, A, E, R>
): Handler<Req, A | HttpServerResponse.HttpServerResponse, E, R | CurrentPlatform> => {
  if (concernsOf(endpoint).sandboxOnly !== true) return handler
  return (request) =>
    Effect.flatMap(Effect.service(CurrentPlatform), (platform): Effect.Effect<A | HttpServerResponse.HttpServerResponse, E, R> =>
      platform.settings.sandbox ? handler(request) : Effect.succeed(forbiddenAnswer("Sandbox endpoints are not available to production platforms")))
}

/** A handler with the concerns its endpoint (or group) declares applied, in a fixed order. */
export const applyConcerns = <Req extends ConcernRequest, A, E, R>(
  endpoint: HttpApiEndpoint.Top,
  handler: Handler<Req, A, E, R>
): Handler<Req, A | HttpServerResponse.HttpServerResponse, E | Error409, R | Store | CurrentPlatform> => {
  const concerns = concernsOf(endpoint)
  const idempotentHandler = idempotencyStep(endpoint, handler)
  return permissionStep(endpoint, sandboxOnlyStep(endpoint, concerns.retryAfter === true ? retryAfterStep(idempotentHandler) : idempotentHandler))
}

/** Whether an endpoint has a concern that needs its decoded request (a permission needs none). */
const hasConcerns = (endpoint: HttpApiEndpoint.Top): boolean =>
  concernsOf(endpoint).retryAfter === true || headerNamesOf(endpoint.headers).includes(IDEMPOTENCY_KEY_HEADER)

/**
 * The handlers a group's `build` registers, with every `handle` given the handler with
 * its endpoint's concerns applied. A raw handler (no decoded request) may not have any.
 */
const withConcerns = <T extends object>(group: GroupLike, handlers: T): T => {
  const proxy: T = new Proxy(handlers, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver)
      if ((property !== "handle" && property !== "handleRaw") || typeof value !== "function") return value
      return (identifier: string, handler: Handler<ConcernRequest, unknown, unknown, unknown>, options?: unknown) => {
        const endpoint = group.endpoints[identifier]
        if (endpoint === undefined) throw new Error(`Group ${group.identifier} has no endpoint ${identifier}`)
        if (property === "handleRaw" && hasConcerns(endpoint)) {
          throw new Error(`Endpoint ${identifier} declares concerns, which need a decoded request: register it with handle`)
        }
        const applied = property === "handle" ? applyConcerns(endpoint, handler) : permissionStep(endpoint, sandboxOnlyStep(endpoint, handler))
        Reflect.apply(value, target, [identifier, applied, options])
        return proxy
      }
    }
  })
  return proxy
}

const registered = new Set<string>()

/** The groups whose handlers were registered through `implement` (or `group`), with their concerns (a test holds every group to it). */
export const groupsWithConcerns: ReadonlySet<string> = registered

/**
 * `HttpApiBuilder.group` for a group of the API, with each endpoint's declared concerns
 * applied to its handler: every group's handlers register through this (or `group`).
 * Built against `apiOf(group)`, which decodes as `PaymentsApi` does, so a handlers module
 * needs its group, not the API (http/routes.ts lists both).
 */
export function implement<const G extends ApiGroup & GroupLike, Return>(
  group: G,
  build: (handlers: HttpApiBuilder.Handlers.FromGroup<G>) => HttpApiBuilder.Handlers.ValidateReturn<Return>
): Layer.Layer<
  HttpApiGroup.Service<typeof API_ID, HttpApiGroup.Identifier<G>>,
  HttpApiBuilder.Handlers.Error<Return>,
  Exclude<HttpApiBuilder.Handlers.Context<Return>, Scope.Scope>
>
// Typed for one group above; built here for any group of the API.
export function implement<Return>(
  group: ApiGroup & GroupLike,
  build: (handlers: HttpApiBuilder.Handlers.FromGroup<ApiGroup & GroupLike>) => HttpApiBuilder.Handlers.ValidateReturn<Return>
) {
  return HttpApiBuilder.group(apiOf(group), group.identifier, (handlers) => {
    registered.add(group.identifier)
    return build(withConcerns(group, handlers))
  })
}

