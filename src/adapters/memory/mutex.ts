/**
 * A FIFO mutex for units of work. Uncontended it is a flag flip done by the caller in
 * the same step that sets up its unit of work (`tryLock`), which matters on the hot
 * path (Semaphore.withPermits measured about 7 µs per unit of work here); contended,
 * waiters queue (`waitTurn`) and are handed the lock in order.
 *
 * The lock is free only when nobody waits (a release hands it to the first waiter
 * directly), so `tryLock` never overtakes a waiter. The wait can be interrupted: a
 * waiter leaves the queue, or, if the lock was handed to it in the meantime, passes it
 * on. Whoever holds the lock releases it with `unlock`, once.
 */
import { Effect } from "effect"

interface Waiter {
  readonly wake: () => void
  /** Set when the lock was handed to this waiter. */
  granted: boolean
}

export interface Mutex {
  /** Whether a unit of work holds the lock. */
  readonly isLocked: () => boolean
  /** Takes the lock if it is free (then nobody waits either); false if it is held. */
  readonly tryLock: () => boolean
  /** Releases the lock: to the first waiter, or free when nobody waits. */
  readonly unlock: () => void
  /** Waits until the lock is handed over (the caller holds it then); run it interruptibly. */
  readonly waitTurn: Effect.Effect<void>
  /** Runs `self` holding the lock (waiting its turn if need be), and releases it however `self` ends. */
  readonly exclusive: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

export const makeMutex = (): Mutex => {
  let locked = false
  const waiters: Array<Waiter> = []
  const unlock = () => {
    const next = waiters.shift()
    if (next === undefined) locked = false
    else {
      next.granted = true
      next.wake()
    }
  }
  const tryLock = () => {
    if (locked) return false
    locked = true
    return true
  }
  const waitTurn = Effect.callback<void>((resume) => {
    const waiter: Waiter = { wake: () => resume(Effect.void), granted: false }
    waiters.push(waiter)
    // Interrupted while waiting: leave the queue, or pass on a lock already handed over.
    return Effect.sync(() => {
      if (waiter.granted) unlock()
      else {
        const at = waiters.indexOf(waiter)
        if (at !== -1) waiters.splice(at, 1)
      }
    })
  })
  const release = Effect.sync(unlock)
  const exclusive = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.uninterruptibleMask((restore) =>
      tryLock() ? Effect.ensuring(restore(self), release) : Effect.flatMap(restore(waitTurn), () => Effect.ensuring(restore(self), release))
    )
  return { isLocked: () => locked, tryLock, unlock, waitTurn, exclusive }
}
