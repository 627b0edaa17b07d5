/** The cards part of the Store port (see ./store.ts): cards and card transactions. */
import type { Effect } from "effect"
import type { Card, CardState } from "../domain/card.js"
import type { CardTransaction, CardTransactionState } from "../domain/card-transaction.js"
import type { RecordById, RecordList, StoreConflict, TimeRange } from "./shared.js"

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

/** `list`: Newest first when `page.descending`, else oldest first (keyset on `(createdAt, id)`). */
export interface CardRepository extends RecordById<CardRecord>, RecordList<CardRecord, CardQuery> {
  /** The card holding this platformCardId (unique per platform, closed cards included). */
  readonly findByPlatformCardId: (platformId: string, platformCardId: string) => Effect.Effect<CardRecord | undefined>
  /**
   * Live (not CLOSED) cards of the platform, or of one cardholder: the slot rule's count.
   * An index read, so that under the serializable unit of work two units of work that
   * both read it and both add a card cannot both commit.
   */
  readonly countLive: (platformId: string, cardholderId?: string) => Effect.Effect<number>
}

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

/** `list`: Newest first when `page.descending`, else oldest first (keyset on `(createdAt, id)`, the cursors every list uses). */
export interface CardTransactionRepository extends RecordById<CardTransactionRecord>, RecordList<CardTransactionRecord, CardTransactionQuery> {}

export interface CardWrites {
  /** Writes a card (insert or replace by id); a platformCardId another card holds is a `StoreConflict`. */
  readonly putCard: (record: CardRecord) => Effect.Effect<void, StoreConflict>
  /** Writes a card transaction (insert or replace by id). */
  readonly putCardTransaction: (record: CardTransactionRecord) => Effect.Effect<void>
}
