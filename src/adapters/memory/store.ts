/**
 * The in-memory Store: the embedded default. Units of work are serialised by one
 * semaphore, stage their writes and events, and apply them in one synchronous step
 * on success, so readers never see half a unit of work and a failed one leaves no
 * trace.
 */
import { Effect, Layer } from "effect"
import type { Error400 } from "../../domain/errors.js"
import { Events, type DomainEvent } from "../../ports/events.js"
import {
  type BeneficialOwnerRecord,
  type CustomerQuery,
  type DocumentRecord,
  type CustomerRecord,
  type ExternalAccountQuery,
  type ExternalAccountRecord,
  type Page,
  type PageResult,
  Store,
  type UnitOfWork,
  type VerificationQuery,
  type VerificationRecord
} from "../../ports/store.js"
import { Collection, Tenants } from "./collection.js"
import { makeMutex } from "./mutex.js"

interface PlatformData {
  readonly customers: Collection<CustomerRecord>
  /** platformCustomerId -> id, active customers only. */
  readonly customerByPlatformId: Map<string, string>
  readonly externalAccounts: Collection<ExternalAccountRecord>
  /** equivalence key -> id. */
  readonly accountByEquivalence: Map<string, string>
  /** customerId -> ids of accounts flagged defaultUmaDepositAccount. */
  readonly defaultUma: Map<string, Set<string>>
  /** ids of accounts with a scheduled move. */
  readonly scheduled: Set<string>
  readonly documents: Collection<DocumentRecord>
  readonly beneficialOwners: Collection<BeneficialOwnerRecord>
  readonly verifications: Collection<VerificationRecord>
  /** holder id -> document ids; customer id -> owner ids. */
  readonly documentsByHolder: Map<string, Set<string>>
  readonly ownersByCustomer: Map<string, Set<string>>
}

const newPlatformData = (): PlatformData => ({
  customers: new Collection(),
  customerByPlatformId: new Map(),
  externalAccounts: new Collection(),
  accountByEquivalence: new Map(),
  defaultUma: new Map(),
  scheduled: new Set(),
  documents: new Collection(),
  beneficialOwners: new Collection(),
  verifications: new Collection(),
  documentsByHolder: new Map(),
  ownersByCustomer: new Map()
})

type Op =
  | { readonly _tag: "putCustomer"; readonly record: CustomerRecord }
  | { readonly _tag: "putExternalAccount"; readonly record: ExternalAccountRecord }
  | { readonly _tag: "deleteExternalAccount"; readonly platformId: string; readonly id: string }
  | { readonly _tag: "putDocument"; readonly record: DocumentRecord }
  | { readonly _tag: "deleteDocument"; readonly platformId: string; readonly id: string }
  | { readonly _tag: "putBeneficialOwner"; readonly record: BeneficialOwnerRecord }
  | { readonly _tag: "deleteBeneficialOwner"; readonly platformId: string; readonly id: string }
  | { readonly _tag: "putVerification"; readonly record: VerificationRecord }

const inRange = (value: string, after: string | undefined, before: string | undefined): boolean =>
  (after === undefined || value >= after) && (before === undefined || value <= before)

const matchesCustomer = (q: CustomerQuery) => (r: CustomerRecord): boolean =>
  (q.includeDeleted === true || r.deletedAt === undefined) &&
  (q.platformCustomerId === undefined || r.customer.platformCustomerId === q.platformCustomerId) &&
  (q.customerType === undefined || r.customer.customerType === q.customerType) &&
  inRange(r.customer.createdAt, q.createdAfter, q.createdBefore) &&
  inRange(r.customer.updatedAt, q.updatedAfter, q.updatedBefore) &&
  (q.region === undefined || r.customer.region === q.region) &&
  (q.currency === undefined || (r.customer.currencies ?? []).includes(q.currency)) &&
  (q.umaAddress === undefined || r.customer.umaAddress === q.umaAddress)

const matchesVerification = (q: VerificationQuery) => (r: VerificationRecord): boolean =>
  (q.customerId === undefined || r.verification.customerId === q.customerId) &&
  (q.verificationStatus === undefined || r.verification.verificationStatus === q.verificationStatus)

const addTo = (index: Map<string, Set<string>>, key: string, id: string) => {
  let set = index.get(key)
  if (set === undefined) index.set(key, set = new Set())
  set.add(id)
}

const removeFrom = (index: Map<string, Set<string>>, key: string, id: string) => {
  const set = index.get(key)
  if (set === undefined) return
  set.delete(id)
  if (set.size === 0) index.delete(key)
}

const membersOf = <R>(collection: Collection<R>, ids: Set<string> | undefined): ReadonlyArray<R> =>
  ids === undefined ? [] : [...ids].flatMap((id) => {
    const r = collection.get(id)
    return r === undefined ? [] : [r]
  })

