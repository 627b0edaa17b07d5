/**
 * The scheduler: applies the moves state machines scheduled (`{ at, event }`, stored
 * as timers in the unit of work that asked for them) once their time has come on the
 * platform's clock, in time order, each in its own unit of work.
 *
 * - Each due timer is claimed and applied in one unit of work; on PostgreSQL the
 *   claim skips timers another process holds, so several processes never apply the
 *   same one twice.
 * - A move its machine refuses (the resource moved on, or is gone) is recorded as
 *   refused, not retried.
 * - Sandbox time: advancing a platform's clock applies every move that falls due in
 *   the interval before the call returns; nobody else's time moves.
 */
import { Clock, Effect } from "effect"
import { forbidden } from "../domain/errors.js"
import { isDeterministic, type Platform } from "../domain/platform.js"
import type { Ids } from "../ports/ids.js"
import { Platforms } from "../ports/platforms.js"
import { Store, type TimerRecord, type UnitOfWork } from "../ports/store.js"
import { applyBulkJobTimer, BULK_JOB_TIMER } from "./bulk-customers.js"
import { applyCardTransactionTimer, CARD_TRANSACTION_EXPIRY_TIMER, CARD_TRANSACTION_PULL_TIMER } from "./card-transactions.js"
import { applyExternalAccountTimer, EXTERNAL_ACCOUNT_TIMER } from "./external-accounts.js"
import { applyIncomingApprovalTimer, INCOMING_APPROVAL_TIMER } from "./money/incoming-approval.js"
import { applyPaymentTimer, PAYMENT_TIMER } from "./money/payments.js"
import { applyIncomingTimer, INCOMING_TIMER } from "./money/sandbox.js"
import {
  applyEnablementTimer,
  applyIssuanceTimer,
  applyOperationTimer,
  STABLECOIN_ENABLEMENT_TIMER,
  STABLECOIN_ISSUANCE_TIMER,
  STABLECOIN_OPERATION_TIMER
} from "./stablecoins.js"
import { asPlatformWork, baseMillisOf, clockOffsetOf, fixedClock, isoOf } from "./time.js"
import { deliverDueWebhooks } from "./webhooks.js"
import { DEFAULT_WEBHOOK_RETENTION_MILLIS, retentionPass } from "./retention.js"
import { MAX_ADVANCE_SECONDS, MAX_OFFSET_MILLIS } from "../domain/limits.js"
export { MAX_ADVANCE_SECONDS, MAX_OFFSET_MILLIS } from "../domain/limits.js"

/** Applies one due timer of its kind inside the unit of work that claimed it. */
export type TimerHandler = (uow: UnitOfWork, platform: Platform, timer: TimerRecord) => Effect.Effect<void, unknown, Store | Ids>

const HANDLERS: Readonly<Record<string, TimerHandler>> = {
  [EXTERNAL_ACCOUNT_TIMER]: applyExternalAccountTimer,
  [PAYMENT_TIMER]: applyPaymentTimer,
  [INCOMING_TIMER]: applyIncomingTimer,
  [STABLECOIN_ISSUANCE_TIMER]: applyIssuanceTimer,
  [STABLECOIN_ENABLEMENT_TIMER]: applyEnablementTimer,
  [STABLECOIN_OPERATION_TIMER]: applyOperationTimer,
  [INCOMING_APPROVAL_TIMER]: applyIncomingApprovalTimer,
  [CARD_TRANSACTION_EXPIRY_TIMER]: applyCardTransactionTimer,
  [CARD_TRANSACTION_PULL_TIMER]: applyCardTransactionTimer,
  [BULK_JOB_TIMER]: applyBulkJobTimer
}

/** How many timers one pass applies at most (the rest wait for the next pass). */
export const MAX_TIMERS_PER_PASS = 10_000

const reasonOf = (error: unknown): string =>
  typeof error === "object" && error !== null && "reason" in error && typeof error.reason === "string"
    ? error.reason
    : String(error)

/**
 * Claims and applies the platform's earliest timer due at `now`. Returns whether one
 * was found.
 */
const applyOne = (platform: Platform, now: number) =>
  Effect.gen(function*() {
    const store = yield* Store
    return yield* store.transact((uow) =>
      Effect.gen(function*() {
        const timer = yield* store.timers.claimDue(platform.id, now)
        if (timer === undefined) return false
        const handler = HANDLERS[timer.kind]
        // The move happens at the time it fell due: what it records says so.
        const outcome = handler === undefined
          ? { outcome: "refused" as const, reason: `no handler for timers of kind ${timer.kind}` }
          : yield* store.transact(() => handler(uow, platform, timer)).pipe(
            Effect.as({ outcome: "applied" as const }),
            Effect.catch((error) => Effect.succeed({ outcome: "refused" as const, reason: reasonOf(error) })),
            (effect) => Effect.clockWith((base) => Effect.provideService(effect, Clock.Clock, fixedClock(base, timer.at)))
          )
        yield* uow.recordTimerOutcome({ timer, appliedAt: now, ...outcome })
        return true
      })
    )
  })

