/**
 * Card transactions (docs/card-transactions.md): the ten sandbox simulate endpoints,
 * the machine's timers (authorization expiry, the delayed pull's confirmation) and the
 * reads GET /transactions needs. The rules are in rules/cards/transactions*.ts; each
 * step writes the row, its ledger legs (one journal entry per leg), its events and its
 * timers in one unit of work.
 *
 * Sandbox platforms only: a production platform's call is 403 FORBIDDEN (the
 * reference documents 403 "request was made with a production platform token" on each
 * endpoint beside a "production returns 404" sentence; docs/decisions.md); a sandbox
 * platform with cards turned off gets 501 NOT_IMPLEMENTED, as from every card endpoint.
 */
import { Clock, Effect } from "effect"
import type {
  CardMerchant,
  CardTransaction,
  CardTransactionState,
  SandboxCardAuthorizationAdviceRequest,
  SandboxCardAuthorizationRequest,
  SandboxCardBalanceInquiryRequest,
  SandboxCardClearingRequest,
  SandboxCardReturnRequest,
  SandboxCardSimulationResponse,
  SandboxCardTransactionRefRequest
} from "../domain/card-transaction.js"
import { badRequest, type Error400, type Error403, type Error404, type Error501, forbidden } from "../domain/errors.js"
import { currencyOf, type CurrencyAmount } from "../domain/money.js"
import type { Platform } from "../domain/platform.js"
import { Ids } from "../ports/ids.js"
import { totalCountOf } from "../ports/shared.js"
import { type CardRecord, type CardTransactionRecord, Store, type TimerRecord, type UnitOfWork } from "../ports/store.js"
import { cardSimulationOutcome } from "../rules/cards/simulations.js"
import { authorizationCurrencyError, decide, type FundingCandidate } from "../rules/cards/transactions-decisioning.js"
import {
  type CardLedgerRole,
  type CardTimerMove,
  type CardTransitioned,
  merchantReturn,
  open,
  type OpeningKind,
  returnReversal,
  transition
} from "../rules/cards/transactions.js"
import { suffixOf } from "../rules/sandbox/suffix.js"
import { requireCardIssuer } from "./cards/cards.js"
import { balanceUpdated } from "./money/accounts.js"
import { postEntry, suspenseAccount, worldAccount } from "./money/ledger.js"
import { fromResult, rejected } from "./rejection.js"
import { isoOf } from "./time.js"
import { emit, schedule } from "./transition.js"
import { missing } from "./not-found.js"

/** Timer kinds: one per move, so a row's expiry and its pull confirmation never replace each other. */
export const CARD_TRANSACTION_EXPIRY_TIMER = "card-transaction.expiry"
export const CARD_TRANSACTION_PULL_TIMER = "card-transaction.pull"
const TIMER_KIND: Readonly<Record<CardTimerMove, string>> = {
  EXPIRE: CARD_TRANSACTION_EXPIRY_TIMER,
  PULL_CONFIRMED: CARD_TRANSACTION_PULL_TIMER
}

/** Money held for open card authorizations, per currency. */
export const cardHoldAccount = (currency: string) => `system:card_holds:${currency}`

/** Sandbox platforms only (403), with cards enabled (501 NOT_IMPLEMENTED otherwise, as every card endpoint). */
const sandboxOnly = (platform: Platform, what: string): Effect.Effect<void, Error403 | Error501> =>
  platform.settings.sandbox
    ? requireCardIssuer(platform)
    : Effect.fail(forbidden(`POST /sandbox/cards/{id}/simulate/${what} is only available to sandbox platforms`))

const cardNotFound = (id: string) => missing("card", `Card ${id} not found`)
const transactionNotFound = (cardId: string, id: string) => missing("transaction", `Card transaction ${id} not found on card ${cardId}`)

// ---------------------------------------------------------------- the row as the API shows it

const amountOf = (currency: string, amount: number): CurrencyAmount => ({
  amount,
  currency: currencyOf(currency) ?? { code: currency, name: currency, symbol: currency, decimals: 2 }
})

