/**
 * A bounded memo: remembered values by key, at most `limit` of them, for the process's
 * small caches (a parsed key, a rendered body, a rate's exact form, a route matched):
 * each remembers what it can recompute, so forgetting only costs a recomputation.
 *
 * Eviction: the oldest entry first (first in, first out), one entry per insertion once
 * the memo is full. Why this policy:
 * - A hit is one `Map.get` and nothing else. A least-recently-used memo would delete and
 *   re-insert the entry on every hit; the callers are on the money path, where hits are
 *   the common case and cost is counted per payment.
 * - A full memo drops one entry, not all: clearing everything when full (what these
 *   caches each did before) makes every hot entry a miss at once, every `limit` misses.
 * - A `Map` iterates in insertion order, so the oldest entry is the first key: eviction
 *   is constant time, with no list of its own to keep.
 * A key written again keeps its place (its value replaced): the order is of first
 * insertion. `undefined` is never remembered (it means "not known"), so a compute that
 * answers it is run again next time.
 *
 * Imports nothing: every layer (rules and crypto included) may use it.
 */
export class BoundedMemo<K, V extends {} | null> {
  readonly #entries = new Map<K, V>()
  /** The most entries held at once. */
  readonly limit: number

  constructor(limit: number) {
    if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`BoundedMemo: the limit must be a positive integer, not ${limit}`)
    this.limit = limit
  }

  /** How many entries it holds now (never more than `limit`). */
  get size(): number {
    return this.#entries.size
  }

  /** The remembered value for `key`, if any. */
  get(key: K): V | undefined {
    return this.#entries.get(key)
  }

  /**
   * The remembered value for `key`, else `compute(key)`, remembered unless `undefined`.
   * Pass a function that does not close over the call's values (a module-level one): a
   * closure built per call costs an allocation even on a hit.
   */
  getOrCompute<W extends V | undefined>(key: K, compute: (key: K) => W): V | W {
    const known = this.#entries.get(key)
    if (known !== undefined) return known
    const value = compute(key)
    if (value !== undefined) this.#insert(key, value as V)
    return value
  }

  /** Remembers `value` for `key` (replacing what it held for it), forgetting the oldest entry when full. */
  set(key: K, value: V): void {
    if (this.#entries.size >= this.limit && !this.#entries.has(key)) this.#evictOldest()
    this.#entries.set(key, value)
  }

  /** Forgets `key`; whether it held it. */
  delete(key: K): boolean {
    return this.#entries.delete(key)
  }

  /** Forgets everything. */
  clear(): void {
    this.#entries.clear()
  }

  /** `set` for a key known to be absent (a miss just now). */
  #insert(key: K, value: V): void {
    if (this.#entries.size >= this.limit) this.#evictOldest()
    this.#entries.set(key, value)
  }

  #evictOldest(): void {
    const oldest = this.#entries.keys().next()
    if (oldest.done !== true) this.#entries.delete(oldest.value)
  }
}

/**
 * `compute` remembered in a `BoundedMemo` of `limit` entries: a function of the key alone
 * (same key, same value), with no other input.
 */
export const memoize = <K, V extends {} | null>(limit: number, compute: (key: K) => V): ((key: K) => V) => {
  const memo = new BoundedMemo<K, V>(limit)
  return (key) => memo.getOrCompute(key, compute)
}
