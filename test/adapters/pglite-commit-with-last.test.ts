/**
 * On PGlite a top-level unit of work's last statement goes in the same call as its COMMIT
 * (src/adapters/sql/pglite.ts `preparedThenCommit`, src/adapters/sql/store.ts
 * `lastWithCommit`), with the guessed clock offset checked in SQL by that statement. A
 * stale guess fails the statement: COMMIT answers ROLLBACK, nothing of the attempt is
 * kept (not even the statement's own writes), the request runs again on the stored
 * offset, and the connection serves the units of work after it.
 */
import { Effect, Layer, ManagedRuntime, References } from "effect"
import { SqlClient } from "effect/sql"
import { describe, expect, it } from "vitest"
import { pgliteClientLayer, pgliteStoreOnClient } from "../../src/adapters/sql/index.js"
import type { DomainEvent } from "../../src/ports/events.js"
import { Store } from "../../src/ports/store.js"
import { withPgliteTemplate } from "../support/pglite-template.js"

const event = (platformId: string, n: number): DomainEvent => ({
  id: `Webhook:with-commit-${n}`,
  platformId,
  type: "TEST",
  timestamp: new Date(Date.UTC(2026, 0, 1)).toISOString()
})

describe("PGlite: the last statement in the call of COMMIT", () => {
  it("a stale guessed offset commits nothing of the attempt, the request runs again, and the next units of work commit", async () => {
    const runtime = ManagedRuntime.make(
      withPgliteTemplate((template) => pgliteStoreOnClient(undefined).pipe(Layer.provideMerge(pgliteClientLayer(undefined, { template }))))
    )
    try {
      const p = "plat-with-commit"
      const outcome = await runtime.runPromise(Effect.gen(function*() {
        const store = yield* Store
        const sql = yield* SqlClient.SqlClient
        const onLastSeenOffset = store.clocks.onLastSeenOffset
        if (onLastSeenOffset === undefined) return yield* Effect.die(new Error("the SQL store runs requests on the offset it last saw"))
        // The store has seen offset 0 and guesses it from now on; the stored one then changes behind its back.
        const seen = yield* store.clocks.offset(p)
        yield* sql`insert into platform_clocks (platform_id, offset_ms) values (${p}, 5000)`
        const runs: Array<number> = []
        yield* onLastSeenOffset(p, (offset) =>
          Effect.suspend(() => {
            runs.push(offset)
            const n = runs.length
            return store.transact((uow) => Effect.andThen(uow.setClockOffset(`${p}-run-${n}`, offset), uow.emit(event(p, n))))
          }))
        // Units of work after it: one with a last statement, one that sends nothing.
        yield* store.transact((uow) => uow.emit(event(p, 3)))
        const nothing = yield* store.transact(() => Effect.succeed("nothing"))
        const events = yield* sql<{ readonly id: string }>`select id from events where platform_id = ${p} order by id`
        const clocks = yield* sql<{ readonly platform_id: string }>`select platform_id from platform_clocks where platform_id like ${`${p}-run-%`} order by platform_id`
        return { seen, runs, nothing, events: events.map((e) => e.id), clocks: clocks.map((c) => c.platform_id) }
        // Tracing off, as the server runs (with it on, the last statement goes through the client, for its span, before COMMIT).
      }).pipe(Effect.provideService(References.TracerEnabled, false)))
      expect(outcome).toEqual({
        seen: 0,
        runs: [0, 5_000],
        nothing: "nothing",
        events: ["Webhook:with-commit-2", "Webhook:with-commit-3"],
        clocks: [`${p}-run-2`]
      })
    } finally {
      await runtime.dispose()
    }
  }, 60_000)
})
