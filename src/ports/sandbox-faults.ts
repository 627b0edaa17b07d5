/**
 * The SandboxFaultStore port: each sandbox platform's fault rules (docs/sandbox.md) and
 * the counter their probabilities are drawn with. In memory per app; on a SQL store one
 * row per platform, so every server process sharing the database applies the same rules
 * and draws from one counter.
 */
import { Context, Effect } from "effect"
import type { FaultConfig } from "../domain/sandbox-faults.js"

export interface SandboxFaultStoreService {
  /** The platform's rules, or undefined when it has none. May be up to `FAULT_RULES_CACHE_MILLIS` old on a SQL store in a process that did not set them. */
  readonly get: (platformId: string) => Effect.Effect<FaultConfig | undefined>
  /** Replaces the platform's rules and sets its counter back to 0. */
  readonly put: (platformId: string, config: FaultConfig) => Effect.Effect<void>
  readonly remove: (platformId: string) => Effect.Effect<void>
  /** Adds one to the platform's counter of requests that matched a rule and answers the new value (1 for the first). */
  readonly nextMatch: (platformId: string) => Effect.Effect<number>
  /** The counter's value (0 when no request matched yet). */
  readonly matched: (platformId: string) => Effect.Effect<number>
  /**
   * Optional, for the request boundary's fast path: true when it is known at once,
   * without waiting, that the platform has no request rules (false when it has some or
   * the store cannot tell without a read).
   */
  readonly withoutRequestRules?: (platformId: string) => boolean
}

/** How long a SQL store's process keeps a platform's rules before reading them again (ms of real time). */
export const FAULT_RULES_CACHE_MILLIS = 1_000

/** An in-memory rule store (one per app). */
export const makeMemorySandboxFaultStore = (): SandboxFaultStoreService => {
  const rules = new Map<string, FaultConfig>()
  const counters = new Map<string, number>()
  return {
    get: (platformId) => Effect.sync(() => rules.get(platformId)),
    put: (platformId, config) =>
      Effect.sync(() => {
        rules.set(platformId, config)
        counters.set(platformId, 0)
      }),
    remove: (platformId) =>
      Effect.sync(() => {
        rules.delete(platformId)
        counters.delete(platformId)
      }),
    nextMatch: (platformId) =>
      Effect.sync(() => {
        const n = (counters.get(platformId) ?? 0) + 1
        counters.set(platformId, n)
        return n
      }),
    matched: (platformId) => Effect.sync(() => counters.get(platformId) ?? 0),
    withoutRequestRules: (platformId) => (rules.get(platformId)?.requests.length ?? 0) === 0
  }
}

/**
 * A reference with a default (an in-memory store for the whole process), so the ports'
 * Layer stays `Store | Ids | Platforms`; the memory and SQL layers provide their own.
 */
export const SandboxFaultStore: Context.Reference<SandboxFaultStoreService> = Context.Reference<SandboxFaultStoreService>(
  "payments-service/ports/SandboxFaultStore",
  { defaultValue: makeMemorySandboxFaultStore }
)
