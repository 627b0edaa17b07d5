/**
 * The HttpApi definition: the API contract. Schemas here are the request validation,
 * the response encoding and the generated OpenAPI document.
 */
import { Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiSchema, OpenApi } from "effect/http-api"
import { CountryCode, CurrencyCode, IdText, ListResponse } from "../domain/common.js"
import { CustomerCreateRequest, CustomerResponse, CustomerType, CustomerUpdateRequest } from "../domain/customer.js"
import { Error403, Error404, Error409, Error410 } from "../domain/errors.js"
import { MAX_ADVANCE_SECONDS } from "../domain/limits.js"
import { SignedRequestChallenge, SignedRequestHeaders } from "../domain/wallet.js"
import {
  CustomerExternalAccountCreateRequest,
  ExternalAccount,
  OwnershipChallenge,
  OwnershipChallengeRequest,
  OwnershipVerifyRequest,
  PlatformExternalAccountCreateRequest
} from "../domain/external-account.js"
import { AgentDeviceCodesGroup, AgentOperationsGroup, AgentsGroup } from "./groups/agents.js"
import { AgreementsGroup } from "./groups/agreements.js"
import { BeneficialOwnersGroup } from "./groups/beneficial-owners.js"
import { CardSimulationsGroup } from "./groups/card-simulations.js"
import { CardsGroup } from "./groups/cards.js"
import { CryptoWithdrawalsGroup, UmaProvidersGroup, VaspsGroup } from "./groups/directories.js"
import { DocumentsGroup } from "./groups/documents.js"
import { InvitationsGroup } from "./groups/invitations.js"
import { BulkCustomersGroup } from "./groups/bulk-customers.js"
import { KycHostedFlowGroup, KycLinksGroup } from "./groups/kyc-links.js"
import { DiscoveriesGroup, ReceiverLookupsGroup } from "./groups/lookups.js"
import {
  ExchangeRatesGroup,
  InternalAccountsGroup,
  PlatformConfigGroup,
  QuotesGroup,
  SandboxMoneyGroup,
  TransactionsGroup,
  TransfersGroup
} from "./groups/money.js"
import { ContactVerificationGroup, ScaGroup } from "./groups/sca.js"
import { SandboxControlGroup } from "./groups/sandbox-control.js"
import { StablecoinsGroup } from "./groups/stablecoins.js"
import { TokensGroup } from "./groups/tokens.js"
import { VerificationsGroup } from "./groups/verifications.js"
import { WebhooksGroup } from "./groups/webhooks.js"
import { SandboxInsightGroup } from "./groups/insight.js"
import { EmbeddedWalletAuthGroup, InternalAccountActionsGroup } from "./groups/wallets.js"
import { PlatformAuth, RequestGuard } from "./middleware.js"
import {
  accepted,
  acts,
  apiGroup,
  byId,
  created,
  CreatedUpdatedFilters,
  creates,
  deletes,
  NotFoundOrConflict,
  page
} from "./endpoints.js"

export const API_VERSION = "2025-10-13"

/** How request bodies are decoded: every invalid field is reported, not just the first. */
export const PAYLOAD_PARSE_OPTIONS = { errors: "all" } as const

const BooleanFromString = Schema.Literals(["true", "false"])

const customerParams = { customerId: IdText }

// ---------------------------------------------------------------- customers

export class CustomersGroup extends apiGroup("customers", { title: "Customers", permission: "MANAGE" },
  HttpApiEndpoint.post("createCustomer", "/customers", creates(CustomerCreateRequest, CustomerResponse, Error409)),
  HttpApiEndpoint.get("listCustomers", "/customers", {
    query: page({
      platformCustomerId: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(255))),
      customerType: Schema.optionalKey(CustomerType),
      ...CreatedUpdatedFilters,
      region: Schema.optionalKey(CountryCode),
      currency: Schema.optionalKey(CurrencyCode),
      umaAddress: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(255))),
      isIncludingDeleted: Schema.optionalKey(BooleanFromString)
    }),
    success: ListResponse(CustomerResponse, "CustomerListResponse")
  }),
  HttpApiEndpoint.get("getCustomer", "/customers/:customerId", byId(customerParams, CustomerResponse)),
  HttpApiEndpoint.patch("updateCustomer", "/customers/:customerId", {
    headers: SignedRequestHeaders,
    ...acts(customerParams, CustomerUpdateRequest, [CustomerResponse, accepted(SignedRequestChallenge)], NotFoundOrConflict)
  }).annotate(
    OpenApi.Description,
    "Changing email (phoneNumber) of a customer whose embedded wallet has an EMAIL_OTP (SMS_OTP) credential is a signed wallet action: 202 with payloadToSign, then the same request with Service-Wallet-Signature and Request-Id. Every other update completes at once."
  ),
  HttpApiEndpoint.delete("deleteCustomer", "/customers/:customerId", { params: customerParams, success: CustomerResponse, error: [Error404, Error410] })
) {}

