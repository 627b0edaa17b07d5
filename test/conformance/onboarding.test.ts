/**
 * Conformance: onboarding responses (customers, documents, beneficial owners,
 * verifications) validate against the reference OpenAPI file's schemas, with our one
 * deliberate difference applied explicitly (`OUR_DIFFERENCES`), and carry none of the
 * reference's `writeOnly` fields.
 */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { Ajv2020 } from "ajv/dist/2020.js"
import { afterAll, describe, expect, it } from "vitest"
import { parse } from "yaml"
import {
  business,
  completeBusinessInfo,
  completeIndividualFields,
  files,
  makeClient,
  makePlatform,
  ownerRequest
} from "../support/onboarding-client.js"

type Json = Record<string, unknown>

const reference = parse(readFileSync(fileURLToPath(new URL("../../../shared/reference/openapi.yaml", import.meta.url)), "utf8")) as {
  components: { schemas: Record<string, Json> }
}

/**
 * `idType` also takes the identity-document types (PASSPORT, DRIVERS_LICENSE,
 * NATIONAL_ID) besides the reference's tax-id kinds, so a document number can be
 * matched against the holder's identifier (docs/decisions.md).
 */
const OUR_DIFFERENCES = (s: Record<string, Json>) => {
  const idType = s["IdentificationType"] as { enum: Array<string> } | undefined
  if (idType === undefined) throw new Error("reference IdentificationType missing; update OUR_DIFFERENCES")
  s["IdentificationType"] = { ...idType, enum: [...idType.enum, "PASSPORT", "DRIVERS_LICENSE", "NATIONAL_ID"] }
}

const schemas = structuredClone(reference.components.schemas)
OUR_DIFFERENCES(schemas)
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false })
ajv.addSchema({ $id: "ref", components: { schemas } })
const validator = (name: string) => ajv.compile({ $ref: `ref#/components/schemas/${name}` })

/** The properties the reference marks writeOnly anywhere under a schema (following $refs). */
const writeOnlyNamesOf = (schema: string): ReadonlySet<string> => {
  const names = new Set<string>()
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
    const properties = (node as { properties?: Record<string, { writeOnly?: boolean }> }).properties
    for (const [name, p] of Object.entries(properties ?? {})) if (p?.writeOnly === true) names.add(name)
    Object.values(node).forEach(walk)
  }
  walk(reference.components.schemas[schema])
  return names
}

const conforms = (schema: string, body: unknown) => {
  const validate = validator(schema)
  const ok = validate(body)
  expect(ok, `${schema}: ${(validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`).join("; ")}`).toBe(true)
  const text = JSON.stringify(body)
  for (const name of writeOnlyNamesOf(schema)) expect(text.includes(`"${name}":`), `${schema} answers write-only ${name}`).toBe(false)
}

const p = makePlatform("conformance-onboarding")
const api = makeClient([p])
afterAll(() => api.dispose())

describe("onboarding responses against the reference", () => {
  it("the reference has write-only fields to check: a customer's identifier", () => {
    expect(writeOnlyNamesOf("CustomerOneOf").has("identifier")).toBe(true)
  })

  it("individual and business customers (create, get, list, update, delete)", async () => {
    const ind = await api.post(p, "/customers", { customerType: "INDIVIDUAL", ...completeIndividualFields, fullName: "Con Form" })
    expect(ind.status).toBe(201)
    conforms("CustomerOneOf", ind.body)
    const biz = await api.post(p, "/customers", business("REG-5", { businessInfo: { legalName: "Form Ltd", registrationNumber: "REG-5", ...completeBusinessInfo } }))
    conforms("CustomerOneOf", biz.body)
    conforms("CustomerOneOf", (await api.get(p, `/customers/${ind.body.id}`)).body)
    for (const c of (await api.get(p, "/customers")).body.data) conforms("CustomerOneOf", c)
    conforms("CustomerOneOf", (await api.patch(p, `/customers/${ind.body.id}`, { customerType: "INDIVIDUAL", email: "c@f.test" })).body)
    conforms("CustomerOneOf", (await api.del(p, `/customers/${biz.body.id}`)).body)
  })

  it("the deprecated end-user terms (GET /customers/agreements is SPEC.md's own, with no reference schema)", async () => {
    const terms = await api.get(p, "/customers/end-user-terms")
    expect(terms.status).toBe(200)
    conforms("EndUserTerms", terms.body)
  })

  it("documents, beneficial owners and verifications", async () => {
    const ind = (await api.post(p, "/customers", { customerType: "INDIVIDUAL", ...completeIndividualFields, fullName: "Doc Form" })).body
    const doc = await api.upload(p, { documentHolder: ind.id, documentType: "PASSPORT", country: "US" }, files.jpeg())
    expect(doc.status).toBe(201)
    conforms("Document", doc.body)
    for (const d of (await api.get(p, `/documents?documentHolder=${ind.id}`)).body.data) conforms("Document", d)
    const v = await api.post(p, "/verifications", { customerId: ind.id })
    conforms("Verification", v.body)
    conforms("Verification", (await api.get(p, `/verifications/${v.body.id}`)).body)
    const biz = (await api.post(p, "/customers", business("REG-6", { businessInfo: { legalName: "Own Ltd", registrationNumber: "REG-6", ...completeBusinessInfo } }))).body
    const owner = await api.post(p, "/beneficial-owners", ownerRequest(biz.id, "Lee"))
    expect(owner.status).toBe(201)
    conforms("BeneficialOwner", owner.body)
    for (const o of (await api.get(p, `/beneficial-owners?customerId=${biz.id}`)).body.data) conforms("BeneficialOwner", o)
    // An incomplete packet's verification, with its errors[], conforms too.
    const bare = (await api.post(p, "/customers", { customerType: "INDIVIDUAL", fullName: "Bare Form" })).body
    conforms("Verification", (await api.post(p, "/verifications", { customerId: bare.id })).body)
  })
})
