/**
 * Captures every request for the request log (GET /sandbox/requests) at the outermost
 * boundary, around whatever pipeline answers it: `capturingWebHandler` wraps a
 * `(Request) => Promise<Response>` handler, `capturingNodeListener` a node:http
 * listener. A request is logged only under the platform it was authenticated for
 * (`VerifiedCredentials`: PlatformAuth and AgentAuth attribute each request they pass,
 * whether by the platforms file's credentials, an API token or an agent's bearer token;
 * the direct lane serves only remembered headers), and only for sandbox platforms;
 * requests without credentials, with wrong ones, or of production platforms are not kept.
 */
import { IncomingMessage, ServerResponse } from "node:http"
import { Cause, Context, Effect, Exit } from "effect"
import type { Platform } from "../domain/platform.js"
import { type CapturedRequest, REQUEST_LOG_MAX_BODY_CHARS, RequestLog } from "../operations/request-log.js"
import { Store } from "../ports/store.js"
import { PaymentsApi } from "./api.js"
import { VerifiedCredentials } from "./credentials.js"

/** Bytes of a body collected (a longer body is logged as omitted: `bodyOf` sees it is not whole JSON). */
const MAX_COLLECT_BYTES = REQUEST_LOG_MAX_BODY_CHARS * 4

const ROUTES = Object.values(PaymentsApi.groups).flatMap((group) =>
  Object.values(group.endpoints).map((e) => ({
    method: e.method,
    name: e.identifier,
    static: e.path.split("/").filter((s: string) => s.length > 0 && !s.startsWith(":")).length,
    pattern: new RegExp(`^${e.path.split("/").map((s: string) => (s.startsWith(":") ? "[^/]+" : s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))).join("/")}$`)
  }))
).sort((a, b) => b.static - a.static)

/** The operation a method and path reach (static segments before parameters, as the router ranks them). */
export const operationIdOf = (method: string, path: string): string | undefined =>
  ROUTES.find((r) => r.method === method && r.pattern.test(path))?.name

export interface RequestCapture {
  /**
   * The sandbox platform a request was authenticated for (`source`: the web Request or
   * node IncomingMessage the auth middleware saw), else the one its Authorization
   * header is remembered for; undefined for any other request.
   */
  readonly sandboxPlatformOf: (authorization: string | undefined, source?: object) => Platform | undefined
  /** Logs a finished request under the platform it was authenticated for. */
  readonly record: (authorization: string, source: object, captured: CapturedRequest) => Promise<void>
}

/** The capture over an app's built services. */
export const requestCaptureOver = (context: Context.Context<RequestLog | VerifiedCredentials | Store>): RequestCapture => {
  const log = Context.get(context, RequestLog)
  const verified = Context.get(context, VerifiedCredentials)
  const store = Context.get(context, Store)
  /**
   * The platform's clock offset now: the one this process last saw when the store keeps it
   * (the SQL stores: the request just ran on it, or a later one; no round trip), else read,
   * at once when the store answers without waiting (the memory store, no unit of work in progress).
   */
  const offsetOf = (platformId: string): number | Promise<number> => {
    const seen = store.clocks.lastSeenOffset?.(platformId)
    if (seen !== undefined) return seen
    const fiber = Effect.runFork(store.clocks.offset(platformId))
    const done = fiber.pollUnsafe()
    if (done !== undefined) return Exit.isSuccess(done) ? done.value : Promise.reject(Cause.squash(done.cause))
    return new Promise((resolve, reject) => fiber.addObserver((exit) => Exit.isSuccess(exit) ? resolve(exit.value) : reject(Cause.squash(exit.cause))))
  }
  const sandboxPlatformOf = (authorization: string | undefined, source?: object) => {
    if (authorization === undefined) return undefined
    const platform = (source === undefined ? undefined : verified.attributed(source)) ?? verified.get(authorization)
    return platform !== undefined && platform.settings.sandbox ? platform : undefined
  }
  return {
    sandboxPlatformOf,
    record: (authorization, source, captured) => {
      try {
        const platform = sandboxPlatformOf(authorization, source)
        if (platform === undefined) return Promise.resolve()
        return log.record(platform.id, captured, offsetOf(platform.id)).catch(() => undefined)
      } catch {
        // Logging never breaks an answer: a request it cannot log is not logged.
        return Promise.resolve()
      }
    }
  }
}

const captured = (
  method: string,
  url: string,
  o: Omit<CapturedRequest, "method" | "url" | "operationId">
): CapturedRequest => {
  const q = url.indexOf("?")
  // Found when the entry is first listed.
  return { method, url, operationId: () => operationIdOf(method, q < 0 ? url : url.slice(0, q)), ...o }
}

/** A web handler that logs what it answers (the request and response are read from clones). */
export const capturingWebHandler = (capture: RequestCapture, handler: (request: Request) => Promise<Response>) =>
  async (request: Request): Promise<Response> => {
    const authorization = request.headers.get("authorization") ?? undefined
    if (authorization === undefined) return handler(request)
    const started = performance.now()
    const wallMillis = Date.now()
    const requestText = request.body === null ? "" : await request.clone().text().catch(() => "")
    const response = await handler(request)
    if (capture.sandboxPlatformOf(authorization, request) === undefined) return response
    const responseText = response.body === null ? "" : await response.clone().text().catch(() => "")
    const url = new URL(request.url)
    await capture.record(authorization, request, captured(request.method, url.pathname + url.search, {
      status: response.status,
      durationMillis: performance.now() - started,
      requestId: request.headers.get("request-id") ?? undefined,
      idempotencyKey: request.headers.get("idempotency-key") ?? undefined,
      wallMillis,
      requestText,
      responseText,
      responseContentType: response.headers.get("content-type") ?? undefined
    }))
    return response
  }

