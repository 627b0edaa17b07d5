/**
 * Statements on the unit of work's own connection, sent directly.
 *
 * effect/sql's `sql.unsafe(text, params)` builds a Statement for every call, compiles it,
 * opens a scope to borrow a connection and makes a span for it; inside a unit of work the
 * connection is already known (the transaction's), and a payment sends several
 * statements. So, where tracing is off (the reference server turns it off: nothing
 * exports its spans, `src/http/app.ts`), a statement inside a transaction goes to that
 * connection's `execute` (the same prepared-statement path `sql.unsafe` ends in, with the
 * same text and parameters). Where tracing is on (an embedder's tracer, a test counting
 * statements by their spans), and outside a transaction, it goes through the client, span
 * and all.
 */
import { Context, Effect, Exit, References, Scope, Semaphore } from "effect"
import { hasProperty } from "effect/Predicate"
import type { SqlClient } from "effect/sql"
import type { Connection } from "effect/sql/SqlConnection"
import { SqlError, UnknownError } from "effect/sql/SqlError"

/** A statement run in a fiber's context at hand (read by the caller's own step): see `makeRunStatement`. */
export type RunIn = <Row extends object>(
  context: Context.Context<never>,
  text: string,
  params: ReadonlyArray<unknown>
) => Effect.Effect<ReadonlyArray<Row>, SqlError>

export const makeRunIn = (sql: SqlClient.SqlClient): RunIn => <Row extends object>(context: Context.Context<never>, text: string, params: ReadonlyArray<unknown>) => {
  const tx = Context.getOrUndefined(context, sql.transactionService)
  return tx !== undefined && !Context.get(context, References.TracerEnabled)
    ? tx[0].execute(text, params, undefined)
    : sql.unsafe<Row>(text, params)
}

