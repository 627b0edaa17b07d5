/**
 * Sandbox snapshots on a SQL store (migration `18_sandbox_snapshots`, ports/snapshots.ts).
 *
 * A snapshot is a row of `sandbox_snapshots` (its record, and the schema it was taken on)
 * and, in `sandbox_snapshot_rows`, every row the platform has in the tables its state
 * lives in, each as its row text (`r::text`), taken in one statement. A restore is one
 * call of `payments_restore_snapshot`, which deletes the platform's rows of every table,
 * then, table by table in the order given, inserts the saved ones (`row::table`), inside
 * the caller's unit of work: one SERIALIZABLE transaction, so every server process
 * sharing the database sees the platform before or after it, never in between, and a
 * failed restore changes nothing. Row text rather than JSON: reading it back is a cast
 * (`jsonb_populate_recordset` of the same rows took about 40 times longer, measured alone),
 * though end to end the restore's own deletes and inserts dominate either way
 * (docs/performance.md#sandbox-snapshots). Row text is the row type's, so a snapshot
 * taken on another schema (a store upgraded since) is refused (`otherSchema`), never half read.
 *
 * Rows keep their own keys, `seq` values included (events, journal entries, timer
 * outcomes): the sequences behind them only move forward, so a restored row's `seq` is
 * never handed out again, and the webhook cursor still points into the restored outbox.
 * Tables derived from others (`journal_account_postings`, `sent_volumes`) come after the
 * tables they derive from (the order `resetPlatform` clears them in), and each table is
 * emptied again just before its rows go in, so their saved rows replace whatever a
 * trigger wrote while the earlier tables were restored (since migration
 * `20_lighter_money_writes` an insert writes no derived row: their writers do, ./money.ts).
 * Nothing of a platform's state is cached by a process but its clock offset, which
 * every request checks against the stored one (./one-round-trip.ts).
 */
import { Effect } from "effect"
import type { SnapshotRecord, SnapshotWrites } from "../../ports/snapshots.js"
import { millisOf } from "../cursor.js"
import { documentReads, type Query, type SqlArea, Where } from "./documents.js"


/** Only SQL identifiers of ours ever reach a statement's text. */
const identifier = (table: string): string => {
  if (!/^[a-z_][a-z0-9_]*$/.test(table)) throw new Error(`not a table name: ${table}`)
  return table
}

/**
 * `tables`: every table holding the platform's state, in the order a restore rewrites
 * them (the platform's credentials left out by the caller).
 */
/**
 * `schema` names the schema this code writes and reads (a fingerprint of its migrations):
 * a snapshot taken on another is not restored.
 */
export const makeSnapshotStore = (query: Query, flushAll: Effect.Effect<void>, tables: ReadonlyArray<string>, schema: string): SqlArea<"snapshots", SnapshotWrites> => {
  const { one, page } = documentReads(query)
  const names = tables.map(identifier)
  const capture = names
    .map((t) => `select $1::text, $2::text, '${t}'::text, r::text from ${t} r where r.platform_id = $1`)
    .join("\n union all ")
  return {
    // The snapshots are not the platform's state: a sandbox reset keeps them.
    tables: [],
    writes: {
      // The unit of work's pending events are written first (./events.ts): a snapshot holds them.
      createSnapshot: (r: SnapshotRecord) =>
        Effect.andThen(
          Effect.andThen(flushAll, query(
            `insert into sandbox_snapshots (platform_id, id, created_ms, schema, doc) values ($1, $2, $3::bigint, $4, $5::jsonb)`,
            [r.platformId, r.snapshot.id, millisOf(r.snapshot.createdAt), schema, JSON.stringify(r)]
          )),
          query(`insert into sandbox_snapshot_rows (platform_id, snapshot_id, table_name, row) ${capture}`, [r.platformId, r.snapshot.id])
        ).pipe(Effect.asVoid),
      deleteSnapshot: (platformId, id) =>
        Effect.map(
          Effect.andThen(
            query(`delete from sandbox_snapshot_rows where platform_id = $1 and snapshot_id = $2`, [platformId, id]),
            query<{ readonly id: string }>(`delete from sandbox_snapshots where platform_id = $1 and id = $2 returning id`, [platformId, id])
          ),
          (rows) => rows.length > 0
        ),
      restoreSnapshot: (platformId, id) =>
        Effect.gen(function*() {
          // Locks the snapshot's row: a concurrent delete of it waits for the restore (or the restore sees it gone).
          const held = yield* query<{ readonly schema: string }>(
            `select schema from sandbox_snapshots where platform_id = $1 and id = $2 for share`,
            [platformId, id]
          )
          if (held[0] === undefined) return "missing" as const
          if (held[0].schema !== schema) return "otherSchema" as const
          // Events emitted before the restore are written first, and replaced by the snapshot's like the rest.
          yield* flushAll
          yield* query(`select payments_restore_snapshot($1, $2, $3::text[])`, [platformId, id, names])
          return "restored" as const
        })
    },
    repositories: {
      snapshots: {
        get: (platformId, id) => one<SnapshotRecord>(`select doc::text as doc from sandbox_snapshots where platform_id = $1 and id = $2`, [platformId, id]),
        list: (platformId, p) =>
          page<SnapshotRecord>("sandbox_snapshots", Where.platform(platformId), p, (r) => ({
            createdAt: millisOf(r.snapshot.createdAt),
            id: r.snapshot.id
          }))
      }
    }
  }
}
