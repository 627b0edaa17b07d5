/**
 * A platforms-file entry naming a seed document (docs/sandbox.md#fixtures): applied at
 * start, before the banner; on a data directory, a second start applies it again and
 * creates nothing; a refused document stops the start with its answer.
 */
import { writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { describe, expect, it } from "vitest"
import { baseOf, start, tempDir } from "../support/server.js"

const EXAMPLE = resolve("examples/sandbox-seed.json")
const AUTH = `Basic ${Buffer.from("seeded_client_id:seeded_client_secret").toString("base64")}`

const platformsFile = (seedDocument: string) => {
  const file = join(tempDir("payments-seed-config-"), "platforms.json")
  writeFileSync(file, JSON.stringify({
    platforms: [{ id: "seeded", clientId: "seeded_client_id", clientSecret: "seeded_client_secret", regulated: true, seedDocument }]
  }))
  return file
}

const customersOf = async (base: string) =>
  ((await (await fetch(`${base}/customers`, { headers: { authorization: AUTH } })).json()) as { data: Array<{ id: string; platformCustomerId: string; kycStatus: string }> }).data

describe("seedDocument in the platforms file", () => {
  it("is applied at start; a restart on the same data directory applies it again and creates nothing", async () => {
    const config = platformsFile(EXAMPLE)
    const dataDir = tempDir("payments-seed-data-")
    const first = start({ PAYMENTS_CONFIG: config, PAYMENTS_DATA_DIR: dataDir })
    const before = await customersOf(baseOf(await first.banner))
    expect(before.map((c) => [c.platformCustomerId, c.kycStatus])).toEqual([["alice", "APPROVED"], ["bob", "REJECTED"]])
    first.child.kill("SIGTERM")
    await first.exited
    const second = start({ PAYMENTS_CONFIG: config, PAYMENTS_DATA_DIR: dataDir })
    expect(await customersOf(baseOf(await second.banner))).toEqual(before)
  }, 90_000)

  it("a document the server refuses stops the start with its answer (exit 1)", async () => {
    const bad = join(tempDir("payments-seed-bad-"), "seed.json")
    writeFileSync(bad, JSON.stringify({ customers: [{ customer: { customerType: "INDIVIDUAL", fullName: "No Key" } }] }))
    const server = start({ PAYMENTS_CONFIG: platformsFile(bad) })
    expect(await server.exited).toBe(1)
    expect(server.stderr()).toContain("platformCustomerId is required")
  }, 60_000)
})
