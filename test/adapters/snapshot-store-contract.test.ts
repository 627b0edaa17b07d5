/**
 * The Store contract for sandbox snapshots (`snapshots.get`, `list`, `createSnapshot`,
 * `deleteSnapshot`, `restoreSnapshot`), run against every Store (memory, PGlite in
 * memory, PostgreSQL on a fresh database of the run's throwaway cluster): a restore puts
 * back the platform's state as the snapshot saw it (here: scheduled moves, the clock
 * offset, the webhook cursor), keeps its API tokens as they are now, leaves other
 * platforms alone, and inside a failed unit of work changes nothing; snapshots survive
 * restores and resetPlatform. On PostgreSQL, a snapshot of another schema is refused.
 */
import { Effect } from "effect"
import { describe, expect } from "vitest"
import type { SnapshotRecord, StoreService, TimerRecord, TokenRecord, WebhookDeliveryRecord } from "../../src/ports/store.js"
import { psql } from "../support/postgres.js"
import { KINDS, storeSuite, walk } from "../support/store-harness.js"

let seq = 0
const n = () => (++seq).toString().padStart(12, "0")

const snapshot = (platformId: string, at = "2026-01-01T00:00:00.000Z"): SnapshotRecord => ({
  platformId,
  snapshot: { id: `Snapshot:00000000-0000-4000-8000-${n()}`, name: `snapshot ${seq}`, createdAt: at, platformTime: at }
})

const timer = (platformId: string, subjectId: string, at: number): TimerRecord => ({
  platformId,
  id: `timer-${n()}`,
  at,
  kind: "settle",
  subjectId,
  event: "SETTLE"
})

const token = (platformId: string): TokenRecord => {
  const id = n()
  return {
    platformId,
    secretHash: "cd".repeat(32),
    token: {
      id: `Token:00000000-0000-4000-8000-${id}`,
      name: `token ${id}`,
      permissions: ["VIEW"],
      clientId: `snap${Date.now().toString(16)}${id}`,
      createdAt: "2026-01-01T00:00:00.000Z",
      updatedAt: "2026-01-01T00:00:00.000Z"
    }
  }
}

/** The part of a platform's state these cases write. */
const stateOf = (store: StoreService, p: string) =>
  Effect.all({
    timers: store.timers.pending(p),
    offset: store.clocks.offset(p),
    cursor: store.webhooks.cursor(p)
  })

