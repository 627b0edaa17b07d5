/**
 * The in-memory Store: the default, fastest and nothing persists.
 *
 * It behaves as a one-connection database: units of work run one at a time under a
 * FIFO mutex, write in place and keep an undo log, so a unit of work reads its own
 * writes and a failed, dead or interrupted one is rolled back completely. Reads from
 * outside a unit of work take the same mutex, so nobody sees half of one. Unique
 * keys are checked against index maps when written (a `StoreConflict`, as a unique
 * index would raise in SQL); lists page on `(createdAt, id)` like the SQL adapter.
 */
import { Context, Effect, Layer } from "effect"
import type { DomainEvent } from "../../ports/events.js"
import {
  type BeneficialOwnerRecord,
  type CustomerQuery,
  type CustomerRecord,
  type DocumentRecord,
  type ExternalAccountQuery,
  type ExternalAccountRecord,
  type IdempotencyRecord,
  type InvalidCursor,
  type PageResult,
  Store,
  StoreConflict,
  type StoredEvent,
  type TimeRange,
  type TimerOutcome,
  type TimerRecord,
  type UnitOfWork,
  type VerificationQuery,
  type VerificationRecord
} from "../../ports/store.js"
import { millisOf } from "../cursor.js"
import { asLevel, conflictIn } from "../level.js"
import { makeMutex } from "./mutex.js"
import { MemoryTable } from "./table.js"

/** How many timer outcomes a platform keeps. */
const OUTCOME_HISTORY = 1000
/** Idempotency records are swept of expired ones when a platform holds more than this. */
const IDEMPOTENCY_SWEEP_AT = 10_000

const documentKey = (holderId: string, documentType: string) => `${holderId}\u0000${documentType}`
const timerSlot = (subjectId: string, kind: string) => `${subjectId}\u0000${kind}`

interface Tenant {
  readonly customers: MemoryTable<CustomerRecord>
  readonly externalAccounts: MemoryTable<ExternalAccountRecord>
  readonly documents: MemoryTable<DocumentRecord>
  readonly beneficialOwners: MemoryTable<BeneficialOwnerRecord>
  readonly verifications: MemoryTable<VerificationRecord>
  readonly timers: MemoryTable<TimerRecord>
  readonly events: Array<StoredEvent>
  readonly outcomes: Array<TimerOutcome>
  readonly idempotency: Map<string, IdempotencyRecord>
  clockOffset: number
}

const newTenant = (): Tenant => ({
  customers: new MemoryTable<CustomerRecord>({
    id: (r) => r.customer.id,
    createdAt: (r) => millisOf(r.customer.createdAt),
    unique: [
      {
        name: "customers_active_platform_customer_id",
        key: (r) => r.deletedAt === undefined ? r.customer.platformCustomerId : undefined
      },
      {
        name: "customers_active_uma_address",
        key: (r) => r.deletedAt === undefined ? r.customer.umaAddress?.toLowerCase() : undefined
      }
    ]
  }),
  externalAccounts: new MemoryTable<ExternalAccountRecord>({
    id: (r) => r.account.id,
    createdAt: (r) => millisOf(r.account.createdAt),
    unique: [
      { name: "external_accounts_equivalence", key: (r) => r.equivalenceKey },
      {
        name: "external_accounts_default_uma",
        key: (r) => r.account.customerId !== null && r.account.defaultUmaDepositAccount ? r.account.customerId : undefined
      }
    ]
  }),
  documents: new MemoryTable<DocumentRecord>({
    id: (r) => r.document.id,
    createdAt: (r) => millisOf(r.document.createdAt),
    unique: [{ name: "documents_holder_type", key: (r) => documentKey(r.document.documentHolder, r.document.documentType) }],
    groups: [{ name: "holder", key: (r) => r.document.documentHolder }]
  }),
  beneficialOwners: new MemoryTable<BeneficialOwnerRecord>({
    id: (r) => r.owner.id,
    createdAt: (r) => millisOf(r.owner.createdAt),
    groups: [{ name: "customer", key: (r) => r.owner.customerId }]
  }),
  verifications: new MemoryTable<VerificationRecord>({
    id: (r) => r.verification.id,
    createdAt: (r) => millisOf(r.verification.createdAt)
  }),
  timers: new MemoryTable<TimerRecord>({
    id: (r) => r.id,
    createdAt: (r) => r.at,
    groups: [{ name: "slot", key: (r) => timerSlot(r.subjectId, r.kind) }, { name: "subject", key: (r) => r.subjectId }]
  }),
  events: [],
  outcomes: [],
  idempotency: new Map(),
  clockOffset: 0
})

