import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import * as Actions from "../../operations/wallets/actions.js"
import * as Auth from "../../operations/wallets/auth.js"
import * as DelegatedKeys from "../../operations/wallets/delegated-keys.js"
import type { Signed, SignedHeaders } from "../../operations/wallets/signed.js"
import { implement } from "../concerns.js"
import { EmbeddedWalletAuthGroup, InternalAccountActionsGroup } from "../groups/wallets.js"
import { run } from "./run.js"

export const signedHeaders = (h: { readonly "service-wallet-signature"?: string | undefined; readonly "request-id"?: string | undefined }): SignedHeaders => ({
  signature: h["service-wallet-signature"],
  requestId: h["request-id"]
})

/** The first leg's 202, or the action's answer. */
export const answer = <A, B>(signed: Signed<A>, done: (a: A) => B): B | HttpServerResponse.HttpServerResponse =>
  signed._tag === "Challenge" ? HttpServerResponse.jsonUnsafe(signed.challenge, { status: 202 }) : done(signed.value)

const noContent = () => HttpServerResponse.empty({ status: 204 })

export const EmbeddedWalletAuthHandlers = implement(EmbeddedWalletAuthGroup, (handlers) =>
  handlers
    .handle("createAuthCredential", ({ headers, payload }) =>
      Effect.map(run((p) => Auth.createCredential(p, payload, signedHeaders(headers))), (s) =>
        answer(s, (v) => HttpServerResponse.jsonUnsafe(v, { status: 201 }))))
    .handle("listAuthCredentials", ({ query }) => run((p) => Auth.listCredentials(p, query.accountId)))
    .handle("revokeAuthCredential", ({ headers, params }) =>
      Effect.map(run((p) => Auth.revokeCredential(p, params.id, signedHeaders(headers))), (s) => answer(s, noContent)))
    .handle("challengeAuthCredential", ({ params, payload }) =>
      Effect.map(run((p) => Auth.challengeCredential(p, params.id, payload ?? {})), (r) =>
        HttpServerResponse.jsonUnsafe(r.body, { headers: { "request-id": r.requestId } })))
    .handle("verifyAuthCredential", ({ headers, params, payload }) =>
      Effect.map(run((p) => Auth.verifyCredential(p, params.id, payload, signedHeaders(headers))), (s) =>
        answer(s, (v) => HttpServerResponse.jsonUnsafe(v, s.requestId === undefined ? {} : { headers: { "request-id": s.requestId } }))))
    .handle("listAuthSessions", ({ query }) => run((p) => Auth.listSessions(p, query.accountId)))
    .handle("revokeAuthSession", ({ headers, params }) =>
      Effect.map(run((p) => Auth.revokeSession(p, params.id, signedHeaders(headers))), (s) => answer(s, noContent)))
    .handle("refreshAuthSession", ({ headers, params, payload }) =>
      Effect.map(run((p) => Auth.refreshSession(p, params.id, payload, signedHeaders(headers))), (s) =>
        answer(s, (v) => HttpServerResponse.jsonUnsafe(v, { status: 201 }))))
    .handle("createDelegatedKey", ({ headers, payload }) =>
      Effect.map(run((p) => DelegatedKeys.createDelegatedKey(p, payload, signedHeaders(headers))), (s) =>
        answer(s, (v) => HttpServerResponse.jsonUnsafe(v, { status: 201 }))))
    .handle("listDelegatedKeys", ({ query }) => run((p) => DelegatedKeys.listDelegatedKeys(p, query)))
    .handle("getDelegatedKeyById", ({ params }) => run((p) => DelegatedKeys.getDelegatedKey(p, params.id)))
    .handle("revokeDelegatedKey", ({ params }) => Effect.map(run((p) => DelegatedKeys.revokeDelegatedKey(p, params.id)), noContent)))

export const InternalAccountActionsHandlers = implement(InternalAccountActionsGroup, (handlers) =>
  handlers
    .handle("updateInternalAccount", ({ headers, params, payload }) =>
      Effect.map(run((p) => Actions.updateInternalAccount(p, params.id, payload, signedHeaders(headers))), (s) =>
        answer(s, (v) => HttpServerResponse.jsonUnsafe(v))))
    .handle("exportInternalAccount", ({ headers, params, payload }) =>
      Effect.map(run((p) => Actions.exportInternalAccount(p, params.id, payload, signedHeaders(headers))), (s) =>
        answer(s, (v) => HttpServerResponse.jsonUnsafe(v)))))
