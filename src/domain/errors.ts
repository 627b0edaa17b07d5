/**
 * The API's error model. Every error body is `{ code, reason, message, details? }`:
 * SPEC.md's `code`, `reason` and `details` ("Errors"), plus the reference's `message`,
 * always the same text as `reason` (the vendor's SDK builds its error message from it;
 * docs/decisions.md). The HTTP status is carried by the class, one class per status, so
 * the generated OpenAPI lists each status with its own `code` enum.
 */
import { Schema } from "effect"

export const Error400Code = Schema.Literals([
  "INVALID_INPUT",
  "END_USER_TERMS_VERSION_NOT_FOUND",
  "MISSING_MANDATORY_USER_INFO",
  "INVITATION_ALREADY_CLAIMED",
  "INVITATIONS_NOT_CONFIGURED",
  "INVALID_UMA_ADDRESS",
  "INVITATION_CANCELLED",
  "QUOTE_REQUEST_FAILED",
  "INVALID_PAYREQ_RESPONSE",
  "INVALID_RECEIVER",
  "PARSE_PAYREQ_RESPONSE_ERROR",
  "CERT_CHAIN_INVALID",
  "CERT_CHAIN_EXPIRED",
  "INVALID_PUBKEY_FORMAT",
  "MISSING_REQUIRED_UMA_PARAMETERS",
  "SENDER_NOT_ACCEPTED",
  "AMOUNT_OUT_OF_RANGE",
  "INVALID_CURRENCY",
  "INVALID_TIMESTAMP",
  "INVALID_NONCE",
  "INVALID_REQUEST_FORMAT",
  "INVALID_BANK_ACCOUNT",
  "SELF_PAYMENT",
  "LOOKUP_REQUEST_FAILED",
  "PARSE_LNURLP_RESPONSE_ERROR",
  "INVALID_AMOUNT",
  "WEBHOOK_ENDPOINT_NOT_SET",
  "WEBHOOK_DELIVERY_ERROR",
  "EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS",
  "SMS_OTP_CREDENTIAL_ALREADY_EXISTS",
  "PASSKEY_CREDENTIAL_ALREADY_EXISTS",
  "CARDHOLDER_KYC_NOT_APPROVED",
  // Named by the reference's card operations (POST /cards, PATCH /cards/{id}), missing from its enum.
  "FUNDING_SOURCE_INELIGIBLE",
  "TRANSACTION_SIZE_LIMIT_EXCEEDED",
  "EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED",
  "INSUFFICIENT_FUNDS",
  "QUOTE_EXPIRED",
  "QUOTE_RATE_UNAVAILABLE",
  // document rejection codes
  "LOW_QUALITY",
  "DATA_MISMATCH",
  "EXPIRED",
  "SUSPECTED_FRAUD",
  "UNSUITABLE_DOCUMENT",
  "INCOMPLETE",
  // stablecoin codes
  "STABLECOIN_PROVIDER_ACCOUNT_INVALID",
  "STABLECOIN_PROVIDER_ACCOUNT_REVOKED",
  "STABLECOIN_PROVIDER_ACCOUNT_SELECTION_REQUIRED",
  "STABLECOIN_AMOUNT_NOT_REPRESENTABLE",
  "STABLECOIN_BURN_SOURCE_NOT_SUPPORTED",
  "STABLECOIN_EXTERNAL_ACCOUNT_LINK_FAILED",
  "STABLECOIN_EXTERNAL_ACCOUNT_LINK_METHOD_REQUIRED",
  "STABLECOIN_EXTERNAL_ACCOUNT_NOT_LINKED",
  "STABLECOIN_EXTERNAL_ACCOUNT_NOT_SUPPORTED",
  "STABLECOIN_EXTERNAL_ACCOUNT_PROVIDER_LINK_FAILED",
  "STABLECOIN_EXTERNAL_ACCOUNT_PROVIDER_LINK_REQUIRED",
  "STABLECOIN_SERVICE_OPERATIONS_NOT_ENABLED",
  "STABLECOIN_NOT_PROVISIONED",
  "STABLECOIN_OPERATION_NOT_SUPPORTED",
  "STABLECOIN_PROVIDER_ERROR",
  "STABLECOIN_PROVIDER_SOURCE_NOT_LINKED",
  "STABLECOIN_VERIFICATION_FAILED"
])
export type Error400Code = typeof Error400Code.Type

