/** GET /customers/agreements and the deprecated GET /customers/end-user-terms. */
import { HttpApiEndpoint, OpenApi } from "effect/http-api"
import { AgreementListResponse, EndUserTerms } from "../../domain/customer.js"
import { apiGroup } from "../endpoints.js"

export class AgreementsGroup extends apiGroup(
  "agreements",
  { title: "Agreements", description: "The agreements a customer accepts; send the current `version` as `termsVersion` in `agreementConsents`." },
  HttpApiEndpoint.get("listAgreements", "/customers/agreements", { success: AgreementListResponse }),
  HttpApiEndpoint.get("getEndUserTerms", "/customers/end-user-terms", { success: EndUserTerms })
    .annotate(OpenApi.Deprecated, true)
) {}
