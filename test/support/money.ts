/**
 * Helpers for the money end-to-end suites (test/http/money/): platforms, approved
 * customers with their internal accounts, funding, quotes, the sandbox clock and the
 * outbox, all through the HTTP API in-process (`makeApi`).
 */
import { Effect } from "effect"
import { expect } from "vitest"
import { type Platform, platformFromConfig } from "../../src/domain/platform.js"
import { Store } from "../../src/ports/store.js"
import type { DomainEvent } from "../../src/ports/events.js"
import { type Api, makeApi, type Reply } from "./api.js"

/** Regulated sandbox platform: customers are APPROVED at creation, internal accounts USD, EUR, MXN. */
export const moneyPlatform = (id: string, extra: Partial<Parameters<typeof platformFromConfig>[0]> = {}): Platform =>
  platformFromConfig({ id, clientId: `${id}-client`, clientSecret: `${id}-secret-123`, regulated: true, ...extra })

/** The removed failure reasons SPEC.md says never appear. */
export const REMOVED_FAILURE_REASONS = ["EXECUTION_FAILED_POST_DEBIT", "SETTLEMENT_FAILED", "TIMEOUT", "MANUAL_REFUND"]

export const consent = (type = "SERVICE_END_USER_TERMS") => ({
  type,
  acceptedAt: "2025-10-13T09:30:00Z",
  ipAddress: "203.0.113.7",
  termsVersion: "V1",
  acceptanceMethod: "CHECKBOX"
})

export const eutConsent = () => {
  const { type: _t, ...rest } = consent()
  return rest
}

let seq = 0
/** A fresh account number ending in `suffix` (unique per call so accounts never collide). */
export const accountNumberEnding = (suffix: string) => `${String(100000 + (++seq % 900000)).padStart(6, "0")}${suffix}`

export interface Accounts {
  readonly USD: string
  readonly EUR: string
  readonly MXN: string
  readonly [currency: string]: string
}

