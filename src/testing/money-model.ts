/**
 * A model-based command set (fast-check) for money movement, in the spirit of
 * TigerBeetle's testing: a deliberately simple reference model of balances and payments
 * beside the real API, and an auditor that checks the books after every step.
 *
 * - The commands drive the HTTP API through a small `MoneyApiClient` (the reference
 *   server in-process, `npm start` over HTTP, or a platform's own integration): sandbox
 *   funding, quotes (SENDING / RECEIVING, to external accounts with every sandbox suffix,
 *   to internal accounts, to sandbox UMA counterparties and to customers' UMA addresses),
 *   execution with and without an Idempotency-Key, retries with the same key, clock
 *   advances, transfer-in / transfer-out, incoming UMA payments and cancellations.
 * - The model knows the sandbox tables (docs/money-rules.md) on its own, as data, and
 *   derives every balance from the payments it holds. After every command the API's
 *   balances and every transaction's status must be the model's.
 * - The auditor is optional (`LedgerAuditView`): with read access to the ledger (the
 *   Store in-process, `storeAuditView`) it checks that every journal entry sums to zero
 *   per currency, that no internal account is negative, that each balance is the sum
 *   of its postings, that the API reports the ledger's balances, that money in flight
 *   is exactly the debits of payments still in flight, that every debit has its
 *   settlement, refund, return or parking, and that the ledger agrees with the model.
 *   Users driving a remote server without ledger access run the model alone.
 *
 * Time: the model reads the platform's time only from the API (`createdAt`, the answer
 * of POST /sandbox/clock/advance) and bounds it between answers with the local clock,
 * so it needs no clock of its own. It expects scheduled sandbox moves to apply when the
 * sandbox clock is advanced (the reference server does exactly that; a background
 * scheduler running meanwhile may apply a move early, which the model also accepts).
 */
import fc from "fast-check"
import { Effect } from "effect"
import type { Store } from "../ports/store.js"
import { inFlightAccount, suspenseAccount } from "../operations/money/ledger.js"
import type { JsonApiClient } from "./commands.js"

// ---------------------------------------------------------------- the client and the ledger view

/** The least a client must do: send JSON (with optional headers), get the status and parsed body back. */
export type MoneyApiClient = JsonApiClient

export interface LedgerPostingView {
  readonly account: string
  readonly currency: string
  readonly amount: number
}

export interface LedgerEntryView {
  readonly id: string
  readonly kind: string
  readonly transactionId?: string | undefined
  readonly postings: ReadonlyArray<LedgerPostingView>
}

/** A payment as the ledger side knows it: where its money stands and what it debited. */
export interface LedgerPaymentView {
  readonly id: string
  readonly type: string
  readonly status: string
  /** NONE, IN_FLIGHT, SETTLED, REFUNDED, PARKED or RETURNED. */
  readonly money: string
  readonly debit: LedgerPostingView
}

/** Read access to the books, for the auditor. */
export interface LedgerAuditView {
  readonly entries: () => Promise<ReadonlyArray<LedgerEntryView>>
  readonly balances: () => Promise<ReadonlyArray<{ readonly account: string; readonly currency: string; readonly balance: number }>>
  readonly payments: () => Promise<ReadonlyArray<LedgerPaymentView>>
}

/** The auditor's view of an in-process Store (memory, PGlite or PostgreSQL), for one platform. */
export const storeAuditView = (store: Store["Service"], platformId: string): LedgerAuditView => ({
  entries: () => Effect.runPromise(store.ledger.entries(platformId)),
  balances: () => Effect.runPromise(store.ledger.allBalances(platformId)),
  payments: () =>
    Effect.runPromise(Effect.gen(function*() {
      const out: Array<LedgerPaymentView> = []
      let cursor: string | undefined
      for (;;) {
        const page = yield* Effect.orDie(store.transactions.list(platformId, {}, { limit: 500, cursor }))
        for (const r of page.data) {
          out.push({ id: r.transaction.id, type: r.transaction.type, status: r.transaction.status, money: r.plan.money, debit: r.plan.debit })
        }
        if (!page.hasMore || page.nextCursor === undefined) return out
        cursor = page.nextCursor
      }
    }))
})

// ---------------------------------------------------------------- the model

export const MODEL_CURRENCIES = ["USD", "EUR", "MXN"] as const
export type ModelCurrency = (typeof MODEL_CURRENCIES)[number]
export type Owner = "A" | "B"
/** Last 3 digits of the model's external accounts: each sandbox row, and "000" for any other. */
export const EXTERNAL_SUFFIXES = ["000", "002", "003", "004", "005", "006", "007"] as const
export type Suffix = (typeof EXTERNAL_SUFFIXES)[number]
export const UMA_COUNTERPARTIES = ["success.usd", "success.eur", "success.mxn", "pending.long.usd", "fail.compliance.usd"] as const
export type UmaCounterparty = (typeof UMA_COUNTERPARTIES)[number]

const SECOND = 1_000
const DAY = 86_400_000
const IDEMPOTENCY_TTL = DAY
const UMA_LONG_PENDING = DAY
/** Tolerance for instants the model only knows within a request's round trip. */
const SLACK = 2_000

type Move =
  | { readonly type: "COMPLETE" }
  | { readonly type: "FAIL"; readonly reason: string }
  | { readonly type: "REFUND_COMPLETE" }
  | { readonly type: "REFUND_FAIL" }
  | { readonly type: "RETURN" }
  | { readonly type: "CANCEL" }

type Funds = "IN_FLIGHT" | "SETTLED" | "REFUNDED" | "PARKED" | "RETURNED"

/** An outgoing payment as the model sees it. */
export interface ModelPayment {
  readonly id: string
  readonly label: string
  /** The internal account debited, or null when the money comes from outside (a pull). */
  readonly source: string | null
  /** Pulled from an external account: a failure shows no refund (nothing of the customer's was taken). */
  readonly pull: boolean
  readonly debit: number
  readonly sendingCurrency: string
  /** The internal account credited on settlement, or null when it leaves the service. */
  readonly creditAccount: string | null
  readonly credit: number
  readonly steps: Array<{ readonly at: number; readonly move: Move }>
  applied: number
  status: "PROCESSING" | "COMPLETED" | "FAILED"
  failureReason?: string
  refund?: { status: "PENDING" | "COMPLETED" | "FAILED"; reason: string }
  funds: Funds
}

/** An incoming UMA payment. */
export interface ModelIncoming {
  readonly id: string
  readonly account: string
  readonly amount: number
  status: "PENDING" | "COMPLETED" | "FAILED"
  readonly completesAt?: number
}

export interface ModelQuote {
  readonly id: string
  readonly transactionId: string
  readonly label: string
  readonly source: string
  readonly sendingCurrency: string
  readonly totalSendingAmount: number
  readonly totalReceivingAmount: number
  readonly expiresAt: number
  readonly creditAccount: string | null
  /** The sandbox steps, relative to execution (before rail settlement delays). */
  readonly steps: ReadonlyArray<{ readonly afterMillis: number; readonly move: Move }>
  /** The settlement rail is next-business-day ACH: completions wait for it. */
  readonly achSettlement: boolean
  executed: boolean
}

/** What a fresh world holds: two approved customers, their internal accounts, external accounts of A. */
export interface MoneyWorld {
  readonly customers: Readonly<Record<Owner, { readonly id: string; readonly umaAddress: string }>>
  /** Internal account ids by owner and currency. */
  readonly internal: Readonly<Record<Owner, Readonly<Record<ModelCurrency, string>>>>
  readonly platformAccounts: ReadonlyArray<string>
  /** Customer A's USD external accounts by suffix. */
  readonly external: Readonly<Record<Suffix, string>>
  readonly umaDomain: string
}

