/**
 * The Store port: repositories per aggregate with the queries the operations need,
 * and an atomic unit of work. Every record belongs to one platform and every query
 * names the platform, so no operation can reach another platform's data.
 */
import { Context, type Effect } from "effect"
import type { Error400 } from "../domain/errors.js"
import type { ExternalAccount } from "../domain/external-account.js"
import type { CustomerResponse } from "../domain/customer.js"
import type { DomainEvent } from "./events.js"

export interface Page {
  readonly limit: number
  readonly cursor?: string | undefined
}

export interface PageResult<R> {
  readonly data: ReadonlyArray<R>
  readonly hasMore: boolean
  readonly nextCursor?: string
  readonly totalCount: number
}

// ---------------------------------------------------------------- customers

export interface CustomerRecord {
  readonly platformId: string
  readonly customer: CustomerResponse
  /** Set when deleted; deleted customers keep their id but free their platformCustomerId. */
  readonly deletedAt?: string
}

export interface CustomerQuery {
  readonly platformCustomerId?: string | undefined
  readonly customerType?: string | undefined
  readonly createdAfter?: string | undefined
  readonly createdBefore?: string | undefined
  readonly updatedAfter?: string | undefined
  readonly updatedBefore?: string | undefined
  readonly includeDeleted?: boolean | undefined
}

export interface CustomerRepository {
  readonly get: (platformId: string, id: string) => Effect.Effect<CustomerRecord | undefined>
  /** The active (not deleted) customer holding this platformCustomerId. */
  readonly findActiveByPlatformCustomerId: (platformId: string, platformCustomerId: string) => Effect.Effect<CustomerRecord | undefined>
  readonly list: (platformId: string, query: CustomerQuery, page: Page) => Effect.Effect<PageResult<CustomerRecord>, Error400>
}

// ---------------------------------------------------------------- external accounts

/** A scheduled move of the status machine, applied when its time has come. */
export interface ScheduledMove {
  readonly at: number
  readonly event: "BANK_VALIDATION_SUCCEEDED" | "BANK_VALIDATION_FAILED" | "OWNERSHIP_VERIFICATION_SUCCEEDED"
}

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
  readonly scheduled?: ScheduledMove
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
  readonly findDefaultUmaDeposit: (platformId: string, customerId: string) => Effect.Effect<ReadonlyArray<ExternalAccountRecord>>
  readonly listDue: (platformId: string, now: number) => Effect.Effect<ReadonlyArray<ExternalAccountRecord>>
  readonly list: (platformId: string, query: ExternalAccountQuery, page: Page) => Effect.Effect<PageResult<ExternalAccountRecord>, Error400>
}

// ---------------------------------------------------------------- unit of work

/** What a unit of work stages; nothing is visible until it commits. */
export interface UnitOfWork {
  readonly putCustomer: (record: CustomerRecord) => void
  readonly putExternalAccount: (record: ExternalAccountRecord) => void
  readonly deleteExternalAccount: (platformId: string, id: string) => void
  readonly emit: (event: DomainEvent) => void
}

export class Store extends Context.Service<Store, {
  readonly customers: CustomerRepository
  readonly externalAccounts: ExternalAccountRepository
  /**
   * Runs `work` exclusively: no other unit of work interleaves with it, so a
   * check-then-write inside it is atomic. Staged writes and events commit together
   * when `work` succeeds and are dropped when it fails.
   */
  readonly transact: <A, E, R>(work: (uow: UnitOfWork) => Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}>()("payments-service/ports/Store") {}
