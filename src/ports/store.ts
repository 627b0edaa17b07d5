/**
 * The Store port: repositories per aggregate with the queries the operations need,
 * and an atomic unit of work. Every record belongs to one platform and every query
 * names the platform, so no operation can reach another platform's data.
 */
import { Context, type Effect } from "effect"
import type { Error400 } from "../domain/errors.js"
import type { ExternalAccount } from "../domain/external-account.js"
import type { BeneficialOwner } from "../domain/beneficial-owner.js"
import type { CustomerResponse } from "../domain/customer.js"
import type { Document } from "../domain/document.js"
import type { Verification, VerificationStatus } from "../domain/verification.js"
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
  /** Sandbox 003: a POOR_QUALITY_DOCUMENT was already reported for this customer. */
  readonly poorQualityReported?: boolean
}

export interface CustomerQuery {
  readonly platformCustomerId?: string | undefined
  readonly customerType?: string | undefined
  readonly createdAfter?: string | undefined
  readonly createdBefore?: string | undefined
  readonly updatedAfter?: string | undefined
  readonly updatedBefore?: string | undefined
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
  readonly list: (platformId: string, query: { readonly documentHolder?: string | undefined }, page: Page) => Effect.Effect<PageResult<DocumentRecord>, Error400>
}

// ---------------------------------------------------------------- beneficial owners

export interface BeneficialOwnerRecord {
  readonly platformId: string
  readonly owner: BeneficialOwner
}

export interface BeneficialOwnerRepository {
  readonly get: (platformId: string, id: string) => Effect.Effect<BeneficialOwnerRecord | undefined>
  readonly listByCustomer: (platformId: string, customerId: string) => Effect.Effect<ReadonlyArray<BeneficialOwnerRecord>>
  readonly list: (platformId: string, query: { readonly customerId: string }, page: Page) => Effect.Effect<PageResult<BeneficialOwnerRecord>, Error400>
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
  readonly list: (platformId: string, query: VerificationQuery, page: Page) => Effect.Effect<PageResult<VerificationRecord>, Error400>
}

// ---------------------------------------------------------------- unit of work

/** What a unit of work stages; nothing is visible until it commits. */
export interface UnitOfWork {
  readonly putCustomer: (record: CustomerRecord) => void
  readonly putExternalAccount: (record: ExternalAccountRecord) => void
  readonly deleteExternalAccount: (platformId: string, id: string) => void
  readonly putDocument: (record: DocumentRecord) => void
  readonly deleteDocument: (platformId: string, id: string) => void
  readonly putBeneficialOwner: (record: BeneficialOwnerRecord) => void
  readonly deleteBeneficialOwner: (platformId: string, id: string) => void
  readonly putVerification: (record: VerificationRecord) => void
  readonly emit: (event: DomainEvent) => void
}

export class Store extends Context.Service<Store, {
  readonly customers: CustomerRepository
  readonly externalAccounts: ExternalAccountRepository
  readonly documents: DocumentRepository
  readonly beneficialOwners: BeneficialOwnerRepository
  readonly verifications: VerificationRepository
  /**
   * Runs `work` exclusively: no other unit of work interleaves with it, so a
   * check-then-write inside it is atomic. Staged writes and events commit together
   * when `work` succeeds and are dropped when it fails.
   */
  readonly transact: <A, E, R>(work: (uow: UnitOfWork) => Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}>()("payments-service/ports/Store") {}
