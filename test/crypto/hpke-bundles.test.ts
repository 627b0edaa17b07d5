import { ApiKeyStamper } from "@turnkey/api-key-stamper"
import { decryptCredentialBundle, encryptOtpCodeToBundle, formatHpkeBuf, hpkeEncrypt } from "@turnkey/crypto"
import { p256 } from "@noble/curves/nist.js"
import fc from "fast-check"
import { createHash } from "node:crypto"
import { describe, expect, it } from "vitest"
import {
  buildOtpEncryptionTargetBundle,
  generateP256KeyPair,
  OTP_BUNDLE_REASONS,
  openEncryptedOtpBundle,
  p256KeyPairFromPrivateKey,
  SANDBOX_OTP_CODE,
  sealSessionSigningKey,
  sessionKeyFlow,
  verifyWalletStamp,
  type OpenOtpBundleInput,
  type OtpBundleReason,
  type P256KeyPair,
  type RandomBytes
} from "../../src/crypto/index.js"
import { hpkeOpenManual } from "../../src/crypto/hpke.js"
import { arbitraryKey, keyFromSeed } from "./support/keys.js"
import { stringField } from "./support/json.js"
import { numRuns } from "./support/runs.js"

/** A deterministic random source (SHA-256 counter mode) so bundles replay. */
const seededRandom = (seed: string): RandomBytes => {
  let counter = 0
  return (length) => {
    const out = new Uint8Array(length)
    for (let filled = 0; filled < length; filled += 32) {
      const block = createHash("sha256").update(`${seed}:${counter++}`).digest()
      out.set(block.subarray(0, Math.min(32, length - filled)), filled)
    }
    return out
  }
}

const random = seededRandom("hpke-bundles")
const signer = generateP256KeyPair(random)
const target = generateP256KeyPair(random)
const client = keyFromSeed(new Uint8Array(32).fill(3))
const targetBundle = buildOtpEncryptionTargetBundle({ targetPublicKey: target.publicKeyHex, signingKey: signer })

/** The client side exactly as an app does it, with our published key pinned. */
const clientEncrypts = (code: string, bundle = targetBundle, publicKey = client.publicKey) =>
  encryptOtpCodeToBundle(code, bundle, publicKey, signer.publicKeyHex)

const open = (encryptedOtpBundle: string, overrides: Partial<OpenOtpBundleInput> = {}) =>
  openEncryptedOtpBundle({ encryptedOtpBundle, targetKey: target, expected: { kind: "code", code: "482913" }, ...overrides })

const reasonOf = async (bundle: string, overrides: Partial<OpenOtpBundleInput> = {}): Promise<OtpBundleReason | "ok"> => {
  const verdict = await open(bundle, overrides)
  return verdict.ok ? "ok" : verdict.reason
}

/** Signs a target bundle for an arbitrary `data` object, like buildOtpEncryptionTargetBundle but unchecked. */
const signedBundleFor = (data: object, key: P256KeyPair = signer): string => {
  const bytes = Buffer.from(JSON.stringify(data))
  const signature = p256.sign(bytes, Buffer.from(key.privateKeyHex, "hex"), { format: "der" })
  return JSON.stringify({ data: bytes.toString("hex"), dataSignature: Buffer.from(signature).toString("hex"), enclaveQuorumPublic: key.publicKeyHex })
}

const encryptRaw = (plaintext: Uint8Array, to: P256KeyPair = target): string =>
  formatHpkeBuf(hpkeEncrypt({ plainTextBuf: plaintext, targetKeyBuf: Buffer.from(to.publicKeyHex, "hex") }))

