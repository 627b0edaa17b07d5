/**
 * The request log of GET /sandbox/requests: each sandbox platform's recent requests, as
 * the web boundary saw them (src/http/request-capture.ts records them), newest first.
 *
 * - Kept per platform and per app (one server process), in memory: at most
 *   `REQUEST_LOG_SIZE` requests per platform, the oldest dropped first. A server
 *   restart, and every other process sharing a PostgreSQL database, starts with an
 *   empty log (docs/sandbox-insight.md).
 * - Only requests whose HTTP Basic credentials were verified for the platform are
 *   logged under it, so no platform ever sees another's requests; requests of
 *   production platforms are not kept.
 * - Bodies in and out are shown as JSON with every write-only and secret field
 *   redacted (`redactJson`), each cut to `REQUEST_LOG_MAX_BODY_CHARS` characters. The
 *   work is done when an entry is first listed, not for every request: until then the
 *   log holds what the boundary captured (in this process's memory only, like the
 *   store's own records), then only the redacted entry.
 */
import { Context, Effect, Layer } from "effect"
import { MAX_CURSOR_LENGTH } from "../domain/common.js"
import { invalidInput } from "../domain/errors.js"
import { badCursor } from "./paging.js"
import { memoize } from "../lib/bounded-memo.js"

/** Requests kept per platform. */
export const REQUEST_LOG_SIZE = 500

/** Characters of a body kept (after redaction); a longer one is replaced by a note of its length. */
export const REQUEST_LOG_MAX_BODY_CHARS = 16_384

export const REDACTED = "[REDACTED]"

/** Characters of entries a page of the log holds at most (it ends early, `hasMore`, past them). */
export const REQUEST_LOG_PAGE_CHARS = 64 * 1024

/** One logged request. */
export interface RequestLogEntry {
  readonly id: string
  readonly method: string
  /** The path, without the query. */
  readonly path: string
  /** The query string (without `?`), if any. */
  readonly query?: string
  /** The API operation it reached (the OpenAPI operationId), if any. */
  readonly operationId?: string
  readonly status: number
  /** The error body's `code`, for an answer in the error shape. */
  readonly errorCode?: string
  readonly durationMillis: number
  readonly requestId?: string
  readonly idempotencyKey?: string
  /** When it arrived, on the platform's (sandbox) clock. */
  readonly platformTime: string
  /** When it arrived, on the wall clock. */
  readonly wallTime: string
  readonly requestBody?: unknown
  readonly responseBody?: unknown
}

/** A value given as it is or as a function that computes it when first needed. */
export type Lazy<A> = A | (() => A)

const force = <A>(value: Lazy<A>): A => typeof value === "function" ? (value as () => A)() : value

/**
 * What the boundary saw, before it is logged. The operation id and the body texts may be
 * given as functions: the log calls them only when the entry is first listed (most
 * entries are dropped unread), once.
 */
export interface CapturedRequest {
  readonly method: string
  readonly url: string
  readonly operationId: Lazy<string | undefined>
  readonly status: number
  readonly durationMillis: number
  readonly requestId: string | undefined
  readonly idempotencyKey: string | undefined
  readonly wallMillis: number
  readonly requestText: Lazy<string>
  readonly responseText: Lazy<string>
  readonly responseContentType: string | undefined
}

export interface RequestLogQuery {
  readonly method?: string | undefined
  readonly pathPrefix?: string | undefined
  /** An exact status (`404`) or a class (`4xx`). */
  readonly status?: string | undefined
  /** Wall-clock range, inclusive, in epoch ms. */
  readonly from?: number | undefined
  readonly to?: number | undefined
}

// ---------------------------------------------------------------- redaction

const SECRET_NAMES = new Set([
  "identifier", "pan", "cvc", "cvv", "cvv2", "ssn", "taxid", "mnemonic", "password", "passphrase", "seedphrase",
  "attestation", "credential", "privatekey", "cardnumber"
])
const SECRET_SUFFIXES = ["secret", "password", "token", "privatekey", "apikey", "pin", "pinblock", "otp", "otpcode", "cvc", "cvv", "signingkey", "bundle"]

