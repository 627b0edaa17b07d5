/**
 * Embedded wallets over HTTP: Embedded Wallet Auth (credentials, sessions) and the
 * signed internal-account actions. Signed endpoints answer 202 with a challenge on the
 * first leg and their own success on the signed retry (docs/embedded-wallets.md).
 */
import { Schema } from "effect"
import { declare } from "../declarations.js"
import { accepted, apiGroup, byId, created, deletes, NotFoundOrConflict } from "../endpoints.js"
import { HttpApiEndpoint, HttpApiSchema, OpenApi } from "effect/http-api"
import { IdText } from "../../domain/common.js"
import { Error404, Error409, Error429 } from "../../domain/errors.js"
import { InternalAccount } from "../../domain/internal-account.js"
import {
  AuthCredentialChallengeRequest,
  AuthCredentialCreateRequest,
  AuthCredentialListResponse,
  AuthCredentialResponse,
  AuthCredentialVerifyRequest,
  AuthMethodResponse,
  AuthSession,
  AuthSessionRefreshRequest,
  AuthSignedRequestChallenge,
  DelegatedKey,
  DelegatedKeyCreateRequest,
  DelegatedKeyListResponse,
  DelegatedKeySignedRequestChallenge,
  InternalAccountExportRequest,
  InternalAccountExportResponse,
  InternalAccountUpdateRequest,
  SessionListResponse,
  SignedRequestChallenge,
  SignedRequestHeaders
} from "../../domain/wallet.js"

const idParams = { id: IdText }

/**
 * A signed wallet action (docs/embedded-wallets.md): its own success, or 202 with the
 * challenge to sign on the first leg.
 */
const signed = <
  const B extends Schema.Top,
  const S extends Schema.Top,
  const C extends Schema.Top,
  const E extends Schema.Top | ReadonlyArray<Schema.Top>
>(payload: B, success: S, challenge: C, error: E) => ({
  headers: SignedRequestHeaders,
  payload,
  success: [success, accepted(challenge)],
  error
})
/** A signed action on the resource the path names. */
const signedOn = <const B extends Schema.Top, const S extends Schema.Top, const C extends Schema.Top>(payload: B, success: S, challenge: C) => ({
  params: idParams,
  ...signed(payload, success, challenge, NotFoundOrConflict)
})
/** Revoking the resource the path names: 204, or 202 with the challenge to sign. */
const signedRevoke = {
  params: idParams,
  headers: SignedRequestHeaders,
  success: [HttpApiSchema.NoContent, accepted(AuthSignedRequestChallenge)],
  error: NotFoundOrConflict
}
/** The wallet's list of the account the query names. */
const ofAccount = <const S extends Schema.Top>(success: S) => ({ query: { accountId: IdText }, success })

export class EmbeddedWalletAuthGroup extends apiGroup("embeddedWalletAuth", { title: "Embedded Wallet Auth", permission: "MANAGE" },
  HttpApiEndpoint.post(
    "createAuthCredential",
    "/auth/credentials",
    signed(AuthCredentialCreateRequest, created(AuthMethodResponse), AuthSignedRequestChallenge, NotFoundOrConflict)
  ).annotate(OpenApi.Description, "The first credential of an embedded wallet needs platform auth alone; adding another is a signed flow."),
  HttpApiEndpoint.get("listAuthCredentials", "/auth/credentials", ofAccount(AuthCredentialListResponse)),
  HttpApiEndpoint.delete("revokeAuthCredential", "/auth/credentials/:id", signedRevoke),
  HttpApiEndpoint.post("challengeAuthCredential", "/auth/credentials/:id/challenge", {
    params: idParams,
    // The body is optional (the reference's `requestBody.required: false`; only a passkey's
    // re-challenge needs one): an empty body decodes as null.
    payload: [AuthCredentialChallengeRequest, Schema.Null],
    success: AuthCredentialResponse,
    error: [Error404, Error409, Error429]
  }).pipe(declare({ retryAfter: true })),
  HttpApiEndpoint.post("verifyAuthCredential", "/auth/credentials/:id/verify", {
    params: idParams,
    ...signed(AuthCredentialVerifyRequest, AuthSession, AuthSignedRequestChallenge, [Error404, Error409, Error429])
  }).pipe(declare({ retryAfter: true })),
  HttpApiEndpoint.get("listAuthSessions", "/auth/sessions", ofAccount(SessionListResponse)),
  HttpApiEndpoint.delete("revokeAuthSession", "/auth/sessions/:id", signedRevoke),
  HttpApiEndpoint.post("refreshAuthSession", "/auth/sessions/:id/refresh", signedOn(AuthSessionRefreshRequest, created(AuthSession), AuthSignedRequestChallenge)),
  HttpApiEndpoint.post(
    "createDelegatedKey",
    "/auth/delegated-keys",
    signed(DelegatedKeyCreateRequest, created(DelegatedKey), DelegatedKeySignedRequestChallenge, NotFoundOrConflict)
  ).annotate(
    OpenApi.Description,
    "A three-leg signed flow: 202 (sign payloadToSign), 202 again after the first signed retry (the key is PENDING), 201 after the second (ACTIVE)."
  ),
  HttpApiEndpoint.get("listDelegatedKeys", "/auth/delegated-keys", {
    query: { accountId: Schema.optionalKey(IdText), fundingSourceId: Schema.optionalKey(IdText) },
    success: DelegatedKeyListResponse
  }).annotate(OpenApi.Description, "At least one of accountId and fundingSourceId; PENDING and REVOKED keys included."),
  HttpApiEndpoint.get("getDelegatedKeyById", "/auth/delegated-keys/:id", byId(idParams, DelegatedKey)),
  HttpApiEndpoint.delete("revokeDelegatedKey", "/auth/delegated-keys/:id", deletes(idParams, Error404))
) {}

export class InternalAccountActionsGroup extends apiGroup(
  "internalAccountActions",
  { title: "Internal Accounts (embedded wallet actions)", permission: "MANAGE" },
  HttpApiEndpoint.patch("updateInternalAccount", "/internal-accounts/:id", signedOn(InternalAccountUpdateRequest, InternalAccount, SignedRequestChallenge)),
  HttpApiEndpoint.post("exportInternalAccount", "/internal-accounts/:id/export", signedOn(InternalAccountExportRequest, InternalAccountExportResponse, SignedRequestChallenge))
) {}
