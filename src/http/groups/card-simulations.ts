/**
 * The ten sandbox card simulate endpoints (docs/card-transactions.md): each answers 202
 * with the issuer's transaction token of the row the simulated message landed on.
 * Sandbox platforms only (403 on production).
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiSchema, OpenApi } from "effect/http-api"
import * as Simulations from "../../domain/card-transaction.js"
import { IdText } from "../../domain/common.js"
import { Error403, Error404, Error501 } from "../../domain/errors.js"
import { declare } from "../declarations.js"
import { apiGroup } from "../endpoints.js"

const accepted = Simulations.SandboxCardSimulationResponse.pipe(HttpApiSchema.status(202))
const params = { id: IdText }
const errors = [Error403, Error404, Error501]

const simulate = <const Name extends string, const Path extends string, P extends Schema.Top>(name: Name, path: Path, payload: P, description: string) =>
  HttpApiEndpoint.post(name, `/sandbox/cards/:id/simulate/${path}`, { params, payload, success: accepted, error: errors })
    .annotate(OpenApi.Description, description)

const SUFFIXES = "Outcome by the last three characters of merchant.descriptor: 002 declined INSUFFICIENT_FUNDS, 003 declined CARD_NOT_ACTIVE, 005 pull PENDING ~30 s then CONFIRMED, 006 EXCEPTION (confirmation FAILED), other approved."

export class CardSimulationsGroup extends apiGroup("cardSimulations", { title: "Sandbox (cards)", permission: "MANAGE", sandboxOnly: true },
  simulate("sandboxSimulateCardAuthorization", "authorization", Simulations.SandboxCardAuthorizationRequest, `An authorization: a new DEBIT row, AUTHORIZED with the amount held on the funding account, or DECLINED with cardDeclinedReason. ${SUFFIXES}`),
  simulate("sandboxSimulateCardClearing", "clearing", Simulations.SandboxCardClearingRequest, "A clearing on an AUTHORIZED or PARTIALLY_SETTLED row: PARTIALLY_SETTLED below the open amount, SETTLED at or above it (a post-hoc pull for the excess, EXCEPTION if uncovered); amount 0 expires the authorization (VOIDED, or SETTLED after a partial clearing)."),
  simulate("sandboxSimulateCardReturn", "return", Simulations.SandboxCardReturnRequest, "A merchant return on a settled purchase: the purchase stays SETTLED with refundedAmount; the return opens its own CREDIT row, SETTLED, with originalTransactionId (SPEC.md). At most settled minus already returned."),
  simulate("sandboxSimulateCardBalanceInquiry", "balance_inquiry", Simulations.SandboxCardBalanceInquiryRequest, "A 0-amount authorization: decisioning without money (AUTHORIZED with 0, or DECLINED)."),
  simulate("sandboxSimulateCardCreditAuthorization", "credit_authorization", Simulations.SandboxCardAuthorizationRequest, `A credit authorization: a new CREDIT row, AUTHORIZED, credited to the funding account when cleared. ${SUFFIXES}`),
  simulate("sandboxSimulateCardFinancialAuthorization", "financial_authorization", Simulations.SandboxCardAuthorizationRequest, `A single-message debit: SETTLED at once. ${SUFFIXES}`),
  simulate("sandboxSimulateCardFinancialCreditAuthorization", "financial_credit_authorization", Simulations.SandboxCardAuthorizationRequest, `A single-message credit: SETTLED at once, credited to the funding account. ${SUFFIXES}`),
  simulate("sandboxSimulateCardAuthorizationAdvice", "authorization_advice", Simulations.SandboxCardAuthorizationAdviceRequest, "Re-sizes an AUTHORIZED or PARTIALLY_SETTLED row to a new total: an increase is held if the account covers it, a decrease released."),
  simulate("sandboxSimulateCardCreditAuthorizationAdvice", "credit_authorization_advice", Simulations.SandboxCardAuthorizationRequest, `A network credit authorization advice: like credit_authorization. ${SUFFIXES}`),
  simulate("sandboxSimulateCardReturnReversal", "return_reversal", Simulations.SandboxCardTransactionRefRequest, "Reverses a merchant return: cardTransactionId names the return's own row (SPEC.md), which becomes VOIDED; the purchase's refundedAmount goes down.")
) {}
