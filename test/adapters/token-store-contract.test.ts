/**
 * The Store contract for API tokens (`tokens.get`, `byClientId`, `list`, `putToken`,
 * `deleteToken`), run against every Store (memory, PGlite in memory, PostgreSQL on a
 * fresh database of the run's throwaway cluster): found by client id from no platform,
 * listed per platform with filters and keyset pages, deleted (and then found by no
 * read), a failed unit of work leaves nothing, resetPlatform deletes only its own.
 */
import { Effect } from "effect"
import { describe, expect } from "vitest"
import type { Permission } from "../../src/domain/token.js"
import type { TokenRecord } from "../../src/ports/store.js"
import { KINDS, storeSuite, walk } from "../support/store-harness.js"

let seq = 0
const record = (platformId: string, o: { name?: string; at?: string; permissions?: ReadonlyArray<Permission> } = {}): TokenRecord => {
  const n = ++seq
  const at = o.at ?? "2026-01-01T00:00:00.000Z"
  return {
    platformId,
    secretHash: "ab".repeat(32),
    token: {
      id: `Token:00000000-0000-4000-8000-${n.toString().padStart(12, "0")}`,
      name: o.name ?? `token ${n}`,
      permissions: o.permissions ?? ["VIEW"],
      clientId: `${Date.now().toString(16)}${n.toString(16).padStart(8, "0")}${platformId.length}`,
      createdAt: at,
      updatedAt: at
    }
  }
}

describe.each(KINDS)("Token store contract on %s", (kind) => {
  const { storeIt } = storeSuite(kind)

  storeIt("put, get by id and by client id (no platform asks), rewrite in place", (store, p) =>
    Effect.gen(function*() {
      const r = record(p, { permissions: ["VIEW", "MANAGE"] })
      expect(yield* store.tokens.byClientId(r.token.clientId)).toBeUndefined()
      yield* store.transact((uow) => uow.putToken(r))
      expect(yield* store.tokens.get(p, r.token.id)).toEqual(r)
      expect(yield* store.tokens.get(`${p}-other`, r.token.id)).toBeUndefined()
      expect(yield* store.tokens.byClientId(r.token.clientId)).toEqual(r)
      const renamed: TokenRecord = { ...r, token: { ...r.token, name: "renamed", updatedAt: "2026-01-02T00:00:00.000Z" } }
      yield* store.transact((uow) => uow.putToken(renamed))
      expect(yield* store.tokens.get(p, r.token.id)).toEqual(renamed)
    }))

  storeIt("delete: gone from every read at once; a second delete (or another platform's) deletes nothing", (store, p) =>
    Effect.gen(function*() {
      const r = record(p)
      yield* store.transact((uow) => uow.putToken(r))
      expect(yield* store.transact((uow) => uow.deleteToken(`${p}-other`, r.token.id))).toBe(false)
      expect(yield* store.tokens.byClientId(r.token.clientId)).toEqual(r)
      expect(yield* store.transact((uow) => uow.deleteToken(p, r.token.id))).toBe(true)
      expect(yield* store.tokens.byClientId(r.token.clientId)).toBeUndefined()
      expect(yield* store.tokens.get(p, r.token.id)).toBeUndefined()
      expect(yield* store.transact((uow) => uow.deleteToken(p, r.token.id))).toBe(false)
    }))

  storeIt("a failed unit of work leaves nothing (a put, a delete)", (store, p) =>
    Effect.gen(function*() {
      const r = record(p)
      const failed = yield* Effect.exit(store.transact((uow) => Effect.andThen(uow.putToken(r), Effect.fail("abandon"))))
      expect(failed._tag).toBe("Failure")
      expect(yield* store.tokens.byClientId(r.token.clientId)).toBeUndefined()
      yield* store.transact((uow) => uow.putToken(r))
      const undone = yield* Effect.exit(store.transact((uow) => Effect.andThen(uow.deleteToken(p, r.token.id), Effect.fail("abandon"))))
      expect(undone._tag).toBe("Failure")
      expect(yield* store.tokens.byClientId(r.token.clientId)).toEqual(r)
    }))

  storeIt("list: the platform's tokens oldest first, by name and time filters, in keyset pages with the total", (store, p) =>
    Effect.gen(function*() {
      const rs = [0, 1, 2, 3, 4].map((i) => record(p, { name: i % 2 === 0 ? "even" : "odd", at: `2026-01-0${i + 1}T00:00:00.000Z` }))
      yield* store.transact((uow) => Effect.forEach(rs, (r) => uow.putToken(r), { discard: true }))
      yield* store.transact((uow) => uow.putToken(record(`${p}-other`)))
      expect(yield* walk((page) => store.tokens.list(p, {}, page), 2, 5)).toEqual(rs)
      expect(yield* walk((page) => store.tokens.list(p, { name: "even" }, page), 2, 3)).toEqual([rs[0], rs[2], rs[4]])
      const from = Date.parse("2026-01-02T00:00:00.000Z")
      const to = Date.parse("2026-01-04T00:00:00.000Z")
      expect(yield* walk((page) => store.tokens.list(p, { created: { from, to } }, page), 10, 3)).toEqual(rs.slice(1, 4))
      expect(yield* walk((page) => store.tokens.list(p, { updated: { from } }, page), 10, 4)).toEqual(rs.slice(1))
    }))

  storeIt("resetPlatform deletes the platform's tokens only", (store, p) =>
    Effect.gen(function*() {
      const mine = record(p)
      const theirs = record(`${p}-other`)
      yield* store.transact((uow) => Effect.andThen(uow.putToken(mine), uow.putToken(theirs)))
      yield* store.transact((uow) => uow.resetPlatform(p))
      expect(yield* store.tokens.byClientId(mine.token.clientId)).toBeUndefined()
      expect(yield* store.tokens.byClientId(theirs.token.clientId)).toEqual(theirs)
    }))
})
