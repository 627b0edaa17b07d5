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
import type { AgentActionQuery, AgentActionRecord, AgentQuery, AgentRecord, AgentRecordKind, AgentStoreRecord, AgentStoreRecordOf } from "../../ports/agents.js"
import type { DomainEvent } from "../../ports/events.js"
import {
  type BeneficialOwnerRecord,
  type CardQuery,
  type CardRecord,
  type CardTransactionQuery,
  type CardTransactionRecord,
  type CustomerQuery,
  type CustomerRecord,
  type DocumentRecord,
  type ExternalAccountQuery,
  type ExternalAccountRecord,
  type IdempotencyRecord,
  type InternalAccountQuery,
  type InternalAccountRecord,
  InvalidCursor,
  type JournalPage,
  type AccountPosting,
  type JournalEntry,
  type LedgerRejected,
  type PlatformConfigRecord,
  type QuoteRecord,
  type StablecoinOperationRecord,
  type StablecoinProviderAccountQuery,
  type StablecoinProviderAccountRecord,
  type StablecoinQuery,
  type StablecoinRecord,
  type TransactionQuery,
  type TransactionRecord,
  type PageResult,
  Store,
  StoreConflict,
  type StoredEvent,
  type TimeRange,
  type TimerOutcome,
  type TimerRecord,
  type UnitOfWork,
  type VerificationQuery,
  type VerificationRecord,
  type WalletRecord,
  type WalletRecordKind,
  type WalletRecordOf,
  type WebhookDeliveryRecord,
  type WebhookSigningKeyRecord
} from "../../ports/store.js"
import { millisOf } from "../cursor.js"
import { entryProblem, isInternalAccount, netByAccount, nextBalance } from "../ledger.js"
import { decodeJournalCursor, encodeJournalCursor } from "../journal-cursor.js"
import { asLevel, conflictIn, ledgerRejectedIn } from "../level.js"
import { makeMutex } from "./mutex.js"
import { MemoryTable } from "./table.js"

/** How many timer outcomes a platform keeps. */
const OUTCOME_HISTORY = 1000
/** Idempotency records are swept of expired ones when a platform holds more than this. */
const IDEMPOTENCY_SWEEP_AT = 10_000

const sentKey = (customerId: string | null, currency: string) => `${customerId ?? ""}\u0000${currency}`
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
  readonly internalAccounts: MemoryTable<InternalAccountRecord>
  /** Ledger account → balance. */
  readonly balances: Map<string, { readonly currency: string; balance: number }>
  readonly journal: Array<JournalEntry>
  /** Internal account → positions in `journal` of the entries that post to it, in order. */
  readonly journalByAccount: Map<string, Array<number>>
  readonly quotes: Map<string, QuoteRecord>
  readonly transactions: MemoryTable<TransactionRecord>
  readonly cards: MemoryTable<CardRecord>
  readonly cardTransactions: MemoryTable<CardTransactionRecord>
  readonly stablecoinProviderAccounts: MemoryTable<StablecoinProviderAccountRecord>
  readonly stablecoins: MemoryTable<StablecoinRecord>
  readonly stablecoinOperations: MemoryTable<StablecoinOperationRecord>
  config: PlatformConfigRecord | undefined
  clockOffset: number
  /** Webhook deliveries, in outbox order; `pendingDeliveries` the PENDING ones only. */
  readonly deliveries: MemoryTable<WebhookDeliveryRecord>
  readonly pendingDeliveries: MemoryTable<WebhookDeliveryRecord>
  webhookCursor: number | undefined
  /** Embedded-wallet records, keyed `kind\u0000id`. */
  readonly wallet: MemoryTable<WalletRecord>
  /** Agents and their actions by id; device codes and tokens keyed `kind\u0000id`. */
  readonly agents: MemoryTable<AgentRecord>
  readonly agentActions: MemoryTable<AgentActionRecord>
  readonly agentKeys: MemoryTable<AgentStoreRecord>
}

