/** KYC/KYB verification submissions. */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { IdempotencyHeaders, IdText, ListResponse, PageQuery } from "../../domain/common.js"
import { Error404, Error409 } from "../../domain/errors.js"
import { Verification, VerificationRequest, VerificationStatus } from "../../domain/verification.js"
import { Concerns, declare } from "../declarations.js"

export class VerificationsGroup extends HttpApiGroup.make("verifications")
  .annotate(Concerns, { permission: "MANAGE" })
  .add(
    HttpApiEndpoint.post("createVerification", "/verifications", {
      headers: IdempotencyHeaders,
      payload: VerificationRequest,
      success: Verification,
      error: [Error404, Error409]
    }),
    HttpApiEndpoint.get("listVerifications", "/verifications", {
      query: {
        ...PageQuery,
        customerId: Schema.optionalKey(IdText),
        verificationStatus: Schema.optionalKey(VerificationStatus)
      },
      success: ListResponse(Verification, "VerificationListResponse")
    }),
    HttpApiEndpoint.get("getVerification", "/verifications/:verificationId", {
      params: { verificationId: IdText },
      success: Verification,
      error: Error404
    })
  )
  .annotateMerge(OpenApi.annotations({ title: "KYC/KYB Verifications" }))
{}
