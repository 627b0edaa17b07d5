/**
 * Verifies that a self-custody wallet signed an ownership challenge: EIP-191
 * `personal_sign` for EVM networks (signature recovers to the wallet's address) and
 * Ed25519 for Solana (signature over the UTF-8 message by the address's key).
 * Pure: bytes and strings in, a verdict out.
 */
import { ed25519 } from "@noble/curves/ed25519.js"
import { secp256k1 } from "@noble/curves/secp256k1.js"
import { keccak_256 } from "@noble/hashes/sha3.js"
import { base58Decode } from "./base58check.js"
import { concatBytes, fromHex, utf8 } from "./bytes.js"

export type OwnershipScheme = "EIP191" | "ED25519"

export type OwnershipVerdict =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: "malformed-signature" | "signature-mismatch" | "unsupported-network" }

const EVM = new Set(["BASE_WALLET", "ETHEREUM_WALLET", "POLYGON_WALLET", "PLASMA_WALLET", "ARBITRUM_WALLET"])

export const ownershipSchemeOf = (accountType: string): OwnershipScheme | undefined =>
  EVM.has(accountType) ? "EIP191" : accountType === "SOLANA_WALLET" ? "ED25519" : undefined

/** The EIP-191 digest of a `personal_sign` message. */
export const eip191Digest = (message: string): Uint8Array => {
  const body = utf8(message)
  return keccak_256(concatBytes(utf8(`\x19Ethereum Signed Message:\n${body.length}`), body))
}

/** The EVM address (lower-case, 0x-prefixed) of an uncompressed or compressed secp256k1 public key. */
export const evmAddressOf = (publicKey: Uint8Array): string => {
  const point = secp256k1.Point.fromBytes(publicKey)
  const uncompressed = point.toBytes(false).subarray(1)
  return `0x${Buffer.from(keccak_256(uncompressed).subarray(12)).toString("hex")}`
}

const verifyEip191 = (address: string, message: string, signature: string): OwnershipVerdict => {
  const sig = fromHex(signature.startsWith("0x") ? signature.slice(2) : signature)
  const v = sig?.length === 65 ? sig[64] : undefined
  if (sig === undefined || v === undefined) return { ok: false, reason: "malformed-signature" }
  const recovery = v >= 27 ? v - 27 : v
  if (recovery !== 0 && recovery !== 1) return { ok: false, reason: "malformed-signature" }
  const recovered = new Uint8Array(65)
  recovered[0] = recovery
  recovered.set(sig.subarray(0, 64), 1)
  try {
    const publicKey = secp256k1.recoverPublicKey(recovered, eip191Digest(message), { prehash: false })
    return evmAddressOf(publicKey) === address.toLowerCase() ? { ok: true } : { ok: false, reason: "signature-mismatch" }
  } catch {
    return { ok: false, reason: "signature-mismatch" }
  }
}

const verifyEd25519 = (address: string, message: string, signature: string): OwnershipVerdict => {
  const sig = base58Decode(signature)
  const key = base58Decode(address)
  if (sig === undefined || sig.length !== 64) return { ok: false, reason: "malformed-signature" }
  if (key === undefined || key.length !== 32) return { ok: false, reason: "signature-mismatch" }
  try {
    return ed25519.verify(sig, utf8(message), key) ? { ok: true } : { ok: false, reason: "signature-mismatch" }
  } catch {
    return { ok: false, reason: "signature-mismatch" }
  }
}

/** Did the wallet at `address` sign exactly `message`? */
export const verifyWalletOwnership = (
  accountType: string,
  address: string,
  message: string,
  signature: string
): OwnershipVerdict => {
  switch (ownershipSchemeOf(accountType)) {
    case "EIP191":
      return verifyEip191(address, message, signature)
    case "ED25519":
      return verifyEd25519(address, message, signature)
    case undefined:
      return { ok: false, reason: "unsupported-network" }
  }
}
