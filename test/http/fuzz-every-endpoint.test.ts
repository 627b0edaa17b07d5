/**
 * A fuzz campaign generated from the HttpApi definition: every endpoint of
 * `PaymentsApi` (no hand-written list, so a new endpoint is fuzzed as soon as it is
 * added) gets schema-valid bodies, damaged bodies, path params that are the caller's
 * ids, another platform's ids or junk, random queries and random declared headers.
 *
 * Invariants on every answer:
 * - never 5xx;
 * - a non-2xx body is exactly `{ code, reason, message, details? }` with `message` equal to `reason`;
 * - the answer is under 100 KB;
 * - no answer mentions an id of the other platform (unless the request itself carried it);
 * - a refused (4xx) POST created nothing (customer, external-account and card totals unchanged);
 * - a 404 comes from an operation whose reference entry lists one, with a code of the reference's
 *   Error404 enum (generic NOT_FOUND only for kinds it has none for: test/conformance/not-found-rules.ts).
 *
 * Runs on the memory store as platform A, with platform B's data alongside.
 * `numRuns(20)` per endpoint in `npm test` (about 3,700 requests); FC_NUM_RUNS raises it, and
 * `.ci/run` runs the campaign again at 150 runs per endpoint after the suite.
 */
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { PaymentsApi } from "../../src/http/api.js"
import { arbitraryFor, damaged } from "../../src/testing/arbitrary.js"
import { evmWallet, isErrorShape, makeApi, platformA, platformB, type Reply, usdAccount } from "../support/api.js"
import { business, completeIndividualFields, files, individual, ownerRequest } from "../support/onboarding-client.js"
import { numRuns } from "../support/runs.js"
import { notFoundProblem } from "../conformance/not-found-rules.js"

/* eslint-disable @typescript-eslint/no-explicit-any -- endpoint and schema internals are inspected generically */

const api = makeApi([platformA, platformB])
afterAll(() => api.dispose())

const VERSION_PREFIX = /^\/\d{4}-\d{2}-\d{2}/
const MAX_BODY_BYTES = 100 * 1024
const RUNS = numRuns(20)

// ------------------------------------------------------------ the endpoints, from the definition

interface Endpoint {
  readonly id: string
  readonly method: string
  readonly path: string // without the version prefix, with :params
  readonly params: ReadonlyArray<string>
  readonly query: any | undefined
  readonly headers: ReadonlyArray<string>
  readonly payloadSchemas: ReadonlyArray<any> // JSON payload schemas (empty: none or multipart only)
  readonly multipart: boolean
}

const fieldNames = (s: any): ReadonlyArray<string> =>
  s === undefined ? [] : (s.ast?.propertySignatures ?? []).map((p: any) => String(p.name))

const endpoints: ReadonlyArray<Endpoint> = Object.values(PaymentsApi.groups).flatMap((group: any) =>
  Object.values(group.endpoints).map((e: any): Endpoint => {
    const payload: Map<string, any> | undefined = e.payload instanceof Map ? e.payload : undefined
    const json = payload?.get("application/json")
    return {
      id: String(e.identifier ?? e.name),
      method: String(e.method).toUpperCase(),
      path: String(e.path).replace(VERSION_PREFIX, ""),
      params: fieldNames(e.params),
      query: e.query,
      headers: fieldNames(e.headers),
      payloadSchemas: json?.schemas ?? [],
      multipart: payload !== undefined && [...payload.keys()].some((k) => k.startsWith("multipart/"))
    }
  })
)

// ------------------------------------------------------------ ids: the caller's (A) and the other platform's (B)

/** Ids by kind ("customer", "externalaccount", ...: the prefix before ":" lowercased). */
const own = new Map<string, Set<string>>()
const foreign = new Map<string, Set<string>>()
const allForeign = () => [...foreign.values()].flatMap((s) => [...s])

