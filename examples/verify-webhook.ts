// A receiver's check, in ten lines: verify the signature over the raw body, then decode.
// Published import: import { parseWebhookEnvelope, signWebhookBody, verifyWebhookSignature } from "payments-service"
import { p256KeyPairFromPrivateKey, parseWebhookEnvelope, signWebhookBody, verifyWebhookSignature } from "../src/index.js"

// What the server sends (here signed with a throwaway key; yours comes from GET /webhooks/public-key).
const key = p256KeyPairFromPrivateKey("c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721")!
const body = JSON.stringify({ id: "Webhook:019542f5-b3e7-1d02-0000-000000000007", type: "TEST", timestamp: "2025-10-13T09:30:00.000Z" })
const header = signWebhookBody(body, key.privateKeyHex) // the X-Service-Signature header

if (!verifyWebhookSignature(body, header, key.publicKeyHex)) throw new Error("bad signature: answer 401")
const webhook = parseWebhookEnvelope(body) // typed by webhook.type; answer 409 for an id already processed
console.log(`verified ${webhook.type} ${webhook.id}; a changed body fails: ${verifyWebhookSignature(body + " ", header, key.publicKeyHex)}`)
