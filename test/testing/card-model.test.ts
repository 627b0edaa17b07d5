/**
 * The exported card model (payments-service/testing) against the reference server
 * in-process: cards issued, frozen, unfrozen, closed, re-funded and limited, sandbox
 * authorizations approved or declined as the model predicts, the funding accounts'
 * balances, and the card list compared with the model after every command. The platform
 * has embedded wallets (each cardholder's USDC account is a wallet: a card it funds
 * declines without a delegated key) and a live-card maximum of 4, so the slot rule shows.
 * Bounded by default; FC_NUM_RUNS raises the number of runs; FC_SEED and FC_PATH (as
 * fast-check prints them on a failure) replay one.
 */
import fc from "fast-check"
import { afterAll, describe, expect, it } from "vitest"
import { platformFromConfig } from "../../src/domain/platform.js"
import {
  type CardApiClient,
  cardCommands,
  CardChecked,
  type CardCommand,
  type CardModel,
  FundCardAccount,
  IssueCard,
  ReplaceCardFundingSources,
  SetCardSpendLimit,
  SetCardStatus,
  setupCardWorld,
  SimulateCardAuthorization
} from "../../src/testing/card-model.js"
import { defaultTestStore, jsonClientOf, makeApi } from "../support/api.js"
import { numRuns, replay } from "../support/runs.js"

const MAX_LIVE_CARDS = 4
const store = defaultTestStore()
const platform = platformFromConfig({
  id: "card-model",
  clientId: "card-model",
  clientSecret: "card-model-secret",
  regulated: true,
  embeddedWallets: {},
  cards: { maxLiveCards: MAX_LIVE_CARDS }
})
const api = makeApi([platform], undefined, { store })
afterAll(() => api.dispose())

const client: CardApiClient = jsonClientOf(api)

const world = () => setupCardWorld(client, { maxLiveCards: MAX_LIVE_CARDS })
const accountIndex = (m: CardModel, owner: "A" | "B", currency: string) => m.world.accounts.findIndex((a) => a.owner === owner && a.currency === currency)
/** The index of `currency` among the owner's issuable accounts (IssueCard's pick). */
const eligiblePick = (m: CardModel, owner: "A" | "B", currency: string) => m.issuable(owner).findIndex((a) => a.currency === currency)
const reasons = (m: CardModel, card: number) => m.cards[card]!.rows.map((r) => r.reason ?? r.status)

