/**
 * Webhook destinations through the API (issue 25 item 6; docs/webhooks.md#destinations):
 * PATCH /config answers 400 naming the rule for an endpoint the platform's destinations
 * refuse (an address, or a name that resolves to one), and an attempt refused at
 * delivery (the name resolves elsewhere by then) is a failed attempt with the reason in
 * GET /sandbox/webhooks/deliveries. The app runs the real guard with an injected
 * resolver and a recording transport: nothing here looks a name up or dials out.
 */
import { Layer } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { memoryLayer } from "../../src/adapters/memory/index.js"
import { type Resolver, type Transport, webhookSenderLayer } from "../../src/adapters/webhook-http.js"
import { platformFromConfig, type Platform } from "../../src/domain/platform.js"
import { makeWebHandler } from "../../src/http/app.js"
import { basic, isErrorShape, readReply, type Reply } from "../support/api.js"
import { eventually } from "../support/webhook-receiver.js"

const sandbox = platformFromConfig({ id: "dest-sbx", clientId: "dest-sbx", clientSecret: "secret-dest-sbx" })
const production = platformFromConfig({ id: "dest-prod", clientId: "dest-prod", clientSecret: "secret-dest-prod", sandbox: false })
const lan = platformFromConfig({ id: "dest-lan", clientId: "dest-lan", clientSecret: "secret-dest-lan", webhookDestinations: ["loopback", "public", "10.20.0.0/16"] })

/** Answers per name; `rebinds`: what a name answers from its second lookup on (DNS rebinding). */
const names = new Map<string, string>()
const rebinds = new Map<string, string>()
const lookedUp = new Set<string>()
const resolver: Resolver = async (host) => {
  const address = lookedUp.has(host) && rebinds.has(host) ? rebinds.get(host) : names.get(host)
  lookedUp.add(host)
  if (address === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" })
  return [{ address, family: address.includes(":") ? 6 : 4 }]
}
const sent: Array<{ readonly url: string; readonly addresses: ReadonlyArray<string> }> = []
const transport: Transport = async (url, _request, addresses) => {
  sent.push({ url: url.href, addresses: addresses.map((a) => a.address) })
  return { _tag: "Answered", status: 200, body: "", durationMs: 0 }
}

const disposers: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const d of disposers.splice(0)) await d()
  names.clear()
  rebinds.clear()
  lookedUp.clear()
  sent.length = 0
})

const app = () => {
  const { handler, dispose } = makeWebHandler({
    services: Layer.merge(memoryLayer([sandbox, production, lan]), webhookSenderLayer({ resolver, transport })),
    schedulerIntervalMillis: false
  })
  disposers.push(dispose)
  return async (method: string, path: string, as: Platform, body?: unknown): Promise<Reply> =>
    readReply(
      await handler(
        new Request(`http://test/2025-10-13${path}`, {
          method,
          headers: { authorization: basic(as), ...(body === undefined ? {} : { "content-type": "application/json" }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) })
        })
      )
    )
}

const patchEndpoint = (call: ReturnType<typeof app>, as: Platform, webhookEndpoint: string) => call("PATCH", "/config", as, { webhookEndpoint })

const expectRefused = (reply: Reply, rule: string) => {
  expect(reply.status, JSON.stringify(reply.body)).toBe(400)
  expect(isErrorShape(reply.body)).toBe(true)
  expect(reply.body.code).toBe("INVALID_INPUT")
  expect(reply.body.details.rule).toBe(rule)
  expect(reply.body.details.errors).toEqual([expect.objectContaining({ field: "webhookEndpoint", constraint: "webhookDestination" })])
  expect(reply.body.reason).toContain("not an allowed destination")
}

