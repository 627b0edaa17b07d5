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

/**
 * A router over the routes the app serves and every reference endpoint, so that a
 * request is placed by the same rules whether or not its endpoint is built: it is
 * Effect's own router (the one HttpRouter runs), so a static segment wins over a
 * parameter, and case, duplicate and trailing slashes, percent-decoding and the HEAD
 * fallback to GET are handled exactly as for the real routes. Undefined: no such
 * endpoint.
 */
export const makeApiRouter = <A>(options: {
  /** The version base path of the reference endpoints, e.g. `/2025-10-13`. */
  readonly base: string
  /** The routes the app serves: method, full path (`:name` parameters) and what to return for it. */
  readonly served: Iterable<{ readonly method: string; readonly path: string; readonly value: A }>
  /** The HttpRouter's RouterConfig (Effect's defaults when omitted). */
  readonly config?: Partial<FindMyWay.RouterConfig> | undefined
}): ((method: string, url: string) => Routed<A> | undefined) => {
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
  for (const r of options.served) add(r.method, r.path, { _tag: "Served", value: r.value })
  for (const [method, path] of REFERENCE_ENDPOINTS) {
    add(method, options.base + path.replace(/\{([^}]+)\}/g, ":$1"), { _tag: "NotImplemented", endpoint: `${method} ${path}` })
  }
  return (method, url) => {
    let found = router.find(method, url)
    if (found === undefined && method === "HEAD") found = router.find("GET", url)
    if (found === undefined) return undefined
    const entry = found.handler
    return entry._tag === "NotImplemented" ? entry : { _tag: "Served", value: entry.value, params: found.params }
  }
}
