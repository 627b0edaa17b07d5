/**
 * Deterministic runs (docs/sandbox.md#deterministic-runs): the same sequence of requests
 * against two fresh servers started with the same --seed gives byte-identical answers
 * and webhooks (bodies and signatures), in memory and on PostgreSQL; another seed gives
 * other ids.
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { migratedDatabase } from "../support/databases.js"
import { baseOf, start, tempDir } from "../support/server.js"
import { eventually, startReceiver } from "../support/webhook-receiver.js"

const AUTH = `Basic ${Buffer.from("sandbox_client_id:sandbox_client_secret").toString("base64")}`

/** One run: the request sequence against a fresh server; every answer's status and exact text, and the webhooks it sent. */
const run = async (env: Record<string, string>) => {
  const receiver = await startReceiver()
  // A regulated platform: KYC resolves at creation, so customers get accounts and events.
  const config = join(tempDir("payments-deterministic-"), "platforms.json")
  writeFileSync(config, JSON.stringify({
    platforms: [{ id: "sandbox", clientId: "sandbox_client_id", clientSecret: "sandbox_client_secret", regulated: true }]
  }))
  const server = start({ PAYMENTS_CONFIG: config, ...env })
  try {
    const base = baseOf(await server.banner)
    const answers: Array<string> = []
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: AUTH, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) })
      })
      const text = await res.text()
      answers.push(`${method} ${path} ${res.status} ${text}`)
      return text === "" ? undefined : JSON.parse(text)
    }
    await call("GET", "/config")
    await call("PATCH", "/config", { webhookEndpoint: receiver.url })
    const ada = await call("POST", "/customers", { customerType: "INDIVIDUAL", fullName: "Ada Lovelace", platformCustomerId: "ada" })
    await call("POST", "/customers", { customerType: "INDIVIDUAL", fullName: "Grace Hopper", platformCustomerId: "grace" })
    await call("POST", "/customers/external-accounts", {
      customerId: ada.id,
      currency: "USD",
      accountInfo: {
        accountType: "USD_ACCOUNT",
        accountNumber: "123456789",
        routingNumber: "021000021",
        beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Ada Lovelace", birthDate: "1990-01-01", nationality: "US", address: { line1: "1 Main St", city: "Springfield", postalCode: "12345", country: "US" } }
      }
    })
    const accounts = await call("GET", `/customers/internal-accounts?customerId=${encodeURIComponent(ada.id)}`)
    const usd = (accounts.data as Array<{ id: string; balance: { currency: { code: string } } }>).find((a) => a.balance.currency.code === "USD")
    expect(usd).toBeDefined()
    if (usd !== undefined) await call("POST", `/sandbox/internal-accounts/${encodeURIComponent(usd.id)}/fund`, { amount: 10_000 })
    await call("GET", "/customers")
    await call("POST", "/sandbox/clock/advance", { seconds: 3600 })
    await call("GET", "/transactions")
    await call("GET", "/sandbox/clock")
    // Everything due went out during the advance; wait until the receiver has what the log says was delivered.
    const deliveries = await fetch(`${base}/sandbox/webhooks/deliveries?limit=100`, { headers: { authorization: AUTH } }).then((r) => r.json()) as { data: Array<{ status: string }> }
    const delivered = deliveries.data.filter((d) => d.status === "DELIVERED").length
    await eventually(() => receiver.got.length >= delivered, 10_000, `${delivered} delivered webhooks (got ${receiver.got.map((r) => r.type).join(", ")})`)
    // Concurrent deliveries (different resources) may arrive in either order: compared as a set.
    const webhooks = receiver.got.map((r) => `${r.signature} ${r.body}`).sort()
    // Nothing went wrong on the way (a defect would still give equal runs).
    expect(server.stderr()).toBe("")
    return { answers, webhooks }
  } finally {
    server.child.kill("SIGKILL")
    await receiver.close()
  }
}

/** The receiver's URL differs between runs (another port): the one place it appears is replaced. */
const withoutReceiverUrl = (r: { answers: ReadonlyArray<string>; webhooks: ReadonlyArray<string> }) => ({
  answers: r.answers.map((a) => a.replace(/http:\/\/127\.0\.0\.1:\d+/g, "RECEIVER")),
  webhooks: r.webhooks
})

describe("deterministic runs (--seed)", () => {
  it("in memory: two fresh servers with the same seed answer byte for byte the same and send the same webhooks; another seed differs", async () => {
    const first = withoutReceiverUrl(await run({ PAYMENTS_SEED: "7" }))
    const second = withoutReceiverUrl(await run({ PAYMENTS_SEED: "7" }))
    expect(first.answers.length).toBeGreaterThan(8)
    expect(first.webhooks.length).toBeGreaterThan(1)
    expect(second.answers).toEqual(first.answers)
    expect(second.webhooks).toEqual(first.webhooks)
    expect(first.answers.join("\n")).toContain("2025-01-01T0")
    const other = withoutReceiverUrl(await run({ PAYMENTS_SEED: "8" }))
    expect(other.answers).not.toEqual(first.answers)
  }, 120_000)

  it("on PostgreSQL: two fresh databases, the same seed, the same bytes", async () => {
    const first = withoutReceiverUrl(await run({ PAYMENTS_SEED: "11", DATABASE_URL: await migratedDatabase() }))
    const second = withoutReceiverUrl(await run({ PAYMENTS_SEED: "11", DATABASE_URL: await migratedDatabase() }))
    expect(second.answers).toEqual(first.answers)
    expect(second.webhooks).toEqual(first.webhooks)
  }, 120_000)
})
