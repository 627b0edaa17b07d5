/**
 * API tokens (docs/tokens.md): POST /tokens (the only answer with `clientSecret`),
 * GET /tokens, GET /tokens/{tokenId}, DELETE /tokens/{tokenId} (revoked at once).
 * Managing tokens needs MANAGE; reading them, as every GET, VIEW.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, OpenApi } from "effect/http-api"
import { IdText, ListResponse } from "../../domain/common.js"
import { Error403, Error404 } from "../../domain/errors.js"
import { ApiToken, ApiTokenCreateRequest, MAX_TOKEN_NAME_LENGTH } from "../../domain/token.js"
import { apiGroup, byId, CreatedUpdatedFilters, creation, deletes, page } from "../endpoints.js"

const tokenParams = { tokenId: IdText }

export class TokensGroup extends apiGroup("tokens", { title: "API Tokens", permission: "MANAGE" },
  HttpApiEndpoint.post("createToken", "/tokens", creation(ApiTokenCreateRequest, ApiToken, Error403)).annotate(
    OpenApi.Description,
    "Create an API token: its `clientId` and `clientSecret` authenticate HTTP Basic at once. The secret is in this answer only (only its hash is stored). A token may grant only permissions it holds (403 FORBIDDEN)."
  ),
  HttpApiEndpoint.get("listTokens", "/tokens", {
    query: page({ name: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(MAX_TOKEN_NAME_LENGTH))), ...CreatedUpdatedFilters }),
    success: ListResponse(ApiToken, "TokenListResponse")
  }),
  HttpApiEndpoint.get("getToken", "/tokens/:tokenId", byId(tokenParams, ApiToken)),
  HttpApiEndpoint.delete("deleteToken", "/tokens/:tokenId", deletes(tokenParams, Error404)).annotate(OpenApi.Description, "Revokes the token at once, in every server process.")
) {}
