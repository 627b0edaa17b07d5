/**
 * The Store port: repositories per aggregate with the queries the operations need,
 * over one shared transaction.
 *
 * - Every record belongs to one platform and every query names the platform, so no
 *   operation can reach another platform's data.
 * - `transact` runs a unit of work: reads made inside it (through these same
 *   repositories) see its own staged writes; its writes, events and timers commit
 *   together or not at all (on failure, defect or interruption nothing is left).
 * - Uniqueness is the store's job (a unique index in SQL, an index map in memory)
 *   and surfaces as a typed `StoreConflict`, so two racing units of work (or two
 *   processes) cannot both win. Serialization failures are retried by `transact`
 *   a bounded number of times.
 * - Lists are paged by the store, keyset on `(createdAt, id)`; a cursor the store
 *   did not issue is an `InvalidCursor`.
 *
 * The port speaks domain errors only; the HTTP layer maps them.
 */
import { Context, Data, type Effect } from "effect"
import type { AgentRepository, AgentWrites } from "./agents.js"
import type { BeneficialOwner } from "../domain/beneficial-owner.js"
import type { Card, CardState } from "../domain/card.js"
import type { CardTransaction, CardTransactionState } from "../domain/card-transaction.js"
import type { CustomerState } from "../domain/customer.js"
import type { Document } from "../domain/document.js"
import type { ExternalAccount } from "../domain/external-account.js"
import type { InternalAccountStatus, InternalAccountType } from "../domain/internal-account.js"
import type { PlatformConfigState } from "../domain/platform-config.js"
import type { CodeChallenge, QuoteAuthorizationState, ScaState } from "../domain/sca.js"
import type { Quote, QuotePlan } from "../domain/quote.js"
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
import type { PaymentPlan, Transaction, TransactionStatus, TransactionType } from "../domain/transaction.js"
import type { Verification, VerificationStatus } from "../domain/verification.js"
import type { DomainEvent } from "./events.js"

// ---------------------------------------------------------------- errors

/** The unique constraints the store enforces, by name (the SQL index names). */
export type UniqueConstraint =
  | "customers_active_platform_customer_id"
  | "customers_active_uma_address"
  | "external_accounts_equivalence"
  | "external_accounts_default_uma"
  | "documents_holder_type"
  | "internal_accounts_owner_currency"
  | "cards_platform_card_id"
  | "stablecoin_provider_accounts_account"
  | "stablecoins_symbol"
  | "stablecoins_token_identifier"

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

// ---------------------------------------------------------------- paging

export interface Page {
  readonly limit: number
  readonly cursor?: string | undefined
  /** Newest first (only lists that offer `sortOrder` use it; default oldest first). */
  readonly descending?: boolean | undefined
}

export interface PageResult<R> {
  readonly data: ReadonlyArray<R>
  readonly hasMore: boolean
  readonly nextCursor?: string
  readonly totalCount: number
}

/** An inclusive range of instants in epoch milliseconds; either end may be open. */
export interface TimeRange {
  readonly from?: number | undefined
  readonly to?: number | undefined
}

// ---------------------------------------------------------------- customers

export interface CustomerRecord {
  readonly platformId: string
  readonly customer: CustomerState
  /** Set when deleted; deleted customers keep their id but free their platformCustomerId. */
  readonly deletedAt?: string
  /** Sandbox 003: a POOR_QUALITY_DOCUMENT was already reported for this customer. */
  readonly poorQualityReported?: boolean
  /** Contact verification codes sent and not confirmed yet (docs/sca.md). */
  readonly contactCodes?: { readonly email?: CodeChallenge | undefined; readonly phone?: CodeChallenge | undefined } | undefined
  /** Strong Customer Authentication state: factors, login, session, lockout, resets (docs/sca.md). */
  readonly sca?: ScaState | undefined
}

export interface CustomerQuery {
  readonly platformCustomerId?: string | undefined
  readonly customerType?: string | undefined
  readonly created?: TimeRange | undefined
  readonly updated?: TimeRange | undefined
  readonly region?: string | undefined
  /** Customers with this currency among their `currencies`. */
  readonly currency?: string | undefined
  readonly umaAddress?: string | undefined
  readonly includeDeleted?: boolean | undefined
}

