/**
 * The store's domain errors as the API answers them, mapped by the operations (the
 * store speaks no HTTP).
 */
import { Effect } from "effect"
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

/** A cursor the store did not issue: a 400 naming `cursor`. */
export const badCursor = (): Error400 =>
  invalidInput("cursor is not a cursor this API returned", [{
    field: "cursor",
    constraint: "cursor",
    message: "must be a nextCursor value from a previous page of the same list"
  }])

export const pageOf = <R, X>(page: Effect.Effect<PageResult<R>, InvalidCursor, X>): Effect.Effect<PageResult<R>, Error400, X> =>
  Effect.catchTag(page, "InvalidCursor", () => Effect.fail(badCursor()))

/**
 * For a write whose unique keys cannot clash (it changes none): a StoreConflict there
 * is a bug, so it is a defect.
 */
export const conflictIsDefect = (e: StoreConflict): Effect.Effect<never> => Effect.die(e)
