/**
 * A payment's reads guessed from what the store last saw, checked at commit
 * (src/adapters/sql/guessed-reads.ts): a guess is never an answer. Two stores on one
 * database stand for two server processes: what one moves, the other has seen wrong, and
 * its next payment must still answer from the rows as they are.
 */
import { Cause, Effect, Exit, Layer, ManagedRuntime, Option, Schema } from "effect"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { LoopbackWebhookSenderLayer } from "../../src/adapters/webhook-http.js"
import { GuessedReads } from "../../src/adapters/sql/guessed-reads.js"
import { READS_REFUSED } from "../../src/adapters/sql/migrations.js"
import { CustomerCreateRequest } from "../../src/domain/customer.js"
import { platformFromConfig } from "../../src/domain/platform.js"
import { QuoteRequest } from "../../src/domain/quote.js"
import * as Customers from "../../src/operations/customers.js"
import * as Accounts from "../../src/operations/money/accounts.js"
import { idempotent } from "../../src/operations/idempotency.js"
import * as Quotes from "../../src/operations/money/quotes.js"
import { onPlatformClock } from "../../src/operations/time.js"
import { Store } from "../../src/ports/store.js"
import { servicesFor } from "../../src/server/services.js"
import { migratedDatabase } from "../support/databases.js"
import { completeIndividualFields, individual } from "../support/onboarding-client.js"
import { statementCounter } from "../support/statements.js"

const platform = platformFromConfig({ id: "guessed", clientId: "guessed_client", clientSecret: "guessed_secret_123", regulated: true })
type Services = Layer.Success<ReturnType<typeof servicesFor>>
const onClock = <A, E, R>(e: Effect.Effect<A, E, R>) => onPlatformClock(platform, e)

/** A server process of its own on `url`: its own store, so its own last sight of the rows. */
const processOn = (url: string) =>
  ManagedRuntime.make(Layer.merge(servicesFor({ kind: "postgres", url }, [platform], {}), LoopbackWebhookSenderLayer))

const usdOf = (customerId: string) =>
  Effect.map(onClock(Accounts.listCustomerAccounts(platform, { customerId, currency: "USD" })), (page) => page.data[0]!)

const quoteOf = (source: string, destination: string, amount: number) =>
  onClock(Quotes.createQuote(platform, Schema.decodeUnknownSync(QuoteRequest)({
    source: { sourceType: "ACCOUNT", accountId: source },
    destination: { destinationType: "ACCOUNT", accountId: destination },
    lockedCurrencySide: "SENDING",
    lockedCurrencyAmount: amount
  })))

const payOf = (source: string, destination: string, amount: number) =>
  Effect.flatMap(quoteOf(source, destination, amount), (q) => onClock(Quotes.executeQuote(platform, q.id)))

/** The error code an exit failed with, if it failed with one. */
const codeOf = (exit: Exit.Exit<unknown, unknown>): string | undefined => {
  if (Exit.isSuccess(exit)) return undefined
  const error = Option.getOrUndefined(Cause.findErrorOption(exit.cause))
  return typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined
}

