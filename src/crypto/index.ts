/**
 * Pure verifiers of the embedded-wallet flows: bytes and strings in, a `Verdict` out.
 * No clock or randomness is read here; `generate.ts` takes a random source explicitly.
 */
export * from "./verdict.js"
export { BoundedCache } from "./lru.js"
export {
  toHex,
  fromHex,
  toBase64Url,
  fromBase64Url,
  constantTimeEqual,
  utf8,
  fromUtf8
} from "./bytes.js"
export { parseDerSignature, isScalarInRange, type DerProblem, type DerResult, type ParsedSignature } from "./der.js"
export {
  parsePublicKeyHex,
  parsePublicKeyBytes,
  normalizePublicKeyHex,
  isValidPublicKeyBytes,
  verifyParsed,
  verifyDer,
  type P256PublicKey,
  type VerifyBackend,
  type DerVerifyResult
} from "./p256.js"
export { base58CheckEncode, base58CheckDecode, base58Encode, base58Decode } from "./base58check.js"
export { decodeCbor, decodeCborPrefix, isCborMap, type CborValue, type CborMap, type CborResult } from "./cbor.js"
export * from "./sandbox.js"
export * from "./stamp.js"
export * from "./keys.js"
export { HPKE_INFO } from "./hpke.js"
export * from "./hpke-bundles.js"
export * from "./generate.js"
export * from "./webauthn.js"
export * from "./oidc.js"
export { base32, hotp, totp, verifyTotp } from "./totp.js"
export { eip191Digest, evmAddressOf, ownershipSchemeOf, verifyWalletOwnership, type OwnershipScheme, type OwnershipVerdict } from "./wallet-ownership.js"
export { WEBHOOK_SIGNATURE_HEADER, signWebhookBody, verifyWebhookSignature } from "./webhook-signature.js"
export { sealExportBundle } from "./export-bundle.js"
