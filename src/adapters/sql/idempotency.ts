/** The idempotency keys part of the SQL Store (migration `1_initial`). ./store.ts wires it in. */
import { Effect } from "effect"
import type { IdempotencyRecord, IdempotencyWrites } from "../../ports/idempotency.js"
import type { Query, SqlArea } from "./documents.js"

interface IdempotencyRow {
  readonly operation: string
  readonly request_hash: string
  readonly body: string
  readonly created_ms: number
  readonly expires_ms: number
}

export const makeIdempotencyStore = (query: Query): SqlArea<"idempotency", IdempotencyWrites> => {
  const get = (platformId: string, key: string, now: number): Effect.Effect<IdempotencyRecord | undefined> =>
    Effect.map(
      query<IdempotencyRow>(
        `select operation, request_hash, body::text as body, created_ms::float8 as created_ms, expires_ms::float8 as expires_ms
         from idempotency_keys where platform_id = $1 and key = $2 and expires_ms > $3::bigint`,
        [platformId, key, now]
      ),
      (rows) => {
        const row = rows[0]
        return row === undefined ? undefined : {
          platformId,
          key,
          operation: row.operation,
          requestHash: row.request_hash,
          body: JSON.parse(row.body),
          createdAt: row.created_ms,
          expiresAt: row.expires_ms
        }
      }
    )
  return {
    tables: ["idempotency_keys"],
    writes: {
      putIdempotency: (r) =>
        Effect.gen(function*() {
          const stored = yield* query(
            `insert into idempotency_keys (platform_id, key, operation, request_hash, body, created_ms, expires_ms)
             values ($1, $2, $3, $4, $5::jsonb, $6::bigint, $7::bigint)
             on conflict (platform_id, key) do update set operation = excluded.operation, request_hash = excluded.request_hash,
               body = excluded.body, created_ms = excluded.created_ms, expires_ms = excluded.expires_ms
             where idempotency_keys.expires_ms <= excluded.created_ms
             returning key`,
            [r.platformId, r.key, r.operation, r.requestHash, JSON.stringify(r.body ?? null), r.createdAt, r.expiresAt]
          )
          if (stored.length > 0) return undefined
          return yield* get(r.platformId, r.key, r.createdAt)
        })
    },
    repositories: { idempotency: { get } }
  }
}
