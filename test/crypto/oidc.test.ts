import fc from "fast-check"
import { createHash, generateKeyPairSync, sign, type KeyObject } from "node:crypto"
import { describe, expect, it } from "vitest"
import {
  decodeJwt,
  OIDC_REASONS,
  oidcNonceFor,
  SANDBOX_FORMER_OIDC_TOKEN,
  verifyOidcToken,
  type JsonWebKeySet,
  type OidcReason,
  type VerifyOidcTokenInput
} from "../../src/crypto/index.js"
import { arbitraryKey, keyFromSeed } from "./support/keys.js"
import { numRuns } from "./support/runs.js"

const nowMs = 1_760_000_000_000
const now = nowMs / 1000
const issuer = "https://accounts.google.com"
const clientKey = keyFromSeed(new Uint8Array(32).fill(5))
const segment = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString("base64url")

const claims = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  iss: issuer,
  aud: "client-123.apps.example",
  sub: "110169484474386276334",
  iat: now - 10,
  exp: now + 3600,
  nonce: createHash("sha256").update(clientKey.publicKey).digest("hex"),
  ...overrides
})

/** Sandbox-style token: a dummy signature segment. */
const unsigned = (payload: Record<string, unknown>, header: Record<string, unknown> = { alg: "RS256", typ: "JWT" }): string =>
  `${segment(header)}.${segment(payload)}.ZHVtbXk`

const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 })
const ec = generateKeyPairSync("ec", { namedCurve: "P-256" })
const jwks: JsonWebKeySet = {
  keys: [
    { ...rsa.publicKey.export({ format: "jwk" }), kid: "rsa-1", alg: "RS256", use: "sig" },
    { ...ec.publicKey.export({ format: "jwk" }), kid: "ec-1", alg: "ES256", use: "sig" }
  ]
}

const signed = (payload: Record<string, unknown>, alg: "RS256" | "ES256", key: KeyObject = alg === "RS256" ? rsa.privateKey : ec.privateKey, kid = alg === "RS256" ? "rsa-1" : "ec-1"): string => {
  const input = `${segment({ alg, typ: "JWT", kid })}.${segment(payload)}`
  const signature = alg === "RS256" ? sign("sha256", Buffer.from(input), key) : sign("sha256", Buffer.from(input), { key, dsaEncoding: "ieee-p1363" })
  return `${input}.${signature.toString("base64url")}`
}

const base: Omit<VerifyOidcTokenInput, "token"> = {
  nowMs,
  supportedIssuers: [issuer, "https://appleid.apple.com"],
  clientPublicKey: clientKey.publicKey,
  signature: { kind: "skip" }
}

const reasonOf = (token: string, overrides: Partial<VerifyOidcTokenInput> = {}): OidcReason | "ok" => {
  const verdict = verifyOidcToken({ ...base, ...overrides, token })
  return verdict.ok ? "ok" : verdict.reason
}
const withClaims = (overrides: Record<string, unknown>) => reasonOf(unsigned(claims(overrides)))