const ID_LIKE = /^[A-Za-z]+:[0-9A-Za-z-]{6,}$/
/** Every `id`/`...Id` string in a body goes to `into`. */
const harvest = (value: unknown, into: Map<string, Set<string>>, depth = 0): void => {
  if (depth > 6 || typeof value !== "object" || value === null) return
  if (Array.isArray(value)) return value.forEach((v) => harvest(v, into, depth + 1))
  for (const [k, v] of Object.entries(value)) {
    if (typeof v === "string" && (k === "id" || k.endsWith("Id")) && ID_LIKE.test(v)) {
      const kind = v.slice(0, v.indexOf(":")).toLowerCase()
      if (!into.has(kind)) into.set(kind, new Set())
      into.get(kind)!.add(v)
    } else harvest(v, into, depth + 1)
  }
}

/** `id` and `customerId` values only: what a resource is and who owns it. */
const harvestOwning = (value: unknown, into: Map<string, Set<string>>, depth = 0): void => {
  if (depth > 6 || typeof value !== "object" || value === null) return
  if (Array.isArray(value)) return value.forEach((v) => harvestOwning(v, into, depth + 1))
  for (const [k, v] of Object.entries(value)) {
    if (typeof v === "string" && (k === "id" || k === "customerId")) {
      if (!into.has(k)) into.set(k, new Set())
      into.get(k)!.add(v)
    } else harvestOwning(v, into, depth + 1)
  }
}
const echoable = new Set<string>()
/** B's ids that A sent in any request, accepted or not: the request log (GET /sandbox/requests) shows A its own requests. */
const sentByA = new Set<string>()