const inRange = (ms: number, range: TimeRange | undefined): boolean =>
  range === undefined || ((range.from === undefined || ms >= range.from) && (range.to === undefined || ms <= range.to))

const matchesCustomer = (q: CustomerQuery) => (r: CustomerRecord): boolean =>
  (q.includeDeleted === true || r.deletedAt === undefined) &&
  (q.platformCustomerId === undefined || r.customer.platformCustomerId === q.platformCustomerId) &&
  (q.customerType === undefined || r.customer.customerType === q.customerType) &&
  inRange(millisOf(r.customer.createdAt), q.created) &&
  inRange(millisOf(r.customer.updatedAt), q.updated) &&
  (q.region === undefined || r.customer.region === q.region) &&
  (q.currency === undefined || (r.customer.currencies ?? []).includes(q.currency)) &&
  (q.umaAddress === undefined || r.customer.umaAddress === q.umaAddress)

/** A query that keeps every customer (deleted ones included): its total is the table size. */
const isUnfiltered = (q: CustomerQuery): boolean =>
  q.includeDeleted === true && q.platformCustomerId === undefined && q.customerType === undefined &&
  q.created === undefined && q.updated === undefined && q.region === undefined && q.currency === undefined &&
  q.umaAddress === undefined

const matchesAccount = (q: ExternalAccountQuery) => (r: ExternalAccountRecord): boolean =>
  (q.owner === "platform" ? r.account.customerId === null : r.account.customerId !== null) &&
  (q.customerId === undefined || r.account.customerId === q.customerId) &&
  (q.currency === undefined || r.account.currency === q.currency)

const matchesVerification = (q: VerificationQuery) => (r: VerificationRecord): boolean =>
  (q.customerId === undefined || r.verification.customerId === q.customerId) &&
  (q.verificationStatus === undefined || r.verification.verificationStatus === q.verificationStatus)

const pageEffect = <R>(result: PageResult<R> | InvalidCursor): Effect.Effect<PageResult<R>, InvalidCursor> =>
  "data" in result ? Effect.succeed(result) : Effect.fail(result)

interface MemoryTx {
  readonly store: object
  readonly uow: UnitOfWork
  /** Undo actions, oldest first. */
  readonly log: Array<() => void>
}

/** The unit of work the current fiber runs in, per store instance. */
const CurrentTx = Context.Reference<MemoryTx | undefined>("payments-service/adapters/memory/CurrentTx", {
  defaultValue: () => undefined
})

const rollbackTo = (tx: MemoryTx, mark: number) => {
  while (tx.log.length > mark) tx.log.pop()?.()
}