export class MoneyModel {
  readonly funded = new Map<string, number>()
  readonly quotes: Array<ModelQuote> = []
  readonly payments: Array<ModelPayment> = []
  readonly incoming: Array<ModelIncoming> = []
  /** Keys of successful executions: the first answer, and when the key was stored. */
  readonly keys = new Map<string, { readonly quoteId: string; readonly body: unknown; readonly storedAt: number }>()
  lastKey: string | undefined
  keyCounter = 0
  /** The platform's time: `serverNow` was read no earlier than local instant `localAt`. */
  clock: { serverNow: number; localAt: number }
  readonly accounts: ReadonlyArray<{ readonly id: string; readonly owner: Owner; readonly currency: ModelCurrency }>

  constructor(readonly world: MoneyWorld, serverNow: number, localAt: number) {
    this.clock = { serverNow, localAt }
    this.accounts = (["A", "B"] as const).flatMap((owner) => MODEL_CURRENCIES.map((currency) => ({ id: world.internal[owner][currency], owner, currency })))
  }

  /** The platform's time is at least this now. */
  lower(): number {
    return this.clock.serverNow
  }
  /** ... and at most this. */
  upper(): number {
    return this.clock.serverNow + (Date.now() - this.clock.localAt) + SLACK
  }
  /** An instant the platform saw (a createdAt): the clock is at least there. */
  observe(serverTime: number, localSentAt: number) {
    if (serverTime > this.clock.serverNow) this.clock = { serverNow: serverTime, localAt: localSentAt }
  }

  /** Every internal account's balance, derived from what the model holds. */
  balances(): Map<string, number> {
    const out = new Map<string, number>(this.accounts.map((a) => [a.id, this.funded.get(a.id) ?? 0]))
    const add = (id: string, amount: number) => out.set(id, (out.get(id) ?? 0) + amount)
    for (const p of this.payments) {
      if (p.source !== null && p.funds !== "REFUNDED" && p.funds !== "RETURNED") add(p.source, -p.debit)
      if (p.creditAccount !== null && p.funds === "SETTLED") add(p.creditAccount, p.credit)
    }
    for (const i of this.incoming) if (i.status === "COMPLETED") add(i.account, i.amount)
    return out
  }
  balanceOf(id: string): number {
    return this.balances().get(id) ?? 0
  }
  currencyOf(id: string): ModelCurrency {
    const a = this.accounts.find((x) => x.id === id)
    if (a === undefined) throw new Error(`not a model account: ${id}`)
    return a.currency
  }

  /** Applies every step due at `now` (moves due at one instant apply in order). */
  applyDue(now: number) {
    for (const p of this.payments) {
      while (p.applied < p.steps.length && p.steps[p.applied]!.at <= now) {
        applyMove(p, p.steps[p.applied]!.move)
        p.applied++
      }
    }
    for (const i of this.incoming) if (i.status === "PENDING" && i.completesAt !== undefined && i.completesAt <= now) i.status = "COMPLETED"
  }
}

/** The payment machine, as simply as SPEC.md tells it. */
const applyMove = (p: ModelPayment, move: Move) => {
  const live = p.status === "PROCESSING"
  switch (move.type) {
    case "COMPLETE":
      if (!live) return
      p.status = "COMPLETED"
      p.funds = "SETTLED"
      return
    case "FAIL":
      if (!live) return
      p.status = "FAILED"
      p.failureReason = move.reason
      p.refund = { status: "PENDING", reason: "TRANSACTION_FAILED" }
      return
    case "REFUND_COMPLETE":
      if (p.refund?.status !== "PENDING") return
      p.refund.status = "COMPLETED"
      p.funds = "REFUNDED"
      return
    case "REFUND_FAIL":
      if (p.refund?.status !== "PENDING") return
      p.refund.status = "FAILED"
      p.funds = "PARKED"
      return
    case "RETURN":
      if (p.status !== "COMPLETED") return
      p.status = "FAILED"
      p.failureReason = "PAYOUT_RETURNED"
      p.refund = { status: "COMPLETED", reason: "TRANSACTION_FAILED" }
      p.funds = "RETURNED"
      return
    case "CANCEL":
      if (!live) return
      p.status = "FAILED"
      p.failureReason = "QUOTE_EXECUTION_FAILED"
      p.refund = { status: "COMPLETED", reason: "USER_CANCELLATION" }
      p.funds = "REFUNDED"
      return
  }
}

// ---------------------------------------------------------------- the sandbox tables, as the model knows them

const complete = (afterMillis = 0) => ({ afterMillis, move: { type: "COMPLETE" } as const })
const fail = (afterMillis: number, reason: string) => ({ afterMillis, move: { type: "FAIL", reason } as const })
const refunded = (afterMillis: number) => ({ afterMillis, move: { type: "REFUND_COMPLETE" } as const })

/** Quote execution to an external account, by the account number's last 3 digits. */
const quoteExecutionSteps = (suffix: Suffix) => {
  switch (suffix) {
    case "002":
      return [fail(0, "QUOTE_EXECUTION_FAILED"), refunded(0)]
    case "003":
      return [complete(360 * SECOND)]
    case "004":
      return [fail(5 * SECOND, "QUOTE_EXECUTION_FAILED"), refunded(5 * SECOND)]
    case "005":
      return [complete(0), { afterMillis: 60 * SECOND, move: { type: "RETURN" } as const }]
    case "006":
      return [{ afterMillis: 5 * SECOND, move: { type: "CANCEL" } as const }]
    case "007":
      return [fail(5 * SECOND, "QUOTE_EXECUTION_FAILED"), { afterMillis: 5 * SECOND, move: { type: "REFUND_FAIL" } as const }]
    default:
      return [complete(0)]
  }
}

/** An external account as pull source or payout destination. */
const pullOrPayoutSteps = (suffix: Suffix) => {
  switch (suffix) {
    case "002":
      return [fail(0, "QUOTE_EXECUTION_FAILED"), refunded(0)]
    case "003":
      return [fail(0, "ACCOUNT_INVALID"), refunded(0)]
    case "004":
      return [fail(0, "ACCOUNT_CANNOT_RECEIVE"), refunded(0)]
    case "005":
      return [fail(30 * SECOND, "QUOTE_EXECUTION_FAILED"), refunded(30 * SECOND)]
    default:
      return [complete(0)]
  }
}

const umaCounterpartySteps = (name: UmaCounterparty) =>
  name === "pending.long.usd"
    ? [complete(DAY)]
    : name === "fail.compliance.usd"
    ? [fail(5 * SECOND, "COMPLIANCE_REJECTED"), refunded(5 * SECOND)]
    : [complete(0)]

const umaCounterpartyCurrency = (name: UmaCounterparty): ModelCurrency =>
  name === "success.eur" ? "EUR" : name === "success.mxn" ? "MXN" : "USD"

/** Sandbox ACH settles at 00:00 UTC of the next business day (Monday to Friday). */
const nextBusinessDayStart = (ms: number): number => {
  let day = Math.floor(ms / DAY) * DAY + DAY
  while ([0, 6].includes(new Date(day).getUTCDay())) day += DAY
  return day
}

// ---------------------------------------------------------------- helpers

