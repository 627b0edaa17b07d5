/**
 * The WebhookSender over HTTP (Node's fetch): POST to the configured URL only, no
 * redirects followed (`redirect: "manual"`; a 3xx is an answer like any other non-2xx),
 * one timeout for connecting and answering, and at most `MAX_RESPONSE_BYTES` of the
 * answer read (the rest is dropped). http and https; loopback is allowed (a developer's
 * receiver usually runs on their own machine).
 */
import { Effect, Layer } from "effect"
import { WebhookSender, type WebhookResponse, type WebhookSenderService } from "../ports/webhooks.js"

/** Connect, send and answer (headers and the part of the body read), in ms of real time. */
export const WEBHOOK_TIMEOUT_MILLIS = 5_000
/** What is read of a receiver's answer. */
export const MAX_RESPONSE_BYTES = 64 * 1024

const readCapped = async (response: Response): Promise<string> => {
  const reader = response.body?.getReader()
  if (reader === undefined) return ""
  const chunks: Array<Uint8Array> = []
  let size = 0
  try {
    while (size < MAX_RESPONSE_BYTES) {
      const { done, value } = await reader.read()
      if (done) break
      chunks.push(value)
      size += value.length
    }
  } finally {
    void reader.cancel().catch(() => undefined)
  }
  return Buffer.concat(chunks).subarray(0, MAX_RESPONSE_BYTES).toString("utf8")
}

const describe = (error: unknown, timedOut: boolean): string => {
  if (timedOut) return `no answer within ${WEBHOOK_TIMEOUT_MILLIS / 1000} s`
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error
  const code = typeof cause === "object" && cause !== null && "code" in cause ? String((cause as { code: unknown }).code) : undefined
  const message = cause instanceof Error ? cause.message : String(cause)
  return code === undefined ? message : `${code}: ${message}`
}

export const httpWebhookSender: WebhookSenderService = {
  send: (request) =>
    Effect.promise(async (): Promise<WebhookResponse> => {
      const started = performance.now()
      const signal = AbortSignal.timeout(WEBHOOK_TIMEOUT_MILLIS)
      const elapsed = () => Math.round(performance.now() - started)
      try {
        const response = await fetch(request.url, {
          method: "POST",
          headers: request.headers,
          body: request.body,
          redirect: "manual",
          signal
        })
        const body = await readCapped(response)
        return { _tag: "Answered", status: response.status, body, durationMs: elapsed() }
      } catch (error) {
        return { _tag: "Failed", error: describe(error, signal.aborted), durationMs: elapsed() }
      }
    })
}

export const HttpWebhookSenderLayer = Layer.succeed(WebhookSender, httpWebhookSender)

/** Whether `url` names this machine by a loopback address or `localhost` (nothing else is looked up). */
export const isLoopbackUrl = (url: string): boolean => {
  let host: string
  try {
    host = new URL(url).hostname.toLowerCase()
  } catch {
    return false
  }
  return host === "localhost" || host.endsWith(".localhost") || host === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
}

/**
 * `sender` for loopback destinations only: any other is a failed attempt, without a name
 * lookup or a connection. Test harnesses run with it so a suite cannot reach the network
 * around it, whatever endpoint a test (or a fuzz campaign) sets.
 */
export const loopbackOnly = (sender: WebhookSenderService): WebhookSenderService => ({
  send: (request) =>
    isLoopbackUrl(request.url)
      ? sender.send(request)
      : Effect.succeed({ _tag: "Failed", error: `not sent: ${new URL(request.url).hostname} is not a loopback destination (this process delivers to loopback only)`, durationMs: 0 })
})

/** Webhooks over HTTP to loopback destinations only (see `loopbackOnly`). */
export const LoopbackWebhookSenderLayer = Layer.succeed(WebhookSender, loopbackOnly(httpWebhookSender))