describe("PostgreSQL: a payment's guessed reads, checked at commit", () => {
  let url = ""
  let a: ManagedRuntime.ManagedRuntime<Services, unknown> | undefined
  let b: ManagedRuntime.ManagedRuntime<Services, unknown> | undefined
  beforeAll(async () => {
    url = await migratedDatabase()
    a = processOn(url)
    b = processOn(url)
  }, 60_000)
  afterAll(async () => {
    await a?.dispose()
    await b?.dispose()
  })

  it("a balance another process moved: the payment answers from the balance as it is, both ways", async () => {
    if (a === undefined || b === undefined) return expect.fail("no runtime")
    const { payee, payeeCustomer, payer, payerCustomer } = await a.runPromise(Effect.gen(function*() {
      const customer = (name: string) =>
        Effect.map(onClock(Customers.createCustomer(platform, Schema.decodeUnknownSync(CustomerCreateRequest)(individual(name, completeIndividualFields)))), (c) => c.id)
      const payerCustomer = yield* customer("Payer")
      const payeeCustomer = yield* customer("Payee")
      const payer = (yield* usdOf(payerCustomer)).id
      const payee = (yield* usdOf(payeeCustomer)).id
      yield* onClock(Accounts.fundAccount(platform, payer, 1_000))
      // Two payments: the second runs on what the first saw.
      yield* payOf(payer, payee, 100)
      yield* payOf(payer, payee, 100)
      return { payee, payeeCustomer, payer, payerCustomer }
    }))
    const balanceOf = async (account: string) =>
      (await a!.runPromise(usdOf(account === payer ? payerCustomer : payeeCustomer))).balance.amount
    expect(await balanceOf(payer)).toBe(800)

    // Process A quotes 100 (it has seen 800); process B then spends the 800.
    const quote = await a.runPromise(quoteOf(payer, payee, 100))
    await b.runPromise(payOf(payer, payee, 800))
    expect(await balanceOf(payer)).toBe(0)
    // A's execution ran on 800, its check found 0: it runs again, reading, and refuses.
    const refused = await a.runPromiseExit(onClock(Quotes.executeQuote(platform, quote.id)))
    expect(codeOf(refused)).toBe("INSUFFICIENT_FUNDS")
    expect(await balanceOf(payer)).toBe(0)

    // A has seen 0 now; B funds the account. A's refusal on 0 was never checked: it runs
    // again, reading 500, and pays.
    await b.runPromise(onClock(Accounts.fundAccount(platform, payer, 500)))
    const paid = await a.runPromise(payOf(payer, payee, 100))
    expect(paid.status).not.toBe("FAILED")
    expect(await balanceOf(payer)).toBe(400)
    expect(await balanceOf(payee)).toBe(1_100)

    // A has seen 400; B funds 500 more. A's payment of 100 would debit the right row (the
    // update is relative) but announce the balance it guessed, 300: the check refutes the
    // guess, and the payment runs again on 900, announcing 800.
    await b.runPromise(onClock(Accounts.fundAccount(platform, payer, 500)))
    await a.runPromise(payOf(payer, payee, 100))
    expect(await balanceOf(payer)).toBe(800)
    const announced = await a.runPromise(Effect.flatMap(Effect.service(Store), (store) => store.events.list(platform.id, { limit: 1_000 })))
    const payerBalances = announced
      .map((e) => JSON.parse(JSON.stringify(e.event)) as { readonly type?: string; readonly data?: { readonly id?: string; readonly balance?: { readonly amount?: number } } })
      .filter((e) => e.type === "INTERNAL_ACCOUNT.BALANCE_UPDATED" && e.data?.id === payer)
      .map((e) => e.data?.balance?.amount)
    expect(payerBalances.at(-1)).toBe(800)
  }, 120_000)

  it("an idempotent execution checks its guesses before it stores its key (no attempt lost to its own write)", async () => {
    if (a === undefined) return expect.fail("no runtime")
    const { sent, tracer: counting } = statementCounter()
    const quote = await a.runPromise(Effect.gen(function*() {
      const customer = (name: string) =>
        Effect.map(onClock(Customers.createCustomer(platform, Schema.decodeUnknownSync(CustomerCreateRequest)(individual(name, completeIndividualFields)))), (c) => c.id)
      const payer = (yield* usdOf(yield* customer("Keyed payer"))).id
      const payee = (yield* usdOf(yield* customer("Keyed payee"))).id
      yield* onClock(Accounts.fundAccount(platform, payer, 1_000))
      yield* payOf(payer, payee, 100)
      return yield* quoteOf(payer, payee, 100)
    }))
    const executed = await a.runPromise(Effect.withTracer(
      idempotent(platform, { key: "guessed-keyed-1", operation: "execute (test)", request: { quoteId: quote.id }, result: Schema.Unknown }, onClock(Quotes.executeQuote(platform, quote.id))),
      counting
    ))
    expect(executed).toBeDefined()
    // The guesses were checked in a statement of their own before the key's insert: the
    // attempt was not refused and run again reading (no read ahead).
    expect(sent.some((t) => t.includes("payments_reads_are"))).toBe(true)
    // Once: a check taken to be sent is not taken again by the write after it.
    expect(sent.filter((t) => t.includes("payments_reads_are"))).toHaveLength(1)
    expect(sent.filter((t) => /^\s*with s as materialized/.test(t))).toHaveLength(0)
  }, 120_000)

  it("the check refuses a row, a balance or a volume not as guessed, and any write of the transaction before it", async () => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      await client.query(`insert into platform_configs (platform_id, doc) values ('guessed-check', '{"a": 1}')`)
      await client.query(`insert into ledger_balances (platform_id, account, currency, balance) values ('guessed-check', 'InternalAccount:x', 'USD', 5)`)
      const check = (items: GuessedReads["items"]) => {
        const g = new GuessedReads()
        g.items.push(...items)
        return g.statement()
      }
      const row = (text: string | null) => ({ kind: "row" as const, table: "platform_configs", platformId: "guessed-check", id: "", text })
      const balance = (value: number) => ({ kind: "balance" as const, platformId: "guessed-check", account: "InternalAccount:x", balance: value })
      const volume = (value: number) => ({ kind: "volume" as const, platformId: "guessed-check", customerKey: "c", currency: "USD", since: 0, volume: value })
      const refusal = async (text: string, params: ReadonlyArray<unknown>, before?: string): Promise<string | undefined> => {
        await client.query("begin isolation level serializable")
        try {
          if (before !== undefined) await client.query(before)
          await client.query(text, [...params])
          return undefined
        } catch (e) {
          return (e as { code?: string }).code
        } finally {
          await client.query("rollback")
        }
      }
      const right = check([row(`{"a": 1}`), balance(5), volume(0)])
      expect(await refusal(right.text, right.params)).toBeUndefined()
      for (const wrong of [check([row(`{"a": 2}`), balance(5), volume(0)]), check([row(null), balance(5), volume(0)]), check([row(`{"a": 1}`), balance(4), volume(0)]), check([row(`{"a": 1}`), balance(5), volume(1)])]) {
        expect(await refusal(wrong.text, wrong.params)).toBe(READS_REFUSED)
      }
      // A row the transaction wrote itself could look as guessed: any write before the check refuses it.
      expect(await refusal(right.text, right.params, `update ledger_balances set balance = balance where platform_id = 'guessed-check'`)).toBe(READS_REFUSED)
    } finally {
      await client.end()
    }
  }, 60_000)
})
