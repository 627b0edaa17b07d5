import { group } from "../concerns.js"
import { Effect } from "effect"
import { type Error403, Error501, forbidden } from "../../domain/errors.js"
import * as Faults from "../../operations/sandbox-faults.js"
import { applySeed } from "../../operations/sandbox-seed.js"
import { run } from "./run.js"
import { CurrentPlatform } from "../middleware.js"

const withPlatform = <A, E, R>(f: (platform: typeof CurrentPlatform.Service) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(Effect.service(CurrentPlatform), f)

/** Snapshots are not built yet (issue #23): 403 on production, as every sandbox control; 501 on a sandbox platform. */
const snapshotsNotBuilt = (platform: typeof CurrentPlatform.Service): Effect.Effect<never, Error403 | Error501> =>
  platform.settings.sandbox
    ? Effect.fail(new Error501({
      code: "NOT_IMPLEMENTED",
      reason: "Sandbox snapshots are not implemented by this version of payments-service (see docs/sandbox.md#snapshots)"
    }))
    : Effect.fail(forbidden("Sandbox endpoints are not available to production platforms"))

export const SandboxControlHandlers = group("sandboxControl", (handlers) =>
  Effect.sync(() =>
    handlers
      .handle("putSandboxFaults", ({ payload }) => withPlatform((p) => Faults.putSandboxFaults(p, payload)))
      .handle("getSandboxFaults", () => withPlatform(Faults.getSandboxFaults))
      .handle("deleteSandboxFaults", () => withPlatform(Faults.deleteSandboxFaults))
      // On the platform's clock, as each operation it calls runs for its own endpoint.
      .handle("applySandboxSeed", ({ payload }) => run((p) => applySeed(p, payload)))
      .handle("createSandboxSnapshot", () => withPlatform(snapshotsNotBuilt))
      .handle("listSandboxSnapshots", () => withPlatform(snapshotsNotBuilt))
      .handle("getSandboxSnapshot", () => withPlatform(snapshotsNotBuilt))
      .handle("deleteSandboxSnapshot", () => withPlatform(snapshotsNotBuilt))
      .handle("restoreSandboxSnapshot", () => withPlatform(snapshotsNotBuilt))
  ))
