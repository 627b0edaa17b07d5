/**
 * A model-based command set (fast-check) for cards (docs/cards.md) and their sandbox
 * authorizations (docs/card-transactions.md). The reference model is deliberately
 * simple: the cards of two approved cardholders (status, funding sources, spend limit),
 * their internal accounts' balances, and the authorization rows each card left. The
 * commands drive any implementation of the API through a small client (the reference
 * server in-process, `npm start` over HTTP, or a platform's own integration):
 *
 * - issue a card (`POST /cards`), mostly from the cardholder's own account (now and then
 *   an embedded wallet), else from another customer's, an account in a currency no card
 *   takes, two currencies at once, an account listed twice or one that does not exist;
 * - freeze, unfreeze, close (`PATCH /cards/{id}` with `state`, `status` or both, now and
 *   then with a spend limit beside), replace the funding sources, set or clear the spend
 *   limit; every refusal is predicted by SPEC.md's card status table;
 * - simulate an authorization (`POST /sandbox/cards/{id}/simulate/authorization`) that
 *   the model predicts approved (the amount held on the funding account) or declined:
 *   CARD_NOT_ACTIVE (FROZEN, CLOSED, descriptor suffix 003), SPEND_LIMIT_EXCEEDED,
 *   NO_ELIGIBLE_FUNDING_SOURCE (an embedded wallet: the model creates no delegated key),
 *   INSUFFICIENT_FUNDS (suffix 002, or over the balance); amounts cluster around the
 *   limit and the balance, where the rules change their answer;
 * - fund an account (`POST /sandbox/internal-accounts/{id}/fund`).
 *
 * After every command (`CardChecked`) `GET /cards?cardholderId=` must list exactly the
 * model's cards as the model holds them, and `GET /customers/internal-accounts` every
 * balance the model derives.
 *
 * The model never moves the sandbox clock: an authorization's hold lasts 7 days, far
 * beyond a run. It assumes the platform's default card settings but the live-card
 * maximum (`maxLiveCards`, an option) and `oneCardPerCardholder` off.
 */
import fc from "fast-check"
import { CheckedCommand, type JsonApiClient } from "./commands.js"

/** The least a client must do: send JSON (with optional headers), get the status and parsed body back. */
export type CardApiClient = JsonApiClient

export type CardOwner = "A" | "B"
export type CardModelStatus = "ACTIVE" | "FROZEN" | "CLOSED"

/** An internal account of a cardholder, as the model knows it. */
export interface CardWorldAccount {
  readonly id: string
  readonly owner: CardOwner
  readonly currency: string
  /** In one of the platform's card-eligible currencies. */
  readonly eligible: boolean
  /** An EMBEDDED_WALLET account: it pays for a card only with an ACTIVE delegated key, which the model never creates. */
  readonly wallet: boolean
}

export interface CardWorld {
  readonly customers: Readonly<Record<CardOwner, string>>
  readonly accounts: ReadonlyArray<CardWorldAccount>
  readonly maxLiveCards: number
  /** Live (not CLOSED) cards of the platform the model did not issue. */
  readonly liveAtStart: number
}

/** One authorization row of a card. */
export interface ModelCardRow {
  readonly id: string
  readonly status: "AUTHORIZED" | "DECLINED"
  /** The decline's `cardDeclinedReason`. */
  readonly reason?: string
}

export interface ModelCard {
  readonly id: string
  readonly owner: CardOwner
  readonly currency: string
  status: CardModelStatus
  stateReason: "CLOSED_BY_PLATFORM" | null
  fundingSources: ReadonlyArray<string>
  maxSpend: number | null
  readonly rows: Array<ModelCardRow>
}

// ---------------------------------------------------------------- the rules, as the model knows them

export type CardRefusal = "CARD_ALREADY_CLOSED" | "CARD_NOT_MUTABLE" | "INVALID_STATE_TRANSITION"

/**
 * SPEC.md's card status table: ACTIVE ⇄ FROZEN, ACTIVE | FROZEN → CLOSED; CLOSED → CLOSED
 * is CARD_ALREADY_CLOSED, any other change of a CLOSED card CARD_NOT_MUTABLE, any other
 * move INVALID_STATE_TRANSITION. `to` undefined: a change other than the status.
 */
export const cardMove = (
  from: CardModelStatus,
  to: CardModelStatus | undefined
): { readonly ok: true; readonly next: CardModelStatus } | { readonly ok: false; readonly code: CardRefusal } => {
  if (from === "CLOSED") return { ok: false, code: to === "CLOSED" ? "CARD_ALREADY_CLOSED" : "CARD_NOT_MUTABLE" }
  if (to === undefined) return { ok: true, next: from }
  if (to === "CLOSED" || (from === "ACTIVE" && to === "FROZEN") || (from === "FROZEN" && to === "ACTIVE")) return { ok: true, next: to }
  return { ok: false, code: "INVALID_STATE_TRANSITION" }
}

