/**
 * Time as the operations see it: always from Effect's Clock, so tests and the sandbox
 * can move it. A sandbox platform's clock is the base clock plus the platform's own
 * persisted offset (POST /sandbox/clock/advance); a production platform's clock is
 * the base clock, always.
 */
import { Clock, Context, Effect, type Fiber } from "effect"
import { DETERMINISTIC_EPOCH_MILLIS, isDeterministic, type Platform, standingClock } from "../domain/platform.js"
import { DeterministicPlatform } from "../ports/ids.js"
import { Store } from "../ports/store.js"

/**
 * Now on the fiber's clock, in ms: `Clock.currentTimeMillis` in one step of the runtime
 * instead of two (a payment reads the clock about ten times). Every clock here reads
 * `currentTimeMillisUnsafe` as its `currentTimeMillis` does.
 */
export const nowMillis: Effect.Effect<number> = Effect.withFiberSucceed((fiber) => fiber.getRef(Clock.Clock).currentTimeMillisUnsafe())

/** The largest instant a Date holds, either side of the epoch. */
const MAX_DATE_MILLIS = 8_640_000_000_000_000

/** "000Z" … "999Z": the milliseconds and zone of an ISO text. */
const MILLIS_SUFFIXES: ReadonlyArray<string> = Array.from({ length: 1000 }, (_, i) => `${String(i).padStart(3, "0")}Z`)

/**
 * The ISO text of the last few seconds formatted, without their milliseconds (a request
 * formats now, now + a quote's TTL, a settlement time, … in turn).
 */
const ISO_SLOTS = 4
const isoSeconds: Array<number> = Array.from({ length: ISO_SLOTS }, () => Number.NaN)
const isoPrefixes: Array<string> = Array.from({ length: ISO_SLOTS }, () => "")
let isoNext = 0

const isoPrefixOf = (second: number): string => {
  for (let i = 0; i < ISO_SLOTS; i++) if (isoSeconds[i] === second) return isoPrefixes[i]!
  const text = new Date(second * 1000).toISOString()
  const prefix = text.slice(0, text.length - 4)
  isoSeconds[isoNext] = second
  isoPrefixes[isoNext] = prefix
  isoNext = (isoNext + 1) % ISO_SLOTS
  return prefix
}

/**
 * ISO-8601 text of an instant, exactly as `Date.prototype.toISOString` writes it: the
 * text of its second is formatted once (`toISOString` costs about a microsecond, and a
 * payment formats a dozen instants), its milliseconds appended.
 */
export const isoOf = (millis: number): string => {
  // Fractions, NaN and instants past a Date's range: as toISOString has them (truncated, or a RangeError).
  if (!Number.isSafeInteger(millis) || millis > MAX_DATE_MILLIS || millis < -MAX_DATE_MILLIS) return new Date(millis).toISOString()
  const second = Math.floor(millis / 1000)
  return isoPrefixOf(second) + MILLIS_SUFFIXES[millis - second * 1000]!
}

export const nowIso: Effect.Effect<string> = Effect.withFiberSucceed((fiber) => isoOf(fiber.getRef(Clock.Clock).currentTimeMillisUnsafe()))

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
  platform.settings.sandbox ? Store.use((store) => store.clocks.offset(platform.id)) : Effect.succeed(0)


/**
 * Runs `effect` as work of the platform: a deterministic platform's (its
 * `deterministicSeed`, docs/sandbox.md#deterministic-runs) ids come from its own seeded
 * stream. Set where the platform's work starts: the request pipeline once it has
 * authenticated, the platform's clock, scheduler and webhook passes.
 */
