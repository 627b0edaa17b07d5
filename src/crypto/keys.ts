import { p256 } from "@noble/curves/nist.js"
import { fromHex, toHex } from "./bytes.js"

/** A server-side P-256 key pair as stored by the Keys port: lowercase hex throughout. */
export interface P256KeyPair {
  readonly privateKeyHex: string
  /** Uncompressed SEC1 (`04…`, 130 hex): the form HPKE and the target bundle need. */
  readonly publicKeyHex: string
  /** Compressed SEC1 (`02…`/`03…`, 66 hex): the form API keys use. */
  readonly compressedPublicKeyHex: string
}

/** Rebuilds a key pair from a stored private key; `undefined` unless it is a scalar in [1, n-1]. */
export const p256KeyPairFromPrivateKey = (privateKeyHex: string): P256KeyPair | undefined => {
  const secret = fromHex(privateKeyHex)
  if (secret === undefined || !p256.utils.isValidSecretKey(secret)) return undefined
  return {
    privateKeyHex: toHex(secret),
    publicKeyHex: toHex(p256.getPublicKey(secret, false)),
    compressedPublicKeyHex: toHex(p256.getPublicKey(secret, true))
  }
}