export interface CustomerRepository {
  readonly get: (platformId: string, id: string) => Effect.Effect<CustomerRecord | undefined>
  /** The active (not deleted) customer holding this platformCustomerId. */
  readonly findActiveByPlatformCustomerId: (platformId: string, platformCustomerId: string) => Effect.Effect<CustomerRecord | undefined>
  /** The active customer holding this UMA address (compared without regard to case). */
  readonly findActiveByUmaAddress: (platformId: string, umaAddress: string) => Effect.Effect<CustomerRecord | undefined>
  readonly list: (platformId: string, query: CustomerQuery, page: Page) => Effect.Effect<PageResult<CustomerRecord>, InvalidCursor>
}

// ---------------------------------------------------------------- external accounts

export interface OwnershipChallengeState {
  readonly method: "WALLET_SIGNATURE" | "LIVENESS"
  readonly messageToSign?: string
  readonly expiresAt: number
}

export interface ExternalAccountRecord {
  readonly platformId: string
  readonly account: ExternalAccount
  readonly equivalenceKey: string
  /** A trusted beneficiary (SCA) cannot be deleted. */
  readonly trusted: boolean
  readonly bankValidationFailed?: boolean
  readonly ownershipChallenge?: OwnershipChallengeState
  /** The pending SCA trust/untrust ceremony, if one was started. */
  readonly pendingTrustChange?: { readonly trusted: boolean; readonly challengeId: string; readonly expiresAt: number }
}

export interface ExternalAccountQuery {
  /** "customer": only customer-owned; "platform": only platform-owned. */
  readonly owner: "customer" | "platform"
  readonly customerId?: string | undefined
  readonly currency?: string | undefined
}

export interface ExternalAccountRepository {
  readonly get: (platformId: string, id: string) => Effect.Effect<ExternalAccountRecord | undefined>
  readonly findByEquivalenceKey: (platformId: string, key: string) => Effect.Effect<ExternalAccountRecord | undefined>
  /** The customer's default UMA deposit account, if it has one (at most one: a unique index). */
  readonly findDefaultUmaDeposit: (platformId: string, customerId: string) => Effect.Effect<ExternalAccountRecord | undefined>
  readonly list: (platformId: string, query: ExternalAccountQuery, page: Page) => Effect.Effect<PageResult<ExternalAccountRecord>, InvalidCursor>
  /**
   * Optional (added for the SQL stores, which do it in one statement; a store without it
   * leaves the caller to `transact` a read of the customer and `putExternalAccount`):
   * writes a new external account as a unit of work of its own, only if `ownerCustomerId`
   * is an active customer of the platform (null: a platform account, no condition).
   * Answers `"ownerInactive"`, writing nothing, when that customer is missing or deleted;
   * fails with `StoreConflict` (a unique index) as `putExternalAccount` would, but
   * outside any unit of work of the caller's: catch it around this call. Inside a
   * `transact` it joins that unit of work.
   */
  readonly createAlone?: (
    r: ExternalAccountRecord,
    ownerCustomerId: string | null
  ) => Effect.Effect<"written" | "ownerInactive", StoreConflict>
}

// ---------------------------------------------------------------- documents

export interface DocumentRecord {
  readonly platformId: string
  readonly document: Document
  /** What was stored of the file: its fingerprint, not its bytes. */
  readonly file: { readonly sizeBytes: number; readonly sha256: string; readonly mediaType: string }
  /** Marked of poor quality by a sandbox 003 submission; cleared when replaced. */
  readonly poorQuality?: boolean
  /** Part of a packet that was taken for a decision: the evidence can no longer change. */
  readonly locked?: boolean
}

export interface DocumentRepository {
  readonly get: (platformId: string, id: string) => Effect.Effect<DocumentRecord | undefined>
  /** Every document of one holder (a Customer or BeneficialOwner id), oldest first. */
  readonly listByHolder: (platformId: string, holderId: string) => Effect.Effect<ReadonlyArray<DocumentRecord>>
  readonly list: (platformId: string, query: { readonly documentHolder?: string | undefined }, page: Page) => Effect.Effect<PageResult<DocumentRecord>, InvalidCursor>
}

// ---------------------------------------------------------------- beneficial owners

export interface BeneficialOwnerRecord {
  readonly platformId: string
  readonly owner: BeneficialOwner
}

export interface BeneficialOwnerRepository {
  readonly get: (platformId: string, id: string) => Effect.Effect<BeneficialOwnerRecord | undefined>
  /** The owners of one business customer, oldest first. */
  readonly listByCustomer: (platformId: string, customerId: string) => Effect.Effect<ReadonlyArray<BeneficialOwnerRecord>>
  readonly list: (platformId: string, query: { readonly customerId: string }, page: Page) => Effect.Effect<PageResult<BeneficialOwnerRecord>, InvalidCursor>
}

