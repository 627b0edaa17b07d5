/**
 * What a 404 of an operation may carry, read from the reference (issue 25): the
 * operation's reference entry must list 404, and the code must be of the reference's
 * `Error404` enum, or the generic `NOT_FOUND` only where the operation's 404 is (also)
 * about a kind of resource the enum has no value for (docs/decisions.md, "Not-found codes").
 * test/conformance/not-found.test.ts walks every endpoint with it, and the every-endpoint
 * fuzz campaign (test/http/fuzz-every-endpoint.test.ts) holds every 404 it reaches to it.
 */
import { reference, referenceOperation } from "./harness.js"

/** The reference's Error404 `code` enum. */
export const ERROR_404_CODES: ReadonlyArray<string> = (reference.components.schemas["Error404"] as { properties: { code: { enum: ReadonlyArray<string> } } }).properties.code.enum

/** The reference's description of an operation's 404 ("Customer or account not found"), if it lists one. */
export const description404 = (method: string, path: string): string | undefined => {
  const r = referenceOperation(method, path)?.responses?.["404"] as { description?: string } | undefined
  return r === undefined ? undefined : r.description ?? ""
}

/**
 * Whether an operation's 404 is (also) about a kind of resource the reference's enum has
 * no code for: what is left of its description once the kinds the enum names are taken out.
 */
export const namesUncodedKind = (description: string): boolean => {
  const rest = description.toLowerCase()
    .replace(/stablecoin provider account( link)?/g, "")
    .replace(/(card )?transaction|customer|quote|token|invitation|job|uma address|the address is well-formed.*$/g, "")
  return /card|agent|action|device code|account|document|holder|owner|verification|credential|session|key|factor|reset|stablecoin|operation|sender|receiver/.test(rest)
}

/** The codes a 404 of `METHOD path` may carry. */
export const allowed404 = (method: string, path: string): ReadonlyArray<string> => {
  const d = description404(method, path)
  if (d === undefined) return []
  return namesUncodedKind(d) ? [...ERROR_404_CODES, "NOT_FOUND"] : ERROR_404_CODES
}

/**
 * What is wrong with a 404 answer of `METHOD path` (path as routed: `/cards/{id}` or
 * `/cards/Card:…`), or undefined when nothing is. The router's own 404 for a path outside
 * the API (`No such endpoint`) belongs to no operation.
 */
export const notFoundProblem = (method: string, path: string, body: unknown): string | undefined => {
  const b = (typeof body === "object" && body !== null ? body : {}) as { code?: unknown; reason?: unknown }
  const code = String(b.code)
  const reason = String(b.reason)
  if (reason.startsWith("No such endpoint")) return code === "NOT_FOUND" ? undefined : `the router's 404 answers ${code}`
  if (referenceOperation(method, path) === undefined) {
    // Ours (no reference operation): still a code of the enum, or the generic one.
    return code === "NOT_FOUND" || ERROR_404_CODES.includes(code) ? undefined : `${code}: ${reason}`
  }
  const codes = allowed404(method, path)
  if (codes.length === 0) return `answers 404 (${code}: ${reason}); the reference lists no 404 for it`
  if (!codes.includes(code)) return `answers 404 ${code} (${reason}); the reference's 404 is "${description404(method, path)}", which has a code of its enum`
  return undefined
}
