/**
 * The conformance harness the suites share (onboarding, external-account, lookups,
 * wallets, webhooks): the reference OpenAPI file (test/fixtures/reference/openapi.yaml)
 * compiled with Ajv (2020-12, as OpenAPI 3.1 is), SPEC.md's differences applied to a copy explicitly by each suite, and a check that
 * takes the schema from the reference operation itself (method, path, status), so a
 * status code the reference does not declare for an operation fails too.
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js"
import { expect } from "vitest"
import { referenceDocument } from "../support/fixtures.js"

export type Json = Record<string, unknown>

interface Operation {
  readonly operationId?: string
  readonly responses?: Record<string, { content?: Record<string, { schema?: Json }> }>
  readonly requestBody?: { content?: Record<string, { schema?: Json }> }
}

export const reference = referenceDocument<{
  paths: Record<string, Record<string, Operation>>
  webhooks: Record<string, Record<string, Operation>>
  components: { schemas: Record<string, Json> }
}>()

/** `/customers/:customerId` and `/customers/{customerId}` both as `/customers/{}`. */
export const pathShape = (path: string) => path.replace(/:[A-Za-z]+/g, "{}").replace(/\{[^}]*\}/g, "{}")

/** `METHOD /path` with `{}` for every parameter: how operations are named across the suites. */
export const operationKey = (method: string, path: string) => `${method.toUpperCase()} ${pathShape(path)}`

/** The reference operation of `METHOD /path` (parameters named or not), if any. */
export const referenceOperation = (method: string, path: string): Operation | undefined => {
  for (const [p, ops] of Object.entries(reference.paths)) {
    if (pathShape(p) !== pathShape(path)) continue
    return ops[method.toLowerCase()]
  }
  return undefined
}

/** The reference's JSON schema name of a response, or undefined when it declares no body. */
export const responseSchemaName = (method: string, path: string, status: number): string | undefined => {
  const op = referenceOperation(method, path)
  if (op === undefined) throw new Error(`the reference has no ${method} ${path}`)
  const response = op.responses?.[String(status)]
  if (response === undefined) throw new Error(`the reference's ${method} ${path} declares no ${status} (it has ${Object.keys(op.responses ?? {}).join(", ")})`)
  const ref = response.content?.["application/json"]?.schema?.["$ref"]
  return typeof ref === "string" ? ref.replace("#/components/schemas/", "") : undefined
}

/** The properties the reference marks writeOnly / readOnly anywhere under a schema (following $refs). */
export const markedIn = (schema: string): { readonly writeOnly: ReadonlySet<string>; readonly readOnly: ReadonlySet<string> } => {
  const writeOnly = new Set<string>()
  const readOnly = new Set<string>()
  const seen = new Set<string>()
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk)
    if (typeof node !== "object" || node === null) return
    const ref = (node as { $ref?: unknown }).$ref
    if (typeof ref === "string") {
      const name = ref.replace("#/components/schemas/", "")
      if (!seen.has(name)) {
        seen.add(name)
        walk(reference.components.schemas[name])
      }
    }
    const properties = (node as { properties?: Record<string, { writeOnly?: boolean; readOnly?: boolean }> }).properties
    for (const [name, p] of Object.entries(properties ?? {})) {
      if (p?.writeOnly === true) writeOnly.add(name)
      if (p?.readOnly === true) readOnly.add(name)
    }
    Object.values(node).forEach(walk)
  }
  walk(reference.components.schemas[schema])
  return { writeOnly, readOnly }
}

/** Whether `body` carries property `name` at any depth. */
const carries = (body: unknown, name: string): boolean => {
  if (Array.isArray(body)) return body.some((b) => carries(b, name))
  if (typeof body !== "object" || body === null) return false
  return Object.entries(body).some(([k, v]) => k === name || carries(v, name))
}

/**
 * A validator over a copy of the reference's schemas with `differences` applied (each
 * suite's SPEC_DIFFERENCES), and a record of which operations it checked.
 */
export const conformance = (differences: (schemas: Record<string, Json>) => void) => {
  const schemas = structuredClone(reference.components.schemas)
  differences(schemas)
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false })
  ajv.addSchema({ $id: "ref", components: { schemas } })
  const raw = new Ajv2020({ strict: false, allErrors: true, validateFormats: false })
  raw.addSchema({ $id: "raw", components: { schemas: reference.components.schemas } })
  const compiled = new Map<string, ValidateFunction>()
  const validator = (name: string, untouched = false) => {
    const key = `${untouched ? "raw" : "ref"}:${name}`
    let v = compiled.get(key)
    if (v === undefined) {
      if (schemas[name] === undefined) throw new Error(`the reference has no schema ${name}`)
      v = (untouched ? raw : ajv).compile({ $ref: `${untouched ? "raw" : "ref"}#/components/schemas/${name}` })
      compiled.set(key, v)
    }
    return v
  }
  const problems = (v: ValidateFunction) => (v.errors ?? []).map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`).join("; ")

  /** Operation key -> how many success bodies (or declared empty answers) were checked. */
  const checked = new Map<string, number>()
  /** `METHOD /path STATUS` of every answer checked (to require both legs of a signed flow). */
  const statuses = new Set<string>()

  /** `body` against the named schema: valid, and no write-only property of it anywhere. */
  const schemaConforms = (schema: string, body: unknown, what: string) => {
    const validate = validator(schema)
    expect(validate(body), `${what} as ${schema}: ${problems(validate)}\n${JSON.stringify(body)}`).toBe(true)
    for (const name of markedIn(schema).writeOnly) expect(carries(body, name), `${what} answers write-only ${name}`).toBe(false)
  }

  /**
   * A success answer of `METHOD path` against the reference operation's schema for its
   * status; an answer the reference declares bodiless must be empty.
   */
  const conforms = (method: string, path: string, reply: { readonly status: number; readonly body: unknown }) => {
    const what = `${method} ${path} ${reply.status}`
    expect(reply.status >= 200 && reply.status < 300, `${what}: not a success: ${JSON.stringify(reply.body)}`).toBe(true)
    const schema = responseSchemaName(method, path, reply.status)
    if (schema === undefined) expect(reply.body, `${what}: the reference declares no body`).toBeUndefined()
    else schemaConforms(schema, reply.body, what)
    const key = operationKey(method, path)
    checked.set(key, (checked.get(key) ?? 0) + 1)
    statuses.add(`${key} ${reply.status}`)
    return reply.body
  }

  return { schemas, validator, problems, schemaConforms, conforms, checked, statuses }
}