const obj = (v: unknown): Record<string, unknown> => (typeof v === "object" && v !== null ? v as Record<string, unknown> : {})
const show = (r: { status: number; body: unknown }) => `${r.status} ${JSON.stringify(r.body).slice(0, 600)}`
const fail400 = (r: { status: number; body: unknown }, code: string) => r.status === 400 && obj(r.body)["code"] === code
const is409 = (r: { status: number; body: unknown }, code: string) => r.status === 409 && obj(r.body)["code"] === code

const expect = (ok: boolean, message: () => string) => {
  if (!ok) throw new Error(message())
}

/** JSON with sorted keys: two answers with the same content compare equal. */
const canonical = (v: unknown): string => {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`
  if (typeof v === "object" && v !== null) {
    return `{${Object.entries(v).filter(([, x]) => x !== undefined).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, x]) => `${JSON.stringify(k)}:${canonical(x)}`).join(",")}}`
  }
  return JSON.stringify(v) ?? "null"
}

/** Three-valued: is instant `at` reached on the platform's clock now? */
const reached = (m: MoneyModel, at: number): "yes" | "no" | "maybe" => (at <= m.lower() ? "yes" : at > m.upper() ? "no" : "maybe")

// ---------------------------------------------------------------- the world

/** Builds the world the commands run in, through the API: reset, fee config, customers, accounts. */
export const setupMoneyWorld = async (
  api: MoneyApiClient,
  options: {
    /** POST /sandbox/reset first (erases the platform's sandbox data). Default true. */
    readonly reset?: boolean
    /** A cross-currency platform fee for USD sources, so fees show in the books. Default true. */
    readonly fees?: boolean
    /** The platform's sandbox UMA domain. Default the reference file's. */
    readonly umaDomain?: string
  } = {}
): Promise<{ readonly world: MoneyWorld; readonly model: MoneyModel }> => {
  const must = async (method: string, path: string, body?: unknown) => {
    const r = await api.call(method, path, body)
    if (r.status >= 300) throw new Error(`setup: ${method} ${path} answered ${show(r)}`)
    return obj(r.body)
  }
  if (options.reset !== false) await must("POST", "/sandbox/reset")
  if (options.fees !== false) {
    await must("PATCH", "/config", {
      feeConfigs: [{ feeType: "CROSS_CURRENCY_TRANSACTION", sourceCurrency: "USD", variableFeeBps: 50, fixedFee: { amount: 10, currency: "USD" } }]
    })
  }
  const run = Math.random().toString(36).slice(2, 10)
  const customer = async (owner: Owner) => {
    const c = await must("POST", "/customers", {
      customerType: "INDIVIDUAL",
      platformCustomerId: `money-model-${run}-${owner}`,
      fullName: `Money Model ${owner}`,
      birthDate: "1990-04-12",
      nationality: "US",
      idType: "PASSPORT",
      identifier: "X1234567",
      address: { line1: "1 Main St", city: "Springfield", postalCode: "12345", country: "US" },
      agreementConsents: [{ type: "SERVICE_END_USER_TERMS", acceptedAt: "2025-01-01T00:00:00Z", ipAddress: "203.0.113.7", termsVersion: "V1", acceptanceMethod: "CHECKBOX" }]
    })
    if (c["kycStatus"] !== "APPROVED") {
      throw new Error(`setup: customer ${owner} is ${String(c["kycStatus"])}; the money model needs a sandbox platform whose customers are approved at creation (regulated)`)
    }
    return { id: String(c["id"]), umaAddress: String(c["umaAddress"]) }
  }
  const customers = { A: await customer("A"), B: await customer("B") }
  const internalOf = async (owner: Owner) => {
    const list = await must("GET", `/customers/internal-accounts?customerId=${encodeURIComponent(customers[owner].id)}&limit=100`)
    const data = (list["data"] as Array<Record<string, unknown>> | undefined) ?? []
    const byCurrency = (c: string) => {
      const a = data.find((x) => obj(obj(x["balance"])["currency"])["code"] === c)
      if (a === undefined) throw new Error(`setup: customer ${owner} has no ${c} internal account`)
      return String(a["id"])
    }
    return { USD: byCurrency("USD"), EUR: byCurrency("EUR"), MXN: byCurrency("MXN") }
  }
  const internal = { A: await internalOf("A"), B: await internalOf("B") }
  const external = {} as Record<Suffix, string>
  for (const suffix of EXTERNAL_SUFFIXES) {
    const a = await must("POST", "/customers/external-accounts", {
      customerId: customers.A.id,
      currency: "USD",
      accountInfo: {
        accountType: "USD_ACCOUNT",
        accountNumber: `8800${run.replace(/\D/g, "").slice(0, 3).padEnd(3, "1")}${suffix}`,
        routingNumber: "021000021",
        bankAccountType: "CHECKING",
        beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Money Model A" }
      }
    })
    if (a["status"] !== "ACTIVE") throw new Error(`setup: external account ...${suffix} is ${String(a["status"])}`)
    external[suffix] = String(a["id"])
  }
  const platform = await must("GET", "/platform/internal-accounts")
  const platformAccounts = ((platform["data"] as Array<Record<string, unknown>> | undefined) ?? []).map((a) => String(a["id"]))
  const sentAt = Date.now()
  const clock = await must("GET", "/sandbox/clock")
  const world: MoneyWorld = { customers, internal, platformAccounts, external, umaDomain: options.umaDomain ?? "sandbox.grid.uma.money" }
  return { world, model: new MoneyModel(world, Date.parse(String(clock["now"])), sentAt) }
}

// ---------------------------------------------------------------- the real side

/** What the commands run against: the client and, when the ledger can be read, the auditor's view. */
export interface MoneyReal {
  readonly api: MoneyApiClient
  readonly audit?: LedgerAuditView | undefined
}

export type MoneyCommand = fc.AsyncCommand<MoneyModel, MoneyReal>

// ---------------------------------------------------------------- the checks after every step

const listAll = async (api: MoneyApiClient, path: string): Promise<Array<Record<string, unknown>>> => {
  const out: Array<Record<string, unknown>> = []
  let cursor: string | undefined
  for (;;) {
    const sep = path.includes("?") ? "&" : "?"
    const r = await api.call("GET", `${path}${sep}limit=100${cursor === undefined ? "" : `&cursor=${encodeURIComponent(cursor)}`}`)
    expect(r.status === 200, () => `GET ${path}: ${show(r)}`)
    const body = obj(r.body)
    out.push(...((body["data"] as Array<Record<string, unknown>> | undefined) ?? []))
    if (body["hasMore"] !== true) return out
    cursor = String(body["nextCursor"])
  }
}

/** The API's balances of every internal account (customers' and the platform's). */
const apiBalances = async (api: MoneyApiClient): Promise<Map<string, number>> => {
  const customers = await listAll(api, "/customers/internal-accounts")
  const platform = await api.call("GET", "/platform/internal-accounts")
  expect(platform.status === 200, () => `GET /platform/internal-accounts: ${show(platform)}`)
  const all = [...customers, ...((obj(platform.body)["data"] as Array<Record<string, unknown>> | undefined) ?? [])]
  return new Map(all.map((a) => [String(a["id"]), Number(obj(a["balance"])["amount"])]))
}

/** The model and the API agree: every balance, every transaction's status. */
export const compareWithApi = async (m: MoneyModel, api: MoneyApiClient): Promise<Map<string, number>> => {
  const seen = await apiBalances(api)
  const expected = m.balances()
  for (const [id, balance] of expected) {
    expect(seen.get(id) === balance, () => `balance of ${id}: the API says ${seen.get(id)}, the model ${balance}`)
  }
  for (const id of m.world.platformAccounts) expect((seen.get(id) ?? 0) === 0, () => `platform account ${id} holds ${seen.get(id)}; the model moved nothing there`)
  const txs = new Map((await listAll(api, "/transactions?sortOrder=asc")).map((t) => [String(t["id"]), t]))
  const known = new Set([...m.payments.map((p) => p.id), ...m.incoming.map((i) => i.id)])
  for (const id of txs.keys()) expect(known.has(id), () => `the API lists transaction ${id}, which the model never made`)
  for (const p of m.payments) {
    const t = txs.get(p.id)
    expect(t !== undefined, () => `payment ${p.id} (${p.label}) is missing from GET /transactions`)
    const refund = obj(t!["refund"])
    const got = { status: t!["status"], failureReason: t!["failureReason"], refund: t!["refund"] === undefined ? undefined : { status: refund["status"], reason: refund["reason"] } }
    const shownRefund = p.pull && p.status === "FAILED" ? undefined : p.refund
    const want = { status: p.status, failureReason: p.failureReason, refund: shownRefund === undefined ? undefined : { ...shownRefund } }
    expect(canonical(got) === canonical(want), () => `payment ${p.id} (${p.label}): the API says ${canonical(got)}, the model ${canonical(want)}`)
  }
  for (const i of m.incoming) {
    const t = txs.get(i.id)
    expect(t?.["status"] === i.status, () => `incoming ${i.id}: the API says ${String(t?.["status"])}, the model ${i.status}`)
  }
  return seen
}

/** Every quote reads as the model has it: PENDING until it expires (then EXPIRED), else its payment's status. */
export const compareQuotes = async (m: MoneyModel, api: MoneyApiClient): Promise<void> => {
  for (const q of m.quotes) {
    const r = await api.call("GET", `/quotes/${encodeURIComponent(q.id)}`)
    expect(r.status === 200, () => `GET /quotes/${q.id}: ${show(r)}`)
    const status = obj(r.body)["status"]
    const p = q.executed ? m.payments.find((x) => x.id === q.transactionId) : undefined
    if (p !== undefined) {
      expect(status === p.status, () => `quote ${q.id} (${q.label}) reads ${String(status)}; its payment is ${p.status}`)
      continue
    }
    const expired = reached(m, q.expiresAt)
    const allowed = expired === "yes" ? ["EXPIRED"] : expired === "no" ? ["PENDING"] : ["PENDING", "EXPIRED"]
    expect(allowed.includes(String(status)), () => `quote ${q.id} (${q.label}), never executed, reads ${String(status)}; expected ${allowed.join(" or ")}`)
  }
}

/** Every problem the auditor finds in the books (empty when they are right). */
export const auditLedger = async (
  view: LedgerAuditView,
  options: { readonly apiBalances?: ReadonlyMap<string, number>; readonly model?: MoneyModel } = {}
): Promise<Array<string>> => {
  const problems: Array<string> = []
  const [entries, balances, payments] = await Promise.all([view.entries(), view.balances(), view.payments()])
  // 1. Every entry sums to zero per currency.
  const sums = new Map<string, number>()
  for (const e of entries) {
    const perCurrency = new Map<string, number>()
    for (const p of e.postings) {
      if (!Number.isSafeInteger(p.amount)) problems.push(`entry ${e.id} (${e.kind}) posts a non-integer amount ${p.amount}`)
      perCurrency.set(p.currency, (perCurrency.get(p.currency) ?? 0) + p.amount)
      const key = `${p.account}|${p.currency}`
      sums.set(key, (sums.get(key) ?? 0) + p.amount)
    }
    for (const [c, s] of perCurrency) if (s !== 0) problems.push(`entry ${e.id} (${e.kind}) sums to ${s} ${c}`)
  }
  // 2. No internal account is negative; 3. each balance is the sum of its postings.
  const ledger = new Map<string, number>()
  for (const b of balances) {
    const key = `${b.account}|${b.currency}`
    ledger.set(b.account, (ledger.get(b.account) ?? 0) + b.balance)
    if (b.account.startsWith("InternalAccount:") && b.balance < 0) problems.push(`internal account ${b.account} is negative: ${b.balance} ${b.currency}`)
    if ((sums.get(key) ?? 0) !== b.balance) problems.push(`${b.account} holds ${b.balance} ${b.currency}; its postings sum to ${sums.get(key) ?? 0}`)
  }
  for (const [key, s] of sums) {
    const [account, currency] = key.split("|") as [string, string]
    if (s !== 0 && !balances.some((b) => b.account === account && b.currency === currency)) problems.push(`${account} has postings summing to ${s} ${currency} but no balance`)
  }
  // Money is conserved: all balances of a currency sum to zero.
  const total = new Map<string, number>()
  for (const b of balances) total.set(b.currency, (total.get(b.currency) ?? 0) + b.balance)
  for (const [c, s] of total) if (s !== 0) problems.push(`the ${c} balances sum to ${s}: money was created or destroyed`)
  // 4. The API reports the ledger's balances.
  for (const [id, amount] of options.apiBalances ?? []) {
    if ((ledger.get(id) ?? 0) !== amount) problems.push(`the API reports ${amount} for ${id}; the ledger holds ${ledger.get(id) ?? 0}`)
  }
  // 5. Money in flight is exactly the debits of payments in flight; suspense holds the parked ones.
  const balanceOf = (account: string, currency: string) => balances.find((b) => b.account === account && b.currency === currency)?.balance ?? 0
  const currencies = new Set([...balances.map((b) => b.currency), ...payments.map((p) => p.debit.currency)])
  for (const c of currencies) {
    const inFlight = payments.filter((p) => p.money === "IN_FLIGHT" && p.debit.currency === c).reduce((s, p) => s + p.debit.amount, 0)
    if (balanceOf(inFlightAccount(c), c) !== inFlight) problems.push(`${inFlightAccount(c)} holds ${balanceOf(inFlightAccount(c), c)}; payments in flight debited ${inFlight}`)
    const parked = payments.filter((p) => p.money === "PARKED" && p.debit.currency === c).reduce((s, p) => s + p.debit.amount, 0)
    if (balanceOf(suspenseAccount(c), c) !== parked) problems.push(`${suspenseAccount(c)} holds ${balanceOf(suspenseAccount(c), c)}; parked payments debited ${parked}`)
  }
  // 6. Every debit has its settlement, its refund, a return after settlement, or its parking.
  const byTransaction = new Map<string, Array<LedgerEntryView>>()
  for (const e of entries) if (e.transactionId !== undefined) byTransaction.set(e.transactionId, [...(byTransaction.get(e.transactionId) ?? []), e])
  const known = new Map(payments.map((p) => [p.id, p]))
  const PAYMENT_KINDS = new Set(["DEBIT", "SETTLE", "REFUND", "PARK", "RETURN"])
  for (const [id, list] of byTransaction) {
    const p = known.get(id)
    if (p === undefined) {
      problems.push(`entries name transaction ${id}, which does not exist`)
      continue
    }
    const kinds = list.map((e) => e.kind)
    const count = (k: string) => kinds.filter((x) => x === k).length
    if (p.type !== "OUTGOING") {
      if (kinds.some((k) => PAYMENT_KINDS.has(k))) problems.push(`incoming transaction ${id} has payment entries ${kinds.join(",")}`)
      continue
    }
    const [debits, settles, refunds, parks, returns] = ["DEBIT", "SETTLE", "REFUND", "PARK", "RETURN"].map(count) as [number, number, number, number, number]
    const expected: Record<string, [number, number, number, number, number]> = {
      IN_FLIGHT: [1, 0, 0, 0, 0],
      SETTLED: [1, 1, 0, 0, 0],
      REFUNDED: [1, 0, 1, 0, 0],
      PARKED: [1, 0, 0, 1, 0],
      RETURNED: [1, 1, 0, 0, 1]
    }
    const want = expected[p.money]
    const got = [debits, settles, refunds, parks, returns]
    if (want === undefined || got.join() !== want.join()) {
      problems.push(`payment ${id} (money ${p.money}, ${p.status}) has entries ${kinds.join(",")}: a debit needs exactly one settlement, refund or parking`)
    }
    if (kinds.indexOf("RETURN") >= 0 && kinds.indexOf("RETURN") < kinds.indexOf("SETTLE")) problems.push(`payment ${id} was returned before it settled`)
    const debit = list.find((e) => e.kind === "DEBIT")
    if (debit !== undefined && !debit.postings.some((x) => x.account === p.debit.account && x.amount === -p.debit.amount)) {
      problems.push(`payment ${id}: its DEBIT does not take ${p.debit.amount} from ${p.debit.account}`)
    }
    for (const back of list.filter((e) => e.kind === "REFUND" || e.kind === "RETURN")) {
      if (!back.postings.some((x) => x.account === p.debit.account && x.amount === p.debit.amount)) problems.push(`payment ${id}: its ${back.kind} does not give ${p.debit.amount} back to ${p.debit.account}`)
    }
    const terminal = p.status === "COMPLETED" || p.status === "FAILED" || p.status === "EXPIRED"
    if (terminal && p.money === "IN_FLIGHT" && p.status !== "COMPLETED") problems.push(`payment ${id} ended ${p.status} with its money still in flight`)
  }
  for (const p of payments) {
    if (p.type === "OUTGOING" && p.money !== "NONE" && !byTransaction.has(p.id)) problems.push(`payment ${p.id} (money ${p.money}) has no entries`)
  }
  for (const e of entries) if (PAYMENT_KINDS.has(e.kind) && e.transactionId === undefined) problems.push(`entry ${e.id} (${e.kind}) names no transaction`)
  // 7. The ledger agrees with the model.
  const m = options.model
  if (m !== undefined) {
    for (const [id, balance] of m.balances()) if ((ledger.get(id) ?? 0) !== balance) problems.push(`the ledger holds ${ledger.get(id) ?? 0} on ${id}; the model ${balance}`)
    for (const mp of m.payments) {
      const p = known.get(mp.id)
      if (p === undefined) problems.push(`the model's payment ${mp.id} (${mp.label}) is not in the store`)
      else if (p.money !== mp.funds) problems.push(`payment ${mp.id} (${mp.label}): money ${p.money} in the store, ${mp.funds} in the model`)
    }
  }
  return problems
}

