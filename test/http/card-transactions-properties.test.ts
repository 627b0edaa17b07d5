/**
 * Money conservation of card transactions over HTTP: random sequences of simulate calls
 * (every endpoint, every suffix, sandbox clock advances) on one card, with an auditor
 * after the sequence reading the store's ledger: every currency's balances sum to zero,
 * no internal account is below zero, the card-holds account holds exactly what the open
 * rows hold, and the funding account's balance is what the rows say moved. No call is
 * ever answered 5xx, and every refusal has the API's error shape.
 */
import { Effect } from "effect"
import fc from "fast-check"
import { afterAll, describe, expect, it } from "vitest"
import { Store } from "../../src/ports/store.js"
import { isErrorShape, makeApi } from "../support/api.js"
import { cardClient } from "../support/cards.js"
import { moneyPlatform } from "../support/money.js"
import { numRuns } from "../support/runs.js"

const platform = moneyPlatform("card-tx-properties", { currencies: ["USD"] })
const api = makeApi([platform])
const c = cardClient(api, platform)
afterAll(() => api.dispose())

type Step =
  | { readonly t: "open"; readonly what: string; readonly amount: number; readonly suffix: string }
  | { readonly t: "row"; readonly what: "clearing" | "authorization_advice" | "return"; readonly pick: number; readonly amount: number }
  | { readonly t: "reverse"; readonly pick: number }
  | { readonly t: "advance"; readonly seconds: number }

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      t: fc.constant("open" as const),
      what: fc.constantFrom("authorization", "authorization", "authorization", "financial_authorization", "credit_authorization", "financial_credit_authorization", "credit_authorization_advice", "balance_inquiry"),
      amount: fc.integer({ min: 1, max: 4000 }),
      suffix: fc.constantFrom("000", "789", "000", "789", "002", "003", "005", "006")
    })
  },
  {
    weight: 5,
    arbitrary: fc.record({
      t: fc.constant("row" as const),
      what: fc.constantFrom("clearing" as const, "clearing" as const, "authorization_advice" as const, "return" as const),
      pick: fc.nat(),
      amount: fc.integer({ min: 0, max: 4000 })
    })
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("reverse" as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("advance" as const), seconds: fc.constantFrom(10, 31, 31, 7 * 86_400) }) }
)

interface Row {
  readonly id: string
  readonly status: string
  readonly direction: string
  readonly originalTransactionId?: string
  readonly accountId?: string
}

const ledger = async () => {
  const context = await api.ready
  return Effect.runPromise(Effect.provideContext(Effect.flatMap(Effect.service(Store), (s) => Effect.all({
    balances: s.ledger.allBalances(platform.id),
    rows: s.cardTransactions.list(platform.id, {}, { limit: 1000 })
  })), context))
}

describe("card transactions over HTTP: money is conserved", () => {
  it("any sequence of simulate calls keeps the ledger balanced, internal accounts non-negative, holds equal to the open rows'", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 10_000 }), fc.array(step, { minLength: 4, maxLength: 16 }), async (funds, steps) => {
        const h = await c.holder()
        const account = h.accounts["USD"]!
        if (funds > 0) await c.fund(account, funds)
        const card = await c.issueFor(h, { maxSpendPerTransaction: 3000 })
        const rows = async () => ((await c.ok("GET", `/transactions?cardId=${card.id}&limit=100`)).data as Array<Row>)
        for (const s of steps) {
          let r: { status: number; body: unknown }
          if (s.t === "advance") {
            await c.advance(s.seconds)
            continue
          }
          const path = (what: string) => `/sandbox/cards/${card.id}/simulate/${what}`
          const merchant = { descriptor: `SHOP ${s.t === "open" ? s.suffix : "000"}` }
          if (s.t === "open") {
            r = await c.call("POST", path(s.what), s.what === "balance_inquiry" ? { merchant } : { amount: s.amount, currency: { code: "USD" }, merchant })
          } else {
            const all = await rows()
            if (all.length === 0) continue
            const target = all[s.pick % all.length]!
            r = s.t === "reverse"
              ? await c.call("POST", path("return_reversal"), { cardTransactionId: target.id })
              : await c.call("POST", path(s.what), { cardTransactionId: target.id, amount: s.what === "clearing" ? s.amount : Math.max(1, s.amount) })
          }
          expect(r.status, JSON.stringify(r.body)).toBeLessThan(500)
          if (r.status !== 202) {
            expect([400, 404], JSON.stringify(r.body)).toContain(r.status)
            expect(isErrorShape(r.body), JSON.stringify(r.body)).toBe(true)
          }
        }
        const { balances, rows: stored } = await ledger()
        const sums = new Map<string, number>()
        for (const b of balances) {
          sums.set(b.currency, (sums.get(b.currency) ?? 0) + b.balance)
          if (b.account.startsWith("InternalAccount:")) expect(b.balance, b.account).toBeGreaterThanOrEqual(0)
        }
        for (const [ccy, sum] of sums) expect(sum, ccy).toBe(0)
        const held = stored.data.reduce((n, rec) => n + rec.state.held, 0)
        expect(balances.find((b) => b.account === "system:card_holds:USD")?.balance ?? 0).toBe(held)
        // The funding account: funded, minus what the rows moved out, plus what they moved in.
        const net = stored.data.filter((rec) => rec.transaction.cardId === card.id).reduce((n, rec) => {
          const s = rec.state
          if (s.direction === "DEBIT") return n - (s.pulls.total - s.released)
          // Credit rows: credited when settled; a reversed return took its money back (VOIDED), or left it fronted (EXCEPTION).
          if (s.kind === "RETURN" && s.status === "VOIDED") return n
          return n + s.settled
        }, 0)
        expect(await c.balance(account, h.id)).toBe(funds + net)
      }),
      { numRuns: numRuns(15) }
    )
  }, 600_000)
})
