/**
 * Every endpoint of the HttpApi definition declares what an API token needs to call it
 * (docs/tokens.md): a test walks `PaymentsApi` (no hand-written list, so a new endpoint
 * fails here until it has a rule) and runs each endpoint's handler, with its concerns
 * applied, as a token of each permission.
 */
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { describe, expect, it } from "vitest"
import { MemoryStoreLayer } from "../../src/adapters/memory/store.js"
import type { Permission } from "../../src/domain/token.js"
import { PaymentsApi } from "../../src/http/api.js"
import { applyConcerns, operationOf, permissionOf, takesPlatformCredentials } from "../../src/http/concerns.js"
import { CurrentPlatform, CurrentTokenPermissions } from "../../src/http/middleware.js"
import { platformA } from "../support/api.js"

const endpoints = Object.values(PaymentsApi.groups).flatMap((g) => Object.values(g.endpoints))
const withCredentials = endpoints.filter(takesPlatformCredentials)

const TOKENS: ReadonlyArray<ReadonlyArray<Permission>> = [["VIEW"], ["TRANSACT"], ["MANAGE"], ["VIEW", "TRANSACT", "MANAGE"]]

/** What the endpoint's handler answers, with its concerns applied, for a token with `permissions` (undefined: the platforms file's credentials). */
const outcome = (endpoint: (typeof endpoints)[number], permissions: ReadonlyArray<Permission> | undefined) => {
  const handler = applyConcerns(endpoint, () => Effect.succeed("ran" as const))
  const run = Effect.provideService(handler({ headers: {}, params: {}, payload: undefined }), CurrentPlatform, platformA)
  const provided = permissions === undefined ? run : Effect.provideService(run, CurrentTokenPermissions, permissions)
  return Effect.runPromise(Effect.provide(provided, MemoryStoreLayer)).then((a) =>
    HttpServerResponse.isHttpServerResponse(a) ? a.status : a
  )
}

describe("token permissions are declared on every endpoint", () => {
  it("every endpoint that takes the platform's credentials has a permission rule", () => {
    const undeclared = withCredentials.filter((e) => permissionOf(e) === undefined).map(operationOf)
    expect(undeclared).toEqual([])
  })

  it("only the agent scheme's and the credential-less endpoints are exempt", () => {
    const exempt = endpoints.filter((e) => !takesPlatformCredentials(e)).map(operationOf)
    expect(exempt.length).toBeGreaterThan(0)
    for (const op of exempt) expect(op).toMatch(/^(GET|POST|DELETE) \/(agents\/me|agents\/device-codes\/\{code\}\/redeem|sandbox\/kyc-link)/)
  })

  it("every GET needs VIEW; the endpoints that move money need TRANSACT", () => {
    for (const e of withCredentials.filter((e) => e.method === "GET")) expect(permissionOf(e), operationOf(e)).toBe("VIEW")
    expect(withCredentials.filter((e) => permissionOf(e) === "TRANSACT").map(operationOf).sort()).toEqual([
      "POST /agents/{agentId}/actions/{actionId}/approve",
      "POST /agents/{agentId}/actions/{actionId}/reject",
      "POST /quotes",
      "POST /quotes/{quoteId}/authorize",
      "POST /quotes/{quoteId}/authorize/resend",
      "POST /quotes/{quoteId}/execute",
      "POST /stablecoins/{stablecoinId}/burns",
      "POST /stablecoins/{stablecoinId}/mints",
      "POST /transactions/{transactionId}/approve",
      "POST /transactions/{transactionId}/cancel",
      "POST /transactions/{transactionId}/confirm",
      "POST /transactions/{transactionId}/reject",
      "POST /transfer-in",
      "POST /transfer-out"
    ])
    // Writes open to VIEW change nothing (a fee estimate).
    expect(withCredentials.filter((e) => e.method !== "GET" && permissionOf(e) === "VIEW").map(operationOf)).toEqual([
      "POST /crypto/estimate-withdrawal-fee"
    ])
  })

  it("each endpoint runs for a token that holds its permission and answers 403 to one that does not", async () => {
    for (const endpoint of withCredentials) {
      const required = permissionOf(endpoint)
      for (const permissions of TOKENS) {
        const allowed = required !== undefined && (required === "VIEW" || permissions.includes(required))
        expect(await outcome(endpoint, permissions), `${operationOf(endpoint)} as ${permissions.join("+")}`).toBe(allowed ? "ran" : 403)
      }
      // The platforms file's own credentials keep full access.
      expect(await outcome(endpoint, undefined), operationOf(endpoint)).toBe("ran")
    }
  })
})
