/**
 * Turns on balances (issue #24): units of work that move one internal account's balance
 * take turns, in this process and across every process sharing the PostgreSQL database,
 * instead of racing and aborting each other.
 *
 * Why not `SELECT … FOR UPDATE` inside the unit of work: a SERIALIZABLE (or REPEATABLE
 * READ) transaction takes its snapshot at its first statement, before it waits for the
 * row lock; once the holder commits, the waiter's snapshot is older than the row, and
 * PostgreSQL answers "could not serialize access due to concurrent update". Every waiter
 * fails, reruns and waits again: a burst of N payments from one account costs about N²/2
 * attempts and ends in 503s. So the turn is taken BEFORE the transaction starts: a
 * session-level advisory lock (`pg_advisory_lock`, one per balance, taken in a fixed
 * order) on the very connection the transaction then runs on, released after it ends.
 * A waiter's transaction begins after the holder committed, on a snapshot that sees it:
 * it queues, and does not abort.
 *
 * In this process, a keyed semaphore per balance lets one unit of work per balance at a
 * time go to the database, so the waiters of a hot account wait here and do not hold
 * the pool's connections while they wait (other payers keep getting connections).
 *
 * The lock keys are 64-bit hashes of (platform, account): two balances sharing a key only
 * take turns needlessly. Keys are taken in ascending order, so two units of work never
 * wait for each other's turns (the semaphores first, in the same order).
 */
import { createHash } from "node:crypto"
import { Cause, Context, Effect, Scope, Semaphore } from "effect"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"

/** A balance's turn key: its platform and account. */
export const balanceKey = (platformId: string, account: string): string => `${platformId}\u0000${account}`

/** The 64-bit advisory lock key of a turn key, as decimal text (a bigint for PostgreSQL). */
export const lockKeyOf = (key: string): bigint => BigInt.asIntN(64, createHash("sha256").update(key).digest().readBigUInt64BE(0))

/**
 * The balances the current attempt of a unit of work moved (the SQL ledger's `post` adds
 * to it): when the attempt loses a serialization race, the unit of work reruns holding
 * their turns, so it loses no second race on them.
 */
export const CurrentMoves = Context.Reference<Set<string> | undefined>("payments-service/adapters/sql/CurrentMoves", {
  defaultValue: () => undefined
})

/** Notes that the current attempt moves `key`'s balance (a no-op outside a unit of work of the SQL store). */
export const noteMove = (key: string): Effect.Effect<void> =>
  CurrentMoves.useSync((moves) => {
    moves?.add(key)
  })

/** The balance turns the current attempt of a unit of work holds (undefined outside one, or where there are no turns). */
export const CurrentTurns = Context.Reference<ReadonlySet<string> | undefined>("payments-service/adapters/sql/CurrentTurns", {
  defaultValue: () => undefined
})

/**
 * Ends an attempt of a unit of work whose nested unit of work named balances the attempt
 * does not hold (an operation run inside another's unit of work, such as an idempotent
 * request's): a turn cannot be taken inside a transaction, so the enclosing unit of work
 * runs again holding them. Nothing of the attempt is kept.
 */
export class WidenTurns extends Error {
  constructor(readonly keys: ReadonlyArray<string>) {
    super("A nested unit of work named balances its enclosing unit of work does not hold; it runs again holding their turns")
  }
}

/** The balances a failed attempt asks its unit of work to hold, if it ended for that. */
export const widenedBy = (cause: Cause.Cause<unknown>): ReadonlyArray<string> | undefined => {
  for (const r of cause.reasons) if (Cause.isDieReason(r) && r.defect instanceof WidenTurns) return r.defect.keys
  return undefined
}

export interface Turns {
  /**
   * Runs `run` holding the turns of `keys` (in this process, then in the database on a
   * reserved connection). `run` gets the connection's transaction context to run its
   * transaction on that connection.
   */
  readonly holding: <A, E, R>(
    keys: ReadonlySet<string>,
    run: (onConnection: <X, Y, Z>(effect: Effect.Effect<X, Y, Z>) => Effect.Effect<X, Y, Z>) => Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E | SqlError, R>
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

  function holding<A, E, R>(
    keys: ReadonlySet<string>,
    run: (onConnection: <X, Y, Z>(effect: Effect.Effect<X, Y, Z>) => Effect.Effect<X, Y, Z>) => Effect.Effect<A, E, R>
  ): Effect.Effect<A, E | SqlError, R> {
    const ordered = [...keys].map((key) => ({ key, lock: lockKeyOf(key) })).sort((a, b) => (a.lock < b.lock ? -1 : a.lock > b.lock ? 1 : 0))
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
      // Function scans return the array's elements in order: the locks are taken in it.
      yield* connection.executeUnprepared(
        "select pg_advisory_lock(k::bigint) from jsonb_array_elements_text($1::jsonb) as k",
        [JSON.stringify(ordered.map((o) => o.lock.toString()))],
        undefined
      )
      // A unit of work started with this connection as its transaction's at depth -1 begins
      // a top-level transaction on it (effect/sql: depth + 1 = 0 is a BEGIN, not a savepoint)
      // instead of reserving another connection.
      const onConnection = <X, Y, Z>(effect: Effect.Effect<X, Y, Z>) =>
        Effect.provideService(effect, sql.transactionService, [connection, -1] as const)
      return yield* run(onConnection)
    }))
    return ordered.reduceRight((inner, o) => locally(o.key, inner), inDatabase)
  }

  return { holding }
}
