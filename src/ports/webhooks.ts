/**
 * The WebhookSender port: one HTTP POST of a webhook to a platform's endpoint, with the
 * limits of docs/webhooks.md (connect and response timeout, size of what is read back,
 * no redirects). Never fails: what went wrong is part of the answer, so a delivery
 * records it as an attempt. The reference app provides the HTTP adapter
 * (src/adapters/webhook-http.ts); without one, every send reports that it cannot send.
 *
 * Also the webhooks part of the Store port (see ./store.ts): the signing key, the
 * outbox cursor and the deliveries.
 */
import { Context, Effect } from "effect"
import type { Platform } from "../domain/platform.js"
import type { DestinationRefusal } from "../domain/webhook-destinations.js"
import type { InvalidCursor, Page, PageResult, RecordById } from "./shared.js"

export interface WebhookRequest {
  readonly url: string
  /** The exact body bytes (UTF-8 JSON) that were signed. */
  readonly body: string
  readonly headers: Readonly<Record<string, string>>
  /** Whose webhook it is: the sender checks the destination against this platform's (docs/webhooks.md#destinations). */
  readonly platform?: Platform
}

export type WebhookResponse =
  | { readonly _tag: "Answered"; readonly status: number; readonly body: string; readonly durationMs: number }
  | { readonly _tag: "Failed"; readonly error: string; readonly durationMs: number }

export interface WebhookSenderService {
  readonly send: (request: WebhookRequest) => Effect.Effect<WebhookResponse>
  /**
   * Why `url` may not receive `platform`'s webhooks, as far as can be told now (an
   * address, or a name that resolves to one, the platform's destinations refuse);
   * undefined when nothing refuses it yet. PATCH /config answers 400 for a refusal.
   */
  readonly endpointRefusal?: (url: string, platform: Platform) => Effect.Effect<DestinationRefusal | undefined>
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

/** The platform's webhook signing key pair (P-256, lowercase hex), created on first use and kept across sandbox resets. */
export interface WebhookSigningKeyRecord {
  readonly platformId: string
  readonly privateKeyHex: string
  /** Uncompressed SEC1 (`04…`). */
  readonly publicKeyHex: string
  readonly createdAt: number
}

/** One POST of a webhook: `at` epoch ms on the platform's clock; a status code, or what went wrong. */
export interface WebhookAttemptRecord {
  readonly at: number
  readonly url: string
  readonly durationMs: number
  readonly statusCode?: number
  readonly error?: string
}

/**
 * One outbox event on its way to the platform's endpoint. `id` is the event's id (the
 * webhook `id` receivers deduplicate on), `seq` its outbox position (delivery order),
 * `body` the exact bytes sent on every attempt. `lease` marks an attempt in flight:
 * until `until` (epoch ms of real time) nobody else makes one.
 */
export interface WebhookDeliveryRecord {
  readonly platformId: string
  readonly id: string
  readonly seq: number
  readonly type: string
  readonly resourceId: string
  readonly body: string
  readonly status: "PENDING" | "DELIVERED" | "FAILED"
  /** The most recent attempts, oldest first (bounded). */
  readonly attempts: ReadonlyArray<WebhookAttemptRecord>
  /** Attempts made since the delivery (or its redelivery) started: the retry schedule's position. */
  readonly round: number
  /** Epoch ms on the platform's clock when the next attempt is due (PENDING only). */
  readonly nextAttemptAt: number
  readonly createdAt: number
  readonly updatedAt: number
  readonly lease?: { readonly token: string; readonly until: number } | undefined
}

export interface WebhookRepository extends RecordById<WebhookDeliveryRecord> {
  readonly signingKey: (platformId: string) => Effect.Effect<WebhookSigningKeyRecord | undefined>
  /** The outbox `seq` up to which events were taken for delivery (undefined: never). */
  readonly cursor: (platformId: string) => Effect.Effect<number | undefined>
  /** The platform's highest committed event `seq` (0 when none). */
  readonly lastEventSeq: (platformId: string) => Effect.Effect<number>
  /** The platform's deliveries, newest first (keyset on `(seq, id)`). */
  readonly list: (platformId: string, page: Page) => Effect.Effect<PageResult<WebhookDeliveryRecord>, InvalidCursor>
  /** The platform's deliveries of these ids that exist (in no particular order). */
  readonly getMany: (platformId: string, ids: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<WebhookDeliveryRecord>>
  /**
   * The platform's next deliveries to attempt at `now` (platform clock), the soonest due
   * first, at most `limit`, inside a unit of work: each PENDING, due, not leased at
   * `leaseNow` (real time), and with no earlier PENDING delivery for the same resource (its
   * resource's head: so no two of one resource). Its work is the heads due now, whatever
   * waits behind them (the stores keep the heads as deliveries are written). On the SQL
   * stores they are locked (`FOR UPDATE SKIP LOCKED`) so that the caller can lease them
   * (`putWebhookDeliveries`) before committing.
   */
  readonly claimDue: (platformId: string, now: number, leaseNow: number, limit: number) => Effect.Effect<ReadonlyArray<WebhookDeliveryRecord>>
}

export interface WebhookWrites {
  /** Stores the platform's signing key unless it has one; returns the one stored (a racing first use loses to the winner). */
  readonly putWebhookSigningKey: (record: WebhookSigningKeyRecord) => Effect.Effect<WebhookSigningKeyRecord>
  /** Sets the outbox `seq` up to which events were taken for delivery. */
  readonly setWebhookCursor: (platformId: string, seq: number) => Effect.Effect<void>
  /**
   * Adds deliveries (in `seq` order), each unless one with its id exists (importing an
   * event twice adds it once): on the SQL stores one statement per platform for them all.
   */
  readonly addWebhookDeliveries: (records: ReadonlyArray<WebhookDeliveryRecord>) => Effect.Effect<void>
  /** Writes deliveries' new states (lease, attempt, status): on the SQL stores one statement per platform for them all. */
  readonly putWebhookDeliveries: (records: ReadonlyArray<WebhookDeliveryRecord>) => Effect.Effect<void>
  /**
   * Removes at most `limit` of the platform's finished deliveries (DELIVERED or FAILED,
   * with their attempts) last updated before `finishedBefore` (epoch ms, platform
   * clock), oldest first. PENDING ones are never removed. Returns how many were removed.
   */
  readonly sweepWebhookDeliveries: (platformId: string, finishedBefore: number, limit: number) => Effect.Effect<number>
}
