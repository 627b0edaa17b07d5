/**
 * Every 404 the API can answer, against the reference (issue 25 items 2 and 3):
 *
 * - statically: no built operation declares a 404 its reference entry does not list
 *   (handlers are type-checked against their declared errors, so an operation that does
 *   not declare 404 cannot answer one), and the table from a kind of resource to its 404
 *   code (src/operations/not-found.ts) uses the reference's `Error404` value for every
 *   kind the enum has one for;
 * - by walking every built endpoint, as the every-endpoint fuzz campaign does: unknown
 *   ids in every path parameter and schema-valid bodies (whose ids name nothing), as
 *   the caller and as its agent for `/agents/me`. Every 404 answer must come from an
 *   operation whose reference entry lists 404, and carry a code of the reference's
 *   `Error404` enum, or the generic `NOT_FOUND` only where the operation's 404 is about a
 *   kind of resource the enum has no value for (docs/decisions.md, "Not-found codes").
 */
import fc from "fast-check"
import { OpenApi } from "effect/http-api"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { PaymentsApi } from "../../src/http/api.js"
import { NOT_FOUND_CODES } from "../../src/operations/not-found.js"
import { arbitraryFor } from "../../src/testing/arbitrary.js"
import { basic, individual, isErrorShape, makeApi, platformA, readReply } from "../support/api.js"
import { files } from "../support/onboarding-client.js"
import { operationKey, referenceOperation } from "./harness.js"
import { description404, ERROR_404_CODES, namesUncodedKind, notFoundProblem } from "./not-found-rules.js"

/* eslint-disable @typescript-eslint/no-explicit-any -- endpoint and schema internals are inspected generically */

const VERSION_PREFIX = /^\/\d{4}-\d{2}-\d{2}/

// ------------------------------------------------------------ the built endpoints

interface Endpoint {
  readonly key: string
  readonly method: string
  readonly path: string
  readonly params: ReadonlyArray<string>
  readonly payload: any | undefined
  readonly query: any | undefined
  readonly headers: ReadonlyArray<string>
}

const fieldNames = (s: any): ReadonlyArray<string> => (s === undefined ? [] : (s.ast?.propertySignatures ?? []).map((p: any) => String(p.name)))

const endpoints: ReadonlyArray<Endpoint> = Object.values(PaymentsApi.groups).flatMap((group: any) =>
  Object.values(group.endpoints).map((e: any): Endpoint => {
    const method = String(e.method).toUpperCase()
    const path = String(e.path).replace(VERSION_PREFIX, "")
    const payload: Map<string, any> | undefined = e.payload instanceof Map ? e.payload : undefined
    return {
      key: operationKey(method, path),
      method,
      path,
      params: fieldNames(e.params),
      payload: payload?.get("application/json")?.schemas?.[0],
      query: e.query,
      headers: fieldNames(e.headers)
    }
  })
)

const declared: Record<string, ReadonlyArray<string>> = (() => {
  const spec = OpenApi.fromApi(PaymentsApi)
  const out: Record<string, ReadonlyArray<string>> = {}
  for (const [p, ops] of Object.entries(spec.paths)) {
    for (const [m, op] of Object.entries(ops as Record<string, unknown>)) {
      if (typeof op === "object" && op !== null && "responses" in op && typeof op.responses === "object" && op.responses !== null) {
        out[operationKey(m, p.replace(VERSION_PREFIX, ""))] = Object.keys(op.responses)
      }
    }
  }
  return out
})()

