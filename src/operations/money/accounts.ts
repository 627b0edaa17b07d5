/**
 * Internal accounts: opened for a customer when its KYC/KYB is approved (one per
 * currency the platform supports, no further call) and for the platform on first use;
 * listed with their ledger balances; funded in the sandbox.
 */
import { sha256 } from "@noble/hashes/sha2.js"
import { bytesToHex } from "@noble/hashes/utils.js"
import { Effect, type Types } from "effect"
import { DEFAULT_PAGE_LIMIT } from "../../domain/common.js"
import { forbidden } from "../../domain/errors.js"
import { InternalAccount, type InternalAccountType, type PaymentInstructions } from "../../domain/internal-account.js"
import { currencyOf } from "../../domain/money.js"
import type { Platform } from "../../domain/platform.js"
import { Ids } from "../../ports/ids.js"
import { type InternalAccountRecord, type PageResult, Store, type UnitOfWork } from "../../ports/store.js"
import { conflictIsDefect, pageOf } from "../paging.js"
import { currenciesOf } from "./config.js"
import { nowIso } from "../time.js"
import { emit } from "../transition.js"
import { postEntry, worldAccount } from "./ledger.js"
import { missing } from "../not-found.js"
import { BoundedMemo } from "../../lib/bounded-memo.js"

const CRYPTO = new Set(["USDC", "USDT", "BTC"])

const typeOf = (currency: string): InternalAccountType => CRYPTO.has(currency) ? "INTERNAL_CRYPTO" : "INTERNAL_FIAT"

/** Digits derived from an account id: stable account numbers for funding instructions. */
const digitsOf = (seed: string, length: number): string => {
  const hex = bytesToHex(sha256(new TextEncoder().encode(seed)))
  let out = ""
  for (let i = 0; out.length < length; i = (i + 2) % hex.length) out += String(parseInt(hex.slice(i, i + 2), 16) % 10)
  return out
}

/**
 * The funding instructions of the accounts rendered lately, by id. They are a pure
 * function of the account's id, currency and owner kind, and every balance event of a
 * payment renders its accounts (each a few SHA-256 digests): kept, not recomputed.
 * At most 10,000 accounts (the oldest forgotten first).
 */
const fundingCache = new BoundedMemo<string, { readonly currency: string; readonly platform: boolean; readonly instructions: ReadonlyArray<PaymentInstructions> }>(10_000)

/** Where to send money to fund an account, by currency (sandbox bank details, stable per account). */
export const fundingInstructionsOf = (rec: InternalAccountRecord): ReadonlyArray<PaymentInstructions> => {
  // Keyed by the id alone (no key string built per call); the currency and owner kind checked on a hit.
  const platform = rec.customerId === null
  const cached = fundingCache.get(rec.id)
  if (cached !== undefined && cached.currency === rec.currency && cached.platform === platform) return cached.instructions
  const instructions = computeFundingInstructions(rec)
  fundingCache.set(rec.id, { currency: rec.currency, platform, instructions })
  return instructions
}

/**
 * The funding instructions of an account. Each `accountOrWalletInfo` has `accountType`
 * and `reference` first, the schema's declared keys, as its encoder writes them (the rest
 * after): an answer the encoder does not rewrite (a webhook's body) reads the same.
 */
const computeFundingInstructions = (rec: InternalAccountRecord): ReadonlyArray<PaymentInstructions> => {
  const reference = `FUND-${digitsOf(rec.id, 8)}`
  const isPlatformAccount = rec.customerId === null
  const note = "Include the reference so the payment is credited to this account."
  switch (rec.currency) {
    case "USD":
      return [{
        instructionsNotes: note,
        isPlatformAccount,
        accountOrWalletInfo: {
          accountType: "USD_ACCOUNT",
          reference,
          accountNumber: digitsOf(`${rec.id}:account`, 12),
          routingNumber: "021000021",
          bankName: "Sandbox Bank",
          paymentRails: ["ACH", "WIRE", "RTP", "FEDNOW"]
        }
      }]
    case "EUR":
      return [{
        instructionsNotes: note,
        isPlatformAccount,
        accountOrWalletInfo: { accountType: "EUR_ACCOUNT", reference, iban: `DE89${digitsOf(`${rec.id}:iban`, 18)}`, swiftCode: "SANDDEFFXXX", paymentRails: ["SEPA", "SEPA_INSTANT"] }
      }]
    case "MXN":
      return [{
        instructionsNotes: note,
        isPlatformAccount,
        accountOrWalletInfo: { accountType: "MXN_ACCOUNT", reference, clabeNumber: digitsOf(`${rec.id}:clabe`, 18), paymentRails: ["SPEI"] }
      }]
    default:
      return []
  }
}

