/**
 * Every request field has its own documented maximum (the hardening issue, item 6): each
 * string of every body, query, path and header schema of every endpoint of PaymentsApi a
 * maximum length, each array a maximum count. Walks the schemas themselves, so an
 * endpoint added later is held to it too, and keeps docs/limits.md's per-field table in
 * step with them.
 *
 * The table is generated: after changing a request schema, run
 *   UPDATE_FIELD_LIMITS=1 npx vitest run test/domain/field-limits.test.ts
 */
import { readFileSync, writeFileSync } from "node:fs"
import { Exit, Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { describe, expect, it } from "vitest"
import { CustomerCreateRequest } from "../../src/domain/customer.js"
import { decodeRequest } from "../../src/domain/validation.js"
import { API_VERSION, PaymentsApi } from "../../src/http/api.js"
import {
  FIELD_LIMITS_BEGIN,
  FIELD_LIMITS_END,
  type Opaque,
  patternMaxLength,
  renderFieldLimits,
  requestFieldLimits
} from "../support/field-limits.js"

/**
 * Fields accepted as opaque JSON, each with the reason it has no schema of its own. The
 * general JSON-body bounds still hold them (text 4,096 characters, arrays 1,000 items,
 * nesting 32 levels).
 */
const OPAQUE: ReadonlyArray<Opaque> = [
  {
    schema: "BeneficiaryTrustConfirmRequest",
    field: "passkeyAssertion",
    reason: "the reference types the WebAuthn assertion as an open object (additionalProperties: true); the confirm " +
      "operation only checks that it is present (no passkey is enrolled for SCA), so only the general body bounds apply"
  },
  ...([
    ["PasskeyEnrollmentConfirmRequest", "credential"],
    ["ScaLoginCompleteRequest", "passkeyAssertion"],
    ["ScaAuthorization", "passkeyAssertion"]
  ] as const).map(([schema, field]) => ({
    schema,
    field,
    reason: "the reference types the WebAuthn credential / assertion as an open object (additionalProperties: true); " +
      "the SCA operations read its id and response fields as strings and verify them (src/crypto/webauthn.ts), so only the general body bounds apply"
  }))
]

const report = requestFieldLimits(PaymentsApi, { opaque: OPAQUE, pathPrefix: `/${API_VERSION}` })

const DOC = new URL("../../docs/limits.md", import.meta.url)

describe("every request field has a maximum", () => {
  it("no string without a maximum length, no array or record without a maximum count, on any endpoint", () => {
    const problems = report.unbounded.map((u) => `${u.schema} ${u.field || "(whole)"}: ${u.problem} [${u.endpoints.join(", ")}]`)
    expect(problems).toEqual([])
  })

  it("docs/limits.md lists every request field and its maximum, as the schemas say", () => {
    const table = renderFieldLimits(report)
    const doc = readFileSync(DOC, "utf8")
    const begin = doc.indexOf(FIELD_LIMITS_BEGIN)
    const end = doc.indexOf(FIELD_LIMITS_END)
    expect(begin, "docs/limits.md must carry the field-limits markers").toBeGreaterThanOrEqual(0)
    expect(end).toBeGreaterThan(begin)
    const current = doc.slice(begin + FIELD_LIMITS_BEGIN.length, end).trim()
    if (process.env["UPDATE_FIELD_LIMITS"] === "1" && current !== table) {
      writeFileSync(DOC, `${doc.slice(0, begin + FIELD_LIMITS_BEGIN.length)}\n${table}\n${doc.slice(end)}`)
      return
    }
    expect(current, "the table is stale: rerun with UPDATE_FIELD_LIMITS=1").toBe(table)
  })

  it("the opaque list names only fields that exist", () => {
    for (const o of OPAQUE) {
      expect(report.limits.some((l) => l.schema === o.schema && l.field === o.field), `${o.schema}.${o.field}`).toBe(true)
    }
  })
})

describe("the walk finds what has no maximum", () => {
  const Bounded = Schema.String.check(Schema.isMaxLength(10))
  const Api = HttpApi.make("probe").add(
    HttpApiGroup.make("probe").add(
      HttpApiEndpoint.post("create", "/things/:thingId", {
        params: { thingId: Schema.String },
        query: { q: Schema.optionalKey(Bounded), tag: Schema.optionalKey(Schema.String.check(Schema.isPattern(/^[a-z]+$/))) },
        payload: Schema.Struct({
          name: Bounded,
          note: Schema.optionalKey(Schema.NullOr(Schema.String)),
          tags: Schema.Array(Bounded),
          codes: Schema.Array(Schema.String.check(Schema.isPattern(/^[A-Z]{3}$/))).check(Schema.isMaxLength(5)),
          pair: Schema.Tuple([Bounded, Schema.String]),
          kind: Schema.Literals(["A", "B"]),
          extra: Schema.Record(Bounded, Bounded),
          blob: Schema.Unknown,
          nested: Schema.Struct({ inner: Schema.String }).annotate({ identifier: "Nested" })
        }).annotate({ identifier: "ThingCreateRequest" })
      })
    )
  )
  const probe = requestFieldLimits(Api, { opaque: [] })
  const found = probe.unbounded.map((u) => `${u.schema} ${u.field}: ${u.problem}`)

  it("reports each unbounded string, array, record and free-form value, by schema and path", () => {
    expect(found.sort()).toEqual([
      "(path parameters) thingId: a string without a maximum length",
      "Nested inner: a string without a maximum length",
      "POST /things/{thingId} (query) tag: a string without a maximum length",
      "ThingCreateRequest blob: free-form JSON (Unknown) without a maximum",
      "ThingCreateRequest extra: a record without a maximum count of properties",
      "ThingCreateRequest note: a string without a maximum length",
      "ThingCreateRequest pair.[1]: a string without a maximum length",
      "ThingCreateRequest tags: an array without a maximum count"
    ])
  })

  it("lists the bounded ones with their maximum", () => {
    const row = (schema: string, field: string) => probe.limits.find((l) => l.schema === schema && l.field === field)?.maximum
    expect(row("ThingCreateRequest", "name")).toBe("10")
    expect(row("ThingCreateRequest", "codes")).toBe("5 items")
    expect(row("ThingCreateRequest", "codes[]")).toBe("3 (pattern)")
    expect(row("ThingCreateRequest", "nested")).toBe("→ `Nested`")
    expect(row("ThingCreateRequest", "kind")).toBeUndefined()
  })
})

describe("a field past its own maximum is a 400 naming it", () => {
  const decode = decodeRequest(CustomerCreateRequest)
  const errorsOf = (body: unknown) => {
    const exit = decode(body)
    if (Exit.isSuccess(exit)) return []
    const reason = exit.cause.reasons[0]
    return reason?._tag === "Fail" ? (reason.error.details as { errors: ReadonlyArray<unknown> }).errors : []
  }

  it("text: constraint maxLength, at the limit accepted", () => {
    expect(errorsOf({ customerType: "INDIVIDUAL", fullName: "x".repeat(255) })).toEqual([])
    expect(errorsOf({ customerType: "INDIVIDUAL", fullName: "x".repeat(256) })).toEqual([
      { field: "fullName", constraint: "maxLength", message: "must be at most 255 characters" }
    ])
    expect(errorsOf({ customerType: "INDIVIDUAL", fullName: "" })).toEqual([
      { field: "fullName", constraint: "minLength", message: "must not be empty" }
    ])
  })

  it("arrays: constraint maxItems", () => {
    expect(errorsOf({ customerType: "INDIVIDUAL", currencies: Array.from({ length: 100 }, () => "USD") })).toEqual([])
    expect(errorsOf({ customerType: "INDIVIDUAL", currencies: Array.from({ length: 101 }, () => "USD") })).toEqual([
      { field: "currencies", constraint: "maxItems", message: "must have at most 100 items" }
    ])
  })

  it("nested fields are named by their dot path", () => {
    const address = { line1: "1 Main St", postalCode: "9".repeat(33), country: "US" }
    expect(errorsOf({ customerType: "INDIVIDUAL", address })).toEqual([
      { field: "address.postalCode", constraint: "maxLength", message: "must be at most 32 characters" }
    ])
  })
})

describe("patternMaxLength: when a pattern bounds a string's length", () => {
  const cases: ReadonlyArray<readonly [RegExp, number | undefined]> = [
    [/^[A-Z]{2}$/, 2],
    [/^[A-Z]{3,5}$/, 5],
    [/^\+[1-9]\d{1,14}$/, 16],
    [/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/, 35],
    [/^(sp|spark|sprt|sparkrt)1[02-9ac-hj-np-z]{20,200}$/, 208],
    [/^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/, 11],
    [/^[\x21-\x7e]{1,3}$/, 3],
    [/^a\{2}$/, 4], // an escaped brace is a literal
    [/^(?:ab|c)(?=x)$/, 2],
    // unbounded: repetition without a maximum, no anchors, alternation outside the anchors,
    // back-references, line anchors
    [/^[a-z]+$/, undefined],
    [/^a{2,}$/, undefined],
    [/[A-Z]{2}/, undefined],
    [/^[A-Z]{2}/, undefined],
    [/^a$|^b+$/, undefined],
    [/^(a)\1$/, undefined],
    [/^[A-Z]{2}$/m, undefined]
  ]
  for (const [regex, expected] of cases) {
    it(`${regex} → ${expected ?? "unbounded"}`, () => {
      expect(patternMaxLength(regex.source, regex.flags)).toBe(expected)
    })
  }
})
