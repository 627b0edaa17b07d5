/**
 * Quote authorization (docs/sca.md): an SCA-region customer's execution is held in
 * PENDING_AUTHORIZATION until POST /quotes/{quoteId}/authorize (code 123456 in the
 * sandbox, a live SCA session); resend limits; expiry fails the payment with
 * SCA_NOT_COMPLETED on the platform clock; customers elsewhere are unaffected.
 */
import fc from "fast-check"
import { afterAll, describe, expect, it } from "vitest"
import { b64u, createCredential, makeAssertion, makeRegistration } from "../crypto/support/authenticator.js"
import { basic, isErrorShape } from "../support/api.js"
import { accountNumberEnding, moneyApp, moneyPlatform } from "../support/money.js"
import { numRuns } from "../support/runs.js"

const platform = moneyPlatform("sca-quotes")
const app = moneyApp([platform])
const [m] = app.clients as [typeof app.clients[0]]
afterAll(() => app.dispose())

const sca = (path: string, customerId: string) => `${path}?customerId=${encodeURIComponent(customerId)}`

const expectError = (r: { status: number; body: unknown }, status: number, code?: string) => {
  expect(r.status, JSON.stringify(r.body)).toBe(status)
  expect(isErrorShape(r.body)).toBe(true)
  if (code !== undefined) expect((r.body as { code: string }).code).toBe(code)
}

/** A funded DE customer with both contacts verified, an SCA session, and a USD payee. */
const euCustomer = async (options: { readonly login?: boolean } = {}) => {
  const c = await m.fundedCustomer({ USD: 100_000 }, { region: "DE", email: `eu${Math.random()}@example.com`, phoneNumber: "+4915112345678" })
  for (const channel of ["email", "phone"]) {
    await m.ok("POST", `/customers/${c.id}/verify-${channel}`, undefined, 204)
    await m.ok("POST", `/customers/${c.id}/verify-${channel}/confirm`, { code: "123456" })
  }
  if (options.login !== false) await login(c.id)
  const payee = await m.externalUsd(c.id, accountNumberEnding("000"))
  return { ...c, payee: payee.id }
}

const login = async (customerId: string) => {
  const start = await m.ok("POST", sca("/sca/login/start", customerId), { factor: "SMS_OTP" })
  return m.ok("POST", sca("/sca/login/complete", customerId), { factor: "SMS_OTP", endUserIpAddress: "203.0.113.9", challengeId: start.challengeId, code: "123456" })
}

const held = async (c: Awaited<ReturnType<typeof euCustomer>>, amount = 1_000) => {
  const q = await m.pay(c.accounts.USD, c.payee, amount)
  expect(q.status).toBe("PENDING_AUTHORIZATION")
  return q as { id: string; transactionId: string; status: string; scaChallenge: { id: string; expiresAt: string; factor: string; availableFactors: Array<string> } }
}

const authorize = (quoteId: string, body: Record<string, unknown> = { code: "123456" }) =>
  m.call("POST", `/quotes/${encodeURIComponent(quoteId)}/authorize`, body)

