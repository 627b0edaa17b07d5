/** The stablecoins part of the Store port (see ./store.ts): provider account links, stablecoins, issuer operations. */
import type { Effect } from "effect"
import type {
  Stablecoin,
  StablecoinGridOperationsStatus,
  StablecoinIssuanceStatus,
  StablecoinOperation,
  StablecoinOperationType,
  StablecoinProvider,
  StablecoinProviderAccount,
  StablecoinProviderAccountStatus
} from "../domain/stablecoin.js"
import type { InvalidCursor, Page, PageResult, RecordById, RecordList, StoreConflict } from "./shared.js"

/** A provider account link; the API secret is kept only as its SHA-256 fingerprint. */
export interface StablecoinProviderAccountRecord {
  readonly platformId: string
  readonly account: StablecoinProviderAccount
  readonly apiClientId: string
  readonly apiClientSecretSha256: string
}

/** A registered stablecoin and what the simulated provider and operator will do with it. */
export interface StablecoinRecord {
  readonly platformId: string
  readonly stablecoin: Stablecoin
  readonly issuanceOutcome: "PROVISIONED" | "REJECTED" | "FAILED"
  readonly enablementDeclined: boolean
}

/** An issuer operation: the row as the API shows it and the money behind it. */
export interface StablecoinOperationRecord {
  readonly platformId: string
  readonly operation: StablecoinOperation
  /** A mint funded from a Grid internal account: the fiat debited (minor units) into the in-flight account. */
  readonly ledger?: { readonly account: string; readonly currency: string; readonly amount: number } | undefined
  /** The simulated provider's moves still to come, in time order (the next one is scheduled). */
  readonly pending: ReadonlyArray<{ readonly at: number; readonly event: string }>
}

export interface StablecoinQuery {
  readonly issuanceStatus?: StablecoinIssuanceStatus | undefined
  readonly gridOperationsStatus?: StablecoinGridOperationsStatus | undefined
  readonly provider?: StablecoinProvider | undefined
}

export interface StablecoinProviderAccountQuery {
  readonly provider?: StablecoinProvider | undefined
  readonly status?: StablecoinProviderAccountStatus | undefined
}

/** `list`: Oldest first (keyset on `(createdAt, id)`). */
export interface StablecoinRepository extends RecordById<StablecoinRecord>, RecordList<StablecoinRecord, StablecoinQuery> {
  readonly getProviderAccount: (platformId: string, id: string) => Effect.Effect<StablecoinProviderAccountRecord | undefined>
  /** The link to this provider account (unique per platform and provider). */
  readonly findProviderAccount: (platformId: string, provider: StablecoinProvider, providerAccountId: string) => Effect.Effect<StablecoinProviderAccountRecord | undefined>
  /** Oldest first (keyset on `(createdAt, id)`). */
  readonly listProviderAccounts: (platformId: string, query: StablecoinProviderAccountQuery, page: Page) => Effect.Effect<PageResult<StablecoinProviderAccountRecord>, InvalidCursor>
  /** The stablecoin with this symbol (unique per platform). */
  readonly findBySymbol: (platformId: string, symbol: string) => Effect.Effect<StablecoinRecord | undefined>
  /** The stablecoin with this network token identifier (unique per platform and network). */
  readonly findByTokenIdentifier: (platformId: string, network: string, networkTokenIdentifier: string) => Effect.Effect<StablecoinRecord | undefined>
  readonly getOperation: (platformId: string, id: string) => Effect.Effect<StablecoinOperationRecord | undefined>
  /** One stablecoin's operations; newest first when `page.descending`. */
  readonly listOperations: (
    platformId: string,
    query: { readonly stablecoinId: string; readonly operationType?: StablecoinOperationType | undefined },
    page: Page
  ) => Effect.Effect<PageResult<StablecoinOperationRecord>, InvalidCursor>
}

export interface StablecoinWrites {
  /** Writes a provider account link; another link to the same provider account is a `StoreConflict`. */
  readonly putStablecoinProviderAccount: (record: StablecoinProviderAccountRecord) => Effect.Effect<void, StoreConflict>
  /** Writes a stablecoin; a symbol or network token identifier another stablecoin holds is a `StoreConflict`. */
  readonly putStablecoin: (record: StablecoinRecord) => Effect.Effect<void, StoreConflict>
  readonly putStablecoinOperation: (record: StablecoinOperationRecord) => Effect.Effect<void>
}
