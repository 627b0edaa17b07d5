/**
 * The money path's operations alone, in process, with no HTTP: createQuote then
 * executeQuote, over and over, for 10 payers each paying its own payee, on the memory
 * store (or PGlite with PAYMENTS_DATA_DIR). Prints CPU per payment; with `--cpu-prof` on
 * node, a profile of just the operations (bundle it first with esbuild for readable
 * line numbers, as bench/http.ts bundles the servers).
 *   node --import tsx bench/money-ops.ts [payments]
 * `OPS_STORE=postgres`: on a throwaway PostgreSQL cluster, with `log_statement = all`
 * for a few sequential payments, it also prints the statements each quote and each
 * execute sends (BEGIN and COMMIT included).
 * `OPS_STEPS=1`: also the effect runtime's steps per quote and per execute (a tracer's
 * `context` hook counts every primitive the fiber evaluates): a figure the machine's load
 * does not move, for comparing two trees on a shared machine.
 */
import "effect/schema/SchemaJITCompiler/enable"
import { Effect, Layer, Schema, Tracer } from "effect"
import { type Quote, QuoteRequest } from "../src/domain/quote.js"
import * as Customers from "../src/operations/customers.js"
import * as Accounts from "../src/operations/money/accounts.js"
import * as Quotes from "../src/operations/money/quotes.js"
import { onPlatformClock } from "../src/operations/time.js"
import { Store } from "../src/ports/store.js"
import { servicesFor, storeChoiceFromEnv } from "../src/server/services.js"
import { CustomerCreateRequest } from "../src/domain/customer.js"
import { benchCustomerBody, benchMoneyPlatform as platform } from "./servers/platform.js"
import { startBenchCluster } from "./postgres.js"
import { cleanUp } from "./cleanup.js"
import { readFileSync, statSync } from "node:fs"
import { dirname, join } from "node:path"

const payments = Number(process.argv[2] ?? 3000)
const PAYERS = 10

const cluster = process.env["OPS_STORE"] === "postgres" ? await startBenchCluster() : undefined
if (cluster !== undefined) process.env["DATABASE_URL"] = await cluster.database("money_ops")

/** Statements logged while `f` runs (log_statement = all on the whole cluster), by their text's first words. */
const statementsDuring = async <A>(f: () => Promise<A>): Promise<ReadonlyArray<string>> => {
  if (cluster === undefined) return []
  const [row] = await cluster.query<{ setting: string }>(cluster.adminUrl, "select setting from pg_settings where name = 'data_directory'")
  const log = join(dirname(row!.setting), "server.log")
  await cluster.query(cluster.adminUrl, "alter system set log_statement = 'all'")
  await cluster.query(cluster.adminUrl, "select pg_reload_conf()")
  await new Promise((r) => setTimeout(r, 300))
  const from = statSync(log).size
  await f()
  await new Promise((r) => setTimeout(r, 300))
  const text = readFileSync(log, "utf8").slice(from)
  await cluster.query(cluster.adminUrl, "alter system reset log_statement")
  await cluster.query(cluster.adminUrl, "select pg_reload_conf()")
  return text.split("\n").filter((l) => /LOG:  (statement|execute [^:]*):/.test(l) && !l.includes("pg_reload_conf") && !l.includes("alter system"))
    .map((l) => l.replace(/^.*LOG:  (statement|execute [^:]*): /, "").slice(0, 90))
}