const kindOfParam = (param: string) => param.replace(/Id$/, "").toLowerCase()
/** A path parameter's kind: `{id}` names the resource of the path (`/cards/:id`: a card). */
const kindOfPathParam = (path: string, param: string) =>
  param === "id" ? (path.replace(/^\/sandbox\/cards\//, "/cards/").split("/")[1] ?? "").replace(/s$/, "").toLowerCase() : kindOfParam(param)
const pick = (pool: Map<string, Set<string>>, kind: string, n: number): string | undefined => {
  const ids = [...(pool.get(kind) ?? [])]
  const fallback = [...pool.values()].flatMap((s) => [...s])
  const from = ids.length > 0 ? ids : fallback
  return from.length === 0 ? undefined : from[n % from.length]
}

/** The agent access token of each platform's seeded agent (the /agents/me endpoints take it). */
const agentTokens = new Map<string, string>()

let seeds = 0
// Sandbox identifiers are "magic" by their last 3 characters (001, 105, 911, ...): end with a plain 789.
const hex40 = (n: number, tag: string) => `0x${(tag === "A" ? "a" : "b")}${n.toString(16).padStart(36, "0")}789`
const seed = async (as: typeof platformA, into: Map<string, Set<string>>, tag: string) => {
  const n = ++seeds * 10
  const post = async (path: string, body: unknown) => {
    const r = await api.call("POST", path, { body, as })
    expect(r.status, `seed ${tag} POST ${path}: ${JSON.stringify(r.body)}`).toBeLessThan(300)
    harvest(r.body, into)
    return r.body
  }
  const c1 = await post("/customers", individual(`Ada ${tag}${n}`))
  const c2 = await post("/customers", individual(`Grace ${tag}${n}`))
  const biz = await post("/customers", business(`REG-${tag}${n}`))
  // An SCA-region customer with a verified phone, so the SCA endpoints get past their 409.
  const eu = await post("/customers", individual(`Eva ${tag}${n}`, { region: "DE", email: `eva${tag}${n}@example.com`, phoneNumber: `+49151${String(n).padStart(7, "0")}` }))
  expect((await api.call("POST", `/customers/${encodeURIComponent(eu.id)}/verify-phone`, { as })).status, `seed ${tag} verify-phone`).toBe(204)
  await post(`/customers/${encodeURIComponent(eu.id)}/verify-phone/confirm`, { code: "123456" })
  await post("/customers/external-accounts", usdAccount(c1.id, `${100000 + n}789`))
  await post("/customers/external-accounts", evmWallet(c2.id, hex40(n + 1, tag), { ownershipType: "FIRST_PARTY" }))
  await post("/platform/external-accounts", evmWallet(undefined, hex40(n + 2, tag), { ownershipType: "FIRST_PARTY" }))
  await post("/beneficial-owners", ownerRequest(biz.id, `Owner${tag}`))
  // An agent of the first customer, installed: the /agents/me endpoints run as it.
  const agent = await post("/agents", {
    name: `Agent ${tag}${n}`,
    customerId: c1.id,
    policy: {
      permissions: ["VIEW_TRANSACTIONS", "CREATE_TRANSFERS", "CREATE_QUOTES", "EXECUTE_QUOTES", "MANAGE_EXTERNAL_ACCOUNTS"],
      defaultExecutionMode: "AUTO",
      spendingLimits: { currency: "USD", perTransactionLimit: 100_000 }
    }
  })
  const redeemed = await api.call("POST", `/agents/device-codes/${encodeURIComponent(agent.deviceCode.code)}/redeem`, { as })
  expect(redeemed.status, `seed ${tag} redeem: ${JSON.stringify(redeemed.body)}`).toBe(200)
  agentTokens.set(tag, redeemed.body.accessToken)
  await post("/verifications", { customerId: c1.id })
  // A cardholder: a complete packet (fields and a passport) is approved, its internal accounts open, it gets a card.
  const holder = await post("/customers", individual(`Card ${tag}${n}`, completeIndividualFields))
  const fd = new FormData()
  for (const [k, v] of Object.entries({ documentHolder: holder.id, documentType: "PASSPORT", country: "US" })) fd.append(k, v)
  const f = files.jpeg()
  fd.append("file", new Blob([new Uint8Array(f.bytes)], { type: f.type }), f.name)
  const encoded = new Response(fd)
  const uploaded = await api.handler(new Request("http://test/2025-10-13/documents", {
    method: "POST",
    headers: { authorization: `Basic ${Buffer.from(`${as.clientId}:${as.clientSecret}`).toString("base64")}`, "content-type": encoded.headers.get("content-type") ?? "" },
    body: new Uint8Array(await encoded.arrayBuffer())
  }))
  expect(uploaded.status, `seed ${tag} passport`).toBe(201)
  await post("/verifications", { customerId: holder.id })
  const accounts = await api.call("GET", `/customers/internal-accounts?customerId=${encodeURIComponent(holder.id)}&currency=USD`, { as })
  expect(accounts.body.data, `seed ${tag}: the cardholder's accounts`).toHaveLength(1)
  const card = await post("/cards", { cardholderId: holder.id, form: "VIRTUAL", fundingSources: [accounts.body.data[0].id] })
  // A card transaction (declined: the account is empty), so card rows are in GET /transactions.
  await post(`/sandbox/cards/${encodeURIComponent(card.id)}/simulate/authorization`, { amount: 100, currency: { code: "USD" }, merchant: { descriptor: `FUZZ ${tag}${n}` } })
  // Stablecoins: a provider link, a provisioned stablecoin (the provider takes a minute) and a mint and a burn.
  let keyedSeq = 0
  const keyed = async (path: string, body: unknown) => {
    const r = await api.call("POST", path, { body, as, headers: { "idempotency-key": `seed-${tag}-${n}-${++keyedSeq}` } })
    expect(r.status, `seed ${tag} POST ${path}: ${JSON.stringify(r.body)}`).toBe(201)
    harvest(r.body, into)
    return r.body
  }
  const link = await keyed("/stablecoin-provider-accounts", { provider: "BRALE", apiClientId: `fuzz-${tag}${n}-client`, apiClientSecret: "fuzz-secret" })
  const coin = await keyed("/stablecoins", {
    providerTokenIdentifier: `FUZZ${tag}${n}X`,
    networkTokenIdentifier: `btkn1fuzz${tag === "A" ? "q" : "p"}${"qpzry9x8gf2tvdw0s3jn54khce6mua7l"[n % 32]}zzzz`,
    network: "SPARK",
    stablecoinProviderAccountId: link.id
  })
  expect((await api.call("POST", "/sandbox/clock/advance", { body: { seconds: 60 }, as })).status).toBe(200)
  const spark = await post("/platform/external-accounts", { currency: "BTC", accountInfo: { accountType: "SPARK_WALLET", address: `sparkrt1fuzz${tag === "A" ? "q" : "p"}${String(n).replace(/[^2-9]/g, "x")}qpzry9x8gf2tvdw0s3jn54` }, ownershipType: "FIRST_PARTY" })
  const { customerId: _owner, ...platformUsd } = usdAccount("", `${200000 + n}789`)
  const payee = await post("/platform/external-accounts", platformUsd)
  // A Travel Rule platform's first-party wallet awaits ownership verification: no mint to it (a second burn instead).
  if (spark.status === "ACTIVE") {
    await keyed(`/stablecoins/${encodeURIComponent(coin.id)}/mints`, { amount: "1000000", fundingSource: { type: "WIRE" }, destination: { accountId: spark.id } })
  } else {
    await keyed(`/stablecoins/${encodeURIComponent(coin.id)}/burns`, {
      amount: "2000000",
      source: { type: "EXTERNAL_ACCOUNT" },
      destination: { type: "EXTERNAL_ACCOUNT", externalAccountId: payee.id, rail: "ACH_CREDIT" }
    })
  }
  await keyed(`/stablecoins/${encodeURIComponent(coin.id)}/burns`, {
    amount: "1000000",
    source: { type: "PROVIDER_INTERNAL_BALANCE" },
    destination: { type: "EXTERNAL_ACCOUNT", externalAccountId: payee.id, rail: "WIRE" }
  })
}

/** Seeds A again when a fuzzed request (say, a sandbox reset) emptied it. */
const ensureSeeded = async () => {
  const r = await api.call("GET", "/customers?limit=1")
  if (r.status === 200 && r.body.totalCount === 0) await seed(platformA, own, "A")
}

// ------------------------------------------------------------ generators

const junkId = fc.oneof(
  fc.string({ minLength: 1, maxLength: 16 }).map(encodeURIComponent),
  fc.string({ minLength: 200, maxLength: 3000 }).map(encodeURIComponent),
  fc.constantFrom("%00", "%", "%zz", "%E0%A4%A", "..", "%2e%2e", "a%2Fb", "%2F", "Customer:", "Customer:%00", "%FF%FE", "null", "0", "-1", "%20", "%0d%0aX:1"),
  fc.uint8Array({ minLength: 1, maxLength: 24 }).map((bytes) => [...bytes].map((b) => `%${b.toString(16).padStart(2, "0")}`).join("")),
  fc.uuid().map((u) => `Customer:${u}`)
)

type IdChoice = { readonly src: "own" | "foreign"; readonly n: number } | { readonly src: "junk"; readonly value: string }
const idChoice: fc.Arbitrary<IdChoice> = fc.oneof(
  { weight: 3, arbitrary: fc.nat().map((n) => ({ src: "own" as const, n })) },
  { weight: 2, arbitrary: fc.nat().map((n) => ({ src: "foreign" as const, n })) },
  { weight: 2, arbitrary: junkId.map((value) => ({ src: "junk" as const, value })) }
)
const resolveId = (c: IdChoice, kind: string): string =>
  c.src === "junk" ? c.value : encodeURIComponent(pick(c.src === "own" ? own : foreign, kind, c.n) ?? "none")

const hugeString = fc.nat({ max: 50_000 }).chain((n) => fc.constantFrom("a", "é", "\u0000", "😀", "\"", "\\").map((ch) => ch.repeat(Math.max(1, Math.floor(n / ch.length)))))
const deep = fc.integer({ min: 50, max: 5000 }).chain((d) =>
  fc.constantFrom(
    "[".repeat(d) + "]".repeat(d),
    "{\"a\":".repeat(d) + "1" + "}".repeat(d),
    "[".repeat(d)
  )
)
const nonJson = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.constantFrom("", "{", "}", "[", "{\"a\":}", "undefined", "NaN", "{'a':1}", "\u0000", "\uFEFF{}", "1e999999", "-", "tru"),
  fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b).toString("latin1"))
)

