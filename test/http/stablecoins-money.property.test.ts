/**
 * Money conservation for stablecoin mints funded from a Grid internal account, over HTTP
 * (a bounded fast-check property, as the money model does for payments): across any
 * sequence of fundings, mints (affordable or not, representable or not) and clock
 * advances, the account's balance is what a simple model says, never negative, the
 * in-flight account holds exactly the fiat of the mints still PROCESSING, and every
 * debited mint ends COMPLETED with its fiat out of the ledger.
 */
import { Effect } from "effect"
import fc from "fast-check"
import { afterAll, describe, expect, it } from "vitest"
import { Store } from "../../src/ports/store.js"
import { MINT_SETTLE_MILLIS } from "../../src/rules/stablecoins/operation.js"
import { makeApi } from "../support/api.js"
import { moneyClient, moneyPlatform } from "../support/money.js"
import { numRuns } from "../support/runs.js"

const platform = moneyPlatform("stablecoins-money-model")
const api = makeApi([platform])
afterAll(() => api.dispose())
const c = moneyClient(api, platform)

type Command =
  | { readonly kind: "fund"; readonly cents: number }
  | { readonly kind: "mint"; readonly units: bigint }
  | { readonly kind: "advance"; readonly seconds: number }

const command: fc.Arbitrary<Command> = fc.oneof(
  fc.integer({ min: 1, max: 50_000 }).map((cents) => ({ kind: "fund" as const, cents })),
  fc.oneof(
    fc.integer({ min: 1, max: 60_000 }).map((cents) => BigInt(cents) * 10_000n),
    fc.bigInt({ min: 1n, max: 600_000_000n })
  ).map((units) => ({ kind: "mint" as const, units })),
  fc.integer({ min: 1, max: 45 }).map((seconds) => ({ kind: "advance" as const, seconds }))
)

let run = 0
const ledger = async (accounts: ReadonlyArray<string>) => {
  const context = await api.ready
  return Effect.runPromise(Effect.provideContext(Effect.flatMap(Effect.service(Store), (s) => s.ledger.balances(platform.id, accounts)), context))
}

describe("stablecoin mints from a Grid internal account conserve money", () => {
  it("balances follow the model after every step", { timeout: 300_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 12 }), async (commands) => {
        await c.ok("POST", "/sandbox/reset", undefined, 204)
        let step = 0
        run++
        const k = () => ({ "idempotency-key": `model-${run}-${++step}` })
        const link = await c.ok("POST", "/stablecoin-provider-accounts", { provider: "BRALE", apiClientId: `model-${run}`, apiClientSecret: "s" }, 201, k())
        const coin = await c.ok("POST", "/stablecoins", {
          providerTokenIdentifier: "MODEL",
          networkTokenIdentifier: "btkn1qw508d6qejxtdg4y5r3zarvary0c5xw7k",
          network: "SPARK",
          stablecoinProviderAccountId: link.id
        }, 201, k())
        await c.advance(60)
        await c.ok("POST", `/stablecoins/${coin.id}/grid-operations-enablement`)
        await c.advance(120)
        const wallet = await c.ok("POST", "/platform/external-accounts", {
          currency: "BTC",
          accountInfo: { accountType: "SPARK_WALLET", address: "sparkrt1pgss9qpzry9x8gf2tvdw0s3jn54khce6mua7l" }
        }, 201)
        const usd = (await c.platformAccounts())["USD"]!
        let balance = 0
        /** Mints PROCESSING: fiat cents and when they settle (ms on the platform clock). */
        let processing: Array<{ id: string; cents: number; settlesAt: number }> = []
        const completed: Array<string> = []
        for (const cmd of commands) {
          if (cmd.kind === "fund") {
            await c.fund(usd, cmd.cents)
            balance += cmd.cents
          } else if (cmd.kind === "advance") {
            await c.advance(cmd.seconds)
            const now = await c.clock()
            completed.push(...processing.filter((p) => p.settlesAt <= now).map((p) => p.id))
            processing = processing.filter((p) => p.settlesAt > now)
          } else {
            const r = await c.call("POST", `/stablecoins/${coin.id}/mints`, {
              amount: cmd.units.toString(),
              fundingSource: { type: "GRID_INTERNAL_ACCOUNT", accountId: usd },
              destination: { accountId: wallet.id }
            }, k())
            const cents = cmd.units % 10_000n === 0n ? Number(cmd.units / 10_000n) : undefined
            if (cents === undefined) {
              expect(r.body.code).toBe("STABLECOIN_AMOUNT_NOT_REPRESENTABLE")
            } else if (cents > balance) {
              expect(r.body.code).toBe("INSUFFICIENT_FUNDS")
            } else {
              expect(r.status, JSON.stringify(r.body)).toBe(201)
              expect(r.body.status).toBe("PROCESSING")
              balance -= cents
              processing.push({ id: r.body.id, cents, settlesAt: Date.parse(r.body.createdAt) + MINT_SETTLE_MILLIS })
            }
          }
          expect(await c.balance(usd)).toBe(balance)
          const inFlight = (await ledger(["system:in_flight:USD"])).get("system:in_flight:USD")
          expect(inFlight).toBe(processing.reduce((s, p) => s + p.cents, 0))
        }
        for (const id of completed) expect((await c.ok("GET", `/stablecoin-operations/${id}`)).status).toBe("COMPLETED")
        for (const p of processing) expect((await c.ok("GET", `/stablecoin-operations/${p.id}`)).status).toBe("PROCESSING")
      }),
      { numRuns: numRuns(15) }
    )
  })
})