const walletKey = (kind: WalletRecordKind, id: string) => `${kind}\u0000${id}`

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
  internalAccounts: new MemoryTable<InternalAccountRecord>({
    id: (r) => r.id,
    createdAt: (r) => millisOf(r.createdAt),
    unique: [{ name: "internal_accounts_owner_currency", key: (r) => `${r.customerId ?? ""}\u0000${r.currency}` }]
  }),
  balances: new Map(),
  journal: [],
  journalByAccount: new Map(),
  quotes: new Map(),
  transactions: new MemoryTable<TransactionRecord>({
    id: (r) => r.transaction.id,
    createdAt: (r) => millisOf(r.transaction.createdAt),
    // The daily volume check reads one sender's outgoing payments in one currency.
    groups: [{
      name: "sent",
      key: (r) => r.transaction.type === "OUTGOING" ? sentKey(r.transaction.customerId ?? null, r.transaction.sentAmount.currency.code) : undefined
    }]
  }),
  cards: new MemoryTable<CardRecord>({
    id: (r) => r.card.id,
    createdAt: (r) => millisOf(r.card.createdAt),
    unique: [{ name: "cards_platform_card_id", key: (r) => r.card.platformCardId }],
    // The slot rule counts live cards, of the platform and of one cardholder.
    groups: [
      { name: "live", key: (r) => r.card.state === "CLOSED" ? undefined : "" },
      { name: "liveByHolder", key: (r) => r.card.state === "CLOSED" ? undefined : r.card.cardholderId }
    ]
  }),
  cardTransactions: new MemoryTable<CardTransactionRecord>({
    id: (r) => r.transaction.id,
    createdAt: (r) => millisOf(r.transaction.createdAt),
    groups: [{ name: "card", key: (r) => r.transaction.cardId }]
  }),
  stablecoinProviderAccounts: new MemoryTable<StablecoinProviderAccountRecord>({
    id: (r) => r.account.id,
    createdAt: (r) => millisOf(r.account.createdAt),
    unique: [{ name: "stablecoin_provider_accounts_account", key: (r) => `${r.account.provider}\u0000${r.account.providerAccountId}` }]
  }),
  stablecoins: new MemoryTable<StablecoinRecord>({
    id: (r) => r.stablecoin.id,
    createdAt: (r) => millisOf(r.stablecoin.createdAt),
    unique: [
      { name: "stablecoins_token_identifier", key: (r) => `${r.stablecoin.network}\u0000${r.stablecoin.networkTokenIdentifier}` },
      { name: "stablecoins_symbol", key: (r) => r.stablecoin.symbol }
    ]
  }),
  stablecoinOperations: new MemoryTable<StablecoinOperationRecord>({
    id: (r) => r.operation.id,
    createdAt: (r) => millisOf(r.operation.createdAt),
    groups: [{ name: "stablecoin", key: (r) => r.operation.stablecoinId }]
  }),
  config: undefined,
  clockOffset: 0,
  deliveries: new MemoryTable<WebhookDeliveryRecord>({ id: (r) => r.id, createdAt: (r) => r.seq }),
  pendingDeliveries: new MemoryTable<WebhookDeliveryRecord>({ id: (r) => r.id, createdAt: (r) => r.seq }),
  webhookCursor: undefined,
  wallet: new MemoryTable<WalletRecord>({
    id: (r) => walletKey(r.kind, r.id),
    createdAt: () => 0,
    groups: [
      { name: "account", key: (r) => walletKey(r.kind, r.accountId) },
      { name: "lookup", key: (r) => r.lookupKey === undefined ? undefined : walletKey(r.kind, r.lookupKey) }
    ]
  }),
  agents: new MemoryTable<AgentRecord>({ id: (r) => r.id, createdAt: (r) => millisOf(r.createdAt) }),
  agentActions: new MemoryTable<AgentActionRecord>({ id: (r) => r.id, createdAt: (r) => millisOf(r.createdAt) }),
  agentKeys: new MemoryTable<AgentStoreRecord>({
    id: (r) => agentKey(r.kind, r.id),
    createdAt: (r) => millisOf(r.createdAt),
    groups: [{ name: "agent", key: (r) => r.kind === "deviceCode" || r.kind === "token" ? agentKey(r.kind, r.agentId) : undefined }]
  })
})

/** The memory table of an agent record's kind. */
const agentTableOf = (t: Tenant, kind: AgentRecordKind): MemoryTable<AgentStoreRecord> =>
  (kind === "agent" ? t.agents : kind === "action" ? t.agentActions : t.agentKeys) as MemoryTable<AgentStoreRecord>
