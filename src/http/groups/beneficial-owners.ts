/** Beneficial owners of business customers. */
import { HttpApiEndpoint, OpenApi } from "effect/http-api"
import { BeneficialOwner, BeneficialOwnerCreateRequest, BeneficialOwnerUpdateRequest } from "../../domain/beneficial-owner.js"
import { IdText, ListResponse } from "../../domain/common.js"
import { Error404 } from "../../domain/errors.js"
import { acts, apiGroup, byId, creates, deletes, NotFoundOrConflict, page } from "../endpoints.js"

const params = { beneficialOwnerId: IdText }

export class BeneficialOwnersGroup extends apiGroup("beneficialOwners", { title: "Beneficial owners", permission: "MANAGE" },
  HttpApiEndpoint.post("createBeneficialOwner", "/beneficial-owners", creates(BeneficialOwnerCreateRequest, BeneficialOwner, NotFoundOrConflict)),
  HttpApiEndpoint.get("listBeneficialOwners", "/beneficial-owners", {
    query: page({ customerId: IdText }),
    success: ListResponse(BeneficialOwner, "BeneficialOwnerListResponse")
  }),
  HttpApiEndpoint.get("getBeneficialOwner", "/beneficial-owners/:beneficialOwnerId", byId(params, BeneficialOwner)),
  HttpApiEndpoint.patch("updateBeneficialOwner", "/beneficial-owners/:beneficialOwnerId", acts(params, BeneficialOwnerUpdateRequest, BeneficialOwner, Error404)),
  HttpApiEndpoint.delete("deleteBeneficialOwner", "/beneficial-owners/:beneficialOwnerId", deletes(params, NotFoundOrConflict))
) {}