/**
 * Collects chunks up to the limit (copies of buffers, strings as they are); past it,
 * remembers only that there was more. `text` decodes them when the log asks (once).
 */
const collector = () => {
  const chunks: Array<Buffer | string> = []
  let bytes = 0
  let over = false
  return {
    add: (chunk: unknown) => {
      if (over) return
      if (typeof chunk === "string") {
        const length = Buffer.byteLength(chunk)
        if (bytes + length > MAX_COLLECT_BYTES) over = true
        else {
          chunks.push(chunk)
          bytes += length
        }
      } else if (chunk instanceof Uint8Array) {
        if (bytes + chunk.byteLength > MAX_COLLECT_BYTES) over = true
        else {
          chunks.push(Buffer.from(chunk))
          bytes += chunk.byteLength
        }
      }
    },
    // A body past the limit is logged as too long (a note of its length, never cut JSON).
    text: (): string => {
      if (over) return "x".repeat(REQUEST_LOG_MAX_BODY_CHARS + 1)
      if (chunks.length === 1 && typeof chunks[0] === "string") return chunks[0]
      return Buffer.concat(chunks.map((c) => typeof c === "string" ? Buffer.from(c) : c)).toString("utf8")
    }
  }
}

const headerOf = (req: IncomingMessage, name: string): string | undefined => {
  const v = req.headers[name]
  return typeof v === "string" ? v : undefined
}

type Collector = ReturnType<typeof collector>

/**
 * The request class of a server whose requests the capture watches (`createServer`'s
 * `IncomingMessage` option): the body chunks go to `captured` as the parser pushes them.
 * A class rather than a `push` set on each request: a method set on an object per
 * request gives every request a shape of its own, which the engine is slow with.
 */
export class CapturingIncomingMessage extends IncomingMessage {
  captured: Collector | undefined = undefined
  override push(chunk: unknown, encoding?: BufferEncoding): boolean {
    this.captured?.add(chunk)
    return super.push(chunk, encoding)
  }
}

/** The response class to go with it (`ServerResponse` option): what is written goes to `captured`, and `ended` runs after each `end`. */
export class CapturingServerResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  captured: Collector | undefined = undefined
  ended: (() => void) | undefined = undefined
  override write(chunk: unknown, ...rest: Array<unknown>): boolean {
    this.captured?.add(chunk)
    return (super.write as (this: ServerResponse, ...args: Array<unknown>) => boolean).call(this, chunk, ...rest)
  }
  override end(...args: Array<unknown>): this {
    if (typeof args[0] !== "function") this.captured?.add(args[0])
    ;(super.end as (this: ServerResponse, ...a: Array<unknown>) => ServerResponse).apply(this, args)
    this.ended?.()
    return this
  }
}

/**
 * A node:http listener that logs what `listener` answers: the request body as the
 * parser pushes it (whoever reads it, whenever), the response as it is written. Only
 * requests with an Authorization header that is not known to belong to a production
 * platform are watched. On a server created with `CapturingIncomingMessage` and
 * `CapturingServerResponse` it watches through them; on any other, it sets the methods
 * on each request and response.
 */
export const capturingNodeListener = (capture: RequestCapture, listener: (req: IncomingMessage, res: ServerResponse) => void) =>
  (req: IncomingMessage, res: ServerResponse): void => {
    const authorization = headerOf(req, "authorization")
    if (authorization === undefined) return listener(req, res)
    const started = performance.now()
    const wallMillis = Date.now()
    const requestBody = collector()
    const responseBody = collector()
    const ended = () => {
      const contentType = res.getHeader("content-type")
      void capture.record(authorization, req, captured(req.method ?? "", req.url ?? "", {
        status: res.statusCode,
        durationMillis: performance.now() - started,
        requestId: headerOf(req, "request-id"),
        idempotencyKey: headerOf(req, "idempotency-key"),
        wallMillis,
        requestText: requestBody.text,
        responseText: responseBody.text,
        responseContentType: typeof contentType === "string" ? contentType : undefined
      }))
    }
    if (req instanceof CapturingIncomingMessage && res instanceof CapturingServerResponse) {
      req.captured = requestBody
      res.captured = responseBody
      res.ended = ended
      return listener(req, res)
    }
    const push = req.push
    req.push = function(this: IncomingMessage, chunk: unknown, encoding?: BufferEncoding) {
      requestBody.add(chunk)
      return push.call(this, chunk, encoding)
    }
    const write = res.write
    res.write = function(this: ServerResponse, chunk: unknown, ...rest: Array<unknown>) {
      responseBody.add(chunk)
      return (write as (this: ServerResponse, ...args: Array<unknown>) => boolean).call(this, chunk, ...rest)
    } as typeof res.write
    const end = res.end
    res.end = function(this: ServerResponse, ...args: Array<unknown>) {
      if (typeof args[0] !== "function") responseBody.add(args[0])
      const result = (end as (this: ServerResponse, ...a: Array<unknown>) => ServerResponse).apply(this, args)
      ended()
      return result
    } as typeof res.end
    listener(req, res)
  }
