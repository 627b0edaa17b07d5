/**
 * Every size, count, length and time limit of requests, in one module: the schemas, the
 * HTTP layer and the operations read them from here, and the "Limit constants" table of
 * docs/limits.md is generated from `LIMITS` (test/domain/limits.test.ts keeps it in
 * step). Where the reference file or SPEC.md gives a value, it is used; the others are
 * ours. Plain numbers only: this module imports nothing.
 */

const KIB = 1024
const MIB = 1024 * KIB
const DAY_SECONDS = 86_400

// ---------------------------------------------------------------- request bodies

/** Largest JSON body accepted. */
export const MAX_JSON_BODY_BYTES = 1 * MIB
/** The reference file's limit on an uploaded document: "PDF, JPEG, or PNG, max 10 MB". */
export const MAX_DOCUMENT_BYTES = 10 * MIB
/** Largest multipart body accepted (document uploads): the 10 MB file plus its form. */
export const MAX_MULTIPART_BODY_BYTES = 11 * MIB
/**
 * The multipart parser's limits for a form carrying one file of at most `maxFileBytes`:
 * they bound memory (the file a little over its maximum, small text fields, a handful of
 * parts); the exact byte rule is the form reader's.
 */
const formLimits = (maxFileBytes: number) => ({
  maxFileSize: maxFileBytes + 64 * KIB,
  maxFieldSize: 64 * KIB,
  maxParts: 16,
  maxTotalSize: maxFileBytes + 1 * MIB
}) as const
/** The document upload form's limits (the exact 10 MB rule is rules/documents.ts's). */
export const DOCUMENT_FORM_LIMITS = formLimits(MAX_DOCUMENT_BYTES)

/**
 * Bounds every JSON body has, whatever its schema says (a field's own limit may be
 * smaller): no string longer than `MAX_TEXT_LENGTH`, no array longer than
 * `MAX_ARRAY_ITEMS`, nothing nested deeper than `MAX_JSON_DEPTH`.
 */
export const MAX_TEXT_LENGTH = 4096
export const MAX_ARRAY_ITEMS = 1000
export const MAX_JSON_DEPTH = 32
/**
 * At most this many field errors are listed in one answer; the rest are counted in
 * `details.omittedErrors`, so a body of many bad elements cannot make a huge answer.
 */
export const MAX_FIELD_ERRORS = 100

// ---------------------------------------------------------------- fields

/** The defaults where neither the reference file nor SPEC.md gives a field its maximum. */
export const MAX_NAME_LENGTH = 255
export const MAX_ADDRESS_LINE_LENGTH = 255
export const MAX_ID_LENGTH = 255
export const MAX_DESCRIPTION_LENGTH = 1000
/** An email address (RFC 5321's path limit). */
export const MAX_EMAIL_LENGTH = 254
/** A phone number as free text (E.164 has at most 15 digits; room for spaces and punctuation). */
export const MAX_PHONE_LENGTH = 32
/** A list of ISO 3166-1 countries: there are 249 codes. */
export const MAX_COUNTRIES = 250
/** The longest postal code accepted (real ones are at most 10 characters). */
export const MAX_POSTAL_CODE_LENGTH = 32
/** A UMA address (`$name@domain`). */
export const MAX_UMA_ADDRESS_LENGTH = 255
/**
 * BOLT11 invoices and BOLT12 offers have no maximum of their own (route hints make them
 * long): the general text bound, stated.
 */
export const MAX_LIGHTNING_REQUEST_LENGTH = 4096
/** A card's 3-D Secure password: our bound. */
export const MAX_3DS_PASSWORD_LENGTH = 64
/** A simulated card transaction's merchant descriptor and place: our bounds. */
export const MAX_MERCHANT_DESCRIPTOR_LENGTH = 255
export const MAX_MERCHANT_PLACE_LENGTH = 100
/** A delegated key's nickname: the reference's bound. */
export const MAX_DELEGATED_KEY_NICKNAME_LENGTH = 256
/** An agent's name: our bound (the reference gives none). */
export const MAX_AGENT_NAME_LENGTH = 255
/** A rejection reason: our bound. */
export const MAX_AGENT_REJECTION_REASON_LENGTH = 1000
/** Accounts an agent may be restricted to, and per-account rules: our bound. */
export const MAX_AGENT_ACCOUNTS = 100
/** The largest amount limit: the largest integer JSON carries exactly. */
export const MAX_AGENT_AMOUNT = Number.MAX_SAFE_INTEGER
/** Provider credentials and ids: our bound (the reference gives none). */
export const MAX_PROVIDER_CREDENTIAL_LENGTH = 255
/** A provider token identifier (Brale `value_type`): letters, digits, `_` and `-`, our bound. */
export const MAX_PROVIDER_TOKEN_IDENTIFIER_LENGTH = 64
/** A Spark token identifier (bech32m, `btkn1…`): our bound. */
export const MAX_NETWORK_TOKEN_IDENTIFIER_LENGTH = 128
/** The reference's `description` bound on mint and burn requests. */
export const MAX_OPERATION_DESCRIPTION_LENGTH = 1024
/** The longest amount string accepted: 38 digits (the rules then check the token precision and range). */
export const MAX_STABLECOIN_AMOUNT_DIGITS = 38

