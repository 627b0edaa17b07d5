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
  /** Gives the kept connections back to the pool (those in use when their transaction ends); none are kept after. */
  readonly close: Effect.Effect<void>
  /** How many of the pool's connections are kept now, idle or in a transaction (for tests and diagnostics). */
  readonly keptCount: () => number
}

/** Connections kept pinned between top-level transactions (see `makeDirectTransactions`). */
export interface KeptConnections {
  /** At most this many, so the pool's other connections serve everything else. */
  readonly connections: number
  /** One idle this long (about; checked as often) goes back to the pool. */
  readonly idleMillis: number
}

/** `Effect.uninterruptibleMask`'s `restore`: what runs inside it may be interrupted. */
type Restore = <X, Y, Z>(effect: Effect.Effect<X, Y, Z>) => Effect.Effect<X, Y, Z>

/** What a transaction's caller adds to the context its work runs in (the level is added first). */
export type Provide<R> = ((context: Context.Context<R>) => Context.Context<R>) | undefined

/**
 * With `keep`, a top-level transaction that holds no connection yet takes one kept from an
 * earlier transaction rather than reserving one of the pool's and giving it back (the
 * pool's checkout, the pin and their release cost about as much Node CPU as a statement):
 * up to `keep.connections` stay pinned between transactions, each given back to the pool
 * after a transaction that did not commit, or idle for `keep.idleMillis`, or on `close`.
 */