/**
 * The shapes of an account as answered, one per set of optional fields present (with a
 * customer or not, a wallet or not): the schema's own fields in the schema's order (so
 * the answer's key order is the schema's, from this one list), each with a placeholder.
 * `renderAccount` copies one (a spread of an object of constant shape copies its hidden
 * class and slots: no per-key work, no dictionary object) and fills its values; the
 * properties exist already, so filling them keeps the order and the shape.
 * `test/operations/render-account.test.ts` holds every answer to the schema's encoding.
 */
const ACCOUNT_SHAPES: ReadonlyArray<InternalAccount> = [false, true].flatMap((wallet) =>
  [false, true].map((customer) => {
    const keys = Object.keys(InternalAccount.fields).filter((key) => (key !== "customerId" || customer) && (key !== "privateEnabled" || wallet))
    // Read from JSON text: the parser makes every property in-object (a copy then allocates one
    // block, as a literal does; an object built key by key keeps most of them out of line).
    const shape: unknown = JSON.parse(`{${keys.map((key) => `${JSON.stringify(key)}:null`).join(",")}}`)
    // Placeholders only: every field is filled before the object is answered (the test above holds it).
    return shape as InternalAccount
  })
)
const [PLATFORM_ACCOUNT, ACCOUNT_OF_CUSTOMER, PLATFORM_WALLET, WALLET_OF_CUSTOMER] = ACCOUNT_SHAPES as [InternalAccount, InternalAccount, InternalAccount, InternalAccount]

/** The account as answered: its record, its ledger balance and its funding instructions. */
export const renderAccount = (rec: InternalAccountRecord, balance: number): InternalAccount => {
  const currency = currencyOf(rec.currency) ?? { code: rec.currency, name: rec.currency, symbol: rec.currency, decimals: 2 }
  // One object for both (values are immutable): a BALANCE_UPDATED event keeps it in the outbox.
  const amount = { amount: balance, currency }
  // Money in flight has already left the account (it sits in the in-flight ledger
  // account until it settles or is refunded), so nothing is held beside the balance.
  const wallet = rec.type === "EMBEDDED_WALLET"
  const customer = rec.customerId !== null
  // One copy site per shape, so that each stays monomorphic.
  const account: Types.Mutable<InternalAccount> = wallet
    ? customer ? { ...WALLET_OF_CUSTOMER } : { ...PLATFORM_WALLET }
    : customer ? { ...ACCOUNT_OF_CUSTOMER } : { ...PLATFORM_ACCOUNT }
  account.id = rec.id
  if (customer) account.customerId = rec.customerId
  account.type = rec.type
  account.status = rec.status
  account.balance = amount
  account.totalBalance = amount
  account.fundingPaymentInstructions = fundingInstructionsOf(rec)
  if (wallet) account.privateEnabled = rec.privateEnabled ?? false
  account.createdAt = rec.createdAt
  account.updatedAt = rec.updatedAt
  return account
}

/** Renders accounts with their balances, read in one query. */
export const renderAccounts = Effect.fnUntraced(function*(platformId: string, records: ReadonlyArray<InternalAccountRecord>) {
  const store = yield* Store
  const balances = yield* store.ledger.balances(platformId, records.map((r) => r.id))
  return records.map((r) => renderAccount(r, balances.get(r.id) ?? 0))
})

export const renderOne = Effect.fnUntraced(function*(platformId: string, rec: InternalAccountRecord) {
  const [account] = yield* renderAccounts(platformId, [rec])
  return account ?? renderAccount(rec, 0)
})

/**
 * Opens the owner's missing accounts, one per platform currency, inside the unit of
 * work (owner null: the platform's own). Returns every account of the owner in the
 * platform's currencies.
 */
