/** KYC/KYB verification submissions. */
import { Schema } from "effect"
import { HttpApiEndpoint, OpenApi } from "effect/http-api"
import { IdempotencyHeaders, IdText, ListResponse } from "../../domain/common.js"
import { Verification, VerificationRequest, VerificationStatus } from "../../domain/verification.js"
import { apiGroup, byId, NotFoundOrConflict, page } from "../endpoints.js"

export class VerificationsGroup extends apiGroup("verifications", { title: "KYC/KYB Verifications", permission: "MANAGE" },
  HttpApiEndpoint.post("createVerification", "/verifications", { headers: IdempotencyHeaders, payload: VerificationRequest, success: Verification, error: NotFoundOrConflict }),
  HttpApiEndpoint.get("listVerifications", "/verifications", {
    query: page({ customerId: Schema.optionalKey(IdText), verificationStatus: Schema.optionalKey(VerificationStatus) }),
    success: ListResponse(Verification, "VerificationListResponse")
  }),
  HttpApiEndpoint.get("getVerification", "/verifications/:verificationId", byId({ verificationId: IdText }, Verification))
) {}
