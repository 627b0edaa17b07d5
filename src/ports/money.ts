/**
 * The money part of the Store port (see ./store.ts): internal accounts, the ledger,
 * quotes, transactions and the platform configuration.
 */
import type { Effect } from "effect"
import type { InternalAccountStatus, InternalAccountType } from "../domain/internal-account.js"
import type { PlatformConfigState } from "../domain/platform-config.js"
import type { QuoteAuthorizationState } from "../domain/sca.js"
import type { Quote, QuotePlan } from "../domain/quote.js"
import type { PaymentPlan, Transaction, TransactionStatus, TransactionType } from "../domain/transaction.js"
import type { LedgerRejected, RecordById, RecordList, StoreConflict, TimeRange } from "./shared.js"

export interface InternalAccountRecord {
  readonly platformId: string
  readonly id: string
  /** The owning customer, or null for the platform's own accounts. */
  readonly customerId: string | null
  readonly type: InternalAccountType
  readonly status: InternalAccountStatus
  /** One currency per account; at most one account per owner and currency (a unique index). */
  readonly currency: string
  /** EMBEDDED_WALLET: the wallet privacy setting (PATCH /internal-accounts/{id}). */
  readonly privateEnabled?: boolean
  readonly createdAt: string
  readonly updatedAt: string
}

export interface InternalAccountQuery {
  /** "customer": only customer-owned; "platform": only the platform's own. */
  readonly owner: "customer" | "platform"
  readonly customerId?: string | undefined
  readonly currency?: string | undefined
  readonly type?: InternalAccountType | undefined
}

export interface InternalAccountRepository extends RecordById<InternalAccountRecord>, RecordList<InternalAccountRecord, InternalAccountQuery> {
  /** The owner's account in a currency (owner null: the platform). */
  readonly findByOwnerCurrency: (platformId: string, customerId: string | null, currency: string) => Effect.Effect<InternalAccountRecord | undefined>
}

/**
 * One leg of a journal entry: `amount` minor units of `currency` added to (positive) or
 * taken from (negative) a ledger account's balance. Ledger accounts are internal
 * account ids (`InternalAccount:<uuid>`), whose balance can never go below zero, and
 * system accounts (`system:<name>:<currency>`: the outside world, money in flight,
 * conversion, revenue, suspense), which may.
 */
export interface Posting {
  readonly account: string
  readonly currency: string
  readonly amount: number
}

/** A set of postings that sum to zero in every currency, written at once. */
export interface JournalEntry {
  readonly platformId: string
  readonly id: string
  /** What moved the money: FUND, DEBIT, SETTLE, REFUND, PARK, RETURN, CREDIT, ... */
  readonly kind: string
  /** The transaction it belongs to, if any (a sandbox funding has none). */
  readonly transactionId?: string | undefined
  readonly at: string
  readonly postings: ReadonlyArray<Posting>
}

export interface LedgerBalance {
  readonly account: string
  readonly currency: string
  readonly balance: number
}

export interface LedgerRepository {
  /** Balances of the given ledger accounts (0 for an account with no postings). */
  readonly balances: (platformId: string, accounts: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, number>>
  /** Every ledger account of the platform with its balance (for audits). */
  readonly allBalances: (platformId: string) => Effect.Effect<ReadonlyArray<LedgerBalance>>
  /** The platform's journal entries in the order written (of one transaction, if given). */
  readonly entries: (platformId: string, options?: { readonly transactionId?: string }) => Effect.Effect<ReadonlyArray<JournalEntry>>
}

export interface QuoteRecord {
  readonly platformId: string
  readonly quote: Quote
  /** What execution needs beyond the response: who pays, who receives, by which rail. */
  readonly plan: QuotePlan
  /** The SCA challenge of an execution held in PENDING_AUTHORIZATION (docs/sca.md). */
  readonly authorization?: QuoteAuthorizationState | undefined
}

export interface QuoteRepository extends RecordById<QuoteRecord> {}

export interface TransactionRecord {
  readonly platformId: string
  readonly transaction: Transaction
  /** The money behind the payment: which ledger accounts it moves between, and where it stands. */
  readonly plan: PaymentPlan
}

export interface TransactionQuery {
  readonly customerId?: string | undefined
  readonly platformCustomerId?: string | undefined
  /** Sender or receiver account id. */
  readonly accountIdentifier?: string | undefined
  readonly senderAccountIdentifier?: string | undefined
  readonly receiverAccountIdentifier?: string | undefined
  readonly status?: TransactionStatus | undefined
  readonly type?: TransactionType | undefined
  /** The reconciliation reference. */
  readonly reference?: string | undefined
  readonly created?: TimeRange | undefined
}

export interface TransactionRepository extends RecordById<TransactionRecord>, RecordList<TransactionRecord, TransactionQuery> {
  /**
   * Sum of `sentAmount` of the outgoing payments created at or after `since` (epoch ms)
   * in `currency` by one customer (null: the platform's own), not counting failed or
   * expired ones. For the daily volume limit.
   */
  readonly sentVolume: (platformId: string, query: { readonly customerId: string | null; readonly currency: string; readonly since: number }) => Effect.Effect<number>
}

export interface PlatformConfigRecord {
  readonly platformId: string
  readonly config: PlatformConfigState
}

export interface PlatformConfigRepository {
  /** The stored configuration, or undefined before the first change (defaults apply). */
  readonly get: (platformId: string) => Effect.Effect<PlatformConfigRecord | undefined>
}

export interface MoneyWrites {
  readonly putInternalAccount: (record: InternalAccountRecord) => Effect.Effect<void, StoreConflict>
  /** Writes a journal entry and moves the balances it names, or refuses it whole. */
  readonly post: (entry: JournalEntry) => Effect.Effect<void, LedgerRejected>
  readonly putQuote: (record: QuoteRecord) => Effect.Effect<void>
  readonly putTransaction: (record: TransactionRecord) => Effect.Effect<void>
  readonly putPlatformConfig: (record: PlatformConfigRecord) => Effect.Effect<void>
}
