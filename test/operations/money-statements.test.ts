/**
 * Bounded work on the SQL stores' money path (issue #20 item 4): the statements a quote
 * and its execution send on PGlite, counted from the SQL client's spans (every statement
 * the store sends but BEGIN and COMMIT, which the client sends on the connection without
 * a span). A first quote is its reads in one statement (`paymentReads.readAhead`) and one
 * statement for its insert and the clock check; an execution likewise, its moves, writes
 * and events all in the second. The next ones run on the rows the store saw and check
 * them in that second statement: one statement each. A read that stops being answered from the read ahead, or
 * a write that stops waiting for the last statement, fails here.
 */
import { Effect, Layer, ManagedRuntime, Option, Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CustomerCreateRequest } from "../../src/domain/customer.js"
import { platformFromConfig } from "../../src/domain/platform.js"
import { QuoteRequest } from "../../src/domain/quote.js"
import * as Customers from "../../src/operations/customers.js"
import * as Accounts from "../../src/operations/money/accounts.js"
import * as Quotes from "../../src/operations/money/quotes.js"
import { onPlatformClock } from "../../src/operations/time.js"
import { testServices } from "../support/api.js"
import { completeIndividualFields, individual } from "../support/onboarding-client.js"
import { statementCounter } from "../support/statements.js"

const platform = platformFromConfig({ id: "statements", clientId: "statements_client", clientSecret: "statements_secret_123", regulated: true })

/** The statements sent while the tracer is in force (the SQL client puts each one's text on its span). */
const { sent, tracer: counting } = statementCounter()

const statementsOf = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.suspend(() => {
    sent.length = 0
    return Effect.map(Effect.withTracer(effect, counting), (a) => ({ result: a, statements: [...sent] }))
  })

const customerBody = (name: string) => individual(name, completeIndividualFields)

describe("statements per quote and execution on PGlite", () => {
  let runtime: ManagedRuntime.ManagedRuntime<Layer.Success<ReturnType<typeof testServices>>, unknown> | undefined
  beforeAll(() => {
    runtime = ManagedRuntime.make(testServices("pglite", [platform]))
  })
  afterAll(async () => {
    await runtime?.dispose()
  })

  it("a quote sends two statements in its unit of work, an execution two; one each once the rows are guessed", async () => {
    if (runtime === undefined) return expect.fail("no runtime")
    const onClock = <A, E, R>(e: Effect.Effect<A, E, R>) => onPlatformClock(platform, e)
    const program = Effect.gen(function*() {
      const usdOf = (customerId: string) =>
        Effect.map(onClock(Accounts.listCustomerAccounts(platform, { customerId, currency: "USD" })), (page) => Option.fromNullishOr(page.data[0]?.id))
      const customer = (name: string) =>
        Effect.map(onClock(Customers.createCustomer(platform, Schema.decodeUnknownSync(CustomerCreateRequest)(customerBody(name)))), (c) => c.id)
      const source = Option.getOrThrow(yield* usdOf(yield* customer("Payer")))
      const destination = Option.getOrThrow(yield* usdOf(yield* customer("Payee")))
      yield* onClock(Accounts.fundAccount(platform, source, 1_000_000))
      const counts: Array<{ readonly quote: number; readonly execute: number }> = []
      for (let i = 0; i < 5; i++) {
        const quote = yield* statementsOf(onClock(Quotes.createQuote(platform, Schema.decodeUnknownSync(QuoteRequest)({
          source: { sourceType: "ACCOUNT", accountId: source },
          destination: { destinationType: "ACCOUNT", accountId: destination },
          lockedCurrencySide: "SENDING",
          lockedCurrencyAmount: 100
        }))))
        const execute = yield* statementsOf(onClock(Quotes.executeQuote(platform, quote.result.id)))
        expect(execute.result.status).not.toBe("PENDING")
        if (i === 0) {
          expect(quote.statements[0], "the first quote's first statement is its read ahead").toMatch(/^with s as materialized/)
          expect(execute.statements[0], "the first execution's first statement is its read ahead").toMatch(/^with s as materialized/)
        } else {
          // Later payments run on the rows the store saw, checked by the last statement (src/adapters/sql/guessed-reads.ts).
          expect(quote.statements.at(-1), "the quote's one statement checks its guessed reads").toMatch(/payments_reads_are/)
          expect(execute.statements.at(-1), "the execution's one statement checks its guessed reads").toMatch(/payments_reads_are/)
        }
        counts.push({ quote: quote.statements.length, execute: execute.statements.length })
      }
      return counts
    })
    const counts = await runtime.runPromise(program)
    expect(counts[0]).toEqual({ quote: 2, execute: 2 })
    for (const c of counts.slice(1)) expect(c).toEqual({ quote: 1, execute: 1 })
  }, 60_000)
})
