/**
 * Webhooks end to end, with a real receiver (node:http on a loopback port): the TEST
 * webhook of PATCH /config and of POST /sandbox/webhooks/test, every area's events
 * arriving signed (checked with the exported verifier and with node:crypto alone), the
 * retry schedule on a moved sandbox clock, FAILED and redelivery, 409 as delivered, a
 * receiver that never answers, and (property) per-resource order of what is delivered.
 */
import { Effect } from "effect"
import fc from "fast-check"
import { afterEach, describe, expect, it } from "vitest"
import { parseWebhookEnvelope, verifyWebhookSignature, webhookBodyOf, WEBHOOK_SIGNATURE_HEADER } from "../../src/index.js"
import { makeWebHandler } from "../../src/http/app.js"
import { MAX_ATTEMPTS, retryDelayMillis } from "../../src/operations/webhooks.js"
import { Store } from "../../src/ports/store.js"
import type { DomainEvent } from "../../src/ports/events.js"
import type { Platform } from "../../src/domain/platform.js"
import { basic, defaultTestStore, makeApi, readReply, testServices } from "../support/api.js"
import { accountNumberEnding, moneyClient, moneyPlatform } from "../support/money.js"
import { eventually, nodeVerifies, type Receiver, startReceiver } from "../support/webhook-receiver.js"

const cleanup: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f()
})

const setup = async (platforms: ReadonlyArray<Platform> = [moneyPlatform("hooks")], options: { schedulerIntervalMillis?: number } = {}) => {
  const receiver = await startReceiver()
  const api = options.schedulerIntervalMillis === undefined
    ? makeApi(platforms)
    : (() => {
      const app = makeWebHandler({ services: testServices(defaultTestStore(), platforms), schedulerIntervalMillis: options.schedulerIntervalMillis })
      const call = async (method: string, path: string, o: { body?: unknown; as?: Platform } = {}) =>
        readReply(await app.handler(new Request(`http://test/2025-10-13${path}`, {
          method,
          headers: { authorization: basic(o.as ?? platforms[0]!), ...(o.body === undefined ? {} : { "content-type": "application/json" }) },
          ...(o.body === undefined ? {} : { body: JSON.stringify(o.body) })
        })))
      return { ...app, call }
    })()
  cleanup.push(() => receiver.close(), () => api.dispose())
  const m = moneyClient(api as Parameters<typeof moneyClient>[0], platforms[0]!)
  const outbox = async (platform = platforms[0]!): Promise<ReadonlyArray<DomainEvent>> => {
    const context = await api.ready
    return Effect.runPromise(Effect.provideContext(Effect.flatMap(Effect.service(Store), (s) => s.events.list(platform.id)), context))
      .then((es) => es.map((e) => e.event))
  }
  return { receiver, api, m, outbox }
}

const publicKeyOf = async (m: ReturnType<typeof moneyClient>) => (await m.ok("GET", "/webhooks/public-key")).publicKey as string

const expectSigned = (receiver: Receiver, publicKey: string) => {
  for (const r of receiver.got) {
    expect(r.signature, r.body).toBeDefined()
    expect(r.contentType).toBe("application/json")
    expect(verifyWebhookSignature(r.body, r.signature!, publicKey)).toBe(true)
    expect(nodeVerifies(r.body, r.signature!, publicKey)).toBe(true)
    // A changed byte fails.
    expect(verifyWebhookSignature(`${r.body} `, r.signature!, publicKey)).toBe(false)
    expect(parseWebhookEnvelope(r.body).id).toBe(r.id)
  }
}

