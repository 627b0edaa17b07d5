/**
 * Customer use cases. Every function takes the platform explicitly: no operation can
 * touch another platform's customers.
 */
import { Effect } from "effect"
import {
  type AgreementConsent,
  type AgreementConsentRequest,
  type CustomerCreateRequest,
  type CustomerResponse,
  type CustomerUpdateRequest,
  type EndUserTermsConsentRequest
} from "../domain/customer.js"
import { DEFAULT_PAGE_LIMIT } from "../domain/common.js"
import { conflict, type Error400, type Error404, type Error409, invalidInput, notFound } from "../domain/errors.js"
import type { Platform } from "../domain/platform.js"
import { Ids } from "../ports/ids.js"
import { type CustomerQuery, type CustomerRecord, type PageResult, Store } from "../ports/store.js"
import { nowIso } from "./time.js"

/**
 * The consents a request records: `agreementConsents`, or the deprecated
 * `endUserTermsConsent` as one SERVICE_END_USER_TERMS entry. Both at once is refused.
 */
export const consentsOf = (req: {
  readonly agreementConsents?: ReadonlyArray<AgreementConsentRequest> | undefined
  readonly endUserTermsConsent?: EndUserTermsConsentRequest | undefined
}): ReadonlyArray<AgreementConsent> | Error400 => {
  if (req.agreementConsents !== undefined && req.endUserTermsConsent !== undefined) {
    return invalidInput("Send agreementConsents or the deprecated endUserTermsConsent, not both", [{
      field: "endUserTermsConsent",
      constraint: "exclusive",
      message: "cannot be sent together with agreementConsents"
    }])
  }
  if (req.endUserTermsConsent !== undefined) return [{ type: "SERVICE_END_USER_TERMS", ...req.endUserTermsConsent }]
  const list = req.agreementConsents ?? []
  const seen = new Set<string>()
  for (const [i, c] of list.entries()) {
    if (seen.has(c.type)) {
      return invalidInput(`agreementConsents holds ${c.type} more than once`, [{
        field: `agreementConsents[${i}].type`,
        constraint: "unique",
        message: "at most one entry per agreement type per request"
      }])
    }
    seen.add(c.type)
  }
  return list
}

/** Latest acceptance per type: a later acceptance replaces an earlier one of its type. */
export const mergeConsents = (
  existing: ReadonlyArray<AgreementConsent>,
  added: ReadonlyArray<AgreementConsent>
): ReadonlyArray<AgreementConsent> => {
  const byType = new Map(existing.map((c) => [c.type, c]))
  for (const c of added) {
    const prev = byType.get(c.type)
    if (prev === undefined || prev.acceptedAt <= c.acceptedAt) byType.set(c.type, c)
  }
  return [...byType.values()]
}

const endUserTermsOf = (consents: ReadonlyArray<AgreementConsent>) => {
  const c = consents.find((x) => x.type === "SERVICE_END_USER_TERMS")
  return c === undefined ? {} : {
    endUserTermsConsent: {
      acceptedAt: c.acceptedAt,
      ipAddress: c.ipAddress,
      termsVersion: c.termsVersion,
      acceptanceMethod: c.acceptanceMethod
    }
  }
}

const umaAddressFor = (platformCustomerId: string) =>
  `$${platformCustomerId.toLowerCase().replace(/[^a-z0-9._-]/g, "-").slice(0, 64)}@sandbox.uma.local`

const customerGone = (id: string): Error404 => notFound(`Customer ${id} not found`)

/** The active customer `id` of this platform, or 404. */
export const activeCustomer = Effect.fnUntraced(function*(platform: Platform, id: string) {
  const store = yield* Store
  const rec = yield* store.customers.get(platform.id, id)
  if (rec === undefined || rec.deletedAt !== undefined) return yield* customerGone(id)
  return rec
})