/** What a row shows that the machine's state does not decide. */
interface Identity {
  readonly id: string
  readonly cardId: string
  readonly customerId: string
  readonly platformCustomerId: string
  readonly issuerTransactionToken: string
  readonly merchant: CardMerchant
  readonly accountId?: string | undefined
  readonly originalTransactionId?: string | undefined
  readonly createdAt: string
}

const viewOf = (who: Identity, s: CardTransactionState, now: number): CardTransaction => ({
  type: "CARD",
  id: who.id,
  cardId: who.cardId,
  customerId: who.customerId,
  platformCustomerId: who.platformCustomerId,
  issuerTransactionToken: who.issuerTransactionToken,
  status: s.status,
  direction: s.direction,
  merchant: who.merchant,
  authorizedAmount: amountOf(s.currency, s.authorized),
  ...(s.settlements.count > 0 ? { settledAmount: amountOf(s.currency, s.settled) } : {}),
  ...(s.refunds.count > 0 ? { refundedAmount: amountOf(s.currency, s.refunded) } : {}),
  ...(who.originalTransactionId === undefined ? {} : { originalTransactionId: who.originalTransactionId }),
  ...(s.declinedReason === undefined ? {} : { cardDeclinedReason: s.declinedReason }),
  ...(who.accountId === undefined ? {} : { accountId: who.accountId }),
  pullSummary: { count: s.pulls.count, totalAmount: s.pulls.total, pendingCount: s.pulls.pending },
  refundSummary: { count: s.refunds.count, totalAmount: s.refunds.total },
  settlementSummary: { count: s.settlements.count, totalAmount: s.settlements.total },
  authorizedAt: isoOf(s.authorizedAt),
  ...(s.lastEventAt === undefined ? {} : { lastEventAt: isoOf(s.lastEventAt) }),
  createdAt: who.createdAt,
  updatedAt: isoOf(now)
})

const identityOf = (t: CardTransaction): Identity => t

// ---------------------------------------------------------------- writing a step

const ledgerAccount = (role: CardLedgerRole, currency: string, fundingAccountId: string | undefined): string => {
  switch (role) {
    case "FUNDING":
      // The machine moves FUNDING money only on rows with a funding account.
      return fundingAccountId ?? worldAccount(currency)
    case "HOLD":
      return cardHoldAccount(currency)
    case "NETWORK":
      return worldAccount(currency)
    case "SUSPENSE":
      return suspenseAccount(currency)
  }
}

/**
 * Writes one step of a row: the row, a journal entry per ledger leg, the funding
 * account's INTERNAL_ACCOUNT.BALANCE_UPDATED when its balance moved, the row's events
 * (payload: the full row), and its timers (cancelled ones first).
 */
const commit = Effect.fnUntraced(function*(
  uow: UnitOfWork,
  platform: Platform,
  who: Identity,
  step: CardTransitioned,
  now: number
) {
  const store = yield* Store
  const at = isoOf(now)
  const transaction = viewOf(who, step.state, now)
  yield* uow.putCardTransaction({ platformId: platform.id, transaction, state: step.state })
  const currency = step.state.currency
  for (const leg of step.legs) {
    yield* postEntry(uow, platform.id, leg.move, [
      { account: ledgerAccount(leg.from, currency, who.accountId), currency, amount: -leg.amount },
      { account: ledgerAccount(leg.to, currency, who.accountId), currency, amount: leg.amount }
    ], at, who.id).pipe(Effect.catchTag("LedgerRejected", (e) =>
      // The machine never pulls more than the funding account holds, so only a balance
      // leaving the exact integer range (amounts near 2^53) can be refused: the request's.
      e.reason === "OUT_OF_RANGE"
        ? Effect.fail(badRequest("INVALID_AMOUNT", `The amount would take the balance of ${e.account ?? "a ledger account"} out of the exact integer range`, {
          details: { field: "amount", account: e.account }
        }))
        : Effect.die(e)))
  }
  if (who.accountId !== undefined && step.legs.some((l) => l.from === "FUNDING" || l.to === "FUNDING")) {
    const account = yield* store.internalAccounts.get(platform.id, who.accountId)
    if (account !== undefined) yield* balanceUpdated(uow, platform, account, at)
  }
  for (const type of step.events) yield* emit(uow, platform, type, { timestamp: at, data: transaction })
  for (const move of step.cancel) yield* uow.cancelTimers(platform.id, who.id, TIMER_KIND[move])
  for (const s of step.scheduled) yield* schedule(uow, platform, TIMER_KIND[s.move], who.id, { at: s.at, event: s.move })
  return transaction
})