// ---------------------------------------------------------------- external accounts

const accountParams = { externalAccountId: IdText }

const TrustStart = Schema.Struct({
  scaChallenge: Schema.Struct({
    id: Schema.String,
    expiresAt: Schema.String,
    factor: Schema.String,
    availableFactors: Schema.Array(Schema.String)
  })
}).annotate({ identifier: "BeneficiaryTrustStart" })

/**
 * The SCA proof: `code` (SMS_OTP / TOTP), or `passkeyAssertion` with `origin` (PASSKEY),
 * as the reference's ScaAuthorization fields.
 */
const TrustConfirmRequest = Schema.Struct({
  challengeId: Schema.optionalKey(Schema.NullOr(Schema.String.check(Schema.isMaxLength(255)))),
  code: Schema.optionalKey(Schema.NullOr(Schema.String.check(Schema.isMaxLength(64)))),
  passkeyAssertion: Schema.optionalKey(Schema.NullOr(Schema.Record(Schema.String, Schema.Unknown))),
  origin: Schema.optionalKey(Schema.NullOr(Schema.String.check(Schema.isMaxLength(2048))))
}).annotate({ identifier: "BeneficiaryTrustConfirmRequest" })

const TrustConfirm = Schema.Struct({ trusted: Schema.Boolean }).annotate({ identifier: "BeneficiaryTrustConfirm" })

/** The two legs of changing a beneficiary's trust (SCA challenge, then its proof). */
const startsTrustChange = { params: accountParams, success: TrustStart, error: NotFoundOrConflict }
const confirmsTrustChange = acts(accountParams, TrustConfirmRequest, TrustConfirm, NotFoundOrConflict)

/** The identifiers of an owner's external-account endpoints. */
interface AccountEndpointNames<C, L, G, D, Ch, V> {
  readonly create: C
  readonly list: L
  readonly get: G
  readonly delete: D
  readonly challenge: Ch
  readonly verify: V
}

/**
 * The external-account endpoints of an owner, the same for a customer's and the
 * platform's (`base`, the identifiers, the create payload and the list filters differ):
 * create, list, read, delete, and prove ownership.
 */
const accountEndpoints = <
  const Base extends `/${string}`,
  const C extends string,
  const L extends string,
  const G extends string,
  const D extends string,
  const Ch extends string,
  const V extends string,
  const P extends Schema.Top,
  const F extends Schema.Struct.Fields
>(base: Base, names: AccountEndpointNames<C, L, G, D, Ch, V>, create: P, filters: F, listIdentifier: string) => [
  HttpApiEndpoint.post(names.create, base, creates(create, ExternalAccount, Error409)),
  HttpApiEndpoint.get(names.list, base, { query: page(filters), success: ListResponse(ExternalAccount, listIdentifier) }),
  HttpApiEndpoint.get(names.get, `${base}/:externalAccountId`, byId(accountParams, ExternalAccount)),
  HttpApiEndpoint.delete(names.delete, `${base}/:externalAccountId`, deletes(accountParams, NotFoundOrConflict)),
  HttpApiEndpoint.post(
    names.challenge,
    `${base}/:externalAccountId/challenge`,
    acts(accountParams, OwnershipChallengeRequest, created(OwnershipChallenge), NotFoundOrConflict)
  ),
  HttpApiEndpoint.post(names.verify, `${base}/:externalAccountId/verify`, acts(accountParams, OwnershipVerifyRequest, ExternalAccount, NotFoundOrConflict))
] as const

/** A customer's beneficiary (trusted) status changes in two legs each (SCA challenge, then its proof). */
const trustChangeEndpoints = [
  HttpApiEndpoint.post("startBeneficiaryTrust", "/customers/external-accounts/:externalAccountId/trust", startsTrustChange),
  HttpApiEndpoint.post("confirmBeneficiaryTrust", "/customers/external-accounts/:externalAccountId/trust/confirm", confirmsTrustChange),
  HttpApiEndpoint.post("startBeneficiaryUntrust", "/customers/external-accounts/:externalAccountId/untrust", startsTrustChange),
  HttpApiEndpoint.post("confirmBeneficiaryUntrust", "/customers/external-accounts/:externalAccountId/untrust/confirm", confirmsTrustChange)
] as const

