/**
 * External-account use cases for customer-owned and platform-owned accounts. The
 * rules decide (status, sandbox checks, equivalence); these functions read and write
 * through the ports and fail with the API's errors.
 */
import { Effect } from "effect"
import { DEFAULT_PAGE_LIMIT } from "../domain/common.js"
import { badRequest, conflict, invalidInput, notFound } from "../domain/errors.js"
import {
  type CustomerExternalAccountCreateRequest,
  type ExternalAccount,
  type ExternalAccountInfo,
  type OwnershipChallenge,
  type PlatformExternalAccountCreateRequest,
  responseInfoOf
} from "../domain/external-account.js"
import type { Platform } from "../domain/platform.js"
import { verifyWalletOwnership, ownershipSchemeOf } from "../crypto/wallet-ownership.js"
import { isSelfCustodyWallet, planExternalAccountCreate } from "../rules/external-account-create.js"
import { type ExternalAccountEvent, transition } from "../rules/external-account-status.js"
import { Ids } from "../ports/ids.js"
import { type ExternalAccountRecord, type PageResult, Store, type UnitOfWork } from "../ports/store.js"
import { isoOf, nowMillis } from "./time.js"

export type Owner = { readonly kind: "customer" } | { readonly kind: "platform" }

const DAY = 86_400_000
/** How long an ownership challenge can be answered. */
export const OWNERSHIP_CHALLENGE_TTL_MS = 10 * 60_000
/** How long the sandbox's hosted liveness check takes to pass. */
export const SANDBOX_LIVENESS_DELAY_MS = 30_000
/** SCA regions: customers whose `region` is in the EEA must confirm beneficiary trust. */
const SCA_REGIONS = new Set([
  "AT", "BE", "BG", "HR", "CY", "CZ", "DK", "EE", "FI", "FR", "DE", "GR", "HU", "IE", "IT", "LV", "LT", "LU", "MT",
  "NL", "PL", "PT", "RO", "SK", "SI", "ES", "SE", "IS", "LI", "NO"
])
/** The sandbox SCA code (the reference file's fixed value). */
export const SANDBOX_SCA_CODE = "123456"

const accountNotFound = (id: string) => notFound(`External account ${id} not found`)

const ownedBy = (owner: Owner, rec: ExternalAccountRecord): boolean =>
  owner.kind === "platform" ? rec.account.customerId === null : rec.account.customerId !== null

// ---------------------------------------------------------------- scheduled moves

const emitStatus = (uow: UnitOfWork, platform: Platform, account: ExternalAccount, id: string, timestamp: string) =>
  uow.emit({ id, platformId: platform.id, type: "EXTERNAL_ACCOUNT.STATUS_UPDATED", timestamp, data: account })

/** Applies one event of the status machine to a record inside a unit of work. */
const applyEvent = Effect.fnUntraced(function*(
  uow: UnitOfWork,
  platform: Platform,
  rec: ExternalAccountRecord,
  event: ExternalAccountEvent,
  extra: Partial<ExternalAccountRecord> = {}
) {
  const ids = yield* Ids
  const now = isoOf(yield* nowMillis)
  const result = transition(rec.account.status, event)
  if (!result.ok) return yield* result.error
  const account: ExternalAccount = result.value.status === rec.account.status
    ? rec.account
    : { ...rec.account, status: result.value.status, updatedAt: now }
  const { scheduled: _s, ...rest } = rec
  const next: ExternalAccountRecord = { ...rest, ...extra, account }
  uow.putExternalAccount(next)
  for (const _ of result.value.events) emitStatus(uow, platform, account, yield* ids.make("Webhook"), now)
  return next
})

/**
 * Applies the moves whose time has come (micro-entry results, sandbox liveness).
 * Runs before reads, so a reader never sees a status that should already have moved.
 */
export const settleDue = Effect.fnUntraced(function*(platform: Platform) {
  const store = yield* Store
  const due = yield* store.externalAccounts.listDue(platform.id, yield* nowMillis)
  if (due.length === 0) return
  yield* store.transact((uow) =>
    Effect.forEach(due, (stale) =>
      Effect.gen(function*() {
        const rec = yield* store.externalAccounts.get(platform.id, stale.account.id)
        if (rec?.scheduled === undefined) return
        const failed = rec.scheduled.event === "BANK_VALIDATION_FAILED"
        yield* applyEvent(uow, platform, rec, { type: rec.scheduled.event }, failed ? { bankValidationFailed: true } : {}).pipe(
          Effect.catch(() => Effect.void)
        )
      }), { discard: true })
  )
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
  if (!plan.ok) return yield* plan.error
  const isDefault = customerId !== null && req.defaultUmaDepositAccount === true

  return yield* store.transact((uow) =>
    Effect.gen(function*() {
      if (customerId !== null) {
        const owner = yield* store.customers.get(platform.id, customerId)
        if (owner === undefined || owner.deletedAt !== undefined) {
          return yield* invalidInput(`customerId ${customerId} is not an active customer of this platform`, [{
            field: "customerId",
            constraint: "exists",
            message: "must be the id of an active customer of this platform"
          }])
        }
      }
      const existing = yield* store.externalAccounts.findByEquivalenceKey(platform.id, plan.value.equivalenceKey)
      if (existing !== undefined) {
        return yield* conflict("DUPLICATE_EXTERNAL_ACCOUNT", `An equivalent external account already exists: ${existing.account.id}`, {
          details: { existingExternalAccountId: existing.account.id }
        })
      }
      const millis = yield* nowMillis
      const now = isoOf(millis)
      if (isDefault && customerId !== null) {
        for (const prev of yield* store.externalAccounts.findDefaultUmaDeposit(platform.id, customerId)) {
          uow.putExternalAccount({ ...prev, account: { ...prev.account, defaultUmaDepositAccount: false, updatedAt: now } })
        }
      }
      const id = yield* ids.make("ExternalAccount")
      const accountInfo = responseInfoOf(req.accountInfo)
      const p = plan.value
      const account: ExternalAccount = {
        id,
        customerId,
        status: p.status,
        ...(req.platformAccountId !== undefined ? { platformAccountId: req.platformAccountId } : {}),
        ...(req.ownershipType !== undefined ? { ownershipType: req.ownershipType } : {}),
        currency: req.currency,
        defaultUmaDepositAccount: isDefault,
        ...(p.beneficiaryVerificationStatus !== undefined ? { beneficiaryVerificationStatus: p.beneficiaryVerificationStatus } : {}),
        ...(p.beneficiaryVerifiedData !== undefined ? { beneficiaryVerifiedData: p.beneficiaryVerifiedData } : {}),
        accountInfo,
        createdAt: now,
        updatedAt: now
      }
      const record: ExternalAccountRecord = {
        platformId: platform.id,
        account,
        equivalenceKey: p.equivalenceKey,
        trusted: false,
        ...(p.bankValidation !== undefined
          ? {
            scheduled: {
              at: millis + p.bankValidation.afterDays * DAY,
              event: p.bankValidation.outcome === "validated" ? "BANK_VALIDATION_SUCCEEDED" : "BANK_VALIDATION_FAILED"
            }
          }
          : {})
      }
      uow.putExternalAccount(record)
      return account
    })
  )
})

