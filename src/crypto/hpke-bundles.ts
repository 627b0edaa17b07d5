import { p256 } from "@noble/curves/nist.js"
import { concatBytes, constantTimeEqual, fromHex, fromUtf8, parseJsonObject, toHex, utf8 } from "./bytes.js"
import { hpkeOpen, hpkeOpenManual, importRecipientKey } from "./hpke.js"
import type { P256KeyPair } from "./keys.js"
import { isValidPublicKeyBytes, parsePublicKeyHex } from "./p256.js"
import { SANDBOX_OTP_CODE } from "./sandbox.js"
import { accept, invalidInputReason, rejecter, unauthorizedReason, type ReasonTable, type Verdict } from "./verdict.js"

/**
 * OTP bundles (EMAIL_OTP, SMS_OTP) in the format of `@turnkey/crypto`'s
 * `encryptOtpCodeToBundle`: the server publishes a signed target bundle, the client
 * HPKE-encrypts `{"otp_code","public_key"}` to its `targetPublic`.
 */

const isUncompressedHex = (hex: string): boolean => hex.length === 130 && hex.startsWith("04")

/**
 * Builds `otpEncryptionTargetBundle`. The checked client helper compares
 * `enclaveQuorumPublic` with the key it pins (as a string) and verifies `dataSignature`
 * with noble's default low-S rule, so both must be exactly what is produced here:
 * lowercase uncompressed hex, and a low-S DER signature (noble signs low-S, and
 * RFC 6979 makes it deterministic, so no randomness is needed).
 *
 * Inputs are server key material, so a bad one is a defect and throws.
 */
export const buildOtpEncryptionTargetBundle = (params: {
  readonly targetPublicKey: string
  readonly signingKey: P256KeyPair
}): string => {
  const target = parsePublicKeyHex(params.targetPublicKey)
  if (target === undefined) throw new TypeError("targetPublicKey is not a P-256 public key")
  // With a compressed key the client encrypts without error and nobody can open the result.
  if (!isUncompressedHex(params.targetPublicKey)) throw new TypeError("targetPublicKey must be uncompressed (04…)")
  const signer = fromHex(params.signingKey.privateKeyHex)
  if (signer === undefined || !p256.utils.isValidSecretKey(signer)) throw new TypeError("signingKey is not a P-256 private key")
  const data = utf8(JSON.stringify({ targetPublic: target.uncompressedHex }))
  const dataSignature = p256.sign(data, signer, { format: "der", lowS: true, prehash: true })
  return JSON.stringify({
    data: toHex(data),
    dataSignature: toHex(dataSignature),
    enclaveQuorumPublic: params.signingKey.publicKeyHex.toLowerCase()
  })
}

export type OtpBundleReason =
  | "bundle_not_json"
  | "bundle_fields_invalid"
  | "encapped_key_invalid"
  | "encrypted_to_compressed_target"
  | "decryption_failed"
  | "plaintext_malformed"
  | "public_key_malformed"
  | "public_key_mismatch"
  | "otp_code_mismatch"

export const OTP_BUNDLE_REASONS: ReasonTable<OtpBundleReason> = {
  bundle_not_json: invalidInputReason("encryptedOtpBundle is not a JSON object"),
  bundle_fields_invalid: invalidInputReason("encryptedOtpBundle needs lowercase hex encappedPublic and ciphertext"),
  encapped_key_invalid: invalidInputReason("encryptedOtpBundle encappedPublic is not an uncompressed P-256 public key"),
  encrypted_to_compressed_target: invalidInputReason(
    "encryptedOtpBundle was encrypted to a compressed target key; use the otpEncryptionTargetBundle as issued"
  ),
  decryption_failed: unauthorizedReason("encryptedOtpBundle cannot be opened with this challenge's target key"),
  plaintext_malformed: invalidInputReason("encryptedOtpBundle does not contain otp_code and public_key"),
  public_key_malformed: invalidInputReason("encryptedOtpBundle public_key is not a compressed P-256 public key"),
  public_key_mismatch: unauthorizedReason("encryptedOtpBundle public_key is not the key this challenge was issued for"),
  otp_code_mismatch: unauthorizedReason("Invalid OTP code")
}

