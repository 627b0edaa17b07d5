/**
 * One in-memory table: rows by id, unique indexes, grouping indexes and a keyset
 * order on `(createdAt, id)`, the same order the SQL adapter pages in. The building
 * block of every in-memory repository; it knows nothing of transactions (the store's
 * undo log does).
 */
import type { InvalidCursor, Page, PageResult, UniqueConstraint } from "../../ports/store.js"
import { decodeCursor, encodeCursor, type SortKey } from "../cursor.js"

export interface TableDef<R> {
  readonly id: (r: R) => string
  /** Epoch ms of creation; never changes for a row. */
  readonly createdAt: (r: R) => number
  /** Unique keys; `undefined` leaves the row out of that index (a partial index). */
  readonly unique?: ReadonlyArray<{ readonly name: UniqueConstraint; readonly key: (r: R) => string | undefined }>
  /** Non-unique lookups (holder -> documents, customer -> owners). */
  readonly groups?: ReadonlyArray<{ readonly name: string; readonly key: (r: R) => string | undefined }>
}

const compareKeys = (a: SortKey, b: SortKey): number =>
  a.createdAt !== b.createdAt ? a.createdAt - b.createdAt : a.id < b.id ? -1 : a.id > b.id ? 1 : 0

export class MemoryTable<R> {
  readonly rows = new Map<string, R>()
  /** Keys sorted by (createdAt, id). Rows mostly arrive in order, so inserts land at the end. */
  private readonly order: Array<SortKey> = []
  private readonly uniques: ReadonlyArray<{
    readonly name: UniqueConstraint
    readonly key: (r: R) => string | undefined
    readonly map: Map<string, string>
  }>
  private readonly groups: ReadonlyArray<{
    readonly name: string
    readonly key: (r: R) => string | undefined
    readonly map: Map<string, Set<string>>
  }>

  constructor(private readonly def: TableDef<R>) {
    this.uniques = (def.unique ?? []).map((u) => ({ ...u, map: new Map() }))
    this.groups = (def.groups ?? []).map((g) => ({ ...g, map: new Map() }))
  }

  get size(): number {
    return this.rows.size
  }

  get(id: string): R | undefined {
    return this.rows.get(id)
  }

  /** The constraint `r` would break if written, if any. */
  conflictOf(r: R): UniqueConstraint | undefined {
    const id = this.def.id(r)
    for (const u of this.uniques) {
      const key = u.key(r)
      if (key === undefined) continue
      const holder = u.map.get(key)
      if (holder !== undefined && holder !== id) return u.name
    }
    return undefined
  }

  byUnique(name: UniqueConstraint, key: string): R | undefined {
    const id = this.uniques.find((u) => u.name === name)?.map.get(key)
    return id === undefined ? undefined : this.rows.get(id)
  }

  /** The rows of one group, oldest first. */
  byGroup(name: string, key: string): ReadonlyArray<R> {
    const ids = this.groups.find((g) => g.name === name)?.map.get(key)
    if (ids === undefined) return []
    const out: Array<R> = []
    for (const id of ids) {
      const r = this.rows.get(id)
      if (r !== undefined) out.push(r)
    }
    return out.sort((a, b) => compareKeys(this.keyOf(a), this.keyOf(b)))
  }

  /** How many rows one group holds. */
  groupSize(name: string, key: string): number {
    return this.groups.find((g) => g.name === name)?.map.get(key)?.size ?? 0
  }

  /** Writes `r` (the caller checked `conflictOf`); returns the row it replaced. */
  put(r: R): R | undefined {
    const id = this.def.id(r)
    const previous = this.rows.get(id)
    if (previous !== undefined) this.unindex(previous)
    else this.insertKey(this.keyOf(r))
    this.rows.set(id, r)
    this.index(r)
    return previous
  }

  /** Removes the row; returns it. */
  remove(id: string): R | undefined {
    const previous = this.rows.get(id)
    if (previous === undefined) return undefined
    this.unindex(previous)
    this.rows.delete(id)
    const key = this.keyOf(previous)
    const at = this.search(key)
    const found = this.order[at]
    if (found !== undefined && compareKeys(found, key) === 0) this.order.splice(at, 1)
    return previous
  }

  /**
   * One page of the rows matching `filter`, keyset on (createdAt, id). `countAll`
   * says the filter keeps every row, so the total is the table's size.
   */
  page(filter: (r: R) => boolean, page: Page, countAll: boolean): PageResult<R> | InvalidCursor {
    const descending = page.descending === true
    let start = descending ? this.order.length - 1 : 0
    if (page.cursor !== undefined) {
      const after = decodeCursor(page.cursor)
      if (typeof after !== "object" || !("createdAt" in after)) return after
      const at = this.search(after)
      if (descending) start = at - 1
      else {
        start = at
        const found = this.order[start]
        if (found !== undefined && compareKeys(found, after) === 0) start++
      }
    }
    const data: Array<R> = []
    let hasMore = false
    const step = descending ? -1 : 1
    for (let i = start; i >= 0 && i < this.order.length; i += step) {
      const key = this.order[i]
      const r = key === undefined ? undefined : this.rows.get(key.id)
      if (r === undefined || !filter(r)) continue
      if (data.length === page.limit) {
        hasMore = true
        break
      }
      data.push(r)
    }
    let totalCount = this.rows.size
    if (!countAll) {
      totalCount = 0
      for (const r of this.rows.values()) if (filter(r)) totalCount++
    }
    const last = data[data.length - 1]
    return hasMore && last !== undefined
      ? { data, hasMore, nextCursor: encodeCursor(this.keyOf(last)), totalCount }
      : { data, hasMore, totalCount }
  }

  /** The row first in (createdAt, id) order. */
  first(): R | undefined {
    const key = this.order[0]
    return key === undefined ? undefined : this.rows.get(key.id)
  }

  /** Every row in (createdAt, id) order. */
  ordered(): ReadonlyArray<R> {
    const out: Array<R> = []
    for (const key of this.order) {
      const r = this.rows.get(key.id)
      if (r !== undefined) out.push(r)
    }
    return out
  }

  *values(): Iterable<R> {
    yield* this.rows.values()
  }

  private keyOf(r: R): SortKey {
    return { createdAt: this.def.createdAt(r), id: this.def.id(r) }
  }

  /** Index of the first key >= `key`. */
  private search(key: SortKey): number {
    let lo = 0
    let hi = this.order.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      const probe = this.order[mid]
      if (probe !== undefined && compareKeys(probe, key) < 0) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  private insertKey(key: SortKey) {
    const last = this.order[this.order.length - 1]
    if (last === undefined || compareKeys(last, key) < 0) this.order.push(key)
    else this.order.splice(this.search(key), 0, key)
  }

  private index(r: R) {
    const id = this.def.id(r)
    for (const u of this.uniques) {
      const key = u.key(r)
      if (key !== undefined) u.map.set(key, id)
    }
    for (const g of this.groups) {
      const key = g.key(r)
      if (key === undefined) continue
      let set = g.map.get(key)
      if (set === undefined) g.map.set(key, set = new Set())
      set.add(id)
    }
  }

  private unindex(r: R) {
    const id = this.def.id(r)
    for (const u of this.uniques) {
      const key = u.key(r)
      if (key !== undefined && u.map.get(key) === id) u.map.delete(key)
    }
    for (const g of this.groups) {
      const key = g.key(r)
      if (key === undefined) continue
      const set = g.map.get(key)
      if (set === undefined) continue
      set.delete(id)
      if (set.size === 0) g.map.delete(key)
    }
  }
}
