/**
 * The reference server's clock: real time plus a sandbox-controlled offset, so a
 * platform engineer can make "3 days later" happen now (POST /sandbox/clock/advance).
 */
import { Clock, Context, Effect, Layer } from "effect"

export class VirtualClock extends Context.Service<VirtualClock, {
  readonly clock: Clock.Clock
  readonly offsetMillis: () => number
  readonly advance: (millis: number) => void
}>()("payments-service/http/VirtualClock") {
  static readonly make = (base: Clock.Clock) => {
    let offset = 0
    const clock: Clock.Clock = {
      currentTimeMillisUnsafe: () => base.currentTimeMillisUnsafe() + offset,
      currentTimeMillis: Effect.sync(() => base.currentTimeMillisUnsafe() + offset),
      currentTimeNanosUnsafe: () => base.currentTimeNanosUnsafe() + BigInt(offset) * 1_000_000n,
      currentTimeNanos: Effect.sync(() => base.currentTimeNanosUnsafe() + BigInt(offset) * 1_000_000n),
      monotonicTimeNanosUnsafe: () => base.monotonicTimeNanosUnsafe(),
      monotonicTimeNanos: base.monotonicTimeNanos,
      sleep: (duration) => base.sleep(duration)
    }
    return VirtualClock.of({ clock, offsetMillis: () => offset, advance: (ms) => void (offset += ms) })
  }

  /** A virtual clock over whatever Clock the layer is built with (TestClock in tests). */
  static readonly layer = Layer.effect(VirtualClock, Effect.map(Effect.clockWith(Effect.succeed), VirtualClock.make))
}