export class CustomerExternalAccountsGroup extends apiGroup(
  "customerExternalAccounts",
  { title: "External Accounts (customer)", permission: "MANAGE" },
  ...accountEndpoints(
    "/customers/external-accounts",
    {
      create: "createCustomerExternalAccount",
      list: "listCustomerExternalAccounts",
      get: "getCustomerExternalAccount",
      delete: "deleteCustomerExternalAccount",
      challenge: "createExternalAccountOwnershipChallenge",
      verify: "verifyExternalAccountOwnership"
    },
    CustomerExternalAccountCreateRequest,
    { currency: Schema.optionalKey(CurrencyCode), customerId: Schema.optionalKey(IdText) },
    "ExternalAccountListResponse"
  ),
  ...trustChangeEndpoints
) {}

export class PlatformExternalAccountsGroup extends apiGroup(
  "platformExternalAccounts",
  { title: "External Accounts (platform)", permission: "MANAGE" },
  ...accountEndpoints(
    "/platform/external-accounts",
    {
      create: "createPlatformExternalAccount",
      list: "listPlatformExternalAccounts",
      get: "getPlatformExternalAccount",
      delete: "deletePlatformExternalAccount",
      challenge: "createPlatformExternalAccountOwnershipChallenge",
      verify: "verifyPlatformExternalAccountOwnership"
    },
    PlatformExternalAccountCreateRequest,
    { currency: Schema.optionalKey(CurrencyCode) },
    "PlatformExternalAccountListResponse"
  )
) {}

// ---------------------------------------------------------------- sandbox

export const SandboxClock = Schema.Struct({ now: Schema.String, offsetSeconds: Schema.Number })
  .annotate({ identifier: "SandboxClock" })

export class SandboxGroup extends apiGroup(
  "sandbox",
  { title: "Sandbox", description: "Sandbox-only controls of the reference server.", permission: "MANAGE" },
  HttpApiEndpoint.post("advanceClock", "/sandbox/clock/advance", {
    payload: Schema.Struct({ seconds: Schema.Number.check(Schema.isInt(), Schema.isBetween({ minimum: 0, maximum: MAX_ADVANCE_SECONDS })) }),
    success: SandboxClock,
    error: Error403
  }),
  HttpApiEndpoint.get("getClock", "/sandbox/clock", { success: SandboxClock, error: Error403 }),
  HttpApiEndpoint.post("resetSandbox", "/sandbox/reset", {
    success: HttpApiSchema.NoContent,
    error: Error403
  }).annotate(OpenApi.Description, "Deletes every resource, event, scheduled move, idempotency key and the clock offset of the calling sandbox platform.")
) {}

export class PaymentsApi extends HttpApi.make("payments-service")
  .add(AgreementsGroup)
  .add(CustomersGroup)
  .add(ContactVerificationGroup)
  .add(ScaGroup)
  .add(CustomerExternalAccountsGroup)
  .add(PlatformExternalAccountsGroup)
  .add(SandboxGroup)
  .add(VerificationsGroup)
  .add(DocumentsGroup)
  .add(BeneficialOwnersGroup)
  .add(PlatformConfigGroup)
  .add(ExchangeRatesGroup)
  .add(InternalAccountsGroup)
  .add(QuotesGroup)
  .add(TransactionsGroup)
  .add(TransfersGroup)
  .add(SandboxMoneyGroup)
  .add(WebhooksGroup)
  .add(DiscoveriesGroup)
  .add(ReceiverLookupsGroup)
  .add(EmbeddedWalletAuthGroup)
  .add(InternalAccountActionsGroup)
  .add(CardsGroup)
  .add(StablecoinsGroup)
  .add(CardSimulationsGroup)
  .add(VaspsGroup)
  .add(UmaProvidersGroup)
  .add(CryptoWithdrawalsGroup)
  .add(InvitationsGroup)
  .add(KycLinksGroup)
  .add(SandboxInsightGroup)
  .add(SandboxControlGroup)
  .add(BulkCustomersGroup)
  .add(TokensGroup)
  .middleware(RequestGuard)
  .middleware(PlatformAuth)
  .prefix(`/${API_VERSION}`)
  // Added last: these groups carry their own middleware (HTTP Basic; none; the agent scheme)
  // and their own version prefix, so the API's type names them instead of spelling them out.
  .add(AgentsGroup)
  .add(AgentDeviceCodesGroup)
  .add(AgentOperationsGroup)
  .add(KycHostedFlowGroup)
  .annotate(HttpApi.PayloadParseOptions, PAYLOAD_PARSE_OPTIONS)
  .annotate(HttpApi.QueryParseOptions, { errors: "all" })
  .annotateMerge(OpenApi.annotations({
    title: "payments-service",
    version: API_VERSION,
    description: "Reference implementation of a cross-border payments API, sandbox included."
  }))
{}

