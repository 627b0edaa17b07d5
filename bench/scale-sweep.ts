/**
 * The memory store's retention sweep over a large backlog, timed:
 *
 *   node --max-old-space-size=8000 --import tsx bench/scale-sweep.ts events 4000000
 *   node --max-old-space-size=8000 --import tsx bench/scale-sweep.ts deliveries 3000000
 *
 * Stores N events (or N DELIVERED webhook deliveries), all older than the cut, then sweeps
 * them in batches of 2,000 (`SWEEP_BATCH`, what the scheduler's passes remove) until none
 * is left, and prints the time: a batch whose cost grows with what is behind it makes
 * the whole backlog cost O(N² / 2,000) (docs/performance.md, "The memory store's event
 * sweep"). What `npm run bench:scale` does after filling 1,000,000 payments, alone.
 */
import { Effect } from "effect"
import { makeMemoryStore } from "../src/adapters/memory/store.js"
import { SWEEP_BATCH } from "../src/operations/retention.js"

const kind = process.argv[2] === "deliveries" ? "deliveries" : "events"
const N = Number(process.argv[3] ?? "1000000")
const platformId = "Platform:sweep-bench"
const T0 = Date.parse("2026-01-01T00:00:00.000Z")
const CHUNK = 50_000

const program = Effect.gen(function*() {
  const store = yield* makeMemoryStore
  for (let from = 0; from < N; from += CHUNK) {
    const ns = Array.from({ length: Math.min(CHUNK, N - from) }, (_, k) => from + k)
    yield* store.transact((uow) =>
      Effect.forEach(ns, (i) =>
        kind === "events"
          ? uow.emit({ id: `Webhook:event-${i}`, platformId, type: "TEST", timestamp: new Date(T0 + i).toISOString() })
          : uow.addWebhookDeliveries([{
            platformId,
            id: `Webhook:00000000-0000-4000-8000-${i.toString().padStart(12, "0")}`,
            seq: i + 1,
            type: "TEST",
            resourceId: `Transaction:${i % 1000}`,
            body: "{}",
            status: "DELIVERED",
            attempts: [{ at: T0 + i, url: "https://receiver.invalid/hook", durationMs: 3, statusCode: 200 }],
            round: 1,
            nextAttemptAt: T0 + i,
            createdAt: T0 + i,
            updatedAt: T0 + i
          }]), { discard: true })
    )
  }
  // Every event but the newest is consumed (no endpoint: the sweep's rule), and every one is older than the cut.
  const upToSeq = (yield* store.webhooks.lastEventSeq(platformId)) - 1
  const cut = T0 + N + 1
  const began = performance.now()
  let removed = 0
  let batches = 0
  for (;;) {
    const r = yield* store.transact((uow) =>
      kind === "events" ? uow.sweepEvents(platformId, { upToSeq, before: cut, limit: SWEEP_BATCH }) : uow.sweepWebhookDeliveries(platformId, cut, SWEEP_BATCH)
    )
    if (r === 0) break
    removed += r
    batches++
  }
  const ms = performance.now() - began
  console.log(`${kind}: ${N.toLocaleString("en-US")} stored, ${removed.toLocaleString("en-US")} swept in ${batches} batches of ${SWEEP_BATCH}: ${(ms / 1000).toFixed(1)} s`)
})

Effect.runPromise(program).catch((e) => {
  console.error(e)
  process.exit(1)
})
