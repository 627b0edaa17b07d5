import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MAX_JSON_BODY_BYTES } from "../../src/http/middleware.js"
import { type Api, basic, isErrorShape, makeApi, platformA } from "../support/api.js"

let api: Api
beforeAll(() => {
  api = makeApi()
})
afterAll(async () => {
  await api.dispose()
})

describe("error model", () => {
  it("malformed JSON -> 400 INVALID_INPUT", async () => {
    const r = await api.call("POST", "/customers/external-accounts", { raw: "{\"customerId\": ", headers: { "content-type": "application/json" } })
    expect(r.status).toBe(400)
    expect(r.body).toMatchObject({ code: "INVALID_INPUT", details: { errors: [{ field: "(body)", constraint: "json" }] } })
  })
  it("a wrong content type -> 400 INVALID_INPUT", async () => {
    const r = await api.call("POST", "/customers", { raw: "customerType=INDIVIDUAL", headers: { "content-type": "application/x-www-form-urlencoded" } })
    expect(r.status).toBe(400)
    expect(r.body.details.errors[0].constraint).toBe("contentType")
  })
  it("JSON with a charset parameter is accepted", async () => {
    const r = await api.call("POST", "/customers", { raw: JSON.stringify({ customerType: "INDIVIDUAL", fullName: "A" }), headers: { "content-type": "application/json; charset=utf-8" } })
    expect(r.status).toBe(201)
  })
  it("an unknown accountType -> 400 naming accountInfo.accountType", async () => {
    const r = await api.call("POST", "/platform/external-accounts", { body: { currency: "USD", accountInfo: { accountType: "MOON_ACCOUNT" } } })
    expect(r.status).toBe(400)
    expect(r.body.details.errors).toEqual([expect.objectContaining({ field: "accountInfo.accountType", constraint: "enum" })])
  })
  it(`an oversized body (> ${MAX_JSON_BODY_BYTES} bytes) -> 400`, async () => {
    const r = await api.call("POST", "/customers", { raw: JSON.stringify({ customerType: "INDIVIDUAL", fullName: "x".repeat(MAX_JSON_BODY_BYTES) }), headers: { "content-type": "application/json" } })
    expect(r.status).toBe(400)
    expect(r.body.details.errors[0].constraint).toBe("maxBytes")
  })
  it("an oversized body with a declared content-length -> 400 before it is read", async () => {
    const r = await api.call("POST", "/customers", {
      raw: "{}",
      headers: { "content-type": "application/json", "content-length": String(MAX_JSON_BODY_BYTES + 1) }
    })
    expect(r.status).toBe(400)
  })
  it("an empty body -> 400", async () => {
    const r = await api.call("POST", "/customers", { raw: "", headers: { "content-type": "application/json" } })
    expect(r.status).toBe(400)
    expect(isErrorShape(r.body)).toBe(true)
  })
  it("bad query parameters -> 400 listing each", async () => {
    const r = await api.call("GET", "/customers?limit=0&customerType=ROBOT")
    expect(r.status).toBe(400)
    expect(r.body.details.errors.map((e: { field: string }) => e.field).sort()).toEqual(["customerType", "limit"])
  })
  it("an unknown route -> 404 NOT_FOUND in the error shape", async () => {
    const r = await api.call("GET", "/no/such/thing")
    expect(r.status).toBe(404)
    expect(r.body.code).toBe("NOT_FOUND")
    expect(isErrorShape(r.body)).toBe(true)
  })
})

describe("authentication (HTTP Basic)", () => {
  const cases: ReadonlyArray<[string, string | undefined, RegExp]> = [
    ["header missing", undefined, /missing/],
    ["not Basic", "Token abc", /malformed/],
    ["an agent's Bearer token", "Bearer gat_abc", /work only on \/agents\/me/],
    ["no colon", `Basic ${Buffer.from("client-a").toString("base64")}`, /malformed/],
    ["unknown client", `Basic ${Buffer.from("who:ever").toString("base64")}`, /Unknown client id/],
    ["wrong secret", `Basic ${Buffer.from("client-a:wrong").toString("base64")}`, /secret is wrong/]
  ]
  for (const [name, header, reason] of cases) {
    it(`${name} -> 401 UNAUTHORIZED naming the check`, async () => {
      const headers: Record<string, string> = header === undefined ? {} : { authorization: header }
      const res = await api.handler(new Request("http://test/2025-10-13/customers", { headers }))
      expect(res.status).toBe(401)
      const body = await res.json()
      expect(body.code).toBe("UNAUTHORIZED")
      expect(body.reason).toMatch(reason)
    })
  }
  it("authentication is checked before the body", async () => {
    const res = await api.handler(new Request("http://test/2025-10-13/customers", { method: "POST", body: "{bad", headers: { "content-type": "application/json" } }))
    expect(res.status).toBe(401)
  })
  it("the right credentials pass", async () => {
    const res = await api.handler(new Request("http://test/2025-10-13/customers", { headers: { authorization: basic(platformA) } }))
    expect(res.status).toBe(200)
  })
})

describe("OpenAPI and docs", () => {
  it("serves /openapi.json generated from the HttpApi definition", async () => {
    const res = await api.handler(new Request("http://test/openapi.json"))
    const doc = await res.json()
    expect(doc.openapi).toMatch(/^3\./)
    expect(Object.keys(doc.paths)).toContain("/2025-10-13/customers/external-accounts")
    expect(doc.components.securitySchemes).toHaveProperty("basic")
  })
  it("serves a docs page", async () => {
    const res = await api.handler(new Request("http://test/docs"))
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toMatch(/html/)
  })
})

