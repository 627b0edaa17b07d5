/**
 * External-account use cases for customer-owned and platform-owned accounts. The
 * rules decide (status, sandbox checks, equivalence); these functions read and write
 * through the ports and fail with the API's errors.
 */
import { Effect } from "effect"
import { badRequest, conflict, invalidInput } from "../domain/errors.js"
import {
  type CustomerExternalAccountCreateRequest,
  ExternalAccount,
  type ExternalAccountInfo,
  type OwnershipChallenge,
  type PlatformExternalAccountCreateRequest,
  responseInfoOf
} from "../domain/external-account.js"
import type { Platform } from "../domain/platform.js"
import { verifyWalletOwnership, ownershipSchemeOf } from "../crypto/wallet-ownership.js"
import { isSelfCustodyWallet, planExternalAccountCreate } from "../rules/external-account-create.js"
import { requiresSca, SANDBOX_SCA_CODE } from "../rules/sca.js"
import {
  type ExternalAccountEvent,
  type ExternalAccountScheduledMove,
  movesOnChallenge,
  movesOnCreate,
  transition
} from "../rules/external-account-status.js"
import { Ids } from "../ports/ids.js"
import { type ExternalAccountRecord, Store, StoreConflict, type TimerRecord, type UnitOfWork } from "../ports/store.js"
import { applyTransition, eventOf } from "./transition.js"
import { conflictIsDefect, type PageQuery, pageRequestOf, shownPageOf } from "./paging.js"
import { rejected } from "./rejection.js"
import { isoOf, nowMillis } from "./time.js"
import { missing } from "./not-found.js"

export type Owner = { readonly kind: "customer" } | { readonly kind: "platform" }

/** How long an ownership challenge can be answered. */
export const OWNERSHIP_CHALLENGE_TTL_MS = 10 * 60_000
/** The sandbox SCA code and the SCA-region rule live in rules/sca.ts (one place for both). */
export { SANDBOX_SCA_CODE }

const accountNotFound = (id: string) => missing("externalAccount", `External account ${id} not found`)

const ownedBy = (owner: Owner, rec: ExternalAccountRecord): boolean =>
  owner.kind === "platform" ? rec.account.customerId === null : rec.account.customerId !== null

// ---------------------------------------------------------------- scheduled moves

/** The kind of the status machine's timers (micro-entry results, sandbox liveness). */
export const EXTERNAL_ACCOUNT_TIMER = "external-account"

const SCHEDULED_EVENTS = ["BANK_VALIDATION_SUCCEEDED", "BANK_VALIDATION_FAILED", "OWNERSHIP_VERIFICATION_SUCCEEDED"] as const
type ScheduledEvent = typeof SCHEDULED_EVENTS[number]
const isScheduledEvent = (event: string): event is ScheduledEvent => SCHEDULED_EVENTS.some((e) => e === event)

/**
 * Applies one event of the status machine to a record inside a unit of work: the new
 * record, its EXTERNAL_ACCOUNT.STATUS_UPDATED event and the moves it schedules, written
 * together. A move made now supersedes any move the machine had scheduled.
 */
const applyEvent = Effect.fnUntraced(function*(
  uow: UnitOfWork,
  platform: Platform,
  rec: ExternalAccountRecord,
  event: ExternalAccountEvent,
  extra: Partial<ExternalAccountRecord> = {},
  scheduled: ReadonlyArray<ExternalAccountScheduledMove> = []
) {
  const now = isoOf(yield* nowMillis)
  const result = transition(rec.account.status, event)
  if (!result.ok) return yield* rejected(result.error)
  const account: ExternalAccount = result.value.state === rec.account.status
    ? rec.account
    : { ...rec.account, status: result.value.state, updatedAt: now }
  const next: ExternalAccountRecord = { ...rec, ...extra, account }
  const events = []
  for (const _ of result.value.events) events.push(yield* eventOf(platform, "EXTERNAL_ACCOUNT.STATUS_UPDATED", { timestamp: now, data: account }))
  yield* applyTransition(uow, platform, {
    write: uow.putExternalAccount(next),
    subjectId: account.id,
    kind: EXTERNAL_ACCOUNT_TIMER,
    events,
    scheduled,
    supersede: true
  })
  return next
})

