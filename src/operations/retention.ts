/**
 * Retention (docs/webhooks.md#retention): what the webhook outbox keeps, so that a
 * sandbox left running for months does not grow without bound.
 *
 * - A finished delivery (DELIVERED, or FAILED after its last attempt), with its attempts,
 *   is kept for the retention period after it finished, on the platform's clock; then
 *   it is removed. PENDING deliveries (a first attempt or a retry still to come) are
 *   never removed.
 * - An event is kept until every consumer has passed it (the webhook import's cursor;
 *   with no endpoint configured nothing will ever take it, since setting one starts
 *   from the newest event) and it is older than the retention period; then it is
 *   removed. The platform's newest event is always kept, so the outbox's highest `seq`
 *   (`lastEventSeq`) never goes back.
 *
 * The background scheduler runs the sweep (`retentionPass`), never a request: each pass
 * removes at most `SWEEP_BATCH` deliveries and examines at most `SWEEP_BATCH` events
 * per platform, each in a unit of work of its own, then asks the store for the space of
 * what was removed (`Store.reclaim`: PGlite's VACUUM, docs/storage.md).
 */
import { Clock, Effect } from "effect"
import type { Platform } from "../domain/platform.js"
import { Platforms } from "../ports/platforms.js"
import { Store } from "../ports/store.js"
import { configOf } from "./money/config.js"
import { clockOffsetOf } from "./time.js"

/** The default retention period: 7 days of the platform's clock. */
export const DEFAULT_WEBHOOK_RETENTION_MILLIS = 7 * 24 * 3_600_000
/** Deliveries removed, and events examined, per platform and pass at most. */
export const SWEEP_BATCH = 2_000
/** How often (real time) the background scheduler sweeps by default; sooner while a pass finds a full batch. */
export const DEFAULT_SWEEP_INTERVAL_MILLIS = 60_000

export interface SweepResult {
  readonly deliveries: number
  readonly events: number
}

/**
 * One sweep of one platform at `now` (epoch ms on its clock): removes the finished
 * deliveries and consumed events older than `retentionMillis`, a batch of each at most.
 */
export const sweepPlatform = (platform: Platform, now: number, retentionMillis: number, batch = SWEEP_BATCH) =>
  Effect.gen(function*() {
    const store = yield* Store
    const before = now - Math.max(0, retentionMillis)
    const deliveries = yield* store.transact((uow) => uow.sweepWebhookDeliveries(platform.id, before, batch))
    const events = yield* store.transact((uow) =>
      Effect.gen(function*() {
        const last = yield* store.webhooks.lastEventSeq(platform.id)
        // Consumed: what the import has taken; without an endpoint, everything (setting one
        // starts after the newest event). The newest itself stays: lastEventSeq never goes back.
        const endpoint = (yield* configOf(platform)).webhookEndpoint
        const consumed = endpoint === undefined ? last : ((yield* store.webhooks.cursor(platform.id)) ?? 0)
        const upToSeq = Math.min(consumed, last - 1)
        if (upToSeq <= 0) return 0
        return yield* uow.sweepEvents(platform.id, { upToSeq, before, limit: batch })
      })
    )
    const result: SweepResult = { deliveries, events }
    return result
  })

/** One sweep of every platform, each on its own clock. Returns the most removed on one platform (a full batch: more is due). */
export const sweepAllPlatforms = (retentionMillis: number, batch = SWEEP_BATCH) =>
  Effect.gen(function*() {
    const platforms = yield* Platforms
    const base = yield* Clock.currentTimeMillis
    let most = 0
    for (const platform of yield* platforms.all) {
      const offset = yield* clockOffsetOf(platform)
      const r = yield* sweepPlatform(platform, base + offset, retentionMillis, batch).pipe(
        Effect.catchCause((cause) => Effect.as(Effect.logWarning(`Retention sweep for ${platform.id} failed`, cause), { deliveries: 0, events: 0 }))
      )
      most = Math.max(most, r.deliveries, r.events)
    }
    return most
  })

/**
 * The scheduler's retention step: sweeps when `intervalMillis` of real time have passed
 * since the last sweep, or at once while the last one removed a full batch (a backlog),
 * then has the store reclaim (PGlite: VACUUM and CHECKPOINT), which it does once per
 * interval while retention is off too. Stateful per loop: build one per scheduler.
 */
export const retentionPass = (retentionMillis: number | false, intervalMillis = DEFAULT_SWEEP_INTERVAL_MILLIS) => {
  let lastSweep = Number.NEGATIVE_INFINITY
  let backlog = false
  return Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    if (!backlog && now - lastSweep < intervalMillis) return
    lastSweep = now
    backlog = retentionMillis === false ? false : (yield* sweepAllPlatforms(retentionMillis)) >= SWEEP_BATCH
    // What the sweep removed, reusable again where the database does not see to it (PGlite),
    // and PGlite's log checkpointed: also while retention is off (updated rows leave space,
    // and every write leaves log).
    const store = yield* Store
    if (store.reclaim !== undefined) yield* store.reclaim()
  })
}
