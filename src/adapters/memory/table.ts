/**
 * One in-memory table: rows by id, unique indexes, grouping indexes and a keyset
 * order on `(createdAt, id)`, the same order the SQL adapter pages in. The building
 * block of every in-memory repository; it knows nothing of transactions (the store's
 * undo log does).
 */
import { type InvalidCursor, type Page, type PageResult, TOTAL_COUNT_LIMIT, totalCountOf, type UniqueConstraint } from "../../ports/shared.js"
import { decodeCursor, encodeCursor, type SortKey } from "../cursor.js"

export interface TableDef<R> {
  readonly id: (r: R) => string
  /** Epoch ms of creation; never changes for a row. */
  readonly createdAt: (r: R) => number
  /** Unique keys; `undefined` leaves the row out of that index (a partial index). */
  readonly unique?: ReadonlyArray<{ readonly name: UniqueConstraint; readonly key: (r: R) => string | undefined }>
  /**
   * Non-unique lookups (holder -> documents, customer -> owners), each kept in
   * (createdAt, id) order so a group reads and pages without sorting or scanning the
   * table. A row may sit under several keys of one group (an array: sender or receiver).
   */
  readonly groups?: ReadonlyArray<{ readonly name: string; readonly key: (r: R) => string | ReadonlyArray<string> | undefined }>
}

/**
 * Rows examined by every table's reads (page, byGroup, first), for the bounded-work
 * contract tests: a first page or a lookup must examine a number of rows that does not
 * grow with the table. Plain counting; costs one increment per row read.
 */
