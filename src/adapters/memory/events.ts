/** The outbox of events, in memory (see ./store.ts). */
import { Effect } from "effect"
import { type EventOf, makeEvent } from "../../domain/events.js"
import type { DomainEvent, EventWrites, StoredEvent } from "../../ports/events.js"
import { sharedInstant } from "./compact.js"
import type { MemoryArea, MemoryContext } from "./context.js"

type BalanceUpdated = EventOf<"INTERNAL_ACCOUNT.BALANCE_UPDATED">
type AccountData = BalanceUpdated["data"]

/**
 * An `INTERNAL_ACCOUNT.BALANCE_UPDATED` event kept as the account's earlier rendering
 * (`base`, the `data` of an earlier event of the same account) and the new amount: a
 * payment emits four of these, and each one's `data` is its account as rendered before
 * but for the amount of `balance` and `totalBalance` (one object in both). Stored so, an
 * event costs this object alone (56 B and its amount) instead of the event, its `data`
 * and its amount object (about 220 B). It is stored so only when rebuilding it gives
 * back exactly the event written (`compactBalance` checks every field), and `eventOf`
 * rebuilds it, its fields in the order written, whenever the outbox is read.
 */
class CompactBalance {
  constructor(
    readonly id: string,
    readonly platformId: string,
    readonly timestamp: string,
    readonly base: AccountData,
    readonly amount: number
  ) {}
}

/** What the outbox holds for one event: the event, or its compact form. */
export type OutboxItem = DomainEvent | CompactBalance

/** The event an outbox item stands for (a compact one rebuilt: the same fields, in the same order). */
export const eventOf = (item: OutboxItem): DomainEvent => {
  if (!(item instanceof CompactBalance)) return item
  const base = item.base
  const balance = { amount: item.amount, currency: base.balance.currency }
  const data: Record<string, unknown> = {}
  for (const key of Object.keys(base)) {
    data[key] = key === "balance" || key === "totalBalance" ? balance : (base as unknown as Record<string, unknown>)[key]
  }
  return makeEvent("INTERNAL_ACCOUNT.BALANCE_UPDATED", { data: data as unknown as AccountData, id: item.id, platformId: item.platformId, timestamp: item.timestamp })
}

/** Equal as JSON values, keys in the same order (a rendering of one is the rendering of the other); identical values at once. */
const sameValue = (a: unknown, b: unknown, depth: number): boolean => {
  if (a === b) return true
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null || depth > 8) return false
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) if (!sameValue(a[i], b[i], depth + 1)) return false
    return true
  }
  if (Object.getPrototypeOf(a) !== Object.prototype || Object.getPrototypeOf(b) !== Object.prototype) return false
  const ka = Object.keys(a)
  const kb = Object.keys(b)
  if (ka.length !== kb.length) return false
  for (let i = 0; i < ka.length; i++) {
    const k = ka[i]!
    if (k !== kb[i] || !sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], depth + 1)) return false
  }
  return true
}

/** An amount object: exactly `amount` (a number) then `currency`. */
const isAmount = (v: unknown): v is { readonly amount: number; readonly currency: unknown } => {
  if (typeof v !== "object" || v === null || Object.getPrototypeOf(v) !== Object.prototype) return false
  const keys = Object.keys(v)
  return keys.length === 2 && keys[0] === "amount" && keys[1] === "currency" && typeof (v as { amount: unknown }).amount === "number"
}

/** A base: an account's rendering (an earlier event's `data`) and its keys in order. */
interface Base {
  readonly data: AccountData
  readonly keys: ReadonlyArray<string>
}

/**
 * The compact form of a balance event whose `data` is its base's but for the amount of
 * `balance` and `totalBalance` (one object in both, in `data` as in the base); undefined
 * for any other.
 */
const compactBalance = (event: BalanceUpdated, base: Base): CompactBalance | undefined => {
  const data = event.data as unknown as Record<string, unknown>
  const b = base.data as unknown as Record<string, unknown>
  const balance = data["balance"]
  if (data === b || !isAmount(balance) || data["totalBalance"] !== balance || b["totalBalance"] !== b["balance"]) return undefined
  if (!sameValue(balance.currency, (b["balance"] as { readonly currency: unknown }).currency, 0)) return undefined
  const keys = base.keys
  const own = Object.keys(data)
  if (own.length !== keys.length) return undefined
  for (let i = 0; i < own.length; i++) {
    const k = own[i]!
    if (k !== keys[i]) return undefined
    if (k !== "balance" && k !== "totalBalance" && !sameValue(data[k], b[k], 0)) return undefined
  }
  return new CompactBalance(event.id, event.platformId, sharedInstant(event.timestamp), base.data, balance.amount)
}

