/**
 * `POST /sandbox/seed` (docs/sandbox.md#fixtures): brings a sandbox platform to what a
 * seed document describes, through the operations the API runs (customer creation with
 * its sandbox KYC outcome, external-account registration with its checks, sandbox
 * funding, PATCH /config). Every item is keyed, so the same document applied twice
 * creates nothing new: customers by `platformCustomerId`, platform external accounts by
 * `platformAccountId`, customer external accounts by equivalence (the service's own
 * duplicate check), balances by target amount (funded up to it, never taken down), cards
 * by `platformCardId` (issued by POST /cards' own operation, the cardholder and funding
 * accounts found by `platformCustomerId` and currency).
 *
 * The whole document is one unit of work: items are applied in document order, and a
 * refused item answers a 400 naming it with nothing of the document applied (the
 * operations' own units of work nest inside it, so their writes, events and timers are
 * dropped with it).
 */
import { Effect } from "effect"
import { type ApiError, Error400, Error500, Error503, forbidden, invalidInput } from "../domain/errors.js"
import type { Platform } from "../domain/platform.js"
import type { PlatformConfigUpdateRequest } from "../domain/platform-config.js"
import type { SeedDocument, SeedResult } from "../domain/sandbox-seed.js"
import { Store } from "../ports/store.js"
import * as Cards from "./cards/cards.js"
import * as Customers from "./customers.js"
import * as Accounts from "./external-accounts.js"
import { fundAccount, listCustomerAccounts, listPlatformAccounts } from "./money/accounts.js"
import { configOf, updateConfig } from "./money/config.js"
import { withWebhookPublicKey } from "./webhooks.js"

const sandboxOnly = (platform: Platform) =>
  platform.settings.sandbox ? Effect.void : Effect.fail(forbidden("Sandbox endpoints are not available to production platforms"))

/** A refusal of one item, as a 400 naming it (the operation's own code and reason in `details`). */
const itemFailed = (item: string) => (e: ApiError): Effect.Effect<never, Error400 | Error500 | Error503> => {
  // Server-side failures stay what they are: the document is not at fault.
  if (e instanceof Error500 || e instanceof Error503) return Effect.fail(e)
  if (e instanceof Error400 && e.code === "INVALID_INPUT" && e.reason.startsWith("Seed item ")) return Effect.fail(e)
  return Effect.fail(new Error400({
    code: "INVALID_INPUT",
    reason: `Seed item ${item} was refused: ${e.reason}`,
    details: { item, code: e.code, reason: e.reason }
  }))
}

/** Whether every field of `update` already has that value in the platform's config. */
const configHolds = (platform: Platform, update: PlatformConfigUpdateRequest) =>
  Effect.map(configOf(platform), (current) => {
    const held: Readonly<Record<string, unknown>> = current
    return Object.entries(update).every(([field, value]) => JSON.stringify(held[field]) === JSON.stringify(value))
  })

/** Funds each account of `accounts` up to the amount `targets` gives its currency; answers how many were funded. */
const fundUpTo = (
  platform: Platform,
  accounts: ReadonlyArray<{ readonly id: string; readonly balance: { readonly amount: number; readonly currency: { readonly code: string } } }>,
  targets: Readonly<Record<string, number>>,
  item: string
) =>
  Effect.gen(function*() {
    let funded = 0
    for (const [currency, target] of Object.entries(targets)) {
      const account = accounts.find((a) => a.balance.currency.code === currency)
      if (account === undefined) return yield* invalidInput(`Seed item ${item}.balances.${currency}: there is no ${currency} internal account`)
      if (target > account.balance.amount) {
        yield* fundAccount(platform, account.id, target - account.balance.amount)
        funded++
      }
    }
    return funded
  })

export const applySeed = Effect.fnUntraced(function*(platform: Platform, doc: SeedDocument) {
  yield* sandboxOnly(platform)
  const store = yield* Store
  return yield* store.transact(() => applyAll(store, platform, doc))
})