describe("the webhook endpoint and the signing key", () => {
  it("PATCH /config with an endpoint sends one signed TEST webhook; GET /config and GET /webhooks/public-key publish the key", async () => {
    const { receiver, m } = await setup()
    const key = await m.ok("GET", "/webhooks/public-key")
    expect(key).toEqual({ publicKey: expect.stringMatching(/^04[0-9a-f]{128}$/), algorithm: "ECDSA_P256_SHA256", header: WEBHOOK_SIGNATURE_HEADER, signatureEncoding: "BASE64_DER" })
    expect(WEBHOOK_SIGNATURE_HEADER).toBe("X-Service-Signature")
    const before = await m.ok("GET", "/config")
    expect(before.webhookPublicKey).toBe(key.publicKey)
    expect(before.webhookEndpoint).toBeUndefined()

    const patched = await m.ok("PATCH", "/config", { webhookEndpoint: receiver.url })
    expect(patched).toMatchObject({ webhookEndpoint: receiver.url, webhookPublicKey: key.publicKey })
    await eventually(() => receiver.got.length === 1, 5_000, "the TEST webhook")
    const test = receiver.got[0]!
    expect(JSON.parse(test.body)).toEqual({ id: expect.stringMatching(/^Webhook:[0-9a-f-]{36}$/), type: "TEST", timestamp: expect.any(String) })
    expectSigned(receiver, key.publicKey)
    // The same endpoint again is no change: no second TEST. Another endpoint gets one.
    await m.ok("PATCH", "/config", { webhookEndpoint: receiver.url })
    await m.advance(0)
    expect(receiver.got.length).toBe(1)
    const other = await startReceiver()
    cleanup.push(() => other.close())
    await m.ok("PATCH", "/config", { webhookEndpoint: other.url })
    await eventually(() => other.got.length === 1, 5_000, "the TEST webhook at the new endpoint")
    expect(other.got[0]!.type).toBe("TEST")
    // The key does not change.
    expect(await publicKeyOf(m)).toBe(key.publicKey)
  })

  it("an endpoint that is not an http(s) URL is refused", async () => {
    const { m } = await setup()
    const r = await m.call("PATCH", "/config", { webhookEndpoint: "ftp://hooks.payments-test.invalid/hooks" })
    expect(r.status).toBe(400)
    expect(r.body.code).toBe("INVALID_INPUT")
  })
})

describe("POST /sandbox/webhooks/test", () => {
  it("400 WEBHOOK_ENDPOINT_NOT_SET without an endpoint", async () => {
    const { m } = await setup()
    const r = await m.call("POST", "/sandbox/webhooks/test")
    expect(r.status).toBe(400)
    expect(r.body.code).toBe("WEBHOOK_ENDPOINT_NOT_SET")
  })

  it("200 TestWebhookResponse when the receiver answers 2xx; 400 WEBHOOK_DELIVERY_ERROR on a non-2xx or no connection", async () => {
    const { receiver, m } = await setup()
    await m.ok("PATCH", "/config", { webhookEndpoint: receiver.url })
    await eventually(() => receiver.got.length === 1, 5_000, "the TEST webhook")
    const ok = await m.ok("POST", "/sandbox/webhooks/test")
    expect(ok).toEqual({ url: receiver.url, response_status: 200, response_body: expect.stringContaining("Webhook:") })
    expect(receiver.got.length).toBe(2)
    expect(receiver.got[1]!.type).toBe("TEST")
    expectSigned(receiver, await publicKeyOf(m))

    receiver.state.respond = () => 500
    const failed = await m.call("POST", "/sandbox/webhooks/test")
    expect(failed.status).toBe(400)
    expect(failed.body.code).toBe("WEBHOOK_DELIVERY_ERROR")
    expect(failed.body.reason).toContain("500")

    await receiver.close()
    const refused = await m.call("POST", "/sandbox/webhooks/test")
    expect(refused.status).toBe(400)
    expect(refused.body.code).toBe("WEBHOOK_DELIVERY_ERROR")
    expect(refused.body.reason).toMatch(/ECONNREFUSED|ECONNRESET|refused|closed|fetch failed/i)
  })

  it("403 for a production platform", async () => {
    const production = moneyPlatform("hooks-production", { sandbox: false })
    const { m } = await setup([production])
    expect((await m.call("POST", "/sandbox/webhooks/test")).status).toBe(403)
    expect((await m.call("GET", "/sandbox/webhooks/deliveries")).status).toBe(403)
    expect((await m.call("GET", "/webhooks/public-key")).status).toBe(200)
  })
})

/** A sandbox platform whose customers are approved at creation, and one that verifies them. */
const regulated = moneyPlatform("hooks-all")

