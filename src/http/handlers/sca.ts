import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { HttpServerResponse } from "effect/http"
import { encodeApiError, Error429 } from "../../domain/errors.js"
import * as Authorization from "../../operations/sca/authorization.js"
import * as Contact from "../../operations/sca/contact.js"
import * as Sca from "../../operations/sca/factors.js"
import { PaymentsApi } from "../api.js"
import { run } from "./run.js"

/** 429 RATE_LIMITED with `Retry-After` (seconds), as the reference file gives it. */
export const withRetryAfter = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A | HttpServerResponse.HttpServerResponse, E, R> =>
  Effect.catch(effect, (e) => {
    if (!(e instanceof Error429)) return Effect.fail(e)
    const encoded = encodeApiError(e)
    const seconds = e.details?.["retryAfterSeconds"]
    return Effect.succeed(HttpServerResponse.jsonUnsafe(encoded?.body ?? { code: e.code, reason: e.reason, message: e.reason }, {
      status: 429,
      headers: { "retry-after": String(typeof seconds === "number" ? seconds : 60) }
    }))
  })

export const ContactVerificationHandlers = HttpApiBuilder.group(PaymentsApi, "contactVerification", (handlers) =>
  Effect.sync(() =>
    handlers
      .handle("sendCustomerEmailVerification", ({ params }) =>
        run((p) => Contact.sendContactVerification(p, params.customerId, "email")))
      .handle("confirmCustomerEmailVerification", ({ params, payload }) =>
        run((p) => Contact.confirmContactVerification(p, params.customerId, "email", payload.code)))
      .handle("sendCustomerPhoneVerification", ({ params }) =>
        run((p) => Contact.sendContactVerification(p, params.customerId, "phone")))
      .handle("confirmCustomerPhoneVerification", ({ params, payload }) =>
        run((p) => Contact.confirmContactVerification(p, params.customerId, "phone", payload.code)))
  )
)

export const ScaHandlers = HttpApiBuilder.group(PaymentsApi, "sca", (handlers) =>
  Effect.sync(() =>
    handlers
      .handle("listScaFactors", ({ query }) => run((p) => Sca.listScaFactors(p, query.customerId)))
      .handle("startScaFactorEnrollment", ({ query, payload }) => run((p) => Sca.startScaFactorEnrollment(p, query.customerId, payload)))
      .handle("confirmScaFactorEnrollment", ({ query, payload }) => run((p) => Sca.confirmScaFactorEnrollment(p, query.customerId, payload)))
      .handle("deleteScaFactor", ({ params, query }) => run((p) => Sca.deleteScaFactor(p, query.customerId, params.credentialId)))
      .handle("startScaLogin", ({ query, payload }) => run((p) => Sca.startScaLogin(p, query.customerId, payload.factor)))
      .handle("completeScaLogin", ({ query, payload }) => run((p) => Sca.completeScaLogin(p, query.customerId, payload)))
      .handle("recordSecurityEvent", ({ query, payload }) => run((p) => Sca.recordSecurityEvent(p, query.customerId, payload.eventType)))
      .handle("startTwoFactorReset", ({ query, payload }) =>
        withRetryAfter(run((p) => Sca.startTwoFactorReset(p, query.customerId, payload.factor))))
      .handle("getTwoFactorResetStatus", ({ params, query }) =>
        run((p) => Sca.getTwoFactorResetStatus(p, query.customerId, params.resetId)))
      .handle("completeTwoFactorReset", ({ params, query, payload }) =>
        run((p) => Sca.completeTwoFactorReset(p, query.customerId, params.resetId, payload ?? undefined)))
      .handle("authorizeQuote", ({ params, payload }) => withRetryAfter(run((p) => Authorization.authorizeQuote(p, params.quoteId, payload))))
      .handle("resendQuoteScaCode", ({ params }) => withRetryAfter(run((p) => Authorization.resendQuoteScaCode(p, params.quoteId))))
  )
)