/** A money test client over one app. */
export const moneyClient = (api: Api, platform: Platform) => {
  const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply> =>
    api.call(method, path, { as: platform, ...(body === undefined ? {} : { body }), ...(headers === undefined ? {} : { headers }) })
  const ok = async (method: string, path: string, body?: unknown, status = 200, headers?: Record<string, string>) => {
    const r = await call(method, path, body, headers)
    expect(r.status, `${method} ${path}: ${JSON.stringify(r.body)}`).toBe(status)
    return r.body
  }
  const customer = async (extra: Record<string, unknown> = {}, fullName = "Ada Lovelace") =>
    (await ok("POST", "/customers", { customerType: "INDIVIDUAL", fullName, ...extra }, 201)) as { id: string; platformCustomerId: string; umaAddress: string; kycStatus: string }
  const accountsOf = async (customerId: string): Promise<Accounts> => {
    const list = await ok("GET", `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}`)
    return Object.fromEntries((list.data as Array<{ id: string; balance: { currency: { code: string } } }>).map((a) => [a.balance.currency.code, a.id])) as unknown as Accounts
  }
  const platformAccounts = async (): Promise<Accounts> => {
    const list = await ok("GET", "/platform/internal-accounts")
    return Object.fromEntries((list.data as Array<{ id: string; balance: { currency: { code: string } } }>).map((a) => [a.balance.currency.code, a.id])) as unknown as Accounts
  }
  const fund = (accountId: string, amount: number) => ok("POST", `/sandbox/internal-accounts/${encodeURIComponent(accountId)}/fund`, { amount })
  const balance = async (accountId: string, customerId?: string): Promise<number> => {
    const list = customerId === undefined
      ? await ok("GET", "/platform/internal-accounts")
      : await ok("GET", `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}`)
    const found = (list.data as Array<{ id: string; balance: { amount: number } }>).find((a) => a.id === accountId)
    if (found === undefined) throw new Error(`no account ${accountId}`)
    return found.balance.amount
  }
  /** An approved customer with its accounts; `funds` in minor units per currency. */
  const fundedCustomer = async (funds: Partial<Record<string, number>> = {}, extra: Record<string, unknown> = {}) => {
    const c = await customer(extra)
    const accounts = await accountsOf(c.id)
    for (const [ccy, amount] of Object.entries(funds)) if (amount !== undefined && amount > 0) await fund(accounts[ccy]!, amount)
    return { ...c, accounts }
  }
  const externalUsd = async (customerId: string | undefined, accountNumber: string, extra: Record<string, unknown> = {}) =>
    (await ok("POST", customerId === undefined ? "/platform/external-accounts" : "/customers/external-accounts", {
      ...(customerId === undefined ? {} : { customerId }),
      currency: "USD",
      accountInfo: {
        accountType: "USD_ACCOUNT",
        accountNumber,
        routingNumber: "021000021",
        bankAccountType: "CHECKING",
        beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Ada Lovelace" },
        ...extra
      }
    }, 201)) as { id: string; status: string }
  const externalEur = async (customerId: string, iban: string) =>
    (await ok("POST", "/customers/external-accounts", {
      customerId,
      currency: "EUR",
      accountInfo: { accountType: "EUR_ACCOUNT", iban, beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Ada Lovelace", countryOfResidence: "DE" } }
    }, 201)) as { id: string; status: string }
  const quote = (body: Record<string, unknown>, headers?: Record<string, string>) => call("POST", "/quotes", body, headers)
  /** A SENDING quote from `source` to account `destination`. */
  const quoteBody = (source: string, destination: string, amount: number, extra: Record<string, unknown> = {}) => ({
    source: { sourceType: "ACCOUNT", accountId: source },
    destination: { destinationType: "ACCOUNT", accountId: destination },
    lockedCurrencySide: "SENDING",
    lockedCurrencyAmount: amount,
    ...extra
  })
  const pay = async (source: string, destination: string, amount: number, extra: Record<string, unknown> = {}) =>
    ok("POST", "/quotes", quoteBody(source, destination, amount, { immediatelyExecute: true, ...extra }), 201)
  const transaction = (id: string) => ok("GET", `/transactions/${encodeURIComponent(id)}`)
  const advance = (seconds: number) => ok("POST", "/sandbox/clock/advance", { seconds })
  const clock = async () => Date.parse((await ok("GET", "/sandbox/clock")).now as string)
  /** The platform's committed events, oldest first. */
  const events = async (): Promise<ReadonlyArray<DomainEvent>> => {
    const context = await api.ready
    return Effect.runPromise(
      Effect.provideContext(Effect.flatMap(Effect.service(Store), (s) => s.events.list(platform.id)), context)
    ).then((es) => es.map((e) => e.event))
  }
  return {
    call,
    ok,
    customer,
    accountsOf,
    platformAccounts,
    fund,
    balance,
    fundedCustomer,
    externalUsd,
    externalEur,
    quote,
    quoteBody,
    pay,
    transaction,
    advance,
    clock,
    events
  }
}
export type MoneyClient = ReturnType<typeof moneyClient>

/** One app over `platforms`, with a client per platform. */
export const moneyApp = (platforms: ReadonlyArray<Platform>, options: Parameters<typeof makeApi>[2] = {}) => {
  const api = makeApi(platforms, undefined, options)
  return { api, clients: platforms.map((p) => moneyClient(api, p)), dispose: () => api.dispose() }
}

/** Advances the platform's sandbox clock to the instant `at(now)` (epoch ms; never backwards), `now` being what the clock shows. */
export const advanceTo = async (client: MoneyClient, at: (now: Date) => number): Promise<void> => {
  const now = await client.clock()
  await client.advance(Math.max(0, Math.ceil((at(new Date(now)) - now) / 1000)))
}

/** Noon UTC on the first day of the month after `now`: a day later is the same month, and nothing is near midnight. */
export const noonOnFirstOfNextMonth = (now: Date): number => Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1, 12)

/**
 * Advances the platform's sandbox clock to `afterSeconds` past the transaction's
 * `expectedSettlementAt` (ACH: the next business day's start), as the server says it:
 * how far that is depends on the weekday the clock shows, so no fixed advance is right
 * on every day the suite runs (from Friday 00:00:00.001, Monday 00:00 is 3 days less 1 ms).
 */
export const advanceToSettlement = async (client: MoneyClient, transactionId: string, afterSeconds = 0): Promise<void> => {
  const tx = await client.transaction(transactionId)
  const expected = Date.parse(tx.expectedSettlementAt as string)
  expect(Number.isNaN(expected), `expectedSettlementAt of ${transactionId}: ${JSON.stringify(tx.expectedSettlementAt)}`).toBe(false)
  const now = await client.clock()
  await client.advance(Math.max(0, Math.ceil((expected - now) / 1000)) + afterSeconds)
}

/** Every string value under `v` (to check no removed failure reason shows anywhere). */
export const allStrings = (v: unknown): Array<string> =>
  typeof v === "string" ? [v] : Array.isArray(v) ? v.flatMap(allStrings) : typeof v === "object" && v !== null ? Object.values(v).flatMap(allStrings) : []
