/**
 * Sandbox snapshots in memory (see ./store.ts, ports/snapshots.ts): a snapshot is a
 * copy of the platform's tables, kept outside them (so restores and sandbox resets leave
 * the snapshots alone); a restore puts a fresh copy of it in the platform's place, in
 * one unit of work (under the store's mutex: no request of any platform sees it half
 * done), undone with the rest of the unit of work when it fails.
 */
import { Effect } from "effect"
import type { SnapshotRecord, SnapshotWrites } from "../../ports/snapshots.js"
import { millisOf } from "../cursor.js"
import type { MemoryArea, MemoryContext } from "./context.js"
import { MemoryTable } from "./table.js"
import { tokenTables, type TokenTables } from "./tokens.js"

interface StoredSnapshot<T> {
  readonly record: SnapshotRecord
  /** The platform's tables when it was taken, credentials left out; never written to (a restore copies it). */
  readonly state: T
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && Object.getPrototypeOf(v) === Object.prototype

/** An entry of a Map or an Array: containers copied, plain objects copied one level (running totals are changed in place). */
const cloneItem = (x: unknown): unknown =>
  Array.isArray(x) ? x.map(cloneItem) : x instanceof Map ? cloneContainer(x) : isPlainObject(x) ? { ...x } : x

/**
 * A field of a platform's tables: tables, maps and arrays copied; a plain object of them
 * (the webhooks' queue of finished deliveries: arrays and a head the sweep moves in place)
 * copied field by field; records and numbers as they are (a write replaces them).
 */
const cloneContainer = (v: unknown): unknown => {
  if (v instanceof MemoryTable) return v.clone()
  if (Array.isArray(v)) return v.map(cloneItem)
  if (isPlainObject(v)) {
    const copy: Record<string, unknown> = {}
    for (const [k, x] of Object.entries(v)) copy[k] = cloneContainer(x)
    return copy
  }
  if (v instanceof Map) {
    const copy = new Map<unknown, unknown>()
    for (const [k, x] of v) copy.set(k, cloneItem(x))
    return copy
  }
  if (v instanceof Set) return new Set(v)
  return v
}

/** The platform's credentials: not part of a snapshot, kept by a restore. */
const CREDENTIALS = ["apiTokens"] as const satisfies ReadonlyArray<keyof TokenTables>

/** An independent copy of a platform's tables; its credentials from `credentials`. */
const copyOf = <T extends TokenTables>(tables: T, credentials: TokenTables): T => {
  const copy: T = { ...tables }
  const fields: Record<string, unknown> = copy
  for (const [key, value] of Object.entries(tables)) fields[key] = cloneContainer(value)
  for (const key of CREDENTIALS) fields[key] = credentials[key]
  return copy
}

export const makeSnapshotArea = <T extends TokenTables>(
  m: MemoryContext<T>,
  tenancy: {
    /** A platform's tables, empty. */
    readonly fresh: () => T
    /** Puts `tables` in the platform's place (undone with the unit of work). */
    readonly replace: (platformId: string, tables: T) => void
  }
): MemoryArea<"snapshots", SnapshotWrites> => {
  const byPlatform = new Map<string, MemoryTable<StoredSnapshot<T>>>()
  const tableOf = (platformId: string) => {
    let table = byPlatform.get(platformId)
    if (table === undefined) {
      byPlatform.set(
        platformId,
        table = new MemoryTable<StoredSnapshot<T>>({ id: (s) => s.record.snapshot.id, createdAt: (s) => millisOf(s.record.snapshot.createdAt) })
      )
    }
    return table
  }
  return {
    repositories: {
      snapshots: {
        get: (platformId, id) => m.read(() => byPlatform.get(platformId)?.get(id)?.record),
        list: (platformId, page) =>
          Effect.map(
            m.readPage(() => tableOf(platformId).page(() => true, page, true)),
            (p) => ({ ...p, data: p.data.map((s) => s.record) })
          )
      }
    },
    writes: {
      createSnapshot: (record) =>
        Effect.suspend(() => {
          const state = copyOf(m.peek(record.platformId) ?? tenancy.fresh(), tokenTables())
          return Effect.orDie(m.putRow(tableOf(record.platformId), record.snapshot.id, { record, state }))
        }),
      deleteSnapshot: (platformId, id) =>
        Effect.suspend(() => {
          const table = byPlatform.get(platformId)
          if (table?.get(id) === undefined) return Effect.succeed(false)
          return Effect.as(m.removeRow(table, id), true)
        }),
      restoreSnapshot: (platformId, id) =>
        m.claim("snapshots.restoreSnapshot", () => {
          const stored = byPlatform.get(platformId)?.get(id)
          if (stored === undefined) return "missing" as const
          tenancy.replace(platformId, copyOf(stored.state, m.peek(platformId) ?? tokenTables()))
          return "restored" as const
        })
    }
  }
}
