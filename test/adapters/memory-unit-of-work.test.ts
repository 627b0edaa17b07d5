/**
 * The memory store's units of work under contention: one at a time in arrival order
 * (FIFO), a waiter or a holder interrupted gives the lock on, a read from outside never
 * sees half of a unit of work that is suspended mid-way, and nested levels keep their own
 * rollback. The store contract suites (store-contract.test.ts) hold the single-fiber
 * semantics on every store; these exercise the memory store's own lock and level machinery.
 */
import { Cause, Deferred, Effect, Exit, Fiber } from "effect"
import { describe, expect, it } from "vitest"
import { makeMemoryStore } from "../../src/adapters/memory/store.js"
import { makeMutex } from "../../src/adapters/memory/mutex.js"
import type { InternalAccountRecord, PlatformConfigRecord } from "../../src/ports/money.js"

const run = <A, E>(e: Effect.Effect<A, E>) => Effect.runPromise(e)

/** A platform config record that differs only by its platform id and a marker field we read back. */
const configOf = (platformId: string, marker: string): PlatformConfigRecord =>
  ({ platformId, config: { marker } }) as unknown as PlatformConfigRecord

/** An internal account of one customer in USD: two of them with different ids break the owner-currency unique key. */
const accountOf = (platformId: string, id: string): InternalAccountRecord => ({
  platformId,
  id,
  customerId: "Customer:one",
  type: "INTERNAL_FIAT",
  status: "ACTIVE",
  currency: "USD",
  createdAt: "2026-11-27T00:00:00.000Z",
  updatedAt: "2026-11-27T00:00:00.000Z"
})

const markerOf = (r: PlatformConfigRecord | undefined): string | undefined =>
  (r as unknown as { config?: { marker?: string } } | undefined)?.config?.marker

describe("memory mutex", () => {
  it("hands the lock to waiters in arrival order; an interrupted waiter leaves the queue", () =>
    run(Effect.gen(function*() {
      const mutex = makeMutex()
      const order: Array<number> = []
      const gate = yield* Deferred.make<void>()
      const holder = yield* Effect.forkChild(mutex.exclusive(Effect.andThen(Deferred.await(gate), Effect.sync(() => order.push(0)))))
      yield* Effect.yieldNow
      const waiters: Array<Fiber.Fiber<number>> = []
      for (let i = 1; i <= 4; i++) {
        waiters.push(yield* Effect.forkChild(mutex.exclusive(Effect.sync(() => order.push(i)))))
        yield* Effect.yieldNow
      }
      yield* Fiber.interrupt(waiters[1]!)
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(holder)
      for (const i of [0, 2, 3]) yield* Fiber.await(waiters[i]!)
      expect(order).toEqual([0, 1, 3, 4])
      expect(mutex.isLocked()).toBe(false)
    })))

  it("a holder interrupted mid-way releases the lock to the next in line", () =>
    run(Effect.gen(function*() {
      const mutex = makeMutex()
      const started = yield* Deferred.make<void>()
      const holder = yield* Effect.forkChild(mutex.exclusive(Effect.andThen(Deferred.succeed(started, undefined), Effect.never)))
      yield* Deferred.await(started)
      const next = yield* Effect.forkChild(mutex.exclusive(Effect.succeed("next")))
      yield* Effect.yieldNow
      yield* Fiber.interrupt(holder)
      expect(yield* Fiber.join(next)).toBe("next")
      expect(mutex.isLocked()).toBe(false)
    })))
})