/** The end of the merchant descriptor: PLAIN (no sandbox outcome), or a sandbox suffix that declines. */
export type CardDescriptor = "PLAIN" | "002" | "003"

export type CardAuthorizationOutcome =
  | { readonly approved: true; readonly accountId: string }
  | { readonly approved: false; readonly reason: string; readonly accountId?: string }

/**
 * Authorization decisioning (docs/card-transactions.md), the first that applies: not
 * ACTIVE or suffix 003, CARD_NOT_ACTIVE; above the limit (the limit itself is allowed),
 * SPEND_LIMIT_EXCEEDED; no source that can pay (the model's sources are the cardholder's
 * active accounts in the card's currency; a wallet pays only with a delegated key),
 * NO_ELIGIBLE_FUNDING_SOURCE; suffix 002, INSUFFICIENT_FUNDS; else the first source, in
 * priority order, whose balance covers the amount; none (sandbox): INSUFFICIENT_FUNDS.
 * A decline names the first source that could pay, else the first source, else none.
 */
export const predictCardAuthorization = (
  card: Pick<ModelCard, "status" | "maxSpend" | "fundingSources">,
  amount: number,
  descriptor: CardDescriptor,
  accounts: { readonly balanceOf: (id: string) => number; readonly isWallet: (id: string) => boolean }
): CardAuthorizationOutcome => {
  const payers = card.fundingSources.filter((id) => !accounts.isWallet(id))
  const shown = payers[0] ?? card.fundingSources[0]
  const declined = (reason: string): CardAuthorizationOutcome => ({ approved: false, reason, ...(shown === undefined ? {} : { accountId: shown }) })
  if (card.status !== "ACTIVE" || descriptor === "003") return declined("CARD_NOT_ACTIVE")
  if (card.maxSpend !== null && amount > card.maxSpend) return declined("SPEND_LIMIT_EXCEEDED")
  if (payers.length === 0) return declined("NO_ELIGIBLE_FUNDING_SOURCE")
  if (descriptor === "002") return declined("INSUFFICIENT_FUNDS")
  const covering = payers.find((id) => accounts.balanceOf(id) >= amount)
  return covering === undefined ? declined("INSUFFICIENT_FUNDS") : { approved: true, accountId: covering }
}

/** The reference model: the cards, the accounts' balances, and nothing else. */
export class CardModel {
  readonly balances = new Map<string, number>()
  readonly cards: Array<ModelCard> = []
  constructor(readonly world: CardWorld, balances: ReadonlyMap<string, number>) {
    for (const a of world.accounts) this.balances.set(a.id, balances.get(a.id) ?? 0)
  }
  account(id: string): CardWorldAccount | undefined {
    return this.world.accounts.find((a) => a.id === id)
  }
  accountsOf(owner: CardOwner): ReadonlyArray<CardWorldAccount> {
    return this.world.accounts.filter((a) => a.owner === owner)
  }
  /** The owner's accounts a card may be issued from, wallets last: `IssueCard`'s pick indexes these. */
  issuable(owner: CardOwner): ReadonlyArray<CardWorldAccount> {
    const eligible = this.accountsOf(owner).filter((a) => a.eligible)
    return [...eligible.filter((a) => !a.wallet), ...eligible.filter((a) => a.wallet)]
  }
  balanceOf(id: string): number {
    return this.balances.get(id) ?? 0
  }
  /** Live (not CLOSED) cards of the platform, the model's and those it found. */
  live(): number {
    return this.world.liveAtStart + this.cards.filter((c) => c.status !== "CLOSED").length
  }
  /**
   * The card `pick` names: -1 the latest card, -2 the latest CLOSED card (else the latest),
   * any other indexes the cards in issue order.
   */
  pickCard(pick: number): ModelCard | undefined {
    if (pick === -2) return this.cards.findLast((c) => c.status === "CLOSED") ?? this.cards.at(-1)
    return this.cards.length === 0 ? undefined : this.cards[pick < 0 ? this.cards.length - 1 : pick % this.cards.length]
  }
  predict(card: ModelCard, amount: number, descriptor: CardDescriptor): CardAuthorizationOutcome {
    return predictCardAuthorization(card, amount, descriptor, {
      balanceOf: (id) => this.balanceOf(id),
      isWallet: (id) => this.account(id)?.wallet === true
    })
  }
}

// ---------------------------------------------------------------- answers

type Reply = { readonly status: number; readonly body: unknown }

const record = (body: unknown): Record<string, unknown> => (typeof body === "object" && body !== null ? body as Record<string, unknown> : {})
const str = (body: unknown, key: string): string => String(record(body)[key] ?? "")
const list = (body: unknown, key = "data"): ReadonlyArray<Record<string, unknown>> => {
  const v = record(body)[key]
  return Array.isArray(v) ? v.map(record) : []
}
const show = (r: Reply) => `${r.status} ${JSON.stringify(r.body)}`