describe.each(KINDS)("Snapshot store contract on %s", (kind) => {
  const { storeIt } = storeSuite(kind)

  storeIt("create, get, list oldest first in keyset pages, delete; per platform", (store, p) =>
    Effect.gen(function*() {
      const rs = [1, 2, 3].map((d) => snapshot(p, `2026-01-0${d}T00:00:00.000Z`))
      yield* store.transact((uow) => Effect.forEach(rs, (r) => uow.createSnapshot(r), { discard: true }))
      yield* store.transact((uow) => uow.createSnapshot(snapshot(`${p}-other`)))
      expect(yield* store.snapshots.get(p, rs[0]!.snapshot.id)).toEqual(rs[0])
      expect(yield* store.snapshots.get(`${p}-other`, rs[0]!.snapshot.id)).toBeUndefined()
      expect(yield* walk((page) => store.snapshots.list(p, page), 2, 3)).toEqual(rs)
      expect(yield* store.transact((uow) => uow.deleteSnapshot(`${p}-other`, rs[1]!.snapshot.id))).toBe(false)
      expect(yield* store.transact((uow) => uow.deleteSnapshot(p, rs[1]!.snapshot.id))).toBe(true)
      expect(yield* store.transact((uow) => uow.deleteSnapshot(p, rs[1]!.snapshot.id))).toBe(false)
      expect(yield* store.snapshots.get(p, rs[1]!.snapshot.id)).toBeUndefined()
      expect(yield* store.transact((uow) => uow.restoreSnapshot(p, rs[1]!.snapshot.id))).toBe("missing")
      expect(yield* walk((page) => store.snapshots.list(p, page), 5, 2)).toEqual([rs[0], rs[2]])
    }))

  storeIt("restore puts back the platform's state, keeps its tokens as they are now, and leaves other platforms alone", (store, p) =>
    Effect.gen(function*() {
      const q = `${p}-other`
      const kept = timer(p, "subject-1", 1_000)
      const early = token(p)
      yield* store.transact((uow) =>
        Effect.all([uow.schedule(kept), uow.setClockOffset(p, 60_000), uow.setWebhookCursor(p, 0), uow.putToken(early), uow.schedule(timer(q, "q-1", 5))])
      )
      const s = snapshot(p)
      yield* store.transact((uow) => uow.createSnapshot(s))
      const saved = yield* stateOf(store, p)
      expect(saved.timers).toEqual([kept])

      const late = token(p)
      yield* store.transact((uow) =>
        Effect.all([
          uow.cancelTimers(p, "subject-1"),
          uow.schedule(timer(p, "subject-2", 2_000)),
          uow.setClockOffset(p, 999_000),
          uow.setWebhookCursor(p, 7),
          uow.deleteToken(p, early.token.id),
          uow.putToken(late),
          uow.schedule(timer(q, "q-2", 6))
        ])
      )
      const otherBefore = yield* stateOf(store, q)
      expect(yield* store.transact((uow) => uow.restoreSnapshot(p, s.snapshot.id))).toBe("restored")
      expect(yield* stateOf(store, p)).toEqual(saved)
      expect(yield* stateOf(store, q)).toEqual(otherBefore)
      // Credentials are not part of a snapshot: the deleted token stays deleted, the new one stays.
      expect(yield* store.tokens.get(p, early.token.id)).toBeUndefined()
      expect(yield* store.tokens.byClientId(late.token.clientId)).toEqual(late)
      // The snapshot is still there, and restores again.
      expect(yield* store.snapshots.get(p, s.snapshot.id)).toEqual(s)
      yield* store.transact((uow) => uow.schedule(timer(p, "subject-3", 3_000)))
      yield* store.transact((uow) => uow.restoreSnapshot(p, s.snapshot.id))
      expect(yield* stateOf(store, p)).toEqual(saved)
    }))

  storeIt("a failed unit of work that restored (or took a snapshot) changes nothing", (store, p) =>
    Effect.gen(function*() {
      yield* store.transact((uow) => Effect.all([uow.schedule(timer(p, "a", 1)), uow.setClockOffset(p, 5_000)]))
      const s = snapshot(p)
      yield* store.transact((uow) => uow.createSnapshot(s))
      yield* store.transact((uow) => Effect.all([uow.schedule(timer(p, "b", 2)), uow.setClockOffset(p, 9_000), uow.setWebhookCursor(p, 3)]))
      const now = yield* stateOf(store, p)
      const failed = yield* Effect.exit(store.transact((uow) =>
        Effect.andThen(uow.restoreSnapshot(p, s.snapshot.id), Effect.andThen(uow.setClockOffset(p, 1), Effect.fail("abandon")))
      ))
      expect(failed._tag).toBe("Failure")
      expect(yield* stateOf(store, p)).toEqual(now)
      const abandoned = snapshot(p, "2026-02-01T00:00:00.000Z")
      const failedCreate = yield* Effect.exit(store.transact((uow) => Effect.andThen(uow.createSnapshot(abandoned), Effect.fail("abandon"))))
      expect(failedCreate._tag).toBe("Failure")
      expect(yield* store.snapshots.get(p, abandoned.snapshot.id)).toBeUndefined()
    }))

  storeIt("snapshots survive resetPlatform, and restore what the platform held before it", (store, p) =>
    Effect.gen(function*() {
      yield* store.transact((uow) => Effect.all([uow.schedule(timer(p, "a", 1)), uow.setClockOffset(p, 5_000), uow.setWebhookCursor(p, 2)]))
      const s = snapshot(p)
      yield* store.transact((uow) => uow.createSnapshot(s))
      const saved = yield* stateOf(store, p)
      yield* store.transact((uow) => uow.resetPlatform(p))
      expect(yield* stateOf(store, p)).toEqual({ timers: [], offset: 0, cursor: undefined })
      expect(yield* store.snapshots.get(p, s.snapshot.id)).toEqual(s)
      yield* store.transact((uow) => uow.restoreSnapshot(p, s.snapshot.id))
      expect(yield* stateOf(store, p)).toEqual(saved)
    }))

  storeIt("a finished delivery the retention sweep removed after a snapshot is back after its restore, and is swept again", (store, p) =>
    Effect.gen(function*() {
      const at = Date.parse("2026-01-01T00:00:00.000Z")
      const finished: WebhookDeliveryRecord = {
        platformId: p,
        id: `Webhook:00000000-0000-4000-8000-${n()}`,
        seq: 1,
        type: "TEST",
        resourceId: "Webhook:swept",
        body: JSON.stringify({ type: "TEST" }),
        status: "DELIVERED",
        attempts: [{ at, url: "https://receiver.invalid/hook", durationMs: 3, statusCode: 200 }],
        round: 1,
        nextAttemptAt: at + 60_000,
        createdAt: at,
        updatedAt: at
      }
      yield* store.transact((uow) => uow.addWebhookDeliveries([finished]))
      const s = snapshot(p)
      yield* store.transact((uow) => uow.createSnapshot(s))
      const cut = at + 1_000
      expect(yield* store.transact((uow) => uow.sweepWebhookDeliveries(p, cut, 10))).toBe(1)
      expect(yield* store.webhooks.get(p, finished.id)).toBeUndefined()
      // The snapshot kept its own copy of what the sweep reads (not the live one the sweep moved on).
      expect(yield* store.transact((uow) => uow.restoreSnapshot(p, s.snapshot.id))).toBe("restored")
      expect(yield* store.webhooks.get(p, finished.id)).toEqual(finished)
      expect(yield* store.transact((uow) => uow.sweepWebhookDeliveries(p, cut, 10))).toBe(1)
      expect(yield* store.webhooks.get(p, finished.id)).toBeUndefined()
    }))
})

describe("Snapshot store on postgres: a snapshot taken on another schema", () => {
  const { storeIt, databaseUrl } = storeSuite("postgres")

  storeIt("is refused whole (otherSchema): its rows are another row type's, so nothing of it is read", (store, p) =>
    Effect.gen(function*() {
      yield* store.transact((uow) => Effect.all([uow.schedule(timer(p, "a", 1)), uow.setClockOffset(p, 5_000)]))
      const s = snapshot(p)
      yield* store.transact((uow) => uow.createSnapshot(s))
      yield* store.transact((uow) => Effect.all([uow.schedule(timer(p, "b", 2)), uow.setClockOffset(p, 9_000)]))
      const now = yield* stateOf(store, p)
      const url = databaseUrl()
      if (url === undefined) return expect.fail("no database")
      yield* Effect.promise(() => psql(url, `update sandbox_snapshots set schema = 'an older schema' where id = '${s.snapshot.id}'`))
      expect(yield* store.transact((uow) => uow.restoreSnapshot(p, s.snapshot.id))).toBe("otherSchema")
      expect(yield* stateOf(store, p)).toEqual(now)
    }))
})
