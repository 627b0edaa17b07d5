/**
 * The SQL fault rule store answers "no request rules" without a fiber or a read while its
 * kept answer (FAULT_RULES_CACHE_MILLIS of real time) says so: every request of a
 * sandbox platform asks (src/http/sandbox-faults.ts), and most platforms have none. It
 * answers false, so the caller reads through `get`, whenever it cannot tell: nothing kept
 * yet, rules with request rules kept, or the kept answer too old.
 *
 * Real time stands still in each test (`Date.now` fixed; the store's Clock reads it too),
 * so a slow machine cannot age a kept answer past the cache's time between two lines.
 */
import { Effect, ManagedRuntime } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { pgliteStoreLayer } from "../../src/adapters/sql/index.js"
import { FAULT_RULES_CACHE_MILLIS, SandboxFaultStore } from "../../src/ports/sandbox-faults.js"
import { Store } from "../../src/ports/store.js"
import { withPgliteTemplate } from "../support/pglite-template.js"

const runtime = ManagedRuntime.make(withPgliteTemplate((template) => pgliteStoreLayer(undefined, { template })))
afterAll(() => runtime.dispose())

const faults = () => runtime.runPromise(Effect.flatMap(Effect.service(Store), () => Effect.service(SandboxFaultStore)))

/** Runs `body` with `Date.now` fixed (moved only by `setNow`), then restores it. */
const withNow = async (body: (setNow: (millis: number) => void) => Promise<void>): Promise<void> => {
  const realNow = Date.now
  let now = realNow()
  Date.now = () => now
  try {
    await body((millis) => {
      now = millis
    })
  } finally {
    Date.now = realNow
  }
}

describe("the SQL fault rule store's synchronous answer", () => {
  it("is true only while a kept answer of no request rules is fresh", { timeout: 60_000 }, async () => {
    const store = await faults()
    const sync = store.withoutRequestRules
    expect(sync).toBeDefined()
    if (sync === undefined) return
    await withNow(async () => {
      // Nothing kept yet: it cannot tell.
      expect(sync("p-none")).toBe(false)
      // Read once (no row): "none" is kept, and answered at once.
      expect(await runtime.runPromise(store.get("p-none"))).toBeUndefined()
      expect(sync("p-none")).toBe(true)
      // Rules with a request rule: never "none".
      await runtime.runPromise(store.put("p-rules", {
        seed: 0,
        requests: [{ id: "r1", match: { method: "POST" }, action: { type: "ERROR", status: 503 } }],
        webhooks: []
      }))
      expect(sync("p-rules")).toBe(false)
      // No request rules (webhook rules only, here none): "none".
      await runtime.runPromise(store.put("p-webhooks", { seed: 0, requests: [], webhooks: [] }))
      expect(sync("p-webhooks")).toBe(true)
      // Removed: none.
      await runtime.runPromise(store.remove("p-rules"))
      expect(sync("p-rules")).toBe(true)
    })
  })

  it("is false once the kept answer is older than the cache's time, or stamped ahead of the clock", { timeout: 60_000 }, async () => {
    const store = await faults()
    await withNow(async (setNow) => {
      const start = Date.now()
      expect(await runtime.runPromise(store.get("p-old"))).toBeUndefined()
      expect(store.withoutRequestRules?.("p-old")).toBe(true)
      setNow(start + FAULT_RULES_CACHE_MILLIS - 1)
      expect(store.withoutRequestRules?.("p-old")).toBe(true)
      setNow(start + FAULT_RULES_CACHE_MILLIS)
      expect(store.withoutRequestRules?.("p-old")).toBe(false)
      // A clock behind the kept stamp (another clock stamped it): not fresh either.
      setNow(start - 60_000)
      expect(store.withoutRequestRules?.("p-old")).toBe(false)
    })
  })
})
