/**
 * Conformance: the invitation answers (POST /invitations, GET /invitations/{code},
 * POST .../claim, POST .../cancel) validate against the reference OpenAPI operation's
 * schema for their status, through the shared harness; so does the INVITATION.CLAIMED
 * event's data (the reference's UmaInvitation).
 *
 * SPEC.md's differences that touch these bodies: none, so `SPEC_DIFFERENCES` is empty,
 * on purpose.
 */
import { afterAll, describe, expect, it } from "vitest"
import { platformFromConfig } from "../../src/domain/platform.js"
import { makeApi, type Reply } from "../support/api.js"
import { conformance, type Json } from "./harness.js"
import { INVITATION_OPERATIONS } from "./operations.js"

/** None: see the header comment. */
const SPEC_DIFFERENCES = (_: Record<string, Json>) => undefined

const { conforms, validator, schemaConforms, checked } = conformance(SPEC_DIFFERENCES)

const a = platformFromConfig({ id: "conformance-invitations", clientId: "conf-inv", clientSecret: "conf-inv-secret-1", regulated: true, umaDomain: "conf.example.com" })
const b = platformFromConfig({ id: "conformance-invitations-b", clientId: "conf-inv-b", clientSecret: "conf-inv-b-secret-1", regulated: true })
const api = makeApi([a, b])
afterAll(() => api.dispose())

const call = (as: typeof a, method: string, path: string, body?: unknown): Promise<Reply> =>
  api.call(method, path, { as, ...(body === undefined ? {} : { body }) })

describe("invitation answers against the reference", () => {
  it("create, get (both platforms), claim, cancel", async () => {
    const customer = await call(a, "POST", "/customers", { customerType: "INDIVIDUAL", fullName: "Ann Inviter", platformCustomerId: "conf-inv-1", umaAddress: "$ann@conf.example.com" })
    expect(customer.status).toBe(201)
    const created = await call(a, "POST", "/invitations", { inviterUma: "$ann@conf.example.com", firstName: "Bob", amountToSend: 1_000, expiresAt: "2099-01-01T00:00:00Z" })
    conforms("POST", "/invitations", created)
    conforms("GET", "/invitations/{invitationCode}", await call(a, "GET", `/invitations/${created.body.code}`))
    conforms("GET", "/invitations/{invitationCode}", await call(b, "GET", `/invitations/${created.body.code}`))
    const claimed = await call(b, "POST", `/invitations/${created.body.code}/claim`, { inviteeUma: "$bob@other.example.com" })
    conforms("POST", "/invitations/{invitationCode}/claim", claimed)
    const plain = await call(a, "POST", "/invitations", { inviterUma: "$ann@conf.example.com" })
    conforms("POST", "/invitations/{invitationCode}/cancel", await call(a, "POST", `/invitations/${plain.body.code}/cancel`))
    schemaConforms("InvitationClaimedWebhook", { id: "Webhook:019542f5-b3e7-1d02-0000-000000000007", type: "INVITATION.CLAIMED", timestamp: claimed.body.claimedAt, data: claimed.body }, "INVITATION.CLAIMED")
  })

  it("the validator bites", () => {
    expect(validator("UmaInvitation")({ code: "x", createdAt: "2026-01-01T00:00:00Z", inviterUma: "$a@b.c", url: "https://b.c/i/x", status: "OPEN" })).toBe(false)
  })

  it("every invitation endpoint was checked", () => {
    for (const op of INVITATION_OPERATIONS) expect(checked.get(op) ?? 0, op).toBeGreaterThan(0)
  })
})