describe("every area's events arrive signed", () => {
  it("customers, internal accounts, external accounts, outgoing and incoming payments: each committed event once, verifiable", async () => {
    const { receiver, m, outbox } = await setup([regulated])
    await m.ok("PATCH", "/config", { webhookEndpoint: receiver.url })
    const c = await m.fundedCustomer({ USD: 100_000 }, { umaAddress: "$hooks@sandbox.uma.local" })
    // An account pending micro-entry validation: ACTIVE three days later (EXTERNAL_ACCOUNT.STATUS_UPDATED).
    const pending = await m.externalUsd(c.id, accountNumberEnding("901"), { routingNumber: "021000901" })
    expect(pending.status).toBe("PENDING")
    const payee = await m.externalUsd(c.id, accountNumberEnding("000"))
    await m.pay(c.accounts.USD, payee.id, 1_000)
    await m.ok("POST", "/sandbox/uma/receive", { senderUmaAddress: "$success.usd@sandbox.grid.uma.money", receiverUmaAddress: "$hooks@sandbox.uma.local", receivingCurrencyCode: "USD", receivingCurrencyAmount: 500 })
    await m.advance(4 * 86_400)

    const events = (await outbox()).filter((e) => e.type !== "TEST" || true)
    const expected = events.map((e) => e.id)
    await eventually(() => new Set(receiver.acknowledged().map((r) => r.id)).size >= expected.length, 10_000, "every event")
    expect(new Set(receiver.got.map((r) => r.id))).toEqual(new Set(expected))
    expect(receiver.got.length).toBe(expected.length)
    const families = new Set(receiver.got.map((r) => r.type.split(".")[0]))
    for (const family of ["TEST", "CUSTOMER", "INTERNAL_ACCOUNT", "EXTERNAL_ACCOUNT", "OUTGOING_PAYMENT", "INCOMING_PAYMENT"]) {
      expect(families, [...families].join(",")).toContain(family)
    }
    // The body is the event's envelope encoded with its type's schema, byte for byte.
    const byId = new Map(events.map((e) => [e.id, e]))
    for (const r of receiver.got) expect(r.body).toBe(webhookBodyOf(byId.get(r.id)!))
    expectSigned(receiver, await publicKeyOf(m))
    // Write-only fields never leave: no customer identifier in any body.
    expect(receiver.got.some((r) => r.body.includes("\"identifier\""))).toBe(false)

    const log = await m.ok("GET", "/sandbox/webhooks/deliveries?limit=100")
    expect(log.totalCount).toBe(expected.length)
    expect(log.data.every((d: { status: string; attempts: Array<unknown> }) => d.status === "DELIVERED" && d.attempts.length === 1)).toBe(true)
    expect(log.data[0].attempts[0]).toEqual({ at: expect.any(String), url: receiver.url, durationMs: expect.any(Number), statusCode: 200 })
  })

  it("verification events (an unregulated platform's KYC submission) arrive too", async () => {
    const skip = moneyPlatform("hooks-kyc", { regulated: false })
    const { receiver, m, outbox } = await setup([skip])
    await m.ok("PATCH", "/config", { webhookEndpoint: receiver.url })
    const c = await m.customer()
    await m.ok("POST", "/verifications", { customerId: c.id })
    await m.advance(60)
    const events = await outbox()
    await eventually(() => receiver.acknowledged().length >= events.length, 10_000, "every event")
    const types = receiver.got.map((r) => r.type)
    expect(types.some((t) => t.startsWith("VERIFICATION.")), types.join(",")).toBe(true)
    expectSigned(receiver, await publicKeyOf(m))
  })

  it("events committed before an endpoint was set are not delivered", async () => {
    const { receiver, m } = await setup([moneyPlatform("hooks-before")])
    await m.customer()
    await m.ok("PATCH", "/config", { webhookEndpoint: receiver.url })
    await m.advance(0)
    await eventually(() => receiver.got.length >= 1, 5_000, "the TEST webhook")
    expect(receiver.got.map((r) => r.type)).toEqual(["TEST"])
  })
})

