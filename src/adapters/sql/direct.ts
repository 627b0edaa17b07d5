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
import type { PgConnection } from "@effect/sql-pg"
import { Cause, Context, Effect, Exit, Fiber, References, Scope, Semaphore, Stream } from "effect"
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
    provide?: (context: Context.Context<R>) => Context.Context<R>,
    last?: () => FinalStatement | undefined
  ) => Effect.Effect<A, E | SqlError, R>
  /** Gives the kept connections back to the pool (those in use when their transaction ends); none are kept after. */
  readonly close: Effect.Effect<void>
  /** How many of the pool's connections are kept now, idle or in a transaction (for tests and diagnostics). */
  readonly keptCount: () => number
}

/** Connections kept between top-level transactions (see `makeDirectTransactions`). */
export interface KeptConnections {
  /** At most this many, so the pool's other connections serve everything else. */
  readonly connections: number
  /** One idle this long (about; checked as often) goes back to the pool (is closed, when the store made it). */
  readonly idleMillis: number
  /**
   * Makes a connection of the store's own (`PgConnection.make` with `multiplex: true` and
   * the pool's settings), closed with the scope it is made in; without it, the kept
   * connections are the pool's, reserved and pinned. On a connection of the store's own,
   * BEGIN goes in the same write as the transaction's first statement, and COMMIT in the
   * same write as its last (`PipelinedConnection`).
   */
  readonly connect?: Effect.Effect<PgConnection.PgConnection, SqlError, Scope.Scope> | undefined
  /**
   * The connections `connect` makes default to SERIALIZABLE (`default_transaction_isolation`):
   * a transaction whose first statement is its last sends that statement alone, a
   * SERIALIZABLE transaction of its own, without BEGIN and COMMIT (`onOwned`).
   */
  readonly serializableSessions?: boolean | undefined
}

/**
 * A connection of the store's own, used by one transaction at a time, on which a
 * transaction's control statements share writes with its statements: the driver's
 * unpinned multiplexed connection writes every cycle queued in one tick as one write
 * (each cycle with its own Sync, answered in order), and one transaction at a time
 * means nothing else is ever queued between them.
 *
 * - BEGIN waits (`arm`) until the transaction's first statement, whatever it is (a
 *   statement of the work, SAVEPOINT, the last statement before COMMIT), and is queued
 *   just before it, in the same tick: BEGIN's cycle runs in a fiber of its own, started
 *   at once, that queues it and waits for its answer; the statement's cycle is queued
 *   next. A transaction that sends nothing sends no BEGIN (and no COMMIT).
 * - The first statement's answer comes after BEGIN's; should BEGIN have failed, the
 *   statement fails with BEGIN's error (a BEGIN fails only on a broken session, where the
 *   statement behind it fails too).
 * - Interruption: a cycle already written runs to its end (an unpinned multiplexed
 *   connection cannot be cancelled); the ROLLBACK queued after it runs once it is done.
 *   BEGIN's fiber is uninterruptible, so a statement is never written without the BEGIN
 *   before it.
 */