export const rowsExamined = { count: 0 }

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
  /** Each row's sort key, computed once (createdAt may be parsed from ISO text). */
  private readonly keys = new Map<string, SortKey>()
  private readonly groups: ReadonlyArray<{
    readonly name: string
    readonly key: (r: R) => string | ReadonlyArray<string> | undefined
    /**
     * Group key -> the members' sort keys, in (createdAt, id) order; a group of one member
     * holds its key alone (no array: many groups hold one row, a payment's reference).
     */
    readonly map: Map<string, Members>
  }>

  constructor(private readonly def: TableDef<R>) {
    this.uniques = (def.unique ?? []).map((u) => ({ ...u, map: new Map() }))
    this.groups = (def.groups ?? []).map((g) => ({ ...g, map: new Map() }))
  }

  /**
   * An independent copy (a sandbox snapshot's): its own indexes, the same row objects
   * (records are immutable values: a write puts a new one).
   */
  clone(): MemoryTable<R> {
    const copy = new MemoryTable<R>(this.def)
    for (const [id, r] of this.rows) copy.rows.set(id, r)
    for (const [id, k] of this.keys) copy.keys.set(id, k)
    for (const k of this.order) copy.order.push(k)
    this.uniques.forEach((u, i) => {
      for (const [key, id] of u.map) copy.uniques[i]!.map.set(key, id)
    })
    this.groups.forEach((g, i) => {
      for (const [key, members] of g.map) copy.groups[i]!.map.set(key, Array.isArray(members) ? members.slice() : members)
    })
    return copy
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

  /** The rows of one group, oldest first (kept in order: no sort). */
  byGroup(name: string, key: string): ReadonlyArray<R> {
    const keys = this.groupKeys(name, key)
    const out: Array<R> = []
    for (const k of keys) {
      const r = this.rows.get(k.id)
      if (r !== undefined) out.push(r)
    }
    rowsExamined.count += out.length
    return out
  }

  /** The first row of one group in (createdAt, id) order: reads that row only. */
  firstOfGroup(name: string, key: string): R | undefined {
    const first = this.groupKeys(name, key)[0]
    if (first === undefined) return undefined
    rowsExamined.count++
    return this.rows.get(first.id)
  }

  /** The rows of one group created at or after `since` (epoch ms), newest first: reads those rows only. */
  groupSince(name: string, key: string, since: number): ReadonlyArray<R> {
    const keys = this.groupKeys(name, key)
    const out: Array<R> = []
    for (let i = keys.length - 1; i >= 0; i--) {
      const k = keys[i]!
      if (k.createdAt < since) break
      const r = this.rows.get(k.id)
      if (r !== undefined) out.push(r)
    }
    rowsExamined.count += out.length + 1
    return out
  }

  /** How many rows one group holds. */
  groupSize(name: string, key: string): number {
    return this.groupKeys(name, key).length
  }

  /** Writes `r` (the caller checked `conflictOf`); returns the row it replaced. */
  put(r: R): R | undefined {
    const id = this.def.id(r)
    const previous = this.rows.get(id)
    if (previous !== undefined) {
      this.rows.set(id, r)
      this.reindex(previous, r)
      return previous
    }
    const key = { createdAt: this.def.createdAt(r), id }
    this.keys.set(id, key)
    insertSorted(this.order, key)
    this.rows.set(id, r)
    this.index(r, key)
    return previous
  }

  /**
   * Moves a rewritten row between the index entries whose keys changed, and leaves the
   * others alone (a payment rewritten several times in one request mostly keeps its
   * groups; its sort key never changes).
   */
  private reindex(previous: R, r: R) {
    const id = this.def.id(r)
    for (const u of this.uniques) {
      const before = u.key(previous)
      const after = u.key(r)
      if (before !== undefined && before !== after && u.map.get(before) === id) u.map.delete(before)
      if (after !== undefined) u.map.set(after, id)
    }
    if (this.groups.length === 0) return
    const sortKey = this.keyOf(r)
    for (const g of this.groups) {
      const before = keysOf(g.key(previous))
      const after = keysOf(g.key(r))
      for (const key of before) if (!after.includes(key)) removeMember(g.map, key, sortKey)
      for (const key of after) if (!before.includes(key)) addMember(g.map, key, sortKey)
    }
  }

  /** Removes the row; returns it. */
  remove(id: string): R | undefined {
    const previous = this.rows.get(id)
    if (previous === undefined) return undefined
    this.unindex(previous)
    this.rows.delete(id)
    const key = this.keyOf(previous)
    this.keys.delete(id)
    removeSorted(this.order, key)
    return previous
  }

  /**
   * Removes these rows; returns those removed. The order is walked only up to the last
   * removed key (found by binary search), and the rest of it moves once, by one `splice`:
   * a sweep removes the oldest rows, a prefix, so a batch costs the prefix, not one
   * lookup per row of the table (nor one splice per row, which is quadratic).
   */
  removeAll(ids: Iterable<string>): Array<R> {
    const removed: Array<R> = []
    const gone = new Set<string>()
    let last = -1
    for (const id of ids) {
      const previous = this.rows.get(id)
      if (previous === undefined) continue
      const at = search(this.order, this.keyOf(previous))
      if (at > last) last = at
      this.unindex(previous)
      this.rows.delete(id)
      this.keys.delete(id)
      gone.add(id)
      removed.push(previous)
    }
    if (gone.size > 0) {
      const end = Math.min(last, this.order.length - 1)
      let w = 0
      for (let i = 0; i <= end; i++) {
        const key = this.order[i]!
        if (!gone.has(key.id)) this.order[w++] = key
      }
      this.order.splice(w, end + 1 - w)
    }
    return removed
  }

  /**
   * One page of the rows matching `filter`, keyset on (createdAt, id). `countAll`
   * says the filter keeps every row, so the total is the table's size.
   */
  page(filter: (r: R) => boolean, page: Page, countAll: boolean): PageResult<R> | InvalidCursor {
    return this.pageOver(this.order, filter, page, countAll)
  }

  /**
   * One page of the rows of group `name` under `key` that match `filter` (which need
   * not repeat the group's own condition): reads the group's ordered members only, so
   * the work follows the group, not the table. `exact` says `filter` keeps every member,
   * so the total is the group's size.
   */
  pageGroup(name: string, key: string, filter: (r: R) => boolean, page: Page, exact: boolean): PageResult<R> | InvalidCursor {
    return this.pageOver(this.groupKeys(name, key), filter, page, exact)
  }

  private pageOver(order: ReadonlyArray<SortKey>, filter: (r: R) => boolean, page: Page, countAll: boolean): PageResult<R> | InvalidCursor {
    const descending = page.descending === true
    let start = descending ? order.length - 1 : 0
    if (page.cursor !== undefined) {
      const after = decodeCursor(page.cursor)
      if (typeof after !== "object" || !("createdAt" in after)) return after
      const at = search(order, after)
      if (descending) start = at - 1
      else {
        start = at
        const found = order[start]
        if (found !== undefined && compareKeys(found, after) === 0) start++
      }
    }
    const data: Array<R> = []
    let hasMore = false
    let examined = 0
    const step = descending ? -1 : 1
    for (let i = start; i >= 0 && i < order.length; i += step) {
      const key = order[i]
      const r = key === undefined ? undefined : this.rows.get(key.id)
      examined++
      if (r === undefined || !filter(r)) continue
      if (data.length === page.limit) {
        hasMore = true
        break
      }
      data.push(r)
    }
    // The total: known from the index when the filter keeps all of it, else counted up
    // to TOTAL_COUNT_LIMIT + 1 matches (above the limit a page has no total).
    let totalCount = order.length
    if (!countAll) {
      totalCount = 0
      for (const key of order) {
        examined++
        const r = this.rows.get(key.id)
        if (r !== undefined && filter(r) && ++totalCount > TOTAL_COUNT_LIMIT) break
      }
    }
    rowsExamined.count += examined
    const last = data[data.length - 1]
    return hasMore && last !== undefined
      ? { data, hasMore, nextCursor: encodeCursor(this.keyOf(last)), ...totalCountOf(totalCount) }
      : { data, hasMore, ...totalCountOf(totalCount) }
  }

  /** The row first in (createdAt, id) order. */
  first(): R | undefined {
    rowsExamined.count++
    const key = this.order[0]
    return key === undefined ? undefined : this.rows.get(key.id)
  }

  /** Every row in (createdAt, id) order, copied (each counted in `rowsExamined`). */
  ordered(): ReadonlyArray<R> {
    return Array.from(this.inOrder())
  }

  /**
   * Every row in (createdAt, id) order, lazily: a walk that stops at the first row it
   * wants reads only the rows before it (each counted in `rowsExamined`).
   */
  *inOrder(): Iterable<R> {
    for (const key of this.order) {
      const r = this.rows.get(key.id)
      if (r === undefined) continue
      rowsExamined.count++
      yield r
    }
  }

  *values(): Iterable<R> {
    yield* this.rows.values()
  }

  private keyOf(r: R): SortKey {
    const id = this.def.id(r)
    return this.keys.get(id) ?? { createdAt: this.def.createdAt(r), id }
  }

  private groupKeys(name: string, key: string): ReadonlyArray<SortKey> {
    const members = this.groups.find((g) => g.name === name)?.map.get(key)
    return members === undefined ? NO_MEMBERS : Array.isArray(members) ? members : [members]
  }

  private index(r: R, sortKey: SortKey = this.keyOf(r)) {
    const id = sortKey.id
    for (const u of this.uniques) {
      const key = u.key(r)
      if (key !== undefined) u.map.set(key, id)
    }
    for (const g of this.groups) {
      const key = g.key(r)
      if (key === undefined) continue
      if (typeof key === "string") addMember(g.map, key, sortKey)
      else for (const k of key) addMember(g.map, k, sortKey)
    }
  }

  private unindex(r: R) {
    const id = this.def.id(r)
    for (const u of this.uniques) {
      const key = u.key(r)
      if (key !== undefined && u.map.get(key) === id) u.map.delete(key)
    }
    if (this.groups.length === 0) return
    const sortKey = this.keyOf(r)
    for (const g of this.groups) for (const key of keysOf(g.key(r))) removeMember(g.map, key, sortKey)
  }
}

