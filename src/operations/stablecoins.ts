/**
 * Stablecoin issuance (docs/stablecoins.md): provider account links, registering
 * provider-created stablecoins, requesting Grid-operations enablement, and issuer
 * operations (mints and burns) that the simulated provider moves on the platform clock.
 *
 * The POSTs of the reference take a required `Idempotency-Key` (the HTTP layer refuses a
 * request without one); the HTTP layer runs each under that key (src/http/concerns.ts), so
 * a replay answers the first result and a key reused with another body is 409 CONFLICT.
 *
 * Money: a mint funded from a Grid internal account debits the account into the
 * in-flight account at creation and settles it to the outside world when the mint
 * completes (a failure refunds it), through the ledger, with
 * INTERNAL_ACCOUNT.BALANCE_UPDATED for each balance change. The reference defines no
 * stablecoin webhook types, so the stablecoin machines emit no events of their own.
 */
import { sha256 } from "@noble/hashes/sha2.js"
import { bytesToHex } from "@noble/hashes/utils.js"
import { Effect } from "effect"
import { badRequest, conflict, type Error400, type Error404, type Error409, invalidInput, notFound } from "../domain/errors.js"
import type { ExternalAccount } from "../domain/external-account.js"
import { currencyOf } from "../domain/money.js"
import type { Platform } from "../domain/platform.js"
import {
  Stablecoin,
  type StablecoinBurnRequest,
  type StablecoinFundingInstructions,
  type StablecoinGridOperationsStatus,
  type StablecoinIssuanceStatus,
  type StablecoinMintRequest,
  StablecoinOperation,
  type StablecoinOperationSource,
  type StablecoinOperationType,
  type StablecoinProvider,
  StablecoinProviderAccount,
  type StablecoinProviderAccountLinkRequest,
  type StablecoinProviderAccountStatus,
  type StablecoinProviderEnvironment,
  type StablecoinRegisterRequest
} from "../domain/stablecoin.js"
import { Ids } from "../ports/ids.js"
import {
  type StablecoinOperationRecord,
  type StablecoinRecord,
  Store,
  type StoreConflict,
  type TimerRecord,
  type UnitOfWork
} from "../ports/store.js"
import { primaryIdentifier } from "../rules/sandbox/identifiers.js"
import { fiatMinorUnits } from "../rules/stablecoins/amount.js"
import * as Enablement from "../rules/stablecoins/enablement.js"
import * as Issuance from "../rules/stablecoins/issuance.js"
import * as OperationMachine from "../rules/stablecoins/operation.js"
import { counterpartyOutcome, credentialCheck, tokenOutcome } from "../rules/stablecoins/sandbox.js"
import { balanceUpdated, internalAccount } from "./money/accounts.js"
import { inFlightAccount, postEntry, worldAccount } from "./money/ledger.js"
import { pageOf, type PageQuery, pageRequestOf, shownPageOf } from "./paging.js"
import { rejected } from "./rejection.js"
import { schedule } from "./transition.js"
import { isoOf, nowMillis } from "./time.js"
import { missing } from "./not-found.js"

export const STABLECOIN_ISSUANCE_TIMER = "stablecoin-issuance"
export const STABLECOIN_ENABLEMENT_TIMER = "stablecoin-enablement"
export const STABLECOIN_OPERATION_TIMER = "stablecoin-operation"

/** The simulated provider's token metadata: every token is a 6-decimal USD stablecoin. */
export const TOKEN_DECIMALS = 6
export const TOKEN_BASE_CURRENCY = "USD"

const environmentOf = (platform: Platform): StablecoinProviderEnvironment => platform.settings.sandbox ? "SANDBOX" : "PRODUCTION"

const hashHex = (text: string): string => bytesToHex(sha256(new TextEncoder().encode(text)))

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
const BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"

/** `length` characters of `alphabet` derived from `seed` (stable: the same seed, the same text). */
const derived = (seed: string, alphabet: string, length: number): string => {
  const bytes = sha256(new TextEncoder().encode(seed))
  let out = ""
  for (let i = 0; i < length; i++) out += alphabet[bytes[i % bytes.length]! % alphabet.length]
  return out
}

// ---------------------------------------------------------------- lookups

const providerAccountNotFound = (id: string) =>
  notFound(`Stablecoin provider account ${id} not found`, "STABLECOIN_PROVIDER_ACCOUNT_NOT_FOUND")

export const stablecoinOf = Effect.fnUntraced(function*(platform: Platform, id: string): Effect.fn.Return<StablecoinRecord, Error404, Store> {
  const store = yield* Store
  const rec = yield* store.stablecoins.get(platform.id, id)
  if (rec === undefined) return yield* missing("stablecoin", `Stablecoin ${id} not found`)
  return rec
})