const expectStatus = (what: string, r: Reply, status: number, code?: string): void => {
  if (r.status !== status || (code !== undefined && str(r.body, "code") !== code)) {
    throw new Error(`${what}: expected ${status}${code === undefined ? "" : ` ${code}`}, got ${show(r)}`)
  }
}

/** 400 FUNDING_SOURCE_INELIGIBLE whose first ineligible source is `reason`. */
const expectIneligible = (what: string, r: Reply, reason: string): void => {
  expectStatus(what, r, 400, "FUNDING_SOURCE_INELIGIBLE")
  const first = list(record(r.body)["details"], "ineligible")[0]
  if (first?.["reason"] !== reason) throw new Error(`${what}: expected the first ineligible source's reason ${reason}, got ${show(r)}`)
}

/** The answer's card is the model's card. */
const sameCard = (what: string, card: ModelCard, body: unknown): void => {
  const c = record(body)
  const problems = [
    c["id"] === card.id ? undefined : `id ${String(c["id"])}`,
    c["state"] === card.status && c["status"] === card.status ? undefined : `state ${String(c["state"])} / status ${String(c["status"])}, the model's ${card.status}`,
    c["stateReason"] === card.stateReason ? undefined : `stateReason ${String(c["stateReason"])}, the model's ${String(card.stateReason)}`,
    JSON.stringify(c["fundingSources"]) === JSON.stringify(card.fundingSources) ? undefined : `fundingSources ${JSON.stringify(c["fundingSources"])}, the model's ${JSON.stringify(card.fundingSources)}`,
    c["maxSpendPerTransaction"] === card.maxSpend ? undefined : `maxSpendPerTransaction ${String(c["maxSpendPerTransaction"])}, the model's ${String(card.maxSpend)}`,
    c["currency"] === card.currency ? undefined : `currency ${String(c["currency"])}, the model's ${card.currency}`
  ].filter((p) => p !== undefined)
  if (problems.length > 0) throw new Error(`${what}: card ${card.id}: ${problems.join("; ")}`)
}

/** Every page of a list endpoint (`path` has a query already). */
const listAll = async (api: CardApiClient, what: string, path: string): Promise<ReadonlyArray<Record<string, unknown>>> => {
  const out: Array<Record<string, unknown>> = []
  let cursor: string | undefined
  for (let page = 0; page < 100; page++) {
    const r = await api.call("GET", `${path}&limit=100${cursor === undefined ? "" : `&cursor=${encodeURIComponent(cursor)}`}`)
    expectStatus(what, r, 200)
    out.push(...list(r.body))
    const next = record(r.body)["nextCursor"]
    if (record(r.body)["hasMore"] !== true || typeof next !== "string") return out
    cursor = next
  }
  throw new Error(`${what}: more than 100 pages`)
}

// ---------------------------------------------------------------- agreement

/** `GET /cards?cardholderId=` lists exactly the model's cards as it holds them; every balance is the model's. */
export const agreeCards = async (m: CardModel, api: CardApiClient): Promise<void> => {
  for (const owner of ["A", "B"] as const) {
    const customerId = m.world.customers[owner]
    const accounts = await api.call("GET", `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}`)
    expectStatus(`list ${owner}'s internal accounts`, accounts, 200)
    for (const a of m.accountsOf(owner)) {
      const listed = list(accounts.body).find((x) => x["id"] === a.id)
      const amount = record(record(listed)["balance"])["amount"]
      if (amount !== m.balanceOf(a.id)) throw new Error(`balance of ${owner}'s ${a.currency} account ${a.id}: the API says ${String(amount)}, the model ${m.balanceOf(a.id)}`)
    }
    const cards = await listAll(api, `list ${owner}'s cards`, `/cards?cardholderId=${encodeURIComponent(customerId)}&sortOrder=asc`)
    const listedIds = cards.map((c) => String(c["id"])).sort()
    const modelled = m.cards.filter((c) => c.owner === owner)
    const modelIds = modelled.map((c) => c.id).sort()
    if (listedIds.join() !== modelIds.join()) throw new Error(`${owner}'s cards: the API lists [${listedIds.join(", ")}], the model holds [${modelIds.join(", ")}]`)
    for (const card of modelled) sameCard(`GET /cards`, card, cards.find((c) => c["id"] === card.id))
  }
}

// ---------------------------------------------------------------- commands

export type CardCommand = fc.AsyncCommand<CardModel, CardApiClient>

const other = (owner: CardOwner): CardOwner => (owner === "A" ? "B" : "A")
const cardName = (pick: number) => (pick === -2 ? "latest closed" : pick < 0 ? "latest" : `#${pick}`)
const unknownAccountId = () => `InternalAccount:${crypto.randomUUID()}`