/**
 * Applies every timer of the platform due at `now` (epoch ms on the platform's clock),
 * earliest first. Each runs on a clock reading its own due time, so what it records
 * (timestamps, webhooks) happened when it fell due. Returns how many were applied.
 */
export const runDueTimers = (platform: Platform, now: number) =>
  asPlatformWork(
    platform,
    Effect.gen(function*() {
      let applied = 0
      while (applied < MAX_TIMERS_PER_PASS && (yield* applyOne(platform, now))) applied++
      return applied
    })
  )

/**
 * Every platform's due timers, on each platform's own clock: one pass of the background
 * scheduler. A deterministic platform's moves are left to its requests (its clock moves
 * only with `/sandbox/clock/advance`, which applies them), so no background pass draws
 * ids of its stream at a time only the machine decides.
 */
export const runAllDueTimers = Effect.gen(function*() {
  const platforms = yield* Platforms
  const base = yield* Clock.currentTimeMillis
  for (const platform of yield* platforms.all) {
    if (isDeterministic(platform)) continue
    const offset = yield* clockOffsetOf(platform)
    yield* runDueTimers(platform, base + offset)
  }
})

/**
 * The background scheduler: a pass every `intervalMillis` of real time, for ever: the
 * due timers, then (when due) the retention sweep (./retention.ts; `retention.millis`
 * false: none). Failures are logged, not fatal.
 */
export const schedulerLoop = (
  intervalMillis: number,
  retention: { readonly millis: number | false; readonly sweepIntervalMillis?: number } = { millis: DEFAULT_WEBHOOK_RETENTION_MILLIS }
) =>
  Effect.suspend(() => {
    const sweep = retentionPass(retention.millis, retention.sweepIntervalMillis).pipe(
      Effect.catchCause((cause) => Effect.logWarning("Retention sweep failed; retrying on the next pass", cause))
    )
    return runAllDueTimers.pipe(
      Effect.catchCause((cause) => Effect.logWarning("Scheduler pass failed; retrying on the next pass", cause)),
      Effect.andThen(sweep),
      Effect.andThen(Effect.sleep(intervalMillis)),
      Effect.forever
    )
  })

// ---------------------------------------------------------------- sandbox time

const sandboxOnly = (platform: Platform) =>
  platform.settings.sandbox ? Effect.void : Effect.fail(forbidden("Sandbox endpoints are not available to production platforms"))

export interface SandboxClockView {
  readonly now: string
  readonly offsetSeconds: number
}

const viewOf = (base: number, offset: number): SandboxClockView => ({
  now: isoOf(base + offset),
  offsetSeconds: Math.round(offset / 1000)
})

export const getSandboxClock = Effect.fnUntraced(function*(platform: Platform) {
  yield* sandboxOnly(platform)
  const base = yield* baseMillisOf(platform)
  return viewOf(base, yield* clockOffsetOf(platform))
})

/**
 * Moves the platform's clock `seconds` ahead and applies every move that fell due, in
 * time order, before answering. Other platforms' clocks do not move.
 */
export const advanceSandboxClock = Effect.fnUntraced(function*(platform: Platform, seconds: number) {
  yield* sandboxOnly(platform)
  const store = yield* Store
  const base = yield* baseMillisOf(platform)
  const offset = yield* store.transact((uow) =>
    Effect.gen(function*() {
      const current = yield* store.clocks.offset(platform.id)
      const next = Math.min(current + Math.max(0, Math.min(seconds, MAX_ADVANCE_SECONDS)) * 1000, MAX_OFFSET_MILLIS)
      yield* uow.setClockOffset(platform.id, next)
      return next
    })
  )
  yield* runDueTimers(platform, base + offset)
  // Webhooks that fell due in the interval (new events, retries) are attempted at their
  // due times; the answer waits for them a bounded time, the rest finish in the background.
  yield* deliverDueWebhooks(platform, { replay: true, wait: true })
  // A receiver's answer may have scheduled a move inside the interval (an incoming
  // payment's approval deadline): applied too, and its webhooks sent.
  if ((yield* runDueTimers(platform, base + offset)) > 0) yield* deliverDueWebhooks(platform, { replay: true, wait: true })
  return viewOf(base, offset)
})

/** Deletes the platform's data, events, timers, idempotency keys and clock offset. */
export const resetSandbox = Effect.fnUntraced(function*(platform: Platform) {
  yield* sandboxOnly(platform)
  const store = yield* Store
  yield* store.transact((uow) => uow.resetPlatform(platform.id))
})
