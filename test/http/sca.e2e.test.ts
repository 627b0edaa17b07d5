/**
 * Contact Verification and Strong Customer Authentication over HTTP (docs/sca.md): every
 * endpoint and error code, on a sandbox platform (code 123456) and on a production one
 * (no magic code). Runs on the store `PAYMENTS_TEST_STORE` names (memory by default).
 */
import fc from "fast-check"
import { afterAll, describe, expect, it } from "vitest"
import { platformFromConfig } from "../../src/domain/platform.js"
import { hotp } from "../../src/crypto/totp.js"
import { b64u, createCredential, makeAssertion, makeRegistration } from "../crypto/support/authenticator.js"
import { individual, isErrorShape, makeApi, platformA, type Reply } from "../support/api.js"
import { numRuns } from "../support/runs.js"

const production = platformFromConfig({ id: "sca-production", clientId: "sca-production", clientSecret: "sca-production-secret", sandbox: false })
const api = makeApi([platformA, production])
afterAll(() => api.dispose())

const EEA = { region: "DE", email: "ada@example.com", phoneNumber: "+4915112345678" }

const customer = async (extra: Record<string, unknown> = EEA, as = platformA) => {
  const r = await api.call("POST", "/customers", { body: individual("Ada Lovelace", extra), as })
  expect(r.status).toBe(201)
  return r.body
}

const advance = async (seconds: number) => {
  const r = await api.call("POST", "/sandbox/clock/advance", { body: { seconds } })
  expect(r.status).toBe(200)
}

const expectError = (r: { status: number; body: unknown }, status: number, code?: string) => {
  expect(r.status).toBe(status)
  expect(isErrorShape(r.body)).toBe(true)
  if (code !== undefined) expect((r.body as { code: string }).code).toBe(code)
}

/** A customer of an SCA region with email and phone verified (SMS_OTP available). */
const verifiedCustomer = async () => {
  const c = await customer()
  for (const channel of ["email", "phone"]) {
    expect((await api.call("POST", `/customers/${c.id}/verify-${channel}`)).status).toBe(204)
    expect((await api.call("POST", `/customers/${c.id}/verify-${channel}/confirm`, { body: { code: "123456" } })).status).toBe(200)
  }
  return c.id as string
}

