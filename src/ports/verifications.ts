/** The verifications part of the Store port (see ./store.ts). */
import type { Effect } from "effect"
import type { Verification, VerificationStatus } from "../domain/verification.js"
import type { RecordById, RecordList } from "./shared.js"

export interface VerificationRecord {
  readonly platformId: string
  readonly verification: Verification
}

export interface VerificationQuery {
  readonly customerId?: string | undefined
  readonly verificationStatus?: VerificationStatus | undefined
}

export interface VerificationRepository extends RecordById<VerificationRecord>, RecordList<VerificationRecord, VerificationQuery> {}

export interface VerificationWrites {
  readonly putVerification: (record: VerificationRecord) => Effect.Effect<void>
}