const usableStatus = (id: string, status: StablecoinProviderAccountStatus): Error400 | undefined =>
  status === "INVALID"
    ? badRequest("STABLECOIN_PROVIDER_ACCOUNT_INVALID", `Stablecoin provider account ${id} is not usable: its credentials did not verify; link the account again with valid credentials`)
    : status === "REVOKED"
    ? badRequest("STABLECOIN_PROVIDER_ACCOUNT_REVOKED", `Stablecoin provider account ${id} has been revoked at the provider; link the account again`)
    : undefined

// ---------------------------------------------------------------- provider accounts

/** POST /stablecoin-provider-accounts (Idempotency-Key required). */
export const linkProviderAccount = Effect.fnUntraced(function*(platform: Platform, req: StablecoinProviderAccountLinkRequest) {
  const store = yield* Store
  const ids = yield* Ids
  const check = credentialCheck(req.apiClientId, platform.settings.sandbox)
  if (check.kind === "rejected") {
    return yield* badRequest("STABLECOIN_VERIFICATION_FAILED", `The ${req.provider} credentials for API client ${JSON.stringify(req.apiClientId)} did not verify with the provider; nothing was linked`)
  }
  // The simulated provider exposes one account per API client, named after it.
  const providerAccountId = req.providerAccountId ?? derived(`${req.provider}\n${req.apiClientId}`, BASE62, 27)
  const existingConflict = (existingId: string) =>
    conflict("CONFLICT", `${req.provider} account ${providerAccountId} is already linked to this platform as ${existingId}`, {
      details: { existingStablecoinProviderAccountId: existingId }
    })
  const linked = yield* store.transact((uow) =>
    Effect.gen(function*() {
      const existing = yield* store.stablecoins.findProviderAccount(platform.id, req.provider, providerAccountId)
      if (existing !== undefined) return yield* existingConflict(existing.account.id)
      const now = isoOf(yield* nowMillis)
      const account: StablecoinProviderAccount = {
        id: yield* ids.make("StablecoinProviderAccount"),
        provider: req.provider,
        providerAccountId,
        providerEnvironment: environmentOf(platform),
        status: check.status,
        ...(check.status === "ACTIVE" ? { lastVerifiedAt: now } : {}),
        createdAt: now,
        updatedAt: now
      }
      yield* uow.putStablecoinProviderAccount({
        platformId: platform.id,
        account,
        apiClientId: req.apiClientId,
        apiClientSecretSha256: hashHex(req.apiClientSecret)
      })
      return account
    })
  ).pipe(
    Effect.catchTag("StoreConflict", () =>
      Effect.flatMap(store.stablecoins.findProviderAccount(platform.id, req.provider, providerAccountId), (winner) =>
        Effect.fail(existingConflict(winner?.account.id ?? "another link"))))
  )
  return linked
})

export interface ProviderAccountListQuery extends PageQuery {
  readonly provider?: StablecoinProvider | undefined
  readonly status?: StablecoinProviderAccountStatus | undefined
}

export const listProviderAccounts = Effect.fnUntraced(function*(platform: Platform, q: ProviderAccountListQuery) {
  const store = yield* Store
  return yield* shownPageOf(store.stablecoins.listProviderAccounts(platform.id, { provider: q.provider, status: q.status }, pageRequestOf(q)), (r) => r.account)
})

export const getProviderAccount = Effect.fnUntraced(function*(platform: Platform, id: string) {
  const store = yield* Store
  const rec = yield* store.stablecoins.getProviderAccount(platform.id, id)
  if (rec === undefined) return yield* providerAccountNotFound(id)
  return rec.account
})

// ---------------------------------------------------------------- stablecoins

/** The provider account link a registration uses: the one named, or the platform's only active one. */
const selectProviderAccount = Effect.fnUntraced(function*(platform: Platform, named: string | undefined) {
  const store = yield* Store
  if (named !== undefined) {
    const rec = yield* store.stablecoins.getProviderAccount(platform.id, named)
    if (rec === undefined) return yield* providerAccountNotFound(named)
    const unusable = usableStatus(named, rec.account.status)
    if (unusable !== undefined) return yield* unusable
    return rec.account
  }
  const active = yield* pageOf(store.stablecoins.listProviderAccounts(platform.id, { status: "ACTIVE" }, { limit: 2 }))
  const only = active.data[0]
  if (only === undefined) {
    return yield* notFound(
      "No active stablecoin provider account is linked to this platform: link one with POST /stablecoin-provider-accounts",
      "STABLECOIN_PROVIDER_ACCOUNT_NOT_FOUND"
    )
  }
  if (active.data.length > 1) {
    return yield* badRequest(
      "STABLECOIN_PROVIDER_ACCOUNT_SELECTION_REQUIRED",
      `${active.totalCount ?? "Many"} active stablecoin provider account links exist; pass stablecoinProviderAccountId to select one`,
      { details: { activeLinks: active.totalCount ?? active.data.length } }
    )
  }
  return only.account
})

