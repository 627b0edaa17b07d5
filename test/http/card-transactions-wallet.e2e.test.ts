/**
 * A card funded by an embedded wallet (docs/card-transactions.md, "Authorization
 * decisioning"): the wallet pays only while its funding-source binding has an ACTIVE
 * delegated key (`POST /auth/delegated-keys`, three signed legs); without one, or once it
 * is revoked, the authorization is declined NO_ELIGIBLE_FUNDING_SOURCE and nothing moves.
 */
import { afterAll, describe, expect, it } from "vitest"
import { platformFromConfig } from "../../src/domain/platform.js"
import { makeApi } from "../support/api.js"
import { newWallet, oauthSession, signedHeaders } from "../support/wallet-client.js"

const platform = platformFromConfig({ id: "card-tx-wallet", clientId: "card-tx-wallet", clientSecret: "card-tx-wallet-secret", regulated: true, embeddedWallets: {} })
const api = makeApi([platform])
afterAll(() => api.dispose())

const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  api.call(method, path, { as: platform, ...(body === undefined ? {} : { body }), ...(headers === undefined ? {} : { headers }) })

const balanceOf = async (customerId: string, accountId: string): Promise<number> => {
  const r = await call("GET", `/customers/internal-accounts?customerId=${customerId}`)
  return (r.body.data as Array<{ id: string; balance: { amount: number } }>).find((a) => a.id === accountId)!.balance.amount
}

describe("a card funded by an embedded wallet", () => {
  it("declines NO_ELIGIBLE_FUNDING_SOURCE without an ACTIVE delegated key, pays with one, declines again once it is revoked", async () => {
    const w = await newWallet(api, platform)
    const session = await oauthSession(api, platform, w)
    const funded = await call("POST", `/sandbox/internal-accounts/${w.accountId}/fund`, { amount: 50_000 })
    expect(funded.status, JSON.stringify(funded.body)).toBe(200)
    const issued = await call("POST", "/cards", { cardholderId: w.customerId, form: "VIRTUAL", fundingSources: [w.accountId] })
    expect(issued.status, JSON.stringify(issued.body)).toBe(201)
    const card = issued.body as { id: string; currency: string }
    const authorize = async () => {
      const r = await call("POST", `/sandbox/cards/${card.id}/simulate/authorization`, {
        amount: 1000,
        currency: { code: card.currency },
        merchant: { descriptor: "BLUE BOTTLE COFFEE SF" }
      })
      expect(r.status, JSON.stringify(r.body)).toBe(202)
      const rows = (await call("GET", `/transactions?cardId=${card.id}`)).body.data as Array<{ issuerTransactionToken: string }>
      return rows.find((x) => x.issuerTransactionToken === r.body.issuerTransactionToken) as unknown as { status: string; cardDeclinedReason?: string; accountId: string }
    }

    expect(await authorize()).toMatchObject({ status: "DECLINED", cardDeclinedReason: "NO_ELIGIBLE_FUNDING_SOURCE", accountId: w.accountId })
    expect(await balanceOf(w.customerId, w.accountId)).toBe(50_000)

    // The three signed legs of POST /auth/delegated-keys make an ACTIVE key for the binding.
    const body = { cardId: card.id, internalAccountId: w.accountId, nickname: "Card payments key" }
    const first = await call("POST", "/auth/delegated-keys", body)
    expect(first.status, JSON.stringify(first.body)).toBe(202)
    const second = await call("POST", "/auth/delegated-keys", body, await signedHeaders(session.key, first.body))
    expect(second.status, JSON.stringify(second.body)).toBe(202)
    const third = await call("POST", "/auth/delegated-keys", body, await signedHeaders(session.key, second.body))
    expect(third.status, JSON.stringify(third.body)).toBe(201)
    expect(third.body.status).toBe("ACTIVE")

    expect(await authorize()).toMatchObject({ status: "AUTHORIZED", accountId: w.accountId })
    expect(await balanceOf(w.customerId, w.accountId)).toBe(49_000)

    const revoked = await call("DELETE", `/auth/delegated-keys/${third.body.id}`)
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(204)
    expect(await authorize()).toMatchObject({ status: "DECLINED", cardDeclinedReason: "NO_ELIGIBLE_FUNDING_SOURCE" })
    expect(await balanceOf(w.customerId, w.accountId)).toBe(49_000)
  })
})
