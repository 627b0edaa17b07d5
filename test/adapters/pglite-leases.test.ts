/**
 * A PGlite data directory is one process's at a time (its lock: src/adapters/sql/pglite.ts),
 * so a webhook lease found in it when it opens was left by a process that died
 * mid-attempt: the store ends it at once, and the attempt is due again without waiting
 * for the lease to expire (docs/webhooks.md). While the store that took the lease is
 * open, the lease holds.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, ManagedRuntime } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { pgliteStoreLayer } from "../../src/adapters/sql/index.js"
import { Store, type WebhookDeliveryRecord } from "../../src/ports/store.js"
import { withPgliteTemplate } from "../support/pglite-template.js"
import { pendingDelivery } from "../support/deliveries.js"

const dirs: Array<string> = []
afterAll(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

const T0 = Date.UTC(2026, 0, 5, 12)
const HOUR = 3_600_000

const delivery = (platformId: string, n: number): WebhookDeliveryRecord =>
  pendingDelivery({ platformId, id: `Webhook:lease-${n}`, seq: n, resourceId: `Resource:lease-${n}`, at: T0, body: `{"n":${n}}` })

/** Runs `body` on the PGlite store in `dir`, closing it (and its lock) afterwards. */
const withStore = async <A>(dir: string, body: (store: Store["Service"]) => Effect.Effect<A, unknown>): Promise<A> => {
  const runtime = ManagedRuntime.make(withPgliteTemplate((template) => pgliteStoreLayer(dir, { template })))
  try {
    return await runtime.runPromise(Effect.flatMap(Effect.service(Store), body))
  } finally {
    await runtime.dispose()
  }
}

describe("webhook leases in a PGlite data directory", () => {
  // Two opens of PGlite on disk, a few seconds each on a quiet machine: a minute's margin under heavy load.
  it("a lease left by the process before is ended when the directory opens; within the process it holds", { timeout: 60_000 }, async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "pglite-leases-")), "data")
    dirs.push(dir)
    const p = "leases"
    // Real time of the claims: the lease runs an hour past it.
    const leaseNow = Date.now()
    const claim = (store: Store["Service"]) => store.transact(() => Effect.map(store.webhooks.claimDue(p, T0, leaseNow, 1), (due) => due[0]))

    await withStore(dir, (store) =>
      Effect.gen(function*() {
        yield* store.transact((uow) => uow.addWebhookDeliveries([delivery(p, 1), delivery(p, 2)]))
        // An attempt in flight: leased, then the process goes away without recording it.
        const leased = yield* store.transact((uow) =>
          Effect.gen(function*() {
            const [due] = yield* store.webhooks.claimDue(p, T0, leaseNow, 1)
            if (due === undefined) return undefined
            yield* uow.putWebhookDeliveries([{ ...due, lease: { token: "dead-process", until: leaseNow + HOUR } }])
            return due.id
          })
        )
        expect(leased).toBe("Webhook:lease-1")
        // The same process: the lease holds, so the other delivery is next.
        expect((yield* claim(store))?.id).toBe("Webhook:lease-2")
      })
    )

    await withStore(dir, (store) =>
      Effect.gen(function*() {
        const again = yield* claim(store)
        expect(again?.id).toBe("Webhook:lease-1")
        expect(again?.lease).toBeUndefined()
        expect((yield* store.webhooks.get(p, "Webhook:lease-1"))?.lease).toBeUndefined()
      })
    )
  })
})
