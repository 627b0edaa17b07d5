/**
 * The background webhook worker drains a backlog (docs/webhooks.md, "Time"): a pass makes
 * at most `MAX_ATTEMPTS_PER_PASS` attempts per platform, and when it stopped there with
 * attempts still due the next pass follows at once instead of after the interval. On
 * Effect's TestClock, with an interval of an hour that the test never lets pass: every
 * delivery is attempted only if the worker does not wait between full passes.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer } from "effect"
import { memoryLayer } from "../../src/adapters/memory/index.js"
import { pgliteClientLayer, pgliteStoreOnClient } from "../../src/adapters/sql/index.js"
import { platformFromConfig } from "../../src/domain/platform.js"
import { createCustomer } from "../../src/operations/customers.js"
import { listWebhookDeliveries, MAX_ATTEMPTS_PER_PASS, runAllDueWebhooks, webhookLoop } from "../../src/operations/webhooks.js"
import { Store } from "../../src/ports/store.js"
import { WebhookSender, type WebhookSenderService } from "../../src/ports/webhooks.js"
import { recordingSender } from "../support/recording-sender.js"

const platform = platformFromConfig({
  id: "webhook-backlog",
  clientId: "webhook-backlog-client",
  clientSecret: "webhook-backlog-secret",
  regulated: true,
  webhookEndpoint: "https://hooks.example.invalid/payments"
})

/** Lets forked work run until nothing more is sent for a while (it waits on the clock, or is done). */
const settle = (sent: ReadonlyArray<unknown>) =>
  Effect.gen(function*() {
    let quiet = 0
    let seen = sent.length
    while (quiet < 200) {
      yield* Effect.yieldNow
      if (sent.length === seen) quiet++
      else {
        seen = sent.length
        quiet = 0
      }
    }
  })

/** Customers whose events make more deliveries than one pass attempts. */
const backlog = Effect.gen(function*() {
  let i = 0
  for (;;) {
    yield* createCustomer(platform, { customerType: "INDIVIDUAL", fullName: `Payer ${i}`, platformCustomerId: `payer-${i}` })
    i++
    // Each customer makes a few events; stop once they exceed two passes' worth.
    if (i * 2 > 2 * MAX_ATTEMPTS_PER_PASS) return
  }
})

/** Every delivery of the log, page by page: how many there are, and how many are not DELIVERED. */
const deliveryLog = Effect.gen(function*() {
  let cursor: string | undefined
  let total = 0
  let undelivered = 0
  for (;;) {
    const page = yield* listWebhookDeliveries(platform, { limit: 100, cursor })
    total += page.data.length
    undelivered += page.data.filter((d) => d.status !== "DELIVERED").length
    if (!page.hasMore || page.nextCursor === undefined) return { total, undelivered }
    cursor = page.nextCursor
  }
})

describe("the background webhook worker and a backlog", () => {
  it.effect("a pass stops at MAX_ATTEMPTS_PER_PASS and says attempts are still due", () => {
    const { sender, sent } = recordingSender()
    return Effect.gen(function*() {
      yield* backlog
      const more = yield* runAllDueWebhooks
      // At the cap (its four concurrent senders may each finish the attempt they began).
      assert.isAtLeast(sent.length, MAX_ATTEMPTS_PER_PASS)
      assert.isBelow(sent.length, MAX_ATTEMPTS_PER_PASS + 4)
      assert.isTrue(more)
      // Passes until one ends below the cap: then nothing is due.
      let last: boolean = more
      while (last) last = yield* runAllDueWebhooks
      assert.isAbove(sent.length, 2 * MAX_ATTEMPTS_PER_PASS)
      assert.deepStrictEqual(yield* deliveryLog, { total: sent.length, undelivered: 0 })
      assert.isFalse(yield* runAllDueWebhooks)
    }).pipe(Effect.provideService(WebhookSender, sender), Effect.provide(memoryLayer([platform], { seed: 5 })))
  })

  it.effect("the worker runs the next pass at once after a full one: the whole backlog goes before the interval", () => {
    const { sender, sent } = recordingSender()
    return Effect.gen(function*() {
      yield* backlog
      // An hour between passes, on a clock that never moves: only the first pass, and
      // the passes that follow a full one at once, can run.
      const worker = yield* Effect.forkChild(webhookLoop(3_600_000))
      yield* settle(sent)
      // Each delivery attempted once, and every one delivered.
      assert.isAbove(sent.length, 2 * MAX_ATTEMPTS_PER_PASS)
      assert.deepStrictEqual(yield* deliveryLog, { total: sent.length, undelivered: 0 })
      yield* Fiber.interrupt(worker)
    }).pipe(Effect.provideService(WebhookSender, sender), Effect.provide(memoryLayer([platform], { seed: 5 })))
  })

  it.effect("a pass attempts what it imported before it imports the rest: an outbox growing faster than the import still gets webhooks out", () =>
    Effect.gen(function*() {
      yield* backlog
      const store = yield* Store
      const events = yield* store.events.list(platform.id)
      const lastSeq = events.at(-1)!.seq
      // At each attempt, how far the import had gone.
      const cursors: Array<number | undefined> = []
      const sender: WebhookSenderService = {
        send: () => Effect.map(store.webhooks.cursor(platform.id), (cursor) => {
          cursors.push(cursor)
          return { _tag: "Answered" as const, status: 200, body: "", durationMs: 0 }
        })
      }
      yield* Effect.provideService(runAllDueWebhooks, WebhookSender, sender)
      assert.isAtLeast(cursors.length, MAX_ATTEMPTS_PER_PASS)
      // The first attempt went out with most of the outbox still to import (an import that
      // ran until it caught up made the first attempt at the last seq).
      assert.isBelow(cursors[0]!, lastSeq / 2)
    }).pipe(Effect.provide(memoryLayer([platform], { seed: 5 }))))

  it.effect("a pass ends once nothing is due, while its batches overlap (a worker that found nothing waits for one that made attempts, not for any)", () =>
    Effect.gen(function*() {
      // A few customers: each makes deliveries of a few resources, some of one resource in turn.
      for (let i = 0; i < 5; i++) yield* createCustomer(platform, { customerType: "INDIVIDUAL", fullName: `Payer ${i}`, platformCustomerId: `overlap-${i}` })
      const store = yield* Store
      const expected = (yield* store.events.list(platform.id)).length
      // Answers after a few turns of the scheduler, so batches are out at once.
      const sent: Array<unknown> = []
      const sender: WebhookSenderService = {
        send: (request) =>
          Effect.gen(function*() {
            for (let i = 0; i < 3; i++) yield* Effect.yieldNow
            sent.push(request)
            return { _tag: "Answered" as const, status: 200, body: "", durationMs: 0 }
          })
      }
      const more = yield* Effect.provideService(runAllDueWebhooks, WebhookSender, sender)
      assert.isFalse(more)
      assert.strictEqual(sent.length, expected)
      assert.deepStrictEqual(yield* deliveryLog, { total: expected, undelivered: 0 })
    }).pipe(
      // PGlite's store: its units of work wait for the database, so batches are out together.
      Effect.provide(Layer.orDie(Layer.provideMerge(pgliteStoreOnClient(undefined), pgliteClientLayer(undefined, {})))),
      Effect.provide(memoryLayer([platform], { seed: 5 }))
    ), 60_000)
})
