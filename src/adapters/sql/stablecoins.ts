/**
 * The stablecoin part of the SQL Store (migration `9_stablecoins`): provider account
 * links, stablecoins and issuer operations, one row each with real columns for what is
 * queried or unique and the record as its JSON document. The unique indexes
 * (`stablecoin_provider_accounts_account`, `stablecoins_symbol`,
 * `stablecoins_token_identifier`) surface as `StoreConflict`s, so two racing
 * registrations cannot both win. Built from the same statement helpers as the rest of
 * the store (./store.ts wires it in).
 */
import { Effect } from "effect"
import type {
  StablecoinOperationRecord,
  StablecoinProviderAccountRecord,
  StablecoinRecord,
  StoreConflict,
  UnitOfWork
} from "../../ports/store.js"
import { millisOf } from "../cursor.js"
import { documentReads, type Query, Where, type SqlArea, type Write } from "./documents.js"

/** The tables of migration `9_stablecoins` that `resetPlatform` clears. */
export const STABLECOIN_TABLES: ReadonlyArray<string> = ["stablecoin_operations", "stablecoins", "stablecoin_provider_accounts"]

export type StablecoinStore = SqlArea<"stablecoins", Pick<UnitOfWork, "putStablecoinProviderAccount" | "putStablecoin" | "putStablecoinOperation">>

export const makeStablecoinStore = (query: Query, write: Write): StablecoinStore => {
  const { byId, one, page } = documentReads(query)

  const putStablecoinProviderAccount = (r: StablecoinProviderAccountRecord): Effect.Effect<void, StoreConflict> =>
    write(
      `insert into stablecoin_provider_accounts (platform_id, id, created_ms, provider, provider_account_id, status, doc)
       values ($1, $2, $3::bigint, $4, $5, $6, $7::jsonb)
       on conflict (platform_id, id) do update set provider = excluded.provider,
         provider_account_id = excluded.provider_account_id, status = excluded.status, doc = excluded.doc`,
      [r.platformId, r.account.id, millisOf(r.account.createdAt), r.account.provider, r.account.providerAccountId, r.account.status, JSON.stringify(r)]
    )

  const putStablecoin = (r: StablecoinRecord): Effect.Effect<void, StoreConflict> =>
    write(
      `insert into stablecoins (platform_id, id, created_ms, symbol, network, network_token_identifier, issuance_status, grid_operations_status, provider, doc)
       values ($1, $2, $3::bigint, $4, $5, $6, $7, $8, $9, $10::jsonb)
       on conflict (platform_id, id) do update set symbol = excluded.symbol, network = excluded.network,
         network_token_identifier = excluded.network_token_identifier, issuance_status = excluded.issuance_status,
         grid_operations_status = excluded.grid_operations_status, provider = excluded.provider, doc = excluded.doc`,
      [
        r.platformId,
        r.stablecoin.id,
        millisOf(r.stablecoin.createdAt),
        r.stablecoin.symbol,
        r.stablecoin.network,
        r.stablecoin.networkTokenIdentifier,
        r.stablecoin.issuanceStatus,
        r.stablecoin.gridOperationsStatus,
        r.stablecoin.provider,
        JSON.stringify(r)
      ]
    )

  const putStablecoinOperation = (r: StablecoinOperationRecord): Effect.Effect<void> =>
    Effect.asVoid(query(
      `insert into stablecoin_operations (platform_id, id, created_ms, stablecoin_id, operation_type, status, doc)
       values ($1, $2, $3::bigint, $4, $5, $6, $7::jsonb)
       on conflict (platform_id, id) do update set status = excluded.status, doc = excluded.doc`,
      [r.platformId, r.operation.id, millisOf(r.operation.createdAt), r.operation.stablecoinId, r.operation.operationType, r.operation.status, JSON.stringify(r)]
    ))

  return {
    writes: { putStablecoinProviderAccount, putStablecoin, putStablecoinOperation },
    tables: STABLECOIN_TABLES,
    repositories: { stablecoins: {
      getProviderAccount: byId<StablecoinProviderAccountRecord>("stablecoin_provider_accounts"),
      findProviderAccount: (platformId, provider, providerAccountId) =>
        one<StablecoinProviderAccountRecord>(
          `select doc::text as doc from stablecoin_provider_accounts where platform_id = $1 and provider = $2 and provider_account_id = $3`,
          [platformId, provider, providerAccountId]
        ),
      listProviderAccounts: (platformId, q, p) => {
        const w = Where.platform(platformId).eq("provider", q.provider).eq("status", q.status)
        return page<StablecoinProviderAccountRecord>("stablecoin_provider_accounts", w, p, (r) => ({ createdAt: millisOf(r.account.createdAt), id: r.account.id }))
      },
      get: byId<StablecoinRecord>("stablecoins"),
      findBySymbol: (platformId, symbol) =>
        one<StablecoinRecord>(`select doc::text as doc from stablecoins where platform_id = $1 and symbol = $2`, [platformId, symbol]),
      findByTokenIdentifier: (platformId, network, tokenIdentifier) =>
        one<StablecoinRecord>(
          `select doc::text as doc from stablecoins where platform_id = $1 and network = $2 and network_token_identifier = $3`,
          [platformId, network, tokenIdentifier]
        ),
      list: (platformId, q, p) => {
        const w = Where.platform(platformId).eq("issuance_status", q.issuanceStatus).eq("grid_operations_status", q.gridOperationsStatus)
          .eq("provider", q.provider)
        return page<StablecoinRecord>("stablecoins", w, p, (r) => ({ createdAt: millisOf(r.stablecoin.createdAt), id: r.stablecoin.id }))
      },
      getOperation: byId<StablecoinOperationRecord>("stablecoin_operations"),
      listOperations: (platformId, q, p) => {
        const w = Where.platform(platformId).add((x) => `stablecoin_id = ${x}`, q.stablecoinId)
        w.eq("operation_type", q.operationType)
        return page<StablecoinOperationRecord>("stablecoin_operations", w, p, (r) => ({ createdAt: millisOf(r.operation.createdAt), id: r.operation.id }))
      }
    } }
  }
}