/** What `POST /cards` names as funding sources. */
export type IssueSources = "OWN" | "OTHERS" | "NOT_ELIGIBLE" | "MIXED" | "DUPLICATE" | "UNKNOWN"

/**
 * POST /cards: from the cardholder's own account in an eligible currency (201, or 409
 * CARD_LIMIT_REACHED at the live-card maximum), else 400 as the model says:
 * FUNDING_SOURCE_INELIGIBLE (NOT_CARDHOLDERS, CURRENCY_NOT_ELIGIBLE, CURRENCY_MISMATCH,
 * NOT_FOUND) or INVALID_INPUT (an account listed twice). A choice the world has no
 * account for (no second eligible currency, say) does nothing.
 */
export class IssueCard implements CardCommand {
  constructor(readonly holder: CardOwner, readonly sources: IssueSources, readonly pick: number, readonly limit: number | null) {}
  check = () => true
  async run(m: CardModel, api: CardApiClient) {
    const eligible = m.issuable(this.holder)
    const own = eligible[this.pick % eligible.length]
    if (own === undefined) return
    const secondCurrency = eligible.find((a) => a.currency !== own.currency)
    const foreign = m.accountsOf(other(this.holder)).find((a) => a.eligible)
    const notEligible = m.accountsOf(this.holder).find((a) => !a.eligible)
    let sources: ReadonlyArray<string>
    let refusal: { readonly code: "INVALID_INPUT" } | { readonly code: "FUNDING_SOURCE_INELIGIBLE"; readonly reason: string } | undefined = undefined
    switch (this.sources) {
      case "OWN":
        sources = [own.id]
        break
      case "OTHERS":
        if (foreign === undefined) return
        sources = [foreign.id]
        refusal = { code: "FUNDING_SOURCE_INELIGIBLE", reason: "NOT_CARDHOLDERS" }
        break
      case "NOT_ELIGIBLE":
        if (notEligible === undefined) return
        sources = [notEligible.id]
        refusal = { code: "FUNDING_SOURCE_INELIGIBLE", reason: "CURRENCY_NOT_ELIGIBLE" }
        break
      case "MIXED":
        if (secondCurrency === undefined) return
        sources = [own.id, secondCurrency.id]
        refusal = { code: "FUNDING_SOURCE_INELIGIBLE", reason: "CURRENCY_MISMATCH" }
        break
      case "DUPLICATE":
        sources = [own.id, own.id]
        refusal = { code: "INVALID_INPUT" }
        break
      case "UNKNOWN":
        sources = [unknownAccountId()]
        refusal = { code: "FUNDING_SOURCE_INELIGIBLE", reason: "NOT_FOUND" }
        break
    }
    const what = `issue a card for ${this.holder} from ${this.sources}`
    const r = await api.call("POST", "/cards", {
      cardholderId: m.world.customers[this.holder],
      form: "VIRTUAL",
      fundingSources: sources,
      ...(this.limit === null ? {} : { maxSpendPerTransaction: this.limit })
    })
    if (refusal !== undefined) {
      return refusal.code === "INVALID_INPUT" ? expectStatus(what, r, 400, "INVALID_INPUT") : expectIneligible(what, r, refusal.reason)
    }
    if (m.live() >= m.world.maxLiveCards) return expectStatus(`${what} at the live-card maximum (${m.world.maxLiveCards})`, r, 409, "CARD_LIMIT_REACHED")
    expectStatus(what, r, 201)
    const card: ModelCard = {
      id: str(r.body, "id"),
      owner: this.holder,
      currency: own.currency,
      status: "ACTIVE",
      stateReason: null,
      fundingSources: sources,
      maxSpend: this.limit,
      rows: []
    }
    sameCard(what, card, r.body)
    if (record(r.body)["cardholderId"] !== m.world.customers[this.holder] || record(r.body)["pinStatus"] !== "NOT_SET") {
      throw new Error(`${what}: not a new card of ${this.holder}: ${show(r)}`)
    }
    m.cards.push(card)
  }
  toString = () => `issue(${this.holder}, ${this.sources} #${this.pick}${this.limit === null ? "" : `, limit ${this.limit}`})`
}

/**
 * PATCH /cards/{id} with a status (`state`, SPEC.md's `status`, or both), sometimes with
 * a spend limit beside it: CLOSED with a limit is 400 INVALID_INPUT whatever the card's
 * status; otherwise the status table decides (`cardMove`). Closing sets stateReason
 * CLOSED_BY_PLATFORM and detaches the funding sources.
 */
