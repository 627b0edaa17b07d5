/**
 * A model-based command set (fast-check) for external accounts: a deliberately simple
 * reference model beside any implementation of the API, reached through a small
 * `ApiClient` (the reference server in-process, `npm start` over HTTP, or a platform's
 * own integration). After every command the model and the API must agree.
 */
import fc from "fast-check"

/** The least a client must do: send JSON, get the status and parsed body back. */
export interface ApiClient {
  readonly call: (method: string, path: string, body?: unknown) => Promise<{ readonly status: number; readonly body: unknown }>
}

interface ModelAccount {
  readonly id: string
  readonly key: string
  isDefault: boolean
}

/** The reference model: which accounts exist, which is each customer's default. */
export class ExternalAccountsModel {
  readonly accounts = new Map<string, ModelAccount>()
  constructor(readonly customerId: string) {}
  byKey(key: string): ModelAccount | undefined {
    for (const a of this.accounts.values()) if (a.key === key) return a
    return undefined
  }
}

const record = (body: unknown): Record<string, unknown> => (typeof body === "object" && body !== null ? body as Record<string, unknown> : {})

const usdRequest = (customerId: string, n: number, isDefault: boolean) => ({
  customerId,
  currency: "USD",
  defaultUmaDepositAccount: isDefault,
  accountInfo: {
    accountType: "USD_ACCOUNT",
    // Ends in 0: never a sandbox name-check suffix (1xx) nor a transfer suffix.
    accountNumber: `5000${n}0`,
    routingNumber: "021000021",
    bankAccountType: "CHECKING",
    beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Model Holder" }
  }
})

export class CreateAccount implements fc.AsyncCommand<ExternalAccountsModel, ApiClient> {
  constructor(readonly n: number, readonly isDefault: boolean) {}
  check = () => true
  async run(m: ExternalAccountsModel, api: ApiClient) {
    const key = String(this.n)
    const r = await api.call("POST", "/customers/external-accounts", usdRequest(m.customerId, this.n, this.isDefault))
    const existing = m.byKey(key)
    if (existing !== undefined) {
      if (r.status !== 409 || record(r.body)["code"] !== "DUPLICATE_EXTERNAL_ACCOUNT") {
        throw new Error(`an equivalent account exists (${existing.id}); expected 409 DUPLICATE_EXTERNAL_ACCOUNT, got ${r.status}`)
      }
      return
    }
    if (r.status !== 201) throw new Error(`expected 201, got ${r.status}: ${JSON.stringify(r.body)}`)
    const id = String(record(r.body)["id"])
    if (this.isDefault) for (const a of m.accounts.values()) a.isDefault = false
    m.accounts.set(id, { id, key, isDefault: this.isDefault })
  }
  toString = () => `create(${this.n}${this.isDefault ? ", default" : ""})`
}

export class DeleteAccount implements fc.AsyncCommand<ExternalAccountsModel, ApiClient> {
  constructor(readonly pick: number) {}
  check = (m: Readonly<ExternalAccountsModel>) => m.accounts.size > 0
  async run(m: ExternalAccountsModel, api: ApiClient) {
    const ids = [...m.accounts.keys()]
    const id = ids[this.pick % ids.length]!
    const r = await api.call("DELETE", `/customers/external-accounts/${id}`)
    if (r.status !== 204) throw new Error(`expected 204 deleting ${id}, got ${r.status}`)
    m.accounts.delete(id)
  }
  toString = () => `delete(#${this.pick})`
}

export class CompareList implements fc.AsyncCommand<ExternalAccountsModel, ApiClient> {
  check = () => true
  async run(m: ExternalAccountsModel, api: ApiClient) {
    const r = await api.call("GET", `/customers/external-accounts?customerId=${encodeURIComponent(m.customerId)}&limit=100`)
    const data = (record(r.body)["data"] as Array<Record<string, unknown>> | undefined) ?? []
    const ids = new Set(data.map((a) => String(a["id"])))
    if (ids.size !== m.accounts.size || [...m.accounts.keys()].some((id) => !ids.has(id))) {
      throw new Error(`the API lists ${[...ids].join(",")}; the model holds ${[...m.accounts.keys()].join(",")}`)
    }
    const defaults = data.filter((a) => a["defaultUmaDepositAccount"] === true).map((a) => String(a["id"]))
    const expected = [...m.accounts.values()].filter((a) => a.isDefault).map((a) => a.id)
    if (defaults.length > 1) throw new Error(`more than one default UMA deposit account: ${defaults.join(",")}`)
    if (defaults.join() !== expected.join()) throw new Error(`default is ${defaults.join()} in the API, ${expected.join()} in the model`)
  }
  toString = () => "checkList"
}

/**
 * The commands: create (sometimes a duplicate, sometimes the new default), delete,
 * and a full comparison of the customer's list with the model.
 */
export const externalAccountCommands = (
  options: { readonly distinctAccounts?: number } = {}
): Array<fc.Arbitrary<fc.AsyncCommand<ExternalAccountsModel, ApiClient>>> => [
  fc.tuple(fc.integer({ min: 0, max: (options.distinctAccounts ?? 6) - 1 }), fc.boolean()).map(([n, d]) => new CreateAccount(n, d)),
  fc.nat().map((p) => new DeleteAccount(p)),
  fc.constant(new CompareList())
]
