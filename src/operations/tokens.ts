/**
 * API tokens (docs/tokens.md): POST/GET /tokens, GET/DELETE /tokens/{tokenId}, and the
 * check the HTTP Basic scheme makes of a token's credentials.
 *
 * A token's client id is 128 random bits (hex), its secret 256 random bits (hex) from the
 * operating system's CSPRNG. Only the SHA-256 of the secret is stored: with a secret of
 * 256 random bits a slow KDF adds nothing (docs/decisions.md); the stored and presented
 * hashes are compared in constant time.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto"
import { Effect } from "effect"
import { forbidden } from "../domain/errors.js"
import type { Platform } from "../domain/platform.js"
import { type ApiToken, type ApiTokenCreateRequest, type Permission, permits } from "../domain/token.js"
import { Ids } from "../ports/ids.js"
import { Platforms } from "../ports/platforms.js"
import { Store, type TokenRecord } from "../ports/store.js"
import { type ChangedWindowQuery, changedWindowsOf, type PageQuery, pageRequestOf, shownPageOf } from "./paging.js"
import { isoOf, nowMillis } from "./time.js"
import { missing } from "./not-found.js"

const hashOf = (secret: string): Buffer => createHash("sha256").update(secret, "utf8").digest()

const tokenNotFound = (id: string) => missing("token", `API token ${id} not found`)

/** The permissions in the reference's order, each once. */
const distinct = (ps: ReadonlyArray<Permission>): ReadonlyArray<Permission> =>
  (["VIEW", "TRANSACT", "MANAGE"] as const).filter((p) => ps.includes(p))

/**
 * POST /tokens: the only answer that carries `clientSecret`. `grantable` is what the
 * caller may grant: what a token's own permissions cover (VIEW always; no escalation:
 * 403 FORBIDDEN beyond them),
 * undefined for the platforms file's credentials (anything).
 */
export const createToken = Effect.fnUntraced(function*(
  platform: Platform,
  req: ApiTokenCreateRequest,
  grantable?: ReadonlyArray<Permission>
) {
  const beyond = grantable === undefined ? [] : distinct(req.permissions).filter((p) => !permits(grantable, p))
  if (beyond.length > 0) {
    return yield* forbidden(`Insufficient permissions: a token can grant only permissions it holds (not ${beyond.join(", ")})`)
  }
  const store = yield* Store
  const ids = yield* Ids
  const at = isoOf(yield* nowMillis)
  const clientSecret = randomBytes(32).toString("hex")
  const token: ApiToken = {
    id: yield* ids.make("Token"),
    name: req.name,
    permissions: distinct(req.permissions),
    clientId: randomBytes(16).toString("hex"),
    createdAt: at,
    updatedAt: at
  }
  yield* store.transact((uow) => uow.putToken({ platformId: platform.id, token, secretHash: hashOf(clientSecret).toString("hex") }))
  return { ...token, clientSecret } satisfies ApiToken
})

export interface TokenListQuery extends ChangedWindowQuery, PageQuery {
  readonly name?: string | undefined
}

/** GET /tokens: oldest first, keyset paged; never a secret. */
export const listTokens = Effect.fnUntraced(function*(platform: Platform, q: TokenListQuery) {
  const store = yield* Store
  return yield* shownPageOf(store.tokens.list(platform.id, {
    name: q.name,
    ...(yield* changedWindowsOf(q))
  }, pageRequestOf(q)), (r) => r.token)
})

/** GET /tokens/{tokenId}. */
export const getToken = Effect.fnUntraced(function*(platform: Platform, id: string) {
  const store = yield* Store
  const found = yield* store.tokens.get(platform.id, id)
  if (found === undefined) return yield* tokenNotFound(id)
  return found.token
})

/** DELETE /tokens/{tokenId}: revoked at once; the next request with it is refused in every process (no cache holds tokens). */
export const deleteToken = Effect.fnUntraced(function*(platform: Platform, id: string) {
  const store = yield* Store
  const deleted = yield* store.transact((uow) => uow.deleteToken(platform.id, id))
  if (!deleted) return yield* tokenNotFound(id)
})

/** A token's credentials as the Basic scheme checks them. */
export type TokenCheck =
  | { readonly _tag: "Unknown" }
  | { readonly _tag: "WrongSecret" }
  | { readonly _tag: "Valid"; readonly platform: Platform; readonly permissions: ReadonlyArray<Permission> }

/** Checks a client id and secret against the stored tokens (read from the store on every call). */
export const checkTokenCredentials = (clientId: string, secret: string): Effect.Effect<TokenCheck, never, Store | Platforms> =>
  Effect.gen(function*() {
    const store = yield* Store
    const record: TokenRecord | undefined = yield* store.tokens.byClientId(clientId)
    const presented = hashOf(secret)
    if (record === undefined) {
      // The same work as a real comparison, so unknown ids are not faster.
      timingSafeEqual(presented, presented)
      return { _tag: "Unknown" } as const
    }
    const stored = Buffer.from(record.secretHash, "hex")
    if (stored.length !== presented.length || !timingSafeEqual(stored, presented)) return { _tag: "WrongSecret" } as const
    const platforms = yield* Platforms
    const platform = (yield* platforms.all).find((p) => p.id === record.platformId)
    return platform === undefined ? { _tag: "Unknown" } as const : { _tag: "Valid", platform, permissions: record.token.permissions } as const
  })
