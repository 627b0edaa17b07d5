/**
 * The reference application, wired to the in-memory adapters: the HttpApi routes, and
 * in front of them the direct lane for the hot endpoints, both over one set of
 * services. `npm start` serves it over node:http (src/http/node.ts); tests call the
 * fetch-style handler in-process.
 */
import { Clock, Context, Effect, Exit, Layer, Scope } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import { memoryLayer } from "../adapters/memory/index.js"
import type { Platform } from "../domain/platform.js"
import { API_VERSION, PaymentsApi } from "./api.js"
import { VerifiedCredentials } from "./credentials.js"
import { type DirectLane, makeDirectLane } from "./direct.js"
import { DIRECT_ROUTES } from "./direct-routes.js"
import { AppRoutes } from "./server.js"
import { VirtualClock } from "./virtual-clock.js"

export interface AppOptions {
  readonly platforms: ReadonlyArray<Platform>
  /** Seed for deterministic ids. */
  readonly seed?: number
  /** Serve the hot endpoints through the direct lane (default true). */
  readonly directLane?: boolean
}

/** The services every request runs with: in-memory ports, the virtual clock, verified credentials. */
export const memoryServices = (options: AppOptions) =>
  Layer.mergeAll(
    memoryLayer(options.platforms, options.seed === undefined ? {} : { seed: options.seed }),
    VirtualClock.layer,
    VerifiedCredentials.layer
  )

export type AppServices = Layer.Success<ReturnType<typeof memoryServices>>

/** The app's routes with the in-memory store, ids, events, platforms and a virtual clock. */
export const memoryApp = (options: AppOptions) => AppRoutes.pipe(Layer.provideMerge(memoryServices(options)))

/** The HttpApi routes over services that are already built (shared with the lane). */
export const routesOver = (context: Context.Context<AppServices>) =>
  AppRoutes.pipe(Layer.provideMerge(Layer.succeedContext(context)))

/** Every route of the HttpApi app, for the lane's routing decisions. */
const API_ENDPOINTS = Object.values(PaymentsApi.groups).flatMap((group) =>
  Object.values(group.endpoints).map((e) => ({ method: e.method, path: e.path }))
)

/** The direct lane over built services; its operations see the virtual clock, as handlers do. */
export const laneOver = (context: Context.Context<AppServices>): DirectLane =>
  makeDirectLane({
    base: `/${API_VERSION}`,
    endpoints: API_ENDPOINTS,
    routes: DIRECT_ROUTES,
    context: Context.add(context, Clock.Clock, Context.get(context, VirtualClock).clock)
  })

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
    return reply.body === ""
      ? new Response(null, { status: reply.status })
      : new Response(reply.body, { status: reply.status, headers: { "content-type": "application/json" } })
  }

/** A `(Request) => Promise<Response>` handler over the in-memory app, and its disposer. */
export const makeWebHandler = (options: AppOptions) => {
  const scope = Scope.makeUnsafe()
  const context = Effect.runSync(Layer.buildWithScope(memoryServices(options), scope))
  const web = HttpRouter.toWebHandler(routesOver(context).pipe(Layer.provide(HttpServer.layerServices)), { disableLogger: true })
  const handler = options.directLane === false ? web.handler : directWebHandler(laneOver(context), (r) => web.handler(r))
  return {
    handler,
    dispose: async () => {
      await web.dispose()
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  }
}
