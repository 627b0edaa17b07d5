/**
 * The direct lane: the request pipeline (src/http/pipeline.ts) run without the HttpApi
 * router, middleware and per-request context machinery, for the hottest JSON endpoints.
 * For a route it serves it runs the same steps in the same order as the HttpApi app:
 * the route the router would pick, the verified credentials, the endpoint's own request
 * schemas (with the same parse options), the shared JSON-body step, the endpoint's
 * declared concerns and the very handler its group registers, the endpoint's response
 * schema, and the shared fault and retry-advice steps (docs/performance.md has the
 * measurements).
 *
 * It only takes a request it can answer exactly as the HttpApi app would. Everything
 * else goes to the HttpApi app untouched, before any of the body is read:
 * - an Authorization header that has not passed the full check yet (PlatformAuth
 *   checks it, answers any 401, and remembers it in VerifiedCredentials);
 * - a body without a Content-Length, over the size limit, or not declared as JSON;
 * - a path with percent-encoded segments, and every route the lane does not list.
 *
 * `test/http/direct.test.ts` checks that both paths give the same status and body for
 * generated requests.
 */
import { Cause, Context, Effect, Exit, Schema, SchemaAST } from "effect"
import { HttpServerResponse } from "effect/http"
import type { HttpApiEndpoint } from "effect/http-api"
import { type ApiError, encodeApiError, type Error409 } from "../domain/errors.js"
import type { Platform } from "../domain/platform.js"
import { invalidInputFromIssue } from "../domain/validation.js"
import { PAYLOAD_PARSE_OPTIONS } from "./api-base.js"
import { VerifiedCredentials } from "./credentials.js"
import type { Store } from "../ports/store.js"
import { asPlatformWork } from "../operations/time.js"
import { applyConcerns, headerNamesOf } from "./concerns.js"
import { CurrentPlatform, MAX_JSON_BODY_BYTES } from "./middleware.js"
import { faultOf, internalFault, malformedJson, PART_NAMES, readJsonBody, retryHeaders } from "./pipeline.js"
import { makeApiRouter } from "./reference-endpoints.js"
import { BoundedMemo } from "../lib/bounded-memo.js"

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

/** The reply a lane fiber ended with (it cannot fail: a defect is the 500). */
const replyOf = (exit: Exit.Exit<DirectReply>): DirectReply => Exit.isSuccess(exit) ? exit.value : FAULT_REPLY

/** A reply with the retry advice its status calls for (step 8 of the pipeline). */
const reply = (status: number, body: string, headers?: Readonly<Record<string, string>>): DirectReply => {
  const advice = retryHeaders(status, headers?.["retry-after"])
  const all = advice === undefined ? headers : headers === undefined ? advice : { ...headers, ...advice }
  return all === undefined ? { status, body } : { status, body, headers: all }
}

type Method = "GET" | "POST" | "PATCH" | "DELETE"

/** One endpoint served by the lane; `route` builds it with its compiled codecs. */
export interface DirectRoute<R> {
  readonly method: Method
  /** The HttpApi endpoint's full path (version base included), `:name` for a parameter. */
  readonly path: string
  readonly hasPayload: boolean
  /**
   * The payload may be absent (one of its schemas is `null`): as the HttpApi builder
   * does, an empty body decodes as `null`, with or without a JSON content type.
   */
  readonly nullOnEmpty: boolean
  /**
   * Decodes the request and starts it: the reply at once when it fails to decode, else
   * the handler's work (run with `CurrentPlatform` in the fiber's context, no
   * `provideService` step) and how its exit becomes the reply (a plain function on the
   * hot path; an effect only for a defect, which is logged).
   */
  readonly start: (
    params: Readonly<Record<string, string | undefined>>,
    body: string,
    header: HeaderReader
  ) => DirectReply | LaneWork<R>
}

/** A decoded request's handler, to run, and how its exit becomes the reply. */
export interface LaneWork<R> {
  readonly effect: Effect.Effect<unknown, unknown, R | CurrentPlatform>
  readonly settle: (exit: Exit.Exit<unknown, unknown>) => DirectReply | Effect.Effect<DirectReply>
}

const FAULT = internalFault()
const FAULT_REPLY: DirectReply = reply(500, JSON.stringify({ code: FAULT.code, reason: FAULT.reason, message: FAULT.reason }))

const errorReply = (error: ApiError): DirectReply => {
  const wire = encodeApiError(error)
  return wire === undefined ? FAULT_REPLY : reply(wire.status, JSON.stringify(wire.body))
}

