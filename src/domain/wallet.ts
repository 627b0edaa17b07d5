/**
 * Embedded-wallet authentication (SPEC.md "Authentication", the reference file's
 * Embedded Wallet Auth): credentials (`AuthMethod`), sessions (`AuthSession`), the
 * two-leg signed-request challenge, and the bodies of the wallet's signed actions.
 * Field maximums: docs/limits.md (the general JSON bounds cap any text at 4,096).
 */
import { Schema } from "effect"
import { IdText, NamedLiterals, NamedStruct, NonEmptyTextUpTo, TextUpTo, Timestamps } from "./common.js"
import { MAX_DELEGATED_KEY_NICKNAME_LENGTH } from "./limits.js"
export { MAX_DELEGATED_KEY_NICKNAME_LENGTH } from "./limits.js"

export const AuthMethodType = NamedLiterals("AuthMethodType", ["OAUTH", "EMAIL_OTP", "SMS_OTP", "PASSKEY"])
export type AuthMethodType = typeof AuthMethodType.Type

/** A P-256 public key in SEC1 hex: compressed (66) or uncompressed (130). */
export const ClientPublicKey = Schema.String.check(
  Schema.isMaxLength(130),
  Schema.isPattern(/^(0[23][0-9a-fA-F]{64}|04[0-9a-fA-F]{128})$/, { message: "must be a P-256 public key in hex: 02/03 + 64 hex or 04 + 128 hex" })
)

/** An OIDC id token (decoded by the operation: a malformed one is 400 INVALID_INPUT). */
export const OidcToken = NonEmptyTextUpTo(4096)

export const PasskeyAttestation = NamedStruct("PasskeyAttestation", {
  credentialId: NonEmptyTextUpTo(1024),
  clientDataJson: NonEmptyTextUpTo(4096),
  attestationObject: NonEmptyTextUpTo(4096),
  transports: Schema.optionalKey(Schema.Array(Schema.Literals(["usb", "nfc", "ble", "internal", "hybrid"])).check(Schema.isMaxLength(5)))
})

export const PasskeyAssertion = NamedStruct("PasskeyAssertion", {
  credentialId: NonEmptyTextUpTo(1024),
  clientDataJson: NonEmptyTextUpTo(4096),
  authenticatorData: NonEmptyTextUpTo(4096),
  signature: NonEmptyTextUpTo(1024),
  userHandle: Schema.optionalKey(TextUpTo(1024))
})

const accountId = IdText

export const AuthCredentialCreateRequest = Schema.Union([
  NamedStruct("EmailOtpCredentialCreateRequest", { type: Schema.Literal("EMAIL_OTP"), accountId }),
  NamedStruct("SmsOtpCredentialCreateRequest", { type: Schema.Literal("SMS_OTP"), accountId }),
  NamedStruct("OauthCredentialCreateRequest", { type: Schema.Literal("OAUTH"), accountId, oidcToken: OidcToken }),
  NamedStruct("PasskeyCredentialCreateRequest", {
    type: Schema.Literal("PASSKEY"),
    accountId,
    nickname: NonEmptyTextUpTo(255),
    challenge: NonEmptyTextUpTo(1024),
    attestation: PasskeyAttestation
  })
]).annotate({ identifier: "AuthCredentialCreateRequestOneOf" })
export type AuthCredentialCreateRequest = typeof AuthCredentialCreateRequest.Type

export const AuthCredentialVerifyRequest = Schema.Union([
  NamedStruct("EmailOtpCredentialVerifyRequest", { type: Schema.Literal("EMAIL_OTP"), encryptedOtpBundle: NonEmptyTextUpTo(4096) }),
  NamedStruct("SmsOtpCredentialVerifyRequest", { type: Schema.Literal("SMS_OTP"), encryptedOtpBundle: NonEmptyTextUpTo(4096) }),
  NamedStruct("OauthCredentialVerifyRequest", { type: Schema.Literal("OAUTH"), oidcToken: OidcToken, clientPublicKey: ClientPublicKey }),
  NamedStruct("PasskeyCredentialVerifyRequest", { type: Schema.Literal("PASSKEY"), assertion: PasskeyAssertion })
]).annotate({ identifier: "AuthCredentialVerifyRequestOneOf" })
export type AuthCredentialVerifyRequest = typeof AuthCredentialVerifyRequest.Type

export const AuthCredentialChallengeRequest = NamedStruct("AuthCredentialChallengeRequest", {
  clientPublicKey: Schema.optionalKey(ClientPublicKey)
})

export const AuthSessionRefreshRequest = NamedStruct("AuthSessionRefreshRequest", { clientPublicKey: ClientPublicKey })