const agentRowId = (kind: AgentRecordKind, id: string) => kind === "agent" || kind === "action" ? id : agentKey(kind, id)

const agentKey = (kind: AgentRecordKind, id: string) => `${kind}\u0000${id}`

const matchesAgent = (q: AgentQuery) => (r: AgentRecord): boolean =>
  (q.customerId === undefined || r.customerId === q.customerId) &&
  (q.isPaused === undefined || r.isPaused === q.isPaused) &&
  (q.isConnected === undefined || r.isConnected === q.isConnected) &&
  inRange(millisOf(r.createdAt), q.created) &&
  inRange(millisOf(r.updatedAt), q.updated)

const matchesAgentAction = (q: AgentActionQuery) => (r: AgentActionRecord): boolean =>
  (q.agentId === undefined || r.agentId === q.agentId) &&
  (q.customerId === undefined || r.customerId === q.customerId) &&
  (q.status === undefined || r.action.status === q.status) &&
  inRange(millisOf(r.createdAt), q.created)

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

const matchesInternalAccount = (q: InternalAccountQuery) => (r: InternalAccountRecord): boolean =>
  (q.owner === "platform" ? r.customerId === null : r.customerId !== null) &&
  (q.customerId === undefined || r.customerId === q.customerId) &&
  (q.currency === undefined || r.currency === q.currency) &&
  (q.type === undefined || r.type === q.type)

const senderOf = (r: TransactionRecord): string | undefined => {
  const source = r.transaction.source
  if (source === undefined) return undefined
  return source.sourceType === "ACCOUNT" ? source.accountId : source.sourceType === "UMA_ADDRESS" ? source.umaAddress : undefined
}
const receiverOf = (r: TransactionRecord): string => {
  const d = r.transaction.destination
  return d.destinationType === "ACCOUNT" ? d.accountId : d.umaAddress
}

const matchesTransaction = (q: TransactionQuery) => (r: TransactionRecord): boolean => {
  const t = r.transaction
  return (q.customerId === undefined || t.customerId === q.customerId) &&
    (q.platformCustomerId === undefined || t.platformCustomerId === q.platformCustomerId) &&
    (q.accountIdentifier === undefined || senderOf(r) === q.accountIdentifier || receiverOf(r) === q.accountIdentifier) &&
    (q.senderAccountIdentifier === undefined || senderOf(r) === q.senderAccountIdentifier) &&
    (q.receiverAccountIdentifier === undefined || receiverOf(r) === q.receiverAccountIdentifier) &&
    (q.status === undefined || t.status === q.status) &&
    (q.type === undefined || t.type === q.type) &&
    (q.reference === undefined || t.reconciliationInstructions?.reference === q.reference) &&
    inRange(millisOf(t.createdAt), q.created)
}

const isUnfilteredTransactions = (q: TransactionQuery): boolean =>
  q.customerId === undefined && q.platformCustomerId === undefined && q.accountIdentifier === undefined &&
  q.senderAccountIdentifier === undefined && q.receiverAccountIdentifier === undefined && q.status === undefined &&
  q.type === undefined && q.reference === undefined && q.created === undefined

const matchesCard = (q: CardQuery) => (r: CardRecord): boolean =>
  (q.cardholderId === undefined || r.card.cardholderId === q.cardholderId) &&
  (q.accountId === undefined || r.card.fundingSources.includes(q.accountId)) &&
  (q.platformCardId === undefined || r.card.platformCardId === q.platformCardId) &&
  (q.state === undefined || r.card.state === q.state)

const isUnfilteredCards = (q: CardQuery): boolean =>
  q.cardholderId === undefined && q.accountId === undefined && q.platformCardId === undefined && q.state === undefined

const matchesCardTransaction = (q: CardTransactionQuery) => (r: CardTransactionRecord): boolean =>
  (q.cardId === undefined || r.transaction.cardId === q.cardId) &&
  (q.customerId === undefined || r.transaction.customerId === q.customerId) &&
  (q.platformCustomerId === undefined || r.transaction.platformCustomerId === q.platformCustomerId) &&
  (q.accountId === undefined || r.transaction.accountId === q.accountId) &&
  (q.direction === undefined || r.transaction.direction === q.direction) &&
  inRange(millisOf(r.transaction.createdAt), q.created)

