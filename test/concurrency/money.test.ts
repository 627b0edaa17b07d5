/**
 * Two app instances on ONE PostgreSQL database (as two server processes would be),
 * moving money at the same time:
 * - the same quote executed concurrently through both apps, without a key and with one
 *   shared Idempotency-Key: exactly one debit, one payment;
 * - many different quotes from one funded account executed at once: no overdraft (the
 *   total debited never exceeds the funding), and money conserved.
 * After each round the auditor (payments-service/testing) checks the books through the
 * store, and both apps must report the ledger's balances.
 */
import { Context } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWebHandler } from "../../src/http/app.js"
import { Store } from "../../src/ports/store.js"
import { servicesFor } from "../../src/server/services.js"
import { auditLedger, type LedgerAuditView, type MoneyApiClient, type MoneyWorld, setupMoneyWorld, storeAuditView } from "../../src/testing/money-model.js"
import { basic, readReply, type Reply } from "../support/api.js"
import { makePlatform } from "../support/onboarding-client.js"
import { migratedDatabase } from "../support/databases.js"

const platform = makePlatform("money-race", { regulated: true })
type App = ReturnType<typeof makeWebHandler>
const apps: Array<App> = []
let audit: LedgerAuditView
let world: MoneyWorld

const call = async (via: number, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> => {
  const res = await apps[via]!.handler(new Request(`http://test/2025-10-13${path}`, {
    method,
    headers: { authorization: basic(platform), ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  }))
  return readReply(res)
}
const client = (via: number): MoneyApiClient => ({ call: (method, path, body, headers) => call(via, method, path, body, headers) })

beforeAll(async () => {
  const url = await migratedDatabase()
  for (let i = 0; i < 2; i++) apps.push(makeWebHandler({ services: servicesFor({ kind: "postgres", url }, [platform], { webhookDestinations: ["loopback"] }), schedulerIntervalMillis: false }))
  await Promise.all(apps.map((a) => a.ready))
  audit = storeAuditView(Context.get(await apps[0]!.ready, Store), platform.id)
  world = (await setupMoneyWorld(client(0))).world
}, 60_000)
afterAll(async () => {
  await Promise.allSettled(apps.map((a) => a.dispose()))
})

const balanceOf = async (via: number, accountId: string): Promise<number> => {
  const r = await call(via, "GET", "/customers/internal-accounts?limit=100")
  expect(r.status).toBe(200)
  return (r.body.data as Array<{ id: string; balance: { amount: number } }>).find((a) => a.id === accountId)!.balance.amount
}

/** The books are right, and both apps report the ledger's balances. */
const expectSoundBooks = async () => {
  for (const via of [0, 1]) {
    const r = await call(via, "GET", "/customers/internal-accounts?limit=100")
    const seen = new Map((r.body.data as Array<{ id: string; balance: { amount: number } }>).map((a) => [a.id, a.balance.amount]))
    expect(await auditLedger(audit, { apiBalances: seen })).toEqual([])
  }
}

const debitsOf = async (transactionId: string) => (await audit.entries()).filter((e) => e.transactionId === transactionId && e.kind === "DEBIT")

const fund = async (accountId: string, amount: number) => {
  expect((await call(0, "POST", `/sandbox/internal-accounts/${accountId}/fund`, { amount })).status).toBe(200)
}

const quote = async (via: number, accountId: string, amount: number, destination: Record<string, unknown>) => {
  const r = await call(via, "POST", "/quotes", {
    source: { sourceType: "ACCOUNT", accountId },
    destination,
    lockedCurrencySide: "SENDING",
    lockedCurrencyAmount: amount
  })
  expect(r.status, JSON.stringify(r.body)).toBe(201)
  return r.body as { id: string; transactionId: string; totalSendingAmount: number }
}

const ROUNDS = 4
const RACERS = 8

describe("money on two app instances sharing one PostgreSQL database", () => {
  it("the same quote executed concurrently without a key: one 200, the rest 409, one debit", async () => {
    const source = world.internal.A.USD
    for (let round = 0; round < ROUNDS; round++) {
      await fund(source, 50_000)
      const before = await balanceOf(0, source)
      const q = await quote(round % 2, source, 10_000, { destinationType: "ACCOUNT", accountId: world.external["000"], paymentRail: "RTP" })
      const replies = await Promise.all(Array.from({ length: RACERS }, (_, i) => call(i % 2, "POST", `/quotes/${q.id}/execute`)))
      expect(replies.filter((r) => r.status === 200), JSON.stringify(replies.map((r) => r.status))).toHaveLength(1)
      for (const r of replies.filter((x) => x.status !== 200)) expect([r.status, r.body.code]).toEqual([409, "CONFLICT"])
      expect(await debitsOf(q.transactionId)).toHaveLength(1)
      expect(await balanceOf(1, source)).toBe(before - 10_000)
      await expectSoundBooks()
    }
  }, 60_000)

  it("the same quote executed concurrently with one Idempotency-Key: the same answer everywhere, one debit", async () => {
    const source = world.internal.B.USD
    for (let round = 0; round < ROUNDS; round++) {
      await fund(source, 50_000)
      const before = await balanceOf(0, source)
      const q = await quote(round % 2, source, 7_000, { destinationType: "ACCOUNT", accountId: world.internal.A.EUR })
      const key = `race-${round}-${q.id}`
      const replies = await Promise.all(Array.from({ length: RACERS }, (_, i) => call(i % 2, "POST", `/quotes/${q.id}/execute`, undefined, { "idempotency-key": key })))
      expect(replies.map((r) => r.status), JSON.stringify(replies.map((r) => r.body))).toEqual(replies.map(() => 200))
      for (const r of replies) expect(r.body).toEqual(replies[0]!.body)
      expect(await debitsOf(q.transactionId)).toHaveLength(1)
      expect(await balanceOf(1, source)).toBe(before - 7_000)
      // A retry after the race replays too; another key finds the quote executed.
      expect((await call(1, "POST", `/quotes/${q.id}/execute`, undefined, { "idempotency-key": key })).body).toEqual(replies[0]!.body)
      expect((await call(0, "POST", `/quotes/${q.id}/execute`, undefined, { "idempotency-key": `${key}-other` })).status).toBe(409)
      await expectSoundBooks()
    }
  }, 60_000)

  it("many different quotes from one funded account at once: no overdraft, money conserved", async () => {
    const source = world.internal.A.MXN
    const amount = 15_000
    const destinations = [
      { destinationType: "ACCOUNT", accountId: world.internal.B.MXN },
      { destinationType: "ACCOUNT", accountId: world.internal.B.USD },
      { destinationType: "ACCOUNT", accountId: world.external["000"], paymentRail: "RTP" },
      { destinationType: "UMA_ADDRESS", umaAddress: `$success.usd@${world.umaDomain}` }
    ]
    for (let round = 0; round < ROUNDS; round++) {
      const start = await balanceOf(0, source)
      // Top up to exactly 100,000: room for 6 of the 12 quotes below.
      if (start < 100_000) await fund(source, 100_000 - start)
      const funded = await balanceOf(0, source)
      expect(funded).toBeGreaterThanOrEqual(100_000)
      const quotes = []
      for (let i = 0; i < 12; i++) quotes.push(await quote(i % 2, source, amount, destinations[i % destinations.length]!))
      const replies = await Promise.all(quotes.map((q, i) => call(i % 2, "POST", `/quotes/${q.id}/execute`, undefined, i % 3 === 0 ? { "idempotency-key": `many-${round}-${i}` } : {})))
      const ok = replies.filter((r) => r.status === 200).length
      for (const r of replies.filter((x) => x.status !== 200)) expect([r.status, r.body.code], JSON.stringify(r.body)).toEqual([400, "INSUFFICIENT_FUNDS"])
      expect(ok * amount).toBeLessThanOrEqual(funded)
      expect(ok).toBe(Math.min(quotes.length, Math.floor(funded / amount)))
      expect(await balanceOf(1, source)).toBe(funded - ok * amount)
      for (const [i, q] of quotes.entries()) expect(await debitsOf(q.transactionId)).toHaveLength(replies[i]!.status === 200 ? 1 : 0)
      await expectSoundBooks()
    }
  }, 90_000)
})