export class SetCardStatus implements CardCommand {
  constructor(
    readonly pick: number,
    readonly to: CardModelStatus,
    readonly field: "state" | "status" | "both",
    readonly limit: number | undefined
  ) {}
  check = (m: Readonly<CardModel>) => m.cards.length > 0
  async run(m: CardModel, api: CardApiClient) {
    const card = m.pickCard(this.pick)
    if (card === undefined) return
    const what = `${this.toString()} of the ${card.status} card ${card.id}`
    const r = await api.call("PATCH", `/cards/${encodeURIComponent(card.id)}`, {
      ...(this.field === "status" ? {} : { state: this.to }),
      ...(this.field === "state" ? {} : { status: this.to }),
      ...(this.limit === undefined ? {} : { maxSpendPerTransaction: this.limit })
    })
    if (this.to === "CLOSED" && this.limit !== undefined) return expectStatus(`${what} (CLOSED with a limit)`, r, 400, "INVALID_INPUT")
    const move = cardMove(card.status, this.to)
    if (!move.ok) return expectStatus(what, r, 409, move.code)
    expectStatus(what, r, 200)
    card.status = move.next
    if (move.next === "CLOSED") {
      card.stateReason = "CLOSED_BY_PLATFORM"
      card.fundingSources = []
    }
    if (this.limit !== undefined) card.maxSpend = this.limit
    sameCard(what, card, r.body)
  }
  toString = () =>
    `${this.to === "FROZEN" ? "freeze" : this.to === "ACTIVE" ? "unfreeze" : "close"}(${cardName(this.pick)}, by ${this.field}${this.limit === undefined ? "" : `, limit ${this.limit}`})`
}

/** What `PATCH /cards/{id} {fundingSources}` names. */
export type ReplaceSources = "SAME" | "OTHER_CURRENCY" | "NOT_ELIGIBLE" | "OTHERS" | "DUPLICATE" | "UNKNOWN" | "EMPTY"

/**
 * PATCH /cards/{id} {fundingSources}: an empty list is 400 INVALID_INPUT (the body's shape
 * comes first, even on a CLOSED card); a CLOSED card is 409 CARD_NOT_MUTABLE; else the
 * cardholder's account in the card's currency replaces the list (200) and anything else
 * is refused as at issue (the card's currency is fixed: CURRENCY_MISMATCH).
 */
export class ReplaceCardFundingSources implements CardCommand {
  constructor(readonly pick: number, readonly sources: ReplaceSources) {}
  check = (m: Readonly<CardModel>) => m.cards.length > 0
  async run(m: CardModel, api: CardApiClient) {
    const card = m.pickCard(this.pick)
    if (card === undefined) return
    const mine = m.accountsOf(card.owner)
    const same = mine.find((a) => a.eligible && a.currency === card.currency)
    if (same === undefined) throw new Error(`the model has no ${card.currency} account of ${card.owner}, yet issued card ${card.id} from one`)
    let sources: ReadonlyArray<string>
    let refusal: { readonly code: "INVALID_INPUT" } | { readonly code: "FUNDING_SOURCE_INELIGIBLE"; readonly reason: string } | undefined = undefined
    switch (this.sources) {
      case "SAME":
        sources = [same.id]
        break
      case "OTHER_CURRENCY": {
        const otherCurrency = mine.find((a) => a.eligible && a.currency !== card.currency)
        if (otherCurrency === undefined) return
        sources = [otherCurrency.id]
        refusal = { code: "FUNDING_SOURCE_INELIGIBLE", reason: "CURRENCY_MISMATCH" }
        break
      }
      case "NOT_ELIGIBLE": {
        const notEligible = mine.find((a) => !a.eligible)
        if (notEligible === undefined) return
        sources = [notEligible.id]
        refusal = { code: "FUNDING_SOURCE_INELIGIBLE", reason: "CURRENCY_NOT_ELIGIBLE" }
        break
      }
      case "OTHERS": {
        const foreign = m.accountsOf(other(card.owner)).find((a) => a.currency === card.currency)
        if (foreign === undefined) return
        sources = [foreign.id]
        refusal = { code: "FUNDING_SOURCE_INELIGIBLE", reason: "NOT_CARDHOLDERS" }
        break
      }
      case "DUPLICATE":
        sources = [same.id, same.id]
        refusal = { code: "INVALID_INPUT" }
        break
      case "UNKNOWN":
        sources = [unknownAccountId()]
        refusal = { code: "FUNDING_SOURCE_INELIGIBLE", reason: "NOT_FOUND" }
        break
      case "EMPTY":
        sources = []
        break
    }
    const what = `replace the funding sources of the ${card.status} card ${card.id} with ${this.sources}`
    const r = await api.call("PATCH", `/cards/${encodeURIComponent(card.id)}`, { fundingSources: sources })
    if (this.sources === "EMPTY") return expectStatus(`${what} (at least one)`, r, 400, "INVALID_INPUT")
    const move = cardMove(card.status, undefined)
    if (!move.ok) return expectStatus(what, r, 409, move.code)
    if (refusal !== undefined) {
      return refusal.code === "INVALID_INPUT" ? expectStatus(what, r, 400, "INVALID_INPUT") : expectIneligible(what, r, refusal.reason)
    }
    expectStatus(what, r, 200)
    card.fundingSources = sources
    sameCard(what, card, r.body)
  }
  toString = () => `replaceFundingSources(${cardName(this.pick)}, ${this.sources})`
}

