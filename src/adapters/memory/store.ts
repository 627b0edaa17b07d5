/**
 * The in-memory Store: the embedded default. Units of work are serialised by one
 * semaphore, stage their writes and events, and apply them in one synchronous step
 * on success, so readers never see half a unit of work and a failed one leaves no
 * trace.
 */
import { Effect, Layer, Semaphore } from "effect"
import type { Error400 } from "../../domain/errors.js"
import { Events, type DomainEvent } from "../../ports/events.js"
import {
  type CustomerQuery,
  type CustomerRecord,
  type ExternalAccountQuery,
  type ExternalAccountRecord,
  type Page,
  type PageResult,
  Store,
  type UnitOfWork
} from "../../ports/store.js"
import { Collection, Tenants } from "./collection.js"

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
}

const newPlatformData = (): PlatformData => ({
  customers: new Collection(),
  customerByPlatformId: new Map(),
  externalAccounts: new Collection(),
  accountByEquivalence: new Map(),
  defaultUma: new Map(),
  scheduled: new Set()
})

type Op =
  | { readonly _tag: "putCustomer"; readonly record: CustomerRecord }
  | { readonly _tag: "putExternalAccount"; readonly record: ExternalAccountRecord }
  | { readonly _tag: "deleteExternalAccount"; readonly platformId: string; readonly id: string }

const inRange = (value: string, after: string | undefined, before: string | undefined): boolean =>
  (after === undefined || value >= after) && (before === undefined || value <= before)

const matchesCustomer = (q: CustomerQuery) => (r: CustomerRecord): boolean =>
  (q.includeDeleted === true || r.deletedAt === undefined) &&
  (q.platformCustomerId === undefined || r.customer.platformCustomerId === q.platformCustomerId) &&
  (q.customerType === undefined || r.customer.customerType === q.customerType) &&
  inRange(r.customer.createdAt, q.createdAfter, q.createdBefore) &&
  inRange(r.customer.updatedAt, q.updatedAfter, q.updatedBefore)

const matchesAccount = (q: ExternalAccountQuery) => (r: ExternalAccountRecord): boolean =>
  (q.owner === "platform" ? r.account.customerId === null : r.account.customerId !== null) &&
  (q.customerId === undefined || r.account.customerId === q.customerId) &&
  (q.currency === undefined || r.account.currency === q.currency)

const toEffect = <R>(result: PageResult<R> | Error400): Effect.Effect<PageResult<R>, Error400> =>
  "data" in result ? Effect.succeed(result) : Effect.fail(result)

export const makeMemoryStore = Effect.gen(function*() {
  const events = yield* Events
  const tenants = new Tenants(newPlatformData)
  const lock = yield* Semaphore.make(1)

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
      }
    }
  }

  const transact = <A, E, R>(work: (uow: UnitOfWork) => Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    lock.withPermits(1)(Effect.suspend(() => {
      const ops: Array<Op> = []
      const emitted: Array<DomainEvent> = []
      const uow: UnitOfWork = {
        putCustomer: (record) => void ops.push({ _tag: "putCustomer", record }),
        putExternalAccount: (record) => void ops.push({ _tag: "putExternalAccount", record }),
        deleteExternalAccount: (platformId, id) => void ops.push({ _tag: "deleteExternalAccount", platformId, id }),
        emit: (event) => void emitted.push(event)
      }
      return work(uow).pipe(
        Effect.tap(() =>
          Effect.suspend(() => {
            commit(ops)
            return emitted.length === 0 ? Effect.void : events.append(emitted)
          })
        ),
        Effect.uninterruptible
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
    transact
  })
})

export const MemoryStoreLayer: Layer.Layer<Store, never, Events> = Layer.effect(Store, makeMemoryStore)