const tokenTaken = (networkTokenIdentifier: string, existingId: string) =>
  conflict("STABLECOIN_TOKEN_IDENTIFIER_ALREADY_EXISTS", `Token identifier ${networkTokenIdentifier} is already registered as ${existingId}`, {
    details: { existingStablecoinId: existingId }
  })
const symbolTaken = (symbol: string, existingId: string) =>
  conflict("STABLECOIN_SYMBOL_ALREADY_EXISTS", `Symbol ${symbol} is already registered as ${existingId}`, { details: { existingStablecoinId: existingId } })

/** POST /stablecoins (Idempotency-Key required). */
export const registerStablecoin = Effect.fnUntraced(function*(platform: Platform, req: StablecoinRegisterRequest) {
  const store = yield* Store
  const ids = yield* Ids
  const symbol = req.providerTokenIdentifier.toUpperCase()
  /** A unique index refused the write: a racing registration won; answer as if it had been seen first. */
  const lost = (e: StoreConflict) =>
    Effect.gen(function*() {
      if (e.constraint === "stablecoins_token_identifier") {
        const byToken = yield* store.stablecoins.findByTokenIdentifier(platform.id, req.network, req.networkTokenIdentifier)
        return yield* tokenTaken(req.networkTokenIdentifier, byToken?.stablecoin.id ?? "another stablecoin")
      }
      const bySymbol = yield* store.stablecoins.findBySymbol(platform.id, symbol)
      return yield* symbolTaken(symbol, bySymbol?.stablecoin.id ?? "another stablecoin")
    })
  return yield* store.transact((uow) =>
    Effect.gen(function*() {
      const link = yield* selectProviderAccount(platform, req.stablecoinProviderAccountId)
      const byToken = yield* store.stablecoins.findByTokenIdentifier(platform.id, req.network, req.networkTokenIdentifier)
      if (byToken !== undefined) return yield* tokenTaken(req.networkTokenIdentifier, byToken.stablecoin.id)
      const bySymbol = yield* store.stablecoins.findBySymbol(platform.id, symbol)
      if (bySymbol !== undefined) return yield* symbolTaken(symbol, bySymbol.stablecoin.id)
      const nowMs = yield* nowMillis
      const now = isoOf(nowMs)
      const outcome = tokenOutcome(req.providerTokenIdentifier, platform.settings.sandbox)
      const first = Issuance.registered(outcome.issuance)
      const stablecoin: Stablecoin = {
        id: yield* ids.make("Stablecoin"),
        name: `${symbol} Dollar`,
        symbol,
        baseCurrency: TOKEN_BASE_CURRENCY,
        network: req.network,
        decimals: TOKEN_DECIMALS,
        issuanceStatus: first.state,
        gridOperationsStatus: "NOT_ENABLED",
        networkTokenIdentifier: req.networkTokenIdentifier,
        provider: link.provider,
        stablecoinProviderAccountId: link.id,
        providerEnvironment: link.providerEnvironment,
        providerTokenIdentifier: req.providerTokenIdentifier,
        createdAt: now,
        updatedAt: now
      }
      yield* uow.putStablecoin({
        platformId: platform.id,
        stablecoin,
        issuanceOutcome: outcome.issuance,
        enablementDeclined: outcome.enablementDeclined
      })
      for (const later of first.scheduled) {
        yield* schedule(uow, platform, STABLECOIN_ISSUANCE_TIMER, stablecoin.id, { at: nowMs + later.afterMillis, event: later.event })
      }
      return stablecoin
    })
  ).pipe(Effect.catchTag("StoreConflict", lost))
})

export interface StablecoinListQuery extends PageQuery {
  readonly issuanceStatus?: StablecoinIssuanceStatus | undefined
  readonly gridOperationsStatus?: StablecoinGridOperationsStatus | undefined
  readonly provider?: StablecoinProvider | undefined
}

export const listStablecoins = Effect.fnUntraced(function*(platform: Platform, q: StablecoinListQuery) {
  const store = yield* Store
  return yield* shownPageOf(store.stablecoins.list(
    platform.id,
    { issuanceStatus: q.issuanceStatus, gridOperationsStatus: q.gridOperationsStatus, provider: q.provider },
    pageRequestOf(q)
  ), (r) => r.stablecoin)
})

