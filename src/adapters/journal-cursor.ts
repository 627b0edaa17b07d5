/**
 * Positions in a platform's journal (its write order), shared by every store so a
 * journal cursor means the same thing on memory, PGlite and PostgreSQL. Opaque to
 * clients (base64url of `j1:<sequence>`).
 */
import { MAX_CURSOR_LENGTH } from "../domain/common.js"
import { InvalidCursor } from "../ports/store.js"

export const encodeJournalCursor = (seq: number): string => Buffer.from(`j1:${seq}`, "utf8").toString("base64url")

export const decodeJournalCursor = (cursor: string): number | InvalidCursor => {
  if (cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) {
    return new InvalidCursor({ cursor })
  }
  const m = /^j1:(\d{1,15})$/.exec(Buffer.from(cursor, "base64url").toString("utf8"))
  if (m === null) return new InvalidCursor({ cursor })
  return Number(m[1])
}