describe("contact verification", () => {
  it("SCA-region customers start with both channels PENDING; others have no contactVerification", async () => {
    expect((await customer()).contactVerification).toEqual({ email: "PENDING", phone: "PENDING" })
    const us = await customer({ region: "US", email: "a@example.com" })
    expect(us.contactVerification).toBeUndefined()
    expect("contactVerification" in us).toBe(false)
  })

  it("a client cannot set contactVerification itself (create or PATCH)", async () => {
    const c = await customer({ ...EEA, contactVerification: { email: "VERIFIED", phone: "VERIFIED" } })
    expect(c.contactVerification).toEqual({ email: "PENDING", phone: "PENDING" })
    const p = await api.call("PATCH", `/customers/${c.id}`, { body: { customerType: "INDIVIDUAL", contactVerification: { email: "VERIFIED" } } })
    expect(p.body.contactVerification).toEqual({ email: "PENDING", phone: "PENDING" })
    const us = await customer({ region: "US", contactVerification: { email: "VERIFIED" } })
    expect(us.contactVerification).toBeUndefined()
  })

  it("send 204, confirm with 123456: the channel becomes VERIFIED, and GET shows it", async () => {
    const c = await customer()
    expect((await api.call("POST", `/customers/${c.id}/verify-email`)).status).toBe(204)
    const r = await api.call("POST", `/customers/${c.id}/verify-email/confirm`, { body: { code: "123456" } })
    expect(r.status).toBe(200)
    expect(r.body.contactVerification).toEqual({ email: "VERIFIED", phone: "PENDING" })
    expect((await api.call("GET", `/customers/${c.id}`)).body.contactVerification).toEqual({ email: "VERIFIED", phone: "PENDING" })
    // Already verified: 409.
    expectError(await api.call("POST", `/customers/${c.id}/verify-email`), 409, "CONFLICT")
    expectError(await api.call("POST", `/customers/${c.id}/verify-email/confirm`, { body: { code: "123456" } }), 409, "CONFLICT")
    expect((await api.call("POST", `/customers/${c.id}/verify-phone`)).status).toBe(204)
    const p = await api.call("POST", `/customers/${c.id}/verify-phone/confirm`, { body: { code: "123456" } })
    expect(p.body.contactVerification).toEqual({ email: "VERIFIED", phone: "VERIFIED" })
  })

  it("a wrong code is 400 with the tries left; the fifth wrong try spends the code; a new send works", async () => {
    const c = await customer()
    await api.call("POST", `/customers/${c.id}/verify-phone`)
    for (let i = 1; i <= 4; i++) {
      const r = await api.call("POST", `/customers/${c.id}/verify-phone/confirm`, { body: { code: "000000" } })
      expectError(r, 400, "INVALID_INPUT")
      expect(r.body.details.attemptsRemaining).toBe(5 - i)
    }
    const last = await api.call("POST", `/customers/${c.id}/verify-phone/confirm`, { body: { code: "000000" } })
    expectError(last, 400, "INVALID_INPUT")
    expect(last.body.details.attemptsRemaining).toBe(0)
    // The code is spent: even the right one needs a new send.
    const spent = await api.call("POST", `/customers/${c.id}/verify-phone/confirm`, { body: { code: "123456" } })
    expectError(spent, 400, "INVALID_INPUT")
    expect(spent.body.reason).toMatch(/No phone verification code is pending/)
    await api.call("POST", `/customers/${c.id}/verify-phone`)
    expect((await api.call("POST", `/customers/${c.id}/verify-phone/confirm`, { body: { code: "123456" } })).status).toBe(200)
  })

  it("a code expires after 10 minutes on the platform clock", async () => {
    const c = await customer()
    await api.call("POST", `/customers/${c.id}/verify-email`)
    await advance(601)
    const r = await api.call("POST", `/customers/${c.id}/verify-email/confirm`, { body: { code: "123456" } })
    expectError(r, 400, "INVALID_INPUT")
    expect(r.body.details.reason).toBe("expired")
  })

  it("confirm without a send is 400; no contact value is 409; unknown customer 404; outside SCA regions 409", async () => {
    const c = await customer()
    expectError(await api.call("POST", `/customers/${c.id}/verify-email/confirm`, { body: { code: "123456" } }), 400, "INVALID_INPUT")
    const noPhone = await customer({ region: "FR" })
    expectError(await api.call("POST", `/customers/${noPhone.id}/verify-phone`), 409, "CONFLICT")
    expectError(await api.call("POST", "/customers/Customer:nope/verify-email"), 404)
    expectError(await api.call("POST", "/customers/Customer:nope/verify-phone/confirm", { body: { code: "123456" } }), 404)
    const us = await customer({ region: "US", email: "u@example.com", phoneNumber: "+14155550123" })
    for (const path of ["verify-email", "verify-phone"]) {
      expectError(await api.call("POST", `/customers/${us.id}/${path}`), 409, "CONFLICT")
      expectError(await api.call("POST", `/customers/${us.id}/${path}/confirm`, { body: { code: "123456" } }), 409, "CONFLICT")
    }
  })

  it("bad bodies are 400 INVALID_INPUT naming the field", async () => {
    const c = await customer()
    for (const body of [{}, { code: "" }, { code: 123456 }, { code: "x".repeat(65) }]) {
      const r = await api.call("POST", `/customers/${c.id}/verify-email/confirm`, { body })
      expectError(r, 400, "INVALID_INPUT")
      expect(r.body.details.errors[0].field).toBe("code")
    }
  })

  it("changing the email makes that channel PENDING again; leaving the EEA drops contactVerification", async () => {
    const id = await verifiedCustomer()
    const changed = await api.call("PATCH", `/customers/${id}`, { body: { customerType: "INDIVIDUAL", email: "new@example.com" } })
    expect(changed.body.contactVerification).toEqual({ email: "PENDING", phone: "VERIFIED" })
    const moved = await api.call("PATCH", `/customers/${id}`, { body: { customerType: "INDIVIDUAL", region: "US" } })
    expect(moved.body.contactVerification).toBeUndefined()
  })

  it("KYC cannot begin until both channels are VERIFIED (SCA regions only)", async () => {
    const c = await customer()
    const r = await api.call("POST", "/verifications", { body: { customerId: c.id } })
    expectError(r, 400, "MISSING_MANDATORY_USER_INFO")
    expect(r.body.details.unverified).toEqual(["email", "phone"])
    const id = await verifiedCustomer()
    const ok = await api.call("POST", "/verifications", { body: { customerId: id } })
    expect(ok.status).toBe(200)
    const us = await customer({ region: "US" })
    expect((await api.call("POST", "/verifications", { body: { customerId: us.id } })).status).toBe(200)
  })

  it("production: 123456 is not a code; the code sent is a random one", async () => {
    const c = await customer(EEA, production)
    expect((await api.call("POST", `/customers/${c.id}/verify-email`, { as: production })).status).toBe(204)
    const r = await api.call("POST", `/customers/${c.id}/verify-email/confirm`, { body: { code: "123456" }, as: production })
    expectError(r, 400, "INVALID_INPUT")
  })
})

