/**
 * A deterministic platform (docs/sandbox.md#deterministic-runs): a platform whose entry
 * in the platforms file has `deterministicSeed` gets byte-identical answers and webhooks
 * (bodies and signatures) for the same sequence of requests against a fresh server,
 * whatever the other platforms of the server do and in whatever order; a platform without
 * the setting on the same servers keeps random ids and real time.
 *
 * Nothing of the compared answers or webhooks is left out: the one field of the sequence
 * that cannot repeat, `durationMs` of a delivery attempt (measured real time), is in
 * `GET /sandbox/webhooks/deliveries`, which the run reads only to know how many webhooks
 * to wait for. Webhook signatures repeat (ECDSA with RFC 6979 nonces, the key from the
 * platform's stream); only the order in which webhooks about different resources arrive
 * is the network's, so webhooks are compared as a set.
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { migratedDatabase } from "../support/databases.js"
import { baseOf, start, tempDir } from "../support/server.js"
import { eventually, startReceiver } from "../support/webhook-receiver.js"

const DET = { id: "det", clientId: "det_client_id", clientSecret: "det_client_secret" }
const RAND = { id: "rand", clientId: "rand_client_id", clientSecret: "rand_client_secret" }
const authOf = (p: { readonly clientId: string; readonly clientSecret: string }) =>
  `Basic ${Buffer.from(`${p.clientId}:${p.clientSecret}`).toString("base64")}`

interface Run {
  readonly answers: ReadonlyArray<string>
  readonly webhooks: ReadonlyArray<string>
}

/** The sequence for one platform of a running server: every answer's status and exact text, and the webhooks its receiver got. */
const sequence = async (base: string, platform: { readonly clientId: string; readonly clientSecret: string }): Promise<Run> => {
  const receiver = await startReceiver()
  const auth = authOf(platform)
  try {
    const answers: Array<string> = []
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: auth, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) })
      })
      const text = await res.text()
      answers.push(`${method} ${path} ${res.status} ${text.replaceAll(receiver.url, "RECEIVER")}`)
      return text === "" ? undefined : JSON.parse(text)
    }
    await call("PATCH", "/config", { webhookEndpoint: receiver.url })
    const ada = await call("POST", "/customers", { customerType: "INDIVIDUAL", fullName: "Ada Lovelace", platformCustomerId: "ada" })
    const bank = await call("POST", "/customers/external-accounts", {
      customerId: ada.id,
      currency: "USD",
      accountInfo: {
        accountType: "USD_ACCOUNT",
        bankAccountType: "CHECKING",
        accountNumber: "123456789",
        routingNumber: "021000021",
        beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Ada Lovelace", birthDate: "1990-01-01", nationality: "US", address: { line1: "1 Main St", city: "Springfield", postalCode: "12345", country: "US" } }
      }
    })
    const accounts = await call("GET", `/customers/internal-accounts?customerId=${encodeURIComponent(ada.id)}`)
    const usd = (accounts.data as Array<{ id: string; balance: { currency: { code: string } } }>).find((a) => a.balance.currency.code === "USD")
    if (usd === undefined) throw new Error(`no USD account: ${JSON.stringify(accounts)}`)
    await call("POST", `/sandbox/internal-accounts/${encodeURIComponent(usd.id)}/fund`, { amount: 100_000 })
    const quote = await call("POST", "/quotes", {
      source: { sourceType: "ACCOUNT", accountId: usd.id },
      destination: { destinationType: "ACCOUNT", accountId: bank.id },
      lockedCurrencySide: "SENDING",
      lockedCurrencyAmount: 10_000
    })
    await call("POST", `/quotes/${encodeURIComponent(quote.id)}/execute`)
    await call("POST", "/sandbox/clock/advance", { seconds: 259_200 })
    await call("GET", "/transactions")
    await call("GET", `/customers/internal-accounts?customerId=${encodeURIComponent(ada.id)}`)
    await call("GET", "/sandbox/clock")
    // Everything due went out during the advance; wait until the receiver has what the log says was delivered.
    const deliveries = await fetch(`${base}/sandbox/webhooks/deliveries?limit=100`, { headers: { authorization: auth } })
      .then((r) => r.json()) as { data: Array<{ status: string }> }
    const delivered = deliveries.data.filter((d) => d.status === "DELIVERED").length
    await eventually(() => receiver.got.length >= delivered, 10_000, `${delivered} delivered webhooks (got ${receiver.got.map((r) => r.type).join(", ")})`)
    return { answers, webhooks: receiver.got.map((r) => `${r.signature} ${r.body}`).sort() }
  } finally {
    await receiver.close()
  }
}