export const Error401Code = Schema.Literals([
  "UNAUTHORIZED",
  "INVALID_SIGNATURE",
  "WALLET_SIGNATURE_MISSING",
  "WALLET_SIGNATURE_MALFORMED",
  "WALLET_SIGNATURE_BODY_MISMATCH",
  "WALLET_SIGNATURE_INVALID",
  "REQUEST_ID_MISSING"
])
export type Error401Code = typeof Error401Code.Type

export const Error403Code = Schema.Literals([
  "FORBIDDEN",
  "USER_NOT_READY",
  "COUNTERPARTY_NOT_ALLOWED",
  "VELOCITY_LIMIT_EXCEEDED",
  "END_USER_TERMS_NOT_ACCEPTED"
])
export type Error403Code = typeof Error403Code.Type

export const Error404Code = Schema.Literals([
  "NOT_FOUND",
  "TRANSACTION_NOT_FOUND",
  "INVITATION_NOT_FOUND",
  "USER_NOT_FOUND",
  "QUOTE_NOT_FOUND",
  "LOOKUP_REQUEST_NOT_FOUND",
  "TOKEN_NOT_FOUND",
  "BULK_UPLOAD_JOB_NOT_FOUND",
  "REFERENCE_NOT_FOUND",
  "UMA_NOT_FOUND",
  "STABLECOIN_PROVIDER_ACCOUNT_NOT_FOUND"
])
export type Error404Code = typeof Error404Code.Type

export const Error409Code = Schema.Literals([
  "TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL",
  "TRANSACTION_NOT_CANCELLABLE",
  "UMA_ADDRESS_EXISTS",
  "EMAIL_OTP_EMAIL_ALREADY_EXISTS",
  "EMAIL_OTP_CREDENTIAL_SET_CHANGED",
  "PASSKEY_ALREADY_ENROLLED",
  "SCA_SESSION_REQUIRED",
  "BENEFICIARY_TRUSTED",
  "BANK_ACCOUNT_VALIDATION_PENDING",
  "INVALID_STATE_TRANSITION",
  "CARD_ALREADY_CLOSED",
  "CARD_NOT_MUTABLE",
  "CARD_LIMIT_REACHED",
  "STABLECOIN_GRID_ENABLEMENT_NOT_REQUESTABLE",
  "CONFLICT",
  "DOCUMENT_ALREADY_EXISTS",
  "DUPLICATE_EXTERNAL_ACCOUNT",
  "DUPLICATE_PAY_REQUEST",
  "SMS_OTP_CREDENTIAL_SET_CHANGED",
  "SMS_OTP_PHONE_NUMBER_ALREADY_EXISTS",
  "STABLECOIN_SYMBOL_ALREADY_EXISTS",
  "STABLECOIN_TOKEN_IDENTIFIER_ALREADY_EXISTS",
  "WALLET_NOT_PROVISIONED"
])
export type Error409Code = typeof Error409Code.Type

export const Error410Code = Schema.Literals(["CUSTOMER_DELETED"])
export type Error410Code = typeof Error410Code.Type

export const Error423Code = Schema.Literals(["ACCOUNT_LOCKED"])
export type Error423Code = typeof Error423Code.Type

export const Error429Code = Schema.Literals(["RATE_LIMITED", "DAILY_VOLUME_LIMIT_EXCEEDED"])
export type Error429Code = typeof Error429Code.Type

export const Error500Code = Schema.Literals(["SERVICE_SWITCH_ERROR", "INTERNAL_ERROR"])
export type Error500Code = typeof Error500Code.Type

export const Error503Code = Schema.Literals(["SERVICE_UNAVAILABLE"])
export type Error503Code = typeof Error503Code.Type

