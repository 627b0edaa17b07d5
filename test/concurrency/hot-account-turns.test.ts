/**
 * Turns on internal accounts (src/adapters/sql/turns.ts), on PostgreSQL with two stores
 * (two pools, as two server processes) on one database:
 * - in one process, a unit of work that names a busy account waits for the one holding
 *   its turn, and runs after it committed (it sees its write); an idle account's turn
 *   takes no lock in the database; one naming another account does not wait;
 * - turns held in the database make another process wait there; one interrupted while
 *   it waits leaves no lock behind;
 * - when nothing runs, no advisory lock is held at all.
 */
import { Deferred, Effect, Fiber, ManagedRuntime, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { PgClient } from "@effect/sql-pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { postgresStoreLayer } from "../../src/adapters/sql/index.js"
import { makeTurns, type Turns } from "../../src/adapters/sql/turns.js"
import type { PlatformConfigState } from "../../src/domain/platform-config.js"
import { Store } from "../../src/ports/store.js"
import { migratedDatabase } from "../support/databases.js"
import { psql } from "../support/postgres.js"

const PLATFORM = "turns-platform"

type Runtime = ManagedRuntime.ManagedRuntime<Store, unknown>
let url: string
const runtimes: Array<Runtime> = []

beforeAll(async () => {
  url = await migratedDatabase()
  for (let i = 0; i < 2; i++) runtimes.push(ManagedRuntime.make(postgresStoreLayer({ url, maxConnections: 2 })))
  await Promise.all(runtimes.map((r) => r.runPromise(Effect.service(Store))))
}, 60_000)
afterAll(async () => {
  await Promise.allSettled(runtimes.map((r) => r.dispose()))
})

/** Advisory locks in the test's database: held, and waited for. */
const advisoryLocks = async (): Promise<{ held: number; waiting: number }> => {
  const out = await psql(url, `select count(*) filter (where granted) || ' ' || count(*) filter (where not granted) from pg_locks
    where locktype = 'advisory' and database = (select oid from pg_database where datname = current_database())`)
  const [held, waiting] = out.trim().split(" ").map(Number)
  return { held: held ?? -1, waiting: waiting ?? -1 }
}

/** Polls until `f` holds, at most `tries` times (bounded work: no timed assertion). */
const eventually = async (f: () => Promise<boolean>, tries = 200): Promise<boolean> => {
  for (let i = 0; i < tries; i++) {
    if (await f()) return true
    await new Promise((r) => setTimeout(r, 25))
  }
  return false
}

/** A stored configuration whose id is `marker` (what a unit of work writes and the next one reads). */
const configMarked = (marker: string): PlatformConfigState => ({
  id: marker,
  supportedCurrencies: [],
  isRegulatedFinancialInstitution: false,
  feeConfigs: [],
  railFeeConfigs: [],
  createdAt: "2026-01-01T00:00:00Z",
  updatedAt: "2026-01-01T00:00:00Z"
})

/**
 * A unit of work naming `account` of the platform: writes the config of `configOf` (the
 * platform by default) with `marker`, after `gate` opens.
 */
const unit = (marker: string, gate?: Deferred.Deferred<void>, account = "InternalAccount:a", configOf = PLATFORM) =>
  Effect.flatMap(Effect.service(Store), (store) =>
    store.transact((uow) =>
      Effect.gen(function*() {
        const before = yield* store.platformConfigs.get(configOf)
        if (gate !== undefined) {
          entered.add(marker)
          yield* Deferred.await(gate)
        }
        yield* uow.putPlatformConfig({ platformId: configOf, config: configMarked(marker) })
        return before
      }), { movesMoneyOf: PLATFORM, accounts: [account] }))

/** The gated units of work that have reached their gate (inside their transaction, holding their turns). */
const entered = new Set<string>()

/** `makeTurns` over a plain client of the test's database (as another process's store would hold turns). */
const withTurns = <A, E>(f: (turns: Turns) => Effect.Effect<A, E, SqlClient.SqlClient>) =>
  Effect.scoped(Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) => f(makeTurns(sql)))).pipe(
    Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 2 }))
  )

