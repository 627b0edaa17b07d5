/**
 * Stored records trimmed of spare array capacity, in place. The memory store keeps every
 * record on the heap for as long as its row lives, and the request path builds a
 * record's small arrays (postings, a plan's steps and fees) with `push`, which gives an
 * array room for 17 elements at its first push: about 100 B of spare capacity each, six
 * to eight arrays per payment. `slice()` copies an array at its exact length.
 *
 * Only arrays are replaced, by copies holding the same elements; every object keeps its
 * identity, so what a record shares with another (a plan's parts, a currency) stays
 * shared, and a record reads back equal to what was written. Records are immutable values
 * once written (nothing mutates them later), and frozen objects are left alone.
 */
export const trimArrays = <A>(value: A): A => {
  trim(value, 0)
  return value
}

/** Records are shallow documents; the bound keeps a cycle (none expected) from recursing forever. */
const MAX_DEPTH = 8

const trim = (v: unknown, depth: number): void => {
  if (typeof v !== "object" || v === null || depth > MAX_DEPTH) return
  if (Array.isArray(v)) {
    for (const item of v) trim(item, depth + 1)
    return
  }
  const proto = Object.getPrototypeOf(v)
  if ((proto !== Object.prototype && proto !== null) || Object.isFrozen(v)) return
  const o = v as Record<string, unknown>
  for (const key of Object.keys(o)) {
    const field = o[key]
    if (Array.isArray(field)) {
      if (field.length > 0 && !Object.isFrozen(field)) o[key] = field.slice()
      for (const item of field) trim(item, depth + 1)
    } else trim(field, depth + 1)
  }
}
