/** Stablecoin provider account links, stablecoins and issuer operations, in memory (see ./store.ts). */
import { Effect } from "effect"
import { UniqueConstraints } from "../../ports/shared.js"
import type {
  StablecoinOperationRecord,
  StablecoinProviderAccountQuery,
  StablecoinProviderAccountRecord,
  StablecoinQuery,
  StablecoinRecord,
  StablecoinWrites
} from "../../ports/stablecoins.js"
import { entityTable, is, keyOf, type MemoryArea, type MemoryContext, noFilter } from "./context.js"

/** The area's tables of one platform. */
export const stablecoinTables = () => ({
  stablecoinProviderAccounts: entityTable<StablecoinProviderAccountRecord>((r) => r.account, {
    unique: [{ name: UniqueConstraints.stablecoinProviderAccountsAccount, key: (r) => keyOf(r.account.provider, r.account.providerAccountId) }]
  }),
  stablecoins: entityTable<StablecoinRecord>((r) => r.stablecoin, {
    unique: [
      { name: UniqueConstraints.stablecoinsTokenIdentifier, key: (r) => keyOf(r.stablecoin.network, r.stablecoin.networkTokenIdentifier) },
      { name: UniqueConstraints.stablecoinsSymbol, key: (r) => r.stablecoin.symbol }
    ]
  }),
  stablecoinOperations: entityTable<StablecoinOperationRecord>((r) => r.operation, {
    groups: [{ name: "stablecoin", key: (r) => r.operation.stablecoinId }]
  })
}) as const

export type StablecoinTables = ReturnType<typeof stablecoinTables>

const matchesStablecoin = (q: StablecoinQuery) => (r: StablecoinRecord): boolean =>
  is(q.issuanceStatus, r.stablecoin.issuanceStatus) &&
  is(q.gridOperationsStatus, r.stablecoin.gridOperationsStatus) &&
  is(q.provider, r.stablecoin.provider)

const matchesProviderAccount = (q: StablecoinProviderAccountQuery) => (r: StablecoinProviderAccountRecord): boolean =>
  is(q.provider, r.account.provider) && is(q.status, r.account.status)

export const makeStablecoinArea = (m: MemoryContext<StablecoinTables>): MemoryArea<"stablecoins", StablecoinWrites> => ({
  repositories: {
    stablecoins: {
      getProviderAccount: (platformId, id) => m.read(() => m.peek(platformId)?.stablecoinProviderAccounts.get(id)),
      findProviderAccount: (platformId, provider, providerAccountId) =>
        m.read(() =>
          m.peek(platformId)?.stablecoinProviderAccounts.byUnique(UniqueConstraints.stablecoinProviderAccountsAccount, keyOf(provider, providerAccountId))
        ),
      listProviderAccounts: (platformId, query, page) =>
        m.readPage(() => m.tenantOf(platformId).stablecoinProviderAccounts.page(matchesProviderAccount(query), page, noFilter(query))),
      get: (platformId, id) => m.read(() => m.peek(platformId)?.stablecoins.get(id)),
      findBySymbol: (platformId, symbol) => m.read(() => m.peek(platformId)?.stablecoins.byUnique(UniqueConstraints.stablecoinsSymbol, symbol)),
      findByTokenIdentifier: (platformId, network, tokenIdentifier) =>
        m.read(() => m.peek(platformId)?.stablecoins.byUnique(UniqueConstraints.stablecoinsTokenIdentifier, keyOf(network, tokenIdentifier))),
      list: (platformId, query, page) => m.readPage(() => m.tenantOf(platformId).stablecoins.page(matchesStablecoin(query), page, noFilter(query))),
      getOperation: (platformId, id) => m.read(() => m.peek(platformId)?.stablecoinOperations.get(id)),
      listOperations: (platformId, query, page) =>
        m.readPage(() =>
          m.tenantOf(platformId).stablecoinOperations.page(
            (r) => r.operation.stablecoinId === query.stablecoinId && is(query.operationType, r.operation.operationType),
            page,
            false
          )
        )
    }
  },
  writes: {
    putStablecoinProviderAccount: (r) => m.putRow(m.tenantOf(r.platformId).stablecoinProviderAccounts, r.account.id, r),
    putStablecoin: (r) => m.putRow(m.tenantOf(r.platformId).stablecoins, r.stablecoin.id, r),
    putStablecoinOperation: (r) => Effect.orDie(m.putRow(m.tenantOf(r.platformId).stablecoinOperations, r.operation.id, r))
  }
})
