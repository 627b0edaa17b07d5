import { flatString } from "./ids.js"
import { BoundedMemo } from "../../lib/bounded-memo.js"

/**
 * Stored records made compact, in place. The memory store keeps every record on the heap
 * for as long as its row lives, so what a record carries beyond its values costs for as
 * long as the row lives:
 *
 * - Spare array capacity. The request path builds a record's small arrays (postings, a
 *   plan's steps and fees) with `push`, which gives an array room for 17 elements at its
 *   first push: about 100 B of spare capacity each, six to eight arrays per payment.
 *   `slice()` copies an array at its exact length.
 * - Copies of strings the store holds already. A request decodes the ids it names
 *   (an account in a quote's body, a quote in an execute's path) into strings of their
 *   own, equal to the stored record's id: about 70 B each, several per payment. With a
 *   `canon` that finds the stored copy (undefined: none), a string field is replaced by it.
 * - Instants. A payment's records and events carry the same few ISO instants (its
 *   creation, settlement, expiry), each built anew and often as a rope (a V8 cons string
 *   of 32 B over the 40 B of text): every instant is replaced by one flat shared copy
 *   (`sharedInstant`).
 * - Copies of a currency. Each record's amounts carry a currency object (code, name,
 *   symbol, decimals) built for it; equal currencies are shared (`sharedCurrency`).
 *
 * Only arrays, string fields and currency objects are replaced, by equal values; every
 * other object keeps its identity, so what a record shares with another (a plan's parts)
 * stays shared, and a record reads back equal to what was written. Records are immutable
 * values once written (nothing mutates them later), and frozen objects are left alone.
 *
 * `previous`, the record this one replaces (itself made compact when it was written),
 * bounds the work of a rewrite: a field holding the very object the previous record held
 * there is compact already and is not walked again, and a string equal to the previous
 * one is replaced by it. A payment's records are rewritten several times (a status, a
 * timestamp); each rewrite walks only what changed.
 */
export const trimArrays = <A>(value: A, canon?: Canon, previous?: A): A => {
  trim(value, previous, 0, canon)
  return value
}

/** Recent instants, flat, shared (bounded: a miss only costs a copy). */
const instants = new BoundedMemo<string, string>(1024)
/** The last instant shared: a payment's records carry the same one several times in a row. */
let lastInstant = ""

/** Whether `s` is an ISO-8601 instant as the service writes them (`2026-11-27T09:34:26.831Z`). */
const isInstant = (s: string): boolean =>
  s.length === 24 && s.charCodeAt(10) === 84 && s.charCodeAt(23) === 90 && s.charCodeAt(4) === 45

/**
 * The shared flat copy of an ISO instant: a payment's records and events hold a few
 * instants many times over (several per record, one per event). Any other string is
 * returned as it is.
 */
export const sharedInstant = (s: string): string => {
  if (s === lastInstant) return lastInstant
  if (!isInstant(s)) return s
  let shared = instants.get(s)
  if (shared === undefined) {
    // Kept under the flat copy, not `s`: `s` may be a slice of a larger string (a request's body), which a key would keep alive.
    shared = flatString(s)
    instants.set(shared, shared)
  }
  lastInstant = shared
  return shared
}

/** Records are shallow documents; the bound keeps a cycle (none expected) from recursing forever. */
const MAX_DEPTH = 8

const isPlain = (v: object): boolean => {
  const proto = Object.getPrototypeOf(v)
  return (proto === Object.prototype || proto === null) && !Object.isFrozen(v)
}

/**
 * The objects `sharedCurrency` and `sharedReference` answer (their shared copies): a
 * record's field that holds one is compact already, found by identity. Cleared with them.
 */
let shared = new Set<object>()

/*
 * The shared currencies and references below are not `BoundedMemo`s (src/lib/bounded-memo.ts),
 * the one cache of the process that does not fit it: their entries are also members of
 * `shared` (the objects found compact by identity), so what they forget `shared` must
 * forget in the same step, all at once (`shared` is rebuilt from the currencies when the
 * references are dropped); a memo forgetting one entry at a time would leave `shared`
 * holding objects it no longer bounds. References are also several per key (by their
 * longest value), counted apart from the map's size.
 */

/** Distinct currencies shared at most (a bound on what odd input can make this keep). */
const SHARED_CURRENCIES_LIMIT = 4096
const currencies = new Map<string, object>()

/**
 * The shared copy of a currency object (exactly `code`, `name`, `symbol`, `decimals`, in
 * that order, as the API's Currency is built), or undefined for anything else.
 */
export const sharedCurrency = (v: object): object | undefined => shared.has(v) ? v : currencyOf(v, Object.keys(v))

/** `sharedCurrency` for an object not shared yet whose keys are `keys`. */
const currencyOf = (v: object, keys: ReadonlyArray<string>): object | undefined => {
  // The key list first (the caller has it): most objects of a record are no currency.
  if (keys.length !== 4 || keys[0] !== "code" || keys[1] !== "name" || keys[2] !== "symbol" || keys[3] !== "decimals") return undefined
  const c = v as Record<string, unknown>
  if (typeof c["decimals"] !== "number" || typeof c["code"] !== "string" || typeof c["name"] !== "string" || typeof c["symbol"] !== "string") {
    return undefined
  }
  const key = `${c["code"]}\u0000${c["name"]}\u0000${c["symbol"]}\u0000${c["decimals"]}`
  const found = currencies.get(key)
  if (found !== undefined) return found
  if (currencies.size < SHARED_CURRENCIES_LIMIT) {
    currencies.set(key, v)
    shared.add(v)
  }
  return v
}

