/**
 * A test suite's fixture from a sandbox snapshot: the state is built once (a seed
 * document: examples/sandbox-seed.json), saved with `POST /sandbox/snapshots`, and every
 * "test" starts with `POST /sandbox/snapshots/{id}/restore`, so what one test did (pay,
 * move the clock) is gone for the next. The reference server runs in-process on a free
 * port; each step prints what it saw, and the process exits 1 if a restore did not give
 * the saved state back.
 *
 *   npm run example:snapshots              (in memory)
 *   DATABASE_URL=postgres://… npm run example:snapshots
 */
import { readFileSync } from "node:fs"
import { NodeRuntime } from "@effect/platform-node"
import { Console, Effect } from "effect"
import { HttpServer } from "effect/http"
// published as: import { platformFromConfig } from "payments-service"
import { platformFromConfig } from "../src/index.js"
// published as: import { API_VERSION, serveReference } from "payments-service/http"
import { API_VERSION, serveReference } from "../src/http/index.js"
// Not a published subpath yet; in this repository: src/server/services.ts
import { servicesFor, storeChoiceFromEnv } from "../src/server/services.js"

// Regulated: sandbox KYC resolves when a customer is created, as the seed document expects.
const platform = platformFromConfig({ id: "suite", clientId: "suite_client_id", clientSecret: "suite_client_secret", regulated: true })
const seed: unknown = JSON.parse(readFileSync(new URL("./sandbox-seed.json", import.meta.url), "utf8"))

const choice = storeChoiceFromEnv(process.env)
if (typeof choice === "string") {
  console.error(choice)
  process.exit(1)
}

const main = Effect.gen(function*() {
  const { address } = yield* serveReference({ services: servicesFor(choice, [platform], { webhookDestinations: ["loopback"] }), host: "127.0.0.1", port: 0 })
  const base = `${HttpServer.formatAddress(address)}/${API_VERSION}`
  const call = (method: string, path: string, body?: unknown) =>
    Effect.tryPromise(async () => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: {
          authorization: `Basic ${Buffer.from(`${platform.clientId}:${platform.clientSecret}`).toString("base64")}`,
          ...(body === undefined ? {} : { "content-type": "application/json" })
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) })
      })
      const text = await res.text()
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`)
      return (text === "" ? {} : JSON.parse(text)) as Record<string, unknown>
    })
  /** What the tests look at: the customers' balances and the platform's clock. */
  const observe = Effect.gen(function*() {
    const accounts = yield* call("GET", "/customers/internal-accounts?limit=100")
    const balances = (accounts["data"] as Array<{ balance: { amount: number; currency: { code: string } } }>)
      .map((a) => `${a.balance.currency.code} ${a.balance.amount}`).sort().join(", ")
    const customers = (yield* call("GET", "/customers?limit=100"))["totalCount"]
    return `${customers} customers; balances ${balances}`
  })

  // Once, for the whole suite: the state every test starts from.
  const seeded = yield* call("POST", "/sandbox/seed", seed)
  const fixture = yield* call("POST", "/sandbox/snapshots", { name: "alice and bob" })
  const saved = yield* observe
  yield* Console.log(`fixture ${fixture["id"]} at platform time ${fixture["platformTime"]}: ${saved}`)

  const tests: ReadonlyArray<readonly [string, Effect.Effect<unknown, unknown>]> = [
    ["a new customer", call("POST", "/customers", { customerType: "INDIVIDUAL", fullName: "Carol New" })],
    ["a week later", call("POST", "/sandbox/clock/advance", { seconds: 7 * 86_400 })],
    ["a sandbox funding of alice", Effect.gen(function*() {
      const alice = String((seeded["customers"] as Record<string, string>)["alice"])
      const accounts = yield* call("GET", `/customers/internal-accounts?customerId=${encodeURIComponent(alice)}`)
      const usd = (accounts["data"] as Array<{ id: string; balance: { currency: { code: string } } }>).find((a) => a.balance.currency.code === "USD")!
      return yield* call("POST", `/sandbox/internal-accounts/${encodeURIComponent(usd.id)}/fund`, { amount: 5_000 })
    })]
  ]
  for (const [name, test] of tests) {
    // Before each test: back to the fixture, clock included.
    yield* call("POST", `/sandbox/snapshots/${encodeURIComponent(String(fixture["id"]))}/restore`)
    const before = yield* observe
    if (before !== saved) return yield* Effect.fail(new Error(`restore gave ${before}, not ${saved}`))
    yield* test
    yield* Console.log(`test "${name}": started from the fixture, left ${yield* observe}`)
  }
  const clock = yield* call("GET", "/sandbox/clock")
  yield* Console.log(`after the last test the platform's clock reads ${clock["now"]}; restoring once more:`)
  yield* call("POST", `/sandbox/snapshots/${encodeURIComponent(String(fixture["id"]))}/restore`)
  yield* Console.log(`${yield* observe}, clock ${(yield* call("GET", "/sandbox/clock"))["now"]}`)
})

NodeRuntime.runMain(Effect.scoped(main))
