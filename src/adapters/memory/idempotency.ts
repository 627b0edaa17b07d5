/** Idempotency keys, in memory (see ./store.ts). */
import { Effect } from "effect"
import type { IdempotencyRecord, IdempotencyWrites } from "../../ports/idempotency.js"
import type { MemoryArea, MemoryContext } from "./context.js"

/** Idempotency records are swept of expired ones when a platform holds more than this. */
const IDEMPOTENCY_SWEEP_AT = 10_000

export interface IdempotencyTables {
  readonly idempotency: Map<string, IdempotencyRecord>
}

export const idempotencyTables = (): IdempotencyTables => ({ idempotency: new Map() })

export const makeIdempotencyArea = (m: MemoryContext<IdempotencyTables>): MemoryArea<"idempotency", IdempotencyWrites> => ({
  repositories: {
    idempotency: {
      get: (platformId, key, now) =>
        m.read(() => {
          const r = m.peek(platformId)?.idempotency.get(key)
          return r !== undefined && r.expiresAt > now ? r : undefined
        })
    }
  },
  writes: {
    putIdempotency: (record) =>
      Effect.sync(() => {
        const map = m.tenantOf(record.platformId).idempotency
        const existing = map.get(record.key)
        if (existing !== undefined && existing.expiresAt > record.createdAt) return existing
        if (map.size > IDEMPOTENCY_SWEEP_AT) {
          for (const [key, r] of map) if (r.expiresAt <= record.createdAt) map.delete(key)
        }
        map.set(record.key, record)
        m.undo(() => void (existing === undefined ? map.delete(record.key) : map.set(record.key, existing)))
        return undefined
      })
  }
})
