/**
 * What every part of the Store port shares: the errors a unit of work can end with,
 * the unique constraints the store enforces (named once, here), and paging.
 * It imports nothing of the other port modules, so none of them forms a cycle.
 */
import { Data, type Effect } from "effect"

// ---------------------------------------------------------------- unique constraints

/**
 * The unique constraints the store enforces, by name: the SQL unique index names
 * (src/adapters/sql/migrations.ts creates them from these constants), the memory
 * tables' unique keys, and what a `StoreConflict` names. Declared once, here.
 */
export const UniqueConstraints = {
  customersActivePlatformCustomerId: "customers_active_platform_customer_id",
  customersActiveUmaAddress: "customers_active_uma_address",
  externalAccountsEquivalence: "external_accounts_equivalence",
  externalAccountsDefaultUma: "external_accounts_default_uma",
  documentsHolderType: "documents_holder_type",
  internalAccountsOwnerCurrency: "internal_accounts_owner_currency",
  cardsPlatformCardId: "cards_platform_card_id",
  stablecoinProviderAccountsAccount: "stablecoin_provider_accounts_account",
  stablecoinsSymbol: "stablecoins_symbol",
  stablecoinsTokenIdentifier: "stablecoins_token_identifier"
} as const

/** The unique constraints the store enforces, by name (the SQL index names). */
export type UniqueConstraint = typeof UniqueConstraints[keyof typeof UniqueConstraints]

const uniqueConstraintNames: ReadonlySet<string> = new Set(Object.values(UniqueConstraints))

/** Whether `name` (e.g. the index a database reports as violated) is one of the store's unique constraints. */
export const isUniqueConstraint = (name: string): name is UniqueConstraint => uniqueConstraintNames.has(name)

// ---------------------------------------------------------------- errors

/**
 * A write would break a unique constraint: another record already holds the key.
 * It ends the unit of work (level) it happened in, as a unique violation aborts a SQL
 * transaction: catch it outside the `transact` (or nested `transact`) that raised it.
 * A unit of work that swallows one and succeeds is a bug: the store dies rather than
 * commit it.
 */
export class StoreConflict extends Data.TaggedError("StoreConflict")<{
  readonly constraint: UniqueConstraint
}> {}

/** A cursor this store did not issue. */
export class InvalidCursor extends Data.TaggedError("InvalidCursor")<{
  readonly cursor: string
}> {}

/**
 * The store refused a journal entry: it does not sum to zero per currency, it would take
 * an internal account below zero, or a balance would leave the exact integer range. It
 * ends the unit of work (level) it happened in, like a `StoreConflict`. Operations check
 * balances first (inside the same serializable unit of work), so this is the backstop.
 */
export class LedgerRejected extends Data.TaggedError("LedgerRejected")<{
  readonly reason: "UNBALANCED" | "INSUFFICIENT_BALANCE" | "OUT_OF_RANGE"
  readonly account?: string | undefined
}> {}

// ---------------------------------------------------------------- paging

export interface Page {
  readonly limit: number
  readonly cursor?: string | undefined
  /** Newest first (only lists that offer `sortOrder` use it; default oldest first). */
  readonly descending?: boolean | undefined
}

/**
 * The most rows a list counts for its `totalCount`: a list that matches more answers
 * without one (the API makes it optional), so a page costs the same however many rows
 * match (docs/decisions.md, "totalCount on large lists"). Every store applies it.
 */
export const TOTAL_COUNT_LIMIT = 1000

/** `{ totalCount }` when known (at most `TOTAL_COUNT_LIMIT`), else nothing: spread into a page. */
export const totalCountOf = (count: number | undefined): { readonly totalCount?: number } =>
  count === undefined || count > TOTAL_COUNT_LIMIT ? {} : { totalCount: count }

export interface PageResult<R> {
  readonly data: ReadonlyArray<R>
  readonly hasMore: boolean
  readonly nextCursor?: string
  /** How many rows match in all, when at most `TOTAL_COUNT_LIMIT`; absent above. */
  readonly totalCount?: number
}

/** An inclusive range of instants in epoch milliseconds; either end may be open. */
export interface TimeRange {
  readonly from?: number | undefined
  readonly to?: number | undefined
}

/** A repository's read of one of the platform's records by id. */
export interface RecordById<R> {
  readonly get: (platformId: string, id: string) => Effect.Effect<R | undefined>
}

/** A repository's list: one keyset page of the platform's records that match `query`, and their total. */
export interface RecordList<R, Q> {
  readonly list: (platformId: string, query: Q, page: Page) => Effect.Effect<PageResult<R>, InvalidCursor>
}