export const getStablecoin = Effect.fnUntraced(function*(platform: Platform, id: string) {
  return (yield* stablecoinOf(platform, id)).stablecoin
})

const notProvisioned = (s: Stablecoin): Error400 =>
  badRequest("STABLECOIN_NOT_PROVISIONED", `Stablecoin ${s.id} is not provisioned by the provider (issuanceStatus ${s.issuanceStatus})`, {
    details: { issuanceStatus: s.issuanceStatus }
  })

/**
 * POST /stablecoins/{stablecoinId}/grid-operations-enablement (ours: the reference has no
 * way to request it; docs/decisions.md). Accepted while NOT_ENABLED, repeated while
 * PENDING_APPROVAL; otherwise 409 STABLECOIN_GRID_ENABLEMENT_NOT_REQUESTABLE.
 */
export const requestGridOperationsEnablement = Effect.fnUntraced(function*(platform: Platform, id: string) {
  const store = yield* Store
  return yield* store.transact((uow) =>
    Effect.gen(function*() {
      const rec = yield* stablecoinOf(platform, id)
      const s = rec.stablecoin
      if (s.issuanceStatus !== "PROVISIONED") return yield* notProvisioned(s)
      const moved = Enablement.transition(s.gridOperationsStatus, "REQUEST", { declined: rec.enablementDeclined })
      if (!moved.ok) return yield* rejected(moved.error)
      if (moved.value.state === s.gridOperationsStatus) return s
      const nowMs = yield* nowMillis
      const next: Stablecoin = { ...s, gridOperationsStatus: moved.value.state, updatedAt: isoOf(nowMs) }
      yield* Effect.orDie(uow.putStablecoin({ ...rec, stablecoin: next }))
      for (const later of moved.value.scheduled) {
        yield* schedule(uow, platform, STABLECOIN_ENABLEMENT_TIMER, s.id, { at: nowMs + later.afterMillis, event: later.event })
      }
      return next
    })
  )
})

// ---------------------------------------------------------------- operations

/** The stablecoin an operation is for: provisioned, on a usable provider link. */
const operableStablecoin = Effect.fnUntraced(function*(platform: Platform, id: string) {
  const store = yield* Store
  const rec = yield* stablecoinOf(platform, id)
  if (rec.stablecoin.issuanceStatus !== "PROVISIONED") return yield* notProvisioned(rec.stablecoin)
  const link = yield* store.stablecoins.getProviderAccount(platform.id, rec.stablecoin.stablecoinProviderAccountId)
  if (link === undefined) return yield* providerAccountNotFound(rec.stablecoin.stablecoinProviderAccountId)
  const unusable = usableStatus(link.account.id, link.account.status)
  if (unusable !== undefined) return yield* unusable
  return rec
})

/** The fiat minor units of a request's amount, or the 400 that says why it has none. */
const fiatAmount = (s: Stablecoin, amount: string): Effect.Effect<number, Error400> => {
  const fiatDecimals = currencyOf(s.baseCurrency)?.decimals ?? 2
  const r = fiatMinorUnits(amount, s.decimals, fiatDecimals)
  if (r.ok) return Effect.succeed(r.value)
  switch (r.error.kind) {
    case "zero":
      return Effect.fail(invalidInput("amount must be greater than zero", [{ field: "amount", constraint: "minimum", message: "must be greater than zero" }]))
    case "fraction":
      return Effect.fail(badRequest(
        "STABLECOIN_AMOUNT_NOT_REPRESENTABLE",
        `amount ${amount} of ${s.symbol} (${s.decimals} decimals) is not a whole ${s.baseCurrency} minor unit: it must be a multiple of ${r.error.step}`,
        { details: { decimals: s.decimals, multipleOf: r.error.step } }
      ))
    case "too-large":
      return Effect.fail(badRequest(
        "STABLECOIN_AMOUNT_NOT_REPRESENTABLE",
        `amount ${amount} of ${s.symbol} is beyond the largest amount an operation can carry (${r.error.max})`,
        { details: { decimals: s.decimals, maximum: r.error.max } }
      ))
  }
}

const externalAccountOf = Effect.fnUntraced(function*(platform: Platform, id: string): Effect.fn.Return<ExternalAccount, Error404, Store> {
  const store = yield* Store
  const rec = yield* store.externalAccounts.get(platform.id, id)
  if (rec === undefined) return yield* missing("externalAccount", `External account ${id} not found`)
  return rec.account
})

