import { Effect } from "effect"
import * as Sandbox from "../../operations/scheduler.js"
import { implement } from "../concerns.js"
import { SandboxGroup } from "../groups/sandbox.js"
import { CurrentPlatform } from "../middleware.js"

/** Sandbox controls run on the base clock: they read and move the platform's offset themselves. */
const withPlatform = <A, E, R>(f: (platform: typeof CurrentPlatform.Service) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(Effect.service(CurrentPlatform), f)

export const SandboxHandlers = implement(SandboxGroup, (handlers) =>
  handlers
    .handle("advanceClock", ({ payload }) => withPlatform((p) => Sandbox.advanceSandboxClock(p, payload.seconds)))
    .handle("getClock", () => withPlatform(Sandbox.getSandboxClock))
    .handle("resetSandbox", () => withPlatform(Sandbox.resetSandbox))
)