const NO_KEYS: ReadonlyArray<string> = []
const NO_MEMBERS: ReadonlyArray<SortKey> = []

/** A group's members: one sort key, or several in (createdAt, id) order. */
type Members = SortKey | Array<SortKey>

/** Adds `sortKey` to the group `key` (a key already there stays once). */
const addMember = (map: Map<string, Members>, key: string, sortKey: SortKey) => {
  const members = map.get(key)
  if (members === undefined) map.set(key, sortKey)
  else if (Array.isArray(members)) insertSorted(members, sortKey)
  else {
    const c = compareKeys(members, sortKey)
    if (c !== 0) map.set(key, c < 0 ? [members, sortKey] : [sortKey, members])
  }
}

/** Removes `sortKey` from the group `key`; a group left with one member holds it alone, an empty one goes. */
const removeMember = (map: Map<string, Members>, key: string, sortKey: SortKey) => {
  const members = map.get(key)
  if (members === undefined) return
  if (!Array.isArray(members)) {
    if (compareKeys(members, sortKey) === 0) map.delete(key)
    return
  }
  removeSorted(members, sortKey)
  if (members.length === 1) map.set(key, members[0]!)
  else if (members.length === 0) map.delete(key)
}
const keysOf = (k: string | ReadonlyArray<string> | undefined): ReadonlyArray<string> =>
  k === undefined ? NO_KEYS : typeof k === "string" ? [k] : k

/** Index of the first key >= `key` in a (createdAt, id)-sorted array. */
const search = (order: ReadonlyArray<SortKey>, key: SortKey): number => {
  let lo = 0
  let hi = order.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    const probe = order[mid]
    if (probe !== undefined && compareKeys(probe, key) < 0) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** How far back from the end an insert looks before it binary-searches. */
const NEAR_END = 8

/**
 * Inserts `key` in order; a key already there stays once. Rows mostly arrive in order:
 * at the end, O(1), or a few places before it (rows of the same millisecond order by id,
 * and ids are random), found by stepping back and made room for by moving that tail.
 */
const insertSorted = (order: Array<SortKey>, key: SortKey) => {
  const n = order.length
  const last = order[n - 1]
  if (last === undefined || compareKeys(last, key) < 0) {
    order.push(key)
    return
  }
  let at = n - 1
  const stop = Math.max(0, n - NEAR_END)
  while (at > stop && compareKeys(order[at - 1]!, key) >= 0) at--
  if (at === stop && at > 0) at = search(order, key)
  const found = order[at]
  if (found !== undefined && compareKeys(found, key) === 0) return
  if (n - at > NEAR_END) {
    order.splice(at, 0, key)
    return
  }
  order.push(last)
  for (let i = n - 1; i > at; i--) order[i] = order[i - 1]!
  order[at] = key
}

const removeSorted = (order: Array<SortKey>, key: SortKey) => {
  const at = search(order, key)
  const found = order[at]
  if (found !== undefined && compareKeys(found, key) === 0) order.splice(at, 1)
}
