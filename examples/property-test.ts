/**
 * Property-testing an integration with payments-service/testing, against the reference
 * app in-process (no socket, no server to start). Two properties:
 * - schema-derived: any generated external-account request, valid or damaged, gets a
 *   201 or a 4xx, never a 5xx;
 * - model-based: any sequence of creates, deletes and list comparisons keeps the API in
 *   step with a simple reference model (duplicates, the single default account).
 * Swap `client` for one that calls your own integration to test that instead.
 *
 *   npm run example:property            FC_NUM_RUNS=200 npm run example:property
 */
import { Layer } from "effect"
import fc from "fast-check"
// published as: import { CustomerExternalAccountCreateRequest, platformFromConfig } from "payments-service"
import { CustomerExternalAccountCreateRequest, platformFromConfig } from "../src/index.js"
// published as: import { API_VERSION, makeWebHandler } from "payments-service/http"
import { API_VERSION, makeWebHandler } from "../src/http/index.js"
// published as: import { LoopbackWebhookSenderLayer, memoryLayer } from "payments-service/memory"
import { LoopbackWebhookSenderLayer, memoryLayer } from "../src/adapters/memory/index.js"
// published as: import { ... } from "payments-service/testing"
import { type ApiClient, arbitraryFor, damaged, externalAccountCommands, ExternalAccountsModel } from "../src/testing/index.js"

const platform = platformFromConfig({ id: "acme", clientId: "acme_client_id", clientSecret: "acme_client_secret" })
const numRuns = Number(process.env["FC_NUM_RUNS"] ?? "25")

// No scheduler: nothing here waits for scheduled moves, and a background loop would
// only add work between commands.
const app = makeWebHandler({ services: Layer.merge(memoryLayer([platform]), LoopbackWebhookSenderLayer), schedulerIntervalMillis: false })
const authorization = `Basic ${Buffer.from(`${platform.clientId}:${platform.clientSecret}`).toString("base64")}`

// The only thing the properties know about the API: JSON in, status and JSON out.
const client: ApiClient = {
  call: async (method, path, body) => {
    const res = await app.handler(new Request(`http://in-process/${API_VERSION}${path}`, {
      method,
      headers: { authorization, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    }))
    const text = await res.text()
    return { status: res.status, body: text === "" ? undefined : JSON.parse(text) }
  }
}
const newCustomer = async (): Promise<string> => {
  const r = await client.call("POST", "/customers", { customerType: "INDIVIDUAL", fullName: "Property Owner" })
  if (r.status !== 201) throw new Error(`creating a customer: ${r.status} ${JSON.stringify(r.body)}`)
  return (r.body as { readonly id: string }).id
}

const customerId = await newCustomer()
const neverA5xx = fc.asyncProperty(
  damaged(arbitraryFor(CustomerExternalAccountCreateRequest).map((r) => ({ ...r, customerId }))),
  async (body) => (await client.call("POST", "/customers/external-accounts", body)).status < 500
)
// A fresh customer per sequence, so every run starts from an empty model.
const agreesWithModel = fc.asyncProperty(fc.commands(externalAccountCommands(), { maxCommands: 20 }), async (cmds) => {
  const owner = await newCustomer()
  await fc.asyncModelRun(() => ({ model: new ExternalAccountsModel(owner), real: client }), cmds)
})

// fc.check (not fc.assert) hands back the details: runs made, and the shrunk counterexample if any.
const check = async <Ts>(name: string, property: fc.IAsyncProperty<Ts>) => {
  const details = await fc.check(property, { numRuns })
  if (details.failed) console.error(`${name}: FAILED after ${details.numRuns} runs\n${fc.defaultReportMessage(details)}`)
  else console.log(`${name}: ${details.numRuns} runs passed`)
  return !details.failed
}

try {
  const passed = [await check("never a 5xx", neverA5xx), await check("agrees with the model", agreesWithModel)]
  process.exitCode = passed.every(Boolean) ? 0 : 1
} finally {
  await app.dispose()
}
