/**
 * Idempotency, at the operation level (HTTP only passes the key along).
 *
 * `idempotent(platform, request, effect)` runs `effect` (an operation, which opens its
 * own unit of work) inside one unit of work that also looks the key up and stores the
 * key, a hash of the request and the operation's result. So:
 * - same key, same request: the first result again, and the operation does not run
 *   a second time (two racing requests included: the store serializes them, and on
 *   PostgreSQL the loser's unit of work is rerun and then finds the winner's record);
 * - same key, another request (other operation or other body): 409 CONFLICT naming
 *   the key, and nothing runs;
 * - a failed operation stores nothing (its unit of work rolls back), so retrying the
 *   same key after a failure runs it again.
 * Keys are per platform and live `IDEMPOTENCY_TTL_MILLIS` on the platform's clock.
 */
import { sha256 } from "@noble/hashes/sha2.js"
import { bytesToHex } from "@noble/hashes/utils.js"
import { Effect, Schema } from "effect"
import { conflict, type Error409 } from "../domain/errors.js"
import type { Platform } from "../domain/platform.js"
import { Store } from "../ports/store.js"
import { nowMillis } from "./time.js"
import { IDEMPOTENCY_TTL_MILLIS } from "../domain/limits.js"
export { IDEMPOTENCY_TTL_MILLIS, MAX_IDEMPOTENCY_KEY_LENGTH } from "../domain/limits.js"

/** JSON with object keys sorted, so two equal requests hash alike whatever their key order. */
export const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`
  }
  return JSON.stringify(value) ?? "null"
}

export const requestHashOf = (operation: string, request: unknown): string =>
  bytesToHex(sha256(new TextEncoder().encode(`${operation}\n${canonicalJson(request)}`)))

export interface IdempotentRequest<A, I> {
  /** The `Idempotency-Key` header; without one the operation simply runs. */
  readonly key: string | undefined
  /** What the key is used for, e.g. `POST /customers`: a key is bound to one operation. */
  readonly operation: string
  /** The decoded request (body and path parameters) the key is bound to. */
  readonly request: unknown
  /** The result's schema: how the first result is stored and replayed. */
  readonly result: Schema.Codec<A, I>
}

const keyReused = (key: string, operation: string): Error409 =>
  conflict(
    "CONFLICT",
    `Idempotency-Key ${JSON.stringify(key)} was already used with a different request (${operation}); use a new key for a new request`,
    { details: { idempotencyKey: key } }
  )

export const idempotent = <A, I, E, R>(
  platform: Platform,
  request: IdempotentRequest<A, I>,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | Error409, R | Store> => {
  const key = request.key
  if (key === undefined) return effect
  const encode = Schema.encodeEffect(request.result)
  const decode = Schema.decodeUnknownEffect(request.result)
  const hashOf = requestHashOf(request.operation, request.request)
  const replay = (record: { readonly requestHash: string; readonly body: unknown }) =>
    record.requestHash === hashOf ? Effect.orDie(decode(record.body)) : Effect.fail(keyReused(key, request.operation))
  return Effect.flatMap(Effect.service(Store), (store) =>
    store.transact((uow) =>
      Effect.gen(function*() {
        const now = yield* nowMillis
        const existing = yield* store.idempotency.get(platform.id, key, now)
        if (existing !== undefined) return yield* replay(existing)
        const result = yield* effect
        const body = yield* Effect.orDie(encode(result))
        const winner = yield* uow.putIdempotency({
          platformId: platform.id,
          key,
          operation: request.operation,
          requestHash: hashOf,
          body,
          createdAt: now,
          expiresAt: now + IDEMPOTENCY_TTL_MILLIS
        })
        // Only reachable if a concurrent unit of work stored the key first and this one
        // still committed; the store's isolation rules that out, so this is a defect.
        if (winner !== undefined) return yield* Effect.die(new Error(`Idempotency-Key ${key} was stored twice`))
        return result
      })
    ).pipe(
      // The operation failed: if a racing request with this key won meanwhile (its
      // insert made this one's fail), answer as it did; otherwise the failure stands.
      Effect.catch((error) =>
        Effect.flatMap(nowMillis, (now) =>
          Effect.flatMap(store.idempotency.get(platform.id, key, now), (existing) =>
            existing === undefined ? Effect.fail(error) : replay(existing)))
      )
    )
  )
}