/** Runs after every command: the model against the API, then the auditor when it has a view. */
export const checkMoney = async (m: MoneyModel, real: MoneyReal): Promise<void> => {
  const seen = await compareWithApi(m, real.api)
  if (real.audit !== undefined) {
    const problems = await auditLedger(real.audit, { apiBalances: seen, model: m })
    expect(problems.length === 0, () => `the auditor found:\n  ${problems.join("\n  ")}`)
  }
}

// ---------------------------------------------------------------- starting payments in the model

const transactionCreatedAt = async (m: MoneyModel, api: MoneyApiClient, id: string, sentAt: number): Promise<number> => {
  const r = await api.call("GET", `/transactions/${encodeURIComponent(id)}`)
  expect(r.status === 200, () => `GET /transactions/${id}: ${show(r)}`)
  const at = Date.parse(String(obj(r.body)["createdAt"]))
  expect(Number.isFinite(at), () => `transaction ${id} has no createdAt`)
  m.observe(at, sentAt)
  return at
}

/** The model's payment of an executed quote, started at `executedAt` (its createdAt). */
const startPayment = (m: MoneyModel, q: ModelQuote, executedAt: number) => {
  const settlement = q.achSettlement ? nextBusinessDayStart(executedAt) : executedAt
  // A rail that settles later holds the completion until then, and what follows it (a return) moves with it.
  const completion = q.steps.find((s) => s.move.type === "COMPLETE")
  const completeAt = completion === undefined ? undefined : executedAt + completion.afterMillis
  const delay = completeAt !== undefined && completeAt < settlement ? settlement - completeAt : 0
  const steps = q.steps.map((s) => {
    const at = executedAt + s.afterMillis
    return { at: completeAt !== undefined && at >= completeAt ? at + delay : at, move: s.move }
  })
  q.executed = true
  const p: ModelPayment = {
    id: q.transactionId,
    label: q.label,
    source: q.source.startsWith("InternalAccount:") ? q.source : null,
    pull: q.source.startsWith("ExternalAccount:"),
    debit: q.totalSendingAmount,
    sendingCurrency: q.sendingCurrency,
    creditAccount: q.creditAccount,
    credit: q.totalReceivingAmount,
    steps,
    applied: 0,
    status: "PROCESSING",
    funds: "IN_FLIGHT"
  }
  m.payments.push(p)
  m.applyDue(executedAt)
}

