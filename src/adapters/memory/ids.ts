/**
 * Id generation. The default draws from `crypto.randomUUID`; `seededIds(seed)` gives a
 * deterministic sequence of well-formed v4 UUIDs so a failing test replays exactly.
 */
import { randomUUID } from "node:crypto"
import { Effect, Layer } from "effect"
import { Ids } from "../../ports/ids.js"

export const randomIds = Ids.of({
  make: (prefix) => Effect.sync(() => `${prefix}:${randomUUID()}`),
  uuid: Effect.sync(() => randomUUID())
})

/** xorshift128+-style generator over 32-bit words: small, fast, good enough for ids. */
const seededUuid = (seed: number) => {
  let a = seed >>> 0 || 0x9e3779b9
  let b = 0x243f6a88
  let c = 0x85a308d3
  let d = 0x13198a2e
  const next = () => {
    const t = a ^ (a << 11)
    a = b
    b = c
    c = d
    d = (d ^ (d >>> 19) ^ (t ^ (t >>> 8))) >>> 0
    return d
  }
  return () => {
    const hex = [next(), next(), next(), next()].map((w) => w.toString(16).padStart(8, "0")).join("")
    const variant = ((parseInt(hex.charAt(16), 16) & 0x3) | 0x8).toString(16)
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`
  }
}

export const seededIds = (seed: number) => {
  const next = seededUuid(seed)
  return Ids.of({
    make: (prefix) => Effect.sync(() => `${prefix}:${next()}`),
    uuid: Effect.sync(next)
  })
}

export const RandomIdsLayer: Layer.Layer<Ids> = Layer.succeed(Ids, randomIds)
export const seededIdsLayer = (seed: number): Layer.Layer<Ids> => Layer.succeed(Ids, seededIds(seed))