const matchesAccount = (q: ExternalAccountQuery) => (r: ExternalAccountRecord): boolean =>
  (q.owner === "platform" ? r.account.customerId === null : r.account.customerId !== null) &&
  (q.customerId === undefined || r.account.customerId === q.customerId) &&
  (q.currency === undefined || r.account.currency === q.currency)

const toEffect = <R>(result: PageResult<R> | Error400): Effect.Effect<PageResult<R>, Error400> =>
  "data" in result ? Effect.succeed(result) : Effect.fail(result)

export const makeMemoryStore = Effect.gen(function*() {
  const events = yield* Events
  const tenants = new Tenants(newPlatformData)
  const exclusive = makeMutex()

  const applyCustomer = (record: CustomerRecord) => {
    const t = tenants.of(record.platformId)
    const previous = t.customers.get(record.customer.id)
    if (previous !== undefined && t.customerByPlatformId.get(previous.customer.platformCustomerId) === previous.customer.id) {
      t.customerByPlatformId.delete(previous.customer.platformCustomerId)
    }
    t.customers.put(record.customer.id, record)
    if (record.deletedAt === undefined) t.customerByPlatformId.set(record.customer.platformCustomerId, record.customer.id)
  }

  const unindexAccount = (t: PlatformData, r: ExternalAccountRecord) => {
    const id = r.account.id
    if (t.accountByEquivalence.get(r.equivalenceKey) === id) t.accountByEquivalence.delete(r.equivalenceKey)
    if (r.account.customerId !== null) t.defaultUma.get(r.account.customerId)?.delete(id)
    t.scheduled.delete(id)
  }

  const applyAccount = (record: ExternalAccountRecord) => {
    const t = tenants.of(record.platformId)
    const id = record.account.id
    const previous = t.externalAccounts.get(id)
    if (previous !== undefined) unindexAccount(t, previous)
    t.externalAccounts.put(id, record)
    t.accountByEquivalence.set(record.equivalenceKey, id)
    if (record.account.customerId !== null && record.account.defaultUmaDepositAccount) {
      let set = t.defaultUma.get(record.account.customerId)
      if (set === undefined) t.defaultUma.set(record.account.customerId, set = new Set())
      set.add(id)
    }
    if (record.scheduled !== undefined) t.scheduled.add(id)
  }

  const deleteAccount = (platformId: string, id: string) => {
    const t = tenants.of(platformId)
    const previous = t.externalAccounts.get(id)
    if (previous === undefined) return
    unindexAccount(t, previous)
    t.externalAccounts.delete(id)
  }

  const applyDocument = (record: DocumentRecord) => {
    const t = tenants.of(record.platformId)
    const previous = t.documents.get(record.document.id)
    if (previous !== undefined) removeFrom(t.documentsByHolder, previous.document.documentHolder, previous.document.id)
    t.documents.put(record.document.id, record)
    addTo(t.documentsByHolder, record.document.documentHolder, record.document.id)
  }

  const deleteDocument = (platformId: string, id: string) => {
    const t = tenants.of(platformId)
    const previous = t.documents.get(id)
    if (previous === undefined) return
    removeFrom(t.documentsByHolder, previous.document.documentHolder, id)
    t.documents.delete(id)
  }

  const applyOwner = (record: BeneficialOwnerRecord) => {
    const t = tenants.of(record.platformId)
    t.beneficialOwners.put(record.owner.id, record)
    addTo(t.ownersByCustomer, record.owner.customerId, record.owner.id)
  }

  const deleteOwner = (platformId: string, id: string) => {
    const t = tenants.of(platformId)
    const previous = t.beneficialOwners.get(id)
    if (previous === undefined) return
    removeFrom(t.ownersByCustomer, previous.owner.customerId, id)
    t.beneficialOwners.delete(id)
  }

  const commit = (ops: ReadonlyArray<Op>) => {
    for (const op of ops) {
      switch (op._tag) {
        case "putCustomer":
          applyCustomer(op.record)
          break
        case "putExternalAccount":
          applyAccount(op.record)
          break
        case "deleteExternalAccount":
          deleteAccount(op.platformId, op.id)
          break
        case "putDocument":
          applyDocument(op.record)
          break
        case "deleteDocument":
          deleteDocument(op.platformId, op.id)
          break
        case "putBeneficialOwner":
          applyOwner(op.record)
          break
        case "deleteBeneficialOwner":
          deleteOwner(op.platformId, op.id)
          break
        case "putVerification":
          tenants.of(op.record.platformId).verifications.put(op.record.verification.id, op.record)
          break
      }
    }
  }

  const transact = <A, E, R>(work: (uow: UnitOfWork) => Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    exclusive(Effect.suspend(() => {
      const ops: Array<Op> = []
      const emitted: Array<DomainEvent> = []
      const uow: UnitOfWork = {
        putCustomer: (record) => void ops.push({ _tag: "putCustomer", record }),
        putExternalAccount: (record) => void ops.push({ _tag: "putExternalAccount", record }),
        deleteExternalAccount: (platformId, id) => void ops.push({ _tag: "deleteExternalAccount", platformId, id }),
        putDocument: (record) => void ops.push({ _tag: "putDocument", record }),
        deleteDocument: (platformId, id) => void ops.push({ _tag: "deleteDocument", platformId, id }),
        putBeneficialOwner: (record) => void ops.push({ _tag: "putBeneficialOwner", record }),
        deleteBeneficialOwner: (platformId, id) => void ops.push({ _tag: "deleteBeneficialOwner", platformId, id }),
        putVerification: (record) => void ops.push({ _tag: "putVerification", record }),
        emit: (event) => void emitted.push(event)
      }
      return work(uow).pipe(
        Effect.tap(() =>
          Effect.suspend(() => {
            commit(ops)
            return emitted.length === 0 ? Effect.void : events.append(emitted)
          })
        )
      )
    }))

  return Store.of({
    customers: {
      get: (platformId, id) => Effect.sync(() => tenants.peek(platformId)?.customers.get(id)),
      findActiveByPlatformCustomerId: (platformId, pcid) =>
        Effect.sync(() => {
          const t = tenants.peek(platformId)
          const id = t?.customerByPlatformId.get(pcid)
          return id === undefined ? undefined : t?.customers.get(id)
        }),
      list: (platformId, query, page: Page) =>
        Effect.suspend(() => toEffect(tenants.of(platformId).customers.page(matchesCustomer(query), page)))
    },
    externalAccounts: {
      get: (platformId, id) => Effect.sync(() => tenants.peek(platformId)?.externalAccounts.get(id)),
      findByEquivalenceKey: (platformId, key) =>
        Effect.sync(() => {
          const t = tenants.peek(platformId)
          const id = t?.accountByEquivalence.get(key)
          return id === undefined ? undefined : t?.externalAccounts.get(id)
        }),
      findDefaultUmaDeposit: (platformId, customerId) =>
        Effect.sync(() => {
          const t = tenants.peek(platformId)
          const ids = t?.defaultUma.get(customerId)
          if (t === undefined || ids === undefined) return []
          return [...ids].flatMap((id) => {
            const r = t.externalAccounts.get(id)
            return r === undefined ? [] : [r]
          })
        }),
      listDue: (platformId, now) =>
        Effect.sync(() => {
          const t = tenants.peek(platformId)
          if (t === undefined || t.scheduled.size === 0) return []
          return [...t.scheduled].flatMap((id) => {
            const r = t.externalAccounts.get(id)
            return r !== undefined && r.scheduled !== undefined && r.scheduled.at <= now ? [r] : []
          })
        }),
      list: (platformId, query, page) =>
        Effect.suspend(() => toEffect(tenants.of(platformId).externalAccounts.page(matchesAccount(query), page)))
    },
    documents: {
      get: (platformId, id) => Effect.sync(() => tenants.peek(platformId)?.documents.get(id)),
      listByHolder: (platformId, holderId) =>
        Effect.sync(() => {
          const t = tenants.peek(platformId)
          return t === undefined ? [] : membersOf(t.documents, t.documentsByHolder.get(holderId))
        }),
      list: (platformId, query, page) =>
        Effect.suspend(() =>
          toEffect(tenants.of(platformId).documents.page(
            (r) => query.documentHolder === undefined || r.document.documentHolder === query.documentHolder,
            page
          ))
        )
    },
    beneficialOwners: {
      get: (platformId, id) => Effect.sync(() => tenants.peek(platformId)?.beneficialOwners.get(id)),
      listByCustomer: (platformId, customerId) =>
        Effect.sync(() => {
          const t = tenants.peek(platformId)
          return t === undefined ? [] : membersOf(t.beneficialOwners, t.ownersByCustomer.get(customerId))
        }),
      list: (platformId, query, page) =>
        Effect.suspend(() =>
          toEffect(tenants.of(platformId).beneficialOwners.page((r) => r.owner.customerId === query.customerId, page))
        )
    },
    verifications: {
      get: (platformId, id) => Effect.sync(() => tenants.peek(platformId)?.verifications.get(id)),
      list: (platformId, query, page) =>
        Effect.suspend(() => toEffect(tenants.of(platformId).verifications.page(matchesVerification(query), page)))
    },
    transact
  })
})

export const MemoryStoreLayer: Layer.Layer<Store, never, Events> = Layer.effect(Store, makeMemoryStore)
