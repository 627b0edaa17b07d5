/**
 * Turns a Schema decoding failure into the API's field errors: one entry per invalid
 * field, with a dot path (`accountInfo.beneficiary.birthDate`), a machine-readable
 * `constraint` and a message a person can act on. Shared by the HTTP layer and by
 * embedders who decode requests themselves (`decodeRequest`).
 */
import { Exit, Schema, SchemaAST, SchemaIssue } from "effect"
import { Error400, type FieldError, invalidInput } from "./errors.js"
import { MAX_ARRAY_ITEMS, MAX_FIELD_ERRORS, MAX_JSON_DEPTH, MAX_TEXT_LENGTH } from "./limits.js"
export { MAX_ARRAY_ITEMS, MAX_FIELD_ERRORS, MAX_JSON_DEPTH, MAX_TEXT_LENGTH } from "./limits.js"

type Path = ReadonlyArray<PropertyKey>

const join = (path: Path): string =>
  path.length === 0 ? "(body)" : path.map((p, i) => typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`).join("").replace(/\.\[/g, "[")

const typeName = (ast: SchemaAST.AST): string => {
  switch (ast._tag) {
    case "String":
      return "a string"
    case "Number":
      return "a number"
    case "Boolean":
      return "a boolean"
    case "Objects":
      return ast.propertySignatures.length === 0 && ast.indexSignatures.length > 0 ? "an object" : Array.isArray(ast) ? "an array" : "an object"
    case "Arrays":
      return "an array"
    case "Literal":
      return JSON.stringify(ast.literal)
    case "Null":
      return "null"
    case "Union":
      return [...new Set(ast.types.map(typeName))].join(" or ")
    default:
      return ast._tag.toLowerCase()
  }
}

const literalsOf = (ast: SchemaAST.AST): ReadonlyArray<SchemaAST.LiteralValue> | undefined => {
  if (ast._tag === "Literal") return [ast.literal]
  if (ast._tag === "Union") {
    const out: Array<SchemaAST.LiteralValue> = []
    for (const t of ast.types) {
      if (t._tag !== "Literal") return undefined
      out.push(t.literal)
    }
    return out
  }
  return undefined
}

/** For a union of objects, the property whose literal values tell the members apart. */
const discriminatorOf = (ast: SchemaAST.Union): { name: string; values: ReadonlyArray<SchemaAST.LiteralValue> } | undefined => {
  const members = ast.types
  if (members.length === 0 || members.some((m) => m._tag !== "Objects")) return undefined
  const first = members[0] as SchemaAST.Objects
  for (const ps of first.propertySignatures) {
    const values: Array<SchemaAST.LiteralValue> = []
    let ok = true
    for (const m of members as ReadonlyArray<SchemaAST.Objects>) {
      const p = m.propertySignatures.find((q) => q.name === ps.name)
      const lits = p === undefined ? undefined : literalsOf(p.type)
      if (lits === undefined) {
        ok = false
        break
      }
      values.push(...lits)
    }
    if (ok && typeof ps.name === "string") return { name: ps.name, values }
  }
  return undefined
}

/** The longest echo of a rejected value in a message. */
const MAX_ECHO = 64

/**
 * A rejected value as a message quotes it: short text and numbers as they are (text cut
 * at 64 characters), anything else by its kind, so the answer stays small and nothing
 * deep is walked.
 */
export const describeValue = (value: unknown): string => {
  if (typeof value === "string") return JSON.stringify(value.length > MAX_ECHO ? `${value.slice(0, MAX_ECHO)}…` : value)
  if (typeof value === "number" || typeof value === "boolean" || value === null) return String(value)
  if (Array.isArray(value)) return "an array"
  return typeof value === "object" ? "an object" : typeof value
}

const discriminatorError = (
  path: Path,
  d: { name: string; values: ReadonlyArray<SchemaAST.LiteralValue> },
  value: unknown
): FieldError => ({
  field: join([...path, d.name]),
  constraint: value === undefined ? "required" : "enum",
  message: value === undefined
    ? `is required (one of ${d.values.map(String).join(", ")})`
    : `${describeValue(value)} is not supported; must be one of ${d.values.map(String).join(", ")}`
})

const constraintOf = (filter: SchemaAST.Filter<unknown>): string => {
  // A check may name its constraint itself (`maxItems` on an array's length check).
  const named = filter.annotations?.["constraint"]
  if (typeof named === "string") return named
  const id = (filter.annotations?.["representation"] as { id?: string } | undefined)?.id
  if (typeof id === "string") {
    const name = id.replace(/^effect\/schema\/is/, "")
    return name.charAt(0).toLowerCase() + name.slice(1)
  }
  const ident = filter.annotations?.identifier
  return typeof ident === "string" ? ident : "invalid"
}

const messageOf = (annotations: { readonly message?: unknown; readonly expected?: unknown } | undefined): string | undefined =>
  typeof annotations?.message === "string"
    ? annotations.message
    : typeof annotations?.expected === "string"
    ? `expected ${annotations.expected}`
    : undefined

const valueAt = (root: unknown, path: Path): unknown => {
  let v: unknown = root
  for (const k of path) {
    if (typeof v !== "object" || v === null) return undefined
    v = (v as Record<PropertyKey, unknown>)[k]
  }
  return v
}

const walk = (issue: SchemaIssue.Issue, path: Path, out: Array<FieldError>, root: unknown): void => {
  switch (issue._tag) {
    case "Pointer":
      return walk(issue.issue, [...path, ...issue.path], out, root)
    case "Composite":
      for (const i of issue.issues) walk(i, path, out, root)
      return
    case "Encoding":
      return walk(issue.issue, path, out, root)
    case "MissingKey":
      out.push({ field: join(path), constraint: "required", message: "is required" })
      return
    case "UnexpectedKey":
      out.push({ field: join(path), constraint: "unexpected", message: "is not an allowed property" })
      return
    case "InvalidType": {
      const input = SchemaIssue.hasInput(issue) ? issue.input : valueAt(root, path)
      if (issue.ast._tag === "Union" && typeof input === "object" && input !== null && !Array.isArray(input)) {
        const d = discriminatorOf(issue.ast)
        if (d !== undefined) {
          out.push(discriminatorError(path, d, (input as Record<string, unknown>)[d.name]))
          return
        }
      }
      const lits = literalsOf(issue.ast)
      out.push(
        lits !== undefined
          ? { field: join(path), constraint: "enum", message: `must be one of ${lits.map((l) => String(l)).join(", ")}` }
          : { field: join(path), constraint: "type", message: `must be ${typeName(issue.ast)}` }
      )
      return
    }
    case "Filter": {
      const inner = issue.issue
      const msg = messageOf(issue.filter.annotations) ??
        (inner._tag === "InvalidValue" ? messageOf(inner.annotations) : undefined)
      if (inner._tag !== "InvalidValue" && inner._tag !== "InvalidType" && msg === undefined) {
        return walk(inner, path, out, root)
      }
      const innerMsg = inner._tag === "InvalidValue" ? messageOf(inner.annotations) : undefined
      out.push({
        field: join(path),
        constraint: constraintOf(issue.filter),
        message: innerMsg ?? msg ?? "is invalid"
      })
      return
    }
    case "AnyOf": {
      if (issue.issues.length > 0) {
        // Several candidates failed: report the one that got furthest (most specific).
        if (issue.issues.length === 1) return walk(issue.issues[0]!, path, out, root)
        const lits = literalsOf(issue.ast)
        if (lits !== undefined) {
          out.push({ field: join(path), constraint: "enum", message: `must be one of ${lits.map(String).join(", ")}` })
          return
        }
        const attempts = issue.issues.map((i) => {
          const acc: Array<FieldError> = []
          walk(i, path, acc, root)
          return acc
        })
        attempts.sort((a, b) => a.length - b.length)
        out.push(...attempts[0]!)
        return
      }
      const input = SchemaIssue.hasInput(issue) ? issue.input : valueAt(root, path)
      const d = discriminatorOf(issue.ast)
      if (d !== undefined && typeof input === "object" && input !== null && !Array.isArray(input)) {
        out.push(discriminatorError(path, d, (input as Record<string, unknown>)[d.name]))
        return
      }
      const lits = literalsOf(issue.ast)
      out.push(
        lits !== undefined
          ? { field: join(path), constraint: "enum", message: `must be one of ${lits.map(String).join(", ")}` }
          : { field: join(path), constraint: "type", message: `must be ${typeName(issue.ast)}` }
      )
      return
    }
    case "OneOf":
      out.push({ field: join(path), constraint: "oneOf", message: "matches more than one allowed shape" })
      return
    case "InvalidValue":
      out.push({ field: join(path), constraint: "invalid", message: messageOf(issue.annotations) ?? "is invalid" })
      return
    case "Forbidden":
      out.push({ field: join(path), constraint: "forbidden", message: messageOf(issue.annotations) ?? "is not allowed" })
      return
  }
}

/** Every invalid field of a decoding failure, deduplicated, in input order. */
export const fieldErrors = (issue: SchemaIssue.Issue, input?: unknown): ReadonlyArray<FieldError> => {
  const out: Array<FieldError> = []
  walk(issue, [], out, input)
  const seen = new Set<string>()
  return out.filter((e) => {
    const k = `${e.field}\u0000${e.constraint}`
    if (seen.has(k)) return false
    seen.add(k)
    return true
  })
}

/** The 400 INVALID_INPUT a decoding failure becomes. */
export const invalidInputFromIssue = (issue: SchemaIssue.Issue, input?: unknown, what = "request body"): Error400 => {
  const errors = fieldErrors(issue, input)
  const first = errors[0]
  const reason = errors.length === 1 && first !== undefined
    ? `Invalid ${what}: ${first.field} ${first.message}`
    : `Invalid ${what}: ${errors.length} fields are invalid (see details.errors)`
  if (errors.length <= MAX_FIELD_ERRORS) return invalidInput(reason, errors)
  return new Error400({
    code: "INVALID_INPUT",
    reason: `${reason}; the first ${MAX_FIELD_ERRORS} are listed`,
    details: { errors: errors.slice(0, MAX_FIELD_ERRORS), omittedErrors: errors.length - MAX_FIELD_ERRORS }
  })
}

/**
 * Decodes untrusted input with a request schema, collecting every invalid field.
 * For embedders who call operations without HTTP.
 */
export const decodeRequest = <A, I>(schema: Schema.Codec<A, I, never, never>) => {
  const decode = Schema.decodeUnknownExit(schema, { errors: "all" })
  return (input: unknown): Exit.Exit<A, Error400> => {
    const exit = decode(input)
    if (Exit.isSuccess(exit)) return Exit.succeed(exit.value)
    const err = exit.cause.reasons.find((r) => r._tag === "Fail")
    if (err !== undefined && err._tag === "Fail" && Schema.isSchemaError(err.error)) {
      return Exit.fail(invalidInputFromIssue(err.error.issue, input))
    }
    return Exit.fail(invalidInput("Invalid request body"))
  }
}

/**
 * The first place a parsed JSON value breaks those bounds, as a field error; undefined
 * when it keeps them. Every body takes this walk: one path array pushed and popped, no
 * entries copied. `for…in` sees exactly a parsed object's own keys (JSON.parse makes
 * plain objects; an own `__proto__` key is a data property, read as one).
 */
export const jsonBoundsViolation = (value: unknown): FieldError | undefined => {
  const at = (path: ReadonlyArray<string | number>) => (path.length === 0 ? "(body)" : join(path))
  const walk = (v: unknown, path: Array<string | number>, depth: number): FieldError | undefined => {
    if (typeof v === "string") {
      return v.length > MAX_TEXT_LENGTH
        ? { field: at(path), constraint: "maxLength", message: `must be at most ${MAX_TEXT_LENGTH} characters` }
        : undefined
    }
    if (typeof v !== "object" || v === null) return undefined
    if (depth >= MAX_JSON_DEPTH) return { field: at(path), constraint: "maxDepth", message: `must not nest deeper than ${MAX_JSON_DEPTH} levels` }
    if (Array.isArray(v)) {
      if (v.length > MAX_ARRAY_ITEMS) return { field: at(path), constraint: "maxItems", message: `must have at most ${MAX_ARRAY_ITEMS} items` }
      for (let i = 0; i < v.length; i++) {
        path.push(i)
        const found = walk(v[i], path, depth + 1)
        path.pop()
        if (found !== undefined) return found
      }
      return undefined
    }
    const o = v as Readonly<Record<string, unknown>>
    for (const k in o) {
      if (k.length > MAX_TEXT_LENGTH) return { field: at(path), constraint: "maxLength", message: `has a key longer than ${MAX_TEXT_LENGTH} characters` }
      path.push(k)
      const found = walk(o[k], path, depth + 1)
      path.pop()
      if (found !== undefined) return found
    }
    return undefined
  }
  return walk(value, [], 0)
}

/** The 400 for a body past those bounds. */
export const jsonBoundsError = (violation: FieldError): Error400 =>
  invalidInput(`Invalid request body: ${violation.field} ${violation.message}`, [violation])
