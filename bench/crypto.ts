import { encryptOtpCodeToBundle } from "@turnkey/crypto"
import { createHash, createPublicKey, generateKeyPairSync, randomBytes, sign, verify, type KeyObject } from "node:crypto"
import { pathToFileURL } from "node:url"
import {
  buildOtpEncryptionTargetBundle,
  generateP256KeyPair,
  oidcNonceFor,
  openEncryptedOtpBundle,
  STAMP_SCHEME,
  verifyOidcToken,
  verifyPasskeyAssertion,
  verifyWalletStamp,
  type PasskeyAssertion,
  type StoredPasskey,
  type VerifyBackend
} from "../src/crypto/index.js"

/**
 * Throughput of the crypto verifiers, with raw node:crypto verifying the very same
 * signatures as the baseline measured in the same run (ratios, not absolute numbers,
 * are what to compare across machines).
 */

interface StampCase {
  readonly header: string
  readonly payload: string
  readonly payloadBytes: Buffer
  readonly publicKeyHex: string
  readonly keyObject: KeyObject
  readonly der: Buffer
}

const b64u = (bytes: Uint8Array): string => Buffer.from(bytes).toString("base64url")

const makeStampCases = (keys: number, perKey: number): StampCase[] => {
  const cases: StampCase[] = []
  for (let k = 0; k < keys; k++) {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" })
    const spki = publicKey.export({ format: "der", type: "spki" })
    const compressed = createPublicKey({ key: spki, format: "der", type: "spki" })
      .export({ format: "jwk" })
    const x = Buffer.from(compressed.x ?? "", "base64url")
    const y = Buffer.from(compressed.y ?? "", "base64url")
    const publicKeyHex = `${(y[31] ?? 0) & 1 ? "03" : "02"}${x.toString("hex")}`
    for (let i = 0; i < perKey; i++) {
      const payload = JSON.stringify({ requestId: `Request:${randomBytes(8).toString("hex")}`, amount: `${k}.${i}`, memo: "paiement à 東京 ✓" })
      const payloadBytes = Buffer.from(payload, "utf8")
      // The same layout @turnkey/api-key-stamper produces (its node runtime also signs with OpenSSL).
      const der = sign("sha256", payloadBytes, privateKey)
      const header = b64u(Buffer.from(JSON.stringify({ publicKey: publicKeyHex, scheme: STAMP_SCHEME, signature: der.toString("hex") })))
      cases.push({ header, payload, payloadBytes, publicKeyHex, keyObject: publicKey, der })
    }
  }
  return cases
}

/** Runs `step` until `seconds` elapse; returns operations per second. */
const rate = (seconds: number, step: (i: number) => void): number => {
  const start = performance.now()
  const deadline = start + seconds * 1000
  let count = 0
  for (;;) {
    for (let j = 0; j < 32; j++) step(count++)
    if (performance.now() >= deadline) break
  }
  return count / ((performance.now() - start) / 1000)
}

const rateAsync = async (seconds: number, step: (i: number) => Promise<void>): Promise<number> => {
  const start = performance.now()
  const deadline = start + seconds * 1000
  let count = 0
  while (performance.now() < deadline) await step(count++)
  return count / ((performance.now() - start) / 1000)
}

const at = <T>(items: readonly T[], i: number): T => {
  const item = items[i % items.length]
  if (item === undefined) throw new Error("empty bench input")
  return item
}

