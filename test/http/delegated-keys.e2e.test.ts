/**
 * Delegated signing keys end to end over HTTP (`/auth/delegated-keys`), driven by the real
 * client libraries: a credential registered and verified, the session key opened with
 * `@turnkey/crypto`, and every leg of the three-leg signed flow stamped with
 * `@turnkey/api-key-stamper`. Cards come from `POST /cards`. Memory store only
 * (test/postgres/README.md); `PAYMENTS_TEST_STORE=postgres` runs it on PostgreSQL.
 */
import { generateP256KeyPair } from "@turnkey/crypto"
import { afterAll, describe, expect, it } from "vitest"
import { platformFromConfig } from "../../src/domain/platform.js"
import { makeApi, type Reply } from "../support/api.js"
import { emailOtpSession, newWallet, oauthSession, signedHeaders, type Wallet, type WalletKey } from "../support/wallet-client.js"

const platform = platformFromConfig({ id: "delegated-platform", clientId: "delegated-client", clientSecret: "delegated-secret-1", regulated: true, embeddedWallets: {} })
const other = platformFromConfig({ id: "delegated-other", clientId: "delegated-other", clientSecret: "delegated-other-secret", regulated: true, embeddedWallets: {} })
const resettable = platformFromConfig({ id: "delegated-reset", clientId: "delegated-reset", clientSecret: "delegated-reset-secret", regulated: true, embeddedWallets: {} })
const api = makeApi([platform, other, resettable])
afterAll(() => api.dispose())

const PATH = "/auth/delegated-keys"
const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"

/** A card of the wallet's customer funded by `fundingSources` (default: the wallet). */
const newCard = async (w: Wallet, as = platform, fundingSources: ReadonlyArray<string> = [w.accountId]): Promise<string> => {
  const r = await api.call("POST", "/cards", { as, body: { cardholderId: w.customerId, form: "VIRTUAL", fundingSources } })
  expect(r.status, JSON.stringify(r.body)).toBe(201)
  return r.body.id
}

/** A wallet with a session (OAUTH, the session key opened from its sealed bundle) and a card it funds. */
const setup = async (as = platform) => {
  const w = await newWallet(api, as)
  const session = await oauthSession(api, as, w)
  const cardId = await newCard(w, as)
  return { w, key: session.key, sessionId: session.sessionId, cardId, body: { cardId, internalAccountId: w.accountId, nickname: "Card payments key" } }
}

const post = (body: unknown, headers?: Record<string, string>, as = platform) =>
  api.call("POST", PATH, { as, body, ...(headers === undefined ? {} : { headers }) })

/** Legs 1 and 2: the key exists PENDING; answers the second 202 (the challenge of leg 3). */
const toPending = async (body: unknown, key: WalletKey, as = platform) => {
  const first = await post(body, undefined, as)
  expect(first.status, JSON.stringify(first.body)).toBe(202)
  const second = await post(body, await signedHeaders(key, first.body), as)
  expect(second.status, JSON.stringify(second.body)).toBe(202)
  return { first, second }
}

/** All three legs: the 201. */
const createKey = async (body: unknown, key: WalletKey, as = platform): Promise<Reply> => {
  const { second } = await toPending(body, key, as)
  return post(body, await signedHeaders(key, second.body), as)
}

const list = (query: string, as = platform) => api.call("GET", `${PATH}${query}`, { as })

