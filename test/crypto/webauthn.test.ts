import { verifyAuthenticationResponse, verifyRegistrationResponse } from "@simplewebauthn/server"
import { p256 } from "@noble/curves/nist.js"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  coseKeyToPublicKeyHex,
  PASSKEY_REASONS,
  SANDBOX_LEGACY_PASSKEY_SIGNATURE,
  verifyPasskeyAssertion,
  verifyPasskeyRegistration,
  type PasskeyAssertion,
  type PasskeyReason,
  type StoredPasskey,
  type VerifyBackend,
  type VerifyPasskeyAssertionInput,
  type VerifyPasskeyRegistrationInput
} from "../../src/crypto/index.js"
import {
  authenticatorData,
  b64u,
  clientDataJson,
  createCredential,
  FLAGS,
  makeAssertion,
  makeRegistration,
  signAssertion,
  type SoftwareCredential
} from "./support/authenticator.js"
import { encodeCbor } from "./support/cbor-encode.js"
import { numRuns } from "./support/runs.js"

const rpId = "wallet.example.com"
const origin = "https://wallet.example.com"
const allowedOrigins = [origin, "https://app.example.com"]
const challenge = b64u(new TextEncoder().encode("challenge-0001-random-bytes"))
const credential = createCredential()
const stored: StoredPasskey = { id: b64u(credential.id), publicKey: credential.uncompressedHex, counter: 41 }
const backends: readonly VerifyBackend[] = ["native", "noble"]

const base: Omit<VerifyPasskeyAssertionInput, "assertion"> = {
  credential: stored,
  expectedChallenge: challenge,
  allowedOrigins,
  rpId,
  requireUserVerification: true
}

/** Ours on both backends; they must agree. */
const ours = (assertion: PasskeyAssertion, overrides: Partial<VerifyPasskeyAssertionInput> = {}): PasskeyReason | "ok" => {
  const reasons = backends.map((backend) => {
    const verdict = verifyPasskeyAssertion({ ...base, ...overrides, assertion, backend })
    return verdict.ok ? "ok" : verdict.reason
  })
  expect(reasons[0]).toBe(reasons[1])
  return reasons[0] ?? "ok"
}

/** @simplewebauthn/server leaves finding the credential to the caller, so the id lookup is done here. */
const theirs = async (
  assertion: PasskeyAssertion,
  overrides: Partial<VerifyPasskeyAssertionInput> = {},
  owner: SoftwareCredential = credential
): Promise<boolean> => {
  const options = { ...base, ...overrides }
  if (assertion.credentialId !== options.credential.id) return false
  try {
    const result = await verifyAuthenticationResponse({
      response: {
        id: assertion.credentialId,
        rawId: assertion.credentialId,
        type: "public-key",
        response: {
          clientDataJSON: assertion.clientDataJson,
          authenticatorData: assertion.authenticatorData,
          signature: assertion.signature
        },
        clientExtensionResults: {}
      },
      expectedChallenge: options.expectedChallenge,
      expectedOrigin: [...options.allowedOrigins],
      expectedRPID: options.rpId,
      credential: { id: options.credential.id, publicKey: owner.cose, counter: options.credential.counter },
      requireUserVerification: options.requireUserVerification ?? false
    })
    return result.verified
  } catch {
    return false
  }
}

const assertion = (overrides: Partial<Parameters<typeof makeAssertion>[0]> = {}): PasskeyAssertion =>
  makeAssertion({ credential, rpId, origin, challenge, counter: 42, ...overrides })

/** An assertion whose pieces are signed as given, for cases the helper cannot express. */
const customAssertion = (authData: Uint8Array, clientData: Uint8Array, signer: SoftwareCredential = credential): PasskeyAssertion => ({
  credentialId: b64u(credential.id),
  clientDataJson: b64u(clientData),
  authenticatorData: b64u(authData),
  signature: b64u(signAssertion(signer, authData, clientData))
})

