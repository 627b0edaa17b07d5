/**
 * Cards (docs/cards.md): issue (POST /cards), list, get, update (PATCH: status, funding
 * sources, spend limit) and reveal. The rules are in rules/cards; every state change is
 * written with its events in one unit of work (operations/transition.ts).
 *
 * The sandbox provisions a card at once: it is issued ACTIVE (the reference's
 * PROCESSING step is skipped) and CARD.STATE_CHANGE announces it.
 */
import { sha256 } from "@noble/hashes/sha2.js"
import { bytesToHex } from "@noble/hashes/utils.js"
import { Effect } from "effect"
import type { Card, CardCreateRequest, CardRevealResponse, CardState, CardStatus, CardUpdateRequest } from "../../domain/card.js"
import type { CustomerState } from "../../domain/customer.js"
import { badRequest, conflict, type Error400, type Error409, Error501, invalidInput } from "../../domain/errors.js"
import { cardSettingsOf, type Platform } from "../../domain/platform.js"
import { Ids } from "../../ports/ids.js"
import { type CardFundingSourceBinding, type CardRecord, Store, type StoreConflict, type UnitOfWork } from "../../ports/store.js"
import { checkFundingSources, type FundingAccount, rebind, unbound } from "../../rules/cards/funding-sources.js"
import { slotRefusal } from "../../rules/cards/slots.js"
import { planUpdate } from "../../rules/cards/status.js"
import { referencedCustomer } from "../customers.js"
import { conflictIsDefect, type PageQuery, pageRequestOf, shownPageOf } from "../paging.js"
import { fromResult, rejected } from "../rejection.js"
import { nowIso, nowMillis, isoOf } from "../time.js"
import { applyTransition, eventOf } from "../transition.js"
import { missing } from "../not-found.js"

/** The timer kind of the card machine (it schedules nothing yet). */
export const CARD_MACHINE = "card"

/** How long a reveal URL loads: 5 minutes. */
export const REVEAL_TTL_MILLIS = 5 * 60 * 1000

/**
 * Where a reveal URL points: the reference server has no card processor, so the URL is
 * on a reserved `.invalid` host (RFC 2606: it never resolves), shaped like a processor's
 * signed iframe URL. See docs/cards.md.
 */
export const REVEAL_EMBED_BASE = "https://card-embed.sandbox.invalid/iframe"

/** The currency whose cards the sandbox issues under an EU program (a static 3-D Secure password is accepted). */
export const STATIC_3DS_PASSWORD_CURRENCIES: ReadonlyArray<string> = ["EUR"]

const cardNotFound = (id: string) => missing("card", `Card ${id} not found`)

/**
 * The server's simulated issuer serves every platform (sandbox or not: the rules are the
 * same, only the sandbox magic differs) unless the platforms file turns cards off for a
 * platform (`cards.enabled: false`); then every card endpoint answers 501
 * NOT_IMPLEMENTED, as the reference file says environments without a configured card
 * issuer do.
 */
export const requireCardIssuer = (platform: Platform): Effect.Effect<void, Error501> =>
  cardSettingsOf(platform).enabled
    ? Effect.void
    : Effect.fail(new Error501({
      code: "NOT_IMPLEMENTED",
      reason: "Cards are not enabled for this platform: no card issuer is configured (cards.enabled is false in the platforms file)"
    }))

