/**
 * The per-field maximums of every request an HttpApi accepts, read from its schemas'
 * ASTs: the longest text each string takes, the most items each array takes. It backs
 * test/domain/field-limits.test.ts (no request field without a maximum, on every endpoint
 * present and future) and writes the per-field table of docs/limits.md.
 *
 * What counts as a maximum:
 * - a length check on the node (`Schema.isMaxLength`, `Schema.isBetweenLength`);
 * - for a string, a pattern whose every match is bounded: anchored with `^…$`, no `m`
 *   flag, no unbounded repetition (`*`, `+`, `{n,}`) and no back-reference;
 * - literals and enums (their longest value);
 * - a multipart file part (`format: "binary"`), bounded by the parser's `maxFileSize`.
 * A record (index signature) needs a maximum count of properties as well. Anything else
 * that can hold unbounded text (`Unknown`, `Any`, `object`) is unbounded unless listed
 * as opaque, with a reason.
 */
import { SchemaAST } from "effect"
import { HttpApi, type HttpApiGroup } from "effect/http-api"

/** One row of the table: a field of a schema and its maximum. */
export interface FieldLimit {
  readonly schema: string
  readonly field: string
  readonly maximum: string
}

/** A request field without a maximum. */
export interface Unbounded {
  readonly endpoints: ReadonlyArray<string>
  readonly schema: string
  readonly field: string
  readonly problem: string
}

/** A field accepted as opaque JSON, held only by the general JSON-body bounds. */
export interface Opaque {
  readonly schema: string
  readonly field: string
  readonly reason: string
}

/** Where a request carries its schemas, per endpoint. */
export interface EndpointSchemas {
  readonly endpoint: string
  readonly body: ReadonlyArray<string>
  readonly query: ReadonlyArray<string>
  readonly path: ReadonlyArray<string>
  readonly headers: ReadonlyArray<string>
}

export interface FieldLimitsReport {
  readonly endpoints: ReadonlyArray<EndpointSchemas>
  readonly limits: ReadonlyArray<FieldLimit>
  readonly unbounded: ReadonlyArray<Unbounded>
}

// ---------------------------------------------------------------- patterns

class Unsupported extends Error {}

/**
 * The longest string (in UTF-16 code units, as `String.length` counts) a pattern can
 * match in full, or undefined when its matches are unbounded or it is not anchored at
 * both ends (an unanchored pattern accepts any text around a match).
 */
