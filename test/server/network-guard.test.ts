/**
 * The server child processes the tests start deliver webhooks to loopback only (issue
 * 26): test/support/server.ts starts them with PAYMENTS_WEBHOOK_DESTINATIONS=loopback.
 * An address off the machine is refused at PATCH /config (even a public one, which a
 * sandbox platform may use by default), a name is refused at the attempt without a
 * lookup, and a loopback receiver still gets its webhook. (With the defaults a sandbox
 * platform may use a public address: test/adapters/webhook-destinations.test.ts.)
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { baseOf, start, tempDir } from "../support/server.js"
import { eventually, startReceiver } from "../support/webhook-receiver.js"

const auth = { authorization: `Basic ${Buffer.from("sandbox_client_id:sandbox_client_secret").toString("base64")}`, "content-type": "application/json" }

const call = async (base: string, method: string, path: string, body?: unknown) => {
  const res = await fetch(`${base}${path}`, { method, headers: auth, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
  return { status: res.status, body: await res.json() as { code?: string; reason?: string; details?: { rule?: string } } }
}

describe("a server child process the tests start", () => {
  it("delivers webhooks to loopback only", async () => {
    const server = start({})
    const base = baseOf(await server.banner)
    const receiver = await startReceiver()
    try {
      // An address off the machine: refused at PATCH, whatever its class.
      for (const [url, rule] of [["http://93.184.216.34/hooks", "PUBLIC_NOT_ALLOWED"], ["http://10.1.2.3/hooks", "PRIVATE_NOT_ALLOWED"], ["http://169.254.169.254/", "CLOUD_METADATA"]] as const) {
        const refused = await call(base, "PATCH", "/config", { webhookEndpoint: url })
        expect(refused.status, url).toBe(400)
        expect(refused.body.details?.rule, url).toBe(rule)
      }
      // A name: accepted (not looked up), refused at the attempt, unsent.
      expect((await call(base, "PATCH", "/config", { webhookEndpoint: "https://hooks.example.com/payments" })).status).toBe(200)
      const test = await call(base, "POST", "/sandbox/webhooks/test")
      expect(test.status).toBe(400)
      expect(test.body.code).toBe("WEBHOOK_DELIVERY_ERROR")
      expect(test.body.reason).toContain("not a loopback destination")
      // A loopback receiver gets its webhook.
      expect((await call(base, "PATCH", "/config", { webhookEndpoint: receiver.url })).status).toBe(200)
      await eventually(() => receiver.got.some((r) => r.type === "TEST"), 10_000, "the TEST webhook at the loopback receiver")
    } finally {
      await receiver.close()
    }
  }, 60_000)

  it("refuses to start with a preset webhook endpoint its platform's destinations refuse", async () => {
    const file = join(tempDir("destinations-"), "platforms.json")
    writeFileSync(file, JSON.stringify({ platforms: [{ id: "acme", clientId: "acme_id", clientSecret: "acme_secret_1", webhookEndpoint: "http://169.254.169.254/latest" }] }))
    const server = start({ PAYMENTS_CONFIG: file })
    expect(await server.exited).toBe(1)
    expect(server.stderr()).toContain("the webhookEndpoint of platform acme is refused (CLOUD_METADATA)")
  }, 60_000)

  it("refuses to start with a platform listing a destination that is never allowed", async () => {
    const file = join(tempDir("destinations-"), "platforms.json")
    writeFileSync(file, JSON.stringify({ platforms: [{ id: "acme", clientId: "acme_id", clientSecret: "acme_secret_1", webhookDestinations: ["public", "169.254.0.0/16"] }] }))
    const server = start({ PAYMENTS_CONFIG: file })
    expect(await server.exited).toBe(1)
    expect(server.stderr()).toContain("webhooks are never sent there")
  }, 60_000)
})