describe(`card model (${store})`, () => {
  it("cards, authorizations and balances agree with the model across any sequence of commands", async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(cardCommands(), { maxCommands: store === "memory" ? 40 : 20, size: "max" }), async (cmds) => {
        const model = await world()
        // Money on both USD accounts from the start, so authorizations can be approved.
        for (const owner of ["A", "B"] as const) await new FundCardAccount(accountIndex(model, owner, "USD"), 20_000).run(model, client)
        await fc.asyncModelRun(() => ({ model, real: client }), cmds)
      }),
      { numRuns: numRuns(store === "memory" ? 30 : 8), ...replay() }
    )
  }, 120_000)

  it("every rule in turn: the status table, each decline, the funding-source refusals, the live-card maximum", async () => {
    const m = await world()
    const step = (cmd: CardCommand) => new CardChecked(cmd).run(m, client)
    expect(m.world.accounts.filter((a) => a.owner === "A").map((a) => `${a.currency}${a.wallet ? " wallet" : ""}${a.eligible ? " eligible" : ""}`).sort())
      .toEqual(["EUR", "MXN", "USD eligible", "USDC wallet eligible"])
    await step(new FundCardAccount(accountIndex(m, "A", "USD"), 10_000))
    await step(new IssueCard("A", "OWN", eligiblePick(m, "A", "USD"), 5_000))
    expect(m.cards[0]).toMatchObject({ currency: "USD", status: "ACTIVE", maxSpend: 5_000 })

    // The spend limit (the limit itself is allowed), then the balance.
    await step(new SimulateCardAuthorization(0, { kind: "LIMIT", delta: 1 }, "PLAIN"))
    await step(new SimulateCardAuthorization(0, { kind: "LIMIT", delta: 0 }, "PLAIN"))
    await step(new SetCardSpendLimit(0, null))
    await step(new SimulateCardAuthorization(0, { kind: "BALANCE", delta: 1 }, "PLAIN"))
    await step(new SimulateCardAuthorization(0, { kind: "BALANCE", delta: 0 }, "PLAIN"))
    expect(m.balanceOf(m.cards[0]!.fundingSources[0]!)).toBe(0)
    await step(new FundCardAccount(accountIndex(m, "A", "USD"), 3_000))
    await step(new SimulateCardAuthorization(0, { kind: "FIXED", amount: 100 }, "002"))
    await step(new SimulateCardAuthorization(0, { kind: "FIXED", amount: 100 }, "003"))
    expect(reasons(m, 0)).toEqual(["SPEND_LIMIT_EXCEEDED", "AUTHORIZED", "INSUFFICIENT_FUNDS", "AUTHORIZED", "INSUFFICIENT_FUNDS", "CARD_NOT_ACTIVE"])

    // ACTIVE ⇄ FROZEN; the same status again is no move.
    await step(new SetCardStatus(0, "FROZEN", "state", undefined))
    await step(new SetCardStatus(0, "FROZEN", "status", undefined))
    await step(new SimulateCardAuthorization(0, { kind: "FIXED", amount: 100 }, "PLAIN"))
    await step(new SetCardStatus(0, "ACTIVE", "both", 2_000))
    await step(new SetCardStatus(0, "ACTIVE", "state", undefined))
    expect(m.cards[0]).toMatchObject({ status: "ACTIVE", maxSpend: 2_000 })
    expect(reasons(m, 0).at(-1)).toBe("CARD_NOT_ACTIVE")

    // Funding sources: only the cardholder's account in the card's currency.
    for (const s of ["OTHER_CURRENCY", "NOT_ELIGIBLE", "OTHERS", "DUPLICATE", "UNKNOWN", "EMPTY", "SAME"] as const) await step(new ReplaceCardFundingSources(0, s))
    for (const s of ["OTHERS", "NOT_ELIGIBLE", "MIXED", "DUPLICATE", "UNKNOWN"] as const) await step(new IssueCard("A", s, eligiblePick(m, "A", "USD"), null))
    expect(m.cards).toHaveLength(1)

    // A card the wallet funds: no delegated key, no payment.
    await step(new FundCardAccount(accountIndex(m, "A", "USDC"), 10_000))
    await step(new IssueCard("A", "OWN", eligiblePick(m, "A", "USDC"), null))
    await step(new SimulateCardAuthorization(1, { kind: "FIXED", amount: 100 }, "PLAIN"))
    expect(reasons(m, 1)).toEqual(["NO_ELIGIBLE_FUNDING_SOURCE"])

    // CLOSED: terminal, unchanged by anything but a malformed body (400 first).
    await step(new SetCardStatus(0, "CLOSED", "state", 1_000))
    await step(new SetCardStatus(0, "CLOSED", "status", undefined))
    expect(m.cards[0]).toMatchObject({ status: "CLOSED", stateReason: "CLOSED_BY_PLATFORM", fundingSources: [] })
    await step(new SetCardStatus(0, "CLOSED", "both", undefined))
    await step(new SetCardStatus(0, "ACTIVE", "state", undefined))
    await step(new SetCardSpendLimit(0, 1_000))
    await step(new SetCardSpendLimit(0, 0))
    await step(new ReplaceCardFundingSources(0, "SAME"))
    await step(new ReplaceCardFundingSources(0, "EMPTY"))
    await step(new SimulateCardAuthorization(0, { kind: "FIXED", amount: 100 }, "PLAIN"))
    expect(reasons(m, 0).at(-1)).toBe("CARD_NOT_ACTIVE")

    // The live-card maximum: 1 live (the wallet's card); 3 more, then refused until one closes.
    for (let i = 0; i < 4; i++) await step(new IssueCard("B", "OWN", eligiblePick(m, "B", "USD"), null))
    expect(m.cards.filter((c) => c.status !== "CLOSED")).toHaveLength(MAX_LIVE_CARDS)
    expect(m.cards).toHaveLength(5)
    await step(new SetCardStatus(2, "FROZEN", "state", undefined))
    await step(new IssueCard("B", "OWN", eligiblePick(m, "B", "USD"), null))
    expect(m.cards).toHaveLength(5)
    await step(new SetCardStatus(2, "CLOSED", "state", undefined))
    await step(new IssueCard("B", "OWN", eligiblePick(m, "B", "USD"), null))
    expect(m.cards).toHaveLength(6)
  })

  it("catches a server whose frozen cards still pay", async () => {
    const m = await world()
    // The bug: an authorization on a FROZEN card is decided as if the card were ACTIVE.
    const frozenPays: CardApiClient = {
      call: async (method, path, body, headers) => {
        const simulated = /^\/sandbox\/cards\/([^/]+)\/simulate\/authorization$/.exec(path)
        if (simulated === null) return client.call(method, path, body, headers)
        const cardPath = `/cards/${simulated[1]}`
        const frozen = ((await client.call("GET", cardPath)).body as { status?: string }).status === "FROZEN"
        if (frozen) await client.call("PATCH", cardPath, { status: "ACTIVE" })
        const r = await client.call(method, path, body, headers)
        if (frozen) await client.call("PATCH", cardPath, { status: "FROZEN" })
        return r
      }
    }
    const step = (cmd: CardCommand) => new CardChecked(cmd).run(m, frozenPays)
    await step(new FundCardAccount(accountIndex(m, "A", "USD"), 10_000))
    await step(new IssueCard("A", "OWN", eligiblePick(m, "A", "USD"), null))
    await step(new SimulateCardAuthorization(0, { kind: "FIXED", amount: 100 }, "PLAIN"))
    await step(new SetCardStatus(0, "FROZEN", "state", undefined))
    await expect(step(new SimulateCardAuthorization(0, { kind: "FIXED", amount: 100 }, "PLAIN")))
      .rejects.toThrow(/the model expects DECLINED CARD_NOT_ACTIVE on .*, the API answered AUTHORIZED/)
  })
})