/** The scheduler's handler for this machine's timers: applies the move that fell due. */
export const applyExternalAccountTimer = Effect.fnUntraced(function*(uow: UnitOfWork, platform: Platform, timer: TimerRecord) {
  const store = yield* Store
  const event = timer.event
  if (!isScheduledEvent(event)) return yield* invalidInput(`Unknown scheduled move ${event}`)
  const rec = yield* store.externalAccounts.get(platform.id, timer.subjectId)
  if (rec === undefined) return yield* accountNotFound(timer.subjectId)
  yield* applyEvent(uow, platform, rec, { type: event }, event === "BANK_VALIDATION_FAILED" ? { bankValidationFailed: true } : {})
})

// ---------------------------------------------------------------- create

const walletAddress = (info: ExternalAccountInfo): string => ("address" in info ? info.address : "")

const createAccount = Effect.fnUntraced(function*(
  platform: Platform,
  customerId: string | null,
  req: PlatformExternalAccountCreateRequest & { readonly defaultUmaDepositAccount?: boolean | undefined }
) {
  const store = yield* Store
  const ids = yield* Ids
  const ownerKey = customerId ?? "platform"
  const plan = planExternalAccountCreate(req, ownerKey, platform.settings)
  if (!plan.ok) return yield* rejected(plan.error)
  const isDefault = customerId !== null && req.defaultUmaDepositAccount === true
  const notActiveCustomer = () =>
    invalidInput(`customerId ${customerId} is not an active customer of this platform`, [{
      field: "customerId",
      constraint: "exists",
      message: "must be the id of an active customer of this platform"
    }])
  const newAccount = (id: string, now: string): ExternalAccount => {
    const p = plan.value
    return {
      id,
      customerId,
      status: p.status,
      ...(req.platformAccountId !== undefined ? { platformAccountId: req.platformAccountId } : {}),
      ...(req.ownershipType !== undefined ? { ownershipType: req.ownershipType } : {}),
      currency: req.currency,
      defaultUmaDepositAccount: isDefault,
      ...(p.beneficiaryVerificationStatus !== undefined ? { beneficiaryVerificationStatus: p.beneficiaryVerificationStatus } : {}),
      ...(p.beneficiaryVerifiedData !== undefined ? { beneficiaryVerifiedData: p.beneficiaryVerifiedData } : {}),
      accountInfo: responseInfoOf(req.accountInfo),
      createdAt: now,
      updatedAt: now
    }
  }

  // The common case as one statement where the store offers it: nothing to reschedule,
  // no previous default to demote, so the unit of work is the insert alone, with the
  // customer check inside it (same answers: 400 for a missing or deleted customer, checked
  // before the unique index, which answers 409 below).
  const createAlone = store.externalAccounts.createAlone
  if (createAlone !== undefined && !isDefault && plan.value.bankValidation === undefined) {
    return yield* Effect.gen(function*() {
      const now = isoOf(yield* nowMillis)
      const account = newAccount(yield* ids.make("ExternalAccount"), now)
      const record: ExternalAccountRecord = { platformId: platform.id, account, equivalenceKey: plan.value.equivalenceKey, trusted: false }
      const outcome = yield* createAlone(record, customerId)
      return outcome === "written" ? account : yield* notActiveCustomer()
    }).pipe(Effect.catchTag("StoreConflict", (e: StoreConflict) => duplicateOf(platform, plan.value.equivalenceKey, e)))
  }

  return yield* store.transact((uow) =>
    Effect.gen(function*() {
      if (customerId !== null) {
        const owner = yield* store.customers.get(platform.id, customerId)
        if (owner === undefined || owner.deletedAt !== undefined) return yield* notActiveCustomer()
      }
      // No look-up of the equivalence key first: the store's unique index decides (a read
      // of the index would make concurrent creates of different accounts conflict under
      // SERIALIZABLE isolation). A duplicate fails the insert, and is answered below.
      const millis = yield* nowMillis
      const now = isoOf(millis)
      if (isDefault && customerId !== null) {
        const prev = yield* store.externalAccounts.findDefaultUmaDeposit(platform.id, customerId)
        if (prev !== undefined) {
          yield* uow.putExternalAccount({ ...prev, account: { ...prev.account, defaultUmaDepositAccount: false, updatedAt: now } })
        }
      }
      const id = yield* ids.make("ExternalAccount")
      const p = plan.value
      const account = newAccount(id, now)
      const record: ExternalAccountRecord = { platformId: platform.id, account, equivalenceKey: p.equivalenceKey, trusted: false }
      const validation = p.bankValidation
      yield* applyTransition(uow, platform, {
        write: uow.putExternalAccount(record),
        subjectId: id,
        kind: EXTERNAL_ACCOUNT_TIMER,
        scheduled: movesOnCreate(validation, millis)
      })
      return account
    })
  ).pipe(Effect.catchTag("StoreConflict", (e: StoreConflict) => duplicateOf(platform, plan.value.equivalenceKey, e)))
})