const program = Effect.gen(function*() {
  const onClock = <A, E, R>(e: Effect.Effect<A, E, R>) => onPlatformClock(platform, e)
  const usdOf = (customerId: string) =>
    Effect.flatMap(onClock(Accounts.listCustomerAccounts(platform, { customerId, currency: "USD" })), (page) => {
      const account = page.data[0]
      return account === undefined ? Effect.die(new Error(`no USD account for ${customerId}`)) : Effect.succeed(account.id)
    })
  const customer = (name: string) =>
    Effect.map(onClock(Customers.createCustomer(platform, Schema.decodeUnknownSync(CustomerCreateRequest)(benchCustomerBody(name)))), (c) => c.id)
  const pairs: Array<{ source: string; destination: string }> = []
  for (let i = 0; i < PAYERS; i++) {
    const source = yield* usdOf(yield* customer(`Ops Payer ${i}`))
    const destination = yield* usdOf(yield* customer(`Ops Payee ${i}`))
    yield* onClock(Accounts.fundAccount(platform, source, 100_000_000_000))
    pairs.push({ source, destination })
  }
  const quoteOf = (pair: { source: string; destination: string }) =>
    Effect.map(
      onClock(Quotes.createQuote(platform, Schema.decodeUnknownSync(QuoteRequest)({
        source: { sourceType: "ACCOUNT", accountId: pair.source },
        destination: { destinationType: "ACCOUNT", accountId: pair.destination },
        lockedCurrencySide: "SENDING",
        lockedCurrencyAmount: 100
      }))),
      (q) => q
    )
  const pay = (pair: { source: string; destination: string }) =>
    Effect.flatMap(quoteOf(pair), (q) => onClock(Quotes.executeQuote(platform, q.id)))
  const context = yield* Effect.context<Effect.Services<ReturnType<typeof pay>>>()
  if (process.env["OPS_STEPS"] === "1") {
    const native = yield* Tracer.Tracer
    let steps = 0
    const counting: Tracer.Tracer = {
      span: (options) => native.span(options),
      context: (primitive, fiber) => {
        steps++
        return primitive["~effect/Effect/evaluate"](fiber)
      }
    }
    const counted = <A, E, R>(e: Effect.Effect<A, E, R>) => Effect.provideService(e, Tracer.Tracer, counting)
    const SAMPLE = 100
    let quoteSteps = 0
    let executeSteps = 0
    for (let i = 0; i < SAMPLE; i++) {
      const pair = pairs[i % PAYERS]!
      steps = 0
      const q = yield* counted(quoteOf(pair))
      quoteSteps += steps
      steps = 0
      yield* counted(onClock(Quotes.executeQuote(platform, q.id)))
      executeSteps += steps
    }
    console.log(`effect steps per quote: ${quoteSteps / SAMPLE}, per execute: ${executeSteps / SAMPLE}`)
  }
  // One fiber per payer (at most OPS_CONCURRENCY at once), each paying its own payee in turn: no two payments of one payer overlap.
  const loop = (n: number) =>
    Effect.forEach(pairs, (pair, p) => Effect.repeat(pay(pair), { times: Math.max(0, Math.ceil((n - p) / PAYERS) - 1) }), {
      concurrency: Number(process.env["OPS_CONCURRENCY"] ?? PAYERS),
      discard: true
    })
  yield* loop(Math.min(500, payments))
  const dbBefore = cluster?.cpuMicros === undefined ? undefined : yield* Effect.promise(cluster.cpuMicros)
  const before = process.cpuUsage()
  const t0 = performance.now()
  yield* loop(payments)
  const cpu = process.cpuUsage(before)
  const dbCpu = dbBefore === undefined || cluster?.cpuMicros === undefined ? undefined : (yield* Effect.promise(cluster.cpuMicros)) - dbBefore
  const wall = performance.now() - t0
  const reruns = (yield* Store).reruns?.()
  console.log(`${payments} payments: ${((cpu.user + cpu.system) / payments).toFixed(1)} µs CPU per payment (user ${(cpu.user / payments).toFixed(0)}, system ${(cpu.system / payments).toFixed(0)}), ${(wall * 1000 / payments).toFixed(1)} µs wall per payment${
    dbCpu === undefined ? "" : `; the cluster's CPU ${(dbCpu / payments).toFixed(0)} µs per payment`
  }${
    reruns === undefined ? "" : `; units of work rerun after a serialization failure or deadlock since start: ${reruns}`
  }`)
  if (cluster !== undefined) {
    const SAMPLE = 5
    const quotes: Array<Quote> = []
    const pair = pairs[0]!
    const quoteStatements = yield* Effect.promise(() =>
      statementsDuring(() => Effect.runPromise(Effect.provide(Effect.forEach(Array.from({ length: SAMPLE }), () => Effect.map(quoteOf(pair), (q) => void quotes.push(q))), context)))
    )
    const executeStatements = yield* Effect.promise(() =>
      statementsDuring(() => Effect.runPromise(Effect.provide(Effect.forEach(quotes, (q) => onClock(Quotes.executeQuote(platform, q.id))), context)))
    )
    console.log(`statements per quote: ${quoteStatements.length / SAMPLE}, per execute: ${executeStatements.length / SAMPLE}`)
    if (process.env["OPS_SHOW_STATEMENTS"] === "1") {
      console.log("-- one quote:\n" + quoteStatements.slice(0, quoteStatements.length / SAMPLE).join("\n"))
      console.log("-- one execute:\n" + executeStatements.slice(0, executeStatements.length / SAMPLE).join("\n"))
    }
  }
})

const choice = storeChoiceFromEnv(process.env)
if (typeof choice === "string") throw new Error(choice)
try {
  // Tracing off, as the reference server runs (src/http/app.ts).
  await Effect.runPromise(Effect.scoped(Effect.provide(Effect.withTracerEnabled(program, false), Layer.orDie(servicesFor(choice, [platform], { webhookDestinations: ["loopback"] })))))
} finally {
  await cleanUp()
}
process.exit(0)
