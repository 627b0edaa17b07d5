/**
 * The one-time codes of SCA and contact verification (src/operations/sca/common.ts
 * `issueCode`): `123456` on sandbox platforms only; production codes are six random
 * digits, stored hashed, varying from one issue to the next, and `123456` passes only
 * when it happens to be the code drawn. Every SCA flow (contact confirm, SMS login,
 * quote authorization) checks its code against what `issueCode` stored.
 */
import { Effect } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { seededIds } from "../../src/adapters/memory/ids.js"
import { platformFromConfig } from "../../src/domain/platform.js"
import { Ids } from "../../src/ports/ids.js"
import { checkCode, SANDBOX_SCA_CODE } from "../../src/rules/sca.js"
import { hashCode, issueCode } from "../../src/operations/sca/common.js"

const sandbox = platformFromConfig({ id: "codes-sandbox", clientId: "codes-sandbox", clientSecret: "codes-sandbox-secret" })
const production = platformFromConfig({ id: "codes-production", clientId: "codes-production", clientSecret: "codes-production-secret", sandbox: false })

const issue = (platform: typeof sandbox, seed: number) =>
  Effect.runSync(Effect.provideService(issueCode(platform, 1_000, 60_000), Ids, seededIds(seed)))

describe("issueCode", () => {
  it("sandbox: the code is 123456, stored as its hash, lapsing after the ttl", () => {
    const { code, challenge } = issue(sandbox, 1)
    expect(code).toBe(SANDBOX_SCA_CODE)
    expect(challenge).toEqual({ codeHash: hashCode("123456"), expiresAt: 61_000, attempts: 0 })
    expect(checkCode(challenge, hashCode("123456"), 61_000, 5).ok).toBe(true)
  })

  it("production: six random digits; the stored hash accepts that code and refuses 123456 (unless it is the code)", () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 2 ** 31 }), (seed) => {
      const { code, challenge } = issue(production, seed)
      expect(code).toMatch(/^[0-9]{6}$/)
      expect(challenge.codeHash).toBe(hashCode(code))
      expect(checkCode(challenge, hashCode(code), 1_000, 5).ok).toBe(true)
      expect(checkCode(challenge, hashCode(SANDBOX_SCA_CODE), 1_000, 5).ok).toBe(code === SANDBOX_SCA_CODE)
    }), { numRuns: 200 })
  })

  it("production codes vary with the randomness (not a fixed value)", () => {
    const codes = new Set(Array.from({ length: 50 }, (_, i) => issue(production, i + 1).code))
    expect(codes.size).toBeGreaterThan(40)
  })
})