/** The 409 for a refused insert: the equivalent account that holds the key, named. */
const duplicateOf = Effect.fnUntraced(function*(platform: Platform, equivalenceKey: string, e: StoreConflict) {
  if (e.constraint !== "external_accounts_equivalence") {
    return yield* conflict("CONFLICT", "A concurrent request changed this customer's accounts; retry")
  }
  const store = yield* Store
  const existing = yield* store.externalAccounts.findByEquivalenceKey(platform.id, equivalenceKey)
  return yield* existing === undefined
    ? conflict("DUPLICATE_EXTERNAL_ACCOUNT", "An equivalent external account already exists")
    : conflict("DUPLICATE_EXTERNAL_ACCOUNT", `An equivalent external account already exists: ${existing.account.id}`, {
      details: { existingExternalAccountId: existing.account.id }
    })
})

/** POST /customers/external-accounts. */
export const createCustomerExternalAccount = (platform: Platform, req: CustomerExternalAccountCreateRequest) =>
  createAccount(platform, req.customerId, req)

/** POST /platform/external-accounts. */
export const createPlatformExternalAccount = (platform: Platform, req: PlatformExternalAccountCreateRequest) =>
  createAccount(platform, null, req)

// ---------------------------------------------------------------- read, list, delete

const findOwned = Effect.fnUntraced(function*(platform: Platform, owner: Owner, id: string) {
  const store = yield* Store
  const rec = yield* store.externalAccounts.get(platform.id, id)
  if (rec === undefined || !ownedBy(owner, rec)) return yield* accountNotFound(id)
  return rec
})

export const getExternalAccount = Effect.fnUntraced(function*(platform: Platform, owner: Owner, id: string) {
  return (yield* findOwned(platform, owner, id)).account
})

export interface ExternalAccountListQuery extends PageQuery {
  readonly customerId?: string | undefined
  readonly currency?: string | undefined
}

export const listExternalAccounts = Effect.fnUntraced(function*(
  platform: Platform,
  owner: Owner,
  query: ExternalAccountListQuery
) {
  const store = yield* Store
  return yield* shownPageOf(store.externalAccounts.list(platform.id, {
    owner: owner.kind,
    customerId: owner.kind === "customer" ? query.customerId : undefined,
    currency: query.currency
  }, pageRequestOf(query)), (r) => r.account)
})

export const deleteExternalAccount = Effect.fnUntraced(function*(platform: Platform, owner: Owner, id: string) {
  const store = yield* Store
  yield* store.transact((uow) =>
    Effect.gen(function*() {
      const rec = yield* findOwned(platform, owner, id)
      if (rec.trusted) {
        return yield* conflict("BENEFICIARY_TRUSTED", `External account ${id} is a trusted beneficiary; untrust it first (POST .../untrust, then .../untrust/confirm)`)
      }
      yield* uow.cancelTimers(platform.id, id)
      yield* uow.deleteExternalAccount(platform.id, id)
    })
  )
})

