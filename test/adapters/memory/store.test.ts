import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber } from "effect"
import { Collection } from "../../../src/adapters/memory/collection.js"
import { memoryLayer } from "../../../src/adapters/memory/index.js"
import { makeMutex } from "../../../src/adapters/memory/mutex.js"
import { conflict } from "../../../src/domain/errors.js"
import type { CustomerResponse } from "../../../src/domain/customer.js"
import { Events } from "../../../src/ports/events.js"
import { Store } from "../../../src/ports/store.js"
import { platformA, platformB } from "../../support/api.js"

const customer = (id: string, pcid: string): CustomerResponse => ({
  customerType: "INDIVIDUAL",
  id,
  platformCustomerId: pcid,
  umaAddress: `$${pcid}@x`,
  agreementConsents: [],
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
  isDeleted: false,
  kycStatus: "UNVERIFIED",
  fullName: "T"
})

const event = (platformId: string) => ({ id: "Webhook:1", platformId, type: "TEST", timestamp: "t", data: null })

describe("memory Store", () => {
  it.effect("a unit of work commits its writes and events together", () =>
    Effect.gen(function*() {
      const store = yield* Store
      const events = yield* Events
      yield* store.transact((uow) =>
        Effect.sync(() => {
          uow.putCustomer({ platformId: platformA.id, customer: customer("Customer:1", "p1") })
          uow.emit(event(platformA.id))
        })
      )
      assert.isDefined(yield* store.customers.get(platformA.id, "Customer:1"))
      assert.strictEqual((yield* events.list(platformA.id)).length, 1)
    }).pipe(Effect.provide(memoryLayer([platformA]))))

  it.effect("a failed unit of work leaves no writes and no events", () =>
    Effect.gen(function*() {
      const store = yield* Store
      const events = yield* Events
      const exit = yield* Effect.exit(store.transact((uow) =>
        Effect.gen(function*() {
          uow.putCustomer({ platformId: platformA.id, customer: customer("Customer:2", "p2") })
          uow.emit(event(platformA.id))
          return yield* conflict("CONFLICT", "refused")
        })
      ))
      assert.isTrue(Exit.isFailure(exit))
      assert.isUndefined(yield* store.customers.get(platformA.id, "Customer:2"))
      assert.isUndefined(yield* store.customers.findActiveByPlatformCustomerId(platformA.id, "p2"))
      assert.strictEqual((yield* events.list(platformA.id)).length, 0)
    }).pipe(Effect.provide(memoryLayer([platformA]))))

  it.effect("a defect inside a unit of work releases the lock", () =>
    Effect.gen(function*() {
      const store = yield* Store
      yield* Effect.exit(store.transact(() => Effect.die(new Error("boom"))))
      const after = yield* store.transact(() => Effect.succeed("ran"))
      assert.strictEqual(after, "ran")
    }).pipe(Effect.provide(memoryLayer([platformA]))))

  it.effect("records are per platform", () =>
    Effect.gen(function*() {
      const store = yield* Store
      yield* store.transact((uow) => Effect.sync(() => uow.putCustomer({ platformId: platformA.id, customer: customer("Customer:3", "same") })))
      assert.isUndefined(yield* store.customers.get(platformB.id, "Customer:3"))
      assert.isUndefined(yield* store.customers.findActiveByPlatformCustomerId(platformB.id, "same"))
      const list = yield* store.customers.list(platformB.id, {}, { limit: 10 })
      assert.strictEqual(list.totalCount, 0)
    }).pipe(Effect.provide(memoryLayer([platformA, platformB]))))
})

describe("mutex", () => {
  it.live("serialises units of work in arrival order, even when they suspend", () =>
    Effect.gen(function*() {
      const exclusive = makeMutex()
      const log: Array<string> = []
      const job = (name: string) =>
        exclusive(Effect.gen(function*() {
          log.push(`${name}:start`)
          yield* Effect.yieldNow
          yield* Effect.sleep("1 millis")
          log.push(`${name}:end`)
        }))
      const fibers = yield* Effect.forEach(["a", "b", "c"], (n) => Effect.forkChild(job(n)))
      yield* Effect.forEach(fibers, Fiber.join)
      assert.deepStrictEqual(log, ["a:start", "a:end", "b:start", "b:end", "c:start", "c:end"])
    }))
})

describe("Collection", () => {
  it("pages oldest first with opaque cursors and a total count", () => {
    const c = new Collection<{ readonly n: number }>()
    for (let i = 0; i < 7; i++) c.put(`id${i}`, { n: i })
    c.delete("id2")
    const even = (r: { readonly n: number }) => r.n % 2 === 0
    const p1 = c.page(even, { limit: 2 })
    if (!("data" in p1)) throw new Error("expected a page")
    assert.deepStrictEqual(p1.data.map((r) => r.n), [0, 4])
    assert.strictEqual(p1.totalCount, 3)
    assert.isTrue(p1.hasMore)
    const p2 = c.page(even, { limit: 2, cursor: p1.nextCursor })
    if (!("data" in p2)) throw new Error("expected a page")
    assert.deepStrictEqual(p2.data.map((r) => r.n), [6])
    assert.isFalse(p2.hasMore)
    assert.isUndefined(p2.nextCursor)
  })
  it("refuses a cursor it did not make", () => {
    const c = new Collection<number>()
    const r = c.page(() => true, { limit: 1, cursor: "bm90LWEtY3Vyc29y" })
    assert.isFalse("data" in r)
  })
})
