/**
 * Customer use cases. Every function takes the platform explicitly: no operation can
 * touch another platform's customers. Consent rules live in rules/agreements.ts; the
 * sandbox's resolve-at-creation rule in rules/sandbox/kyc.ts.
 */
import { Effect } from "effect"
import type { ContactVerification } from "../domain/sca.js"
import { contactVerificationAfterUpdate, contactVerificationAtCreation } from "../rules/sca.js"
import {
  type AgreementConsent,
  type AgreementConsentRequest,
  type CustomerCreateRequest,
  CustomerResponse,
  type CustomerState,
  type CustomerUpdateRequest,
  type EndUserTermsConsentRequest
} from "../domain/customer.js"
import {
  conflict,
  type Error400,
  type Error401,
  type Error404,
  type Error409,
  type Error410,
  gone,
  invalidInput
} from "../domain/errors.js"
import type { Platform } from "../domain/platform.js"
import { Ids } from "../ports/ids.js"
import { type CustomerQuery, type CustomerRecord, Store, type StoreConflict, type UnitOfWork } from "../ports/store.js"
import { type ChangedWindowQuery, changedWindowsOf, conflictIsDefect, type PageQuery, pageRequestOf, shownPageOf } from "./paging.js"
import * as Agreements from "../rules/agreements.js"
import type { KycEvent } from "../rules/kyc.js"
import { kycStatusAtCreation } from "../rules/sandbox/kyc.js"
import { fromResult, toApiError } from "./rejection.js"
import { nowIso } from "./time.js"
import { credentialsOf, type Signed, type SignedHeaders, signedRequest } from "./wallets/signed.js"
import { type CustomerEmitted, moveCustomer, writeCustomer } from "./verification-events.js"
import { missing, unknownReference } from "./not-found.js"

/**
 * The consents a request records: `agreementConsents`, or the deprecated
 * `endUserTermsConsent` as one SERVICE_END_USER_TERMS entry. Refusals are returned.
 */
export const consentsOf = (req: {
  readonly agreementConsents?: ReadonlyArray<AgreementConsentRequest> | undefined
  readonly endUserTermsConsent?: EndUserTermsConsentRequest | undefined
}): ReadonlyArray<AgreementConsent> | Error400 => {
  const r = Agreements.consentsOf(req)
  return r.ok ? r.value : toApiError(r.error)
}

export const mergeConsents = Agreements.mergeConsents

const consentFields = (consents: ReadonlyArray<AgreementConsent>) => {
  const eut = Agreements.endUserTermsConsentOf(consents)
  return eut === undefined ? { agreementConsents: consents } : { agreementConsents: consents, endUserTermsConsent: eut }
}

const requestConsents = (req: Parameters<typeof Agreements.consentsOf>[0]) => {
  return fromResult(Agreements.consentsOf(req))
}

const contactVerificationField = (cv: ContactVerification | undefined) => cv === undefined ? {} : { contactVerification: cv }

const umaAddressFor = (platformCustomerId: string) =>
  `$${platformCustomerId.toLowerCase().replace(/[^a-z0-9._-]/g, "-").slice(0, 64)}@sandbox.uma.local`

const customerGone = (id: string): Error404 => missing("customer", `Customer ${id} not found`)

/** The store's unique index refused a platformCustomerId a concurrent request took first. */
const platformCustomerIdTaken = (platformCustomerId: string | undefined) => (e: StoreConflict) =>
  e.constraint === "customers_active_platform_customer_id"
    ? Effect.fail(conflict("CONFLICT", `platformCustomerId ${platformCustomerId ?? ""} is already used by an active customer`))
    : e.constraint === "customers_active_uma_address"
    ? Effect.fail(umaAddressTaken(undefined))
    : conflictIsDefect(e)

const umaAddressTaken = (umaAddress: string | undefined) =>
  umaAddress === undefined
    ? conflict("UMA_ADDRESS_EXISTS", "The UMA address was taken by a concurrent request for another customer of this platform")
    : conflict("UMA_ADDRESS_EXISTS", `UMA address ${umaAddress} is already used by another customer of this platform`, {
      details: { umaAddress }
    })

