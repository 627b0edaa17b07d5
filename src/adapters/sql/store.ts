/**
 * The SQL Store: one adapter over effect/sql's SqlClient in the PostgreSQL dialect,
 * for a PostgreSQL server (several processes may share it) and for PGlite on disk.
 *
 * - A unit of work is one SERIALIZABLE transaction: it reads its own writes, and
 *   the database aborts one of two units of work whose interleaving could not have
 *   happened one after the other; `transact` then reruns it (bounded, with backoff).
 *   On PostgreSQL, units of work that move one internal account take turns before
 *   their transactions begin (./turns.ts), so they queue rather than abort each other.
 * - Unique constraints are unique indexes; a violation becomes a `StoreConflict`
 *   named after the index. A conflict caused by a concurrent commit reruns the unit
 *   of work once more, so its own checks see the winner and answer precisely.
 * - Any other database failure is a defect: the request answers 500 and nothing of
 *   the unit of work is kept.
 *
 * Rows are written only by this adapter, from typed records: `doc` is the record's
 * JSON, read back as the record it was written from.
 *
 * Each area (./customers.ts, ./money.ts, ...) brings its tables, repositories and
 * writes (a `SqlArea`); this module composes them and owns the transactions.
 */
import { createHash } from "node:crypto"
import { Cause, Context, Effect, Option, References, Scope } from "effect"
import { SqlClient } from "effect/sql"
import { isSqlError, type SqlError } from "effect/sql/SqlError"
import { isUniqueConstraint, Store, StoreConflict, type StoreInfo, type UnitOfWork, type UnitOfWorkOptions } from "../../ports/store.js"
import { asLevel } from "../level.js"
import { makeAgentStore } from "./agents.js"
import { makeCardTransactionStore } from "./card-transactions.js"
import { makeCardStore } from "./cards.js"
import { makeCustomerStore } from "./customers.js"
import { type FinalStatement, type KeptConnections, makeDirectTransactions, makeRunIn, type Provide } from "./direct.js"
import { makeWrite, type SqlMigration } from "./documents.js"
import { eventsStatement, makeEventStore } from "./events.js"
import { checkedBy, CurrentPending, type LastStatement, lastStatementFailed, makePending, Pending, type QueryIn, type VolumeWrite } from "./pending.js"
import { makeIdempotencyStore } from "./idempotency.js"
import { makeInvitationStore } from "./invitations.js"
import { makeBulkJobStore } from "./bulk-jobs.js"
import { makeSnapshotStore } from "./snapshots.js"
import { makeTokenStore, TOKEN_TABLES } from "./tokens.js"
import { makeKycStore } from "./kyc.js"
import { MIGRATIONS, runMigrations } from "./migrations.js"
import { makeMoneyStore } from "./money.js"
import { makeOneRoundTrip } from "./one-round-trip.js"
import { makeReclaim } from "./reclaim.js"
import { Seen, StaleGuessedReads } from "./guessed-reads.js"
import { thenCommitOf } from "./pglite.js"
import { makeStablecoinStore } from "./stablecoins.js"
import { makeTimerStore } from "./timers.js"
import { makeTurns, type OnConnection, turnKey, widenedBy, WidenTurns } from "./turns.js"
import { makeWalletStore } from "./wallets.js"
import { makeWebhookStore } from "./webhooks.js"

/**
 * How often a unit of work is run at most after serialization failures. With the backoff
 * below (capped at 250 ms, jittered) a unit of work that keeps losing waits its turn for
 * about 4 to 8 s in all before it answers 503, rather than giving up within half a second
 * when the database is busy (docs/performance.md).
 */
export const MAX_TRANSACTION_ATTEMPTS = 24
const MAX_CONFLICT_RERUNS = 2
/** How a unit of work's transaction begins. */
const BEGIN = "BEGIN ISOLATION LEVEL SERIALIZABLE"

const isRetryableSqlError = (u: unknown): boolean =>
  isSqlError(u) && (u.reason._tag === "SerializationError" || u.reason._tag === "DeadlockError")

const retryableCause = (cause: Cause.Cause<unknown>): boolean =>
  cause.reasons.some((r) =>
    (Cause.isFailReason(r) && isRetryableSqlError(r.error)) || (Cause.isDieReason(r) && isRetryableSqlError(r.defect))
  )