// ---------------------------------------------------------------- verifications

export interface VerificationRecord {
  readonly platformId: string
  readonly verification: Verification
}

export interface VerificationQuery {
  readonly customerId?: string | undefined
  readonly verificationStatus?: VerificationStatus | undefined
}

export interface VerificationRepository {
  readonly get: (platformId: string, id: string) => Effect.Effect<VerificationRecord | undefined>
  readonly list: (platformId: string, query: VerificationQuery, page: Page) => Effect.Effect<PageResult<VerificationRecord>, InvalidCursor>
}

// ---------------------------------------------------------------- internal accounts

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

export interface InternalAccountRepository {
  readonly get: (platformId: string, id: string) => Effect.Effect<InternalAccountRecord | undefined>
  /** The owner's account in a currency (owner null: the platform). */
  readonly findByOwnerCurrency: (platformId: string, customerId: string | null, currency: string) => Effect.Effect<InternalAccountRecord | undefined>
  readonly list: (platformId: string, query: InternalAccountQuery, page: Page) => Effect.Effect<PageResult<InternalAccountRecord>, InvalidCursor>
}

// ---------------------------------------------------------------- the ledger

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

// ---------------------------------------------------------------- quotes

export interface QuoteRecord {
  readonly platformId: string
  readonly quote: Quote
  /** What execution needs beyond the response: who pays, who receives, by which rail. */
  readonly plan: QuotePlan
  /** The SCA challenge of an execution held in PENDING_AUTHORIZATION (docs/sca.md). */
  readonly authorization?: QuoteAuthorizationState | undefined
}

export interface QuoteRepository {
  readonly get: (platformId: string, id: string) => Effect.Effect<QuoteRecord | undefined>
}

// ---------------------------------------------------------------- transactions

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

export interface TransactionRepository {
  readonly get: (platformId: string, id: string) => Effect.Effect<TransactionRecord | undefined>
  readonly list: (platformId: string, query: TransactionQuery, page: Page) => Effect.Effect<PageResult<TransactionRecord>, InvalidCursor>
  /**
   * Sum of `sentAmount` of the outgoing payments created at or after `since` (epoch ms)
   * in `currency` by one customer (null: the platform's own), not counting failed or
   * expired ones. For the daily volume limit.
   */
  readonly sentVolume: (platformId: string, query: { readonly customerId: string | null; readonly currency: string; readonly since: number }) => Effect.Effect<number>
}

// ---------------------------------------------------------------- cards

/**
 * One binding of an internal account to a card as a funding source. Its id
 * (`CardFundingSource:<uuid>`) is kept across updates for as long as the account stays
 * bound; an account bound anew gets a new one.
 */
export interface CardFundingSourceBinding {
  readonly id: string
  readonly internalAccountId: string
}

export interface CardRecord {
  readonly platformId: string
  /** The card as the API shows it; `card.fundingSources` are internal account ids in priority order. */
  readonly card: Card
  /** The bindings behind `card.fundingSources`, in the same order (empty once closed). */
  readonly fundingSourceBindings: ReadonlyArray<CardFundingSourceBinding>
  /** Consecutive incorrect PIN entries since the PIN was last set or unblocked. */
  readonly pinFailures?: number | undefined
  /** SHA-256 (hex) of the encrypted PIN block last set (the sandbox compares entries with it). */
  readonly pinBlockSha256?: string | undefined
}

export interface CardQuery {
  readonly cardholderId?: string | undefined
  /** Cards with this internal account among their funding sources. */
  readonly accountId?: string | undefined
  readonly platformCardId?: string | undefined
  readonly state?: CardState | undefined
}

export interface CardRepository {
  readonly get: (platformId: string, id: string) => Effect.Effect<CardRecord | undefined>
  /** The card holding this platformCardId (unique per platform, closed cards included). */
  readonly findByPlatformCardId: (platformId: string, platformCardId: string) => Effect.Effect<CardRecord | undefined>
  /** Newest first when `page.descending`, else oldest first (keyset on `(createdAt, id)`). */
  readonly list: (platformId: string, query: CardQuery, page: Page) => Effect.Effect<PageResult<CardRecord>, InvalidCursor>
  /**
   * Live (not CLOSED) cards of the platform, or of one cardholder: the slot rule's count.
   * An index read, so that under the serializable unit of work two units of work that
   * both read it and both add a card cannot both commit.
   */
  readonly countLive: (platformId: string, cardholderId?: string) => Effect.Effect<number>
}

