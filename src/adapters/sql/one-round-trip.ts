/**
 * One round trip where a request needs only one (see docs/performance.md, "One round
 * trip per create"). Two mechanisms of the SQL Store, kept here so store.ts stays the
 * plain adapter:
 *
 * - `externalAccounts.createAlone`: the external-account create as one statement, a unit
 *   of work by itself: the customer check and the insert in one `insert … select … where
 *   owner active`, sent as an autocommit statement on sessions whose default isolation is
 *   SERIALIZABLE (so it is a SERIALIZABLE transaction of its own, with no BEGIN/COMMIT
 *   round trips), rerun on a serialization failure like `transact`.
 * - `clocks.onLastSeenOffset`: a sandbox platform's clock offset without a round trip of
 *   its own. The request runs on the offset this process last saw, and the store checks
 *   that guess before anything of the request reaches the database: folded into
 *   createAlone's statement (the insert happens only if the stored offset is the guessed
 *   one), in the last statement of a unit of work's attempt (read in the transaction's
 *   snapshot; the attempt commits only if it matches, ./pending.ts), or by reading the
 *   offset before any other first statement outside a unit of work (one read, as
 *   before), or after a run that sent nothing. A stale guess ends the run with a defect
 *   before anything of it was committed (and refuses every later statement of that run),
 *   and the run starts again on the stored offset. So a request never commits, and
 *   never answers, on an offset other than the one its first transaction saw.
 */
import { Cause, Context, Effect, Exit, Option } from "effect"
import type { SqlClient } from "effect/sql"
import { isSqlError, type SqlError } from "effect/sql/SqlError"
import type { ExternalAccountRecord, Store, UniqueConstraint, UnitOfWork } from "../../ports/store.js"
import { StoreConflict } from "../../ports/store.js"
import { asLevel, conflictIn } from "../level.js"
import { externalAccountParams } from "./customers.js"
import { sqlStateOf } from "./direct.js"
import { CLOCK_OFFSET_REFUSED } from "./migrations.js"
import { CurrentPending, type FinalCheck } from "./pending.js"

/** The offset a run started on without reading it (see `onLastSeenOffset`). */
interface OffsetGuess {
  readonly platformId: string
  readonly offset: number
  /** The database confirmed or refuted the guess. */
  checked: boolean
  /** … and refuted it: nothing more of this run may reach the database. */
  stale: boolean
}

const CurrentGuess = Context.Reference<OffsetGuess | undefined>("payments-service/adapters/sql/CurrentOffsetGuess", {
  defaultValue: () => undefined
})

/** Ends a run whose guessed offset was stale; `onLastSeenOffset` reruns it. */
class StaleClockOffset extends Error {
  constructor() {
    super("The platform's clock offset changed before this request's first statement; it runs again on the stored offset")
  }
}

type StoreShape = Store["Service"]

interface GuardRow {
  readonly owner_ok: boolean
  readonly clock_ok: boolean
  readonly stored_offset: number
}

/** Whether `u` is the refusal of `payments_clock_offset_is` (a guessed offset not the stored one). */
export const isClockOffsetRefused = (u: unknown): boolean => isSqlError(u) && sqlStateOf(u) === CLOCK_OFFSET_REFUSED

const isRetryable = (e: SqlError): boolean => e.reason._tag === "SerializationError" || e.reason._tag === "DeadlockError"