/** A requested UMA address another active customer (not `self`) holds: 409 UMA_ADDRESS_EXISTS. */
const checkUmaAddressFree = Effect.fnUntraced(function*(platform: Platform, umaAddress: string, self?: string) {
  const store = yield* Store
  const holder = yield* store.customers.findActiveByUmaAddress(platform.id, umaAddress)
  if (holder !== undefined && holder.customer.id !== self) return yield* umaAddressTaken(umaAddress)
})

/**
 * The UMA address a customer gets when it asks for none: `$<platformCustomerId>@…`,
 * or, when that is taken (two ids that normalise alike), one made unique with the
 * customer's id.
 */
const defaultUmaAddress = Effect.fnUntraced(function*(platform: Platform, platformCustomerId: string, customerId: string) {
  const store = yield* Store
  const preferred = umaAddressFor(platformCustomerId)
  if ((yield* store.customers.findActiveByUmaAddress(platform.id, preferred)) === undefined) return preferred
  return umaAddressFor(`${platformCustomerId.slice(0, 48)}-${customerId.slice("Customer:".length, "Customer:".length + 12)}`)
})

/** The active customer `id` of this platform, or 404. */
export const activeCustomer = Effect.fnUntraced(function*(platform: Platform, id: string) {
  const store = yield* Store
  const rec = yield* store.customers.get(platform.id, id)
  if (rec === undefined || rec.deletedAt !== undefined) return yield* customerGone(id)
  return rec
})

/**
 * The active customer a request body names in `field`, or 400 INVALID_INPUT naming it:
 * for the operations whose reference entry lists no 404 (POST /agents, POST /cards).
 */
export const referencedCustomer = Effect.fnUntraced(function*(platform: Platform, id: string, field: string) {
  const store = yield* Store
  const rec = yield* store.customers.get(platform.id, id)
  if (rec === undefined || rec.deletedAt !== undefined) return yield* unknownReference(field, id, "an active customer")
  return rec
})

const CREATION_EVENTS: Readonly<Record<"PENDING" | "APPROVED" | "REJECTED", KycEvent>> = {
  PENDING: { type: "REVIEW_STARTED" },
  APPROVED: { type: "APPROVED" },
  REJECTED: { type: "REJECTED" }
}

/** POST /customers. */
export const createCustomer = Effect.fnUntraced(function*(platform: Platform, req: CustomerCreateRequest) {
  const store = yield* Store
  const ids = yield* Ids
  const consents = yield* requestConsents(req)
  return yield* store.transact((uow) =>
    Effect.gen(function*() {
      if (req.platformCustomerId !== undefined) {
        const clash = yield* store.customers.findActiveByPlatformCustomerId(platform.id, req.platformCustomerId)
        if (clash !== undefined) {
          return yield* conflict("CONFLICT", `platformCustomerId ${req.platformCustomerId} is already used by an active customer`, {
            details: { platformCustomerId: req.platformCustomerId, customerId: clash.customer.id }
          })
        }
      }
      if (req.umaAddress !== undefined) yield* checkUmaAddressFree(platform, req.umaAddress)
      const id = yield* ids.make("Customer")
      const now = yield* nowIso
      const platformCustomerId = req.platformCustomerId ?? id.slice("Customer:".length)
      const { agreementConsents: _a, endUserTermsConsent: _e, ...fields } = req
      const common = {
        ...fields,
        id,
        platformCustomerId,
        umaAddress: req.umaAddress ?? (yield* defaultUmaAddress(platform, platformCustomerId, id)),
        ...consentFields(consents),
        createdAt: now,
        updatedAt: now,
        isDeleted: false,
        ...contactVerificationField(contactVerificationAtCreation(fields.region))
      }
      let customer: CustomerState = fields.customerType === "INDIVIDUAL"
        ? { ...common, customerType: "INDIVIDUAL", ...(fields.fullName === undefined ? {} : { fullName: fields.fullName }), kycStatus: "UNVERIFIED" }
        : { ...common, customerType: "BUSINESS", businessInfo: fields.businessInfo, kybStatus: "UNVERIFIED" }
      let events: ReadonlyArray<CustomerEmitted> = []
      if (fields.customerType === "INDIVIDUAL") {
        // Regulated platforms (or Skip verification paperwork on) resolve by the name's
        // suffix now; without a name there is nothing to resolve by yet.
        const resolved = fields.fullName === undefined ? "UNVERIFIED" : kycStatusAtCreation(platform.settings, fields.fullName)
        if (resolved !== "UNVERIFIED") {
          const moved = yield* moveCustomer(customer, CREATION_EVENTS[resolved], now)
          customer = moved.customer
          events = moved.events
        }
      }
      yield* writeCustomer(uow, platform, { platformId: platform.id, customer }, events, now)
      return customer
    })
  ).pipe(Effect.catchTag("StoreConflict", platformCustomerIdTaken(req.platformCustomerId)))
})

