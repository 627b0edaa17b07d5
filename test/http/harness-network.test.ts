/**
 * The test harness cannot reach off the machine (issue 26): its apps deliver webhooks to
 * loopback destinations only, on every store, whatever endpoint a test or a fuzz campaign
 * sets. An address off the machine is refused at PATCH /config; a name under `.invalid`
 * (or any other non-loopback name) is refused before any lookup or connection, as a
 * failed attempt; a loopback receiver still gets its webhook.
 */
import { describe, expect, it } from "vitest"
import { isLoopbackUrl } from "../../src/adapters/webhook-http.js"
import { makeApi, platformA, type TestStore } from "../support/api.js"
import { eventually, startReceiver } from "../support/webhook-receiver.js"

describe("isLoopbackUrl", () => {
  it("is loopback addresses and localhost, nothing else", () => {
    for (const url of ["http://127.0.0.1:9/x", "https://127.1.2.3/", "http://localhost:8080/", "http://a.localhost/", "http://[::1]:1/", "http://[::ffff:7f00:1]/"]) {
      expect(isLoopbackUrl(url), url).toBe(true)
    }
    for (const url of ["https://hooks.example.invalid/x", "https://hooks.example.com/", "http://10.0.0.1/", "http://169.254.169.254/", "http://127.0.0.1.nip.io/", "not a url"]) {
      expect(isLoopbackUrl(url), url).toBe(false)
    }
  })
})

describe.each<TestStore>(["memory", "pglite", "postgres"])("the harness's app on %s delivers to loopback only", (store) => {
  it("a TEST webhook to a .invalid host is refused unsent; to a loopback receiver it arrives", async () => {
    const api = makeApi([platformA], undefined, { store })
    const receiver = await startReceiver()
    try {
      // An address off the machine is refused at once, even a public one.
      const offMachine = await api.call("PATCH", "/config", { body: { webhookEndpoint: "http://93.184.216.34/guard" }, as: platformA })
      expect(offMachine.status).toBe(400)
      expect(offMachine.body.details.rule).toBe("PUBLIC_NOT_ALLOWED")
      expect((await api.call("PATCH", "/config", { body: { webhookEndpoint: "https://hooks.example.invalid/guard" }, as: platformA })).status).toBe(200)
      const refused = await api.call("POST", "/sandbox/webhooks/test", { as: platformA })
      expect(refused.status).toBe(400)
      expect(refused.body.code).toBe("WEBHOOK_DELIVERY_ERROR")
      expect(refused.body.reason).toContain("not a loopback destination")

      expect((await api.call("PATCH", "/config", { body: { webhookEndpoint: receiver.url }, as: platformA })).status).toBe(200)
      const sent = await api.call("POST", "/sandbox/webhooks/test", { as: platformA })
      expect(sent.status).toBe(200)
      await eventually(() => receiver.got.some((r) => r.type === "TEST"), 10_000, "the TEST webhook at the loopback receiver")
    } finally {
      await receiver.close()
      await api.dispose()
    }
    // A first PGlite app builds its template database: slow on a loaded machine.
  }, 90_000)
})