export async function runCryptoBench(opts: { seconds: number }): Promise<Record<string, unknown>> {
  const budget = Math.max(0.5, opts.seconds)
  const stamps = makeStampCases(16, 16)

  const rawStep = (i: number) => {
    const c = at(stamps, i)
    if (!verify("sha256", c.payloadBytes, c.keyObject, c.der)) throw new Error("raw verify failed")
  }
  const stampRate = (backend: VerifyBackend, seconds: number) =>
    rate(seconds, (i) => {
      const c = at(stamps, i)
      const verdict = verifyWalletStamp({ header: c.header, payloadToSign: c.payload, activeSessionKeys: [c.publicKeyHex], backend })
      if (!verdict.ok) throw new Error(`stamp rejected: ${verdict.reason}`)
    })
  // Baseline (OpenSSL alone, KeyObjects prepared) and ours alternate in short slices so
  // that load from other processes hits both alike.
  const rounds = 5
  let rawSum = 0
  let oursSum = 0
  for (let r = 0; r < rounds; r++) {
    rawSum += rate((budget * 0.4) / (2 * rounds), rawStep)
    oursSum += stampRate("native", (budget * 0.4) / (2 * rounds))
  }
  const nodeRaw = rawSum / rounds
  const ours = oursSum / rounds
  const noble = stampRate("noble", budget * 0.1)

  // OTP bundles made by the real client helper, opened by us.
  const seed = randomBytes
  const signer = generateP256KeyPair((n) => new Uint8Array(seed(n)))
  const target = generateP256KeyPair((n) => new Uint8Array(seed(n)))
  const targetBundle = buildOtpEncryptionTargetBundle({ targetPublicKey: target.publicKeyHex, signingKey: signer })
  const clientKey = generateP256KeyPair((n) => new Uint8Array(seed(n)))
  const otpBundles = await Promise.all(
    Array.from({ length: 16 }, () => encryptOtpCodeToBundle("123456", targetBundle, clientKey.compressedPublicKeyHex, signer.publicKeyHex))
  )
  const otp = await rateAsync(budget * 0.2, async (i) => {
    const verdict = await openEncryptedOtpBundle({ encryptedOtpBundle: at(otpBundles, i), targetKey: target, expected: { kind: "code", code: "123456" } })
    if (!verdict.ok) throw new Error(`otp rejected: ${verdict.reason}`)
  })

  // Passkey assertions from a software authenticator.
  const rpId = "wallet.example.com"
  const origin = "https://wallet.example.com"
  const challenge = b64u(randomBytes(32))
  const { privateKey: passkeyPrivate, publicKey: passkeyPublic } = generateKeyPairSync("ec", { namedCurve: "P-256" })
  const jwk = passkeyPublic.export({ format: "jwk" })
  const credential: StoredPasskey = {
    id: b64u(randomBytes(16)),
    publicKey: `04${Buffer.from(jwk.x ?? "", "base64url").toString("hex")}${Buffer.from(jwk.y ?? "", "base64url").toString("hex")}`,
    counter: 0
  }
  const assertions: PasskeyAssertion[] = Array.from({ length: 64 }, (_, i) => {
    const authData = Buffer.concat([createHash("sha256").update(rpId).digest(), Buffer.of(0x05), Buffer.from([0, 0, 0, i + 1])])
    const clientData = Buffer.from(JSON.stringify({ type: "webauthn.get", challenge, origin, crossOrigin: false }))
    const signature = sign("sha256", Buffer.concat([authData, createHash("sha256").update(clientData).digest()]), passkeyPrivate)
    return { credentialId: credential.id, clientDataJson: b64u(clientData), authenticatorData: b64u(authData), signature: b64u(signature) }
  })
  const passkey = rate(budget * 0.2, (i) => {
    const verdict = verifyPasskeyAssertion({ assertion: at(assertions, i), credential, expectedChallenge: challenge, allowedOrigins: [origin], rpId })
    if (!verdict.ok) throw new Error(`passkey rejected: ${verdict.reason}`)
  })

  // OIDC claims (sandbox: no provider signature), a cheap path kept honest.
  const nowMs = 1_760_000_000_000
  const segment = (value: unknown) => b64u(Buffer.from(JSON.stringify(value)))
  const token = `${segment({ alg: "RS256" })}.${segment({ iss: "https://accounts.google.com", aud: "a", sub: "s", iat: nowMs / 1000, exp: nowMs / 1000 + 60, nonce: oidcNonceFor(clientKey.compressedPublicKeyHex) })}.ZHVtbXk`
  const oidc = rate(budget * 0.1, () => {
    const verdict = verifyOidcToken({ token, nowMs, supportedIssuers: ["https://accounts.google.com"], clientPublicKey: clientKey.compressedPublicKeyHex, signature: { kind: "skip" } })
    if (!verdict.ok) throw new Error(`oidc rejected: ${verdict.reason}`)
  })

  const round = (n: number) => Math.round(n)
  const result = {
    stampVerifyPerSec: round(ours),
    nodeRawVerifyPerSec: round(nodeRaw),
    stampVsNodeRatio: Number((nodeRaw / ours).toFixed(2)),
    stampNobleFallbackPerSec: round(noble),
    otpBundleOpenPerSec: round(otp),
    passkeyAssertionPerSec: round(passkey),
    oidcClaimsPerSec: round(oidc),
    seconds: budget
  }
  console.table({
    "stamp verify (ours, native)": { "ops/s": result.stampVerifyPerSec },
    "raw node:crypto verify, same sigs": { "ops/s": result.nodeRawVerifyPerSec },
    "raw / ours (target < 2)": { "ops/s": result.stampVsNodeRatio },
    "stamp verify (noble fallback)": { "ops/s": result.stampNobleFallbackPerSec },
    "OTP bundle open (HPKE)": { "ops/s": result.otpBundleOpenPerSec },
    "passkey assertion": { "ops/s": result.passkeyAssertionPerSec },
    "OIDC claims (no signature)": { "ops/s": result.oidcClaimsPerSec }
  })
  return result
}

const entry = process.argv[1]
if (entry !== undefined && import.meta.url === pathToFileURL(entry).href) {
  const seconds = Number.parseFloat(process.env["BENCH_SECONDS"] ?? "5")
  await runCryptoBench({ seconds: Number.isFinite(seconds) && seconds > 0 ? seconds : 5 })
}
