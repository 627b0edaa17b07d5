/**
 * UMA invitations: POST /invitations, GET /invitations/{code}, POST .../claim and
 * POST .../cancel. The lifecycle (PENDING to CLAIMED or CANCELLED; EXPIRED once
 * `expiresAt` passes on the creating platform's clock), the code shared across
 * platforms (any platform reads and claims; only the creator cancels), INVITATION.CLAIMED
 * to the creator, and every refusal in the API's error shape. Runs on every store
 * (test/postgres/invitations.e2e.test.ts reruns it on PostgreSQL).
 */
import { afterAll, describe, expect, it } from "vitest"
import { isErrorShape } from "../support/api.js"
import { type MoneyClient, moneyApp, moneyPlatform } from "../support/money.js"

const inviterPlatform = moneyPlatform("invitations", { umaDomain: "invite.example.com" })
const otherPlatform = moneyPlatform("invitations-other")
const app = moneyApp([inviterPlatform, otherPlatform])
const [m, o] = app.clients as [MoneyClient, MoneyClient]
afterAll(() => app.dispose())

const expectError = (r: { status: number; body: { code?: string } }, status: number, code: string) => {
  expect(r.status, JSON.stringify(r.body)).toBe(status)
  expect(isErrorShape(r.body)).toBe(true)
  expect(r.body.code).toBe(code)
}

let seq = 0
/** A customer of the inviting platform, and a fresh invitation from it. */
const invite = async (extra: Record<string, unknown> = {}) => {
  const c = await m.customer({ umaAddress: `$inviter${++seq}@invite.example.com` })
  const inv = await m.ok("POST", "/invitations", { inviterUma: c.umaAddress, ...extra }, 201)
  return { customer: c, invitation: inv }
}
const path = (code: string, tail = "") => `/invitations/${encodeURIComponent(code)}${tail}`

describe("POST /invitations", () => {
  it("201: a PENDING invitation with a code, its claim URL on the platform's UMA domain, the amount in the inviter's currency", async () => {
    const now = Date.parse((await m.ok("GET", "/sandbox/clock")).now)
    const expiresAt = new Date(now + 86_400_000).toISOString()
    const { customer, invitation } = await invite({ firstName: "Alice", amountToSend: 12_550, expiresAt })
    expect(invitation).toMatchObject({
      status: "PENDING",
      inviterUma: customer.umaAddress,
      firstName: "Alice",
      amountToSend: { amount: 12_550, currency: { code: "USD", decimals: 2 } },
      expiresAt
    })
    expect(invitation.code).toMatch(/^[0-9a-f]{16}$/)
    expect(invitation.url).toBe(`https://invite.example.com/i/${invitation.code}`)
    expect(Date.parse(invitation.createdAt)).toBeGreaterThanOrEqual(now)
    expect(invitation).not.toHaveProperty("inviteeUma")
    expect(invitation).not.toHaveProperty("claimedAt")
    expect(await m.ok("GET", path(invitation.code))).toEqual(invitation)
  })

  it("refusals: a malformed UMA address, one that is no customer of the platform, an expiry in the past, a bad amount", async () => {
    expectError(await m.call("POST", "/invitations", { inviterUma: "not-an-address" }), 400, "INVALID_UMA_ADDRESS")
    const unknown = await m.call("POST", "/invitations", { inviterUma: "$nobody@invite.example.com" })
    expectError(unknown, 400, "INVALID_INPUT")
    expect(unknown.body.details.errors[0]).toMatchObject({ field: "inviterUma", constraint: "exists" })
    // Another platform's customer is no customer of this one.
    const foreign = await o.customer({ umaAddress: "$foreigner@other.example.com" })
    expectError(await m.call("POST", "/invitations", { inviterUma: foreign.umaAddress }), 400, "INVALID_INPUT")
    const c = await m.customer({ umaAddress: `$inviter${++seq}@invite.example.com` })
    const past = await m.call("POST", "/invitations", { inviterUma: c.umaAddress, expiresAt: "2020-01-01T00:00:00Z" })
    expectError(past, 400, "INVALID_INPUT")
    expect(past.body.details.errors[0]).toMatchObject({ field: "expiresAt", constraint: "future" })
    for (const bad of [{ amountToSend: 0 }, { amountToSend: 1.5 }, { expiresAt: "tomorrow" }, { inviterUma: "" }]) {
      expectError(await m.call("POST", "/invitations", { inviterUma: c.umaAddress, ...bad }), 400, "INVALID_INPUT")
    }
  })
})

describe("GET /invitations/{code}", () => {
  it("any platform holding the code reads the same invitation; an unknown code is 404", async () => {
    const { invitation } = await invite()
    expect(await o.ok("GET", path(invitation.code))).toEqual(invitation)
    expectError(await m.call("GET", path("0000000000000000")), 404, "INVITATION_NOT_FOUND")
  })
})

