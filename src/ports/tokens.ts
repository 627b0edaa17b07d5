/**
 * The API tokens part of the Store port (see ./store.ts, docs/tokens.md): platform
 * credentials with permissions. A token is found by its client id alone (HTTP Basic
 * names no platform), so client ids are unique service-wide; each record still belongs
 * to the platform that created it. Only the SHA-256 of the secret is stored.
 */
import type { Effect } from "effect"
import type { ApiToken } from "../domain/token.js"
import type { InvalidCursor, Page, PageResult, RecordById, TimeRange } from "./shared.js"

export interface TokenRecord {
  readonly platformId: string
  /** The token as answered, without its secret. */
  readonly token: ApiToken
  /** Hex SHA-256 of the client secret. */
  readonly secretHash: string
}

export interface TokenQuery {
  readonly name?: string | undefined
  readonly created?: TimeRange | undefined
  readonly updated?: TimeRange | undefined
}

export interface TokenRepository extends RecordById<TokenRecord> {
  /** The token with this client id, whichever platform created it (the Basic scheme's lookup). */
  readonly byClientId: (clientId: string) => Effect.Effect<TokenRecord | undefined>
  readonly list: (platformId: string, query: TokenQuery, page: Page) => Effect.Effect<PageResult<TokenRecord>, InvalidCursor>
}

export interface TokenWrites {
  readonly putToken: (record: TokenRecord) => Effect.Effect<void>
  /** Removes the platform's token; whether there was one. */
  readonly deleteToken: (platformId: string, id: string) => Effect.Effect<boolean>
}