export const patternMaxLength = (source: string, flags: string): number | undefined => {
  if (flags.includes("m") || flags.includes("v")) return undefined
  // Under `u`, one class or escape may match a whole code point: two code units.
  const unit = flags.includes("u") ? 2 : 1
  let i = 0
  type Kind = "^" | "$" | "other"
  interface Sequence {
    readonly max: number
    readonly first: Kind | undefined
    readonly last: Kind | undefined
  }

  const skipPast = (close: string) => {
    const end = source.indexOf(close, i)
    if (end < 0) throw new Unsupported(source)
    i = end + 1
  }

  const atom = (): { max: number; kind: Kind } => {
    const c = source[i]!
    switch (c) {
      case "^":
      case "$":
        i++
        return { max: 0, kind: c }
      case ".":
        i++
        return { max: unit, kind: "other" }
      case "[": {
        i++
        while (i < source.length && source[i] !== "]") i += source[i] === "\\" ? 2 : 1
        if (i >= source.length) throw new Unsupported(source)
        i++
        return { max: unit, kind: "other" }
      }
      case "(": {
        i++
        const lookaround = ["?=", "?!", "?<=", "?<!"].find((p) => source.startsWith(p, i))
        if (lookaround !== undefined) i += lookaround.length
        else if (source.startsWith("?:", i)) i += 2
        else if (source.startsWith("?<", i)) skipPast(">")
        else if (source[i] === "?") throw new Unsupported(source)
        const inner = alternatives()
        if (source[i] !== ")") throw new Unsupported(source)
        i++
        return { max: lookaround !== undefined ? 0 : Math.max(...inner.map((s) => s.max)), kind: "other" }
      }
      case "\\": {
        const d = source[i + 1]
        i += 2
        if (d === undefined) throw new Unsupported(source)
        if (/[1-9]/.test(d) || d === "k") return { max: Infinity, kind: "other" } // a back-reference
        if (d === "b" || d === "B") return { max: 0, kind: "other" }
        if (d === "x") i += 2
        else if (d === "c") i += 1
        else if (d === "u" && source[i] === "{") {
          skipPast("}")
          return { max: 2, kind: "other" }
        } else if (d === "u") i += 4
        else if ((d === "p" || d === "P") && source[i] === "{") skipPast("}")
        return { max: d === "x" || d === "c" || d === "u" ? 1 : unit, kind: "other" }
      }
      case "*":
      case "+":
      case "?":
        throw new Unsupported(source) // a quantifier with nothing to repeat
      default: // a literal character (a `{` that starts no quantifier included)
        i++
        return { max: 1, kind: "other" }
    }
  }

  /** How many times the preceding atom may repeat, at most. */
  const quantifier = (): number | undefined => {
    const c = source[i]
    let times: number | undefined
    if (c === "*" || c === "+" || c === "?") {
      i++
      times = c === "?" ? 1 : Infinity
    } else if (c === "{") {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i))
      if (m === null) return undefined // a literal brace
      i += m[0].length
      times = m[2] === undefined ? Number(m[1]) : m[3] === "" ? Infinity : Number(m[3])
    }
    if (times !== undefined && source[i] === "?") i++ // lazy
    return times
  }

  const sequence = (): Sequence => {
    let max = 0
    let first: Kind | undefined
    let last: Kind | undefined
    while (i < source.length && source[i] !== "|" && source[i] !== ")") {
      const a = atom()
      const times = quantifier()
      const kind: Kind = times === undefined ? a.kind : "other"
      max += times === undefined ? a.max : a.max === 0 ? 0 : a.max * times
      first ??= kind
      last = kind
    }
    return { max, first, last }
  }

  const alternatives = (): Array<Sequence> => {
    const out = [sequence()]
    while (source[i] === "|") {
      i++
      out.push(sequence())
    }
    return out
  }

  try {
    const top = alternatives()
    const only = top[0]
    if (i !== source.length || top.length !== 1 || only === undefined) return undefined
    if (only.first !== "^" || only.last !== "$" || !Number.isFinite(only.max)) return undefined
    return only.max
  } catch (e) {
    if (e instanceof Unsupported) return undefined
    throw e
  }
}

// ---------------------------------------------------------------- checks

interface Representation {
  readonly id?: unknown
  readonly payload?: Record<string, unknown>
}

const filtersOf = (checks: SchemaAST.Checks | undefined): Array<SchemaAST.Filter<unknown>> =>
  (checks ?? []).flatMap((c) => c._tag === "FilterGroup" ? filtersOf(c.checks) : [c])

const representationOf = (filter: SchemaAST.Filter<unknown>): Representation =>
  (filter.annotations?.["representation"] as Representation | undefined) ?? {}

const minOf = (values: ReadonlyArray<number>): number | undefined => values.length === 0 ? undefined : Math.min(...values)

/** The smallest maximum the node's length checks give (strings and arrays alike). */
const lengthMax = (ast: SchemaAST.AST): number | undefined =>
  minOf(filtersOf(ast.checks).flatMap((f) => {
    const r = representationOf(f)
    const p = r.payload ?? {}
    if (r.id === "effect/schema/isMaxLength" && typeof p["maxLength"] === "number") return [p["maxLength"]]
    if (r.id === "effect/schema/isBetweenLength" && typeof p["maximum"] === "number") return [p["maximum"]]
    return []
  }))

