/**
 * Stablecoin issuance: provider account links, registered stablecoins, Grid-operations
 * enablement requests (ours), and issuer operations (mints and burns). The reference's
 * POSTs require `Idempotency-Key`.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { IdText, PageQuery } from "../../domain/common.js"
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
import { Concerns, declare } from "../declarations.js"

const created = <S extends Schema.Top>(s: S) => s.pipe(HttpApiSchema.status(201))

const stablecoinParams = { stablecoinId: IdText }

export class StablecoinsGroup extends HttpApiGroup.make("stablecoins")
  .annotate(Concerns, { permission: "MANAGE" })
  .add(
    HttpApiEndpoint.post("linkStablecoinProviderAccount", "/stablecoin-provider-accounts", {
      headers: RequiredIdempotencyHeaders,
      payload: StablecoinProviderAccountLinkRequest,
      success: created(StablecoinProviderAccount),
      error: Error409
    }),
    HttpApiEndpoint.get("listStablecoinProviderAccounts", "/stablecoin-provider-accounts", {
      query: { ...PageQuery, provider: Schema.optionalKey(StablecoinProvider), status: Schema.optionalKey(StablecoinProviderAccountStatus) },
      success: StablecoinProviderAccountListResponse
    }),
    HttpApiEndpoint.get("getStablecoinProviderAccount", "/stablecoin-provider-accounts/:stablecoinProviderAccountId", {
      params: { stablecoinProviderAccountId: IdText },
      success: StablecoinProviderAccount,
      error: Error404
    }),
    HttpApiEndpoint.post("registerStablecoin", "/stablecoins", {
      headers: RequiredIdempotencyHeaders,
      payload: StablecoinRegisterRequest,
      success: created(Stablecoin),
      error: [Error404, Error409]
    }),
    HttpApiEndpoint.get("listStablecoins", "/stablecoins", {
      query: {
        ...PageQuery,
        issuanceStatus: Schema.optionalKey(StablecoinIssuanceStatus),
        gridOperationsStatus: Schema.optionalKey(StablecoinGridOperationsStatus),
        provider: Schema.optionalKey(StablecoinProvider)
      },
      success: StablecoinListResponse
    }),
    HttpApiEndpoint.get("getStablecoin", "/stablecoins/:stablecoinId", { params: stablecoinParams, success: Stablecoin, error: Error404 }),
    HttpApiEndpoint.post("requestStablecoinGridOperationsEnablement", "/stablecoins/:stablecoinId/grid-operations-enablement", {
      params: stablecoinParams,
      success: Stablecoin,
      error: [Error404, Error409]
    }).annotate(
      OpenApi.Description,
      "Ours (the reference has no such endpoint; SPEC.md's enablement machine): requests Grid-operations enablement. Accepted while NOT_ENABLED (to PENDING_APPROVAL), repeated while PENDING_APPROVAL; otherwise 409 STABLECOIN_GRID_ENABLEMENT_NOT_REQUESTABLE."
    ),
    HttpApiEndpoint.post("createStablecoinMint", "/stablecoins/:stablecoinId/mints", {
      params: stablecoinParams,
      headers: RequiredIdempotencyHeaders,
      payload: StablecoinMintRequest,
      success: created(StablecoinOperation),
      error: [Error404, Error409, Error503]
    }).pipe(declare({ permission: "TRANSACT" })),
    HttpApiEndpoint.post("createStablecoinBurn", "/stablecoins/:stablecoinId/burns", {
      params: stablecoinParams,
      headers: RequiredIdempotencyHeaders,
      payload: StablecoinBurnRequest,
      success: created(StablecoinOperation),
      error: [Error404, Error409, Error503]
    }).pipe(declare({ permission: "TRANSACT" })),
    HttpApiEndpoint.get("listStablecoinOperations", "/stablecoins/:stablecoinId/operations", {
      params: stablecoinParams,
      query: { ...PageQuery, operationType: Schema.optionalKey(StablecoinOperationType) },
      success: StablecoinOperationListResponse,
      error: Error404
    }),
    HttpApiEndpoint.get("getStablecoinOperation", "/stablecoin-operations/:stablecoinOperationId", {
      params: { stablecoinOperationId: IdText },
      success: StablecoinOperation,
      error: Error404
    })
  )
  .annotateMerge(OpenApi.annotations({ title: "Stablecoins" }))
{}
