import { FindMyWay } from "effect/http"

/**
 * Every endpoint of the reference API (method and path, from the public OpenAPI
 * description, version 2025-10-13), plus the ones SPEC.md adds. A request to one the
 * server does not implement yet is answered 501 NOT_IMPLEMENTED rather than 404, so
 * a client can tell "not built here" from "no such endpoint".
 */
export const REFERENCE_ENDPOINTS: ReadonlyArray<readonly [string, string]> = [
  ["GET", "/config"],
  ["PATCH", "/config"],
  ["GET", "/exchange-rates"],
  ["GET", "/discoveries"],
  ["POST", "/customers"],
  ["GET", "/customers"],
  ["GET", "/customers/{customerId}"],
  ["PATCH", "/customers/{customerId}"],
  ["DELETE", "/customers/{customerId}"],
  ["GET", "/customers/end-user-terms"],
  ["POST", "/customers/{customerId}/kyc-link"],
  ["POST", "/customers/{customerId}/verify-email"],
  ["POST", "/customers/{customerId}/verify-email/confirm"],
  ["POST", "/customers/{customerId}/verify-phone"],
  ["POST", "/customers/{customerId}/verify-phone/confirm"],
  ["GET", "/sca/factors"],
  ["POST", "/sca/factors"],
  ["POST", "/sca/factors/confirm"],
  ["DELETE", "/sca/factors/{credentialId}"],
  ["POST", "/sca/login/start"],
  ["POST", "/sca/login/complete"],
  ["POST", "/sca/record-event"],
  ["POST", "/sca/factors/reset"],
  ["GET", "/sca/factors/reset/{resetId}"],
  ["POST", "/sca/factors/reset/{resetId}/complete"],
  ["POST", "/customers/external-accounts/{externalAccountId}/trust"],
  ["POST", "/customers/external-accounts/{externalAccountId}/trust/confirm"],
  ["POST", "/customers/external-accounts/{externalAccountId}/untrust"],
  ["POST", "/customers/external-accounts/{externalAccountId}/untrust/confirm"],
  ["GET", "/customers/internal-accounts"],
  ["GET", "/platform/internal-accounts"],
  ["GET", "/customers/external-accounts"],
  ["POST", "/customers/external-accounts"],
  ["GET", "/customers/external-accounts/{externalAccountId}"],
  ["DELETE", "/customers/external-accounts/{externalAccountId}"],
  ["POST", "/customers/external-accounts/{externalAccountId}/challenge"],
  ["POST", "/customers/external-accounts/{externalAccountId}/verify"],
  ["GET", "/platform/external-accounts"],
  ["POST", "/platform/external-accounts"],
  ["GET", "/platform/external-accounts/{externalAccountId}"],
  ["DELETE", "/platform/external-accounts/{externalAccountId}"],
  ["POST", "/platform/external-accounts/{externalAccountId}/challenge"],
  ["POST", "/platform/external-accounts/{externalAccountId}/verify"],
  ["POST", "/beneficial-owners"],
  ["GET", "/beneficial-owners"],
  ["GET", "/beneficial-owners/{beneficialOwnerId}"],
  ["PATCH", "/beneficial-owners/{beneficialOwnerId}"],
  ["POST", "/documents"],
  ["GET", "/documents"],
  ["GET", "/documents/{documentId}"],
  ["PUT", "/documents/{documentId}"],
  ["DELETE", "/documents/{documentId}"],
  ["POST", "/verifications"],
  ["GET", "/verifications"],
  ["GET", "/verifications/{verificationId}"],
  ["POST", "/transfer-in"],
  ["POST", "/transfer-out"],
  ["GET", "/receiver/uma/{receiverUmaAddress}"],
  ["GET", "/receiver/external-account/{accountId}"],
  ["GET", "/quotes/{quoteId}"],
  ["POST", "/quotes"],
  ["POST", "/quotes/{quoteId}/execute"],
  ["POST", "/quotes/{quoteId}/authorize"],
  ["POST", "/quotes/{quoteId}/authorize/resend"],
  ["GET", "/transactions"],
  ["GET", "/transactions/{transactionId}"],
  ["POST", "/transactions/{transactionId}/confirm"],
  ["POST", "/transactions/{transactionId}/approve"],
  ["POST", "/transactions/{transactionId}/reject"],
  ["POST", "/transactions/{transactionId}/cancel"],
  ["POST", "/crypto/estimate-withdrawal-fee"],
  ["POST", "/sandbox/webhooks/test"],
  ["POST", "/customers/bulk/csv"],
  ["GET", "/customers/bulk/jobs/{jobId}"],
  ["POST", "/invitations"],
  ["GET", "/invitations/{invitationCode}"],
  ["POST", "/invitations/{invitationCode}/claim"],
  ["POST", "/invitations/{invitationCode}/cancel"],
  ["POST", "/sandbox/send"],
  ["POST", "/sandbox/uma/receive"],
  ["POST", "/sandbox/internal-accounts/{accountId}/fund"],
  ["GET", "/uma-providers"],
  ["GET", "/vasps"],
  ["POST", "/tokens"],
  ["GET", "/tokens"],
  ["GET", "/tokens/{tokenId}"],
  ["DELETE", "/tokens/{tokenId}"],
  ["PATCH", "/internal-accounts/{id}"],
  ["POST", "/internal-accounts/{id}/export"],
  ["POST", "/auth/credentials"],
  ["GET", "/auth/credentials"],
  ["DELETE", "/auth/credentials/{id}"],
  ["POST", "/auth/credentials/{id}/verify"],
  ["POST", "/auth/credentials/{id}/challenge"],
  ["GET", "/auth/sessions"],
  ["DELETE", "/auth/sessions/{id}"],
  ["POST", "/auth/sessions/{id}/refresh"],
  ["POST", "/auth/delegated-keys"],
  ["GET", "/auth/delegated-keys"],
  ["GET", "/auth/delegated-keys/{id}"],
  ["DELETE", "/auth/delegated-keys/{id}"],
  ["POST", "/agents"],
  ["GET", "/agents"],
  ["GET", "/agents/approvals"],
  ["GET", "/agents/me"],
  ["GET", "/agents/{agentId}"],
  ["PATCH", "/agents/{agentId}"],
  ["DELETE", "/agents/{agentId}"],
  ["PATCH", "/agents/{agentId}/policy"],
  ["POST", "/agents/{agentId}/device-codes"],
  ["POST", "/agents/{agentId}/actions/{actionId}/approve"],
  ["POST", "/agents/{agentId}/actions/{actionId}/reject"],
  ["GET", "/agents/device-codes/{code}/status"],
  ["POST", "/agents/device-codes/{code}/redeem"],
  ["GET", "/agents/me/transactions"],
  ["GET", "/agents/me/transactions/{transactionId}"],
  ["POST", "/agents/me/quotes"],
  ["GET", "/agents/me/quotes/{quoteId}"],
  ["POST", "/agents/me/quotes/{quoteId}/execute"],
  ["GET", "/agents/me/actions"],
  ["GET", "/agents/me/actions/{actionId}"],
  ["POST", "/agents/me/transfer-in"],
  ["POST", "/agents/me/transfer-out"],
  ["GET", "/agents/me/internal-accounts"],
  ["GET", "/agents/me/external-accounts"],
  ["POST", "/agents/me/external-accounts"],
  ["GET", "/agents/me/external-accounts/{externalAccountId}"],
  ["DELETE", "/agents/me/external-accounts/{externalAccountId}"],
  ["POST", "/cards"],
  ["GET", "/cards"],
  ["GET", "/cards/{id}"],
  ["PATCH", "/cards/{id}"],
  ["POST", "/cards/{id}/reveal"],
  ["POST", "/sandbox/cards/{id}/simulate/authorization"],
  ["POST", "/sandbox/cards/{id}/simulate/clearing"],
  ["POST", "/sandbox/cards/{id}/simulate/return"],
  ["POST", "/sandbox/cards/{id}/simulate/balance_inquiry"],
  ["POST", "/sandbox/cards/{id}/simulate/credit_authorization"],
  ["POST", "/sandbox/cards/{id}/simulate/financial_authorization"],
  ["POST", "/sandbox/cards/{id}/simulate/financial_credit_authorization"],
  ["POST", "/sandbox/cards/{id}/simulate/authorization_advice"],
  ["POST", "/sandbox/cards/{id}/simulate/credit_authorization_advice"],
  ["POST", "/sandbox/cards/{id}/simulate/return_reversal"],
  ["POST", "/stablecoins"],
  ["GET", "/stablecoins"],
  ["GET", "/stablecoins/{stablecoinId}"],
  ["POST", "/stablecoins/{stablecoinId}/mints"],
  ["POST", "/stablecoins/{stablecoinId}/burns"],
  ["GET", "/stablecoins/{stablecoinId}/operations"],
  ["GET", "/stablecoin-operations/{stablecoinOperationId}"],
  ["POST", "/stablecoin-provider-accounts"],
  ["GET", "/stablecoin-provider-accounts"],
  ["GET", "/stablecoin-provider-accounts/{stablecoinProviderAccountId}"],
  ["GET", "/customers/agreements"],
  ["PATCH", "/platform/config"],
  ["POST", "/cards/{id}/tokenize"],
  ["GET", "/cards/{id}/set-pin-url"],
  ["POST", "/cards/{id}/set-pin"],
  ["POST", "/cards/{id}/pin/unblock"]
]

