/**
 * The router's shortcut for routes with parameters (`ApiRouter.plain`,
 * src/http/reference-endpoints.ts), which the direct lane asks first, against the router
 * it stands in for: whatever it answers for a path is what the router answers (route and
 * parameters), for the lane's own routes over every endpoint of the API and the
 * reference, and it answers for the plain ids clients send.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { API_VERSION, PaymentsApi } from "../../src/http/api.js"
import { DIRECT_ROUTES } from "../../src/http/direct-routes.js"
import { makeApiRouter } from "../../src/http/reference-endpoints.js"

const base = `/${API_VERSION}`
const endpoints = Object.values(PaymentsApi.groups).flatMap((group) =>
  Object.values(group.endpoints).map((e) => ({ method: e.method, path: e.path }))
)
const laneKey = (method: string, path: string) => `${method} ${path}`
const lane = new Map(DIRECT_ROUTES.map((r) => [laneKey(r.method, r.path), r] as const))
const served = endpoints.map((e) => ({ method: e.method, path: e.path, value: lane.get(laneKey(e.method, e.path)) }))
type LaneRoute = (typeof DIRECT_ROUTES)[number]
const isLane = (value: LaneRoute | undefined): value is LaneRoute => value !== undefined
/** The router alone, and the lane's: the same routes, with the shortcut for the lane's. */
const router = makeApiRouter({ base, served })
const plain = makeApiRouter({ base, served, plainShapes: isLane }).plain

/** A segment as clients and fuzzers write them: ids, static names of the API in any case, odd characters, long ones. */
const segment = fc.oneof(
  fc.uuid().map((u) => `Quote:${u}`),
  fc.uuid().map((u) => `ExternalAccount:${u}`),
  fc.uuid().map((u) => `Quote%3A${u}`),
  fc.uuid().map((u) => `Quote%3a${u}`),
  fc.constantFrom("Quote%3", "Quote%", "a%2Fb", "a%25b", "%3A%3A", "Quote%3Ax%3B", "a%20b"),
  fc.constantFrom("execute", "EXECUTE", "quotes", "Quotes", "external-accounts", "customers", "platform", "internal-accounts", "transactions", "", "."),
  fc.stringMatching(/^[A-Za-z0-9:_\-.%;#?]{0,12}$/),
  fc.integer({ min: 95, max: 105 }).map((n) => "a".repeat(n))
)
const method = fc.constantFrom("GET", "POST", "PATCH", "DELETE", "HEAD")
/** Paths built on the shapes of the lane's routes, with every segment possibly replaced. */
const path = fc.tuple(fc.constantFrom(...DIRECT_ROUTES.map((r) => r.path)), fc.array(fc.tuple(fc.nat(), segment), { maxLength: 3 }), fc.boolean())
  .map(([p, replacements, trailing]) => {
    const parts = p.split("/")
    for (const [i, s] of replacements) {
      const at = 1 + (i % (parts.length - 1))
      parts[at] = parts[at]!.startsWith(":") || i % 5 === 0 ? s : parts[at]!
    }
    for (let i = 1; i < parts.length; i++) if (parts[i]!.startsWith(":")) parts[i] = i % 2 === 0 ? `Quote:${i}abc` : `Quote%3A${i}abc`
    return parts.join("/") + (trailing ? "/" : "")
  })

describe("the router's shortcut for plain paths", () => {
  it("answers only what the router answers, route and parameters", () => {
    let answered = 0
    fc.assert(
      fc.property(method, path, (m, p) => {
        const fast = plain(m, p)
        if (fast === undefined) return
        answered++
        const routed = router(m, p)
        expect(routed?._tag).toBe("Served")
        if (routed?._tag !== "Served") return
        expect(routed.value).toBe(fast.value)
        expect({ ...routed.params }).toStrictEqual(fast.params)
      }),
      { numRuns: 3000 }
    )
    expect(answered).toBeGreaterThan(30)
  })

  it("answers for an execute with a plain quote id, as the router does", () => {
    const id = "Quote:0196f3c2-aaaa-bbbb-cccc-123456789012"
    const p = `${base}/quotes/${id}/execute`
    const fast = plain("POST", p)
    expect(fast?.params).toStrictEqual({ quoteId: id })
    const routed = router("POST", p)
    expect(routed?._tag === "Served" ? routed.value : undefined).toBe(fast?.value)
    expect(plain("POST", `${base}/quotes/${"a".repeat(101)}/execute`)).toBeUndefined()
    // Clients encode the colon: the router decodes it in the parameter.
    expect(plain("POST", `${base}/quotes/${encodeURIComponent(id)}/execute`)?.params).toStrictEqual({ quoteId: id })
    const encoded = router("POST", `${base}/quotes/${encodeURIComponent(id)}/execute`)
    expect(encoded?._tag === "Served" ? { ...encoded.params } : undefined).toStrictEqual({ quoteId: id })
    expect(plain("POST", `${base}/quotes/Quote%2Fx/execute`)).toBeUndefined()
    expect(plain("POST", `${base}/Quotes/${id}/execute`)).toBeUndefined()
    expect(plain("GET", p)).toBeUndefined()
  })

  it("leaves to the router a segment some route has as a static name there, in any case", () => {
    // A route the API does not have: a static segment where the execute route has its parameter.
    const withStatic = [...served, { method: "POST", path: `${base}/quotes/preview/execute`, value: undefined }]
    const staticRouter = makeApiRouter({ base, served: withStatic })
    const staticPlain = makeApiRouter({ base, served: withStatic, plainShapes: isLane }).plain
    for (const name of ["preview", "PREVIEW", "Preview"]) {
      const p = `${base}/quotes/${name}/execute`
      expect(staticPlain("POST", p)).toBeUndefined()
      const routed = staticRouter("POST", p)
      expect(routed?._tag === "Served" ? routed.value : "other").toBeUndefined()
    }
    expect(staticPlain("POST", `${base}/quotes/previews/execute`)?.params).toStrictEqual({ quoteId: "previews" })
  })

  it("answers nothing for routes not chosen, and for no route without plainShapes", () => {
    const id = "Quote:0196f3c2-aaaa-bbbb-cccc-123456789012"
    expect(router.plain("POST", `${base}/quotes/${id}/execute`)).toBeUndefined()
    const none = makeApiRouter({ base, served, plainShapes: (_: LaneRoute | undefined): _ is LaneRoute => false })
    expect(none.plain("POST", `${base}/quotes/${id}/execute`)).toBeUndefined()
  })
})
