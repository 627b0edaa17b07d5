/**
 * Bad input never gets a 500: random methods, paths (real templates with random ids),
 * content types and bodies against the whole API. Every answer is a success or a
 * 4xx/501 in the error shape, and the server keeps answering afterwards.
 */
import fc from "fast-check"
import { afterAll, describe, expect, it } from "vitest"
import { isErrorShape, makeApi } from "../support/api.js"
import { numRuns } from "../support/runs.js"

const api = makeApi()
afterAll(() => api.dispose())

const PATHS = [
  "/customers",
  "/customers/{id}",
  "/customers/agreements",
  "/customers/end-user-terms",
  "/customers/external-accounts",
  "/customers/external-accounts/{id}",
  "/customers/external-accounts/{id}/challenge",
  "/customers/external-accounts/{id}/verify",
  "/customers/external-accounts/{id}/trust",
  "/customers/external-accounts/{id}/trust/confirm",
  "/platform/external-accounts",
  "/platform/external-accounts/{id}",
  "/documents",
  "/documents/{id}",
  "/beneficial-owners",
  "/beneficial-owners/{id}",
  "/verifications",
  "/verifications/{id}",
  "/sandbox/clock/advance",
  "/quotes",
  "/no/such/path"
]

const id = fc.oneof(
  fc.constantFrom("Customer:00000000-0000-4000-8000-000000000000", "ExternalAccount:x", "%00", "..", "a%2Fb"),
  fc.string({ minLength: 1, maxLength: 12 }).map(encodeURIComponent)
)
const path = fc.tuple(fc.constantFrom(...PATHS), id, fc.option(fc.constantFrom("?limit=0", "?limit=abc", "?cursor=zz", "?limit=5&customerType=X", "?currency=usd"), { nil: undefined }))
  .map(([p, i, q]) => p.replace("{id}", i) + (q ?? ""))
const body = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc.constantFrom("", "{", "[]", "null", "\"x\"", "{\"customerType\":\"INDIVIDUAL\"}", "{\"customerId\":1,\"accountInfo\":{\"accountType\":\"USD_ACCOUNT\"}}"),
  fc.string({ maxLength: 40 })
)
const contentType = fc.constantFrom("application/json", "text/plain", "multipart/form-data", "multipart/form-data; boundary=x", "application/x-www-form-urlencoded", undefined)

describe("fuzzed requests", () => {
  it("never get a 500 and always answer errors in the error shape", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom("GET", "POST", "PATCH", "PUT", "DELETE"), path, body, contentType, async (method, p, raw, type) => {
        const headers: Record<string, string> = type === undefined ? {} : { "content-type": type }
        const r = await api.call(method, p, method === "GET" || method === "DELETE" ? { headers } : { raw, headers })
        const answered = r.status < 500 || r.status === 501
        expect(answered, `${method} ${p} -> ${r.status} ${JSON.stringify(r.body)}`).toBe(true)
        if (r.status >= 400) expect(isErrorShape(r.body), `${method} ${p}: ${JSON.stringify(r.body)}`).toBe(true)
      }),
      { numRuns: numRuns(300) }
    )
    const alive = await api.call("GET", "/customers")
    expect(alive.status).toBe(200)
  })
})