describe("PATCH /config refuses an endpoint the platform's destinations refuse", () => {
  it("link-local and metadata addresses and names: 400 naming the rule, on every platform; nothing stored", async () => {
    const call = app()
    for (const as of [sandbox, production, lan]) {
      expectRefused(await patchEndpoint(call, as, "http://169.254.169.254/latest/meta-data/"), "CLOUD_METADATA")
      expectRefused(await patchEndpoint(call, as, "http://metadata.google.internal/computeMetadata/v1/"), "CLOUD_METADATA")
      expectRefused(await patchEndpoint(call, as, "http://[::ffff:169.254.169.254]/"), "CLOUD_METADATA")
      expectRefused(await patchEndpoint(call, as, "http://169.254.10.1:8080/hooks"), "LINK_LOCAL")
      expectRefused(await patchEndpoint(call, as, "http://[fe80::1]/hooks"), "LINK_LOCAL")
      expectRefused(await patchEndpoint(call, as, "http://0.0.0.0:8080/hooks"), "UNSPECIFIED")
      expect((await call("GET", "/config", as)).body.webhookEndpoint).toBeUndefined()
    }
    expect(sent).toEqual([])
  })

  it("a name that resolves to a private address: 400 on a sandbox platform; accepted where the range is allowed", async () => {
    const call = app()
    names.set("hooks.corp.example", "10.20.0.7")
    expectRefused(await patchEndpoint(call, sandbox, "https://hooks.corp.example/in"), "PRIVATE_NOT_ALLOWED")
    expectRefused(await patchEndpoint(call, sandbox, "http://192.168.1.20/in"), "PRIVATE_NOT_ALLOWED")
    const accepted = await patchEndpoint(call, lan, "https://hooks.corp.example/in")
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200)
    // Its TEST webhook goes to the checked address.
    await eventually(() => sent.length > 0, 10_000, "the TEST webhook of the allowed private endpoint")
    expect(sent[0]).toEqual({ url: "https://hooks.corp.example/in", addresses: ["10.20.0.7"] })
  })

  it("loopback: allowed on a sandbox platform, refused on a production one", async () => {
    const call = app()
    expect((await patchEndpoint(call, sandbox, "http://127.0.0.1:9/hooks")).status).toBe(200)
    expectRefused(await patchEndpoint(call, production, "http://127.0.0.1:9/hooks"), "LOOPBACK_NOT_ALLOWED")
    expectRefused(await patchEndpoint(call, production, "http://localhost:9/hooks"), "LOOPBACK_NOT_ALLOWED")
  })

  it("a name that does not resolve is accepted (checked again at each attempt)", async () => {
    const call = app()
    expect((await patchEndpoint(call, sandbox, "https://hooks.example.invalid/in")).status).toBe(200)
  })
})

describe("an attempt refused at delivery is a failed attempt with the reason", () => {
  it("a name that resolved to a public address at PATCH and to the metadata address at the attempt (DNS rebinding)", async () => {
    const call = app()
    names.set("rebind.example", "93.184.216.34")
    rebinds.set("rebind.example", "169.254.169.254")
    expect((await patchEndpoint(call, sandbox, "https://rebind.example/hooks")).status).toBe(200)
    let deliveries: Reply | undefined
    await eventually(async () => {
      deliveries = await call("GET", "/sandbox/webhooks/deliveries", sandbox)
      return deliveries.body.data?.[0]?.attempts?.length > 0
    }, 10_000, "the TEST webhook's first attempt")
    const attempt = deliveries!.body.data[0].attempts[0]
    expect(attempt.url).toBe("https://rebind.example/hooks")
    expect(attempt.statusCode).toBeUndefined()
    expect(attempt.error).toContain("CLOUD_METADATA")
    expect(attempt.error).toContain("rebind.example resolves to 169.254.169.254")
    expect(sent).toEqual([])

    const test = await call("POST", "/sandbox/webhooks/test", sandbox)
    expect(test.status).toBe(400)
    expect(test.body.code).toBe("WEBHOOK_DELIVERY_ERROR")
    expect(test.body.reason).toContain("CLOUD_METADATA")
  })
})