export const getCustomer = Effect.fnUntraced(function*(platform: Platform, id: string) {
  const store = yield* Store
  const rec = yield* store.customers.get(platform.id, id)
  if (rec === undefined) return yield* customerGone(id)
  return rec.customer
})

export interface CustomerListQuery extends ChangedWindowQuery, PageQuery {
  readonly platformCustomerId?: string | undefined
  readonly customerType?: string | undefined
  readonly region?: string | undefined
  readonly currency?: string | undefined
  readonly umaAddress?: string | undefined
  readonly isIncludingDeleted?: "true" | "false" | undefined
}

export const listCustomers = Effect.fnUntraced(function*(platform: Platform, q: CustomerListQuery) {
  const store = yield* Store
  const query: CustomerQuery = {
    platformCustomerId: q.platformCustomerId,
    customerType: q.customerType,
    ...(yield* changedWindowsOf(q)),
    region: q.region,
    currency: q.currency,
    umaAddress: q.umaAddress,
    includeDeleted: q.isIncludingDeleted === "true"
  }
  return yield* shownPageOf(store.customers.list(platform.id, query, pageRequestOf(q)), (r) => r.customer)
})

/** The fields of an update, written in a unit of work (the synchronous path and the signed retry). */
const writeUpdate = Effect.fnUntraced(function*(
  uow: UnitOfWork,
  platform: Platform,
  id: string,
  req: CustomerUpdateRequest,
  added: ReadonlyArray<AgreementConsent>
) {
  const rec: CustomerRecord = yield* activeCustomer(platform, id)
  const current = rec.customer
  yield* checkUpdate(platform, current, req)
  const now = yield* nowIso
  const { agreementConsents: _a, endUserTermsConsent: _e, ...fields } = req
  const base = { ...consentFields(mergeConsents(current.agreementConsents, added)), updatedAt: now }
  let next: CustomerState
  if (current.customerType === "INDIVIDUAL" && fields.customerType === "INDIVIDUAL") {
    next = { ...current, ...fields, ...base }
  } else if (current.customerType === "BUSINESS" && fields.customerType === "BUSINESS") {
    const { businessInfo, ...rest } = fields
    next = { ...current, ...rest, ...base, businessInfo: { ...current.businessInfo, ...businessInfo } }
  } else {
    return yield* invalidInput("customerType cannot change")
  }
  // Contact verification follows the region and the contact values (docs/sca.md).
  const { contactVerification: _cv, ...withoutContact } = next
  const contactVerification = contactVerificationAfterUpdate(current, next)
  next = { ...withoutContact, ...contactVerificationField(contactVerification) }
  const contactCodes = contactVerification === undefined ? undefined : {
    ...(current.email === next.email ? { email: rec.contactCodes?.email } : {}),
    ...(current.phoneNumber === next.phoneNumber ? { phone: rec.contactCodes?.phone } : {})
  }
  yield* uow.putCustomer({ ...rec, customer: next, contactCodes })
  return next
})

/** The checks of an update that hold on both paths: the type cannot change, the UMA address must be free. */
const checkUpdate = Effect.fnUntraced(function*(platform: Platform, current: CustomerState, req: CustomerUpdateRequest) {
  if (current.customerType !== req.customerType) {
    return yield* invalidInput(`customerType is ${current.customerType} for this customer and cannot change`, [{
      field: "customerType",
      constraint: "immutable",
      message: `must be ${current.customerType}`
    }])
  }
  if (req.umaAddress !== undefined) yield* checkUmaAddressFree(platform, req.umaAddress, current.id)
})