describe("turns on internal accounts, PostgreSQL", () => {
  it("in one process, a unit of work naming a busy account waits for the holder and sees what it committed; an idle one takes no lock in the database", async () => {
    const gate = Effect.runSync(Deferred.make<void>())
    const first = runtimes[0]!.runFork(unit("first", gate))
    expect(await eventually(async () => entered.has("first"))).toBe(true)
    // Idle: its turn is taken in this process only.
    expect(await advisoryLocks()).toEqual({ held: 0, waiting: 0 })
    const second = runtimes[0]!.runFork(unit("second"))
    await Effect.runPromise(Deferred.succeed(gate, undefined))
    await runtimes[0]!.runPromise(Fiber.join(first))
    const seen = await runtimes[0]!.runPromise(Fiber.join(second))
    expect(seen?.config.id).toBe("first")
    expect(await advisoryLocks()).toEqual({ held: 0, waiting: 0 })
  }, 60_000)

  it("a unit of work naming another account of the platform runs while the first holds its turn", async () => {
    const gate = Effect.runSync(Deferred.make<void>())
    const first = runtimes[0]!.runFork(unit("first-of-two", gate))
    expect(await eventually(async () => entered.has("first-of-two"))).toBe(true)
    // Another account (and another row): it commits while the first still waits at its gate.
    const seen = await runtimes[0]!.runPromise(unit("other", undefined, "InternalAccount:b", "turns-platform-b"))
    expect(seen).toBeUndefined()
    await Effect.runPromise(Deferred.succeed(gate, undefined))
    await runtimes[0]!.runPromise(Fiber.join(first))
  }, 60_000)

  it("turns held in the database: another process's unit of work waits there, and nothing is left locked", async () => {
    const key = "turn:turns-platform:InternalAccount:a"
    const gate = Effect.runSync(Deferred.make<void>())
    const holder = Effect.runFork(withTurns((turns) => turns.holding(new Set([key]), "always", (_, inDatabase) => Effect.as(Deferred.await(gate), inDatabase))))
    expect(await eventually(async () => (await advisoryLocks()).held === 1)).toBe(true)
    // A store (another pool: another process) whose unit of work names the account runs
    // its first attempt without the database's turn, so it does not wait for it; a rerun would.
    const waiter = Effect.runFork(withTurns((turns) => turns.holding(new Set([key]), "always", (_, inDatabase) => Effect.succeed(inDatabase))))
    expect(await eventually(async () => (await advisoryLocks()).waiting === 1)).toBe(true)
    await Effect.runPromise(Deferred.succeed(gate, undefined))
    expect(await Effect.runPromise(Fiber.join(holder))).toBe(true)
    expect(await Effect.runPromise(Fiber.join(waiter))).toBe(true)
    expect(await eventually(async () => {
      const locks = await advisoryLocks()
      return locks.held === 0 && locks.waiting === 0
    })).toBe(true)
  }, 60_000)

  it("one interrupted while it waits for the turn in the database leaves no lock behind", async () => {
    const key = "turn:turns-platform:InternalAccount:a"
    const gate = Effect.runSync(Deferred.make<void>())
    const holder = Effect.runFork(withTurns((turns) => turns.holding(new Set([key]), "always", () => Deferred.await(gate))))
    expect(await eventually(async () => (await advisoryLocks()).held === 1)).toBe(true)
    const waiter = Effect.runFork(withTurns((turns) => turns.holding(new Set([key]), "always", () => Effect.void)))
    expect(await eventually(async () => (await advisoryLocks()).waiting === 1)).toBe(true)
    await Effect.runPromise(Fiber.interrupt(waiter))
    await Effect.runPromise(Deferred.succeed(gate, undefined))
    await Effect.runPromise(Fiber.join(holder))
    expect(await eventually(async () => {
      const locks = await advisoryLocks()
      return locks.held === 0 && locks.waiting === 0
    })).toBe(true)
    // Both stores still run units of work naming the account.
    await runtimes[1]!.runPromise(unit("after, two"))
    await runtimes[0]!.runPromise(unit("after, one"))
    expect(await advisoryLocks()).toEqual({ held: 0, waiting: 0 })
  }, 60_000)

  it("a run that leaves its connection in a failed transaction still gives its turns back before the connection is reused", async () => {
    const key = "turn:turns-platform:InternalAccount:failed"
    const after = await Effect.runPromise(withTurns((turns) =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        // On the connection holding the turn: a transaction left open and failed (what a
        // ROLLBACK that never reached the database would leave).
        const run = yield* Effect.exit(turns.holding(new Set([key]), "always", (onConnection) =>
          onConnection(Effect.andThen(sql.unsafe("begin"), sql.unsafe("select 1 / 0")))
        ))
        // The client is still open: a lock left on its pooled connection would still be held.
        const locks = yield* Effect.promise(advisoryLocks)
        // And the turn can be taken again, through the same pool.
        const again = yield* turns.holding(new Set([key]), "always", () => Effect.succeed("taken again"))
        return { run: run._tag, locks, again }
      })
    ))
    expect(after).toEqual({ run: "Failure", locks: { held: 0, waiting: 0 }, again: "taken again" })
    expect(await advisoryLocks()).toEqual({ held: 0, waiting: 0 })
  }, 60_000)
})