const applyAll = Effect.fnUntraced(function*(store: Store["Service"], platform: Platform, doc: SeedDocument) {
  const created = { customers: 0, externalAccounts: 0, fundings: 0, cards: 0 }
  const customers: Record<string, string> = {}
  const platformAccounts: Record<string, string> = {}

  // The config only when it says something the platform's does not (a PATCH moves updatedAt).
  if (doc.config !== undefined && !(yield* configHolds(platform, doc.config))) {
    yield* withWebhookPublicKey(platform, updateConfig(platform, doc.config)).pipe(Effect.catch(itemFailed("config")))
  }

  for (const [i, seed] of (doc.customers ?? []).entries()) {
    const item = `customers[${i}]`
    const key = seed.customer.platformCustomerId
    if (key === undefined) return yield* invalidInput(`Seed item ${item}.customer.platformCustomerId is required: it keys the customer`)
    if (customers[key] !== undefined) return yield* invalidInput(`Seed item ${item}: platformCustomerId ${key} appears twice in the document`)
    const existing = yield* store.customers.findActiveByPlatformCustomerId(platform.id, key)
    let customerId = existing?.customer.id
    if (customerId === undefined) {
      const made = yield* Customers.createCustomer(platform, seed.customer).pipe(Effect.catch(itemFailed(item)))
      customerId = made.id
      created.customers++
    }
    customers[key] = customerId
    for (const [j, account] of (seed.externalAccounts ?? []).entries()) {
      const made = yield* Accounts.createCustomerExternalAccount(platform, { ...account, customerId }).pipe(
        Effect.as(true),
        // Already registered (by an earlier application): the service's duplicate check says so.
        Effect.catch((e: ApiError) => e.code === "DUPLICATE_EXTERNAL_ACCOUNT" ? Effect.succeed(false) : itemFailed(`${item}.externalAccounts[${j}]`)(e))
      )
      if (made) created.externalAccounts++
    }
    if (seed.balances !== undefined) {
      const accounts = yield* listCustomerAccounts(platform, { customerId, limit: 100 })
      created.fundings += yield* fundUpTo(platform, accounts.data, seed.balances, item).pipe(Effect.catch(itemFailed(`${item}.balances`)))
    }
  }

  if ((doc.platformExternalAccounts ?? []).length > 0) {
    // The platform's accounts already holding a platformAccountId.
    const held = new Map<string, string>()
    let cursor: string | undefined
    for (;;) {
      const page = yield* Effect.orDie(store.externalAccounts.list(platform.id, { owner: "platform" }, { limit: 500, cursor }))
      for (const r of page.data) if (r.account.platformAccountId !== undefined) held.set(r.account.platformAccountId, r.account.id)
      if (!page.hasMore || page.nextCursor === undefined) break
      cursor = page.nextCursor
    }
    for (const [i, account] of (doc.platformExternalAccounts ?? []).entries()) {
      const item = `platformExternalAccounts[${i}]`
      const key = account.platformAccountId
      if (key === undefined) return yield* invalidInput(`Seed item ${item}.platformAccountId is required: it keys the account`)
      if (platformAccounts[key] !== undefined) return yield* invalidInput(`Seed item ${item}: platformAccountId ${key} appears twice in the document`)
      let id = held.get(key)
      if (id === undefined) {
        id = (yield* Accounts.createPlatformExternalAccount(platform, account).pipe(Effect.catch(itemFailed(item)))).id
        created.externalAccounts++
      }
      platformAccounts[key] = id
    }
  }

  if (doc.platformBalances !== undefined) {
    const accounts = yield* listPlatformAccounts(platform, {})
    created.fundings += yield* fundUpTo(platform, accounts.data, doc.platformBalances, "platformBalances").pipe(Effect.catch(itemFailed("platformBalances")))
  }

  const cards: Record<string, string> = {}
  for (const [i, seed] of (doc.cards ?? []).entries()) {
    const item = `cards[${i}]`
    const key = seed.platformCardId
    if (key === undefined) return yield* invalidInput(`Seed item ${item}.platformCardId is required: it keys the card`)
    if (cards[key] !== undefined) return yield* invalidInput(`Seed item ${item}: platformCardId ${key} appears twice in the document`)
    const holderId = customers[seed.platformCustomerId] ?? (yield* store.customers.findActiveByPlatformCustomerId(platform.id, seed.platformCustomerId))?.customer.id
    if (holderId === undefined) {
      return yield* invalidInput(`Seed item ${item}.platformCustomerId: no customer of the platform or the document has platformCustomerId ${seed.platformCustomerId}`)
    }
    const existing = yield* store.cards.findByPlatformCardId(platform.id, key)
    if (existing !== undefined) {
      if (existing.card.cardholderId !== holderId) {
        return yield* invalidInput(`Seed item ${item}: platformCardId ${key} is held by card ${existing.card.id} of another cardholder (${existing.card.cardholderId})`)
      }
      cards[key] = existing.card.id
      continue
    }
    const accounts = (yield* listCustomerAccounts(platform, { customerId: holderId, limit: 100 })).data
    const fundingSources: Array<string> = []
    for (const currency of seed.fundingCurrencies) {
      const account = accounts.find((a) => a.balance.currency.code === currency)
      if (account === undefined) return yield* invalidInput(`Seed item ${item}.fundingCurrencies: the cardholder has no ${currency} internal account`)
      fundingSources.push(account.id)
    }
    const { platformCustomerId: _holder, fundingCurrencies: _currencies, ...fields } = seed
    const card = yield* Cards.createCard(platform, { ...fields, cardholderId: holderId, fundingSources }).pipe(Effect.catch(itemFailed(item)))
    cards[key] = card.id
    created.cards++
  }

  return { created, customers, platformExternalAccounts: platformAccounts, cards } satisfies SeedResult
})
