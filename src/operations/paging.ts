/**
 * The store's domain errors as the API answers them, mapped by the operations (the
 * store speaks no HTTP).
 */
import { Effect } from "effect"
import { DEFAULT_PAGE_LIMIT } from "../domain/common.js"
import { type Error400, invalidInput } from "../domain/errors.js"
import type { InvalidCursor, PageResult, StoreConflict } from "../ports/store.js"

/** An instant filter as epoch ms; text that is no instant is a 400 naming the field. */
export const instantOf = (field: string, text: string | undefined): Effect.Effect<number | undefined, Error400> => {
  if (text === undefined) return Effect.succeed(undefined)
  const ms = Date.parse(text)
  return Number.isNaN(ms)
    ? Effect.fail(invalidInput(`${field} is not a date-time`, [{ field, constraint: "dateTime", message: "must be an ISO 8601 date-time" }]))
    : Effect.succeed(ms)
}

/** A list's paging parameters: at most `limit` (`DEFAULT_PAGE_LIMIT` when absent) after `cursor`. */
export interface PageQuery {
  readonly limit?: number | undefined
  readonly cursor?: string | undefined
}

/** The page a list query asks the store for. */
export const pageRequestOf = (q: PageQuery): { readonly limit: number; readonly cursor: string | undefined } => ({
  limit: q.limit ?? DEFAULT_PAGE_LIMIT,
  cursor: q.cursor
})

/** A list's creation and update windows: ISO 8601 instants (any offset), compared as instants. */
export interface ChangedWindowQuery {
  readonly createdAfter?: string | undefined
  readonly createdBefore?: string | undefined
  readonly updatedAfter?: string | undefined
  readonly updatedBefore?: string | undefined
}

/** The `created` and `updated` ranges (epoch ms) of a list query; a bad instant is a 400 naming its field. */
export const changedWindowsOf = Effect.fnUntraced(function*(q: ChangedWindowQuery) {
  return {
    created: { from: yield* instantOf("createdAfter", q.createdAfter), to: yield* instantOf("createdBefore", q.createdBefore) },
    updated: { from: yield* instantOf("updatedAfter", q.updatedAfter), to: yield* instantOf("updatedBefore", q.updatedBefore) }
  }
})

/** A cursor the store did not issue: a 400 naming `cursor`. */
export const badCursor = (): Error400 =>
  invalidInput("cursor is not a cursor this API returned", [{
    field: "cursor",
    constraint: "cursor",
    message: "must be a nextCursor value from a previous page of the same list"
  }])

export const pageOf = <R, X>(page: Effect.Effect<PageResult<R>, InvalidCursor, X>): Effect.Effect<PageResult<R>, Error400, X> =>
  Effect.catchTag(page, "InvalidCursor", () => Effect.fail(badCursor()))

/** A page of the store's records as the API lists them (a bad cursor is a 400), each record shown by `show`. */
export const shownPageOf = <R, A, X>(
  page: Effect.Effect<PageResult<R>, InvalidCursor, X>,
  show: (r: R) => A
): Effect.Effect<PageResult<A>, Error400, X> => Effect.map(pageOf(page), (p) => ({ ...p, data: p.data.map(show) }))

/**
 * For a write whose unique keys cannot clash (it changes none): a StoreConflict there
 * is a bug, so it is a defect.
 */
export const conflictIsDefect = (e: StoreConflict): Effect.Effect<never> => Effect.die(e)