/** A fresh in-memory server with both platforms; `order` says whose sequence runs first. */
const server = async (order: "det-first" | "rand-first", seed = 7, env: Record<string, string> = {}) => {
  const config = join(tempDir("payments-deterministic-platform-"), "platforms.json")
  writeFileSync(config, JSON.stringify({
    platforms: [
      { ...DET, regulated: true, deterministicSeed: seed },
      { ...RAND, regulated: true }
    ]
  }))
  const child = start({ PAYMENTS_CONFIG: config, ...env })
  try {
    const base = baseOf(await child.banner)
    if (order === "det-first") {
      const det = await sequence(base, DET)
      return { det, rand: await sequence(base, RAND) }
    }
    const rand = await sequence(base, RAND)
    const det = await sequence(base, DET)
    // Nothing went wrong on the way (a defect would still give equal runs).
    expect(child.stderr()).toBe("")
    return { det, rand }
  } finally {
    child.child.kill("SIGKILL")
  }
}

/**
 * The seed-7, det-first run on memory, made once for the tests that compare with it (each
 * test asks for it, so any of them runs alone): a server's start and two sequences fewer.
 */
let seven: ReturnType<typeof server> | undefined
const sevenDetFirst = () => (seven ??= server("det-first", 7))

describe("a deterministic platform (deterministicSeed in the platforms file)", () => {
  it("answers and webhooks repeat byte for byte on a fresh server, whatever another platform does; the other platform stays random", async () => {
    const first = await sevenDetFirst()
    const second = await server("rand-first")
    expect(first.det.answers.length).toBe(11)
    expect(first.det.webhooks.join("\n")).toContain(`"type":"OUTGOING_PAYMENT.COMPLETED"`)
    for (const answer of first.det.answers) expect(answer).toMatch(/^\S+ \S+ 20[014] /)
    expect(second.det.answers).toEqual(first.det.answers)
    expect(second.det.webhooks).toEqual(first.det.webhooks)
    // Its clock stands at the deterministic epoch plus what it advanced.
    expect(first.det.answers.at(-1)).toContain(`"now":"2025-01-04T00:00:00.000Z"`)
    expect(first.det.answers.join("\n")).toContain(`"createdAt":"2025-01-01T00:00:00.000Z"`)
    // The random platform: the same requests, other ids and real time.
    expect(first.rand.answers.length).toBe(11)
    expect(second.rand.answers[1]).not.toEqual(first.rand.answers[1])
    expect(first.rand.answers.join("\n")).not.toContain("2025-01-01T00:00:00.000Z")
    expect(second.rand.webhooks).not.toEqual(first.rand.webhooks)
  }, 180_000)

  it("on PostgreSQL: two fresh databases, the same bytes for the deterministic platform", async () => {
    const first = await server("det-first", 7, { DATABASE_URL: await migratedDatabase() })
    const second = await server("rand-first", 7, { DATABASE_URL: await migratedDatabase() })
    expect(second.det.answers).toEqual(first.det.answers)
    expect(second.det.webhooks).toEqual(first.det.webhooks)
    expect(second.rand.answers[1]).not.toEqual(first.rand.answers[1])
  }, 180_000)

  it("another seed gives other ids; a production platform cannot have the setting", async () => {
    const other = await server("det-first", 8)
    const first = await sevenDetFirst()
    expect(other.det.answers[1]).not.toEqual(first.det.answers[1])
    const config = join(tempDir("payments-deterministic-platform-"), "platforms.json")
    writeFileSync(config, JSON.stringify({ platforms: [{ ...DET, sandbox: false, deterministicSeed: 1 }] }))
    const refused = start({ PAYMENTS_CONFIG: config })
    expect(await refused.exited).toBe(1)
    expect(refused.stderr()).toContain("deterministicSeed is for sandbox platforms only")
  }, 180_000)
})