const staleGuessCause = (cause: Cause.Cause<unknown>): boolean =>
  cause.reasons.some((r) => Cause.isDieReason(r) && r.defect instanceof StaleGuessedReads)

const conflictCause = (cause: Cause.Cause<unknown>): boolean =>
  cause.reasons.some((r) => Cause.isFailReason(r) && r.error instanceof StoreConflict)

const holdsNul = (param: unknown): boolean => typeof param === "string" && param.includes("\u0000")

export interface SqlStoreOptions {
  /**
   * A client whose sessions default to SERIALIZABLE, for the statements that are a unit
   * of work by themselves (see one-round-trip.ts). Without one, PGlite uses its own
   * client (one statement at a time) and PostgreSQL does without them.
   */
  readonly serializableSessions?: SqlClient.SqlClient
  /**
   * On PostgreSQL, connections kept pinned between units of work (./direct.ts), given back
   * when the scope the store is made in closes; none without that scope.
   */
  readonly keptConnections?: KeptConnections
}

/**
 * A statement. A parameter holding a NUL (U+0000) cannot equal anything PostgreSQL
 * stores (its text cannot hold one), so such a read matches nothing, without asking.
 */
const makeQueryIn = (sql: SqlClient.SqlClient): QueryIn => {
  const runIn = makeRunIn(sql)
  return <Row extends object>(context: Context.Context<never>, text: string, params: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<Row>> =>
    params.some(holdsNul) ? Effect.succeed([]) : Effect.orDie(runIn<Row>(context, text, params))
}

/** A statement sent as it is: any failure is a defect. */
const makePlainIn = (sql: SqlClient.SqlClient): QueryIn => {
  const runIn = makeRunIn(sql)
  return <Row extends object>(context: Context.Context<never>, text: string, params: ReadonlyArray<unknown>) =>
    Effect.orDie(runIn<Row>(context, text, params))
}

/** The unit of work's pending writes, events and balances over one client (./pending.ts). */
export const makeSqlPending = (sql: SqlClient.SqlClient) => makePending(makeQueryIn(sql), makePlainIn(sql), eventsStatement)

/**
 * Every area of the store over one client, in the order `resetPlatform` clears their
 * tables. An area registers here once: its repositories and writes (spread below) and,
 * through its `migrations`, its schema (./migrations.ts runs them with the listed ones).
 * Every statement goes through `pending` (./pending.ts), which sends the unit of work's
 * pending writes before it.
 */
export const makeSqlAreas = (sql: SqlClient.SqlClient, pending = makeSqlPending(sql), seen = new Seen()) => {
  const query = pending.query
  /** A write: a unique violation is a StoreConflict (see ./documents.ts), anything else a defect. */
  const write = makeWrite(sql, pending.flushWrites)
  return {
    customers: makeCustomerStore(query, write),
    kyc: makeKycStore(query, write),
    events: makeEventStore(query, pending.flushAll, pending.exec),
    timers: makeTimerStore(sql, query),
    idempotency: makeIdempotencyStore(query),
    money: makeMoneyStore(sql, query, pending, seen),
    webhooks: makeWebhookStore(sql, query, pending.flushAll, pending.defer),
    wallets: makeWalletStore(query),
    cards: makeCardStore(query, write),
    cardTransactions: makeCardTransactionStore(query),
    stablecoins: makeStablecoinStore(query, write),
    agents: makeAgentStore(query),
    invitations: makeInvitationStore(query),
    bulkJobs: makeBulkJobStore(query),
    tokens: makeTokenStore(query)
  }
}

/** The migrations the areas carry (each area's, in the order of the areas). */
export const sqlAreaMigrations = (sql: SqlClient.SqlClient): ReadonlyArray<SqlMigration> =>
  Object.values(makeSqlAreas(sql)).flatMap((area) => area.migrations ?? [])

/**
 * Applies the migrations not applied yet: ./migrations.ts's list and the areas'.
 * Several processes starting together take turns (a transaction-scoped advisory lock),
 * so each migration runs once.
 */
export const migrate = Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) => runMigrations(sqlAreaMigrations(sql)))