/** Writes the first step of a new row (its issuer token drawn, then its id) and answers the token. */
const commitNew = Effect.fnUntraced(function*(
  uow: UnitOfWork,
  platform: Platform,
  who: Omit<Identity, "id" | "issuerTransactionToken" | "createdAt">,
  step: CardTransitioned,
  now: number
) {
  const ids = yield* Ids
  const token = yield* ids.uuid
  const id = yield* ids.make("CardTransaction")
  yield* commit(uow, platform, { ...who, id, issuerTransactionToken: token, createdAt: isoOf(now) }, step, now)
  return { issuerTransactionToken: token }
})

// ---------------------------------------------------------------- reading

const balanceOf = Effect.fnUntraced(function*(platformId: string, accountId: string | undefined) {
  if (accountId === undefined) return 0
  const store = yield* Store
  return (yield* store.ledger.balances(platformId, [accountId])).get(accountId) ?? 0
})

const cardOf = Effect.fnUntraced(function*(platform: Platform, cardId: string) {
  const store = yield* Store
  const rec = yield* store.cards.get(platform.id, cardId)
  if (rec === undefined) return yield* cardNotFound(cardId)
  return rec
})

/** A row of the card, or 404 "Card or card transaction not found". */
const rowOf = Effect.fnUntraced(function*(platform: Platform, card: CardRecord, id: string) {
  const store = yield* Store
  const rec = yield* store.cardTransactions.get(platform.id, id)
  if (rec === undefined || rec.transaction.cardId !== card.card.id) return yield* transactionNotFound(card.card.id, id)
  return rec
})

/** The card's funding sources in priority order, as decisioning reads them. */
const candidatesOf = Effect.fnUntraced(function*(platform: Platform, card: CardRecord) {
  const store = yield* Store
  const out: Array<FundingCandidate> = []
  for (const binding of card.fundingSourceBindings) {
    const account = yield* store.internalAccounts.get(platform.id, binding.internalAccountId)
    const keys = account?.type === "EMBEDDED_WALLET" ? yield* store.wallets.byLookup(platform.id, "delegatedKey", binding.id) : []
    out.push({
      accountId: binding.internalAccountId,
      bindingId: binding.id,
      account: account === undefined ? undefined : { status: account.status, currency: account.currency, type: account.type },
      available: yield* balanceOf(platform.id, binding.internalAccountId),
      delegatedKeyActive: keys.some((k) => k.status === "ACTIVE" && k.accountId === binding.internalAccountId)
    })
  }
  return out
})

// ---------------------------------------------------------------- the simulate endpoints

/** A simulate endpoint: sandbox only, one unit of work on the card (404 when the platform has no such card). */
const simulation = <A, E, R>(
  platform: Platform,
  cardId: string,
  what: string,
  body: (uow: UnitOfWork, card: CardRecord, store: Store["Service"]) => Effect.Effect<A, E, R>
) =>
  Effect.gen(function*() {
    yield* sandboxOnly(platform, what)
    const store = yield* Store
    return yield* store.transact((uow) => Effect.flatMap(cardOf(platform, cardId), (card) => body(uow, card, store)))
  })

const opening = (
  platform: Platform,
  cardId: string,
  kind: OpeningKind,
  what: string,
  message: { readonly amount: number; readonly currency?: SandboxCardAuthorizationRequest["currency"]; readonly merchant: CardMerchant }
): Effect.Effect<SandboxCardSimulationResponse, Error400 | Error403 | Error404 | Error501, Store | Ids> =>
  simulation(platform, cardId, what, (uow, card, store) =>
    Effect.gen(function*() {
      if (message.currency !== undefined) {
        const wrong = authorizationCurrencyError(message.currency, card.card.currency)
        if (wrong !== undefined) return yield* rejected(wrong)
      }
      const holder = yield* store.customers.get(platform.id, card.card.cardholderId)
      if (holder === undefined) return yield* cardNotFound(cardId)
      const now = yield* Clock.currentTimeMillis
      const decision = decide({
        kind,
        amount: message.amount,
        card: { status: card.card.status, currency: card.card.currency, maxSpendPerTransaction: card.card.maxSpendPerTransaction },
        sources: yield* candidatesOf(platform, card),
        simulation: cardSimulationOutcome(message.merchant.descriptor, platform.settings.sandbox),
        sandbox: platform.settings.sandbox
      })
      const step = open({ kind, amount: message.amount, currency: card.card.currency, decision, now })
      return yield* commitNew(uow, platform, {
        cardId: card.card.id,
        customerId: holder.customer.id,
        platformCustomerId: holder.customer.platformCustomerId,
        merchant: message.merchant,
        accountId: decision.accountId
      }, step, now)
    })
  )

