/**
 * Units of work on PostgreSQL run on connections of the store's own, where BEGIN goes in
 * the same write as the first statement and COMMIT in the same write as the last
 * (src/adapters/sql/direct.ts, `PipelinedConnection`). What that must keep: a payment's
 * quote and its execution each reach the database in two writes; a unit of work that
 * sends nothing sends nothing; the last statement's check fails in SQL (a stale guessed
 * clock offset commits nothing and the request runs again); a last statement that fails
 * commits nothing and is the failure reported; an interrupted unit of work commits
 * nothing and its connection serves the next one; a connection that died while idle is
 * replaced and the unit of work commits on another.
 *
 * Writes are counted per socket (`net.Socket.prototype.write`, which the driver calls
 * once per batch of cycles), on the sockets whose sessions carry the store's
 * `application_name` for its own connections (pg_stat_activity's `client_port`).
 */
import { PgClient, PgConnection } from "@effect/sql-pg"
import { Cause, Deferred, Effect, Exit, Fiber, Layer, ManagedRuntime, Option, Redacted, References, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { isSqlError } from "effect/sql/SqlError"
import net from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { LoopbackWebhookSenderLayer } from "../../src/adapters/webhook-http.js"
import { makeDirectTransactions } from "../../src/adapters/sql/direct.js"
import { postgresStoreLayer, UNIT_OF_WORK_APPLICATION_NAME } from "../../src/adapters/sql/index.js"
import { CustomerCreateRequest } from "../../src/domain/customer.js"
import { platformFromConfig } from "../../src/domain/platform.js"
import { QuoteRequest } from "../../src/domain/quote.js"
import * as Customers from "../../src/operations/customers.js"
import * as Accounts from "../../src/operations/money/accounts.js"
import * as Quotes from "../../src/operations/money/quotes.js"
import { onPlatformClock } from "../../src/operations/time.js"
import type { DomainEvent } from "../../src/ports/events.js"
import { Store } from "../../src/ports/store.js"
import { servicesFor } from "../../src/server/services.js"
import { adminQuery, migratedDatabase } from "../support/databases.js"
import { completeIndividualFields, individual } from "../support/onboarding-client.js"

// ------------------------------------------------------------------ writes per socket

/** Writes per local port, while counting. */
const writes = new Map<number, number>()
let counting = false
const originalWrite = net.Socket.prototype.write
beforeAll(() => {
  net.Socket.prototype.write = function(this: net.Socket, ...args: Parameters<net.Socket["write"]>) {
    if (counting && this.localPort !== undefined) writes.set(this.localPort, (writes.get(this.localPort) ?? 0) + 1)
    return Reflect.apply(originalWrite, this, args)
  } as net.Socket["write"]
})
afterAll(() => {
  net.Socket.prototype.write = originalWrite
})


/** The client ports of the sessions named `application`. */
const portsOf = async (url: string, application: string): Promise<ReadonlySet<number>> =>
  new Set((await adminQuery<{ readonly port: number }>(
    url,
    "select client_port as port from pg_stat_activity where datname = current_database() and application_name = $1",
    [application]
  )).map((r) => r.port))

/**
 * `run`'s writes on the sockets of the sessions named `application` (read just after it:
 * the store keeps a connection it used for a second before it closes it), per socket that wrote.
 */
const writesOf = async <A>(url: string, application: string, run: () => Promise<A>): Promise<{ readonly result: A; readonly writes: ReadonlyArray<number> }> => {
  writes.clear()
  counting = true
  let result: A
  try {
    result = await run()
  } finally {
    counting = false
  }
  const ports = await portsOf(url, application)
  return { result, writes: [...writes].filter(([port]) => ports.has(port)).map(([, n]) => n) }
}

const event = (platformId: string, n: number): DomainEvent => ({
  id: `Webhook:pipelined-${n}`,
  platformId,
  type: "TEST",
  timestamp: new Date(Date.UTC(2026, 0, 1)).toISOString()
})

// ------------------------------------------------------------------ a payment's writes

describe("PostgreSQL: a payment's quote and execution each reach the database in two writes", () => {
  const platform = platformFromConfig({ id: "pipelined", clientId: "pipelined_client", clientSecret: "pipelined_secret_123", regulated: true })
  let url = ""
  type Services = Layer.Success<ReturnType<typeof servicesFor>>
  let runtime: ManagedRuntime.ManagedRuntime<Services, unknown> | undefined
  beforeAll(async () => {
    url = await migratedDatabase()
    runtime = ManagedRuntime.make(Layer.merge(servicesFor({ kind: "postgres", url }, [platform], {}), LoopbackWebhookSenderLayer))
  }, 60_000)
  afterAll(async () => {
    await runtime?.dispose()
  })

  it("BEGIN with the first statement, COMMIT with the last: 2 writes each, 1 once the rows are guessed (and none for a unit of work that sends nothing)", async () => {
    if (runtime === undefined) return expect.fail("no runtime")
    const rt = runtime
    const onClock = <A, E, R>(e: Effect.Effect<A, E, R>) => onPlatformClock(platform, e)
    // The fiber never yields to the scheduler between queueing BEGIN and its first
    // statement (a yield every 2,048 effect steps would otherwise split them, rarely):
    // what is counted is what the store queues together.
    // Tracing off, as the server runs, but for the last two payments (with it on, statements
    // go through the client, for their spans).
    let tracing = false
    const run = <A, E>(e: Effect.Effect<A, E, Services>) =>
      rt.runPromise(e.pipe(Effect.provideService(References.PreventSchedulerYield, true), Effect.provideService(References.TracerEnabled, tracing)))
    const setup = Effect.gen(function*() {
      const usdOf = (customerId: string) =>
        Effect.map(onClock(Accounts.listCustomerAccounts(platform, { customerId, currency: "USD" })), (page) => Option.fromNullishOr(page.data[0]?.id))
      const customer = (name: string) =>
        Effect.map(onClock(Customers.createCustomer(platform, Schema.decodeUnknownSync(CustomerCreateRequest)(individual(name, completeIndividualFields)))), (c) => c.id)
      const source = Option.getOrThrow(yield* usdOf(yield* customer("Payer")))
      const destination = Option.getOrThrow(yield* usdOf(yield* customer("Payee")))
      yield* onClock(Accounts.fundAccount(platform, source, 1_000_000))
      return { source, destination }
    })
    const { destination, source } = await run(setup)
    const counts: Array<{ readonly quote: ReadonlyArray<number>; readonly execute: ReadonlyArray<number> }> = []
    for (let i = 0; i < 6; i++) {
      tracing = i >= 4
      const quote = await writesOf(url, UNIT_OF_WORK_APPLICATION_NAME, () =>
        run(onClock(Quotes.createQuote(platform, Schema.decodeUnknownSync(QuoteRequest)({
          source: { sourceType: "ACCOUNT", accountId: source },
          destination: { destinationType: "ACCOUNT", accountId: destination },
          lockedCurrencySide: "SENDING",
          lockedCurrencyAmount: 100
        })))))
      const execute = await writesOf(url, UNIT_OF_WORK_APPLICATION_NAME, () => run(onClock(Quotes.executeQuote(platform, quote.result.id))))
      expect(execute.result.status).not.toBe("PENDING")
      counts.push({ quote: quote.writes, execute: execute.writes })
    }
    // The first payment reads ahead (BEGIN with the read, COMMIT with the last statement:
    // 2 writes each); the next ones run on the rows the store saw, checked by the last
    // statement (./guessed-reads.ts): BEGIN, that statement and COMMIT in 1 write each.
    expect(counts[0]).toEqual({ quote: [2], execute: [2] })
    for (const c of counts.slice(1)) expect(c).toEqual({ quote: [1], execute: [1] })
    const nothing = await writesOf(url, UNIT_OF_WORK_APPLICATION_NAME, () =>
      run(Effect.flatMap(Effect.service(Store), (store) => store.transact(() => Effect.succeed(1)))))
    expect(nothing).toEqual({ result: 1, writes: [] })
  }, 120_000)
})

// ------------------------------------------------------------------ the final check in SQL

describe("PostgreSQL: the guessed clock offset checked in SQL by the statement sent with COMMIT", () => {
  it.each([false, true])("a stale guess commits nothing of the attempt (not even its last statement's writes), and the request runs again on the stored offset (tracing on: %s)", async (tracing) => {
    const url = await migratedDatabase()
    const a = ManagedRuntime.make(postgresStoreLayer({ url }))
    const b = ManagedRuntime.make(postgresStoreLayer({ url }))
    try {
      const p = `plat-pipelined-clock-${tracing}`
      const store = (rt: typeof a) => rt.runPromise(Effect.service(Store))
      const storeA = await store(a)
      const storeB = await store(b)
      // A has seen offset 0, and guesses it from now on; B then moves it.
      expect(await a.runPromise(storeA.clocks.offset(p))).toBe(0)
      await b.runPromise(storeB.transact((uow) => uow.setClockOffset(p, 5_000)))
      const runs: Array<number> = []
      const onLastSeenOffset = storeA.clocks.onLastSeenOffset
      if (onLastSeenOffset === undefined) return expect.fail("the SQL store runs requests on the offset it last saw")
      await a.runPromise(onLastSeenOffset(p, (offset) =>
        Effect.suspend(() => {
          runs.push(offset)
          const n = runs.length
          // A write before the last statement, and an event (written by the last statement itself).
          return storeA.transact((uow) => Effect.andThen(uow.setClockOffset(`${p}-run-${n}`, offset), uow.emit(event(p, n))))
        })).pipe(Effect.provideService(References.TracerEnabled, tracing)))
      expect(runs).toEqual([0, 5_000])
      const events = await adminQuery<{ readonly id: string }>(url, "select id from events where platform_id = $1", [p])
      expect(events.map((e) => e.id)).toEqual(["Webhook:pipelined-2"])
      const clocks = await adminQuery<{ readonly platform_id: string; readonly offset_ms: string }>(
        url,
        "select platform_id, offset_ms::text from platform_clocks where platform_id like $1 order by platform_id",
        [`${p}-run-%`]
      )
      expect(clocks).toEqual([{ platform_id: `${p}-run-2`, offset_ms: "5000" }])
    } finally {
      await Promise.all([a.dispose(), b.dispose()])
    }
  }, 60_000)
})

// ------------------------------------------------------------------ the transactions themselves

describe("PostgreSQL: transactions on a connection of the store's own (makeDirectTransactions)", () => {
  const application = "payments-service (pipelined test)"
  const withDirect = <A, E>(url: string, body: (direct: ReturnType<typeof makeDirectTransactions>, sql: SqlClient.SqlClient) => Effect.Effect<A, E, never>) =>
    Effect.runPromise(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const direct = makeDirectTransactions(sql, "BEGIN ISOLATION LEVEL SERIALIZABLE", {
        connections: 1,
        idleMillis: 60_000,
        connect: PgConnection.make({ url: Redacted.make(url), applicationName: application, multiplex: true })
      })
      return yield* Effect.ensuring(body(direct, sql), direct.close)
    }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 2 })), Effect.scoped, Effect.timeout("30 seconds")))
  const clockOf = (url: string, platformId: string) =>
    adminQuery<{ readonly offset_ms: string }>(url, "select offset_ms::text from platform_clocks where platform_id = $1", [platformId])
      .then((rows) => rows.map((r) => Number(r.offset_ms)))

  it("a last statement that fails, sent with COMMIT, commits nothing and is the failure reported", async () => {
    const url = await migratedDatabase()
    const outcome = await withDirect(url, (direct, sql) =>
      Effect.gen(function*() {
        const failed = yield* Effect.exit(direct.withTransaction(
          sql`insert into platform_clocks (platform_id, offset_ms) values ('pipe-fail', 1)`,
          undefined,
          () => ({
            text: "select 1 / (select count(*) from platform_clocks where platform_id = 'none')::int as n",
            params: [],
            committed: () => undefined,
            failed: Effect.failCause
          })
        ))
        // The connection is sound after it: the next transaction commits on it.
        yield* direct.withTransaction(sql`insert into platform_clocks (platform_id, offset_ms) values ('pipe-after', 2)`)
        return { failed, kept: direct.keptCount() }
      }))
    expect(Exit.isFailure(outcome.failed)).toBe(true)
    if (Exit.isFailure(outcome.failed)) {
      const error = Cause.squash(outcome.failed.cause)
      expect(isSqlError(error)).toBe(true)
      expect(String(isSqlError(error) ? (error.reason.cause as Error).message : error)).toMatch(/division by zero/)
    }
    expect(outcome.kept).toBe(1)
    expect(await clockOf(url, "pipe-fail")).toEqual([])
    expect(await clockOf(url, "pipe-after")).toEqual([2])
  }, 60_000)

  it("an interrupted unit of work commits nothing (its statement on the wire finishes, then ROLLBACK), and its connection serves the next one", async () => {
    const url = await migratedDatabase()
    const kept = await withDirect(url, (direct, sql) =>
      Effect.gen(function*() {
        const started = yield* Deferred.make<void>()
        const working = yield* Effect.forkChild(direct.withTransaction(
          sql`insert into platform_clocks (platform_id, offset_ms) values ('pipe-interrupted', 1)`.pipe(
            Effect.andThen(Deferred.succeed(started, undefined)),
            Effect.andThen(sql`select pg_sleep(0.3)`)
          )
        ))
        yield* Deferred.await(started)
        yield* Effect.sleep("50 millis")
        yield* Fiber.interrupt(working)
        const afterInterrupt = direct.keptCount()
        yield* direct.withTransaction(sql`insert into platform_clocks (platform_id, offset_ms) values ('pipe-next', 2)`)
        return { afterInterrupt, afterNext: direct.keptCount() }
      }))
    expect(kept).toEqual({ afterInterrupt: 1, afterNext: 1 })
    expect(await clockOf(url, "pipe-interrupted")).toEqual([])
    expect(await clockOf(url, "pipe-next")).toEqual([2])
  }, 60_000)

  it("a connection of the store's own that died while idle is replaced: the next unit of work commits on a new one", async () => {
    const url = await migratedDatabase()
    const outcome = await withDirect(url, (direct, sql) =>
      Effect.gen(function*() {
        yield* direct.withTransaction(sql`insert into platform_clocks (platform_id, offset_ms) values ('pipe-dead-1', 1)`)
        const before = yield* Effect.promise(() => portsOf(url, application))
        const ended = yield* Effect.promise(() =>
          adminQuery<{ readonly n: number }>(
            url,
            "select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where datname = current_database() and application_name = $1",
            [application]
          )
        )
        yield* direct.withTransaction(sql`insert into platform_clocks (platform_id, offset_ms) values ('pipe-dead-2', 2)`)
        const after = yield* Effect.promise(() => portsOf(url, application))
        return { before: before.size, ended: ended[0]?.n, after: after.size, replaced: [...after].every((port) => !before.has(port)), kept: direct.keptCount() }
      }))
    expect(outcome).toEqual({ before: 1, ended: 1, after: 1, replaced: true, kept: 1 })
    expect(await clockOf(url, "pipe-dead-1")).toEqual([1])
    expect(await clockOf(url, "pipe-dead-2")).toEqual([2])
  }, 60_000)
})
