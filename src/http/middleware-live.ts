/** The server-side implementations of PlatformAuth and RequestGuard. */
import { createHash, timingSafeEqual } from "node:crypto"
import type { unhandled } from "effect/Types"
import { ByteSize, Cause, Effect, Layer, Option } from "effect"
import { HttpIncomingMessage, type HttpServerResponse, HttpServerRequest } from "effect/http"
import type { HttpApiEndpoint } from "effect/http-api"
import { HttpApiSchemaError } from "effect/http-api/HttpApiError"
import { type Error400, type Error500, type Error503, invalidInput, unauthorized } from "../domain/errors.js"
import { invalidInputFromIssue } from "../domain/validation.js"
import { Platforms } from "../ports/platforms.js"
import { VerifiedCredentials } from "./credentials.js"
import { authenticateAgent } from "../operations/agents.js"
import { Store } from "../ports/store.js"
import { faultOf, malformedJson, PART_NAMES, readJsonBody } from "./pipeline.js"
import type { Platform } from "../domain/platform.js"
import type { Permission } from "../domain/token.js"
import { checkTokenCredentials } from "../operations/tokens.js"
import { asPlatformWork } from "../operations/time.js"
import { AgentAuth, CurrentAgent, CurrentPlatform, CurrentTokenPermissions, MAX_JSON_BODY_BYTES, MAX_MULTIPART_BODY_BYTES, PlatformAuth, RequestGuard } from "./middleware.js"

const digest = (s: string) => createHash("sha256").update(s, "utf8").digest()

/** Equal strings in time that does not depend on where they differ. */
export const constantTimeEqual = (a: string, b: string): boolean => timingSafeEqual(digest(a), digest(b))

type BasicCredentials = { readonly clientId: string; readonly secret: string }

/** Parses `Authorization: Basic base64(id:secret)`, or says what is wrong with it. */
export const parseBasicAuthorization = (header: string | undefined): BasicCredentials | string => {
  if (header === undefined || header.trim() === "") {
    return "Authorization header is missing: send HTTP Basic credentials (client id as username, client secret as password)"
  }
  if (/^Bearer\s/i.test(header)) {
    return "Agent access tokens (Bearer) work only on /agents/me endpoints: this endpoint takes the platform's HTTP Basic credentials"
  }
  const m = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header)
  if (m === null) return "Authorization header is malformed: expected 'Basic <base64 of clientId:clientSecret>'"
  const decoded = Buffer.from(m[1]!, "base64").toString("utf8")
  const colon = decoded.indexOf(":")
  if (colon <= 0) return "Authorization header is malformed: the Basic credentials must be 'clientId:clientSecret'"
  return { clientId: decoded.slice(0, colon), secret: decoded.slice(colon + 1) }
}

/** Notes, for the request log, which platform a request was authenticated for (keyed by its source object). */
const attributeWith = (verified: { readonly attribute: (source: object, platform: Platform) => void }, request: HttpServerRequest.HttpServerRequest, platform: Platform): void => {
  const source: unknown = request.source
  if (typeof source === "object" && source !== null) verified.attribute(source, platform)
}

/** Who a valid Basic header authenticated: a platform, and the permissions when it was an API token's. */
type Authenticated = { readonly platform: Platform; readonly permissions?: ReadonlyArray<Permission> }

export const PlatformAuthLive = Layer.effect(
  PlatformAuth,
  Effect.gen(function*() {
    const platforms = yield* Platforms
    const store = yield* Store
    // A header that already passed the full check maps straight to its platform. Only the
    // platforms file's credentials are remembered: an API token is checked against the
    // store on every request, so its revocation holds at once in every process.
    const verified = yield* VerifiedCredentials
    const attribute = (request: HttpServerRequest.HttpServerRequest, platform: Platform) => attributeWith(verified, request, platform)
    const check = (header: string | undefined) =>
      Effect.gen(function*() {
        const creds = parseBasicAuthorization(header)
        if (typeof creds === "string") return yield* unauthorized(creds)
        const platform = yield* platforms.byClientId(creds.clientId)
        if (platform === undefined) {
          const token = yield* checkTokenCredentials(creds.clientId, creds.secret).pipe(
            Effect.provideService(Store, store),
            Effect.provideService(Platforms, platforms)
          )
          if (token._tag === "Unknown") return yield* unauthorized("Unknown client id: no platform or API token has these credentials")
          if (token._tag === "WrongSecret") return yield* unauthorized("Client secret is wrong for this client id")
          return { platform: token.platform, permissions: token.permissions } satisfies Authenticated
        }
        if (!constantTimeEqual(creds.secret, platform.clientSecret)) {
          return yield* unauthorized("Client secret is wrong for this client id")
        }
        if (header !== undefined) verified.remember(header, platform)
        return { platform } satisfies Authenticated
      })
    return PlatformAuth.of({
      basic: (httpEffect) =>
        Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
          const header = request.headers["authorization"]
          const known = header === undefined ? undefined : verified.get(header)
          return Effect.flatMap(known === undefined ? check(header) : Effect.succeed<Authenticated>({ platform: known }), (who) => {
            attribute(request, who.platform)
            const withPlatform = Effect.provideService(asPlatformWork(who.platform, httpEffect), CurrentPlatform, who.platform)
            return who.permissions === undefined
              ? withPlatform
              : Effect.provideService(withPlatform, CurrentTokenPermissions, who.permissions)
          })
        })
    })
  })
)