/**
 * PATCH /cards/{id} {maxSpendPerTransaction}: a number sets the limit, null clears it,
 * 0 is 400 INVALID_INPUT (the limit is at least 1, whatever the card's status); a CLOSED
 * card is 409 CARD_NOT_MUTABLE.
 */
export class SetCardSpendLimit implements CardCommand {
  constructor(readonly pick: number, readonly limit: number | null) {}
  check = (m: Readonly<CardModel>) => m.cards.length > 0
  async run(m: CardModel, api: CardApiClient) {
    const card = m.pickCard(this.pick)
    if (card === undefined) return
    const what = `${this.toString()} of the ${card.status} card ${card.id}`
    const r = await api.call("PATCH", `/cards/${encodeURIComponent(card.id)}`, { maxSpendPerTransaction: this.limit })
    if (this.limit !== null && this.limit < 1) return expectStatus(`${what} (below 1)`, r, 400, "INVALID_INPUT")
    const move = cardMove(card.status, undefined)
    if (!move.ok) return expectStatus(what, r, 409, move.code)
    expectStatus(what, r, 200)
    card.maxSpend = this.limit
    sameCard(what, card, r.body)
  }
  toString = () => (this.limit === null ? `clearLimit(${cardName(this.pick)})` : `setLimit(${cardName(this.pick)}, ${this.limit})`)
}

/** An authorization's amount: fixed, or the card's limit or the paying account's balance, minus 1, exactly, or plus 1. */
export type CardAmount =
  | { readonly kind: "FIXED"; readonly amount: number }
  | { readonly kind: "LIMIT" | "BALANCE"; readonly delta: -1 | 0 | 1 }

const DESCRIPTORS: Readonly<Record<CardDescriptor, string>> = {
  PLAIN: "MODEL COFFEE SHOP",
  "002": "MODEL MERCHANT 002",
  "003": "MODEL MERCHANT 003"
}

/**
 * POST /sandbox/cards/{id}/simulate/authorization: 202, then the card's rows
 * (`GET /transactions?cardId=`) hold the new one, AUTHORIZED on the account the model
 * predicts (its balance goes down by the amount: the hold) or DECLINED with the reason
 * the model predicts; every row of the card has the model's status.
 */
export class SimulateCardAuthorization implements CardCommand {
  constructor(readonly pick: number, readonly amount: CardAmount, readonly descriptor: CardDescriptor) {}
  check = (m: Readonly<CardModel>) => m.cards.length > 0
  async run(m: CardModel, api: CardApiClient) {
    const card = m.pickCard(this.pick)
    if (card === undefined) return
    const payer = card.fundingSources.find((id) => m.account(id)?.wallet !== true)
    const base = this.amount.kind === "FIXED" ? this.amount.amount
      : this.amount.kind === "LIMIT" ? (card.maxSpend ?? 1_000) + this.amount.delta
      : (payer === undefined ? 1_000 : m.balanceOf(payer)) + this.amount.delta
    const amount = Math.max(1, base)
    const expected = m.predict(card, amount, this.descriptor)
    const what = `authorize ${amount} ${card.currency} (${this.descriptor}) on the ${card.status} card ${card.id}`
    const r = await api.call("POST", `/sandbox/cards/${encodeURIComponent(card.id)}/simulate/authorization`, {
      amount,
      currency: { code: card.currency },
      merchant: { descriptor: DESCRIPTORS[this.descriptor] }
    })
    expectStatus(what, r, 202)
    const token = str(r.body, "issuerTransactionToken")
    const rows = await listAll(api, `${what}: list the card's rows`, `/transactions?cardId=${encodeURIComponent(card.id)}`)
    const row = rows.find((x) => x["issuerTransactionToken"] === token)
    if (row === undefined) throw new Error(`${what}: no row of the card has the token ${token}`)
    const got = `${String(row["status"])}${row["cardDeclinedReason"] === undefined ? "" : ` ${String(row["cardDeclinedReason"])}`} on ${String(row["accountId"])}`
    const want = expected.approved ? `AUTHORIZED on ${expected.accountId}` : `DECLINED ${expected.reason} on ${String(expected.accountId)}`
    if (got !== want) throw new Error(`${what}: the model expects ${want}, the API answered ${got}: ${JSON.stringify(row)}`)
    const authorized = record(row["authorizedAmount"])
    if (row["type"] !== "CARD" || row["direction"] !== "DEBIT" || authorized["amount"] !== amount || record(authorized["currency"])["code"] !== card.currency) {
      throw new Error(`${what}: not a DEBIT card row of ${amount} ${card.currency}: ${JSON.stringify(row)}`)
    }
    card.rows.push(expected.approved ? { id: String(row["id"]), status: "AUTHORIZED" } : { id: String(row["id"]), status: "DECLINED", reason: expected.reason })
    if (expected.approved) m.balances.set(expected.accountId, m.balanceOf(expected.accountId) - amount)
    const listed = rows.map((x) => `${String(x["id"])}:${String(x["status"])}`).sort()
    const modelled = card.rows.map((x) => `${x.id}:${x.status}`).sort()
    if (listed.join() !== modelled.join()) throw new Error(`${what}: the card's rows are [${listed.join(", ")}], the model's [${modelled.join(", ")}]`)
  }
  toString = () => `authorize(${cardName(this.pick)}, ${this.amount.kind === "FIXED" ? this.amount.amount : `${this.amount.kind.toLowerCase()}${this.amount.delta === 0 ? "" : this.amount.delta > 0 ? "+1" : "-1"}`}, ${this.descriptor})`
}

