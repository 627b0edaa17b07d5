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
import { Context, Effect, Fiber, Layer } from "effect"
import type { InvalidCursor, PageResult, UniqueConstraint } from "../../ports/shared.js"
import { Store, type UnitOfWork } from "../../ports/store.js"
import { conflictIn, CurrentLevel } from "../level.js"
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

/**
 * One level of a unit of work (the unit of work itself, or a nested one in it), as the
 * fiber's context holds it: `CurrentTx` and `CurrentLevel` (../level.ts) are both this
 * object, set by one context update.
 */
interface MemoryLevel {
  readonly store: object
  /** The unit of work's undo actions, oldest first (shared by its levels). */
  readonly log: Array<() => void>
  /** Set by a StoreConflict or LedgerRejected raised in this level (`conflictIn`). */
  conflicted: boolean
}

/** The level of a unit of work the current fiber runs in, per store instance. */
const CurrentTx = Context.Reference<MemoryLevel | undefined>("payments-service/adapters/memory/CurrentTx", {
  defaultValue: () => undefined
})

const rollbackTo = (log: Array<() => void>, mark: number) => {
  while (log.length > mark) log.pop()?.()
}

const swallowedConflict = () =>
  new Error("A StoreConflict was caught inside the unit of work that raised it, which then tried to commit; catch it outside store.transact")

export const makeMemoryStore = Effect.sync(() => {
  const identity = {}
  const tenants = new Map<string, Tenant>()
  const mutex = makeMutex()

  /**
   * The undo log of the unit of work in progress. Units of work run one at a time (the
   * mutex), so one log at a time is live, and one UnitOfWork object serves them all.
   */
  let activeLog: Array<() => void> | undefined
  const undo = (f: () => void) => {
    if (activeLog === undefined) throw new Error("a UnitOfWork was used outside its store.transact")
    activeLog.push(f)
  }

  /** Whether `fiber` runs in a unit of work of this store. */
  const inside = (fiber: Fiber.Fiber<unknown, unknown>) => fiber.getRef(CurrentTx)?.store === identity

  /**
   * A read: at once when no unit of work holds the lock or the fiber runs in the one that
   * does (two effect steps: this and its value), else in its turn (it never sees half of
   * a unit of work).
   */
  const read = <A>(f: () => A): Effect.Effect<A> =>
    Effect.withFiber((fiber) => !mutex.isLocked() || inside(fiber) ? Effect.succeed(f()) : mutex.exclusive(Effect.sync(f)))

  const writeRow = <R>(table: MemoryTable<R>, id: string, record: R): UniqueConstraint | undefined => {
    const constraint = table.conflictOf(record)
    if (constraint !== undefined) return constraint
    const previous = table.put(record)
    undo(previous === undefined ? () => void table.remove(id) : () => void table.put(previous))
    return undefined
  }

  const m: MemoryContext<Tenant> = {
    tenantOf: (platformId) => {
      let t = tenants.get(platformId)
      if (t === undefined) tenants.set(platformId, t = newTenant())
      return t
    },
    peek: (platformId) => tenants.get(platformId),
    tenants: () => tenants.values(),
    read,
    readPage: (f) =>
      Effect.withFiber((fiber) => !mutex.isLocked() || inside(fiber) ? pageEffect(f()) : Effect.flatMap(mutex.exclusive(Effect.sync(f)), pageEffect)),
    claim: (what, f) =>
      Effect.withFiber((fiber) => inside(fiber) ? Effect.succeed(f()) : Effect.die(new Error(`${what} must run inside a unit of work`))),
    undo,
    writeRow,
    putRow: <R>(table: MemoryTable<R>, id: string, record: R) =>
      Effect.suspend(() => {
        const constraint = writeRow(table, id, record)
        return constraint === undefined ? Effect.void : conflictIn(constraint)
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

  /**
   * A unit of work, or a level nested in one. Uncontended, the unit of work takes four
   * effect steps besides its own: the uninterruptible region in which it takes the lock and
   * sets its level in the fiber's context (one step, so no interruption can come between
   * taking the lock and the handler that gives it back), the handler's frame, the
   * interruptible work, and the handler's answer. The handler, run however the work ends
   * (success, failure, defect, interruption), restores the context, rolls back what a
   * failed level wrote, and at the top level clears the undo log and releases the lock. A
   * level that succeeds after a StoreConflict or LedgerRejected raised in it dies, rolled
   * back (../level.ts: every store refuses it).
   */
  const transact = <A, E, R>(work: (uow: UnitOfWork) => Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.uninterruptibleMask((restore) => {
      const fiber = Fiber.getCurrent()
      if (fiber === undefined) return Effect.die(new Error("store.transact evaluated outside a fiber"))
      const current = fiber.getRef(CurrentTx)
      if (current !== undefined && current.store === identity) return level(fiber, restore, work, current.log, false)
      if (mutex.tryLock()) return level(fiber, restore, work, [], true)
      return Effect.flatMap(restore(mutex.waitTurn), () => level(fiber, restore, work, [], true))
    })

  /** Runs `work` as a level whose writes go to `log` (the top level of a unit of work: the lock is held, and released here). */
  const level = <A, E, R>(
    fiber: Fiber.Fiber<unknown, unknown>,
    restore: <X, Y, Z>(effect: Effect.Effect<X, Y, Z>) => Effect.Effect<X, Y, Z>,
    work: (uow: UnitOfWork) => Effect.Effect<A, E, R>,
    log: Array<() => void>,
    top: boolean
  ): Effect.Effect<A, E, R> => {
    const mark = log.length
    const self: MemoryLevel = { store: identity, log, conflicted: false }
    const outer = fiber.context
    if (top) activeLog = log
    fiber.setContext(Context.add(Context.add(outer, CurrentTx, self), CurrentLevel, self))
    const end = (failed: boolean) => {
      fiber.setContext(outer)
      if (failed) rollbackTo(log, mark)
      if (top) {
        activeLog = undefined
        mutex.unlock()
      }
    }
    let body: Effect.Effect<A, E, R>
    try {
      body = work(uow)
    } catch (defect) {
      body = Effect.die(defect)
    }
    return Effect.matchCauseEffect(restore(body), {
      onSuccess: (a) => {
        if (self.conflicted) {
          end(true)
          return Effect.die(swallowedConflict())
        }
        end(false)
        return Effect.succeed(a)
      },
      onFailure: (cause) => {
        end(true)
        return Effect.failCause(cause)
      }
    })
  }

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
