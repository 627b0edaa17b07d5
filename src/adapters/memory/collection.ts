/**
 * An insertion-ordered, per-platform collection with opaque cursors: the building
 * block of every in-memory repository.
 */
import { invalidInput, type Error400 } from "../../domain/errors.js"
import type { Page, PageResult } from "../../ports/store.js"

interface Entry<R> {
  readonly seq: number
  record: R
}

const encodeCursor = (seq: number): string => Buffer.from(`s:${seq}`, "utf8").toString("base64url")

const decodeCursor = (cursor: string): number | undefined => {
  const text = Buffer.from(cursor, "base64url").toString("utf8")
  const m = /^s:(\d{1,15})$/.exec(text)
  return m === null ? undefined : Number(m[1])
}

export const badCursor = (): Error400 =>
  invalidInput("cursor is not a cursor this API returned", [{
    field: "cursor",
    constraint: "cursor",
    message: "must be a nextCursor value from a previous page of the same list"
  }])

export class Collection<R> {
  private readonly entries = new Map<string, Entry<R>>()
  /** Ids in insertion order; removed ids are skipped and compacted lazily. */
  private order: Array<string> = []
  private removed = 0
  private nextSeq = 1

  get size(): number {
    return this.entries.size
  }

  get(id: string): R | undefined {
    return this.entries.get(id)?.record
  }

  put(id: string, record: R): void {
    const existing = this.entries.get(id)
    if (existing !== undefined) {
      existing.record = record
      return
    }
    this.entries.set(id, { seq: this.nextSeq++, record })
    this.order.push(id)
  }

  delete(id: string): boolean {
    if (!this.entries.delete(id)) return false
    this.removed++
    if (this.removed > 1024 && this.removed > this.order.length / 2) {
      this.order = this.order.filter((i) => this.entries.has(i))
      this.removed = 0
    }
    return true
  }

  *values(): Iterable<R> {
    for (const e of this.entries.values()) yield e.record
  }

  /** One page of the records matching `filter`, oldest first. */
  page(filter: (r: R) => boolean, page: Page): PageResult<R> | Error400 {
    let after = 0
    if (page.cursor !== undefined) {
      const seq = decodeCursor(page.cursor)
      if (seq === undefined) return badCursor()
      after = seq
    }
    const data: Array<R> = []
    let totalCount = 0
    let lastSeq = 0
    let hasMore = false
    for (const id of this.order) {
      const e = this.entries.get(id)
      if (e === undefined || !filter(e.record)) continue
      totalCount++
      if (e.seq <= after) continue
      if (data.length < page.limit) {
        data.push(e.record)
        lastSeq = e.seq
      } else {
        hasMore = true
      }
    }
    return hasMore ? { data, hasMore, nextCursor: encodeCursor(lastSeq), totalCount } : { data, hasMore, totalCount }
  }
}

/** Per-platform state, created on first use. */
export class Tenants<T> {
  private readonly byPlatform = new Map<string, T>()
  constructor(private readonly make: () => T) {}
  of(platformId: string): T {
    let t = this.byPlatform.get(platformId)
    if (t === undefined) {
      t = this.make()
      this.byPlatform.set(platformId, t)
    }
    return t
  }
  peek(platformId: string): T | undefined {
    return this.byPlatform.get(platformId)
  }
}