const judge = (name: string, inRequest: boolean): boolean => {
  const key = name.toLowerCase().replace(/[^a-z0-9]/g, "")
  if (SECRET_NAMES.has(key)) return true
  // A request's `code` is a one-time code (SCA, OTP); an answer's is an error or status code.
  if (inRequest && key === "code") return true
  return SECRET_SUFFIXES.some((s) => key.endsWith(s))
}

/** Field names already judged, per side (bounded, so junk names cannot grow it). */
const judgedInAnswer = memoize(4096, (name: string) => judge(name, false))
const judgedInRequest = memoize(4096, (name: string) => judge(name, true))

/** Whether a field holds a secret (write-only in the reference, or one of ours): compared without case, `_` or `-`. */
export const isSecretField = (name: string, inRequest: boolean): boolean =>
  inRequest ? judgedInRequest(name) : judgedInAnswer(name)

/** How deep a kept body may nest; anything deeper is replaced by a note (never kept unredacted). */
export const REQUEST_LOG_MAX_DEPTH = 32

/** A JSON value with every secret field's value replaced by `[REDACTED]`. */
export const redactJson = (value: unknown, inRequest: boolean, depth = 0): unknown => {
  if (typeof value !== "object" || value === null) return value
  if (depth >= REQUEST_LOG_MAX_DEPTH) return { omitted: "nested too deep" }
  if (Array.isArray(value)) return value.map((v) => redactJson(v, inRequest, depth + 1))
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) out[k] = v !== null && isSecretField(k, inRequest) ? REDACTED : redactJson(v, inRequest, depth + 1)
  return out
}

/** A body as the log keeps it, and its length as JSON. */
const keptBody = (text: string, inRequest: boolean): { readonly body: unknown; readonly chars: number } => {
  if (text.length === 0) return { body: undefined, chars: 0 }
  // Far past the limit: not even parsed.
  if (text.length > 2 * REQUEST_LOG_MAX_BODY_CHARS) return { body: { omitted: "too long", characters: text.length }, chars: 64 }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    // Not JSON (a multipart upload, malformed input): never kept, it may hold anything.
    return { body: { omitted: "not JSON", characters: text.length }, chars: 64 }
  }
  const redacted = redactJson(parsed, inRequest)
  const chars = JSON.stringify(redacted).length
  return chars > REQUEST_LOG_MAX_BODY_CHARS ? { body: { omitted: "too long", characters: chars }, chars: 64 } : { body: redacted, chars }
}

/** A body as the log keeps it: parsed and redacted JSON, a note for anything else, undefined for none. */
export const bodyOf = (text: string, inRequest: boolean): unknown => keptBody(text, inRequest).body

const errorCodeOf = (body: unknown): string | undefined =>
  typeof body === "object" && body !== null && !Array.isArray(body) && typeof (body as { readonly code?: unknown }).code === "string" &&
    typeof (body as { readonly reason?: unknown }).reason === "string"
    ? (body as { readonly code: string }).code
    : undefined

// ---------------------------------------------------------------- the log

/**
 * One request in the log. What the filters read is kept as it came; the entry (its
 * bodies parsed, redacted and measured) is built when it is first listed, then the
 * captured texts are let go.
 */
interface Logged {
  readonly seq: number
  readonly wallMillis: number
  readonly method: string
  readonly path: string
  readonly status: number
  readonly offsetMillis: number
  captured: CapturedRequest | undefined
  entry: RequestLogEntry | undefined
  /** Characters of the entry as JSON, near enough (known with the entry). */
  size: number
}

