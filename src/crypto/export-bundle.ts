import { p256 } from "@noble/curves/nist.js"
import { concatBytes, fromHex, toHex, utf8 } from "./bytes.js"
import type { RandomBytes } from "./generate.js"
import { hpkeSeal } from "./hpke.js"
import type { P256KeyPair } from "./keys.js"
import { parsePublicKeyHex } from "./p256.js"

/**
 * `encryptedWalletCredentials` of POST /internal-accounts/{id}/export, in the layout the
 * reference file gives and `@turnkey/crypto`'s `decryptExportBundle` reads:
 * `{"version":"v1.0.0","data":<hex of JSON {encappedPublic, ciphertext, organizationId}>,
 * "dataSignature","enclaveQuorumPublic"}`. HPKE as the session-key bundle (same suite,
 * `info`, AAD = enc ‖ client key, both uncompressed). In the sandbox `dataSignature` and
 * `enclaveQuorumPublic` are empty strings (clients skip attestation there); otherwise
 * `dataSignature` is a low-S DER ECDSA P-256 signature over SHA-256 of the `data` bytes
 * by `signingKey`, whose public key is `enclaveQuorumPublic`.
 *
 * Inputs are checked by the caller (a schema-valid `clientPublicKey`); a bad one throws.
 */
export const sealExportBundle = async (params: {
  readonly plaintext: Uint8Array
  readonly clientPublicKey: string
  readonly organizationId: string
  readonly randomBytes: RandomBytes
  /** Absent: the sandbox's empty attestation fields. */
  readonly signingKey?: P256KeyPair | undefined
}): Promise<string> => {
  const client = parsePublicKeyHex(params.clientPublicKey)
  if (client === undefined) throw new TypeError("clientPublicKey is not a P-256 public key")
  const { enc, ciphertext } = await hpkeSeal({
    recipientPublicKey: client.uncompressed,
    plaintext: params.plaintext,
    aad: (encapped) => concatBytes(encapped, client.uncompressed),
    ephemeralSeed: params.randomBytes(32)
  })
  const data = utf8(JSON.stringify({ encappedPublic: toHex(enc), ciphertext: toHex(ciphertext), organizationId: params.organizationId }))
  let dataSignature = ""
  let enclaveQuorumPublic = ""
  if (params.signingKey !== undefined) {
    const secret = fromHex(params.signingKey.privateKeyHex)
    if (secret === undefined) throw new TypeError("signingKey is not a P-256 private key")
    dataSignature = toHex(p256.sign(data, secret, { format: "der", lowS: true, prehash: true }))
    enclaveQuorumPublic = params.signingKey.publicKeyHex.toLowerCase()
  }
  return JSON.stringify({ version: "v1.0.0", data: toHex(data), dataSignature, enclaveQuorumPublic })
}
