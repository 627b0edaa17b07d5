/**
 * Two app instances on ONE PostgreSQL database (as two server processes would be): a
 * token created through one authenticates on the other at once, and a token deleted
 * through one is refused by the other on its very next request, although that other
 * app had just served it (no process keeps a token's credentials: docs/tokens.md).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWebHandler } from "../../src/http/app.js"
import { servicesFor } from "../../src/server/services.js"
import { basic, individual, platformA, readReply, type Reply } from "../support/api.js"
import { migratedDatabase } from "../support/databases.js"

type App = ReturnType<typeof makeWebHandler>
const apps: Array<App> = []

const call = async (via: number, method: string, path: string, authorization: string, body?: unknown): Promise<Reply> => {
  const res = await apps[via]!.handler(new Request(`http://test/2025-10-13${path}`, {
    method,
    headers: { authorization, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  }))
  return readReply(res)
}

const basicOf = (clientId: string, secret: string) => `Basic ${Buffer.from(`${clientId}:${secret}`).toString("base64")}`

beforeAll(async () => {
  const url = await migratedDatabase()
  for (let i = 0; i < 2; i++) {
    apps.push(makeWebHandler({ services: servicesFor({ kind: "postgres", url }, [platformA], { webhookDestinations: ["loopback"] }), schedulerIntervalMillis: false }))
  }
  await Promise.all(apps.map((a) => a.ready))
})
afterAll(async () => {
  await Promise.allSettled(apps.map((a) => a.dispose()))
})

describe("API tokens across two apps sharing one PostgreSQL database", () => {
  it("created in one, served by the other; revoked in one, refused by the other at once", async () => {
    const platform = basic(platformA)
    for (let round = 0; round < 3; round++) {
      const [issuer, other] = round % 2 === 0 ? [0, 1] : [1, 0]
      const created = await call(issuer, "POST", "/tokens", platform, { name: `shared ${round}`, permissions: ["VIEW", "MANAGE"] })
      expect(created.status).toBe(201)
      const token = basicOf(created.body.clientId, created.body.clientSecret)
      // The other app serves it, repeatedly (so any cache it kept would hold it now).
      for (let i = 0; i < 3; i++) expect((await call(other, "GET", "/customers", token)).status).toBe(200)
      expect((await call(other, "POST", "/customers", token, individual(`Shared ${round}`))).status).toBe(201)
      expect((await call(other, "GET", "/tokens", token)).body.data.map((t: { id: string }) => t.id)).toContain(created.body.id)

      expect((await call(issuer, "DELETE", `/tokens/${encodeURIComponent(created.body.id)}`, platform)).status).toBe(204)
      const refused = await call(other, "GET", "/customers", token)
      expect(refused.status).toBe(401)
      expect(refused.body.code).toBe("UNAUTHORIZED")
      expect((await call(issuer, "GET", "/customers", token)).status).toBe(401)
      // The platforms file's credentials are unaffected.
      expect((await call(other, "GET", "/customers", platform)).status).toBe(200)
    }
  })
})