export const createCustomer = Effect.fn("createCustomer")(function*(platform: Platform, req: CustomerCreateRequest) {
  const store = yield* Store
  const ids = yield* Ids
  const consents = consentsOf(req)
  if (!Array.isArray(consents)) return yield* (consents as Error400)
  const consentList = consents as ReadonlyArray<AgreementConsent>
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
      const id = yield* ids.make("Customer")
      const now = yield* nowIso
      const platformCustomerId = req.platformCustomerId ?? id.slice("Customer:".length)
      const { agreementConsents: _a, endUserTermsConsent: _e, ...fields } = req
      const common = {
        ...fields,
        id,
        platformCustomerId,
        umaAddress: req.umaAddress ?? umaAddressFor(platformCustomerId),
        agreementConsents: consentList,
        ...endUserTermsOf(consentList),
        createdAt: now,
        updatedAt: now,
        isDeleted: false
      }
      const customer: CustomerResponse = fields.customerType === "INDIVIDUAL"
        ? { ...common, customerType: "INDIVIDUAL", fullName: fields.fullName, kycStatus: "UNVERIFIED" }
        : { ...common, customerType: "BUSINESS", businessInfo: fields.businessInfo, kybStatus: "UNVERIFIED" }
      uow.putCustomer({ platformId: platform.id, customer })
      return customer
    })
  )
})

export const getCustomer = Effect.fn("getCustomer")(function*(platform: Platform, id: string) {
  const store = yield* Store
  const rec = yield* store.customers.get(platform.id, id)
  if (rec === undefined) return yield* customerGone(id)
  return rec.customer
})

export const listCustomers = Effect.fn("listCustomers")(function*(
  platform: Platform,
  query: CustomerQuery & { readonly limit?: number | undefined; readonly cursor?: string | undefined }
) {
  const store = yield* Store
  const page = yield* store.customers.list(platform.id, query, { limit: query.limit ?? DEFAULT_PAGE_LIMIT, cursor: query.cursor })
  return { ...page, data: page.data.map((r) => r.customer) } satisfies PageResult<CustomerResponse>
})

export const updateCustomer = Effect.fn("updateCustomer")(function*(
  platform: Platform,
  id: string,
  req: CustomerUpdateRequest
) {
  const store = yield* Store
  const consents = consentsOf(req)
  if (!Array.isArray(consents)) return yield* (consents as Error400)
  const added = consents as ReadonlyArray<AgreementConsent>
  return yield* store.transact((uow) =>
    Effect.gen(function*() {
      const rec: CustomerRecord = yield* activeCustomer(platform, id)
      const current = rec.customer
      if (current.customerType !== req.customerType) {
        return yield* invalidInput(`customerType is ${current.customerType} for this customer and cannot change`, [{
          field: "customerType",
          constraint: "immutable",
          message: `must be ${current.customerType}`
        }])
      }
      const now = yield* nowIso
      const { agreementConsents: _a, endUserTermsConsent: _e, ...fields } = req
      const agreementConsents = mergeConsents(current.agreementConsents, added)
      const base = { ...endUserTermsOf(agreementConsents), agreementConsents, updatedAt: now }
      let next: CustomerResponse
      if (current.customerType === "INDIVIDUAL" && fields.customerType === "INDIVIDUAL") {
        next = { ...current, ...fields, ...base }
      } else if (current.customerType === "BUSINESS" && fields.customerType === "BUSINESS") {
        const { businessInfo, ...rest } = fields
        next = { ...current, ...rest, ...base, businessInfo: { ...current.businessInfo, ...businessInfo } }
      } else {
        return yield* invalidInput("customerType cannot change")
      }
      uow.putCustomer({ ...rec, customer: next })
      return next
    })
  )
})

export const deleteCustomer = Effect.fn("deleteCustomer")(function*(platform: Platform, id: string) {
  const store = yield* Store
  return yield* store.transact((uow) =>
    Effect.gen(function*() {
      const rec = yield* activeCustomer(platform, id)
      const now = yield* nowIso
      const customer: CustomerResponse = { ...rec.customer, isDeleted: true, updatedAt: now }
      uow.putCustomer({ ...rec, customer, deletedAt: now })
      return customer
    })
  )
})

export type CustomerError = Error400 | Error404 | Error409
