/**
 * The WebhookSender over HTTP (node:http and node:https): POST to the configured URL
 * only, no redirects followed (a 3xx is an answer like any other non-2xx), one timeout
 * for connecting and answering, and at most `MAX_RESPONSE_BYTES` of the answer read (the
 * rest is dropped).
 *
 * Every send goes through the destination guard (docs/webhooks.md#destinations): the
 * URL's host is resolved once, every address it resolves to is checked against the
 * platform's webhook destinations (src/domain/webhook-destinations.ts), and the
 * connection is made to the checked addresses only (a `lookup` that answers them, so a
 * second resolution cannot swap in another address: DNS rebinding). A refused
 * destination is a failed attempt naming the rule, without a connection.
 */
import { lookup as dnsLookup } from "node:dns/promises"
import * as http from "node:http"
import * as https from "node:https"
import { isIP, type LookupFunction } from "node:net"
import { Effect, Layer } from "effect"
import type { Platform } from "../domain/platform.js"
import {
  type DestinationPolicy,
  type DestinationRefusal,
  addressRefusal,
  hostKey,
  hostVerdict,
  isInvalidName,
  LOOPBACK_POLICY,
  policyOf,
  PRODUCTION_POLICY,
  SANDBOX_POLICY
} from "../domain/webhook-destinations.js"
import { type WebhookRequest, WebhookSender, type WebhookResponse, type WebhookSenderService } from "../ports/webhooks.js"
import { BoundedMemo } from "../lib/bounded-memo.js"

/** Connect, send and answer (headers and the part of the body read), in ms of real time. */
export const WEBHOOK_TIMEOUT_MILLIS = 5_000
/** What is read of a receiver's answer. */
export const MAX_RESPONSE_BYTES = 64 * 1024
/** How long a lookup at PATCH /config may take; a name not resolved by then is accepted (checked again at delivery). */
export const ENDPOINT_LOOKUP_MILLIS = 2_000

/** One resolved address. */
export interface ResolvedAddress {
  readonly address: string
  readonly family: 4 | 6
}

/** Resolves a host name to every address it has (injectable: tests never touch DNS). */
export type Resolver = (host: string) => Promise<ReadonlyArray<ResolvedAddress>>

/**
 * The system resolver (getaddrinfo: the hosts file, then DNS), every address. A name
 * under `.invalid` is not looked up (RFC 6761: it never resolves).
 */
export const systemResolver: Resolver = async (host) => {
  if (isInvalidName(host)) throw Object.assign(new Error(`${host} does not resolve (names under .invalid never do, RFC 6761)`), { code: "ENOTFOUND" })
  return (await dnsLookup(host, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }))
}

/** Makes one POST to `url`, connecting only to `addresses` (already checked); never rejects. */
export type Transport = (url: URL, request: WebhookRequest, addresses: ReadonlyArray<ResolvedAddress>) => Promise<WebhookResponse>

/** An error's `code` (node's `ECONNRESET`, …), if it has one. */
const codeOf = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "code" in error ? String((error as { code: unknown }).code) : undefined

const describe = (error: unknown, timedOut: boolean): string => {
  if (timedOut) return `no answer within ${WEBHOOK_TIMEOUT_MILLIS / 1000} s`
  const code = codeOf(error)
  const message = error instanceof Error ? error.message : String(error)
  return code === undefined || message.startsWith(code) ? message : `${code}: ${message}`
}

/** A `lookup` that answers the checked addresses only (both the one-address and the every-address forms). */
const pinnedLookup = (addresses: ReadonlyArray<ResolvedAddress>): LookupFunction =>
  ((_host: string, options: { readonly all?: boolean; readonly family?: number | string }, callback: (...args: Array<unknown>) => void) => {
    const wanted = options.family === 4 || options.family === "IPv4" ? 4 : options.family === 6 || options.family === "IPv6" ? 6 : undefined
    const usable = addresses.filter((a) => wanted === undefined || a.family === wanted)
    const first = usable[0]
    if (first === undefined) {
      callback(Object.assign(new Error(`no checked address of family ${String(wanted)}`), { code: "ENOTFOUND" }))
    } else if (options.all === true) {
      callback(null, usable.map((a) => ({ address: a.address, family: a.family })))
    } else {
      callback(null, first.address, first.family)
    }
  }) as LookupFunction

