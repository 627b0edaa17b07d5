/**
 * Reading the SQL store's tables: each row holds its record as a JSON document (`doc`),
 * lists page keyset on `(created_ms, id)`; writing them, with unique violations as
 * `StoreConflict`s. Shared by every part of the SQL store (./customers.ts, ./money.ts, ...).
 */
import { makeRunStatement } from "./direct.js"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import {
  type InvalidCursor,
  isUniqueConstraint,
  type Page,
  type PageResult,
  type StoreConflict,
  type TimeRange,
  TOTAL_COUNT_LIMIT,
  totalCountOf
} from "../../ports/shared.js"
import type { StoreRepositories } from "../../ports/store.js"
import { decodeCursor, encodeCursor, type SortKey } from "../cursor.js"
import { conflictIn } from "../level.js"
import { BoundedMemo } from "../../lib/bounded-memo.js"

/** The store's read helper: a statement whose failure is a defect (see ./store.ts). */
export type Query = <Row extends object>(text: string, params: ReadonlyArray<unknown>) => Effect.Effect<ReadonlyArray<Row>>

/** A WHERE clause under construction: conditions and their positional parameters. */
export class Where {
  readonly conditions: Array<string> = []
  readonly params: Array<unknown> = []
  /**
   * Set by `eitherEq`: the alternatives of the one disjunction in the clause, each a
   * condition one index serves. `text` holds their OR; a page runs one scan per
   * alternative instead (see `pageStatement`), since an OR of two indexes is a bitmap
   * scan that reads every matching row and sorts them for one page.
   */
  arms: ReadonlyArray<string> | undefined = undefined
  add(condition: (placeholder: string) => string, value: unknown): this {
    this.params.push(value)
    this.conditions.push(condition(`$${this.params.length}`))
    return this
  }
  /** The clause every query starts from: the platform's rows. */
  static platform(platformId: string): Where {
    return new Where().add((p) => `platform_id = ${p}`, platformId)
  }
  /** `column = value`, unless the filter is unset (undefined). */
  eq(column: string, value: unknown): this {
    return value === undefined ? this : this.add((p) => `${column} = ${p}`, value)
  }
  /** `column` (epoch ms) within the range, either end open (or the whole range unset). */
  within(column: string, range: TimeRange | undefined): this {
    if (range?.from !== undefined) this.add((p) => `${column} >= ${p}::bigint`, range.from)
    if (range?.to !== undefined) this.add((p) => `${column} <= ${p}::bigint`, range.to)
    return this
  }
  /**
   * `column = value` for any of the columns (one parameter), unless the filter is unset;
   * at most one such disjunction per clause (a page runs one scan per column).
   */
  eitherEq(columns: ReadonlyArray<string>, value: unknown): this {
    if (value === undefined) return this
    if (this.arms !== undefined) throw new Error("a WHERE holds at most one disjunction")
    this.params.push(value)
    const placeholder = `$${this.params.length}`
    this.arms = columns.map((column) => `${column} = ${placeholder}`)
    this.conditions.push(`(${this.arms.join(" or ")})`)
    return this
  }
  /** The clause with the disjunction replaced by one of its alternatives (`arm` of `arms`). */
  armText(arm: string): string {
    const either = this.arms === undefined ? undefined : `(${this.arms.join(" or ")})`
    return this.conditions.map((c) => (c === either ? arm : c)).join(" and ")
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

/** `before` runs first: it sends the unit of work's pending writes (./pending.ts). */
export const makeWrite = (sql: SqlClient.SqlClient, before: Effect.Effect<void>): Write => {
  const run = makeRunStatement(sql)
  return (text, params) => Effect.andThen(before, run(text, params).pipe(Effect.asVoid, Effect.catch(conflictOrDie)))
}

/**
 * A migration an area carries: `id` is `<number>_<name>`, numbered after every migration
 * before it (./migrations.ts merges the areas' with its own list, in number order, and
 * refuses a duplicate number or a gap at start). Applied, it never changes.
 */
export interface SqlMigration {
  readonly id: string
  readonly statements: ReadonlyArray<string>
}

/**
 * What one part of the SQL store contributes: its tables, some repositories, some writes
 * of the unit of work, and the migrations that create its tables (a new area's own; the
 * areas before them were created by ./migrations.ts's list).
 */
export interface SqlArea<K extends keyof StoreRepositories, W> {
  /** The tables keyed by platform that `resetPlatform` clears, in that order. */
  readonly tables: ReadonlyArray<string>
  readonly migrations?: ReadonlyArray<SqlMigration>
  readonly repositories: Pick<StoreRepositories, K>
  readonly writes: W
}

export interface DocRow {
  readonly doc: string
}

/** The record a `doc` column holds (written by this adapter from a typed record). */
export const docOf = <T>(row: DocRow): T => JSON.parse(row.doc)

/** A parsed document, frozen through (see `keptDocOf`). */
type Parsed = ReturnType<typeof JSON.parse>

/** `value` and everything in it frozen: a document shared by every reader of its text cannot be changed by one of them. */
const frozenThrough = (value: Parsed): Parsed => {
  if (typeof value === "object" && value !== null) {
    for (const key of Object.keys(value)) frozenThrough(value[key])
    Object.freeze(value)
  }
  return value
}

/**
 * Documents parsed, by their text: `keptDocOf`. At most `PARSED_KEPT` (the oldest
 * forgotten first), each of at most `PARSED_TEXT_MAX` characters.
 */
const PARSED_KEPT = 1024
const parsed = new BoundedMemo<string, Parsed>(PARSED_KEPT)
const PARSED_TEXT_MAX = 16_384
const parseFrozen = (text: string): Parsed => frozenThrough(JSON.parse(text))

/**
 * `docOf` for the rows a payment reads again and again unchanged (a customer, its
 * accounts, the platform's configuration: ./payment-reads.ts `cachedDoc`): the same text
 * gives the same record, so a text parsed before is looked up (hashing and comparing the
 * text costs a tenth of parsing it) and its record, frozen, is shared. Only the parse is
 * kept, keyed by the whole text the database returned: a row another process changed is
 * a different text, read and parsed anew.
 */
export const keptDocOf = <T>(text: string): T => {
  if (text.length > PARSED_TEXT_MAX) return JSON.parse(text)
  return parsed.getOrCompute(text, parseFrozen)
}

/** The largest page limit written into a page statement's text (the API's own bound). */
const PAGE_LIMIT_IN_TEXT = 100

/** The one statement of a page (see `page` below): its text and parameters, or the cursor's error. */
export const pageStatement = (table: string, where: Where, p: Page): { readonly text: string; readonly params: ReadonlyArray<unknown> } | InvalidCursor => {
  const params = [...where.params]
  const direction = p.descending === true ? "desc" : "asc"
  let keyset = "true"
  if (p.cursor !== undefined) {
    const after = decodeCursor(p.cursor)
    if (!("createdAt" in after)) return after
    params.push(after.createdAt, after.id)
    keyset = `(created_ms, id) ${p.descending === true ? "<" : ">"} ($${params.length - 1}::bigint, $${params.length}::text)`
  }
  // The limit goes into the text, not a parameter: a generic plan does not know a
  // parameter's value and assumes a tenth of the matching rows, so over a large table
  // PostgreSQL re-planned the statement at every execution (docs/performance.md, "The
  // database's CPU per request, and the first pages' plans"). A page's limit is 1–100
  // (the API's bound), so a list shape has at most a hundred texts; anything else goes
  // as a parameter as before.
  let limit: string
  if (Number.isSafeInteger(p.limit) && p.limit >= 1 && p.limit <= PAGE_LIMIT_IN_TEXT) limit = String(p.limit + 1)
  else {
    params.push(p.limit + 1)
    limit = `$${params.length}`
  }
  if (where.arms !== undefined) {
    // One scan per alternative, each down its own `(…, created_ms, id)` index, the cursor
    // pushed into each and each stopping at `limit + 1` rows (and the count at
    // TOTAL_COUNT_LIMIT + 1 ids); UNION drops a row both alternatives found (a payment
    // whose sender and receiver are both the account). More than TOTAL_COUNT_LIMIT ids
    // in the union if and only if more than that many rows match: an arm cut at the
    // limit already holds more, and arms that are not cut hold every match.
    const arms = where.arms.map((arm) => where.armText(arm))
    const counted = arms.map((w) => `(select id from ${table} where ${w} limit ${TOTAL_COUNT_LIMIT + 1})`).join(" union ")
    const scans = arms.map((w) =>
      `(select doc::text as doc, created_ms, id from ${table} where ${w} and ${keyset}
             order by created_ms ${direction}, id ${direction} limit ${limit})`
    ).join(" union ")
    return {
      text: `select (select count(*)::int from (${counted}) counted) as total, page.doc
         from (select 1) one left join lateral (
           select doc, created_ms, id from (${scans}) arms
           order by created_ms ${direction}, id ${direction} limit ${limit}
         ) page on true
         order by page.created_ms ${direction}, page.id ${direction}`,
      params
    }
  }
  return {
    text: `select (select count(*)::int from (select 1 from ${table} where ${where.text} limit ${TOTAL_COUNT_LIMIT + 1}) counted) as total, page.doc
         from (select 1) one left join lateral (
           select doc::text as doc, created_ms, id from ${table} where ${where.text} and ${keyset}
           order by created_ms ${direction}, id ${direction} limit ${limit}
         ) page on true
         order by page.created_ms ${direction}, page.id ${direction}`,
    params
  }
}

/** `one`, `many` and `page` over a store's `query`. */
export const documentReads = (query: Query) => {
  const one = <T>(text: string, params: ReadonlyArray<unknown>): Effect.Effect<T | undefined> =>
    Effect.map(query<DocRow>(text, params), (rows) => rows[0] === undefined ? undefined : docOf<T>(rows[0]))

  const many = <T>(text: string, params: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<T>> =>
    Effect.map(query<DocRow>(text, params), (rows) => rows.map((row) => docOf<T>(row)))

  /**
   * One keyset page of `table` where `where` holds, oldest first or (descending) newest
   * first, and the total that match when at most TOTAL_COUNT_LIMIT do. One statement, so
   * the total and the page come from one snapshot even while other units of work commit.
   * The page reads `limit + 1` rows down a `(…, created_ms, id)` index and the count at
   * most TOTAL_COUNT_LIMIT + 1 index entries, so neither grows with the table (a common
   * table expression read twice would be materialized: every matching row, documents
   * included, read for one page). A descending page's cursor continues below the last
   * row it returned; `keyOf` gives a record's (createdAt, id).
   */
  const page = <T>(table: string, where: Where, p: Page, keyOf: (r: T) => SortKey): Effect.Effect<PageResult<T>, InvalidCursor> =>
    Effect.gen(function*() {
      const statement = pageStatement(table, where, p)
      if (!("text" in statement)) return yield* Effect.fail(statement)
      const result = yield* query<{ readonly total: number; readonly doc: string | null }>(statement.text, statement.params)
      const rows = result.flatMap((row) => (row.doc === null ? [] : [docOf<T>({ doc: row.doc })]))
      const hasMore = rows.length > p.limit
      const data = hasMore ? rows.slice(0, p.limit) : rows
      const last = data[data.length - 1]
      const totalCount = result[0]?.total ?? 0
      return hasMore && last !== undefined
        ? { data, hasMore, nextCursor: encodeCursor(keyOf(last)), ...totalCountOf(totalCount) }
        : { data, hasMore, ...totalCountOf(totalCount) }
    })

  /** A `get`: the record with this id in `table`, of the platform. */
  const byId = <T>(table: string) => (platformId: string, id: string): Effect.Effect<T | undefined> =>
    one<T>(`select doc::text as doc from ${table} where platform_id = $1 and id = $2`, [platformId, id])

  /** The platform's records in `table` whose `column` holds `value`, oldest first. */
  const byColumn = <T>(table: string, column: string) => (platformId: string, value: string): Effect.Effect<ReadonlyArray<T>> =>
    many<T>(`select doc::text as doc from ${table} where platform_id = $1 and ${column} = $2 order by created_ms, id`, [platformId, value])

  return { one, many, page, byId, byColumn }
}

/**
 * Between two JSON documents sent as one text parameter and split in SQL with
 * `string_to_table($n::text, chr(1))`: JSON text never holds it (JSON.stringify writes a
 * control character in a string as an escape), so the documents are split without being
 * parsed (the events' insert, a batch of webhook deliveries).
 */
export const DOCUMENT_SEPARATOR = "\u0001"
