import { Context, Effect } from "effect"
import type { Platform } from "../../domain/platform.js"
import { onPlatformClockIn } from "../../operations/time.js"
import type { Store } from "../../ports/store.js"
import { CurrentPlatform } from "../middleware.js"

/**
 * Runs an operation for the authenticated platform, on the platform's clock (a sandbox
 * platform's own offset). The ports come from the handler layer's context.
 */
export const run = <A, E, R>(operation: (platform: Platform) => Effect.Effect<A, E, R>): Effect.Effect<A, E, R | Store | CurrentPlatform> =>
  // The platform and the clock's services read from the fiber in one step.
  Effect.withFiber((fiber): Effect.Effect<A, E, R | Store | CurrentPlatform> => {
    const platform = Context.getUnsafe(fiber.context, CurrentPlatform)
    return onPlatformClockIn(fiber, platform, operation(platform))
  })