describe("404s against the reference: what the operations declare", () => {
  it("the reference's Error404 enum is what the table uses", () => {
    expect(ERROR_404_CODES.length).toBeGreaterThan(5)
    for (const [kind, code] of Object.entries(NOT_FOUND_CODES)) {
      expect(code === "NOT_FOUND" || ERROR_404_CODES.includes(code), `${kind}: ${code} is not in the reference's Error404 enum`).toBe(true)
    }
    expect({
      customer: NOT_FOUND_CODES.customer,
      quote: NOT_FOUND_CODES.quote,
      transaction: NOT_FOUND_CODES.transaction,
      token: NOT_FOUND_CODES.token,
      invitation: NOT_FOUND_CODES.invitation,
      bulkUploadJob: NOT_FOUND_CODES.bulkUploadJob,
      stablecoinProviderAccount: NOT_FOUND_CODES.stablecoinProviderAccount,
      umaReceiver: NOT_FOUND_CODES.umaReceiver
    }).toEqual({
      customer: "USER_NOT_FOUND",
      quote: "QUOTE_NOT_FOUND",
      transaction: "TRANSACTION_NOT_FOUND",
      token: "TOKEN_NOT_FOUND",
      invitation: "INVITATION_NOT_FOUND",
      bulkUploadJob: "BULK_UPLOAD_JOB_NOT_FOUND",
      stablecoinProviderAccount: "STABLECOIN_PROVIDER_ACCOUNT_NOT_FOUND",
      umaReceiver: "UMA_NOT_FOUND"
    })
  })

  it("the description reading tells coded kinds from the others", () => {
    expect(namesUncodedKind("Customer not found")).toBe(false)
    expect(namesUncodedKind("Quote not found")).toBe(false)
    expect(namesUncodedKind("Stablecoin provider account link not found")).toBe(false)
    expect(namesUncodedKind("Card or card transaction not found")).toBe(true)
    expect(namesUncodedKind("Customer or account not found")).toBe(true)
    expect(namesUncodedKind("Transaction not found")).toBe(false)
  })

  it("the check refuses the generic code where the enum has one, and a 404 where the reference lists none", () => {
    const answer = (code: string, reason: string) => ({ code, reason, message: reason })
    expect(notFoundProblem("GET", "/customers/:customerId", answer("NOT_FOUND", "Customer x not found"))).toContain("has a code of its enum")
    expect(notFoundProblem("GET", "/customers/:customerId", answer("USER_NOT_FOUND", "Customer x not found"))).toBeUndefined()
    expect(notFoundProblem("GET", "/cards/:id", answer("NOT_FOUND", "Card x not found"))).toBeUndefined()
    expect(notFoundProblem("POST", "/sandbox/cards/:id/simulate/clearing", answer("TRANSACTION_NOT_FOUND", "Card transaction x not found"))).toBeUndefined()
    expect(notFoundProblem("POST", "/cards", answer("USER_NOT_FOUND", "Customer x not found"))).toContain("lists no 404")
    expect(notFoundProblem("POST", "/quotes", answer("NOT_FOUND", "No such endpoint. The API lives under /2025-10-13"))).toBeUndefined()
  })

  it("no built operation declares a 404 its reference entry does not list", () => {
    expect(Object.keys(declared).length).toBeGreaterThan(100)
    const extra = endpoints
      .filter((e) => referenceOperation(e.method, e.path) !== undefined)
      .filter((e) => (declared[e.key] ?? []).includes("404") && description404(e.method, e.path) === undefined)
      .map((e) => e.key)
    expect(extra).toEqual([])
  })
})

// ------------------------------------------------------------ the walk

const api = makeApi([platformA])
afterAll(() => api.dispose())

let agentToken = ""

beforeAll(async () => {
  await api.ready
  const customer = await api.call("POST", "/customers", { body: individual("Nadia NotFound") })
  expect(customer.status).toBe(201)
  const agent = await api.call("POST", "/agents", {
    body: {
      name: "Not-found walker",
      customerId: customer.body.id,
      policy: {
        permissions: ["VIEW_TRANSACTIONS", "CREATE_TRANSFERS", "CREATE_QUOTES", "EXECUTE_QUOTES", "MANAGE_EXTERNAL_ACCOUNTS"],
        defaultExecutionMode: "AUTO",
        spendingLimits: { currency: "USD", perTransactionLimit: 100_000 }
      }
    }
  })
  expect(agent.status, JSON.stringify(agent.body)).toBe(201)
  const redeemed = await api.call("POST", `/agents/device-codes/${encodeURIComponent(agent.body.deviceCode.code)}/redeem`)
  expect(redeemed.status).toBe(200)
  agentToken = redeemed.body.accessToken
}, 120_000)

/** An id that names nothing, shaped as the API's ids are (`Kind:uuid`; a UMA address for one). */
const unknownId = (param: string, n: number) =>
  /uma/i.test(param)
    ? `$nobody${n}@nowhere.example`
    : `${param === "id" ? "Resource" : param.replace(/Id$/, "").replace(/^./, (c) => c.toUpperCase())}:0000000${n}-0000-4000-8000-00000000000${n}`

/** A sampled body or query with its UMA address fields well-formed (they name nobody), so the walk gets past their format. */
const shaped = (value: unknown, n: number, depth = 0): unknown => {
  if (depth > 8 || typeof value !== "object" || value === null) return value
  if (Array.isArray(value)) return value.map((v) => shaped(v, n, depth + 1))
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, typeof v === "string" && /uma$/i.test(k) ? unknownId(k, n) : shaped(v, n, depth + 1)]))
}

