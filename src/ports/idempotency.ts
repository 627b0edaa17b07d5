/** The idempotency keys part of the Store port (see ./store.ts). */
import type { Effect } from "effect"

export interface IdempotencyRecord {
  readonly platformId: string
  readonly key: string
  /** The operation the key was first used for, e.g. `POST /customers`. */
  readonly operation: string
  /** SHA-256 (hex) of the canonical request. */
  readonly requestHash: string
  /** The first result, as the operation returned it, in its JSON form. */
  readonly body: unknown
  readonly createdAt: number
  readonly expiresAt: number
}

export interface IdempotencyRepository {
  /** The live record for a key (expired records are treated as absent). */
  readonly get: (platformId: string, key: string, now: number) => Effect.Effect<IdempotencyRecord | undefined>
}

export interface IdempotencyWrites {
  /**
   * Stores an idempotency record. If a live record for the key exists (a concurrent
   * unit of work won), returns it instead and stores nothing.
   */
  readonly putIdempotency: (record: IdempotencyRecord) => Effect.Effect<IdempotencyRecord | undefined>
}
