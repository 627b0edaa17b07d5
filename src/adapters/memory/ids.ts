/**
 * Id generation. The default draws from `crypto.randomUUID`; `seededIds(seed)` gives a
 * deterministic sequence of well-formed v4 UUIDs so a failing test replays exactly.
 * Either way, a platform with a `deterministicSeed` (the `DeterministicPlatform`
 * reference set for its work) draws from a stream of its own, seeded by its seed and id.
 */
import { createHash, randomUUID } from "node:crypto"
import { Effect, Layer } from "effect"
import { DeterministicPlatform, Ids } from "../../ports/ids.js"

/**
 * The same text as one flat string. `randomUUID` and template literals build ropes
 * (V8 cons strings: a 45-character id is a chain of about fourteen 32-byte nodes), and
 * an id is kept for as long as its record, in several indexes: copied flat it costs its
 * characters only (about 400 B less per id on the memory store's heap). Ids are ASCII.
 */
export const flatString = (s: string): string => Buffer.from(s, "latin1").toString("latin1")

export const randomIds = Ids.of({
  make: (prefix) => Effect.sync(() => flatString(`${prefix}:${randomUUID()}`)),
  uuid: Effect.sync(() => flatString(randomUUID()))
})

/** xorshift128-style generator over 32-bit words: small, fast, good enough for ids. */
const uuidStream = (words: readonly [number, number, number, number]) => {
  let a = words[0] >>> 0 || 0x9e3779b9
  let b = words[1] >>> 0
  let c = words[2] >>> 0
  let d = words[3] >>> 0
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

const seededUuid = (seed: number) => uuidStream([seed, 0x243f6a88, 0x85a308d3, 0x13198a2e])

const streamIds = (next: () => string) =>
  Ids.of({
    make: (prefix) => Effect.sync(() => flatString(`${prefix}:${next()}`)),
    uuid: Effect.sync(() => flatString(next()))
  })

/**
 * A platform's own stream: its state from SHA-256 of the seed and the platform id, so two
 * platforms given one seed still draw different ids (ids are unique service-wide).
 */
const platformUuid = (seed: number, platformId: string) => {
  const digest = createHash("sha256").update(`${seed}:${platformId}`).digest()
  return uuidStream([digest.readUInt32BE(0), digest.readUInt32BE(4), digest.readUInt32BE(8), digest.readUInt32BE(12) || 0x13198a2e])
}

/**
 * `shared` for every fiber but those working for a deterministic platform, which draw
 * from that platform's stream. The streams live as long as the returned service (one
 * app), so a fresh app starts every platform's stream over.
 */
export const perPlatformIds = (shared: typeof Ids.Service): typeof Ids.Service => {
  const streams = new Map<string, typeof Ids.Service>()
  const streamOf = (p: { readonly platformId: string; readonly seed: number }) => {
    const key = `${p.seed}:${p.platformId}`
    let ids = streams.get(key)
    if (ids === undefined) streams.set(key, ids = streamIds(platformUuid(p.seed, p.platformId)))
    return ids
  }
  return Ids.of({
    make: (prefix) => DeterministicPlatform.use((p) => p === undefined ? shared.make(prefix) : streamOf(p).make(prefix)),
    uuid: DeterministicPlatform.use((p) => p === undefined ? shared.uuid : streamOf(p).uuid)
  })
}

export const seededIds = (seed: number) => streamIds(seededUuid(seed))

export const RandomIdsLayer: Layer.Layer<Ids> = Layer.sync(Ids, () => perPlatformIds(randomIds))
export const seededIdsLayer = (seed: number): Layer.Layer<Ids> => Layer.sync(Ids, () => perPlatformIds(seededIds(seed)))
