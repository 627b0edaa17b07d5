/**
 * Conformance: every success answer of the Contact Verification and Strong Customer
 * Authentication endpoints (and quote authorization) validates against the reference
 * OpenAPI operation's schema for its status, through the shared harness, with no
 * differences applied; bodiless answers (204) must be empty.
 */
import { afterAll, describe, expect, it } from "vitest"
import { b64u, createCredential, makeRegistration } from "../crypto/support/authenticator.js"
import { accountNumberEnding, moneyApp, moneyPlatform } from "../support/money.js"
import { conformance } from "./harness.js"
import { SCA_OPERATIONS } from "./operations.js"

const { conforms, checked, validator, problems, schemaConforms } = conformance(() => {})

const platform = moneyPlatform("conformance-sca")
const app = moneyApp([platform])
const [m] = app.clients as [typeof app.clients[0]]
afterAll(() => app.dispose())

const q = (path: string, customerId: string) => `${path}?customerId=${encodeURIComponent(customerId)}`

describe("contact verification and SCA responses against the reference", () => {
  it("every endpoint's success answer", async () => {
    const c = await m.fundedCustomer({ USD: 50_000 }, { region: "FR", email: "conf@example.com", phoneNumber: "+33612345678" })
    expect(c.id).toBeDefined()
    for (const channel of ["email", "phone"]) {
      conforms("POST", `/customers/{customerId}/verify-${channel}`, await m.call("POST", `/customers/${c.id}/verify-${channel}`))
      conforms("POST", `/customers/{customerId}/verify-${channel}/confirm`, await m.call("POST", `/customers/${c.id}/verify-${channel}/confirm`, { code: "123456" }))
    }
    conforms("GET", "/sca/factors", await m.call("GET", q("/sca/factors", c.id)))

    const totp = conforms("POST", "/sca/factors", await m.call("POST", q("/sca/factors", c.id), { type: "TOTP" })) as { secret: string }
    conforms("POST", "/sca/factors/confirm", await m.call("POST", q("/sca/factors/confirm", c.id), { type: "TOTP", secret: totp.secret, code: "123456" }))
    const passkey = conforms("POST", "/sca/factors", await m.call("POST", q("/sca/factors", c.id), { type: "PASSKEY" })) as { options: { challenge: string } }
    const credential = createCredential()
    const reg = makeRegistration({ credential, challenge: passkey.options.challenge, origin: "https://localhost", rpId: "localhost" })
    conforms("POST", "/sca/factors/confirm", await m.call("POST", q("/sca/factors/confirm", c.id), {
      type: "PASSKEY",
      origin: "https://localhost",
      credential: { id: b64u(credential.id), response: { clientDataJSON: reg.clientDataJson, attestationObject: reg.attestationObject } }
    }))
    conforms("GET", "/sca/factors", await m.call("GET", q("/sca/factors", c.id)))
    conforms("POST", "/sca/login/start", await m.call("POST", q("/sca/login/start", c.id), { factor: "PASSKEY" }))
    conforms("DELETE", "/sca/factors/{credentialId}", await m.call("DELETE", q(`/sca/factors/${encodeURIComponent(b64u(credential.id))}`, c.id)))
    conforms("POST", "/sca/login/start", await m.call("POST", q("/sca/login/start", c.id), { factor: "TOTP" }))
    const start = conforms("POST", "/sca/login/start", await m.call("POST", q("/sca/login/start", c.id), { factor: "SMS_OTP" })) as { challengeId: string }
    conforms("POST", "/sca/login/complete", await m.call("POST", q("/sca/login/complete", c.id), {
      factor: "SMS_OTP",
      endUserIpAddress: "203.0.113.5",
      challengeId: start.challengeId,
      code: "123456"
    }))
    conforms("POST", "/sca/record-event", await m.call("POST", q("/sca/record-event", c.id), { eventType: "FAILED_LOGIN_ATTEMPT" }))
    conforms("POST", "/sca/record-event", await m.call("POST", q("/sca/record-event", c.id), { eventType: "RESET_PASSWORD_COMPLETED" }))

    const reset = conforms("POST", "/sca/factors/reset", await m.call("POST", q("/sca/factors/reset", c.id), { factor: "TOTP" })) as { resetId: string }
    const rid = encodeURIComponent(reset.resetId)
    conforms("GET", "/sca/factors/reset/{resetId}", await m.call("GET", q(`/sca/factors/reset/${rid}`, c.id)))
    await m.advance(31)
    conforms("POST", "/sca/factors/reset/{resetId}/complete", await m.call("POST", q(`/sca/factors/reset/${rid}/complete`, c.id)))
    conforms("GET", "/sca/factors/reset/{resetId}", await m.call("GET", q(`/sca/factors/reset/${rid}`, c.id)))

    // A fresh session, then a held quote: resend, authorize.
    const again = await m.ok("POST", q("/sca/login/start", c.id), { factor: "SMS_OTP" })
    await m.ok("POST", q("/sca/login/complete", c.id), { factor: "SMS_OTP", endUserIpAddress: "203.0.113.5", challengeId: again.challengeId, code: "123456" })
    const payee = await m.externalUsd(c.id, accountNumberEnding("000"))
    const held = conforms("POST", "/quotes", await m.call("POST", "/quotes", m.quoteBody(c.accounts.USD, payee.id, 2_000, { immediatelyExecute: true }))) as { id: string; status: string }
    expect(held.status).toBe("PENDING_AUTHORIZATION")
    conforms("GET", "/quotes/{quoteId}", await m.call("GET", `/quotes/${encodeURIComponent(held.id)}`))
    await m.advance(31)
    conforms("POST", "/quotes/{quoteId}/authorize/resend", await m.call("POST", `/quotes/${encodeURIComponent(held.id)}/authorize/resend`))
    conforms("POST", "/quotes/{quoteId}/authorize", await m.call("POST", `/quotes/${encodeURIComponent(held.id)}/authorize`, { code: "123456", endUserIpAddress: "203.0.113.5" }))

    // The payment a held quote creates, and the one that expires: the webhook payloads' `data`.
    const late = await m.ok("POST", "/quotes", m.quoteBody(c.accounts.USD, payee.id, 2_000, { immediatelyExecute: true }), 201)
    await m.advance(5 * 60 + 1)
    const events = (await m.events()).filter((e) => (e.data as { id?: string }).id === late.transactionId)
    expect(events.map((e) => e.type)).toEqual(["OUTGOING_PAYMENT.PENDING_AUTHORIZATION", "OUTGOING_PAYMENT.FAILED"])
    for (const e of events) schemaConforms("OutgoingTransaction", e.data, e.type)
    expect((events[1]!.data as { failureReason: string }).failureReason).toBe("SCA_NOT_COMPLETED")
  })

  it("the validator bites", () => {
    const v = validator("ScaLoginStart")
    expect(v({ factor: "EMAIL" }), problems(v)).toBe(false)
    const r = validator("TwoFactorResetStatus")
    expect(r({ status: "INITIATED", factor: "TOTP" }), problems(r)).toBe(false)
  })

  it("every SCA and contact-verification endpoint was checked", () => {
    for (const op of SCA_OPERATIONS) expect(checked.get(op) ?? 0, op).toBeGreaterThan(0)
  })
})
