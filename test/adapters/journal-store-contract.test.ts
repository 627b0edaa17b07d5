/**
 * The Store contract for reading the journal in bounded pieces (the sandbox's ledger
 * audit and internal-account journal, docs/sandbox-insight.md): `ledger.journalPage`
 * and `ledger.accountJournal`, on every Store (memory, PGlite, PostgreSQL).
 */
import { Effect, Exit } from "effect"
import { describe, expect } from "vitest"
import type { JournalEntry, Posting } from "../../src/ports/store.js"
import { KINDS, storeSuite, type StoreService } from "../support/store-harness.js"

const T0 = Date.parse("2026-01-01T00:00:00.000Z")
const WORLD = "system:world:USD"
const A = "InternalAccount:a"
const B = "InternalAccount:b"

let seq = 0
const entry = (platformId: string, postings: ReadonlyArray<Posting>, transactionId?: string): JournalEntry => ({
  platformId,
  id: `JournalEntry:j${++seq}`,
  kind: transactionId === undefined ? "FUND" : "DEBIT",
  ...(transactionId === undefined ? {} : { transactionId }),
  at: new Date(T0 + seq).toISOString(),
  postings
})
const transfer = (p: string, from: string, to: string, amount: number, transactionId?: string) =>
  entry(p, [{ account: from, currency: "USD", amount: -amount }, { account: to, currency: "USD", amount }], transactionId)

/** Writes: fund A 1000; A→B 100 (Transaction:1); fund B 5; A→B 30 with A named twice (net -30); B→world 1. */
const write = (store: StoreService, p: string) =>
  Effect.gen(function*() {
    const entries = [
      transfer(p, WORLD, A, 1_000),
      transfer(p, A, B, 100, "Transaction:1"),
      transfer(p, WORLD, B, 5),
      entry(p, [
        { account: A, currency: "USD", amount: -50 },
        { account: A, currency: "USD", amount: 20 },
        { account: B, currency: "USD", amount: 30 }
      ], "Transaction:2"),
      transfer(p, B, WORLD, 1, "Transaction:3")
    ]
    for (const e of entries) yield* store.transact((uow) => uow.post(e))
    return entries
  })

const walkJournal = (store: StoreService, p: string, limit: number) =>
  Effect.gen(function*() {
    const out: Array<JournalEntry> = []
    let after: string | undefined
    for (let pages = 0; pages < 100; pages++) {
      const page = yield* store.ledger.journalPage(p, { after, limit })
      expect(page.entries.length).toBeLessThanOrEqual(limit)
      out.push(...page.entries)
      if (page.next === undefined) return out
      after = page.next
    }
    throw new Error("journalPage did not end")
  })

const walkAccount = (store: StoreService, p: string, account: string, limit: number, descending: boolean) =>
  Effect.gen(function*() {
    const out: Array<readonly [string, number]> = []
    let cursor: string | undefined
    for (let pages = 0; pages < 100; pages++) {
      const page = yield* store.ledger.accountJournal(p, account, { limit, cursor, descending })
      expect(page.data.length).toBeLessThanOrEqual(limit)
      out.push(...page.data.map((l) => [l.entry.id, l.amount] as const))
      if (!page.hasMore) return { lines: out, totalCount: page.totalCount }
      cursor = page.nextCursor
    }
    throw new Error("accountJournal did not end")
  })

describe.each(KINDS)("Journal store contract on %s", (kind) => {
  const { storeIt } = storeSuite(kind)

  storeIt("journalPage reads the whole journal in the order written, in pages of any size", (store, p) =>
    Effect.gen(function*() {
      const entries = yield* write(store, p)
      for (const limit of [1, 2, 5, 100]) expect(yield* walkJournal(store, p, limit)).toEqual(entries)
      expect(yield* store.ledger.journalPage("plat-with-nothing", { limit: 10 })).toEqual({ entries: [] })
    }))

  storeIt("journalPage pages in seq order past nine entries (the SQL page once sorted seq as text: 1, 10, 11, 2, ...)", (store, p) =>
    Effect.gen(function*() {
      const entries: Array<JournalEntry> = []
      for (let i = 0; i < 24; i++) {
        const e = transfer(p, WORLD, A, 1 + i)
        yield* store.transact((uow) => uow.post(e))
        entries.push(e)
      }
      for (const limit of [5, 11, 100]) expect((yield* walkJournal(store, p, limit)).map((e) => e.id)).toEqual(entries.map((e) => e.id))
    }))

  storeIt("accountJournal: an internal account's entries with its net in each, paged either way", (store, p) =>
    Effect.gen(function*() {
      const entries = yield* write(store, p)
      const id = (i: number) => entries[i]!.id
      const ascA = [[id(0), 1_000], [id(1), -100], [id(3), -30]] as const
      const ascB = [[id(1), 100], [id(2), 5], [id(3), 30], [id(4), -1]] as const
      for (const limit of [1, 2, 10]) {
        expect(yield* walkAccount(store, p, A, limit, false)).toEqual({ lines: ascA, totalCount: 3 })
        expect(yield* walkAccount(store, p, A, limit, true)).toEqual({ lines: [...ascA].reverse(), totalCount: 3 })
        expect(yield* walkAccount(store, p, B, limit, false)).toEqual({ lines: ascB, totalCount: 4 })
        expect(yield* walkAccount(store, p, B, limit, true)).toEqual({ lines: [...ascB].reverse(), totalCount: 4 })
      }
      const first = yield* store.ledger.accountJournal(p, A, { limit: 1 })
      expect(first.data[0]).toEqual({ entry: entries[0], amount: 1_000, currency: "USD" })
      // Only internal accounts have a journal; another platform sees none of this one's.
      expect((yield* store.ledger.accountJournal(p, WORLD, { limit: 10 })).data).toEqual([])
      expect(yield* store.ledger.accountJournal("plat-with-nothing", A, { limit: 10 })).toEqual({ data: [], hasMore: false, totalCount: 0 })
    }))

  storeIt("a failed unit of work leaves no line in either; resetPlatform clears both", (store, p) =>
    Effect.gen(function*() {
      yield* store.transact((uow) => uow.post(transfer(p, WORLD, A, 10)))
      const failed = yield* Effect.exit(store.transact((uow) => Effect.andThen(uow.post(transfer(p, A, B, 5)), Effect.fail("rolled back" as const))))
      expect(Exit.isFailure(failed)).toBe(true)
      expect((yield* walkJournal(store, p, 10)).length).toBe(1)
      expect((yield* walkAccount(store, p, B, 10, false)).lines).toEqual([])
      yield* store.transact((uow) => uow.resetPlatform(p))
      expect(yield* walkJournal(store, p, 10)).toEqual([])
      expect((yield* walkAccount(store, p, A, 10, false)).totalCount).toBe(0)
    }))

  storeIt("a cursor the store did not issue is InvalidCursor", (store, p) =>
    Effect.gen(function*() {
      for (const bad of ["nope", "", Buffer.from("k1:1:x").toString("base64url")]) {
        const a = yield* Effect.exit(Effect.asVoid(store.ledger.journalPage(p, { after: bad, limit: 1 })))
        const b = yield* Effect.exit(Effect.asVoid(store.ledger.accountJournal(p, A, { limit: 1, cursor: bad })))
        for (const exit of [a, b]) {
          expect(Exit.isFailure(exit)).toBe(true)
          if (Exit.isFailure(exit)) expect(JSON.stringify(exit.cause)).toContain("InvalidCursor")
        }
      }
    }))
})