/**
 * Where a request goes, chosen as the HttpApi router chooses: `Served` for a route the
 * app serves (with its path parameters), `NotImplemented` for a reference endpoint
 * without one (named as in the reference, e.g. `GET /customers/internal-accounts`).
 */
export type Routed<A> =
  | { readonly _tag: "Served"; readonly value: A; readonly params: Readonly<Record<string, string | undefined>> }
  | { readonly _tag: "NotImplemented"; readonly endpoint: string }

type Entry<A> = { readonly _tag: "Served"; readonly value: A } | { readonly _tag: "NotImplemented"; readonly endpoint: string }

/** A route and its parameters, as the router would answer them. */
export interface PlainMatch<A> {
  readonly value: A
  readonly params: Record<string, string>
}

/** `makeApiRouter`'s router: where a request goes, and (when asked for) its shortcut for plain paths. */
export interface ApiRouter<A, P extends A = A> {
  (method: string, url: string): Routed<A> | undefined
  /**
   * For the served routes with parameters chosen by `plainShapes`: the route and its
   * parameters for a path plainly of the route's shape, found without running the router
   * (what the router would answer), else undefined (ask the router). Built from the
   * router's own routes; never answers when no route was chosen.
   */
  readonly plain: (method: string, path: string) => PlainMatch<P> | undefined
}