export const makeMemoryStore = Effect.sync(() => {
  const identity = {}
  const tenants = new Map<string, Tenant>()
  const { exclusive, read: readUnlocked } = makeMutex()
  let eventSeq = 0

  const tenantOf = (platformId: string): Tenant => {
    let t = tenants.get(platformId)
    if (t === undefined) tenants.set(platformId, t = newTenant())
    return t
  }

  /** A read: inside a unit of work of this store it runs at once, else when no unit of work is in progress. */
  const read = <A>(f: () => A): Effect.Effect<A> =>
    CurrentTx.use((tx) => tx?.store === identity ? Effect.sync(f) : readUnlocked(f))

  const readPage = <A>(f: () => PageResult<A> | InvalidCursor): Effect.Effect<PageResult<A>, InvalidCursor> =>
    Effect.flatMap(read(f), pageEffect)

  const peek = (platformId: string): Tenant | undefined => tenants.get(platformId)

  /**
   * The undo log of the unit of work in progress. Units of work run one at a time (the
   * mutex), so one log at a time is live, and one UnitOfWork object serves them all.
   */
  let activeLog: Array<() => void> | undefined
  const undo = (f: () => void) => {
    if (activeLog === undefined) throw new Error("a UnitOfWork was used outside its store.transact")
    activeLog.push(f)
  }

  const makeUow = (): UnitOfWork => {
    const putRow = <R>(table: MemoryTable<R>, id: string, record: R): Effect.Effect<void, StoreConflict> =>
      Effect.suspend(() => {
        const constraint = table.conflictOf(record)
        if (constraint !== undefined) return conflictIn(constraint)
        const previous = table.put(record)
        undo(() => void (previous === undefined ? table.remove(id) : table.put(previous)))
        return Effect.void
      })
    const removeRow = <R>(table: MemoryTable<R>, id: string): Effect.Effect<void> =>
      Effect.sync(() => {
        const previous = table.remove(id)
        if (previous !== undefined) undo(() => void table.put(previous))
      })
    return {
      putCustomer: (r) => putRow(tenantOf(r.platformId).customers, r.customer.id, r),
      putExternalAccount: (r) => putRow(tenantOf(r.platformId).externalAccounts, r.account.id, r),
      deleteExternalAccount: (platformId, id) => removeRow(tenantOf(platformId).externalAccounts, id),
      putDocument: (r) => putRow(tenantOf(r.platformId).documents, r.document.id, r),
      deleteDocument: (platformId, id) => removeRow(tenantOf(platformId).documents, id),
      putBeneficialOwner: (r) => Effect.orDie(putRow(tenantOf(r.platformId).beneficialOwners, r.owner.id, r)),
      deleteBeneficialOwner: (platformId, id) => removeRow(tenantOf(platformId).beneficialOwners, id),
      putVerification: (r) => Effect.orDie(putRow(tenantOf(r.platformId).verifications, r.verification.id, r)),
      emit: (event: DomainEvent) =>
        Effect.sync(() => {
          const events = tenantOf(event.platformId).events
          events.push({ seq: ++eventSeq, event })
          undo(() => void events.pop())
        }),
      schedule: (timer) =>
        Effect.suspend(() => {
          const table = tenantOf(timer.platformId).timers
          const replaced = table.byGroup("slot", timerSlot(timer.subjectId, timer.kind))
          return Effect.andThen(
            Effect.forEach(replaced, (old) => removeRow(table, old.id), { discard: true }),
            Effect.orDie(putRow(table, timer.id, timer))
          )
        }),
      cancelTimers: (platformId, subjectId, kind) =>
        Effect.suspend(() => {
          const table = tenantOf(platformId).timers
          const doomed = kind === undefined ? table.byGroup("subject", subjectId) : table.byGroup("slot", timerSlot(subjectId, kind))
          return Effect.forEach(doomed, (t) => removeRow(table, t.id), { discard: true })
        }),
      recordTimerOutcome: (outcome) =>
        Effect.sync(() => {
          const outcomes = tenantOf(outcome.timer.platformId).outcomes
          outcomes.push(outcome)
          const dropped = outcomes.length > OUTCOME_HISTORY ? outcomes.shift() : undefined
          undo(() => {
            outcomes.pop()
            if (dropped !== undefined) outcomes.unshift(dropped)
          })
        }),
      setClockOffset: (platformId, offsetMillis) =>
        Effect.sync(() => {
          const t = tenantOf(platformId)
          const previous = t.clockOffset
          t.clockOffset = offsetMillis
          undo(() => void (t.clockOffset = previous))
        }),
      putIdempotency: (record) =>
        Effect.sync(() => {
          const map = tenantOf(record.platformId).idempotency
          const existing = map.get(record.key)
          if (existing !== undefined && existing.expiresAt > record.createdAt) return existing
          if (map.size > IDEMPOTENCY_SWEEP_AT) {
            for (const [key, r] of map) if (r.expiresAt <= record.createdAt) map.delete(key)
          }
          map.set(record.key, record)
          undo(() => void (existing === undefined ? map.delete(record.key) : map.set(record.key, existing)))
          return undefined
        }),
      resetPlatform: (platformId) =>
        Effect.sync(() => {
          const previous = tenants.get(platformId)
          if (previous === undefined) return
          tenants.delete(platformId)
          undo(() => void tenants.set(platformId, previous))
        })
    }
  }

  const uow = makeUow()

  const transact = <A, E, R>(work: (uow: UnitOfWork) => Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    CurrentTx.use((current) => {
      if (current?.store === identity) {
        // Nested: part of the enclosing unit of work; a failure undoes its own writes.
        const mark = current.log.length
        return Effect.onError(asLevel(work(current.uow)), () => Effect.sync(() => rollbackTo(current, mark)))
      }
      return exclusive(Effect.suspend(() => {
        const log: Array<() => void> = []
        activeLog = log
        const tx: MemoryTx = { store: identity, uow, log }
        return asLevel(work(uow)).pipe(
          Effect.onError(() => Effect.sync(() => rollbackTo(tx, 0))),
          Effect.ensuring(Effect.sync(() => void (activeLog = undefined))),
          Effect.provideService(CurrentTx, tx)
        )
      }))
    })

  return Store.of({
    info: { kind: "memory", description: "in memory (nothing persists)" },
    customers: {
      get: (platformId, id) => read(() => peek(platformId)?.customers.get(id)),
      findActiveByPlatformCustomerId: (platformId, pcid) =>
        read(() => peek(platformId)?.customers.byUnique("customers_active_platform_customer_id", pcid)),
      findActiveByUmaAddress: (platformId, umaAddress) =>
        read(() => peek(platformId)?.customers.byUnique("customers_active_uma_address", umaAddress.toLowerCase())),
      list: (platformId, query, page) =>
        readPage(() => tenantOf(platformId).customers.page(matchesCustomer(query), page, isUnfiltered(query)))
    },
    externalAccounts: {
      get: (platformId, id) => read(() => peek(platformId)?.externalAccounts.get(id)),
      findByEquivalenceKey: (platformId, key) =>
        read(() => peek(platformId)?.externalAccounts.byUnique("external_accounts_equivalence", key)),
      findDefaultUmaDeposit: (platformId, customerId) =>
        read(() => peek(platformId)?.externalAccounts.byUnique("external_accounts_default_uma", customerId)),
      list: (platformId, query, page) => readPage(() => tenantOf(platformId).externalAccounts.page(matchesAccount(query), page, false))
    },
    documents: {
      get: (platformId, id) => read(() => peek(platformId)?.documents.get(id)),
      listByHolder: (platformId, holderId) => read(() => peek(platformId)?.documents.byGroup("holder", holderId) ?? []),
      list: (platformId, query, page) =>
        readPage(() =>
          tenantOf(platformId).documents.page(
            (r) => query.documentHolder === undefined || r.document.documentHolder === query.documentHolder,
            page,
            query.documentHolder === undefined
          )
        )
    },
    beneficialOwners: {
      get: (platformId, id) => read(() => peek(platformId)?.beneficialOwners.get(id)),
      listByCustomer: (platformId, customerId) => read(() => peek(platformId)?.beneficialOwners.byGroup("customer", customerId) ?? []),
      list: (platformId, query, page) =>
        readPage(() => tenantOf(platformId).beneficialOwners.page((r) => r.owner.customerId === query.customerId, page, false))
    },
    verifications: {
      get: (platformId, id) => read(() => peek(platformId)?.verifications.get(id)),
      list: (platformId, query, page) =>
        readPage(() =>
          tenantOf(platformId).verifications.page(
            matchesVerification(query),
            page,
            query.customerId === undefined && query.verificationStatus === undefined
          )
        )
    },
    events: {
      list: (platformId, options) =>
        read(() => {
          const events = peek(platformId)?.events ?? []
          const after = options?.afterSeq ?? 0
          const limit = options?.limit ?? Number.POSITIVE_INFINITY
          const out: Array<StoredEvent> = []
          for (const e of events) {
            if (e.seq <= after) continue
            if (out.length >= limit) break
            out.push(e)
          }
          return out
        })
    },
    timers: {
      claimDue: (platformId, now) =>
        CurrentTx.use((tx) => {
          if (tx?.store !== identity) return Effect.die(new Error("timers.claimDue must run inside a unit of work"))
          const table = peek(platformId)?.timers
          const first = table?.first()
          if (table === undefined || first === undefined || first.at > now) return Effect.succeed(undefined)
          table.remove(first.id)
          undo(() => void table.put(first))
          return Effect.succeed(first)
        }),
      pending: (platformId) => read(() => peek(platformId)?.timers.ordered() ?? []),
      outcomes: (platformId) => read(() => [...(peek(platformId)?.outcomes ?? [])])
    },
    clocks: {
      offset: (platformId) => read(() => peek(platformId)?.clockOffset ?? 0)
    },
    idempotency: {
      get: (platformId, key, now) =>
        read(() => {
          const r = peek(platformId)?.idempotency.get(key)
          return r !== undefined && r.expiresAt > now ? r : undefined
        })
    },
    transact
  })
})

export const MemoryStoreLayer: Layer.Layer<Store> = Layer.effect(Store, makeMemoryStore)
