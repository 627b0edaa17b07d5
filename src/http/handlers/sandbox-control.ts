import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import * as Faults from "../../operations/sandbox-faults.js"
import { applySeed } from "../../operations/sandbox-seed.js"
import { run } from "./run.js"
import { PaymentsApi } from "../api.js"
import { CurrentPlatform } from "../middleware.js"

const withPlatform = <A, E, R>(f: (platform: typeof CurrentPlatform.Service) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(Effect.service(CurrentPlatform), f)

export const SandboxControlHandlers = HttpApiBuilder.group(PaymentsApi, "sandboxControl", (handlers) =>
  Effect.sync(() =>
    handlers
      .handle("putSandboxFaults", ({ payload }) => withPlatform((p) => Faults.putSandboxFaults(p, payload)))
      .handle("getSandboxFaults", () => withPlatform(Faults.getSandboxFaults))
      .handle("deleteSandboxFaults", () => withPlatform(Faults.deleteSandboxFaults))
      // On the platform's clock, as each operation it calls runs for its own endpoint.
      .handle("applySandboxSeed", ({ payload }) => run((p) => applySeed(p, payload)))
  ))
