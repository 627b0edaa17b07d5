/**
 * Sandbox snapshots (docs/sandbox.md#snapshots): `POST /sandbox/snapshots` saves the
 * calling sandbox platform's whole state with its clock; `POST /sandbox/snapshots/{id}/restore`
 * puts it back, and the platform's clock resumes at the instant the snapshot holds. What a
 * snapshot holds and leaves out: ports/snapshots.ts. These run on the base clock (the
 * handler does not put them on the platform's): they read and set the offset themselves.
 */
import { Clock, Effect } from "effect"
import { DEFAULT_PAGE_LIMIT } from "../domain/common.js"
import { conflict, forbidden } from "../domain/errors.js"
import type { Platform } from "../domain/platform.js"
import { MAX_SNAPSHOTS_PER_PLATFORM, type SandboxSnapshot, type SandboxSnapshotCreateRequest } from "../domain/sandbox-snapshot.js"
import { Ids } from "../ports/ids.js"
import { type PageResult, Store } from "../ports/store.js"
import { pageOf } from "./paging.js"
import { isoOf } from "./time.js"
import { missing } from "./not-found.js"

const sandboxOnly = (platform: Platform) =>
  platform.settings.sandbox ? Effect.void : Effect.fail(forbidden("Sandbox endpoints are not available to production platforms"))

const snapshotNotFound = (id: string) => missing("sandboxSnapshot", `Sandbox snapshot ${id} not found`)

/** POST /sandbox/snapshots: the platform's state now, its clock's instant with it. */
export const createSandboxSnapshot = Effect.fnUntraced(function*(platform: Platform, req: SandboxSnapshotCreateRequest) {
  yield* sandboxOnly(platform)
  const store = yield* Store
  const id = yield* (yield* Ids).make("Snapshot")
  const base = yield* Clock.currentTimeMillis
  return yield* store.transact((uow) =>
    Effect.gen(function*() {
      const held = yield* Effect.orDie(store.snapshots.list(platform.id, { limit: 1 }))
      if ((held.totalCount ?? Number.POSITIVE_INFINITY) >= MAX_SNAPSHOTS_PER_PLATFORM) {
        return yield* conflict("CONFLICT", `The platform holds ${MAX_SNAPSHOTS_PER_PLATFORM} snapshots, the most it may; delete one first`)
      }
      // Read in the unit of work that copies the state, so the instant and the state agree.
      const offset = yield* store.clocks.offset(platform.id)
      const snapshot: SandboxSnapshot = { id, name: req.name, createdAt: isoOf(base), platformTime: isoOf(base + offset) }
      yield* uow.createSnapshot({ platformId: platform.id, snapshot })
      return snapshot
    })
  )
})

export interface SnapshotListQuery {
  readonly limit?: number | undefined
  readonly cursor?: string | undefined
}

/** GET /sandbox/snapshots: oldest first, keyset paged. */
export const listSandboxSnapshots = Effect.fnUntraced(function*(platform: Platform, q: SnapshotListQuery) {
  yield* sandboxOnly(platform)
  const store = yield* Store
  const page = yield* pageOf(store.snapshots.list(platform.id, { limit: q.limit ?? DEFAULT_PAGE_LIMIT, cursor: q.cursor }))
  return { ...page, data: page.data.map((r) => r.snapshot) } satisfies PageResult<SandboxSnapshot>
})

/** GET /sandbox/snapshots/{id}. */
export const getSandboxSnapshot = Effect.fnUntraced(function*(platform: Platform, id: string) {
  yield* sandboxOnly(platform)
  const found = yield* (yield* Store).snapshots.get(platform.id, id)
  if (found === undefined) return yield* snapshotNotFound(id)
  return found.snapshot
})

/** DELETE /sandbox/snapshots/{id}: the snapshot only; the platform's state is untouched. */
export const deleteSandboxSnapshot = Effect.fnUntraced(function*(platform: Platform, id: string) {
  yield* sandboxOnly(platform)
  const deleted = yield* (yield* Store).transact((uow) => uow.deleteSnapshot(platform.id, id))
  if (!deleted) return yield* snapshotNotFound(id)
})

/**
 * POST /sandbox/snapshots/{id}/restore: one unit of work replaces everything the platform
 * holds (but its credentials) with the snapshot's copy and sets its clock so that it reads
 * the snapshot's `platformTime` now. It fails whole or not at all; other platforms are untouched.
 */
export const restoreSandboxSnapshot = Effect.fnUntraced(function*(platform: Platform, id: string) {
  yield* sandboxOnly(platform)
  const store = yield* Store
  const base = yield* Clock.currentTimeMillis
  return yield* store.transact((uow) =>
    Effect.gen(function*() {
      const found = yield* store.snapshots.get(platform.id, id)
      const outcome = found === undefined ? "missing" : yield* uow.restoreSnapshot(platform.id, id)
      if (found === undefined || outcome === "missing") return yield* snapshotNotFound(id)
      if (outcome === "otherSchema") {
        return yield* conflict("CONFLICT", `Sandbox snapshot ${id} was taken by another version of the store's schema and cannot be restored; take a new one`)
      }
      yield* uow.setClockOffset(platform.id, Date.parse(found.snapshot.platformTime) - base)
      return found.snapshot
    })
  )
})