export const simulateAuthorization = (platform: Platform, cardId: string, req: SandboxCardAuthorizationRequest) =>
  opening(platform, cardId, "AUTHORIZATION", "authorization", req)
export const simulateFinancialAuthorization = (platform: Platform, cardId: string, req: SandboxCardAuthorizationRequest) =>
  opening(platform, cardId, "FINANCIAL_AUTHORIZATION", "financial_authorization", req)
export const simulateCreditAuthorization = (platform: Platform, cardId: string, req: SandboxCardAuthorizationRequest) =>
  opening(platform, cardId, "CREDIT_AUTHORIZATION", "credit_authorization", req)
/** Like a credit authorization: keyed by the card and merchant, not by an existing row. */
export const simulateCreditAuthorizationAdvice = (platform: Platform, cardId: string, req: SandboxCardAuthorizationRequest) =>
  opening(platform, cardId, "CREDIT_AUTHORIZATION", "credit_authorization_advice", req)
export const simulateFinancialCreditAuthorization = (platform: Platform, cardId: string, req: SandboxCardAuthorizationRequest) =>
  opening(platform, cardId, "FINANCIAL_CREDIT_AUTHORIZATION", "financial_credit_authorization", req)
export const simulateBalanceInquiry = (platform: Platform, cardId: string, req: SandboxCardBalanceInquiryRequest) =>
  opening(platform, cardId, "BALANCE_INQUIRY", "balance_inquiry", { amount: 0, merchant: req.merchant })

/** A message on one existing row of the card. */
const onRow = (
  platform: Platform,
  cardId: string,
  rowId: string,
  what: string,
  move: (row: CardTransactionRecord, fundingAvailable: number, now: number) => ReturnType<typeof transition>
): Effect.Effect<SandboxCardSimulationResponse, Error400 | Error403 | Error404 | Error501, Store | Ids> =>
  simulation(platform, cardId, what, (uow, card) =>
    Effect.gen(function*() {
      const row = yield* rowOf(platform, card, rowId)
      const now = yield* Clock.currentTimeMillis
      const step = yield* fromResult(move(row, yield* balanceOf(platform.id, row.transaction.accountId), now))
      yield* commit(uow, platform, identityOf(row.transaction), step, now)
      return { issuerTransactionToken: row.transaction.issuerTransactionToken }
    })
  )

export const simulateClearing = (platform: Platform, cardId: string, req: SandboxCardClearingRequest) =>
  onRow(platform, cardId, req.cardTransactionId, "clearing", (row, fundingAvailable, now) =>
    transition(row.state, {
      type: "CLEAR",
      amount: req.amount,
      fundingAvailable,
      // "Suffix-driven outcomes on the parent": only 005 can reach a clearing (docs/decisions.md).
      delayedPull: platform.settings.sandbox && suffixOf(row.transaction.merchant.descriptor) === "005"
    }, now))

export const simulateAuthorizationAdvice = (platform: Platform, cardId: string, req: SandboxCardAuthorizationAdviceRequest) =>
  onRow(platform, cardId, req.cardTransactionId, "authorization_advice", (row, fundingAvailable, now) =>
    transition(row.state, { type: "ADVICE", amount: req.amount, fundingAvailable }, now))