/**
 * PATCH /customers/{customerId}. Statuses are never re-derived here: renaming a resolved
 * customer leaves its kycStatus as it is. A change of `email` (`phoneNumber`) for a
 * customer whose embedded wallet has an EMAIL_OTP (SMS_OTP) credential is a signed
 * wallet action: the first leg answers the challenge, the signed retry updates the
 * customer and the wallet's matching OTP credentials together (docs/decisions.md,
 * "Signed customer contact updates"). Every other update completes at once and ignores
 * the signature headers.
 */
export const updateCustomer = Effect.fnUntraced(function*(
  platform: Platform,
  id: string,
  req: CustomerUpdateRequest,
  headers: SignedHeaders = {}
) {
  const store = yield* Store
  const added = yield* requestConsents(req)
  const rec = yield* activeCustomer(platform, id)
  const change = (yield* walletContactChange(platform, rec, req)) ?? (yield* pendingContactChange(platform, rec, req, headers))
  if (change === undefined) {
    const value = yield* store.transact((uow) => writeUpdate(uow, platform, id, req, added))
      .pipe(Effect.catchTag("StoreConflict", platformCustomerIdTaken(undefined)))
    return { _tag: "Done", value } as Signed<CustomerState>
  }
  return yield* signedRequest({
    platform,
    accountId: change.accountId,
    action: CUSTOMER_UPDATE_ACTION,
    request: { customerId: id, ...req },
    check: () =>
      Effect.gen(function*() {
        const rec = yield* activeCustomer(platform, id)
        yield* checkUpdate(platform, rec.customer, req)
        yield* checkContactFree(platform, change)
      }),
    perform: (uow) =>
      Effect.gen(function*() {
        const next = yield* writeUpdate(uow, platform, id, req, added)
        yield* syncOtpCredentials(uow, platform, change)
        return next
      })
  }, headers).pipe(Effect.catchTag("StoreConflict", platformCustomerIdTaken(undefined)))
})

/** A contact change that an embedded wallet's OTP credentials are tied to. */
interface WalletContactChange {
  readonly accountId: string
  readonly type: "EMAIL_OTP" | "SMS_OTP"
  readonly value: string
  readonly lookupKey: string
}

/**
 * The signed flow applies when the request changes `email` and the customer's embedded
 * wallet has an EMAIL_OTP credential, or changes `phoneNumber` and it has an SMS_OTP
 * credential. With such a credential, a request carrying both fields is refused: one
 * signed request changes one contact field.
 */
const walletContactChange = Effect.fnUntraced(function*(platform: Platform, rec: CustomerRecord, req: CustomerUpdateRequest) {
  const store = yield* Store
  const settings = platform.embeddedWallets
  if (settings === undefined) return undefined
  const wallet = yield* store.internalAccounts.findByOwnerCurrency(platform.id, rec.customer.id, settings.currency)
  if (wallet === undefined || wallet.type !== "EMBEDDED_WALLET") return undefined
  const credentials = yield* credentialsOf(platform, wallet.id)
  const hasEmailOtp = credentials.some((c) => c.type === "EMAIL_OTP")
  const hasSmsOtp = credentials.some((c) => c.type === "SMS_OTP")
  if (!hasEmailOtp && !hasSmsOtp) return undefined
  if (req.email !== undefined && req.phoneNumber !== undefined) {
    return yield* invalidInput("Update email and phoneNumber in separate requests: this customer's embedded wallet has OTP credentials tied to them", [{
      field: "phoneNumber",
      constraint: "exclusive",
      message: "must not be sent with email while the customer's embedded wallet has EMAIL_OTP or SMS_OTP credentials"
    }])
  }
  const current = rec.customer
  if (req.email !== undefined && req.email !== current.email && hasEmailOtp) {
    return contactChange(wallet.id, "EMAIL_OTP", req.email)
  }
  if (req.phoneNumber !== undefined && req.phoneNumber !== current.phoneNumber && hasSmsOtp) {
    return contactChange(wallet.id, "SMS_OTP", req.phoneNumber)
  }
  return undefined
})

/**
 * A retry naming a pending challenge of this customer's contact update goes through the
 * signed flow even when the update no longer needs one (its OTP credential was revoked
 * meanwhile): the retry then answers 409 …_CREDENTIAL_SET_CHANGED, as a retry whose
 * credential set changed does.
 */