/** Accounts' last full renderings kept as bases (bounded: a miss only stores an event in full). */
const BASES_LIMIT = 4096

export interface EventTables {
  /**
   * The outbox in commit order: `events[i]` has seq `eventSeqs[i]` (increasing). Two
   * arrays rather than one of `{ seq, event }`: no object of 40 B per event; a read
   * builds the `StoredEvent`s it answers.
   */
  readonly events: Array<OutboxItem>
  readonly eventSeqs: Array<number>
}

export const eventTables = (): EventTables => ({ events: [], eventSeqs: [] })

/** The position of the first event with a seq above `after` (a binary search: seqs increase). */
const firstAfter = (seqs: ReadonlyArray<number>, after: number): number => {
  let lo = 0
  let hi = seqs.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (seqs[mid]! <= after) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** The outbox event with this `seq` and `id`, if the outbox still holds it. */
export const outboxEvent = (t: EventTables, seq: number, id: string): OutboxItem | undefined => {
  const i = firstAfter(t.eventSeqs, seq - 1)
  const event = t.events[i]
  return event !== undefined && t.eventSeqs[i] === seq && event.id === id ? event : undefined
}

/** The highest seq in the outbox (0 when it is empty). */
export const lastSeqOf = (t: EventTables): number => t.eventSeqs.at(-1) ?? 0

export const makeEventArea = (m: MemoryContext<EventTables>): MemoryArea<"events", EventWrites> => {
  /** One sequence for every platform: units of work run one at a time, so it is commit order. */
  let eventSeq = 0
  /** Per internal account, the `data` of its last balance event stored in full (the base of the next ones). */
  let bases = new Map<string, Base>()
  /** What the outbox keeps for `event`: compact when it can be (a balance event), else the event, its timestamp shared. */
  const itemOf = (event: DomainEvent): OutboxItem => {
    if (event.type === "INTERNAL_ACCOUNT.BALANCE_UPDATED") {
      const base = bases.get(event.data.id)
      const compact = base === undefined ? undefined : compactBalance(event, base)
      if (compact !== undefined) return compact
      if (bases.size >= BASES_LIMIT) bases = new Map()
      bases.set(event.data.id, { data: event.data, keys: Object.keys(event.data) })
    }
    // In place, as `trimArrays` does: an equal string, the copy the store shares.
    ;(event as { timestamp: string }).timestamp = sharedInstant(event.timestamp)
    return event
  }
  return {
    repositories: {
      events: {
        list: (platformId, options) =>
          m.read(() => {
            const t = m.peek(platformId)
            if (t === undefined) return []
            const limit = options?.limit ?? Number.POSITIVE_INFINITY
            // Events are in `seq` order: start at the first after `after` (a binary search,
            // not a walk over the whole outbox, which every delivery pass would repeat).
            const from = firstAfter(t.eventSeqs, options?.afterSeq ?? 0)
            const to = Math.min(t.events.length, from + limit)
            const out: Array<StoredEvent> = []
            for (let i = from; i < to; i++) out.push({ seq: t.eventSeqs[i]!, event: eventOf(t.events[i]!) })
            return out
          })
      }
    },
    writes: {
      emit: (event: DomainEvent) =>
        Effect.sync(() => {
          const t = m.tenantOf(event.platformId)
          t.events.push(itemOf(event))
          t.eventSeqs.push(++eventSeq)
          m.undo(() => {
            t.events.pop()
            t.eventSeqs.pop()
          })
        }),
      sweepEvents: (platformId, sweep) =>
        Effect.sync(() => {
          const t = m.peek(platformId)
          if (t === undefined) return 0
          const { events, eventSeqs } = t
          // The oldest `limit` events at or below upToSeq: the outbox is in seq order.
          let end = 0
          while (end < events.length && end < sweep.limit && eventSeqs[end]! <= sweep.upToSeq) end++
          const kept: Array<OutboxItem> = []
          const keptSeqs: Array<number> = []
          for (let i = 0; i < end; i++) {
            const e = events[i]!
            if (!(Date.parse(e.timestamp) < sweep.before)) {
              kept.push(e)
              keptSeqs.push(eventSeqs[i]!)
            }
          }
          const removed = end - kept.length
          if (removed === 0) return 0
          const prefix = events.splice(0, end, ...kept)
          const prefixSeqs = eventSeqs.splice(0, end, ...keptSeqs)
          m.undo(() => {
            events.splice(0, kept.length, ...prefix)
            eventSeqs.splice(0, keptSeqs.length, ...prefixSeqs)
          })
          return removed
        })
    }
  }
}
