import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { HttpServerResponse } from "effect/http"
import { encodeApiError, Error429 } from "../../domain/errors.js"
import * as Actions from "../../operations/wallets/actions.js"
import * as Auth from "../../operations/wallets/auth.js"
import * as DelegatedKeys from "../../operations/wallets/delegated-keys.js"
import type { Signed, SignedHeaders } from "../../operations/wallets/signed.js"
import { PaymentsApi } from "../api.js"
import { run } from "./run.js"

export const signedHeaders = (h: { readonly "service-wallet-signature"?: string | undefined; readonly "request-id"?: string | undefined }): SignedHeaders => ({
  signature: h["service-wallet-signature"],
  requestId: h["request-id"]
})

/** The first leg's 202, or the action's answer. */
export const answer = <A, B>(signed: Signed<A>, done: (a: A) => B): B | HttpServerResponse.HttpServerResponse =>
  signed._tag === "Challenge" ? HttpServerResponse.jsonUnsafe(signed.challenge, { status: 202 }) : done(signed.value)

const noContent = () => HttpServerResponse.empty({ status: 204 })

/** 429 RATE_LIMITED with `Retry-After` (seconds), as the reference file gives it. */
const withRetryAfter = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A | HttpServerResponse.HttpServerResponse, E, R> =>
  Effect.catch(effect, (e) => {
    if (!(e instanceof Error429)) return Effect.fail(e)
    const encoded = encodeApiError(e)
    const seconds = e.details?.["retryAfterSeconds"]
    return Effect.succeed(HttpServerResponse.jsonUnsafe(encoded?.body ?? { code: e.code, reason: e.reason, message: e.reason }, {
      status: 429,
      headers: { "retry-after": String(typeof seconds === "number" ? seconds : 60) }
    }))
  })

export const EmbeddedWalletAuthHandlers = HttpApiBuilder.group(PaymentsApi, "embeddedWalletAuth", (handlers) =>
  Effect.sync(() =>
    handlers
      .handle("createAuthCredential", ({ headers, payload }) =>
        Effect.map(run((p) => Auth.createCredential(p, payload, signedHeaders(headers))), (s) =>
          answer(s, (v) => HttpServerResponse.jsonUnsafe(v, { status: 201 }))))
      .handle("listAuthCredentials", ({ query }) => run((p) => Auth.listCredentials(p, query.accountId)))
      .handle("revokeAuthCredential", ({ headers, params }) =>
        Effect.map(run((p) => Auth.revokeCredential(p, params.id, signedHeaders(headers))), (s) => answer(s, noContent)))
      .handle("challengeAuthCredential", ({ params, payload }) =>
        withRetryAfter(Effect.map(run((p) => Auth.challengeCredential(p, params.id, payload)), (r) =>
          HttpServerResponse.jsonUnsafe(r.body, { headers: { "request-id": r.requestId } }))))
      .handle("verifyAuthCredential", ({ headers, params, payload }) =>
        withRetryAfter(Effect.map(run((p) => Auth.verifyCredential(p, params.id, payload, signedHeaders(headers))), (s) =>
          answer(s, (v) => HttpServerResponse.jsonUnsafe(v, s.requestId === undefined ? {} : { headers: { "request-id": s.requestId } })))))
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
      .handle("revokeDelegatedKey", ({ params }) => Effect.map(run((p) => DelegatedKeys.revokeDelegatedKey(p, params.id)), noContent))
  ))

export const InternalAccountActionsHandlers = HttpApiBuilder.group(PaymentsApi, "internalAccountActions", (handlers) =>
  Effect.sync(() =>
    handlers
      .handle("updateInternalAccount", ({ headers, params, payload }) =>
        Effect.map(run((p) => Actions.updateInternalAccount(p, params.id, payload, signedHeaders(headers))), (s) =>
          answer(s, (v) => HttpServerResponse.jsonUnsafe(v))))
      .handle("exportInternalAccount", ({ headers, params, payload }) =>
        Effect.map(run((p) => Actions.exportInternalAccount(p, params.id, payload, signedHeaders(headers))), (s) =>
          answer(s, (v) => HttpServerResponse.jsonUnsafe(v))))
  ))
