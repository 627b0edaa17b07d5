/**
 * The reference application over a services Layer (Store, Ids, Platforms) chosen by
 * whoever starts it: the HttpApi routes, and in front of them the direct lane for the
 * hot endpoints, both over one set of services, plus the background scheduler that
 * applies scheduled moves when they fall due. Nothing here knows which store it runs
 * on; `npm start` picks one from the environment (src/server/services.ts), tests and
 * embedders pass their own.
 */
import { Context, Effect, Exit, Layer, References, Scope } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import { schedulerLoop } from "../operations/scheduler.js"
import { webhookLoop } from "../operations/webhooks.js"
import { DEFAULT_WEBHOOK_RETENTION_MILLIS } from "../operations/retention.js"
import type { Ids } from "../ports/ids.js"
import type { Platforms } from "../ports/platforms.js"
import type { Store } from "../ports/store.js"
import { API_VERSION, PaymentsApi } from "./api.js"
import { VerifiedCredentials } from "./credentials.js"
import { type DirectLane, makeDirectLane } from "./direct.js"
import { DIRECT_ROUTES } from "./direct-routes.js"
import { withSandboxFaults } from "./sandbox-faults.js"
import { AppRoutes } from "./server.js"
import { RequestLog } from "../operations/request-log.js"
import { capturingWebHandler, requestCaptureOver } from "./request-capture.js"

/** The ports every request runs with. */
export type PortServices = Store | Ids | Platforms

export interface AppOptions {
  /** The ports: `memoryLayer(platforms)` from `payments-service/memory`, or a SQL store layer. */
  readonly services: Layer.Layer<PortServices, unknown>
  /** Serve the hot endpoints through the direct lane (default true). */
  readonly directLane?: boolean
  /**
   * How often the background scheduler applies due moves, in ms of real time
   * (default 1000); `false` turns it off (moves then happen only when a sandbox clock
   * is advanced).
   */
  readonly schedulerIntervalMillis?: number | false
  /**
   * How long finished webhook deliveries and consumed events are kept, in ms of the
   * platform's clock (default 7 days); `false` keeps them for ever. The background
   * scheduler removes them (docs/webhooks.md#retention); without it nothing is removed.
   */
  readonly webhookRetentionMillis?: number | false
  /** How often the scheduler sweeps, in ms of real time (default 60 000; sooner while there is a backlog). */
  readonly retentionSweepIntervalMillis?: number
}

/**
 * The background scheduler and webhook worker as a layer: forked when the app's services
 * are built, stopped with them. Two fibers, so a slow webhook receiver never delays a
 * scheduled move.
 */
const schedulerLayer = (interval: number | false, options: AppOptions) =>
  interval === false
    ? Layer.empty
    : Layer.effectDiscard(Effect.andThen(
      Effect.forkScoped(schedulerLoop(interval, {
        millis: options.webhookRetentionMillis ?? DEFAULT_WEBHOOK_RETENTION_MILLIS,
        ...(options.retentionSweepIntervalMillis === undefined ? {} : { sweepIntervalMillis: options.retentionSweepIntervalMillis })
      })),
      Effect.forkScoped(webhookLoop(interval))
    ))

/**
 * No tracing: nothing exports spans, and every statement of effect/sql and every request
 * would otherwise build one (with its attributes and clock reads) for nobody.
 */
const untraced = Layer.succeed(References.TracerEnabled, false)

/** The services every request runs with: the ports, verified credentials, and the scheduler running over them. */
export const appServices = (options: AppOptions) =>
  schedulerLayer(options.schedulerIntervalMillis ?? 1000, options).pipe(
    Layer.provideMerge(Layer.mergeAll(options.services, VerifiedCredentials.layer, RequestLog.layer, untraced))
  )

export type AppServices = PortServices | VerifiedCredentials | RequestLog

/** The HttpApi routes over services that are already built (shared with the lane). */
export const routesOver = (context: Context.Context<AppServices>) =>
  AppRoutes.pipe(Layer.provideMerge(Layer.succeedContext(context)))

/** Every route of the HttpApi app, for the lane's routing decisions. */
const API_ENDPOINTS = Object.values(PaymentsApi.groups).flatMap((group) =>
  Object.values(group.endpoints).map((e) => ({ method: e.method, path: e.path }))
)

/** The direct lane over built services. */
export const laneOver = (context: Context.Context<AppServices>): DirectLane =>
  makeDirectLane({ base: `/${API_VERSION}`, endpoints: API_ENDPOINTS, routes: DIRECT_ROUTES, context })

/** Serves a web Request through the lane when it takes it, else through `fallback`. */
export const directWebHandler = (lane: DirectLane, fallback: (request: Request) => Promise<Response>) =>
  async (request: Request): Promise<Response> => {
    const url = new URL(request.url)
    if (!lane.matches(request.method, url.pathname)) return fallback(request)
    // A web Request built from a string has no Content-Length header; read a copy to
    // learn it, so the original stays unread for the fallback.
    const text = request.body === null ? "" : await request.clone().text()
    const accepted = lane.accept(request.method, url.pathname + url.search, (name) =>
      name === "content-length"
        ? request.body === null ? request.headers.get(name) ?? undefined : String(Buffer.byteLength(text))
        : request.headers.get(name) ?? undefined)
    if (accepted === undefined) return fallback(request)
    const reply = await accepted(text)
    const headers = new Headers(reply.headers)
    if (reply.body === "") return new Response(null, { status: reply.status, headers })
    headers.set("content-type", "application/json")
    return new Response(reply.body, { status: reply.status, headers })
  }

/**
 * A `(Request) => Promise<Response>` handler over the app, and its disposer. The
 * services are built in the background (migrations included, for a SQL store); the
 * handler waits for them, and `ready` resolves (or rejects) when they are built.
 */
export const makeWebHandler = (options: AppOptions) => {
  const scope = Scope.makeUnsafe()
  const ready = Effect.runPromise(Layer.buildWithScope(appServices(options), scope)).then((context) => {
    const web = HttpRouter.toWebHandler(routesOver(context).pipe(Layer.provide(HttpServer.layerServices)), { disableLogger: true })
    const pipelines = options.directLane === false ? web.handler : directWebHandler(laneOver(context), (r) => web.handler(r))
    // Outside both pipelines: sandbox request faults (docs/sandbox.md#fault-injection), and
    // around them the request log, which so records every request and every injected fault.
    const handler = capturingWebHandler(requestCaptureOver(context), withSandboxFaults(context, pipelines))
    return { context, handler, web }
  })
  const context = ready.then((built) => built.context)
  // Observed here so a failed build is not an unhandled rejection; callers see it through `ready`.
  ready.catch(() => undefined)
  context.catch(() => undefined)
  return {
    handler: async (request: Request): Promise<Response> => (await ready).handler(request),
    /** The built services, for tests and embedders that look behind the API (the store, the outbox). */
    ready: context,
    dispose: async () => {
      try {
        await (await ready).web.dispose()
      } finally {
        await Effect.runPromise(Scope.close(scope, Exit.void))
      }
    }
  }
}