/** The schema this code writes and reads, as a short fingerprint of every migration's id (snapshots record it). */
const schemaOf = (carried: ReadonlyArray<SqlMigration>): string =>
  createHash("sha256").update([...Object.keys(MIGRATIONS), ...carried.map((m) => m.id)].join("\n")).digest("hex").slice(0, 16)

export const makeSqlStore = (info: StoreInfo, options: SqlStoreOptions = {}) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const pending = makeSqlPending(sql)
    const query = pending.query
    /** What this store last saw of the rows a payment reads: guesses, checked at commit (./guessed-reads.ts). */
    const seen = new Seen()

    // ------------------------------------------------------------ the areas

    const areas = makeSqlAreas(sql, pending, seen)
    /** Every area's tables, in the order `resetPlatform` clears them. */
    const tables = Object.values(areas).flatMap((area) => area.tables)
    /** Snapshots hold every table of the platform's state but its credentials (ports/snapshots.ts). */
    const snapshots = makeSnapshotStore(
      query,
      pending.flushAll,
      tables.filter((table) => !TOKEN_TABLES.includes(table)),
      schemaOf(Object.values(areas).flatMap((area) => area.migrations ?? []))
    )
    /** PGlite has no autovacuum: the scheduler asks for the space of removed rows back (./reclaim.ts). */
    const reclaimer = info.kind === "pglite" ? makeReclaim(sql) : undefined
    /**
     * A reset or a restore rewrites every table of the platform: the next reclaim covers them
     * all. Noted when it ran, committed or not: a whole VACUUM too many costs tens of ms.
     */
    const rewriting = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      reclaimer === undefined ? effect : Effect.tap(effect, () => Effect.sync(reclaimer.rewrote))

    const uow: UnitOfWork = {
      ...areas.customers.writes,
      ...areas.kyc.writes,
      ...areas.events.writes,
      ...areas.timers.writes,
      ...areas.idempotency.writes,
      ...areas.money.writes,
      ...areas.webhooks.writes,
      ...areas.wallets.writes,
      ...areas.cards.writes,
      ...areas.cardTransactions.writes,
      ...areas.stablecoins.writes,
      ...areas.agents.writes,
      ...areas.invitations.writes,
      ...areas.bulkJobs.writes,
      ...areas.tokens.writes,
      ...snapshots.writes,
      restoreSnapshot: (platformId, id) => rewriting(snapshots.writes.restoreSnapshot(platformId, id)),
      resetPlatform: (platformId) =>
        rewriting(Effect.andThen(pending.flushAll, Effect.forEach(tables, (table) => query(`delete from ${table} where platform_id = $1`, [platformId]), { discard: true })))
    }

    // ------------------------------------------------------------ transactions

    /** Backoff before rerun `attempt` (1-based): short, growing, jittered so racing reruns spread. */
    const backoffMillis = (attempt: number) => Math.round((1 + Math.random()) * Math.min(250, 2 * 1.6 ** attempt))

    // Turns on internal accounts (./turns.ts): on PostgreSQL only. PGlite is one connection
    // whose transactions take turns already; nothing there races.
    const turns = info.kind === "postgres" ? makeTurns(sql) : undefined
    let reruns = 0

    // On PostgreSQL, transactions sent directly (./direct.ts: BEGIN prepared, nothing around
    // the statements that nothing here uses); PGlite's client handles its own (./pglite.ts).
    const scope = yield* Effect.serviceOption(Scope.Scope)
    const keep = Option.isSome(scope) ? options.keptConnections : undefined
    const direct = info.kind === "postgres" ? makeDirectTransactions(sql, BEGIN, keep) : undefined
    if (direct !== undefined && Option.isSome(scope)) yield* Scope.addFinalizer(scope.value, direct.close)
    // The store's transactions, whichever sends them: `provide` adds to the context the
    // work runs in (on effect/sql's, with the SERIALIZABLE BEGIN its top level sends).
    const withTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>, provide?: Provide<R>): Effect.Effect<A, E | SqlError, R> =>
      direct !== undefined
        ? direct.withTransaction(effect, provide)
        : Effect.updateContext(sql.withTransaction(effect), (context: Context.Context<R>) => {
          const begun = Context.add(context, SqlClient.BeginTransaction, BEGIN)
          return provide === undefined ? begun : provide(begun)
        })

    /** An attempt's last statement as ./direct.ts sends it with COMMIT. */
    const finalStatement = (last: LastStatement | undefined): FinalStatement | undefined =>
      last === undefined ? undefined : {
        text: last.statement.text,
        params: last.statement.params,
        committed: () => last.check?.held(),
        failed: (cause) => lastStatementFailed(last, cause)
      }

    /**
     * The end of a top-level attempt's work where the client's own `withTransaction` sends
     * COMMIT (PGlite): its last statement (./pending.ts `takeLast`) goes in the same call as
     * COMMIT on a PGlite connection (./pglite.ts `thenCommitOf`; the COMMIT the client then
     * sends goes nowhere), and before it otherwise. A failure is the statement's, as its
     * check judges it (./pending.ts `lastStatementFailed`).
     */
    const lastWithCommit = (attempt: () => Pending | undefined): Effect.Effect<void, SqlError> =>
      Effect.contextWith((context: Context.Context<never>) => {
        const tx = Context.getOrUndefined(context, sql.transactionService)
        // With tracing on, the statement goes through the client (its span), before COMMIT.
        const withCommit = tx === undefined || Context.get(context, References.TracerEnabled) ? undefined : thenCommitOf(tx[0])
        if (withCommit === undefined) return pending.flushAll
        const last = pending.takeLast(attempt())
        if (last === undefined) return Effect.void
        return checkedBy(withCommit(last.statement.text, last.statement.params), last)
      })

    /**
     * A top-level unit of work: attempts (each one SERIALIZABLE transaction) until one
     * commits, fails for good or runs out of attempts. `held` are the accounts' turns the
     * attempts run under; an attempt that loses a race after moving an account without
     * its turn, or whose nested unit of work names a turn not held, ends this round
     * (`Widen`), and the next round holds that turn too.
     */
    const topLevel = <A, E, R>(work: (uow: UnitOfWork) => Effect.Effect<A, E, R>, declared: ReadonlySet<string>): Effect.Effect<A, E, R> => {
      // Each attempt keeps its last writes and its events (./pending.ts) and sends them in
      // one statement as its last, inside the transaction (a rerun starts with none).
      // A SERIALIZABLE transaction, with the attempt's own pending part (its moves and turns in it), provided in one step.
      // On PostgreSQL the last statement is taken when the work succeeded and sent with
      // COMMIT, queued together (./direct.ts `commitWith`); on PGlite it is sent before COMMIT.
      // Whether its attempts may run on rows guessed from what the store last saw
      // (./guessed-reads.ts): until one of them is refuted, or fails unchecked.
      let guessing = true
      const once = (moves: Set<string>, held: ReadonlySet<string>, ran: { attempt?: Pending }) => {
        let attempt: Pending | undefined
        const provide = (context: Context.Context<R>) => {
          attempt = new Pending(moves, turns === undefined ? undefined : held, guessing && seen.allows())
          ran.attempt = attempt
          return Context.add(context, CurrentPending, attempt)
        }
        return direct !== undefined
          ? direct.withTransaction(level(work), provide, () => finalStatement(pending.takeLast(attempt)))
          : withTransaction(Effect.tap(level(work), lastWithCommit(() => attempt)), provide)
      }
      // Widen: again, holding `keys`; `lost`: after a lost race (the turns are then taken in the database too).
      type Outcome =
        | { readonly _tag: "Done"; readonly value: A }
        | { readonly _tag: "Widen"; readonly keys: ReadonlySet<string>; readonly lost: boolean; readonly attempt: number; readonly conflicts: number }
      const round = (
        held: ReadonlySet<string>,
        inDatabase: boolean,
        start: number,
        conflicts0: number,
        onConnection: OnConnection
      ): Effect.Effect<Outcome, E | SqlError, R> => {
        const loop = (attempt: number, conflicts: number): Effect.Effect<Outcome, E | SqlError, R> => {
          const moves = new Set<string>()
          const ran: { attempt?: Pending } = {}
          return Effect.matchCauseEffect(onConnection(once(moves, held, ran)), {
            onSuccess: (value) => {
              if (ran.attempt !== undefined) learn(ran.attempt)
              return Effect.succeed<Outcome>({ _tag: "Done", value })
            },
            onFailure: (cause) => {
              const guess = ran.attempt?.guess
              // It ran on guessed rows that were not the snapshot's: again, reading them.
              if (guess !== undefined && staleGuessCause(cause)) {
                seen.refused(guess)
                guessing = false
                return loop(attempt + 1, conflicts)
              }
              // A nested unit of work named a turn not held: again, holding it (the held set only grows).
              const wanted = widenedBy(cause)
              if (wanted !== undefined) return Effect.succeed<Outcome>({ _tag: "Widen", keys: new Set([...held, ...wanted]), lost: false, attempt, conflicts })
              if (attempt + 1 < MAX_TRANSACTION_ATTEMPTS && retryableCause(cause)) {
                reruns++
                // It moved accounts, or held turns, and lost: again, holding the turns of
                // every account it moved, in the database too (./turns.ts).
                if (turns !== undefined && (moves.size > 0 || held.size > 0)) {
                  const keys = new Set([...held, ...moves])
                  // Holding them all already (in the database too), it lost to a unit of work
                  // that holds none (one that moved a held account without naming it, a page
                  // both read and wrote, or a deadlock with one waiting for the platform's event
                  // lock in its last statement while holding rows this one needs): the turns are
                  // let go for a backoff and taken again, so that one can commit first.
                  const widened: Outcome = { _tag: "Widen", keys, lost: true, attempt: attempt + 1, conflicts }
                  return keys.size === held.size && inDatabase ? Effect.as(Effect.sleep(backoffMillis(attempt + 1)), widened) : Effect.succeed(widened)
                }
                return Effect.andThen(Effect.sleep(backoffMillis(attempt + 1)), loop(attempt + 1, conflicts))
              }
              // It failed on guessed rows before any statement carried their check (a refusal
              // decided in plain code, say): again, reading them, so that what it answers was
              // read. Not once a statement carried it: that statement's outcome settles the
              // attempt (one cut off may have committed, and must not run twice).
              if (guess !== undefined && !guess.carried && !Cause.hasInterruptsOnly(cause)) {
                guessing = false
                return loop(attempt + 1, conflicts)
              }
              if (conflicts < MAX_CONFLICT_RERUNS && conflictCause(cause)) return loop(attempt + 1, conflicts + 1)
              return Effect.failCause(cause)
            }
          })
        }
        return loop(start, conflicts0)
      }
      // A round takes its turns in the database only if one was busy in this process, or
      // after a lost race (./turns.ts).
      const rounds = (held: ReadonlySet<string>, lazily: boolean, attempt: number, conflicts: number): Effect.Effect<A, E | SqlError, R> =>
        Effect.flatMap(
          turns === undefined || held.size === 0
            ? round(held, false, attempt, conflicts, (effect) => effect)
            : turns.holding(held, lazily ? "ifBusy" : "always", (onConnection, inDatabase) => round(held, inDatabase, attempt, conflicts, onConnection)),
          (outcome) => outcome._tag === "Done" ? Effect.succeed(outcome.value) : rounds(outcome.keys, !outcome.lost, outcome.attempt, outcome.conflicts)
        )
      return dieOnSqlError(rounds(turns === undefined ? new Set() : declared, true, 0, 0))
    }

    /**
     * What the store learns from an attempt that committed (./guessed-reads.ts): the rows it
     * wrote that it knows as written (its quotes), the balances it knows (read or moved), and
     * the daily volumes it read, with the payments it wrote added; a volume it wrote without
     * having read it is forgotten.
     */
    const learn = (attempt: Pending): void => {
      if (attempt.guess?.checked === true) seen.earned()
      for (const f of attempt.onCommit) f()
      for (const [key, balance] of attempt.balances) seen.balances.set(key, balance)
      if (attempt.volumes.size === 0 && attempt.volumeWrites.length === 0) return
      // Each payment's last write counts (one written twice: created, then failed).
      const last = new Map<string, VolumeWrite>()
      for (const w of attempt.volumeWrites) last.set(w.transactionId, w)
      const volumes = new Map(attempt.volumes)
      for (const w of last.values()) {
        const known = volumes.get(w.key)
        if (known === undefined) {
          seen.volumes.delete(w.key)
          continue
        }
        if (w.counted && w.day >= known.since) volumes.set(w.key, { since: known.since, volume: known.volume + w.amount })
      }
      for (const [key, volume] of volumes) seen.volumes.set(key, volume)
    }

    /** The turns a unit of work's options name (./turns.ts). */
    const turnsNamed = (options: UnitOfWorkOptions | undefined): ReadonlyArray<string> => {
      const platformId = options?.movesMoneyOf
      const accounts = options?.accounts
      return platformId === undefined || accounts === undefined ? [] : accounts.map((account) => turnKey(platformId, account))
    }

    const transact = <A, E, R>(work: (uow: UnitOfWork) => Effect.Effect<A, E, R>, options?: UnitOfWorkOptions): Effect.Effect<A, E, R> =>
      Effect.contextWith((context: Context.Context<never>) => {
        const outer = Context.getOption(context, sql.transactionService)
        const named = turnsNamed(options)
        // Nested: a savepoint of the enclosing unit of work, which owns the reruns and the
        // turns. When the enclosing one holds no turn yet, turns this one names make it run
        // again holding them (an idempotent request's execution). Once only: accounts made
        // by the enclosing unit of work itself get new ids on every attempt (a sandbox seed
        // funding what it opens), so past the first round a missing turn is left to the
        // race and its rerun, as for any unit of work that names none.
        if (Option.isSome(outer)) {
          const held = Context.get(context, CurrentPending)?.turns
          const missing = held === undefined || held.size > 0 ? [] : named
          return missing.length > 0 ? Effect.die(new WidenTurns(missing)) : dieOnSqlError(nested(work))
        }
        return topLevel(work, new Set(named))
      })

    /**
     * A nested unit of work: a savepoint. The writes and events pending before it are sent
     * first (so rolling the savepoint back cannot take them); those it leaves pending are
     * dropped with it should it fail (and the balances known, which it may have moved),
     * and otherwise stay pending for the enclosing unit of work.
     */
    const nested = <A, E, R>(work: (uow: UnitOfWork) => Effect.Effect<A, E | SqlError, R>): Effect.Effect<A, E | SqlError, R> =>
      Effect.andThen(
        pending.flushAll,
        CurrentPending.use((current) =>
          Effect.onError(withTransaction(level(work)), () => Effect.sync(() => current?.forgetAll()))
        )
      )

    /** `work` as one level of a unit of work (see ../level.ts). */
    const level = <A, E, R>(work: (uow: UnitOfWork) => Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      asLevel(Effect.suspend(() => work(uow)))

    const dieOnSqlError = <A, E, R>(effect: Effect.Effect<A, E | SqlError, R>): Effect.Effect<A, E, R> =>
      Effect.catch(effect, (e: E | SqlError) => isSqlError(e) ? Effect.die(e) : Effect.fail(e))

    const alone = options.serializableSessions ?? (info.kind === "pglite" ? sql : undefined)
    const oneRoundTrip = alone === undefined
      ? undefined
      : makeOneRoundTrip({ sql, alone, isConstraint: isUniqueConstraint, maxAttempts: MAX_TRANSACTION_ATTEMPTS, backoffMillis, withTransaction })
    const finish = (store: Store["Service"]) => (oneRoundTrip === undefined ? store : oneRoundTrip.install(store))

    return finish(Store.of({
      info,
      ...areas.customers.repositories,
      ...areas.kyc.repositories,
      ...areas.events.repositories,
      ...areas.timers.repositories,
      ...areas.idempotency.repositories,
      ...areas.money.repositories,
      ...areas.webhooks.repositories,
      ...areas.wallets.repositories,
      ...areas.cards.repositories,
      ...areas.cardTransactions.repositories,
      ...areas.stablecoins.repositories,
      ...areas.agents.repositories,
      ...areas.invitations.repositories,
      ...areas.bulkJobs.repositories,
      ...areas.tokens.repositories,
      ...snapshots.repositories,
      transact,
      reruns: () => reruns,
      ...(reclaimer === undefined ? {} : { reclaim: () => Effect.orDie(reclaimer.reclaim()) })
    }))
  })
