/**
 * Property tests over the HTTP API: generated requests, concurrency, the default UMA
 * invariant and tenant isolation.
 */
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CustomerExternalAccountCreateRequest } from "../../src/domain/external-account.js"
import { arbitraryFor, damaged } from "../../src/testing/arbitrary.js"
import { type Api, isErrorShape, makeApi, platformA, platformB, usdAccount } from "../support/api.js"
import { numRuns } from "../support/runs.js"

let api: Api
let customerA: string
beforeAll(async () => {
  api = makeApi()
  customerA = (await api.call("POST", "/customers", { body: { customerType: "INDIVIDUAL", fullName: "Prop Erty" } })).body.id
})
afterAll(async () => {
  await api.dispose()
})

describe("any generated create request", () => {
  it("gets 201 or a 4xx in the error shape, never a 500", async () => {
    const valid = arbitraryFor(CustomerExternalAccountCreateRequest).map((req) => ({ ...req, customerId: customerA }))
    await fc.assert(
      fc.asyncProperty(damaged(valid), async (body) => {
        const r = await api.call("POST", "/customers/external-accounts", { body })
        if (r.status === 201) {
          expect(r.body.id).toMatch(/^ExternalAccount:/)
          return
        }
        expect([400, 409]).toContain(r.status)
        expect(isErrorShape(r.body)).toBe(true)
      }),
      { numRuns: numRuns(150) }
    )
  })
  it("every schema-valid request for an existing customer is accepted unless the rules refuse it", async () => {
    await fc.assert(
      fc.asyncProperty(arbitraryFor(CustomerExternalAccountCreateRequest), async (req) => {
        const r = await api.call("POST", "/customers/external-accounts", { body: { ...req, customerId: customerA } })
        if (r.status !== 201) {
          // Only rule refusals: currency of the type, sandbox 105, an equivalent account.
          expect(["INVALID_INPUT", "INVALID_BANK_ACCOUNT", "DUPLICATE_EXTERNAL_ACCOUNT"]).toContain(r.body.code)
          if (r.body.code === "INVALID_INPUT") expect(JSON.stringify(r.body.details)).toMatch(/currency|identifier/)
        }
      }),
      { numRuns: numRuns(100) }
    )
  })
})

describe("concurrency", () => {
  it("N concurrent identical creates give exactly one 201 and N-1 409 DUPLICATE_EXTERNAL_ACCOUNT", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 2, max: 24 }), fc.stringMatching(/^[0-9]{6,12}$/).map((d) => `${d}0`), async (n, accountNumber) => {
        // (ends in 0: never the sandbox's 105 "invalid account" suffix)
        const c = (await api.call("POST", "/customers", { body: { customerType: "INDIVIDUAL", fullName: "Con Current" } })).body.id
        const replies = await Promise.all(Array.from({ length: n }, () => api.call("POST", "/customers/external-accounts", { body: usdAccount(c, accountNumber) })))
        expect(replies.filter((r) => r.status === 201)).toHaveLength(1)
        const conflicts = replies.filter((r) => r.status === 409)
        expect(conflicts).toHaveLength(n - 1)
        for (const r of conflicts) expect(r.body.code).toBe("DUPLICATE_EXTERNAL_ACCOUNT")
      }),
      { numRuns: numRuns(15) }
    )
  })
})

type Step =
  | { readonly kind: "create"; readonly account: number; readonly isDefault: boolean }
  | { readonly kind: "delete"; readonly index: number }

const steps = fc.array(
  fc.oneof(
    fc.record({ kind: fc.constant("create" as const), account: fc.integer({ min: 0, max: 6 }), isDefault: fc.boolean() }),
    fc.record({ kind: fc.constant("delete" as const), index: fc.nat() })
  ),
  { maxLength: 14 }
)

