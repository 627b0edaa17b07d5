/**
 * `npm start` as a newcomer runs it: a child process on a free port, the banner, a
 * real HTTP call, PAYMENTS_CONFIG, and a clean stop on SIGTERM.
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { start } from "../support/server.js"

describe("npm start", () => {
  it("serves the API on the printed base URL and stops cleanly on SIGTERM", async () => {
    const server = start({})
    const banner = await server.banner
    const base = /API base URL: (\S+)/.exec(banner)?.[1]
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/2025-10-13$/)
    expect(banner).toContain("sandbox_client_id / sandbox_client_secret")
    // No DATABASE_URL, no PAYMENTS_DATA_DIR: the memory store, and the banner says nothing persists.
    expect(banner).toMatch(/Store:\s+in memory \(nothing persists\)/)
    const res = await fetch(`${base}/customers`, {
      headers: { authorization: `Basic ${Buffer.from("sandbox_client_id:sandbox_client_secret").toString("base64")}` }
    })
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ data: [], hasMore: false, totalCount: 0 })
    server.child.kill("SIGTERM")
    expect(await server.exited).not.toBe(null)
  }, 30_000)

  it("loads platforms from PAYMENTS_CONFIG", async () => {
    const dir = mkdtempSync(join(tmpdir(), "payments-config-"))
    const file = join(dir, "platforms.json")
    writeFileSync(file, JSON.stringify({ platforms: [{ id: "acme", clientId: "acme_id", clientSecret: "acme_secret_1", travelRule: true }] }))
    const server = start({ PAYMENTS_CONFIG: file })
    const banner = await server.banner
    expect(banner).toContain("acme: acme_id / acme_secret_1")
    const base = /API base URL: (\S+)/.exec(banner)?.[1]
    const ok = await fetch(`${base}/customers`, { headers: { authorization: `Basic ${Buffer.from("acme_id:acme_secret_1").toString("base64")}` } })
    expect(ok.status).toBe(200)
    const sandboxCreds = await fetch(`${base}/customers`, { headers: { authorization: `Basic ${Buffer.from("sandbox_client_id:sandbox_client_secret").toString("base64")}` } })
    expect(sandboxCreds.status).toBe(401)
    server.child.kill("SIGTERM")
    await server.exited
  }, 30_000)

  it("refuses an invalid PAYMENTS_CONFIG with a message", async () => {
    const dir = mkdtempSync(join(tmpdir(), "payments-config-"))
    const file = join(dir, "bad.json")
    writeFileSync(file, JSON.stringify({ platforms: [] }))
    const server = start({ PAYMENTS_CONFIG: file })
    // No banner comes: the server exits first (the banner watcher then rejects).
    await expect(server.banner).rejects.toThrow(/server exited 1/)
    expect(await server.exited).toBe(1)
    expect(server.stderr()).toContain("PAYMENTS_CONFIG")
  }, 30_000)
})
