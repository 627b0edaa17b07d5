/**
 * The timers part of the SQL Store (migration `1_initial`): scheduled moves, what
 * became of them, and the sandbox clocks. ./store.ts wires it in.
 */
import { Effect, Option } from "effect"
import type { SqlClient } from "effect/sql"
import type { TimerOutcome, TimerRecord, TimerWrites } from "../../ports/timers.js"
import { documentReads, type Query, type SqlArea } from "./documents.js"

/** How many timer outcomes a platform keeps. */
const OUTCOME_HISTORY = 1000

interface TimerRow {
  readonly id: string
  readonly at: number
  readonly kind: string
  readonly subject_id: string
  readonly event: string
}

const timerOf = (platformId: string, row: TimerRow): TimerRecord => ({
  platformId,
  id: row.id,
  at: row.at,
  kind: row.kind,
  subjectId: row.subject_id,
  event: row.event
})

export const makeTimerStore = (sql: SqlClient.SqlClient, query: Query): SqlArea<"timers" | "clocks", TimerWrites> => {
  const { many } = documentReads(query)

  /** Claims (deletes, inside the caller's transaction) the platform's earliest due timer. */
  const claimDueIn = (platformId: string, now: number): Effect.Effect<TimerRecord | undefined> =>
    Effect.map(
      query<TimerRow>(
        `delete from timers where platform_id = $1 and id = (
           select id from timers where platform_id = $1 and at_ms <= $2::bigint order by at_ms, id limit 1 for update skip locked)
         returning id, at_ms::float8 as at, kind, subject_id, event`,
        [platformId, now]
      ),
      (rows) => rows[0] === undefined ? undefined : timerOf(platformId, rows[0])
    )

  const cancelTimers = (platformId: string, subjectId: string, kind?: string) =>
    kind === undefined
      ? query(`delete from timers where platform_id = $1 and subject_id = $2`, [platformId, subjectId])
      : query(`delete from timers where platform_id = $1 and subject_id = $2 and kind = $3`, [platformId, subjectId, kind])

  return {
    tables: ["timers", "timer_outcomes", "platform_clocks"],
    writes: {
      schedule: (t) =>
        Effect.andThen(
          cancelTimers(t.platformId, t.subjectId, t.kind),
          query(
            `insert into timers (platform_id, id, at_ms, kind, subject_id, event) values ($1, $2, $3::bigint, $4, $5, $6)`,
            [t.platformId, t.id, t.at, t.kind, t.subjectId, t.event]
          )
        ).pipe(Effect.asVoid),
      cancelTimers: (platformId, subjectId, kind) => Effect.asVoid(cancelTimers(platformId, subjectId, kind)),
      recordTimerOutcome: (outcome: TimerOutcome) =>
        Effect.andThen(
          query(`insert into timer_outcomes (platform_id, doc) values ($1, $2::jsonb)`, [outcome.timer.platformId, JSON.stringify(outcome)]),
          query(
            `delete from timer_outcomes where platform_id = $1 and seq <= (
               select seq from timer_outcomes where platform_id = $1 order by seq desc offset ${OUTCOME_HISTORY} limit 1)`,
            [outcome.timer.platformId]
          )
        ).pipe(Effect.asVoid),
      setClockOffset: (platformId, offsetMillis) =>
        Effect.asVoid(query(
          `insert into platform_clocks (platform_id, offset_ms) values ($1, $2::bigint)
           on conflict (platform_id) do update set offset_ms = excluded.offset_ms`,
          [platformId, offsetMillis]
        ))
    },
    repositories: {
      timers: {
        claimDue: (platformId, now) =>
          Effect.flatMap(Effect.serviceOption(sql.transactionService), (tx) =>
            Option.isNone(tx)
              ? Effect.die(new Error("timers.claimDue must run inside a unit of work"))
              : claimDueIn(platformId, now)),
        pending: (platformId) =>
          Effect.map(
            query<TimerRow>(
              `select id, at_ms::float8 as at, kind, subject_id, event from timers where platform_id = $1 order by at_ms, id`,
              [platformId]
            ),
            (rows) => rows.map((row) => timerOf(platformId, row))
          ),
        outcomes: (platformId) =>
          many<TimerOutcome>(`select doc::text as doc from timer_outcomes where platform_id = $1 order by seq`, [platformId])
      },
      clocks: {
        offset: (platformId) =>
          Effect.map(
            query<{ readonly offset_ms: number }>(`select offset_ms::float8 as offset_ms from platform_clocks where platform_id = $1`, [platformId]),
            (rows) => rows[0]?.offset_ms ?? 0
          )
      }
    }
  }
}
