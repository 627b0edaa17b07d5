/**
 * Discovery and receiver lookups: GET /discoveries (banks, providers and rails per
 * country and currency corridor), GET /receiver/uma/{receiverUmaAddress} and
 * GET /receiver/external-account/{accountId} (what a sender can pay a receiver).
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { IdText, TextUpTo } from "../../domain/common.js"
import { DiscoveryListResponse, DiscoveryQuery } from "../../domain/discovery.js"
import { Error404 } from "../../domain/errors.js"
import {
  MAX_UMA_ADDRESS_LENGTH,
  ReceiverExternalAccountLookupResponse,
  ReceiverLookupQuery,
  ReceiverUmaLookupResponse
} from "../../domain/receiver-lookup.js"

export class DiscoveriesGroup extends HttpApiGroup.make("discoveries")
  .add(
    HttpApiEndpoint.get("getDiscoveries", "/discoveries", { query: DiscoveryQuery, success: DiscoveryListResponse })
      .annotate(
        OpenApi.Description,
        "Banks and payment providers per country and currency, with the rails a payout to each takes. Without filters, every " +
          "entry. The reference server answers from a static catalogue of sandbox data (illustrative names, not a live directory)."
      )
  )
  .annotateMerge(OpenApi.annotations({ title: "Discoveries" }))
{}

export class ReceiverLookupsGroup extends HttpApiGroup.make("receiverLookups")
  .add(
    HttpApiEndpoint.get("lookupUma", "/receiver/uma/:receiverUmaAddress", {
      params: { receiverUmaAddress: TextUpTo(MAX_UMA_ADDRESS_LENGTH) },
      query: ReceiverLookupQuery,
      success: ReceiverUmaLookupResponse,
      error: Error404
    }),
    HttpApiEndpoint.get("lookupExternalAccount", "/receiver/external-account/:accountId", {
      params: { accountId: IdText },
      query: ReceiverLookupQuery,
      success: ReceiverExternalAccountLookupResponse,
      error: Error404
    })
  )
  .annotateMerge(OpenApi.annotations({
    title: "Receiver Lookups",
    description: "What a sender can pay a UMA address or an external account (the reference files these under Cross-Currency Transfers)."
  }))
{}
