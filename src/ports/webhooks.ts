/**
 * The WebhookSender port: one HTTP POST of a webhook to a platform's endpoint, with the
 * limits of docs/webhooks.md (connect and response timeout, size of what is read back,
 * no redirects). Never fails: what went wrong is part of the answer, so a delivery
 * records it as an attempt. The reference app provides the HTTP adapter
 * (src/adapters/webhook-http.ts); without one, every send reports that it cannot send.
 */
import { Context, Effect } from "effect"

export interface WebhookRequest {
  readonly url: string
  /** The exact body bytes (UTF-8 JSON) that were signed. */
  readonly body: string
  readonly headers: Readonly<Record<string, string>>
}

export type WebhookResponse =
  | { readonly _tag: "Answered"; readonly status: number; readonly body: string; readonly durationMs: number }
  | { readonly _tag: "Failed"; readonly error: string; readonly durationMs: number }

export interface WebhookSenderService {
  readonly send: (request: WebhookRequest) => Effect.Effect<WebhookResponse>
}

/** A reference with a default, so that the ports' Layer stays `Store | Ids | Platforms`. */
export const WebhookSender: Context.Reference<WebhookSenderService> = Context.Reference<WebhookSenderService>(
  "payments-service/ports/WebhookSender",
  {
    defaultValue: () => ({
      send: () => Effect.succeed({ _tag: "Failed", error: "no webhook sender is configured in this process", durationMs: 0 })
    })
  }
)
