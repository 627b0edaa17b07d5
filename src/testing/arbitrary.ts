/**
 * fast-check arbitraries derived from the domain's Schemas, so a property test (ours
 * or a platform's) generates requests the API must accept. Covers the schema shapes
 * the domain uses: structs with optional keys, unions, literals, strings with
 * pattern/length checks, integers with bounds, booleans, arrays, records and nulls.
 * Values that a custom filter rejects are filtered out at the end with `Schema.is`.
 */
import { Schema, SchemaAST } from "effect"
import fc from "fast-check"

type Rep = { readonly id?: string; readonly payload?: Record<string, unknown> | null }

const repsOf = (ast: SchemaAST.AST): ReadonlyArray<Rep> =>
  (ast.checks ?? []).flatMap((c) => {
    const rep = (c.annotations as { readonly representation?: Rep } | undefined)?.representation
    return rep === undefined ? [] : [rep]
  })

const num = (v: unknown): number | undefined => (typeof v === "number" ? v : undefined)

const stringArb = (ast: SchemaAST.AST): fc.Arbitrary<string> => {
  let min = 0
  let max = Number.POSITIVE_INFINITY
  let pattern: RegExp | undefined
  for (const r of repsOf(ast)) {
    const p = r.payload ?? {}
    switch (r.id) {
      case "effect/schema/isBetweenLength":
        min = Math.max(min, num(p["minimum"]) ?? 0)
        max = Math.min(max, num(p["maximum"]) ?? max)
        break
      case "effect/schema/isMinLength":
        min = Math.max(min, num(p["minLength"]) ?? 0)
        break
      case "effect/schema/isMaxLength":
        max = Math.min(max, num(p["maxLength"]) ?? max)
        break
      case "effect/schema/isPattern":
        pattern = new RegExp(String(p["source"]), String(p["flags"] ?? ""))
        break
    }
  }
  if (max < min) max = min
  if (pattern === undefined) return fc.string({ minLength: min, maxLength: Number.isFinite(max) ? max : Math.max(min, 24) })
  {
    const re = pattern
    // fast-check cannot generate from case-insensitive patterns: generate from the
    // case-sensitive pattern (a subset of the matches) and keep the real test.
    const generator = new RegExp(re.source, re.flags.replace(/[^dgmsu]/g, ""))
    return matching(generator).filter((s) => s.length >= min && s.length <= max && re.test(s))
  }
}

/**
 * `fc.stringMatching` per pattern, made once: making one is costly (fast-check prepares
 * the string slices of every character class), and a schema repeats the same few
 * patterns many times (the external account union names about 60 patterns 1,900 times).
 * Arbitraries hold no state, so sharing one changes no generated value.
 */
const matchers = new Map<string, fc.Arbitrary<string>>()
const matching = (generator: RegExp): fc.Arbitrary<string> => {
  const key = generator.toString()
  let arb = matchers.get(key)
  if (arb === undefined) matchers.set(key, arb = fc.stringMatching(generator))
  return arb
}

const numberArb = (ast: SchemaAST.AST): fc.Arbitrary<number> => {
  let integer = false
  let min = -1e9
  let max = 1e9
  for (const r of repsOf(ast)) {
    const p = r.payload ?? {}
    if (r.id === "effect/schema/isInt") integer = true
    if (r.id === "effect/schema/isBetween") {
      min = num(p["minimum"]) ?? min
      max = num(p["maximum"]) ?? max
    }
  }
  return integer ? fc.integer({ min: Math.ceil(min), max: Math.floor(max) }) : fc.double({ min, max, noNaN: true })
}

const fromAst = (ast: SchemaAST.AST, depth: number): fc.Arbitrary<unknown> => {
  switch (ast._tag) {
    case "String":
      return stringArb(ast)
    case "Number":
      return numberArb(ast)
    case "Boolean":
      return fc.boolean()
    case "Null":
      return fc.constant(null)
    case "Undefined":
      return fc.constant(undefined)
    case "Literal":
      return fc.constant(ast.literal)
    case "Unknown":
    case "Any":
      return fc.jsonValue({ maxDepth: 1 })
    case "Union":
      return fc.oneof(...ast.types.map((t) => fromAst(t, depth)))
    case "Arrays": {
      const rest = ast.rest[0]
      if (ast.elements.length === 0 && rest !== undefined) {
        return fc.array(fromAst(rest, depth + 1), { maxLength: depth > 2 ? 0 : 3 })
      }
      return fc.tuple(...ast.elements.map((e) => fromAst(e, depth + 1)))
    }
    case "Objects": {
      if (ast.propertySignatures.length === 0 && ast.indexSignatures.length > 0) {
        return fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 })
      }
      const required: Record<string, fc.Arbitrary<unknown>> = {}
      const keys: Array<string> = []
      for (const ps of ast.propertySignatures) {
        const name = String(ps.name)
        required[name] = fromAst(ps.type, depth + 1)
        if (ps.type.context?.isOptional !== true) keys.push(name)
      }
      return fc.record(required, { requiredKeys: keys })
    }
    case "Declaration": {
      // Schema classes and similar wrappers: generate their encoded form.
      const encoded = SchemaAST.toEncoded(ast)
      return encoded === ast ? fc.constant(undefined) : fromAst(encoded, depth)
    }
    default: {
      const encoded = SchemaAST.toEncoded(ast)
      if (encoded !== ast) return fromAst(encoded, depth)
      throw new Error(`payments-service/testing: no arbitrary for schema node ${ast._tag}`)
    }
  }
}

/** Values of the schema's encoded (JSON) form that decode successfully. */
export const arbitraryFor = <A, I>(schema: Schema.Codec<A, I, never, never>): fc.Arbitrary<I> => {
  const decode = Schema.decodeUnknownExit(schema)
  // The generator follows the schema's structure; custom filters (such as "exactly
  // one Lightning target") are enforced here by decoding each candidate.
  const decodes = (v: unknown): v is I => decode(v)._tag === "Success"
  return fromAst(SchemaAST.toEncoded(schema.ast), 0).filter(decodes)
}

/**
 * Requests that are mostly valid but damaged: a field removed, replaced by a value
 * of another type, or the whole body replaced. The API must answer each with a 201
 * or a 400 in the error shape, never a 500.
 */
export const damaged = <A>(valid: fc.Arbitrary<A>): fc.Arbitrary<unknown> =>
  fc.oneof(
    valid,
    fc.tuple(valid, fc.nat(), fc.jsonValue({ maxDepth: 2 })).map(([v, i, junk]) => mutate(v, i, junk)),
    fc.jsonValue({ maxDepth: 3 })
  )

const mutate = (value: unknown, index: number, junk: unknown): unknown => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return junk
  const entries = Object.entries(value)
  if (entries.length === 0) return junk
  const [key, inner] = entries[index % entries.length]!
  const copy: Record<string, unknown> = { ...value }
  switch (index % 3) {
    case 0:
      delete copy[key]
      return copy
    case 1:
      copy[key] = junk
      return copy
    default:
      copy[key] = mutate(inner, Math.floor(index / 3), junk)
      return copy
  }
}
