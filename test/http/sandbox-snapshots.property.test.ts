/**
 * Property: snapshot → any commands → restore gives back the snapshot's state exactly.
 * The money model (payments-service/testing) drives the platform to a random state
 * (fundings, quotes, payments, transfers, UMA receipts, cancellations, clock advances),
 * a snapshot is taken, more random commands (and new customers) follow, and the restore
 * must give back every record, the ledger, the outbox, webhook deliveries, scheduled
 * moves and config as they were (test/support/platform-state.ts), with the money model's
 * auditor finding the books right before and after. Memory by default;
 * test/postgres/sandbox-snapshots.property.test.ts runs it on PostgreSQL. Bounded runs
 * (FC_NUM_RUNS raises them; FC_SEED and FC_PATH replay a failure).
 */
import { Context } from "effect"
import fc from "fast-check"
import { afterAll, describe, expect, it } from "vitest"
import type { Platform } from "../../src/domain/platform.js"
import { Store } from "../../src/ports/store.js"
import { auditLedger, Fund, type MoneyApiClient, moneyCommands, type MoneyReal, setupMoneyWorld, storeAuditView } from "../../src/testing/money-model.js"
import { defaultTestStore, jsonClientOf, makeApi } from "../support/api.js"
import { makePlatform } from "../support/onboarding-client.js"
import { platformState } from "../support/platform-state.js"
import { numRuns, replay } from "../support/runs.js"

const storeKind = defaultTestStore()
const platform: Platform = makePlatform("snapshot-model", { regulated: true })
const api = makeApi([platform], undefined, { store: storeKind })
afterAll(() => api.dispose())

const client: MoneyApiClient = jsonClientOf(api)

const ok = async (method: string, path: string, body?: unknown) => {
  const r = await client.call(method, path, body)
  expect(r.status, `${method} ${path}: ${JSON.stringify(r.body)}`).toBeLessThan(300)
  return r.body
}

describe(`snapshot, any commands, restore (${storeKind})`, () => {
  it("gives back the snapshot's state exactly, and the auditor agrees before and after", async () => {
    const store = Context.get(await api.ready, Store)
    const real: MoneyReal = { api: client, audit: storeAuditView(store, platform.id) }
    const state = () => platformState(api, store, platform)
    const max = storeKind === "memory" ? 12 : 8
    await fc.assert(
      fc.asyncProperty(
        fc.commands(moneyCommands(), { maxCommands: max, size: "max" }),
        fc.commands(moneyCommands(), { maxCommands: max, size: "max" }),
        fc.nat(2),
        async (before, after, newCustomers) => {
          const { model } = await setupMoneyWorld(client)
          for (const [pick, amount] of [[0, 400_000], [1, 200_000], [3, 300_000]] as const) await new Fund(pick, amount).run(model, real)
          await fc.asyncModelRun(() => ({ model, real }), before)

          const snapshot = (await ok("POST", "/sandbox/snapshots", { name: "property" })) as { readonly id: string }
          const saved = await state()
          expect(await auditLedger(real.audit!)).toEqual([])

          await fc.asyncModelRun(() => ({ model, real }), after)
          for (let i = 0; i < newCustomers; i++) await ok("POST", "/customers", { customerType: "INDIVIDUAL", fullName: `After ${i}` })
          await ok("POST", "/sandbox/clock/advance", { seconds: 86_401 })

          await ok("POST", `/sandbox/snapshots/${encodeURIComponent(snapshot.id)}/restore`)
          expect(await state()).toEqual(saved)
          expect(await auditLedger(real.audit!)).toEqual([])
          await ok("DELETE", `/sandbox/snapshots/${encodeURIComponent(snapshot.id)}`)
        }
      ),
      {
        numRuns: numRuns(storeKind === "memory" ? 10 : 4),
        ...(storeKind === "memory" ? {} : { endOnFailure: true }),
        ...replay()
      }
    )
  }, 240_000)
})
