/**
 * A webhook delivery record for the store and worker tests: PENDING, never attempted,
 * due, created and updated at `at` (what `importEvents` writes for a new event). Each
 * test names its own id, seq, resource, type and body.
 */
import type { WebhookDeliveryRecord } from "../../src/ports/webhooks.js"

export const pendingDelivery = (d: {
  readonly platformId: string
  readonly id: string
  readonly seq: number
  readonly resourceId: string
  readonly at: number
  readonly type?: string
  readonly body?: string
}): WebhookDeliveryRecord => ({
  platformId: d.platformId,
  id: d.id,
  seq: d.seq,
  type: d.type ?? "TEST",
  resourceId: d.resourceId,
  body: d.body ?? "{}",
  status: "PENDING",
  attempts: [],
  round: 0,
  nextAttemptAt: d.at,
  createdAt: d.at,
  updatedAt: d.at
})
