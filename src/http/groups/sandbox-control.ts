/**
 * Sandbox controls beyond the clock (ours; docs/sandbox.md): fault injection. Sandbox
 * platforms only: a production platform gets 403 from every one.
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Error400, Error403 } from "../../domain/errors.js"
import { SandboxFaults, SandboxFaultsView } from "../../domain/sandbox-faults.js"

export class SandboxControlGroup extends HttpApiGroup.make("sandboxControl")
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
      .annotate(OpenApi.Description, "Ours: removes every fault rule of the calling sandbox platform.")
  )
  .annotateMerge(OpenApi.annotations({ title: "Sandbox controls", description: "Ours: fault injection on sandbox platforms." }))
{}