describe("otpEncryptionTargetBundle", () => {
  it("carries data = hex of {\"targetPublic\":\"04…\"}, a low-S DER dataSignature and the published key", () => {
    const parsed: unknown = JSON.parse(targetBundle)
    expect(parsed).toEqual({ data: expect.any(String), dataSignature: expect.any(String), enclaveQuorumPublic: signer.publicKeyHex })
    const data = stringField(targetBundle, "data")
    const dataSignature = stringField(targetBundle, "dataSignature")
    expect(Buffer.from(data, "hex").toString("utf8")).toBe(`{"targetPublic":"${target.publicKeyHex}"}`)
    const sig = p256.Signature.fromBytes(Buffer.from(dataSignature, "hex"), "der")
    expect(sig.s <= p256.Point.Fn.ORDER / 2n).toBe(true)
    expect(p256.verify(sig.toBytes("compact"), Buffer.from(data, "hex"), Buffer.from(signer.publicKeyHex, "hex"))).toBe(true)
  })
  it("is checked by the client: another pinned key or a bad signature makes it refuse", async () => {
    const other = generateP256KeyPair(random)
    await expect(encryptOtpCodeToBundle("1", targetBundle, client.publicKey, other.publicKeyHex)).rejects.toThrow()
    const forged = JSON.stringify({ ...JSON.parse(targetBundle), dataSignature: JSON.parse(signedBundleFor({ targetPublic: other.publicKeyHex })).dataSignature })
    await expect(clientEncrypts("1", forged)).rejects.toThrow()
  })
  it("refuses a compressed or invalid target key (the client would encrypt to it without error)", () => {
    expect(() => buildOtpEncryptionTargetBundle({ targetPublicKey: target.compressedPublicKeyHex, signingKey: signer })).toThrow(/uncompressed/)
    expect(() => buildOtpEncryptionTargetBundle({ targetPublicKey: "04zz", signingKey: signer })).toThrow(TypeError)
  })
})

const good = await clientEncrypts("482913")

