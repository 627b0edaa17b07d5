/**
 * Stablecoin issuance: provider account links, registered stablecoins, Grid-operations
 * enablement requests (ours), and issuer operations (mints and burns). The reference's
 * POSTs require `Idempotency-Key`.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, OpenApi } from "effect/http-api"
import { IdText } from "../../domain/common.js"
import { Error404, Error409, Error503 } from "../../domain/errors.js"
import {
  RequiredIdempotencyHeaders,
  Stablecoin,
  StablecoinBurnRequest,
  StablecoinGridOperationsStatus,
  StablecoinIssuanceStatus,
  StablecoinListResponse,
  StablecoinMintRequest,
  StablecoinOperation,
  StablecoinOperationListResponse,
  StablecoinOperationType,
  StablecoinProvider,
  StablecoinProviderAccount,
  StablecoinProviderAccountLinkRequest,
  StablecoinProviderAccountListResponse,
  StablecoinProviderAccountStatus,
  StablecoinRegisterRequest
} from "../../domain/stablecoin.js"
import { declare } from "../declarations.js"
import { apiGroup, byId, created, NotFoundOrConflict, page } from "../endpoints.js"

const stablecoinParams = { stablecoinId: IdText }

/** A POST under a required `Idempotency-Key`: 201 with what it created. */
const createsOnce = <const P extends Schema.Top, const S extends Schema.Top, const E extends Schema.Top | ReadonlyArray<Schema.Top>>(
  payload: P,
  success: S,
  error: E
) => ({ headers: RequiredIdempotencyHeaders, payload, success: created(success), error })

/** Mints and burns: on the stablecoin the path names; 503 when the provider is unavailable. */
const operation = <const P extends Schema.Top>(payload: P) => ({
  params: stablecoinParams,
  ...createsOnce(payload, StablecoinOperation, [Error404, Error409, Error503])
})

export class StablecoinsGroup extends apiGroup("stablecoins", { title: "Stablecoins", permission: "MANAGE" },
  HttpApiEndpoint.post(
    "linkStablecoinProviderAccount",
    "/stablecoin-provider-accounts",
    createsOnce(StablecoinProviderAccountLinkRequest, StablecoinProviderAccount, Error409)
  ),
  HttpApiEndpoint.get("listStablecoinProviderAccounts", "/stablecoin-provider-accounts", {
    query: page({ provider: Schema.optionalKey(StablecoinProvider), status: Schema.optionalKey(StablecoinProviderAccountStatus) }),
    success: StablecoinProviderAccountListResponse
  }),
  HttpApiEndpoint.get(
    "getStablecoinProviderAccount",
    "/stablecoin-provider-accounts/:stablecoinProviderAccountId",
    byId({ stablecoinProviderAccountId: IdText }, StablecoinProviderAccount)
  ),
  HttpApiEndpoint.post("registerStablecoin", "/stablecoins", createsOnce(StablecoinRegisterRequest, Stablecoin, NotFoundOrConflict)),
  HttpApiEndpoint.get("listStablecoins", "/stablecoins", {
    query: page({
      issuanceStatus: Schema.optionalKey(StablecoinIssuanceStatus),
      gridOperationsStatus: Schema.optionalKey(StablecoinGridOperationsStatus),
      provider: Schema.optionalKey(StablecoinProvider)
    }),
    success: StablecoinListResponse
  }),
  HttpApiEndpoint.get("getStablecoin", "/stablecoins/:stablecoinId", byId(stablecoinParams, Stablecoin)),
  HttpApiEndpoint.post("requestStablecoinGridOperationsEnablement", "/stablecoins/:stablecoinId/grid-operations-enablement", {
    params: stablecoinParams,
    success: Stablecoin,
    error: NotFoundOrConflict
  }).annotate(
    OpenApi.Description,
    "Ours (the reference has no such endpoint; SPEC.md's enablement machine): requests Grid-operations enablement. Accepted while NOT_ENABLED (to PENDING_APPROVAL), repeated while PENDING_APPROVAL; otherwise 409 STABLECOIN_GRID_ENABLEMENT_NOT_REQUESTABLE."
  ),
  HttpApiEndpoint.post("createStablecoinMint", "/stablecoins/:stablecoinId/mints", operation(StablecoinMintRequest))
    .pipe(declare({ permission: "TRANSACT" })),
  HttpApiEndpoint.post("createStablecoinBurn", "/stablecoins/:stablecoinId/burns", operation(StablecoinBurnRequest))
    .pipe(declare({ permission: "TRANSACT" })),
  HttpApiEndpoint.get("listStablecoinOperations", "/stablecoins/:stablecoinId/operations", {
    ...byId(stablecoinParams, StablecoinOperationListResponse),
    query: page({ operationType: Schema.optionalKey(StablecoinOperationType) })
  }),
  HttpApiEndpoint.get("getStablecoinOperation", "/stablecoin-operations/:stablecoinOperationId", byId({ stablecoinOperationId: IdText }, StablecoinOperation))
) {}
