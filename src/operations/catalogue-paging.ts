/**
 * Cursor paging over a small catalogue held in memory (the directories of GET /vasps and
 * GET /uma-providers): the same envelope and rules as every store-backed list (`limit`
 * 1 to 100, default 20; `cursor` a `nextCursor` of the same list, else 400), keyset on a
 * unique sort key, so a page never repeats or skips an entry.
 */
import { Effect } from "effect"
import { DEFAULT_PAGE_LIMIT } from "../domain/common.js"
import type { Error400 } from "../domain/errors.js"
import { badCursor } from "./paging.js"

const PREFIX = "cat1."

const encode = (key: string): string => PREFIX + Buffer.from(key, "utf8").toString("base64url")

const decode = (cursor: string): string | undefined => {
  if (!cursor.startsWith(PREFIX)) return undefined
  const body = cursor.slice(PREFIX.length)
  if (!/^[A-Za-z0-9_-]+$/.test(body)) return undefined
  const key = Buffer.from(body, "base64url").toString("utf8")
  return encode(key) === cursor ? key : undefined
}

export interface CataloguePage<A> {
  readonly data: ReadonlyArray<A>
  readonly hasMore: boolean
  readonly nextCursor?: string
  readonly totalCount: number
}

/** One page of `items` ordered by `keyOf` (unique per item), ascending or descending. */
export const pageCatalogue = <A>(
  items: ReadonlyArray<A>,
  keyOf: (a: A) => string,
  q: { readonly limit?: number | undefined; readonly cursor?: string | undefined; readonly descending?: boolean | undefined }
): Effect.Effect<CataloguePage<A>, Error400> => {
  const after = q.cursor === undefined ? undefined : decode(q.cursor)
  if (q.cursor !== undefined && after === undefined) return Effect.fail(badCursor())
  const sign = q.descending === true ? -1 : 1
  const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0) * sign
  const sorted = [...items].sort((a, b) => compare(keyOf(a), keyOf(b)))
  const rest = after === undefined ? sorted : sorted.filter((a) => compare(keyOf(a), after) > 0)
  const limit = q.limit ?? DEFAULT_PAGE_LIMIT
  const data = rest.slice(0, limit)
  const hasMore = rest.length > limit
  const last = data[data.length - 1]
  return Effect.succeed({
    data,
    hasMore,
    ...(hasMore && last !== undefined ? { nextCursor: encode(keyOf(last)) } : {}),
    totalCount: items.length
  })
}