/** Replaces `...Id` strings (at any depth) by the caller's, the other platform's or a junk id. */
const withIds = (value: unknown, choices: ReadonlyArray<IdChoice>, depth = 0, counter = { i: 0 }): unknown => {
  if (depth > 6 || typeof value !== "object" || value === null) return value
  if (Array.isArray(value)) return value.map((v) => withIds(v, choices, depth + 1, counter))
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) {
    if (typeof v === "string" && k.endsWith("Id") && choices.length > 0) {
      const c = choices[counter.i++ % choices.length]!
      out[k] = c.src === "junk" ? decodeURIComponentSafe(c.value) : pick(c.src === "own" ? own : foreign, kindOfParam(k), c.n) ?? v
    } else out[k] = withIds(v, choices, depth + 1, counter)
  }
  return out
}
const decodeURIComponentSafe = (s: string) => {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

/** Puts a huge string or deep nesting somewhere in an object. */
const inflate = (value: unknown, key: string, filler: unknown): unknown => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return filler
  const keys = Object.keys(value)
  const target = keys.length === 0 ? key : keys[key.length % keys.length]!
  return { ...value, [target]: filler }
}

/**
 * Nothing the fuzz sends may make the server dial off this machine: a `webhookEndpoint`
 * the schema would accept (an http(s) URL with a random host) gets a host under `.invalid`
 * (never resolvable, RFC 2606), keeping the rest of the URL so validation is still exercised.
 */
