/**
 * The exported money model (payments-service/testing) against the reference server
 * in-process, with the auditor reading the Store after every command. Runs on the
 * memory store by default; test/postgres/money-model.test.ts runs it on PostgreSQL.
 * Bounded by default; FC_NUM_RUNS raises the number of runs; FC_SEED and FC_PATH (as
 * fast-check prints them on a failure) replay one.
 */
import { Context } from "effect"
import fc from "fast-check"
import { afterAll, describe, expect, it } from "vitest"
import type { Platform } from "../../src/domain/platform.js"
import { Store } from "../../src/ports/store.js"
import {
  AdvanceClock,
  auditLedger,
  CreateQuote,
  ExecuteQuote,
  Fund,
  type MoneyApiClient,
  moneyCommands,
  type MoneyReal,
  setupMoneyWorld,
  storeAuditView
} from "../../src/testing/money-model.js"
import { defaultTestStore, jsonClientOf, makeApi } from "../support/api.js"
import { makePlatform } from "../support/onboarding-client.js"
import { numRuns, replay } from "../support/runs.js"

const store = defaultTestStore()
const platform: Platform = makePlatform("money-model", { regulated: true })
const api = makeApi([platform], undefined, { store })
afterAll(() => api.dispose())

const client: MoneyApiClient = jsonClientOf(api)

/** FC_SEED (and FC_PATH, as fast-check prints them) replay a failure. */
const realWithAudit = async (): Promise<MoneyReal> => ({
  api: client,
  audit: storeAuditView(Context.get(await api.ready, Store), platform.id)
})

describe(`money model and auditor (${store})`, () => {
  it("the books balance and the API agrees with the model across any sequence of money commands", async () => {
    const real = await realWithAudit()
    await fc.assert(
      fc.asyncProperty(fc.commands(moneyCommands(), { maxCommands: store === "memory" ? 40 : 25, size: "max" }), async (cmds) => {
        const { model } = await setupMoneyWorld(client)
        // Money to move from the start: A's and B's USD, A's EUR.
        for (const [pick, amount] of [[0, 400_000], [1, 200_000], [3, 300_000]] as const) await new Fund(pick, amount).run(model, real)
        await fc.asyncModelRun(() => ({ model, real }), cmds)
      }),
      {
        numRuns: numRuns(store === "memory" ? 25 : 10),
        // Shrinking replays the whole world per attempt: worth it in memory, too slow on a database.
        ...(store === "memory" ? {} : { endOnFailure: true }),
        ...replay()
      }
    )
  }, 120_000)

  it("runs without ledger access too (a remote server): the model alone", async () => {
    const { model } = await setupMoneyWorld(client)
    const real: MoneyReal = { api: client }
    await new Fund(0, 50_000).run(model, real)
    await new CreateQuote(0, { kind: "EXTERNAL", suffix: "007", rail: "RTP" }, "SENDING", 1_000, false).run(model, real)
    await new ExecuteQuote(0, { kind: "FRESH" }).run(model, real)
    await new AdvanceClock(6).run(model, real)
    expect(model.payments[0]?.funds).toBe("PARKED")
    expect(model.balanceOf(model.world.internal.A.USD)).toBe(49_000)
  })

  it("the auditor catches books that do not balance", async () => {
    const real = await realWithAudit()
    const { model } = await setupMoneyWorld(client)
    await new Fund(0, 10_000).run(model, real)
    const view = real.audit!
    const broken = {
      ...view,
      entries: async () => (await view.entries()).map((e) => ({ ...e, postings: e.postings.map((p, i) => (i === 0 ? { ...p, amount: p.amount + 1 } : p)) }))
    }
    const problems = await auditLedger(broken, { model })
    expect(problems.some((p) => /sums to 1/.test(p))).toBe(true)
  })
})
