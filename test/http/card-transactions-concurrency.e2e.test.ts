/**
 * Concurrent authorizations on one funding account (docs/card-transactions.md): each
 * decision reads the balance and holds in one serializable unit of work, so racing
 * authorizations never hold more than the account has. test/postgres/ runs it again on
 * PostgreSQL, where the races are real (serialization failures rerun a unit of work).
 */
import { afterAll, describe, expect, it } from "vitest"
import { makeApi } from "../support/api.js"
import { cardClient } from "../support/cards.js"
import { moneyPlatform } from "../support/money.js"

const platform = moneyPlatform("card-tx-concurrency", { currencies: ["USD"] })
const api = makeApi([platform])
const c = cardClient(api, platform)
afterAll(() => api.dispose())

describe("racing authorizations", () => {
  it("hold at most the balance: exactly as many approved as it covers, the rest declined INSUFFICIENT_FUNDS, never a 5xx", async () => {
    const h = await c.holder()
    const account = h.accounts["USD"]!
    await c.fund(account, 1000)
    const card = await c.issueFor(h)
    const replies = await Promise.all(Array.from({ length: 8 }, (_, i) =>
      c.call("POST", `/sandbox/cards/${card.id}/simulate/authorization`, { amount: 400, currency: { code: "USD" }, merchant: { descriptor: `RACE ${i}` } })
    ))
    for (const r of replies) expect(r.status, JSON.stringify(r.body)).toBe(202)
    const rows = (await c.ok("GET", `/transactions?cardId=${card.id}&limit=100`)).data as Array<{ status: string; cardDeclinedReason?: string }>
    expect(rows).toHaveLength(8)
    expect(rows.filter((r) => r.status === "AUTHORIZED")).toHaveLength(2)
    expect(rows.filter((r) => r.status === "DECLINED" && r.cardDeclinedReason === "INSUFFICIENT_FUNDS")).toHaveLength(6)
    expect(await c.balance(account, h.id)).toBe(200)
  }, 60_000)
})
