import * as Authorization from "../../operations/sca/authorization.js"
import * as Contact from "../../operations/sca/contact.js"
import * as Sca from "../../operations/sca/factors.js"
import { implement } from "../concerns.js"
import { ContactVerificationGroup, ScaGroup } from "../groups/sca.js"
import { run } from "./run.js"

export const ContactVerificationHandlers = implement(ContactVerificationGroup, (handlers) =>
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

export const ScaHandlers = implement(ScaGroup, (handlers) =>
  handlers
    .handle("listScaFactors", ({ query }) => run((p) => Sca.listScaFactors(p, query.customerId)))
    .handle("startScaFactorEnrollment", ({ query, payload }) => run((p) => Sca.startScaFactorEnrollment(p, query.customerId, payload)))
    .handle("confirmScaFactorEnrollment", ({ query, payload }) => run((p) => Sca.confirmScaFactorEnrollment(p, query.customerId, payload)))
    .handle("deleteScaFactor", ({ params, query }) => run((p) => Sca.deleteScaFactor(p, query.customerId, params.credentialId)))
    .handle("startScaLogin", ({ query, payload }) => run((p) => Sca.startScaLogin(p, query.customerId, payload.factor)))
    .handle("completeScaLogin", ({ query, payload }) => run((p) => Sca.completeScaLogin(p, query.customerId, payload)))
    .handle("recordSecurityEvent", ({ query, payload }) => run((p) => Sca.recordSecurityEvent(p, query.customerId, payload.eventType)))
    .handle("startTwoFactorReset", ({ query, payload }) =>
      run((p) => Sca.startTwoFactorReset(p, query.customerId, payload.factor)))
    .handle("getTwoFactorResetStatus", ({ params, query }) =>
      run((p) => Sca.getTwoFactorResetStatus(p, query.customerId, params.resetId)))
    .handle("completeTwoFactorReset", ({ params, query, payload }) =>
      run((p) => Sca.completeTwoFactorReset(p, query.customerId, params.resetId, payload ?? undefined)))
    .handle("authorizeQuote", ({ params, payload }) => run((p) => Authorization.authorizeQuote(p, params.quoteId, payload)))
    .handle("resendQuoteScaCode", ({ params }) => run((p) => Authorization.resendQuoteScaCode(p, params.quoteId)))
)