describe("default UMA deposit account", () => {
  it("after any sequence of creates and deletes each customer has at most one default", async () => {
    await fc.assert(
      fc.asyncProperty(steps, async (seq: ReadonlyArray<Step>) => {
        const c = (await api.call("POST", "/customers", { body: { customerType: "INDIVIDUAL", fullName: "Uma Default" } })).body.id
        const ids: Array<string> = []
        let expectedDefault: string | undefined
        for (const step of seq) {
          if (step.kind === "create") {
            const r = await api.call("POST", "/customers/external-accounts", {
              body: { ...usdAccount(c, `4${step.account}00`), defaultUmaDepositAccount: step.isDefault }
            })
            if (r.status === 201) {
              ids.push(r.body.id)
              if (step.isDefault) expectedDefault = r.body.id
            }
          } else if (ids.length > 0) {
            const [id] = ids.splice(step.index % ids.length, 1)
            await api.call("DELETE", `/customers/external-accounts/${id}`)
            if (id === expectedDefault) expectedDefault = undefined
          }
        }
        const list = await api.call("GET", `/customers/external-accounts?customerId=${c}&limit=100`)
        const defaults = list.body.data.filter((a: { defaultUmaDepositAccount: boolean }) => a.defaultUmaDepositAccount)
        expect(defaults.length).toBeLessThanOrEqual(1)
        expect(defaults.map((a: { id: string }) => a.id)).toEqual(expectedDefault === undefined ? [] : [expectedDefault])
      }),
      { numRuns: numRuns(25) }
    )
  })
})

describe("tenant isolation", () => {
  it("no generated sequence lets one platform see, change or collide with another's data", async () => {
    const platforms = [platformA, platformB] as const
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ p: fc.integer({ min: 0, max: 1 }), pcid: fc.constantFrom("u1", "u2", "u3"), acct: fc.constantFrom("111", "222") }), { minLength: 1, maxLength: 8 }),
        async (ops) => {
          const isolated = makeApi([platformA, platformB])
          try {
            const owned: Record<string, Array<string>> = { [platformA.id]: [], [platformB.id]: [] }
            for (const op of ops) {
              const as = platforms[op.p]!
              const cust = await isolated.call("POST", "/customers", { body: { customerType: "INDIVIDUAL", fullName: "T", platformCustomerId: `${op.pcid}` }, as })
              let customerId: string
              if (cust.status === 201) {
                customerId = cust.body.id
                owned[as.id]!.push(customerId)
              } else {
                // A collision may only come from the same platform's customers.
                expect(cust.status).toBe(409)
                expect(owned[as.id]).toContain(cust.body.details.customerId)
                customerId = cust.body.details.customerId
              }
              const acct = await isolated.call("POST", "/customers/external-accounts", { body: usdAccount(customerId, op.acct), as })
              if (acct.status === 201) owned[as.id]!.push(acct.body.id)
              else expect(acct.body.code).toBe("DUPLICATE_EXTERNAL_ACCOUNT")
            }
            for (const [i, as] of platforms.entries()) {
              const other = platforms[1 - i]!
              const customers = await isolated.call("GET", "/customers?limit=100", { as })
              const accounts = await isolated.call("GET", "/customers/external-accounts?limit=100", { as })
              for (const x of [...customers.body.data, ...accounts.body.data]) expect(owned[as.id]).toContain(x.id)
              for (const id of owned[other.id]!) {
                const path = id.startsWith("Customer:") ? `/customers/${id}` : `/customers/external-accounts/${id}`
                expect((await isolated.call("GET", path, { as })).status).toBe(404)
                if (id.startsWith("Customer:")) {
                  expect((await isolated.call("PATCH", path, { body: { customerType: "INDIVIDUAL", fullName: "Hijack" }, as })).status).toBe(404)
                  expect((await isolated.call("DELETE", path, { as })).status).toBe(404)
                } else {
                  expect((await isolated.call("DELETE", path, { as })).status).toBe(404)
                }
              }
            }
          } finally {
            await isolated.dispose()
          }
        }
      ),
      { numRuns: numRuns(20) }
    )
  })
})
