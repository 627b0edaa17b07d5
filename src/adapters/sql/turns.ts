/**
 * Turns on a platform's ledger (issue #24): on PostgreSQL, units of work that move one
 * platform's money take turns, in this process and across every process sharing the
 * database, instead of racing and aborting each other under SERIALIZABLE.
 *
 * Why not `SELECT … FOR UPDATE` of the debited balance inside the unit of work: a
 * SERIALIZABLE (or REPEATABLE READ) transaction takes its snapshot at its first statement,
 * before it waits for the row lock; once the holder commits, the waiter's snapshot is
 * older than the row, and PostgreSQL answers "could not serialize access due to
 * concurrent update". Every waiter fails, reruns and waits again: a burst of N payments
 * from one account costs about N²/2 attempts and ends in 503s. The same holds for the
 * platform's event lock (`emit`, ./events.ts, `pg_advisory_xact_lock(hashtext(platform))`,
 * which makes event order commit order): a unit of work that waited for it mid-transaction
 * went on with a snapshot older than everything committed meanwhile, became the pivot
 * of a read/write cycle with payers it shares nothing with, and reran, up to the 24
 * attempts (`bench/money-ops.ts`, 10 independent payers: 7 units of work in 1,500 past 20
 * attempts, one uncaught).
 *
 * So the turn is taken BEFORE the transaction starts: that same event lock, at session
 * level (`pg_advisory_lock(hashtext(platform))`), on the very connection the transaction
 * then runs on, released after it ends. The transaction's own `emit` takes the lock again
 * at once (advisory locks are re-entrant per session). A waiter's transaction begins
 * after the holder committed, on a snapshot that sees it: it queues and does not abort.
 * A platform's money moves one unit of work at a time, as it did from the first event on.
 *
 * In this process a semaphore per platform lets one such unit of work at a time go to
 * the database, so the waiters wait here and do not hold the pool's connections (other
 * platforms' requests keep getting them).
 */
import { Cause, Context, Effect, Scope, Semaphore } from "effect"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"

/**
 * The platforms whose ledger the current attempt of a unit of work moved (the SQL
 * ledger's `post` adds to it): when the attempt loses a serialization race, the unit of
 * work reruns holding their turns, so it loses no second race on them.
 */
export const CurrentMoves = Context.Reference<Set<string> | undefined>("payments-service/adapters/sql/CurrentMoves", {
  defaultValue: () => undefined
})

/** Notes that the current attempt moves `platformId`'s ledger (a no-op outside a unit of work of the SQL store). */
export const noteMove = (platformId: string): Effect.Effect<void> =>
  CurrentMoves.useSync((moves) => {
    moves?.add(platformId)
  })

/** The turns the current attempt of a unit of work holds (undefined outside one, or where there are no turns). */
export const CurrentTurns = Context.Reference<ReadonlySet<string> | undefined>("payments-service/adapters/sql/CurrentTurns", {
  defaultValue: () => undefined
})

/**
 * Ends an attempt of a unit of work whose nested unit of work names a platform's ledger
 * the attempt does not hold (an operation run inside another's unit of work, such as an
 * idempotent request's): a turn cannot be taken inside a transaction, so the enclosing
 * unit of work runs again holding it. Nothing of the attempt is kept.
 */
export class WidenTurns extends Error {
  constructor(readonly platformIds: ReadonlyArray<string>) {
    super("A nested unit of work moves a ledger its enclosing unit of work holds no turn on; it runs again holding it")
  }
}

/** The turns a failed attempt asks its unit of work to hold, if it ended for that. */
export const widenedBy = (cause: Cause.Cause<unknown>): ReadonlyArray<string> | undefined => {
  for (const r of cause.reasons) if (Cause.isDieReason(r) && r.defect instanceof WidenTurns) return r.defect.platformIds
  return undefined
}

/** Runs an effect as a transaction's work on the connection holding the turns. */
export type OnConnection = <X, Y, Z>(effect: Effect.Effect<X, Y, Z>) => Effect.Effect<X, Y, Z>

export interface Turns {
  /**
   * Runs `run` holding the turns of `platformIds` (in this process, then in the database
   * on a reserved connection); `run` starts its transactions through `onConnection`, so
   * they run on that connection.
   */
  readonly holding: <A, E, R>(platformIds: ReadonlySet<string>, run: (onConnection: OnConnection) => Effect.Effect<A, E, R>) => Effect.Effect<A, E | SqlError, R>
}

export const makeTurns = (sql: SqlClient.SqlClient): Turns => {
  const local = new Map<string, { readonly semaphore: Semaphore.Semaphore; users: number }>()

  /** `effect` holding this process's turn on `key`; the entry goes when no one uses it. */
  const locally = <A, E, R>(key: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.suspend(() => {
      let entry = local.get(key)
      if (entry === undefined) {
        entry = { semaphore: Semaphore.makeUnsafe(1), users: 0 }
        local.set(key, entry)
      }
      const held = entry
      held.users++
      return held.semaphore.withPermit(effect).pipe(
        Effect.ensuring(Effect.sync(() => {
          held.users--
          if (held.users === 0 && local.get(key) === held) local.delete(key)
        }))
      )
    })

  function holding<A, E, R>(platformIds: ReadonlySet<string>, run: (onConnection: OnConnection) => Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError, R> {
    // One order for every unit of work (by id), so two never wait for each other's turns.
    const ordered = [...platformIds].sort()
    const inDatabase: Effect.Effect<A, E | SqlError, R> = Effect.scoped(Effect.gen(function*() {
      const connection = yield* sql.reserve
      // Released before the connection goes back to the pool, however the run ends; should
      // the lock statement itself have been interrupted, this waits for it on the same
      // connection and then releases what it took. A broken connection ends its session,
      // and with it the locks.
      yield* Scope.addFinalizer(
        yield* Effect.scope,
        Effect.ignore(connection.executeUnprepared("select pg_advisory_unlock_all()", [], undefined))
      )
      // The key of `emit`'s lock; function scans return the array's elements in order.
      yield* connection.executeUnprepared(
        "select pg_advisory_lock(hashtext(p)) from jsonb_array_elements_text($1::jsonb) as p",
        [JSON.stringify(ordered)],
        undefined
      )
      // A transaction started with this connection as its enclosing one at depth -1 is a
      // top-level transaction on it (effect/sql: depth + 1 = 0 begins one, rather than a
      // savepoint) instead of one on another connection of the pool.
      return yield* run((effect) => Effect.provideService(effect, sql.transactionService, [connection, -1] as const))
    }))
    return ordered.reduceRight((inner, id) => locally(id, inner), inDatabase)
  }

  return { holding }
}
