/**
 * POST /customers/{customerId}/kyc-link and the sandbox's hosted flow behind the link
 * (GET/POST /sandbox/kyc-link?token=…, no credentials): the link is single-use, expires
 * after 24 hours of the platform's clock, and completing it lands the verification
 * exactly as POST /verifications does (same outcome by name suffix, same customer
 * status, same events). Runs on every store (test/postgres/kyc-links.e2e.test.ts).
 */
import { afterAll, describe, expect, it } from "vitest"
import type { Platform } from "../../src/domain/platform.js"
import { isErrorShape, makeApi, readReply, type Reply } from "../support/api.js"
import { completeIndividualFields, files, individual, makePlatform } from "../support/onboarding-client.js"
import { moneyClient } from "../support/money.js"

const sandbox = makePlatform("kyc-links")
const other = makePlatform("kyc-links-other")
const production = makePlatform("kyc-links-production", { sandbox: false })
const api = makeApi([sandbox, other, production])
afterAll(() => api.dispose())
const events = moneyClient(api, sandbox).events

const expectError = (r: Reply, status: number, code: string) => {
  expect(r.status, JSON.stringify(r.body)).toBe(status)
  expect(isErrorShape(r.body)).toBe(true)
  expect((r.body as { code: string }).code).toBe(code)
}

const customer = async (fullName: string, complete: boolean, as: Platform = sandbox) => {
  const r = await api.call("POST", "/customers", { body: individual(fullName, complete ? completeIndividualFields : {}), as })
  expect(r.status).toBe(201)
  if (complete) {
    const fd = new FormData()
    fd.append("documentHolder", r.body.id)
    fd.append("documentType", "PASSPORT")
    fd.append("country", "US")
    const f = files.jpeg()
    fd.append("file", new Blob([new Uint8Array(f.bytes)], { type: f.type }), f.name)
    const encoded = new Response(fd)
    const res = await api.handler(new Request("http://test/2025-10-13/documents", {
      method: "POST",
      headers: { authorization: `Basic ${Buffer.from(`${as.clientId}:${as.clientSecret}`).toString("base64")}`, "content-type": encoded.headers.get("content-type") ?? "" },
      body: new Uint8Array(await encoded.arrayBuffer())
    }))
    expect(res.status).toBe(201)
  }
  return r.body as { id: string; kycStatus: string }
}

const link = async (customerId: string, body?: unknown, as: Platform = sandbox, headers?: Record<string, string>) =>
  api.call("POST", `/customers/${encodeURIComponent(customerId)}/kyc-link`, { as, ...(body === undefined ? {} : { body }), ...(headers === undefined ? {} : { headers }) })

/** The hosted page, as a browser asks for it: no credentials at all. */
const hosted = async (method: "GET" | "POST", url: string) => {
  const res = await api.handler(new Request(url, method === "POST"
    ? { method, headers: { "content-type": "application/x-www-form-urlencoded" }, body: "confirm=submit" }
    : { method }))
  const reply = await readReply(res)
  return { ...reply, contentType: res.headers.get("content-type") ?? "" }
}

const statusIn = (html: string, id: string) => new RegExp(`id="${id}">([A-Z_]+)<`).exec(html)?.[1]
const kycStatus = async (id: string) => (await api.call("GET", `/customers/${id}`)).body.kycStatus as string
const verificationsOf = async (id: string) => (await api.call("GET", `/verifications?customerId=${encodeURIComponent(id)}`)).body.data as Array<{ id: string; verificationStatus: string }>
const eventTypesOf = async (id: string) =>
  (await events()).filter((e) => JSON.stringify((e as { data?: unknown }).data ?? {}).includes(id)).map((e) => e.type)

describe("POST /customers/{customerId}/kyc-link", () => {
  it("201: a hosted URL on this server, good for 24 hours of the platform clock, provider SUMSUB; the customer's status does not change", async () => {
    const c = await customer("Kim Park", false)
    const now = Date.parse((await api.call("GET", "/sandbox/clock")).body.now)
    const r = await link(c.id)
    expect(r.status).toBe(201)
    expect(r.body.provider).toBe("SUMSUB")
    expect(r.body.kycUrl).toMatch(/^http:\/\/test\/2025-10-13\/sandbox\/kyc-link\?token=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/)
    expect(Date.parse(r.body.expiresAt) - now).toBeGreaterThanOrEqual(86_400_000)
    expect(Date.parse(r.body.expiresAt) - now).toBeLessThan(86_400_000 + 60_000)
    expect(await kycStatus(c.id)).toBe("UNVERIFIED")
    // Each call is a fresh link.
    expect((await link(c.id, {})).body.kycUrl).not.toBe(r.body.kycUrl)
  })

  it("refusals: an unknown customer or another platform's 404, a bad redirectUri 400, a production platform 501; Idempotency-Key replays", async () => {
    expectError(await link("Customer:00000000-0000-4000-8000-000000000000"), 404, "USER_NOT_FOUND")
    const theirs = await customer("Other Person", false, other)
    expectError(await link(theirs.id), 404, "USER_NOT_FOUND")
    const c = await customer("Kim Park", false)
    expectError(await link(c.id, { redirectUri: "javascript:alert(1)" }), 400, "INVALID_INPUT")
    const prod = await customer("Prod Person", false, production)
    expectError(await link(prod.id, undefined, production), 501, "NOT_IMPLEMENTED")
    const key = { "idempotency-key": `kyc-link-${c.id}` }
    const first = await link(c.id, { redirectUri: "https://app.example.com/done" }, sandbox, key)
    expect(first.status).toBe(201)
    expect((await link(c.id, { redirectUri: "https://app.example.com/done" }, sandbox, key)).body).toEqual(first.body)
    expectError(await link(c.id, { redirectUri: "https://app.example.com/other" }, sandbox, key), 409, "CONFLICT")
  })

  it("409 while contact verification is required and incomplete (an SCA-region customer)", async () => {
    const r = await api.call("POST", "/customers", { body: individual("Ada Lovelace", { region: "DE", email: "ada@example.com", phoneNumber: "+4915112345678" }) })
    expect(r.body.contactVerification).toEqual({ email: "PENDING", phone: "PENDING" })
    const refused = await link(r.body.id)
    expectError(refused, 409, "CONFLICT")
    expect(refused.body.details.unverified).toEqual(["email", "phone"])
  })
})

