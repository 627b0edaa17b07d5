/**
 * Strong Customer Authentication and Contact Verification: the reference file's request
 * and response shapes (`ScaFactor*`, `ScaLogin*`, `RecordSecurityEvent*`,
 * `TwoFactorReset*`, `ScaAuthorization`, `ScaChallenge`, `ContactVerification*`), and
 * the state a customer's record keeps for them (docs/sca.md).
 */
import { Schema } from "effect"
import { maxChars, NamedLiterals, NamedStruct, NonEmpty } from "./common.js"

const Text = (max: number) => NonEmpty.check(maxChars(max))
const Opaque = Schema.Record(Schema.String, Schema.Unknown)
const nullable = <S extends Schema.Top>(s: S) => Schema.optionalKey(Schema.NullOr(s))

// ---------------------------------------------------------------- contact verification

export const ContactVerificationStatus = NamedLiterals("ContactVerificationStatus", ["PENDING", "VERIFIED"])
export type ContactVerificationStatus = typeof ContactVerificationStatus.Type

/** Present only for customers whose provider requires contact verification (SCA regions). */
export const ContactVerification = NamedStruct("ContactVerification", {
  email: Schema.optionalKey(ContactVerificationStatus),
  phone: Schema.optionalKey(ContactVerificationStatus)
})
export type ContactVerification = typeof ContactVerification.Type

export const ContactVerificationConfirmRequest = NamedStruct("ContactVerificationConfirmRequest", {
  code: Text(64)
})
export type ContactVerificationConfirmRequest = typeof ContactVerificationConfirmRequest.Type

// ---------------------------------------------------------------- factors

/** The factors, in the order the reference lists them (quote requests name one inline). */
export const SCA_FACTORS = ["SMS_OTP", "TOTP", "PASSKEY"] as const
export const ScaFactor = Schema.Literals(SCA_FACTORS).annotate({ identifier: "ScaFactor" })
export type ScaFactor = typeof ScaFactor.Type

export const ScaFactorView = NamedStruct("ScaFactorView", {
  factor: ScaFactor,
  credentialId: Schema.optionalKey(Schema.String),
  name: Schema.optionalKey(Schema.String)
})
export type ScaFactorView = typeof ScaFactorView.Type

export const ScaFactorList = NamedStruct("ScaFactorList", { factors: Schema.Array(ScaFactorView) })

export const ScaFactorEnrollRequest = Schema.Union([
  NamedStruct("TotpFactorEnrollRequest", { type: Schema.Literal("TOTP") }),
  NamedStruct("PasskeyFactorEnrollRequest", { type: Schema.Literal("PASSKEY") })
]).annotate({ identifier: "ScaFactorEnrollRequestOneOf" })
export type ScaFactorEnrollRequest = typeof ScaFactorEnrollRequest.Type

export const TotpEnrollmentStart = NamedStruct("TotpEnrollmentStart", {
  type: Schema.Literal("TOTP"),
  secret: Schema.String,
  secretBase32Encoded: Schema.String,
  totpUri: Schema.String
})

export const PasskeyEnrollmentStart = NamedStruct("PasskeyEnrollmentStart", {
  type: Schema.Literal("PASSKEY"),
  options: Opaque,
  allowedOrigins: Schema.Array(Schema.String),
  relyingPartyId: Schema.String
})

export const ScaFactorEnrollStart = Schema.Union([TotpEnrollmentStart, PasskeyEnrollmentStart])
  .annotate({ identifier: "ScaFactorEnrollStartOneOf" })
export type ScaFactorEnrollStart = typeof ScaFactorEnrollStart.Type

export const ScaFactorConfirmRequest = Schema.Union([
  NamedStruct("TotpEnrollmentConfirmRequest", { type: Schema.Literal("TOTP"), secret: Text(128), code: Text(64) }),
  NamedStruct("PasskeyEnrollmentConfirmRequest", { type: Schema.Literal("PASSKEY"), origin: Text(2048), credential: Opaque })
]).annotate({ identifier: "ScaFactorConfirmRequestOneOf" })
export type ScaFactorConfirmRequest = typeof ScaFactorConfirmRequest.Type

export const ScaFactorConfirmResponse = Schema.Union([
  NamedStruct("TotpEnrollmentConfirmResponse", { type: Schema.Literal("TOTP"), recoveryCodes: Schema.Array(Schema.String) }),
  NamedStruct("PasskeyEnrollmentConfirmResponse", { type: Schema.Literal("PASSKEY"), factor: ScaFactorView })
]).annotate({ identifier: "ScaFactorConfirmResponseOneOf" })
export type ScaFactorConfirmResponse = typeof ScaFactorConfirmResponse.Type

// ---------------------------------------------------------------- login

export const ScaLoginStartRequest = NamedStruct("ScaLoginStartRequest", { factor: ScaFactor })

export const ScaLoginStart = NamedStruct("ScaLoginStart", {
  factor: ScaFactor,
  challengeId: nullable(Schema.String),
  expiresAt: nullable(Schema.String),
  passkeyOptions: nullable(Opaque),
  allowedOrigins: nullable(Schema.Array(Schema.String)),
  relyingPartyId: nullable(Schema.String)
})
export type ScaLoginStart = typeof ScaLoginStart.Type

/** An IPv4 or IPv6 address as text (at most 45 characters, the longest IPv6 form). */
const IpAddress = Schema.String.check(
  Schema.isPattern(/^[0-9A-Fa-f.:]{2,45}$/, { message: "must be an IPv4 or IPv6 address" })
)

/** The proof fields an `ScaAuthorization` carries (`code`, or `passkeyAssertion` with `origin`). */
const proofFields = {
  code: nullable(Text(64)),
  passkeyAssertion: nullable(Opaque),
  origin: nullable(Text(2048))
}