export const createCustomerExternalAccount = (platform: Platform, req: CustomerExternalAccountCreateRequest) =>
  createAccount(platform, req.customerId, req)

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
  yield* settleDue(platform)
  return (yield* findOwned(platform, owner, id)).account
})

export interface ExternalAccountListQuery {
  readonly customerId?: string | undefined
  readonly currency?: string | undefined
  readonly limit?: number | undefined
  readonly cursor?: string | undefined
}

export const listExternalAccounts = Effect.fnUntraced(function*(
  platform: Platform,
  owner: Owner,
  query: ExternalAccountListQuery
) {
  yield* settleDue(platform)
  const store = yield* Store
  const page = yield* store.externalAccounts.list(platform.id, {
    owner: owner.kind,
    customerId: owner.kind === "customer" ? query.customerId : undefined,
    currency: query.currency
  }, { limit: query.limit ?? DEFAULT_PAGE_LIMIT, cursor: query.cursor })
  return { ...page, data: page.data.map((r) => r.account) } satisfies PageResult<ExternalAccount>
})

export const deleteExternalAccount = Effect.fnUntraced(function*(platform: Platform, owner: Owner, id: string) {
  const store = yield* Store
  yield* store.transact((uow) =>
    Effect.gen(function*() {
      const rec = yield* findOwned(platform, owner, id)
      if (rec.trusted) {
        return yield* conflict("BENEFICIARY_TRUSTED", `External account ${id} is a trusted beneficiary; untrust it first (POST .../untrust, then .../untrust/confirm)`)
      }
      uow.deleteExternalAccount(platform.id, id)
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
      const next = yield* applyEvent(uow, platform, rec, { type: "OWNERSHIP_CHALLENGE_STARTED" }, {
        ownershipChallenge: method === "WALLET_SIGNATURE" ? { method, messageToSign, expiresAt } : { method, expiresAt }
      })
      if (method === "LIVENESS") {
        // The sandbox's hosted check passes on its own after a short while.
        uow.putExternalAccount({ ...next, scheduled: { at: millis + SANDBOX_LIVENESS_DELAY_MS, event: "OWNERSHIP_VERIFICATION_SUCCEEDED" } })
      }
      const challenge: OwnershipChallenge = method === "WALLET_SIGNATURE"
        ? { method, messageToSign, expiresAt: isoOf(expiresAt) }
        : { method, verificationLink: `https://sandbox.verify.local/liveness/${nonce}`, expiresAt: isoOf(expiresAt) }
      return challenge
    })
  )
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
  )
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
      if (region === undefined || !SCA_REGIONS.has(region)) {
        return yield* conflict("CONFLICT", "SCA is not required for this customer (region outside the EEA), so beneficiaries are not trusted")
      }
      const challengeId = yield* ids.make("Request")
      const millis = yield* nowMillis
      const expiresAt = millis + 5 * 60_000
      uow.putExternalAccount({ ...rec, pendingTrustChange: { trusted, challengeId, expiresAt } })
      return {
        scaChallenge: { id: challengeId, expiresAt: isoOf(expiresAt), factor: "SMS_OTP", availableFactors: ["SMS_OTP"] }
      }
    })
  )
})

export const confirmTrustChange = Effect.fnUntraced(function*(
  platform: Platform,
  id: string,
  trusted: boolean,
  code: string
) {
  const store = yield* Store
  return yield* store.transact((uow) =>
    Effect.gen(function*() {
      const rec = yield* findOwned(platform, { kind: "customer" }, id)
      const pending = rec.pendingTrustChange
      if (pending === undefined || pending.trusted !== trusted) {
        return yield* conflict("CONFLICT", `No ${trusted ? "trust" : "untrust"} ceremony was started for ${id}`)
      }
      if ((yield* nowMillis) > pending.expiresAt || code !== SANDBOX_SCA_CODE) {
        return yield* badRequest("INVALID_INPUT", "Invalid or expired SCA proof", { details: { field: "code" } })
      }
      const { pendingTrustChange: _p, ...rest } = rec
      uow.putExternalAccount({ ...rest, trusted })
      return { trusted }
    })
  )
})