describe("the hosted flow", () => {
  it("the page needs no credentials; submitting is POST /verifications (RESOLVE_ERRORS for an incomplete packet); the link is single-use", async () => {
    const c = await customer("Lee Ming", false)
    const { kycUrl } = (await link(c.id, { redirectUri: "https://app.example.com/done?step=2&x=<y>" })).body
    const page = await hosted("GET", kycUrl)
    expect(page.status).toBe(200)
    expect(page.contentType).toMatch(/^text\/html/)
    expect(page.body).toContain("Lee Ming")
    expect(statusIn(page.body, "customer-status")).toBe("UNVERIFIED")
    expect(page.body).toContain('<form method="post">')
    const submitted = await hosted("POST", kycUrl)
    expect(submitted.status).toBe(200)
    expect(statusIn(submitted.body, "verification-status")).toBe("RESOLVE_ERRORS")
    expect(submitted.body).toContain('href="https://app.example.com/done?step=2&amp;x=&lt;y&gt;"')
    const list = await verificationsOf(c.id)
    expect(list).toHaveLength(1)
    expect(submitted.body).toContain(list[0]!.id)
    // Used: submitting again (or reloading) shows the same verification and creates nothing.
    const again = await hosted("POST", kycUrl)
    expect(again.body).toContain(list[0]!.id)
    expect((await hosted("GET", kycUrl)).body).toContain(list[0]!.id)
    expect(await verificationsOf(c.id)).toHaveLength(1)
  })

  it("lands exactly as POST /verifications: the same outcome by name suffix, customer status and events", async () => {
    for (const name of ["Ann Lee", "Ann Lee 001", "Ann Lee 002"]) {
      const viaApi = await customer(name, true)
      const viaLink = await customer(name, true)
      const direct = await api.call("POST", "/verifications", { body: { customerId: viaApi.id } })
      expect(direct.status).toBe(200)
      const page = await hosted("POST", (await link(viaLink.id)).body.kycUrl)
      expect(statusIn(page.body, "verification-status"), name).toBe(direct.body.verificationStatus)
      expect(await kycStatus(viaLink.id), name).toBe(await kycStatus(viaApi.id))
      expect(statusIn(page.body, "customer-status"), name).toBe(await kycStatus(viaApi.id))
      expect(await eventTypesOf(viaLink.id), name).toEqual(await eventTypesOf(viaApi.id))
    }
  })

  it("a tampered or foreign token is 404; an unused link after 24 hours of the platform clock is 400 EXPIRED and submits nothing", async () => {
    const c = await customer("Tess Ode", false)
    const { kycUrl } = (await link(c.id)).body as { kycUrl: string }
    const [body, sig] = kycUrl.slice(kycUrl.indexOf("=") + 1).split(".") as [string, string]
    const base = kycUrl.slice(0, kycUrl.indexOf("=") + 1)
    const forged = `${base}${Buffer.from(Buffer.from(body, "base64url").toString("utf8").replace(c.id, "Customer:x")).toString("base64url")}.${sig}`
    for (const url of [forged, `${base}${body}.${sig.slice(0, -2)}AA`, `${base}nonsense`]) {
      const r = await hosted("GET", url)
      expect(r.status).toBe(404)
      expect(isErrorShape(r.body)).toBe(true)
      expect((await hosted("POST", url)).status).toBe(404)
    }
    const used = (await link(c.id)).body.kycUrl as string
    await hosted("POST", used)
    expect((await api.call("POST", "/sandbox/clock/advance", { body: { seconds: 86_401 } })).status).toBe(200)
    expectError(await hosted("GET", kycUrl), 400, "EXPIRED")
    expectError(await hosted("POST", kycUrl), 400, "EXPIRED")
    expect(await verificationsOf(c.id)).toHaveLength(1)
    // Past its 24 hours a used link is expired too (its result stays in GET /verifications).
    expectError(await hosted("GET", used), 400, "EXPIRED")
  })
})