describe("encryptedOtpBundle from @turnkey/crypto's encryptOtpCodeToBundle", () => {
  it("opens for random target keys, client keys and codes, returning otp_code and public_key", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: fc.constantFrom(..."0123456789"), minLength: 6, maxLength: 6 }), arbitraryKey, fc.string({ minLength: 8, maxLength: 8 }), async (code, clientKey, seed) => {
        const targetKey = generateP256KeyPair(seededRandom(seed))
        const bundle = buildOtpEncryptionTargetBundle({ targetPublicKey: targetKey.publicKeyHex, signingKey: signer })
        const encrypted = await encryptOtpCodeToBundle(code, bundle, clientKey.publicKey, signer.publicKeyHex)
        const verdict = await openEncryptedOtpBundle({
          encryptedOtpBundle: encrypted,
          targetKey,
          expected: { kind: "code", code },
          expectedPublicKey: clientKey.publicKeyUncompressed
        })
        expect(verdict).toEqual({ ok: true, value: { otpCode: code, publicKey: clientKey.publicKey } })
      }),
      { numRuns: numRuns(60) }
    )
  })

  it("a wrong code is 401 UNAUTHORIZED with reason 'Invalid OTP code'", async () => {
    const verdict = await open(await clientEncrypts("482914"))
    expect(verdict).toEqual({ ok: false, reason: "otp_code_mismatch", code: "UNAUTHORIZED", status: 401, message: "Invalid OTP code" })
  })

  it("sandbox expects 000000 and still opens the bundle for real", async () => {
    const zeros = await clientEncrypts(SANDBOX_OTP_CODE)
    expect(await reasonOf(zeros, { expected: { kind: "sandbox" } })).toBe("ok")
    expect(await reasonOf(await clientEncrypts("482913"), { expected: { kind: "sandbox" } })).toBe("otp_code_mismatch")
    expect(await reasonOf(zeros)).toBe("otp_code_mismatch")
    const tampered = JSON.stringify({ ...JSON.parse(zeros), ciphertext: `${JSON.parse(zeros).ciphertext.slice(0, -2)}00` })
    expect(await reasonOf(tampered, { expected: { kind: "sandbox" } })).toBe("decryption_failed")
  })

  describe("each failure has its own reason", () => {
    const encappedPublic = stringField(good, "encappedPublic")
    const ciphertext = stringField(good, "ciphertext")
    const other = generateP256KeyPair(random)
    const compressedTargetBundle = signedBundleFor({ targetPublic: target.compressedPublicKeyHex })
    const cases: ReadonlyArray<readonly [string, () => Promise<string>, Partial<OpenOtpBundleInput>, OtpBundleReason]> = [
      ["malformed JSON", async () => good.slice(0, -1), {}, "bundle_not_json"],
      ["a JSON array", async () => "[]", {}, "bundle_not_json"],
      ["missing ciphertext", async () => JSON.stringify({ encappedPublic }), {}, "bundle_fields_invalid"],
      ["upper-case hex", async () => JSON.stringify({ encappedPublic, ciphertext: ciphertext.toUpperCase() }), {}, "bundle_fields_invalid"],
      ["ciphertext shorter than a tag", async () => JSON.stringify({ encappedPublic, ciphertext: "00".repeat(15) }), {}, "bundle_fields_invalid"],
      ["compressed encapped key", async () => JSON.stringify({ encappedPublic: p256.Point.fromHex(encappedPublic).toHex(true), ciphertext }), {}, "encapped_key_invalid"],
      ["encapped key off the curve", async () => JSON.stringify({ encappedPublic: `${encappedPublic.slice(0, -2)}${encappedPublic.endsWith("00") ? "01" : "00"}`, ciphertext }), {}, "encapped_key_invalid"],
      ["encrypted to a compressed targetPublic", () => clientEncrypts("482913", compressedTargetBundle), {}, "encrypted_to_compressed_target"],
      ["tampered ciphertext", async () => JSON.stringify({ encappedPublic, ciphertext: `${ciphertext.slice(0, 10)}${ciphertext[10] === "0" ? "1" : "0"}${ciphertext.slice(11)}` }), {}, "decryption_failed"],
      ["encrypted to another target key", async () => encryptRaw(Buffer.from('{"otp_code":"482913","public_key":"x"}'), other), {}, "decryption_failed"],
      ["plaintext that is not the JSON object", async () => encryptRaw(Buffer.from("482913")), {}, "plaintext_malformed"],
      ["plaintext without public_key", async () => encryptRaw(Buffer.from('{"otp_code":"482913"}')), {}, "plaintext_malformed"],
      ["public_key not compressed", () => clientEncrypts("482913", targetBundle, client.publicKeyUncompressed), {}, "public_key_malformed"],
      ["public_key of another client", async () => good, { expectedPublicKey: keyFromSeed(new Uint8Array(32).fill(4)).publicKey }, "public_key_mismatch"],
      ["wrong code", () => clientEncrypts("000000"), {}, "otp_code_mismatch"]
    ]
    it.each(cases)("%s", async (_name, make, overrides, reason) => {
      const verdict = await open(await make(), overrides)
      expect(verdict.ok ? "ok" : verdict.reason).toBe(reason)
      if (!verdict.ok) expect([verdict.code, verdict.status]).toEqual([OTP_BUNDLE_REASONS[reason].code, OTP_BUNDLE_REASONS[reason].status])
    })
    it("keeps malformed input (400 INVALID_INPUT) apart from failed authentication (401 UNAUTHORIZED)", () => {
      expect(OTP_BUNDLE_REASONS.bundle_not_json).toMatchObject({ code: "INVALID_INPUT", status: 400 })
      expect(OTP_BUNDLE_REASONS.decryption_failed).toMatchObject({ code: "UNAUTHORIZED", status: 401 })
      expect(OTP_BUNDLE_REASONS.otp_code_mismatch).toMatchObject({ code: "UNAUTHORIZED", status: 401, message: "Invalid OTP code" })
    })
    it("any changed byte of ciphertext or encapped key is rejected", async () => {
      const bytes = Buffer.from(encappedPublic + ciphertext, "hex")
      await fc.assert(
        fc.asyncProperty(fc.nat({ max: bytes.length - 1 }), fc.integer({ min: 1, max: 255 }), async (at, xor) => {
          const flipped = Buffer.from(bytes)
          flipped[at] = (flipped[at] ?? 0) ^ xor
          const bundle = JSON.stringify({ encappedPublic: flipped.subarray(0, 65).toString("hex"), ciphertext: flipped.subarray(65).toString("hex") })
          expect(await reasonOf(bundle)).not.toBe("ok")
        }),
        { numRuns: numRuns(100) }
      )
    })
  })

  it("the hand-written key schedule used for diagnosis agrees with @hpke/core on standard bundles", async () => {
    const bundle = await clientEncrypts("482913")
    const encappedPublic = stringField(bundle, "encappedPublic")
    const ciphertext = stringField(bundle, "ciphertext")
    const enc = Buffer.from(encappedPublic, "hex")
    const targetPublic = Buffer.from(target.publicKeyHex, "hex")
    const plaintext = hpkeOpenManual({
      privateKey: Buffer.from(target.privateKeyHex, "hex"),
      recipientPublicKeyAsEncoded: targetPublic,
      enc,
      ciphertext: Buffer.from(ciphertext, "hex"),
      aad: Buffer.concat([enc, targetPublic])
    })
    expect(Buffer.from(plaintext ?? []).toString("utf8")).toBe(`{"otp_code":"482913","public_key":"${client.publicKey}"}`)
  })
})

