/** The embedded-wallets part of the Store port (see ./store.ts). */
import type { Effect } from "effect"

/**
 * Embedded-wallet records (docs/embedded-wallets.md), one table of documents keyed by
 * `(platformId, kind, id)`, found by wallet account or by a lookup key. Uniqueness
 * rules (one EMAIL_OTP per account, an email tied to one credential, one passkey per
 * customer) are checked by the operations inside a unit of work, which is serializable.
 */
export type WalletRecordKind = "credential" | "session" | "request" | "rate" | "serverKey" | "delegatedKey"

interface WalletRecordBase {
  readonly platformId: string
  readonly id: string
  /** The EMBEDDED_WALLET internal account the record belongs to ("" for platform-wide records). */
  readonly accountId: string
  /** A secondary key (an email, a phone number, a passkey credential id), unique where the rules say so. */
  readonly lookupKey?: string | undefined
}

export interface AuthCredentialRecord extends WalletRecordBase {
  readonly kind: "credential"
  readonly customerId: string
  readonly type: "EMAIL_OTP" | "SMS_OTP" | "OAUTH" | "PASSKEY"
  readonly nickname: string
  /** PASSKEY: base64url WebAuthn credential id, its public key (SEC1 hex) and counter. */
  readonly passkey?: { readonly credentialId: string; readonly publicKey: string; readonly counter: number; readonly transports?: ReadonlyArray<string> | undefined } | undefined
  /** OAUTH: the identity triple. */
  readonly oidc?: { readonly iss: string; readonly aud: string; readonly sub: string } | undefined
  readonly createdAt: string
  readonly updatedAt: string
}

export interface AuthSessionRecord extends WalletRecordBase {
  readonly kind: "session"
  /** The AuthMethod the session was issued for. */
  readonly credentialId: string
  readonly type: AuthCredentialRecord["type"]
  readonly nickname: string
  /** The session API public key (compressed SEC1 hex). */
  readonly publicKey: string
  readonly createdAt: string
  readonly updatedAt: string
  /** Epoch milliseconds. */
  readonly expiresAt: number
  readonly revoked: boolean
}

/** A challenge issued by a first leg (or by a credential challenge), good for one retry until `expiresAt`. */
export interface WalletRequestRecord extends WalletRecordBase {
  readonly kind: "request"
  /** What the challenge is for, e.g. `DELETE /auth/credentials/{id}` or `OTP_CHALLENGE`. */
  readonly action: string
  /** The AuthMethod it concerns, when it concerns one. */
  readonly credentialId?: string | undefined
  /** SHA-256 of the canonical request the first leg bound. */
  readonly fingerprint: string
  readonly payloadToSign: string
  readonly expiresAt: number
  readonly used: boolean
  /** The EMAIL_OTP and SMS_OTP credential ids when the challenge was issued. */
  readonly emailOtpSet: ReadonlyArray<string>
  readonly smsOtpSet: ReadonlyArray<string>
  /** Keys that may sign the retry when they are not session keys (the OTP login's TEK). */
  readonly signerKeys?: ReadonlyArray<string> | undefined
  /** OTP challenges: the HPKE target key pair (private hex) and the client key it was issued for. */
  readonly targetPrivateKeyHex?: string | undefined
  readonly clientPublicKey?: string | undefined
  /** OTP challenges outside the sandbox: the code that was issued. */
  readonly otpCode?: string | undefined
  /** PASSKEY challenges: the WebAuthn challenge as the client data carries it. */
  readonly webauthnChallenge?: string | undefined
  /**
   * Multi-leg signed flows: the signed retry that answers this challenge (2 for a first
   * leg's challenge, the default; 3 for the challenge the first signed retry answered).
   */
  readonly leg?: number | undefined
  /** What the signature over this challenge authorizes beyond the request, bound into `payloadToSign`. */
  readonly context?: Readonly<Record<string, string>> | undefined
  /** Server-side material the next leg needs, never shown (dropped once the challenge is used). */
  readonly kept?: Readonly<Record<string, string>> | undefined
  readonly createdAt: number
}

/** Attempts in the current window, per credential and endpoint. */
export interface WalletRateRecord extends WalletRecordBase {
  readonly kind: "rate"
  readonly windowStart: number
  readonly count: number
}

/** A server key of the platform's wallet flows (the OTP target-bundle signing key). */
export interface WalletServerKeyRecord extends WalletRecordBase {
  readonly kind: "serverKey"
  readonly privateKeyHex: string
}

/**
 * A delegated signing key (`POST /auth/delegated-keys`): `accountId` is the embedded
 * wallet, `lookupKey` the card funding source (`CardFundingSource:<uuid>`) it signs for.
 */
export interface DelegatedKeyRecord extends WalletRecordBase {
  readonly kind: "delegatedKey"
  readonly lookupKey: string
  readonly cardId: string
  /** Compressed SEC1 hex. */
  readonly publicKey: string
  /** The custodied private key (hex): never returned. */
  readonly privateKeyHex: string
  readonly nickname: string
  readonly status: "PENDING" | "ACTIVE" | "REVOKED"
  readonly createdAt: string
  readonly updatedAt: string
}

export type WalletRecord = AuthCredentialRecord | AuthSessionRecord | WalletRequestRecord | WalletRateRecord | WalletServerKeyRecord | DelegatedKeyRecord
export type WalletRecordOf<K extends WalletRecordKind> = Extract<WalletRecord, { readonly kind: K }>

export interface WalletRepository {
  readonly get: <K extends WalletRecordKind>(platformId: string, kind: K, id: string) => Effect.Effect<WalletRecordOf<K> | undefined>
  /** The account's records of a kind, oldest first. */
  readonly byAccount: <K extends WalletRecordKind>(platformId: string, kind: K, accountId: string) => Effect.Effect<ReadonlyArray<WalletRecordOf<K>>>
  /** The platform's records of a kind with this lookup key. */
  readonly byLookup: <K extends WalletRecordKind>(platformId: string, kind: K, lookupKey: string) => Effect.Effect<ReadonlyArray<WalletRecordOf<K>>>
}

export interface WalletWrites {
  /** Writes an embedded-wallet record (insert or replace by `(platformId, kind, id)`). */
  readonly putWalletRecord: (record: WalletRecord) => Effect.Effect<void>
  readonly deleteWalletRecord: (platformId: string, kind: WalletRecordKind, id: string) => Effect.Effect<void>
}
