/** Time as the operations see it: always from Effect's Clock, so tests and the sandbox can move it. */
import { Clock, Effect } from "effect"

export const nowMillis = Clock.currentTimeMillis

export const isoOf = (millis: number): string => new Date(millis).toISOString()

export const nowIso = Effect.map(Clock.currentTimeMillis, isoOf)
