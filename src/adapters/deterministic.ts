/**
 * Deterministic runs (docs/sandbox.md#deterministic-runs): the base clock stands still
 * at a fixed instant, so every timestamp comes from the platform's sandbox clock alone
 * (that instant plus what `POST /sandbox/clock/advance` added), and ids come from the
 * seeded Ids stream (`seededIds`). The same requests against a fresh server then give
 * byte-identical answers and webhooks.
 */
import { Clock, Effect, Layer } from "effect"
import { DETERMINISTIC_EPOCH_MILLIS, standingClock } from "../domain/platform.js"
export { DETERMINISTIC_EPOCH_MILLIS } from "../domain/platform.js"

/** A clock that always reads `at`; sleeping (timeouts, polling) still takes real time. */
export const frozenClock = (at: number, base: Clock.Clock = Clock.Clock.defaultValue()): Clock.Clock => standingClock(base, at)

/** The base clock of a deterministic run, as a layer to merge into the app's services. */
export const frozenClockLayer = (at: number = DETERMINISTIC_EPOCH_MILLIS) => Layer.succeed(Clock.Clock, frozenClock(at))
