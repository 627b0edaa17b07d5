/**
 * Contact Verification and Strong Customer Authentication (docs/sca.md). Every endpoint
 * is for customers whose provider mandates SCA (SCA regions); others get 409.
 */
import { Schema } from "effect"
import { Concerns, declare } from "../declarations.js"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { IdText } from "../../domain/common.js"
import { CustomerResponse } from "../../domain/customer.js"
import { Error400, Error404, Error409, Error423, Error429 } from "../../domain/errors.js"
import { Quote } from "../../domain/quote.js"
import {
  ContactVerificationConfirmRequest,
  RecordSecurityEventRequest,
  RecordSecurityEventResponse,
  ScaAuthorization,
  ScaFactorConfirmRequest,
  ScaFactorConfirmResponse,
  ScaFactorEnrollRequest,
  ScaFactorEnrollStart,
  ScaFactorList,
  ScaLoginComplete,
  ScaLoginCompleteRequest,
  ScaLoginStart,
  ScaLoginStartRequest,
  TwoFactorResetCompleteRequest,
  TwoFactorResetStart,
  TwoFactorResetStatus,
  TwoFactorResetStartRequest
} from "../../domain/sca.js"

const customerParams = { customerId: IdText }
const customerQuery = { customerId: IdText }

export class ContactVerificationGroup extends HttpApiGroup.make("contactVerification")
  .annotate(Concerns, { permission: "MANAGE" })
  .add(
    HttpApiEndpoint.post("sendCustomerEmailVerification", "/customers/:customerId/verify-email", {
      params: customerParams,
      success: HttpApiSchema.NoContent,
      error: [Error404, Error409]
    }),
    HttpApiEndpoint.post("confirmCustomerEmailVerification", "/customers/:customerId/verify-email/confirm", {
      params: customerParams,
      payload: ContactVerificationConfirmRequest,
      success: CustomerResponse,
      error: [Error400, Error404, Error409]
    }),
    HttpApiEndpoint.post("sendCustomerPhoneVerification", "/customers/:customerId/verify-phone", {
      params: customerParams,
      success: HttpApiSchema.NoContent,
      error: [Error404, Error409]
    }),
    HttpApiEndpoint.post("confirmCustomerPhoneVerification", "/customers/:customerId/verify-phone/confirm", {
      params: customerParams,
      payload: ContactVerificationConfirmRequest,
      success: CustomerResponse,
      error: [Error400, Error404, Error409]
    })
  )
  .annotateMerge(OpenApi.annotations({
    title: "Contact Verification",
    description: "Email and phone verification for customers whose provider requires it (SCA regions). Sandbox: no message is sent and the code is 123456."
  }))
{}

export class ScaGroup extends HttpApiGroup.make("sca")
  .annotate(Concerns, { permission: "MANAGE" })
  .add(
    HttpApiEndpoint.get("listScaFactors", "/sca/factors", {
      query: customerQuery,
      success: ScaFactorList,
      error: [Error404, Error409]
    }),
    HttpApiEndpoint.post("startScaFactorEnrollment", "/sca/factors", {
      query: customerQuery,
      payload: ScaFactorEnrollRequest,
      success: ScaFactorEnrollStart,
      error: [Error400, Error404, Error409]
    }),
    HttpApiEndpoint.post("confirmScaFactorEnrollment", "/sca/factors/confirm", {
      query: customerQuery,
      payload: ScaFactorConfirmRequest,
      success: ScaFactorConfirmResponse,
      error: [Error400, Error404, Error409]
    }),
    HttpApiEndpoint.delete("deleteScaFactor", "/sca/factors/:credentialId", {
      params: { credentialId: IdText },
      query: customerQuery,
      success: HttpApiSchema.NoContent,
      error: [Error404, Error409]
    }),
    HttpApiEndpoint.post("startScaLogin", "/sca/login/start", {
      query: customerQuery,
      payload: ScaLoginStartRequest,
      success: ScaLoginStart,
      error: [Error400, Error404, Error409]
    }),
    HttpApiEndpoint.post("completeScaLogin", "/sca/login/complete", {
      query: customerQuery,
      payload: ScaLoginCompleteRequest,
      success: ScaLoginComplete,
      error: [Error400, Error404, Error409, Error423]
    }),
    HttpApiEndpoint.post("recordSecurityEvent", "/sca/record-event", {
      query: customerQuery,
      payload: RecordSecurityEventRequest,
      success: RecordSecurityEventResponse,
      error: [Error400, Error404, Error409, Error423]
    }),
    HttpApiEndpoint.post("startTwoFactorReset", "/sca/factors/reset", {
      query: customerQuery,
      payload: TwoFactorResetStartRequest,
      success: TwoFactorResetStart.pipe(HttpApiSchema.status(201)),
      error: [Error400, Error404, Error409, Error429]
    }).pipe(declare({ retryAfter: true })),
    HttpApiEndpoint.get("getTwoFactorResetStatus", "/sca/factors/reset/:resetId", {
      params: { resetId: IdText },
      query: customerQuery,
      success: TwoFactorResetStatus,
      error: [Error404, Error409]
    }),
    HttpApiEndpoint.post("completeTwoFactorReset", "/sca/factors/reset/:resetId/complete", {
      params: { resetId: IdText },
      query: customerQuery,
      // The body is optional (the reference's `requestBody.required: false`): an empty body decodes as null.
      payload: [TwoFactorResetCompleteRequest, Schema.Null],
      success: HttpApiSchema.NoContent,
      error: [Error400, Error404, Error409]
    }),
    HttpApiEndpoint.post("authorizeQuote", "/quotes/:quoteId/authorize", {
      params: { quoteId: IdText },
      payload: ScaAuthorization,
      success: Quote,
      error: [Error400, Error404, Error409, Error423, Error429]
    }).pipe(declare({ retryAfter: true, permission: "TRANSACT" })),
    HttpApiEndpoint.post("resendQuoteScaCode", "/quotes/:quoteId/authorize/resend", {
      params: { quoteId: IdText },
      success: HttpApiSchema.NoContent,
      error: [Error404, Error409, Error429]
    }).pipe(declare({ retryAfter: true, permission: "TRANSACT" }))
  )
  .annotateMerge(OpenApi.annotations({
    title: "Strong Customer Authentication",
    description: "SCA factors, login sessions (180 days), lockout, 2FA reset and quote authorization for customers in SCA regions (the EEA). Sandbox codes: 123456."
  }))
{}
