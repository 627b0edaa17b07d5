/** The outbox of events, in memory (see ./store.ts). */
import { Effect } from "effect"
import { type EventOf, makeEvent } from "../../domain/events.js"
import type { DomainEvent, EventWrites, StoredEvent } from "../../ports/events.js"
import { sharedInstant } from "./compact.js"
import type { MemoryArea, MemoryContext } from "./context.js"
import { BoundedMemo } from "../../lib/bounded-memo.js"

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
   * The outbox in commit order, from `eventHead` on: `events[i]` has seq `eventSeqs[i]`
   * (increasing). Two arrays rather than one of `{ seq, event }`: no object of 40 B per
   * event; a read builds the `StoredEvent`s it answers. The slots before `eventHead` were
   * swept (`undefined`; their seqs stale): the sweep moves the head instead of removing
   * the front of the arrays, which would move every event behind it; the dead front is
   * cut off once it is over half the arrays (`compactOutbox`), each slot moved at most
   * once per time its length doubles.
   */
  readonly events: Array<OutboxItem | undefined>
  readonly eventSeqs: Array<number>
  eventHead: number
}

export const eventTables = (): EventTables => ({ events: [], eventSeqs: [], eventHead: 0 })

/**
 * Outbox slots the retention sweep has examined or moved, over the process (for
 * bounded-work tests, as `rowsExamined` for the tables): examined events, the events it
 * keeps and moves within its batch, and the slots a compaction moves.
 */
export const outboxSweepWork = { count: 0 }

/** The position of the first event at or after `from` with a seq above `after` (a binary search: seqs increase). */
const firstAfter = (seqs: ReadonlyArray<number>, from: number, after: number): number => {
  let lo = from
  let hi = seqs.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (seqs[mid]! <= after) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** The dead front smaller than this is never cut off (a compaction per few batches at most). */
const COMPACT_MIN = 4096

/**
 * Cuts off the swept front of the outbox once it is larger than what is left (amortized:
 * the slots moved are fewer than the ones swept since the last compaction). Returns the
 * undo (puts the dead front back: the positions an earlier undo of the unit of work
 * refers to), or undefined when there was nothing to cut.
 */
const compactOutbox = (t: EventTables): (() => void) | undefined => {
  const head = t.eventHead
  if (head < COMPACT_MIN || head * 2 < t.events.length) return undefined
  outboxSweepWork.count += t.events.length - head
  const seqs = t.eventSeqs.splice(0, head)
  t.events.splice(0, head)
  t.eventHead = 0
  return () => {
    const { events, eventSeqs } = t
    const live = events.length
    events.length = live + head
    eventSeqs.length = live + head
    for (let i = live - 1; i >= 0; i--) {
      events[i + head] = events[i]
      eventSeqs[i + head] = eventSeqs[i]!
    }
    for (let i = 0; i < head; i++) {
      events[i] = undefined
      eventSeqs[i] = seqs[i]!
    }
    t.eventHead = head
  }
}

/** The outbox event with this `seq` and `id`, if the outbox still holds it. */
export const outboxEvent = (t: EventTables, seq: number, id: string): OutboxItem | undefined => {
  const i = firstAfter(t.eventSeqs, t.eventHead, seq - 1)
  const event = t.events[i]
  return event !== undefined && t.eventSeqs[i] === seq && event.id === id ? event : undefined
}

/** The highest seq in the outbox (0 when it is empty). */
export const lastSeqOf = (t: EventTables): number => t.eventHead < t.eventSeqs.length ? t.eventSeqs.at(-1)! : 0

export const makeEventArea = (m: MemoryContext<EventTables>): MemoryArea<"events", EventWrites> => {
  /** One sequence for every platform: units of work run one at a time, so it is commit order. */
  let eventSeq = 0
  /** Per internal account, the `data` of its last balance event stored in full (the base of the next ones). */
  const bases = new BoundedMemo<string, Base>(BASES_LIMIT)
  /** What the outbox keeps for `event`: compact when it can be (a balance event), else the event, its timestamp shared. */
  const itemOf = (event: DomainEvent): OutboxItem => {
    if (event.type === "INTERNAL_ACCOUNT.BALANCE_UPDATED") {
      const base = bases.get(event.data.id)
      const compact = base === undefined ? undefined : compactBalance(event, base)
      if (compact !== undefined) return compact
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
            const from = firstAfter(t.eventSeqs, t.eventHead, options?.afterSeq ?? 0)
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
          const uncompact = compactOutbox(t)
          if (uncompact !== undefined) m.undo(uncompact)
          const { events, eventSeqs } = t
          const head = t.eventHead
          // The oldest `limit` events at or below upToSeq: the outbox is in seq order.
          let end = head
          while (end < events.length && end - head < sweep.limit && eventSeqs[end]! <= sweep.upToSeq) end++
          outboxSweepWork.count += end - head
          // Each event's timestamp parsed once: whether it goes, by position in the batch.
          const gone: Array<boolean> = []
          let removed = 0
          for (let i = head; i < end; i++) {
            const goes = Date.parse(events[i]!.timestamp) < sweep.before
            gone.push(goes)
            if (goes) removed++
          }
          if (removed === 0) return 0
          // The kept ones (not before the cut), in order, move to the end of the batch and
          // the head past the removed ones: work of the batch alone, whatever is behind it.
          const batch = events.slice(head, end)
          const batchSeqs = eventSeqs.slice(head, end)
          let to = end
          for (let i = end - 1; i >= head; i--) {
            if (gone[i - head]) continue
            to--
            events[to] = events[i]
            eventSeqs[to] = eventSeqs[i]!
          }
          outboxSweepWork.count += end - to
          for (let i = head; i < to; i++) events[i] = undefined
          t.eventHead = to
          m.undo(() => {
            for (let i = 0; i < batch.length; i++) {
              events[head + i] = batch[i]
              eventSeqs[head + i] = batchSeqs[i]!
            }
            t.eventHead = head
          })
          return removed
        })
    }
  }
}