/** Bodies the samples rarely reach the lookup with (the first check of the operation comes before it). */
const EXTRA_BODIES: Record<string, ReadonlyArray<unknown>> = {
  "PATCH /customers/{}": [{ customerType: "INDIVIDUAL" }]
}

/** Endpoints the walk leaves out: they would undo its own setup (the sandbox reset, fault rules that fault its requests). */
const NOT_WALKED = ["POST /sandbox/reset", "PUT /sandbox/faults"]

const SAMPLES = 6

/** Schema-valid bodies of an endpoint (a fixed seed: the same bodies every run). */
const bodiesOf = (e: Endpoint): ReadonlyArray<unknown> => {
  if (e.payload === undefined) return [undefined]
  try {
    return [{}, ...(EXTRA_BODIES[e.key] ?? []), ...fc.sample(arbitraryFor(e.payload) as fc.Arbitrary<unknown>, { numRuns: SAMPLES, seed: 25 })].map((b, n) => shaped(b, n))
  } catch {
    return [{}]
  }
}

/** A schema-valid query string of an endpoint (its ids name nothing). */
const queryOf = (e: Endpoint, n: number): string => {
  if (e.query === undefined) return ""
  try {
    const [q] = fc.sample(arbitraryFor(e.query) as fc.Arbitrary<Record<string, unknown>>, { numRuns: 1, seed: 25 + n })
    const pairs = Object.entries((shaped(q, n) ?? {}) as Record<string, unknown>).filter(([, v]) => v !== undefined)
    return pairs.length === 0 ? "" : `?${pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`).join("&")}`
  } catch {
    return ""
  }
}

let keys = 0

const send = async (e: Endpoint, path: string, body: unknown) => {
  if (e.key === "PUT /documents/{}") {
    // The one multipart endpoint with a path parameter: a valid replacement document.
    const fd = new FormData()
    fd.append("documentType", "PASSPORT")
    fd.append("country", "US")
    const f = files.jpeg()
    fd.append("file", new Blob([new Uint8Array(f.bytes)], { type: f.type }), f.name)
    const encoded = new Response(fd)
    return readReply(await api.handler(new Request(`http://test/2025-10-13${path}`, {
      method: "PUT",
      headers: { authorization: basic(platformA), "content-type": encoded.headers.get("content-type") ?? "" },
      body: new Uint8Array(await encoded.arrayBuffer())
    })))
  }
  const headers: Record<string, string> = { "content-type": "application/json" }
  if (e.headers.includes("idempotency-key")) headers["idempotency-key"] = `not-found-walk-${++keys}`
  if (e.path.startsWith("/agents/me")) headers["authorization"] = `Bearer ${agentToken}`
  return api.call(e.method, path, { ...(body === undefined ? {} : { raw: JSON.stringify(body) }), headers })
}

describe("404s against the reference: every built endpoint walked with ids that name nothing", () => {
  const seen = new Map<string, Set<string>>()
  /** What each endpoint answered instead, for the coverage message. */
  const otherwise = new Map<string, Array<string>>()

  for (const e of endpoints.filter((e) => !NOT_WALKED.includes(e.key))) {
    it(`${e.key}`, { timeout: 120_000 }, async () => {
      const problems: Array<string> = []
      const bodies = bodiesOf(e)
      for (let i = 0; i < bodies.length; i++) {
        const path = e.params.reduce((p, name) => p.replace(`:${name}`, encodeURIComponent(unknownId(name, i % 10))), e.path) + queryOf(e, i)
        const r = await send(e, path, bodies[i])
        expect(r.status, `${e.key}: ${JSON.stringify(r.body)}`).toBeLessThan(500)
        if (r.status !== 404) {
          otherwise.set(e.key, [...(otherwise.get(e.key) ?? []), `${r.status} ${String(r.body?.code ?? "")} ${String(r.body?.reason ?? "").slice(0, 120)}`])
          continue
        }
        expect(isErrorShape(r.body), `${e.key}: ${JSON.stringify(r.body)}`).toBe(true)
        const code = String(r.body.code)
        if (!seen.has(e.key)) seen.set(e.key, new Set())
        seen.get(e.key)!.add(code)
        const problem = notFoundProblem(e.method, e.path, r.body)
        if (problem !== undefined) problems.push(problem)
      }
      expect(problems, e.key).toEqual([])
    })
  }

  it("reached a 404 on every operation with a path parameter whose reference entry lists one", () => {
    const unreached = endpoints
      .filter((e) => e.params.length > 0 && description404(e.method, e.path) !== undefined && !seen.has(e.key))
      .map((e) => `${e.key}: ${(otherwise.get(e.key) ?? []).join(" | ")}`)
    expect(unreached).toEqual([])
  })
})