/** `simulate/return`: the purchase keeps its status, the return opens its own CREDIT row. */
export const simulateReturn = (platform: Platform, cardId: string, req: SandboxCardReturnRequest) =>
  simulation(platform, cardId, "return", (uow, card) =>
    Effect.gen(function*() {
      const purchase = yield* rowOf(platform, card, req.cardTransactionId)
      const now = yield* Clock.currentTimeMillis
      const both = yield* fromResult(merchantReturn(purchase.state, req.amount, now))
      yield* commit(uow, platform, identityOf(purchase.transaction), both.purchase, now)
      return yield* commitNew(uow, platform, {
        cardId: purchase.transaction.cardId,
        customerId: purchase.transaction.customerId,
        platformCustomerId: purchase.transaction.platformCustomerId,
        merchant: purchase.transaction.merchant,
        accountId: purchase.transaction.accountId,
        originalTransactionId: purchase.transaction.id
      }, both.refund, now)
    })
  )

/** `simulate/return_reversal`: `cardTransactionId` names the return's own row (SPEC.md). */
export const simulateReturnReversal = (platform: Platform, cardId: string, req: SandboxCardTransactionRefRequest) =>
  simulation(platform, cardId, "return_reversal", (uow, card) =>
    Effect.gen(function*() {
      const refund = yield* rowOf(platform, card, req.cardTransactionId)
      const purchaseId = refund.transaction.originalTransactionId
      if (purchaseId === undefined) {
        return yield* badRequest(
          "INVALID_INPUT",
          `Card transaction ${refund.transaction.id} is not a merchant return's row: return_reversal takes the id of the return's own row (direction CREDIT, with originalTransactionId), which simulate/return opened`,
          { details: { field: "cardTransactionId", direction: refund.transaction.direction, status: refund.transaction.status } }
        )
      }
      const purchase = yield* rowOf(platform, card, purchaseId)
      const now = yield* Clock.currentTimeMillis
      const both = yield* fromResult(returnReversal(refund.state, purchase.state, yield* balanceOf(platform.id, refund.transaction.accountId), now))
      yield* commit(uow, platform, identityOf(refund.transaction), both.refund, now)
      yield* commit(uow, platform, identityOf(purchase.transaction), both.purchase, now)
      return { issuerTransactionToken: refund.transaction.issuerTransactionToken }
    })
  )

// ---------------------------------------------------------------- timers

/** Applies a due expiry or pull confirmation; a move the row no longer takes is refused (recorded). */
export const applyCardTransactionTimer = Effect.fnUntraced(function*(uow: UnitOfWork, platform: Platform, timer: TimerRecord) {
  const store = yield* Store
  const row = yield* store.cardTransactions.get(platform.id, timer.subjectId)
  if (row === undefined) return yield* missing("transaction", `Card transaction ${timer.subjectId} not found`)
  const move = timer.event === "EXPIRE" ? { type: "EXPIRE" as const } : { type: "PULL_CONFIRMED" as const }
  const now = yield* Clock.currentTimeMillis
  const step = yield* fromResult(transition(row.state, move, now))
  yield* commit(uow, platform, identityOf(row.transaction), step, now)
})

// ---------------------------------------------------------------- GET /transactions

/** A Card id or its bare UUID (SPEC.md: the `cardId` filter takes either). */
export const cardIdOf = (value: string): string => (value.startsWith("Card:") ? value : `Card:${value}`)

/** GET /transactions/{id} of a card transaction, if it is one. */
export const findCardTransaction = Effect.fnUntraced(function*(platform: Platform, id: string) {
  const store = yield* Store
  return (yield* store.cardTransactions.get(platform.id, id))?.transaction
})

// ---------------------------------------------------------------- one list of payments and card rows

/** One side of a merged list: where it continues (its own cursor), or that it is exhausted. */
interface Side {
  readonly at?: string | undefined
  readonly done?: boolean | undefined
}

const MERGED_CURSOR_PREFIX = "m1."

const encodeMerged = (payments: Side, cards: Side): string =>
  MERGED_CURSOR_PREFIX + Buffer.from(JSON.stringify({ p: payments, c: cards }), "utf8").toString("base64url")

const sideOf = (u: unknown): Side | undefined => {
  if (typeof u !== "object" || u === null) return undefined
  const at = "at" in u ? u.at : undefined
  const done = "done" in u ? u.done : undefined
  if (at !== undefined && typeof at !== "string") return undefined
  if (done !== undefined && done !== true) return undefined
  return { at, done }
}

