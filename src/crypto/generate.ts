import { p256 } from "@noble/curves/nist.js"
import { concatBytes, fromHex, toHex } from "./bytes.js"
import { base58CheckEncode } from "./base58check.js"
import { hpkeSeal } from "./hpke.js"
import { p256KeyPairFromPrivateKey, type P256KeyPair } from "./keys.js"
import { parsePublicKeyHex } from "./p256.js"
import { accept, invalidInputReason, rejecter, type ReasonTable, type Verdict } from "./verdict.js"

/**
 * Everything that needs fresh randomness lives here and takes it as an argument, so
 * the verifiers stay pure and tests can replay a seed. Production passes
 * `crypto.randomBytes` (the Keys port decides).
 */
export type RandomBytes = (length: number) => Uint8Array

const drawBytes = (randomBytes: RandomBytes, length: number): Uint8Array => {
  const bytes = randomBytes(length)
  if (bytes.length !== length) throw new RangeError(`random source returned ${bytes.length} bytes, expected ${length}`)
  return bytes
}

/** Rejection sampling: a 32-byte draw outside [1, n-1] (probability ~2^-32) is redrawn. */
export const generateP256KeyPair = (randomBytes: RandomBytes): P256KeyPair => {
  for (let attempt = 0; attempt < 64; attempt++) {
    const pair = p256KeyPairFromPrivateKey(toHex(drawBytes(randomBytes, 32)))
    if (pair !== undefined) return pair
  }
  throw new RangeError("random source keeps producing invalid P-256 scalars")
}

/**
 * Which session-key flow a `clientPublicKey` selects: an uncompressed key (`04…`) asks
 * for the legacy `encryptedSessionSigningKey`; a compressed key means the client holds
 * its own session key and no key material is returned.
 */
export const sessionKeyFlow = (clientPublicKey: string): "legacy-sealed-key" | "client-held-key" | undefined => {
  if (parsePublicKeyHex(clientPublicKey) === undefined) return undefined
  return clientPublicKey.length === 130 ? "legacy-sealed-key" : "client-held-key"
}

export type SessionKeySealReason = "client_key_invalid" | "client_key_compressed" | "session_key_invalid"

export const SESSION_KEY_SEAL_REASONS: ReasonTable<SessionKeySealReason> = {
  client_key_invalid: invalidInputReason("clientPublicKey is not a P-256 public key in hex"),
  client_key_compressed: invalidInputReason("encryptedSessionSigningKey is only sealed to an uncompressed clientPublicKey"),
  session_key_invalid: invalidInputReason("session signing key is not a P-256 private key")
}

const reject = rejecter(SESSION_KEY_SEAL_REASONS)

/**
 * Seals the raw 32-byte session private key to `clientPublicKey` for the legacy flow.
 * Layout (what `decryptCredentialBundle` reads): base58check of compressed enc (33)
 * followed by the AES-256-GCM ciphertext and tag; AAD = enc (65) ‖ client key (65).
 */
export const sealSessionSigningKey = async (params: {
  readonly sessionPrivateKeyHex: string
  readonly clientPublicKey: string
  readonly randomBytes: RandomBytes
}): Promise<Verdict<string, SessionKeySealReason>> => {
  const client = parsePublicKeyHex(params.clientPublicKey)
  if (client === undefined) return reject("client_key_invalid")
  if (params.clientPublicKey.length !== 130) return reject("client_key_compressed")
  const secret = fromHex(params.sessionPrivateKeyHex)
  if (secret === undefined || !p256.utils.isValidSecretKey(secret)) return reject("session_key_invalid")
  const { enc, ciphertext } = await hpkeSeal({
    recipientPublicKey: client.uncompressed,
    plaintext: secret,
    aad: (encapped) => concatBytes(encapped, client.uncompressed),
    ephemeralSeed: drawBytes(params.randomBytes, 32)
  })
  const compressedEnc = p256.Point.fromBytes(enc).toBytes(true)
  return accept(base58CheckEncode(concatBytes(compressedEnc, ciphertext)))
}
