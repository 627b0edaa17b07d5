/** The sandbox's clock and reset (sandbox platforms only: 403 on production). */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiSchema, OpenApi } from "effect/http-api"
import { Error403 } from "../../domain/errors.js"
import { MAX_ADVANCE_SECONDS } from "../../domain/limits.js"
import { apiGroup } from "../endpoints.js"

export const SandboxClock = Schema.Struct({ now: Schema.String, offsetSeconds: Schema.Number })
  .annotate({ identifier: "SandboxClock" })

export class SandboxGroup extends apiGroup(
  "sandbox",
  { title: "Sandbox", description: "Sandbox-only controls of the reference server.", permission: "MANAGE", sandboxOnly: true },
  HttpApiEndpoint.post("advanceClock", "/sandbox/clock/advance", {
    payload: Schema.Struct({ seconds: Schema.Number.check(Schema.isInt(), Schema.isBetween({ minimum: 0, maximum: MAX_ADVANCE_SECONDS })) }),
    success: SandboxClock,
    error: Error403
  }),
  HttpApiEndpoint.get("getClock", "/sandbox/clock", { success: SandboxClock, error: Error403 }),
  HttpApiEndpoint.post("resetSandbox", "/sandbox/reset", {
    success: HttpApiSchema.NoContent,
    error: Error403
  }).annotate(OpenApi.Description, "Deletes every resource, event, scheduled move, idempotency key and the clock offset of the calling sandbox platform.")
) {}