export const makeRunStatement = (sql: SqlClient.SqlClient) => {
  const runIn = makeRunIn(sql)
  return <Row extends object>(text: string, params: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<Row>, SqlError> =>
    Effect.contextWith((context: Context.Context<never>) => runIn<Row>(context, text, params))
}

/**
 * Transactions on PostgreSQL, sent directly (docs/performance.md, "PostgreSQL: what stands
 * between 0.19 and 0.40"): the same statements as effect/sql's `withTransaction` sends
 * (BEGIN, SAVEPOINT, RELEASE, ROLLBACK TO, COMMIT, ROLLBACK on the connection held), with
 * BEGIN prepared too (a BEGIN of the client's `BeginTransaction` goes unprepared: parsed
 * and described by the server, encoded anew by the client, every time) and without what
 * `withTransaction` adds around them for callers we do not have: a span per transaction,
 * after-commit callbacks, reactivity invalidations and their context entries.
 *
 * A level is effect/sql's: `sql.transactionService` holds `[connection, depth]`, so
 * statements (./pending.ts, `sql.unsafe` with tracing on) find the transaction's
 * connection as they would in one of `withTransaction`'s. Depth -1 on a connection is
 * the caller's connection with no transaction on it yet (./turns.ts holds its advisory
 * locks on it): the transaction begins there. Nested levels are savepoints, and nested
 * levels of one level take turns, as in `withTransaction`.
 */
export interface DirectTransactions {
  /**
   * `effect` as a transaction (a savepoint inside one); `provide` adds to the context
   * `effect` runs in (with the level in it). A failure or an interruption rolls it back.
   */
  readonly withTransaction: <A, E, R>(
    effect: Effect.Effect<A, E, R>,
    provide?: (context: Context.Context<R>) => Context.Context<R>
  ) => Effect.Effect<A, E | SqlError, R>
}

export const makeDirectTransactions = (sql: SqlClient.SqlClient, begin: string): DirectTransactions => {
  const service = sql.transactionService
  type Level = readonly [Connection, number]
  /** The turn nested levels of a level take (made when its first nested level starts). */
  const savepointTurns = new WeakMap<Level, Semaphore.Semaphore>()
  const turnOf = (level: Level): Semaphore.Semaphore => {
    let turn = savepointTurns.get(level)
    if (turn === undefined) {
      turn = Semaphore.makeUnsafe(1)
      savepointTurns.set(level, turn)
    }
    return turn
  }
  const control = (connection: Connection, text: string) => connection.execute(text, [], undefined)
  /** PostgreSQL answers a COMMIT of a failed transaction with ROLLBACK: that is a failure. */
  const commit = (connection: Connection): Effect.Effect<void, SqlError> =>
    Effect.flatMap(connection.executeRaw("COMMIT", []), (result) =>
      hasProperty(result, "command") && result.command === "ROLLBACK"
        ? Effect.fail(
          new SqlError({
            reason: new UnknownError({
              cause: new Error("COMMIT rolled back an aborted transaction"),
              message: "COMMIT rolled back an aborted transaction",
              operation: "commit"
            })
          })
        )
        : Effect.void)

  /** `effect` run at `level` (its context: the caller's, the level, `provide`'s), uninterruptible but for `effect`. */
  const runAt = <A, E, R>(
    restore: <X, Y, Z>(effect: Effect.Effect<X, Y, Z>) => Effect.Effect<X, Y, Z>,
    effect: Effect.Effect<A, E, R>,
    level: Level,
    provide: ((context: Context.Context<R>) => Context.Context<R>) | undefined
  ): Effect.Effect<Exit.Exit<A, E>, never, R> =>
    Effect.exit(restore(Effect.updateContext(effect, (context: Context.Context<R>) => {
      const inner = Context.add(context, service, level)
      return provide === undefined ? inner : provide(inner)
    })))

  const topLevelOn = <A, E, R>(
    restore: <X, Y, Z>(effect: Effect.Effect<X, Y, Z>) => Effect.Effect<X, Y, Z>,
    connection: Connection,
    effect: Effect.Effect<A, E, R>,
    provide: ((context: Context.Context<R>) => Context.Context<R>) | undefined
  ): Effect.Effect<A, E | SqlError, R> =>
    Effect.flatMap(control(connection, begin), () =>
      Effect.flatMap(runAt(restore, effect, [connection, 0], provide), (exit) =>
        Exit.isSuccess(exit)
          ? Effect.andThen(commit(connection), exit)
          : Effect.andThen(Effect.orDie(control(connection, "ROLLBACK")), exit)))

  const nestedIn = <A, E, R>(
    restore: <X, Y, Z>(effect: Effect.Effect<X, Y, Z>) => Effect.Effect<X, Y, Z>,
    outer: Level,
    effect: Effect.Effect<A, E, R>,
    provide: ((context: Context.Context<R>) => Context.Context<R>) | undefined
  ): Effect.Effect<A, E | SqlError, R> => {
    const [connection, depth] = outer
    const name = `effect_sql_${depth + 1}`
    const release = Effect.orDie(control(connection, `RELEASE SAVEPOINT ${name}`))
    return turnOf(outer).withPermit(
      Effect.flatMap(control(connection, `SAVEPOINT ${name}`), () =>
        Effect.flatMap(runAt(restore, effect, [connection, depth + 1], provide), (exit) =>
          Exit.isSuccess(exit)
            ? Effect.andThen(release, exit)
            : Effect.andThen(Effect.andThen(Effect.orDie(control(connection, `ROLLBACK TO SAVEPOINT ${name}`)), release), exit)))
    )
  }

  const withTransaction = <A, E, R>(
    effect: Effect.Effect<A, E, R>,
    provide?: (context: Context.Context<R>) => Context.Context<R>
  ): Effect.Effect<A, E | SqlError, R> =>
    Effect.uninterruptibleMask((restore) =>
      Effect.contextWith((context: Context.Context<never>) => {
        const level = Context.getOrUndefined(context, service)
        // No transaction yet: on a connection of the pool's, given back when it ends.
        if (level === undefined) {
          return Effect.flatMap(Scope.make(), (scope) =>
            Effect.onExit(
              Effect.flatMap(restore(Scope.provide(sql.reserve, scope)), (connection) => topLevelOn(restore, connection, effect, provide)),
              (exit) => Scope.close(scope, exit)
            ))
        }
        return level[1] < 0 ? topLevelOn(restore, level[0], effect, provide) : nestedIn(restore, level, effect, provide)
      })
    )

  return { withTransaction }
}