// ---------------------------------------------------------------- commands

/** POST /sandbox/internal-accounts/{id}/fund. */
export class Fund implements MoneyCommand {
  constructor(readonly pick: number, readonly amount: number) {}
  check = () => true
  async run(m: MoneyModel, real: MoneyReal) {
    const account = m.accounts[this.pick % m.accounts.length]!
    const r = await real.api.call("POST", `/sandbox/internal-accounts/${encodeURIComponent(account.id)}/fund`, { amount: this.amount })
    expect(r.status === 200, () => `fund ${account.id}: ${show(r)}`)
    m.funded.set(account.id, (m.funded.get(account.id) ?? 0) + this.amount)
    expect(Number(obj(obj(r.body)["balance"])["amount"]) === m.balanceOf(account.id), () => `fund answered balance ${show(r)}; the model ${m.balanceOf(account.id)}`)
    await checkMoney(m, real)
  }
  toString = () => `fund(#${this.pick}, ${this.amount})`
}

export type QuoteDestination =
  | { readonly kind: "EXTERNAL"; readonly suffix: Suffix; readonly rail?: "RTP" | undefined }
  | { readonly kind: "INTERNAL"; readonly pick: number }
  | { readonly kind: "UMA_SANDBOX"; readonly name: UmaCounterparty }
  | { readonly kind: "UMA_CUSTOMER"; readonly owner: Owner; readonly currency: ModelCurrency }

