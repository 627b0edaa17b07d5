/** Minimal canonical CBOR encoder for building test authenticator output. */
export type CborIn = number | string | Uint8Array | boolean | null | readonly CborIn[] | Map<number | string, CborIn>

const head = (major: number, value: number): number[] => {
  if (value < 24) return [(major << 5) | value]
  if (value < 0x100) return [(major << 5) | 24, value]
  if (value < 0x10000) return [(major << 5) | 25, value >> 8, value & 0xff]
  return [(major << 5) | 26, (value >>> 24) & 0xff, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff]
}

export const encodeCbor = (value: CborIn): Uint8Array<ArrayBuffer> => {
  const out: number[] = []
  const write = (v: CborIn): void => {
    if (typeof v === "number") out.push(...(v >= 0 ? head(0, v) : head(1, -1 - v)))
    else if (typeof v === "string") {
      const bytes = new TextEncoder().encode(v)
      out.push(...head(3, bytes.length), ...bytes)
    } else if (v instanceof Uint8Array) out.push(...head(2, v.length), ...v)
    else if (typeof v === "boolean") out.push(v ? 0xf5 : 0xf4)
    else if (v === null) out.push(0xf6)
    else if (v instanceof Map) {
      out.push(...head(5, v.size))
      for (const [k, item] of v) {
        write(k)
        write(item)
      }
    } else {
      out.push(...head(4, v.length))
      for (const item of v) write(item)
    }
  }
  write(value)
  return Uint8Array.from(out)
}
