/**
 * Sandbox magic works on sandbox platforms only: one test per magic value the HTTP API
 * has today, each on a production platform (`sandbox: false`), beside the same request
 * on a sandbox platform so the test cannot pass for another reason. (KYC name suffixes
 * on production are in sandbox-kyc.test.ts; the verifiers' legacy values in
 * test/crypto/.)
 */
import { afterAll, describe, expect, it } from "vitest"
import { platformFromConfig } from "../../src/domain/platform.js"
import { Store } from "../../src/ports/store.js"
import { Context, Effect } from "effect"
import { evmWallet, individual, makeApi, usdAccount } from "../support/api.js"
import { completeBusinessInfo, files } from "../support/onboarding-client.js"

const sandbox = platformFromConfig({ id: "magic-sandbox", clientId: "magic-sandbox", clientSecret: "magic-sandbox-secret", travelRule: true })
const production = platformFromConfig({
  id: "magic-production",
  clientId: "magic-production",
  clientSecret: "magic-production-secret",
  travelRule: true,
  sandbox: false
})
const api = makeApi([sandbox, production])
afterAll(() => api.dispose())

const both = [["sandbox", sandbox], ["production", production]] as const

const customer = async (as: typeof sandbox, extra: Record<string, unknown> = {}) => {
  const r = await api.call("POST", "/customers", { body: individual("Magic Person", extra), as })
  expect(r.status).toBe(201)
  return r.body.id as string
}

describe("external-account magic on a production platform", () => {
  it("name-check suffixes 102, 103, 104, 106, 107 select nothing", async () => {
    for (const suffix of ["102", "103", "104", "106", "107"]) {
      const statuses: Record<string, unknown> = {}
      for (const [name, p] of both) {
        const c = await customer(p)
        const r = await api.call("POST", "/customers/external-accounts", { body: usdAccount(c, `123456${suffix}`), as: p })
        expect(r.status).toBe(201)
        statuses[name] = r.body.beneficiaryVerificationStatus
      }
      expect(statuses["sandbox"], suffix).not.toBe("MATCHED")
      expect(statuses["production"], suffix).toBeUndefined()
    }
  })

  it("suffix 105 does not reject the account", async () => {
    const s = await api.call("POST", "/customers/external-accounts", { body: usdAccount(await customer(sandbox), "123456105"), as: sandbox })
    expect(s.status).toBe(400)
    const p = await api.call("POST", "/customers/external-accounts", { body: usdAccount(await customer(production), "123456105"), as: production })
    expect(p.status).toBe(201)
  })

  it("routing numbers ending 901 / 902 start no micro-entry validation", async () => {
    for (const routing of ["021000901", "021000902"]) {
      const s = await api.call("POST", "/customers/external-accounts", {
        body: usdAccount(await customer(sandbox), "555000111", { routingNumber: routing }),
        as: sandbox
      })
      expect(s.body.status).toBe("PENDING")
      const p = await api.call("POST", "/customers/external-accounts", {
        body: usdAccount(await customer(production), "555000111", { routingNumber: routing }),
        as: production
      })
      expect(p.body.status).toBe("ACTIVE")
    }
  })

  it("the SCA code 123456 confirms no beneficiary trust", async () => {
    for (const [name, p] of both) {
      const c = await customer(p, { region: "DE" })
      const acct = await api.call("POST", "/customers/external-accounts", { body: usdAccount(c, "777000111"), as: p })
      expect((await api.call("POST", `/customers/external-accounts/${acct.body.id}/trust`, { as: p })).status).toBe(200)
      const confirmed = await api.call("POST", `/customers/external-accounts/${acct.body.id}/trust/confirm`, { body: { code: "123456" }, as: p })
      expect(confirmed.status, name).toBe(name === "sandbox" ? 200 : 400)
    }
  })

  it("a LIVENESS challenge schedules no automatic pass", async () => {
    const context = await api.ready
    const store = Context.get(context, Store)
    for (const [name, p] of both) {
      const c = await customer(p)
      const w = await api.call("POST", "/customers/external-accounts", {
        body: evmWallet(c, `0x${(name === "sandbox" ? "a" : "b").repeat(40)}`, { ownershipType: "FIRST_PARTY" }),
        as: p
      })
      expect(w.body.status).toBe("PENDING_OWNERSHIP_VERIFICATION")
      const challenge = await api.call("POST", `/customers/external-accounts/${w.body.id}/challenge`, { body: { method: "LIVENESS" }, as: p })
      expect(challenge.body.method, name).toBe("LIVENESS")
      const pending = await Effect.runPromise(store.timers.pending(p.id))
      expect(pending.filter((t) => t.subjectId === w.body.id), name).toHaveLength(name === "sandbox" ? 1 : 0)
    }
  })
})