describe("OIDC token claims (sandbox: signature skipped, claims checked)", () => {
  it("accepts a well-formed token and returns the iss/aud/sub identity", () => {
    const verdict = verifyOidcToken({ ...base, token: unsigned(claims()) })
    expect(verdict.ok && verdict.value.identity).toEqual({ iss: issuer, aud: "client-123.apps.example", sub: "110169484474386276334" })
  })

  describe("iat: at most 60 s old with 5 s skew, at most 5 s in the future", () => {
    it.each([
      ["60 s old", now - 60, "ok"],
      ["65 s old", now - 65, "ok"],
      ["65.001 s old", now - 65.001, "iat_too_old"],
      ["66 s old", now - 66, "iat_too_old"],
      ["now", now, "ok"],
      ["5 s in the future", now + 5, "ok"],
      ["5.001 s in the future", now + 5.001, "iat_in_future"],
      ["6 s in the future", now + 6, "iat_in_future"],
      ["a numeric string", String(now), "iat_missing"],
      ["absent", undefined, "iat_missing"]
    ] as const)("%s", (_name, iat, reason) => {
      expect(withClaims({ iat })).toBe(reason)
    })
  })

  describe("exp: strictly later than now", () => {
    it.each([
      ["equal to now", now, "exp_not_after_now"],
      ["1 ms after now", now + 0.001, "ok"],
      ["in the past", now - 1, "exp_not_after_now"],
      ["absent", undefined, "exp_missing"],
      ["not a number", "later", "exp_missing"]
    ] as const)("%s", (_name, exp, reason) => {
      expect(withClaims({ exp })).toBe(reason)
    })
  })

  describe("aud: a non-empty string or a single-element string array", () => {
    it.each([
      ["a string", "client", "ok"],
      ["an array of one", ["client"], "ok"],
      ["an array of two", ["client", "other"], "aud_multiple"],
      ["an array of two equal values", ["client", "client"], "aud_multiple"],
      ["an empty array", [], "aud_invalid"],
      ["an empty string", "", "aud_invalid"],
      ["an array of one empty string", [""], "aud_invalid"],
      ["an array of a number", [1], "aud_invalid"],
      ["absent", undefined, "aud_invalid"]
    ] as const)("%s", (_name, aud, reason) => {
      expect(withClaims({ aud })).toBe(reason)
    })
    it("returns the single array element as the audience", () => {
      const verdict = verifyOidcToken({ ...base, token: unsigned(claims({ aud: ["only"] })) })
      expect(verdict.ok && verdict.value.identity.aud).toBe("only")
    })
  })

  it.each([
    ["missing sub", { sub: undefined }, "sub_missing"],
    ["empty sub", { sub: "" }, "sub_missing"],
    ["numeric sub", { sub: 42 }, "sub_missing"],
    ["unsupported iss", { iss: "https://evil.example.com" }, "iss_not_supported"],
    ["iss with a trailing slash", { iss: `${issuer}/` }, "iss_not_supported"],
    ["missing iss", { iss: undefined }, "iss_not_supported"]
  ] as const)("%s", (_name, overrides, reason) => {
    expect(withClaims(overrides)).toBe(reason)
  })

  describe("nonce: lowercase hex SHA-256 of the exact clientPublicKey string", () => {
    const nonceOf = (text: string) => createHash("sha256").update(text, "utf8").digest("hex")
    it.each([
      ["of the exact key", nonceOf(clientKey.publicKey), "ok"],
      ["of the upper-case key", nonceOf(clientKey.publicKey.toUpperCase()), "nonce_mismatch"],
      ["of the uncompressed key", nonceOf(clientKey.publicKeyUncompressed), "nonce_mismatch"],
      ["in upper-case hex", nonceOf(clientKey.publicKey).toUpperCase(), "nonce_mismatch"],
      ["in base64url", createHash("sha256").update(clientKey.publicKey).digest("base64url"), "nonce_mismatch"],
      ["absent", undefined, "nonce_missing"]
    ] as const)("%s", (_name, nonce, reason) => {
      expect(withClaims({ nonce })).toBe(reason)
    })
    it("is what oidcNonceFor computes", () => {
      expect(oidcNonceFor(clientKey.publicKey)).toBe(nonceOf(clientKey.publicKey))
    })
    it("is not checked when registering (clientPublicKey: null)", () => {
      expect(reasonOf(unsigned(claims({ nonce: undefined })), { clientPublicKey: null })).toBe("ok")
    })
    it("holds for random keys in every form the client may send", () => {
      fc.assert(
        fc.property(arbitraryKey, fc.boolean(), (key, compressed) => {
          const sent = compressed ? key.publicKey : key.publicKeyUncompressed
          expect(reasonOf(unsigned(claims({ nonce: oidcNonceFor(sent) })), { clientPublicKey: sent })).toBe("ok")
          expect(reasonOf(unsigned(claims({ nonce: oidcNonceFor(sent) })), { clientPublicKey: compressed ? key.publicKeyUncompressed : key.publicKey })).toBe("nonce_mismatch")
        }),
        { numRuns: numRuns(50) }
      )
    })
  })

  it("requires the credential's iss/aud/sub triple on verify", () => {
    const identity = { iss: issuer, aud: "client-123.apps.example", sub: "110169484474386276334" }
    expect(reasonOf(unsigned(claims()), { expectedIdentity: identity })).toBe("ok")
    expect(reasonOf(unsigned(claims({ aud: [identity.aud] })), { expectedIdentity: identity })).toBe("ok")
    expect(reasonOf(unsigned(claims({ sub: "someone-else" })), { expectedIdentity: identity })).toBe("identity_mismatch")
    expect(reasonOf(unsigned(claims()), { expectedIdentity: { ...identity, iss: "https://appleid.apple.com" } })).toBe("identity_mismatch")
  })

  it("claims failures are 401 UNAUTHORIZED with a reason naming the claim", () => {
    for (const [reason, info] of Object.entries(OIDC_REASONS)) {
      if (reason === "jwt_malformed") continue
      expect([info.code, info.status]).toEqual(["UNAUTHORIZED", 401])
    }
    expect(OIDC_REASONS.iat_too_old.message).toContain("iat")
    expect(OIDC_REASONS.aud_multiple.message).toContain("aud")
  })
})