/** How long a connection to a receiver is kept open with nothing to send: under the 5 s a Node server keeps one. */
export const IDLE_CONNECTION_MILLIS = 4_000
/** Connections open at once to one destination at most (a pass sends 16 webhooks of a platform at once). */
const MAX_CONNECTIONS_PER_DESTINATION = 16

/**
 * Connections kept open per destination: the URL's scheme, host and port and the checked
 * addresses it may connect to, so a connection is only ever reused for the addresses it was
 * made to (another answer of the resolver is another destination, with connections of its
 * own). Idle ones close after `IDLE_CONNECTION_MILLIS`; a destination forgotten here (the
 * memo is bounded) keeps its idle connections until then.
 */
const agents = new BoundedMemo<string, http.Agent>(256)
const agentOf = (url: URL, addresses: ReadonlyArray<ResolvedAddress>): http.Agent => {
  const key = `${url.protocol}//${url.host}|${addresses.map((a) => a.address).join(",")}`
  let agent = agents.get(key)
  if (agent === undefined) {
    const options = { keepAlive: true, maxSockets: MAX_CONNECTIONS_PER_DESTINATION, maxFreeSockets: MAX_CONNECTIONS_PER_DESTINATION, timeout: IDLE_CONNECTION_MILLIS }
    agents.set(key, agent = url.protocol === "https:" ? new https.Agent(options) : new http.Agent(options))
  }
  return agent
}

/**
 * One POST to `url`, connecting only to `addresses` (already checked), on a connection kept
 * from an earlier attempt to the same destination when there is one. Never rejects: what
 * went wrong is the answer. A kept connection the receiver closed meanwhile (reset before any
 * answer) is not the receiver's answer: the POST is made once more on a new one.
 */
export const httpTransport: Transport = (url, request, addresses) => post(url, request, addresses, true)

const post = (url: URL, request: WebhookRequest, addresses: ReadonlyArray<ResolvedAddress>, mayRetry: boolean): Promise<WebhookResponse> =>
  new Promise((resolve) => {
    const started = performance.now()
    const elapsed = () => Math.round(performance.now() - started)
    const signal = AbortSignal.timeout(WEBHOOK_TIMEOUT_MILLIS)
    let settled = false
    let answered = false
    let req: http.ClientRequest | undefined
    const finish = (response: WebhookResponse) => {
      if (settled) return
      settled = true
      resolve(response)
    }
    const fail = (error: unknown) => {
      if (settled) return
      if (mayRetry && !answered && !signal.aborted && req?.reusedSocket === true && isReset(error)) {
        settled = true
        resolve(post(url, request, addresses, false))
        return
      }
      finish({ _tag: "Failed", error: describe(error, signal.aborted), durationMs: elapsed() })
    }
    const body = Buffer.from(request.body, "utf8")
    const options: http.RequestOptions = {
      method: "POST",
      headers: { ...request.headers, "content-length": String(body.length) },
      signal,
      // The host is an address already checked, or a name whose checked addresses are the only answers.
      ...(isIP(hostKey(url.hostname)) === 0 ? { lookup: pinnedLookup(addresses) } : {}),
      agent: agentOf(url, addresses)
    }
    try {
      req = (url.protocol === "https:" ? https : http).request(url, options, (res) => {
        answered = true
        const chunks: Array<Buffer> = []
        let size = 0
        const done = () => finish({ _tag: "Answered", status: res.statusCode ?? 0, body: Buffer.concat(chunks).subarray(0, MAX_RESPONSE_BYTES).toString("utf8"), durationMs: elapsed() })
        res.on("data", (chunk: Buffer) => {
          if (settled) return
          chunks.push(chunk)
          size += chunk.length
          // Enough read: the rest is dropped, and the connection with it.
          if (size >= MAX_RESPONSE_BYTES) {
            done()
            res.destroy()
          }
        })
        // Read to its end, the connection goes back to be kept.
        res.on("end", done)
        res.on("error", (e) => (signal.aborted ? fail(e) : done()))
        res.on("close", () => (signal.aborted ? fail(new Error("aborted")) : done()))
      })
    } catch (e) {
      return fail(e)
    }
    req.on("error", fail)
    req.end(body)
  })

