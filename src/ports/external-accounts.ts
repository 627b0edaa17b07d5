/** The external accounts part of the Store port (see ./store.ts). */
import type { Effect } from "effect"
import type { ExternalAccount } from "../domain/external-account.js"
import type { RecordById, RecordList, StoreConflict } from "./shared.js"

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

export interface ExternalAccountRepository extends RecordById<ExternalAccountRecord>, RecordList<ExternalAccountRecord, ExternalAccountQuery> {
  readonly findByEquivalenceKey: (platformId: string, key: string) => Effect.Effect<ExternalAccountRecord | undefined>
  /** The customer's default UMA deposit account, if it has one (at most one: a unique index). */
  readonly findDefaultUmaDeposit: (platformId: string, customerId: string) => Effect.Effect<ExternalAccountRecord | undefined>
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

export interface ExternalAccountWrites {
  readonly putExternalAccount: (record: ExternalAccountRecord) => Effect.Effect<void, StoreConflict>
  readonly deleteExternalAccount: (platformId: string, id: string) => Effect.Effect<void>
}