describe("onboarding magic on a production platform", () => {
  it("KYB registration-number suffixes decide nothing: a complete packet goes to manual review", async () => {
    for (const [name, p] of both) {
      const b = await api.call("POST", "/customers", {
        body: { customerType: "BUSINESS", businessInfo: { legalName: "Magic Ltd", registrationNumber: "REG-002", ...completeBusinessInfo } },
        as: p
      })
      expect(b.status).toBe(201)
      const v = await api.call("POST", "/verifications", { body: { customerId: b.body.id }, as: p })
      if (name === "production") expect(v.body.verificationStatus).not.toBe("REJECTED")
    }
  })

  it("document numbers ending 911, 912, 913 are not rejected", async () => {
    for (const suffix of ["911", "912", "913"]) {
      for (const [name, p] of both) {
        const c = await customer(p, { idType: "PASSPORT", identifier: `P${suffix}` })
        const form = new FormData()
        for (const [k, v] of Object.entries({ documentHolder: c, documentType: "PASSPORT", country: "US", documentNumber: `P${suffix}` })) form.append(k, v)
        form.append("file", new Blob([Uint8Array.from(files.jpeg().bytes)], { type: "image/jpeg" }), "passport.jpg")
        const encoded = new Response(form)
        const res = await api.handler(new Request("http://test/2025-10-13/documents", {
          method: "POST",
          headers: {
            authorization: `Basic ${Buffer.from(`${p.clientId}:${p.clientSecret}`).toString("base64")}`,
            "content-type": encoded.headers.get("content-type") ?? ""
          },
          body: new Uint8Array(await encoded.arrayBuffer())
        }))
        expect(res.status, `${name} ${suffix}`).toBe(name === "sandbox" ? 400 : 201)
      }
    }
  })
})

describe("sandbox endpoints on a production platform", () => {
  it("clock, advance and reset answer 403", async () => {
    expect((await api.call("GET", "/sandbox/clock", { as: production })).status).toBe(403)
    expect((await api.call("POST", "/sandbox/clock/advance", { body: { seconds: 60 }, as: production })).status).toBe(403)
    expect((await api.call("POST", "/sandbox/reset", { as: production })).status).toBe(403)
    expect((await api.call("GET", "/sandbox/clock", { as: sandbox })).status).toBe(200)
  })
})

describe("SCA and contact-verification codes on a production platform", () => {
  it("123456 verifies no email or phone", async () => {
    for (const [name, p] of both) {
      const c = await customer(p, { region: "FR", email: `${name}@example.com`, phoneNumber: "+33612345678" })
      for (const channel of ["email", "phone"]) {
        expect((await api.call("POST", `/customers/${c}/verify-${channel}`, { as: p })).status).toBe(204)
        const r = await api.call("POST", `/customers/${c}/verify-${channel}/confirm`, { body: { code: "123456" }, as: p })
        expect(r.status, `${name} ${channel}`).toBe(name === "sandbox" ? 200 : 400)
      }
    }
  })

  it("123456 enrolls no TOTP factor (a production TOTP needs the authenticator's current code)", async () => {
    const { hotp } = await import("../../src/crypto/totp.js")
    for (const [name, p] of both) {
      const c = await customer(p, { region: "DE" })
      const start = await api.call("POST", `/sca/factors?customerId=${encodeURIComponent(c)}`, { body: { type: "TOTP" }, as: p })
      expect(start.status).toBe(200)
      const secret = new Uint8Array(Buffer.from(start.body.secret, "hex"))
      const step = Math.floor(Date.now() / 30_000)
      // One chance in a million per step that 123456 is the real code: then production accepts it rightly.
      const coincidence = [-1, 0, 1, 2].some((d) => hotp(secret, step + d) === "123456")
      const r = await api.call("POST", `/sca/factors/confirm?customerId=${encodeURIComponent(c)}`, { body: { type: "TOTP", secret: start.body.secret, code: "123456" }, as: p })
      expect(r.status, name).toBe(name === "sandbox" || coincidence ? 200 : 400)
    }
  })
})
