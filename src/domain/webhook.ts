/**
 * Webhook delivery as the API shows it: the test endpoint's answer (reference
 * `TestWebhookResponse`), the platform's signing public key, and the delivery log
 * (ours: `GET /sandbox/webhooks/deliveries`).
 */
import { Schema } from "effect"
import { NamedLiterals, NamedStruct, Timestamps } from "./common.js"
import { WebhookType } from "./events.js"

/** Reference `TestWebhookResponse`: what the receiver answered to a `TEST` webhook. */
export const TestWebhookResponse = NamedStruct("TestWebhookResponse", {
  url: Schema.String,
  response_status: Schema.Number,
  response_body: Schema.optionalKey(Schema.String)
})
export type TestWebhookResponse = typeof TestWebhookResponse.Type

/** The public half of the platform's webhook signing key (ours: `GET /webhooks/public-key`). */
export const WebhookPublicKey = NamedStruct("WebhookPublicKey", {
  /** Uncompressed SEC1 hex (`04…`, 130 characters) of the P-256 public key. */
  publicKey: Schema.String,
  algorithm: Schema.Literal("ECDSA_P256_SHA256"),
  /** The request header the signature travels in. */
  header: Schema.String,
  /** How the header value is encoded: base64 of the DER signature over SHA-256 of the body. */
  signatureEncoding: Schema.Literal("BASE64_DER")
})
export type WebhookPublicKey = typeof WebhookPublicKey.Type

export const WebhookDeliveryStatus = NamedLiterals("WebhookDeliveryStatus", ["PENDING", "DELIVERED", "FAILED"])
export type WebhookDeliveryStatus = typeof WebhookDeliveryStatus.Type

/** One POST to the receiver: when, how long, and what came back (a status code) or what went wrong (`error`). */
export const WebhookAttempt = NamedStruct("WebhookAttempt", {
  at: Schema.String,
  url: Schema.String,
  durationMs: Schema.Number,
  statusCode: Schema.optionalKey(Schema.Number),
  error: Schema.optionalKey(Schema.String)
})
export type WebhookAttempt = typeof WebhookAttempt.Type

/** A webhook and its attempts, newest delivery first in the log. */
export const WebhookDelivery = NamedStruct("WebhookDelivery", {
  /** The webhook's `id` (`Webhook:<uuid>`): the same on every attempt and redelivery. */
  id: Schema.String,
  type: WebhookType,
  /** The resource the webhook is about (`data.id`; the webhook's own id for `TEST`). */
  resourceId: Schema.String,
  status: WebhookDeliveryStatus,
  attempts: Schema.Array(WebhookAttempt),
  /** When the next attempt is due (PENDING only). */
  nextAttemptAt: Schema.optionalKey(Schema.String),
  ...Timestamps
})
export type WebhookDelivery = typeof WebhookDelivery.Type