/**
 * A router over the routes the app serves and every reference endpoint, so that a
 * request is placed by the same rules whether or not its endpoint is built: it is
 * Effect's own router (the one HttpRouter runs), so a static segment wins over a
 * parameter, and case, duplicate and trailing slashes, percent-decoding and the HEAD
 * fallback to GET are handled exactly as for the real routes. Undefined: no such
 * endpoint.
 */
export const makeApiRouter = <A, P extends A = A>(options: {
  /** The version base path of the reference endpoints, e.g. `/2025-10-13`. */
  readonly base: string
  /** The routes the app serves: method, full path (`:name` parameters) and what to return for it. */
  readonly served: Iterable<{ readonly method: string; readonly path: string; readonly value: A }>
  /** The HttpRouter's RouterConfig (Effect's defaults when omitted). */
  readonly config?: Partial<FindMyWay.RouterConfig> | undefined
  /** The served routes `plain` answers for (by their value); none when omitted. */
  readonly plainShapes?: ((value: A) => value is P) | undefined
}): ApiRouter<A, P> => {
  const router = FindMyWay.make<Entry<A>>(options.config)
  const caseSensitive = options.config?.caseSensitive ?? false
  // One route per method and shape (parameter names do not matter to the router); a
  // served route takes the place of the reference endpoint it implements.
  const seen = new Set<string>()
  const add = (method: string, path: string, entry: Entry<A>) => {
    const shape = `${method} ${path.replace(/\/:[^/]+/g, "/:")}`
    const key = caseSensitive ? shape : shape.toLowerCase()
    if (seen.has(key)) return
    seen.add(key)
    router.on(method, path as FindMyWay.PathInput, entry)
  }
  // Every route's path, served and reference, once: the router's routes and the plain shapes' static names.
  const paths: Array<string> = []
  const plainRoutes: Array<{ readonly method: string; readonly path: string; readonly value: P }> = []
  for (const r of options.served) {
    add(r.method, r.path, { _tag: "Served", value: r.value })
    paths.push(r.path)
    const value = r.value
    if (options.plainShapes?.(value) === true) plainRoutes.push({ method: r.method, path: r.path, value })
  }
  for (const [method, path] of REFERENCE_ENDPOINTS) {
    const full = options.base + path.replace(/\{([^}]+)\}/g, ":$1")
    add(method, full, { _tag: "NotImplemented", endpoint: `${method} ${path}` })
    paths.push(full)
  }
  const route = (method: string, url: string): Routed<A> | undefined => {
    let found = router.find(method, url)
    if (found === undefined && method === "HEAD") found = router.find("GET", url)
    if (found === undefined) return undefined
    const entry = found.handler
    return entry._tag === "NotImplemented" ? entry : { _tag: "Served", value: entry.value, params: found.params }
  }
  const plain = plainShapeMatcher(paths, plainRoutes, options.config?.maxParamLength ?? DEFAULT_MAX_PARAM_LENGTH)
  return Object.assign(route, { plain })
}