const reject = rejecter(OTP_BUNDLE_REASONS)

export type OtpExpectation =
  | { readonly kind: "code"; readonly code: string }
  /** Sandbox: the only accepted code is `SANDBOX_OTP_CODE`; the bundle is still opened for real. */
  | { readonly kind: "sandbox" }

export interface OpenOtpBundleInput {
  readonly encryptedOtpBundle: string
  /** The target key pair whose public half went out in `otpEncryptionTargetBundle`. */
  readonly targetKey: P256KeyPair
  readonly expected: OtpExpectation
  /** The client's TEK public key from the challenge, when it sent one (any SEC1 form). */
  readonly expectedPublicKey?: string
}

export interface OpenedOtpBundle {
  readonly otpCode: string
  /** As the client put it in the bundle (compressed, lowercase hex). */
  readonly publicKey: string
}

export const openEncryptedOtpBundle = async (input: OpenOtpBundleInput): Promise<Verdict<OpenedOtpBundle, OtpBundleReason>> => {
  const bundle = parseJsonObject(input.encryptedOtpBundle)
  if (bundle === undefined) return reject("bundle_not_json")
  const { encappedPublic, ciphertext } = bundle
  if (typeof encappedPublic !== "string" || typeof ciphertext !== "string") return reject("bundle_fields_invalid")
  const enc = fromHex(encappedPublic, { lowercaseOnly: true })
  const sealed = fromHex(ciphertext, { lowercaseOnly: true })
  if (enc === undefined || sealed === undefined || sealed.length < 16) return reject("bundle_fields_invalid")
  if (enc.length !== 65 || enc[0] !== 0x04 || !isValidPublicKeyBytes(enc)) return reject("encapped_key_invalid")

  const targetPrivate = fromHex(input.targetKey.privateKeyHex)
  const target = parsePublicKeyHex(input.targetKey.publicKeyHex)
  const recipient = targetPrivate === undefined || target === undefined ? undefined : await importRecipientKey(targetPrivate, target.uncompressed)
  if (targetPrivate === undefined || target === undefined || recipient === undefined) {
    throw new TypeError("targetKey is not a P-256 key pair")
  }

  const aad = concatBytes(enc, target.uncompressed)
  const plaintext = await hpkeOpen({ recipient, enc, ciphertext: sealed, aad })
  if (plaintext === undefined) {
    const compressedTarget = fromHex(target.compressedHex) ?? new Uint8Array(0)
    const quirk = hpkeOpenManual({
      privateKey: targetPrivate,
      recipientPublicKeyAsEncoded: compressedTarget,
      enc,
      ciphertext: sealed,
      aad: concatBytes(enc, compressedTarget)
    })
    return reject(quirk === undefined ? "decryption_failed" : "encrypted_to_compressed_target")
  }

  const text = fromUtf8(plaintext)
  const content = text === undefined ? undefined : parseJsonObject(text)
  const otpCode = content?.["otp_code"]
  const publicKey = content?.["public_key"]
  if (typeof otpCode !== "string" || typeof publicKey !== "string") return reject("plaintext_malformed")
  const clientKey = publicKey.length === 66 ? parsePublicKeyHex(publicKey) : undefined
  if (clientKey === undefined) return reject("public_key_malformed")
  if (input.expectedPublicKey !== undefined && parsePublicKeyHex(input.expectedPublicKey)?.compressedHex !== clientKey.compressedHex) {
    return reject("public_key_mismatch")
  }
  const expectedCode = input.expected.kind === "sandbox" ? SANDBOX_OTP_CODE : input.expected.code
  if (!constantTimeEqual(utf8(otpCode), utf8(expectedCode))) return reject("otp_code_mismatch")
  return accept({ otpCode, publicKey })
}