describe("execution for an SCA-region customer", () => {
  it("holds the payment in PENDING_AUTHORIZATION with an SMS_OTP scaChallenge; nothing is debited; execute again is 409", async () => {
    const c = await euCustomer()
    const q = await held(c)
    expect(q.scaChallenge).toMatchObject({ factor: "SMS_OTP", availableFactors: ["SMS_OTP"] })
    expect(q.scaChallenge.id).toMatch(/^ScaChallenge:/)
    expect(Date.parse(q.scaChallenge.expiresAt) - (await m.clock())).toBeGreaterThan(4 * 60_000)
    expect(await m.balance(c.accounts.USD, c.id)).toBe(100_000)
    const t = await m.transaction(q.transactionId)
    expect(t.status).toBe("PENDING_AUTHORIZATION")
    expect((await m.ok("GET", `/quotes/${encodeURIComponent(q.id)}`)).status).toBe("PENDING_AUTHORIZATION")
    expectError(await m.call("POST", `/quotes/${encodeURIComponent(q.id)}/execute`), 409, "CONFLICT")
    const events = (await m.events()).filter((e) => e.type.startsWith("OUTGOING_PAYMENT.") && (e.data as { id: string }).id === q.transactionId)
    expect(events.map((e) => e.type)).toEqual(["OUTGOING_PAYMENT.PENDING_AUTHORIZATION"])
  })

  it("authorize with 123456 and a live session releases it: debited, processed, scaChallenge gone", async () => {
    const c = await euCustomer()
    const q = await held(c)
    const r = await authorize(q.id, { code: "123456", endUserIpAddress: "203.0.113.9" })
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    expect(["PROCESSING", "COMPLETED"]).toContain(r.body.status)
    expect(r.body.scaChallenge).toBeUndefined()
    expect(await m.balance(c.accounts.USD, c.id)).toBe(100_000 - r.body.totalSendingAmount)
    const t = await m.transaction(q.transactionId)
    expect(["PROCESSING", "COMPLETED"]).toContain(t.status)
    const types = (await m.events()).filter((e) => (e.data as { id?: string }).id === q.transactionId).map((e) => e.type)
    expect(types.slice(0, 3)).toEqual(["OUTGOING_PAYMENT.PENDING_AUTHORIZATION", "OUTGOING_PAYMENT.PENDING", "OUTGOING_PAYMENT.PROCESSING"])
    // Nothing left to authorize.
    expectError(await authorize(q.id), 409, "CONFLICT")
    expectError(await m.call("POST", `/quotes/${encodeURIComponent(q.id)}/authorize/resend`), 409, "CONFLICT")
  })

  it("two concurrent authorizations: exactly one releases the transfer, the money moves once", async () => {
    const c = await euCustomer()
    const q = await held(c)
    const answers = await Promise.all([authorize(q.id), authorize(q.id), authorize(q.id)])
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409])
    expect(await m.balance(c.accounts.USD, c.id)).toBe(100_000 - answers.find((a) => a.status === 200)!.body.totalSendingAmount)
  })

  it("an unanswered challenge expires: the payment FAILS with SCA_NOT_COMPLETED, no money moved", async () => {
    const c = await euCustomer()
    const q = await held(c)
    await m.advance(5 * 60 + 1)
    const t = await m.transaction(q.transactionId)
    expect(t.status).toBe("FAILED")
    expect(t.failureReason).toBe("SCA_NOT_COMPLETED")
    expect(t.refund).toBeUndefined()
    const quote = await m.ok("GET", `/quotes/${encodeURIComponent(q.id)}`)
    expect(quote.status).toBe("FAILED")
    expect(quote.scaChallenge).toBeUndefined()
    expect(await m.balance(c.accounts.USD, c.id)).toBe(100_000)
    expectError(await authorize(q.id), 409, "CONFLICT")
    const types = (await m.events()).filter((e) => (e.data as { id?: string }).id === q.transactionId).map((e) => e.type)
    expect(types).toEqual(["OUTGOING_PAYMENT.PENDING_AUTHORIZATION", "OUTGOING_PAYMENT.FAILED"])
  })

  it("without a live SCA session: 409 SCA_SESSION_REQUIRED; the session lasts 180 days", async () => {
    const none = await euCustomer({ login: false })
    const q1 = await held(none)
    expectError(await authorize(q1.id), 409, "SCA_SESSION_REQUIRED")
    await login(none.id)
    expect((await authorize(q1.id)).status).toBe(200)

    const c = await euCustomer()
    await m.advance(180 * 86_400 - 60)
    const q2 = await held(c)
    expect((await authorize(q2.id)).status).toBe(200)
    await m.advance(120)
    const q3 = await held(c)
    const expired = await authorize(q3.id)
    expectError(expired, 409, "SCA_SESSION_REQUIRED")
    expect(typeof expired.body.details.sessionExpiresAt).toBe("string")
  })

  it("wrong codes: 400 with the tries left; after 3 the challenge is spent (429 RATE_LIMITED, Retry-After)", async () => {
    const c = await euCustomer()
    const q = await held(c)
    for (const left of [2, 1, 0]) {
      const r = await authorize(q.id, { code: "000000" })
      expectError(r, 400, "INVALID_INPUT")
      expect(r.body.details.attemptsRemaining).toBe(left)
    }
    const res = await app.api.handler(new Request(`http://test/2025-10-13/quotes/${encodeURIComponent(q.id)}/authorize`, {
      method: "POST",
      headers: { authorization: basic(platform), "content-type": "application/json" },
      body: JSON.stringify({ code: "123456" })
    }))
    expect(res.status).toBe(429)
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0)
    expect((await res.json()).code).toBe("RATE_LIMITED")
    expect(await m.balance(c.accounts.USD, c.id)).toBe(100_000)
  })

  it("wrong codes count on the customer's lockout ladder: 423 ACCOUNT_LOCKED", async () => {
    const c = await euCustomer()
    for (let i = 0; i < 4; i++) await m.ok("POST", sca("/sca/record-event", c.id), { eventType: "FAILED_LOGIN_ATTEMPT" })
    const q = await held(c)
    const r = await authorize(q.id, { code: "000000" })
    expectError(r, 423, "ACCOUNT_LOCKED")
    expect(r.body.details).toMatchObject({ failedAttempts: 5, suspended: false })
    expectError(await authorize(q.id), 423, "ACCOUNT_LOCKED")
  })

  it("a proof is required: no code is 400 naming `code`; a passkey assertion answers that the factor is SMS_OTP", async () => {
    const c = await euCustomer()
    const q = await held(c)
    const none = await authorize(q.id, {})
    expectError(none, 400, "INVALID_INPUT")
    expect(none.body.details.errors[0].field).toBe("code")
    const passkey = await authorize(q.id, { passkeyAssertion: { id: "x" }, origin: "https://localhost" })
    expectError(passkey, 400, "INVALID_INPUT")
    expect(passkey.body.details.factor).toBe("SMS_OTP")
    expectError(await authorize(q.id, { code: 123456 }), 400, "INVALID_INPUT")
  })

  it("resend: 204, again within 30 s 429 with Retry-After, after 30 s 204; after expiry 409", async () => {
    const c = await euCustomer()
    const q = await held(c)
    const path = `/quotes/${encodeURIComponent(q.id)}/authorize/resend`
    const first = await m.call("POST", path)
    expectError(first, 429, "RATE_LIMITED")
    await m.advance(31)
    expect((await m.call("POST", path)).status).toBe(204)
    const res = await app.api.handler(new Request(`http://test/2025-10-13${path}`, { method: "POST", headers: { authorization: basic(platform) } }))
    expect(res.status).toBe(429)
    expect(Number(res.headers.get("retry-after"))).toBeLessThanOrEqual(30)
    await m.advance(31)
    expect((await m.call("POST", path)).status).toBe(204)
    // The challenge is reused: its expiry does not move, and 123456 still authorizes.
    expect((await m.ok("GET", `/quotes/${encodeURIComponent(q.id)}`)).scaChallenge.expiresAt).toBe(q.scaChallenge.expiresAt)
    expect((await authorize(q.id)).status).toBe(200)
    const late = await held(c)
    await m.advance(5 * 60 + 1)
    expectError(await m.call("POST", `/quotes/${encodeURIComponent(late.id)}/authorize/resend`), 409, "CONFLICT")
  })
})

