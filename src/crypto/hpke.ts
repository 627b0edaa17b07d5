import { Aes256Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } from "@hpke/core"
import { p256 } from "@noble/curves/nist.js"
import { expand, extract } from "@noble/hashes/hkdf.js"
import { sha256 } from "@noble/hashes/sha2.js"
import { createDecipheriv } from "node:crypto"
import { concatBytes, utf8 } from "./bytes.js"

/**
 * RFC 9180 base mode, DHKEM(P-256, HKDF-SHA256) / HKDF-SHA256 / AES-256-GCM, with the
 * `info` the wallet clients use. Opening and sealing go through `@hpke/core`.
 */
export const HPKE_INFO = utf8("turnkey_hpke")

const suite = new CipherSuite({ kem: new DhkemP256HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes256Gcm() })

const buffer = (bytes: Uint8Array): ArrayBuffer => bytes.slice().buffer

/** Imports a raw 32-byte private key with its 65-byte uncompressed public key. */
export const importRecipientKey = async (privateKey: Uint8Array, publicKey: Uint8Array): Promise<CryptoKeyPair | undefined> => {
  try {
    return {
      privateKey: await suite.kem.importKey("raw", buffer(privateKey), false),
      publicKey: await suite.kem.importKey("raw", buffer(publicKey), true)
    }
  } catch {
    return undefined
  }
}

/** `undefined` when the AEAD rejects (tampered ciphertext, other recipient) or `enc` is not a point. */
export const hpkeOpen = async (params: {
  readonly recipient: CryptoKeyPair
  readonly enc: Uint8Array
  readonly ciphertext: Uint8Array
  readonly aad: Uint8Array
}): Promise<Uint8Array | undefined> => {
  try {
    const context = await suite.createRecipientContext({
      recipientKey: params.recipient,
      enc: buffer(params.enc),
      info: buffer(HPKE_INFO)
    })
    return new Uint8Array(await context.open(buffer(params.ciphertext), buffer(params.aad)))
  } catch {
    return undefined
  }
}

/**
 * Seals to a recipient. The ephemeral key is derived (RFC 9180 DeriveKeyPair) from
 * `ephemeralSeed`, which the caller draws from its injected random source, so this
 * module never reads randomness itself.
 */
export const hpkeSeal = async (params: {
  readonly recipientPublicKey: Uint8Array
  readonly plaintext: Uint8Array
  readonly aad: (enc: Uint8Array) => Uint8Array
  readonly ephemeralSeed: Uint8Array
}): Promise<{ readonly enc: Uint8Array; readonly ciphertext: Uint8Array }> => {
  const recipientPublicKey = await suite.kem.importKey("raw", buffer(params.recipientPublicKey), true)
  const context = await suite.createSenderContext({
    recipientPublicKey,
    info: buffer(HPKE_INFO),
    ekm: buffer(params.ephemeralSeed)
  })
  const enc = new Uint8Array(context.enc)
  const ciphertext = new Uint8Array(await context.seal(buffer(params.plaintext), buffer(params.aad(enc))))
  return { enc, ciphertext }
}

// --- Diagnosis only -------------------------------------------------------------
//
// A client handed a target bundle whose `targetPublic` is compressed encrypts without
// error, but puts the 33-byte key into both the KEM context and the AAD, which no
// RFC 9180 implementation reproduces. To tell that case apart from tampering, we
// recompute the key schedule by hand with the recipient key as the client encoded it.

const HPKE_V1 = utf8("HPKE-v1")
const KEM_SUITE = Uint8Array.from([0x4b, 0x45, 0x4d, 0x00, 0x10])
const HPKE_SUITE = Uint8Array.from([0x48, 0x50, 0x4b, 0x45, 0x00, 0x10, 0x00, 0x01, 0x00, 0x02])
const EMPTY = new Uint8Array(0)

const labeledExtract = (suiteId: Uint8Array, salt: Uint8Array, label: string, ikm: Uint8Array): Uint8Array =>
  extract(sha256, concatBytes(HPKE_V1, suiteId, utf8(label), ikm), salt)

const labeledExpand = (suiteId: Uint8Array, prk: Uint8Array, label: string, info: Uint8Array, length: number): Uint8Array =>
  expand(sha256, prk, concatBytes(Uint8Array.from([length >> 8, length & 0xff]), HPKE_V1, suiteId, utf8(label), info), length)

/**
 * Base-mode open where the recipient public key is encoded as `recipientPublicKeyAsEncoded`
 * in the KEM context (RFC 9180 requires the 65-byte form there). Synchronous and
 * independent from `@hpke/core`, which lets tests cross-check the two.
 */
export const hpkeOpenManual = (params: {
  readonly privateKey: Uint8Array
  readonly recipientPublicKeyAsEncoded: Uint8Array
  readonly enc: Uint8Array
  readonly ciphertext: Uint8Array
  readonly aad: Uint8Array
}): Uint8Array | undefined => {
  if (params.ciphertext.length < 16) return undefined
  try {
    const dh = p256.getSharedSecret(params.privateKey, params.enc, true).subarray(1)
    const eaePrk = labeledExtract(KEM_SUITE, EMPTY, "eae_prk", dh)
    const kemContext = concatBytes(params.enc, params.recipientPublicKeyAsEncoded)
    const sharedSecret = labeledExpand(KEM_SUITE, eaePrk, "shared_secret", kemContext, 32)
    const pskIdHash = labeledExtract(HPKE_SUITE, EMPTY, "psk_id_hash", EMPTY)
    const infoHash = labeledExtract(HPKE_SUITE, EMPTY, "info_hash", HPKE_INFO)
    const context = concatBytes(Uint8Array.of(0), pskIdHash, infoHash)
    const secret = labeledExtract(HPKE_SUITE, sharedSecret, "secret", EMPTY)
    const key = labeledExpand(HPKE_SUITE, secret, "key", context, 32)
    const nonce = labeledExpand(HPKE_SUITE, secret, "base_nonce", context, 12)
    const tagAt = params.ciphertext.length - 16
    const decipher = createDecipheriv("aes-256-gcm", key, nonce)
    decipher.setAAD(params.aad)
    decipher.setAuthTag(params.ciphertext.subarray(tagAt))
    return new Uint8Array(Buffer.concat([decipher.update(params.ciphertext.subarray(0, tagAt)), decipher.final()]))
  } catch {
    return undefined
  }
}