const faultReply = (cause: Cause.Cause<unknown>): Effect.Effect<DirectReply> => Effect.map(faultOf(cause), errorReply)

/** What a lane handler is given: the HttpApi handler's request, without the raw request. */
export type LaneRequest<E> = Omit<HttpApiEndpoint.Request<E>, "request" | "endpoint" | "group">

/** A handler shared by the HttpApi group and the lane: the same function serves both paths. */
export type SharedHandler<E, A, Err, R> = (request: LaneRequest<E>) => Effect.Effect<A, Err, R>

const EmptyStruct = Schema.Struct({})

/**
 * An endpoint schema as a codec without services. The HttpApi definition types them
 * as `Schema.Top`; every schema of this API decodes and encodes plain JSON and strings
 * with no services (none is provided to the HttpApi handlers either).
 */
const plainCodec = (schema: Schema.Top): Schema.Codec<unknown, unknown> => schema as Schema.Codec<unknown, unknown>

/**
 * Shortcuts past an endpoint's schemas for the shapes of its hottest requests and
 * answers, each giving exactly what the schema gives for the values it takes and
 * `undefined` for every other value, which the schema handles as before (and so every
 * error stays the schema's).
 */
export interface LaneShortcuts {
  /** The success value's JSON text (`JSON.stringify` of the schema's encoding). */
  readonly writeSuccess?: (a: unknown) => string | undefined
  /** The payload the schema decodes from the parsed JSON body. */
  readonly readPayload?: (json: unknown) => unknown
}

/**
 * A lane route derived from an HttpApi endpoint and the handler its group uses: the
 * method, path, parameter, header, payload and success schemas come from the endpoint
 * definition, the success status from the API's OpenAPI description, and the work
 * from the very handler function the HttpApi group registers. Nothing is restated,
 * and the endpoint's declared concerns (idempotency keys, retry advice) are applied by
 * the same `applyConcerns` as on the HttpApi path.
 */
