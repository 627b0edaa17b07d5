/**
 * Reading the SQL store's tables: each row holds its record as a JSON document (`doc`),
 * lists page keyset on `(created_ms, id)`; writing them, with unique violations as
 * `StoreConflict`s. Shared by every part of the SQL store (./customers.ts, ./money.ts, ...).
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { type InvalidCursor, isUniqueConstraint, type Page, type PageResult, type StoreConflict } from "../../ports/shared.js"
import type { StoreRepositories } from "../../ports/store.js"
import { decodeCursor, encodeCursor, type SortKey } from "../cursor.js"
import { conflictIn } from "../level.js"

/** The store's read helper: a statement whose failure is a defect (see ./store.ts). */
export type Query = <Row extends object>(text: string, params: ReadonlyArray<unknown>) => Effect.Effect<ReadonlyArray<Row>>

/** A WHERE clause under construction: conditions and their positional parameters. */
export class Where {
  readonly conditions: Array<string> = []
  readonly params: Array<unknown> = []
  add(condition: (placeholder: string) => string, value: unknown): this {
    this.params.push(value)
    this.conditions.push(condition(`$${this.params.length}`))
    return this
  }
  /** The clause every query starts from: the platform's rows. */
  static platform(platformId: string): Where {
    return new Where().add((p) => `platform_id = ${p}`, platformId)
  }
  raw(condition: string): this {
    this.conditions.push(condition)
    return this
  }
  get text(): string {
    return this.conditions.join(" and ")
  }
}

/**
 * What a failed write is: a unique violation of one of the store's constraints is a
 * `StoreConflict` named after it (marking the level it happened in, which PostgreSQL
 * has aborted), anything else a defect.
 */
export const conflictOrDie = (e: SqlError): Effect.Effect<never, StoreConflict> =>
  e.reason._tag === "UniqueViolation" && isUniqueConstraint(e.reason.constraint) ? conflictIn(e.reason.constraint) : Effect.die(e)

/** The store's write helper: a statement whose unique violation is a `StoreConflict` (see `conflictOrDie`). */
export type Write = (text: string, params: ReadonlyArray<unknown>) => Effect.Effect<void, StoreConflict>

export const makeWrite = (sql: SqlClient.SqlClient): Write => (text, params) =>
  sql.unsafe(text, params).pipe(Effect.asVoid, Effect.catch(conflictOrDie))

/** What one part of the SQL store contributes: its tables, some repositories, some writes of the unit of work. */
export interface SqlArea<K extends keyof StoreRepositories, W> {
  /** The tables keyed by platform that `resetPlatform` clears, in that order. */
  readonly tables: ReadonlyArray<string>
  readonly repositories: Pick<StoreRepositories, K>
  readonly writes: W
}

export interface DocRow {
  readonly doc: string
}

/** The record a `doc` column holds (written by this adapter from a typed record). */
export const docOf = <T>(row: DocRow): T => JSON.parse(row.doc)

/** `one`, `many` and `page` over a store's `query`. */
export const documentReads = (query: Query) => {
  const one = <T>(text: string, params: ReadonlyArray<unknown>): Effect.Effect<T | undefined> =>
    Effect.map(query<DocRow>(text, params), (rows) => rows[0] === undefined ? undefined : docOf<T>(rows[0]))

  const many = <T>(text: string, params: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<T>> =>
    Effect.map(query<DocRow>(text, params), (rows) => rows.map((row) => docOf<T>(row)))

  /**
   * One keyset page of `table` where `where` holds, oldest first or (descending) newest
   * first, and the total that match. One statement, so the total and the page come from
   * one snapshot even while other units of work commit. A descending page's cursor
   * continues below the last row it returned; `keyOf` gives a record's (createdAt, id).
   */
  const page = <T>(table: string, where: Where, p: Page, keyOf: (r: T) => SortKey): Effect.Effect<PageResult<T>, InvalidCursor> =>
    Effect.gen(function*() {
      const params = [...where.params]
      const direction = p.descending === true ? "desc" : "asc"
      let keyset = "true"
      if (p.cursor !== undefined) {
        const after = decodeCursor(p.cursor)
        if (!("createdAt" in after)) return yield* Effect.fail(after)
        params.push(after.createdAt, after.id)
        keyset = `(created_ms, id) ${p.descending === true ? "<" : ">"} ($${params.length - 1}::bigint, $${params.length}::text)`
      }
      params.push(p.limit + 1)
      const result = yield* query<{ readonly total: number; readonly doc: string | null }>(
        `with matching as (select created_ms, id, doc from ${table} where ${where.text}),
              total as (select count(*)::int as total from matching)
         select total.total, page.doc from total left join lateral (
           select doc::text as doc, created_ms, id from matching where ${keyset}
           order by created_ms ${direction}, id ${direction} limit $${params.length}
         ) page on true
         order by page.created_ms ${direction}, page.id ${direction}`,
        params
      )
      const rows = result.flatMap((row) => (row.doc === null ? [] : [docOf<T>({ doc: row.doc })]))
      const hasMore = rows.length > p.limit
      const data = hasMore ? rows.slice(0, p.limit) : rows
      const last = data[data.length - 1]
      const totalCount = result[0]?.total ?? 0
      return hasMore && last !== undefined
        ? { data, hasMore, nextCursor: encodeCursor(keyOf(last)), totalCount }
        : { data, hasMore, totalCount }
    })

  /** A `get`: the record with this id in `table`, of the platform. */
  const byId = <T>(table: string) => (platformId: string, id: string): Effect.Effect<T | undefined> =>
    one<T>(`select doc::text as doc from ${table} where platform_id = $1 and id = $2`, [platformId, id])

  return { one, many, page, byId }
}
