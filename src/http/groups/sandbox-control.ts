/**
 * Sandbox controls beyond the clock (ours; docs/sandbox.md): fault injection and seed documents. Sandbox
 * platforms only: a production platform gets 403 from every one.
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { IdText } from "../../domain/common.js"
import { Error400, Error403, Error409, Error429, Error501 } from "../../domain/errors.js"
import { SandboxFaults, SandboxFaultsView } from "../../domain/sandbox-faults.js"
import { SeedDocument, SeedResult } from "../../domain/sandbox-seed.js"
import { Concerns } from "../declarations.js"

export class SandboxControlGroup extends HttpApiGroup.make("sandboxControl")
  .annotate(Concerns, { permission: "MANAGE" })
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
    // Snapshots (issue #23) are not built yet: every one answers 501 on a sandbox platform (403 on production).
    HttpApiEndpoint.post("createSandboxSnapshot", "/sandbox/snapshots", { success: HttpApiSchema.NoContent, error: [Error403, Error501] })
      .annotate(OpenApi.Description, "Ours, not built yet (501): would save the calling sandbox platform's whole state."),
    HttpApiEndpoint.get("listSandboxSnapshots", "/sandbox/snapshots", { success: HttpApiSchema.NoContent, error: [Error403, Error501] })
      .annotate(OpenApi.Description, "Ours, not built yet (501)."),
    HttpApiEndpoint.get("getSandboxSnapshot", "/sandbox/snapshots/:snapshotId", {
      params: { snapshotId: IdText },
      success: HttpApiSchema.NoContent,
      error: [Error403, Error501]
    }).annotate(OpenApi.Description, "Ours, not built yet (501)."),
    HttpApiEndpoint.delete("deleteSandboxSnapshot", "/sandbox/snapshots/:snapshotId", {
      params: { snapshotId: IdText },
      success: HttpApiSchema.NoContent,
      error: [Error403, Error501]
    }).annotate(OpenApi.Description, "Ours, not built yet (501)."),
    HttpApiEndpoint.post("restoreSandboxSnapshot", "/sandbox/snapshots/:snapshotId/restore", {
      params: { snapshotId: IdText },
      success: HttpApiSchema.NoContent,
      error: [Error403, Error501]
    }).annotate(OpenApi.Description, "Ours, not built yet (501): would put the calling sandbox platform back as the snapshot saved it.")
  )
  .annotateMerge(OpenApi.annotations({ title: "Sandbox controls", description: "Ours: fault injection and seed documents on sandbox platforms (snapshots: 501, not built yet)." }))
{}