// ---------------------------------------------------------------- ownership verification

export const startOwnershipChallenge = Effect.fnUntraced(function*(
  platform: Platform,
  owner: Owner,
  id: string,
  method: "WALLET_SIGNATURE" | "LIVENESS"
) {
  const store = yield* Store
  const ids = yield* Ids
  return yield* store.transact((uow) =>
    Effect.gen(function*() {
      const rec = yield* findOwned(platform, owner, id)
      const accountType = rec.account.accountInfo.accountType
      if (!isSelfCustodyWallet(accountType) || rec.account.ownershipType !== "FIRST_PARTY") {
        return yield* conflict("CONFLICT", "Ownership verification applies only to FIRST_PARTY self-custody wallet accounts")
      }
      if (rec.account.status !== "PENDING_OWNERSHIP_VERIFICATION" && rec.account.status !== "UNVERIFIED") {
        return yield* conflict("CONFLICT", `Ownership of ${id} is already verified (status ${rec.account.status})`)
      }
      if (method === "WALLET_SIGNATURE" && ownershipSchemeOf(accountType) === undefined) {
        return yield* invalidInput(`WALLET_SIGNATURE is not supported for ${accountType}; use LIVENESS`, [{
          field: "method",
          constraint: "supportedMethod",
          message: `WALLET_SIGNATURE is supported for EVM and Solana wallets; use LIVENESS for ${accountType}`
        }])
      }
      const millis = yield* nowMillis
      const expiresAt = millis + OWNERSHIP_CHALLENGE_TTL_MS
      const nonce = yield* ids.uuid
      const address = walletAddress(rec.account.accountInfo)
      const messageToSign = `I verify that I control the wallet ${address}. Nonce: ${nonce}`
      // The sandbox's hosted liveness check passes on its own after a short while.
      yield* applyEvent(
        uow,
        platform,
        rec,
        { type: "OWNERSHIP_CHALLENGE_STARTED" },
        { ownershipChallenge: method === "WALLET_SIGNATURE" ? { method, messageToSign, expiresAt } : { method, expiresAt } },
        movesOnChallenge(method, platform.settings.sandbox, millis)
      )
      const challenge: OwnershipChallenge = method === "WALLET_SIGNATURE"
        ? { method, messageToSign, expiresAt: isoOf(expiresAt) }
        : { method, verificationLink: `https://sandbox.verify.local/liveness/${nonce}`, expiresAt: isoOf(expiresAt) }
      return challenge
    })
  ).pipe(Effect.catchTag("StoreConflict", conflictIsDefect))
})

export const verifyOwnership = Effect.fnUntraced(function*(
  platform: Platform,
  owner: Owner,
  id: string,
  signature: string
) {
  const store = yield* Store
  const outcome = yield* store.transact((uow) =>
    Effect.gen(function*() {
      const rec = yield* findOwned(platform, owner, id)
      const challenge = rec.ownershipChallenge
      if (rec.account.status !== "PENDING_OWNERSHIP_VERIFICATION" || challenge?.method !== "WALLET_SIGNATURE" || challenge.messageToSign === undefined) {
        return yield* conflict("CONFLICT", `No WALLET_SIGNATURE challenge is outstanding for ${id}; start one with POST .../challenge`)
      }
      const accountType = rec.account.accountInfo.accountType
      const expired = (yield* nowMillis) > challenge.expiresAt
      const verdict = expired
        ? { ok: false as const, reason: "expired" }
        : verifyWalletOwnership(accountType, walletAddress(rec.account.accountInfo), challenge.messageToSign, signature)
      const { ownershipChallenge: _c, ...rest } = rec
      const next = yield* applyEvent(uow, { ...platform }, { ...rest }, {
        type: verdict.ok ? "OWNERSHIP_VERIFICATION_SUCCEEDED" : "OWNERSHIP_VERIFICATION_FAILED"
      })
      return { account: next.account, verdict }
    })
  ).pipe(Effect.catchTag("StoreConflict", conflictIsDefect))
  if (!outcome.verdict.ok) {
    return yield* badRequest(
      "INVALID_INPUT",
      outcome.verdict.reason === "expired"
        ? "The ownership challenge expired; the account is now UNVERIFIED. Start a new challenge to retry"
        : "The signature does not prove control of this wallet; the account is now UNVERIFIED. Start a new challenge to retry",
      { details: { reason: outcome.verdict.reason, status: outcome.account.status } }
    )
  }
  return outcome.account
})