export const openAccounts = Effect.fnUntraced(function*(uow: UnitOfWork, platform: Platform, customerId: string | null) {
  const store = yield* Store
  const ids = yield* Ids
  const out: Array<InternalAccountRecord> = []
  // A customer of a platform with embedded wallets also gets its wallet: the account in
  // the wallet currency is an EMBEDDED_WALLET (docs/decisions.md, embedded wallets).
  const wallet = customerId === null ? undefined : platform.embeddedWallets?.currency
  const currencies = yield* currenciesOf(platform)
  for (const currency of wallet === undefined || currencies.includes(wallet) ? currencies : [...currencies, wallet]) {
    const existing = yield* store.internalAccounts.findByOwnerCurrency(platform.id, customerId, currency)
    if (existing !== undefined) {
      out.push(existing)
      continue
    }
    const now = yield* nowIso
    const rec: InternalAccountRecord = {
      platformId: platform.id,
      id: yield* ids.make("InternalAccount"),
      customerId,
      type: currency === wallet ? "EMBEDDED_WALLET" : typeOf(currency),
      status: "ACTIVE",
      currency,
      createdAt: now,
      updatedAt: now
    }
    yield* uow.putInternalAccount(rec).pipe(Effect.catchTag("StoreConflict", conflictIsDefect))
    yield* emit(uow, platform, "INTERNAL_ACCOUNT.STATUS_UPDATED", { timestamp: now, data: renderAccount(rec, 0) })
    out.push(rec)
  }
  return out
})

/** The platform's own accounts, opened on first use. */
export const platformAccounts = (platform: Platform) =>
  Effect.flatMap(Effect.service(Store), (store) => store.transact((uow) => openAccounts(uow, platform, null)))

export interface InternalAccountListQuery {
  readonly limit?: number | undefined
  readonly cursor?: string | undefined
  readonly currency?: string | undefined
  readonly customerId?: string | undefined
  readonly type?: InternalAccountType | undefined
}

/** GET /customers/internal-accounts. */
export const listCustomerAccounts = Effect.fnUntraced(function*(platform: Platform, q: InternalAccountListQuery) {
  const store = yield* Store
  const page: PageResult<InternalAccountRecord> = yield* pageOf(store.internalAccounts.list(
    platform.id,
    { owner: "customer", customerId: q.customerId, currency: q.currency, type: q.type },
    { limit: q.limit ?? DEFAULT_PAGE_LIMIT, cursor: q.cursor }
  ))
  const data = yield* renderAccounts(platform.id, page.data)
  return { ...page, data }
})

/** GET /platform/internal-accounts (unpaginated: a platform has one account per currency). */
export const listPlatformAccounts = Effect.fnUntraced(function*(platform: Platform, q: { readonly currency?: string | undefined; readonly type?: InternalAccountType | undefined }) {
  const records = yield* platformAccounts(platform)
  const kept = records.filter((r) => (q.currency === undefined || r.currency === q.currency) && (q.type === undefined || r.type === q.type))
  return { data: yield* renderAccounts(platform.id, kept) }
})

/** An internal account of the platform (or one of its customers'), or 404. */
export const internalAccount = Effect.fnUntraced(function*(platform: Platform, id: string) {
  const store = yield* Store
  const rec = yield* store.internalAccounts.get(platform.id, id)
  if (rec === undefined) return yield* missing("internalAccount", `Internal account ${id} not found`)
  return rec
})

/** The event a balance change announces. */
export const balanceUpdated = Effect.fnUntraced(function*(uow: UnitOfWork, platform: Platform, rec: InternalAccountRecord, at: string) {
  yield* emit(uow, platform, "INTERNAL_ACCOUNT.BALANCE_UPDATED", { timestamp: at, data: yield* renderOne(platform.id, rec) })
})

/** POST /sandbox/internal-accounts/{accountId}/fund: money in from outside, sandbox platforms only. */
export const fundAccount = Effect.fnUntraced(function*(platform: Platform, accountId: string, amount: number) {
  if (!platform.settings.sandbox) return yield* forbidden("Sandbox funding is only available to sandbox platforms")
  const store = yield* Store
  return yield* store.transact((uow) =>
    Effect.gen(function*() {
      // The platform's own accounts exist before anyone funds them.
      yield* openAccounts(uow, platform, null)
      const rec = yield* internalAccount(platform, accountId)
      const now = yield* nowIso
      yield* postEntry(uow, platform.id, "FUND", [
        { account: worldAccount(rec.currency), currency: rec.currency, amount: -amount },
        { account: rec.id, currency: rec.currency, amount }
      ], now).pipe(Effect.catchTag("LedgerRejected", (e) => Effect.die(e)))
      yield* balanceUpdated(uow, platform, rec, now)
      return yield* renderOne(platform.id, rec)
    }), { movesMoneyOf: platform.id, accounts: [accountId] })
})