export const ScaLoginCompleteRequest = NamedStruct("ScaLoginCompleteRequest", {
  factor: ScaFactor,
  endUserIpAddress: IpAddress,
  challengeId: nullable(Text(255)),
  ...proofFields
})
export type ScaLoginCompleteRequest = typeof ScaLoginCompleteRequest.Type

export const ScaLoginComplete = NamedStruct("ScaLoginComplete", {
  status: Schema.String,
  sessionExpiresAt: nullable(Schema.String)
})

// ---------------------------------------------------------------- security events

export const SecurityEventType = NamedLiterals("SecurityEventType", ["RESET_PASSWORD_COMPLETED", "FAILED_LOGIN_ATTEMPT"])

export const RecordSecurityEventRequest = NamedStruct("RecordSecurityEventRequest", { eventType: SecurityEventType })

export const RecordSecurityEventResponse = NamedStruct("RecordSecurityEventResponse", {
  eventType: SecurityEventType,
  suspended: Schema.Boolean,
  lockedUntil: nullable(Schema.String),
  failedAttempts: Schema.Number
})

// ---------------------------------------------------------------- 2FA reset

export const TwoFactorResetStartRequest = NamedStruct("TwoFactorResetStartRequest", { factor: ScaFactor })

export const TwoFactorResetStart = NamedStruct("TwoFactorResetStart", {
  resetId: Schema.String,
  livenessAccessToken: nullable(Schema.String),
  verificationLink: nullable(Schema.String),
  expiresAt: nullable(Schema.String)
})

export const TwoFactorResetStatusValue = Schema.Literals(["INITIATED", "PENDING_REVIEW", "LIVENESS_PASSED", "COMPLETED", "REJECTED", "EXPIRED"])

export const TwoFactorResetStatus = NamedStruct("TwoFactorResetStatus", {
  status: TwoFactorResetStatusValue,
  factor: ScaFactor,
  enrollmentStatus: nullable(Schema.Literals(["PENDING", "COMPLETED"])),
  expiresAt: Schema.String,
  completedAt: nullable(Schema.String)
})

export const TwoFactorResetCompleteRequest = NamedStruct("TwoFactorResetCompleteRequest", {
  mobile: Schema.optionalKey(Schema.Struct({
    countryCode: Schema.String.check(Schema.isPattern(/^\+[1-9][0-9]{0,3}$/, { message: "must be a dialing code such as +33" })),
    number: Schema.String.check(Schema.isPattern(/^[0-9]{4,14}$/, { message: "must be 4 to 14 digits" }))
  }))
})
export type TwoFactorResetCompleteRequest = typeof TwoFactorResetCompleteRequest.Type

// ---------------------------------------------------------------- quote authorization

export const ScaAuthorization = NamedStruct("ScaAuthorization", {
  ...proofFields,
  endUserIpAddress: nullable(IpAddress)
})
export type ScaAuthorization = typeof ScaAuthorization.Type

export const ScaChallenge = NamedStruct("ScaChallenge", {
  id: Schema.String,
  expiresAt: Schema.String,
  factor: ScaFactor,
  availableFactors: Schema.Array(ScaFactor),
  purpose: nullable(Schema.String),
  passkeyAssertionOptions: nullable(Opaque)
})
export type ScaChallenge = typeof ScaChallenge.Type

// ---------------------------------------------------------------- stored state

/** A one-time code as stored: its SHA-256 (hex), when it lapses and the wrong tries it took. */
export interface CodeChallenge {
  readonly codeHash: string
  readonly expiresAt: number
  readonly attempts: number
}

export interface LoginSecurity {
  readonly failedAttempts: number
  /** Epoch ms; the customer may try again after it (absent when not locked, or suspended). */
  readonly lockedUntil?: number | undefined
  readonly suspended: boolean
}

export interface TwoFactorResetState {
  readonly id: string
  readonly factor: ScaFactor
  readonly status: typeof TwoFactorResetStatusValue.Type
  readonly createdAt: number
  readonly expiresAt: number
  readonly completedAt?: number | undefined
}

/** A customer's SCA state, kept on the customer record (one document). Times are epoch ms. */
export interface ScaState {
  readonly totp?: { readonly secretHex: string; readonly enrolledAt: number; readonly recoveryCodeHashes: ReadonlyArray<string> } | undefined
  readonly pendingTotp?: { readonly secretHex: string; readonly expiresAt: number } | undefined
  readonly passkey?: {
    readonly credentialId: string
    readonly publicKey: string
    readonly counter: number
    readonly enrolledAt: number
  } | undefined
  readonly pendingPasskey?: { readonly challenge: string; readonly expiresAt: number } | undefined
  /** The login started and not completed yet. */
  readonly login?: {
    readonly factor: ScaFactor
    readonly challengeId?: string | undefined
    readonly code?: CodeChallenge | undefined
    readonly webauthnChallenge?: string | undefined
    readonly expiresAt: number
  } | undefined
  readonly sessionExpiresAt?: number | undefined
  readonly security?: LoginSecurity | undefined
  readonly resets?: ReadonlyArray<TwoFactorResetState> | undefined
  /** The SMS number enrolled by a completed SMS_OTP reset (E.164), replacing the customer's phone for SCA. */
  readonly smsNumber?: string | undefined
}

/** A quote's pending authorization challenge, kept on the quote record. */
export interface QuoteAuthorizationState {
  readonly id: string
  readonly factor: ScaFactor
  readonly code?: CodeChallenge | undefined
  readonly webauthnChallenge?: string | undefined
  readonly expiresAt: number
  readonly wrongCodes: number
  readonly sends: ReadonlyArray<number>
}
