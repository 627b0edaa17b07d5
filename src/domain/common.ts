/** Small value schemas shared by several resource families. */
import { Schema, type SchemaAST, SchemaTransformation } from "effect"
import {
  MAX_ADDRESS_LINE_LENGTH,
  MAX_CURSOR_LENGTH,
  MAX_EMAIL_LENGTH,
  MAX_ID_LENGTH,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  MAX_PAGE_LIMIT,
  MAX_POSTAL_CODE_LENGTH
} from "./limits.js"
export { DEFAULT_PAGE_LIMIT, MAX_ADDRESS_LINE_LENGTH, MAX_COUNTRIES, MAX_CURSOR_LENGTH, MAX_DESCRIPTION_LENGTH, MAX_EMAIL_LENGTH, MAX_ID_LENGTH, MAX_NAME_LENGTH, MAX_PHONE_LENGTH, MAX_POSTAL_CODE_LENGTH } from "./limits.js"

/**
 * A struct schema under its OpenAPI component name: `Schema.Struct(fields)` annotated with
 * `identifier`, so the generated document names it (`#/components/schemas/<identifier>`).
 */
export const NamedStruct = <const Fields extends Schema.Struct.Fields>(identifier: string, fields: Fields) =>
  Schema.Struct(fields).annotate({ identifier })

/** An enum schema under its OpenAPI component name: `Schema.Literals(literals)` annotated with `identifier`. */
export const NamedLiterals = <const L extends ReadonlyArray<SchemaAST.LiteralValue>>(identifier: string, literals: L) =>
  Schema.Literals(literals).annotate({ identifier })

const pattern = (regex: RegExp, message: string) => Schema.isPattern(regex, { message })

export const NonEmpty = Schema.String.check(Schema.isMinLength(1, { message: "must not be empty" }))

/**
 * Per-field maximums (docs/limits.md lists every request field's; test/domain/field-limits.test.ts
 * holds every endpoint to having one). A field past its maximum is a 400 naming it, with
 * the constraint the general JSON-body bounds use: `maxLength` for text, `maxItems` for arrays.
 */
export const maxChars = (max: number) => Schema.isMaxLength(max, { message: `must be at most ${max} characters` })
export const maxItems = (max: number) =>
  Schema.isMaxLength(max, { message: `must have at most ${max} items`, constraint: "maxItems" })

/** Text of at most `max` characters (may be empty). */
export const TextUpTo = (max: number) => Schema.String.check(maxChars(max))
/** Text of 1 to `max` characters: empty answers `minLength` "must not be empty", too long `maxLength`. */
export const NonEmptyTextUpTo = (max: number) => NonEmpty.check(maxChars(max))

/**
 * A resource id in a path, a query or a body, of any shape (`Customer:<uuid>` and the
 * like; a wrong one is a 404 or an empty list, not a 400, so only its length is checked).
 */
export const IdText = TextUpTo(MAX_ID_LENGTH)

/** ISO 4217 code (also accepts crypto tickers such as USDC, BTC: 3 to 5 upper-case letters). */
export const CurrencyCode = Schema.String.check(pattern(/^[A-Z]{3,5}$/, "must be an ISO 4217 currency code such as USD"))
export type CurrencyCode = typeof CurrencyCode.Type

/** ISO 3166-1 alpha-2 country code. */
export const CountryCode = Schema.String.check(pattern(/^[A-Z]{2}$/, "must be an ISO 3166-1 alpha-2 country code such as US"))

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

/** True for a real calendar date in YYYY-MM-DD form (leap years included). Arithmetic, not Date: it is on the hot path. */
export const isCalendarDate = (s: string): boolean => {
  if (s.length !== 10 || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45) return false
  const year = Number(s.slice(0, 4))
  const month = Number(s.slice(5, 7))
  const day = Number(s.slice(8, 10))
  if (!Number.isInteger(year) || !Number.isInteger(month) || !Number.isInteger(day)) return false
  if (month < 1 || month > 12 || day < 1 || day > DAYS_IN_MONTH[month - 1]!) return false
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
  return month !== 2 || day <= 28 || leap
}

const isRealDate = Schema.makeFilter<string>(
  (s) => isCalendarDate(s),
  { message: "must be a real calendar date (YYYY-MM-DD)" }
)

