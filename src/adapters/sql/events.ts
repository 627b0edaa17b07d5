/** The outbox part of the SQL Store (migration `1_initial`): events in commit order per platform. ./store.ts wires it in. */
import { Effect } from "effect"
import type { DomainEvent, EventWrites } from "../../ports/events.js"
import { docOf, type Query, type SqlArea } from "./documents.js"

export const makeEventStore = (query: Query): SqlArea<"events", EventWrites> => ({
  tables: ["events"],
  writes: {
    // The platform's event lock (held to commit) makes `seq` order commit order per
    // platform: a reader following `afterSeq` never finds a lower seq committed later.
    // A unit of work moving the platform's money holds it already, at session level,
    // from before its transaction began (./turns.ts): then this takes it again at once.
    emit: (event: DomainEvent) =>
      Effect.asVoid(query(
        `insert into events (platform_id, id, type, doc)
         select $1, $2, $3, $4::jsonb from (select pg_advisory_xact_lock(hashtext($1))) as platform_event_lock`,
        [event.platformId, event.id, event.type, JSON.stringify(event)]
      )),
    // Reads at most `limit` rows of `events_platform` (the oldest at or below upToSeq),
    // whatever the outbox holds; the time test applies to those rows only.
    sweepEvents: (platformId, sweep) =>
      Effect.map(
        query<{ readonly removed: number }>(
          `with removed as (
             delete from events where seq in (
               select seq from events where platform_id = $1 and seq <= $2::bigint order by seq limit $3)
             and (doc->>'timestamp')::timestamptz < to_timestamp($4::float8 / 1000)
             returning 1)
           select count(*)::int as removed from removed`,
          [platformId, sweep.upToSeq, Math.max(0, Math.floor(sweep.limit)), sweep.before]
        ),
        (rows) => rows[0]?.removed ?? 0
      )
  },
  repositories: {
    events: {
      list: (platformId, options) =>
        Effect.map(
          query<{ readonly seq: number; readonly doc: string }>(
            `select seq::float8 as seq, doc::text as doc from events where platform_id = $1 and seq > $2::bigint order by seq limit $3`,
            [platformId, options?.afterSeq ?? 0, options?.limit ?? 1_000_000]
          ),
          (rows) => rows.map((row) => ({ seq: row.seq, event: docOf<DomainEvent>(row) }))
        )
    }
  }
})
