/**
 * Request faults at the outermost Request→Response boundary (docs/sandbox.md#fault-injection):
 * before either request pipeline (the direct lane or the HttpApi app) sees a request,
 * the calling sandbox platform's rules decide whether it is answered with an injected
 * error (nothing applied), delayed, or applied and its answer lost (the connection
 * closed after the commit). Every injected fault carries `x-sandbox-fault: <rule id>`.
 *
 * Only requests under the version base with valid HTTP Basic credentials of a sandbox
 * platform that has rules are looked at; `/sandbox/faults` itself is never faulted (so
 * a catch-all rule can always be removed).
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import { Context, Effect, Exit } from "effect"
import type { Platform } from "../domain/platform.js"
import { type FaultStatus, MAX_FAULT_LATENCY_MILLIS } from "../domain/sandbox-faults.js"
import { type RequestFault, requestFaultFor } from "../operations/sandbox-faults.js"
import { authenticateAgent } from "../operations/agents.js"
import { checkTokenCredentials } from "../operations/tokens.js"
import { Platforms } from "../ports/platforms.js"
import { Store } from "../ports/store.js"
import { SandboxFaultStore } from "../ports/sandbox-faults.js"
import { API_VERSION, PaymentsApi } from "./api.js"
import { VerifiedCredentials } from "./credentials.js"
import { retryAdvice, SHOULD_RETRY_HEADER } from "./middleware.js"
import { constantTimeEqual, parseBasicAuthorization } from "./middleware-live.js"
import { makeApiRouter } from "./reference-endpoints.js"

/** The header every injected fault's answer carries: the id of the rule that fired. */
export const SANDBOX_FAULT_HEADER = "x-sandbox-fault"

const BASE = `/${API_VERSION}`
const CONTROL_PATH = `${BASE}/sandbox/faults`

/** Every route with its OpenAPI operationId (`group.endpoint`), as /openapi.json names it. */
const OPERATIONS = Object.values(PaymentsApi.groups).flatMap((group) =>
  Object.values(group.endpoints).map((e) => ({
    method: e.method,
    path: e.path,
    value: group.topLevel ? e.identifier : `${group.identifier}.${e.identifier}`
  }))
)

const ERROR_CODES: Readonly<Record<FaultStatus, readonly [string, string]>> = {
  429: ["RATE_LIMITED", "Too many requests"],
  500: ["INTERNAL_ERROR", "An internal error occurred"],
  502: ["BAD_GATEWAY", "An upstream service answered badly"],
  503: ["SERVICE_UNAVAILABLE", "The service is unavailable"],
  504: ["GATEWAY_TIMEOUT", "An upstream service did not answer in time"]
}

/** The status, headers and body of an injected error. */
export const faultErrorReply = (fault: RequestFault & { readonly action: { readonly type: "ERROR" } }) => {
  const status = fault.action.status
  const [code, what] = ERROR_CODES[status]
  const headers: Record<string, string> = { "content-type": "application/json", [SANDBOX_FAULT_HEADER]: fault.ruleId }
  if (status === 429 || status === 503) headers["retry-after"] = String(fault.action.retryAfterSeconds ?? 1)
  const advice = retryAdvice(status, headers["retry-after"] !== undefined)
  if (advice !== undefined) headers[SHOULD_RETRY_HEADER] = advice
  const body = JSON.stringify({
    code,
    reason: `${what} (injected by sandbox fault rule ${fault.ruleId}; the request was not applied)`,
    details: { sandboxFault: fault.ruleId }
  })
  return { status, headers, body }
}

/** Thrown (web) when a LOSE_ANSWER fault drops the answer of an applied request. */
export class SandboxAnswerLost extends Error {
  constructor(readonly ruleId: string) {
    super(`The answer was lost on purpose by sandbox fault rule ${ruleId}; the request was applied`)
  }
}

/** A decision: known at once (a store that answers synchronously, or a request that cannot have a fault), or later. */
export type FaultDecision = RequestFault | undefined | Promise<RequestFault | undefined>

export interface FaultBoundary {
  /** The fault for a request, if one fires. */
  readonly decide: (method: string, url: string, authorization: string | undefined) => FaultDecision
}

const sleep = (millis: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.min(millis, MAX_FAULT_LATENCY_MILLIS)))

