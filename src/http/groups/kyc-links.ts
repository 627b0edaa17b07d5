/**
 * The hosted KYC/KYB link: POST /customers/{customerId}/kyc-link (platform credentials),
 * and the sandbox's hosted flow behind the link (ours, no credentials: the link is the
 * capability): GET /sandbox/kyc-link?token= is the page, POST submits it.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { IdempotencyHeaders, IdText, TextUpTo } from "../../domain/common.js"
import { Error400, Error404, Error409, Error501 } from "../../domain/errors.js"
import { KycLinkCreateRequest, KycLinkResponse, MAX_KYC_LINK_TOKEN_LENGTH } from "../../domain/kyc-link.js"
import { RequestGuard } from "../middleware.js"
import { AGENT_GROUPS_PREFIX } from "./agents.js"
import { declare } from "../declarations.js"
import { apiGroup } from "../endpoints.js"

export class KycLinksGroup extends apiGroup("kycLinks", { title: "KYC/KYB Verifications", permission: "MANAGE" },
  HttpApiEndpoint.post("createCustomerKycLink", "/customers/:customerId/kyc-link", {
    params: { customerId: IdText },
    headers: IdempotencyHeaders,
    // The body is optional (the reference's `requestBody.required: false`): an empty body decodes as null.
    payload: [KycLinkCreateRequest, Schema.Null],
    success: KycLinkResponse.pipe(HttpApiSchema.status(201)),
    error: [Error404, Error409, Error501]
  }).annotate(
    OpenApi.Description,
    "A single-use hosted verification link for the customer, good for 24 hours of the platform's clock. The sandbox serves the hosted flow " +
      "itself (GET /sandbox/kyc-link?token=); completing it is POST /verifications for the customer (same rules, outcomes and events). " +
      "409 while contact verification is required and not complete; production platforms: 501 (no provider connected)."
  )
) {}

const Html = Schema.String.pipe(HttpApiSchema.asText({ contentType: "text/html; charset=utf-8" }))
/** The token is a query parameter: it can be longer than a path segment may be (it carries the redirectUri). */
const tokenQuery = { token: TextUpTo(MAX_KYC_LINK_TOKEN_LENGTH) }

export class KycHostedFlowGroup extends HttpApiGroup.make("kycHostedFlow")
  .add(
    HttpApiEndpoint.get("getHostedKycPage", "/sandbox/kyc-link", {
      query: tokenQuery,
      success: Html,
      error: [Error400, Error404]
    }).annotate(OpenApi.Description, "The sandbox's hosted verification page of a KYC link (no credentials: the link is the capability). 400 EXPIRED once the link has expired unused."),
    HttpApiEndpoint.post("submitHostedKyc", "/sandbox/kyc-link", {
      query: tokenQuery,
      success: Html,
      error: [Error400, Error404, Error409]
    }).annotate(
      OpenApi.Description,
      "The customer submits: POST /verifications for the link's customer, once per link (a later submission shows the same result). Any form body is ignored."
    )
  )
  .middleware(RequestGuard)
  .prefix(AGENT_GROUPS_PREFIX)
  .annotateMerge(OpenApi.annotations({ title: "Sandbox", description: "The sandbox's hosted KYC/KYB flow (ours)." }))
{}
