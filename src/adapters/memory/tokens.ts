/** API tokens, in memory (see ./store.ts): per platform by id, found by client id across platforms. */
import { Effect } from "effect"
import type { TokenQuery, TokenRecord, TokenWrites } from "../../ports/tokens.js"
import { millisOf } from "../cursor.js"
import { entityTable, inRange, is, type MemoryArea, type MemoryContext } from "./context.js"

export const tokenTables = () => ({
  apiTokens: entityTable<TokenRecord>((r) => r.token, { groups: [{ name: "clientId", key: (r) => r.token.clientId }] })
}) as const

export type TokenTables = ReturnType<typeof tokenTables>

const matchesToken = (q: TokenQuery) => (r: TokenRecord): boolean =>
  is(q.name, r.token.name) &&
  inRange(millisOf(r.token.createdAt), q.created) &&
  inRange(millisOf(r.token.updatedAt), q.updated)

export const makeTokenArea = (m: MemoryContext<TokenTables>): MemoryArea<"tokens", TokenWrites> => ({
  repositories: {
    tokens: {
      get: (platformId, id) => m.read(() => m.peek(platformId)?.apiTokens.get(id)),
      byClientId: (clientId) =>
        m.read(() => {
          for (const t of m.tenants()) {
            const found = t.apiTokens.byGroup("clientId", clientId)[0]
            if (found !== undefined) return found
          }
          return undefined
        }),
      list: (platformId, query, page) => m.readPage(() => m.tenantOf(platformId).apiTokens.page(matchesToken(query), page, false))
    }
  },
  writes: {
    putToken: (r) => Effect.orDie(m.putRow(m.tenantOf(r.platformId).apiTokens, r.token.id, r)),
    deleteToken: (platformId, id) =>
      Effect.suspend(() => {
        const t = m.peek(platformId)
        if (t === undefined || t.apiTokens.get(id) === undefined) return Effect.succeed(false)
        return Effect.as(m.removeRow(t.apiTokens, id), true)
      })
  }
})
