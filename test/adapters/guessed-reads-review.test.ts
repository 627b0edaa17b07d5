/**
 * Guessed reads (src/adapters/sql/guessed-reads.ts) where the check at commit cannot see
 * what the attempt ran on: a guess must never stand for a row the check does not read
 * as the attempt used it.
 * - The attempt's own pending writes (./pending.ts `defer`): a read ahead that reads sends
 *   them first and sees them; a guess does not, and the check (in the statement that
 *   carries them, which does not see its own writes) finds the rows as guessed.
 * - A guess made after the attempt's guesses were checked already (a nested unit of work
 *   sends the pending part, check included, before its savepoint): nothing checks it.
 * And what the store remembers of a read must not fail the read: a daily volume above
 * 2^53 minor units (a sum of exact amounts) is the limit check's nearest number.
 */
import { Cause, Effect, Exit, Layer, ManagedRuntime, Option, Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { LoopbackWebhookSenderLayer } from "../../src/adapters/webhook-http.js"
import { CustomerCreateRequest } from "../../src/domain/customer.js"
import { platformFromConfig } from "../../src/domain/platform.js"
import { QuoteRequest } from "../../src/domain/quote.js"
import * as Customers from "../../src/operations/customers.js"
import * as Accounts from "../../src/operations/money/accounts.js"
import { configIn } from "../../src/operations/money/config.js"
import * as Quotes from "../../src/operations/money/quotes.js"
import { onPlatformClock } from "../../src/operations/time.js"
import type { PlatformConfigRecord } from "../../src/ports/money.js"
import { Store } from "../../src/ports/store.js"
import { servicesFor } from "../../src/server/services.js"
import { adminQuery, migratedDatabase } from "../support/databases.js"
import { completeIndividualFields, individual } from "../support/onboarding-client.js"

const platform = platformFromConfig({ id: "guessreview", clientId: "guessreview_client", clientSecret: "guessreview_secret_123", regulated: true })
type Services = Layer.Success<ReturnType<typeof servicesFor>>
const onClock = <A, E, R>(e: Effect.Effect<A, E, R>) => onPlatformClock(platform, e)

/** A day's start: the read ahead reads (or guesses) the daily volume from it. */
const SINCE = 0

const accountOf = (name: string) =>
  Effect.gen(function*() {
    const customer = yield* onClock(Customers.createCustomer(platform, Schema.decodeUnknownSync(CustomerCreateRequest)(individual(name, completeIndividualFields))))
    const page = yield* onClock(Accounts.listCustomerAccounts(platform, { customerId: customer.id, currency: "USD" }))
    return page.data[0]!.id
  })

/** A unit of work that reads ahead from `source` to `destination`: the store has seen those rows after it. */
const readAhead = (source: string, destination: string) =>
  Effect.flatMap(Effect.service(Store), (store) =>
    store.paymentReads.readAhead(platform.id, { kind: "accounts", sourceAccountId: source, destinationAccountId: destination, volumeSince: SINCE }))

describe("PostgreSQL: guesses the check at commit cannot see", () => {
  let url = ""
  let rt: ManagedRuntime.ManagedRuntime<Services, unknown> | undefined
  beforeAll(async () => {
    url = await migratedDatabase()
    rt = ManagedRuntime.make(Layer.merge(servicesFor({ kind: "postgres", url }, [platform], {}), LoopbackWebhookSenderLayer))
  }, 60_000)
  afterAll(async () => {
    await rt?.dispose()
  })

  it("a row the attempt wrote (pending) before its read ahead reads as written, not as the store last saw it", async () => {
    if (rt === undefined) return expect.fail("no runtime")
    const read = await rt.runPromise(Effect.gen(function*() {
      const store = yield* Store
      const a = yield* accountOf("Config Writer A")
      const b = yield* accountOf("Config Writer B")
      yield* onClock(Accounts.fundAccount(platform, a, 1_000))
      // The store sees every row of a's payments to b (twice: the second may guess already).
      yield* store.transact(() => readAhead(a, b))
      yield* store.transact(() => readAhead(a, b))
      // One unit of work writes the configuration (as it is, one field more), then reads ahead and reads it back.
      const written = { platformId: platform.id, config: { ...(yield* configIn(store, platform)), marker: "written" } } as PlatformConfigRecord
      return yield* store.transact((uow) =>
        Effect.gen(function*() {
          yield* uow.putPlatformConfig(written)
          yield* readAhead(a, b)
          const config = yield* store.platformConfigs.get(platform.id)
          return (config?.config as unknown as { readonly marker?: string } | undefined)?.marker
        })
      )
    }))
    expect(read).toBe("written")
  }, 60_000)

  it("a guess made after a nested unit of work sent the attempt's check is checked too", async () => {
    if (rt === undefined) return expect.fail("no runtime")
    const { a, b, c, d } = await rt.runPromise(Effect.gen(function*() {
      const store = yield* Store
      const a = yield* accountOf("Nested A")
      const b = yield* accountOf("Nested B")
      const c = yield* accountOf("Nested C")
      const d = yield* accountOf("Nested D")
      yield* onClock(Accounts.fundAccount(platform, a, 1_000))
      yield* onClock(Accounts.fundAccount(platform, c, 1_000))
      yield* store.transact(() => readAhead(a, b))
      yield* store.transact(() => Effect.andThen(readAhead(a, b), readAhead(c, d)))
      yield* store.transact(() => Effect.andThen(readAhead(a, b), readAhead(c, d)))
      return { a, b, c, d }
    }))
    // Another process moves c's balance: this store's sight of it is stale.
    await adminQuery(url, "update ledger_balances set balance = 250 where platform_id = $1 and account = $2", [platform.id, c])
    const balance = await rt.runPromise(Effect.gen(function*() {
      const store = yield* Store
      return yield* store.transact(() =>
        Effect.gen(function*() {
          yield* readAhead(a, b)
          // A nested unit of work: the attempt's pending part (and the check of its guesses so far) goes first.
          yield* store.transact(() => Effect.void)
          yield* readAhead(c, d)
          const balances = yield* store.ledger.balances(platform.id, [c])
          return balances.get(c)
        })
      )
    }))
    expect(balance).toBe(250)
  }, 60_000)

  it("a daily volume above 2^53 minor units is a limit check's input (the nearest number), not a defect", async () => {
    if (rt === undefined) return expect.fail("no runtime")
    const { a, b, customer } = await rt.runPromise(Effect.gen(function*() {
      const store = yield* Store
      const a = yield* accountOf("Big Volume A")
      const b = yield* accountOf("Big Volume B")
      yield* onClock(Accounts.fundAccount(platform, a, 1_000))
      const account = yield* store.internalAccounts.get(platform.id, a)
      return { a, b, customer: account?.customerId }
    }))
    // The customer's USD volume, on a day every daily window of these days starts before: above 2^53 - 1.
    const day = Date.now() - (Date.now() % 86_400_000) + 2 * 86_400_000
    await adminQuery(url, "insert into sent_volumes (platform_id, customer_key, currency, day_ms, amount) values ($1, $2, 'USD', $3, $4)", [
      platform.id,
      customer,
      day,
      "9100000000000000"
    ])
    const exit = await rt.runPromiseExit(onClock(Quotes.createQuote(platform, Schema.decodeUnknownSync(QuoteRequest)({
      source: { sourceType: "ACCOUNT", accountId: a },
      destination: { destinationType: "ACCOUNT", accountId: b },
      lockedCurrencySide: "SENDING",
      lockedCurrencyAmount: 100
    }))))
    const error = Exit.isFailure(exit) ? Option.getOrUndefined(Cause.findErrorOption(exit.cause)) : undefined
    expect(typeof error === "object" && error !== null && "code" in error ? error.code : String(exit)).toBe("DAILY_VOLUME_LIMIT_EXCEEDED")
  }, 60_000)
})
