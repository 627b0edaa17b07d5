/** Beneficial owners of business customers. */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { BeneficialOwner, BeneficialOwnerCreateRequest, BeneficialOwnerUpdateRequest } from "../../domain/beneficial-owner.js"
import { IdempotencyHeaders, IdText, ListResponse, PageQuery } from "../../domain/common.js"
import { Error404, Error409 } from "../../domain/errors.js"
import { Concerns, declare } from "../declarations.js"

const params = { beneficialOwnerId: IdText }

export class BeneficialOwnersGroup extends HttpApiGroup.make("beneficialOwners")
  .annotate(Concerns, { permission: "MANAGE" })
  .add(
    HttpApiEndpoint.post("createBeneficialOwner", "/beneficial-owners", {
      headers: IdempotencyHeaders,
      payload: BeneficialOwnerCreateRequest,
      success: BeneficialOwner.pipe(HttpApiSchema.status(201)),
      error: [Error404, Error409]
    }),
    HttpApiEndpoint.get("listBeneficialOwners", "/beneficial-owners", {
      query: { ...PageQuery, customerId: IdText },
      success: ListResponse(BeneficialOwner, "BeneficialOwnerListResponse")
    }),
    HttpApiEndpoint.get("getBeneficialOwner", "/beneficial-owners/:beneficialOwnerId", {
      params,
      success: BeneficialOwner,
      error: Error404
    }),
    HttpApiEndpoint.patch("updateBeneficialOwner", "/beneficial-owners/:beneficialOwnerId", {
      params,
      payload: BeneficialOwnerUpdateRequest,
      success: BeneficialOwner,
      error: Error404
    }),
    HttpApiEndpoint.delete("deleteBeneficialOwner", "/beneficial-owners/:beneficialOwnerId", {
      params,
      success: HttpApiSchema.NoContent,
      error: [Error404, Error409]
    })
  )
  .annotateMerge(OpenApi.annotations({ title: "Beneficial owners" }))
{}
