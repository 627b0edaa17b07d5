/**
 * The direct lane answers exactly as the HttpApi app would: the same generated
 * request sequences sent to an app with the lane and one without (same seed) get the
 * same statuses, bodies and content types. Plus the lane's routing and declining rules,
 * and the same check over real sockets.
 */
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { CustomerCreateRequest } from "../../src/domain/customer.js"
import { CustomerExternalAccountCreateRequest, PlatformExternalAccountCreateRequest } from "../../src/domain/external-account.js"
import { ExecuteQuoteRequest, QuoteRequest } from "../../src/domain/quote.js"
import { LoopbackWebhookSenderLayer, memoryLayer } from "../../src/adapters/memory/index.js"
import { appServices, directWebHandler, laneOver, routesOver } from "../../src/http/app.js"
import { VerifiedCredentials } from "../../src/http/credentials.js"
import { PaymentsApi } from "../../src/http/api.js"
import { type DirectLane, laneRoute, makeDirectLane } from "../../src/http/direct.js"
import { DIRECT_ROUTES } from "../../src/http/direct-routes.js"
import { serveReference } from "../../src/http/node.js"
import { arbitraryFor, damaged } from "../../src/testing/arbitrary.js"
import { basic, platformA, platformB } from "../support/api.js"
import { numRuns } from "../support/runs.js"
import type { Platform } from "../../src/domain/platform.js"

const BASE = "http://test/2025-10-13"
const platforms = [platformA, platformB]