export const makeFaultBoundary = (context: Context.Context<Platforms | VerifiedCredentials | Store>): FaultBoundary => {
  const platforms = Context.get(context, Platforms)
  const credentials = Context.get(context, VerifiedCredentials)
  const runFork = Effect.runForkWith(context)
  /** Runs a decision; synchronously when nothing in it waits (the memory store), as the direct lane runs its routes. */
  const run = (effect: Effect.Effect<RequestFault | undefined>): FaultDecision => {
    const fiber = runFork(effect)
    const settle = (exit: Exit.Exit<RequestFault | undefined>) => Exit.isSuccess(exit) ? exit.value : undefined
    const done = fiber.pollUnsafe()
    if (done !== undefined) return settle(done)
    return new Promise((resolve) => fiber.addObserver((exit) => resolve(settle(exit))))
  }
  const route = makeApiRouter({ base: BASE, served: OPERATIONS })

  const store = Context.get(context, Store)
  // The rule store the decisions below run with (the context's, else the process default).
  const faultStore = Context.get(context, SandboxFaultStore)
  const withPorts = <A, E>(effect: Effect.Effect<A, E, Store | Platforms>) =>
    effect.pipe(Effect.provideService(Store, store), Effect.provideService(Platforms, platforms))

  // Checked as PlatformAuth and AgentAuth check (nothing remembered: PlatformAuth does
  // that when it passes): the platforms file's credentials, an API token's, an agent's
  // bearer token. A header that fails every check has no platform, so no fault.
  const platformOf = (header: string): Effect.Effect<Platform | undefined> => {
    const known = credentials.get(header)
    if (known !== undefined) return Effect.succeed(known)
    if (/^Bearer\s/i.test(header)) {
      return withPorts(authenticateAgent(header)).pipe(
        Effect.map(({ platform }): Platform | undefined => platform),
        Effect.orElseSucceed(() => undefined)
      )
    }
    const creds = parseBasicAuthorization(header)
    if (typeof creds === "string") return Effect.succeed(undefined)
    return Effect.flatMap(platforms.byClientId(creds.clientId), (p) =>
      p !== undefined
        ? Effect.succeed(constantTimeEqual(creds.secret, p.clientSecret) ? p : undefined)
        : Effect.map(withPorts(checkTokenCredentials(creds.clientId, creds.secret)), (token) => token._tag === "Valid" ? token.platform : undefined))
  }

  return {
    decide: (method, url, authorization) => {
      if (authorization === undefined || !url.startsWith(`${BASE}/`)) return undefined
      const q = url.indexOf("?")
      const path = q === -1 ? url : url.slice(0, q)
      if (path === CONTROL_PATH || path.startsWith(`${CONTROL_PATH}/`)) return undefined
      // A production platform's verified credentials: nothing to look up; a sandbox
      // platform's, when its store knows at once that it has no request rules, likewise.
      const known = credentials.get(authorization)
      if (known?.settings.sandbox === false) return undefined
      if (known !== undefined && faultStore.withoutRequestRules?.(known.id) === true) return undefined
      return run(
        Effect.flatMap(platformOf(authorization), (platform) => {
          if (platform === undefined || !platform.settings.sandbox) return Effect.succeed(undefined)
          // The operation the path reaches is routed only for a platform that has request rules.
          return requestFaultFor(platform, () => {
            const routed = route(method, path)
            return { method, path: path.slice(BASE.length), operationId: routed?._tag === "Served" ? routed.value : undefined }
          })
        }).pipe(
          // A fault decision never breaks a request: without one, the request goes through.
          Effect.catchCause((cause) => Effect.as(Effect.logWarning("Sandbox fault decision failed", cause), undefined))
        )
      )
    }
  }
}

const markedWith = (response: Response, ruleId: string): Response => {
  const headers = new Headers(response.headers)
  headers.set(SANDBOX_FAULT_HEADER, ruleId)
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers })
}

/** A web handler with the platform's request faults in front of it. */
export const withSandboxFaults = (
  context: Context.Context<Platforms | VerifiedCredentials | Store>,
  handler: (request: Request) => Promise<Response>
) => {
  const boundary = makeFaultBoundary(context)
  return async (request: Request): Promise<Response> => {
    const url = new URL(request.url)
    const decided = boundary.decide(request.method, url.pathname + url.search, request.headers.get("authorization") ?? undefined)
    const fault = decided instanceof Promise ? await decided : decided
    if (fault === undefined) return handler(request)
    switch (fault.action.type) {
      case "ERROR": {
        const reply = faultErrorReply({ ruleId: fault.ruleId, action: fault.action })
        return new Response(reply.body, { status: reply.status, headers: reply.headers })
      }
      case "LATENCY": {
        await sleep(fault.action.millis)
        return markedWith(await handler(request), fault.ruleId)
      }
      case "LOSE_ANSWER": {
        // The request is applied and its answer read to the end, then dropped: the caller
        // gets no Response, as a client whose connection closed gets none.
        await (await handler(request)).arrayBuffer()
        throw new SandboxAnswerLost(fault.ruleId)
      }
    }
  }
}

/**
 * A node:http listener with the platform's request faults in front of it. A lost answer
 * closes the connection when the answer's head is about to be written: the request has
 * been applied and committed by then.
 */
export const withSandboxFaultsNode = (
  context: Context.Context<Platforms | VerifiedCredentials | Store>,
  listener: (req: IncomingMessage, res: ServerResponse) => void
) => {
  const boundary = makeFaultBoundary(context)
  const apply = (fault: RequestFault | undefined, req: IncomingMessage, res: ServerResponse): void => {
    if (fault === undefined) return listener(req, res)
    switch (fault.action.type) {
      case "ERROR": {
        const reply = faultErrorReply({ ruleId: fault.ruleId, action: fault.action })
        // The body is not needed: drain it so the connection stays usable.
        req.resume()
        res.writeHead(reply.status, { ...reply.headers, "content-length": Buffer.byteLength(reply.body) }).end(reply.body)
        return
      }
      case "LATENCY": {
        res.setHeader(SANDBOX_FAULT_HEADER, fault.ruleId)
        void sleep(fault.action.millis).then(() => listener(req, res))
        return
      }
      case "LOSE_ANSWER": {
        const lose = () => {
          res.destroy()
          return res
        }
        // Whatever writes the answer finds the connection gone; nothing of it is sent.
        res.writeHead = lose as typeof res.writeHead
        res.write = (() => false) as typeof res.write
        res.end = lose as typeof res.end
        return listener(req, res)
      }
    }
  }
  return (req: IncomingMessage, res: ServerResponse): void => {
    const authorization = req.headers.authorization
    const decided = boundary.decide(req.method ?? "", req.url ?? "", authorization)
    if (decided === undefined) return listener(req, res)
    // The body stays buffered in the request (nothing reads it) until the listener runs.
    if (decided instanceof Promise) void decided.then((fault) => apply(fault, req, res))
    else apply(decided, req, res)
  }
}