describe("the challenge's factor (ExecuteQuoteRequest.scaFactor)", () => {
  it("PASSKEY: the challenge carries passkeyAssertionOptions; a real assertion authorizes; resend is 409", async () => {
    const c = await euCustomer()
    const start = await m.ok("POST", sca("/sca/factors", c.id), { type: "PASSKEY" })
    const credential = createCredential()
    const reg = makeRegistration({ credential, challenge: start.options.challenge, origin: "https://localhost", rpId: "localhost" })
    await m.ok("POST", sca("/sca/factors/confirm", c.id), {
      type: "PASSKEY",
      origin: "https://localhost",
      credential: { id: b64u(credential.id), response: { clientDataJSON: reg.clientDataJson, attestationObject: reg.attestationObject } }
    })
    const quote = await m.ok("POST", "/quotes", m.quoteBody(c.accounts.USD, c.payee, 1_000), 201)
    const q = await m.ok("POST", `/quotes/${encodeURIComponent(quote.id)}/execute`, { scaFactor: "PASSKEY" })
    expect(q.status).toBe("PENDING_AUTHORIZATION")
    expect(q.scaChallenge).toMatchObject({ factor: "PASSKEY", availableFactors: ["SMS_OTP", "PASSKEY"] })
    const options = q.scaChallenge.passkeyAssertionOptions
    expect(options.allowCredentials[0].id).toBe(b64u(credential.id))
    expectError(await m.call("POST", `/quotes/${encodeURIComponent(q.id)}/authorize/resend`), 409, "CONFLICT")
    const byCode = await authorize(q.id, { code: "123456" })
    expectError(byCode, 400, "INVALID_INPUT")
    expect(byCode.body.details.errors[0].field).toBe("passkeyAssertion")
    const wrongChallenge = makeAssertion({ credential, challenge: "AAAA", origin: "https://localhost", rpId: "localhost", counter: 1 })
    const wrong = await authorize(q.id, { origin: "https://localhost", passkeyAssertion: { id: b64u(credential.id), response: { clientDataJSON: wrongChallenge.clientDataJson, authenticatorData: wrongChallenge.authenticatorData, signature: wrongChallenge.signature } } })
    expectError(wrong, 400, "INVALID_INPUT")
    expect(wrong.body.details.attemptsRemaining).toBe(2)
    const a = makeAssertion({ credential, challenge: options.challenge, origin: "https://localhost", rpId: "localhost", counter: 1 })
    const ok = await authorize(q.id, { origin: "https://localhost", passkeyAssertion: { id: b64u(credential.id), response: { clientDataJSON: a.clientDataJson, authenticatorData: a.authenticatorData, signature: a.signature } } })
    expect(ok.status, JSON.stringify(ok.body)).toBe(200)
    expect(ok.body.scaChallenge).toBeUndefined()
  })

  it("TOTP is refused for a transfer, PASSKEY needs an enrolled passkey (400 naming scaFactor); no body means SMS_OTP", async () => {
    const c = await euCustomer()
    const quote = await m.ok("POST", "/quotes", m.quoteBody(c.accounts.USD, c.payee, 1_000), 201)
    const path = `/quotes/${encodeURIComponent(quote.id)}/execute`
    for (const scaFactor of ["TOTP", "PASSKEY"]) {
      const r = await m.call("POST", path, { scaFactor })
      expectError(r, 400, "INVALID_INPUT")
      expect(r.body.details.errors[0].field).toBe("scaFactor")
    }
    expectError(await m.call("POST", path, { scaFactor: "EMAIL" }), 400, "INVALID_INPUT")
    const q = await m.ok("POST", path)
    expect(q.scaChallenge.factor).toBe("SMS_OTP")
  })
})

