/**
 * The endpoints the direct lane serves: the hot path of registering and reading
 * external accounts, creating customers, and moving money (a quote and its execution). Each is derived from its HttpApi endpoint
 * definition and the handler its group registers (src/http/handlers/): the lane
 * restates no path, schema or operation. The success status is read from the API's
 * OpenAPI description. test/http/direct.test.ts holds both paths to the same answers.
 */
import { type HttpApiEndpoint, OpenApi } from "effect/http-api"
import type { ApiError } from "../domain/errors.js"
import { PaymentsApi } from "./api.js"
import { type LaneShortcuts, laneRoute, type SharedHandler } from "./direct.js"
import { createCustomer } from "./handlers/customers.js"
import {
  createCustomerExternalAccount,
  createPlatformExternalAccount,
  getCustomerExternalAccount,
  getPlatformExternalAccount
} from "./handlers/external-accounts.js"
import { createQuote, executeQuote } from "./handlers/money.js"
import { quoteJson, readQuoteRequest } from "./quote-json.js"

const spec = OpenApi.fromApi(PaymentsApi)

/** The one 2xx status the OpenAPI description gives an endpoint (`:param` paths as `{param}`). */
const successStatusOf = (endpoint: { readonly method: string; readonly path: string; readonly identifier: string }): number => {
  const path = endpoint.path.replace(/:(\w+)/g, "{$1}")
  const operation: unknown = spec.paths[path]?.[endpoint.method.toLowerCase() as "get" | "post" | "patch" | "delete"]
  const responses = typeof operation === "object" && operation !== null && "responses" in operation ? operation.responses : undefined
  const statuses = typeof responses === "object" && responses !== null
    ? Object.keys(responses).map(Number).filter((s) => s >= 200 && s < 300)
    : []
  const status = statuses[0]
  if (statuses.length !== 1 || status === undefined) {
    throw new Error(`Endpoint ${endpoint.identifier} must have exactly one success status to be served by the direct lane`)
  }
  return status
}

/** A lane route for an endpoint and the handler its group registers. */
const lane = <E extends HttpApiEndpoint.Top, A, Err extends ApiError, R>(
  endpoint: E,
  handler: SharedHandler<E, A, Err, R>,
  fast?: LaneShortcuts
) => laneRoute(endpoint, successStatusOf(endpoint), handler, fast)

const customers = PaymentsApi.groups.customers.endpoints
const customerAccounts = PaymentsApi.groups.customerExternalAccounts.endpoints
const platformAccounts = PaymentsApi.groups.platformExternalAccounts.endpoints
const quotes = PaymentsApi.groups.quotes.endpoints

export const DIRECT_ROUTES = [
  lane(customers.createCustomer, createCustomer),
  lane(customerAccounts.createCustomerExternalAccount, createCustomerExternalAccount),
  lane(customerAccounts.getCustomerExternalAccount, getCustomerExternalAccount),
  lane(platformAccounts.createPlatformExternalAccount, createPlatformExternalAccount),
  lane(platformAccounts.getPlatformExternalAccount, getPlatformExternalAccount),
  // A quote's request read and its answer written without the schemas where their shape allows (src/http/quote-json.ts).
  lane(quotes.createQuote, createQuote, { readPayload: readQuoteRequest, writeSuccess: quoteJson }),
  lane(quotes.executeQuote, executeQuote, { writeSuccess: quoteJson })
]
