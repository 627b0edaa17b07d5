/**
 * Conformance: the API token answers (POST /tokens, GET /tokens, GET /tokens/{tokenId})
 * validate against the reference OpenAPI operation's schema for their status, through
 * the shared harness; so does the 403 a token without the permission gets.
 *
 * SPEC.md's differences that touch these bodies: none, so `SPEC_DIFFERENCES` is empty,
 * on purpose.
 */
import { afterAll, describe, expect, it } from "vitest"
import { platformFromConfig } from "../../src/domain/platform.js"
import { makeApi } from "../support/api.js"
import { conformance, type Json } from "./harness.js"
import { TOKEN_OPERATIONS } from "./operations.js"

/** None: see the header comment. */
const SPEC_DIFFERENCES = (_: Record<string, Json>) => undefined

const { conforms, validator, schemaConforms, checked } = conformance(SPEC_DIFFERENCES)

const a = platformFromConfig({ id: "conformance-tokens", clientId: "conf-tok", clientSecret: "conf-tok-secret-1" })
const api = makeApi([a])
afterAll(() => api.dispose())

describe("API token answers against the reference", () => {
  it("create, list, get; a refusal is the reference's Error403", async () => {
    const created = await api.call("POST", "/tokens", { body: { name: "Sandbox read-only", permissions: ["VIEW"] } })
    conforms("POST", "/tokens", created)
    conforms("GET", "/tokens", await api.call("GET", "/tokens"))
    conforms("GET", "/tokens/{tokenId}", await api.call("GET", `/tokens/${encodeURIComponent(created.body.id)}`))
    const authorization = `Basic ${Buffer.from(`${created.body.clientId}:${created.body.clientSecret}`).toString("base64")}`
    const refused = await api.call("POST", "/tokens", { body: { name: "escalate", permissions: ["MANAGE"] }, headers: { authorization } })
    expect(refused.status).toBe(403)
    schemaConforms("Error403", { ...refused.body, status: 403 }, "403 FORBIDDEN")
  })

  it("the validator bites", () => {
    expect(validator("ApiToken")({ id: "Token:1", name: "x", permissions: ["ADMIN"], clientId: "c", createdAt: "2026-01-01T00:00:00Z", updatedAt: "2026-01-01T00:00:00Z" })).toBe(false)
  })

  it("every token endpoint was checked", () => {
    for (const op of TOKEN_OPERATIONS) expect(checked.get(op) ?? 0, op).toBeGreaterThan(0)
  })
})