/** FindMyWay's default longest parameter (`maxParamLength`): a longer one is not routed. */
const DEFAULT_MAX_PARAM_LENGTH = 100

/** An encoded colon (`%3A`), which the router decodes in a parameter: clients encode the colon of ids. */
const ENCODED_COLON = /%3[aA]/g

/**
 * `ApiRouter.plain`. For routes with path parameters (`/quotes/:quoteId/execute`): the
 * route and its parameters for a path that is plainly of the route's shape, without
 * running the router, and undefined whenever the router might choose otherwise (the
 * caller then asks the router). `paths` are all the router's routes. A path is plainly of a shape when its static segments are
 * the route's, exactly (same case, no duplicate or trailing slash), and each parameter's
 * segment is plain text (letters, digits, `:` or `%3A`, `_`, `-`; at most the router's
 * longest parameter, counted before decoding) that no route of the router, of any method, has as a static segment at that
 * position: the router then finds this route and takes the segment as it is, since it
 * prefers a static segment to a parameter and this one has none to prefer.
 * `test/http/plain-shape.test.ts` holds it to the router for generated paths.
 */
const plainShapeMatcher = <A>(
  paths: ReadonlyArray<string>,
  routes: ReadonlyArray<{ readonly method: string; readonly path: string; readonly value: A }>,
  maxParamLength: number
): ((method: string, path: string) => PlainMatch<A> | undefined) => {  // Every static segment by position, in lower case (the router's matching may ignore case).
  const staticAt: Array<Set<string>> = []
  for (const path of paths) {
    path.split("/").forEach((segment, i) => {
      if (!segment.startsWith(":")) (staticAt[i] ??= new Set()).add(segment.toLowerCase())
    })
  }
  type Shape = { readonly method: string; readonly segments: ReadonlyArray<string>; readonly params: ReadonlyArray<readonly [number, string]>; readonly value: A }
  const shapes: Array<Shape> = []
  for (const r of routes) {
    const segments = r.path.split("/")
    const params: Array<readonly [number, string]> = []
    let plain = true
    segments.forEach((segment, i) => {
      if (!segment.includes(":")) return
      if (/^:\w+$/.test(segment)) params.push([i, segment.slice(1)])
      else plain = false
    })
    // A path from the root, with no empty segment (the router would clean those first).
    if (segments[0] !== "" || segments.some((s, i) => i > 0 && s === "")) plain = false
    if (plain && params.length > 0) shapes.push({ method: r.method, segments, params, value: r.value })
  }
  // A segment with a colon (or an encoded one) equals no static name unless some static name has one.
  const colonInStatic = staticAt.some((names) => [...names].some((n) => n.includes(":") || n.includes("%")))
  /** Whether `c` may stand in a parameter as it is: a letter, a digit, `_` or `-` (the colon is counted apart). */
  const isPlainChar = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45
  const matchShape = (shape: Shape, path: string): PlainMatch<A> | undefined => {
    if (path.charCodeAt(0) !== 47) return undefined
    const segments = shape.segments
    const last = segments.length - 1
    let params: Record<string, string> | undefined
    let start = 1
    for (let i = 1; i <= last; i++) {
      const slash = path.indexOf("/", start)
      // As many segments as the shape: a slash after each but the last.
      if ((slash === -1) !== (i === last)) return undefined
      const end = slash === -1 ? path.length : slash
      const expected = segments[i]!
      if (expected.charCodeAt(0) !== 58) {
        if (end - start !== expected.length || !path.startsWith(expected, start)) return undefined
      } else {
        if (end === start || end - start > maxParamLength) return undefined
        let colon = false
        let encoded = false
        for (let j = start; j < end; j++) {
          const c = path.charCodeAt(j)
          if (isPlainChar(c)) continue
          if (c === 58) colon = true
          else if (c === 37 && path.charCodeAt(j + 1) === 51 && (path.charCodeAt(j + 2) === 65 || path.charCodeAt(j + 2) === 97)) {
            encoded = true
            j += 2
          } else return undefined
        }
        const raw = path.slice(start, end)
        if ((colonInStatic || (!colon && !encoded)) && (staticAt[i]?.has(raw.toLowerCase()) ?? false)) return undefined
        ;(params ??= {})[expected.slice(1)] = encoded ? raw.replace(ENCODED_COLON, ":") : raw
      }
      start = end + 1
    }
    return params === undefined ? undefined : { value: shape.value, params }
  }
  return (method, path) => {
    for (const shape of shapes) {
      if (shape.method !== method) continue
      const matched = matchShape(shape, path)
      if (matched !== undefined) return matched
    }
    return undefined
  }
}
