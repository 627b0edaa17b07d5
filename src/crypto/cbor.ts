/**
 * A strict CBOR (RFC 8949) decoder for what WebAuthn sends: attestation objects and
 * COSE keys. Deliberately narrow: definite lengths only, shortest-form heads, no
 * tags, no floats, integers within the safe range, map keys that are integers or
 * text and never repeated. Anything else is refused rather than guessed at, so one
 * byte string has one meaning.
 */

export type CborValue = number | string | boolean | null | undefined | Uint8Array | readonly CborValue[] | CborMap
export type CborMap = ReadonlyMap<number | string, CborValue>

export type CborResult =
  | { readonly ok: true; readonly value: CborValue; readonly end: number }
  | { readonly ok: false; readonly problem: string }

const MAX_DEPTH = 16
const utf8 = new TextDecoder("utf-8", { fatal: true })

class CborError extends Error {}

const fail = (problem: string): never => {
  throw new CborError(problem)
}

interface Cursor {
  readonly bytes: Uint8Array
  at: number
}

const byteAt = (cursor: Cursor): number => {
  const value = cursor.bytes[cursor.at]
  if (value === undefined) return fail("truncated")
  cursor.at++
  return value
}

/** Reads the argument of a head, insisting on the shortest encoding. */
const readArgument = (cursor: Cursor, info: number): number => {
  if (info < 24) return info
  let size: number
  if (info === 24) size = 1
  else if (info === 25) size = 2
  else if (info === 26) size = 4
  else if (info === 27) size = 8
  else return fail(info === 31 ? "indefinite length" : "reserved additional information")
  let value = 0
  for (let i = 0; i < size; i++) value = value * 256 + byteAt(cursor)
  if (!Number.isSafeInteger(value)) fail("integer beyond 2^53")
  const minimum = size === 1 ? 24 : size === 2 ? 0x100 : size === 4 ? 0x10000 : 0x100000000
  if (value < minimum) fail("non-minimal integer encoding")
  return value
}

const take = (cursor: Cursor, length: number): Uint8Array => {
  if (cursor.at + length > cursor.bytes.length) fail("truncated")
  const out = cursor.bytes.slice(cursor.at, cursor.at + length)
  cursor.at += length
  return out
}

const readItem = (cursor: Cursor, depth: number): CborValue => {
  if (depth > MAX_DEPTH) fail("nesting too deep")
  const head = byteAt(cursor)
  const major = head >> 5
  const info = head & 0x1f
  switch (major) {
    case 0:
      return readArgument(cursor, info)
    case 1:
      return -1 - readArgument(cursor, info)
    case 2:
      return take(cursor, readArgument(cursor, info))
    case 3: {
      try {
        return utf8.decode(take(cursor, readArgument(cursor, info)))
      } catch (error) {
        if (error instanceof CborError) throw error
        return fail("invalid UTF-8 in text string")
      }
    }
    case 4: {
      const length = readArgument(cursor, info)
      const items: CborValue[] = []
      for (let i = 0; i < length; i++) items.push(readItem(cursor, depth + 1))
      return items
    }
    case 5: {
      const length = readArgument(cursor, info)
      const map = new Map<number | string, CborValue>()
      for (let i = 0; i < length; i++) {
        const key = readItem(cursor, depth + 1)
        if (typeof key !== "number" && typeof key !== "string") fail("map key is not an integer or text")
        if (typeof key === "number" || typeof key === "string") {
          if (map.has(key)) fail("duplicate map key")
          map.set(key, readItem(cursor, depth + 1))
        }
      }
      return map
    }
    case 6:
      return fail("tags are not supported")
    default: {
      if (info === 20) return false
      if (info === 21) return true
      if (info === 22) return null
      if (info === 23) return undefined
      return fail("unsupported simple value or float")
    }
  }
}

/** Decodes one item starting at `offset`; `end` is where the next item would begin. */
export const decodeCborPrefix = (bytes: Uint8Array, offset = 0): CborResult => {
  const cursor: Cursor = { bytes, at: offset }
  try {
    const value = readItem(cursor, 0)
    return { ok: true, value, end: cursor.at }
  } catch (error) {
    if (error instanceof CborError) return { ok: false, problem: error.message }
    throw error
  }
}

/** Decodes exactly one item that spans all of `bytes`. */
export const decodeCbor = (bytes: Uint8Array): CborResult => {
  const result = decodeCborPrefix(bytes)
  if (result.ok && result.end !== bytes.length) return { ok: false, problem: "trailing bytes" }
  return result
}

export const isCborMap = (value: CborValue): value is CborMap => value instanceof Map