export const Error501Code = Schema.Literals(["NOT_IMPLEMENTED", "UNRECOGNIZED_MANDATORY_PAYEE_DATA_KEY"])
export type Error501Code = typeof Error501Code.Type

/** One entry of `details.errors[]` on a field-validation failure. */
export const FieldError = Schema.Struct({
  field: Schema.String,
  constraint: Schema.String,
  message: Schema.String
})
export type FieldError = typeof FieldError.Type

/** `details` is free-form (additional properties allowed); field errors live under `errors`. */
export const ErrorDetails = Schema.Record(Schema.String, Schema.Unknown)
export type ErrorDetails = typeof ErrorDetails.Type

const errorFields = <C extends Schema.Top>(code: C) => ({
  code,
  reason: Schema.String,
  /** The reference's name for the same text (always equal to `reason`). */
  message: Schema.String,
  details: Schema.optionalKey(ErrorDetails)
})

/** What an error is built from: `message` is `reason` unless given (a decoded body carries it). */
type ErrorProps<C> = {
  readonly code: C
  readonly reason: string
  readonly message?: string | undefined
  readonly details?: ErrorDetails | undefined
}

const withMessage = <C>(props: ErrorProps<C>): { code: C; reason: string; message: string; details?: ErrorDetails } => ({
  code: props.code,
  reason: props.reason,
  message: props.message ?? props.reason,
  ...(props.details === undefined ? {} : { details: props.details })
})

export class Error400 extends Schema.Error<Error400>("Error400")(errorFields(Error400Code), {
  httpApiStatus: 400,
  description: "Bad request"
}) {
  constructor(props: ErrorProps<Error400Code>, options?: Schema.MakeOptions) {
    super(withMessage(props), options)
  }
}
export class Error401 extends Schema.Error<Error401>("Error401")(errorFields(Error401Code), {
  httpApiStatus: 401,
  description: "Unauthorized"
}) {
  constructor(props: ErrorProps<Error401Code>, options?: Schema.MakeOptions) {
    super(withMessage(props), options)
  }
}
export class Error403 extends Schema.Error<Error403>("Error403")(errorFields(Error403Code), {
  httpApiStatus: 403,
  description: "Forbidden"
}) {
  constructor(props: ErrorProps<Error403Code>, options?: Schema.MakeOptions) {
    super(withMessage(props), options)
  }
}
export class Error404 extends Schema.Error<Error404>("Error404")(errorFields(Error404Code), {
  httpApiStatus: 404,
  description: "Not found"
}) {
  constructor(props: ErrorProps<Error404Code>, options?: Schema.MakeOptions) {
    super(withMessage(props), options)
  }
}
export class Error409 extends Schema.Error<Error409>("Error409")(errorFields(Error409Code), {
  httpApiStatus: 409,
  description: "Conflict"
}) {
  constructor(props: ErrorProps<Error409Code>, options?: Schema.MakeOptions) {
    super(withMessage(props), options)
  }
}
export class Error410 extends Schema.Error<Error410>("Error410")(errorFields(Error410Code), {
  httpApiStatus: 410,
  description: "Gone"
}) {
  constructor(props: ErrorProps<Error410Code>, options?: Schema.MakeOptions) {
    super(withMessage(props), options)
  }
}
export class Error423 extends Schema.Error<Error423>("Error423")(errorFields(Error423Code), {
  httpApiStatus: 423,
  description: "Locked: the customer's SCA login is locked (details.lockedUntil, details.failedAttempts, details.suspended)"
}) {
  constructor(props: ErrorProps<Error423Code>, options?: Schema.MakeOptions) {
    super(withMessage(props), options)
  }
}
export class Error429 extends Schema.Error<Error429>("Error429")(errorFields(Error429Code), {
  httpApiStatus: 429,
  description: "Too many requests"
}) {
  constructor(props: ErrorProps<Error429Code>, options?: Schema.MakeOptions) {
    super(withMessage(props), options)
  }
}
export class Error500 extends Schema.Error<Error500>("Error500")(errorFields(Error500Code), {
  httpApiStatus: 500,
  description: "Internal service error"
}) {
  constructor(props: ErrorProps<Error500Code>, options?: Schema.MakeOptions) {
    super(withMessage(props), options)
  }
}
export class Error503 extends Schema.Error<Error503>("Error503")(errorFields(Error503Code), {
  httpApiStatus: 503,
  description: "Service unavailable: nothing was applied; retry"
}) {
  constructor(props: ErrorProps<Error503Code>, options?: Schema.MakeOptions) {
    super(withMessage(props), options)
  }
}
export class Error501 extends Schema.Error<Error501>("Error501")(errorFields(Error501Code), {
  httpApiStatus: 501,
  description: "Not implemented"
}) {
  constructor(props: ErrorProps<Error501Code>, options?: Schema.MakeOptions) {
    super(withMessage(props), options)
  }
}