describe("retries on the sandbox clock", () => {
  it("a receiver failing 3 times then answering 200 gets each webhook acknowledged once, on the documented schedule", async () => {
    const { receiver, m } = await setup([moneyPlatform("hooks-retry")])
    receiver.state.respond = (r) => (r.n <= 3 ? 503 : 200)
    await m.ok("PATCH", "/config", { webhookEndpoint: receiver.url })
    await eventually(() => receiver.got.length === 1, 5_000, "the first TEST attempt")
    const testId = receiver.got[0]!.id
    const start = await m.clock()
    // Not due yet: no attempt.
    await m.advance(30)
    expect(receiver.got.length).toBe(1)
    // A day later every retry that fell due was made, at its due time.
    await m.advance(86_400)
    const attempts = receiver.got.filter((r) => r.id === testId)
    expect(attempts.map((r) => r.status)).toEqual([503, 503, 503, 200])
    expect(receiver.acknowledged().filter((r) => r.id === testId).length).toBe(1)
    const log = await m.ok("GET", "/sandbox/webhooks/deliveries")
    const delivery = log.data.find((d: { id: string }) => d.id === testId)
    expect(delivery.status).toBe("DELIVERED")
    const at = delivery.attempts.map((a: { at: string }) => Date.parse(a.at))
    expect(at[0]).toBeLessThanOrEqual(start)
    for (let k = 1; k < 4; k++) expect(at[k] - at[k - 1]).toBe(retryDelayMillis(testId, k))
    expect(delivery.attempts.map((a: { statusCode: number }) => a.statusCode)).toEqual([503, 503, 503, 200])
    // Nothing more is sent afterwards.
    await m.advance(86_400)
    expect(receiver.got.filter((r) => r.id === testId).length).toBe(4)
  })

  it("after the last attempt the delivery is FAILED; redelivery starts it over with the same id and body; 409 counts as delivered", async () => {
    const { receiver, m } = await setup([moneyPlatform("hooks-fail")])
    receiver.state.respond = () => 500
    await m.ok("PATCH", "/config", { webhookEndpoint: receiver.url })
    await eventually(() => receiver.got.length === 1, 5_000, "the first attempt")
    await m.advance(2 * 86_400)
    expect(receiver.got.length).toBe(MAX_ATTEMPTS)
    const [delivery] = (await m.ok("GET", "/sandbox/webhooks/deliveries")).data
    expect(delivery.status).toBe("FAILED")
    expect(delivery.attempts.length).toBe(MAX_ATTEMPTS)
    expect(delivery.nextAttemptAt).toBeUndefined()

    receiver.state.respond = () => 409
    const again = await m.ok("POST", `/sandbox/webhooks/deliveries/${encodeURIComponent(delivery.id)}/redeliver`)
    expect(again.status).toBe("DELIVERED")
    expect(again.attempts.at(-1).statusCode).toBe(409)
    expect(receiver.got.length).toBe(MAX_ATTEMPTS + 1)
    expect(receiver.got.at(-1)!.body).toBe(receiver.got[0]!.body)
    // Signed again (with a fresh nonce outside a deterministic run: the header may differ), and it verifies.
    expectSigned(receiver, await publicKeyOf(m))

    const missing = await m.call("POST", "/sandbox/webhooks/deliveries/Webhook:00000000-0000-4000-8000-000000000000/redeliver")
    expect(missing.status).toBe(404)
  })

  it("an unreachable endpoint is retried like a failing one", async () => {
    const { receiver, m } = await setup([moneyPlatform("hooks-down")])
    await m.ok("PATCH", "/config", { webhookEndpoint: receiver.url })
    await eventually(() => receiver.got.length === 1, 5_000, "the TEST webhook")
    await receiver.close()
    await m.customer()
    await m.advance(0)
    const log = (await m.ok("GET", "/sandbox/webhooks/deliveries")).data as Array<{ status: string; attempts: Array<{ error?: string }> }>
    const failing = log.filter((d) => d.attempts.length > 0 && d.status === "PENDING")
    expect(failing.length).toBeGreaterThan(0)
    expect(failing[0]!.attempts[0]!.error).toMatch(/ECONNREFUSED|ECONNRESET|refused|closed|fetch failed/i)
  })
})