/** POST /quotes (optionally `immediatelyExecute`). */
export class CreateQuote implements MoneyCommand {
  constructor(
    readonly sourcePick: number,
    readonly destination: QuoteDestination,
    readonly side: "SENDING" | "RECEIVING",
    readonly amount: number,
    readonly immediatelyExecute: boolean
  ) {}
  check = () => true
  async run(m: MoneyModel, real: MoneyReal) {
    const source = m.accounts[this.sourcePick % m.accounts.length]!
    const d = this.destination
    let destination: Record<string, unknown>
    let receiving: ModelCurrency
    let creditAccount: string | null = null
    let steps: ReadonlyArray<{ afterMillis: number; move: Move }> = [complete(0)]
    let ach = false
    let label: string
    switch (d.kind) {
      case "EXTERNAL":
        destination = { destinationType: "ACCOUNT", accountId: m.world.external[d.suffix], ...(d.rail === undefined ? {} : { paymentRail: d.rail }) }
        receiving = "USD"
        steps = quoteExecutionSteps(d.suffix)
        ach = d.rail === undefined
        label = `quote to external ...${d.suffix}${d.rail === undefined ? " (ACH)" : ` (${d.rail})`}`
        break
      case "INTERNAL": {
        const others = m.accounts.filter((a) => a.id !== source.id)
        const target = others[d.pick % others.length]!
        destination = { destinationType: "ACCOUNT", accountId: target.id }
        receiving = target.currency
        creditAccount = target.id
        label = `quote to internal ${target.owner}.${target.currency}`
        break
      }
      case "UMA_SANDBOX":
        destination = { destinationType: "UMA_ADDRESS", umaAddress: `$${d.name}@${m.world.umaDomain}` }
        receiving = umaCounterpartyCurrency(d.name)
        steps = umaCounterpartySteps(d.name)
        label = `quote to $${d.name}`
        break
      case "UMA_CUSTOMER":
        destination = { destinationType: "UMA_ADDRESS", umaAddress: m.world.customers[d.owner].umaAddress, currency: d.currency }
        receiving = d.currency
        creditAccount = m.world.internal[d.owner][d.currency]
        label = `quote to ${d.owner}'s UMA address in ${d.currency}`
        break
    }
    label = `${label} from ${source.owner}.${source.currency} (${this.side} ${this.amount})`
    const request = {
      source: { sourceType: "ACCOUNT", accountId: source.id },
      destination,
      lockedCurrencySide: this.side,
      lockedCurrencyAmount: this.amount,
      ...(this.immediatelyExecute ? { immediatelyExecute: true } : {})
    }
    const balance = m.balanceOf(source.id)
    const sentAt = Date.now()
    const r = await real.api.call("POST", "/quotes", request)
    if (creditAccount === source.id) {
      expect(fail400(r, "SELF_PAYMENT"), () => `${label}: paying the source account itself must be 400 SELF_PAYMENT, got ${show(r)}`)
      return await checkMoney(m, real)
    }
    if (fail400(r, "INSUFFICIENT_FUNDS")) {
      const required = Number(obj(obj(r.body)["details"])["required"])
      expect(balance < required && (this.side === "RECEIVING" || required === this.amount), () => `${label}: INSUFFICIENT_FUNDS with ${balance} in the model: ${show(r)}`)
      return await checkMoney(m, real)
    }
    expect(r.status === 201, () => `${label}: expected 201, got ${show(r)}`)
    const body = obj(r.body)
    const total = Number(body["totalSendingAmount"])
    const received = Number(body["totalReceivingAmount"])
    const locked = this.side === "SENDING" ? total : received
    expect(locked === this.amount, () => `${label}: the locked ${this.side} amount is ${locked}, asked ${this.amount}`)
    expect(total <= balance, () => `${label}: a quote of ${total} was given on a balance of ${balance}`)
    expect(obj(body["sendingCurrency"])["code"] === source.currency && obj(body["receivingCurrency"])["code"] === receiving, () => `${label}: currencies ${show(r)}`)
    expect(Number.isSafeInteger(received) && received > 0 && Number.isSafeInteger(total), () => `${label}: amounts ${show(r)}`)
    if (source.currency === receiving) expect(total === received + Number(body["feesIncluded"]), () => `${label}: same currency, yet sent ${total} ≠ received ${received} + fees`)
    const createdAt = Date.parse(String(body["createdAt"]))
    m.observe(createdAt, sentAt)
    const q: ModelQuote = {
      id: String(body["id"]),
      transactionId: String(body["transactionId"]),
      label,
      source: source.id,
      sendingCurrency: source.currency,
      totalSendingAmount: total,
      totalReceivingAmount: received,
      expiresAt: Date.parse(String(body["expiresAt"])),
      creditAccount,
      steps,
      achSettlement: ach,
      executed: false
    }
    m.quotes.push(q)
    if (this.immediatelyExecute) {
      expect(["PROCESSING", "COMPLETED", "FAILED"].includes(String(body["status"])), () => `${label}: immediately executed, status ${String(body["status"])}`)
      startPayment(m, q, await transactionCreatedAt(m, real.api, q.transactionId, sentAt))
    } else {
      expect(body["status"] === "PENDING", () => `${label}: a new quote is PENDING, got ${String(body["status"])}`)
    }
    await checkMoney(m, real)
  }
  toString = () => `quote(#${this.sourcePick} → ${JSON.stringify(this.destination)}, ${this.side} ${this.amount}${this.immediatelyExecute ? ", immediately" : ""})`
}

export type KeyChoice = { readonly kind: "NONE" } | { readonly kind: "FRESH" } | { readonly kind: "REUSE"; readonly pick: number }

/** Executes a quote with an optional key, checking the answer against the model. */
const execute = async (m: MoneyModel, real: MoneyReal, q: ModelQuote, key: string | undefined) => {
  const sentAt = Date.now()
  const r = await real.api.call("POST", `/quotes/${encodeURIComponent(q.id)}/execute`, undefined, key === undefined ? {} : { "idempotency-key": key })
  const label = `execute ${q.label}${key === undefined ? "" : ` with key ${key}`}`
  const stored = key === undefined ? undefined : m.keys.get(key)
  if (stored !== undefined) {
    const live = reached(m, stored.storedAt + IDEMPOTENCY_TTL)
    const replayed = stored.quoteId === q.id
      ? r.status === 200 && canonical(r.body) === canonical(stored.body)
      : is409(r, "CONFLICT") && obj(obj(r.body)["details"])["idempotencyKey"] === key
    if (replayed && live !== "yes") return
    expect(live !== "no", () => `${label}: the key is live, so the first answer (or 409 for another quote) was due; got ${show(r)}`)
    m.keys.delete(key!)
  }
  if (q.executed) {
    expect(is409(r, "CONFLICT"), () => `${label}: the quote was already executed; expected 409 CONFLICT, got ${show(r)}`)
    return
  }
  const expired = reached(m, q.expiresAt)
  if (fail400(r, "QUOTE_EXPIRED")) {
    expect(expired !== "no", () => `${label}: QUOTE_EXPIRED before ${new Date(q.expiresAt).toISOString()}: ${show(r)}`)
    return
  }
  expect(expired !== "yes", () => `${label}: the quote expired at ${new Date(q.expiresAt).toISOString()}; expected 400 QUOTE_EXPIRED, got ${show(r)}`)
  const balance = m.balanceOf(q.source)
  if (balance < q.totalSendingAmount) {
    expect(fail400(r, "INSUFFICIENT_FUNDS"), () => `${label}: ${balance} < ${q.totalSendingAmount}; expected 400 INSUFFICIENT_FUNDS, got ${show(r)}`)
    return
  }
  expect(r.status === 200 && obj(r.body)["id"] === q.id, () => `${label}: expected 200, got ${show(r)}`)
  const executedAt = await transactionCreatedAt(m, real.api, q.transactionId, sentAt)
  startPayment(m, q, executedAt)
  if (key !== undefined) m.keys.set(key, { quoteId: q.id, body: r.body, storedAt: executedAt })
}

/** POST /quotes/{id}/execute: without a key, with a fresh one, or reusing an earlier one. */
export class ExecuteQuote implements MoneyCommand {
  constructor(readonly pick: number, readonly key: KeyChoice) {}
  check = (m: Readonly<MoneyModel>) => m.quotes.length > 0
  async run(m: MoneyModel, real: MoneyReal) {
    const q = m.quotes[this.pick % m.quotes.length]!
    let key: string | undefined
    if (this.key.kind === "FRESH") key = `model-key-${m.keyCounter++}-${Math.random().toString(36).slice(2, 8)}`
    else if (this.key.kind === "REUSE") {
      const used = [...m.keys.keys()]
      key = used.length === 0 ? undefined : used[this.key.pick % used.length]
    }
    await execute(m, real, q, key)
    if (key !== undefined) m.lastKey = key
    await checkMoney(m, real)
    await compareQuotes(m, real.api)
  }
  toString = () => `execute(#${this.pick}, ${this.key.kind === "REUSE" ? `reuse #${this.key.pick}` : this.key.kind.toLowerCase()})`
}