const sca = (path: string, customerId: string) => `${path}${path.includes("?") ? "&" : "?"}customerId=${encodeURIComponent(customerId)}`

const loginSms = async (id: string, code = "123456") => {
  const start = await api.call("POST", sca("/sca/login/start", id), { body: { factor: "SMS_OTP" } })
  expect(start.status).toBe(200)
  return api.call("POST", sca("/sca/login/complete", id), {
    body: { factor: "SMS_OTP", endUserIpAddress: "203.0.113.42", challengeId: start.body.challengeId, code }
  })
}

describe("SCA factors", () => {
  it("SMS_OTP is listed once the phone is verified; TOTP enrolls with a secret and 123456, returning recovery codes", async () => {
    const c = await customer()
    expect((await api.call("GET", sca("/sca/factors", c.id))).body).toEqual({ factors: [] })
    const id = await verifiedCustomer()
    expect((await api.call("GET", sca("/sca/factors", id))).body).toEqual({ factors: [{ factor: "SMS_OTP" }] })
    const start = await api.call("POST", sca("/sca/factors", id), { body: { type: "TOTP" } })
    expect(start.status).toBe(200)
    expect(start.body.type).toBe("TOTP")
    expect(start.body.totpUri).toMatch(/^otpauth:\/\/totp\/.+secret=[A-Z2-7]+/)
    const wrong = await api.call("POST", sca("/sca/factors/confirm", id), { body: { type: "TOTP", secret: start.body.secret, code: "000000" } })
    expectError(wrong, 400, "INVALID_INPUT")
    const otherSecret = await api.call("POST", sca("/sca/factors/confirm", id), { body: { type: "TOTP", secret: "00", code: "123456" } })
    expectError(otherSecret, 400, "INVALID_INPUT")
    const ok = await api.call("POST", sca("/sca/factors/confirm", id), { body: { type: "TOTP", secret: start.body.secret, code: "123456" } })
    expect(ok.status).toBe(200)
    expect(ok.body.type).toBe("TOTP")
    expect(ok.body.recoveryCodes).toHaveLength(8)
    expect((await api.call("GET", sca("/sca/factors", id))).body.factors).toEqual([{ factor: "SMS_OTP" }, { factor: "TOTP" }])
    expectError(await api.call("POST", sca("/sca/factors", id), { body: { type: "TOTP" } }), 409, "CONFLICT")
  })

  it("PASSKEY enrolls with a real WebAuthn registration; a second is 409 PASSKEY_ALREADY_ENROLLED; delete frees it", async () => {
    const id = await verifiedCustomer()
    const start = await api.call("POST", sca("/sca/factors", id), { body: { type: "PASSKEY" } })
    expect(start.status).toBe(200)
    expect(start.body).toMatchObject({ type: "PASSKEY", relyingPartyId: "localhost", allowedOrigins: ["http://localhost", "https://localhost"] })
    const credential = createCredential()
    const reg = makeRegistration({ credential, challenge: start.body.options.challenge, origin: "https://localhost", rpId: "localhost" })
    const body = { type: "PASSKEY", origin: "https://localhost", credential: { id: b64u(credential.id), response: { clientDataJSON: reg.clientDataJson, attestationObject: reg.attestationObject } } }
    expectError(await api.call("POST", sca("/sca/factors/confirm", id), { body: { ...body, origin: "https://evil.example" } }), 400, "INVALID_INPUT")
    expectError(await api.call("POST", sca("/sca/factors/confirm", id), { body: { ...body, credential: { id: "x" } } }), 400, "INVALID_INPUT")
    const ok = await api.call("POST", sca("/sca/factors/confirm", id), { body })
    expect(ok.status).toBe(200)
    expect(ok.body).toEqual({ type: "PASSKEY", factor: { factor: "PASSKEY", credentialId: b64u(credential.id) } })
    expectError(await api.call("POST", sca("/sca/factors", id), { body: { type: "PASSKEY" } }), 409, "PASSKEY_ALREADY_ENROLLED")

    // Login with the passkey: a real assertion over the login challenge.
    const login = await api.call("POST", sca("/sca/login/start", id), { body: { factor: "PASSKEY" } })
    expect(login.body.passkeyOptions.allowCredentials[0].id).toBe(b64u(credential.id))
    const assertion = makeAssertion({ credential, challenge: login.body.passkeyOptions.challenge, origin: "https://localhost", rpId: "localhost", counter: 1 })
    const done = await api.call("POST", sca("/sca/login/complete", id), {
      body: {
        factor: "PASSKEY",
        endUserIpAddress: "2001:db8::1",
        origin: "https://localhost",
        passkeyAssertion: { id: b64u(credential.id), response: { clientDataJSON: assertion.clientDataJson, authenticatorData: assertion.authenticatorData, signature: assertion.signature } }
      }
    })
    expect(done.status).toBe(200)
    expect(done.body.status).toBe("SUCCESS")

    expectError(await api.call("DELETE", sca("/sca/factors/nope", id)), 404)
    expect((await api.call("DELETE", sca(`/sca/factors/${encodeURIComponent(b64u(credential.id))}`, id))).status).toBe(204)
    expect((await api.call("GET", sca("/sca/factors", id))).body.factors).toEqual([{ factor: "SMS_OTP" }])
    expect((await api.call("POST", sca("/sca/factors", id), { body: { type: "PASSKEY" } })).status).toBe(200)
  })

  it("customers outside SCA regions get 409 from every SCA endpoint; unknown customers 404", async () => {
    const us = await customer({ region: "US", phoneNumber: "+14155550123" })
    const calls: ReadonlyArray<readonly [string, string, unknown?]> = [
      ["GET", "/sca/factors"],
      ["POST", "/sca/factors", { type: "TOTP" }],
      ["POST", "/sca/factors/confirm", { type: "TOTP", secret: "00", code: "123456" }],
      ["DELETE", "/sca/factors/cred"],
      ["POST", "/sca/login/start", { factor: "SMS_OTP" }],
      ["POST", "/sca/login/complete", { factor: "SMS_OTP", endUserIpAddress: "203.0.113.1", code: "123456" }],
      ["POST", "/sca/record-event", { eventType: "FAILED_LOGIN_ATTEMPT" }],
      ["POST", "/sca/factors/reset", { factor: "SMS_OTP" }],
      ["GET", "/sca/factors/reset/ScaReset:x"],
      ["POST", "/sca/factors/reset/ScaReset:x/complete"]
    ]
    for (const [method, path, body] of calls) {
      expectError(await api.call(method, sca(path, us.id), body === undefined ? {} : { body }), 409, "CONFLICT")
      expectError(await api.call(method, sca(path, "Customer:nope"), body === undefined ? {} : { body }), 404)
    }
  })

  it("a missing customerId or a bad body is 400 INVALID_INPUT", async () => {
    expectError(await api.call("GET", "/sca/factors"), 400, "INVALID_INPUT")
    const id = await verifiedCustomer()
    for (const body of [{}, { type: "SMS_OTP" }, { type: "NOPE" }]) {
      expectError(await api.call("POST", sca("/sca/factors", id), { body }), 400, "INVALID_INPUT")
    }
    const noIp = await api.call("POST", sca("/sca/login/complete", id), { body: { factor: "SMS_OTP", code: "123456" } })
    expectError(noIp, 400, "INVALID_INPUT")
    expect(noIp.body.details.errors[0].field).toBe("endUserIpAddress")
    expectError(await api.call("POST", sca("/sca/record-event", id), { body: { eventType: "LOGGED_IN" } }), 400, "INVALID_INPUT")
  })
})