const isReset = (error: unknown): boolean => {
  const code = codeOf(error)
  return code === "ECONNRESET" || code === "EPIPE"
}

/** A list of destinations (`["public", "10.20.0.0/16"]`; an invalid one throws), or one parsed already. */
export type Destinations = DestinationPolicy | ReadonlyArray<string>

/** Where a platform's webhooks may go: its own list, else the sender's default, else its kind's default. */
export interface DestinationOptions {
  /** Every platform's destinations, whatever its own list says (the test harness: loopback only). */
  readonly override?: Destinations
  /** For platforms without a list of their own (the server's `--webhook-destinations`); else by kind. */
  readonly fallback?: Destinations
  /** How names are resolved (default: the system resolver). */
  readonly resolver?: Resolver
  /** How a checked destination is POSTed to (default: HTTP to the checked addresses; tests record instead). */
  readonly transport?: Transport
}

/** Platforms' own lists, parsed once. */
const ownPolicies = new BoundedMemo<string, DestinationPolicy>(1_000)
const ownPolicyOf = (list: ReadonlyArray<string>): DestinationPolicy => {
  const key = list.join(",")
  let policy = ownPolicies.get(key)
  if (policy === undefined) ownPolicies.set(key, policy = policyOf(list))
  return policy
}

const asPolicy = (d: Destinations): DestinationPolicy => (isList(d) ? ownPolicyOf(d) : d)
const isList = (d: Destinations): d is ReadonlyArray<string> => Array.isArray(d)

/** The policy that applies to `platform` under `options` (no platform: a production platform's). */
export const policyFor = (platform: Platform | undefined, options: DestinationOptions = {}): DestinationPolicy => {
  if (options.override !== undefined) return asPolicy(options.override)
  if (platform?.webhookDestinations !== undefined) return ownPolicyOf(platform.webhookDestinations)
  if (options.fallback !== undefined) return asPolicy(options.fallback)
  return platform?.settings.sandbox === true ? SANDBOX_POLICY : PRODUCTION_POLICY
}

type Checked =
  | { readonly _tag: "Allowed"; readonly url: URL; readonly addresses: ReadonlyArray<ResolvedAddress> }
  | { readonly _tag: "Refused"; readonly refusal: DestinationRefusal }
  | { readonly _tag: "Unresolved"; readonly error: string }

/** The destination of `url` under `policy`: resolved (once), every address checked. */
export const checkDestination = async (url: string, policy: DestinationPolicy, resolver: Resolver = systemResolver): Promise<Checked> => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return { _tag: "Unresolved", error: `${url} is not a URL` }
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return { _tag: "Unresolved", error: `${parsed.protocol} is not http or https` }
  const host = hostKey(parsed.hostname)
  const verdict = hostVerdict(host, policy)
  if (verdict._tag === "Refused") return verdict
  if (verdict._tag === "Addresses") {
    return { _tag: "Allowed", url: parsed, addresses: verdict.addresses.map((address) => ({ address, family: isIP(address) === 6 ? 6 : 4 })) }
  }
  let addresses: ReadonlyArray<ResolvedAddress>
  try {
    addresses = await resolver(host)
  } catch (e) {
    return { _tag: "Unresolved", error: describe(e, false) }
  }
  if (addresses.length === 0) return { _tag: "Unresolved", error: `ENOTFOUND: ${host} has no address` }
  for (const a of addresses) {
    const refusal = addressRefusal(a.address, policy, host)
    if (refusal !== undefined) return { _tag: "Refused", refusal }
  }
  return { _tag: "Allowed", url: parsed, addresses }
}

/**
 * Why the endpoint a platforms file presets for `platform` is refused, as far as can be
 * told without a lookup (an address, a metadata name); undefined when nothing refuses it.
 * The server checks it at start.
 */
