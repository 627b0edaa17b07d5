/**
 * Id generation. The default draws from `crypto.randomUUID`; `seededIds(seed)` gives a
 * deterministic sequence of well-formed v4 UUIDs so a failing test replays exactly.
 * Either way, a platform with a `deterministicSeed` (the `DeterministicPlatform`
 * reference set for its work) draws from a stream of its own, seeded by its seed and id.
 */
import { createHash, randomFillSync, randomUUID } from "node:crypto"
import { Effect, Layer } from "effect"
import { DeterministicPlatform, Ids } from "../../ports/ids.js"

/**
 * The same text as one flat string. `randomUUID` and template literals build ropes
 * (V8 cons strings: a 45-character id is a chain of about fourteen 32-byte nodes), and
 * an id is kept for as long as its record, in several indexes: copied flat it costs its
 * characters only (about 400 B less per id on the memory store's heap). Ids are ASCII.
 */
export const flatString = (s: string): string => {
  if (s.length > FLAT_SCRATCH.length) return Buffer.from(s, "latin1").toString("latin1")
  // Through one reused buffer: no Buffer allocated per string.
  return FLAT_SCRATCH.toString("latin1", 0, FLAT_SCRATCH.write(s, 0, "latin1"))
}
const FLAT_SCRATCH = Buffer.alloc(256)

/** Draws ids synchronously: what an `Ids` service made here draws from (one effect step per id). */
interface IdSource {
  readonly make: (prefix: string) => string
  readonly uuid: () => string
  readonly seeded: boolean
}

/** The source behind each `Ids` service made here, for `perPlatformIds` to draw from without a second effect. */
const sources = new WeakMap<typeof Ids.Service, IdSource>()

const idsOf = (source: IdSource): typeof Ids.Service => {
  const ids = Ids.of({
    make: (prefix) => Effect.sync(() => source.make(prefix)),
    uuid: Effect.sync(source.uuid),
    seeded: source.seeded
  })
  sources.set(ids, source)
  return ids
}

/**
 * Random v4 UUIDs written straight into a buffer from a pool of random bytes
 * (`crypto.randomFillSync`, as `randomUUID` keeps its own) and read out once as a flat
 * string with its prefix: no rope to flatten afterwards (`flatString`), one string per id.
 */
const randomSource = (): IdSource => {
  const POOL = 16 * 256
  let pool = Buffer.alloc(0)
  let at = 0
  const HEX = Buffer.from("0123456789abcdef", "latin1")
  const out = Buffer.alloc(256)
  /** Writes a UUID into `out` from `o`; returns where it ends. */
  const writeUuid = (o: number): number => {
    if (at + 16 > pool.length) {
      pool = randomFillSync(Buffer.allocUnsafe(POOL))
      at = 0
    }
    for (let i = 0; i < 16; i++) {
      let b = pool[at + i]!
      if (i === 6) b = (b & 0x0f) | 0x40 // version 4
      else if (i === 8) b = (b & 0x3f) | 0x80 // variant 10
      out[o++] = HEX[b >> 4]!
      out[o++] = HEX[b & 15]!
      if (i === 3 || i === 5 || i === 7 || i === 9) out[o++] = 45 // -
    }
    at += 16
    return o
  }
  return {
    make: (prefix) => {
      // Prefixes are short ASCII resource names; anything else takes the plain path.
      if (prefix.length > 128) return flatString(`${prefix}:${randomUUID()}`)
      const n = out.write(prefix, 0, "latin1")
      out[n] = 58 // :
      return out.toString("latin1", 0, writeUuid(n + 1))
    },
    uuid: () => out.toString("latin1", 0, writeUuid(0)),
    seeded: false
  }
}

export const randomIds = idsOf(randomSource())

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

const streamSource = (next: () => string): IdSource => ({
  make: (prefix) => flatString(`${prefix}:${next()}`),
  uuid: () => flatString(next()),
  seeded: true
})

const streamIds = (next: () => string) => idsOf(streamSource(next))

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
  const streams = new Map<string, IdSource>()
  const streamOf = (p: { readonly platformId: string; readonly seed: number }) => {
    const key = `${p.seed}:${p.platformId}`
    let ids = streams.get(key)
    if (ids === undefined) streams.set(key, ids = streamSource(platformUuid(p.seed, p.platformId)))
    return ids
  }
  const source = sources.get(shared)
  if (source === undefined) {
    // A service made elsewhere: its own effects for the shared stream.
    return Ids.of({
      make: (prefix) => DeterministicPlatform.use((p) => p === undefined ? shared.make(prefix) : Effect.sync(() => streamOf(p).make(prefix))),
      uuid: DeterministicPlatform.use((p) => p === undefined ? shared.uuid : Effect.sync(() => streamOf(p).uuid())),
      seeded: shared.seeded
    })
  }
  // One effect step per id: the platform read from the fiber and the id drawn in one.
  return Ids.of({
    make: (prefix) =>
      Effect.withFiberSucceed((fiber) => {
        const p = fiber.getRef(DeterministicPlatform)
        return p === undefined ? source.make(prefix) : streamOf(p).make(prefix)
      }),
    uuid: Effect.withFiberSucceed((fiber) => {
      const p = fiber.getRef(DeterministicPlatform)
      return p === undefined ? source.uuid() : streamOf(p).uuid()
    }),
    seeded: source.seeded
  })
}

export const seededIds = (seed: number) => streamIds(seededUuid(seed))

export const RandomIdsLayer: Layer.Layer<Ids> = Layer.sync(Ids, () => perPlatformIds(randomIds))
export const seededIdsLayer = (seed: number): Layer.Layer<Ids> => Layer.sync(Ids, () => perPlatformIds(seededIds(seed)))