describe("limits and funds around authorization", () => {
  it("an over-balance execution is refused before the customer is asked (400 INSUFFICIENT_FUNDS, nothing held)", async () => {
    const c = await euCustomer()
    const r = await m.call("POST", "/quotes", m.quoteBody(c.accounts.USD, c.payee, 200_000, { immediatelyExecute: true }))
    expectError(r, 400, "INSUFFICIENT_FUNDS")
  })

  it("the daily volume counts a held payment once: one just under the limit authorizes; a second over it is refused at execution", async () => {
    const p2 = moneyPlatform("sca-quotes-daily")
    const app2 = moneyApp([p2])
    try {
      const [d] = app2.clients as [typeof app2.clients[0]]
      await d.ok("PATCH", "/config", { limits: { dailyVolume: [{ currency: "USD", maxAmount: 10_000 }] } })
      const c = await d.fundedCustomer({ USD: 100_000 }, { region: "DE", email: "daily@example.com", phoneNumber: "+4915100000001" })
      await d.ok("POST", `/customers/${c.id}/verify-phone`, undefined, 204)
      await d.ok("POST", `/customers/${c.id}/verify-phone/confirm`, { code: "123456" })
      const start = await d.ok("POST", sca("/sca/login/start", c.id), { factor: "SMS_OTP" })
      await d.ok("POST", sca("/sca/login/complete", c.id), { factor: "SMS_OTP", endUserIpAddress: "203.0.113.9", challengeId: start.challengeId, code: "123456" })
      const payee = await d.externalUsd(c.id, accountNumberEnding("000"))
      const q = await d.pay(c.accounts.USD, payee.id, 9_000)
      expect(q.status).toBe("PENDING_AUTHORIZATION")
      const second = await d.call("POST", "/quotes", d.quoteBody(c.accounts.USD, payee.id, 2_000, { immediatelyExecute: true }))
      expectError(second, 429, "DAILY_VOLUME_LIMIT_EXCEEDED")
      const ok = await d.call("POST", `/quotes/${encodeURIComponent(q.id)}/authorize`, { code: "123456" })
      expect(ok.status, JSON.stringify(ok.body)).toBe(200)
    } finally {
      await app2.dispose()
    }
  })
})

