/** The customers part of the Store port (see ./store.ts for the rules every part follows). */
import type { Effect } from "effect"
import type { CustomerState } from "../domain/customer.js"
import type { CodeChallenge, ScaState } from "../domain/sca.js"
import type { RecordById, RecordList, StoreConflict, TimeRange } from "./shared.js"

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

export interface CustomerRepository extends RecordById<CustomerRecord>, RecordList<CustomerRecord, CustomerQuery> {
  /** The active (not deleted) customer holding this platformCustomerId. */
  readonly findActiveByPlatformCustomerId: (platformId: string, platformCustomerId: string) => Effect.Effect<CustomerRecord | undefined>
  /** The active customer holding this UMA address (compared without regard to case). */
  readonly findActiveByUmaAddress: (platformId: string, umaAddress: string) => Effect.Effect<CustomerRecord | undefined>
}

export interface CustomerWrites {
  readonly putCustomer: (record: CustomerRecord) => Effect.Effect<void, StoreConflict>
}