describe("passkey assertions from a software authenticator", () => {
  it("accepts random credentials, challenges and counters, agreeing with @simplewebauthn/server", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 16, maxLength: 64 }),
        fc.uint8Array({ minLength: 16, maxLength: 64 }),
        fc.nat({ max: 2 ** 32 - 2 }),
        fc.constantFrom(...allowedOrigins),
        async (id, challengeBytes, counter, from) => {
          const owner = createCredential(new Uint8Array(id))
          const c = b64u(new Uint8Array(challengeBytes))
          const a = makeAssertion({ credential: owner, rpId, origin: from, challenge: c, counter: counter + 1 })
          const overrides = { credential: { id: b64u(owner.id), publicKey: owner.uncompressedHex, counter }, expectedChallenge: c }
          expect(ours(a, overrides)).toBe("ok")
          expect(await theirs(a, overrides, owner)).toBe(true)
          const verdict = verifyPasskeyAssertion({ ...base, ...overrides, assertion: a })
          expect(verdict.ok && verdict.value).toEqual({ newCounter: counter + 1, userVerified: true })
        }
      ),
      { numRuns: numRuns(60) }
    )
  })

  it("accepts high-S and low-S signatures alike (OpenSSL does not normalise)", async () => {
    const seen = new Set<string>()
    for (let i = 0; i < 40 && seen.size < 2; i++) {
      const a = assertion()
      const { s } = p256.Signature.fromBytes(Buffer.from(a.signature, "base64url"), "der")
      seen.add(s > p256.Point.Fn.ORDER / 2n ? "high" : "low")
      expect(ours(a)).toBe("ok")
      expect(await theirs(a)).toBe(true)
    }
    expect([...seen].sort()).toEqual(["high", "low"])
  })

  describe("every check fails alone, in the order of WALLET-CRYPTO.md, as @simplewebauthn/server does", () => {
    const other = createCredential()
    const signedWith = (flags: number, counter = 42, rp = rpId) =>
      customAssertion(authenticatorData({ rpId: rp, flags, counter }), clientDataJson({ type: "webauthn.get", challenge, origin }))
    const cases: ReadonlyArray<readonly [string, () => PasskeyAssertion, Partial<VerifyPasskeyAssertionInput>, PasskeyReason]> = [
      ["credential id of another credential", () => ({ ...assertion(), credentialId: b64u(other.id) }), {}, "credential_id_mismatch"],
      ["clientData type webauthn.create", () => assertion({ type: "webauthn.create" }), {}, "client_data_type_mismatch"],
      ["another challenge", () => assertion({ challenge: b64u(new TextEncoder().encode("other")) }), {}, "challenge_mismatch"],
      ["the challenge in another encoding", () => assertion({ challenge: `${challenge}=` }), {}, "challenge_mismatch"],
      ["an origin not allowed", () => assertion({ origin: "https://evil.example.com" }), {}, "origin_not_allowed"],
      ["an origin with a trailing slash", () => assertion({ origin: `${origin}/` }), {}, "origin_not_allowed"],
      ["an http origin", () => assertion({ origin: "http://wallet.example.com" }), {}, "origin_not_allowed"],
      ["another RP id", () => signedWith(FLAGS.UP | FLAGS.UV, 42, "example.com"), {}, "rp_id_hash_mismatch"],
      ["user-presence flag clear", () => signedWith(FLAGS.UV), {}, "user_not_present"],
      ["user-verification flag clear when required", () => signedWith(FLAGS.UP), {}, "user_not_verified"],
      ["signature by another key", () => customAssertion(authenticatorData({ rpId, flags: FLAGS.UP | FLAGS.UV, counter: 42 }), clientDataJson({ type: "webauthn.get", challenge, origin }), other), {}, "signature_invalid"],
      ["counter equal to the stored one", () => assertion({ counter: 41 }), {}, "counter_not_increased"],
      ["counter below the stored one", () => assertion({ counter: 7 }), {}, "counter_not_increased"],
      ["counter zero after a non-zero one", () => assertion({ counter: 0 }), {}, "counter_not_increased"]
    ]
    it.each(cases)("%s", async (_name, make, overrides, reason) => {
      const a = make()
      expect(ours(a, overrides)).toBe(reason)
      expect(await theirs(a, overrides)).toBe(false)
      const verdict = verifyPasskeyAssertion({ ...base, ...overrides, assertion: a })
      expect(verdict.ok === false && [verdict.code, verdict.status]).toEqual(["UNAUTHORIZED", 401])
    })

    it.each([
      ["user verification not required", () => signedWith(FLAGS.UP), { requireUserVerification: false }],
      ["both counters zero", () => assertion({ counter: 0 }), { credential: { ...stored, counter: 0 } }],
      ["a zero stored counter and a positive one", () => assertion({ counter: 5 }), { credential: { ...stored, counter: 0 } }],
      ["the second allowed origin", () => assertion({ origin: "https://app.example.com" }), {}],
      ["the stored key in compressed form", () => assertion(), { credential: { ...stored, publicKey: `0${(credential.y[31] ?? 0) & 1 ? 3 : 2}${Buffer.from(credential.x).toString("hex")}` } }]
    ] as const)("accepts %s", async (_name, make, overrides) => {
      const a = make()
      expect(ours(a, overrides)).toBe("ok")
      expect(await theirs(a, overrides)).toBe(true)
    })
  })

  describe("malformed fields are 400 INVALID_INPUT", () => {
    const good = assertion()
    const cases: ReadonlyArray<readonly [string, PasskeyAssertion, PasskeyReason]> = [
      ["credentialId in standard base64", { ...good, credentialId: "ab+/" }, "credential_id_malformed"],
      ["clientDataJson not JSON", { ...good, clientDataJson: b64u(new TextEncoder().encode("{")) }, "client_data_malformed"],
      ["clientDataJson without origin", { ...good, clientDataJson: b64u(new TextEncoder().encode('{"type":"webauthn.get","challenge":"x"}')) }, "client_data_malformed"],
      ["authenticatorData too short", { ...good, authenticatorData: b64u(new Uint8Array(36)) }, "authenticator_data_malformed"],
      ["authenticatorData with trailing bytes", { ...good, authenticatorData: `${b64u(Buffer.concat([Buffer.from(good.authenticatorData, "base64url"), Buffer.of(0)]))}` }, "authenticator_data_malformed"],
      ["authenticatorData claiming extensions it lacks", { ...good, authenticatorData: b64u(authenticatorData({ rpId, flags: FLAGS.UP | FLAGS.UV | FLAGS.ED, counter: 42 })) }, "authenticator_data_malformed"],
      ["signature not DER", { ...good, signature: b64u(new Uint8Array(64).fill(1)) }, "signature_malformed"],
      ["signature not base64url", { ...good, signature: "%%%" }, "signature_malformed"]
    ]
    it.each(cases)("%s", async (_name, a, reason) => {
      expect(ours(a)).toBe(reason)
      expect(PASSKEY_REASONS[reason]).toMatchObject({ code: "INVALID_INPUT", status: 400 })
      expect(await theirs(a)).toBe(false)
    })
    it("tolerates padded base64url fields, as some clients send them", () => {
      const pad = (text: string) => text + "=".repeat((4 - (text.length % 4)) % 4)
      expect(ours({ credentialId: pad(good.credentialId), clientDataJson: pad(good.clientDataJson), authenticatorData: pad(good.authenticatorData), signature: pad(good.signature) })).toBe("ok")
    })
    it("accepts extensions that are present when the ED flag says so", () => {
      const authData = authenticatorData({ rpId, flags: FLAGS.UP | FLAGS.UV | FLAGS.ED, counter: 42, extensions: encodeCbor(new Map([["credProtect", 1]])) })
      expect(ours(customAssertion(authData, clientDataJson({ type: "webauthn.get", challenge, origin })))).toBe("ok")
    })
  })

  it("accepts the legacy fixed sandbox signature only with sandbox: true, and still checks everything else", () => {
    const legacy = { ...assertion(), signature: SANDBOX_LEGACY_PASSKEY_SIGNATURE }
    expect(ours(legacy, { sandbox: true })).toBe("ok")
    expect(ours(legacy)).toBe("legacy_sandbox_signature_outside_sandbox")
    expect(ours({ ...assertion({ challenge: "other" }), signature: SANDBOX_LEGACY_PASSKEY_SIGNATURE }, { sandbox: true })).toBe("challenge_mismatch")
    expect(ours({ ...assertion({ counter: 41 }), signature: SANDBOX_LEGACY_PASSKEY_SIGNATURE }, { sandbox: true })).toBe("counter_not_increased")
  })

  it("any changed byte of authenticatorData, clientDataJSON or signature is rejected by both verifiers", async () => {
    const good = assertion()
    const fields = ["authenticatorData", "clientDataJson", "signature"] as const
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...fields), fc.nat(), fc.integer({ min: 1, max: 255 }), async (field, at, xor) => {
        const bytes = Buffer.from(good[field], "base64url")
        const i = at % bytes.length
        bytes[i] = (bytes[i] ?? 0) ^ xor
        const changed = { ...good, [field]: bytes.toString("base64url") }
        expect(ours(changed)).not.toBe("ok")
        // simplewebauthn's DER reader tolerates some header damage (see the next test),
        // so it is the cross-check for the signed bytes only.
        if (field !== "signature") expect(await theirs(changed)).toBe(false)
      }),
      { numRuns: numRuns(200) }
    )
  })

  it("is stricter than @simplewebauthn/server on DER: trailing bytes or a short SEQUENCE length are refused", async () => {
    const good = assertion()
    const der = Buffer.from(good.signature, "base64url")
    const shortLength = Buffer.from(der)
    shortLength[1] = (der[1] ?? 0) - 1
    for (const damagedDer of [Buffer.concat([der, Buffer.of(0)]), shortLength]) {
      const damaged = { ...good, signature: damagedDer.toString("base64url") }
      expect(ours(damaged)).toBe("signature_malformed")
      expect(await theirs(damaged)).toBe(true)
    }
  })
})

