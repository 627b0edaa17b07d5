import fc from "fast-check"
import { afterAll, describe, expect, it } from "vitest"
import { type ApiClient, CompareList, CreateAccount, ExternalAccountsModel, externalAccountCommands } from "../../src/testing/external-accounts-model.js"
import { makeApi } from "../support/api.js"
import { numRuns } from "../support/runs.js"

const api = makeApi()
afterAll(() => api.dispose())

const client: ApiClient = { call: (method, path, body) => api.call(method, path, body === undefined ? {} : { body }) }

describe("exported model-based commands", () => {
  it("the reference server agrees with the model across any command sequence", async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(externalAccountCommands(), { maxCommands: 25 }), async (cmds) => {
        const customer = await api.call("POST", "/customers", { body: { customerType: "INDIVIDUAL", fullName: "Model Owner" } })
        await fc.asyncModelRun(() => ({ model: new ExternalAccountsModel(customer.body.id), real: client }), cmds)
      }),
      { numRuns: numRuns(30) }
    )
  })

  it("catches an implementation that forgets to clear the previous default", async () => {
    // A client that hides the second default: the model must notice.
    const broken: ApiClient = {
      call: async (method, path, body) => {
        const r = await client.call(method, path, body)
        if (method === "GET" && typeof r.body === "object" && r.body !== null) {
          const data = (r.body as { data: Array<Record<string, unknown>> }).data.map((a) => ({ ...a, defaultUmaDepositAccount: true }))
          return { status: r.status, body: { ...r.body, data } }
        }
        return r
      }
    }
    const customer = await api.call("POST", "/customers", { body: { customerType: "INDIVIDUAL", fullName: "Model Owner" } })
    const model = new ExternalAccountsModel(customer.body.id)
    await new CreateAccount(1, true).run(model, broken)
    await new CreateAccount(2, false).run(model, broken)
    await expect(new CompareList().run(model, broken)).rejects.toThrow(/more than one default/)
  })
})
