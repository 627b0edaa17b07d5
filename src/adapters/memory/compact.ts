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
 *   `canon` that finds the stored copy, every string field is replaced by it.
 * - Copies of a currency. Each record's amounts carry a currency object (code, name,
 *   symbol, decimals) built for it; equal currencies are shared (`sharedCurrency`).
 *
 * Only arrays, string fields and currency objects are replaced, by equal values; every
 * other object keeps its identity, so what a record shares with another (a plan's parts)
 * stays shared, and a record reads back equal to what was written. Records are immutable
 * values once written (nothing mutates them later), and frozen objects are left alone.
 */
export const trimArrays = <A>(value: A, canon?: (s: string) => string): A => {
  trim(value, 0, canon)
  return value
}

/** Records are shallow documents; the bound keeps a cycle (none expected) from recursing forever. */
const MAX_DEPTH = 8

const isPlain = (v: object): boolean => {
  const proto = Object.getPrototypeOf(v)
  return (proto === Object.prototype || proto === null) && !Object.isFrozen(v)
}

/** Distinct currencies shared at most (a bound on what odd input can make this keep). */
const SHARED_CURRENCIES_LIMIT = 4096
const currencies = new Map<string, object>()

/**
 * The shared copy of a currency object (exactly `code`, `name`, `symbol`, `decimals`, in
 * that order, as the API's Currency is built), or undefined for anything else.
 */
export const sharedCurrency = (v: object): object | undefined => {
  const c = v as Record<string, unknown>
  // The field checks first: most objects of a record are no currency, and need no key list.
  if (typeof c["decimals"] !== "number" || typeof c["code"] !== "string" || typeof c["name"] !== "string" || typeof c["symbol"] !== "string") {
    return undefined
  }
  const keys = Object.keys(v)
  if (keys.length !== 4 || keys[0] !== "code" || keys[1] !== "name" || keys[2] !== "symbol" || keys[3] !== "decimals") return undefined
  const key = `${c["code"]}\u0000${c["name"]}\u0000${c["symbol"]}\u0000${c["decimals"]}`
  const shared = currencies.get(key)
  if (shared !== undefined) return shared
  if (currencies.size < SHARED_CURRENCIES_LIMIT) currencies.set(key, v)
  return v
}

const trim = (v: unknown, depth: number, canon: ((s: string) => string) | undefined): void => {
  if (typeof v !== "object" || v === null || depth > MAX_DEPTH) return
  if (Array.isArray(v)) {
    for (const item of v) trim(item, depth + 1, canon)
    return
  }
  if (!isPlain(v)) return
  const o = v as Record<string, unknown>
  for (const key of Object.keys(o)) {
    const field = o[key]
    if (typeof field === "string") {
      if (canon !== undefined) o[key] = canon(field)
    } else if (Array.isArray(field)) {
      if (field.length > 0 && !Object.isFrozen(field)) o[key] = field.slice()
      for (const item of field) trim(item, depth + 1, canon)
    } else if (typeof field === "object" && field !== null) {
      const currency = isPlain(field) ? sharedCurrency(field) : undefined
      if (currency !== undefined) o[key] = currency
      else trim(field, depth + 1, canon)
    }
  }
}