describe("encryptedSessionSigningKey (legacy flow)", () => {
  it("selects the flow from the clientPublicKey form", () => {
    expect(sessionKeyFlow(client.publicKeyUncompressed)).toBe("legacy-sealed-key")
    expect(sessionKeyFlow(client.publicKey)).toBe("client-held-key")
    expect(sessionKeyFlow("04abc")).toBeUndefined()
  })

  it("decryptCredentialBundle opens it to the raw session key, usable at once as an API key for stamps", async () => {
    await fc.assert(
      fc.asyncProperty(arbitraryKey, fc.string({ minLength: 4, maxLength: 4 }), async (clientKey, seed) => {
        const rng = seededRandom(seed)
        const session = generateP256KeyPair(rng)
        const sealed = await sealSessionSigningKey({ sessionPrivateKeyHex: session.privateKeyHex, clientPublicKey: clientKey.publicKeyUncompressed, randomBytes: rng })
        if (!sealed.ok) throw new Error(sealed.reason)
        const opened = decryptCredentialBundle(sealed.value, clientKey.privateKey)
        expect(opened).toBe(session.privateKeyHex)
        const recovered = p256KeyPairFromPrivateKey(opened)
        expect(recovered).toEqual(session)
        const stamper = new ApiKeyStamper({ apiPublicKey: session.compressedPublicKeyHex, apiPrivateKey: opened })
        const { stampHeaderValue } = await stamper.stamp("payload ✓")
        expect(verifyWalletStamp({ header: stampHeaderValue, payloadToSign: "payload ✓", activeSessionKeys: [session.publicKeyHex] }).ok).toBe(true)
      }),
      { numRuns: numRuns(25) }
    )
  })

  it("is a pure function of its random source", async () => {
    const session = generateP256KeyPair(seededRandom("s"))
    const seal = () => sealSessionSigningKey({ sessionPrivateKeyHex: session.privateKeyHex, clientPublicKey: client.publicKeyUncompressed, randomBytes: seededRandom("e") })
    expect(await seal()).toEqual(await seal())
  })

  it("any changed character of the bundle makes the client refuse it", async () => {
    const session = generateP256KeyPair(random)
    const sealed = await sealSessionSigningKey({ sessionPrivateKeyHex: session.privateKeyHex, clientPublicKey: client.publicKeyUncompressed, randomBytes: random })
    if (!sealed.ok) throw new Error(sealed.reason)
    const alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
    fc.assert(
      fc.property(fc.nat({ max: sealed.value.length - 1 }), fc.nat({ max: 56 }), (at, shift) => {
        const current = alphabet.indexOf(sealed.value[at] ?? "1")
        const changed = sealed.value.slice(0, at) + (alphabet[(current + 1 + shift) % 58] ?? "1") + sealed.value.slice(at + 1)
        expect(() => decryptCredentialBundle(changed, client.privateKey)).toThrow()
      }),
      { numRuns: numRuns(50) }
    )
  })

  it("refuses a compressed or invalid client key and an invalid session key", async () => {
    const session = generateP256KeyPair(random)
    const reason = async (clientPublicKey: string, sessionPrivateKeyHex = session.privateKeyHex) => {
      const verdict = await sealSessionSigningKey({ sessionPrivateKeyHex, clientPublicKey, randomBytes: random })
      return verdict.ok ? "ok" : verdict.reason
    }
    expect(await reason(client.publicKey)).toBe("client_key_compressed")
    expect(await reason("04zz")).toBe("client_key_invalid")
    expect(await reason(client.publicKeyUncompressed, "00".repeat(32))).toBe("session_key_invalid")
  })
})

describe("key generation takes its randomness as an argument", () => {
  it("is deterministic for a given source", () => {
    expect(generateP256KeyPair(seededRandom("k"))).toEqual(generateP256KeyPair(seededRandom("k")))
    expect(generateP256KeyPair(seededRandom("k"))).not.toEqual(generateP256KeyPair(seededRandom("j")))
  })
  it("redraws scalars outside [1, n-1]", () => {
    const draws = [new Uint8Array(32), new Uint8Array(32).fill(0xff), new Uint8Array(32).fill(1)]
    let i = 0
    const pair = generateP256KeyPair(() => draws[i++] ?? new Uint8Array(32))
    expect(i).toBe(3)
    expect(pair.privateKeyHex).toBe("01".repeat(32))
    expect(pair.publicKeyHex).toBe(keyFromSeed(new Uint8Array(32).fill(1)).publicKeyUncompressed)
  })
  it("refuses a source that returns the wrong length", () => {
    expect(() => generateP256KeyPair(() => new Uint8Array(31))).toThrow(RangeError)
  })
})
