/**
 * Webhooks: the signing public key (ours), the reference's test webhook, and the
 * delivery log with redelivery (ours, sandbox). See docs/webhooks.md.
 */
import { HttpApiEndpoint, OpenApi } from "effect/http-api"
import { IdText, ListResponse, PageQuery } from "../../domain/common.js"
import { Error400, Error403, Error404 } from "../../domain/errors.js"
import { TestWebhookResponse, WebhookDelivery, WebhookPublicKey } from "../../domain/webhook.js"
import { declare } from "../declarations.js"
import { apiGroup } from "../endpoints.js"

export class WebhooksGroup extends apiGroup("webhooks", { title: "Webhooks", permission: "MANAGE" },
  HttpApiEndpoint.get("getWebhookPublicKey", "/webhooks/public-key", { success: WebhookPublicKey })
    .annotate(OpenApi.Description, "Ours: the P-256 public key the platform's webhooks are signed with (also `webhookPublicKey` in GET /config)."),
  HttpApiEndpoint.post("sendTestWebhook", "/sandbox/webhooks/test", {
    success: TestWebhookResponse,
    error: [Error400, Error403]
  }).annotate(OpenApi.Description, "Sends one signed TEST webhook to the configured endpoint now and answers what it said.").pipe(declare({ sandboxOnly: true })),
  HttpApiEndpoint.get("listWebhookDeliveries", "/sandbox/webhooks/deliveries", {
    query: PageQuery,
    success: ListResponse(WebhookDelivery, "WebhookDeliveryListResponse"),
    error: Error403
  }).annotate(OpenApi.Description, "Ours: the platform's webhook deliveries, newest first, each with its attempts.").pipe(declare({ sandboxOnly: true })),
  HttpApiEndpoint.post("redeliverWebhook", "/sandbox/webhooks/deliveries/:deliveryId/redeliver", {
    params: { deliveryId: IdText },
    success: WebhookDelivery,
    error: [Error403, Error404]
  }).annotate(OpenApi.Description, "Ours: starts a delivery over (same id and body, a fresh retry schedule) and attempts it before answering.")
    .pipe(declare({ sandboxOnly: true }))
) {}
