import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { forbidden } from "../../domain/errors.js"
import { PaymentsApi } from "../api.js"
import { CurrentPlatform } from "../middleware.js"
import { VirtualClock } from "../virtual-clock.js"

export const SandboxHandlers = HttpApiBuilder.group(PaymentsApi, "sandbox", (handlers) =>
  Effect.gen(function*() {
    const vc = yield* VirtualClock
    const view = () => ({
      now: new Date(vc.clock.currentTimeMillisUnsafe()).toISOString(),
      offsetSeconds: Math.round(vc.offsetMillis() / 1000)
    })
    const sandboxOnly = Effect.flatMap(CurrentPlatform, (p) =>
      p.settings.sandbox ? Effect.void : Effect.fail(forbidden("Sandbox endpoints are not available to production platforms")))
    return handlers
      .handle("advanceClock", ({ payload }) =>
        Effect.map(sandboxOnly, () => {
          vc.advance(payload.seconds * 1000)
          return view()
        }))
      .handle("getClock", () => Effect.map(sandboxOnly, view))
  })
)