// ---------------------------------------------------------------- card transactions

/**
 * A card transaction (docs/card-transactions.md): the row as the API shows it and the
 * machine's state behind it (held, released, suspense amounts; what opened the row).
 */
export interface CardTransactionRecord {
  readonly platformId: string
  readonly transaction: CardTransaction
  readonly state: CardTransactionState
}

export interface CardTransactionQuery {
  readonly cardId?: string | undefined
  readonly customerId?: string | undefined
  readonly platformCustomerId?: string | undefined
  /** The funding internal account. */
  readonly accountId?: string | undefined
  readonly direction?: "DEBIT" | "CREDIT" | undefined
  readonly created?: TimeRange | undefined
}

export interface CardTransactionRepository {
  readonly get: (platformId: string, id: string) => Effect.Effect<CardTransactionRecord | undefined>
  /** Newest first when `page.descending`, else oldest first (keyset on `(createdAt, id)`, the cursors every list uses). */
  readonly list: (platformId: string, query: CardTransactionQuery, page: Page) => Effect.Effect<PageResult<CardTransactionRecord>, InvalidCursor>
}

// ---------------------------------------------------------------- stablecoins

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

export interface StablecoinRepository {
  readonly getProviderAccount: (platformId: string, id: string) => Effect.Effect<StablecoinProviderAccountRecord | undefined>
  /** The link to this provider account (unique per platform and provider). */
  readonly findProviderAccount: (platformId: string, provider: StablecoinProvider, providerAccountId: string) => Effect.Effect<StablecoinProviderAccountRecord | undefined>
  /** Oldest first (keyset on `(createdAt, id)`). */
  readonly listProviderAccounts: (platformId: string, query: StablecoinProviderAccountQuery, page: Page) => Effect.Effect<PageResult<StablecoinProviderAccountRecord>, InvalidCursor>
  readonly get: (platformId: string, id: string) => Effect.Effect<StablecoinRecord | undefined>
  /** The stablecoin with this symbol (unique per platform). */
  readonly findBySymbol: (platformId: string, symbol: string) => Effect.Effect<StablecoinRecord | undefined>
  /** The stablecoin with this network token identifier (unique per platform and network). */
  readonly findByTokenIdentifier: (platformId: string, network: string, networkTokenIdentifier: string) => Effect.Effect<StablecoinRecord | undefined>
  /** Oldest first (keyset on `(createdAt, id)`). */
  readonly list: (platformId: string, query: StablecoinQuery, page: Page) => Effect.Effect<PageResult<StablecoinRecord>, InvalidCursor>
  readonly getOperation: (platformId: string, id: string) => Effect.Effect<StablecoinOperationRecord | undefined>
  /** One stablecoin's operations; newest first when `page.descending`. */
  readonly listOperations: (
    platformId: string,
    query: { readonly stablecoinId: string; readonly operationType?: StablecoinOperationType | undefined },
    page: Page
  ) => Effect.Effect<PageResult<StablecoinOperationRecord>, InvalidCursor>
}

// ---------------------------------------------------------------- platform configuration

export interface PlatformConfigRecord {
  readonly platformId: string
  readonly config: PlatformConfigState
}

export interface PlatformConfigRepository {
  /** The stored configuration, or undefined before the first change (defaults apply). */
  readonly get: (platformId: string) => Effect.Effect<PlatformConfigRecord | undefined>
}

// ---------------------------------------------------------------- events (the outbox)

/** An event as stored in the outbox, with its position in the platform's stream. */
export interface StoredEvent {
  /**
   * Increases with every committed event, in commit order within a platform (gaps
   * allowed): a reader that has seen `seq` n never later finds an event below n.
   */
  readonly seq: number
  readonly event: DomainEvent
}

export interface EventRepository {
  /** The platform's committed events after `afterSeq` (exclusive), oldest first, at most `limit`. */
  readonly list: (platformId: string, options?: { readonly afterSeq?: number; readonly limit?: number }) => Effect.Effect<ReadonlyArray<StoredEvent>>
}

// ---------------------------------------------------------------- webhooks (delivery from the outbox)

/** The platform's webhook signing key pair (P-256, lowercase hex), created on first use and kept across sandbox resets. */
export interface WebhookSigningKeyRecord {
  readonly platformId: string
  readonly privateKeyHex: string
  /** Uncompressed SEC1 (`04…`). */
  readonly publicKeyHex: string
  readonly createdAt: number
}

