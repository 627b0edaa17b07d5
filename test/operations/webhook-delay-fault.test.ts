/**
 * The DELAY webhook fault (docs/sandbox.md#webhook-rules): a matching webhook's POST
 * waits `millis` before it is sent. Through the whole delivery path (the outbox import,
 * the claim, the signature, the platform's faults, the sender, the delivery log) with a
 * recording sender, on Effect's TestClock: time moves only when the test moves it, so
 * "not sent yet" and "sent once the delay is over" are exact, with no real waiting.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { memoryLayer } from "../../src/adapters/memory/index.js"
import { platformFromConfig } from "../../src/domain/platform.js"
import { createCustomer } from "../../src/operations/customers.js"
import { putSandboxFaults } from "../../src/operations/sandbox-faults.js"
import { listWebhookDeliveries, runAllDueWebhooks } from "../../src/operations/webhooks.js"
import { WebhookSender } from "../../src/ports/webhooks.js"
import { recordingSender } from "../support/recording-sender.js"

const platform = platformFromConfig({
  id: "delay-fault",
  clientId: "delay-fault-client",
  clientSecret: "delay-fault-secret",
  regulated: true,
  webhookEndpoint: "https://hooks.example.invalid/payments"
})

/** Lets the forked pass run until it blocks (on the delay's sleep, or done). */
const settle = Effect.gen(function*() {
  for (let i = 0; i < 50; i++) yield* Effect.yieldNow
})

describe("webhook faults: DELAY", () => {
  it.effect("a DELAY rule holds the matching webhook back for its millis, then sends it marked; other webhooks go at once", () => {
    const { sent, sender, typesSent } = recordingSender()
    return Effect.gen(function*() {
      yield* putSandboxFaults(platform, { seed: 1, webhooks: [{ id: "slow", eventType: "CUSTOMER.*", action: { type: "DELAY", millis: 5_000 } }] })
      yield* createCustomer(platform, { customerType: "INDIVIDUAL", fullName: "Ada Lovelace", platformCustomerId: "ada" })
      const pass = yield* Effect.forkChild(runAllDueWebhooks)
      yield* settle
      // Not matched by the rule: sent at once. The customer's webhook waits.
      assert.isTrue(typesSent().some((t) => t.startsWith("INTERNAL_ACCOUNT.")))
      assert.isFalse(typesSent().some((t) => t.startsWith("CUSTOMER.")))
      yield* TestClock.adjust(4_999)
      yield* settle
      assert.isFalse(typesSent().some((t) => t.startsWith("CUSTOMER.")))
      yield* TestClock.adjust(1)
      yield* Fiber.join(pass)
      const delayed = sent.filter((r) => (JSON.parse(r.body) as { type: string }).type.startsWith("CUSTOMER."))
      assert.strictEqual(delayed.length, 1)
      assert.strictEqual(delayed[0]!.headers["x-sandbox-fault"], "slow")
      // Delivered at the first attempt: a delay is not a failure.
      const log = yield* listWebhookDeliveries(platform, {})
      const delivery = log.data.find((d) => d.type.startsWith("CUSTOMER."))
      assert.strictEqual(delivery?.status, "DELIVERED")
      assert.strictEqual(delivery?.attempts.length, 1)
      assert.strictEqual(delivery?.attempts[0]?.statusCode, 200)
    }).pipe(Effect.provideService(WebhookSender, sender), Effect.provide(memoryLayer([platform], { seed: 3 })))
  })

  it.effect("without the rule the same webhook goes at once (the control)", () => {
    const { sender, typesSent } = recordingSender()
    return Effect.gen(function*() {
      yield* createCustomer(platform, { customerType: "INDIVIDUAL", fullName: "Ada Lovelace", platformCustomerId: "ada" })
      const pass = yield* Effect.forkChild(runAllDueWebhooks)
      yield* settle
      assert.isTrue(typesSent().some((t) => t.startsWith("CUSTOMER.")))
      yield* Fiber.join(pass)
    }).pipe(Effect.provideService(WebhookSender, sender), Effect.provide(memoryLayer([platform], { seed: 3 })))
  })
})