/** Any error the API can answer with. */
export type ApiError = Error400 | Error401 | Error403 | Error404 | Error409 | Error410 | Error423 | Error429 | Error500 | Error501 | Error503

/** Every error class with its HTTP status (the same status its schema carries). */
export const API_ERRORS = [
  [Error400, 400],
  [Error401, 401],
  [Error403, 403],
  [Error404, 404],
  [Error409, 409],
  [Error410, 410],
  [Error423, 423],
  [Error429, 429],
  [Error500, 500],
  [Error501, 501],
  [Error503, 503]
] as const

/** The HTTP status of an API error, or undefined for anything else. */
export const apiErrorStatus = (u: unknown): number | undefined => {
  for (const [cls, status] of API_ERRORS) if (u instanceof cls) return status
  return undefined
}

/** An API error as it goes on the wire: its status and its encoded `{ code, reason, message, details? }`. */
export const encodeApiError = (error: ApiError): { readonly status: number; readonly body: unknown } | undefined => {
  for (const [cls, status] of API_ERRORS) {
    if (error instanceof cls) {
      const encoded = Schema.encodeUnknownExit(cls)(error)
      return encoded._tag === "Success" ? { status, body: encoded.value } : undefined
    }
  }
  return undefined
}

type Details = { readonly details?: ErrorDetails }

export const invalidInput = (reason: string, errors?: ReadonlyArray<FieldError>): Error400 =>
  new Error400(errors === undefined ? { code: "INVALID_INPUT", reason } : {
    code: "INVALID_INPUT",
    reason,
    details: { errors }
  })

export const badRequest = (code: Error400Code, reason: string, extra?: Details): Error400 =>
  new Error400({ code, reason, ...extra })

export const unauthorized = (reason: string, code: Error401Code = "UNAUTHORIZED"): Error401 =>
  new Error401({ code, reason })

export const forbidden = (reason: string, code: Error403Code = "FORBIDDEN"): Error403 =>
  new Error403({ code, reason })

export const notFound = (reason: string, code: Error404Code = "NOT_FOUND"): Error404 =>
  new Error404({ code, reason })

export const conflict = (code: Error409Code, reason: string, extra?: Details): Error409 =>
  new Error409({ code, reason, ...extra })

export const locked = (reason: string, extra?: Details): Error423 => new Error423({ code: "ACCOUNT_LOCKED", reason, ...extra })

export const tooMany = (code: Error429Code, reason: string, extra?: Details): Error429 =>
  new Error429({ code, reason, ...extra })

export const internalError = (reason: string): Error500 => new Error500({ code: "INTERNAL_ERROR", reason })

export const unavailable = (reason: string): Error503 => new Error503({ code: "SERVICE_UNAVAILABLE", reason })

export const gone = (reason: string): Error410 => new Error410({ code: "CUSTOMER_DELETED", reason })

/** Every error code the API can answer with (each belongs to exactly one status's list above). */
export type ErrorCode =
  | Error400Code
  | Error401Code
  | Error403Code
  | Error404Code
  | Error409Code
  | Error410Code
  | Error423Code
  | Error429Code
  | Error500Code
  | Error501Code
  | Error503Code
