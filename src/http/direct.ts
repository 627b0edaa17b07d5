/**
 * The direct lane: a dispatcher in front of the HttpApi app for the hottest JSON
 * endpoints. For a route it serves, it runs the same request schema (with the same
 * parse options), the same operation, the same response schema and the same error
 * model as the HttpApi endpoint, without the router, middleware and per-request
 * context machinery around them (docs/performance.md has the measurements).
 *
 * It only takes a request it can answer exactly as the HttpApi app would. Everything
 * else goes to the HttpApi app untouched, before any of the body is read:
 * - an Authorization header that has not passed the full check yet (PlatformAuth
 *   checks it, answers any 401, and remembers it in VerifiedCredentials);
 * - a body without a Content-Length, over the size limit, or not declared as JSON;
 * - a path with percent-encoded segments, and every route the lane does not list;
 * - a request with an `Idempotency-Key` (the HttpApi handler passes it to the operation).
 *
 * `test/http/direct.test.ts` checks that both paths give the same status and body for
 * generated requests.
 */
import { Cause, Context, Effect, Exit, Schema } from "effect"
import { type ApiError, encodeApiError } from "../domain/errors.js"
import type { Platform } from "../domain/platform.js"
import { invalidInputFromIssue } from "../domain/validation.js"
import { PAYLOAD_PARSE_OPTIONS } from "./api.js"
import { VerifiedCredentials } from "./credentials.js"
import { isNotRetryable, MAX_JSON_BODY_BYTES, NOT_RETRYABLE_HEADERS } from "./middleware.js"
import { internalFault, malformedJson } from "./middleware-live.js"
import { makeApiRouter } from "./reference-endpoints.js"

export interface DirectReply {
  readonly status: number
  /** JSON text. */
  readonly body: string
  /**
   * Headers to write besides content-type and content-length: `x-should-retry: false`
   * on an answer a client should not retry (4xx, 501), as the HttpApi app sets it.
   */
  readonly headers?: Readonly<Record<string, string>>
}

/** A reply with the headers its status calls for. */
const reply = (status: number, body: string): DirectReply =>
  isNotRetryable(status) ? { status, body, headers: NOT_RETRYABLE_HEADERS } : { status, body }

type Method = "GET" | "POST" | "PATCH" | "DELETE"

/** One endpoint served by the lane; `route` builds it with its compiled codecs. */
export interface DirectRoute<R> {
  readonly method: Method
  /** Path under the version base, `:name` for a parameter: the HttpApi endpoint's path. */
  readonly path: string
  readonly hasPayload: boolean
  readonly handle: (
    platform: Platform,
    params: Readonly<Record<string, string | undefined>>,
    body: string
  ) => Effect.Effect<DirectReply, never, R>
}

const FAULT = internalFault()
const FAULT_REPLY: DirectReply = reply(500, JSON.stringify({ code: FAULT.code, reason: FAULT.reason }))

const errorReply = (error: ApiError): DirectReply => {
  const wire = encodeApiError(error)
  return wire === undefined ? FAULT_REPLY : reply(wire.status, JSON.stringify(wire.body))
}

const faultReply = (cause: Cause.Cause<unknown>): Effect.Effect<DirectReply> =>
  Effect.logError("Unexpected defect while handling a request", cause).pipe(
    Effect.as(FAULT_REPLY)
  )

/** `params` of a route without path parameters. */
export const NoParams = Schema.Struct({})

/** `payload` of a route without a request body. */
export const NoPayload = Schema.Undefined

/**
 * Defines a lane route. `params` and `payload` are the HttpApi endpoint's schemas,
 * `status` its success status, `success` its success schema; `run` is the operation
 * the endpoint's handler calls.
 */
export const route = <P, B, A, R>(spec: {
  readonly method: Method
  readonly path: string
  readonly status: number
  /** The path parameters' schema, or `NoParams`. */
  readonly params: Schema.ConstraintDecoder<P>
  /** The JSON body's schema, or `NoPayload`. */
  readonly payload: Schema.ConstraintDecoder<B>
  readonly success: Schema.ConstraintEncoder<unknown> & Schema.ConstraintDecoder<A>
  readonly run: (platform: Platform, input: { readonly params: P; readonly payload: B }) => Effect.Effect<A, ApiError, R>
}): DirectRoute<R> => {
  const decodeParams = Schema.decodeUnknownExit(spec.params)
  const hasPayload = !Object.is(spec.payload, NoPayload)
  // The HttpApi builder decodes a payload with the union of its schemas; one schema
  // here, wrapped the same way so decoding issues (and their field errors) match.
  const decodePayload = Schema.decodeUnknownExit(Schema.Union([spec.payload]), PAYLOAD_PARSE_OPTIONS)
  const encodeSuccess = Schema.encodeUnknownExit(spec.success)
  const succeed = (a: A): Effect.Effect<DirectReply> => {
    const encoded = encodeSuccess(a)
    if (Exit.isSuccess(encoded)) return Effect.succeed(reply(spec.status, JSON.stringify(encoded.value)))
    return faultReply(encoded.cause)
  }
  const fail = (cause: Cause.Cause<ApiError>): Effect.Effect<DirectReply> => {
    const failure = cause.reasons.find(Cause.isFailReason)
    return failure !== undefined ? Effect.succeed(errorReply(failure.error)) : faultReply(cause)
  }
  return {
    method: spec.method,
    path: spec.path,
    hasPayload,
    handle: (platform, rawParams, body) => {
      const params = decodeParams(rawParams)
      if (Exit.isFailure(params)) return Effect.succeed(issueReply(params.cause, undefined, "path parameters"))
      let input: unknown
      if (hasPayload && body !== "") {
        try {
          input = JSON.parse(body)
        } catch {
          return Effect.succeed(errorReply(malformedJson()))
        }
      }
      const payload = decodePayload(input)
      if (Exit.isFailure(payload)) return Effect.succeed(issueReply(payload.cause, input, "request body"))
      return Effect.matchCauseEffect(spec.run(platform, { params: params.value, payload: payload.value }), {
        onSuccess: succeed,
        onFailure: fail
      })
    }
  }
}