/** POST /sandbox/internal-accounts/{id}/fund: the balance goes up by the amount. */
export class FundCardAccount implements CardCommand {
  constructor(readonly pick: number, readonly amount: number) {}
  check = () => true
  async run(m: CardModel, api: CardApiClient) {
    const a = m.world.accounts[this.pick % m.world.accounts.length]
    if (a === undefined) return
    const what = `fund ${a.owner}'s ${a.currency} account with ${this.amount}`
    const r = await api.call("POST", `/sandbox/internal-accounts/${encodeURIComponent(a.id)}/fund`, { amount: this.amount })
    expectStatus(what, r, 200)
    m.balances.set(a.id, m.balanceOf(a.id) + this.amount)
    const amount = record(record(r.body)["balance"])["amount"]
    if (amount !== m.balanceOf(a.id)) throw new Error(`${what}: the API says ${String(amount)}, the model ${m.balanceOf(a.id)}`)
  }
  toString = () => `fund(#${this.pick}, ${this.amount})`
}

/** Wraps a command so that the API and the model are compared after it (`agreeCards`). */
export class CardChecked extends CheckedCommand<CardModel, CardApiClient> {
  constructor(inner: CardCommand) {
    super(inner, agreeCards)
  }
}

// ---------------------------------------------------------------- the world

export interface CardWorldOptions {
  /** POST /sandbox/reset first (erases the platform's sandbox data, cards included). Default true. */
  readonly reset?: boolean
  /** The platform's `cards.eligibleCurrencies`. Default `["USD", "USDC"]`. */
  readonly eligibleCurrencies?: ReadonlyArray<string>
  /** The platform's `cards.maxLiveCards`. Default 10,000. */
  readonly maxLiveCards?: number
}

/**
 * Two approved customers (the platform must approve at creation: a regulated sandbox
 * platform) with their internal accounts, and the live cards the platform already holds:
 * a fresh model. Each customer needs an account in a card-eligible currency.
 */
export const setupCardWorld = async (api: CardApiClient, options: CardWorldOptions = {}): Promise<CardModel> => {
  const must = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const r = await api.call(method, path, body)
    if (r.status >= 300) throw new Error(`setup: ${method} ${path} answered ${show(r)}`)
    return r.body
  }
  if (options.reset !== false) await must("POST", "/sandbox/reset")
  const eligibleCurrencies = options.eligibleCurrencies ?? ["USD", "USDC"]
  const run = Math.random().toString(36).slice(2, 10)
  const accounts: Array<CardWorldAccount> = []
  const balances = new Map<string, number>()
  const customer = async (owner: CardOwner): Promise<string> => {
    const c = await must("POST", "/customers", {
      customerType: "INDIVIDUAL",
      platformCustomerId: `card-model-${run}-${owner}`,
      fullName: `Card Model ${owner}`,
      email: `card-model-${run}-${owner.toLowerCase()}@example.com`
    })
    if (str(c, "kycStatus") !== "APPROVED") {
      throw new Error(`setup: customer ${owner} is ${str(c, "kycStatus")}; the card model needs a sandbox platform whose customers are approved at creation (regulated)`)
    }
    const id = str(c, "id")
    for (const a of list(await must("GET", `/customers/internal-accounts?customerId=${encodeURIComponent(id)}`))) {
      const balance = record(a["balance"])
      const currency = String(record(balance["currency"])["code"])
      accounts.push({ id: String(a["id"]), owner, currency, eligible: eligibleCurrencies.includes(currency), wallet: a["type"] === "EMBEDDED_WALLET" })
      balances.set(String(a["id"]), Number(balance["amount"] ?? 0))
    }
    if (!accounts.some((a) => a.owner === owner && a.eligible)) {
      throw new Error(`setup: customer ${owner} has no account in a card-eligible currency (${eligibleCurrencies.join(", ")})`)
    }
    return id
  }
  const customers = { A: await customer("A"), B: await customer("B") }
  let liveAtStart = 0
  for (const state of ["ACTIVE", "FROZEN"]) liveAtStart += Number(record(await must("GET", `/cards?state=${state}&limit=1`))["totalCount"] ?? 0)
  return new CardModel({ customers, accounts, maxLiveCards: options.maxLiveCards ?? 10_000, liveAtStart }, balances)
}