export const makeOneRoundTrip = (options: {
  /** The store's client (its pool, and the connection of an open unit of work). */
  readonly sql: SqlClient.SqlClient
  /** A client whose sessions default to SERIALIZABLE (PostgreSQL), or the store's own when it runs one statement at a time (PGlite). */
  readonly alone: SqlClient.SqlClient
  readonly isConstraint: (name: string) => name is UniqueConstraint
  readonly maxAttempts: number
  readonly backoffMillis: (attempt: number) => number
  /** The store's transactions (a nested one: a savepoint): `sql.withTransaction`, or ./direct.ts's on PostgreSQL. */
  readonly withTransaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | SqlError, R>
}) => {
  const { alone, sql } = options
  /** Offsets this process last saw, per platform: guesses only, always checked. */
  const lastSeen = new Map<string, number>()

  const readOffset = (platformId: string): Effect.Effect<number> =>
    Effect.map(
      Effect.orDie(sql.unsafe<{ readonly offset_ms: number }>(
        `select offset_ms::float8 as offset_ms from platform_clocks where platform_id = $1`,
        [platformId]
      )),
      (rows) => {
        const offset = rows[0]?.offset_ms ?? 0
        lastSeen.set(platformId, offset)
        return offset
      }
    )

  const refuted = (g: OffsetGuess): Effect.Effect<never> => {
    g.stale = true
    return Effect.die(new StaleClockOffset())
  }

  const verify = (g: OffsetGuess): Effect.Effect<void> =>
    Effect.flatMap(readOffset(g.platformId), (stored) => {
      if (g.stale) return refuted(g)
      g.checked = true
      return stored === g.offset ? Effect.void : refuted(g)
    })

  /**
   * The guess checked by the statement that ends the current attempt of a unit of work
   * (./pending.ts `FinalCheck`), in SQL (migrations `21_clock_offset_check`, `24_clock_check_as_subquery`): the statement
   * reads the stored offset in the transaction's snapshot and fails with
   * `CLOCK_OFFSET_REFUSED` unless it is the guessed one, so the attempt commits only if
   * the offset it ran on is the one its snapshot holds, though its COMMIT goes in the same
   * write as that statement (./direct.ts). The refusal ends the run like any stale guess.
   */
  const checkAtCommit = (g: OffsetGuess): FinalCheck => ({
    statement: {
      text: `select payments_clock_is(coalesce((select c.offset_ms from platform_clocks c where c.platform_id = $1), 0)::float8 = $2::float8) as clock_ok`,
      params: [g.platformId, String(g.offset)]
    },
    held: () => {
      g.checked = true
    },
    refusal: (error) => {
      if (!isClockOffsetRefused(error)) return undefined
      lastSeen.delete(g.platformId)
      return refuted(g)
    }
  })

  /**
   * `effect` after the current run's guess is checked, unless it was already. Inside a unit
   * of work the check goes with the attempt's last statement (no round trip of its own:
   * whatever the attempt did on a stale guess is rolled back with it); outside, a read.
   * One step of its own (every repository call goes through it): the guess, the
   * transaction and the attempt's pending part read from the fiber's context at once.
   */
  const guessChecked = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.contextWith((context: Context.Context<never>) => {
      const g = Context.get(context, CurrentGuess)
      if (g === undefined || (g.checked && !g.stale)) return effect
      if (g.stale) return refuted(g)
      const pending = Context.getOrUndefined(context, sql.transactionService) === undefined
        ? undefined
        : Context.get(context, CurrentPending)
      if (pending === undefined) return Effect.andThen(verify(g), effect)
      pending.finalCheck ??= checkAtCommit(g)
      return effect
    })

  /** Before a statement of the current run: its guess checked unless it was already (`guessChecked`). */
  const checkGuess: Effect.Effect<void> = guessChecked(Effect.void)

  const onLastSeenOffset = <A, E, R>(platformId: string, run: (offset: number) => Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.suspend(() => {
      const fresh = Effect.flatMap(readOffset(platformId), run)
      const seen = lastSeen.get(platformId)
      if (seen === undefined) return fresh
      const guess: OffsetGuess = { platformId, offset: seen, checked: false, stale: false }
      return Effect.flatMap(Effect.exit(Effect.provideService(run(seen), CurrentGuess, guess)), (exit): Effect.Effect<A, E, R> => {
        if (guess.stale) return fresh
        if (guess.checked || Exit.hasInterrupts(exit)) return exit
        // Nothing reached the database: check the guess now, and run again if it was stale.
        return Effect.flatMap(readOffset(platformId), (stored) => (stored === seen ? exit : run(stored)))
      })
    })

  const statementOf = (ownerGuard: boolean, clockGuard: boolean) => `
    with guard as (
      select ${ownerGuard ? "exists (select 1 from customers where platform_id = $1 and id = $4 and active)" : "true"} as owner_ok,
             ${clockGuard ? "coalesce((select offset_ms from platform_clocks where platform_id = $1), 0) = $9::bigint" : "true"} as clock_ok
    ), written as (
      insert into external_accounts (platform_id, id, created_ms, customer_id, currency, equivalence_key, default_uma, doc)
      select $1::text, $2::text, $3::bigint, $4::text, $5::text, $6::text, $7::boolean, $8::jsonb from guard where owner_ok and clock_ok
      on conflict (platform_id, id) do update set customer_id = excluded.customer_id, currency = excluded.currency,
        equivalence_key = excluded.equivalence_key, default_uma = excluded.default_uma, doc = excluded.doc
      returning 1
    )
    select guard.owner_ok, guard.clock_ok, ${clockGuard ? "coalesce((select offset_ms from platform_clocks where platform_id = $1), 0)::float8" : "0::float8"} as stored_offset
    from guard left join (select count(*) as n from written) w on true`

  const createAlone = (r: ExternalAccountRecord, ownerCustomerId: string | null): Effect.Effect<"written" | "ownerInactive", StoreConflict> =>
    ownerCustomerId !== r.account.customerId
      ? Effect.die(new Error("createAlone: the owner is the account's customer"))
      : Effect.flatMap(Effect.serviceOption(sql.transactionService), (tx) =>
      CurrentGuess.use((g) => {
        const inUnitOfWork = Option.isSome(tx)
        // The guess is checked inside the statement when it is this run's first one.
        const folded = !inUnitOfWork && g !== undefined && !g.checked && !g.stale && g.platformId === r.platformId ? g : undefined
        const params = externalAccountParams(r)
        if (folded !== undefined) params.push(folded.offset)
        const text = statementOf(ownerCustomerId !== null, folded !== undefined)
        const client = inUnitOfWork ? sql : alone
        const once: Effect.Effect<ReadonlyArray<GuardRow>, SqlError | StoreConflict> = Effect.catch(
          client.unsafe<GuardRow>(text, params),
          (e: SqlError): Effect.Effect<never, SqlError | StoreConflict> => {
            if (e.reason._tag === "UniqueViolation" && options.isConstraint(e.reason.constraint)) {
              // The row was attempted, so both guards held.
              if (folded !== undefined) folded.checked = true
              return conflictIn(e.reason.constraint)
            }
            return Effect.fail(e)
          }
        )
        // Outside a unit of work the statement is one: rerun it on a serialization failure
        // (inside one, the enclosing `transact` reruns the whole unit of work).
        const attempt = (n: number): Effect.Effect<ReadonlyArray<GuardRow>, SqlError | StoreConflict> =>
          Effect.catch(once, (e: SqlError | StoreConflict) =>
            !inUnitOfWork && isSqlError(e) && isRetryable(e) && n + 1 < options.maxAttempts
              ? Effect.andThen(Effect.sleep(options.backoffMillis(n + 1)), attempt(n + 1))
              : Effect.fail(e))
        const run = Effect.flatMap(attempt(0), (rows) => {
          const row = rows[0]
          if (row === undefined) return Effect.die(new Error("createAlone: the guard row is missing"))
          if (folded !== undefined) {
            folded.checked = true
            if (!row.clock_ok) {
              lastSeen.set(r.platformId, row.stored_offset)
              return refuted(folded)
            }
          }
          return Effect.succeed(row.owner_ok ? "written" as const : "ownerInactive" as const)
        })
        // Inside a unit of work: a nested one (a savepoint and a level of its own), so a
        // conflict ends only this statement, as a nested `transact` would; the external
        // accounts the attempt read ahead are forgotten (./pending.ts `reads`).
        const forget = CurrentPending.use((pending) => Effect.sync(() => pending?.forgetReads("external_accounts")))
        const whole = inUnitOfWork
          ? Effect.andThen(forget, options.withTransaction(asLevel(guessChecked(run))))
          : folded === undefined
          ? guessChecked(run)
          : run
        return Effect.catch(
          whole,
          (e: SqlError | StoreConflict) => (e instanceof StoreConflict ? Effect.fail(e) : Effect.die(e))
        )
      }))

  /**
   * The unit of work, with a clock set through it making this process forget the offset it
   * last saw for that platform (whether the unit of work commits or not): the next run
   * reads the stored one rather than guess.
   */
  const forgetting = new WeakMap<UnitOfWork, UnitOfWork>()
  const forgettingOnSet = (uow: UnitOfWork): UnitOfWork => {
    let wrapped = forgetting.get(uow)
    if (wrapped === undefined) {
      wrapped = {
        ...uow,
        setClockOffset: (platformId, offsetMillis) =>
          Effect.andThen(Effect.sync(() => lastSeen.delete(platformId)), uow.setClockOffset(platformId, offsetMillis))
      }
      forgetting.set(uow, wrapped)
    }
    return wrapped
  }

  // Called with the arguments its caller passed, whatever the repository's signature.
  const guardFunction = (f: (...args: Array<never>) => unknown) => (...args: Array<never>): unknown => {
    const out = f(...args)
    return Effect.isEffect(out) ? guessChecked(out) : out
  }

  /**
   * The store with every repository read and `transact` behind `checkGuess`, plus the two
   * mechanisms above. Generic over the repositories, so one added later is covered too.
   */
  const install = (store: StoreShape): StoreShape => {
    const guarded: Record<string, unknown> = {}
    for (const [name, value] of Object.entries(store)) {
      if (typeof value === "function") {
        guarded[name] = guardFunction(value)
      } else if (name !== "info" && typeof value === "object" && value !== null) {
        const repo: Record<string, unknown> = {}
        for (const [method, f] of Object.entries(value)) repo[method] = typeof f === "function" ? guardFunction(f) : f
        guarded[name] = repo
      } else {
        guarded[name] = value
      }
    }
    // The shapes are the store's own, each function wrapped to the same signature.
    const shaped = guarded as StoreShape
    return {
      ...shaped,
      // The guess is checked inside each attempt, by its last statement (`checkAtCommit`).
      transact: (work, transactOptions) => store.transact((uow) => guessChecked(work(forgettingOnSet(uow))), transactOptions),
      externalAccounts: { ...shaped.externalAccounts, createAlone },
      clocks: {
        ...shaped.clocks,
        // A read of the stored offset is seen too (the request log shows it: `lastSeenOffset`).
        offset: (platformId) => Effect.tap(shaped.clocks.offset(platformId), (offset) => Effect.sync(() => lastSeen.set(platformId, offset))),
        onLastSeenOffset,
        lastSeenOffset: (platformId) => lastSeen.get(platformId)
      }
    }
  }

  return { install, checkGuess }
}

/** Whether `cause` ended a run on a stale guessed offset (for tests and logs). */
export const isStaleClockOffset = (cause: Cause.Cause<unknown>): boolean =>
  cause.reasons.some((r) => Cause.isDieReason(r) && r.defect instanceof StaleClockOffset)