/** The 400 for a decoding failure: the same field errors the HttpApi guard reports. */
const issueReply = (cause: Cause.Cause<Schema.SchemaError>, input: unknown, what: string): DirectReply => {
  const failure = cause.reasons.find(Cause.isFailReason)
  return failure === undefined ? FAULT_REPLY : errorReply(invalidInputFromIssue(failure.error.issue, input, what))
}

/** A request the lane accepted: hand it the body text, get the reply. */
export type DirectContinuation = (body: string) => DirectReply | Promise<DirectReply>

/** Reads a request header (lower-case name). */
export type HeaderReader = (name: string) => string | undefined

export interface DirectLane {
  /** Whether the lane has a route for this method and path (it may still decline). */
  readonly matches: (method: string, url: string) => boolean
  /**
   * Decides before the body is read: a continuation when the lane serves this request,
   * undefined when it belongs to the HttpApi app.
   */
  readonly accept: (method: string, url: string, header: HeaderReader) => DirectContinuation | undefined
}

/** The media type as the HttpApi builder picks a payload decoder by it: lower case, no parameters. */
const mediaTypeOf = (contentType: string): string => {
  const t = contentType.toLowerCase().trim()
  const semi = t.indexOf(";")
  return semi === -1 ? t : t.slice(0, semi).trim()
}

const keyOf = (method: string, path: string) => `${method} ${path}`

/**
 * The lane over `routes`, running operations with `context` (the same services the
 * HttpApi app uses, with the clock its handlers see). `endpoints` lists every route
 * of the HttpApi app (method and full path): a request goes to the lane only when the
 * route the HttpApi router would pick for it, among those and every reference endpoint
 * (static segments before parameters; `makeApiRouter`), is one of the lane's.
 */
export const makeDirectLane = <R>(options: {
  /** The version base path, e.g. `/2025-10-13`. */
  readonly base: string
  readonly endpoints: ReadonlyArray<{ readonly method: string; readonly path: string }>
  readonly routes: ReadonlyArray<DirectRoute<R>>
  readonly context: Context.Context<R | VerifiedCredentials>
}): DirectLane => {
  const credentials = Context.get(options.context, VerifiedCredentials)
  const runFork = Effect.runForkWith(options.context)
  const laneRoutes = new Map<string, DirectRoute<R>>()
  for (const r of options.routes) laneRoutes.set(keyOf(r.method, options.base + r.path), r)
  for (const key of laneRoutes.keys()) {
    if (!options.endpoints.some((e) => keyOf(e.method, e.path) === key)) {
      throw new Error(`Direct lane route ${key} is not an endpoint of the API`)
    }
  }

  /**
   * The route the HttpApi router picks, with every reference endpoint in the running:
   * a request the router would give to an endpoint not built yet (a static segment
   * where a lane route has a parameter) is not the lane's.
   */
  const route = makeApiRouter({
    base: options.base,
    served: options.endpoints.map((e) => ({ method: e.method, path: e.path, value: laneRoutes.get(keyOf(e.method, e.path)) }))
  })

  /** The router's choice for a path, when it is one of the lane's routes. */
  const match = (method: string, path: string): { route: DirectRoute<R>; params: Readonly<Record<string, string | undefined>> } | undefined => {
    // Percent-encoded paths are left to the router's decoding.
    if (path.includes("%")) return undefined
    const routed = route(method, path)
    // Not the lane's, or a HEAD the router answers with the GET route.
    if (routed === undefined || routed._tag !== "Served" || routed.value === undefined || routed.value.method !== method) return undefined
    return { route: routed.value, params: routed.params }
  }

  const run = (effect: Effect.Effect<DirectReply, never, R>): DirectReply | Promise<DirectReply> => {
    const fiber = runFork(effect)
    const done = fiber.pollUnsafe()
    const settle = (exit: Exit.Exit<DirectReply>): DirectReply =>
      Exit.isSuccess(exit) ? exit.value : FAULT_REPLY
    if (done !== undefined) return settle(done)
    return new Promise((resolve) => fiber.addObserver((exit) => resolve(settle(exit))))
  }

  const pathOf = (url: string) => {
    const q = url.indexOf("?")
    return q === -1 ? url : url.slice(0, q)
  }

  return {
    matches: (method, url) => match(method, pathOf(url)) !== undefined,
    accept: (method, url, header) => {
      const matched = match(method, pathOf(url))
      if (matched === undefined) return undefined
      const authorization = header("authorization")
      const platform = authorization === undefined ? undefined : credentials.get(authorization)
      if (platform === undefined) return undefined
      // Idempotent requests go through the HttpApi handlers, which pass the key to the operation.
      if (header("idempotency-key") !== undefined) return undefined
      const length = header("content-length")
      const type = header("content-type")
      if (matched.route.hasPayload) {
        if (length === undefined || !/^\d+$/.test(length) || Number(length) > MAX_JSON_BODY_BYTES) return undefined
        if (type === undefined || mediaTypeOf(type) !== "application/json") return undefined
      } else if ((length !== undefined && length !== "0") || header("transfer-encoding") !== undefined) {
        return undefined
      }
      return (body) => run(matched.route.handle(platform, matched.params, body))
    }
  }
}