// ---------------------------------------------------------------- the command set

/**
 * The commands, each followed by the comparison (`CardChecked`): issue (mostly from the
 * cardholder's own account), freeze / unfreeze / close, replace the funding sources,
 * set / clear the spend limit, authorize (amounts around the limit and the balance;
 * now and then a declining sandbox suffix), fund. Account picks index
 * `model.world.accounts` (A's accounts, then B's, as the API lists them).
 */
export const cardCommands = (): Array<fc.Arbitrary<CardCommand>> => {
  const owner = fc.constantFrom<CardOwner>("A", "B")
  // Often the latest card, so that one card goes through long sequences; now and then a CLOSED one.
  const cardPick = fc.oneof({ weight: 2, arbitrary: fc.constant(-1) }, { weight: 1, arbitrary: fc.constant(-2) }, { weight: 3, arbitrary: fc.nat() })
  const limitValue = fc.integer({ min: 500, max: 20_000 })
  const issueSources = fc.oneof(
    { weight: 6, arbitrary: fc.constant<IssueSources>("OWN") },
    { weight: 1, arbitrary: fc.constantFrom<IssueSources>("OTHERS", "NOT_ELIGIBLE", "MIXED", "DUPLICATE", "UNKNOWN") }
  )
  // Mostly the first issuable account (not a wallet: a wallet's card never pays without a delegated key).
  const issuePick = fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.nat() })
  const issue = fc.tuple(owner, issueSources, issuePick, fc.option(limitValue, { freq: 2, nil: null }))
    .map(([o, s, p, l]): CardCommand => new CardChecked(new IssueCard(o, s, p, l)))
  const status = fc.tuple(
    cardPick,
    fc.constantFrom<CardModelStatus>("ACTIVE", "ACTIVE", "FROZEN", "FROZEN", "CLOSED", "CLOSED"),
    fc.constantFrom<"state" | "status" | "both">("state", "status", "both"),
    fc.option(limitValue, { freq: 4, nil: undefined })
  ).map(([p, to, f, l]): CardCommand => new CardChecked(new SetCardStatus(p, to, f, l)))
  const replace = fc.tuple(cardPick, fc.oneof(
    { weight: 3, arbitrary: fc.constant<ReplaceSources>("SAME") },
    { weight: 2, arbitrary: fc.constantFrom<ReplaceSources>("OTHER_CURRENCY", "NOT_ELIGIBLE", "OTHERS", "DUPLICATE", "UNKNOWN", "EMPTY") }
  )).map(([p, s]): CardCommand => new CardChecked(new ReplaceCardFundingSources(p, s)))
  const limit = fc.tuple(cardPick, fc.oneof(
    { weight: 4, arbitrary: limitValue },
    { weight: 2, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.constant(0) }
  )).map(([p, l]): CardCommand => new CardChecked(new SetCardSpendLimit(p, l)))
  const amount: fc.Arbitrary<CardAmount> = fc.oneof(
    fc.integer({ min: 1, max: 15_000 }).map((a) => ({ kind: "FIXED" as const, amount: a })),
    fc.tuple(fc.constantFrom<"LIMIT" | "BALANCE">("LIMIT", "BALANCE"), fc.constantFrom<-1 | 0 | 1>(-1, 0, 1)).map(([kind, delta]) => ({ kind, delta }))
  )
  const descriptor = fc.oneof(
    { weight: 8, arbitrary: fc.constant<CardDescriptor>("PLAIN") },
    { weight: 1, arbitrary: fc.constantFrom<CardDescriptor>("002", "003") }
  )
  const authorize = fc.tuple(cardPick, amount, descriptor).map(([p, a, d]): CardCommand => new CardChecked(new SimulateCardAuthorization(p, a, d)))
  const fund = fc.tuple(fc.nat(), fc.integer({ min: 1_000, max: 50_000 })).map(([p, a]): CardCommand => new CardChecked(new FundCardAccount(p, a)))
  // fc.commands picks uniformly among the entries: repeats weigh the mix towards issuing, status changes and authorizations.
  return [issue, issue, status, status, status, replace, limit, authorize, authorize, authorize, fund]
}
