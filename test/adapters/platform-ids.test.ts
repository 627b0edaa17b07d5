/**
 * Per-platform id streams (docs/sandbox.md#a-deterministic-platform): a fiber working for
 * a deterministic platform draws from that platform's own stream, the same on every fresh
 * service; other fibers draw from the shared stream, untouched by the platform's draws.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { perPlatformIds, randomIds, seededIds } from "../../src/adapters/memory/ids.js"
import { DeterministicPlatform, type Ids } from "../../src/ports/ids.js"

const draw = (ids: typeof Ids.Service, n: number, as?: { platformId: string; seed: number }) => {
  const many = Effect.forEach(Array.from({ length: n }), () => ids.make("Customer"))
  return Effect.runSync(as === undefined ? many : Effect.provideService(many, DeterministicPlatform, as))
}

describe("perPlatformIds", () => {
  it("a platform's stream repeats on a fresh service and does not move the shared stream", () => {
    const one = perPlatformIds(seededIds(1))
    const two = perPlatformIds(seededIds(1))
    const det = { platformId: "det", seed: 42 }
    const a = draw(one, 3, det)
    // The second service's shared stream is used first: the platform's stream does not care.
    const shared = draw(two, 2)
    expect(draw(two, 3, det)).toEqual(a)
    // The first service's shared stream starts where it would have without the platform's draws.
    expect(draw(one, 2)).toEqual(shared)
  })

  it("another seed or another platform id gives another stream; the shared random stream stays random", () => {
    const ids = perPlatformIds(randomIds)
    const a = draw(perPlatformIds(randomIds), 2, { platformId: "det", seed: 42 })
    expect(draw(perPlatformIds(randomIds), 2, { platformId: "det", seed: 43 })).not.toEqual(a)
    expect(draw(perPlatformIds(randomIds), 2, { platformId: "other", seed: 42 })).not.toEqual(a)
    expect(draw(ids, 1)).not.toEqual(draw(perPlatformIds(randomIds), 1))
    for (const id of a) expect(id).toMatch(/^Customer:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  })
})