describe("SCA login and sessions", () => {
  it("SMS_OTP: start returns challengeId and expiresAt; complete with 123456 returns sessionExpiresAt 180 days ahead", async () => {
    const id = await verifiedCustomer()
    const start = await api.call("POST", sca("/sca/login/start", id), { body: { factor: "SMS_OTP" } })
    expect(start.body.factor).toBe("SMS_OTP")
    expect(start.body.challengeId).toMatch(/^ScaChallenge:/)
    const clock = (await api.call("GET", "/sandbox/clock")).body.now as string
    expect(Date.parse(start.body.expiresAt) - Date.parse(clock)).toBeGreaterThan(4 * 60_000)
    const wrongChallenge = await api.call("POST", sca("/sca/login/complete", id), {
      body: { factor: "SMS_OTP", endUserIpAddress: "203.0.113.42", challengeId: "ScaChallenge:other", code: "123456" }
    })
    expectError(wrongChallenge, 400, "INVALID_INPUT")
    const done = await api.call("POST", sca("/sca/login/complete", id), {
      body: { factor: "SMS_OTP", endUserIpAddress: "203.0.113.42", challengeId: start.body.challengeId, code: "123456" }
    })
    expect(done.status).toBe(200)
    expect(done.body.status).toBe("SUCCESS")
    const days = (Date.parse(done.body.sessionExpiresAt) - Date.parse(clock)) / 86_400_000
    expect(days).toBeGreaterThan(179.99)
    expect(days).toBeLessThan(180.01)
  })

  it("a factor not enrolled is 400; complete without a start is 400; an expired login is 400", async () => {
    const c = await customer()
    expectError(await api.call("POST", sca("/sca/login/start", c.id), { body: { factor: "SMS_OTP" } }), 400, "INVALID_INPUT")
    const id = await verifiedCustomer()
    expectError(await api.call("POST", sca("/sca/login/start", id), { body: { factor: "TOTP" } }), 400, "INVALID_INPUT")
    expectError(await api.call("POST", sca("/sca/login/complete", id), { body: { factor: "TOTP", endUserIpAddress: "203.0.113.1", code: "123456" } }), 400, "INVALID_INPUT")
    const start = await api.call("POST", sca("/sca/login/start", id), { body: { factor: "SMS_OTP" } })
    await advance(301)
    const late = await api.call("POST", sca("/sca/login/complete", id), {
      body: { factor: "SMS_OTP", endUserIpAddress: "203.0.113.42", challengeId: start.body.challengeId, code: "123456" }
    })
    expectError(late, 400, "INVALID_INPUT")
    expect(late.body.details.reason).toBe("expired")
  })

  it("TOTP login: 123456, a real TOTP code, or a recovery code (once)", async () => {
    const id = await verifiedCustomer()
    const start = await api.call("POST", sca("/sca/factors", id), { body: { type: "TOTP" } })
    const enrolled = await api.call("POST", sca("/sca/factors/confirm", id), { body: { type: "TOTP", secret: start.body.secret, code: "123456" } })
    const now = Date.parse((await api.call("GET", "/sandbox/clock")).body.now)
    const real = hotp(new Uint8Array(Buffer.from(start.body.secret, "hex")), Math.floor(now / 30_000))
    for (const code of ["123456", real, enrolled.body.recoveryCodes[0]]) {
      await api.call("POST", sca("/sca/login/start", id), { body: { factor: "TOTP" } })
      const r = await api.call("POST", sca("/sca/login/complete", id), { body: { factor: "TOTP", endUserIpAddress: "203.0.113.1", code } })
      expect(r.status).toBe(200)
    }
    await api.call("POST", sca("/sca/login/start", id), { body: { factor: "TOTP" } })
    const reused = await api.call("POST", sca("/sca/login/complete", id), { body: { factor: "TOTP", endUserIpAddress: "203.0.113.1", code: enrolled.body.recoveryCodes[0] } })
    expectError(reused, 400, "INVALID_INPUT")
  })

  it("wrong codes count: the fifth locks for 15 minutes (423 ACCOUNT_LOCKED with lockedUntil and failedAttempts)", async () => {
    const id = await verifiedCustomer()
    for (let i = 1; i <= 4; i++) {
      const r = await loginSms(id, "000000")
      expectError(r, 400, "INVALID_INPUT")
      expect(r.body.details.failedAttempts).toBe(i)
    }
    const fifth = await loginSms(id, "000000")
    expectError(fifth, 423, "ACCOUNT_LOCKED")
    expect(fifth.body.details).toMatchObject({ failedAttempts: 5, suspended: false })
    expect(typeof fifth.body.details.lockedUntil).toBe("string")
    // Locked: even the right code is refused, until the lock expires.
    expectError(await loginSms(id), 423, "ACCOUNT_LOCKED")
    await advance(15 * 60 + 1)
    expect((await loginSms(id)).status).toBe(200)
  })

  it("production: a factor not enrolled starts no login; 123456 enrolls no TOTP, the authenticator's real code does", async () => {
    const c = await customer(EEA, production)
    for (const channel of ["email", "phone"]) await api.call("POST", `/customers/${c.id}/verify-${channel}`, { as: production })
    const start = await api.call("POST", sca("/sca/login/start", c.id), { body: { factor: "TOTP" }, as: production })
    expectError(start, 400, "INVALID_INPUT")
    const totp = await api.call("POST", sca("/sca/factors", c.id), { body: { type: "TOTP" }, as: production })
    const fixed = await api.call("POST", sca("/sca/factors/confirm", c.id), { body: { type: "TOTP", secret: totp.body.secret, code: "123456" }, as: production })
    // 123456 is accepted only if it happens to be the current TOTP value (one chance in a million per step).
    const secret = new Uint8Array(Buffer.from(totp.body.secret, "hex"))
    const step = Math.floor(Date.now() / 30_000)
    const coincidence = [-1, 0, 1].some((d) => hotp(secret, step + d) === "123456")
    expect(fixed.status).toBe(coincidence ? 200 : 400)
    const real = await api.call("POST", sca("/sca/factors/confirm", c.id), { body: { type: "TOTP", secret: totp.body.secret, code: hotp(secret, Math.floor(Date.now() / 30_000)) }, as: production })
    expect(real.status).toBe(coincidence ? 400 : 200)
  })
})