/** The smallest maximum the node's property-count checks give. */
const propertiesMax = (ast: SchemaAST.AST): number | undefined =>
  minOf(filtersOf(ast.checks).flatMap((f) => {
    const r = representationOf(f)
    const p = r.payload ?? {}
    if (r.id === "effect/schema/isMaxProperties" && typeof p["maxProperties"] === "number") return [p["maxProperties"]]
    if (r.id === "effect/schema/isBetweenProperties" && typeof p["maximum"] === "number") return [p["maximum"]]
    return []
  }))

/** The smallest maximum the node's patterns give (undefined when none bounds it). */
const patternMax = (ast: SchemaAST.AST): number | undefined =>
  minOf(filtersOf(ast.checks).flatMap((f) => {
    const r = representationOf(f)
    const p = r.payload ?? {}
    if (r.id !== "effect/schema/isPattern" || typeof p["source"] !== "string") return []
    const n = patternMaxLength(p["source"], typeof p["flags"] === "string" ? p["flags"] : "")
    return n === undefined ? [] : [n]
  }))

const fmt = (n: number): string => n.toLocaleString("en-US")

// ---------------------------------------------------------------- walking

interface Context {
  readonly endpoint: string
  readonly schema: string
  readonly path: string
  /** The multipart parser's file-part limit, when the body is a multipart form. */
  readonly maxFileBytes: number | undefined
}

const at = (ctx: Context, field: string): Context => ({ ...ctx, path: ctx.path === "" ? field : `${ctx.path}.${field}` })

class Collector {
  readonly limits = new Map<string, { schema: string; field: string; maxima: Array<string> }>()
  readonly unbounded = new Map<string, { endpoints: Array<string>; schema: string; field: string; problem: string }>()
  private readonly opaque: ReadonlyMap<string, Opaque>

  constructor(opaque: ReadonlyArray<Opaque>) {
    this.opaque = new Map(opaque.map((o) => [`${o.schema}\u0000${o.field}`, o]))
  }

  limit(ctx: Context, maximum: string): void {
    const key = `${ctx.schema}\u0000${ctx.path}`
    const row = this.limits.get(key) ?? { schema: ctx.schema, field: ctx.path, maxima: [] }
    if (!row.maxima.includes(maximum)) row.maxima.push(maximum)
    this.limits.set(key, row)
  }

  missing(ctx: Context, problem: string): void {
    const key = `${ctx.schema}\u0000${ctx.path}\u0000${problem}`
    const found = this.unbounded.get(key) ?? { endpoints: [], schema: ctx.schema, field: ctx.path, problem }
    if (!found.endpoints.includes(ctx.endpoint)) found.endpoints.push(ctx.endpoint)
    this.unbounded.set(key, found)
  }

  opaqueAt(ctx: Context): Opaque | undefined {
    return this.opaque.get(`${ctx.schema}\u0000${ctx.path}`)
  }

