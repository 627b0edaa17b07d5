/**
 * Sandbox fault rules on a SQL store (migration `13_sandbox_faults`): one row per
 * platform with its rules and the counter their probabilities are drawn with, so every
 * server process sharing the database applies the same rules and draws from one
 * sequence. Each process keeps a platform's rules for `FAULT_RULES_CACHE_MILLIS` of
 * real time before reading them again (a request without rules costs no round trip
 * most of the time, and while the kept answer is "none", no fiber either:
 * `withoutRequestRules`); the process that sets them sees them at once.
 */
import { Clock, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { type FaultConfig, normalizeFaults, SandboxFaults } from "../../domain/sandbox-faults.js"
import { FAULT_RULES_CACHE_MILLIS, SandboxFaultStore, type SandboxFaultStoreService } from "../../ports/sandbox-faults.js"

const decodeConfig = Schema.decodeUnknownSync(Schema.fromJsonString(SandboxFaults))

export const makeSqlSandboxFaultStore = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const run = <Row extends object>(text: string, params: ReadonlyArray<unknown>) => Effect.orDie(sql.unsafe<Row>(text, params))
  const cache = new Map<string, { readonly config: FaultConfig | undefined; readonly at: number }>()
  /**
   * The platform's kept rules while fresh at `now` (kept less than FAULT_RULES_CACHE_MILLIS
   * ago, and not stamped ahead of `now`: by another clock, a test's), else undefined.
   */
  const keptAt = (platformId: string, now: number) => {
    const cached = cache.get(platformId)
    if (cached === undefined) return undefined
    const age = now - cached.at
    return age >= 0 && age < FAULT_RULES_CACHE_MILLIS ? cached : undefined
  }
  const service: SandboxFaultStoreService = {
    get: (platformId) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const cached = keptAt(platformId, now)
        if (cached !== undefined) return cached.config
        const rows = yield* run<{ readonly config: string }>(
          "select config::text as config from sandbox_faults where platform_id = $1",
          [platformId]
        )
        const text = rows[0]?.config
        const config = text === undefined ? undefined : normalizeFaults(decodeConfig(text))
        cache.set(platformId, { config, at: now })
        return config
      }),
    put: (platformId, config) =>
      Effect.gen(function*() {
        yield* run(
          `insert into sandbox_faults (platform_id, config, matched) values ($1, $2::jsonb, 0)
           on conflict (platform_id) do update set config = excluded.config, matched = 0`,
          [platformId, JSON.stringify(config)]
        )
        cache.set(platformId, { config, at: yield* Clock.currentTimeMillis })
      }),
    remove: (platformId) =>
      Effect.gen(function*() {
        yield* run("delete from sandbox_faults where platform_id = $1", [platformId])
        cache.set(platformId, { config: undefined, at: yield* Clock.currentTimeMillis })
      }),
    nextMatch: (platformId) =>
      Effect.map(
        run<{ readonly matched: string | number }>(
          "update sandbox_faults set matched = matched + 1 where platform_id = $1 returning matched",
          [platformId]
        ),
        // Rules removed by another process in the meantime: this one counts as the first.
        (rows) => rows[0] === undefined ? 1 : Number(rows[0].matched)
      ),
    matched: (platformId) =>
      Effect.map(
        run<{ readonly matched: string | number }>("select matched from sandbox_faults where platform_id = $1", [platformId]),
        (rows) => rows[0] === undefined ? 0 : Number(rows[0].matched)
      ),
    // What `get` would answer from its cache without a read, when that is "no request
    // rules": every request of a sandbox platform asks, and most have none. Real time, as
    // the cache's (the server's Clock); a cache entry stamped by another clock (a test's)
    // is never taken as fresh here, so `get` decides.
    withoutRequestRules: (platformId) => {
      const cached = keptAt(platformId, Date.now())
      return cached !== undefined && (cached.config?.requests.length ?? 0) === 0
    }
  }
  return service
})

/** The rule store over the layer's SqlClient (the same database as the Store). */
export const SqlSandboxFaultStoreLayer = Layer.effect(SandboxFaultStore, makeSqlSandboxFaultStore)
