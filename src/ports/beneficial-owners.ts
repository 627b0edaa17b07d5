/** The beneficial owners part of the Store port (see ./store.ts). */
import type { Effect } from "effect"
import type { BeneficialOwner } from "../domain/beneficial-owner.js"
import type { RecordById, RecordList } from "./shared.js"

export interface BeneficialOwnerRecord {
  readonly platformId: string
  readonly owner: BeneficialOwner
}

export interface BeneficialOwnerRepository extends RecordById<BeneficialOwnerRecord>, RecordList<BeneficialOwnerRecord, { readonly customerId: string }> {
  /** The owners of one business customer, oldest first. */
  readonly listByCustomer: (platformId: string, customerId: string) => Effect.Effect<ReadonlyArray<BeneficialOwnerRecord>>
}

export interface BeneficialOwnerWrites {
  readonly putBeneficialOwner: (record: BeneficialOwnerRecord) => Effect.Effect<void>
  readonly deleteBeneficialOwner: (platformId: string, id: string) => Effect.Effect<void>
}