  walk(ast: SchemaAST.AST, ctx: Context, seen: ReadonlySet<SchemaAST.AST>): void {
    if (seen.has(ast)) return
    const opaque = this.opaqueAt(ctx)
    if (opaque !== undefined) {
      this.limit(ctx, "opaque JSON: the general body bounds")
      return
    }
    const next = new Set(seen).add(ast)
    switch (ast._tag) {
      case "Suspend":
        return this.walk(ast.thunk(), ctx, next)
      case "Declaration": {
        const to = ast.encoding?.[ast.encoding.length - 1]?.to
        if (to !== undefined) return this.walk(to, ctx, next)
        if (ast.typeParameters.length > 0) {
          for (const t of ast.typeParameters) this.walk(t, ctx, next)
          return
        }
        return this.missing(ctx, "a declaration whose size cannot be read")
      }
      case "String":
        return this.string(ast, ctx)
      case "TemplateLiteral": {
        const max = lengthMax(ast)
        return max === undefined ? this.missing(ctx, "a template literal without a maximum length") : this.limit(ctx, fmt(max))
      }
      case "Literal":
      case "Enum":
      case "UniqueSymbol":
      case "Null":
      case "Undefined":
      case "Void":
      case "Never":
      case "Boolean":
      case "Number":
      case "BigInt":
      case "Symbol":
        return
      case "Unknown":
      case "Any":
      case "ObjectKeyword":
        return this.missing(ctx, `free-form JSON (${ast._tag}) without a maximum`)
      case "Arrays": {
        if (ast.rest.length > 0) {
          const max = lengthMax(ast)
          if (max === undefined) this.missing(ctx, "an array without a maximum count")
          else this.limit(ctx, `${fmt(max)} items`)
        }
        ast.elements.forEach((e, n) => this.walk(e, at(ctx, `[${n}]`), next))
        for (const r of ast.rest) this.walk(r, { ...ctx, path: `${ctx.path}[]` }, next)
        return
      }
      case "Objects": {
        const id = SchemaAST.resolveIdentifier(ast)
        let inner = ctx
        if (id !== undefined && id !== ctx.schema) {
          if (ctx.path !== "") this.limit(ctx, `→ \`${id}\``)
          inner = { ...ctx, schema: id, path: "" }
        }
        for (const ps of ast.propertySignatures) this.walk(ps.type, at(inner, String(ps.name)), next)
        for (const is of ast.indexSignatures) {
          const record = { ...inner, path: inner.path === "" ? "*" : `${inner.path}.*` }
          const max = propertiesMax(ast)
          if (max === undefined) this.missing(inner, "a record without a maximum count of properties")
          else this.limit(inner, `${fmt(max)} properties`)
          this.walk(is.parameter, { ...inner, path: `${record.path} (key)` }, next)
          this.walk(is.type, record, next)
        }
        return
      }
      case "Union":
        for (const t of ast.types) this.walk(t, ctx, next)
        return
    }
  }

  private string(ast: SchemaAST.String, ctx: Context): void {
    const explicit = lengthMax(ast)
    const byPattern = patternMax(ast)
    if (explicit !== undefined && (byPattern === undefined || explicit <= byPattern)) return this.limit(ctx, fmt(explicit))
    if (byPattern !== undefined) return this.limit(ctx, `${fmt(byPattern)} (pattern)`)
    const format = SchemaAST.resolve(ast)?.["format"]
    if (format === "binary" && ctx.maxFileBytes !== undefined) {
      return this.limit(ctx, `a file part of at most ${fmt(ctx.maxFileBytes)} bytes (the multipart parser's limit)`)
    }
    this.missing(ctx, "a string without a maximum length")
  }
}

/** The identified schemas at the top of a request part (its members, for a union). */
const topNames = (ast: SchemaAST.AST, fallback: string): Array<string> => {
  switch (ast._tag) {
    case "Union":
      return [...new Set(ast.types.flatMap((t) => topNames(t, fallback)))]
    case "Suspend":
      return topNames(ast.thunk(), fallback)
    case "Declaration": {
      const to = ast.encoding?.[ast.encoding.length - 1]?.to
      return to === undefined ? [fallback] : topNames(to, fallback)
    }
    case "Null":
    case "Undefined":
      return []
    default:
      return [SchemaAST.resolveIdentifier(ast) ?? fallback]
  }
}

/** One cell for a field that several schemas give (a union's members). */
const mergeMaxima = (maxima: ReadonlyArray<string>): string => {
  const nested = maxima.filter((m) => m.startsWith("→ ")).map((m) => m.slice(2))
  const own = maxima.filter((m) => !m.startsWith("→ "))
  const parts = [...own]
  if (nested.length > 0) {
    parts.push(nested.length <= 4 ? `→ ${nested.join(" or ")}` : `→ one of ${nested.length} schemas, ${nested[0]} to ${nested[nested.length - 1]}`)
  }
  return parts.join(" or ")
}