const decodeMerged = (cursor: string): { readonly p: Side; readonly c: Side } | undefined => {
  if (!cursor.startsWith(MERGED_CURSOR_PREFIX)) return undefined
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor.slice(MERGED_CURSOR_PREFIX.length), "base64url").toString("utf8"))
    if (typeof parsed !== "object" || parsed === null || !("p" in parsed) || !("c" in parsed)) return undefined
    const p = sideOf(parsed.p)
    const c = sideOf(parsed.c)
    return p === undefined || c === undefined ? undefined : { p, c }
  } catch {
    return undefined
  }
}

interface Keyed {
  readonly id: string
  readonly createdAt: string
}

/** A page of one side: `limit` items after `cursor`, with the side's own next cursor. */
export type SidePage<T, E, R> = (cursor: string | undefined, limit: number) => Effect.Effect<
  { readonly data: ReadonlyArray<T>; readonly hasMore: boolean; readonly nextCursor?: string | undefined; readonly totalCount?: number },
  E,
  R
>

/**
 * One keyset page over two lists (payments and card rows), both ordered by
 * `(createdAt, id)`: each side is paged by its store with its own cursor; the page takes
 * the first `limit` of both in order, and the next cursor remembers where each side
 * continues. `invalid` is the error of a cursor this merge did not issue.
 */
export const mergedPage = <P extends Keyed, C extends Keyed, E, R, X>(input: {
  readonly payments: SidePage<P, E, R>
  readonly cards: SidePage<C, E, R>
  readonly limit: number
  readonly cursor: string | undefined
  readonly descending: boolean
  readonly invalid: () => X
}) =>
  Effect.gen(function*() {
    const state = input.cursor === undefined ? { p: {}, c: {} } : decodeMerged(input.cursor)
    if (state === undefined) return yield* Effect.fail(input.invalid())
    const fetch = <T>(side: Side, page: SidePage<T, E, R>) =>
      side.done === true
        ? Effect.map(page(undefined, 1), (r) => ({ data: [] as ReadonlyArray<T>, hasMore: false, totalCount: r.totalCount }))
        : Effect.map(page(side.at, input.limit), (r) => ({ data: r.data, hasMore: r.hasMore, totalCount: r.totalCount }))
    // Each side's total is absent above TOTAL_COUNT_LIMIT; so is the sum's.
    const p = yield* fetch(state.p, input.payments)
    const c = yield* fetch(state.c, input.cards)
    const key = (t: Keyed): [number, string] => [Date.parse(t.createdAt), t.id]
    const before = (a: Keyed, b: Keyed): boolean => {
      const [am, ai] = key(a)
      const [bm, bi] = key(b)
      const asc = am !== bm ? am < bm : ai < bi
      return input.descending ? !asc : asc
    }
    const data: Array<P | C> = []
    let i = 0
    let j = 0
    while (data.length < input.limit && (i < p.data.length || j < c.data.length)) {
      const a = p.data[i]
      const b = c.data[j]
      if (b === undefined || (a !== undefined && before(a, b))) {
        data.push(a as P)
        i++
      } else {
        data.push(b)
        j++
      }
    }
    const next = <T>(side: Side, page: SidePage<T, E, R>, fetched: { readonly data: ReadonlyArray<T>; readonly hasMore: boolean }, used: number) =>
      Effect.gen(function*() {
        if (side.done === true) return side
        if (used === 0) return fetched.data.length === 0 && !fetched.hasMore ? { done: true } : side
        if (used === fetched.data.length && !fetched.hasMore) return { done: true }
        // The side's own cursor after exactly `used` items.
        const again = yield* page(side.at, used)
        return again.nextCursor === undefined ? { done: true } : { at: again.nextCursor }
      })
    const np: Side = yield* next(state.p, input.payments, p, i)
    const nc: Side = yield* next(state.c, input.cards, c, j)
    const hasMore = np.done !== true || nc.done !== true
    return {
      data,
      hasMore,
      ...(hasMore ? { nextCursor: encodeMerged(np, nc) } : {}),
      ...totalCountOf(p.totalCount === undefined || c.totalCount === undefined ? undefined : p.totalCount + c.totalCount)
    }
  })