const pendingContactChange = Effect.fnUntraced(function*(platform: Platform, rec: CustomerRecord, req: CustomerUpdateRequest, headers: SignedHeaders) {
  const store = yield* Store
  const settings = platform.embeddedWallets
  if (headers.requestId === undefined || headers.requestId === "" || settings === undefined) return undefined
  const pending = yield* store.wallets.get(platform.id, "request", headers.requestId)
  if (pending === undefined || pending.action !== CUSTOMER_UPDATE_ACTION) return undefined
  const wallet = yield* store.internalAccounts.findByOwnerCurrency(platform.id, rec.customer.id, settings.currency)
  if (wallet === undefined || wallet.id !== pending.accountId) return undefined
  if (req.email !== undefined) return contactChange(wallet.id, "EMAIL_OTP", req.email)
  if (req.phoneNumber !== undefined) return contactChange(wallet.id, "SMS_OTP", req.phoneNumber)
  return undefined
})

const CUSTOMER_UPDATE_ACTION = "PATCH /customers/{customerId}"

const contactChange = (accountId: string, type: "EMAIL_OTP" | "SMS_OTP", value: string): WalletContactChange => ({
  accountId,
  type,
  value,
  lookupKey: type === "EMAIL_OTP" ? `email:${value.toLowerCase()}` : `phone:${value}`
})

/** The new email (phone number) must not be tied to an OTP credential of another wallet: 409. */
const checkContactFree = Effect.fnUntraced(function*(platform: Platform, change: WalletContactChange) {
  const store = yield* Store
  const tied = yield* store.wallets.byLookup(platform.id, "credential", change.lookupKey)
  if (!tied.some((c) => c.accountId !== change.accountId)) return
  return yield* change.type === "EMAIL_OTP"
    ? conflict("EMAIL_OTP_EMAIL_ALREADY_EXISTS", `${change.value} is already tied to an EMAIL_OTP credential`)
    : conflict("SMS_OTP_PHONE_NUMBER_ALREADY_EXISTS", `${change.value} is already tied to an SMS_OTP credential`)
})

/** The wallet's matching OTP credentials (and their sessions' nicknames) take the new contact value. */
const syncOtpCredentials = Effect.fnUntraced(function*(uow: UnitOfWork, platform: Platform, change: WalletContactChange) {
  const store = yield* Store
  const now = yield* nowIso
  const credentials = (yield* credentialsOf(platform, change.accountId)).filter((c) => c.type === change.type)
  for (const c of credentials) yield* uow.putWalletRecord({ ...c, nickname: change.value, lookupKey: change.lookupKey, updatedAt: now })
  const ids = new Set(credentials.map((c) => c.id))
  for (const s of yield* store.wallets.byAccount(platform.id, "session", change.accountId)) {
    if (ids.has(s.credentialId) && !s.revoked) yield* uow.putWalletRecord({ ...s, nickname: change.value, updatedAt: now })
  }
})

export const deleteCustomer = Effect.fnUntraced(function*(platform: Platform, id: string) {
  const store = yield* Store
  return yield* store.transact((uow) =>
    Effect.gen(function*() {
      const rec = yield* store.customers.get(platform.id, id)
      if (rec === undefined) return yield* customerGone(id)
      if (rec.deletedAt !== undefined) return yield* gone(`Customer ${id} was already deleted`)
      const now = yield* nowIso
      const customer: CustomerState = { ...rec.customer, isDeleted: true, updatedAt: now }
      yield* uow.putCustomer({ ...rec, customer, deletedAt: now })
      return customer
    })
  ).pipe(Effect.catchTag("StoreConflict", conflictIsDefect))
})

/** The agreements a customer can accept, each with its current version and hosted url. */
export const listAgreements = Effect.succeed({ data: Agreements.AGREEMENTS })

/** Deprecated GET /customers/end-user-terms: the SERVICE_END_USER_TERMS agreement. */
export const getEndUserTerms = Effect.sync(() => {
  const a = Agreements.agreementOf("SERVICE_END_USER_TERMS")
  return { version: a.version, url: a.url }
})

export type CustomerError = Error400 | Error401 | Error404 | Error409 | Error410