describe("security events", () => {
  it("FAILED_LOGIN_ATTEMPT escalates 5 → 15 min, 6 → 30 min, 7 → 1 h, 8 → 24 h, 9 → suspension; RESET_PASSWORD_COMPLETED clears it", async () => {
    const id = await verifiedCustomer()
    const record = (eventType: string) => api.call("POST", sca("/sca/record-event", id), { body: { eventType } })
    for (let i = 1; i <= 4; i++) expect((await record("FAILED_LOGIN_ATTEMPT")).body).toEqual({ eventType: "FAILED_LOGIN_ATTEMPT", suspended: false, lockedUntil: null, failedAttempts: i })
    const steps: ReadonlyArray<readonly [number, number]> = [[5, 15 * 60], [6, 30 * 60], [7, 3600], [8, 86_400]]
    for (const [n, seconds] of steps) {
      const r = await record("FAILED_LOGIN_ATTEMPT")
      expect(r.body.failedAttempts).toBe(n)
      const now = Date.parse((await api.call("GET", "/sandbox/clock")).body.now)
      expect(Math.round((Date.parse(r.body.lockedUntil) - now) / 1000)).toBe(seconds)
      expectError(await record("FAILED_LOGIN_ATTEMPT"), 423, "ACCOUNT_LOCKED")
      await advance(seconds + 1)
    }
    const ninth = await record("FAILED_LOGIN_ATTEMPT")
    expect(ninth.body).toEqual({ eventType: "FAILED_LOGIN_ATTEMPT", suspended: true, lockedUntil: null, failedAttempts: 9 })
    await advance(7 * 86_400)
    const suspended = await loginSms(id)
    expectError(suspended, 423, "ACCOUNT_LOCKED")
    expect(suspended.body.details).toEqual({ suspended: true, lockedUntil: null, failedAttempts: 9 })
    expect((await record("RESET_PASSWORD_COMPLETED")).body).toEqual({ eventType: "RESET_PASSWORD_COMPLETED", suspended: false, lockedUntil: null, failedAttempts: 0 })
    expect((await loginSms(id)).status).toBe(200)
  })
})