/** One POST of a webhook: `at` epoch ms on the platform's clock; a status code, or what went wrong. */
export interface WebhookAttemptRecord {
  readonly at: number
  readonly url: string
  readonly durationMs: number
  readonly statusCode?: number
  readonly error?: string
}

/**
 * One outbox event on its way to the platform's endpoint. `id` is the event's id (the
 * webhook `id` receivers deduplicate on), `seq` its outbox position (delivery order),
 * `body` the exact bytes sent on every attempt. `lease` marks an attempt in flight:
 * until `until` (epoch ms of real time) nobody else makes one.
 */
export interface WebhookDeliveryRecord {
  readonly platformId: string
  readonly id: string
  readonly seq: number
  readonly type: string
  readonly resourceId: string
  readonly body: string
  readonly status: "PENDING" | "DELIVERED" | "FAILED"
  /** The most recent attempts, oldest first (bounded). */
  readonly attempts: ReadonlyArray<WebhookAttemptRecord>
  /** Attempts made since the delivery (or its redelivery) started: the retry schedule's position. */
  readonly round: number
  /** Epoch ms on the platform's clock when the next attempt is due (PENDING only). */
  readonly nextAttemptAt: number
  readonly createdAt: number
  readonly updatedAt: number
  readonly lease?: { readonly token: string; readonly until: number } | undefined
}

export interface WebhookRepository {
  readonly signingKey: (platformId: string) => Effect.Effect<WebhookSigningKeyRecord | undefined>
  /** The outbox `seq` up to which events were taken for delivery (undefined: never). */
  readonly cursor: (platformId: string) => Effect.Effect<number | undefined>
  /** The platform's highest committed event `seq` (0 when none). */
  readonly lastEventSeq: (platformId: string) => Effect.Effect<number>
  readonly get: (platformId: string, id: string) => Effect.Effect<WebhookDeliveryRecord | undefined>
  /** The platform's deliveries, newest first (keyset on `(seq, id)`). */
  readonly list: (platformId: string, page: Page) => Effect.Effect<PageResult<WebhookDeliveryRecord>, InvalidCursor>
  /**
   * The platform's next delivery to attempt at `now` (platform clock), inside a unit of
   * work: PENDING, due, not leased at `leaseNow` (real time), and no earlier PENDING
   * delivery for the same resource. On PostgreSQL it is locked (`FOR UPDATE SKIP
   * LOCKED`) so that the caller can lease it (`putWebhookDelivery`) before committing.
   */
  readonly claimDue: (platformId: string, now: number, leaseNow: number) => Effect.Effect<WebhookDeliveryRecord | undefined>
}

// ---------------------------------------------------------------- timers (scheduled moves)

/**
 * A move a state machine asked for later, as data: at `at` (epoch ms on the platform's
 * clock), apply `event` to the resource `subjectId`. `kind` names the machine whose
 * handler applies it.
 */
export interface TimerRecord {
  readonly platformId: string
  readonly id: string
  readonly at: number
  readonly kind: string
  readonly subjectId: string
  readonly event: string
}

/** What became of a due timer: applied, or refused by its machine (recorded, not retried). */
export interface TimerOutcome {
  readonly timer: TimerRecord
  readonly appliedAt: number
  readonly outcome: "applied" | "refused"
  readonly reason?: string
}

export interface TimerRepository {
  /**
   * Claims the platform's earliest timer due at `now` for this unit of work, or none.
   * On PostgreSQL it is locked (`FOR UPDATE SKIP LOCKED`), so concurrent schedulers in
   * several processes never claim the same one; it disappears when the unit of work
   * that claimed it commits (the claim deletes it).
   */
  readonly claimDue: (platformId: string, now: number) => Effect.Effect<TimerRecord | undefined>
  /** The platform's pending timers, earliest first. */
  readonly pending: (platformId: string) => Effect.Effect<ReadonlyArray<TimerRecord>>
  /** What happened to applied timers, newest last (bounded history). */
  readonly outcomes: (platformId: string) => Effect.Effect<ReadonlyArray<TimerOutcome>>
}

// ---------------------------------------------------------------- sandbox clocks

