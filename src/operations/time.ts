/** Time as the operations see it: always from Effect's Clock, so tests and the sandbox can move it. */
import { Clock, Effect } from "effect"

export const nowMillis = Clock.currentTimeMillis

let lastMillis = Number.NaN
let lastIso = ""

/** ISO-8601 text of an instant; consecutive calls within the same millisecond share the string. */
export const isoOf = (millis: number): string => {
  if (millis !== lastMillis) {
    lastIso = new Date(millis).toISOString()
    lastMillis = millis
  }
  return lastIso
}

export const nowIso = Effect.map(Clock.currentTimeMillis, isoOf)
