/**
 * A FIFO mutex for units of work. Uncontended it is a flag flip, which matters on
 * the hot path (Semaphore.withPermits measured about 7 µs per unit of work here);
 * contended, waiters queue and are handed the lock in order.
 *
 * Both the wait and the guarded effect can be interrupted: a waiter leaves the queue
 * (or, if the lock was handed to it in the meantime, passes it on), and an interrupted
 * unit of work stops where it is (its undo log rolls it back) and releases the lock.
 */
import { Effect } from "effect"

interface Waiter {
  readonly wake: () => void
  /** Set when the lock was handed to this waiter. */
  granted: boolean
}

export const makeMutex = () => {
  let locked = false
  const waiters: Array<Waiter> = []
  const releaseNow = () => {
    const next = waiters.shift()
    if (next === undefined) locked = false
    else {
      next.granted = true
      next.wake()
    }
  }
  const release = Effect.sync(releaseNow)
  const acquire = Effect.suspend(() => {
    if (!locked) {
      locked = true
      return Effect.void
    }
    return Effect.callback<void>((resume) => {
      const waiter: Waiter = { wake: () => resume(Effect.void), granted: false }
      waiters.push(waiter)
      // Interrupted while waiting: leave the queue, or pass on a lock already handed over.
      return Effect.sync(() => {
        if (waiter.granted) releaseNow()
        else {
          const at = waiters.indexOf(waiter)
          if (at !== -1) waiters.splice(at, 1)
        }
      })
    })
  })
  const exclusive = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.uninterruptibleMask((restore) => Effect.flatMap(restore(acquire), () => Effect.ensuring(restore(self), release)))
  /**
   * A synchronous read: when nobody holds the lock it runs at once (JavaScript runs it
   * to the end before anything else can start); otherwise it waits its turn like a
   * unit of work, so it never sees half of one.
   */
  const read = <A>(f: () => A): Effect.Effect<A> =>
    Effect.suspend(() => (locked ? exclusive(Effect.sync(f)) : Effect.succeed(f())))
  return { exclusive, read }
}