/** A US bank account in the stablecoin's base currency, usable now: ACH-debit funding and burn payouts. */
const bankAccountOf = Effect.fnUntraced(function*(platform: Platform, s: Stablecoin, id: string, field: string): Effect.fn.Return<ExternalAccount, Error400 | Error404 | Error409, Store> {
  const store = yield* Store
  const rec = yield* store.externalAccounts.get(platform.id, id)
  if (rec === undefined) return yield* missing("externalAccount", `External account ${id} not found`)
  const account = rec.account
  if (account.accountInfo.accountType !== "USD_ACCOUNT" || account.currency !== s.baseCurrency) {
    return yield* badRequest(
      "STABLECOIN_EXTERNAL_ACCOUNT_NOT_SUPPORTED",
      `${field}: external account ${id} is a ${account.accountInfo.accountType} in ${account.currency}; ${s.symbol} needs a US bank account (USD_ACCOUNT) in ${s.baseCurrency}`,
      { details: { field } }
    )
  }
  if (account.status === "PENDING") {
    return yield* conflict("BANK_ACCOUNT_VALIDATION_PENDING", `${field}: external account ${id} is still being validated; retry once it is ACTIVE`)
  }
  // SPEC.md Endpoints rule 4, as every other money path answers it: a permanently failed micro-entry validation.
  if (rec.bankValidationFailed === true) {
    return yield* badRequest("INVALID_BANK_ACCOUNT", `${field}: external account ${id} failed bank validation permanently; register a different account`, { details: { field } })
  }
  if (account.status !== "ACTIVE") {
    return yield* badRequest("STABLECOIN_EXTERNAL_ACCOUNT_NOT_SUPPORTED", `${field}: external account ${id} is ${account.status}, not ACTIVE`, { details: { field } })
  }
  return account
})

const identifierOf = (account: ExternalAccount): string =>
  primaryIdentifier(account.accountInfo as unknown as Parameters<typeof primaryIdentifier>[0])

const wireInstructions = (platform: Platform, operationId: string, s: Stablecoin, minor: number): StablecoinFundingInstructions => ({
  rail: "WIRE",
  bankName: platform.settings.sandbox ? "Sandbox Provider Bank" : "Provider Bank",
  beneficiaryName: "Brale Inc.",
  accountNumber: derived(`account\n${operationId}`, "0123456789", 12),
  routingNumber: "021000021",
  reference: `MINT-${derived(`reference\n${operationId}`, BASE62.slice(0, 36), 10)}`,
  amount: String(minor),
  currency: s.baseCurrency
})

const depositInstructions = (platform: Platform, operationId: string, s: Stablecoin): StablecoinFundingInstructions => ({
  rail: "SPARK",
  network: "SPARK",
  // Sandbox platforms use the test network (SPEC.md): `sparkrt1…`.
  address: `${platform.settings.sandbox ? "sparkrt1" : "spark1"}${derived(`deposit\n${operationId}`, BECH32, 58)}`,
  valueType: s.providerTokenIdentifier
})

const renderOperation = (
  base: Omit<StablecoinOperation, "status" | "expiresAt">,
  course: OperationMachine.Course
): StablecoinOperation => ({
  ...base,
  status: course.status,
  ...(course.expiresAt === undefined ? {} : { expiresAt: isoOf(course.expiresAt) })
})

/** Writes a new operation and schedules its first move. */
const startOperation = Effect.fnUntraced(function*(uow: UnitOfWork, platform: Platform, rec: StablecoinOperationRecord) {
  yield* uow.putStablecoinOperation(rec)
  const [first] = rec.pending
  if (first !== undefined) yield* schedule(uow, platform, STABLECOIN_OPERATION_TIMER, rec.operation.id, { at: first.at, event: first.event })
})

const stepsOf = (course: OperationMachine.Course) =>
  course.steps.map((s) => ({ at: s.at, event: OperationMachine.encodeEvent(s.event) }))

/** A mint or a burn: one unit of work on an operable stablecoin, with the amount in its minor units. */
const operationOn = <A, E, R>(
  platform: Platform,
  stablecoinId: string,
  amount: string,
  body: (at: { readonly store: Store["Service"]; readonly ids: Ids["Service"]; readonly uow: UnitOfWork; readonly s: Stablecoin; readonly minor: number }) => Effect.Effect<A, E, R>
) =>
  Effect.gen(function*() {
    const store = yield* Store
    const ids = yield* Ids
    return yield* store.transact((uow) =>
      Effect.gen(function*() {
        const rec = yield* operableStablecoin(platform, stablecoinId)
        const minor = yield* fiatAmount(rec.stablecoin, amount)
        return yield* body({ store, ids, uow, s: rec.stablecoin, minor })
      })
    )
  })

