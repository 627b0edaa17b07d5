/**
 * Sandbox snapshots (docs/sandbox.md#snapshots): a saved copy of everything a sandbox
 * platform holds, which `POST /sandbox/snapshots/{id}/restore` puts back, clock included.
 */
import { Schema } from "effect"
import { DateTimeString, NonEmptyTextUpTo } from "./common.js"

/**
 * Snapshots a platform may hold at once: each holds a copy of the platform's state (in
 * memory, of its tables' indexes; on SQL, of its rows), so their number is bounded.
 */
export const MAX_SNAPSHOTS_PER_PLATFORM = 50

/** Longest snapshot name. */
export const MAX_SNAPSHOT_NAME_LENGTH = 200

export const SandboxSnapshotCreateRequest = Schema.Struct({
  name: NonEmptyTextUpTo(MAX_SNAPSHOT_NAME_LENGTH).annotate({ description: "A name of your choosing (1 to 200 characters; need not be unique)." })
}).annotate({ identifier: "SandboxSnapshotCreateRequest" })
export type SandboxSnapshotCreateRequest = typeof SandboxSnapshotCreateRequest.Type

export const SandboxSnapshot = Schema.Struct({
  id: Schema.String.annotate({ description: "`Snapshot:<uuid>`." }),
  name: Schema.String,
  createdAt: DateTimeString.annotate({ description: "When it was taken, in real time (the server's clock, not the platform's)." }),
  platformTime: DateTimeString.annotate({
    description: "The platform's clock when it was taken: a restore sets the platform's clock back to this instant."
  })
}).annotate({ identifier: "SandboxSnapshot" })
export type SandboxSnapshot = typeof SandboxSnapshot.Type