const OFF_MACHINE_KEYS = new Set(["webhookEndpoint"])
const onMachine = (value: unknown, depth = 0): unknown => {
  if (depth > 64 || typeof value !== "object" || value === null) return value
  if (Array.isArray(value)) return value.map((v) => onMachine(v, depth + 1))
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) {
    out[k] = OFF_MACHINE_KEYS.has(k) && typeof v === "string"
      ? v.replace(/^(\s*[a-z][a-z0-9+.-]*:\/*)[^/?#\s]*/i, "$1fuzz.payments-test.invalid")
      : onMachine(v, depth + 1)
  }
  return out
}

const safeArbitrary = (schema: any): fc.Arbitrary<unknown> | undefined => {
  try {
    return arbitraryFor(schema) as fc.Arbitrary<unknown>
  } catch {
    return undefined
  }
}

/** The raw body to send: undefined for none. */
const bodyFor = (e: Endpoint): fc.Arbitrary<{ kind: string; raw: string | undefined }> =>
  bodyFor_(e).map((b) => ({ ...b, [fc.toStringMethod]: () => `${b.kind}:${short(b.raw, 200)}` }))
const bodyFor_ = (e: Endpoint): fc.Arbitrary<{ kind: string; raw: string | undefined }> => {
  if (e.payloadSchemas.length === 0) {
    // No JSON body declared (GET, DELETE, multipart): sometimes send junk anyway.
    return fc.oneof(
      { weight: 4, arbitrary: fc.constant({ kind: "none", raw: undefined }) },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((v) => ({ kind: "junk-json", raw: JSON.stringify(v) })) }
    )
  }
  const arbs = e.payloadSchemas.map(safeArbitrary).filter((a): a is fc.Arbitrary<unknown> => a !== undefined)
  const valid = arbs.length === 0 ? fc.jsonValue({ maxDepth: 2 }) : fc.oneof(...arbs)
  const validWithIds = fc.tuple(valid, fc.array(idChoice, { minLength: 1, maxLength: 3 })).map(([v, ids]) => withIds(v, ids))
  const json = (kind: string) => (v: unknown) => ({ kind, raw: JSON.stringify(onMachine(v)) })
  return fc.oneof(
    { weight: 4, arbitrary: validWithIds.map(json("valid")) },
    { weight: 3, arbitrary: damaged(validWithIds).map(json("damaged")) },
    { weight: 1, arbitrary: fc.tuple(validWithIds, fc.string({ maxLength: 6 }), hugeString).map(([v, k, h]) => json("huge")(inflate(v, k, h))) },
    { weight: 1, arbitrary: fc.tuple(validWithIds, fc.string({ maxLength: 6 }), deep).map(([v, k, d]) => ({ kind: "deep", raw: JSON.stringify(onMachine(inflate(v, k, "@@DEEP@@"))).replace("\"@@DEEP@@\"", d) })) },
    { weight: 1, arbitrary: deep.map((raw) => ({ kind: "deep-top", raw })) },
    { weight: 1, arbitrary: nonJson.map((raw) => ({ kind: "non-json", raw })) }
  )
}

const queryValue = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.constantFrom("", "0", "-1", "101", "1e3", "abc", "true", "false", "TRUE", "2025-13-40T00:00:00Z", "2025-01-01T00:00:00Z", "US", "usd", "USD", "INDIVIDUAL", "%", "%00"),
  fc.integer({ min: -5, max: 500 }).map(String),
  fc.string({ minLength: 200, maxLength: 2000 })
)
const enc = (s: string) => (s === "%" || s === "%00" ? s : encodeURIComponent(s))