export const presetEndpointRefusal = (platform: Platform, options: DestinationOptions = {}): DestinationRefusal | undefined => {
  if (platform.webhookEndpoint === undefined) return undefined
  let host: string
  try {
    host = new URL(platform.webhookEndpoint).hostname
  } catch {
    return undefined
  }
  const verdict = hostVerdict(host, policyFor(platform, options))
  return verdict._tag === "Refused" && verdict.refusal.rule !== "NOT_LOOKED_UP" ? verdict.refusal : undefined
}

/** The message of a refused attempt (in the delivery log and the answer of POST /sandbox/webhooks/test). */
export const refusedMessage = (refusal: DestinationRefusal): string => `not sent (${refusal.rule}): ${refusal.message}`

/**
 * The HTTP sender behind the destination guard: each platform's webhooks go only where
 * `policyFor` allows, checked on the addresses the host resolves to at the attempt.
 */
export const guardedWebhookSender = (options: DestinationOptions = {}): WebhookSenderService => {
  // Lists are checked now: an invalid one fails where the sender is built, not at an attempt.
  if (options.override !== undefined) asPolicy(options.override)
  if (options.fallback !== undefined) asPolicy(options.fallback)
  const resolver = options.resolver ?? systemResolver
  const transport = options.transport ?? httpTransport
  return {
    send: (request) =>
      Effect.promise(async (): Promise<WebhookResponse> => {
        const started = performance.now()
        const checked = await checkDestination(request.url, policyFor(request.platform, options), resolver)
        const durationMs = Math.round(performance.now() - started)
        if (checked._tag === "Refused") return { _tag: "Failed", error: refusedMessage(checked.refusal), durationMs }
        if (checked._tag === "Unresolved") return { _tag: "Failed", error: checked.error, durationMs }
        return transport(checked.url, request, checked.addresses)
      }),
    endpointRefusal: (url, platform) =>
      Effect.promise(async (): Promise<DestinationRefusal | undefined> => {
        const policy = policyFor(platform, options)
        // A name a loopback-only policy does not look up, an unresolvable name, a lookup
        // that takes too long: accepted now, checked again at each attempt.
        let cancel = () => {}
        const timeout = new Promise<undefined>((resolve) => {
          const timer = setTimeout(resolve, ENDPOINT_LOOKUP_MILLIS)
          cancel = () => clearTimeout(timer)
        })
        const checked = await Promise.race([checkDestination(url, policy, resolver), timeout]).finally(() => cancel())
        return checked?._tag === "Refused" && checked.refusal.rule !== "NOT_LOOKED_UP" ? checked.refusal : undefined
      })
  }
}

/** Webhooks over HTTP, each platform's to its destinations (defaults by kind: sandbox loopback and public, production public). */
export const httpWebhookSender: WebhookSenderService = guardedWebhookSender()

export const HttpWebhookSenderLayer = Layer.succeed(WebhookSender, httpWebhookSender)

/** The sender with these destination options (the server passes `--webhook-destinations` as `fallback`). */
export const webhookSenderLayer = (options: DestinationOptions) => Layer.succeed(WebhookSender, guardedWebhookSender(options))

/** Whether `url` names this machine by a loopback address or `localhost` (nothing is looked up). */
export const isLoopbackUrl = (url: string): boolean => {
  let host: string
  try {
    host = new URL(url).hostname
  } catch {
    return false
  }
  const verdict = hostVerdict(host, LOOPBACK_POLICY)
  return verdict._tag === "Addresses"
}

/**
 * Webhooks to loopback destinations only, for every platform whatever its list says:
 * any other destination is a failed attempt, without a name lookup or a connection.
 * Test harnesses run with it so a suite cannot reach the network around it, whatever
 * endpoint a test (or a fuzz campaign) sets.
 */
export const loopbackOnlySender = (resolver?: Resolver): WebhookSenderService =>
  guardedWebhookSender({ override: LOOPBACK_POLICY, ...(resolver === undefined ? {} : { resolver }) })

/** Webhooks over HTTP to loopback destinations only (see `loopbackOnlySender`). */
export const LoopbackWebhookSenderLayer = Layer.succeed(WebhookSender, loopbackOnlySender())
