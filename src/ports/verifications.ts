/** The verifications part of the Store port (see ./store.ts). */
import type { Effect } from "effect"
import type { Verification, VerificationStatus } from "../domain/verification.js"
import type { InvalidCursor, Page, PageResult } from "./shared.js"

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

export interface VerificationWrites {
  readonly putVerification: (record: VerificationRecord) => Effect.Effect<void>
}