const queryFor = (e: Endpoint): fc.Arbitrary<string> => {
  if (e.method !== "GET") return fc.constantFrom("", "", "", "?x=1")
  const declared = fieldNames(e.query)
  const valid = e.query === undefined ? undefined : safeArbitrary(e.query)
  const validQuery = (valid ?? fc.constant({})).chain((q: any) =>
    fc.array(idChoice, { minLength: 1, maxLength: 2 }).map((ids) => withIds(q, ids) as Record<string, unknown>)
  )
  const randomPairs = fc.array(
    fc.tuple(declared.length === 0 ? fc.string({ maxLength: 10 }) : fc.oneof(fc.constantFrom(...declared), fc.string({ maxLength: 10 })), queryValue),
    { maxLength: 5 }
  )
  return fc.oneof(
    fc.constant(""),
    validQuery.map((q) => {
      const s = Object.entries(q).filter(([, v]) => v !== undefined).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`).join("&")
      return s === "" ? "" : `?${s}`
    }),
    randomPairs.map((ps) => (ps.length === 0 ? "" : "?" + ps.map(([k, v]) => `${encodeURIComponent(k)}=${enc(v)}`).join("&"))),
    fc.constantFrom("?", "?&&", "?=", "?limit", "?limit=1&limit=2", "?cursor=%FF", "?a[b]=1")
  )
}

const headerValue = fc.oneof(
  fc.string({ minLength: 1, maxLength: 40 }).filter((s) => /^[\x20-\x7e]*$/.test(s)),
  fc.stringMatching(/^[\x21-\x7e]{1,255}$/),
  fc.constantFrom("", " ", "a b", "x".repeat(256), "x".repeat(5000), "k-1", "k-1"),
  fc.uuid()
)
const headersFor = (e: Endpoint): fc.Arbitrary<Record<string, string>> =>
  fc.tuple(
    fc.array(fc.tuple(fc.constantFrom(...(e.headers.length === 0 ? ["x-fuzz"] : e.headers)), headerValue), { maxLength: e.headers.length === 0 ? 1 : 2 }),
    fc.constantFrom<string | undefined>("application/json", "application/json", "application/json", "text/plain", "application/json; charset=latin1", undefined)
  ).map(([hs, type]) => {
    const out: Record<string, string> = {}
    for (const [k, v] of hs) out[k] = v
    if (type !== undefined) out["content-type"] = type
    return out
  })

// ------------------------------------------------------------ invariants

const countsOf = async () => {
  const get = async (p: string) => {
    const r = await api.call("GET", p)
    expect(r.status, `count ${p}: ${JSON.stringify(r.body)}`).toBe(200)
    return r.body.totalCount as number
  }
  return {
    customers: await get("/customers?isIncludingDeleted=true&limit=100"),
    customerAccounts: await get("/customers/external-accounts?limit=100"),
    platformAccounts: await get("/platform/external-accounts?limit=100"),
    cards: await get("/cards?limit=100"),
    stablecoinProviderAccounts: await get("/stablecoin-provider-accounts?limit=100"),
    stablecoins: await get("/stablecoins?limit=100")
  }
}
let snapshot: Awaited<ReturnType<typeof countsOf>> | undefined

let requests = 0

const send = async (method: string, path: string, raw: string | undefined, headers: Record<string, string>): Promise<Reply> => {
  requests++
  const init: { raw?: string; headers: Record<string, string> } = { headers }
  if (raw !== undefined) init.raw = raw
  let res: Response
  try {
    res = await api.handler(new Request(`http://test/2025-10-13${path}`, {
    method,
    headers: {
      authorization: path.startsWith("/agents/me") && agentTokens.has("A")
        ? `Bearer ${agentTokens.get("A")}`
        : `Basic ${Buffer.from(`${platformA.clientId}:${platformA.clientSecret}`).toString("base64")}`,
      ...headers
    },
    ...(raw === undefined || method === "GET" || method === "HEAD" ? {} : { body: raw })
    }))
  } catch (error) {
    // No HTTP answer at all: the handler's promise rejected (reported as status 0).
    const body = { thrown: String(error) }
    return { status: 0, body, size: 0 } as Reply & { size: number }
  }
  const text = await res.text()
  let body: unknown = text
  try {
    body = text === "" ? undefined : JSON.parse(text)
  } catch {
    body = text
  }
  return { status: res.status, body, size: Buffer.byteLength(text) } as Reply & { size: number }
}