/** `effect` on a platform with a card issuer, else 501. */
export const withCardIssuer = <A, E, R>(platform: Platform, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | Error501, R> =>
  Effect.andThen(requireCardIssuer(platform), effect)

/** The card `id` of this platform, or 404. */
export const cardOf = Effect.fnUntraced(function*(platform: Platform, id: string) {
  const store = yield* Store
  const rec = yield* store.cards.get(platform.id, id)
  if (rec === undefined) return yield* cardNotFound(id)
  return rec
})

const isApproved = (c: CustomerState): boolean =>
  c.customerType === "INDIVIDUAL" ? c.kycStatus === "APPROVED" : c.kybStatus === "APPROVED"

const statusOfCustomer = (c: CustomerState): string => c.customerType === "INDIVIDUAL" ? c.kycStatus : c.kybStatus

/** The listed internal accounts as the eligibility rule reads them (undefined: not found). */
const fundingAccounts = Effect.fnUntraced(function*(platform: Platform, ids: ReadonlyArray<string>) {
  const store = yield* Store
  const out = new Map<string, FundingAccount | undefined>()
  for (const id of ids) {
    if (out.has(id)) continue
    const rec = yield* store.internalAccounts.get(platform.id, id)
    out.set(id, rec === undefined ? undefined : { id: rec.id, customerId: rec.customerId, status: rec.status, currency: rec.currency })
  }
  return out
})

/**
 * The bindings of a new funding-source list: an account already bound keeps its
 * binding id (`CardFundingSource:<uuid>`), an account bound anew gets a new one.
 */
const bindingsFor = Effect.fnUntraced(function*(previous: ReadonlyArray<CardFundingSourceBinding>, accountIds: ReadonlyArray<string>) {
  const ids = yield* Ids
  const fresh: Array<string> = []
  for (const _ of unbound(previous, accountIds)) fresh.push(yield* ids.make("CardFundingSource"))
  return rebind(previous, accountIds, fresh)
})

/** Stable digits and hex derived from a card id: its sandbox PAN tail and references. */
const hexOf = (seed: string): string => bytesToHex(sha256(new TextEncoder().encode(seed)))
const digitsOf = (seed: string, length: number): string => {
  const hex = hexOf(seed)
  let out = ""
  for (let i = 0; out.length < length; i = (i + 2) % hex.length) out += String(parseInt(hex.slice(i, i + 2), 16) % 10)
  return out
}

/** Writes a card with its events (one unit of work). */
export const writeCard = (
  uow: UnitOfWork,
  platform: Platform,
  rec: CardRecord,
  events: ReadonlyArray<"CARD.STATE_CHANGE" | "CARD.FUNDING_SOURCE_CHANGE" | "CARD.PIN_STATUS_CHANGE">
): Effect.Effect<void, StoreConflict, Ids> =>
  Effect.gen(function*() {
    const built = []
    for (const type of events) built.push(yield* eventOf(platform, type, { timestamp: rec.card.updatedAt, data: rec.card }))
    yield* applyTransition(uow, platform, { write: uow.putCard(rec), subjectId: rec.card.id, kind: CARD_MACHINE, events: built })
  })

const platformCardIdTaken = (platformCardId: string | undefined) => (e: StoreConflict) =>
  e.constraint === "cards_platform_card_id"
    ? Effect.fail(conflict("CONFLICT", `platformCardId ${platformCardId ?? ""} is already used by another card of this platform`, {
      details: { platformCardId }
    }))
    : conflictIsDefect(e)

// ---------------------------------------------------------------- POST /cards

/** POST /cards. */
export const createCard = (platform: Platform, req: CardCreateRequest) => withCardIssuer(platform, createNewCard(platform, req))

const createNewCard = (platform: Platform, req: CardCreateRequest) =>
  Effect.flatMap(Effect.service(Store), (store) =>
    store.transact((uow) =>
      Effect.gen(function*() {
        const ids = yield* Ids
        const settings = cardSettingsOf(platform)
        const holder = (yield* referencedCustomer(platform, req.cardholderId, "cardholderId")).customer
        if (!isApproved(holder)) {
          return yield* badRequest(
            "CARDHOLDER_KYC_NOT_APPROVED",
            `Customer ${holder.id} cannot hold a card until its ${holder.customerType === "INDIVIDUAL" ? "KYC" : "KYB"} status is APPROVED (it is ${statusOfCustomer(holder)})`,
            { details: { cardholderId: holder.id, status: statusOfCustomer(holder) } }
          )
        }
        const { currency } = yield* fromResult(checkFundingSources({
          ids: req.fundingSources,
          accounts: yield* fundingAccounts(platform, req.fundingSources),
          cardholderId: holder.id,
          eligibleCurrencies: settings.eligibleCurrencies
        }))
        if (req.threeDSecurePassword !== undefined && !STATIC_3DS_PASSWORD_CURRENCIES.includes(currency)) {
          return yield* invalidInput("threeDSecurePassword is accepted only for cards of a program with a static-password factor (EUR cards)", [{
            field: "threeDSecurePassword",
            constraint: "staticPasswordUnsupported",
            message: `is not supported for a ${currency} card; omit it and one is generated on the cardholder's behalf`
          }])
        }
        if (req.platformCardId !== undefined) {
          const clash = yield* store.cards.findByPlatformCardId(platform.id, req.platformCardId)
          if (clash !== undefined) {
            return yield* conflict("CONFLICT", `platformCardId ${req.platformCardId} is already used by card ${clash.card.id}`, {
              details: { platformCardId: req.platformCardId, cardId: clash.card.id }
            })
          }
        }
        const refusal = slotRefusal({
          liveOnPlatform: yield* store.cards.countLive(platform.id),
          maxLiveCards: settings.maxLiveCards,
          liveForCardholder: settings.oneCardPerCardholder ? yield* store.cards.countLive(platform.id, holder.id) : undefined,
          oneCardPerCardholder: settings.oneCardPerCardholder
        })
        if (refusal !== undefined) return yield* rejected(refusal)
        const id = yield* ids.make("Card")
        const now = yield* nowIso
        const issued = new Date(now)
        const seed = hexOf(id)
        const card: Card = {
          id,
          cardholderId: holder.id,
          platformCardId: req.platformCardId ?? id.slice("Card:".length),
          state: "ACTIVE",
          status: "ACTIVE",
          stateReason: null,
          pinStatus: "NOT_SET",
          cardCapabilities: { supportsDigitalWalletTokenization: true },
          brand: "VISA",
          form: req.form,
          last4: digitsOf(`${id}:pan`, 4),
          expMonth: issued.getUTCMonth() + 1,
          expYear: issued.getUTCFullYear() + 3,
          fundingSources: [...req.fundingSources],
          maxSpendPerTransaction: req.maxSpendPerTransaction ?? null,
          currency,
          processorRef: `card_${seed.slice(0, 8)}`,
          issuerRef: `sandbox_card_${seed.slice(8, 16)}`,
          createdAt: now,
          updatedAt: now
        }
        const rec: CardRecord = {
          platformId: platform.id,
          card,
          fundingSourceBindings: yield* bindingsFor([], req.fundingSources),
          pinFailures: 0
        }
        yield* writeCard(uow, platform, rec, ["CARD.STATE_CHANGE"])
        return card
      })
    ).pipe(Effect.catchTag("StoreConflict", platformCardIdTaken(req.platformCardId))))

// ---------------------------------------------------------------- GET /cards, GET /cards/{id}

export interface CardListQuery extends PageQuery {
  readonly cardholderId?: string | undefined
  readonly accountId?: string | undefined
  readonly platformCardId?: string | undefined
  readonly state?: CardState | undefined
  /** SPEC.md's name for `state`; both given must agree. */
  readonly status?: CardStatus | undefined
  readonly sortOrder?: "asc" | "desc" | undefined
}

/** GET /cards, newest first unless `sortOrder=asc` (the reference's default is desc). */
export const listCards = Effect.fnUntraced(function*(platform: Platform, q: CardListQuery): Effect.fn.Return<
  { readonly data: ReadonlyArray<Card>; readonly hasMore: boolean; readonly nextCursor?: string; readonly totalCount?: number },
  Error400 | Error501,
  Store
> {
  yield* requireCardIssuer(platform)
  if (q.state !== undefined && q.status !== undefined && q.state !== q.status) {
    return yield* invalidInput(`state (${q.state}) and status (${q.status}) name the same filter and must agree`, [{
      field: "status",
      constraint: "equalsState",
      message: `must equal state (${q.state}) when both are sent; send one of them`
    }])
  }
  const store = yield* Store
  return yield* shownPageOf(store.cards.list(platform.id, {
    cardholderId: q.cardholderId,
    accountId: q.accountId,
    platformCardId: q.platformCardId,
    state: q.state ?? q.status
  }, { ...pageRequestOf(q), descending: q.sortOrder !== "asc" }), (r) => r.card)
})

export const getCard = Effect.fnUntraced(function*(platform: Platform, id: string) {
  yield* requireCardIssuer(platform)
  return (yield* cardOf(platform, id)).card
})

// ---------------------------------------------------------------- PATCH /cards/{id}

/**
 * PATCH /cards/{id}: a status update (`state` or `status`), new funding sources (they
 * replace the list; an account still bound keeps its binding id), a new spend limit
 * (null clears it). CARD.STATE_CHANGE on a status change, CARD.FUNDING_SOURCE_CHANGE
 * when `fundingSources` is supplied. Closing sets stateReason CLOSED_BY_PLATFORM and
 * detaches the funding sources.
 */
export const updateCard = (platform: Platform, id: string, req: CardUpdateRequest) =>
  withCardIssuer(platform, Effect.flatMap(Effect.service(Store), (store) =>
    store.transact((uow) =>
      Effect.gen(function*(): Effect.fn.Return<Card, Error400 | Error409 | ReturnType<typeof cardNotFound>, Store | Ids> {
        const rec = yield* cardOf(platform, id)
        const before = rec.card
        const { plan, moved } = yield* fromResult(planUpdate(before.status, req))
        let fundingSources = before.fundingSources
        let bindings = rec.fundingSourceBindings
        if (plan.fundingSources !== undefined) {
          yield* fromResult(checkFundingSources({
            ids: plan.fundingSources,
            accounts: yield* fundingAccounts(platform, plan.fundingSources),
            cardholderId: before.cardholderId,
            eligibleCurrencies: cardSettingsOf(platform).eligibleCurrencies,
            cardCurrency: before.currency
          }))
          fundingSources = [...plan.fundingSources]
          bindings = yield* bindingsFor(rec.fundingSourceBindings, plan.fundingSources)
        }
        const closing = moved.state === "CLOSED"
        const card: Card = {
          ...before,
          state: moved.state,
          status: moved.state,
          stateReason: closing ? "CLOSED_BY_PLATFORM" : before.stateReason,
          fundingSources: closing ? [] : fundingSources,
          maxSpendPerTransaction: plan.hasMaxSpend ? plan.maxSpendPerTransaction ?? null : before.maxSpendPerTransaction,
          updatedAt: yield* nowIso
        }
        const events = [
          ...moved.events,
          ...(plan.fundingSources === undefined ? [] : ["CARD.FUNDING_SOURCE_CHANGE" as const])
        ]
        yield* writeCard(uow, platform, { ...rec, card, fundingSourceBindings: closing ? [] : bindings }, events)
          .pipe(Effect.catchTag("StoreConflict", conflictIsDefect))
        return card
      })
    )))

// ---------------------------------------------------------------- POST /cards/{id}/reveal

/**
 * POST /cards/{id}/reveal: a short-lived URL of the (simulated) processor iframe that
 * would show the PAN, CVV and expiry. A CLOSED card cannot be revealed (409
 * CARD_NOT_MUTABLE: SPEC.md's code for "the card is CLOSED").
 */
export const revealCard = Effect.fnUntraced(function*(platform: Platform, id: string): Effect.fn.Return<CardRevealResponse, Error409 | Error501 | ReturnType<typeof cardNotFound>, Store | Ids> {
  yield* requireCardIssuer(platform)
  const ids = yield* Ids
  const rec = yield* cardOf(platform, id)
  if (rec.card.status === "CLOSED") {
    return yield* conflict("CARD_NOT_MUTABLE", "The card is CLOSED: its details can no longer be revealed", { details: { status: "CLOSED" } })
  }
  const expiresAt = (yield* nowMillis) + REVEAL_TTL_MILLIS
  const token = (yield* ids.uuid).replace(/-/g, "")
  yield* Effect.logDebug("card reveal", { platformId: platform.id, cardId: id })
  return {
    panEmbedUrl: `${REVEAL_EMBED_BASE}?card=${encodeURIComponent(rec.card.processorRef)}&t=${token}&expires=${expiresAt}`,
    expiresAt: isoOf(expiresAt)
  }
})