describe("POST /auth/delegated-keys: the three legs", () => {
  it("202, then 202 with a new challenge (the key PENDING), then 201 the ACTIVE DelegatedKey; the private key is never shown", async () => {
    const { w, key, cardId, body } = await setup()
    const first = await post(body)
    expect(first.status).toBe(202)
    expect(first.body).toEqual({ payloadToSign: expect.any(String), requestId: expect.stringMatching(new RegExp(`^Request:${UUID}$`)), expiresAt: expect.any(String) })
    // What leg 2's signature authorizes: the signer of a freshly generated key.
    const bound = JSON.parse(first.body.payloadToSign)
    expect(bound).toMatchObject({
      type: "POST /auth/delegated-keys",
      accountId: w.accountId,
      requestId: first.body.requestId,
      parameters: body,
      context: { activity: "CREATE_DELEGATED_SIGNER", publicKey: expect.stringMatching(/^0[23][0-9a-f]{64}$/) }
    })
    expect((await list(`?accountId=${w.accountId}`)).body.data).toEqual([])

    const second = await post(body, await signedHeaders(key, first.body))
    expect(second.status, JSON.stringify(second.body)).toBe(202)
    expect(second.body).toEqual({ payloadToSign: expect.any(String), requestId: expect.stringMatching(/^Request:/), expiresAt: expect.any(String) })
    expect(second.body.requestId).not.toBe(first.body.requestId)
    expect(second.body.payloadToSign).not.toBe(first.body.payloadToSign)
    const pending = (await list(`?accountId=${w.accountId}`)).body.data
    expect(pending).toHaveLength(1)
    expect(pending[0]).toMatchObject({ status: "PENDING", publicKey: bound.context.publicKey, cardId, nickname: body.nickname })
    expect(JSON.parse(second.body.payloadToSign).context).toEqual({
      activity: "GRANT_DELEGATED_SIGNER_POLICY",
      delegatedKeyId: pending[0].id,
      publicKey: bound.context.publicKey
    })

    const third = await post(body, await signedHeaders(key, second.body))
    expect(third.status, JSON.stringify(third.body)).toBe(201)
    expect(Object.keys(third.body).sort()).toEqual(["accountId", "cardId", "createdAt", "fundingSourceId", "id", "nickname", "publicKey", "status", "updatedAt"])
    expect(third.body).toEqual({
      id: pending[0].id,
      cardId,
      fundingSourceId: expect.stringMatching(new RegExp(`^CardFundingSource:${UUID}$`)),
      accountId: w.accountId,
      publicKey: bound.context.publicKey,
      nickname: "Card payments key",
      status: "ACTIVE",
      createdAt: pending[0].createdAt,
      updatedAt: expect.any(String)
    })
    expect(Date.parse(third.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(third.body.createdAt))
    expect((await api.call("GET", `${PATH}/${third.body.id}`)).body).toEqual(third.body)
    expect((await list(`?fundingSourceId=${third.body.fundingSourceId}`)).body.data).toEqual([third.body])
  })

  it("an EMAIL_OTP session (the TEK) signs the legs as well", async () => {
    const w = await newWallet(api, platform)
    const session = await emailOtpSession(api, platform, w)
    const cardId = await newCard(w)
    const r = await createKey({ cardId, internalAccountId: w.accountId, nickname: "k" }, session.key)
    expect(r.status, JSON.stringify(r.body)).toBe(201)
  })

  it("every signed-flow error, on leg 2 and on leg 3; a failed retry does not use the request id up", async () => {
    const { key, body } = await setup()
    const first = await post(body)
    const good = await signedHeaders(key, first.body)
    const stranger = generateP256KeyPair()
    const legErrors = async (challenge: { payloadToSign: string; requestId: string }) => {
      const sig = (await signedHeaders(key, challenge))["service-wallet-signature"]
      const missing = await post(body, { "request-id": challenge.requestId })
      expect([missing.status, missing.body.code]).toEqual([401, "WALLET_SIGNATURE_MISSING"])
      const noId = await post(body, { "service-wallet-signature": sig })
      expect([noId.status, noId.body.code]).toEqual([401, "REQUEST_ID_MISSING"])
      const malformed = await post(body, { "service-wallet-signature": "not-a-stamp!", "request-id": challenge.requestId })
      expect([malformed.status, malformed.body.code]).toEqual([401, "WALLET_SIGNATURE_MALFORMED"])
      const invalid = await post(body, await signedHeaders(stranger, challenge))
      expect([invalid.status, invalid.body.code]).toEqual([401, "WALLET_SIGNATURE_INVALID"])
      const changed = await post({ ...body, nickname: "Another name" }, { "service-wallet-signature": sig, "request-id": challenge.requestId })
      expect([changed.status, changed.body.code]).toEqual([401, "WALLET_SIGNATURE_BODY_MISMATCH"])
      const unknown = await post(body, { "service-wallet-signature": sig, "request-id": `Request:00000000-0000-4000-8000-000000000000` })
      expect([unknown.status, unknown.body.code]).toEqual([401, "UNAUTHORIZED"])
      expect(unknown.body.reason).toMatch(/does not match a pending challenge/)
      for (const r of [missing, noId, malformed, invalid, changed, unknown]) expect(Object.keys(r.body).sort()).toEqual(["code", "message", "reason"])
    }
    await legErrors(first.body)
    const second = await post(body, good)
    expect(second.status, JSON.stringify(second.body)).toBe(202)
    // Leg 2's request id again: used up.
    const replay = await post(body, good)
    expect([replay.status, replay.body.code]).toEqual([401, "UNAUTHORIZED"])
    expect(replay.body.reason).toMatch(/already used/)
    await legErrors(second.body)
    // Crossed: leg 3's request id with a stamp over leg 2's payload, and the reverse.
    const crossed = await post(body, { "service-wallet-signature": good["service-wallet-signature"], "request-id": second.body.requestId })
    expect([crossed.status, crossed.body.code]).toEqual([401, "WALLET_SIGNATURE_INVALID"])
    const reverse = await post(body, { "service-wallet-signature": (await signedHeaders(key, second.body))["service-wallet-signature"], "request-id": first.body.requestId })
    expect([reverse.status, reverse.body.code]).toEqual([401, "UNAUTHORIZED"])
    const third = await post(body, await signedHeaders(key, second.body))
    expect(third.status, JSON.stringify(third.body)).toBe(201)
    const again = await post(body, await signedHeaders(key, second.body))
    expect([again.status, again.body.code]).toEqual([401, "UNAUTHORIZED"])
    expect(again.body.reason).toMatch(/already used/)
  })

  it("a request id of another signed action does not answer this one; expired challenges are refused on either leg", async () => {
    const { w, key, body } = await setup()
    const patch = await api.call("PATCH", `/internal-accounts/${w.accountId}`, { body: { privateEnabled: true } })
    expect(patch.status).toBe(202)
    const foreign = await post(body, await signedHeaders(key, patch.body))
    expect([foreign.status, foreign.body.code]).toEqual([401, "UNAUTHORIZED"])

    const first = await post(body)
    await api.call("POST", "/sandbox/clock/advance", { body: { seconds: 301 } })
    const late = await post(body, await signedHeaders(key, first.body))
    expect([late.status, late.body.code]).toEqual([401, "UNAUTHORIZED"])
    expect(late.body.reason).toMatch(/expired/)

    // The session outlived that; a fresh flow reaches leg 3, which then expires too.
    const { second } = await toPending(body, key)
    await api.call("POST", "/sandbox/clock/advance", { body: { seconds: 301 } })
    const lateThird = await post(body, await signedHeaders(key, second.body))
    expect([lateThird.status, lateThird.body.code]).toEqual([401, "UNAUTHORIZED"])
    expect(lateThird.body.reason).toMatch(/expired/)
    // The key stays PENDING (abandoned).
    expect((await list(`?accountId=${w.accountId}`)).body.data.map((k: { status: string }) => k.status)).toEqual(["PENDING"])
  })

  it("only an active session of the wallet signs: none, a revoked one, another wallet's", async () => {
    const w = await newWallet(api, platform)
    const cardId = await newCard(w)
    const body = { cardId, internalAccountId: w.accountId, nickname: "k" }
    // No credential, no session: a stamp by any key is refused.
    const first = await post(body)
    expect(first.status).toBe(202)
    const none = await post(body, await signedHeaders(generateP256KeyPair(), first.body))
    expect(none.body.code).toBe("WALLET_SIGNATURE_INVALID")
    const session = await oauthSession(api, platform, w)
    const otherWallet = await setup()
    const foreignSession = await post(body, await signedHeaders(otherWallet.key, first.body))
    expect(foreignSession.body.code).toBe("WALLET_SIGNATURE_INVALID")
    const { second } = await toPending(body, session.key)
    // The session ends before leg 3.
    const revoke = await api.call("DELETE", `/auth/sessions/${session.sessionId}`)
    const revoked = await api.call("DELETE", `/auth/sessions/${session.sessionId}`, { headers: await signedHeaders(session.key, revoke.body) })
    expect(revoked.status).toBe(204)
    const dead = await post(body, await signedHeaders(session.key, second.body))
    expect(dead.body.code).toBe("WALLET_SIGNATURE_INVALID")
  })
})

describe("the checks", () => {
  it("400 INVALID_INPUT for a bad body (every field at once), before anything else", async () => {
    const missing = await post({})
    expect(missing.status).toBe(400)
    expect(missing.body.code).toBe("INVALID_INPUT")
    expect(missing.body.details.errors.map((e: { field: string }) => e.field).sort()).toEqual(["cardId", "internalAccountId", "nickname"])
    const { body } = await setup()
    for (const nickname of ["", "x".repeat(257)]) {
      const r = await post({ ...body, nickname })
      expect(r.status).toBe(400)
      expect(r.body.details.errors[0].field).toBe("nickname")
    }
    expect((await post({ ...body, nickname: "x".repeat(256) })).status).toBe(202)
  })

  it("404 for an unknown card, an account that does not fund the card, an account that is no embedded wallet", async () => {
    const { w, key, body } = await setup()
    const unknown = await post({ ...body, cardId: "Card:00000000-0000-4000-8000-000000000000" })
    expect([unknown.status, unknown.body.code]).toEqual([404, "NOT_FOUND"])
    expect(unknown.body.reason).toMatch(/^Card .* not found/)

    const stranger = await setup()
    const unbound = await post({ ...body, internalAccountId: stranger.w.accountId })
    expect(unbound.status).toBe(404)
    expect(unbound.body.reason).toMatch(/^Card funding source not found/)

    // A card of the same customer funded by a USD account: a funding source, but not an embedded wallet.
    const usd = await api.call("GET", `/customers/internal-accounts?customerId=${w.customerId}&currency=USD`)
    const usdAccount = usd.body.data[0].id as string
    const usdCard = await newCard(w, platform, [usdAccount])
    const fiat = await post({ cardId: usdCard, internalAccountId: usdAccount, nickname: "k" })
    expect(fiat.status).toBe(404)
    expect(fiat.body.reason).toMatch(/^Embedded Wallet funding account not found/)

    // The card closes between the legs: its funding sources go with it.
    const { second } = await toPending(body, key)
    const closed = await api.call("PATCH", `/cards/${body.cardId}`, { body: { state: "CLOSED" } })
    expect(closed.status, JSON.stringify(closed.body)).toBe(200)
    const third = await post(body, await signedHeaders(key, second.body))
    expect(third.status).toBe(404)
    expect(third.body.reason).toMatch(/^Card funding source not found/)
  })

  it("one ACTIVE key per card funding source (409 CONFLICT); an abandoned PENDING key does not block; revoking frees the slot", async () => {
    const { w, key, body } = await setup()
    const abandoned = await toPending(body, key)
    const active = await createKey(body, key)
    expect(active.status, JSON.stringify(active.body)).toBe(201)
    const blocked = await post(body)
    expect([blocked.status, blocked.body.code]).toEqual([409, "CONFLICT"])
    expect(blocked.body.reason).toContain(active.body.id)
    // The abandoned flow's last leg cannot make a second ACTIVE key either.
    const late = await post(body, await signedHeaders(key, abandoned.second.body))
    expect([late.status, late.body.code]).toEqual([409, "CONFLICT"])

    expect((await api.call("DELETE", `${PATH}/${active.body.id}`)).status).toBe(204)
    const next = await createKey(body, key)
    expect(next.status, JSON.stringify(next.body)).toBe(201)
    expect(next.body.id).not.toBe(active.body.id)
    expect(next.body.publicKey).not.toBe(active.body.publicKey)
    const statuses = (await list(`?accountId=${w.accountId}`)).body.data.map((k: { id: string; status: string }) => [k.id, k.status])
    expect(statuses).toEqual([
      [expect.any(String), "PENDING"],
      [active.body.id, "REVOKED"],
      [next.body.id, "ACTIVE"]
    ])
  })

  it("two flows racing to leg 3: the first activates, the second is 409", async () => {
    const { key, body } = await setup()
    const a = await toPending(body, key)
    const b = await toPending(body, key)
    const [ra, rb] = await Promise.all([
      post(body, await signedHeaders(key, a.second.body)),
      post(body, await signedHeaders(key, b.second.body))
    ])
    expect([ra.status, rb.status].sort()).toEqual([201, 409])
  })
})

describe("GET and DELETE /auth/delegated-keys", () => {
  it("list: accountId or fundingSourceId required; both combine; PENDING and REVOKED included; get by id; 404s", async () => {
    const none = await list("")
    expect([none.status, none.body.code]).toEqual([400, "INVALID_INPUT"])
    expect(none.body.details.errors.map((e: { field: string }) => e.field)).toEqual(["accountId", "fundingSourceId"])

    const { w, key, body } = await setup()
    const key1 = await createKey(body, key)
    expect(key1.status).toBe(201)
    expect((await api.call("DELETE", `${PATH}/${key1.body.id}`)).status).toBe(204)
    await toPending(body, key)
    const byAccount = (await list(`?accountId=${w.accountId}`)).body.data
    expect(byAccount.map((k: { status: string }) => k.status)).toEqual(["REVOKED", "PENDING"])
    const fundingSourceId = key1.body.fundingSourceId as string
    expect((await list(`?fundingSourceId=${fundingSourceId}`)).body.data).toEqual(byAccount)
    expect((await list(`?accountId=${w.accountId}&fundingSourceId=${fundingSourceId}`)).body.data).toEqual(byAccount)

    // A second card funded by the same wallet: another funding source.
    const card2 = await newCard(w)
    const key2 = await createKey({ ...body, cardId: card2 }, key)
    expect(key2.status, JSON.stringify(key2.body)).toBe(201)
    expect(key2.body.fundingSourceId).not.toBe(fundingSourceId)
    expect((await list(`?accountId=${w.accountId}`)).body.data).toHaveLength(3)
    expect((await list(`?fundingSourceId=${key2.body.fundingSourceId}`)).body.data).toEqual([key2.body])
    const stranger = await setup()
    expect((await list(`?accountId=${stranger.w.accountId}&fundingSourceId=${fundingSourceId}`)).body.data).toEqual([])
    expect((await list(`?fundingSourceId=CardFundingSource:00000000-0000-4000-8000-000000000000`)).body).toEqual({ data: [] })

    const got = await api.call("GET", `${PATH}/${key2.body.id}`)
    expect(got.body).toEqual(key2.body)
    const missing = await api.call("GET", `${PATH}/DelegatedKey:00000000-0000-4000-8000-000000000000`)
    expect([missing.status, missing.body.code]).toEqual([404, "NOT_FOUND"])
    expect((await api.call("DELETE", `${PATH}/DelegatedKey:00000000-0000-4000-8000-000000000000`)).status).toBe(404)
  })

  it("DELETE: ACTIVE → REVOKED (204, platform auth alone); a PENDING or REVOKED key is 400", async () => {
    const { key, body } = await setup()
    await toPending(body, key)
    const pending = (await list(`?accountId=${body.internalAccountId}`)).body.data[0]
    const notActive = await api.call("DELETE", `${PATH}/${pending.id}`)
    expect([notActive.status, notActive.body.code]).toEqual([400, "INVALID_INPUT"])
    expect(notActive.body.reason).toMatch(/PENDING/)

    const active = await createKey(body, key)
    const revoked = await api.call("DELETE", `${PATH}/${active.body.id}`)
    expect(revoked.status).toBe(204)
    const after = await api.call("GET", `${PATH}/${active.body.id}`)
    expect(after.body).toMatchObject({ id: active.body.id, status: "REVOKED", createdAt: active.body.createdAt })
    const twice = await api.call("DELETE", `${PATH}/${active.body.id}`)
    expect([twice.status, twice.body.code]).toEqual([400, "INVALID_INPUT"])
    expect(twice.body.reason).toMatch(/already REVOKED/)
  })

  it("another platform sees nothing: 404 on get, revoke and create, an empty list", async () => {
    const { w, key, body } = await setup()
    const active = await createKey(body, key)
    expect(active.status).toBe(201)
    expect((await api.call("GET", `${PATH}/${active.body.id}`, { as: other })).status).toBe(404)
    expect((await api.call("DELETE", `${PATH}/${active.body.id}`, { as: other })).status).toBe(404)
    expect((await list(`?accountId=${w.accountId}`, other)).body).toEqual({ data: [] })
    expect((await list(`?fundingSourceId=${active.body.fundingSourceId}`, other)).body).toEqual({ data: [] })
    const create = await post(body, undefined, other)
    expect(create.status).toBe(404)
    // Still ACTIVE for its own platform.
    expect((await api.call("GET", `${PATH}/${active.body.id}`)).body.status).toBe("ACTIVE")
  })

  it("POST /sandbox/reset clears the platform's delegated keys", async () => {
    const { w, key, body } = await setup(resettable)
    const active = await createKey(body, key, resettable)
    expect(active.status).toBe(201)
    expect((await api.call("POST", "/sandbox/reset", { as: resettable })).status).toBeLessThan(300)
    expect((await api.call("GET", `${PATH}/${active.body.id}`, { as: resettable })).status).toBe(404)
    expect((await list(`?accountId=${w.accountId}`, resettable)).body).toEqual({ data: [] })
  })
})
