/** Timers (scheduled moves), their outcomes and sandbox clocks, in memory (see ./store.ts). */
import { Effect } from "effect"
import type { TimerOutcome, TimerRecord, TimerWrites } from "../../ports/timers.js"
import { keyOf, type MemoryArea, type MemoryContext } from "./context.js"
import { MemoryTable } from "./table.js"

/** How many timer outcomes a platform keeps. */
const OUTCOME_HISTORY = 1000

export interface TimerTables {
  readonly timers: MemoryTable<TimerRecord>
  readonly outcomes: Array<TimerOutcome>
  clockOffset: number
}

export const timerTables = (): TimerTables => ({
  timers: new MemoryTable<TimerRecord>({
    id: (r) => r.id,
    createdAt: (r) => r.at,
    groups: [{ name: "slot", key: (r) => keyOf(r.subjectId, r.kind) }, { name: "subject", key: (r) => r.subjectId }]
  }),
  outcomes: [],
  clockOffset: 0
})

export const makeTimerArea = (m: MemoryContext<TimerTables>): MemoryArea<"timers" | "clocks", TimerWrites> => {
  const removeAll = (table: MemoryTable<TimerRecord>, doomed: ReadonlyArray<TimerRecord>) =>
    Effect.forEach(doomed, (t) => m.removeRow(table, t.id), { discard: true })
  return {
    repositories: {
      timers: {
        claimDue: (platformId, now) =>
          m.claim("timers.claimDue", () => {
            const table = m.peek(platformId)?.timers
            const first = table?.first()
            if (table === undefined || first === undefined || first.at > now) return undefined
            table.remove(first.id)
            m.undo(() => void table.put(first))
            return first
          }),
        pending: (platformId) => m.read(() => m.peek(platformId)?.timers.ordered() ?? []),
        outcomes: (platformId) => m.read(() => [...(m.peek(platformId)?.outcomes ?? [])])
      },
      clocks: {
        offset: (platformId) => m.read(() => m.peek(platformId)?.clockOffset ?? 0)
      }
    },
    writes: {
      schedule: (timer) =>
        Effect.suspend(() => {
          const table = m.tenantOf(timer.platformId).timers
          return Effect.andThen(
            removeAll(table, table.byGroup("slot", keyOf(timer.subjectId, timer.kind))),
            Effect.orDie(m.putRow(table, timer.id, timer))
          )
        }),
      cancelTimers: (platformId, subjectId, kind) =>
        Effect.suspend(() => {
          const table = m.tenantOf(platformId).timers
          return removeAll(table, kind === undefined ? table.byGroup("subject", subjectId) : table.byGroup("slot", keyOf(subjectId, kind)))
        }),
      recordTimerOutcome: (outcome) =>
        Effect.sync(() => {
          const outcomes = m.tenantOf(outcome.timer.platformId).outcomes
          outcomes.push(outcome)
          const dropped = outcomes.length > OUTCOME_HISTORY ? outcomes.shift() : undefined
          m.undo(() => {
            outcomes.pop()
            if (dropped !== undefined) outcomes.unshift(dropped)
          })
        }),
      setClockOffset: (platformId, offsetMillis) => m.setField(m.tenantOf(platformId), "clockOffset", offsetMillis)
    }
  }
}
