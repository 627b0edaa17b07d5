/**
 * Time as the operations see it: always from Effect's Clock, so tests and the sandbox
 * can move it. A sandbox platform's clock is the base clock plus the platform's own
 * persisted offset (POST /sandbox/clock/advance); a production platform's clock is
 * the base clock, always.
 */
import { Clock, Context, Effect } from "effect"
import type { Platform } from "../domain/platform.js"
import { Store } from "../ports/store.js"

export const nowMillis = Clock.currentTimeMillis

let lastMillis = Number.NaN
let lastIso = ""

/** ISO-8601 text of an instant; consecutive calls within the same millisecond share the string. */
export const isoOf = (millis: number): string => {
  if (millis !== lastMillis) {
    lastIso = new Date(millis).toISOString()
    lastMillis = millis
  }
  return lastIso
}

export const nowIso = Effect.map(Clock.currentTimeMillis, isoOf)

/** A clock `offset` ms ahead of `base`. */
export const offsetClock = (base: Clock.Clock, offset: number): Clock.Clock => {
  if (offset === 0) return base
  const nanos = BigInt(offset) * 1_000_000n
  return {
    currentTimeMillisUnsafe: () => base.currentTimeMillisUnsafe() + offset,
    currentTimeMillis: Effect.sync(() => base.currentTimeMillisUnsafe() + offset),
    currentTimeNanosUnsafe: () => base.currentTimeNanosUnsafe() + nanos,
    currentTimeNanos: Effect.sync(() => base.currentTimeNanosUnsafe() + nanos),
    monotonicTimeNanosUnsafe: () => base.monotonicTimeNanosUnsafe(),
    monotonicTimeNanos: base.monotonicTimeNanos,
    sleep: (duration) => base.sleep(duration)
  }
}

/** The platform's sandbox offset in ms: 0 for a production platform, whatever the store says. */
export const clockOffsetOf = (platform: Platform): Effect.Effect<number, never, Store> =>
  platform.settings.sandbox ? Effect.flatMap(Effect.service(Store), (store) => store.clocks.offset(platform.id)) : Effect.succeed(0)

const onOffset = <A, E, R>(effect: Effect.Effect<A, E, R>, offset: number): Effect.Effect<A, E, R> =>
  offset === 0 ? effect : Effect.clockWith((base) => Effect.provideService(effect, Clock.Clock, offsetClock(base, offset)))

/** The platform whose clock the current effect already runs on (set by `aroundPlatformClock`). */
const OnClockOf = Context.Reference<string | undefined>("payments-service/operations/OnClockOf", { defaultValue: () => undefined })

const onStoredOffset = <A, E, R>(platform: Platform, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R | Store> =>
  Effect.flatMap(Effect.service(Store), (store) =>
    store.clocks.onLastSeenOffset !== undefined
      ? store.clocks.onLastSeenOffset(platform.id, (offset) => onOffset(effect, offset))
      : Effect.flatMap(store.clocks.offset(platform.id), (offset) => onOffset(effect, offset)))

/**
 * Runs `effect` on the platform's clock, with the offset stored when it starts (read
 * first, or, on a store that offers it, the offset last seen, which the store checks
 * in the effect's first statement and reruns the effect on when it was stale). Inside
 * `aroundPlatformClock` for the same platform it runs `effect` as it is.
 */
export const onPlatformClock = <A, E, R>(platform: Platform, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R | Store> =>
  platform.settings.sandbox
    ? Effect.flatMap(Effect.service(OnClockOf), (current) => current === platform.id ? effect : onStoredOffset(platform, effect))
    : effect

/**
 * `onPlatformClock` around an effect that asks for the platform's clock again inside
 * (the HTTP layer's idempotency step around a handler): the inner asks run as they are,
 * on this clock, so the offset is applied once.
 */
export const aroundPlatformClock = <A, E, R>(platform: Platform, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R | Store> =>
  platform.settings.sandbox ? onStoredOffset(platform, Effect.provideService(effect, OnClockOf, platform.id)) : effect

/** A clock that reads `at` (epoch ms) whenever asked: for applying a move at the time it fell due. */
export const fixedClock = (base: Clock.Clock, at: number): Clock.Clock => ({
  ...base,
  currentTimeMillisUnsafe: () => at,
  currentTimeMillis: Effect.succeed(at),
  currentTimeNanosUnsafe: () => BigInt(at) * 1_000_000n,
  currentTimeNanos: Effect.succeed(BigInt(at) * 1_000_000n)
})

/** Runs `effect` on a clock that reads `at`. */
export const onClockAt = <A, E, R>(effect: Effect.Effect<A, E, R>, at: number): Effect.Effect<A, E, R> =>
  Effect.clockWith((base) => Effect.provideService(effect, Clock.Clock, fixedClock(base, at)))
