/** The outbox part of the SQL Store (migration `1_initial`): events in commit order per platform. ./store.ts wires it in. */
import { Effect } from "effect"
import type { DomainEvent, EventWrites } from "../../ports/events.js"
import { docOf, DOCUMENT_SEPARATOR, type Query, type SqlArea } from "./documents.js"
import { CurrentPending, type PendingStatement } from "./pending.js"

/**
 * The statement writing `events` in their order (`seq` follows the rows' order: the
 * select's ordinality), after taking the event lock of each of their platforms (in one
 * order, the platforms sorted as ./turns.ts sorts them; one platform in practice). The
 * platform's event lock (held to commit) makes `seq` order commit order per platform: a
 * reader following `afterSeq` never finds a lower seq committed later. A unit of work
 * moving the platform's money holds it already, at session level, from before its
 * transaction began (./turns.ts): then this takes it again at once. Within a unit of
 * work the events wait in ./pending.ts and go last, with the writes still pending, in
 * one statement before COMMIT (`flushAll`).
 */
export const eventsStatement = (events: ReadonlyArray<DomainEvent>): PendingStatement => {
  const keys: Array<readonly [string, string, string]> = []
  const docs: Array<string> = []
  for (const e of events) {
    keys.push([e.platformId, e.id, e.type])
    docs.push(JSON.stringify(e))
  }
  return {
    text: EVENTS_INSERT,
    params: [JSON.stringify([...new Set(events.map((e) => e.platformId))].sort()), JSON.stringify(keys), docs.join(DOCUMENT_SEPARATOR)]
  }
}

/**
 * `EVENTS_INSERT`'s third parameter holds the events' documents split at
 * `DOCUMENT_SEPARATOR`, stored as `json` (migration `20_lighter_money_writes`: validated,
 * not rebuilt as jsonb). The second parameter holds each event's platform, id and type, in
 * the same order.
 */
const EVENTS_INSERT = `insert into events (platform_id, id, type, doc)
     select k->>0, k->>1, k->>2, d::json
     from (select count(*) from (select pg_advisory_xact_lock(hashtext(p)) from json_array_elements_text($1::json) as p) locked) as platform_event_locks,
       rows from (json_array_elements($2::json), string_to_table($3::text, chr(1))) with ordinality as pending(k, d, n)
     order by n`

/**
 * A platform's events after a seq ($2), oldest first, at most $3: the webhook worker's
 * import reads the outbox with it, 200 at a time. The seqs come from `payments_event_seqs`
 * (migration `25_webhook_heads`: `events_pkey` walked in order from $2, stopping at $3),
 * then their rows by primary key. Written as `seq > $2 order by seq limit $3` until
 * 2026-11-28, its plan on PGlite read every event after the cursor (a bitmap scan) and
 * sorted them to keep 200: an import that had fallen behind cost more with every event it
 * owed (11 → 68 ms a call under the webhook soak).
 */
export const EVENTS_AFTER_SQL = `select e.seq::float8 as seq, e.doc::text as doc from events e
   where e.platform_id = $1 and e.seq = any (array(select payments_event_seqs($1, $2::bigint, null, $3::int)))
   order by e.seq`

/** `flushAll` sends the unit of work's pending writes and events (./pending.ts); a read or removal of events runs after it. */
export const makeEventStore = (query: Query, flushAll: Effect.Effect<void>, exec: (text: string, params: ReadonlyArray<unknown>) => Effect.Effect<void>): SqlArea<"events", EventWrites> => ({
  tables: ["events"],
  writes: {
    // Kept for the unit of work's last statement (./pending.ts); at once outside a unit of work.
    emit: (event: DomainEvent) =>
      CurrentPending.use((pending) => {
        if (pending === undefined) {
          const one = eventsStatement([event])
          return exec(one.text, one.params)
        }
        pending.events.push(event)
        return Effect.void
      }),
    // Reads at most `limit` rows of `events_pkey` (the platform's oldest at or below upToSeq),
    // whatever the outbox holds; the time test applies to those rows only.
    sweepEvents: (platformId, sweep) =>
      Effect.andThen(flushAll, Effect.map(
        query<{ readonly removed: number }>(
          `with removed as (
             delete from events where platform_id = $1 and seq = any (array(select payments_event_seqs($1, 0, $2::bigint, $3::int)))
             and (doc->>'timestamp')::timestamptz < to_timestamp($4::float8 / 1000)
             returning 1)
           select count(*)::int as removed from removed`,
          [platformId, sweep.upToSeq, Math.max(0, Math.floor(sweep.limit)), sweep.before]
        ),
        (rows) => rows[0]?.removed ?? 0
      ))
  },
  repositories: {
    events: {
      list: (platformId, options) =>
        Effect.andThen(flushAll, Effect.map(
          query<{ readonly seq: number; readonly doc: string }>(
            EVENTS_AFTER_SQL,
            [platformId, options?.afterSeq ?? 0, Math.max(0, Math.min(Math.floor(options?.limit ?? 1_000_000), 2_147_483_647))]
          ),
          (rows) => rows.map((row) => ({ seq: row.seq, event: docOf<DomainEvent>(row) }))
        ))
    }
  }
})
