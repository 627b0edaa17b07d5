import { type Context, Effect } from "effect"
import type { Platform } from "../../domain/platform.js"
import type { Ids } from "../../ports/ids.js"
import type { Store } from "../../ports/store.js"
import { CurrentPlatform } from "../middleware.js"

export type OperationServices = Store | Ids

/**
 * Captures the ports once, when the handlers are built, and returns a runner that
 * calls an operation with the authenticated platform and those ports.
 */
export const makeRunner = Effect.gen(function*() {
  const services: Context.Context<OperationServices> = yield* Effect.context<OperationServices>()
  return <A, E>(operation: (platform: Platform) => Effect.Effect<A, E, OperationServices>) =>
    Effect.flatMap(CurrentPlatform, (platform) => Effect.provide(operation(platform), services))
})