/** The fields an operation on `s` begins with, in their order. */
const operationHead = (s: Stablecoin, id: string, operationType: StablecoinOperationType, amount: string) => ({
  id,
  stablecoinId: s.id,
  operationType,
  amount,
  provider: s.provider,
  providerEnvironment: s.providerEnvironment,
  stablecoinProviderAccountId: s.stablecoinProviderAccountId
})

/** POST /stablecoins/{stablecoinId}/mints (Idempotency-Key required). */
export const createMint = (platform: Platform, stablecoinId: string, req: StablecoinMintRequest) =>
  operationOn(platform, stablecoinId, req.amount, ({ store, ids, uow, s, minor }) =>
    Effect.gen(function*() {
      // The destination: a Spark wallet (an external account); Grid-managed destinations need Grid operations.
      const destinationId = req.destination.accountId
      if (destinationId.startsWith("InternalAccount:")) {
        return yield* badRequest(
          "STABLECOIN_OPERATION_NOT_SUPPORTED",
          `destination.accountId: minting into a Grid internal account is not supported; mint to a SPARK_WALLET external account`
        )
      }
      const destination = yield* externalAccountOf(platform, destinationId)
      if (destination.accountInfo.accountType !== "SPARK_WALLET" || destination.status !== "ACTIVE") {
        return yield* badRequest(
          "STABLECOIN_EXTERNAL_ACCOUNT_NOT_SUPPORTED",
          `destination.accountId: external account ${destinationId} is a ${destination.status} ${destination.accountInfo.accountType}; ${s.symbol} is minted to an ACTIVE SPARK_WALLET`,
          { details: { field: "destination.accountId" } }
        )
      }
      const nowMs = yield* nowMillis
      const now = isoOf(nowMs)
      const id = yield* ids.make("StablecoinOperation")
      const fs = req.fundingSource
      let source: StablecoinOperationSource
      let course: OperationMachine.Course
      let fundingInstructions: StablecoinFundingInstructions | undefined
      let ledger: StablecoinOperationRecord["ledger"]
      switch (fs.type) {
        case "PROVIDER_INTERNAL_BALANCE":
          return yield* badRequest(
            "STABLECOIN_OPERATION_NOT_SUPPORTED",
            "fundingSource.type PROVIDER_INTERNAL_BALANCE is reserved by the provider for a follow-up flow; fund the mint by WIRE, ACH_DEBIT, SAME_DAY_ACH_DEBIT or GRID_INTERNAL_ACCOUNT"
          )
        case "WIRE":
          source = { type: "WIRE" }
          course = OperationMachine.mintCourse({ type: "WIRE", sandbox: platform.settings.sandbox }, nowMs)
          fundingInstructions = wireInstructions(platform, id, s, minor)
          break
        case "ACH_DEBIT":
        case "SAME_DAY_ACH_DEBIT": {
          const bank = yield* bankAccountOf(platform, s, fs.externalAccountId, "fundingSource.externalAccountId")
          source = { type: fs.type, externalAccountId: bank.id }
          course = OperationMachine.mintCourse({ type: fs.type, outcome: counterpartyOutcome(identifierOf(bank), platform.settings.sandbox) }, nowMs)
          break
        }
        case "GRID_INTERNAL_ACCOUNT": {
          if (s.gridOperationsStatus !== "ENABLED") {
            return yield* badRequest(
              "STABLECOIN_SERVICE_OPERATIONS_NOT_ENABLED",
              `Grid operations are ${s.gridOperationsStatus} for ${s.symbol}; a mint funded from a Grid internal account needs them ENABLED (POST /stablecoins/${s.id}/grid-operations-enablement)`,
              { details: { gridOperationsStatus: s.gridOperationsStatus } }
            )
          }
          const account = yield* internalAccount(platform, fs.accountId)
          if (account.currency !== s.baseCurrency) {
            return yield* invalidInput(`fundingSource.accountId: internal account ${account.id} holds ${account.currency}; ${s.symbol} is minted against ${s.baseCurrency}`, [{
              field: "fundingSource.accountId",
              constraint: "currency",
              message: `must be an internal account in ${s.baseCurrency}`
            }])
          }
          const balance = (yield* store.ledger.balances(platform.id, [account.id])).get(account.id) ?? 0
          if (balance < minor) {
            return yield* badRequest("INSUFFICIENT_FUNDS", `Internal account ${account.id} holds ${balance} ${account.currency} minor units; the mint needs ${minor}`, {
              details: { available: balance, required: minor }
            })
          }
          source = { type: "GRID_INTERNAL_ACCOUNT", accountId: account.id }
          course = OperationMachine.mintCourse({ type: "GRID_INTERNAL_ACCOUNT" }, nowMs)
          ledger = { account: account.id, currency: account.currency, amount: minor }
          yield* postEntry(uow, platform.id, "STABLECOIN_MINT_DEBIT", [
            { account: account.id, currency: account.currency, amount: -minor },
            { account: inFlightAccount(account.currency), currency: account.currency, amount: minor }
          ], now, id).pipe(Effect.catchTag("LedgerRejected", (e) => Effect.die(e)))
          yield* balanceUpdated(uow, platform, account, now)
          break
        }
      }
      const operation = renderOperation({
        ...operationHead(s, id, "MINT", req.amount),
        source,
        ...(fundingInstructions === undefined ? {} : { fundingInstructions }),
        destination: { accountId: destination.id },
        providerStatus: course.status.toLowerCase(),
        ...(req.description === undefined ? {} : { description: req.description }),
        createdAt: now,
        updatedAt: now
      }, course)
      yield* startOperation(uow, platform, { platformId: platform.id, operation, ledger, pending: stepsOf(course) })
      return operation
    })
  )

