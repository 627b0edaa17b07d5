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
import type { InvalidCursor, LedgerRejected, Page, PageResult, RecordById, RecordList, StoreConflict, TimeRange } from "./shared.js"

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
  /**
   * Up to `limit` journal entries in the order written, after the position `after` (a
   * `next` of an earlier page; from the start without it): a bounded read of the journal
   * for audits. `next` is set when more entries follow.
   */
  readonly journalPage: (
    platformId: string,
    options: { readonly after?: string | undefined; readonly limit: number }
  ) => Effect.Effect<JournalPage, InvalidCursor>
  /**
   * The journal of one internal account: each entry that posts to it, with the account's
   * net amount in that entry, in the order written (`descending`: newest first), paged
   * by an opaque cursor like every list.
   */
  readonly accountJournal: (platformId: string, account: string, page: Page) => Effect.Effect<PageResult<AccountPosting>, InvalidCursor>
}

/** A page of the journal (`LedgerRepository.journalPage`). */
export interface JournalPage {
  readonly entries: ReadonlyArray<JournalEntry>
  /** The position to read on from, when more entries follow. */
  readonly next?: string | undefined
}

/** One line of an internal account's journal: the entry and what it did to the account. */
export interface AccountPosting {
  readonly entry: JournalEntry
  /** The account's net amount in the entry (an account may appear in several postings of one entry). */
  readonly amount: number
  readonly currency: string
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

/**
 * What a payment's unit of work is about to read, named up front so a store can read it
 * in one round trip (`PaymentReadsRepository.readAhead`):
 * - `quote`: a quote's execution: the quote, and what its plan names: its customer, its
 *   source and destination accounts (internal or external) and the internal ones'
 *   balances, and its customer's volume in its sending currency since `volumeSince`;
 * - `accounts`: a new quote: the source account (internal or external), its owner (the
 *   customer) and, if internal, its balance, the destination account, and the owner's
 *   volume in the source's currency since `volumeSince`.
 * Either way the platform's configuration too.
 */
export type PaymentReadAhead =
  | { readonly kind: "quote"; readonly quoteId: string; readonly volumeSince: number }
  | {
    readonly kind: "accounts"
    readonly sourceAccountId: string
    readonly destinationAccountId?: string | undefined
    readonly volumeSince: number
  }

export interface PaymentReadsRepository {
  /**
   * Reads ahead, inside a unit of work, what `wants` names, so that the repositories'
   * later reads of those rows in the same attempt of the same unit of work answer
   * without asking the database: the same answers they would have given (one snapshot
   * per attempt), until the unit of work writes the table a row came from. A store may
   * instead run the attempt on the rows as it last saw them, provided it checks them in
   * the attempt's snapshot before the attempt commits or answers (the SQL stores:
   * src/adapters/sql/guessed-reads.ts). Outside a unit of work, and on a store whose
   * reads cost nothing (memory), it does nothing. Purely an optimisation: the answers of
   * every read are the same with or without it.
   */
  readonly readAhead: (platformId: string, wants: PaymentReadAhead) => Effect.Effect<void>
}

export interface MoneyWrites {
  readonly putInternalAccount: (record: InternalAccountRecord) => Effect.Effect<void, StoreConflict>
  /** Writes a journal entry and moves the balances it names, or refuses it whole. */
  readonly post: (entry: JournalEntry) => Effect.Effect<void, LedgerRejected>
  readonly putQuote: (record: QuoteRecord) => Effect.Effect<void>
  readonly putTransaction: (record: TransactionRecord) => Effect.Effect<void>
  readonly putPlatformConfig: (record: PlatformConfigRecord) => Effect.Effect<void>
}