const isUnfilteredCardTransactions = (q: CardTransactionQuery): boolean =>
  q.cardId === undefined && q.customerId === undefined && q.platformCustomerId === undefined && q.accountId === undefined &&
  q.direction === undefined && q.created === undefined

const matchesStablecoin = (q: StablecoinQuery) => (r: StablecoinRecord): boolean =>
  (q.issuanceStatus === undefined || r.stablecoin.issuanceStatus === q.issuanceStatus) &&
  (q.gridOperationsStatus === undefined || r.stablecoin.gridOperationsStatus === q.gridOperationsStatus) &&
  (q.provider === undefined || r.stablecoin.provider === q.provider)

const matchesProviderAccount = (q: StablecoinProviderAccountQuery) => (r: StablecoinProviderAccountRecord): boolean =>
  (q.provider === undefined || r.account.provider === q.provider) && (q.status === undefined || r.account.status === q.status)

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
  /** Signing keys live outside the tenants: a sandbox reset keeps them. */
  const webhookKeys = new Map<string, WebhookSigningKeyRecord>()
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
    const putDelivery = (r: WebhookDeliveryRecord): Effect.Effect<void> => {
      const t = tenantOf(r.platformId)
      return Effect.orDie(Effect.andThen(
        putRow(t.deliveries, r.id, r),
        r.status === "PENDING" ? putRow(t.pendingDeliveries, r.id, r) : removeRow(t.pendingDeliveries, r.id)
      ))
    }
    return {
      putCustomer: (r) => putRow(tenantOf(r.platformId).customers, r.customer.id, r),
      putExternalAccount: (r) => putRow(tenantOf(r.platformId).externalAccounts, r.account.id, r),
      deleteExternalAccount: (platformId, id) => removeRow(tenantOf(platformId).externalAccounts, id),
      putDocument: (r) => putRow(tenantOf(r.platformId).documents, r.document.id, r),
      deleteDocument: (platformId, id) => removeRow(tenantOf(platformId).documents, id),
      putBeneficialOwner: (r) => Effect.orDie(putRow(tenantOf(r.platformId).beneficialOwners, r.owner.id, r)),
      deleteBeneficialOwner: (platformId, id) => removeRow(tenantOf(platformId).beneficialOwners, id),
      putVerification: (r) => Effect.orDie(putRow(tenantOf(r.platformId).verifications, r.verification.id, r)),
      putInternalAccount: (r) => putRow(tenantOf(r.platformId).internalAccounts, r.id, r),
      post: (entry) =>
        Effect.suspend((): Effect.Effect<void, LedgerRejected> => {
          const problem = entryProblem(entry)
          if (problem !== undefined) return ledgerRejectedIn(problem)
          const t = tenantOf(entry.platformId)
          const currencyOf = new Map(entry.postings.map((p) => [p.account, p.currency]))
          const next = new Map<string, number>()
          for (const [account, amount] of netByAccount(entry)) {
            const balance = next.get(account) ?? t.balances.get(account)?.balance ?? 0
            const moved = nextBalance(account, balance, amount)
            if (typeof moved === "string") return ledgerRejectedIn(moved, account)
            next.set(account, moved)
          }
          for (const [account, balance] of next) {
            const row = t.balances.get(account)
            if (row === undefined) {
              t.balances.set(account, { currency: currencyOf.get(account) ?? "", balance })
              undo(() => void t.balances.delete(account))
            } else {
              const previous = row.balance
              row.balance = balance
              undo(() => void (row.balance = previous))
            }
          }
          const position = t.journal.push(entry) - 1
          undo(() => void t.journal.pop())
          for (const account of next.keys()) {
            if (!isInternalAccount(account)) continue
            let positions = t.journalByAccount.get(account)
            if (positions === undefined) t.journalByAccount.set(account, positions = [])
            positions.push(position)
            const list = positions
            undo(() => void list.pop())
          }
          return Effect.void
        }),
      putQuote: (r) =>
        Effect.sync(() => {
          const quotes = tenantOf(r.platformId).quotes
          const previous = quotes.get(r.quote.id)
          quotes.set(r.quote.id, r)
          undo(() => void (previous === undefined ? quotes.delete(r.quote.id) : quotes.set(r.quote.id, previous)))
        }),
      putTransaction: (r) => Effect.orDie(putRow(tenantOf(r.platformId).transactions, r.transaction.id, r)),
      putCard: (r) => putRow(tenantOf(r.platformId).cards, r.card.id, r),
      putCardTransaction: (r) => Effect.orDie(putRow(tenantOf(r.platformId).cardTransactions, r.transaction.id, r)),
      putStablecoinProviderAccount: (r) => putRow(tenantOf(r.platformId).stablecoinProviderAccounts, r.account.id, r),
      putStablecoin: (r) => putRow(tenantOf(r.platformId).stablecoins, r.stablecoin.id, r),
      putStablecoinOperation: (r) => Effect.orDie(putRow(tenantOf(r.platformId).stablecoinOperations, r.operation.id, r)),
      putPlatformConfig: (r) =>
        Effect.sync(() => {
          const t = tenantOf(r.platformId)
          const previous = t.config
          t.config = r
          undo(() => void (t.config = previous))
        }),
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
      putWebhookSigningKey: (record) =>
        Effect.sync(() => {
          const existing = webhookKeys.get(record.platformId)
          if (existing !== undefined) return existing
          webhookKeys.set(record.platformId, record)
          undo(() => void webhookKeys.delete(record.platformId))
          return record
        }),
      setWebhookCursor: (platformId, seq) =>
        Effect.sync(() => {
          const t = tenantOf(platformId)
          const previous = t.webhookCursor
          t.webhookCursor = seq
          undo(() => void (t.webhookCursor = previous))
        }),
      addWebhookDelivery: (r) =>
        Effect.suspend(() => tenantOf(r.platformId).deliveries.get(r.id) === undefined ? putDelivery(r) : Effect.void),
      putWebhookDelivery: (r) => putDelivery(r),
      putWalletRecord: (r) => Effect.orDie(putRow(tenantOf(r.platformId).wallet, walletKey(r.kind, r.id), r)),
      deleteWalletRecord: (platformId, kind, id) => removeRow(tenantOf(platformId).wallet, walletKey(kind, id)),
      putAgentRecord: (r) => Effect.orDie(putRow(agentTableOf(tenantOf(r.platformId), r.kind), agentRowId(r.kind, r.id), r)),
      deleteAgentRecord: (platformId, kind, id) => removeRow(agentTableOf(tenantOf(platformId), kind), agentRowId(kind, id)),
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
    internalAccounts: {
      get: (platformId, id) => read(() => peek(platformId)?.internalAccounts.get(id)),
      findByOwnerCurrency: (platformId, customerId, currency) =>
        read(() => peek(platformId)?.internalAccounts.byUnique("internal_accounts_owner_currency", `${customerId ?? ""}\u0000${currency}`)),
      list: (platformId, query, page) =>
        readPage(() => tenantOf(platformId).internalAccounts.page(matchesInternalAccount(query), page, false))
    },
    ledger: {
      balances: (platformId, accounts) =>
        read(() => {
          const balances = peek(platformId)?.balances
          return new Map(accounts.map((a) => [a, balances?.get(a)?.balance ?? 0]))
        }),
      allBalances: (platformId) =>
        read(() => [...(peek(platformId)?.balances ?? new Map<string, { currency: string; balance: number }>())].map(([account, b]) => ({ account, currency: b.currency, balance: b.balance }))),
      entries: (platformId, options) =>
        read(() => (peek(platformId)?.journal ?? []).filter((e) => options?.transactionId === undefined || e.transactionId === options.transactionId)),
      journalPage: (platformId, options) =>
        Effect.flatMap(read((): JournalPage | InvalidCursor => {
          const from = options.after === undefined ? 0 : decodeJournalCursor(options.after)
          if (typeof from !== "number") return from
          const journal = peek(platformId)?.journal ?? []
          const entries = journal.slice(from, from + options.limit)
          const end = from + entries.length
          return end < journal.length ? { entries, next: encodeJournalCursor(end) } : { entries }
        }), (r) => r instanceof InvalidCursor ? Effect.fail(r) : Effect.succeed(r)),
      accountJournal: (platformId, account, page) =>
        readPage(() => {
          const t = peek(platformId)
          const positions = t?.journalByAccount.get(account) ?? []
          // The cursor is the journal position of the last line given (exclusive), as on SQL.
          const after = page.cursor === undefined ? undefined : decodeJournalCursor(page.cursor)
          if (after instanceof InvalidCursor) return after
          const descending = page.descending === true
          const ordered = descending ? [...positions].reverse() : positions
          const rest = after === undefined ? ordered : ordered.filter((i) => descending ? i < after : i > after)
          const slice = rest.slice(0, page.limit)
          const data = slice.flatMap((i): Array<AccountPosting> => {
            const entry = t?.journal[i]
            if (entry === undefined) return []
            const amount = entry.postings.filter((p) => p.account === account).reduce((sum, p) => sum + p.amount, 0)
            const currency = entry.postings.find((p) => p.account === account)?.currency ?? ""
            return [{ entry, amount, currency }]
          })
          const last = slice[slice.length - 1]
          return rest.length > slice.length && last !== undefined
            ? { data, hasMore: true, nextCursor: encodeJournalCursor(last), totalCount: positions.length }
            : { data, hasMore: false, totalCount: positions.length }
        })
    },
    quotes: {
      get: (platformId, id) => read(() => peek(platformId)?.quotes.get(id))
    },
    transactions: {
      get: (platformId, id) => read(() => peek(platformId)?.transactions.get(id)),
      list: (platformId, query, page) =>
        readPage(() => tenantOf(platformId).transactions.page(matchesTransaction(query), page, isUnfilteredTransactions(query))),
      sentVolume: (platformId, query) =>
        read(() => {
          let sum = 0
          for (const r of peek(platformId)?.transactions.byGroup("sent", sentKey(query.customerId, query.currency)) ?? []) {
            const t = r.transaction
            if (t.type !== "OUTGOING" || t.status === "FAILED" || t.status === "EXPIRED") continue
            if (millisOf(t.createdAt) < query.since) continue
            sum += t.sentAmount.amount
          }
          return sum
        })
    },
    cards: {
      get: (platformId, id) => read(() => peek(platformId)?.cards.get(id)),
      findByPlatformCardId: (platformId, platformCardId) =>
        read(() => peek(platformId)?.cards.byUnique("cards_platform_card_id", platformCardId)),
      list: (platformId, query, page) =>
        readPage(() => tenantOf(platformId).cards.page(matchesCard(query), page, isUnfilteredCards(query))),
      countLive: (platformId, cardholderId) =>
        read(() => {
          const cards = peek(platformId)?.cards
          if (cards === undefined) return 0
          return cardholderId === undefined ? cards.groupSize("live", "") : cards.groupSize("liveByHolder", cardholderId)
        })
    },
    cardTransactions: {
      get: (platformId, id) => read(() => peek(platformId)?.cardTransactions.get(id)),
      list: (platformId, query, page) =>
        readPage(() => tenantOf(platformId).cardTransactions.page(matchesCardTransaction(query), page, isUnfilteredCardTransactions(query)))
    },
    platformConfigs: {
      get: (platformId) => read(() => peek(platformId)?.config)
    },
    stablecoins: {
      getProviderAccount: (platformId, id) => read(() => peek(platformId)?.stablecoinProviderAccounts.get(id)),
      findProviderAccount: (platformId, provider, providerAccountId) =>
        read(() => peek(platformId)?.stablecoinProviderAccounts.byUnique("stablecoin_provider_accounts_account", `${provider}\u0000${providerAccountId}`)),
      listProviderAccounts: (platformId, query, page) =>
        readPage(() =>
          tenantOf(platformId).stablecoinProviderAccounts.page(
            matchesProviderAccount(query),
            page,
            query.provider === undefined && query.status === undefined
          )
        ),
      get: (platformId, id) => read(() => peek(platformId)?.stablecoins.get(id)),
      findBySymbol: (platformId, symbol) => read(() => peek(platformId)?.stablecoins.byUnique("stablecoins_symbol", symbol)),
      findByTokenIdentifier: (platformId, network, tokenIdentifier) =>
        read(() => peek(platformId)?.stablecoins.byUnique("stablecoins_token_identifier", `${network}\u0000${tokenIdentifier}`)),
      list: (platformId, query, page) =>
        readPage(() =>
          tenantOf(platformId).stablecoins.page(
            matchesStablecoin(query),
            page,
            query.issuanceStatus === undefined && query.gridOperationsStatus === undefined && query.provider === undefined
          )
        ),
      getOperation: (platformId, id) => read(() => peek(platformId)?.stablecoinOperations.get(id)),
      listOperations: (platformId, query, page) =>
        readPage(() =>
          tenantOf(platformId).stablecoinOperations.page(
            (r) => r.operation.stablecoinId === query.stablecoinId && (query.operationType === undefined || r.operation.operationType === query.operationType),
            page,
            false
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
    webhooks: {
      signingKey: (platformId) => read(() => webhookKeys.get(platformId)),
      cursor: (platformId) => read(() => peek(platformId)?.webhookCursor),
      lastEventSeq: (platformId) => read(() => peek(platformId)?.events.at(-1)?.seq ?? 0),
      get: (platformId, id) => read(() => peek(platformId)?.deliveries.get(id)),
      list: (platformId, page) => readPage(() => tenantOf(platformId).deliveries.page(() => true, { ...page, descending: true }, true)),
      claimDue: (platformId, now, leaseNow) =>
        CurrentTx.use((tx) => {
          if (tx?.store !== identity) return Effect.die(new Error("webhooks.claimDue must run inside a unit of work"))
          const waiting = new Set<string>()
          for (const r of peek(platformId)?.pendingDeliveries.ordered() ?? []) {
            if (waiting.has(r.resourceId)) continue
            waiting.add(r.resourceId)
            if (r.nextAttemptAt <= now && (r.lease === undefined || r.lease.until <= leaseNow)) return Effect.succeed(r)
          }
          return Effect.succeed(undefined)
        })
    },
    wallets: {
      get: <K extends WalletRecordKind>(platformId: string, kind: K, id: string) =>
        read(() => peek(platformId)?.wallet.get(walletKey(kind, id)) as WalletRecordOf<K> | undefined),
      byAccount: <K extends WalletRecordKind>(platformId: string, kind: K, accountId: string) =>
        read(() => (peek(platformId)?.wallet.byGroup("account", walletKey(kind, accountId)) ?? []) as ReadonlyArray<WalletRecordOf<K>>),
      byLookup: <K extends WalletRecordKind>(platformId: string, kind: K, lookupKey: string) =>
        read(() => (peek(platformId)?.wallet.byGroup("lookup", walletKey(kind, lookupKey)) ?? []) as ReadonlyArray<WalletRecordOf<K>>)
    },
    agents: {
      get: <K extends AgentRecordKind>(platformId: string, kind: K, id: string) =>
        read(() => {
          const t = peek(platformId)
          return t === undefined ? undefined : agentTableOf(t, kind).get(agentRowId(kind, id)) as AgentStoreRecordOf<K> | undefined
        }),
      find: <K extends "deviceCode" | "token">(kind: K, id: string) =>
        read(() => {
          // Codes and tokens are found without a platform (redeem, the agent scheme).
          for (const t of tenants.values()) {
            const r = t.agentKeys.get(agentKey(kind, id))
            if (r !== undefined) return r as AgentStoreRecordOf<K>
          }
          return undefined
        }),
      ofAgent: <K extends "deviceCode" | "token">(platformId: string, kind: K, agentId: string) =>
        read(() => (peek(platformId)?.agentKeys.byGroup("agent", agentKey(kind, agentId)) ?? []) as ReadonlyArray<AgentStoreRecordOf<K>>),
      list: (platformId, query, page) => readPage(() => tenantOf(platformId).agents.page(matchesAgent(query), page, false)),
      listActions: (platformId, query, page) => readPage(() => tenantOf(platformId).agentActions.page(matchesAgentAction(query), page, false))
    },
    transact
  })
})

export const MemoryStoreLayer: Layer.Layer<Store> = Layer.effect(Store, makeMemoryStore)