/** The agent scheme: the bearer token of a redeemed device code (operations/agents.ts checks it). */
export const AgentAuthLive = Layer.effect(
  AgentAuth,
  Effect.gen(function*() {
    const platforms = yield* Platforms
    const store = yield* Store
    const verified = yield* VerifiedCredentials
    return AgentAuth.of({
      agentBearer: (httpEffect) =>
        Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
          authenticateAgent(request.headers["authorization"]).pipe(
            Effect.provideService(Platforms, platforms),
            Effect.provideService(Store, store),
            Effect.flatMap(({ platform, agentId }) => {
              attributeWith(verified, request, platform)
              return asPlatformWork(platform, httpEffect).pipe(Effect.provideService(CurrentPlatform, platform), Effect.provideService(CurrentAgent, { agentId }))
            })
          ))
    })
  })
)

const JSON_TYPES = /^application\/(.+\+)?json\s*(;.*)?$/i


const tooLarge = (limit: number = MAX_JSON_BODY_BYTES): Error400 =>
  invalidInput(`Request body is larger than the ${limit} byte limit`, [{
    field: "(body)",
    constraint: "maxBytes",
    message: `must be at most ${limit} bytes`
  }])

const isJsonSyntaxIssue = (e: HttpApiSchemaError): boolean => {
  const issue = e.cause.issue
  return issue._tag === "InvalidValue" && issue.annotations?.message === "Expected a valid JSON body"
}


const schemaErrorToInput = (e: HttpApiSchemaError, request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    if (e.kind === "Payload" && isJsonSyntaxIssue(e)) return yield* malformedJson()
    const input = e.kind === "Payload"
      ? yield* request.text.pipe(
        Effect.map((t): unknown => {
          try {
            return JSON.parse(t)
          } catch {
            return undefined
          }
        }),
        Effect.orElseSucceed((): unknown => undefined)
      )
      : undefined
    const what = e.kind === "Payload" || e.kind === "Query" || e.kind === "Params" || e.kind === "Headers" ? PART_NAMES[e.kind] : "request"
    return yield* invalidInputFromIssue(e.cause.issue, input, what)
  })

const unsupportedContentType = (type: string, expected = "application/json") =>
  invalidInput(`Content-Type ${type} is not supported: send ${expected}`, [{
    field: "(headers).content-type",
    constraint: "contentType",
    message: `must be ${expected}`
  }])

/** A body read that stopped at the size limit (it surfaces as a defect of the body reader). */
const isBodyTooLarge = (defect: unknown): boolean => {
  const reason = typeof defect === "object" && defect !== null ? (defect as { readonly reason?: unknown }).reason : undefined
  return typeof reason === "object" && reason !== null && (reason as { readonly reason?: unknown }).reason === "BodyTooLarge"
}

const MAX_BODY = ByteSize.bytes(MAX_JSON_BODY_BYTES)
const MAX_MULTIPART_BODY = ByteSize.bytes(MAX_MULTIPART_BODY_BYTES)
const MULTIPART_TYPE = /^multipart\/form-data\s*;.*boundary=/i

/** Whether the endpoint takes a multipart/form-data payload (document uploads). */
const takesMultipart = (endpoint: HttpApiEndpoint.Top): boolean => {
  for (const entry of endpoint.payload.values()) if (entry.encoding._tag === "Multipart") return true
  return false
}





export const RequestGuardLive = Layer.effect(
  RequestGuard,
  Effect.gen(function*() {
    return RequestGuard.of((httpEffect, { endpoint }) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const multipart = takesMultipart(endpoint)
        const limit = multipart ? MAX_MULTIPART_BODY_BYTES : MAX_JSON_BODY_BYTES
        if (endpoint.payload.size > 0 && request.method !== "GET") {
          const length = Number(request.headers["content-length"] ?? "0")
          if (length > limit) return yield* tooLarge(limit)
          const type = request.headers["content-type"]
          if (multipart) {
            if (type === undefined || !MULTIPART_TYPE.test(type)) {
              return yield* unsupportedContentType(type ?? "(none)", "multipart/form-data with a boundary")
            }
          } else if (type !== undefined && !JSON_TYPES.test(type)) {
            return yield* unsupportedContentType(type)
          }
        }
        if (endpoint.payload.size > 0 && !multipart && request.method !== "GET") {
          // A JSON body is read here first, under the same size limit (the request keeps it,
          // and the endpoint's decoder reads it again), to refuse a NUL character in it.
          const text = yield* request.text.pipe(
            Effect.orElseSucceed(() => ""),
            Effect.provideService(HttpIncomingMessage.MaxBodySize, MAX_BODY),
            Effect.catchDefect((defect): Effect.Effect<string, Error400 | Error500 | Error503> =>
              isBodyTooLarge(defect) ? Effect.fail(tooLarge(limit)) : Effect.flatMap(faultOf(Cause.die(defect)), Effect.fail)
            )
          )
          // Malformed JSON is the endpoint decoder's to refuse, after the path, header and query checks.
          const body = readJsonBody(text)
          if (body._tag === "Refused") return yield* body.error
        }
        let eff = Effect.provideService(httpEffect, HttpIncomingMessage.MaxBodySize, multipart ? MAX_MULTIPART_BODY : MAX_BODY)
        const response: HttpServerResponse.HttpServerResponse = yield* eff.pipe(
          Effect.catch((e: unhandled): Effect.Effect<never, Error400 | unhandled> =>
            HttpApiSchemaError.is(e) ? schemaErrorToInput(e, request) : Effect.fail(e)
          ),
          Effect.catchDefect((defect): Effect.Effect<never, Error400 | Error500 | Error503> =>
            isBodyTooLarge(defect) ? Effect.fail(tooLarge(limit)) : Effect.flatMap(faultOf(Cause.die(defect)), Effect.fail)
          )
        )
        if (response.status === 415) return yield* unsupportedContentType(request.headers["content-type"] ?? "(none)")
        if (response.status === 413) return yield* tooLarge(limit)
        return response
      })
    )
  })
)
