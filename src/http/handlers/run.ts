import type { Effect } from "effect"
import type { Platform } from "../../domain/platform.js"
import { onPlatformClock } from "../../operations/time.js"
import { CurrentPlatform } from "../middleware.js"

/**
 * Runs an operation for the authenticated platform, on the platform's clock (a sandbox
 * platform's own offset). The ports come from the handler layer's context.
 */
export const run = <A, E, R>(operation: (platform: Platform) => Effect.Effect<A, E, R>) =>
  CurrentPlatform.use((platform) => onPlatformClock(platform, operation(platform)))
