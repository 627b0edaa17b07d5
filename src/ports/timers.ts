/** The timers (scheduled moves) and sandbox clocks part of the Store port (see ./store.ts). */
import type { Effect } from "effect"

/**
 * A move a state machine asked for later, as data: at `at` (epoch ms on the platform's
 * clock), apply `event` to the resource `subjectId`. `kind` names the machine whose
 * handler applies it.
 */
export interface TimerRecord {
  readonly platformId: string
  readonly id: string
  readonly at: number
  readonly kind: string
  readonly subjectId: string
  readonly event: string
}

/** What became of a due timer: applied, or refused by its machine (recorded, not retried). */
export interface TimerOutcome {
  readonly timer: TimerRecord
  readonly appliedAt: number
  readonly outcome: "applied" | "refused"
  readonly reason?: string
}

export interface TimerRepository {
  /**
   * Claims the platform's earliest timer due at `now` for this unit of work, or none.
   * On PostgreSQL it is locked (`FOR UPDATE SKIP LOCKED`), so concurrent schedulers in
   * several processes never claim the same one; it disappears when the unit of work
   * that claimed it commits (the claim deletes it).
   */
  readonly claimDue: (platformId: string, now: number) => Effect.Effect<TimerRecord | undefined>
  /** The platform's pending timers, earliest first. */
  readonly pending: (platformId: string) => Effect.Effect<ReadonlyArray<TimerRecord>>
  /** What happened to applied timers, newest last (bounded history). */
  readonly outcomes: (platformId: string) => Effect.Effect<ReadonlyArray<TimerOutcome>>
}

export interface ClockRepository {
  /** The platform's sandbox time offset in ms (0 when never advanced). */
  readonly offset: (platformId: string) => Effect.Effect<number>
  /**
   * Optional (added for PostgreSQL, where reading the offset is a round trip of its own):
   * runs `run` with the offset this process last saw for the platform, and makes sure it
   * was the stored one when the run started, as if `offset` had been read first: the
   * store checks it inside the first statement the run sends (or with a read before it,
   * or after a run that sent none), and when it was stale it runs `run` again with the
   * stored offset (nothing of the stale run was written: the check comes first). So an
   * acknowledged clock advance is seen by the next request to any process.
   */
  readonly onLastSeenOffset?: <A, E, R>(platformId: string, run: (offset: number) => Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /**
   * Optional, with `onLastSeenOffset`: the offset this process last saw for the platform
   * (read, or checked by a run), without asking the database; undefined when it has seen
   * none. What a request that just ran ran on, or later: for records that only show the
   * platform's time (the request log), not for decisions.
   */
  readonly lastSeenOffset?: (platformId: string) => number | undefined
}

export interface TimerWrites {
  /** Schedules a move; replaces the subject's pending timer of the same kind, if any. */
  readonly schedule: (timer: TimerRecord) => Effect.Effect<void>
  /** Drops the subject's pending timers (of one kind, or all). */
  readonly cancelTimers: (platformId: string, subjectId: string, kind?: string) => Effect.Effect<void>
  /** Records what became of a claimed timer. */
  readonly recordTimerOutcome: (outcome: TimerOutcome) => Effect.Effect<void>
  /** Sets the platform's sandbox time offset. */
  readonly setClockOffset: (platformId: string, offsetMillis: number) => Effect.Effect<void>
}
