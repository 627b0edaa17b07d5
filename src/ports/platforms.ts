/** The Platforms port: the API clients the service knows, looked up by client id. */
import { Context, type Effect } from "effect"
import type { Platform } from "../domain/platform.js"

export class Platforms extends Context.Service<Platforms, {
  readonly byClientId: (clientId: string) => Effect.Effect<Platform | undefined>
  readonly all: Effect.Effect<ReadonlyArray<Platform>>
}>()("payments-service/ports/Platforms") {}
