/**
 * The sandbox snapshots part of the Store port (see ./store.ts, docs/sandbox.md#snapshots).
 *
 * A snapshot holds a copy of everything the Store keeps for one platform: every record,
 * the ledger and its journal, events (the webhook outbox) and webhook deliveries with the
 * outbox position, scheduled moves and their outcomes, idempotency records, the clock
 * offset and the platform's config. Not in it, and untouched by a restore: the platform's
 * credentials (API tokens, the webhook signing key: a restore neither revives a revoked
 * token nor revokes one issued since), its sandbox fault rules (a control, like snapshots),
 * and the snapshots themselves (they survive restores and sandbox resets).
 */
import type { Effect } from "effect"
import type { SandboxSnapshot } from "../domain/sandbox-snapshot.js"
import type { InvalidCursor, Page, PageResult, RecordById } from "./shared.js"

export interface SnapshotRecord {
  readonly platformId: string
  readonly snapshot: SandboxSnapshot
}

export interface SnapshotRepository extends RecordById<SnapshotRecord> {
  /** The platform's snapshots, oldest first (keyset on `(createdAt, id)`). */
  readonly list: (platformId: string, page: Page) => Effect.Effect<PageResult<SnapshotRecord>, InvalidCursor>
}

export type SnapshotRestore = "restored" | "missing" | "otherSchema"

export interface SnapshotWrites {
  /** Stores `record` with a copy of the platform's current state (as this unit of work sees it). */
  readonly createSnapshot: (record: SnapshotRecord) => Effect.Effect<void>
  /** Removes the platform's snapshot; whether there was one. */
  readonly deleteSnapshot: (platformId: string, id: string) => Effect.Effect<boolean>
  /**
   * Replaces everything the platform holds (but its credentials) with the snapshot's
   * copy, as part of this unit of work. Nothing changes when the platform has no such
   * snapshot (`missing`) or it was saved by a store whose schema differs from this one's
   * (`otherSchema`: a persistent store upgraded since). The clock offset comes back as it
   * was saved: the caller sets the one it wants after this.
   */
  readonly restoreSnapshot: (platformId: string, id: string) => Effect.Effect<SnapshotRestore>
}
