/**
 * Keyset cursors on `(createdAt, id)`, shared by every store so a cursor means the
 * same thing on memory, PGlite and PostgreSQL. Opaque to clients (base64url).
 */
import { MAX_CURSOR_LENGTH } from "../domain/common.js"
import { InvalidCursor } from "../ports/store.js"

export interface SortKey {
  readonly createdAt: number
  readonly id: string
}

export const encodeCursor = (key: SortKey): string =>
  Buffer.from(`k1:${key.createdAt}:${key.id}`, "utf8").toString("base64url")

export const decodeCursor = (cursor: string): SortKey | InvalidCursor => {
  if (cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) {
    return new InvalidCursor({ cursor })
  }
  const m = /^k1:(\d{1,15}):([\x21-\x7e]{1,200})$/.exec(Buffer.from(cursor, "base64url").toString("utf8"))
  if (m === null) return new InvalidCursor({ cursor })
  return { createdAt: Number(m[1]), id: m[2] ?? "" }
}

/** Epoch ms of an ISO-8601 instant the store wrote (records carry ISO text). */
export const millisOf = (iso: string): number => {
  const ms = Date.parse(iso)
  return Number.isNaN(ms) ? 0 : ms
}
