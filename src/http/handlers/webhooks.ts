import { Effect } from "effect"
import * as Webhooks from "../../operations/webhooks.js"
import { implement } from "../concerns.js"
import { WebhooksGroup } from "../groups/webhooks.js"
import { CurrentPlatform } from "../middleware.js"

/**
 * Webhook endpoints run on the base clock: the delivery worker reads the platform's
 * offset itself, and what it sends never runs on the request's fiber (bounded waits only).
 */
const withPlatform = <A, E, R>(f: (platform: typeof CurrentPlatform.Service) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(Effect.service(CurrentPlatform), f)

export const WebhooksHandlers = implement(WebhooksGroup, (handlers) =>
  handlers
    .handle("getWebhookPublicKey", () => withPlatform(Webhooks.webhookPublicKeyOf))
    .handle("sendTestWebhook", () => withPlatform(Webhooks.sendTestWebhook))
    .handle("listWebhookDeliveries", ({ query }) => withPlatform((p) => Webhooks.listWebhookDeliveries(p, query)))
    .handle("redeliverWebhook", ({ params }) => withPlatform((p) => Webhooks.redeliverWebhook(p, params.deliveryId))))