export const asPlatformWork = <A, E, R>(platform: Platform, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  platform.deterministicSeed !== undefined && isDeterministic(platform)
    ? Effect.provideService(effect, DeterministicPlatform, { platformId: platform.id, seed: platform.deterministicSeed })
    : effect

/** The platform's base instant: the deterministic epoch, standing still, for a deterministic platform; else the base clock. */
export const baseMillisOf = (platform: Platform): Effect.Effect<number> =>
  isDeterministic(platform) ? Effect.succeed(DETERMINISTIC_EPOCH_MILLIS) : Clock.currentTimeMillis

/** Now on the platform's clock, asked from the base clock (outside `onPlatformClock`). */
export const platformNowOf = (platform: Platform): Effect.Effect<number, never, Store> =>
  Effect.flatMap(baseMillisOf(platform), (base) => Effect.map(clockOffsetOf(platform), (offset) => base + offset))

/** Under a deterministic platform's standing clock: the base clock it stands in for (else undefined). */
export const ClockUnderStanding = Context.Reference<Clock.Clock | undefined>("payments-service/operations/ClockUnderStanding", {
  defaultValue: () => undefined
})

const onOffset = <A, E, R>(platform: Platform, effect: Effect.Effect<A, E, R>, offset: number): Effect.Effect<A, E, R> =>
  isDeterministic(platform)
    ? Effect.clockWith((base) =>
      effect.pipe(
        Effect.provideService(Clock.Clock, standingClock(base, DETERMINISTIC_EPOCH_MILLIS + offset)),
        Effect.provideService(ClockUnderStanding, base)
      ))
    : offset === 0
    ? effect
    : Effect.clockWith((base) => Effect.provideService(effect, Clock.Clock, offsetClock(base, offset)))

/** The platform whose clock the current effect already runs on (set by `aroundPlatformClock`). */
const OnClockOf = Context.Reference<string | undefined>("payments-service/operations/OnClockOf", { defaultValue: () => undefined })

/** `effect` on the offset `store` holds for the platform (the last seen one, where the store offers it). */
const onOffsetIn = <A, E, R>(store: Store["Service"], platform: Platform, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  store.clocks.onLastSeenOffset !== undefined
    ? store.clocks.onLastSeenOffset(platform.id, (offset) => onOffset(platform, effect, offset))
    : Effect.flatMap(store.clocks.offset(platform.id), (offset) => onOffset(platform, effect, offset))

const onStoredOffset = <A, E, R>(platform: Platform, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R | Store> =>
  Store.use((store) => onOffsetIn(store, platform, effect))

/**
 * Runs `effect` on the platform's clock, with the offset stored when it starts (read
 * first, or, on a store that offers it, the offset last seen, which the store checks
 * in the effect's first statement and reruns the effect on when it was stale). Inside
 * `aroundPlatformClock` for the same platform it runs `effect` as it is.
 */
export const onPlatformClock = <A, E, R>(platform: Platform, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R | Store> =>
  platform.settings.sandbox ? Effect.withFiber((fiber): Effect.Effect<A, E, R | Store> => onPlatformClockIn(fiber, platform, effect)) : effect

/**
 * `onPlatformClock` in a fiber already at hand (`Effect.withFiber`): what it runs,
 * reading `OnClockOf` and the store from the fiber's context with no step of its own
 * (the HTTP handlers' `run` reads the platform in the same step).
 */
export const onPlatformClockIn = <A, E, R>(fiber: Fiber.Fiber<unknown, unknown>, platform: Platform, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R | Store> => {
  if (!platform.settings.sandbox || fiber.getRef(OnClockOf) === platform.id) return effect
  return asPlatformWork(platform, onOffsetIn(Context.getUnsafe(fiber.context, Store), platform, effect))
}

/**
 * `onPlatformClock` around an effect that asks for the platform's clock again inside
 * (the HTTP layer's idempotency step around a handler): the inner asks run as they are,
 * on this clock, so the offset is applied once.
 */
export const aroundPlatformClock = <A, E, R>(platform: Platform, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R | Store> =>
  platform.settings.sandbox ? asPlatformWork(platform, onStoredOffset(platform, Effect.provideService(effect, OnClockOf, platform.id))) : effect

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