/** An app over fresh services; `lane` false serves everything through HttpApi. Counts what the lane took. */
const makeApp = (lane: boolean, seed = 11) => {
  const scope = Scope.makeUnsafe()
  const context = Effect.runSync(Layer.buildWithScope(appServices({ services: Layer.merge(memoryLayer(platforms, { seed }), LoopbackWebhookSenderLayer), schedulerIntervalMillis: false }), scope))
  const web = HttpRouter.toWebHandler(routesOver(context).pipe(Layer.provide(HttpServer.layerServices)), { disableLogger: true })
  const stats = { taken: 0 }
  const inner = laneOver(context)
  const counted: DirectLane = {
    matches: inner.matches,
    accept: (method, url, header) => {
      const c = inner.accept(method, url, header)
      if (c !== undefined) stats.taken++
      return c
    }
  }
  const handler = lane ? directWebHandler(counted, (r) => web.handler(r)) : (r: Request) => web.handler(r)
  return {
    handler,
    stats,
    context,
    dispose: async () => {
      await web.dispose()
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  }
}

interface Call {
  readonly method: string
  readonly path: string
  readonly as: Platform
  readonly contentType?: string | undefined
  readonly raw?: string
  readonly body?: unknown
  /** Replace `{id}` in the path with the n-th id created so far (`{eid}`: that id with its colon percent-encoded). */
  readonly ref?: number
  readonly auth?: string
}

interface Answer {
  readonly status: number
  readonly contentType: string | null
  readonly body: string
}

const ISO = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g

const send = async (handler: (r: Request) => Promise<Response>, call: Call, ids: ReadonlyArray<string>): Promise<Answer> => {
  const id = call.ref === undefined ? "" : ids.length === 0 ? "ExternalAccount:none" : ids[call.ref % ids.length]!
  // `{eid}`: the id with its colon percent-encoded, as clients that encode path segments send it.
  const headers: Record<string, string> = { authorization: call.auth ?? basic(call.as) }
  if (call.contentType !== undefined) headers["content-type"] = call.contentType
  const body = call.raw ?? (call.body === undefined ? undefined : JSON.stringify(call.body))
  const res = await handler(new Request(`${BASE}${call.path.replace("{id}", id).replace("{eid}", encodeURIComponent(id))}`, {
    method: call.method,
    headers,
    ...(body === undefined ? {} : { body })
  }))
  // Timestamps come from the wall clock, which moves between the two apps.
  return { status: res.status, contentType: res.headers.get("content-type"), body: (await res.text()).replace(ISO, "<time>") }
}

const idsOf = (answer: Answer): Array<string> => {
  if (answer.status !== 201) return []
  const parsed: unknown = JSON.parse(answer.body)
  const id = typeof parsed === "object" && parsed !== null && "id" in parsed ? parsed.id : undefined
  return typeof id === "string" && (id.startsWith("ExternalAccount:") || id.startsWith("Quote:")) ? [id] : []
}

const platformArb = fc.constantFrom(platformA, platformB)
const jsonType = fc.constantFrom("application/json", "application/json; charset=utf-8", "application/vnd.api+json", "text/plain", "APPLICATION/JSON")

/** Customers are created first and addressed by index: ids are the same in both apps (same seed). */
const CUSTOMER_IDS_PLACEHOLDER = "{customer}"

const callArb: fc.Arbitrary<Call> = fc.oneof(
  fc.record({
    method: fc.constant("POST"),
    path: fc.constant("/customers/external-accounts"),
    as: platformArb,
    contentType: jsonType,
    body: damaged(arbitraryFor(CustomerExternalAccountCreateRequest).map((r) => ({ ...r, customerId: CUSTOMER_IDS_PLACEHOLDER })))
  }),
  fc.record({
    method: fc.constant("POST"),
    path: fc.constant("/platform/external-accounts"),
    as: platformArb,
    contentType: jsonType,
    body: damaged(arbitraryFor(PlatformExternalAccountCreateRequest))
  }),
  fc.record({ method: fc.constant("POST"), path: fc.constant("/customers"), as: platformArb, contentType: jsonType, body: damaged(arbitraryFor(CustomerCreateRequest)) }),
  fc.record({ method: fc.constant("POST"), path: fc.constant("/quotes"), as: platformArb, contentType: jsonType, body: damaged(arbitraryFor(QuoteRequest)) }),
  // Execute: the body is optional (absent, empty, `null`, a request, damaged), with and without a JSON type.
  fc.record({
    method: fc.constant("POST"),
    path: fc.constantFrom("/quotes/{id}/execute", "/quotes/{eid}/execute", "/quotes/Quote:none/execute", "/quotes/Quote%3anone/execute"),
    as: platformArb,
    ref: fc.nat(),
    contentType: fc.option(jsonType, { nil: undefined }),
    body: fc.option(damaged(arbitraryFor(ExecuteQuoteRequest)), { nil: undefined })
  }),
  fc.record({
    method: fc.constant("POST"),
    path: fc.constant("/quotes/{id}/execute"),
    as: platformArb,
    ref: fc.nat(),
    contentType: fc.option(jsonType, { nil: undefined }),
    raw: fc.constantFrom("", "{", "null", "[]", "{}", "{\"scaFactor\":\"SMS_OTP\"}", "{\"scaFactor\":7}")
  }),
  fc.record({
    method: fc.constantFrom("POST", "PATCH"),
    path: fc.constantFrom("/customers", "/customers/external-accounts", "/platform/external-accounts", "/quotes"),
    as: platformArb,
    contentType: jsonType,
    raw: fc.constantFrom("", "{", "null", "[]", "\"x\"", "{\"customerId\":1}", "\uFEFF{}", "{}")
  }),
  fc.record({
    method: fc.constantFrom("GET", "DELETE"),
    path: fc.constantFrom("/customers/external-accounts/{id}", "/customers/external-accounts/{eid}", "/platform/external-accounts/{eid}", "/platform/external-accounts/{id}", "/customers/external-accounts", "/customers/{id}"),
    as: platformArb,
    ref: fc.nat()
  }),
  fc.record({
    method: fc.constant("GET"),
    path: fc.constantFrom("/customers/external-accounts/x%20y", "/customers/external-accounts/", "/platform/external-accounts/a/b", "/customers/external-accounts/ExternalAccount:none?x=1"),
    as: platformArb
  }),
  fc.record({
    method: fc.constant("POST"),
    path: fc.constant("/customers/external-accounts"),
    as: platformArb,
    contentType: fc.constant("application/json"),
    body: fc.constant({}),
    auth: fc.constantFrom("Basic Y2xpZW50LWE6d3Jvbmc=", "Bearer x", "")
  })
)

/** Runs the calls on one app: a customer per platform first, then the generated calls. */
const play = async (app: ReturnType<typeof makeApp>, calls: ReadonlyArray<Call>) => {
  const answers: Array<Answer> = []
  const customers = new Map<string, string>()
  for (const p of platforms) {
    const a = await send(app.handler, { method: "POST", path: "/customers", as: p, contentType: "application/json", body: { customerType: "INDIVIDUAL", fullName: "Dee Rect" } }, [])
    customers.set(p.id, JSON.parse(a.body).id)
    answers.push(a)
  }
  const ids: Array<string> = []
  for (const call of calls) {
    const customer = customers.get(call.as.id)!
    const body = call.body === undefined ? undefined : JSON.parse(JSON.stringify(call.body).replaceAll(CUSTOMER_IDS_PLACEHOLDER, customer))
    const a = await send(app.handler, { ...call, ...(body === undefined ? {} : { body }), path: call.path.replace("/customers/{id}", `/customers/${customer}`) }, ids)
    ids.push(...idsOf(a))
    answers.push(a)
  }
  return answers
}

describe("the direct lane answers as the HttpApi app does", () => {
  it("the same generated request sequences get the same status, body and content type on both paths", async () => {
    let taken = 0
    await fc.assert(
      fc.asyncProperty(fc.array(callArb, { minLength: 1, maxLength: 25 }), async (calls) => {
        const direct = makeApp(true)
        const plain = makeApp(false)
        try {
          const a = await play(direct, calls)
          const b = await play(plain, calls)
          expect(a).toEqual(b)
          taken += direct.stats.taken
        } finally {
          await direct.dispose()
          await plain.dispose()
        }
      }),
      { numRuns: numRuns(40) }
    )
    // Not vacuous: the lane did take requests.
    expect(taken).toBeGreaterThan(40)
  })

  it("over real sockets: the same answers with and without the lane", async () => {
    const scope = Scope.makeUnsafe()
    try {
      const serve = (directLane: boolean) =>
        Effect.runPromise(Scope.provide(serveReference({ services: Layer.merge(memoryLayer(platforms, { seed: 5 }), LoopbackWebhookSenderLayer), schedulerIntervalMillis: false, host: "127.0.0.1", port: 0, directLane }), scope))
      const [withLane, without] = await Promise.all([serve(true).then((s) => s.address), serve(false).then((s) => s.address)])
      const origin = (a: typeof withLane) => (a._tag === "UnixPathAddress" ? "" : `http://127.0.0.1:${a.port}/2025-10-13`)
      const run = async (base: string) => {
        const out: Array<Answer> = []
        const call = async (method: string, path: string, body?: unknown, type = "application/json") => {
          const res = await fetch(`${base}${path}`, {
            method,
            headers: { authorization: basic(platformA), ...(body === undefined ? {} : { "content-type": type }) },
            ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) })
          })
          const answer = { status: res.status, contentType: res.headers.get("content-type"), body: (await res.text()).replace(ISO, "<time>") }
          out.push(answer)
          return answer
        }
        const customer = JSON.parse((await call("POST", "/customers", { customerType: "INDIVIDUAL", fullName: "So Cket" })).body).id
        const account = { customerId: customer, currency: "USD", accountInfo: { accountType: "USD_ACCOUNT", accountNumber: "1234567890", routingNumber: "021000021", bankAccountType: "CHECKING", beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Ada Lovelace" } } }
        const created = JSON.parse((await call("POST", "/customers/external-accounts", account)).body)
        await call("POST", "/customers/external-accounts", account)
        await call("POST", "/customers/external-accounts", "{nope")
        await call("POST", "/customers/external-accounts", { ...account, currency: 7 })
        await call("GET", `/customers/external-accounts/${created.id}`)
        await call("GET", "/customers/external-accounts/ExternalAccount:missing")
        await call("GET", `/platform/external-accounts/${created.id}`)
        await call("POST", "/platform/external-accounts", { currency: "USDC", accountInfo: { accountType: "ETHEREUM_WALLET", address: "0x0000000000000000000000000000000000000001" } })
        // Money: payouts from the platform's funded USD account to the external account
        // (executed, executed again, refused bodies, an empty JSON body, short of funds).
        const usd = (JSON.parse((await call("GET", "/platform/internal-accounts?currency=USD")).body).data as Array<{ id: string }>)[0]!.id
        await call("POST", `/sandbox/internal-accounts/${usd}/fund`, { amount: 1_000_000 })
        const quote = (amount: number) =>
          call("POST", "/quotes", {
            source: { sourceType: "ACCOUNT", accountId: usd },
            destination: { destinationType: "ACCOUNT", accountId: created.id },
            lockedCurrencySide: "SENDING",
            lockedCurrencyAmount: amount
          })
        const first = JSON.parse((await quote(1_000)).body).id
        await call("POST", `/quotes/${encodeURIComponent(first)}/execute`)
        await call("POST", `/quotes/${first}/execute`)
        const second = JSON.parse((await quote(2_000)).body).id
        await call("POST", `/quotes/${second}/execute`, "{nope")
        await call("POST", `/quotes/${second}/execute`, { scaFactor: 7 })
        await call("POST", `/quotes/${second}/execute`, "", "text/plain")
        await call("POST", `/quotes/${second}/execute`, {})
        await quote(10_000_000)
        await call("POST", "/quotes/Quote:missing/execute")
        return out
      }
      expect(await run(origin(withLane))).toEqual(await run(origin(without)))
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  })
})

describe("what the lane takes and declines", () => {
  const app = makeApp(true)
  const lane = laneOver(app.context)
  const header = (h: Record<string, string>) => (name: string) => h[name]
  const json = (extra: Record<string, string> = {}) => header({ authorization: basic(platformA), "content-type": "application/json", "content-length": "2", ...extra })
  const remember = () => Context.get(app.context, VerifiedCredentials).remember(basic(platformA), platformA)

  it("declines credentials that have not passed the full check, so PlatformAuth answers them", () => {
    expect(lane.accept("POST", "/2025-10-13/customers/external-accounts", json())).toBeUndefined()
    remember()
    expect(lane.accept("POST", "/2025-10-13/customers/external-accounts", json())).toBeTypeOf("function")
    expect(lane.accept("POST", "/2025-10-13/customers/external-accounts", json({ authorization: basic(platformB) }))).toBeUndefined()
  })

  it("declines bodies it cannot read exactly as the guard does", () => {
    remember()
    const path = "/2025-10-13/customers/external-accounts"
    const without = (name: string) => (n: string) => (n === name ? undefined : json()(n))
    expect(lane.accept("POST", path, without("content-length"))).toBeUndefined()
    expect(lane.accept("POST", path, without("content-type"))).toBeUndefined()
    expect(lane.accept("POST", path, json({ "content-type": "text/plain" }))).toBeUndefined()
    expect(lane.accept("POST", path, json({ "content-length": String(1024 * 1024 + 1) }))).toBeUndefined()
    expect(lane.accept("POST", path, json({ "content-length": "12abc" }))).toBeUndefined()
    expect(lane.accept("GET", `${path}/x`, json({ "content-length": "5" }))).toBeUndefined()
    // An optional body (execute): absent is taken (it decodes as null), other types are not.
    const execute = "/2025-10-13/quotes/Quote:x/execute"
    const bare = header({ authorization: basic(platformA) })
    expect(lane.accept("POST", execute, bare)).toBeTypeOf("function")
    expect(lane.accept("POST", execute, json({ "content-length": "0" }))).toBeTypeOf("function")
    expect(lane.accept("POST", execute, header({ authorization: basic(platformA), "content-type": "text/plain" }))).toBeUndefined()
    expect(lane.accept("POST", execute, header({ authorization: basic(platformA), "transfer-encoding": "chunked" }))).toBeUndefined()
    expect(lane.accept("POST", path, bare)).toBeUndefined()
  })

  it("routes as the HttpApi router does: static segments first, other routes and encoded parameters declined", () => {
    remember()
    const get = header({ authorization: basic(platformA) })
    expect(lane.accept("GET", "/2025-10-13/customers/external-accounts", get)).toBeUndefined() // the list endpoint
    expect(lane.accept("GET", "/2025-10-13/customers/external-accounts/abc", get)).toBeTypeOf("function")
    expect(lane.accept("GET", "/2025-10-13/customers/external-accounts/abc?x=1", get)).toBeTypeOf("function")
    expect(lane.accept("GET", "/2025-10-13/customers/external-accounts/a%20b", get)).toBeUndefined()
    expect(lane.accept("GET", "/2025-10-13/customers/external-accounts/ExternalAccount%3Aabc", get)).toBeTypeOf("function")
    expect(lane.accept("GET", "/2025-10-13/customers/external-accounts/ExternalAccount%3Aa%2Fb", get)).toBeUndefined()
    expect(lane.accept("GET", "/2025-10-13/customers/external-accounts/", get)).toBeUndefined()
    expect(lane.accept("DELETE", "/2025-10-13/customers/external-accounts/abc", get)).toBeUndefined()
    expect(lane.accept("GET", "/2025-10-13/customers/Customer:1", get)).toBeUndefined()
    expect(lane.accept("GET", "/customers/external-accounts/abc", get)).toBeUndefined()
    expect(lane.matches("GET", "/2025-10-13/platform/external-accounts/abc")).toBe(true)
    expect(lane.matches("GET", "/2025-10-13/platform/external-accounts")).toBe(false)
  })

  it("refuses a route that is not an endpoint of the API", () => {
    // A route whose endpoint is not part of the API (same shape as one that is, another path).
    const stray = { ...laneRoute(PaymentsApi.groups.customers.endpoints.createCustomer, 201, () => Effect.die("unreachable")), path: "/nowhere" }
    expect(() =>
      makeDirectLane({ base: "/2025-10-13", endpoints: [{ method: "POST", path: "/2025-10-13/customers" }], routes: [stray], context: app.context })
    ).toThrow(/not an endpoint/)
  })

  it("every lane route is an endpoint of the API", () => {
    expect(DIRECT_ROUTES.length).toBeGreaterThan(0)
    expect(() => laneOver(app.context)).not.toThrow()
  })
})
