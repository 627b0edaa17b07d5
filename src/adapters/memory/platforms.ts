/** A fixed set of platforms, as loaded from `PAYMENTS_CONFIG`. */
import { Effect, Layer } from "effect"
import type { Platform } from "../../domain/platform.js"
import { Platforms } from "../../ports/platforms.js"

export const staticPlatforms = (platforms: ReadonlyArray<Platform>) => {
  const byClientId = new Map(platforms.map((p) => [p.clientId, p]))
  return Platforms.of({
    byClientId: (clientId) => Effect.sync(() => byClientId.get(clientId)),
    all: Effect.succeed(platforms)
  })
}

export const staticPlatformsLayer = (platforms: ReadonlyArray<Platform>): Layer.Layer<Platforms> =>
  Layer.succeed(Platforms, staticPlatforms(platforms))
