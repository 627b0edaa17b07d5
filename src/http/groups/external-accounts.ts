/**
 * External accounts of customers and of the platform: the same endpoints under two bases,
 * and a customer's beneficiary trust changes (SCA).
 */
import { Schema } from "effect"
import { HttpApiEndpoint } from "effect/http-api"
import { CurrencyCode, IdText, ListResponse } from "../../domain/common.js"
import { Error409 } from "../../domain/errors.js"
import {
  CustomerExternalAccountCreateRequest,
  ExternalAccount,
  OwnershipChallenge,
  OwnershipChallengeRequest,
  OwnershipVerifyRequest,
  PlatformExternalAccountCreateRequest
} from "../../domain/external-account.js"
import { acts, apiGroup, byId, created, creates, deletes, NotFoundOrConflict, page } from "../endpoints.js"

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