describe("customers outside SCA regions", () => {
  it("execute as before (no PENDING_AUTHORIZATION); authorize and resend are 409; unknown quotes 404", async () => {
    const c = await m.fundedCustomer({ USD: 10_000 }, { region: "US" })
    const payee = await m.externalUsd(c.id, accountNumberEnding("000"))
    const q = await m.pay(c.accounts.USD, payee.id, 1_000)
    expect(q.status).not.toBe("PENDING_AUTHORIZATION")
    expect(q.scaChallenge).toBeUndefined()
    expectError(await authorize(q.id), 409, "CONFLICT")
    expectError(await m.call("POST", `/quotes/${encodeURIComponent(q.id)}/authorize/resend`), 409, "CONFLICT")
    expectError(await authorize("Quote:nope"), 404, "QUOTE_NOT_FOUND")
    expectError(await m.call("POST", "/quotes/Quote:nope/authorize/resend"), 404, "QUOTE_NOT_FOUND")
  })
})

describe("property: any sequence of authorize / resend / clock moves on a held quote", () => {
  type Step = { readonly kind: "right" | "wrong" | "resend" | "execute" } | { readonly kind: "advance"; readonly seconds: number }
  const step: fc.Arbitrary<Step> = fc.oneof(
    fc.constantFrom<Step>({ kind: "right" }, { kind: "wrong" }, { kind: "resend" }, { kind: "execute" }),
    fc.constantFrom(10, 31, 120, 301).map((seconds): Step => ({ kind: "advance", seconds }))
  )

  it("matches a simple model, moves the money at most once, and never answers 5xx", async () => {
    await fc.assert(fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 10 }), async (steps) => {
      const c = await euCustomer()
      const q = await held(c)
      const total = (await m.ok("GET", `/quotes/${encodeURIComponent(q.id)}`)).totalSendingAmount as number
      // The model: where the payment is, wrong proofs, seconds since the hold and since the last send.
      let state: "HELD" | "RELEASED" | "EXPIRED" = "HELD"
      let wrong = 0
      let elapsed = 0
      let sinceSend = 0
      let resends = 0
      for (const s of steps) {
        let r: { status: number; body: unknown } | undefined
        let expected: number
        switch (s.kind) {
          case "advance":
            await m.advance(s.seconds)
            elapsed += s.seconds
            sinceSend += s.seconds
            if (state === "HELD" && elapsed >= 300) state = "EXPIRED"
            continue
          case "right":
            r = await authorize(q.id)
            expected = state !== "HELD" ? 409 : wrong >= 3 ? 429 : 200
            if (expected === 200) state = "RELEASED"
            break
          case "wrong":
            r = await authorize(q.id, { code: "000000" })
            expected = state !== "HELD" ? 409 : wrong >= 3 ? 429 : 400
            if (expected === 400) wrong++
            break
          case "resend":
            r = await m.call("POST", `/quotes/${encodeURIComponent(q.id)}/authorize/resend`)
            expected = state !== "HELD" ? 409 : sinceSend < 30 || resends >= 5 ? 429 : 204
            if (expected === 204) {
              sinceSend = 0
              resends++
            }
            break
          case "execute":
            r = await m.call("POST", `/quotes/${encodeURIComponent(q.id)}/execute`)
            expected = 409
            break
        }
        expect(r.status, `${s.kind} in ${state}: ${JSON.stringify(r.body)}`).toBe(expected)
        if (r.status >= 400) expect(isErrorShape(r.body)).toBe(true)
      }
      // Money: debited exactly when released; the payment's status and the quote's challenge agree.
      const t = await m.transaction(q.transactionId)
      const quote = await m.ok("GET", `/quotes/${encodeURIComponent(q.id)}`)
      expect(await m.balance(c.accounts.USD, c.id)).toBe(state === "RELEASED" ? 100_000 - total : 100_000)
      expect(t.status === "PENDING_AUTHORIZATION").toBe(state === "HELD")
      expect(quote.scaChallenge !== undefined).toBe(state === "HELD")
      if (state === "EXPIRED") expect(t.failureReason).toBe("SCA_NOT_COMPLETED")
    }), { numRuns: numRuns(15) })
  })
})
