/**
 * The HttpApi definition: the API contract. Schemas here are the request validation,
 * the response encoding and the generated OpenAPI document. Its groups are listed, with
 * their handlers, in routes.ts; each group is defined under groups/.
 */
import { Array as Arr } from "effect"
import { OpenApi } from "effect/http-api"
import { API_VERSION, apiOf } from "./api-base.js"
import { ROUTES } from "./routes.js"

export { API_VERSION, PAYLOAD_PARSE_OPTIONS } from "./api-base.js"
// The groups defined here before they moved under groups/, for the package's users.
export { CustomersGroup } from "./groups/customers.js"
export { CustomerExternalAccountsGroup, PlatformExternalAccountsGroup } from "./groups/external-accounts.js"
export { SandboxClock, SandboxGroup } from "./groups/sandbox.js"

export class PaymentsApi extends apiOf(...Arr.map(ROUTES, (route) => route.group))
  .annotateMerge(OpenApi.annotations({
    title: "payments-service",
    version: API_VERSION,
    description: "Reference implementation of a cross-border payments API, sandbox included."
  }))
{}