// ---------------------------------------------------------------- lists

/** `limit` of a list: 1 to this, `DEFAULT_PAGE_LIMIT` when absent. */
export const MAX_PAGE_LIMIT = 100
export const DEFAULT_PAGE_LIMIT = 20
/** The longest `cursor` a list accepts (the cursors it issues are far shorter). */
export const MAX_CURSOR_LENGTH = 512

// ---------------------------------------------------------------- idempotency

/** The longest `Idempotency-Key` accepted (the reference file's limit on the keys it bounds). */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255
/** How long a key is remembered, on the platform's clock: 24 hours. */
export const IDEMPOTENCY_TTL_MILLIS = DAY_SECONDS * 1000

// ---------------------------------------------------------------- bulk customer upload

/** The largest CSV file `POST /customers/bulk/csv` accepts: our bound (the reference gives none). */
export const MAX_BULK_CSV_BYTES = 2 * MIB
/** The most customer rows one CSV file may hold (the header row not counted): our bound. */
export const MAX_BULK_CSV_ROWS = 5000
/** The CSV upload form's limits (the exact MAX_BULK_CSV_BYTES rule is the form reader's). */
export const BULK_CSV_FORM_LIMITS = formLimits(MAX_BULK_CSV_BYTES)
/** Rows one scheduler step of a bulk job creates (each in its own savepoint): bounded work per step. */
export const BULK_ROWS_PER_STEP = 100
/** Platform-clock time between two steps of a bulk job (the first step comes this long after the upload). */
export const BULK_STEP_SECONDS = 1
/** At most this many per-row errors are kept on a job (the `failed` count keeps counting). */
export const MAX_BULK_JOB_ERRORS = 1000

// ---------------------------------------------------------------- sandbox clock

/** The longest one sandbox clock advance may move a clock: 365 days. */
export const MAX_ADVANCE_SECONDS = 365 * DAY_SECONDS
/** How far ahead of real time a sandbox clock may be, in all. */
export const MAX_OFFSET_MILLIS = 10 * 366 * DAY_SECONDS * 1000

/** One row of the docs table: a limit, its value, and what it bounds. */
export interface LimitEntry {
  readonly name: string
  readonly value: number
  readonly unit: "bytes" | "characters" | "items" | "levels" | "errors" | "parts" | "seconds" | "ms" | "digits"
  readonly bounds: string
}

