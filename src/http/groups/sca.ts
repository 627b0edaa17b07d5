/**
 * Contact Verification and Strong Customer Authentication (docs/sca.md). Every endpoint
 * is for customers whose provider mandates SCA (SCA regions); others get 409.
 */
import { Schema } from "effect"
import { declare } from "../declarations.js"
import { acts, apiGroup, created, InvalidOrConflict, NotFoundOrConflict } from "../endpoints.js"
import { HttpApiEndpoint, HttpApiSchema, OpenApi } from "effect/http-api"
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

/** A contact verification leg on the customer the path names. */
const sendsCode = { params: customerParams, success: HttpApiSchema.NoContent, error: NotFoundOrConflict }
const confirmsCode = acts(customerParams, ContactVerificationConfirmRequest, CustomerResponse, InvalidOrConflict)

/** An SCA step for the customer the query names (`?customerId=`). */
const forCustomer = <
  const B extends Schema.Top | ReadonlyArray<Schema.Top>,
  const S extends Schema.Top,
  const E extends Schema.Top | ReadonlyArray<Schema.Top>
>(payload: B, success: S, error: E) => ({ query: customerQuery, payload, success, error })
const LockableErrors = [Error400, Error404, Error409, Error423]

export class ContactVerificationGroup extends apiGroup(
  "contactVerification",
  { title: "Contact Verification", description: "Email and phone verification for customers whose provider requires it (SCA regions). Sandbox: no message is sent and the code is 123456.", permission: "MANAGE" },
  HttpApiEndpoint.post("sendCustomerEmailVerification", "/customers/:customerId/verify-email", sendsCode),
  HttpApiEndpoint.post("confirmCustomerEmailVerification", "/customers/:customerId/verify-email/confirm", confirmsCode),
  HttpApiEndpoint.post("sendCustomerPhoneVerification", "/customers/:customerId/verify-phone", sendsCode),
  HttpApiEndpoint.post("confirmCustomerPhoneVerification", "/customers/:customerId/verify-phone/confirm", confirmsCode)
) {}

export class ScaGroup extends apiGroup(
  "sca",
  { title: "Strong Customer Authentication", description: "SCA factors, login sessions (180 days), lockout, 2FA reset and quote authorization for customers in SCA regions (the EEA). Sandbox codes: 123456.", permission: "MANAGE" },
  HttpApiEndpoint.get("listScaFactors", "/sca/factors", { query: customerQuery, success: ScaFactorList, error: NotFoundOrConflict }),
  HttpApiEndpoint.post("startScaFactorEnrollment", "/sca/factors", forCustomer(ScaFactorEnrollRequest, ScaFactorEnrollStart, InvalidOrConflict)),
  HttpApiEndpoint.post("confirmScaFactorEnrollment", "/sca/factors/confirm", forCustomer(ScaFactorConfirmRequest, ScaFactorConfirmResponse, InvalidOrConflict)),
  HttpApiEndpoint.delete("deleteScaFactor", "/sca/factors/:credentialId", {
    params: { credentialId: IdText },
    query: customerQuery,
    success: HttpApiSchema.NoContent,
    error: NotFoundOrConflict
  }),
  HttpApiEndpoint.post("startScaLogin", "/sca/login/start", forCustomer(ScaLoginStartRequest, ScaLoginStart, InvalidOrConflict)),
  HttpApiEndpoint.post("completeScaLogin", "/sca/login/complete", forCustomer(ScaLoginCompleteRequest, ScaLoginComplete, LockableErrors)),
  HttpApiEndpoint.post("recordSecurityEvent", "/sca/record-event", forCustomer(RecordSecurityEventRequest, RecordSecurityEventResponse, LockableErrors)),
  HttpApiEndpoint.post(
    "startTwoFactorReset",
    "/sca/factors/reset",
    forCustomer(TwoFactorResetStartRequest, created(TwoFactorResetStart), [Error400, Error404, Error409, Error429])
  ).pipe(declare({ retryAfter: true })),
  HttpApiEndpoint.get("getTwoFactorResetStatus", "/sca/factors/reset/:resetId", {
    params: { resetId: IdText },
    query: customerQuery,
    success: TwoFactorResetStatus,
    error: NotFoundOrConflict
  }),
  HttpApiEndpoint.post("completeTwoFactorReset", "/sca/factors/reset/:resetId/complete", {
    params: { resetId: IdText },
    // The body is optional (the reference's `requestBody.required: false`): an empty body decodes as null.
    ...forCustomer([TwoFactorResetCompleteRequest, Schema.Null], HttpApiSchema.NoContent, InvalidOrConflict)
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
) {}
