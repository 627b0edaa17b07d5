/** The SCA and contact-verification rules (src/rules/sca.ts), one `it` per rule, plus bounded properties of the machines. */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { hotp, totp, verifyTotp, base32 } from "../../src/crypto/totp.js"
import {
  checkCode,
  clearFailures,
  contactVerificationAfterUpdate,
  contactVerificationAtCreation,
  isLocked,
  isResetTerminal,
  lockoutAfter,
  NO_FAILURES,
  recordFailure,
  requiresSca,
  resendCheck,
  RESEND_INTERVAL_MS,
  resetRateCheck,
  resetTransition,
  type ResetMove,
  type ResetStatus,
  sessionLive,
  unverifiedChannels
} from "../../src/rules/sca.js"

const MIN = 60_000

describe("which customers", () => {
  it("EEA regions require SCA and contact verification; others and no region do not", () => {
    for (const r of ["DE", "FR", "IE", "NO", "IS", "LI"]) expect(requiresSca(r)).toBe(true)
    for (const r of ["US", "GB", "CH", "MX", undefined]) expect(requiresSca(r)).toBe(false)
  })
  it("a new customer: both channels PENDING in the EEA, nothing elsewhere", () => {
    expect(contactVerificationAtCreation("DE")).toEqual({ email: "PENDING", phone: "PENDING" })
    expect(contactVerificationAtCreation("US")).toBeUndefined()
  })
  it("an update: a changed contact value is PENDING again, the other channel keeps its status; leaving the EEA drops it", () => {
    const prev = { region: "DE", email: "a@x.io", phoneNumber: "+491", contactVerification: { email: "VERIFIED", phone: "VERIFIED" } as const }
    expect(contactVerificationAfterUpdate(prev, { region: "DE", email: "b@x.io", phoneNumber: "+491" })).toEqual({ email: "PENDING", phone: "VERIFIED" })
    expect(contactVerificationAfterUpdate(prev, { region: "DE", email: "a@x.io", phoneNumber: "+492" })).toEqual({ email: "VERIFIED", phone: "PENDING" })
    expect(contactVerificationAfterUpdate(prev, { region: "US", email: "a@x.io", phoneNumber: "+491" })).toBeUndefined()
    expect(contactVerificationAfterUpdate({ region: "US" }, { region: "FR" })).toEqual({ email: "PENDING", phone: "PENDING" })
  })
  it("KYC waits for every present channel", () => {
    expect(unverifiedChannels(undefined)).toEqual([])
    expect(unverifiedChannels({ email: "PENDING", phone: "VERIFIED" })).toEqual(["email"])
    expect(unverifiedChannels({ email: "VERIFIED", phone: "VERIFIED" })).toEqual([])
    expect(unverifiedChannels({ phone: "PENDING" })).toEqual(["phone"])
  })
})

describe("one-time codes", () => {
  const c = { codeHash: "right", expiresAt: 1000, attempts: 0 }
  it("the right code before expiry passes", () => expect(checkCode(c, "right", 1000, 5)).toEqual({ ok: true }))
  it("a wrong code counts a try", () => expect(checkCode(c, "wrong", 0, 5)).toEqual({ ok: false, reason: "wrong", next: { ...c, attempts: 1 } }))
  it("the try that reaches the limit spends the code", () => expect(checkCode({ ...c, attempts: 4 }, "wrong", 0, 5)).toEqual({ ok: false, reason: "wrong", next: undefined }))
  it("an exhausted code refuses even the right code", () => expect(checkCode({ ...c, attempts: 5 }, "right", 0, 5).ok).toBe(false))
  it("after expiry even the right code fails, and the code is spent", () => expect(checkCode(c, "right", 1001, 5)).toEqual({ ok: false, reason: "expired", next: undefined }))
  it("property: at most `max` wrong tries are ever counted, and the right code passes only while tries remain", () => {
    fc.assert(fc.property(fc.array(fc.boolean(), { maxLength: 20 }), fc.integer({ min: 1, max: 8 }), (tries, max) => {
      let current: typeof c | undefined = c
      let wrong = 0
      for (const right of tries) {
        if (current === undefined) break
        const v = checkCode(current, right ? "right" : "wrong", 0, max)
        if (v.ok) {
          expect(wrong).toBeLessThan(max)
          return
        }
        wrong++
        current = v.next
      }
      expect(wrong).toBeLessThanOrEqual(max)
    }), { numRuns: 200 })
  })
})