const short = (s: string | undefined, n = 300) => (s === undefined ? "<none>" : s.length > n ? `${s.slice(0, n)}…(${s.length} chars)` : s)

/** Distinct invariant violations per endpoint ("what" → first example), reported at the end of its test. */
const violations = new Map<string, Map<string, string>>()
const violation = (e: Endpoint, what: string, example: string) => {
  if (!violations.has(e.id)) violations.set(e.id, new Map())
  const m = violations.get(e.id)!
  if (!m.has(what)) m.set(what, example)
}

const check = async (e: Endpoint, path: string, raw: string | undefined, headers: Record<string, string>) => {
  const before = e.method === "POST" ? (snapshot ??= await countsOf()) : undefined
  const r = (await send(e.method, path, raw, headers)) as Reply & { size: number }
  const text = JSON.stringify(r.body) ?? ""
  const where = `${e.method} ${short(path, 200)} headers=${JSON.stringify(headers).slice(0, 200)} body=${short(raw)} -> ${r.status} ${short(text, 400)}`
  if (r.status === 0) violation(e, "handler threw instead of answering", where)
  if (r.status >= 500) violation(e, `${r.status} answer`, where)
  if (r.status !== 0 && (r.status < 200 || r.status >= 300) && !isErrorShape(r.body)) violation(e, `${r.status} not in the error shape`, where)
  if (r.size >= MAX_BODY_BYTES) violation(e, `answer >= 100 KB (${r.status})`, `${r.size} bytes: ${where}`)
  const notFound = r.status === 404 ? notFoundProblem(e.method, e.path, r.body) : undefined
  if (notFound !== undefined) violation(e, "404 against the reference", `${notFound}: ${where}`)
  const request = `${path} ${raw ?? ""} ${JSON.stringify(headers)}`
  const inRequest = (id: string) => request.includes(id) || request.includes(encodeURIComponent(id))
  // Echoing back what the caller sent (now or in an earlier accepted request, e.g. a free-text
  // reference field) is not a leak; B's id as a resource's own `id` or owning `customerId` is.
  const foreignIds = allForeign()
  const loggedByA = (id: string) => e.id === "listSandboxRequests" && sentByA.has(id)
  const leaked = foreignIds.filter((id) => text.includes(id) && !inRequest(id) && !echoable.has(id) && !loggedByA(id))
  for (const id of foreignIds) if (inRequest(id)) sentByA.add(id)
  if (leaked.length > 0) violation(e, "mentions platform B ids", `${leaked.join(", ")}: ${where}`)
  if (r.status >= 200 && r.status < 300) {
    const owning = new Map<string, Set<string>>()
    harvestOwning(r.body, owning)
    const foreignOwned = [...owning.values()].flatMap((ids) => [...ids]).filter((id) => foreignIds.includes(id))
    if (foreignOwned.length > 0) violation(e, "answers with B's resource as id/customerId", `${foreignOwned.join(", ")}: ${where}`)
    for (const id of foreignIds) if (inRequest(id)) echoable.add(id)
    harvest(r.body, own)
    if (e.method !== "GET") {
      snapshot = undefined
      // Fault rules an accepted PUT /sandbox/faults installed would fault the campaign's own
      // requests (a LOSE_ANSWER rule matching everything throws in every later call): the
      // campaign checks the API's answers, so they go at once (/sandbox/faults is never faulted).
      if (e.id === "putSandboxFaults") expect((await api.call("DELETE", "/sandbox/faults")).status).toBe(204)
      await ensureSeeded()
    }
  } else if (e.method === "POST" && r.status >= 400 && r.status < 500) {
    const after = await countsOf()
    if (JSON.stringify(after) !== JSON.stringify(before)) violation(e, "refused POST changed totals", `${JSON.stringify(before)} -> ${JSON.stringify(after)}: ${where}`)
    snapshot = after
  }
}

// ------------------------------------------------------------ the campaign

