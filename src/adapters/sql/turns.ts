/**
 * Turns on internal accounts (issues #24, #20): on PostgreSQL, units of work that move
 * the same internal account's balance take turns instead of racing and aborting each
 * other under SERIALIZABLE. Units of work that share no account run side by side.
 *
 * Why not `SELECT … FOR UPDATE` of the debited balance inside the unit of work: a
 * SERIALIZABLE (or REPEATABLE READ) transaction takes its snapshot at its first statement,
 * before it waits for the row lock; once the holder commits, the waiter's snapshot is
 * older than the row, and PostgreSQL answers "could not serialize access due to
 * concurrent update". Every waiter fails, reruns and waits again: a burst of N payments
 * from one account costs about N²/2 attempts and ends in 503s.
 *
 * So the turn is taken BEFORE the transaction starts. A unit of work names its accounts
 * before it starts (`UnitOfWorkOptions.accounts`: a quote's execution names the quote's
 * source and destination), and takes their turns:
 * - in this process, a semaphore per account, so the waiters wait here and hold none of
 *   the pool's connections;
 * - in the database, a session-level advisory lock per account
 *   (`pg_advisory_lock(hashtext(key))`), on the very connection the transaction then runs
 *   on, released after it ends, for units of work of other processes sharing the
 *   database. Two statements, so they are taken only when they can matter: when the
 *   account's turn was busy in this process (a hot account), and on every rerun.
 * A waiter's transaction begins after the holder committed, on a snapshot that sees it:
 * it queues and does not abort. A unit of work that lost a race (to another process's
 * payment from the same account, to one that moved an account it did not name, or through
 * a B-tree page both read and wrote: predicate locks are per leaf page) runs again holding
 * the turns of every account it moved, in this process and in the database.
 *
 * Until 2026-11-27 the turn was the platform's, the same key as the platform's event lock
 * (./events.ts), taken in the database for every payment: a platform's money moved one
 * unit of work at a time, and two statements more per payment. The event lock is taken in
 * a unit of work's last statement, just before COMMIT, so it serializes only that tail
 * (docs/performance.md, "Turns per account").
 */
import { Cause, Effect, Scope, Semaphore } from "effect"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"

/**
 * The turn of one of a platform's accounts: the key of its semaphore and of its advisory
 * lock (hashed by `hashtext`; no NUL, which jsonb cannot hold). Two keys hashing alike
 * only share a turn. An attempt of a unit of work keeps the turns of the accounts it moved
 * (./pending.ts `Pending.moves`, which the SQL ledger's moves add to) and of those it holds
 * (`Pending.turns`).
 */
export const turnKey = (platformId: string, account: string): string => `turn:${platformId}:${account}`

/**
 * Ends an attempt of a unit of work whose nested unit of work names an account the
 * attempt holds no turn on (an operation run inside another's unit of work, such as an
 * idempotent request's): a turn cannot be taken inside a transaction, so the enclosing
 * unit of work runs again holding it. Nothing of the attempt is kept.
 */
export class WidenTurns extends Error {
  constructor(readonly keys: ReadonlyArray<string>) {
    super("A nested unit of work moves an account its enclosing unit of work holds no turn on; it runs again holding it")
  }
}

/** The turns a failed attempt asks its unit of work to hold, if it ended for that. */
export const widenedBy = (cause: Cause.Cause<unknown>): ReadonlyArray<string> | undefined => {
  for (const r of cause.reasons) if (Cause.isDieReason(r) && r.defect instanceof WidenTurns) return r.defect.keys
  return undefined
}

/** Runs an effect as a transaction's work on the connection holding the turns. */
export type OnConnection = <X, Y, Z>(effect: Effect.Effect<X, Y, Z>) => Effect.Effect<X, Y, Z>

export interface Turns {
  /**
   * Runs `run` holding the turns `keys` in this process, and in the database on a reserved
   * connection when `inDatabase` is "always", or "ifBusy" and one of the turns was busy in
   * this process (`run` is told which); `run` starts its transactions through
   * `onConnection`, so they run on that connection.
   */
  readonly holding: <A, E, R>(
    keys: ReadonlySet<string>,
    inDatabase: "always" | "ifBusy",
    run: (onConnection: OnConnection, inDatabase: boolean) => Effect.Effect<A, E, R>
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

  /** `run` holding `ordered`'s advisory locks, taken in that order. */
  const inDatabase = <A, E, R>(ordered: ReadonlyArray<string>, run: (onConnection: OnConnection, inDatabase: boolean) => Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError, R> =>
    Effect.scoped(Effect.gen(function*() {
      const connection = yield* sql.reserve
      // Released before the connection goes back to the pool, however the run ends; should
      // the lock statement itself have been interrupted, this waits for it on the same
      // connection and then releases what it took. A run that left a transaction open on
      // the connection (a failed one refuses every statement but its end) has it rolled
      // back first, so neither the locks nor the transaction outlive the run on a pooled
      // connection. A broken connection ends its session, and with it the locks.
      const unlock = connection.executeUnprepared("select pg_advisory_unlock_all()", [], undefined)
      yield* Scope.addFinalizer(
        yield* Effect.scope,
        Effect.ignore(Effect.catch(unlock, () => Effect.andThen(connection.executeUnprepared("rollback", [], undefined), unlock)))
      )
      // Function scans return the array's elements in order.
      yield* connection.executeUnprepared(
        "select pg_advisory_lock(hashtext(k)) from jsonb_array_elements_text($1::jsonb) as k",
        [JSON.stringify(ordered)],
        undefined
      )
      // A transaction started with this connection as its enclosing one at depth -1 is a
      // top-level transaction on it (effect/sql: depth + 1 = 0 begins one, rather than a
      // savepoint) instead of one on another connection of the pool.
      return yield* run((effect) => Effect.provideService(effect, sql.transactionService, [connection, -1] as const), true)
    }))

  function holding<A, E, R>(
    keys: ReadonlySet<string>,
    mode: "always" | "ifBusy",
    run: (onConnection: OnConnection, inDatabase: boolean) => Effect.Effect<A, E, R>
  ): Effect.Effect<A, E | SqlError, R> {
    // One order for every unit of work (by key), so two never wait for each other's turns.
    const ordered = [...keys].sort()
    return Effect.suspend(() => {
      // Busy: another unit of work of this process holds or waits for one of the turns.
      const database = mode === "always" || ordered.some((key) => (local.get(key)?.users ?? 0) > 0)
      const inner: Effect.Effect<A, E | SqlError, R> = database ? inDatabase(ordered, run) : run((effect) => effect, false)
      return ordered.reduceRight((held, key) => locally(key, held), inner)
    })
  }

  return { holding }
}