/** Distinct references shared at most (bounded: a miss only keeps a copy). */
const SHARED_REFERENCES_LIMIT = 4096
/** By the reference's longest value (an id): the references that hold it, with their keys. */
let references = new Map<string, Array<{ readonly ref: Record<string, unknown>; readonly keys: ReadonlyArray<string> }>>()
let referenceCount = 0

/** Whether `c` (with keys `cKeys`) has exactly `keys`, in that order, with the values of `o`. */
const sameReference = (c: Record<string, unknown>, cKeys: ReadonlyArray<string>, o: Record<string, unknown>, keys: ReadonlyArray<string>): boolean => {
  if (cKeys.length !== keys.length) return false
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!
    if (cKeys[i] !== key || c[key] !== o[key]) return false
  }
  return true
}

/**
 * The shared copy of a small object of text fields only (two to four, every one a
 * string): a reference to an account or a party (`{ sourceType, accountId }`, `{ kind,
 * accountId }`, `{ account, currency }`), which every payment between the same accounts
 * repeats in its quote, its transaction and their plans; undefined for any other. Equal
 * means the same keys in the same order with equal values; amounts (numbers) are never
 * shared this way.
 */
export const sharedReference = (v: object): object | undefined => shared.has(v) ? v : referenceOf(v, Object.keys(v))

/** `sharedReference` for an object not shared yet whose keys are `keys`. */
const referenceOf = (v: object, keys: ReadonlyArray<string>): object | undefined => {
  const o = v as Record<string, unknown>
  const n = keys.length
  if (n < 2 || n > 4) return undefined
  let longest = ""
  for (let i = 0; i < n; i++) {
    const x = o[keys[i]!]
    if (typeof x !== "string") return undefined
    if (x.length > longest.length) longest = x
  }
  const candidates = references.get(longest)
  if (candidates !== undefined) {
    for (const c of candidates) if (sameReference(c.ref, c.keys, o, keys)) return c.ref
  }
  if (referenceCount >= SHARED_REFERENCES_LIMIT) {
    references = new Map()
    referenceCount = 0
    shared = new Set(currencies.values())
  }
  const entry = { ref: o, keys }
  const list = references.get(longest)
  if (list === undefined) references.set(longest, [entry])
  else list.push(entry)
  referenceCount++
  shared.add(o)
  return o
}

/** The stored copy of a string, if the store holds one (undefined: keep the string). */
type Canon = (s: string) => string | undefined

/** A string field's stored form: the shared instant, or `canon`'s copy; undefined to keep it. */
const canonical = (s: string, canon: Canon | undefined): string | undefined => {
  const c = s.charCodeAt(0)
  if (c >= 48 && c <= 57) return isInstant(s) ? sharedInstant(s) : undefined
  return canon === undefined ? undefined : canon(s)
}

const trim = (v: unknown, previous: unknown, depth: number, canon: Canon | undefined): void => {
  if (typeof v !== "object" || v === null || v === previous || depth > MAX_DEPTH) return
  if (Array.isArray(v)) {
    const before = Array.isArray(previous) ? previous : undefined
    for (let i = 0; i < v.length; i++) trim(v[i], before?.[i], depth + 1, canon)
    return
  }
  if (isPlain(v)) trimObject(v as Record<string, unknown>, Object.keys(v), previous, depth, canon)
}

/** `trim` of a plain object whose keys are `keys` (each object's key list is taken once, and serves the currency and reference checks too). */
const trimObject = (o: Record<string, unknown>, keys: ReadonlyArray<string>, previous: unknown, depth: number, canon: Canon | undefined): void => {
  const p = typeof previous === "object" && previous !== null && !Array.isArray(previous) ? previous as Record<string, unknown> : undefined
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k]!
    const field = o[key]
    if (typeof field === "string") {
      // Equal to the previous record's (mostly the very string, spread from it): kept as it is.
      if (p !== undefined && p[key] === field) continue
      const stored = canonical(field, canon)
      if (stored !== undefined) o[key] = stored
      continue
    }
    if (typeof field !== "object" || field === null) continue
    // The previous record's own object (compact since it was written), or a shared one: nothing to do.
    if ((p !== undefined && p[key] === field) || shared.has(field)) continue
    if (Array.isArray(field)) {
      if (field.length > 0 && !Object.isFrozen(field)) o[key] = field.slice()
      const was = p?.[key]
      const before = Array.isArray(was) ? was : undefined
      for (let i = 0; i < field.length; i++) trim(field[i], before?.[i], depth + 1, canon)
      continue
    }
    if (!isPlain(field)) continue
    const fieldKeys = Object.keys(field)
    const currency = currencyOf(field, fieldKeys)
    if (currency !== undefined) {
      o[key] = currency
      continue
    }
    if (depth + 1 <= MAX_DEPTH) trimObject(field as Record<string, unknown>, fieldKeys, p?.[key], depth + 1, canon)
    const reference = referenceOf(field, fieldKeys)
    if (reference !== undefined) o[key] = reference
  }
}
