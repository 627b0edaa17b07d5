/**
 * The reference server on node:http: the direct lane first, the HttpApi app for
 * everything the lane does not take. Listening, the bound address and graceful
 * shutdown (when the scope closes) come from @effect/platform-node.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { NodeHttpServer } from "@effect/platform-node"
import { Context, Effect, Layer } from "effect"
import { Store } from "../ports/store.js"
import { HttpRouter } from "effect/http"
import { type AppOptions, appServices, laneOver, routesOver } from "./app.js"
import type { DirectLane, DirectReply } from "./direct.js"
import { CapturingIncomingMessage, capturingNodeListener, CapturingServerResponse, requestCaptureOver } from "./request-capture.js"
import { withSandboxFaultsNode } from "./sandbox-faults.js"

const decoder = new TextDecoder()

const send = (res: ServerResponse, reply: DirectReply) => {
  if (res.destroyed) return
  if (reply.body === "") res.writeHead(reply.status, reply.headers).end()
  else {
    const length = Buffer.byteLength(reply.body)
    // No spread for the usual reply without headers of its own (a spread is a runtime call).
    res.writeHead(
      reply.status,
      reply.headers === undefined
        ? { "content-type": "application/json", "content-length": length }
        : { ...reply.headers, "content-type": "application/json", "content-length": length }
    ).end(reply.body)
  }
}

/**
 * A node `request` listener: the lane when it takes the request, else `fallback`.
 * Replies computed in one turn of the event loop are written together at its end, so
 * a client reading several connections is woken once per batch instead of once per
 * response.
 */
export const directNodeListener = (lane: DirectLane, fallback: (req: IncomingMessage, res: ServerResponse) => void) => {
  let pending: Array<readonly [ServerResponse, DirectReply]> = []
  const flush = () => {
    const batch = pending
    pending = []
    for (const [res, reply] of batch) {
      try {
        send(res, reply)
      } catch {
        // A socket that broke mid-write: drop that connection, keep writing the others.
        res.destroy()
      }
    }
  }
  const reply = (res: ServerResponse, r: DirectReply) => {
    if (pending.push([res, r]) === 1) setImmediate(flush)
  }
  return (req: IncomingMessage, res: ServerResponse): void => {
    const headers = req.headers
    const accepted = lane.accept(req.method ?? "", req.url ?? "", (name) => {
      const value = headers[name]
      return typeof value === "string" ? value : undefined
    })
    if (accepted === undefined) return fallback(req, res)
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => void chunks.push(chunk))
    req.on("error", () => res.destroy())
    req.on("end", () => {
      const body = decoder.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks))
      const result = accepted(body)
      if (result instanceof Promise) void result.then((r) => reply(res, r))
      else reply(res, result)
    })
  }
}

/** Serves the reference app on `host`:`port` until the scope closes; returns the bound address and the store in use. */
/**
 * Connection time limits of the reference server, in ms. A local API server answers
 * in milliseconds, so a client that takes longer than this to send its headers or its
 * whole request is cut off (its socket closed) instead of holding a connection for
 * Node's default 300 s.
 */
export interface ServerTimeouts {
  /** Headers must be complete within this (default 10 s). */
  readonly headersMillis?: number
  /** The whole request, body included, within this (default 30 s). */
  readonly requestMillis?: number
  /** An idle keep-alive connection is closed after this (default 5 s). */
  readonly keepAliveMillis?: number
}

export const DEFAULT_SERVER_TIMEOUTS = { headersMillis: 10_000, requestMillis: 30_000, keepAliveMillis: 5_000 } as const

export const serveReference = (
  options: AppOptions & { readonly host: string; readonly port: number; readonly timeouts?: ServerTimeouts }
) =>
  Effect.gen(function*() {
    const scope = yield* Effect.scope
    const context = yield* Layer.build(appServices(options))
    const httpEffect = yield* HttpRouter.toHttpEffect(routesOver(context))
    // The ports are in every request's context once, at the root, as toWebHandler does.
    const appHandler = yield* NodeHttpServer.makeHandler(Effect.provide(httpEffect, context), { scope })
    const pipelines = options.directLane === false ? appHandler : directNodeListener(laneOver(context), appHandler)
    // Outside both pipelines: sandbox request faults (docs/sandbox.md#fault-injection), and
    // around them the request log, which so records every request and every injected fault.
    const listener = capturingNodeListener(requestCaptureOver(context), withSandboxFaultsNode(context, pipelines))
    const timeouts = { ...DEFAULT_SERVER_TIMEOUTS, ...options.timeouts }
    const server = yield* NodeHttpServer.make(() => {
      const s = createServer<typeof IncomingMessage, typeof ServerResponse>({
        // The capture watches bodies through these classes (no methods set per request).
        IncomingMessage: CapturingIncomingMessage,
        ServerResponse: CapturingServerResponse,
        headersTimeout: timeouts.headersMillis,
        requestTimeout: timeouts.requestMillis,
        keepAliveTimeout: timeouts.keepAliveMillis,
        // How often Node checks the two limits above (default 30 s): a tenth of the shorter.
        connectionsCheckingInterval: Math.max(100, Math.min(timeouts.headersMillis, timeouts.requestMillis) / 10)
      }, listener)
      return s
    }, { port: options.port, host: options.host })
    return { address: server.address, store: Context.get(context, Store).info }
  }).pipe(Effect.provide(NodeHttpServer.layerHttpServices))
