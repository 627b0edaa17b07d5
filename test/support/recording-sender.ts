/**
 * A `WebhookSender` for tests of the delivery path without sockets: it records what it
 * is asked to POST and answers 200 at once (src/ports/webhooks.ts).
 */
import { Effect } from "effect"
import type { WebhookRequest } from "../../src/ports/webhooks.js"

export const recordingSender = () => {
  const sent: Array<WebhookRequest> = []
  const sender = {
    send: (request: WebhookRequest) =>
      Effect.sync(() => {
        sent.push(request)
        return { _tag: "Answered" as const, status: 200, body: "", durationMs: 0 }
      })
  }
  /** The `type` of each webhook sent, in order. */
  const typesSent = () => sent.map((r) => (JSON.parse(r.body) as { type: string }).type)
  return { sent, sender, typesSent }
}
