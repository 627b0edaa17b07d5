/**
 * Embedded wallets over HTTP: Embedded Wallet Auth (credentials, sessions) and the
 * signed internal-account actions. Signed endpoints answer 202 with a challenge on the
 * first leg and their own success on the signed retry (docs/embedded-wallets.md).
 */
import { Schema } from "effect"
import { Concerns, declare } from "../declarations.js"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
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

const status = (code: number) => <S extends Schema.Top>(s: S) => s.pipe(HttpApiSchema.status(code))
const accepted = status(202)
const created = status(201)
const idParams = { id: IdText }

export class EmbeddedWalletAuthGroup extends HttpApiGroup.make("embeddedWalletAuth")
  .annotate(Concerns, { permission: "MANAGE" })
  .add(
    HttpApiEndpoint.post("createAuthCredential", "/auth/credentials", {
      headers: SignedRequestHeaders,
      payload: AuthCredentialCreateRequest,
      success: [created(AuthMethodResponse), accepted(AuthSignedRequestChallenge)],
      error: [Error404, Error409]
    }).annotate(OpenApi.Description, "The first credential of an embedded wallet needs platform auth alone; adding another is a signed flow."),
    HttpApiEndpoint.get("listAuthCredentials", "/auth/credentials", {
      query: { accountId: IdText },
      success: AuthCredentialListResponse
    }),
    HttpApiEndpoint.delete("revokeAuthCredential", "/auth/credentials/:id", {
      params: idParams,
      headers: SignedRequestHeaders,
      success: [HttpApiSchema.NoContent, accepted(AuthSignedRequestChallenge)],
      error: [Error404, Error409]
    }),
    HttpApiEndpoint.post("challengeAuthCredential", "/auth/credentials/:id/challenge", {
      params: idParams,
      payload: AuthCredentialChallengeRequest,
      success: AuthCredentialResponse,
      error: [Error404, Error409, Error429]
    }).pipe(declare({ retryAfter: true })),
    HttpApiEndpoint.post("verifyAuthCredential", "/auth/credentials/:id/verify", {
      params: idParams,
      headers: SignedRequestHeaders,
      payload: AuthCredentialVerifyRequest,
      success: [AuthSession, accepted(AuthSignedRequestChallenge)],
      error: [Error404, Error409, Error429]
    }).pipe(declare({ retryAfter: true })),
    HttpApiEndpoint.get("listAuthSessions", "/auth/sessions", {
      query: { accountId: IdText },
      success: SessionListResponse
    }),
    HttpApiEndpoint.delete("revokeAuthSession", "/auth/sessions/:id", {
      params: idParams,
      headers: SignedRequestHeaders,
      success: [HttpApiSchema.NoContent, accepted(AuthSignedRequestChallenge)],
      error: [Error404, Error409]
    }),
    HttpApiEndpoint.post("refreshAuthSession", "/auth/sessions/:id/refresh", {
      params: idParams,
      headers: SignedRequestHeaders,
      payload: AuthSessionRefreshRequest,
      success: [created(AuthSession), accepted(AuthSignedRequestChallenge)],
      error: [Error404, Error409]
    }),
    HttpApiEndpoint.post("createDelegatedKey", "/auth/delegated-keys", {
      headers: SignedRequestHeaders,
      payload: DelegatedKeyCreateRequest,
      success: [created(DelegatedKey), accepted(DelegatedKeySignedRequestChallenge)],
      error: [Error404, Error409]
    }).annotate(
      OpenApi.Description,
      "A three-leg signed flow: 202 (sign payloadToSign), 202 again after the first signed retry (the key is PENDING), 201 after the second (ACTIVE)."
    ),
    HttpApiEndpoint.get("listDelegatedKeys", "/auth/delegated-keys", {
      query: { accountId: Schema.optionalKey(IdText), fundingSourceId: Schema.optionalKey(IdText) },
      success: DelegatedKeyListResponse
    }).annotate(OpenApi.Description, "At least one of accountId and fundingSourceId; PENDING and REVOKED keys included."),
    HttpApiEndpoint.get("getDelegatedKeyById", "/auth/delegated-keys/:id", {
      params: idParams,
      success: DelegatedKey,
      error: Error404
    }),
    HttpApiEndpoint.delete("revokeDelegatedKey", "/auth/delegated-keys/:id", {
      params: idParams,
      success: HttpApiSchema.NoContent,
      error: Error404
    })
  )
  .annotateMerge(OpenApi.annotations({ title: "Embedded Wallet Auth" }))
{}

export class InternalAccountActionsGroup extends HttpApiGroup.make("internalAccountActions")
  .annotate(Concerns, { permission: "MANAGE" })
  .add(
    HttpApiEndpoint.patch("updateInternalAccount", "/internal-accounts/:id", {
      params: idParams,
      headers: SignedRequestHeaders,
      payload: InternalAccountUpdateRequest,
      success: [InternalAccount, accepted(SignedRequestChallenge)],
      error: [Error404, Error409]
    }),
    HttpApiEndpoint.post("exportInternalAccount", "/internal-accounts/:id/export", {
      params: idParams,
      headers: SignedRequestHeaders,
      payload: InternalAccountExportRequest,
      success: [InternalAccountExportResponse, accepted(SignedRequestChallenge)],
      error: [Error404, Error409]
    })
  )
  .annotateMerge(OpenApi.annotations({ title: "Internal Accounts (embedded wallet actions)" }))
{}
