/**
 * The guard over the conformance suites: every endpoint of `PaymentsApi` that has a
 * reference operation declaring a success body must be checked by some conformance suite
 * (the lists in test/conformance/operations.ts, each enforced by its suite). The
 * endpoints with no reference operation at all, and the ones not checked yet, are
 * explicit lists here: a new endpoint lands in neither by accident.
 */
import { describe, expect, it } from "vitest"
import { PaymentsApi } from "../../src/http/api.js"
import { operationKey, referenceOperation } from "./harness.js"
import { CARD_OURS, INSIGHT_OURS, STABLECOIN_OURS, SUITES, WEBHOOK_OURS } from "./operations.js"

/** `METHOD /path` of every built endpoint (version prefix dropped, `{}` for parameters). */
const built: ReadonlyArray<{ readonly key: string; readonly method: string; readonly path: string }> = Object.values(PaymentsApi.groups).flatMap((group) =>
  Object.values(group.endpoints).map((e) => {
    const method = String(e.method).toUpperCase()
    const path = String(e.path).replace(/^\/\d{4}-\d{2}-\d{2}/, "")
    return { key: operationKey(method, path), method, path }
  })
)

/** The success statuses for which the reference declares a JSON body. */
const bodiesOf = (method: string, path: string): ReadonlyArray<string> =>
  Object.entries(referenceOperation(method, path)?.responses ?? {})
    .filter(([status, r]) => status.startsWith("2") && r.content?.["application/json"]?.schema !== undefined)
    .map(([status]) => status)

/** Built endpoints the reference has no operation for (SPEC.md's or ours): nothing to hold them to. */
const NO_REFERENCE_OPERATION = [
  "GET /customers/agreements", // SPEC.md's own (onboarding.test.ts says so: no reference schema)
  "PATCH /platform/config", // SPEC.md's; money.test.ts still checks it as the reference PlatformConfig
  "DELETE /beneficial-owners/{}",
  "GET /sandbox/clock", "POST /sandbox/clock/advance", "POST /sandbox/reset",
  // The sandbox's hosted KYC flow behind a kyc-link (HTML; kyc-links.test.ts says so)
  "GET /sandbox/kyc-link", "POST /sandbox/kyc-link",
  // Ours: fault injection and seed documents (sandbox-faults and sandbox-seed e2e tests check them)
  "PUT /sandbox/faults", "GET /sandbox/faults", "DELETE /sandbox/faults", "POST /sandbox/seed",
  // Ours: snapshots (sandbox-snapshots e2e tests check them)
  "POST /sandbox/snapshots", "GET /sandbox/snapshots", "GET /sandbox/snapshots/{}", "DELETE /sandbox/snapshots/{}",
  "POST /sandbox/snapshots/{}/restore",
  // SPEC.md's card PIN and tokenization endpoints, and our sandbox PIN entry (cards.test.ts
  // checks them against our own schemas and that the reference has none of them)
  ...CARD_OURS,
  ...STABLECOIN_OURS, // SPEC.md's enablement request (stablecoins.test.ts checks it answers the reference Stablecoin)
  ...WEBHOOK_OURS, // checked against our own schemas in webhooks.test.ts
  ...INSIGHT_OURS // checked against our own schemas in sandbox-insight.test.ts
]

/**
 * Built endpoints with a reference response schema that no conformance suite checks yet:
 * none. A new endpoint with a reference success body fails the guard until a suite checks
 * it (and lists it in operations.ts); add it here only as a deliberate, temporary gap (the
 * test fails when a listed endpoint is covered, so the list only shrinks).
 */
const NOT_YET_CHECKED: ReadonlyArray<string> = []

const covered = new Map<string, Array<string>>()
for (const [suite, ops] of Object.entries(SUITES)) for (const op of ops) covered.set(op, [...(covered.get(op) ?? []), suite])

describe("every built endpoint with a reference schema is checked by a conformance suite", () => {
  it("the walk finds the API's endpoints", () => {
    expect(built.length).toBeGreaterThan(60)
    expect(new Set(built.map((e) => e.key)).size).toBe(built.length)
  })

  it("no built endpoint with a reference success body is left unchecked (beyond the explicit NOT_YET_CHECKED)", () => {
    const unchecked = built
      .filter((e) => bodiesOf(e.method, e.path).length > 0 && !covered.has(e.key) && !NOT_YET_CHECKED.includes(e.key))
      .map((e) => `${e.key} (${bodiesOf(e.method, e.path).join(", ")})`)
    expect(unchecked, "add these to a conformance suite (and its list in operations.ts)").toEqual([])
  })

  it("NOT_YET_CHECKED only holds real, unchecked gaps", () => {
    for (const gap of NOT_YET_CHECKED) {
      const e = built.find((b) => b.key === gap)
      expect(e, `${gap} is not built`).toBeDefined()
      expect(bodiesOf(e!.method, e!.path).length, `${gap} has no reference body`).toBeGreaterThan(0)
      expect(covered.get(gap), `${gap} is covered now: drop it from NOT_YET_CHECKED`).toBeUndefined()
    }
  })

  it("the endpoints without a reference operation are exactly the explicit list", () => {
    const none = built.filter((e) => referenceOperation(e.method, e.path) === undefined).map((e) => e.key)
    expect(none.sort()).toEqual([...NO_REFERENCE_OPERATION].sort())
  })

  it("every operation a suite lists is built (and named as the guard names it)", () => {
    const keys = new Set(built.map((e) => e.key))
    for (const [op, suites] of covered) expect(keys.has(op), `${op} (${suites.join(", ")}) is not built`).toBe(true)
  })

  it("built endpoints whose reference answers carry no body need no suite (204 only)", () => {
    const bodiless = built.filter((e) => referenceOperation(e.method, e.path) !== undefined && bodiesOf(e.method, e.path).length === 0).map((e) => e.key)
    expect(bodiless.sort()).toEqual([
      "DELETE /agents/{}", "DELETE /agents/me/external-accounts/{}", "DELETE /auth/delegated-keys/{}", "DELETE /customers/external-accounts/{}", "DELETE /documents/{}", "DELETE /platform/external-accounts/{}",
      "DELETE /tokens/{}",
      // SCA and contact verification (test/conformance/sca.test.ts still checks that they answer empty)
      "DELETE /sca/factors/{}", "POST /customers/{}/verify-email", "POST /customers/{}/verify-phone",
      "POST /quotes/{}/authorize/resend", "POST /sca/factors/reset/{}/complete"
    ].sort())
  })
})