describe("lockout ladder (the reference's record-event table)", () => {
  it.each([[4, undefined], [5, 15 * MIN], [6, 30 * MIN], [7, 60 * MIN], [8, 24 * 60 * MIN], [9, Infinity], [12, Infinity]])("%i failures lock for %s ms", (n, ms) => {
    expect(lockoutAfter(n)).toBe(ms)
  })
  it("the fifth failure locks until now + 15 min; the ninth suspends; a reset clears", () => {
    let s = NO_FAILURES
    for (let i = 0; i < 5; i++) s = recordFailure(s, 0)
    expect(s).toEqual({ failedAttempts: 5, suspended: false, lockedUntil: 15 * MIN })
    expect(isLocked(s, 15 * MIN - 1)).toBe(true)
    expect(isLocked(s, 15 * MIN)).toBe(false)
    for (let i = 0; i < 4; i++) s = recordFailure(s, 0)
    expect(s.suspended).toBe(true)
    expect(isLocked(s, 10 ** 12)).toBe(true)
    expect(clearFailures(s)).toEqual(NO_FAILURES)
  })
  it("property: the counter only grows, locks only from 5 on, and a suspension never lifts by time", () => {
    fc.assert(fc.property(fc.array(fc.integer({ min: 0, max: 10 ** 9 }), { maxLength: 15 }), (times) => {
      let s = NO_FAILURES
      let t = 0
      for (const dt of times) {
        t += dt
        const next = recordFailure(s, t)
        expect(next.failedAttempts).toBe(s.failedAttempts + 1)
        expect(isLocked(next, t)).toBe(next.failedAttempts >= 5)
        if (s.suspended) expect(next.suspended).toBe(true)
        s = next
      }
    }), { numRuns: 200 })
  })
})

describe("sessions", () => {
  it("live strictly before its expiry; none is not live", () => {
    expect(sessionLive(10, 9)).toBe(true)
    expect(sessionLive(10, 10)).toBe(false)
    expect(sessionLive(undefined, 0)).toBe(false)
  })
})

describe("2FA reset machine", () => {
  const statuses: ReadonlyArray<ResetStatus> = ["INITIATED", "PENDING_REVIEW", "LIVENESS_PASSED", "COMPLETED", "REJECTED", "EXPIRED"]
  const moves: ReadonlyArray<ResetMove> = ["LIVENESS_SUBMITTED", "LIVENESS_PASSED", "LIVENESS_FAILED", "COMPLETE", "EXPIRE"]
  it("completes only after liveness passed", () => {
    expect(resetTransition("INITIATED", "COMPLETE")).toBeUndefined()
    expect(resetTransition("PENDING_REVIEW", "COMPLETE")).toBeUndefined()
    expect(resetTransition("LIVENESS_PASSED", "COMPLETE")).toBe("COMPLETED")
  })
  it("property: terminal statuses take no move, and every path ends within 3 moves", () => {
    fc.assert(fc.property(fc.array(fc.constantFrom(...moves), { maxLength: 10 }), (path) => {
      let s: ResetStatus = "INITIATED"
      let applied = 0
      for (const m of path) {
        const next = resetTransition(s, m)
        if (isResetTerminal(s)) expect(next).toBeUndefined()
        if (next !== undefined) {
          s = next
          applied++
        }
      }
      expect(applied).toBeLessThanOrEqual(3)
      expect(statuses).toContain(s)
    }), { numRuns: 300 })
  })
  it("at most 5 resets start in 24 hours; the next waits for the oldest to leave the window", () => {
    const day = 24 * 60 * MIN
    expect(resetRateCheck([1, 2, 3, 4], 10).allowed).toBe(true)
    const r = resetRateCheck([0, 1, 2, 3, 4], 10)
    expect(r).toEqual({ allowed: false, retryAfterMs: day - 10 })
    expect(resetRateCheck([0, 1, 2, 3, 4], day + 1).allowed).toBe(true)
  })
})

describe("authorization code resend", () => {
  it("once per 30 s, at most 5 resends", () => {
    expect(resendCheck({ expiresAt: 10 ** 6, sends: [0] }, RESEND_INTERVAL_MS - 1)).toEqual({ allowed: false, retryAfterMs: 1 })
    expect(resendCheck({ expiresAt: 10 ** 6, sends: [0] }, RESEND_INTERVAL_MS).allowed).toBe(true)
    expect(resendCheck({ expiresAt: 10 ** 6, sends: [0, 1, 2, 3, 4, 5] }, 10 ** 5).allowed).toBe(false)
  })
})

describe("TOTP (RFC 6238 appendix B, SHA-1, 8 digits; RFC 4226 appendix D)", () => {
  const secret = new TextEncoder().encode("12345678901234567890")
  it.each([[59, "94287082"], [1111111109, "07081804"], [1111111111, "14050471"], [1234567890, "89005924"], [2000000000, "69279037"]])("T=%i → %s", (t, code) => {
    expect(totp(secret, t * 1000, 30, 8)).toBe(code)
  })
  it("HOTP counters 0 and 9", () => {
    expect(hotp(secret, 0)).toBe("755224")
    expect(hotp(secret, 9)).toBe("520489")
  })
  it("accepts one step of drift, not two; refuses non-digits", () => {
    const now = 1_000_000_000_000
    const prev = totp(secret, now - 30_000)
    expect(verifyTotp(secret, prev, now)).toBe(true)
    expect(verifyTotp(secret, totp(secret, now + 30_000), now)).toBe(true)
    expect(verifyTotp(secret, totp(secret, now - 60_000), now)).toBe(false)
    expect(verifyTotp(secret, totp(secret, now + 60_000), now)).toBe(false)
    expect(verifyTotp(secret, "12345a", now)).toBe(false)
  })
  it("base32 (RFC 4648)", () => {
    expect(base32(new TextEncoder().encode("foobar"))).toBe("MZXW6YTBOI")
    expect(base32(new TextEncoder().encode("f"))).toBe("MY")
  })
})
