/**
 * Turns on a platform's money (src/adapters/sql/turns.ts), on PostgreSQL with two stores
 * (two pools, as two server processes) on one database:
 * - a unit of work that names the platform waits for the one holding the turn, and runs
 *   after it committed (it sees its write);
 * - one interrupted while it waits in the database for the turn leaves no lock behind;
 * - when nothing runs, no advisory lock is held at all.
 */
import { Deferred, Effect, Fiber, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { postgresStoreLayer } from "../../src/adapters/sql/index.js"
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

/** A unit of work naming the platform's money: writes the platform's config with `marker`, after `gate` opens. */
const unit = (marker: string, gate?: Deferred.Deferred<void>) =>
  Effect.flatMap(Effect.service(Store), (store) =>
    store.transact((uow) =>
      Effect.gen(function*() {
        const before = yield* store.platformConfigs.get(PLATFORM)
        if (gate !== undefined) yield* Deferred.await(gate)
        yield* uow.putPlatformConfig({ platformId: PLATFORM, config: configMarked(marker) })
        return before
      }), { movesMoneyOf: PLATFORM }))

describe("turns on a platform's money, two stores on one PostgreSQL database", () => {
  it("the second unit of work waits for the first and sees what it committed; nothing is left locked", async () => {
    const gate = Effect.runSync(Deferred.make<void>())
    const first = runtimes[0]!.runFork(unit("first", gate))
    expect(await eventually(async () => (await advisoryLocks()).held === 1)).toBe(true)
    const second = runtimes[1]!.runFork(unit("second"))
    // The second waits in the database for the first's turn.
    expect(await eventually(async () => (await advisoryLocks()).waiting === 1)).toBe(true)
    await Effect.runPromise(Deferred.succeed(gate, undefined))
    await runtimes[0]!.runPromise(Fiber.join(first))
    const seen = await runtimes[1]!.runPromise(Fiber.join(second))
    expect(seen?.config.id).toBe("first")
    expect(await advisoryLocks()).toEqual({ held: 0, waiting: 0 })
  }, 60_000)

  it("one interrupted while it waits for the turn leaves no lock behind", async () => {
    const gate = Effect.runSync(Deferred.make<void>())
    const holder = runtimes[0]!.runFork(unit("holder", gate))
    expect(await eventually(async () => (await advisoryLocks()).held === 1)).toBe(true)
    const waiter = runtimes[1]!.runFork(unit("waiter"))
    expect(await eventually(async () => (await advisoryLocks()).waiting === 1)).toBe(true)
    await runtimes[1]!.runPromise(Fiber.interrupt(waiter))
    await Effect.runPromise(Deferred.succeed(gate, undefined))
    await runtimes[0]!.runPromise(Fiber.join(holder))
    expect(await eventually(async () => {
      const locks = await advisoryLocks()
      return locks.held === 0 && locks.waiting === 0
    })).toBe(true)
    // Both stores still take turns: a unit of work through each runs.
    await runtimes[1]!.runPromise(unit("after, two"))
    await runtimes[0]!.runPromise(unit("after, one"))
    expect(await advisoryLocks()).toEqual({ held: 0, waiting: 0 })
  }, 60_000)
})