describe("paths outside the API", () => {
  it("a path outside the API stays 404", async () => {
    expect((await api.call("GET", "/quotes/Quote:1/nonsense")).status).toBe(404)
  })
})

describe("error answers stay small", () => {
  it("a body of thousands of bad array elements lists the first 100 field errors and counts the rest", async () => {
    const consents = Array.from({ length: 1000 }, () => ({ type: "NOT_AN_AGREEMENT", acceptedAt: "yesterday" }))
    const raw = JSON.stringify({ customerType: "INDIVIDUAL", fullName: "Many Errors", agreementConsents: consents })
    expect(raw.length).toBeLessThan(MAX_JSON_BODY_BYTES)
    const res = await api.handler(new Request("http://test/2025-10-13/customers", {
      method: "POST",
      headers: { authorization: basic(platformA), "content-type": "application/json" },
      body: raw
    }))
    const text = await res.text()
    expect(res.status).toBe(400)
    expect(text.length).toBeLessThan(30_000)
    const body = JSON.parse(text)
    expect(isErrorShape(body)).toBe(true)
    expect(body.details.errors).toHaveLength(100)
    expect(body.details.omittedErrors).toBeGreaterThanOrEqual(900)
  })
})

describe("a known path with another method", () => {
  it("answers 405 METHOD_NOT_ALLOWED naming the methods it accepts (Allow), with the retry advice", async () => {
    const res = await api.handler(new Request("http://test/2025-10-13/customers", { method: "PUT", headers: { authorization: basic(platformA) } }))
    expect(res.status).toBe(405)
    expect(res.headers.get("allow")).toBe("GET, POST")
    expect(res.headers.get("x-should-retry")).toBe("false")
    const body = await res.json()
    expect(body.code).toBe("METHOD_NOT_ALLOWED")
    expect(isErrorShape(body)).toBe(true)
  })
  it("an unknown path stays 404", async () => {
    expect((await api.call("PUT", "/nowhere/at/all")).status).toBe(404)
  })
})

describe("a NUL (U+0000) character is refused at the edge, on every store", () => {
  it("in a JSON body: 400 INVALID_INPUT, nothing stored (HttpApi path and direct lane alike)", async () => {
    const before = (await api.call("GET", "/customers")).body.totalCount
    for (let i = 0; i < 2; i++) {
      const r = await api.call("POST", "/customers", { body: { customerType: "INDIVIDUAL", fullName: "Nul\u0000Name" } })
      expect(r.status).toBe(400)
      expect(r.body.code).toBe("INVALID_INPUT")
      expect(r.body.details.errors[0].constraint).toBe("noNul")
    }
    expect((await api.call("GET", "/customers")).body.totalCount).toBe(before)
    // A backslash followed by the text u0000 is no NUL.
    expect((await api.call("POST", "/customers", { body: { customerType: "INDIVIDUAL", fullName: "Back\\u0000slash" } })).status).toBe(201)
  })
  it("in a path or a query: 400 INVALID_INPUT", async () => {
    for (const path of ["/customers/Customer:abc%00def", "/customers?platformCustomerId=a%00b", "/customers/external-accounts/x%00"]) {
      const r = await api.call("GET", path)
      expect(r.status).toBe(400)
      expect(isErrorShape(r.body)).toBe(true)
    }
  })
})

describe("bounds every JSON body keeps, on every endpoint", () => {
  const post = (body: unknown) => api.call("POST", "/customers", { raw: JSON.stringify(body), headers: { "content-type": "application/json" } })
  it("text longer than 4,096 characters: 400 naming the field, constraint maxLength", async () => {
    for (let i = 0; i < 2; i++) {
      const r = await post({ customerType: "INDIVIDUAL", fullName: "x".repeat(4097) })
      expect(r.status).toBe(400)
      expect(r.body.details.errors[0]).toMatchObject({ field: "fullName", constraint: "maxLength" })
    }
  })
  it("a field's own smaller maximum holds below 4,096: fullName at most 255 characters", async () => {
    const r = await post({ customerType: "INDIVIDUAL", fullName: "x".repeat(256) })
    expect(r.status).toBe(400)
    expect(r.body.details.errors).toEqual([{ field: "fullName", constraint: "maxLength", message: "must be at most 255 characters" }])
    expect((await post({ customerType: "INDIVIDUAL", fullName: "x".repeat(255) })).status).toBe(201)
  })
  it("an array of more than 1,000 items: 400 maxItems", async () => {
    const r = await post({ customerType: "INDIVIDUAL", fullName: "Many Currencies", currencies: Array.from({ length: 1001 }, () => "USD") })
    expect(r.status).toBe(400)
    expect(r.body.details.errors[0]).toMatchObject({ field: "currencies", constraint: "maxItems" })
  })
  it("nesting deeper than 32 levels: 400 maxDepth, whatever the field", async () => {
    let deep: unknown = "bottom"
    for (let i = 0; i < 40; i++) deep = { a: deep }
    const r = await post({ customerType: "INDIVIDUAL", fullName: "Deep", address: deep })
    expect(r.status).toBe(400)
    expect(r.body.details.errors[0].constraint).toBe("maxDepth")
  })
})
