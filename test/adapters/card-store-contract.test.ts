/**
 * The Store contract for cards (`cards`, `putCard`), run against every Store (memory,
 * PGlite in memory, PostgreSQL on a fresh database of the run's throwaway cluster) so
 * the three behave the same: reads and writes, the unique platformCardId, the list's
 * filters and keyset paging in both orders, the live-card count the slot rule reads
 * (race-safe: concurrent units of work never take more slots than there are), rollback
 * and resetPlatform. Every test uses its own platform id (see ../support/store-harness.ts).
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, ManagedRuntime, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { postgresStoreLayer } from "../../src/adapters/sql/index.js"
import type { Card, CardStatus } from "../../src/domain/card.js"
import { type CardQuery, type CardRecord, Store } from "../../src/ports/store.js"
import { expectConflict, failureOf, freshPlatform, KINDS, storeSuite, type StoreService, walk } from "../support/store-harness.js"

const T0 = Date.parse("2026-01-01T00:00:00.000Z")
const iso = (ms: number) => new Date(ms).toISOString()

interface CardOptions {
  readonly cardholderId?: string
  readonly status?: CardStatus
  readonly fundingSources?: ReadonlyArray<string>
  readonly platformCardId?: string
  readonly createdAt?: number
}

const cardRecord = (platformId: string, id: string, o: CardOptions = {}): CardRecord => {
  const status = o.status ?? "ACTIVE"
  const fundingSources = status === "CLOSED" ? [] : o.fundingSources ?? ["InternalAccount:usd"]
  const card: Card = {
    id,
    cardholderId: o.cardholderId ?? "Customer:1",
    platformCardId: o.platformCardId ?? `pc-${id}`,
    state: status,
    status,
    stateReason: status === "CLOSED" ? "CLOSED_BY_PLATFORM" : null,
    pinStatus: "NOT_SET",
    cardCapabilities: { supportsDigitalWalletTokenization: true },
    brand: "VISA",
    form: "VIRTUAL",
    last4: "4242",
    expMonth: 1,
    expYear: 2029,
    fundingSources,
    maxSpendPerTransaction: null,
    currency: "USD",
    processorRef: "card_1",
    issuerRef: "sandbox_card_1",
    createdAt: iso(o.createdAt ?? T0),
    updatedAt: iso(o.createdAt ?? T0)
  }
  return {
    platformId,
    card,
    fundingSourceBindings: fundingSources.map((internalAccountId, i) => ({ id: `CardFundingSource:${id}:${i}`, internalAccountId })),
    pinFailures: 0
  }
}

const put = (store: StoreService, ...records: ReadonlyArray<CardRecord>) =>
  store.transact((uow) => Effect.forEach(records, (r) => uow.putCard(r), { discard: true }))

const byKey = (a: CardRecord, b: CardRecord): number => {
  const x = Date.parse(a.card.createdAt) - Date.parse(b.card.createdAt)
  return x !== 0 ? x : a.card.id < b.card.id ? -1 : a.card.id > b.card.id ? 1 : 0
}

const matches = (q: CardQuery) => (r: CardRecord) =>
  (q.cardholderId === undefined || r.card.cardholderId === q.cardholderId) &&
  (q.accountId === undefined || r.card.fundingSources.includes(q.accountId)) &&
  (q.platformCardId === undefined || r.card.platformCardId === q.platformCardId) &&
  (q.state === undefined || r.card.state === q.state)

const sleep = (ms: number) => Effect.sleep(`${ms} millis`)

/** One unit of work that issues a card if the platform has a slot (the operation's check-then-write). */
const issueIfSlot = (store: StoreService, p: string, id: string, max: number, cardholderId = "Customer:1") =>
  store.transact((uow) =>
    Effect.gen(function*() {
      const live = yield* store.cards.countLive(p)
      yield* sleep(1)
      if (live >= max) return false
      yield* uow.putCard(cardRecord(p, id, { cardholderId }))
      return true
    })
  )

