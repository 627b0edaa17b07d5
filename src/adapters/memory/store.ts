/**
 * The in-memory Store: the default, fastest and nothing persists.
 *
 * It behaves as a one-connection database: units of work run one at a time under a
 * FIFO mutex, write in place and keep an undo log, so a unit of work reads its own
 * writes and a failed, dead or interrupted one is rolled back completely. Reads from
 * outside a unit of work take the same mutex, so nobody sees half of one. Unique
 * keys are checked against index maps when written (a `StoreConflict`, as a unique
 * index would raise in SQL); lists page on `(createdAt, id)` like the SQL adapter.
 *
 * Each area (./customers.ts, ./money.ts, ...) declares its tables per platform and
 * builds its repositories and writes on a `MemoryContext` (./context.ts); this module
 * composes them and owns the machinery: the platforms' tables, the mutex, the undo log.
 */
import { Context, Effect, Layer } from "effect"
import type { InvalidCursor, PageResult } from "../../ports/shared.js"
import { Store, type UnitOfWork } from "../../ports/store.js"
import { conflictIn, asLevel } from "../level.js"
import { type AgentTables, agentTables, makeAgentArea } from "./agents.js"
import { type CardTables, cardTables, makeCardArea } from "./cards.js"
import type { MemoryContext } from "./context.js"
import { type CustomerTables, customerTables, makeCustomerArea } from "./customers.js"
import { type EventTables, eventTables, makeEventArea } from "./events.js"
import { type IdempotencyTables, idempotencyTables, makeIdempotencyArea } from "./idempotency.js"
import { type InvitationTables, invitationTables, makeInvitationArea } from "./invitations.js"
import { type BulkJobTables, bulkJobTables, makeBulkJobArea } from "./bulk-jobs.js"
import { makeTokenArea, type TokenTables, tokenTables } from "./tokens.js"
import { type KycTables, kycTables, makeKycArea } from "./kyc.js"
import { makeMoneyArea, type MoneyTables, moneyTables } from "./money.js"
import { makeMutex } from "./mutex.js"
import { makeSnapshotArea } from "./snapshots.js"
import { makeStablecoinArea, type StablecoinTables, stablecoinTables } from "./stablecoins.js"
import type { MemoryTable } from "./table.js"
import { makeTimerArea, type TimerTables, timerTables } from "./timers.js"
import { makeWalletArea, type WalletTables, walletTables } from "./wallets.js"
import { makeWebhookArea, type WebhookTables, webhookTables } from "./webhooks.js"

/** One platform's tables: every area's. */
type Tenant =
  & CustomerTables
  & KycTables
  & MoneyTables
  & CardTables
  & StablecoinTables
  & EventTables
  & TimerTables
  & IdempotencyTables
  & WebhookTables
  & WalletTables
  & AgentTables
  & InvitationTables
  & BulkJobTables
  & TokenTables

const newTenant = (): Tenant => ({
  ...customerTables(),
  ...kycTables(),
  ...moneyTables(),
  ...cardTables(),
  ...stablecoinTables(),
  ...eventTables(),
  ...timerTables(),
  ...idempotencyTables(),
  ...webhookTables(),
  ...walletTables(),
  ...agentTables(),
  ...invitationTables(),
  ...bulkJobTables(),
  ...tokenTables()
})

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

  /**
   * The undo log of the unit of work in progress. Units of work run one at a time (the
   * mutex), so one log at a time is live, and one UnitOfWork object serves them all.
   */
  let activeLog: Array<() => void> | undefined
  const undo = (f: () => void) => {
    if (activeLog === undefined) throw new Error("a UnitOfWork was used outside its store.transact")
    activeLog.push(f)
  }

  const read = <A>(f: () => A): Effect.Effect<A> => CurrentTx.use((tx) => tx?.store === identity ? Effect.sync(f) : readUnlocked(f))

  const m: MemoryContext<Tenant> = {
    tenantOf: (platformId) => {
      let t = tenants.get(platformId)
      if (t === undefined) tenants.set(platformId, t = newTenant())
      return t
    },
    peek: (platformId) => tenants.get(platformId),
    tenants: () => tenants.values(),
    read,
    readPage: (f) => Effect.flatMap(read(f), pageEffect),
    claim: (what, f) =>
      CurrentTx.use((tx) => tx?.store === identity ? Effect.sync(f) : Effect.die(new Error(`${what} must run inside a unit of work`))),
    undo,
    putRow: <R>(table: MemoryTable<R>, id: string, record: R) =>
      Effect.suspend(() => {
        const constraint = table.conflictOf(record)
        if (constraint !== undefined) return conflictIn(constraint)
        const previous = table.put(record)
        undo(() => void (previous === undefined ? table.remove(id) : table.put(previous)))
        return Effect.void
      }),
    removeRow: (table, id) =>
      Effect.sync(() => {
        const previous = table.remove(id)
        if (previous !== undefined) undo(() => void table.put(previous))
      }),
    setField: (target, key, value) =>
      Effect.sync(() => {
        const previous = target[key]
        target[key] = value
        undo(() => void (target[key] = previous))
      })
  }

  const customers = makeCustomerArea(m)
  const kyc = makeKycArea(m)
  const money = makeMoneyArea(m)
  const cards = makeCardArea(m)
  const stablecoins = makeStablecoinArea(m)
  const events = makeEventArea(m)
  const timers = makeTimerArea(m)
  const idempotency = makeIdempotencyArea(m)
  const webhooks = makeWebhookArea(m)
  const wallets = makeWalletArea(m)
  const agents = makeAgentArea(m)
  const invitations = makeInvitationArea(m)
  const bulkJobs = makeBulkJobArea(m)
  const tokens = makeTokenArea(m)
  const snapshots = makeSnapshotArea(m, {
    fresh: newTenant,
    replace: (platformId, tenant) => {
      const previous = tenants.get(platformId)
      tenants.set(platformId, tenant)
      undo(() => void (previous === undefined ? tenants.delete(platformId) : tenants.set(platformId, previous)))
    }
  })

  const uow: UnitOfWork = {
    ...customers.writes,
    ...kyc.writes,
    ...money.writes,
    ...cards.writes,
    ...stablecoins.writes,
    ...events.writes,
    ...timers.writes,
    ...idempotency.writes,
    ...webhooks.writes,
    ...wallets.writes,
    ...agents.writes,
    ...invitations.writes,
    ...bulkJobs.writes,
    ...tokens.writes,
    ...snapshots.writes,
    resetPlatform: (platformId) =>
      Effect.sync(() => {
        const previous = tenants.get(platformId)
        if (previous === undefined) return
        tenants.delete(platformId)
        undo(() => void tenants.set(platformId, previous))
      })
  }

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
    ...customers.repositories,
    ...kyc.repositories,
    ...money.repositories,
    ...cards.repositories,
    ...stablecoins.repositories,
    ...events.repositories,
    ...timers.repositories,
    ...idempotency.repositories,
    ...webhooks.repositories,
    ...wallets.repositories,
    ...agents.repositories,
    ...invitations.repositories,
    ...bulkJobs.repositories,
    ...tokens.repositories,
    ...snapshots.repositories,
    transact
  })
})

export const MemoryStoreLayer: Layer.Layer<Store> = Layer.effect(Store, makeMemoryStore)
