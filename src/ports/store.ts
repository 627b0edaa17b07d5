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
import { Context, type Effect } from "effect"
import type { AgentRepository, AgentWrites } from "./agents.js"
import type { BeneficialOwnerRepository, BeneficialOwnerWrites } from "./beneficial-owners.js"
import type { CardRepository, CardTransactionRepository, CardWrites } from "./cards.js"
import type { CustomerRepository, CustomerWrites } from "./customers.js"
import type { DocumentRepository, DocumentWrites } from "./documents.js"
import type { EventRepository, EventWrites } from "./events.js"
import type { ExternalAccountRepository, ExternalAccountWrites } from "./external-accounts.js"
import type { IdempotencyRepository, IdempotencyWrites } from "./idempotency.js"
import type { InvitationRepository, InvitationWrites } from "./invitations.js"
import type { BulkJobRepository, BulkJobWrites } from "./bulk-jobs.js"
import type { TokenRepository, TokenWrites } from "./tokens.js"
import type {
  InternalAccountRepository,
  LedgerRepository,
  MoneyWrites,
  PaymentReadsRepository,
  PlatformConfigRepository,
  QuoteRepository,
  TransactionRepository
} from "./money.js"
import type { SnapshotRepository, SnapshotWrites } from "./snapshots.js"
import type { StablecoinRepository, StablecoinWrites } from "./stablecoins.js"
import type { ClockRepository, TimerRepository, TimerWrites } from "./timers.js"
import type { VerificationRepository, VerificationWrites } from "./verifications.js"
import type { WalletRepository, WalletWrites } from "./wallets.js"
import type { WebhookRepository, WebhookWrites } from "./webhooks.js"

// Each aggregate's records, queries, repository and writes live in its own module;
// this one composes them. Everything is re-exported, so `ports/store.js` stays the one
// import for code that uses the Store.
export * from "./agents.js"
export * from "./beneficial-owners.js"
export * from "./cards.js"
export * from "./customers.js"
export * from "./documents.js"
export type { EventRepository, EventSweep, EventWrites, StoredEvent } from "./events.js"
export * from "./external-accounts.js"
export * from "./idempotency.js"
export * from "./invitations.js"
export * from "./bulk-jobs.js"
export * from "./tokens.js"
export * from "./money.js"
export * from "./shared.js"
export * from "./snapshots.js"
export * from "./stablecoins.js"
export * from "./timers.js"
export * from "./verifications.js"
export * from "./wallets.js"
export type {
  WebhookAttemptRecord,
  WebhookDeliveryRecord,
  WebhookRepository,
  WebhookSigningKeyRecord,
  WebhookWrites
} from "./webhooks.js"

/** The writes of a unit of work; visible to its own reads at once, to others when it commits. */
export interface UnitOfWork
  extends
    CustomerWrites,
    ExternalAccountWrites,
    DocumentWrites,
    BeneficialOwnerWrites,
    VerificationWrites,
    MoneyWrites,
    CardWrites,
    StablecoinWrites,
    EventWrites,
    TimerWrites,
    IdempotencyWrites,
    WebhookWrites,
    WalletWrites,
    AgentWrites,
    InvitationWrites,
    BulkJobWrites,
    TokenWrites,
    SnapshotWrites
{
  /**
   * Deletes every record, ledger entry, event, timer, clock and idempotency key of the
   * platform, and its webhook deliveries and cursor (its signing key stays).
   */
  readonly resetPlatform: (platformId: string) => Effect.Effect<void>
}

/** The Store's repositories, one per aggregate (or part of one). A type, not an interface, so that it is a record of repositories. */
export type StoreRepositories = {
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
  readonly paymentReads: PaymentReadsRepository
  readonly stablecoins: StablecoinRepository
  readonly events: EventRepository
  readonly timers: TimerRepository
  readonly clocks: ClockRepository
  readonly idempotency: IdempotencyRepository
  readonly webhooks: WebhookRepository
  readonly wallets: WalletRepository
  readonly agents: AgentRepository
  readonly invitations: InvitationRepository
  readonly bulkJobs: BulkJobRepository
  readonly tokens: TokenRepository
  readonly snapshots: SnapshotRepository
}

export interface StoreInfo {
  /** `memory`, `postgres` or `pglite`. */
  readonly kind: "memory" | "postgres" | "pglite"
  /** A human description for the startup banner (no secrets). */
  readonly description: string
}

/** What a unit of work says of itself before it starts (`transact`'s options). */
export interface UnitOfWorkOptions {
  /**
   * The platform whose money (ledger balances) the unit of work will move: a quote's
   * execution, a transfer, a funding. With `accounts`, units of work moving one internal
   * account take turns (they queue, in this process and across processes sharing the
   * database) instead of racing and rerunning, so a burst of payments from one account
   * answers each in turn (docs/decisions.md, "A hot account"), while payments that share
   * no account run side by side. One that moves an account it did not name takes that
   * account's turn after it loses a race. A nested unit of work's options hold for the
   * unit of work enclosing it.
   */
  readonly movesMoneyOf?: string
  /** The internal accounts (ids) of `movesMoneyOf` the unit of work will move, as far as known before it starts. */
  readonly accounts?: ReadonlyArray<string>
}

export type StoreService = StoreRepositories & {
  readonly info: StoreInfo
  /**
   * Runs `work` as one unit of work (serializable: as if no other unit of work
   * interleaved with it). Its writes, events and timers commit together when `work`
   * succeeds and are dropped when it fails, dies or is interrupted. A serialization
   * failure reruns `work` from the start, a bounded number of times.
   */
  readonly transact: <A, E, R>(work: (uow: UnitOfWork) => Effect.Effect<A, E, R>, options?: UnitOfWorkOptions) => Effect.Effect<A, E, R>
  /**
   * How many times units of work were rerun after a serialization failure or deadlock
   * since the store started (the SQL stores; the memory store never reruns one).
   */
  readonly reruns?: () => number
  /**
   * Makes the space of removed rows reusable where the database does not do it by itself:
   * PGlite runs no autovacuum, so without this a table whose rows come and go (the webhook
   * outbox under retention, timers) only grows on disk; nor a checkpointer, so without
   * this its write-ahead log grows with every write (adapters/sql/reclaim.ts). The
   * scheduler calls it after each retention sweep. Absent where nothing is needed (the
   * memory store; PostgreSQL, whose autovacuum does it).
   */
  readonly reclaim?: () => Effect.Effect<void>
}

export class Store extends Context.Service<Store, StoreService>()("payments-service/ports/Store") {}