export interface ClockRepository {
  /** The platform's sandbox time offset in ms (0 when never advanced). */
  readonly offset: (platformId: string) => Effect.Effect<number>
  /**
   * Optional (added for PostgreSQL, where reading the offset is a round trip of its own):
   * runs `run` with the offset this process last saw for the platform, and makes sure it
   * was the stored one when the run started, as if `offset` had been read first: the
   * store checks it inside the first statement the run sends (or with a read before it,
   * or after a run that sent none), and when it was stale it runs `run` again with the
   * stored offset (nothing of the stale run was written: the check comes first). So an
   * acknowledged clock advance is seen by the next request to any process.
   */
  readonly onLastSeenOffset?: <A, E, R>(platformId: string, run: (offset: number) => Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

// ---------------------------------------------------------------- idempotency

export interface IdempotencyRecord {
  readonly platformId: string
  readonly key: string
  /** The operation the key was first used for, e.g. `POST /customers`. */
  readonly operation: string
  /** SHA-256 (hex) of the canonical request. */
  readonly requestHash: string
  /** The first result, as the operation returned it, in its JSON form. */
  readonly body: unknown
  readonly createdAt: number
  readonly expiresAt: number
}

export interface IdempotencyRepository {
  /** The live record for a key (expired records are treated as absent). */
  readonly get: (platformId: string, key: string, now: number) => Effect.Effect<IdempotencyRecord | undefined>
}

// ---------------------------------------------------------------- embedded wallets

/**
 * Embedded-wallet records (docs/embedded-wallets.md), one table of documents keyed by
 * `(platformId, kind, id)`, found by wallet account or by a lookup key. Uniqueness
 * rules (one EMAIL_OTP per account, an email tied to one credential, one passkey per
 * customer) are checked by the operations inside a unit of work, which is serializable.
 */
export type WalletRecordKind = "credential" | "session" | "request" | "rate" | "serverKey" | "delegatedKey"

interface WalletRecordBase {
  readonly platformId: string
  readonly id: string
  /** The EMBEDDED_WALLET internal account the record belongs to ("" for platform-wide records). */
  readonly accountId: string
  /** A secondary key (an email, a phone number, a passkey credential id), unique where the rules say so. */
  readonly lookupKey?: string | undefined
}

export interface AuthCredentialRecord extends WalletRecordBase {
  readonly kind: "credential"
  readonly customerId: string
  readonly type: "EMAIL_OTP" | "SMS_OTP" | "OAUTH" | "PASSKEY"
  readonly nickname: string
  /** PASSKEY: base64url WebAuthn credential id, its public key (SEC1 hex) and counter. */
  readonly passkey?: { readonly credentialId: string; readonly publicKey: string; readonly counter: number; readonly transports?: ReadonlyArray<string> | undefined } | undefined
  /** OAUTH: the identity triple. */
  readonly oidc?: { readonly iss: string; readonly aud: string; readonly sub: string } | undefined
  readonly createdAt: string
  readonly updatedAt: string
}

export interface AuthSessionRecord extends WalletRecordBase {
  readonly kind: "session"
  /** The AuthMethod the session was issued for. */
  readonly credentialId: string
  readonly type: AuthCredentialRecord["type"]
  readonly nickname: string
  /** The session API public key (compressed SEC1 hex). */
  readonly publicKey: string
  readonly createdAt: string
  readonly updatedAt: string
  /** Epoch milliseconds. */
  readonly expiresAt: number
  readonly revoked: boolean
}

/** A challenge issued by a first leg (or by a credential challenge), good for one retry until `expiresAt`. */
export interface WalletRequestRecord extends WalletRecordBase {
  readonly kind: "request"
  /** What the challenge is for, e.g. `DELETE /auth/credentials/{id}` or `OTP_CHALLENGE`. */
  readonly action: string
  /** The AuthMethod it concerns, when it concerns one. */
  readonly credentialId?: string | undefined
  /** SHA-256 of the canonical request the first leg bound. */
  readonly fingerprint: string
  readonly payloadToSign: string
  readonly expiresAt: number
  readonly used: boolean
  /** The EMAIL_OTP and SMS_OTP credential ids when the challenge was issued. */
  readonly emailOtpSet: ReadonlyArray<string>
  readonly smsOtpSet: ReadonlyArray<string>
  /** Keys that may sign the retry when they are not session keys (the OTP login's TEK). */
  readonly signerKeys?: ReadonlyArray<string> | undefined
  /** OTP challenges: the HPKE target key pair (private hex) and the client key it was issued for. */
  readonly targetPrivateKeyHex?: string | undefined
  readonly clientPublicKey?: string | undefined
  /** OTP challenges outside the sandbox: the code that was issued. */
  readonly otpCode?: string | undefined
  /** PASSKEY challenges: the WebAuthn challenge as the client data carries it. */
  readonly webauthnChallenge?: string | undefined
  /**
   * Multi-leg signed flows: the signed retry that answers this challenge (2 for a first
   * leg's challenge, the default; 3 for the challenge the first signed retry answered).
   */
  readonly leg?: number | undefined
  /** What the signature over this challenge authorizes beyond the request, bound into `payloadToSign`. */
  readonly context?: Readonly<Record<string, string>> | undefined
  /** Server-side material the next leg needs, never shown (dropped once the challenge is used). */
  readonly kept?: Readonly<Record<string, string>> | undefined
  readonly createdAt: number
}

/** Attempts in the current window, per credential and endpoint. */
export interface WalletRateRecord extends WalletRecordBase {
  readonly kind: "rate"
  readonly windowStart: number
  readonly count: number
}

/** A server key of the platform's wallet flows (the OTP target-bundle signing key). */
export interface WalletServerKeyRecord extends WalletRecordBase {
  readonly kind: "serverKey"
  readonly privateKeyHex: string
}

/**
 * A delegated signing key (`POST /auth/delegated-keys`): `accountId` is the embedded
 * wallet, `lookupKey` the card funding source (`CardFundingSource:<uuid>`) it signs for.
 */
export interface DelegatedKeyRecord extends WalletRecordBase {
  readonly kind: "delegatedKey"
  readonly lookupKey: string
  readonly cardId: string
  /** Compressed SEC1 hex. */
  readonly publicKey: string
  /** The custodied private key (hex): never returned. */
  readonly privateKeyHex: string
  readonly nickname: string
  readonly status: "PENDING" | "ACTIVE" | "REVOKED"
  readonly createdAt: string
  readonly updatedAt: string
}

export type WalletRecord = AuthCredentialRecord | AuthSessionRecord | WalletRequestRecord | WalletRateRecord | WalletServerKeyRecord | DelegatedKeyRecord
export type WalletRecordOf<K extends WalletRecordKind> = Extract<WalletRecord, { readonly kind: K }>

export interface WalletRepository {
  readonly get: <K extends WalletRecordKind>(platformId: string, kind: K, id: string) => Effect.Effect<WalletRecordOf<K> | undefined>
  /** The account's records of a kind, oldest first. */
  readonly byAccount: <K extends WalletRecordKind>(platformId: string, kind: K, accountId: string) => Effect.Effect<ReadonlyArray<WalletRecordOf<K>>>
  /** The platform's records of a kind with this lookup key. */
  readonly byLookup: <K extends WalletRecordKind>(platformId: string, kind: K, lookupKey: string) => Effect.Effect<ReadonlyArray<WalletRecordOf<K>>>
}

// ---------------------------------------------------------------- unit of work

/** The writes of a unit of work; visible to its own reads at once, to others when it commits. */
export interface UnitOfWork extends AgentWrites {
  readonly putCustomer: (record: CustomerRecord) => Effect.Effect<void, StoreConflict>
  readonly putExternalAccount: (record: ExternalAccountRecord) => Effect.Effect<void, StoreConflict>
  readonly deleteExternalAccount: (platformId: string, id: string) => Effect.Effect<void>
  readonly putDocument: (record: DocumentRecord) => Effect.Effect<void, StoreConflict>
  readonly deleteDocument: (platformId: string, id: string) => Effect.Effect<void>
  readonly putBeneficialOwner: (record: BeneficialOwnerRecord) => Effect.Effect<void>
  readonly deleteBeneficialOwner: (platformId: string, id: string) => Effect.Effect<void>
  readonly putVerification: (record: VerificationRecord) => Effect.Effect<void>
  readonly putInternalAccount: (record: InternalAccountRecord) => Effect.Effect<void, StoreConflict>
  /** Writes a journal entry and moves the balances it names, or refuses it whole. */
  readonly post: (entry: JournalEntry) => Effect.Effect<void, LedgerRejected>
  readonly putQuote: (record: QuoteRecord) => Effect.Effect<void>
  readonly putTransaction: (record: TransactionRecord) => Effect.Effect<void>
  /** Writes a card (insert or replace by id); a platformCardId another card holds is a `StoreConflict`. */
  readonly putCard: (record: CardRecord) => Effect.Effect<void, StoreConflict>
  /** Writes a card transaction (insert or replace by id). */
  readonly putCardTransaction: (record: CardTransactionRecord) => Effect.Effect<void>
  readonly putPlatformConfig: (record: PlatformConfigRecord) => Effect.Effect<void>
  /** Writes a provider account link; another link to the same provider account is a `StoreConflict`. */
  readonly putStablecoinProviderAccount: (record: StablecoinProviderAccountRecord) => Effect.Effect<void, StoreConflict>
  /** Writes a stablecoin; a symbol or network token identifier another stablecoin holds is a `StoreConflict`. */
  readonly putStablecoin: (record: StablecoinRecord) => Effect.Effect<void, StoreConflict>
  readonly putStablecoinOperation: (record: StablecoinOperationRecord) => Effect.Effect<void>
  /** Appends an event to the outbox; it exists if and only if this unit of work commits. */
  readonly emit: (event: DomainEvent) => Effect.Effect<void>
  /** Schedules a move; replaces the subject's pending timer of the same kind, if any. */
  readonly schedule: (timer: TimerRecord) => Effect.Effect<void>
  /** Drops the subject's pending timers (of one kind, or all). */
  readonly cancelTimers: (platformId: string, subjectId: string, kind?: string) => Effect.Effect<void>
  /** Records what became of a claimed timer. */
  readonly recordTimerOutcome: (outcome: TimerOutcome) => Effect.Effect<void>
  /** Sets the platform's sandbox time offset. */
  readonly setClockOffset: (platformId: string, offsetMillis: number) => Effect.Effect<void>
  /**
   * Stores an idempotency record. If a live record for the key exists (a concurrent
   * unit of work won), returns it instead and stores nothing.
   */
  readonly putIdempotency: (record: IdempotencyRecord) => Effect.Effect<IdempotencyRecord | undefined>
  /** Stores the platform's signing key unless it has one; returns the one stored (a racing first use loses to the winner). */
  readonly putWebhookSigningKey: (record: WebhookSigningKeyRecord) => Effect.Effect<WebhookSigningKeyRecord>
  /** Sets the outbox `seq` up to which events were taken for delivery. */
  readonly setWebhookCursor: (platformId: string, seq: number) => Effect.Effect<void>
  /** Adds a delivery unless one with its id exists (importing an event twice adds it once). */
  readonly addWebhookDelivery: (record: WebhookDeliveryRecord) => Effect.Effect<void>
  /** Writes a delivery's new state (lease, attempt, status). */
  readonly putWebhookDelivery: (record: WebhookDeliveryRecord) => Effect.Effect<void>
  /** Writes an embedded-wallet record (insert or replace by `(platformId, kind, id)`). */
  readonly putWalletRecord: (record: WalletRecord) => Effect.Effect<void>
  readonly deleteWalletRecord: (platformId: string, kind: WalletRecordKind, id: string) => Effect.Effect<void>
  /**
   * Deletes every record, ledger entry, event, timer, clock and idempotency key of the
   * platform, and its webhook deliveries and cursor (its signing key stays).
   */
  readonly resetPlatform: (platformId: string) => Effect.Effect<void>
}

export interface StoreInfo {
  /** `memory`, `postgres` or `pglite`. */
  readonly kind: "memory" | "postgres" | "pglite"
  /** A human description for the startup banner (no secrets). */
  readonly description: string
}

export class Store extends Context.Service<Store, {
  readonly info: StoreInfo
  readonly customers: CustomerRepository
  readonly externalAccounts: ExternalAccountRepository
  readonly documents: DocumentRepository
  readonly beneficialOwners: BeneficialOwnerRepository
  readonly verifications: VerificationRepository
  readonly internalAccounts: InternalAccountRepository
  readonly ledger: LedgerRepository
  readonly quotes: QuoteRepository
  readonly transactions: TransactionRepository
  readonly cards: CardRepository
  readonly cardTransactions: CardTransactionRepository
  readonly platformConfigs: PlatformConfigRepository
  readonly stablecoins: StablecoinRepository
  readonly events: EventRepository
  readonly timers: TimerRepository
  readonly clocks: ClockRepository
  readonly idempotency: IdempotencyRepository
  readonly webhooks: WebhookRepository
  readonly wallets: WalletRepository
  readonly agents: AgentRepository
  /**
   * Runs `work` as one unit of work (serializable: as if no other unit of work
   * interleaved with it). Its writes, events and timers commit together when `work`
   * succeeds and are dropped when it fails, dies or is interrupted. A serialization
   * failure reruns `work` from the start, a bounded number of times.
   */
  readonly transact: <A, E, R>(work: (uow: UnitOfWork) => Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}>()("payments-service/ports/Store") {}