export const laneRoute = <E extends HttpApiEndpoint.Top, A, Err extends ApiError, R>(
  endpoint: E,
  status: number,
  shared: SharedHandler<E, A, Err, R>,
  fast?: LaneShortcuts
): DirectRoute<Exclude<R | Store, CurrentPlatform>> => {
  // The concerns the endpoint declares, applied as the HttpApi group applies them.
  const handler = applyConcerns(endpoint, shared)
  const method = endpoint.method
  if (method !== "GET" && method !== "POST" && method !== "PATCH" && method !== "DELETE") {
    throw new Error(`The direct lane does not serve ${method} endpoints (${endpoint.identifier})`)
  }
  const json = endpoint.payload.get("application/json")
  const hasPayload = json !== undefined
  if (endpoint.payload.size > (hasPayload ? 1 : 0)) {
    throw new Error(`The direct lane serves JSON payloads only (${endpoint.identifier})`)
  }
  const decodeParams = Schema.decodeUnknownExit(plainCodec(endpoint.params ?? EmptyStruct))
  const decodeHeaders = Schema.decodeUnknownExit(plainCodec(endpoint.headers ?? EmptyStruct))
  const headerNames = headerNamesOf(endpoint.headers)
  // The HttpApi builder decodes a payload with the union of its schemas; the same here,
  // so decoding issues (and their field errors) match.
  const decodePayload = json === undefined
    ? undefined
    : Schema.decodeUnknownExit(plainCodec(Schema.Union(json.schemas)), PAYLOAD_PARSE_OPTIONS)
  // As the HttpApi builder decides it (`buildPayloadDecoders`).
  const nullOnEmpty = json !== undefined && json.schemas.some((s) => SchemaAST.isNull(SchemaAST.toEncoded(s.ast)))
  const success = [...endpoint.success][0]
  if (success === undefined) throw new Error(`Endpoint ${endpoint.identifier} declares no success schema`)
  const encodeSuccess = Schema.encodeUnknownExit(plainCodec(success))
  const succeed = (a: unknown): DirectReply | Effect.Effect<DirectReply> => {
    if (HttpServerResponse.isHttpServerResponse(a)) return responseReply(a)
    const written = fast?.writeSuccess?.(a)
    if (written !== undefined) return reply(status, written)
    const encoded = encodeSuccess(a)
    if (Exit.isSuccess(encoded)) return reply(status, JSON.stringify(encoded.value))
    return faultReply(encoded.cause)
  }
  const settle = (exit: Exit.Exit<unknown, unknown>): DirectReply | Effect.Effect<DirectReply> => {
    if (Exit.isSuccess(exit)) return succeed(exit.value)
    // The handler fails with the endpoint's API errors only (`Err | Error409`).
    const failure = exit.cause.reasons.find(Cause.isFailReason)
    return failure !== undefined ? errorReply(failure.error as ApiError) : faultReply(exit.cause)
  }
  /**
   * The decoded parts of a request that has none: an endpoint without path parameters
   * (the router gives `{}`), a request without any of the endpoint's headers. The same
   * schema on the same empty input decodes to the same value every time: decoded once.
   */
  let noParams: Exit.Exit<unknown, Schema.SchemaError> | undefined
  let noHeaders: Exit.Exit<unknown, Schema.SchemaError> | undefined
  let nullPayload: Exit.Exit<unknown, Schema.SchemaError> | undefined
  const start = (
    rawParams: Readonly<Record<string, string | undefined>>,
    body: string,
    header: HeaderReader
  ): DirectReply | LaneWork<Exclude<R | Store, CurrentPlatform>> => {
    const params = isEmpty(rawParams) ? (noParams ??= decodeParams({})) : decodeParams(rawParams)
    if (Exit.isFailure(params)) return issueReply(params.cause, undefined, PART_NAMES.Params)
    let rawHeaders: Record<string, string> | undefined
    for (const name of headerNames) {
      const value = header(name)
      if (value !== undefined) (rawHeaders ??= {})[name] = value
    }
    const headers = rawHeaders === undefined ? (noHeaders ??= decodeHeaders({})) : decodeHeaders(rawHeaders)
    if (Exit.isFailure(headers)) return issueReply(headers.cause, rawHeaders ?? {}, PART_NAMES.Headers)
    let payload: unknown
    if (decodePayload !== undefined) {
      const json = readJsonBody(body)
      if (json._tag === "Refused") return errorReply(json.error)
      if (json._tag === "Malformed") return errorReply(malformedJson())
      if (body === "" && nullOnEmpty) {
        // An absent body decodes as null, to the same value every time: decoded once.
        const decoded = nullPayload ??= decodePayload(null)
        if (Exit.isFailure(decoded)) return issueReply(decoded.cause, json.value, PART_NAMES.Payload)
        payload = decoded.value
      } else {
        const read = fast?.readPayload?.(json.value)
        if (read !== undefined) payload = read
        else {
          const decoded = decodePayload(json.value)
          if (Exit.isFailure(decoded)) return issueReply(decoded.cause, json.value, PART_NAMES.Payload)
          payload = decoded.value
        }
      }
    }
    // The values were decoded by this endpoint's own schemas: they are the request its
    // handler is typed for (the endpoint's schemas and its type parameters are one).
    const request = { params: params.value, headers: headers.value, payload } as unknown as LaneRequest<E>
    return { effect: needsPlatform(handler(request)), settle }
  }
  return {
    method,
    path: endpoint.path,
    hasPayload,
    nullOnEmpty,
    start
  }
}

/**
 * An effect whose services include `CurrentPlatform`, typed as the services without it
 * plus it: the same set, which TypeScript cannot see for a generic `R`.
 */
const needsPlatform = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, Exclude<R, CurrentPlatform> | CurrentPlatform> =>
  effect as Effect.Effect<A, E, Exclude<R, CurrentPlatform> | CurrentPlatform>

const isEmpty = (o: object): boolean => {
  for (const _ in o) return false
  return true
}

/** A response a concern built (a 429 with `Retry-After`): its status, headers and JSON text. */
const responseReply = (response: HttpServerResponse.HttpServerResponse): DirectReply => {
  const body = response.body
  if (body._tag !== "Uint8Array" && body._tag !== "Empty") return FAULT_REPLY
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(response.headers)) if (name !== "content-type") headers[name] = value
  return reply(response.status, body._tag === "Empty" ? "" : new TextDecoder().decode(body.body), headers)
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