describe("malformed JWTs are 400 INVALID_INPUT, before any claim is looked at", () => {
  const good = unsigned(claims())
  const [h = "", p = ""] = good.split(".")
  it.each([
    ["two segments", `${h}.${p}`],
    ["four segments", `${good}.x`],
    ["an empty string", ""],
    ["a padded segment", `${h}=.${p}.ZHVtbXk`],
    ["standard base64 characters", `${h}.${p}.ab+/`],
    ["a header that is not JSON", `${Buffer.from("{").toString("base64url")}.${p}.ZHVtbXk`],
    ["a payload that is a JSON array", `${h}.${segment([1])}.ZHVtbXk`],
    ["a header without alg", `${segment({ typ: "JWT" })}.${p}.ZHVtbXk`],
    ["whitespace around the token", ` ${good}`]
  ])("%s", (_name, token) => {
    const verdict = verifyOidcToken({ ...base, token })
    expect(verdict).toEqual({ ok: false, reason: "jwt_malformed", code: "INVALID_INPUT", status: 400, message: OIDC_REASONS.jwt_malformed.message })
    expect(decodeJwt(token).ok).toBe(false)
  })
  it("even an expired, wrongly addressed but well-formed token is a claims failure, not malformed", () => {
    expect(reasonOf(unsigned(claims({ iss: "x", exp: 0 })))).toBe("iss_not_supported")
  })
})

it("the former fixed sandbox OIDC token is rejected, in sandbox too, with its own reason", () => {
  expect(reasonOf(SANDBOX_FORMER_OIDC_TOKEN)).toBe("former_sandbox_token")
  expect(reasonOf(SANDBOX_FORMER_OIDC_TOKEN, { signature: { kind: "jwks", jwks } })).toBe("former_sandbox_token")
  expect(OIDC_REASONS.former_sandbox_token.status).toBe(401)
})

describe("provider signature against a JWKS (production)", () => {
  const production = { signature: { kind: "jwks", jwks } } as const
  it.each(["RS256", "ES256"] as const)("accepts %s tokens signed by a key in the set", (alg) => {
    expect(reasonOf(signed(claims(), alg), production)).toBe("ok")
  })
  it.each(["RS256", "ES256"] as const)("%s: any changed character is rejected", (alg) => {
    const token = signed(claims(), alg)
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    fc.assert(
      fc.property(fc.nat({ max: token.length - 1 }), fc.nat({ max: 63 }), (at, pick) => {
        fc.pre(token[at] !== "." && alphabet[pick] !== token[at])
        const changed = token.slice(0, at) + (alphabet[pick] ?? "A") + token.slice(at + 1)
        expect(reasonOf(changed, production)).not.toBe("ok")
      }),
      { numRuns: numRuns(100) }
    )
  })
  it("rejects a token signed by a key outside the set, an unknown kid, and unsupported algorithms", () => {
    const stranger = generateKeyPairSync("ec", { namedCurve: "P-256" })
    expect(reasonOf(signed(claims(), "ES256", stranger.privateKey), production)).toBe("signature_invalid")
    expect(reasonOf(signed(claims(), "ES256", ec.privateKey, "ec-2"), production)).toBe("signing_key_not_found")
    expect(reasonOf(unsigned(claims(), { alg: "none" }), production)).toBe("algorithm_unsupported")
    expect(reasonOf(unsigned(claims(), { alg: "HS256" }), production)).toBe("algorithm_unsupported")
    expect(reasonOf(unsigned(claims(), { alg: "RS256", kid: "rsa-1" }), production)).toBe("signature_invalid")
  })
  it("ES256 needs the JWS r‖s form, not DER", () => {
    const input = `${segment({ alg: "ES256", kid: "ec-1" })}.${segment(claims())}`
    const der = sign("sha256", Buffer.from(input), ec.privateKey)
    expect(reasonOf(`${input}.${der.toString("base64url")}`, production)).toBe("signature_invalid")
  })
  it("checks the signature before the claims, then the claims", () => {
    expect(reasonOf(signed(claims({ exp: now }), "RS256"), production)).toBe("exp_not_after_now")
  })
})
