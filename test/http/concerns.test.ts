/**
 * The cross-cutting concerns endpoints declare (src/http/declarations.ts), as
 * src/http/concerns.ts reads them: which endpoints run under an Idempotency-Key and what
 * operation a key binds to (the strings the operations stated by hand before, so keys
 * stored by an earlier version still match), which answer a 429 with Retry-After, and
 * which are for sandbox platforms only.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { PaymentsApi } from "../../src/http/api.js"
import { applyConcerns, concernsOf, groupsWithConcerns, headerNamesOf, operationOf } from "../../src/http/concerns.js"
import { MemoryStoreLayer } from "../../src/adapters/memory/store.js"
import { CurrentPlatform } from "../../src/http/middleware.js"
import { platformFromConfig } from "../../src/domain/platform.js"
import { makeApi, platformA } from "../support/api.js"

const endpoints = Object.values(PaymentsApi.groups).flatMap((g) => Object.values(g.endpoints))

describe("declared concerns", () => {
  it("every endpoint that declares Idempotency-Key binds its key to the operation the operations named before", () => {
    const idempotent = endpoints.filter((e) => headerNamesOf(e.headers).includes("idempotency-key")).map(operationOf).sort()
    expect(idempotent).toEqual([
      "POST /agents/me/quotes",
      "POST /agents/me/quotes/{quoteId}/execute",
      "POST /agents/me/transfer-in",
      "POST /agents/me/transfer-out",
      "POST /beneficial-owners",
      "POST /cards",
      "POST /customers",
      "POST /customers/external-accounts",
      "POST /customers/{customerId}/kyc-link",
      "POST /platform/external-accounts",
      "POST /quotes",
      "POST /quotes/{quoteId}/execute",
      "POST /stablecoin-provider-accounts",
      "POST /stablecoins",
      "POST /stablecoins/{stablecoinId}/burns",
      "POST /stablecoins/{stablecoinId}/mints",
      "POST /transfer-in",
      "POST /transfer-out",
      "POST /verifications"
    ])
  })

  it("the endpoints whose 429 RATE_LIMITED carries Retry-After", () => {
    expect(endpoints.filter((e) => concernsOf(e).retryAfter === true).map((e) => e.identifier).sort()).toEqual([
      "authorizeQuote",
      "challengeAuthCredential",
      "resendQuoteScaCode",
      "startTwoFactorReset",
      "verifyAuthCredential"
    ])
  })

  it("every group of the API registers its handlers with their concerns applied (concerns.group)", async () => {
    const api = makeApi()
    try {
      expect((await api.call("GET", "/customers")).status).toBe(200)
      expect(Object.values(PaymentsApi.groups).map((g) => g.identifier).filter((id) => !groupsWithConcerns.has(id))).toEqual([])
    } finally {
      await api.dispose()
    }
  })

  it("an endpoint without other concerns runs its handler behind the permission step only", async () => {
    const handler = () => Effect.succeed(1)
    const applied = applyConcerns(PaymentsApi.groups.customers.endpoints.getCustomer, handler)
    // The platforms file's credentials (no token permissions): the handler's own answer.
    const answer = await Effect.runPromise(applied({}).pipe(Effect.provideService(CurrentPlatform, platformA), Effect.provide(MemoryStoreLayer)))
    expect(answer).toBe(1)
  })

  it("every platform endpoint under /sandbox/ is declared sandbox-only, and no other is", () => {
    // The hosted KYC page is opened by the customer through its link, not by a platform.
    const platformEndpoints = endpoints.filter((e) => e.identifier !== "getHostedKycPage" && e.identifier !== "submitHostedKyc")
    const underSandbox = platformEndpoints.filter((e) => /^\/\d{4}-\d{2}-\d{2}\/sandbox\//.test(e.path)).map((e) => e.identifier).sort()
    const declared = platformEndpoints.filter((e) => concernsOf(e).sandboxOnly === true).map((e) => e.identifier).sort()
    expect(underSandbox.length).toBeGreaterThan(30)
    expect(declared).toEqual(underSandbox)
  })

  it("a sandbox-only endpoint answers a production platform 403 FORBIDDEN without running its handler; a sandbox platform runs it", async () => {
    let ran = 0
    const handler = () => Effect.sync(() => ++ran)
    const applied = applyConcerns(PaymentsApi.groups.sandbox.endpoints.getClock, handler)
    const production = platformFromConfig({ id: "prod-concerns", clientId: "prod-concerns", clientSecret: "prod-concerns-secret", sandbox: false })
    const refused: unknown = await Effect.runPromise(applied({}).pipe(Effect.provideService(CurrentPlatform, production), Effect.provide(MemoryStoreLayer)))
    expect(ran).toBe(0)
    expect(refused).toMatchObject({ status: 403 })
    expect(await Effect.runPromise(applied({}).pipe(Effect.provideService(CurrentPlatform, platformA), Effect.provide(MemoryStoreLayer)))).toBe(1)
    // An endpoint that declares nothing of the kind runs for production platforms too.
    const plain = applyConcerns(PaymentsApi.groups.customers.endpoints.getCustomer, handler)
    expect(await Effect.runPromise(plain({}).pipe(Effect.provideService(CurrentPlatform, production), Effect.provide(MemoryStoreLayer)))).toBe(2)
  })
})