/** A percent sign that does not start an encoded colon (`%3A` / `%3a`). */
const ENCODED_OTHER_THAN_COLON = /%(?!3[aA])/

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
  const laneRoutes = new Map<string, DirectRoute<R>>()
  for (const r of options.routes) laneRoutes.set(keyOf(r.method, r.path), r)
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
  const served = options.endpoints.map((e) => ({ method: e.method, path: e.path, value: laneRoutes.get(keyOf(e.method, e.path)) }))
  // The lane's routes with parameters (`POST /quotes/:quoteId/execute`) are found by the
  // router's shortcut for a path plainly of their shape (`route.plain`: the router is not run).
  const route = makeApiRouter({ base: options.base, served, plainShapes: (value): value is DirectRoute<R> => value !== undefined })

  type Matched = { readonly route: DirectRoute<R>; readonly params: Readonly<Record<string, string | undefined>> }
  /**
   * The lane's routes without parameters, as routed before (`POST /quotes`): the router's
   * choice for a method and path never changes. At most 256 kept (the oldest forgotten first).
   */
  const matchedStatic = new BoundedMemo<string, Matched>(256)

  /** The router's choice for a path, when it is one of the lane's routes. */
  const match = (method: string, path: string): Matched | undefined => {
    const plain = route.plain(method, path)
    if (plain !== undefined) return { route: plain.value, params: plain.params }
    const key = keyOf(method, path)
    const known = matchedStatic.get(key)
    if (known !== undefined) return known
    const matched = routeOf(method, path)
    if (matched !== undefined && isEmpty(matched.params)) {
      matchedStatic.set(key, matched)
    }
    return matched
  }

  const routeOf = (method: string, path: string): Matched | undefined => {
    // Percent-encoded paths are left to the HttpApi app, but for an encoded colon (ids
    // are `Type:uuid`, and clients encode the colon): the router decodes it in a
    // parameter exactly as it does for the HttpApi app.
    if (ENCODED_OTHER_THAN_COLON.test(path)) return undefined
    const routed = route(method, path)
    // Not the lane's, or a HEAD the router answers with the GET route.
    if (routed === undefined || routed._tag !== "Served" || routed.value === undefined || routed.value.method !== method) return undefined
    return { route: routed.value, params: routed.params }
  }

  /** Runs a fiber over the app's services; its exit at once when it finished without waiting, else a promise of it. */
  const runExit = <A, E>(effect: Effect.Effect<A, E, R | VerifiedCredentials | CurrentPlatform>, context: Context.Context<R | VerifiedCredentials | CurrentPlatform>): Exit.Exit<A, E> | Promise<Exit.Exit<A, E>> => {
    const fiber = Effect.runForkWith(context)(effect)
    const done = fiber.pollUnsafe()
    if (done !== undefined) return done
    return new Promise((resolve) => fiber.addObserver(resolve))
  }

  const settled = (result: DirectReply | Effect.Effect<DirectReply>, context: Context.Context<R | VerifiedCredentials | CurrentPlatform>): DirectReply | Promise<DirectReply> => {
    if (!Effect.isEffect(result)) return result
    const exit = runExit(result, context)
    return exit instanceof Promise ? exit.then(replyOf) : replyOf(exit)
  }

  /**
   * The handler's work in one fiber over the app's services with the platform in its
   * context (an overlay of one service, no step in the fiber), its exit turned into the
   * reply in plain code.
   */
  const run = (platform: Platform, work: LaneWork<R>): DirectReply | Promise<DirectReply> => {
    const context = Context.add(options.context, CurrentPlatform, platform)
    const exit = runExit(asPlatformWork(platform, work.effect), context)
    // What the answer's encoding throws (JSON.stringify on a value it cannot write) is a
    // 500, as a defect in the fiber was when the encoding ran inside it.
    const answer = (e: Exit.Exit<unknown, unknown>): DirectReply | Promise<DirectReply> => {
      try {
        return settled(work.settle(e), context)
      } catch {
        return FAULT_REPLY
      }
    }
    return exit instanceof Promise ? exit.then(answer) : answer(exit)
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
      const length = header("content-length")
      const type = header("content-type")
      const bodyless = (length === undefined || length === "0") && header("transfer-encoding") === undefined
      if (matched.route.hasPayload && matched.route.nullOnEmpty && bodyless) {
        // No body where the payload may be absent: `null`, whatever JSON type is declared.
        if (type !== undefined && mediaTypeOf(type) !== "application/json") return undefined
      } else if (matched.route.hasPayload) {
        if (length === undefined || !/^\d+$/.test(length) || Number(length) > MAX_JSON_BODY_BYTES) return undefined
        if (type === undefined || mediaTypeOf(type) !== "application/json") return undefined
      } else if ((length !== undefined && length !== "0") || header("transfer-encoding") !== undefined) {
        return undefined
      }
      return (body) => {
        const started = matched.route.start(matched.params, body, header)
        return "effect" in started ? run(platform, started) : started
      }
    }
  }
}
