/**
 * Sandbox controls beyond the clock (ours; docs/sandbox.md): fault injection, seed documents
 * and snapshots. Sandbox platforms only: a production platform gets 403 from every one.
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { IdText, ListResponse, PageQuery } from "../../domain/common.js"
import { Error400, Error403, Error404, Error409, Error429 } from "../../domain/errors.js"
import { SandboxFaults, SandboxFaultsView } from "../../domain/sandbox-faults.js"
import { SeedDocument, SeedResult } from "../../domain/sandbox-seed.js"
import { SandboxSnapshot, SandboxSnapshotCreateRequest } from "../../domain/sandbox-snapshot.js"
import { platformGroup } from "../api-base.js"
import { Concerns } from "../declarations.js"

class SandboxControlEndpoints extends HttpApiGroup.make("sandboxControl")
  .annotate(Concerns, { permission: "MANAGE", sandboxOnly: true })
  .add(
    HttpApiEndpoint.put("putSandboxFaults", "/sandbox/faults", {
      payload: SandboxFaults,
      success: SandboxFaultsView,
      error: [Error400, Error403]
    }).annotate(
      OpenApi.Description,
      "Ours: replaces the calling sandbox platform's fault rules (requests: errors, latency, lost answers; webhooks: duplicates, delays, failed first attempts, out of order) and starts their counter over."
    ),
    HttpApiEndpoint.get("getSandboxFaults", "/sandbox/faults", { success: SandboxFaultsView, error: Error403 })
      .annotate(OpenApi.Description, "Ours: the calling sandbox platform's fault rules and how many requests matched them."),
    HttpApiEndpoint.delete("deleteSandboxFaults", "/sandbox/faults", { success: HttpApiSchema.NoContent, error: Error403 })
      .annotate(OpenApi.Description, "Ours: removes every fault rule of the calling sandbox platform."),
    HttpApiEndpoint.post("applySandboxSeed", "/sandbox/seed", {
      payload: SeedDocument,
      success: SeedResult,
      error: [Error400, Error403, Error409, Error429]
    }).annotate(
      OpenApi.Description,
      "Ours: brings the calling sandbox platform to what a seed document describes (customers, their external accounts and balances, platform external accounts and balances, config); applying it again creates nothing new."
    ),
    HttpApiEndpoint.post("createSandboxSnapshot", "/sandbox/snapshots", {
      payload: SandboxSnapshotCreateRequest,
      success: SandboxSnapshot.pipe(HttpApiSchema.status(201)),
      error: [Error400, Error403, Error409]
    }).annotate(
      OpenApi.Description,
      "Ours: saves the calling sandbox platform's whole state (every resource, the ledger, idempotency records, scheduled moves, webhook deliveries and outbox position, config) with its clock's instant (`platformTime`). Its credentials (API tokens, webhook signing key) and fault rules are not part of it. 409 CONFLICT when the platform already holds 50 snapshots."
    ),
    HttpApiEndpoint.get("listSandboxSnapshots", "/sandbox/snapshots", {
      query: PageQuery,
      success: ListResponse(SandboxSnapshot, "SandboxSnapshotListResponse"),
      error: [Error400, Error403]
    }).annotate(OpenApi.Description, "Ours: the calling sandbox platform's snapshots, oldest first."),
    HttpApiEndpoint.get("getSandboxSnapshot", "/sandbox/snapshots/:snapshotId", {
      params: { snapshotId: IdText },
      success: SandboxSnapshot,
      error: [Error403, Error404]
    }).annotate(OpenApi.Description, "Ours: one snapshot of the calling sandbox platform."),
    HttpApiEndpoint.delete("deleteSandboxSnapshot", "/sandbox/snapshots/:snapshotId", {
      params: { snapshotId: IdText },
      success: HttpApiSchema.NoContent,
      error: [Error403, Error404]
    }).annotate(OpenApi.Description, "Ours: deletes the snapshot (the platform's state is untouched)."),
    HttpApiEndpoint.post("restoreSandboxSnapshot", "/sandbox/snapshots/:snapshotId/restore", {
      params: { snapshotId: IdText },
      success: SandboxSnapshot,
      error: [Error403, Error404, Error409]
    }).annotate(
      OpenApi.Description,
      "Ours: puts the calling sandbox platform back exactly as the snapshot saved it, at once and whole (a failed restore changes nothing), and its clock back to the snapshot's `platformTime`, from which it runs on. Other platforms, and the snapshots, are untouched. 409 CONFLICT: the snapshot was taken on another version of the store's schema."
    )
  )
  .annotateMerge(OpenApi.annotations({ title: "Sandbox controls", description: "Ours: fault injection, seed documents and snapshots on sandbox platforms." }))
{}

/** Under the platform's credentials and the version base, as every platform group. */
export const SandboxControlGroup = platformGroup(SandboxControlEndpoints)
