import { type Platform, platformFromConfig } from "../../src/domain/platform.js"

export const benchPlatform: Platform = platformFromConfig({ id: "bench", clientId: "bench_client", clientSecret: "bench_secret_123" })

/** The money bench's platform: regulated, so sandbox customers are approved (and get internal accounts) at creation. */
export const benchMoneyPlatform: Platform = platformFromConfig({
  id: "bench-money",
  clientId: "bench_money_client",
  clientSecret: "bench_money_secret_123",
  regulated: true
})

/** The API's version prefix, as the bench servers serve it. */
export const API_PREFIX = "/2025-10-13"

/** HTTP Basic for the money bench's platform. */
export const benchMoneyAuth = `Basic ${Buffer.from(`${benchMoneyPlatform.clientId}:${benchMoneyPlatform.clientSecret}`).toString("base64")}`

/**
 * JSON requests as the money bench's platform through `send` (fetch, or an app's web
 * handler) to `origin`; each throws on a non-2xx answer.
 */
export const moneyClient = (send: (url: string, init: RequestInit) => Promise<Response>, origin: string) =>
  async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
    const res = await send(`${origin}${API_PREFIX}${path}`, {
      method,
      headers: { authorization: benchMoneyAuth, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    const text = await res.text()
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${text}`)
    return JSON.parse(text) as Record<string, unknown>
  }

/** One JSON request as the money bench's platform to the server on `port`; throws on a non-2xx answer. */
export const moneyApi = (port: number, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> =>
  moneyClient(fetch, `http://127.0.0.1:${port}`)(method, path, body)

/**
 * The raw money ledger's accounts: sources `raw-src-<i>` (funded) and destinations
 * `raw-dst-<i>`, one pair per connection. Here, not in raw-money.ts, so that the bench
 * reads it without importing (and so starting) the raw server in its own process.
 */
export const RAW_ACCOUNT_PAIRS = 64

/** A customer the sandbox approves at once (a regulated platform), named `name`. */
export const benchCustomerBody = (name: string) => ({
  customerType: "INDIVIDUAL",
  fullName: name,
  birthDate: "1990-04-12",
  nationality: "US",
  idType: "PASSPORT",
  identifier: "X1234567",
  address: { line1: "1 Main St", city: "Springfield", postalCode: "12345", country: "US" }
})