/** A calendar date, `YYYY-MM-DD`. */
export const DateString = Schema.String.check(
  pattern(/^\d{4}-\d{2}-\d{2}$/, "must be a date in YYYY-MM-DD form"),
  isRealDate
)

/** An ISO 8601 date-time in UTC (the service always emits the `Z` form). */
export const DateTimeString = Schema.String.check(
  pattern(
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/,
    "must be an ISO 8601 date-time such as 2025-10-13T09:30:00Z"
  )
)

export const Address = NamedStruct("Address", {
  line1: NonEmptyTextUpTo(MAX_ADDRESS_LINE_LENGTH),
  line2: Schema.optionalKey(TextUpTo(MAX_ADDRESS_LINE_LENGTH)),
  city: Schema.optionalKey(TextUpTo(MAX_ADDRESS_LINE_LENGTH)),
  state: Schema.optionalKey(TextUpTo(MAX_ADDRESS_LINE_LENGTH)),
  postalCode: NonEmptyTextUpTo(MAX_POSTAL_CODE_LENGTH),
  country: CountryCode
})
export type Address = typeof Address.Type

export const Email = Schema.String.check(
  pattern(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, "must be an email address"),
  Schema.isMaxLength(MAX_EMAIL_LENGTH)
)

export const PhoneNumberE164 = Schema.String.check(
  pattern(/^\+[1-9]\d{1,14}$/, "must be an E.164 phone number such as +15555550100")
)

/** Query parameters shared by every paginated list. */
export const PageQuery = {
  limit: Schema.optionalKey(
    Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: MAX_PAGE_LIMIT }))
  ),
  cursor: Schema.optionalKey(TextUpTo(MAX_CURSOR_LENGTH))
}

/** Marks a query parameter built by `QueryList` (test/http/query-lists.test.ts holds every array query parameter to it). */
export const QUERY_LIST_ANNOTATION = "paymentsServiceQueryList"

/**
 * An array query parameter, accepted in both forms clients send: repeated
 * (`?destinationCurrency=EUR&destinationCurrency=MXN`, the reference's `explode: true`)
 * and comma-joined (`?destinationCurrency=EUR,MXN`, what the vendor's SDK sends), or any
 * mix of the two. Every array query parameter of the API is one of these (none of their
 * values, currency codes and enum members, can contain a comma). An empty piece (`EUR,,MXN`,
 * a trailing comma) is an invalid value like any other (400 naming the parameter). At
 * most `max` values after splitting.
 */
export const QueryList = <S extends Schema.Top & { readonly Encoded: string }>(item: S, max: number) =>
  Schema.Union([Schema.String, Schema.Array(Schema.String)]).pipe(
    Schema.decodeTo(
      Schema.Array(item).check(maxItems(max)),
      SchemaTransformation.transform({
        decode: (raw: string | ReadonlyArray<string>): ReadonlyArray<string> =>
          (typeof raw === "string" ? [raw] : raw).flatMap((v) => v.split(",")),
        encode: (values: ReadonlyArray<string>): string | ReadonlyArray<string> => values
      })
    )
  ).annotate({ [QUERY_LIST_ANNOTATION]: true })

/**
 * The optional `Idempotency-Key` request header (1 to 255 printable characters): a
 * retry with the same key and request gets the first result again.
 */
export const IdempotencyHeaders = {
  "idempotency-key": Schema.optionalKey(
    Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(MAX_IDEMPOTENCY_KEY_LENGTH), pattern(/^[\x21-\x7e]+$/, "must be 1 to 255 printable ASCII characters without spaces"))
  )
}

/**
 * The instants a resource was created and last changed (ISO 8601), which most resources
 * carry: spread where the two fields stand, so the answer's field order stays the same.
 */
export const Timestamps = {
  createdAt: Schema.String,
  updatedAt: Schema.String
}

/** The list envelope every paginated endpoint answers with. */
export const ListResponse = <S extends Schema.Top>(item: S, identifier: string) =>
  NamedStruct(identifier, {
    data: Schema.Array(item),
    hasMore: Schema.Boolean,
    nextCursor: Schema.optionalKey(Schema.String),
    // Absent when more than TOTAL_COUNT_LIMIT (src/ports/shared.ts) match: optional in the reference too.
    totalCount: Schema.optionalKey(Schema.Number)
  })
