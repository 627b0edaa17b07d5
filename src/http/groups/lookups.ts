/**
 * Discovery and receiver lookups: GET /discoveries (banks, providers and rails per
 * country and currency corridor), GET /receiver/uma/{receiverUmaAddress} and
 * GET /receiver/external-account/{accountId} (what a sender can pay a receiver).
 */
import { HttpApiEndpoint, OpenApi } from "effect/http-api"
import { apiGroup, byId, directoryGroup } from "../endpoints.js"
import { IdText, TextUpTo } from "../../domain/common.js"
import { DiscoveryListResponse, DiscoveryQuery } from "../../domain/discovery.js"
import {
  MAX_UMA_ADDRESS_LENGTH,
  ReceiverExternalAccountLookupResponse,
  ReceiverLookupQuery,
  ReceiverUmaLookupResponse
} from "../../domain/receiver-lookup.js"

export class DiscoveriesGroup extends directoryGroup(
  "discoveries",
  "Discoveries",
  HttpApiEndpoint.get("getDiscoveries", "/discoveries", { query: DiscoveryQuery, success: DiscoveryListResponse }),
  "Banks and payment providers per country and currency, with the rails a payout to each takes. Without filters, every " +
    "entry. The reference server answers from a static catalogue of sandbox data (illustrative names, not a live directory)."
) {}

export class ReceiverLookupsGroup extends apiGroup(
  "receiverLookups",
  { title: "Receiver Lookups", description: "What a sender can pay a UMA address or an external account (the reference files these under Cross-Currency Transfers)." },
  HttpApiEndpoint.get("lookupUma", "/receiver/uma/:receiverUmaAddress", {
    ...byId({ receiverUmaAddress: TextUpTo(MAX_UMA_ADDRESS_LENGTH) }, ReceiverUmaLookupResponse),
    query: ReceiverLookupQuery
  }),
  HttpApiEndpoint.get("lookupExternalAccount", "/receiver/external-account/:accountId", {
    ...byId({ accountId: IdText }, ReceiverExternalAccountLookupResponse),
    query: ReceiverLookupQuery
  })
) {}