const encodeCursor = (seq: number) => Buffer.from(`r1:${seq}`, "utf8").toString("base64url")
const decodeCursor = (cursor: string): number | undefined => {
  if (cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined
  const m = /^r1:(\d{1,15})$/.exec(Buffer.from(cursor, "base64url").toString("utf8"))
  return m === null ? undefined : Number(m[1])
}

const matches = (q: RequestLogQuery) => (l: Logged): boolean => {
  const e = l
  if (q.method !== undefined && e.method !== q.method.toUpperCase()) return false
  if (q.pathPrefix !== undefined && !e.path.startsWith(q.pathPrefix)) return false
  if (q.status !== undefined) {
    const s = String(e.status)
    if (/^[1-5]xx$/i.test(q.status) ? s[0] !== q.status[0] : s !== q.status) return false
  }
  if (q.from !== undefined && l.wallMillis < q.from) return false
  if (q.to !== undefined && l.wallMillis > q.to) return false
  return true
}

export class RequestLog extends Context.Service<RequestLog, {
  /**
   * Logs a request under a platform once its clock offset is known (the boundary calls
   * it when the answer is complete); `settled` waits for the records in progress.
   */
  readonly record: (platformId: string, captured: CapturedRequest, offsetMillis: number | Promise<number>) => Promise<void>
  /** Resolves when every record of the platform begun so far is in the log. */
  readonly settled: (platformId: string) => Promise<void>
  /** A page of the platform's log, newest first. */
  readonly list: (
    platformId: string,
    query: RequestLogQuery,
    page: { readonly limit: number; readonly cursor?: string | undefined }
  ) => { readonly data: ReadonlyArray<RequestLogEntry>; readonly hasMore: boolean; readonly nextCursor?: string; readonly totalCount: number } | undefined
}>()("payments-service/operations/RequestLog") {
  static readonly make = (size = REQUEST_LOG_SIZE) => {
    const logs = new Map<string, Array<Logged>>()
    const pending = new Map<string, Set<Promise<void>>>()
    let seq = 0
    /** The entry of a logged request, built (bodies parsed, redacted and measured) the first time it is listed. */
    const entryOf = (l: Logged): RequestLogEntry => {
      if (l.entry !== undefined) return l.entry
      const c = l.captured
      if (c === undefined) throw new Error("A logged request without its capture")
      const q = c.url.indexOf("?")
      const request = keptBody(force(c.requestText), true)
      const requestBody = request.body
      const json = c.responseContentType === undefined || c.responseContentType.includes("json")
      const responseText = force(c.responseText)
      const response = json ? keptBody(responseText, false) : responseText.length === 0 ? { body: undefined, chars: 0 } : { body: { omitted: "not JSON", characters: responseText.length }, chars: 64 }
      const responseBody = response.body
      const errorCode = c.status >= 400 ? errorCodeOf(responseBody) : undefined
      const operationId = force(c.operationId)
      const entry: RequestLogEntry = {
        id: `Request:${l.seq}`,
        method: c.method,
        path: l.path,
        ...(q < 0 || q === c.url.length - 1 ? {} : { query: c.url.slice(q + 1) }),
        ...(operationId === undefined ? {} : { operationId }),
        status: c.status,
        ...(errorCode === undefined ? {} : { errorCode }),
        durationMillis: Math.round(c.durationMillis * 1000) / 1000,
        ...(c.requestId === undefined ? {} : { requestId: c.requestId }),
        ...(c.idempotencyKey === undefined ? {} : { idempotencyKey: c.idempotencyKey }),
        platformTime: new Date(c.wallMillis + l.offsetMillis).toISOString(),
        wallTime: new Date(c.wallMillis).toISOString(),
        ...(requestBody === undefined ? {} : { requestBody }),
        ...(responseBody === undefined ? {} : { responseBody })
      }
      l.entry = entry
      l.captured = undefined
      // The entry's length as JSON, near enough: its bodies, its URL (path and query, escaped at most 6 to 1) and the rest.
      l.size = request.chars + response.chars + 6 * c.url.length + 1024
      return entry
    }
    /**
     * An entry that cannot be built (a body it cannot handle) is left out: logging never
     * fails, nor does listing.
     */
    const builds = (l: Logged): boolean => {
      try {
        entryOf(l)
        return true
      } catch {
        // Never tried again: its capture goes.
        l.captured = undefined
        return false
      }
    }
    const add = (platformId: string, c: CapturedRequest, offsetMillis: number) => {
      const q = c.url.indexOf("?")
      seq += 1
      let log = logs.get(platformId)
      if (log === undefined) logs.set(platformId, log = [])
      log.push({
        seq,
        wallMillis: c.wallMillis,
        method: c.method,
        path: q < 0 ? c.url : c.url.slice(0, q),
        status: c.status,
        offsetMillis,
        captured: c,
        entry: undefined,
        size: 0
      })
      // Drop the oldest in batches, so a full log costs one splice per tenth of its size.
      if (log.length > size + Math.ceil(size / 10)) log.splice(0, log.length - size)
    }
    /** Logging never fails: a request that cannot be logged (a body it cannot handle) is left out. */
    const safeAdd = (platformId: string, c: CapturedRequest, offsetMillis: number) => {
      try {
        add(platformId, c, offsetMillis)
      } catch {
        // Left out of the log.
      }
    }
    return RequestLog.of({
      record: (platformId, c, offset) => {
        if (typeof offset === "number") {
          safeAdd(platformId, c, offset)
          return Promise.resolve()
        }
        let set = pending.get(platformId)
        if (set === undefined) pending.set(platformId, set = new Set())
        const s = set
        // A failed offset read still logs the request, on the wall clock.
        const done: Promise<void> = offset.then((o) => safeAdd(platformId, c, o), () => safeAdd(platformId, c, 0)).finally(() => {
          s.delete(done)
          if (s.size === 0) pending.delete(platformId)
        })
        s.add(done)
        return done
      },
      settled: async (platformId) => {
        const set = pending.get(platformId)
        if (set !== undefined) await Promise.all([...set])
      },
      list: (platformId, query, page) => {
        const before = page.cursor === undefined ? Number.POSITIVE_INFINITY : decodeCursor(page.cursor)
        if (before === undefined) return undefined
        const log = logs.get(platformId) ?? []
        const kept = log.length > size ? log.slice(log.length - size) : log
        const keep = matches(query)
        const data: Array<RequestLogEntry> = []
        let total = 0
        let hasMore = false
        let last: number | undefined
        let chars = 0
        for (let i = kept.length - 1; i >= 0; i--) {
          const l = kept[i]
          if (l === undefined || !keep(l) || !builds(l)) continue
          total += 1
          if (l.seq >= before) continue
          // A page holds `limit` entries at most, and stops early rather than pass
          // REQUEST_LOG_PAGE_CHARS (one entry always fits: bodies are cut at 16 KB).
          const fits = data.length < page.limit && (data.length === 0 || chars + l.size <= REQUEST_LOG_PAGE_CHARS)
          if (fits && !hasMore) {
            data.push(entryOf(l))
            chars += l.size
            last = l.seq
          } else hasMore = true
        }
        return hasMore && last !== undefined ? { data, hasMore, nextCursor: encodeCursor(last), totalCount: total } : { data, hasMore: false, totalCount: total }
      }
    })
  }

  static readonly layer = Layer.sync(RequestLog, () => RequestLog.make())
}

/** GET /sandbox/requests as an operation: a page of the calling platform's log (the handler checks it is a sandbox platform). */
export const listRequests = (
  platformId: string,
  query: RequestLogQuery & { readonly limit?: number | undefined; readonly cursor?: string | undefined }
) =>
  Effect.flatMap(Effect.service(RequestLog), (log) => Effect.andThen(Effect.promise(() => log.settled(platformId)), () => {
    if (query.from !== undefined && query.to !== undefined && query.from > query.to) {
      return Effect.fail(invalidInput("createdAfter is after createdBefore", [{ field: "createdAfter", constraint: "range", message: "must not be after createdBefore" }]))
    }
    const page = log.list(platformId, query, { limit: query.limit ?? 20, cursor: query.cursor })
    return page === undefined ? Effect.fail(badCursor()) : Effect.succeed(page)
  }))
