/**
 * The API tokens part of the SQL Store (migration `16_api_tokens`): one row per token,
 * keyed `(platform_id, id)`, its client id unique service-wide (the Basic scheme finds a
 * token by it alone), the record (secret hash included) as its JSON document.
 * ./store.ts wires it in.
 */
import { Effect } from "effect"
import type { TokenRecord, TokenWrites } from "../../ports/tokens.js"
import { millisOf } from "../cursor.js"
import { documentReads, type Query, type SqlArea, Where } from "./documents.js"

/** The unique index on client ids. Never a `StoreConflict`: client ids are random, so a violation is a defect. */
export const TOKEN_CLIENT_ID_INDEX = "api_tokens_client_id"

/** The tables of migration `16_api_tokens` that `resetPlatform` clears. */
export const TOKEN_TABLES: ReadonlyArray<string> = ["api_tokens"]

export type TokenStore = SqlArea<"tokens", TokenWrites>

export const makeTokenStore = (query: Query): TokenStore => {
  const { one, page, byId } = documentReads(query)
  return {
    tables: TOKEN_TABLES,
    writes: {
      putToken: (r: TokenRecord) =>
        Effect.asVoid(query(
          `insert into api_tokens (platform_id, id, client_id, created_ms, updated_ms, name, doc)
           values ($1, $2, $3, $4::bigint, $5::bigint, $6, $7::jsonb)
           on conflict (platform_id, id) do update set updated_ms = excluded.updated_ms, name = excluded.name, doc = excluded.doc`,
          [r.platformId, r.token.id, r.token.clientId, millisOf(r.token.createdAt), millisOf(r.token.updatedAt), r.token.name, JSON.stringify(r)]
        )),
      deleteToken: (platformId, id) =>
        Effect.map(
          query<{ id: string }>(`delete from api_tokens where platform_id = $1 and id = $2 returning id`, [platformId, id]),
          (rows) => rows.length > 0
        )
    },
    repositories: {
      tokens: {
        get: byId<TokenRecord>("api_tokens"),
        byClientId: (clientId) => one<TokenRecord>(`select doc::text as doc from api_tokens where client_id = $1`, [clientId]),
        list: (platformId, q, p) => {
          const w = Where.platform(platformId)
          w.eq("name", q.name)
          w.within("created_ms", q.created)
          w.within("updated_ms", q.updated)
          return page<TokenRecord>("api_tokens", w, p, (r) => ({ createdAt: millisOf(r.token.createdAt), id: r.token.id }))
        }
      }
    }
  }
}