describe("a receiver that never answers", () => {
  it("does not slow the API's answers", async () => {
    const { receiver, m } = await setup([moneyPlatform("hooks-hang")], { schedulerIntervalMillis: 50 })
    receiver.state.respond = () => "hang"
    await m.ok("PATCH", "/config", { webhookEndpoint: receiver.url })
    await eventually(() => receiver.got.length >= 1, 5_000, "the TEST webhook in flight")
    const started = performance.now()
    for (let i = 0; i < 10; i++) await m.customer()
    await m.ok("GET", "/config")
    const elapsed = performance.now() - started
    expect(elapsed).toBeLessThan(2_000)
  })
})

let propRun = 0

describe("property: what is delivered", () => {
  it("per resource, the acknowledged webhooks (deduplicated by id) are exactly the committed events, in order", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom("customer", "fund", "pay", "receive", "advance"), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 0, max: 2 }),
        async (steps, failures) => {
          const platform = moneyPlatform(`hooks-prop-${++propRun}`)
          const { receiver, m, outbox } = await setup([platform])
          try {
            // Each webhook fails its first `failures` attempts (a different number per id would do as well).
            receiver.state.respond = (r) => (r.n <= failures ? 500 : 200)
            await m.ok("PATCH", "/config", { webhookEndpoint: receiver.url })
            let customer: Awaited<ReturnType<typeof m.fundedCustomer>> | undefined
            let uma = 0
            for (const step of steps) {
              if (step === "customer" || customer === undefined) {
                customer = await m.fundedCustomer({}, { umaAddress: `$prop${++uma}@sandbox.uma.local` })
              }
              if (step === "fund") await m.fund(customer.accounts.USD, 10_000)
              if (step === "pay") {
                await m.fund(customer.accounts.USD, 2_000)
                const payee = await m.externalUsd(customer.id, accountNumberEnding("000"))
                await m.pay(customer.accounts.USD, payee.id, 1_000)
              }
              if (step === "receive") {
                await m.ok("POST", "/sandbox/uma/receive", { senderUmaAddress: "$success.usd@sandbox.grid.uma.money", receiverUmaAddress: `$prop${uma}@sandbox.uma.local`, receivingCurrencyCode: "USD", receivingCurrencyAmount: 100 })
              }
              if (step === "advance") await m.advance(3_600)
            }
            // Four days reach every settlement whatever weekday the clock shows (a payment made
            // on a Saturday settles on Monday); an hour more runs the retries of what the four
            // days committed near their end (at most two failures: due 1 and 3 minutes later).
            await m.advance(4 * 86_400)
            await m.advance(3_600)
            const events = (await outbox()).filter((e) => e.type !== "TEST")
            const committed = new Map<string, Array<string>>()
            for (const e of events) {
              const resource = (e as { data?: { id?: string } }).data?.id ?? e.id
              committed.set(resource, [...(committed.get(resource) ?? []), e.id])
            }
            const deliveredNow = () => {
              const delivered = new Map<string, Array<string>>()
              for (const r of receiver.acknowledged()) {
                if (r.type === "TEST") continue
                const list = delivered.get(r.resourceId) ?? []
                if (!list.includes(r.id)) delivered.set(r.resourceId, [...list, r.id])
              }
              return delivered
            }
            // An advance waits at most 10 s for the attempts that fell due in it; under load
            // the rest are made in the background right after (they are due): wait for them.
            const total = [...committed.values()].reduce((n, ids) => n + ids.length, 0)
            await eventually(() => [...deliveredNow().values()].reduce((n, ids) => n + ids.length, 0) >= total, 30_000, "every committed event acknowledged")
              .catch(() => undefined)
            expect(deliveredNow()).toEqual(committed)
            // Never a later webhook of a resource before an earlier one was acknowledged.
            const seen = new Map<string, Array<string>>()
            for (const r of receiver.got) {
              if (r.type === "TEST") continue
              const list = seen.get(r.resourceId) ?? []
              if (!list.includes(r.id)) seen.set(r.resourceId, [...list, r.id])
            }
            expect(seen).toEqual(committed)
          } finally {
            for (const f of cleanup.splice(0).reverse()) await f()
          }
        }
      ),
      { numRuns: 6 }
    )
    // Six runs, each advancing the clock through every delivery attempt of its webhooks
    // (retries included): on PostgreSQL under the CI's date matrix that took over 30 s.
  }, 180_000)
})