export const makeDirectTransactions = (sql: SqlClient.SqlClient, begin: string, keep?: KeptConnections): DirectTransactions => {
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
    restore: Restore,
    effect: Effect.Effect<A, E, R>,
    level: Level,
    provide: Provide<R>
  ): Effect.Effect<Exit.Exit<A, E>, never, R> =>
    Effect.exit(restore(Effect.updateContext(effect, (context: Context.Context<R>) => {
      const inner = Context.add(context, service, level)
      return provide === undefined ? inner : provide(inner)
    })))

  const topLevelOn = <A, E, R>(
    restore: Restore,
    connection: Connection,
    effect: Effect.Effect<A, E, R>,
    provide: Provide<R>
  ): Effect.Effect<A, E | SqlError, R> =>
    Effect.flatMap(control(connection, begin), () => afterBegin(restore, connection, effect, provide))

  /** The transaction begun on `connection`: `effect`, then COMMIT, or ROLLBACK should it fail. */
  const afterBegin = <A, E, R>(
    restore: Restore,
    connection: Connection,
    effect: Effect.Effect<A, E, R>,
    provide: Provide<R>
  ): Effect.Effect<A, E | SqlError, R> =>
    Effect.flatMap(runAt(restore, effect, [connection, 0], provide), (exit) =>
      Exit.isSuccess(exit)
        ? Effect.andThen(commit(connection), exit)
        : Effect.andThen(Effect.orDie(control(connection, "ROLLBACK")), exit))

  const nestedIn = <A, E, R>(
    restore: Restore,
    outer: Level,
    effect: Effect.Effect<A, E, R>,
    provide: Provide<R>
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

  // ------------------------------------------------ connections kept between transactions

  /** A connection of the pool's kept pinned between top-level transactions (`keep`). */
  interface Kept {
    readonly connection: Connection
    /** Its reservation: closing it gives the connection back to the pool. */
    readonly scope: Scope.Closeable
    /** When it last went idle (ms). */
    idleSince: number
  }
  const idle: Array<Kept> = []
  let kept = 0
  let closed = false
  let sweeper: ReturnType<typeof setInterval> | undefined
  const giveBack = (k: Kept): Effect.Effect<void> => {
    kept--
    return Scope.close(k.scope, Exit.void)
  }
  /** Kept connections idle longer than `keep.idleMillis` go back to the pool. */
  const sweep = () => {
    if (keep === undefined) return
    const before = Date.now() - keep.idleMillis
    for (let i = idle.length - 1; i >= 0; i--) {
      const k = idle[i]!
      if (k.idleSince <= before) {
        idle.splice(i, 1)
        Effect.runFork(giveBack(k))
      }
    }
  }
  /**
   * An idle kept connection, a new one while fewer than `keep.connections` are kept, or
   * undefined. Run uninterruptible: only the wait for the pool is interruptible
   * (`restore`), and a reservation that fails or is interrupted is undone (its count, its
   * scope) before the interruption goes on; an interruption could otherwise drop a
   * connection taken off `idle`, or one just reserved, and leave it counted and pinned.
   */
  const take = (restore: Restore): Effect.Effect<Kept | undefined, SqlError> =>
    Effect.suspend(() => {
      const k = idle.pop()
      if (k !== undefined) return Effect.succeed(k)
      if (keep === undefined || closed || kept >= keep.connections) return Effect.succeed(undefined)
      kept++
      if (sweeper === undefined) {
        sweeper = setInterval(sweep, keep.idleMillis)
        sweeper.unref()
      }
      return Effect.flatMap(Scope.make(), (scope) =>
        Effect.map(
          Effect.onError(restore(Scope.provide(sql.reserve, scope)), (cause) =>
            Effect.suspend(() => {
              kept--
              return Scope.close(scope, Exit.failCause(cause))
            })),
          (connection): Kept => ({ connection, scope, idleSince: 0 })
        ))
    })
  const putBack = (k: Kept): Effect.Effect<void> => {
    if (closed) return giveBack(k)
    k.idleSince = Date.now()
    idle.push(k)
    return Effect.void
  }
  /** Every idle kept connection given back; those in use go back when their transaction ends. */
  const close: Effect.Effect<void> = Effect.suspend(() => {
    closed = true
    if (sweeper !== undefined) clearInterval(sweeper)
    return Effect.forEach(idle.splice(0), giveBack, { discard: true })
  })

  /** A top-level transaction on a connection of the pool's, reserved for it and given back when it ends. */
  const onReserved = <A, E, R>(
    restore: Restore,
    effect: Effect.Effect<A, E, R>,
    provide: Provide<R>
  ): Effect.Effect<A, E | SqlError, R> =>
    Effect.flatMap(Scope.make(), (scope) =>
      Effect.onExit(
        Effect.flatMap(restore(Scope.provide(sql.reserve, scope)), (connection) => topLevelOn(restore, connection, effect, provide)),
        (exit) => Scope.close(scope, exit)
      ))

  /**
   * A top-level transaction on a kept connection. It goes back to the kept ones when the
   * transaction committed, and to the pool otherwise. A BEGIN that fails (a kept
   * connection that died while idle: the pool would not have handed it out) gives it
   * back and begins on a connection reserved for this transaction instead.
   */
  const onKept = <A, E, R>(
    restore: Restore,
    k: Kept,
    effect: Effect.Effect<A, E, R>,
    provide: Provide<R>
  ): Effect.Effect<A, E | SqlError, R> =>
    Effect.matchCauseEffect(control(k.connection, begin), {
      onFailure: () => Effect.andThen(giveBack(k), onReserved(restore, effect, provide)),
      onSuccess: () =>
        Effect.flatMap(Effect.exit(afterBegin(restore, k.connection, effect, provide)), (exit) =>
          Exit.isSuccess(exit) ? Effect.andThen(putBack(k), exit) : Effect.andThen(giveBack(k), exit))
    })

  const withTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>, provide?: Provide<R>): Effect.Effect<A, E | SqlError, R> =>
    Effect.uninterruptibleMask((restore) =>
      Effect.contextWith((context: Context.Context<never>) => {
        const level = Context.getOrUndefined(context, service)
        // No transaction yet: on a kept connection, or one reserved for it.
        if (level === undefined) {
          return keep === undefined
            ? onReserved(restore, effect, provide)
            : Effect.flatMap(take(restore), (k) => k === undefined ? onReserved(restore, effect, provide) : onKept(restore, k, effect, provide))
        }
        return level[1] < 0 ? topLevelOn(restore, level[0], effect, provide) : nestedIn(restore, level, effect, provide)
      })
    )

  return { withTransaction, close, keptCount: () => kept }
}
