/**
 * Embedded-wallet authentication (SPEC.md "Authentication", the reference file's
 * Embedded Wallet Auth): credentials (`AuthMethod`), sessions (`AuthSession`), the
 * two-leg signed-request challenge, and the bodies of the wallet's signed actions.
 * Field maximums: docs/limits.md (the general JSON bounds cap any text at 4,096).
 */
import { Schema } from "effect"
import { IdText, NonEmptyTextUpTo, TextUpTo, Timestamps } from "./common.js"
import { MAX_DELEGATED_KEY_NICKNAME_LENGTH } from "./limits.js"
export { MAX_DELEGATED_KEY_NICKNAME_LENGTH } from "./limits.js"

export const AuthMethodType = Schema.Literals(["OAUTH", "EMAIL_OTP", "SMS_OTP", "PASSKEY"]).annotate({ identifier: "AuthMethodType" })
export type AuthMethodType = typeof AuthMethodType.Type

/** A P-256 public key in SEC1 hex: compressed (66) or uncompressed (130). */
export const ClientPublicKey = Schema.String.check(
  Schema.isMaxLength(130),
  Schema.isPattern(/^(0[23][0-9a-fA-F]{64}|04[0-9a-fA-F]{128})$/, { message: "must be a P-256 public key in hex: 02/03 + 64 hex or 04 + 128 hex" })
)

/** An OIDC id token (decoded by the operation: a malformed one is 400 INVALID_INPUT). */
export const OidcToken = NonEmptyTextUpTo(4096)

export const PasskeyAttestation = Schema.Struct({
  credentialId: NonEmptyTextUpTo(1024),
  clientDataJson: NonEmptyTextUpTo(4096),
  attestationObject: NonEmptyTextUpTo(4096),
  transports: Schema.optionalKey(Schema.Array(Schema.Literals(["usb", "nfc", "ble", "internal", "hybrid"])).check(Schema.isMaxLength(5)))
}).annotate({ identifier: "PasskeyAttestation" })

export const PasskeyAssertion = Schema.Struct({
  credentialId: NonEmptyTextUpTo(1024),
  clientDataJson: NonEmptyTextUpTo(4096),
  authenticatorData: NonEmptyTextUpTo(4096),
  signature: NonEmptyTextUpTo(1024),
  userHandle: Schema.optionalKey(TextUpTo(1024))
}).annotate({ identifier: "PasskeyAssertion" })

const accountId = IdText

export const AuthCredentialCreateRequest = Schema.Union([
  Schema.Struct({ type: Schema.Literal("EMAIL_OTP"), accountId }).annotate({ identifier: "EmailOtpCredentialCreateRequest" }),
  Schema.Struct({ type: Schema.Literal("SMS_OTP"), accountId }).annotate({ identifier: "SmsOtpCredentialCreateRequest" }),
  Schema.Struct({ type: Schema.Literal("OAUTH"), accountId, oidcToken: OidcToken }).annotate({ identifier: "OauthCredentialCreateRequest" }),
  Schema.Struct({
    type: Schema.Literal("PASSKEY"),
    accountId,
    nickname: NonEmptyTextUpTo(255),
    challenge: NonEmptyTextUpTo(1024),
    attestation: PasskeyAttestation
  }).annotate({ identifier: "PasskeyCredentialCreateRequest" })
]).annotate({ identifier: "AuthCredentialCreateRequestOneOf" })
export type AuthCredentialCreateRequest = typeof AuthCredentialCreateRequest.Type

export const AuthCredentialVerifyRequest = Schema.Union([
  Schema.Struct({ type: Schema.Literal("EMAIL_OTP"), encryptedOtpBundle: NonEmptyTextUpTo(4096) })
    .annotate({ identifier: "EmailOtpCredentialVerifyRequest" }),
  Schema.Struct({ type: Schema.Literal("SMS_OTP"), encryptedOtpBundle: NonEmptyTextUpTo(4096) })
    .annotate({ identifier: "SmsOtpCredentialVerifyRequest" }),
  Schema.Struct({ type: Schema.Literal("OAUTH"), oidcToken: OidcToken, clientPublicKey: ClientPublicKey })
    .annotate({ identifier: "OauthCredentialVerifyRequest" }),
  Schema.Struct({ type: Schema.Literal("PASSKEY"), assertion: PasskeyAssertion }).annotate({ identifier: "PasskeyCredentialVerifyRequest" })
]).annotate({ identifier: "AuthCredentialVerifyRequestOneOf" })
export type AuthCredentialVerifyRequest = typeof AuthCredentialVerifyRequest.Type

export const AuthCredentialChallengeRequest = Schema.Struct({
  clientPublicKey: Schema.optionalKey(ClientPublicKey)
}).annotate({ identifier: "AuthCredentialChallengeRequest" })

export const AuthSessionRefreshRequest = Schema.Struct({ clientPublicKey: ClientPublicKey })
  .annotate({ identifier: "AuthSessionRefreshRequest" })

