/**
 * A batch of attempts is recorded in one unit of work, and an `INCOMING_PAYMENT.PENDING`
 * webhook's in one of its own, with the payment its answer decides (src/operations/webhooks.ts
 * `attemptBatch`; docs/webhooks.md, "Approving incoming payments"). So when deciding that
 * payment fails, the other attempts of the batch stay recorded: the receiver got them,
 * and they are not made again. Here the decision fails because reading the payment dies
 * (a Store whose `transactions.get` dies for that one id).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { memoryLayer } from "../../src/adapters/memory/index.js"
import { platformFromConfig } from "../../src/domain/platform.js"
import { runDueWebhooks } from "../../src/operations/webhooks.js"
import { Store } from "../../src/ports/store.js"
import { WebhookSender, type WebhookDeliveryRecord } from "../../src/ports/webhooks.js"
import { recordingSender } from "../support/recording-sender.js"
import { pendingDelivery } from "../support/deliveries.js"

const platform = platformFromConfig({
  id: "approval-record",
  clientId: "approval-record-client",
  clientSecret: "approval-record-secret",
  webhookEndpoint: "https://hooks.example.invalid/payments"
})
const T0 = Date.UTC(2026, 0, 1)
const UNDECIDABLE = "Transaction:undecidable"

const delivery = (seq: number, type: string, resourceId: string): WebhookDeliveryRecord =>
  pendingDelivery({ platformId: platform.id, id: `Webhook:approval-record-${seq}`, seq, resourceId, at: T0, type, body: JSON.stringify({ type, data: { id: resourceId } }) })

describe("recording a batch of webhook attempts", () => {
  it.effect("a payment whose approval cannot be decided leaves the batch's other attempts recorded", () => {
    const { sender, sent } = recordingSender()
    return Effect.gen(function*() {
      const store = yield* Store
      const ordinary = [delivery(1, "CUSTOMER.UPDATED", "Customer:one"), delivery(2, "CUSTOMER.UPDATED", "Customer:two")]
      const approval = delivery(3, "INCOMING_PAYMENT.PENDING", UNDECIDABLE)
      yield* store.transact((uow) => uow.addWebhookDeliveries([...ordinary, approval]))
      const failing: typeof store = {
        ...store,
        transactions: {
          ...store.transactions,
          get: (platformId, id) => (id === UNDECIDABLE ? Effect.die(new Error("the payment cannot be read")) : store.transactions.get(platformId, id))
        }
      }
      const pass = yield* Effect.exit(runDueWebhooks(platform, T0, T0).pipe(Effect.provideService(Store, failing)))
      // The three went out in one batch; deciding the payment died, and the pass with it.
      assert.strictEqual(sent.length, 3)
      assert.isTrue(Exit.isFailure(pass))
      // The others' attempts are recorded; the approval's is not (its lease ends, and it is made again).
      for (const d of ordinary) {
        const stored = yield* store.webhooks.get(platform.id, d.id)
        assert.strictEqual(stored?.status, "DELIVERED", d.id)
        assert.strictEqual(stored?.attempts.length, 1)
      }
      const undecided = yield* store.webhooks.get(platform.id, approval.id)
      assert.strictEqual(undecided?.status, "PENDING")
      assert.strictEqual(undecided?.attempts.length, 0)
      assert.isDefined(undecided?.lease)
    }).pipe(Effect.provideService(WebhookSender, sender), Effect.provide(memoryLayer([platform], { seed: 11 })))
  })
})