/** Every request field of every endpoint of `api`, with its maximum or the lack of one. */
export const requestFieldLimits = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>,
  options: { readonly opaque: ReadonlyArray<Opaque>; readonly pathPrefix?: string }
): FieldLimitsReport => {
  const collector = new Collector(options.opaque)
  const endpoints: Array<EndpointSchemas> = []
  const prefix = options.pathPrefix ?? ""
  HttpApi.reflect(api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      const path = (endpoint.path.startsWith(prefix) ? endpoint.path.slice(prefix.length) : endpoint.path).replace(/:(\w+)/g, "{$1}")
      const label = `${endpoint.method} ${path}`
      const part = (schema: { readonly ast: SchemaAST.AST } | undefined, name: string, maxFileBytes?: number): Array<string> => {
        if (schema === undefined) return []
        // Path parameters and headers are listed once by name; a query belongs to its endpoint.
        const fallback = name === "headers" ? "(request headers)" : name === "path" ? "(path parameters)" : `${label} (${name})`
        collector.walk(schema.ast, { endpoint: label, schema: fallback, path: "", maxFileBytes }, new Set())
        return topNames(schema.ast, fallback)
      }
      const body: Array<string> = []
      for (const [contentType, entry] of endpoint.payload) {
        const encoding = entry.encoding
        if (encoding._tag === "Stream") {
          collector.missing({ endpoint: label, schema: `${label} (body)`, path: contentType, maxFileBytes: undefined }, "a streamed body")
          continue
        }
        const limits: { readonly maxFileSize?: unknown } | undefined = encoding._tag === "Multipart" ? encoding.limits : undefined
        const maxFile = limits?.maxFileSize
        const maxFileBytes = typeof maxFile === "number" || typeof maxFile === "bigint" ? Number(maxFile) : undefined
        for (const schema of entry.schemas) body.push(...part(schema, "body", maxFileBytes))
      }
      endpoints.push({
        endpoint: label,
        body: [...new Set(body)],
        query: part(endpoint.query, "query"),
        path: part(endpoint.params, "path"),
        headers: part(endpoint.headers, "headers")
      })
    }
  })
  return {
    endpoints,
    limits: [...collector.limits.values()].map((r) => ({
      schema: r.schema,
      field: r.field,
      maximum: mergeMaxima(r.maxima)
    })),
    unbounded: [...collector.unbounded.values()]
  }
}

// ---------------------------------------------------------------- the docs table

const code = (s: string) => `\`${s.replace(/\|/g, "\\|")}\``

/** The markdown docs/limits.md carries between its field-limits markers. */
export const renderFieldLimits = (report: FieldLimitsReport): string => {
  const lines: Array<string> = []
  lines.push("| endpoint | body | query | path | headers |", "|---|---|---|---|---|")
  for (const e of report.endpoints) {
    const list = (names: ReadonlyArray<string>) => names.length === 0 ? "—" : names.map(code).join(", ")
    lines.push(`| ${code(e.endpoint)} | ${list(e.body)} | ${list(e.query)} | ${list(e.path)} | ${list(e.headers)} |`)
  }
  lines.push("", "| schema | field | maximum |", "|---|---|---|")
  const bySchema = new Map<string, Array<FieldLimit>>()
  for (const row of report.limits) bySchema.set(row.schema, [...(bySchema.get(row.schema) ?? []), row])
  for (const [schema, rows] of bySchema) {
    rows.forEach((row, n) => lines.push(`| ${n === 0 ? code(schema) : ""} | ${code(row.field)} | ${row.maximum.replace(/\|/g, "\\|")} |`))
  }
  return lines.join("\n")
}

export const FIELD_LIMITS_BEGIN = "<!-- request-field-limits:begin (generated by test/domain/field-limits.test.ts) -->"
export const FIELD_LIMITS_END = "<!-- request-field-limits:end -->"