describe("POST /sandbox/reset", () => {
  it("clears contact-verification and SCA state with the customers", async () => {
    const resetApi = makeApi([platformA])
    try {
      const c = (await resetApi.call("POST", "/customers", { body: individual("Reset Me", EEA) })).body.id as string
      await resetApi.call("POST", `/customers/${c}/verify-phone`)
      await resetApi.call("POST", `/customers/${c}/verify-phone/confirm`, { body: { code: "123456" } })
      expect((await resetApi.call("GET", sca("/sca/factors", c))).body.factors).toEqual([{ factor: "SMS_OTP" }])
      expect((await resetApi.call("POST", "/sandbox/reset")).status).toBe(204)
      expectError(await resetApi.call("GET", sca("/sca/factors", c)), 404)
      expectError(await resetApi.call("POST", `/customers/${c}/verify-email`), 404)
    } finally {
      await resetApi.dispose()
    }
  })
})

describe("2FA reset", () => {
  it("start 201 → INITIATED → (sandbox: liveness passes after 30 s) LIVENESS_PASSED → complete 204 → COMPLETED; TOTP then re-enrolls", async () => {
    const id = await verifiedCustomer()
    const t = await api.call("POST", sca("/sca/factors", id), { body: { type: "TOTP" } })
    await api.call("POST", sca("/sca/factors/confirm", id), { body: { type: "TOTP", secret: t.body.secret, code: "123456" } })
    const start = await api.call("POST", sca("/sca/factors/reset", id), { body: { factor: "TOTP" } })
    expect(start.status).toBe(201)
    expect(start.body.resetId).toMatch(/^ScaReset:/)
    expect(typeof start.body.livenessAccessToken).toBe("string")
    expect(start.body.verificationLink).toMatch(/^https:\/\//)
    const rid = encodeURIComponent(start.body.resetId)
    expect((await api.call("GET", sca(`/sca/factors/reset/${rid}`, id))).body).toMatchObject({ status: "INITIATED", factor: "TOTP", enrollmentStatus: null, completedAt: null })
    expectError(await api.call("POST", sca(`/sca/factors/reset/${rid}/complete`, id)), 400, "INVALID_INPUT")
    await advance(31)
    expect((await api.call("GET", sca(`/sca/factors/reset/${rid}`, id))).body.status).toBe("LIVENESS_PASSED")
    expect((await api.call("POST", sca(`/sca/factors/reset/${rid}/complete`, id))).status).toBe(204)
    const status = await api.call("GET", sca(`/sca/factors/reset/${rid}`, id))
    expect(status.body).toMatchObject({ status: "COMPLETED", enrollmentStatus: "PENDING" })
    expect(typeof status.body.completedAt).toBe("string")
    expect((await api.call("GET", sca("/sca/factors", id))).body.factors).toEqual([{ factor: "SMS_OTP" }])
    const again = await api.call("POST", sca("/sca/factors", id), { body: { type: "TOTP" } })
    await api.call("POST", sca("/sca/factors/confirm", id), { body: { type: "TOTP", secret: again.body.secret, code: "123456" } })
    expect((await api.call("GET", sca(`/sca/factors/reset/${rid}`, id))).body.enrollmentStatus).toBe("COMPLETED")
    expectError(await api.call("POST", sca(`/sca/factors/reset/${rid}/complete`, id)), 400, "INVALID_INPUT")
  })

  it("an SMS_OTP reset needs the new mobile; a reset not finished in 30 minutes is EXPIRED; unknown resets 404; unenrolled factors 400", async () => {
    const id = await verifiedCustomer()
    expectError(await api.call("POST", sca("/sca/factors/reset", id), { body: { factor: "PASSKEY" } }), 400, "INVALID_INPUT")
    const start = await api.call("POST", sca("/sca/factors/reset", id), { body: { factor: "SMS_OTP" } })
    const rid = encodeURIComponent(start.body.resetId)
    await advance(31)
    const noMobile = await api.call("POST", sca(`/sca/factors/reset/${rid}/complete`, id))
    expectError(noMobile, 400, "INVALID_INPUT")
    expect(noMobile.body.details.errors[0].field).toBe("mobile")
    expectError(await api.call("POST", sca(`/sca/factors/reset/${rid}/complete`, id), { body: { mobile: { countryCode: "33", number: "612345678" } } }), 400, "INVALID_INPUT")
    expect((await api.call("POST", sca(`/sca/factors/reset/${rid}/complete`, id), { body: { mobile: { countryCode: "+33", number: "612345678" } } })).status).toBe(204)
    expect((await api.call("GET", sca(`/sca/factors/reset/${rid}`, id))).body).toMatchObject({ status: "COMPLETED", enrollmentStatus: null })
    const late = await api.call("POST", sca("/sca/factors/reset", id), { body: { factor: "SMS_OTP" } })
    await advance(30 * 60 + 1)
    expect((await api.call("GET", sca(`/sca/factors/reset/${encodeURIComponent(late.body.resetId)}`, id))).body.status).toBe("EXPIRED")
    expectError(await api.call("GET", sca("/sca/factors/reset/ScaReset:nope", id)), 404)
  })

  it("at most 5 resets start per 24 hours: the sixth is 429 RATE_LIMITED with Retry-After", async () => {
    const id = await verifiedCustomer()
    for (let i = 0; i < 5; i++) expect((await api.call("POST", sca("/sca/factors/reset", id), { body: { factor: "SMS_OTP" } })).status).toBe(201)
    const sixth = await api.handler(new Request(`http://test/2025-10-13${sca("/sca/factors/reset", id)}`, {
      method: "POST",
      headers: { authorization: `Basic ${Buffer.from("client-a:secret-a-123456").toString("base64")}`, "content-type": "application/json" },
      body: JSON.stringify({ factor: "SMS_OTP" })
    }))
    expect(sixth.status).toBe(429)
    expect(Number(sixth.headers.get("retry-after"))).toBeGreaterThan(86_000)
    expect((await sixth.json()).code).toBe("RATE_LIMITED")
    await advance(86_401)
    expect((await api.call("POST", sca("/sca/factors/reset", id), { body: { factor: "SMS_OTP" } })).status).toBe(201)
  })
})

describe("property: login attempts, security events and time follow the lockout ladder", () => {
  type Step = { readonly kind: "right" | "wrong" | "failed" | "reset" } | { readonly kind: "advance"; readonly seconds: number }
  const step: fc.Arbitrary<Step> = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom<Step>({ kind: "right" }, { kind: "wrong" }, { kind: "wrong" }, { kind: "failed" }, { kind: "reset" }) },
    { weight: 1, arbitrary: fc.constantFrom(60, 16 * 60, 31 * 60, 61 * 60, 25 * 3600).map((seconds): Step => ({ kind: "advance", seconds })) }
  )
  const LADDER: Readonly<Record<number, number>> = { 5: 15 * 60, 6: 30 * 60, 7: 3600, 8: 86_400 }

  it("matches the reference's ladder as a model", async () => {
    await fc.assert(fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 14 }), async (steps) => {
      const id = await verifiedCustomer()
      let t = 0
      let count = 0
      let lockedUntil: number | undefined
      let suspended = false
      const locked = () => suspended || (lockedUntil !== undefined && t < lockedUntil)
      const fail = () => {
        count++
        if (count >= 9) suspended = true
        else if (LADDER[count] !== undefined) lockedUntil = t + LADDER[count]!
      }
      for (const s of steps) {
        if (s.kind === "advance") {
          await advance(s.seconds)
          t += s.seconds
          continue
        }
        let r: Reply
        let expected: number
        if (s.kind === "right" || s.kind === "wrong") {
          r = await loginSms(id, s.kind === "right" ? "123456" : "000000")
          if (locked()) expected = 423
          else if (s.kind === "right") {
            expected = 200
            count = 0
            lockedUntil = undefined
          } else {
            fail()
            expected = locked() ? 423 : 400
          }
        } else if (s.kind === "failed") {
          r = await api.call("POST", sca("/sca/record-event", id), { body: { eventType: "FAILED_LOGIN_ATTEMPT" } })
          if (locked()) expected = 423
          else {
            fail()
            expected = 200
          }
        } else {
          r = await api.call("POST", sca("/sca/record-event", id), { body: { eventType: "RESET_PASSWORD_COMPLETED" } })
          expected = 200
          count = 0
          lockedUntil = undefined
          suspended = false
        }
        expect(r.status, `${s.kind} at +${t}s, ${count} failures: ${JSON.stringify(r.body)}`).toBe(expected)
        if (r.status === 423) expect(r.body.details).toMatchObject({ failedAttempts: count, suspended })
        if (r.status === 200 && s.kind !== "right") expect(r.body).toMatchObject({ failedAttempts: count, suspended })
      }
    }), { numRuns: numRuns(12) })
  })
})
