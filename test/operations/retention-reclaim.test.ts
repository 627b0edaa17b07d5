/**
 * The scheduler's retention pass asks the store for the space of what it swept back
 * (`Store.reclaim`, PGlite's VACUUM and CHECKPOINT: test/adapters/pglite-reclaim.test.ts),
 * once per sweep; while retention is off, once per sweep interval all the same (nothing is
 * swept, but updated rows leave space and every write leaves log).
 */
import { Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { staticPlatformsLayer } from "../../src/adapters/memory/platforms.js"
import { makeMemoryStore } from "../../src/adapters/memory/store.js"
import { retentionPass } from "../../src/operations/retention.js"
import { Store } from "../../src/ports/store.js"

const withReclaimCounted = () => {
  let calls = 0
  const store = { ...Effect.runSync(makeMemoryStore), reclaim: () => Effect.sync(() => void calls++) }
  const layer = Layer.merge(Layer.succeed(Store, store), staticPlatformsLayer([]))
  return { layer, calls: () => calls }
}

describe("retention pass and Store.reclaim", () => {
  it("reclaims after each sweep, and only when a sweep is due", async () => {
    const { layer, calls } = withReclaimCounted()
    // One pass object, as the scheduler keeps it: the second call comes before the interval is over.
    const pass = retentionPass(60_000, 60_000)
    await Effect.runPromise(Effect.provide(Effect.andThen(pass, pass), layer))
    expect(calls()).toBe(1)
  })

  it("reclaims while retention is off too, once per interval", async () => {
    const { layer, calls } = withReclaimCounted()
    const pass = retentionPass(false, 60_000)
    await Effect.runPromise(Effect.provide(Effect.andThen(pass, pass), layer))
    expect(calls()).toBe(1)
  })
})