/** The same execute again, with the same key (a client retrying after a lost answer). */
export class RetryExecute implements MoneyCommand {
  check = (m: Readonly<MoneyModel>) => m.lastKey !== undefined && m.keys.has(m.lastKey)
  async run(m: MoneyModel, real: MoneyReal) {
    const key = m.lastKey!
    const stored = m.keys.get(key)!
    const q = m.quotes.find((x) => x.id === stored.quoteId)!
    await execute(m, real, q, key)
    await checkMoney(m, real)
  }
  toString = () => "retryExecute"
}

/**
 * The same quote executed by several requests at once, all without a key or all with one
 * shared key: one payment and one debit at most. Without a key one request wins and the
 * others get 409 CONFLICT; with one key every request gets the winner's answer.
 */
export class RaceExecute implements MoneyCommand {
  constructor(readonly pick: number, readonly racers: number, readonly sharedKey: boolean) {}
  check = (m: Readonly<MoneyModel>) => m.quotes.some((q) => !q.executed)
  async run(m: MoneyModel, real: MoneyReal) {
    const open = m.quotes.filter((q) => !q.executed)
    const q = open[this.pick % open.length]!
    const key = this.sharedKey ? `model-race-${m.keyCounter++}-${Math.random().toString(36).slice(2, 8)}` : undefined
    const sentAt = Date.now()
    const replies = await Promise.all(Array.from({ length: this.racers }, () =>
      real.api.call("POST", `/quotes/${encodeURIComponent(q.id)}/execute`, undefined, key === undefined ? {} : { "idempotency-key": key })))
    const label = `race of ${this.racers} executes of ${q.label}${key === undefined ? "" : " with one key"}`
    const winners = replies.filter((r) => r.status === 200)
    if (winners.length === 0) {
      // Nobody could execute it: every answer is the same refusal the model expects.
      const expired = reached(m, q.expiresAt)
      const balance = m.balanceOf(q.source)
      for (const r of replies) {
        const ok = (fail400(r, "QUOTE_EXPIRED") && expired !== "no") || (fail400(r, "INSUFFICIENT_FUNDS") && balance < q.totalSendingAmount && expired !== "yes")
        expect(ok, () => `${label}: nobody won, and ${show(r)} is not a refusal the model expects`)
      }
      return await checkMoney(m, real)
    }
    expect(m.balanceOf(q.source) >= q.totalSendingAmount && reached(m, q.expiresAt) !== "yes", () => `${label}: a request won, yet the model refuses it: ${show(winners[0]!)}`)
    if (key === undefined) {
      expect(winners.length === 1, () => `${label}: ${winners.length} requests executed the quote`)
      for (const r of replies) if (r.status !== 200) expect(is409(r, "CONFLICT"), () => `${label}: a loser answered ${show(r)}`)
    } else {
      for (const r of replies) expect(r.status === 200 && canonical(r.body) === canonical(winners[0]!.body), () => `${label}: ${show(r)} differs from the winner's ${show(winners[0]!)}`)
    }
    const executedAt = await transactionCreatedAt(m, real.api, q.transactionId, sentAt)
    startPayment(m, q, executedAt)
    if (key !== undefined) {
      m.keys.set(key, { quoteId: q.id, body: winners[0]!.body, storedAt: executedAt })
      m.lastKey = key
    }
    await checkMoney(m, real)
  }
  toString = () => `raceExecute(#${this.pick}, ${this.racers}${this.sharedKey ? ", one key" : ""})`
}

/** POST /sandbox/clock/advance: applies every scheduled move that falls due. */
export class AdvanceClock implements MoneyCommand {
  constructor(readonly seconds: number) {}
  check = () => true
  async run(m: MoneyModel, real: MoneyReal) {
    const sentAt = Date.now()
    const r = await real.api.call("POST", "/sandbox/clock/advance", { seconds: this.seconds })
    expect(r.status === 200, () => `advance ${this.seconds}s: ${show(r)}`)
    const now = Date.parse(String(obj(r.body)["now"]))
    expect(now >= m.lower() + this.seconds * SECOND, () => `advance ${this.seconds}s: the clock reads ${String(obj(r.body)["now"])}, before ${new Date(m.lower()).toISOString()} + ${this.seconds}s`)
    m.clock = { serverNow: now, localAt: sentAt }
    m.applyDue(now)
    await checkMoney(m, real)
    await compareQuotes(m, real.api)
  }
  toString = () => `advance(${this.seconds}s)`
}

/** POST /transfer-in: pull from one of A's external accounts into A's USD internal account. */
export class TransferIn implements MoneyCommand {
  constructor(readonly suffix: Suffix, readonly amount: number) {}
  check = () => true
  async run(m: MoneyModel, real: MoneyReal) {
    const destination = m.world.internal.A.USD
    const sentAt = Date.now()
    const r = await real.api.call("POST", "/transfer-in", { source: { accountId: m.world.external[this.suffix] }, destination: { accountId: destination }, amount: this.amount })
    expect(r.status === 201, () => `transfer-in from ...${this.suffix}: ${show(r)}`)
    const t = obj(r.body)
    const createdAt = Date.parse(String(t["createdAt"]))
    m.observe(createdAt, sentAt)
    const q: ModelQuote = {
      id: String(t["quoteId"]),
      transactionId: String(t["id"]),
      label: `transfer-in from ...${this.suffix} (${this.amount})`,
      source: m.world.external[this.suffix],
      sendingCurrency: "USD",
      totalSendingAmount: this.amount,
      totalReceivingAmount: this.amount,
      expiresAt: createdAt + DAY,
      creditAccount: destination,
      steps: pullOrPayoutSteps(this.suffix),
      achSettlement: false,
      executed: false
    }
    startPayment(m, q, createdAt)
    await checkMoney(m, real)
  }
  toString = () => `transferIn(...${this.suffix}, ${this.amount})`
}

/** POST /transfer-out: pay out from a USD internal account to one of A's external accounts. */
export class TransferOut implements MoneyCommand {
  constructor(readonly from: Owner, readonly suffix: Suffix, readonly amount: number, readonly rail: "RTP" | undefined) {}
  check = () => true
  async run(m: MoneyModel, real: MoneyReal) {
    const source = m.world.internal[this.from].USD
    const balance = m.balanceOf(source)
    const sentAt = Date.now()
    const r = await real.api.call("POST", "/transfer-out", {
      source: { accountId: source },
      destination: { accountId: m.world.external[this.suffix], ...(this.rail === undefined ? {} : { paymentRail: this.rail }) },
      amount: this.amount
    })
    const label = `transfer-out ${this.from}.USD → ...${this.suffix} (${this.amount}${this.rail === undefined ? ", ACH" : `, ${this.rail}`})`
    if (balance < this.amount) {
      expect(fail400(r, "INSUFFICIENT_FUNDS"), () => `${label}: ${balance} < ${this.amount}; expected 400 INSUFFICIENT_FUNDS, got ${show(r)}`)
      return await checkMoney(m, real)
    }
    expect(r.status === 201, () => `${label}: ${show(r)}`)
    const t = obj(r.body)
    const createdAt = Date.parse(String(t["createdAt"]))
    m.observe(createdAt, sentAt)
    const q: ModelQuote = {
      id: String(t["quoteId"]),
      transactionId: String(t["id"]),
      label,
      source,
      sendingCurrency: "USD",
      totalSendingAmount: this.amount,
      totalReceivingAmount: this.amount,
      expiresAt: createdAt + DAY,
      creditAccount: null,
      steps: pullOrPayoutSteps(this.suffix),
      achSettlement: this.rail === undefined,
      executed: false
    }
    startPayment(m, q, createdAt)
    await checkMoney(m, real)
  }
  toString = () => `transferOut(${this.from}, ...${this.suffix}, ${this.amount}${this.rail === undefined ? "" : `, ${this.rail}`})`
}

