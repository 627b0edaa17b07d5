/**
 * Every array query parameter of the HttpApi definition accepts both the repeated form
 * (the reference's `explode: true`) and the comma-joined form the vendor's SDK sends:
 * each is a `QueryList` (src/domain/common.ts). The walk is over the definition, so a new
 * array query parameter written any other way fails here.
 */
import { Schema, SchemaAST } from "effect"
import { describe, expect, it } from "vitest"
import { CurrencyCode, QUERY_LIST_ANNOTATION, QueryList } from "../../src/domain/common.js"
import { PaymentsApi } from "../../src/http/api.js"

/* eslint-disable @typescript-eslint/no-explicit-any -- endpoint internals are inspected generically */

/** Whether a query field's wire form can be an array (any branch of a union, any step of a transformation). */
const acceptsArray = (ast: SchemaAST.AST, depth = 0): boolean => {
  if (depth > 10) return false
  const encoded = SchemaAST.toEncoded(ast)
  const nodes = [ast, encoded]
  return nodes.some((n) =>
    n._tag === "Arrays" || (n._tag === "Union" && n.types.some((t) => acceptsArray(t, depth + 1)))
  )
}

const queryFields = Object.values(PaymentsApi.groups).flatMap((group: any) =>
  Object.values(group.endpoints).flatMap((e: any) => {
    const props: ReadonlyArray<any> = e.query?.ast?.propertySignatures ?? []
    return props.map((p) => ({ endpoint: `${String(e.method).toUpperCase()} ${String(e.path)}`, name: String(p.name), ast: p.type as SchemaAST.AST }))
  })
)

describe("array query parameters", () => {
  it("the definition has at least one (GET /exchange-rates' destinationCurrency), and every one is a QueryList", () => {
    const arrays = queryFields.filter((f) => acceptsArray(f.ast))
    expect(arrays.map((f) => `${f.endpoint} ${f.name}`)).toContain("GET /2025-10-13/exchange-rates destinationCurrency")
    for (const f of arrays) {
      expect(SchemaAST.resolve(f.ast)?.[QUERY_LIST_ANNOTATION], `${f.endpoint} ?${f.name} must be built with QueryList`).toBe(true)
    }
  })

  it("a QueryList decodes the repeated, the comma-joined and the mixed forms alike, and refuses a bad piece", () => {
    const decode = Schema.decodeUnknownSync(QueryList(CurrencyCode, 3))
    expect(decode("EUR")).toEqual(["EUR"])
    expect(decode(["EUR", "MXN"])).toEqual(["EUR", "MXN"])
    expect(decode("EUR,MXN")).toEqual(["EUR", "MXN"])
    expect(decode(["EUR,MXN", "USD"])).toEqual(["EUR", "MXN", "USD"])
    expect(() => decode("EUR,")).toThrow()
    expect(() => decode("EUR,usd")).toThrow()
    expect(() => decode("EUR,MXN,USD,GBP")).toThrow()
  })
})
