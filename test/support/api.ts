/** Drives the reference app in-process: real routing, middleware and encoding, no sockets. */
import { Effect, Layer } from "effect"
import { frozenClockLayer } from "../../src/adapters/deterministic.js"
import { memoryLayer } from "../../src/adapters/memory/index.js"
import { LoopbackWebhookSenderLayer } from "../../src/adapters/webhook-http.js"
import { makeWebHandler } from "../../src/http/app.js"
import { type Platform, platformFromConfig } from "../../src/domain/platform.js"
import { servicesFor } from "../../src/server/services.js"
import { migratedDatabase } from "./databases.js"
import { withPgliteTemplate } from "./pglite-template.js"
import type { JsonApiClient } from "../../src/testing/commands.js"

/** Which store an in-process app runs on. PostgreSQL gets a fresh, migrated database of the run's throwaway cluster. */
export type TestStore = "memory" | "postgres" | "pglite"

/**
 * The store suites run on when they do not choose: `PAYMENTS_TEST_STORE`, else memory.
 * test/postgres/ re-runs the end-to-end suites with it set to postgres.
 */
export const defaultTestStore = (): TestStore => {
  const s = process.env["PAYMENTS_TEST_STORE"]
  return s === "postgres" || s === "pglite" ? s : "memory"
}

/** The ports for `store`: memory is synchronous; the SQL stores are built when the app first serves. */
export const testServices = (store: TestStore, platforms: ReadonlyArray<Platform>, seed?: number) =>
  // Webhooks go to loopback receivers only: nothing a test sets can reach off the machine.
  Layer.merge(storeServices(store, platforms, seed), LoopbackWebhookSenderLayer)

const storeServices = (store: TestStore, platforms: ReadonlyArray<Platform>, seed?: number) => {
  const options = seed === undefined ? {} : { seed }
  if (store === "memory") return memoryLayer(platforms, options)
  if (store === "pglite") return withPgliteTemplate((template) => servicesFor({ kind: "pglite", dataDir: undefined, template }, platforms, options))
  return Layer.unwrap(
    Effect.map(
      Effect.promise(migratedDatabase),
      (url) => servicesFor({ kind: "postgres", url }, platforms, options)
    )
  )
}

export const platformA: Platform = platformFromConfig({ id: "platform-a", clientId: "client-a", clientSecret: "secret-a-123456" })

/** Subject to the Travel Rule. */
export const platformB: Platform = platformFromConfig({
  id: "platform-b",
  clientId: "client-b",
  clientSecret: "secret-b-123456",
  travelRule: true
})

export interface Reply {
  readonly status: number
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test bodies are inspected freely
  readonly body: any
  /** The `x-should-retry` header, when the answer has one. */
  readonly shouldRetry?: string
}

export const basic = (p: Platform) => `Basic ${Buffer.from(`${p.clientId}:${p.clientSecret}`).toString("base64")}`

export const makeApi = (
  platforms: ReadonlyArray<Platform> = [platformA, platformB],
  seed?: number,
  options: {
    readonly store?: TestStore
    readonly directLane?: boolean
    /**
     * The base clock stands still at the app's start: platform time moves only with
     * `POST /sandbox/clock/advance`, so a test counting steps of a second is not
     * overtaken by a slow machine.
     */
    readonly standingClock?: boolean
  } = {}
) => {
  const services = testServices(options.store ?? defaultTestStore(), platforms, seed)
  const { handler, dispose, ready } = makeWebHandler({
    services: options.standingClock === true ? Layer.merge(services, frozenClockLayer(Date.now())) : services,
    schedulerIntervalMillis: false,
    ...(options.directLane === undefined ? {} : { directLane: options.directLane })
  })
  const call = async (
    method: string,
    path: string,
    options: { body?: unknown; raw?: string; as?: Platform; headers?: Record<string, string> } = {}
  ): Promise<Reply> => {
    const headers: Record<string, string> = { authorization: basic(options.as ?? platforms[0]!), ...options.headers }
    let body: string | undefined
    if (options.raw !== undefined) body = options.raw
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body)
      headers["content-type"] ??= "application/json"
    }
    const res = await handler(new Request(`http://test/2025-10-13${path}`, { method, headers, ...(body === undefined ? {} : { body }) }))
    return readReply(res)
  }
  return { call, dispose, handler, ready }
}

export type Api = ReturnType<typeof makeApi>

/** A Response's status and body: parsed JSON, the text when it is not JSON, undefined when empty. */
export const readReply = async (res: Response): Promise<Reply> => {
  const text = await res.text()
  let parsed: unknown = text
  try {
    parsed = text === "" ? undefined : JSON.parse(text)
  } catch {
    parsed = text
  }
  const shouldRetry = res.headers.get("x-should-retry")
  return shouldRetry === null ? { status: res.status, body: parsed } : { status: res.status, body: parsed, shouldRetry }
}

/** The error shape every non-2xx answer must have. */
export const isErrorShape = (body: unknown): boolean => {
  if (typeof body !== "object" || body === null) return false
  const b = body as Record<string, unknown>
  const keys = Object.keys(b)
  return typeof b["code"] === "string" && typeof b["reason"] === "string" && b["reason"] !== "" &&
    b["message"] === b["reason"] &&
    (b["details"] === undefined || (typeof b["details"] === "object" && b["details"] !== null)) &&
    keys.every((k) => k === "code" || k === "reason" || k === "message" || k === "details")
}

export const individual = (fullName = "Ada Lovelace", extra: Record<string, unknown> = {}) => ({
  customerType: "INDIVIDUAL",
  fullName,
  ...extra
})

export const usdAccount = (customerId: string, accountNumber = "123456789", extra: Record<string, unknown> = {}) => ({
  customerId,
  currency: "USD",
  accountInfo: {
    accountType: "USD_ACCOUNT",
    accountNumber,
    routingNumber: "021000021",
    bankAccountType: "CHECKING",
    beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Ada Lovelace" },
    ...extra
  }
})

export const evmWallet = (customerId: string | undefined, address: string, extra: Record<string, unknown> = {}) => ({
  ...(customerId === undefined ? {} : { customerId }),
  currency: "USDC",
  accountInfo: { accountType: "ETHEREUM_WALLET", address },
  ...extra
})

/** The JSON client the model-based suites (src/testing) drive: `api.call` with optional body and headers. */
export const jsonClientOf = (api: ReturnType<typeof makeApi>): JsonApiClient => ({
  call: (method, path, body, headers) => api.call(method, path, { ...(body === undefined ? {} : { body }), ...(headers === undefined ? {} : { headers }) })
})