export type UmaSender = "ANYONE" | "pending.long.usd" | "fail.compliance.usd"

/** POST /sandbox/uma/receive: an incoming UMA payment to a customer, by address or by id. */
export class ReceiveUma implements MoneyCommand {
  constructor(readonly sender: UmaSender, readonly to: Owner, readonly currency: ModelCurrency, readonly amount: number, readonly byAddress: boolean) {}
  check = () => true
  async run(m: MoneyModel, real: MoneyReal) {
    const receiver = m.world.customers[this.to]
    const sentAt = Date.now()
    const r = await real.api.call("POST", "/sandbox/uma/receive", {
      senderUmaAddress: this.sender === "ANYONE" ? "$alice@wallet.example.com" : `$${this.sender}@${m.world.umaDomain}`,
      ...(this.byAddress ? { receiverUmaAddress: receiver.umaAddress } : { customerId: receiver.id }),
      receivingCurrencyCode: this.currency,
      receivingCurrencyAmount: this.amount
    })
    expect(r.status === 200, () => `UMA receive: ${show(r)}`)
    const t = obj(r.body)
    const createdAt = Date.parse(String(t["createdAt"]))
    m.observe(createdAt, sentAt)
    const status = this.sender === "ANYONE" ? "COMPLETED" : this.sender === "pending.long.usd" ? "PENDING" : "FAILED"
    expect(t["status"] === status, () => `UMA receive from ${this.sender}: expected ${status}, got ${show(r)}`)
    m.incoming.push({
      id: String(t["id"]),
      account: m.world.internal[this.to][this.currency],
      amount: this.amount,
      status,
      ...(status === "PENDING" ? { completesAt: createdAt + UMA_LONG_PENDING } : {})
    })
    await checkMoney(m, real)
  }
  toString = () => `receiveUma(${this.sender} → ${this.to} ${this.amount} ${this.currency}${this.byAddress ? "" : ", by id"})`
}

/** POST /transactions/{id}/cancel: refunded at once while in flight, 409 once settled or ended. */
export class CancelPayment implements MoneyCommand {
  constructor(readonly pick: number) {}
  check = (m: Readonly<MoneyModel>) => m.payments.length > 0
  async run(m: MoneyModel, real: MoneyReal) {
    const p = m.payments[this.pick % m.payments.length]!
    const r = await real.api.call("POST", `/transactions/${encodeURIComponent(p.id)}/cancel`, {})
    if (p.status === "PROCESSING") {
      expect(r.status === 200 && obj(r.body)["status"] === "FAILED", () => `cancel ${p.label} while PROCESSING: ${show(r)}`)
      applyMove(p, { type: "CANCEL" })
      p.applied = p.steps.length
    } else {
      expect(is409(r, "TRANSACTION_NOT_CANCELLABLE"), () => `cancel ${p.label} (${p.status}): expected 409 TRANSACTION_NOT_CANCELLABLE, got ${show(r)}`)
    }
    await checkMoney(m, real)
  }
  toString = () => `cancel(#${this.pick})`
}

// ---------------------------------------------------------------- the command set

const amountArb = fc.integer({ min: 100, max: 60_000 })
const suffixArb = fc.constantFrom(...EXTERNAL_SUFFIXES)
const ownerArb = fc.constantFrom<Owner>("A", "B")
const currencyArb = fc.constantFrom(...MODEL_CURRENCIES)

const destinationArb: fc.Arbitrary<QuoteDestination> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("EXTERNAL" as const), suffix: suffixArb, rail: fc.constantFrom<"RTP" | undefined>("RTP", undefined) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("INTERNAL" as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("UMA_SANDBOX" as const), name: fc.constantFrom(...UMA_COUNTERPARTIES) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("UMA_CUSTOMER" as const), owner: ownerArb, currency: currencyArb }) }
)

const keyArb: fc.Arbitrary<KeyChoice> = fc.oneof(
  fc.constant({ kind: "NONE" as const }),
  fc.constant({ kind: "FRESH" as const }),
  fc.nat().map((pick) => ({ kind: "REUSE" as const, pick }))
)

/**
 * The commands, weighted towards money moving: fund, quote (SENDING / RECEIVING, any
 * destination, sometimes executed at once), execute (no key, fresh key, reused key),
 * retry, advance the clock (by amounts around each sandbox delay), transfer-in/out,
 * UMA receive, cancel. Source picks index `model.accounts` (A's USD, EUR, MXN, then B's).
 */
export const moneyCommands = (): Array<fc.Arbitrary<MoneyCommand>> => {
  const fund = fc.tuple(fc.nat(5), fc.integer({ min: 10_000, max: 300_000 })).map(([p, a]): MoneyCommand => new Fund(p, a))
  const quote = fc.tuple(
    fc.oneof({ weight: 3, arbitrary: fc.constantFrom(0, 3) }, { weight: 2, arbitrary: fc.nat(5) }),
    destinationArb,
    fc.constantFrom<"SENDING" | "RECEIVING">("SENDING", "RECEIVING"),
    amountArb,
    fc.boolean()
  ).map(([s, d, side, a, now]): MoneyCommand => new CreateQuote(s, d, side, a, now))
  const execute = fc.tuple(fc.nat(), keyArb).map(([p, k]): MoneyCommand => new ExecuteQuote(p, k))
  const retry = fc.constant<MoneyCommand>(new RetryExecute())
  const race = fc.tuple(fc.nat(), fc.integer({ min: 2, max: 4 }), fc.boolean()).map(([p, n, k]): MoneyCommand => new RaceExecute(p, n, k))
  // Around each sandbox delay: 5 s failures, 30 s pending payouts, 60 s returns, the 5 min
  // quote expiry, 6 min long payments, 24 h UMA and idempotency keys, ACH's next business day.
  const advance = fc.constantFrom(0, 5, 31, 61, 301, 361, 86_401, 3 * 86_400).map((s): MoneyCommand => new AdvanceClock(s))
  const transferIn = fc.tuple(suffixArb, amountArb).map(([s, a]): MoneyCommand => new TransferIn(s, a))
  const transferOut = fc.tuple(ownerArb, suffixArb, amountArb, fc.constantFrom<"RTP" | undefined>("RTP", undefined))
    .map(([o, s, a, r]): MoneyCommand => new TransferOut(o, s, a, r))
  const receive = fc.tuple(fc.constantFrom<UmaSender>("ANYONE", "ANYONE", "pending.long.usd", "fail.compliance.usd"), ownerArb, currencyArb, amountArb, fc.boolean())
    .map(([s, o, c, a, b]): MoneyCommand => new ReceiveUma(s, o, c, a, b))
  const cancel = fc.nat().map((p): MoneyCommand => new CancelPayment(p))
  // fc.commands picks uniformly among the entries: repeats weigh the mix towards quotes, executions and time.
  return [fund, quote, quote, quote, execute, execute, race, retry, advance, advance, advance, transferIn, transferOut, receive, cancel]
}