/** POST /stablecoins/{stablecoinId}/burns (Idempotency-Key required). */
export const createBurn = (platform: Platform, stablecoinId: string, req: StablecoinBurnRequest) =>
  operationOn(platform, stablecoinId, req.amount, ({ ids, uow, s, minor }) =>
    Effect.gen(function*() {
      if (req.source.type === "GRID_INTERNAL_ACCOUNT") {
        return yield* badRequest(
          "STABLECOIN_BURN_SOURCE_NOT_SUPPORTED",
          `source.type GRID_INTERNAL_ACCOUNT is not supported: no Grid internal account holds ${s.symbol}; burn from EXTERNAL_ACCOUNT (send the tokens to the returned deposit address) or PROVIDER_INTERNAL_BALANCE`
        )
      }
      const bank = yield* bankAccountOf(platform, s, req.destination.externalAccountId, "destination.externalAccountId")
      const nowMs = yield* nowMillis
      const now = isoOf(nowMs)
      const id = yield* ids.make("StablecoinOperation")
      const rail = req.destination.rail
      const payout = counterpartyOutcome(identifierOf(bank), platform.settings.sandbox)
      const course = req.source.type === "EXTERNAL_ACCOUNT"
        ? OperationMachine.burnCourse({ type: "EXTERNAL_ACCOUNT", sandbox: platform.settings.sandbox }, rail, payout, nowMs)
        : OperationMachine.burnCourse({ type: "PROVIDER_INTERNAL_BALANCE" }, rail, payout, nowMs)
      const operation = renderOperation({
        ...operationHead(s, id, "BURN", req.amount),
        source: { type: req.source.type },
        ...(req.source.type === "EXTERNAL_ACCOUNT" ? { fundingInstructions: depositInstructions(platform, id, s) } : {}),
        destination: { accountId: bank.id, rail },
        estimatedDelivery: { rail, amount: String(minor), currency: s.baseCurrency, timing: OperationMachine.PAYOUT_TIMINGS[rail].timing },
        providerStatus: course.status.toLowerCase(),
        ...(req.description === undefined ? {} : { description: req.description }),
        createdAt: now,
        updatedAt: now
      }, course)
      yield* startOperation(uow, platform, { platformId: platform.id, operation, pending: stepsOf(course) })
      return operation
    })
  )

export interface OperationListQuery extends PageQuery {
  readonly operationType?: StablecoinOperationType | undefined
}

/** GET /stablecoins/{stablecoinId}/operations: most recent first. */
export const listOperations = Effect.fnUntraced(function*(platform: Platform, stablecoinId: string, q: OperationListQuery) {
  const store = yield* Store
  yield* stablecoinOf(platform, stablecoinId)
  return yield* shownPageOf(store.stablecoins.listOperations(platform.id, { stablecoinId, operationType: q.operationType }, {
    ...pageRequestOf(q),
    descending: true
  }), (r) => r.operation)
})

export const getOperation = Effect.fnUntraced(function*(platform: Platform, id: string) {
  const store = yield* Store
  const rec = yield* store.stablecoins.getOperation(platform.id, id)
  if (rec === undefined) return yield* missing("stablecoinOperation", `Stablecoin operation ${id} not found`)
  return rec.operation
})

// ---------------------------------------------------------------- scheduled moves

