/**
 * The reference HTTP server started from code, with the platforms defined here rather
 * than in a PAYMENTS_CONFIG file, on a free port. It calls itself once (create a
 * customer, authenticated as one platform), prints the answer and shuts down.
 *
 *   npm run example:server                 (in memory)
 *   DATABASE_URL=postgres://… npm run example:server
 */
import { NodeRuntime } from "@effect/platform-node"
import { Console, Effect } from "effect"
import { HttpServer } from "effect/http"
// published as: import { platformFromConfig } from "payments-service"
import { platformFromConfig } from "../src/index.js"
// published as: import { API_VERSION, serveReference } from "payments-service/http"
import { API_VERSION, serveReference } from "../src/http/index.js"
// Not a published subpath yet; in this repository: src/server/services.ts
import { servicesFor, storeChoiceFromEnv } from "../src/server/services.js"

// Two tenants on one server: each sees only its own data, and the settings differ
// (the second is regulated, so sandbox KYC resolves when a customer is created).
const platforms = [
  platformFromConfig({ id: "acme", clientId: "acme_client_id", clientSecret: "acme_client_secret" }),
  platformFromConfig({ id: "globex", clientId: "globex_client_id", clientSecret: "globex_client_secret", regulated: true })
]
const globex = platforms[1]!

// Same rules as `npm start`: DATABASE_URL / PAYMENTS_DATA_DIR pick the store, else memory.
const choice = storeChoiceFromEnv(process.env)
if (typeof choice === "string") {
  console.error(choice)
  process.exit(1)
}

const main = Effect.gen(function*() {
  // port 0: the OS picks a free port, and serveReference tells us which.
  const { address, store } = yield* serveReference({ services: servicesFor(choice, platforms, { webhookDestinations: ["loopback"] }), host: "127.0.0.1", port: 0 })
  const base = `${HttpServer.formatAddress(address)}/${API_VERSION}`
  yield* Console.log(`listening on ${base}, store: ${store.description}`)

  const res = yield* Effect.tryPromise(() =>
    fetch(`${base}/customers`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        // HTTP Basic with the platform's client id and secret: that is how the server knows the tenant.
        authorization: `Basic ${Buffer.from(`${globex.clientId}:${globex.clientSecret}`).toString("base64")}`
      },
      body: JSON.stringify({ customerType: "INDIVIDUAL", fullName: "Grace Hopper" })
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }))
  )
  yield* Console.log(`POST /customers as ${globex.id}: ${res.status} ${res.body["id"]} kycStatus ${res.body["kycStatus"]}`)
  if (res.status !== 201) return yield* Effect.fail(new Error(`expected 201: ${JSON.stringify(res.body)}`))
  yield* Console.log("shutting down")
})

// Effect.scoped closes the scope serveReference opened when `main` ends: the listener
// stops, the background scheduler and the store's resources are released, and the
// process exits.
NodeRuntime.runMain(Effect.scoped(main))