export class PipelinedConnection implements Connection {
  constructor(readonly pg: PgConnection.PgConnection) {}
  /** The BEGIN to queue before the next statement (`arm`). */
  private waiting: string | undefined = undefined
  /** BEGIN's answer, once it was queued. */
  private begun: Fiber.Fiber<unknown, SqlError> | undefined = undefined
  /** BEGIN failed before it was queued (the session was known dead): nothing of the transaction was written. */
  private unsent = false
  /** A transaction begins with the next statement: `begin` goes in the same write. */
  arm(begin: string): void {
    this.waiting = begin
    this.begun = undefined
    this.unsent = false
  }
  /** Whether BEGIN failed before it was written (so was everything after it). */
  get beginUnsent(): boolean {
    return this.unsent
  }
  /** Whether BEGIN is still waiting for a statement (the transaction sent nothing). */
  get armed(): boolean {
    return this.waiting !== undefined
  }
  /** Nothing sent: the transaction ends without BEGIN or COMMIT. */
  disarm(): void {
    this.waiting = undefined
  }
  /** BEGIN's outcome (undefined: never sent). */
  beginOutcome(): Effect.Effect<Exit.Exit<unknown, SqlError>> | undefined {
    return this.begun === undefined ? undefined : Fiber.await(this.begun)
  }
  /** `cycle` (a statement queued when it runs), with the waiting BEGIN queued just before it. */
  private run<A>(cycle: Effect.Effect<A, SqlError>): Effect.Effect<A, SqlError> {
    return Effect.suspend(() => {
      const begin = this.waiting
      if (begin === undefined) return cycle
      this.waiting = undefined
      return Effect.flatMap(Effect.forkDetach(this.pg.query(begin), { startImmediately: true, uninterruptible: true }), (fiber) => {
        this.begun = fiber
        // Ended already, at once: it failed before it was queued (a written cycle ends only with its answer).
        this.unsent = fiber.pollUnsafe() !== undefined
        // BEGIN was answered before the statement: its fiber has usually ended already.
        const checked = (begun: Exit.Exit<unknown, SqlError>, a: A): Effect.Effect<A, SqlError> =>
          Exit.isFailure(begun) ? Effect.failCause(begun.cause) : Effect.succeed(a)
        return Effect.flatMap(cycle, (a) => {
          const begun = fiber.pollUnsafe()
          return begun === undefined ? Effect.flatMap(Fiber.await(fiber), (exit) => checked(exit, a)) : checked(begun, a)
        })
      })
    })
  }
  private rows(sql: string, params: ReadonlyArray<unknown>, prepare: boolean): Effect.Effect<ReadonlyArray<PgConnection.Row>, SqlError> {
    return Effect.map(this.pg.query(sql, params, prepare), (result) => result.rows)
  }
  execute(
    sql: string,
    params: ReadonlyArray<unknown>,
    transformRows: (<A extends object>(row: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined
  ) {
    const rows = this.rows(sql, params, true)
    return this.run(transformRows === undefined ? rows : Effect.map(rows, transformRows))
  }
  executeRaw(sql: string, params: ReadonlyArray<unknown>) {
    return this.run(this.pg.query(sql, params))
  }
  executeWithoutTransform(sql: string, params: ReadonlyArray<unknown>) {
    return this.run(this.rows(sql, params, true))
  }
  executeValues(sql: string, params: ReadonlyArray<unknown>) {
    return this.run(this.pg.queryValues(sql, params))
  }
  executeValuesUnprepared(sql: string, params: ReadonlyArray<unknown>) {
    return this.run(this.pg.queryValues(sql, params, false))
  }
  executeUnprepared(
    sql: string,
    params: ReadonlyArray<unknown>,
    transformRows: (<A extends object>(row: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined
  ) {
    const rows = this.rows(sql, params, false)
    return this.run(transformRows === undefined ? rows : Effect.map(rows, transformRows))
  }
  /** A stream pins the session: the waiting BEGIN is sent (and answered) first. */
  executeStream(
    sql: string,
    params: ReadonlyArray<unknown>,
    transformRows: (<A extends object>(row: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined
  ) {
    const stream = Stream.unwrap(Effect.as(this.run(Effect.void), this.pg.stream(sql, params)))
    return transformRows === undefined
      ? stream
      : Stream.mapArray(stream, (rows) => transformRows(rows) as typeof rows)
  }
}

/** `Effect.uninterruptibleMask`'s `restore`: what runs inside it may be interrupted. */
type Restore = <X, Y, Z>(effect: Effect.Effect<X, Y, Z>) => Effect.Effect<X, Y, Z>

/** What a transaction's caller adds to the context its work runs in (the level is added first). */
export type Provide<R> = ((context: Context.Context<R>) => Context.Context<R>) | undefined

/**
 * A top-level transaction's last statement, sent with its COMMIT (see `commitWith`; the
 * store's is the attempt's pending writes, events and final check, ./pending.ts `takeLast`).
 */
export interface FinalStatement {
  readonly text: string
  readonly params: ReadonlyArray<unknown>
  /** The statement and COMMIT succeeded. */
  readonly committed: () => void
  /** The statement failed with `cause` (COMMIT answered ROLLBACK): what the transaction fails with. */
  readonly failed: (cause: Cause.Cause<SqlError>) => Effect.Effect<never, SqlError>
}

/** A top-level transaction's last statement, taken when its work succeeded. */
type Last = (() => FinalStatement | undefined) | undefined

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

  /**
   * The last statement queued on `connection` now, in a fiber started at once (with tracing
   * on, through the client, for its span, on the transaction's connection). A fiber that
   * ended already when this returns never reached the wire: a written cycle ends only with
   * its answer.
   */
  const queueLast = (connection: Connection, { params, text }: FinalStatement) =>
    Effect.forkChild(
      Effect.exit(Effect.contextWith((context: Context.Context<never>) =>
        Context.get(context, References.TracerEnabled)
          ? Effect.provideService(sql.unsafe(text, params), service, [connection, 0] as const)
          : connection.execute(text, params, undefined)
      )),
      { startImmediately: true }
    )

  /**
   * The transaction's end after its work succeeded: its last statement (`last`: the
   * attempt's pending writes, events and final check, ./pending.ts), then COMMIT, queued
   * together (the statement's cycle in a fiber started at once, COMMIT's right after): on
   * a connection of the store's own they go in one write; on the pool's pinned
   * connection COMMIT waits for the statement's cycle. Nothing reads the statement's rows
   * before COMMIT: its check fails in SQL. A failed statement aborts the transaction
   * (COMMIT answers ROLLBACK): the statement's error is the failure, as its check judges it.
   */
  const commitWith = (connection: Connection, last: FinalStatement | undefined): Effect.Effect<void, SqlError> => {
    if (last === undefined) return commit(connection)
    return Effect.flatMap(queueLast(connection, last), (fiber) => {
      // A statement whose fiber ended already never reached the wire: it failed before it
      // was queued (parameters the driver cannot encode, a session already dead). COMMIT
      // queued now would commit the work without it: the transaction is rolled back.
      const early = fiber.pollUnsafe()
      if (early !== undefined && Exit.isSuccess(early) && Exit.isFailure(early.value)) {
        const cause = early.value.cause
        return Effect.andThen(Effect.exit(control(connection, "ROLLBACK")), last.failed(cause))
      }
      return Effect.flatMap(Effect.exit(commit(connection)), (committed) =>
        Effect.flatMap(Fiber.join(fiber), (sent) => {
          if (Exit.isFailure(sent)) return last.failed(sent.cause)
          if (Exit.isFailure(committed)) return committed
          last.committed()
          return Effect.void
        }))
    })
  }

  /**
   * The transaction's last statement (`last`), taken once its work succeeded. One that
   * cannot be built (`last` throws) is a defect: the transaction is rolled back for it,
   * as for a failed work, rather than escaping with the transaction open on its connection.
   */
  const takeLast = (last: Last): Effect.Effect<Exit.Exit<FinalStatement | undefined>> =>
    last === undefined ? Effect.succeed(Exit.succeed(undefined)) : Effect.exit(Effect.sync(last))

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
    provide: Provide<R>,
    last: Last
  ): Effect.Effect<A, E | SqlError, R> =>
    Effect.flatMap(control(connection, begin), () => afterBegin(restore, connection, effect, provide, last))

  /** The transaction begun on `connection`: `effect`, then its last statement and COMMIT, or ROLLBACK should it fail. */
  const afterBegin = <A, E, R>(
    restore: Restore,
    connection: Connection,
    effect: Effect.Effect<A, E, R>,
    provide: Provide<R>,
    last: Last
  ): Effect.Effect<A, E | SqlError, R> =>
    Effect.flatMap(runAt(restore, effect, [connection, 0], provide), (exit) => {
      const rolledBack = (failure: Exit.Exit<A, E | SqlError>) => Effect.andThen(Effect.orDie(control(connection, "ROLLBACK")), failure)
      if (Exit.isFailure(exit)) return rolledBack(exit)
      return Effect.flatMap(takeLast(last), (taken) =>
        Exit.isFailure(taken)
          ? rolledBack(Exit.failCause(taken.cause))
          : Effect.andThen(commitWith(connection, taken.value), exit))
    })

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

  /** A connection kept between top-level transactions (`keep`): the pool's, pinned, or one of the store's own. */
  interface Kept {
    readonly connection: Connection
    /** Its reservation (closing it gives the connection back to the pool), or the scope it was made in (closing it closes it). */
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
  /** Kept connections idle longer than `keep.idleMillis` go back to the pool (are closed). */
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
  const acquire: Effect.Effect<Connection, SqlError, Scope.Scope> = keep?.connect === undefined
    ? sql.reserve
    : Effect.map(keep.connect, (pg) => new PipelinedConnection(pg))
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
          Effect.onError(restore(Scope.provide(acquire, scope)), (cause) =>
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
    provide: Provide<R>,
    last: Last
  ): Effect.Effect<A, E | SqlError, R> =>
    Effect.flatMap(Scope.make(), (scope) =>
      Effect.onExit(
        Effect.flatMap(restore(Scope.provide(sql.reserve, scope)), (connection) => topLevelOn(restore, connection, effect, provide, last)),
        (exit) => Scope.close(scope, exit)
      ))

  /**
   * A top-level transaction on a kept connection of the pool's. It goes back to the kept
   * ones when the transaction committed, and to the pool otherwise. A BEGIN that fails (a
   * kept connection that died while idle: the pool would not have handed it out) gives
   * it back and begins on a connection reserved for this transaction instead.
   */
  const onKept = <A, E, R>(
    restore: Restore,
    k: Kept,
    effect: Effect.Effect<A, E, R>,
    provide: Provide<R>,
    last: Last
  ): Effect.Effect<A, E | SqlError, R> =>
    Effect.matchCauseEffect(control(k.connection, begin), {
      onFailure: () => Effect.andThen(giveBack(k), onReserved(restore, effect, provide, last)),
      onSuccess: () =>
        Effect.flatMap(Effect.exit(afterBegin(restore, k.connection, effect, provide, last)), (exit) =>
          Exit.isSuccess(exit) ? Effect.andThen(putBack(k), exit) : Effect.andThen(giveBack(k), exit))
    })

  /**
   * A top-level transaction on a connection of the store's own (`PipelinedConnection`):
   * BEGIN goes with the first statement, COMMIT with the last (`commitWith`); a
   * transaction that sent nothing ends there. A transaction that did not commit is rolled
   * back (after any cycle still on the wire: an interrupted statement runs to its end
   * first; a ROLLBACK outside a transaction, after a failed COMMIT, is only a warning).
   * The connection is kept while its session is sound (its ROLLBACK answered), and closed
   * otherwise. A connection whose BEGIN failed on a broken session (one that died while
   * idle: the server restarted, or ended it) is closed, and the transaction runs again
   * on another one, `retries` times at most, when nothing of it can have committed: its
   * first statement was not its last (BEGIN's failure failed it, and the work never
   * reached COMMIT), or BEGIN failed before it was written, or the server refused BEGIN
   * itself. Not when BEGIN, the last statement and COMMIT went in one write and the
   * connection broke after it: the server may have run them all, so running it again
   * could apply it twice; it fails, its outcome unknown, as when a connection breaks
   * during COMMIT.
   */
  const onOwned = <A, E, R>(
    restore: Restore,
    k: Kept,
    c: PipelinedConnection,
    effect: Effect.Effect<A, E, R>,
    provide: Provide<R>,
    last: Last,
    retries: number
  ): Effect.Effect<A, E | SqlError, R> => {
    const ended = (outcome: Exit.Exit<A, E | SqlError>, rollback: boolean): Effect.Effect<A, E | SqlError, R> =>
      Effect.flatMap(rollback ? Effect.exit(Effect.asVoid(control(c, "ROLLBACK"))) : Effect.succeed(Exit.void), (rolledBack) => {
        const began = c.beginOutcome()
        return Effect.flatMap(began === undefined ? Effect.succeed(Exit.void) : began, (begun) => {
          if (Exit.isFailure(begun) && brokenSession(begun.cause)) {
            // Run again only if nothing of it can have committed: COMMIT went nowhere
            // (BEGIN's failure failed the statements behind it: the work never reached
            // COMMIT), or nothing was written, or the server refused BEGIN itself. A
            // connection that broke after BEGIN, the last statement and COMMIT were written
            // in one write may have run them all: its outcome is unknown, and running it
            // again could apply it twice.
            const nothingRan = !commitWithBegin || c.beginUnsent || endedByServer(begun.cause)
            const again = nothingRan && retries > 0 && Exit.isFailure(outcome) && !Exit.hasInterrupts(outcome)
            return Effect.andThen(giveBack(k), again ? topLevel(restore, effect, provide, last, retries - 1) : outcome)
          }
          return Effect.andThen(Exit.isSuccess(rolledBack) ? putBack(k) : giveBack(k), outcome)
        })
      })
    /** COMMIT was queued in the same tick as BEGIN (the transaction's first statement was its last). */
    let commitWithBegin = false
    return Effect.suspend(() => {
      c.arm(begin)
      /** Rolled back, should BEGIN have gone (`c.armed`: nothing went, nothing to end). */
      const failed = (failure: Exit.Exit<A, E | SqlError>) => {
        if (!c.armed) return ended(failure, true)
        c.disarm()
        return ended(failure, false)
      }
      return Effect.flatMap(runAt(restore, effect, [c, 0], provide), (exit) => {
        if (Exit.isFailure(exit)) return failed(exit)
        return Effect.flatMap(takeLast(last), (taken) => {
          if (Exit.isFailure(taken)) return failed(Exit.failCause(taken.cause))
          const statement = taken.value
          if (c.armed && statement === undefined) {
            c.disarm()
            return ended(exit, false)
          }
          // Its only statement is its last, on a session whose default is SERIALIZABLE: sent
          // alone, a transaction of its own (no BEGIN, no COMMIT to process on either side).
          if (c.armed && keep?.serializableSessions === true && statement !== undefined) {
            c.disarm()
            return alone(k, c, statement, exit, retries > 0 ? () => topLevel(restore, effect, provide, last, retries - 1) : undefined)
          }
          commitWithBegin = c.armed
          // Committed: the session is sound, and BEGIN went (or nothing did).
          return Effect.flatMap(Effect.exit(commitWith(c, statement)), (committed) =>
            Exit.isSuccess(committed) ? Effect.andThen(putBack(k), exit) : ended(Exit.failCause(committed.cause), true))
        })
      })
    })
  }

  /**
   * A transaction's one statement sent alone on a connection of the store's own whose
   * sessions default to SERIALIZABLE (`KeptConnections.serializableSessions`): the
   * statement is a transaction of its own, committed when it succeeds; when it fails, the
   * server rolled it back and the session is idle. The connection is kept unless its
   * session broke. A statement that failed before it was written (a session known dead,
   * parameters the driver cannot encode) ran nothing; one whose session broke after it was
   * written may have committed: it fails, its outcome unknown, as a COMMIT cut off does.
   */
  const alone = <A, E, R>(
    k: Kept,
    c: PipelinedConnection,
    last: FinalStatement,
    exit: Exit.Exit<A, E>,
    again: (() => Effect.Effect<A, E | SqlError, R>) | undefined
  ): Effect.Effect<A, E | SqlError, R> => {
    return Effect.flatMap(queueLast(c, last), (fiber) => {
      // A statement whose fiber ended already never reached the wire (as in `commitWith`).
      const unsent = fiber.pollUnsafe() !== undefined
      return Effect.flatMap(Fiber.join(fiber), (result): Effect.Effect<A, E | SqlError, R> => {
        if (Exit.isSuccess(result)) {
          last.committed()
          return Effect.andThen(putBack(k), exit)
        }
        const broken = brokenSession(result.cause)
        // A session that died while idle, found dead before the statement was written: it
        // ran nothing, and the unit of work runs again on another connection (as one whose
        // BEGIN found its session dead does, `onOwned`). Not once it was written: its
        // outcome is unknown.
        if (broken && unsent && again !== undefined) return Effect.andThen(giveBack(k), again())
        return Effect.andThen(broken ? giveBack(k) : putBack(k), last.failed(result.cause))
      })
    })
  }

  /** A top-level transaction: on a kept connection (the store's own, or the pool's), or one of the pool's reserved for it. */
  const topLevel = <A, E, R>(
    restore: Restore,
    effect: Effect.Effect<A, E, R>,
    provide: Provide<R>,
    last: Last,
    retries: number
  ): Effect.Effect<A, E | SqlError, R> =>
    keep === undefined
      ? onReserved(restore, effect, provide, last)
      : Effect.flatMap(take(restore), (k) =>
        k === undefined
          ? onReserved(restore, effect, provide, last)
          : k.connection instanceof PipelinedConnection
          ? onOwned(restore, k, k.connection, effect, provide, last, retries)
          : onKept(restore, k, effect, provide, last))

  const withTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>, provide?: Provide<R>, last?: () => FinalStatement | undefined): Effect.Effect<A, E | SqlError, R> =>
    Effect.uninterruptibleMask((restore) =>
      Effect.contextWith((context: Context.Context<never>) => {
        const level = Context.getOrUndefined(context, service)
        // No transaction yet: on a kept connection, or one reserved for it.
        if (level === undefined) return topLevel(restore, effect, provide, last, (keep?.connections ?? 0) + 1)
        return level[1] < 0 ? topLevelOn(restore, level[0], effect, provide, last) : nestedIn(restore, level, effect, provide)
      })
    )

  return { withTransaction, close, keptCount: () => kept }
}

/**
 * Whether a failure is the session's, not a statement's: its socket closed or broke
 * (`ConnectionError`), or the server ended it (SQLSTATE 57P01-57P03: an administrator's
 * `pg_terminate_backend`, a shutdown or restart, FATAL), so every cycle queued behind
 * the failed one failed too.
 */
const brokenSession = (cause: Cause.Cause<SqlError>): boolean =>
  cause.reasons.some((r) => Cause.isFailReason(r) && r.error.reason._tag === "ConnectionError") || endedByServer(cause)

/** The SQLSTATE of a database error (PostgreSQL's driver and PGlite's client both keep it on the reason's cause, or one level under it). */
export const sqlStateOf = (e: SqlError): string | undefined => {
  const cause: unknown = e.reason.cause
  if (typeof cause !== "object" || cause === null) return undefined
  if ("code" in cause && typeof cause.code === "string") return cause.code
  const inner: unknown = "cause" in cause ? cause.cause : undefined
  return typeof inner === "object" && inner !== null && "code" in inner && typeof inner.code === "string" ? inner.code : undefined
}

/**
 * Whether the server ended the session in answer to the statement (SQLSTATE 57P01-57P03,
 * FATAL): it ran nothing after it.
 */
const endedByServer = (cause: Cause.Cause<SqlError>): boolean =>
  cause.reasons.some((r) => Cause.isFailReason(r) && sqlStateOf(r.error)?.startsWith("57P") === true)
