/**
 * A small bounded cache. Map iteration order is insertion order, so re-inserting on
 * every hit keeps the least recently used entry first and cheap to evict.
 *
 * Part of the package's exports (kept for those who use it). The service's own caches
 * use `BoundedMemo` (src/lib/bounded-memo.ts): a hit there costs one lookup, where this
 * one moves the entry on every hit.
 */
export class BoundedCache<K, V> {
  readonly #entries = new Map<K, V>()
  readonly #capacity: number

  constructor(capacity: number) {
    this.#capacity = Math.max(1, Math.floor(capacity))
  }

  get size(): number {
    return this.#entries.size
  }

  get(key: K): V | undefined {
    const value = this.#entries.get(key)
    if (value !== undefined) {
      this.#entries.delete(key)
      this.#entries.set(key, value)
    }
    return value
  }

  set(key: K, value: V): void {
    this.#entries.delete(key)
    this.#entries.set(key, value)
    if (this.#entries.size > this.#capacity) {
      const oldest = this.#entries.keys().next()
      if (oldest.done !== true) this.#entries.delete(oldest.value)
    }
  }

  clear(): void {
    this.#entries.clear()
  }
}
