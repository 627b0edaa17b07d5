/**
 * The space of removed rows made reusable again on PGlite (docs/storage.md, "Space on disk
 * (PGlite)").
 *
 * PGlite runs PostgreSQL in single-user mode, where no autovacuum runs. A row deleted (a
 * swept event or delivery, a fired timer, a platform's reset) leaves space that no insert
 * reuses until VACUUM records it in the table's free space map, so a table whose rows come
 * and go (the webhook outbox under retention) grows on disk for ever although the number of
 * rows it holds is bounded. `makeReclaim` answers the store's `reclaim`, which the
 * scheduler calls after each retention sweep (operations/retention.ts):
 * - every call: VACUUM of the tables rows leave while the service runs (`CHURN_TABLES`): a
 *   few milliseconds when little changed, as VACUUM skips the pages the visibility map
 *   says are unchanged;
 * - the first call, the first after a platform's reset or a snapshot's restore in this
 *   process (every table of the platform rewritten), and at least every
 *   `FULL_RECLAIM_EVERY_MILLIS`: VACUUM of the whole database, which also covers the rarer
 *   removals (an external account, a token) and freezes old rows before transaction ids
 *   could wrap around.
 * - every call, last: a CHECKPOINT. Single-user PostgreSQL has no checkpointer, and the
 *   checkpoint that WAL beyond `max_wal_size` would request is requested only under a
 *   postmaster: without one of ours, the write-ahead log grows with every write for as
 *   long as the process runs (15 KB a payment: gigabytes in a day of load), all of it
 *   replayed when a data directory left by a killed process opens. After a checkpoint the
 *   log before it is recycled. It writes the pages changed since the last one (the minute
 *   between two sweeps).
 * VACUUM and CHECKPOINT cannot run inside a transaction: they run on the store's one
 * connection between units of work, which wait for them.
 */
import { Clock, Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"

/** The tables rows are removed from as the service runs: swept (retention) or fired (timers). */
export const CHURN_TABLES: ReadonlyArray<string> = ["events", "webhook_deliveries", "timers", "timer_outcomes"]

/** At most this long (on the scheduler's clock) between two VACUUMs of the whole database. */
export const FULL_RECLAIM_EVERY_MILLIS = 3_600_000

export interface Reclaim {
  /** VACUUM, of the churn tables or of the whole database as due, then CHECKPOINT (see above). */
  readonly reclaim: () => Effect.Effect<void, SqlError>
  /** Notes that every table of a platform was rewritten (a reset, a restore): the next `reclaim` covers the whole database. */
  readonly rewrote: () => void
}

export const makeReclaim = (sql: SqlClient.SqlClient): Reclaim => {
  let lastFull: number | undefined
  let rewritten = false
  return {
    rewrote: () => {
      rewritten = true
    },
    reclaim: () =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const before = { lastFull, rewritten }
        const full = rewritten || lastFull === undefined || now - lastFull >= FULL_RECLAIM_EVERY_MILLIS
        if (full) {
          rewritten = false
          lastFull = now
        }
        return sql.unsafe(full ? "VACUUM" : `VACUUM ${CHURN_TABLES.join(", ")}`).unprepared.pipe(
          Effect.andThen(sql.unsafe("CHECKPOINT").unprepared),
          Effect.asVoid,
          // A VACUUM (or its checkpoint) that failed is due again at the next call.
          Effect.onError(() =>
            Effect.sync(() => {
              if (full) {
                lastFull = before.lastFull
                rewritten = rewritten || before.rewritten
              }
            })
          )
        )
      })
  }
}