describe("passkey registration (attestation none)", () => {
  const regBase: Omit<VerifyPasskeyRegistrationInput, "registration"> = { expectedChallenge: challenge, allowedOrigins, rpId, requireUserVerification: true }
  const register = (overrides: Partial<Parameters<typeof makeRegistration>[0]> = {}) =>
    makeRegistration({ credential, rpId, origin, challenge, ...overrides })
  const reasonOf = (registration: ReturnType<typeof register>, overrides: Partial<VerifyPasskeyRegistrationInput> = {}) => {
    const verdict = verifyPasskeyRegistration({ ...regBase, ...overrides, registration })
    return verdict.ok ? "ok" : verdict.reason
  }
  const theirsRegister = async (registration: ReturnType<typeof register>) => {
    try {
      const result = await verifyRegistrationResponse({
        response: {
          id: registration.credentialId,
          rawId: registration.credentialId,
          type: "public-key",
          response: { clientDataJSON: registration.clientDataJson, attestationObject: registration.attestationObject },
          clientExtensionResults: {}
        },
        expectedChallenge: challenge,
        expectedOrigin: [...allowedOrigins],
        expectedRPID: rpId,
        requireUserVerification: true
      })
      return result.verified ? result.registrationInfo : undefined
    } catch {
      return undefined
    }
  }

  it("yields a credential that verifies later assertions, and agrees with @simplewebauthn/server", async () => {
    const registration = register()
    const verdict = verifyPasskeyRegistration({ ...regBase, registration })
    if (!verdict.ok) throw new Error(verdict.reason)
    expect(verdict.value).toMatchObject({ credentialId: b64u(credential.id), publicKey: credential.uncompressedHex, counter: 0, userVerified: true, aaguid: "00".repeat(16) })
    expect(coseKeyToPublicKeyHex(verdict.value.publicKeyCose)).toBe(credential.uncompressedHex)
    const info = await theirsRegister(registration)
    expect(info?.credential.id).toBe(verdict.value.credentialId)
    expect(Buffer.from(info?.credential.publicKey ?? []).toString("base64url")).toBe(verdict.value.publicKeyCose)
    const later = verifyPasskeyAssertion({
      ...base,
      credential: { id: verdict.value.credentialId, publicKey: verdict.value.publicKey, counter: verdict.value.counter },
      assertion: assertion({ counter: 1 })
    })
    expect(later).toEqual({ ok: true, value: { newCounter: 1, userVerified: true } })
  })

  const rs256Cose = encodeCbor(new Map<number, number | Uint8Array>([[1, 3], [3, -257], [-1, new Uint8Array(256)], [-2, Uint8Array.of(1, 0, 1)]]))
  const p384Cose = encodeCbor(new Map<number, number | Uint8Array>([[1, 2], [3, -7], [-1, 2], [-2, credential.x], [-3, credential.y]]))
  const offCurveCose = encodeCbor(new Map<number, number | Uint8Array>([[1, 2], [3, -7], [-1, 1], [-2, credential.x], [-3, new Uint8Array(32).fill(1)]]))
  /** The last column marks where we are deliberately stricter than @simplewebauthn/server (which accepts these). */
  const cases: ReadonlyArray<readonly [string, () => ReturnType<typeof register>, PasskeyReason, "stricter" | "same"]> = [
    ["clientData type webauthn.get", () => ({ ...register(), clientDataJson: b64u(clientDataJson({ type: "webauthn.get", challenge, origin })) }), "client_data_type_mismatch", "same"],
    ["another challenge", () => register({ challenge: "b3RoZXI" }), "challenge_mismatch", "same"],
    ["an origin not allowed", () => register({ origin: "https://evil.example.com" }), "origin_not_allowed", "same"],
    ["another RP id", () => register({ rpId: "example.com" }), "rp_id_hash_mismatch", "same"],
    ["user-presence flag clear", () => register({ flags: FLAGS.UV | FLAGS.AT }), "user_not_present", "same"],
    ["user-verification flag clear", () => register({ flags: FLAGS.UP | FLAGS.AT }), "user_not_verified", "same"],
    ["packed attestation", () => register({ fmt: "packed", attStmt: new Map([["sig", new Uint8Array(8)]]) }), "attestation_format_unsupported", "same"],
    ["none with a statement", () => register({ attStmt: new Map([["x", new Uint8Array(1)]]) }), "attestation_format_unsupported", "same"],
    ["response id differing from the attested id", () => ({ ...register(), credentialId: b64u(Uint8Array.of(1, 2, 3)) }), "credential_id_mismatch", "stricter"],
    ["an RS256 key", () => register({ cose: rs256Cose }), "public_key_unsupported", "stricter"],
    ["a P-384 curve id", () => register({ cose: p384Cose }), "public_key_unsupported", "stricter"],
    ["a point off the curve", () => register({ cose: offCurveCose }), "public_key_unsupported", "stricter"],
    ["an attestation object that is not CBOR", () => ({ ...register(), attestationObject: b64u(Uint8Array.of(0xff)) }), "attestation_object_malformed", "same"],
    ["an attestation object without authData", () => ({ ...register(), attestationObject: b64u(encodeCbor(new Map<string, string | Map<string, string>>([["fmt", "none"], ["attStmt", new Map()]]))) }), "attestation_object_malformed", "same"],
    ["an empty credential id", () => ({ ...register(), credentialId: "" }), "credential_id_malformed", "same"]
  ]
  it.each(cases)("rejects %s", async (_name, make, reason, stricter) => {
    const registration = make()
    expect(reasonOf(registration)).toBe(reason)
    // ES256-only, a validated point and the response id bound to the attested id are our
    // policy; simplewebauthn stores such credentials and would fail them only at first use.
    if (stricter === "stricter") expect(await theirsRegister(registration)).toBeDefined()
    else expect(await theirsRegister(registration)).toBeUndefined()
  })

  it("rejects authData without the attested-credential flag", () => {
    const authData = authenticatorData({ rpId, flags: FLAGS.UP | FLAGS.UV, counter: 0 })
    const attestationObject = b64u(encodeCbor(new Map<string, string | Uint8Array | Map<string, Uint8Array>>([["fmt", "none"], ["attStmt", new Map()], ["authData", authData]])))
    expect(reasonOf({ ...register(), attestationObject })).toBe("attested_credential_missing")
  })
})