// ---------------------------------------------------------------- beneficiary trust (SCA)

export const startTrustChange = Effect.fnUntraced(function*(platform: Platform, id: string, trusted: boolean) {
  const store = yield* Store
  const ids = yield* Ids
  return yield* store.transact((uow) =>
    Effect.gen(function*() {
      const rec = yield* findOwned(platform, { kind: "customer" }, id)
      const customer = rec.account.customerId === null ? undefined : yield* store.customers.get(platform.id, rec.account.customerId)
      const region = customer?.customer.region
      if (!requiresSca(region)) {
        return yield* conflict("CONFLICT", "SCA is not required for this customer (region outside the EEA), so beneficiaries are not trusted")
      }
      const challengeId = yield* ids.make("Request")
      const millis = yield* nowMillis
      const expiresAt = millis + 5 * 60_000
      yield* uow.putExternalAccount({ ...rec, pendingTrustChange: { trusted, challengeId, expiresAt } })
      return {
        scaChallenge: { id: challengeId, expiresAt: isoOf(expiresAt), factor: "SMS_OTP", availableFactors: ["SMS_OTP"] }
      }
    })
  ).pipe(Effect.catchTag("StoreConflict", conflictIsDefect))
})

/** The SCA proof of a trust change: a code, or a passkey assertion with its origin. */
export interface ScaProof {
  readonly code?: string | null | undefined
  readonly passkeyAssertion?: Readonly<Record<string, unknown>> | null | undefined
  readonly origin?: string | null | undefined
}

export const confirmTrustChange = Effect.fnUntraced(function*(
  platform: Platform,
  id: string,
  trusted: boolean,
  proof: ScaProof
) {
  const code = proof.code ?? undefined
  const passkey = proof.passkeyAssertion !== undefined && proof.passkeyAssertion !== null
  if (code === undefined && !passkey) {
    return yield* invalidInput("An SCA proof is required: `code`, or `passkeyAssertion` with `origin`", [{
      field: "code",
      constraint: "required",
      message: "is required unless passkeyAssertion and origin are given"
    }])
  }
  if (code === undefined && (proof.origin ?? undefined) === undefined) {
    return yield* invalidInput("`origin` is required with `passkeyAssertion`", [{
      field: "origin",
      constraint: "required",
      message: "is required with passkeyAssertion"
    }])
  }
  const store = yield* Store
  return yield* store.transact((uow) =>
    Effect.gen(function*() {
      const rec = yield* findOwned(platform, { kind: "customer" }, id)
      const pending = rec.pendingTrustChange
      if (pending === undefined || pending.trusted !== trusted) {
        return yield* conflict("CONFLICT", `No ${trusted ? "trust" : "untrust"} ceremony was started for ${id}`)
      }
      if (code === undefined) {
        // The ceremony this service starts is SMS_OTP (its only factor here): no passkey is
        // enrolled for SCA, so an assertion cannot complete it.
        return yield* badRequest("INVALID_INPUT", "This SCA challenge's factor is SMS_OTP: confirm it with `code`; no passkey is enrolled for SCA", {
          details: { field: "passkeyAssertion", factor: "SMS_OTP" }
        })
      }
      if ((yield* nowMillis) > pending.expiresAt || !platform.settings.sandbox || code !== SANDBOX_SCA_CODE) {
        return yield* badRequest("INVALID_INPUT", "Invalid or expired SCA proof", { details: { field: "code" } })
      }
      const { pendingTrustChange: _p, ...rest } = rec
      yield* uow.putExternalAccount({ ...rest, trusted })
      return { trusted }
    })
  ).pipe(Effect.catchTag("StoreConflict", conflictIsDefect))
})
