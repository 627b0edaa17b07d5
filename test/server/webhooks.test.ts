/**
 * Webhooks survive a crash: `npm start` on PGlite on disk and on PostgreSQL, a platform
 * whose endpoint is preset in PAYMENTS_CONFIG, a receiver that fails while the first
 * server runs, `kill -9` right after the writes were acknowledged (some events taken for
 * delivery and attempted, some perhaps not even taken), a new server on the same data:
 * every committed event arrives, signed, once the receiver answers.
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { verifyWebhookSignature } from "../../src/index.js"
import { readReply } from "../support/api.js"
import { migratedDatabase } from "../support/databases.js"
import { baseOf, keepAcrossTests, start, tempDir } from "../support/server.js"
import { eventually, startReceiver } from "../support/webhook-receiver.js"

const AUTH = `Basic ${Buffer.from("hooks_client:hooks_secret_123").toString("base64")}`

const call = async (base: string, method: string, path: string, body?: unknown) =>
  readReply(await fetch(`${base}${path}`, {
    method,
    headers: { authorization: AUTH, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  }))

const survivesCrash = async (env: Record<string, string>) => {
  const receiver = await startReceiver(() => 503)
  const servers: Array<ReturnType<typeof start>> = []
  /** A server this test alone stops (see the describe block), whatever happens. */
  const own = (server: ReturnType<typeof start>) => {
    keepAcrossTests(server)
    servers.push(server)
    return server
  }
  try {
    const config = join(tempDir("payments-hooks-"), "platforms.json")
    writeFileSync(config, JSON.stringify({
      platforms: [{ id: "hooks", clientId: "hooks_client", clientSecret: "hooks_secret_123", regulated: true, webhookEndpoint: receiver.url }]
    }))
    const first = own(start({ ...env, PAYMENTS_CONFIG: config }))
    const base1 = baseOf(await first.banner)
    const customers: Array<string> = []
    for (let i = 0; i < 3; i++) {
      const r = await call(base1, "POST", "/customers", { customerType: "INDIVIDUAL", fullName: `Crash ${i}` })
      expect(r.status).toBe(201)
      customers.push(r.body.id)
    }
    // Let the worker take some of them and fail once, then write more and crash at once.
    await eventually(() => receiver.got.length > 0, 10_000, "a first (failed) attempt")
    const late = await call(base1, "POST", "/customers", { customerType: "INDIVIDUAL", fullName: "Late" })
    expect(late.status).toBe(201)
    customers.push(late.body.id)
    first.child.kill("SIGKILL")
    await first.exited

    receiver.state.respond = () => 200
    const second = own(start({ ...env, PAYMENTS_CONFIG: config }))
    const base2 = baseOf(await second.banner)
    const publicKey = (await call(base2, "GET", "/webhooks/public-key")).body.publicKey as string
    // Retries are due a minute later on the sandbox clock.
    expect((await call(base2, "POST", "/sandbox/clock/advance", { seconds: 3_600 })).status).toBe(200)
    const approved = () => new Set(receiver.acknowledged().filter((r) => r.type === "CUSTOMER.KYC_APPROVED").map((r) => r.resourceId))
    await eventually(() => customers.every((id) => approved().has(id)), 40_000, "every customer's webhook")
    for (const r of receiver.acknowledged()) expect(verifyWebhookSignature(r.body, r.signature ?? "", publicKey)).toBe(true)
    const log = await call(base2, "GET", "/sandbox/webhooks/deliveries?limit=100")
    expect(log.status).toBe(200)
    expect(log.body.data.filter((d: { type: string }) => d.type === "CUSTOMER.KYC_APPROVED").length).toBe(customers.length)
    second.child.kill("SIGKILL")
    await second.exited
  } finally {
    for (const server of servers) server.child.kill("SIGKILL")
    await receiver.close()
  }
}

// The two stores at once: PostgreSQL waits mostly on the killed server's leases to expire
// (real time; PGlite on disk ends them when the next server opens the data directory), and
// their servers, receivers and data are their own. Each test kills its own servers
// (the per-test cleanup would kill the other test's too).
describe.concurrent("a crash between commit and delivery loses no webhook", () => {
  // Two servers each, and on PostgreSQL the lease's 15 s of real time: a minute was too
  // little on a 2-core machine under a load of about 20 from other work.
  it("PGlite on disk (PAYMENTS_DATA_DIR)", async () => {
    await survivesCrash({ PAYMENTS_DATA_DIR: join(tempDir("payments-hooks-data-"), "data") })
  }, 120_000)

  it("PostgreSQL (DATABASE_URL)", async () => {
    await survivesCrash({ DATABASE_URL: await migratedDatabase() })
  }, 120_000)
})