/** Every limit above, for docs/limits.md's "Limit constants" table. */
export const LIMITS: ReadonlyArray<LimitEntry> = [
  { name: "MAX_JSON_BODY_BYTES", value: MAX_JSON_BODY_BYTES, unit: "bytes", bounds: "a JSON request body" },
  { name: "MAX_MULTIPART_BODY_BYTES", value: MAX_MULTIPART_BODY_BYTES, unit: "bytes", bounds: "a multipart request body (document upload)" },
  { name: "MAX_DOCUMENT_BYTES", value: MAX_DOCUMENT_BYTES, unit: "bytes", bounds: "an uploaded document" },
  { name: "DOCUMENT_FORM_LIMITS.maxParts", value: DOCUMENT_FORM_LIMITS.maxParts, unit: "parts", bounds: "parts of a multipart form" },
  { name: "DOCUMENT_FORM_LIMITS.maxFieldSize", value: DOCUMENT_FORM_LIMITS.maxFieldSize, unit: "bytes", bounds: "a text field of a multipart form" },
  { name: "MAX_TEXT_LENGTH", value: MAX_TEXT_LENGTH, unit: "characters", bounds: "any text in a JSON body (values and keys)" },
  { name: "MAX_ARRAY_ITEMS", value: MAX_ARRAY_ITEMS, unit: "items", bounds: "any array in a JSON body" },
  { name: "MAX_JSON_DEPTH", value: MAX_JSON_DEPTH, unit: "levels", bounds: "nesting of a JSON body" },
  { name: "MAX_FIELD_ERRORS", value: MAX_FIELD_ERRORS, unit: "errors", bounds: "field errors listed in one 400" },
  { name: "MAX_NAME_LENGTH", value: MAX_NAME_LENGTH, unit: "characters", bounds: "a name without a limit of its own" },
  { name: "MAX_ADDRESS_LINE_LENGTH", value: MAX_ADDRESS_LINE_LENGTH, unit: "characters", bounds: "an address line" },
  { name: "MAX_ID_LENGTH", value: MAX_ID_LENGTH, unit: "characters", bounds: "an id in a path, query or body" },
  { name: "MAX_DESCRIPTION_LENGTH", value: MAX_DESCRIPTION_LENGTH, unit: "characters", bounds: "a description without a limit of its own" },
  { name: "MAX_EMAIL_LENGTH", value: MAX_EMAIL_LENGTH, unit: "characters", bounds: "an email address" },
  { name: "MAX_PHONE_LENGTH", value: MAX_PHONE_LENGTH, unit: "characters", bounds: "a phone number as free text" },
  { name: "MAX_COUNTRIES", value: MAX_COUNTRIES, unit: "items", bounds: "a list of countries" },
  { name: "MAX_POSTAL_CODE_LENGTH", value: MAX_POSTAL_CODE_LENGTH, unit: "characters", bounds: "a postal code" },
  { name: "MAX_UMA_ADDRESS_LENGTH", value: MAX_UMA_ADDRESS_LENGTH, unit: "characters", bounds: "a UMA address" },
  { name: "MAX_LIGHTNING_REQUEST_LENGTH", value: MAX_LIGHTNING_REQUEST_LENGTH, unit: "characters", bounds: "a Lightning invoice" },
  { name: "MAX_3DS_PASSWORD_LENGTH", value: MAX_3DS_PASSWORD_LENGTH, unit: "characters", bounds: "a card's 3-D Secure password" },
  { name: "MAX_MERCHANT_DESCRIPTOR_LENGTH", value: MAX_MERCHANT_DESCRIPTOR_LENGTH, unit: "characters", bounds: "a simulated merchant descriptor" },
  { name: "MAX_MERCHANT_PLACE_LENGTH", value: MAX_MERCHANT_PLACE_LENGTH, unit: "characters", bounds: "a simulated merchant city or place" },
  { name: "MAX_DELEGATED_KEY_NICKNAME_LENGTH", value: MAX_DELEGATED_KEY_NICKNAME_LENGTH, unit: "characters", bounds: "a delegated key's nickname" },
  { name: "MAX_AGENT_NAME_LENGTH", value: MAX_AGENT_NAME_LENGTH, unit: "characters", bounds: "an agent's name" },
  { name: "MAX_AGENT_REJECTION_REASON_LENGTH", value: MAX_AGENT_REJECTION_REASON_LENGTH, unit: "characters", bounds: "an agent action's rejection reason" },
  { name: "MAX_AGENT_ACCOUNTS", value: MAX_AGENT_ACCOUNTS, unit: "items", bounds: "accounts and per-account rules of an agent policy" },
  { name: "MAX_PROVIDER_CREDENTIAL_LENGTH", value: MAX_PROVIDER_CREDENTIAL_LENGTH, unit: "characters", bounds: "stablecoin provider credentials and ids" },
  { name: "MAX_PROVIDER_TOKEN_IDENTIFIER_LENGTH", value: MAX_PROVIDER_TOKEN_IDENTIFIER_LENGTH, unit: "characters", bounds: "a provider token identifier" },
  { name: "MAX_NETWORK_TOKEN_IDENTIFIER_LENGTH", value: MAX_NETWORK_TOKEN_IDENTIFIER_LENGTH, unit: "characters", bounds: "a network token identifier" },
  { name: "MAX_OPERATION_DESCRIPTION_LENGTH", value: MAX_OPERATION_DESCRIPTION_LENGTH, unit: "characters", bounds: "a mint or burn description" },
  { name: "MAX_STABLECOIN_AMOUNT_DIGITS", value: MAX_STABLECOIN_AMOUNT_DIGITS, unit: "digits", bounds: "a stablecoin amount string" },
  { name: "MAX_PAGE_LIMIT", value: MAX_PAGE_LIMIT, unit: "items", bounds: "`limit` of a list" },
  { name: "DEFAULT_PAGE_LIMIT", value: DEFAULT_PAGE_LIMIT, unit: "items", bounds: "a list page without `limit`" },
  { name: "MAX_CURSOR_LENGTH", value: MAX_CURSOR_LENGTH, unit: "characters", bounds: "`cursor` of a list" },
  { name: "MAX_IDEMPOTENCY_KEY_LENGTH", value: MAX_IDEMPOTENCY_KEY_LENGTH, unit: "characters", bounds: "an `Idempotency-Key`" },
  { name: "IDEMPOTENCY_TTL_MILLIS", value: IDEMPOTENCY_TTL_MILLIS, unit: "ms", bounds: "how long an idempotency key is remembered" },
  { name: "MAX_BULK_CSV_BYTES", value: MAX_BULK_CSV_BYTES, unit: "bytes", bounds: "a bulk customer CSV file" },
  { name: "MAX_BULK_CSV_ROWS", value: MAX_BULK_CSV_ROWS, unit: "items", bounds: "customer rows of one bulk CSV file" },
  { name: "BULK_ROWS_PER_STEP", value: BULK_ROWS_PER_STEP, unit: "items", bounds: "rows one scheduler step of a bulk job processes" },
  { name: "BULK_STEP_SECONDS", value: BULK_STEP_SECONDS, unit: "seconds", bounds: "platform-clock time between two steps of a bulk job" },
  { name: "MAX_BULK_JOB_ERRORS", value: MAX_BULK_JOB_ERRORS, unit: "errors", bounds: "per-row errors kept on a bulk job" },
  { name: "MAX_ADVANCE_SECONDS", value: MAX_ADVANCE_SECONDS, unit: "seconds", bounds: "one sandbox clock advance" },
  { name: "MAX_OFFSET_MILLIS", value: MAX_OFFSET_MILLIS, unit: "ms", bounds: "how far ahead a sandbox clock may be" }
]