/** The scheduler's handler for a stablecoin's issuance moves (the simulated provider). */
export const applyIssuanceTimer = (uow: UnitOfWork, platform: Platform, timer: TimerRecord) =>
  Effect.gen(function*() {
    const store = yield* Store
    const rec = yield* store.stablecoins.get(platform.id, timer.subjectId)
    if (rec === undefined) return yield* Effect.fail(new Error(`stablecoin ${timer.subjectId} no longer exists`))
    const moved = Issuance.transition(rec.stablecoin.issuanceStatus, timer.event as Issuance.IssuanceEvent, rec.issuanceOutcome)
    if (!moved.ok) return yield* Effect.fail(new Error(moved.error.reason))
    const at = isoOf(timer.at)
    yield* Effect.orDie(uow.putStablecoin({ ...rec, stablecoin: { ...rec.stablecoin, issuanceStatus: moved.value.state, updatedAt: at } }))
    for (const later of moved.value.scheduled) {
      yield* schedule(uow, platform, STABLECOIN_ISSUANCE_TIMER, rec.stablecoin.id, { at: timer.at + later.afterMillis, event: later.event })
    }
  })

/** The scheduler's handler for the operator's enablement moves. */
export const applyEnablementTimer = (uow: UnitOfWork, platform: Platform, timer: TimerRecord) =>
  Effect.gen(function*() {
    const store = yield* Store
    const rec = yield* store.stablecoins.get(platform.id, timer.subjectId)
    if (rec === undefined) return yield* Effect.fail(new Error(`stablecoin ${timer.subjectId} no longer exists`))
    const moved = Enablement.transition(rec.stablecoin.gridOperationsStatus, timer.event as Enablement.EnablementEvent)
    if (!moved.ok) return yield* Effect.fail(new Error(moved.error.reason))
    const s = rec.stablecoin
    // Once enabled, the stablecoin is a Grid currency under its symbol.
    const stablecoin: Stablecoin = { ...s, gridOperationsStatus: moved.value.state, updatedAt: isoOf(timer.at), ...(moved.value.state === "ENABLED" ? { currency: s.symbol } : {}) }
    yield* Effect.orDie(uow.putStablecoin({ ...rec, stablecoin }))
    for (const later of moved.value.scheduled) {
      yield* schedule(uow, platform, STABLECOIN_ENABLEMENT_TIMER, s.id, { at: timer.at + later.afterMillis, event: later.event })
    }
  })

/** The scheduler's handler for an issuer operation's moves; settles or refunds its ledger money. */
export const applyOperationTimer = (uow: UnitOfWork, platform: Platform, timer: TimerRecord) =>
  Effect.gen(function*() {
    const store = yield* Store
    const rec = yield* store.stablecoins.getOperation(platform.id, timer.subjectId)
    if (rec === undefined) return yield* Effect.fail(new Error(`stablecoin operation ${timer.subjectId} no longer exists`))
    const event = OperationMachine.decodeEvent(timer.event)
    const moved = OperationMachine.transition(rec.operation.status, event)
    if (!moved.ok) return yield* Effect.fail(new Error(moved.error.reason))
    const at = isoOf(timer.at)
    const status = moved.value.state
    const { failureReason: _f, ...kept } = rec.operation
    const operation: StablecoinOperation = {
      ...kept,
      status,
      providerStatus: status.toLowerCase(),
      ...(event.failureReason === undefined ? {} : { failureReason: event.failureReason }),
      updatedAt: at
    }
    const [, ...rest] = rec.pending
    const pending = OperationMachine.isTerminal(status) ? [] : rest
    yield* uow.putStablecoinOperation({ ...rec, operation, pending })
    const money = rec.ledger
    if (money !== undefined && (status === "COMPLETED" || status === "FAILED")) {
      const inFlight = inFlightAccount(money.currency)
      const to = status === "COMPLETED" ? worldAccount(money.currency) : money.account
      yield* postEntry(uow, platform.id, status === "COMPLETED" ? "STABLECOIN_MINT_SETTLE" : "STABLECOIN_MINT_REFUND", [
        { account: inFlight, currency: money.currency, amount: -money.amount },
        { account: to, currency: money.currency, amount: money.amount }
      ], at, operation.id).pipe(Effect.catchTag("LedgerRejected", (e) => Effect.die(e)))
      if (status === "FAILED") {
        const account = yield* store.internalAccounts.get(platform.id, money.account)
        if (account !== undefined) yield* balanceUpdated(uow, platform, account, at)
      }
    }
    const [next] = pending
    if (next !== undefined) yield* schedule(uow, platform, STABLECOIN_OPERATION_TIMER, operation.id, { at: next.at, event: next.event })
  })
