/**
 * Sandbox magic values (SPEC.md, Authentication rule 9). Each is honoured only when a
 * verifier is called with `sandbox: true`; production never consults them.
 */

/** The OTP code the sandbox expects: six zeros. The HPKE bundle is still opened for real. */
export const SANDBOX_OTP_CODE = "000000"

/**
 * Legacy fixed `Service-Wallet-Signature` header value. Early sandbox clients sent this
 * instead of a stamp; it is compared with the whole header value, before any decoding.
 */
export const SANDBOX_LEGACY_WALLET_SIGNATURE = "sandbox-legacy-wallet-signature"

/**
 * Legacy fixed passkey assertion `signature` value. It replaces only the signature
 * check: credential id, challenge, origin, RP id, flags and counter are still verified.
 */
export const SANDBOX_LEGACY_PASSKEY_SIGNATURE = "sandbox-legacy-passkey-signature"

/** The former fixed sandbox OIDC token. No longer accepted anywhere (it gets its own reason). */
export const SANDBOX_FORMER_OIDC_TOKEN = "sandbox-oidc-token"