describe("memory units of work", () => {
  it("run one at a time in arrival order, and a read from outside waits for the one in progress", () =>
    run(Effect.gen(function*() {
      const store = yield* makeMemoryStore
      const p = "Platform:uow-fifo"
      const gate = yield* Deferred.make<void>()
      const inFirst = yield* Deferred.make<void>()
      const order: Array<string> = []
      const first = yield* Effect.forkChild(store.transact((uow) =>
        Effect.gen(function*() {
          yield* uow.putPlatformConfig(configOf(p, "half"))
          yield* Deferred.succeed(inFirst, undefined)
          // Suspended with its write in place: nobody outside may see it.
          yield* Deferred.await(gate)
          yield* uow.putPlatformConfig(configOf(p, "first"))
          order.push("first")
        })
      ))
      yield* Deferred.await(inFirst)
      const second = yield* Effect.forkChild(store.transact((uow) =>
        Effect.andThen(uow.putPlatformConfig(configOf(p, "second")), Effect.sync(() => void order.push("second")))
      ))
      yield* Effect.yieldNow
      const reader = yield* Effect.forkChild(store.platformConfigs.get(p))
      yield* Effect.yieldNow
      expect(order).toEqual([])
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(first)
      yield* Fiber.join(second)
      // The reader came after the second unit of work: it sees both, never "half".
      expect(markerOf(yield* Fiber.join(reader))).toBe("second")
      expect(order).toEqual(["first", "second"])
    })))

  it("an interrupted unit of work is rolled back and the next one runs", () =>
    run(Effect.gen(function*() {
      const store = yield* makeMemoryStore
      const p = "Platform:uow-interrupt"
      const started = yield* Deferred.make<void>()
      const held = yield* Effect.forkChild(store.transact((uow) =>
        Effect.andThen(uow.putPlatformConfig(configOf(p, "interrupted")), Effect.andThen(Deferred.succeed(started, undefined), Effect.never))
      ))
      yield* Deferred.await(started)
      const next = yield* Effect.forkChild(store.transact(() => store.platformConfigs.get(p)))
      yield* Effect.yieldNow
      yield* Fiber.interrupt(held)
      const exit = yield* Fiber.await(held)
      expect(Exit.isFailure(exit) && Cause.hasInterrupts(exit.cause)).toBe(true)
      expect(yield* Fiber.join(next)).toBeUndefined()
    })))

  it("a nested level keeps its own rollback and conflict rule; the outer level commits the rest", () =>
    run(Effect.gen(function*() {
      const store = yield* makeMemoryStore
      const p = "Platform:uow-nested"
      yield* store.transact((uow) =>
        Effect.gen(function*() {
          yield* uow.putPlatformConfig(configOf(p, "outer"))
          yield* uow.putInternalAccount(accountOf(p, "InternalAccount:a"))
          const inner = yield* Effect.exit(store.transact((u) => Effect.andThen(u.putPlatformConfig(configOf(p, "inner")), Effect.fail("no"))))
          expect(Exit.isFailure(inner)).toBe(true)
          expect(markerOf(yield* store.platformConfigs.get(p))).toBe("outer")
          // A conflict swallowed inside the level that raised it: the level dies, rolled back.
          const swallowed = yield* Effect.exit(store.transact((u) =>
            Effect.andThen(
              u.putPlatformConfig(configOf(p, "swallowed")),
              Effect.catchTag(u.putInternalAccount(accountOf(p, "InternalAccount:b")), "StoreConflict", () => Effect.void)
            )
          ))
          expect(Exit.isFailure(swallowed) && Cause.hasDies(swallowed.cause)).toBe(true)
          // Caught outside the level that raised it: that level is rolled back, the outer goes on.
          const caught = yield* Effect.exit(store.transact((u) =>
            Effect.andThen(u.putPlatformConfig(configOf(p, "caught")), u.putInternalAccount(accountOf(p, "InternalAccount:c")))
          ))
          expect(Exit.isFailure(caught) && Cause.hasFails(caught.cause)).toBe(true)
          expect(markerOf(yield* store.platformConfigs.get(p))).toBe("outer")
          yield* uow.putPlatformConfig(configOf(p, "committed"))
        })
      )
      expect(markerOf(yield* store.platformConfigs.get(p))).toBe("committed")
      expect((yield* store.internalAccounts.get(p, "InternalAccount:a"))?.id).toBe("InternalAccount:a")
      expect(yield* store.internalAccounts.get(p, "InternalAccount:b")).toBeUndefined()
    })))
})