export const InternalAccountUpdateRequest = Schema.Struct({ privateEnabled: Schema.optionalKey(Schema.Boolean) })
  .annotate({ identifier: "InternalAccountUpdateRequest" })

export const InternalAccountExportRequest = Schema.Struct({ clientPublicKey: ClientPublicKey })
  .annotate({ identifier: "InternalAccountExportRequest" })

export const AuthMethod = Schema.Struct({
  id: Schema.String,
  accountId: Schema.String,
  type: AuthMethodType,
  credentialId: Schema.optionalKey(Schema.String),
  nickname: Schema.String,
  ...Timestamps
}).annotate({ identifier: "AuthMethod" })
export type AuthMethod = typeof AuthMethod.Type

export const AuthMethodResponse = Schema.Struct({
  ...AuthMethod.fields,
  otpEncryptionTargetBundle: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "AuthMethodResponse" })
export type AuthMethodResponse = typeof AuthMethodResponse.Type

export const PasskeyAuthChallenge = Schema.Struct({
  ...AuthMethod.fields,
  credentialId: Schema.String,
  challenge: Schema.String,
  requestId: Schema.String,
  expiresAt: Schema.String
}).annotate({ identifier: "PasskeyAuthChallenge" })

export const AuthCredentialResponse = Schema.Union([PasskeyAuthChallenge, AuthMethodResponse])
  .annotate({ identifier: "AuthCredentialResponseOneOf" })

export const AuthCredentialListResponse = Schema.Struct({ data: Schema.Array(AuthMethod) })
  .annotate({ identifier: "AuthCredentialListResponse" })

export const AuthSession = Schema.Struct({
  ...AuthMethod.fields,
  encryptedSessionSigningKey: Schema.optionalKey(Schema.String),
  expiresAt: Schema.String
}).annotate({ identifier: "AuthSession" })
export type AuthSession = typeof AuthSession.Type

export const SessionListResponse = Schema.Struct({ data: Schema.Array(AuthSession) }).annotate({ identifier: "SessionListResponse" })

/** The first leg's answer (202): sign `payloadToSign`, retry with `Request-Id: <requestId>` before `expiresAt`. */
export const SignedRequestChallenge = Schema.Struct({
  payloadToSign: Schema.String,
  requestId: Schema.String,
  expiresAt: Schema.String
}).annotate({ identifier: "SignedRequestChallenge" })
export type SignedRequestChallenge = typeof SignedRequestChallenge.Type

export const AuthSignedRequestChallenge = Schema.Struct({ ...SignedRequestChallenge.fields, type: AuthMethodType })
  .annotate({ identifier: "AuthSignedRequestChallenge" })

export const InternalAccountExportResponse = Schema.Struct({ id: Schema.String, encryptedWalletCredentials: Schema.String })
  .annotate({ identifier: "InternalAccountExportResponse" })

// ---------------------------------------------------------------- delegated keys

/** PENDING (the signer exists, no policy yet: cannot sign), ACTIVE (may sign), REVOKED (deleted: never signs again). */
export const DelegatedKeyStatus = Schema.Literals(["PENDING", "ACTIVE", "REVOKED"]).annotate({ identifier: "DelegatedKeyStatus" })
export type DelegatedKeyStatus = typeof DelegatedKeyStatus.Type

export const DelegatedKeyCreateRequest = Schema.Struct({
  cardId: IdText,
  internalAccountId: IdText,
  nickname: NonEmptyTextUpTo(MAX_DELEGATED_KEY_NICKNAME_LENGTH)
}).annotate({ identifier: "DelegatedKeyCreateRequest" })
export type DelegatedKeyCreateRequest = typeof DelegatedKeyCreateRequest.Type

/** A custodied signing key delegated for a card funding source backed by an embedded wallet (the private key is never shown). */
export const DelegatedKey = Schema.Struct({
  id: Schema.String,
  cardId: Schema.String,
  fundingSourceId: Schema.String,
  accountId: Schema.String,
  /** Compressed P-256 public key, hex. */
  publicKey: Schema.String,
  nickname: Schema.String,
  status: DelegatedKeyStatus,
  ...Timestamps
}).annotate({ identifier: "DelegatedKey" })
export type DelegatedKey = typeof DelegatedKey.Type

export const DelegatedKeyListResponse = Schema.Struct({ data: Schema.Array(DelegatedKey) }).annotate({ identifier: "DelegatedKeyListResponse" })

/** Both 202 answers of `POST /auth/delegated-keys` (after the first leg and after the first signed retry). */
export const DelegatedKeySignedRequestChallenge = Schema.Struct(SignedRequestChallenge.fields)
  .annotate({ identifier: "DelegatedKeySignedRequestChallenge" })

/** The headers of a signed retry (the reference's `Grid-Wallet-Signature` is ours `Service-Wallet-Signature`). */
export const SignedRequestHeaders = {
  "service-wallet-signature": Schema.optionalKey(TextUpTo(4096)),
  "request-id": Schema.optionalKey(TextUpTo(255))
}