describe.each(KINDS)("Card store contract on %s", (kind) => {
  const { storeIt, runtime, databaseUrl } = storeSuite(kind)

  describe("reads and writes", () => {
    storeIt("put, get, findByPlatformCardId, and rewrite in place (bindings kept as written)", (store, p) =>
      Effect.gen(function*() {
        const a = cardRecord(p, "Card:a", { fundingSources: ["InternalAccount:1", "InternalAccount:2"], platformCardId: "emp-1" })
        yield* put(store, a)
        expect(yield* store.cards.get(p, "Card:a")).toEqual(a)
        expect(yield* store.cards.get(p, "Card:missing")).toBeUndefined()
        expect(yield* store.cards.get(`${p}-other`, "Card:a")).toBeUndefined()
        expect(yield* store.cards.findByPlatformCardId(p, "emp-1")).toEqual(a)
        expect(yield* store.cards.findByPlatformCardId(p, "emp-2")).toBeUndefined()
        expect(yield* store.cards.findByPlatformCardId(p, "emp\u00001")).toBeUndefined()
        const frozen: CardRecord = { ...a, card: { ...a.card, state: "FROZEN", status: "FROZEN", platformCardId: "emp-1b", updatedAt: iso(T0 + 5) }, pinFailures: 2 }
        yield* put(store, frozen)
        expect(yield* store.cards.get(p, "Card:a")).toEqual(frozen)
        expect(yield* store.cards.findByPlatformCardId(p, "emp-1")).toBeUndefined()
        expect(yield* store.cards.findByPlatformCardId(p, "emp-1b")).toEqual(frozen)
        expect((yield* store.cards.list(p, {}, { limit: 10 })).totalCount).toBe(1)
      }))

    storeIt("a unit of work reads its own card writes; a failed one leaves nothing", (store, p) =>
      Effect.gen(function*() {
        const seen = yield* store.transact((uow) =>
          Effect.gen(function*() {
            yield* uow.putCard(cardRecord(p, "Card:1"))
            return [yield* store.cards.get(p, "Card:1"), yield* store.cards.countLive(p)] as const
          })
        )
        expect(seen[0]?.card.id).toBe("Card:1")
        expect(seen[1]).toBe(1)
        const failed = yield* Effect.exit(store.transact((uow) =>
          Effect.andThen(
            Effect.andThen(uow.putCard(cardRecord(p, "Card:2")), uow.putCard(cardRecord(p, "Card:1", { status: "CLOSED" }))),
            Effect.fail("undo" as const)
          )
        ))
        expect(failureOf(failed)).toBe("undo")
        expect(yield* store.cards.get(p, "Card:2")).toBeUndefined()
        expect((yield* store.cards.get(p, "Card:1"))?.card.status).toBe("ACTIVE")
        expect(yield* store.cards.countLive(p)).toBe(1)
      }))

    storeIt("platformCardId is unique in a platform (closed cards included), not across platforms", (store, p) =>
      Effect.gen(function*() {
        yield* put(store, cardRecord(p, "Card:1", { platformCardId: "same", status: "CLOSED" }))
        expectConflict(yield* Effect.exit(put(store, cardRecord(p, "Card:2", { platformCardId: "same" }))), "cards_platform_card_id")
        expect(yield* store.cards.get(p, "Card:2")).toBeUndefined()
        yield* put(store, cardRecord(`${p}-b`, "Card:2", { platformCardId: "same" }))
        // Rewriting the holder itself is no conflict.
        yield* put(store, cardRecord(p, "Card:1", { platformCardId: "same", status: "CLOSED", createdAt: T0 }))
      }))
  })

  describe("list", () => {
    const fixture = (p: string): ReadonlyArray<CardRecord> => [
      cardRecord(p, "Card:01", { cardholderId: "Customer:a", fundingSources: ["InternalAccount:a1"], createdAt: T0 }),
      cardRecord(p, "Card:02", { cardholderId: "Customer:a", fundingSources: ["InternalAccount:a1", "InternalAccount:a2"], status: "FROZEN", createdAt: T0 + 1 }),
      cardRecord(p, "Card:03", { cardholderId: "Customer:b", fundingSources: ["InternalAccount:b1"], createdAt: T0 + 1 }),
      cardRecord(p, "Card:04", { cardholderId: "Customer:b", status: "CLOSED", platformCardId: "closed-one", createdAt: T0 + 2 }),
      cardRecord(p, "Card:05", { cardholderId: "Customer:a", fundingSources: ["InternalAccount:a2"], createdAt: T0 + 3 }),
      cardRecord(p, "Card:06", { cardholderId: "Customer:c", fundingSources: ["InternalAccount:c1"], createdAt: T0 + 3 }),
      cardRecord(p, "Card:07", { cardholderId: "Customer:a", fundingSources: ["InternalAccount:a1"], status: "CLOSED", createdAt: T0 + 4 })
    ]
    const queries: ReadonlyArray<CardQuery> = [
      {},
      { cardholderId: "Customer:a" },
      { cardholderId: "Customer:z" },
      { accountId: "InternalAccount:a1" },
      { accountId: "InternalAccount:a2" },
      { accountId: "InternalAccount:a" },
      { platformCardId: "closed-one" },
      { state: "ACTIVE" },
      { state: "FROZEN" },
      { state: "CLOSED" },
      { state: "PROCESSING" },
      { cardholderId: "Customer:a", state: "ACTIVE" },
      { cardholderId: "Customer:a", accountId: "InternalAccount:a2", state: "FROZEN" }
    ]

    storeIt("every filter, in both orders, over pages of every size, matches the model; the totals too", (store, p) =>
      Effect.gen(function*() {
        const all = fixture(p)
        // Written out of order: the list orders by (createdAt, id), not by writes.
        yield* put(store, ...[...all].reverse())
        yield* put(store, cardRecord(`${p}-other`, "Card:01", { cardholderId: "Customer:a" }))
        for (const q of queries) {
          const expected = all.filter(matches(q)).sort(byKey).map((r) => r.card.id)
          for (const limit of [1, 2, 3, 100]) {
            for (const descending of [false, true]) {
              const rows = yield* walk((page) => store.cards.list(p, q, { ...page, descending }), limit, expected.length)
              expect(rows.map((r) => r.card.id), JSON.stringify({ q, limit, descending })).toEqual(descending ? [...expected].reverse() : expected)
            }
          }
        }
      }), 60_000)

    storeIt("a cursor the store did not issue is InvalidCursor", (store, p) =>
      Effect.gen(function*() {
        yield* put(store, cardRecord(p, "Card:1"))
        const bad = yield* Effect.exit(store.cards.list(p, {}, { limit: 1, cursor: "not-a-cursor" }))
        expect(failureOf(bad)).toMatchObject({ _tag: "InvalidCursor" })
      }))
  })

  describe("live cards (the slot rule's count)", () => {
    storeIt("counts the platform's and one cardholder's cards that are not CLOSED; closing frees, reopening (a rewrite) counts", (store, p) =>
      Effect.gen(function*() {
        expect(yield* store.cards.countLive(p)).toBe(0)
        yield* put(
          store,
          cardRecord(p, "Card:1", { cardholderId: "Customer:a" }),
          cardRecord(p, "Card:2", { cardholderId: "Customer:a", status: "FROZEN" }),
          cardRecord(p, "Card:3", { cardholderId: "Customer:b", status: "CLOSED" }),
          cardRecord(p, "Card:4", { cardholderId: "Customer:b" })
        )
        yield* put(store, cardRecord(`${p}-other`, "Card:1", { cardholderId: "Customer:a" }))
        expect(yield* store.cards.countLive(p)).toBe(3)
        expect(yield* store.cards.countLive(p, "Customer:a")).toBe(2)
        expect(yield* store.cards.countLive(p, "Customer:b")).toBe(1)
        expect(yield* store.cards.countLive(p, "Customer:z")).toBe(0)
        yield* put(store, cardRecord(p, "Card:2", { cardholderId: "Customer:a", status: "CLOSED" }))
        expect(yield* store.cards.countLive(p)).toBe(2)
        expect(yield* store.cards.countLive(p, "Customer:a")).toBe(1)
      }))

    storeIt("concurrent check-then-issue units of work never take more slots than there are", (store, p) =>
      Effect.gen(function*() {
        const results = yield* Effect.all(Array.from({ length: 12 }, (_, i) => issueIfSlot(store, p, `Card:${i}`, 4)), { concurrency: "unbounded" })
        expect(results.filter((x) => x)).toHaveLength(4)
        expect(yield* store.cards.countLive(p)).toBe(4)
        expect((yield* store.cards.list(p, {}, { limit: 100 })).totalCount).toBe(4)
      }), 60_000)

    storeIt("issuing on one platform does not contend with another's count", (store, p) =>
      Effect.gen(function*() {
        const q = `${p}-b`
        const results = yield* Effect.all(
          Array.from({ length: 8 }, (_, i) => issueIfSlot(store, i % 2 === 0 ? p : q, `Card:${i}`, 4)),
          { concurrency: "unbounded" }
        )
        expect(results.every((x) => x)).toBe(true)
        expect([yield* store.cards.countLive(p), yield* store.cards.countLive(q)]).toEqual([4, 4])
      }), 60_000)
  })

  describe("resetPlatform", () => {
    storeIt("clears the platform's cards only, and frees their platformCardIds", (store, p) =>
      Effect.gen(function*() {
        const q = `${p}-kept`
        yield* put(store, cardRecord(p, "Card:1", { platformCardId: "x" }), cardRecord(q, "Card:1", { platformCardId: "x" }))
        yield* store.transact((uow) => uow.resetPlatform(p))
        expect(yield* store.cards.get(p, "Card:1")).toBeUndefined()
        expect(yield* store.cards.countLive(p)).toBe(0)
        expect((yield* store.cards.list(p, {}, { limit: 10 })).totalCount).toBe(0)
        expect((yield* store.cards.get(q, "Card:1"))?.card.platformCardId).toBe("x")
        yield* put(store, cardRecord(p, "Card:2", { platformCardId: "x" }))
      }))
  })

  if (kind === "postgres") {
    describe("two store instances on one database (two processes)", () => {
      let second: ManagedRuntime.ManagedRuntime<Store, unknown>
      beforeAll(async () => {
        second = ManagedRuntime.make(postgresStoreLayer({ url: databaseUrl()!, maxConnections: 24 }))
        await second.runPromise(Effect.void)
      }, 30_000)
      afterAll(async () => {
        await second?.dispose()
      })

      it("both issue concurrently: never more live cards than the maximum", async () => {
        const [one, two] = await Promise.all([runtime().runPromise(Effect.service(Store)), second.runPromise(Effect.service(Store))])
        const p = freshPlatform(kind)
        const [a, b] = await Promise.all([
          runtime().runPromise(Effect.all(Array.from({ length: 6 }, (_, i) => issueIfSlot(one, p, `Card:one-${i}`, 5)), { concurrency: "unbounded" })),
          second.runPromise(Effect.all(Array.from({ length: 6 }, (_, i) => issueIfSlot(two, p, `Card:two-${i}`, 5)), { concurrency: "unbounded" }))
        ])
        expect([...a, ...b].filter((x) => x)).toHaveLength(5)
        expect(await runtime().runPromise(one.cards.countLive(p))).toBe(5)
      }, 60_000)
    })

    it("the live-card count is an index read (no sequential scan of cards)", async () => {
      const plans = await Effect.runPromise(
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const explain = (text: string, params: ReadonlyArray<string>) =>
            Effect.map(sql.unsafe<{ readonly "QUERY PLAN": string }>(`explain ${text}`, params), (rows) => rows.map((r) => r["QUERY PLAN"]).join("\n"))
          // The statements of src/adapters/sql/cards.ts `countLive`.
          return [
            yield* explain(`select count(*)::int as n from cards where platform_id = $1 and state <> 'CLOSED'`, ["p"]),
            yield* explain(`select count(*)::int as n from cards where platform_id = $1 and cardholder_id = $2 and state <> 'CLOSED'`, ["p", "Customer:1"])
          ]
        }).pipe(
          Effect.provide(PgClient.layer({ url: Redacted.make(databaseUrl()!), startupParameters: { enable_seqscan: "off" } })),
          Effect.scoped
        )
      )
      for (const plan of plans) {
        expect(plan).toContain("cards_live")
        expect(plan).not.toContain("Seq Scan")
      }
    }, 60_000)
  }
})