export const InternalAccountUpdateRequest = NamedStruct("InternalAccountUpdateRequest", { privateEnabled: Schema.optionalKey(Schema.Boolean) })

export const InternalAccountExportRequest = NamedStruct("InternalAccountExportRequest", { clientPublicKey: ClientPublicKey })

export const AuthMethod = NamedStruct("AuthMethod", {
  id: Schema.String,
  accountId: Schema.String,
  type: AuthMethodType,
  credentialId: Schema.optionalKey(Schema.String),
  nickname: Schema.String,
  ...Timestamps
})
export type AuthMethod = typeof AuthMethod.Type

export const AuthMethodResponse = NamedStruct("AuthMethodResponse", {
  ...AuthMethod.fields,
  otpEncryptionTargetBundle: Schema.optionalKey(Schema.String)
})
export type AuthMethodResponse = typeof AuthMethodResponse.Type

export const PasskeyAuthChallenge = NamedStruct("PasskeyAuthChallenge", {
  ...AuthMethod.fields,
  credentialId: Schema.String,
  challenge: Schema.String,
  requestId: Schema.String,
  expiresAt: Schema.String
})

export const AuthCredentialResponse = Schema.Union([PasskeyAuthChallenge, AuthMethodResponse])
  .annotate({ identifier: "AuthCredentialResponseOneOf" })

export const AuthCredentialListResponse = NamedStruct("AuthCredentialListResponse", { data: Schema.Array(AuthMethod) })

export const AuthSession = NamedStruct("AuthSession", {
  ...AuthMethod.fields,
  encryptedSessionSigningKey: Schema.optionalKey(Schema.String),
  expiresAt: Schema.String
})
export type AuthSession = typeof AuthSession.Type

export const SessionListResponse = NamedStruct("SessionListResponse", { data: Schema.Array(AuthSession) })

/** The first leg's answer (202): sign `payloadToSign`, retry with `Request-Id: <requestId>` before `expiresAt`. */
export const SignedRequestChallenge = NamedStruct("SignedRequestChallenge", {
  payloadToSign: Schema.String,
  requestId: Schema.String,
  expiresAt: Schema.String
})
export type SignedRequestChallenge = typeof SignedRequestChallenge.Type

export const AuthSignedRequestChallenge = NamedStruct("AuthSignedRequestChallenge", { ...SignedRequestChallenge.fields, type: AuthMethodType })

export const InternalAccountExportResponse = NamedStruct("InternalAccountExportResponse", { id: Schema.String, encryptedWalletCredentials: Schema.String })

// ---------------------------------------------------------------- delegated keys

/** PENDING (the signer exists, no policy yet: cannot sign), ACTIVE (may sign), REVOKED (deleted: never signs again). */
export const DelegatedKeyStatus = NamedLiterals("DelegatedKeyStatus", ["PENDING", "ACTIVE", "REVOKED"])
export type DelegatedKeyStatus = typeof DelegatedKeyStatus.Type

export const DelegatedKeyCreateRequest = NamedStruct("DelegatedKeyCreateRequest", {
  cardId: IdText,
  internalAccountId: IdText,
  nickname: NonEmptyTextUpTo(MAX_DELEGATED_KEY_NICKNAME_LENGTH)
})
export type DelegatedKeyCreateRequest = typeof DelegatedKeyCreateRequest.Type

/** A custodied signing key delegated for a card funding source backed by an embedded wallet (the private key is never shown). */
export const DelegatedKey = NamedStruct("DelegatedKey", {
  id: Schema.String,
  cardId: Schema.String,
  fundingSourceId: Schema.String,
  accountId: Schema.String,
  /** Compressed P-256 public key, hex. */
  publicKey: Schema.String,
  nickname: Schema.String,
  status: DelegatedKeyStatus,
  ...Timestamps
})
export type DelegatedKey = typeof DelegatedKey.Type

export const DelegatedKeyListResponse = NamedStruct("DelegatedKeyListResponse", { data: Schema.Array(DelegatedKey) })

/** Both 202 answers of `POST /auth/delegated-keys` (after the first leg and after the first signed retry). */
export const DelegatedKeySignedRequestChallenge = Schema.Struct(SignedRequestChallenge.fields)
  .annotate({ identifier: "DelegatedKeySignedRequestChallenge" })

/** The headers of a signed retry (the reference's `Grid-Wallet-Signature` is ours `Service-Wallet-Signature`). */
export const SignedRequestHeaders = {
  "service-wallet-signature": Schema.optionalKey(TextUpTo(4096)),
  "request-id": Schema.optionalKey(TextUpTo(255))
}