describe("claiming", () => {
  it("another platform claims: CLAIMED with the invitee and claimedAt; INVITATION.CLAIMED goes to the creating platform only", async () => {
    const { invitation } = await invite({ amountToSend: 500 })
    const before = (await o.events()).length
    const claimed = await o.ok("POST", path(invitation.code, "/claim"), { inviteeUma: "$bob@other.example.com" })
    expect(claimed).toMatchObject({ ...invitation, status: "CLAIMED", inviteeUma: "$bob@other.example.com" })
    expect(Date.parse(claimed.claimedAt)).toBeGreaterThanOrEqual(Date.parse(invitation.createdAt))
    expect(await m.ok("GET", path(invitation.code))).toEqual(claimed)
    const event = (await m.events()).find((e) => e.type === "INVITATION.CLAIMED" && (e as { data: { code: string } }).data.code === invitation.code)
    expect(event).toMatchObject({ type: "INVITATION.CLAIMED", platformId: inviterPlatform.id, data: claimed })
    expect((await o.events()).length).toBe(before)
  })

  it("a claimed invitation cannot be claimed again nor cancelled: 400 INVITATION_ALREADY_CLAIMED", async () => {
    const { invitation } = await invite()
    await o.ok("POST", path(invitation.code, "/claim"), { inviteeUma: "$bob@other.example.com" })
    expectError(await o.call("POST", path(invitation.code, "/claim"), { inviteeUma: "$carol@other.example.com" }), 400, "INVITATION_ALREADY_CLAIMED")
    expectError(await m.call("POST", path(invitation.code, "/cancel")), 400, "INVITATION_ALREADY_CLAIMED")
    expect((await m.ok("GET", path(invitation.code))).inviteeUma).toBe("$bob@other.example.com")
  })

  it("refusals: a malformed invitee address, the inviter itself, an unknown code", async () => {
    const { invitation } = await invite()
    expectError(await o.call("POST", path(invitation.code, "/claim"), { inviteeUma: "bob" }), 400, "INVALID_UMA_ADDRESS")
    expectError(await o.call("POST", path(invitation.code, "/claim"), { inviteeUma: invitation.inviterUma.toUpperCase() }), 400, "INVALID_INPUT")
    expectError(await o.call("POST", path(invitation.code, "/claim"), {}), 400, "INVALID_INPUT")
    expectError(await o.call("POST", path("ffffffffffffffff", "/claim"), { inviteeUma: "$bob@other.example.com" }), 404, "INVITATION_NOT_FOUND")
    expect((await m.ok("GET", path(invitation.code))).status).toBe("PENDING")
  })
})

describe("cancelling", () => {
  it("only the creating platform cancels (403 otherwise); a cancelled invitation cannot be claimed nor cancelled again", async () => {
    const { invitation } = await invite()
    expectError(await o.call("POST", path(invitation.code, "/cancel")), 403, "FORBIDDEN")
    const cancelled = await m.ok("POST", path(invitation.code, "/cancel"))
    expect(cancelled).toEqual({ ...invitation, status: "CANCELLED" })
    expectError(await o.call("POST", path(invitation.code, "/claim"), { inviteeUma: "$bob@other.example.com" }), 400, "INVITATION_CANCELLED")
    expectError(await m.call("POST", path(invitation.code, "/cancel")), 400, "INVITATION_CANCELLED")
    expectError(await m.call("POST", path("ffffffffffffffff", "/cancel")), 404, "INVITATION_NOT_FOUND")
  })
})

describe("expiry on the creating platform's clock", () => {
  it("EXPIRED once expiresAt passes on the creator's clock, whoever reads it; then neither claimed nor cancelled (400 EXPIRED)", async () => {
    const t = moneyPlatform("invitations-expiry", { umaDomain: "expiry.example.com" })
    const other = moneyPlatform("invitations-expiry-other")
    const tapp = moneyApp([t, other])
    const [c, x] = tapp.clients as [MoneyClient, MoneyClient]
    try {
      const now = Date.parse((await c.ok("GET", "/sandbox/clock")).now)
      const customer = await c.customer({ umaAddress: "$ann@expiry.example.com" })
      const inv = await c.ok("POST", "/invitations", { inviterUma: customer.umaAddress, expiresAt: new Date(now + 3_600_000).toISOString() }, 201)
      const never = await c.ok("POST", "/invitations", { inviterUma: customer.umaAddress }, 201)
      await c.ok("POST", "/sandbox/clock/advance", { seconds: 3_599 })
      expect((await x.ok("GET", path(inv.code))).status).toBe("PENDING")
      await c.ok("POST", "/sandbox/clock/advance", { seconds: 2 })
      // The reader's own clock did not move: the creator's decides.
      expect(await x.ok("GET", path(inv.code))).toEqual({ ...inv, status: "EXPIRED" })
      expect((await c.ok("GET", path(inv.code))).status).toBe("EXPIRED")
      expectError(await x.call("POST", path(inv.code, "/claim"), { inviteeUma: "$zed@other.example.com" }), 400, "EXPIRED")
      expectError(await c.call("POST", path(inv.code, "/cancel")), 400, "EXPIRED")
      // Without expiresAt an invitation never expires.
      await c.ok("POST", "/sandbox/clock/advance", { seconds: 31_536_000 })
      expect((await x.ok("GET", path(never.code))).status).toBe("PENDING")
    } finally {
      await tapp.dispose()
    }
  })

  it("a sandbox reset deletes the platform's invitations", async () => {
    const t = moneyPlatform("invitations-reset")
    const tapp = moneyApp([t])
    const [c] = tapp.clients as [MoneyClient]
    try {
      const customer = await c.customer({ umaAddress: "$reset@reset.example.com" })
      const inv = await c.ok("POST", "/invitations", { inviterUma: customer.umaAddress }, 201)
      expect(inv.url).toBe(`https://reset.example.com/i/${inv.code}`)
      await c.call("POST", "/sandbox/reset")
      expectError(await c.call("GET", path(inv.code)), 404, "INVITATION_NOT_FOUND")
    } finally {
      await tapp.dispose()
    }
  })
})