beforeAll(async () => {
  await api.ready
  await seed(platformB, foreign, "B")
  await seed(platformA, own, "A")
  expect(own.get("card")?.size ?? 0, "the seed issued cards").toBeGreaterThan(0)
  expect(own.get("stablecoinoperation")?.size ?? 0, "the seed minted and burned").toBe(2)
  expect(agentTokens.has("A") && agentTokens.has("B"), "the seed installed agents").toBe(true)
  // The /agents/me requests run as A's agent: its token works.
  expect((await send("GET", "/agents/me", undefined, {})).status, "A's agent token works").toBe(200)
})

describe("fuzz every endpoint of PaymentsApi", () => {
  const started = Date.now()
  afterAll(() => {
    console.log(`fuzz: ${requests} requests over ${endpoints.length} endpoints in ${((Date.now() - started) / 1000).toFixed(1)} s (numRuns ${RUNS} per endpoint)`)
  })

  it("covers every endpoint of the definition", () => {
    expect(endpoints.length).toBeGreaterThan(10)
    for (const e of endpoints) expect(e.path.startsWith("/"), e.id).toBe(true)
  })

  for (const e of endpoints) {
    it(`${e.id}: ${e.method} ${e.path}${e.multipart ? " (multipart body not fuzzed)" : ""}`, { timeout: 600_000 }, async () => {
      const params = fc.array(idChoice, { minLength: e.params.length, maxLength: e.params.length })
      await fc.assert(
        fc.asyncProperty(params, queryFor(e), bodyFor(e), headersFor(e), async (ids, query, body, headers) => {
          const path = e.params.reduce((p, name, i) => p.replace(`:${name}`, resolveId(ids[i]!, kindOfPathParam(e.path, name))), e.path) + query
          await check(e, path, body.raw, headers)
        }),
        { numRuns: RUNS }
      )
      const found = [...(violations.get(e.id) ?? new Map<string, string>()).entries()].map(([what, example]) => `${what}: ${example}`)
      expect(found, `${e.id}: ${found.length} kinds of invariant violation`).toEqual([])
    })
  }
})

/**
 * Cases the campaign found, kept as plain tests so they fail until src/ is fixed.
 * Both come from `discriminatorError` in src/domain/validation.ts, which puts
 * `JSON.stringify(value)` of the whole rejected discriminator value into the message.
 */
describe("found by the fuzz campaign", () => {
  const deep = (depth: number) => ["{\"customerType\":" + "{\"a\":".repeat(depth) + "1" + "}".repeat(depth + 1), "{\"customerType\":" + "[".repeat(depth) + "]".repeat(depth) + "}"]
  const answer = async (method: string, path: string, raw: string) => {
    try {
      return await api.call(method, path, { raw, headers: { "content-type": "application/json" } })
    } catch (error) {
      return { status: 0, body: { thrown: String(error) } }
    }
  }

  it("a deeply nested customerType is a 400, not a 500 or a thrown RangeError (JSON.stringify overflows the stack)", async () => {
    const customerId = pick(own, "customer", 0) ?? "Customer:none"
    const seen: Array<string> = []
    for (const [method, path] of [["PATCH", `/customers/${encodeURIComponent(customerId)}`], ["POST", "/customers"]] as const) {
      for (const raw of deep(5000)) {
        const r = await answer(method, path, raw)
        if (r.status !== 400 || !isErrorShape(r.body)) seen.push(`${method} ${path} ${raw.slice(0, 30)}… -> ${r.status} ${JSON.stringify(r.body)}`)
      }
    }
    expect(seen).toEqual([])
  })

  it("a 50 KB customerType is refused with an answer under 100 KB (the value is echoed twice)", async () => {
    const customerId = pick(own, "customer", 0) ?? "Customer:none"
    for (const [method, path] of [["PATCH", `/customers/${encodeURIComponent(customerId)}`], ["POST", "/customers"]] as const) {
      const r = await api.call(method, path, { body: { customerType: "😀".repeat(12_800) } })
      expect(r.status).toBe(400)
      const size = Buffer.byteLength(JSON.stringify(r.body))
      expect(size, `${method} ${path} answers ${size} bytes`).toBeLessThan(MAX_BODY_BYTES)
    }
  })
})
