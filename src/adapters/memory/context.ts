/**
 * What every area of the in-memory Store (./customers.ts, ./money.ts, ...) is built
 * from: its platform's tables, reads that respect the units of work, and writes that
 * keep the undo log. ./store.ts implements it once (the mutex and the undo log) and
 * hands each area a view typed to its own tables.
 */
import type { Effect } from "effect"
import type { StoreRepositories } from "../../ports/store.js"
import type { InvalidCursor, PageResult, StoreConflict, TimeRange, UniqueConstraint } from "../../ports/shared.js"
import { millisOf } from "../cursor.js"
import { MemoryTable, type TableDef } from "./table.js"

export interface MemoryContext<T> {
  /** The platform's tables, created on first use. */
  readonly tenantOf: (platformId: string) => T
  /** The platform's tables, if it has any yet. */
  readonly peek: (platformId: string) => T | undefined
  /** Every platform's tables (for the few lookups made without a platform). */
  readonly tenants: () => Iterable<T>
  /** A read: inside a unit of work of this store it runs at once, else when no unit of work is in progress. */
  readonly read: <A>(f: () => A) => Effect.Effect<A>
  /** A read of one page (`MemoryTable.page`), failing with its `InvalidCursor`. */
  readonly readPage: <A>(f: () => PageResult<A> | InvalidCursor) => Effect.Effect<PageResult<A>, InvalidCursor>
  /** A read that must run inside a unit of work of this store (a claim); `what` names it in the defect otherwise. */
  readonly claim: <A>(what: string, f: () => A) => Effect.Effect<A>
  /** Adds an undo action to the unit of work in progress. */
  readonly undo: (f: () => void) => void
  /** Writes a row (insert or replace by id) at once, undoably; or writes nothing and answers the constraint it would break. */
  readonly writeRow: <R>(table: MemoryTable<R>, id: string, record: R) => UniqueConstraint | undefined
  /** Writes a row (insert or replace by id), or fails with the constraint it would break. */
  readonly putRow: <R>(table: MemoryTable<R>, id: string, record: R) => Effect.Effect<void, StoreConflict>
  /** Removes a row, if there is one. */
  readonly removeRow: <R>(table: MemoryTable<R>, id: string) => Effect.Effect<void>
  /** Sets one field of an object (a platform's config, clock, cursor), undoably. */
  readonly setField: <O, K extends keyof O>(target: O, key: K, value: O[K]) => Effect.Effect<void>
}

/** What an area contributes to the store: some repositories and some writes of the unit of work. */
export interface MemoryArea<K extends keyof StoreRepositories, W> {
  readonly repositories: Pick<StoreRepositories, K>
  readonly writes: W
}

/** A composite key of a table's index (parts joined by NUL, which no key part holds). */
export const keyOf = (...parts: ReadonlyArray<string | null>): string => {
  let key = parts[0] ?? ""
  for (let i = 1; i < parts.length; i++) key += "\u0000" + (parts[i] ?? "")
  return key
}

export const inRange = (ms: number, range: TimeRange | undefined): boolean =>
  range === undefined || ((range.from === undefined || ms >= range.from) && (range.to === undefined || ms <= range.to))

/** Whether a query sets no filter at all (then a page's total is the table's size); a time range with neither end set is no filter. */
export const noFilter = (query: object): boolean =>
  Object.values(query).every((v) =>
    v === undefined || (typeof v === "object" && v !== null && !Array.isArray(v) && Object.values(v).every((x) => x === undefined))
  )

/** A matcher's clause: `actual` is `wanted`, or the query leaves it unset (`is(q.status, r.status)`). */
export const is = <A>(wanted: A | undefined, actual: A): boolean => wanted === undefined || wanted === actual

/**
 * A table of records that hold an entity with an `id` and an ISO `createdAt` (most
 * do): keyed by the id, in `(createdAt, id)` order, with the given indexes.
 */
export const entityTable = <R>(
  entity: (r: R) => { readonly id: string; readonly createdAt: string },
  indexes: Pick<TableDef<R>, "unique" | "groups"> = {}
): MemoryTable<R> => new MemoryTable<R>({ id: (r) => entity(r).id, createdAt: (r) => millisOfShared(entity(r).createdAt), ...indexes })

/** The last instant parsed: a payment's rows share one creation instant (one string, `sharedInstant`). */
let lastIso = ""
let lastMillis = 0
const millisOfShared = (iso: string): number => {
  if (iso !== lastIso) {
    lastMillis = millisOf(iso)
    lastIso = iso
  }
  return lastMillis
}
