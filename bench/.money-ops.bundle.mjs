// bench/money-ops.ts
import "effect/schema/SchemaJITCompiler/enable";
import { Effect as Effect66, Layer as Layer10, Schema as Schema22, Tracer } from "effect";

// src/domain/quote.ts
import { Schema as Schema6 } from "effect";

// src/domain/common.ts
import { Schema, SchemaTransformation } from "effect";

// src/domain/limits.ts
var KIB = 1024;
var MIB = 1024 * KIB;
var DAY_SECONDS = 86400;
var MAX_JSON_BODY_BYTES = 1 * MIB;
var MAX_DOCUMENT_BYTES = 10 * MIB;
var MAX_MULTIPART_BODY_BYTES = 11 * MIB;
var formLimits = (maxFileBytes) => ({
  maxFileSize: maxFileBytes + 64 * KIB,
  maxFieldSize: 64 * KIB,
  maxParts: 16,
  maxTotalSize: maxFileBytes + 1 * MIB
});
var DOCUMENT_FORM_LIMITS = formLimits(MAX_DOCUMENT_BYTES);
var MAX_TEXT_LENGTH = 4096;
var MAX_ARRAY_ITEMS = 1e3;
var MAX_JSON_DEPTH = 32;
var MAX_FIELD_ERRORS = 100;
var MAX_NAME_LENGTH = 255;
var MAX_ADDRESS_LINE_LENGTH = 255;
var MAX_ID_LENGTH = 255;
var MAX_DESCRIPTION_LENGTH = 1e3;
var MAX_EMAIL_LENGTH = 254;
var MAX_PHONE_LENGTH = 32;
var MAX_COUNTRIES = 250;
var MAX_POSTAL_CODE_LENGTH = 32;
var MAX_UMA_ADDRESS_LENGTH = 255;
var MAX_LIGHTNING_REQUEST_LENGTH = 4096;
var MAX_3DS_PASSWORD_LENGTH = 64;
var MAX_MERCHANT_DESCRIPTOR_LENGTH = 255;
var MAX_MERCHANT_PLACE_LENGTH = 100;
var MAX_DELEGATED_KEY_NICKNAME_LENGTH = 256;
var MAX_AGENT_NAME_LENGTH = 255;
var MAX_AGENT_REJECTION_REASON_LENGTH = 1e3;
var MAX_AGENT_ACCOUNTS = 100;
var MAX_AGENT_AMOUNT = Number.MAX_SAFE_INTEGER;
var MAX_PROVIDER_CREDENTIAL_LENGTH = 255;
var MAX_PROVIDER_TOKEN_IDENTIFIER_LENGTH = 64;
var MAX_NETWORK_TOKEN_IDENTIFIER_LENGTH = 128;
var MAX_OPERATION_DESCRIPTION_LENGTH = 1024;
var MAX_STABLECOIN_AMOUNT_DIGITS = 38;
var MAX_PAGE_LIMIT = 100;
var DEFAULT_PAGE_LIMIT = 20;
var MAX_CURSOR_LENGTH = 512;
var MAX_IDEMPOTENCY_KEY_LENGTH = 255;
var IDEMPOTENCY_TTL_MILLIS = DAY_SECONDS * 1e3;
var MAX_BULK_CSV_BYTES = 2 * MIB;
var MAX_BULK_CSV_ROWS = 5e3;
var BULK_CSV_FORM_LIMITS = formLimits(MAX_BULK_CSV_BYTES);
var BULK_ROWS_PER_STEP = 100;
var BULK_STEP_SECONDS = 1;
var MAX_BULK_JOB_ERRORS = 1e3;
var MAX_ADVANCE_SECONDS = 365 * DAY_SECONDS;
var MAX_OFFSET_MILLIS = 10 * 366 * DAY_SECONDS * 1e3;
var LIMITS = [
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
];

// src/domain/common.ts
var NamedStruct = (identifier2, fields) => Schema.Struct(fields).annotate({ identifier: identifier2 });
var NamedLiterals = (identifier2, literals) => Schema.Literals(literals).annotate({ identifier: identifier2 });
var pattern = (regex, message) => Schema.isPattern(regex, { message });
var NonEmpty = Schema.String.check(Schema.isMinLength(1, { message: "must not be empty" }));
var maxChars = (max) => Schema.isMaxLength(max, { message: `must be at most ${max} characters` });
var maxItems = (max) => Schema.isMaxLength(max, { message: `must have at most ${max} items`, constraint: "maxItems" });
var TextUpTo = (max) => Schema.String.check(maxChars(max));
var NonEmptyTextUpTo = (max) => NonEmpty.check(maxChars(max));
var IdText = TextUpTo(MAX_ID_LENGTH);
var CurrencyCode = Schema.String.check(pattern(/^[A-Z]{3,5}$/, "must be an ISO 4217 currency code such as USD"));
var CountryCode = Schema.String.check(pattern(/^[A-Z]{2}$/, "must be an ISO 3166-1 alpha-2 country code such as US"));
var DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
var isCalendarDate = (s) => {
  if (s.length !== 10 || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45) return false;
  const year = Number(s.slice(0, 4));
  const month = Number(s.slice(5, 7));
  const day = Number(s.slice(8, 10));
  if (!Number.isInteger(year) || !Number.isInteger(month) || !Number.isInteger(day)) return false;
  if (month < 1 || month > 12 || day < 1 || day > DAYS_IN_MONTH[month - 1]) return false;
  const leap = year % 4 === 0 && year % 100 !== 0 || year % 400 === 0;
  return month !== 2 || day <= 28 || leap;
};
var isRealDate = Schema.makeFilter(
  (s) => isCalendarDate(s),
  { message: "must be a real calendar date (YYYY-MM-DD)" }
);
var DateString = Schema.String.check(
  pattern(/^\d{4}-\d{2}-\d{2}$/, "must be a date in YYYY-MM-DD form"),
  isRealDate
);
var DateTimeString = Schema.String.check(
  pattern(
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/,
    "must be an ISO 8601 date-time such as 2025-10-13T09:30:00Z"
  )
);
var Address = NamedStruct("Address", {
  line1: NonEmptyTextUpTo(MAX_ADDRESS_LINE_LENGTH),
  line2: Schema.optionalKey(TextUpTo(MAX_ADDRESS_LINE_LENGTH)),
  city: Schema.optionalKey(TextUpTo(MAX_ADDRESS_LINE_LENGTH)),
  state: Schema.optionalKey(TextUpTo(MAX_ADDRESS_LINE_LENGTH)),
  postalCode: NonEmptyTextUpTo(MAX_POSTAL_CODE_LENGTH),
  country: CountryCode
});
var Email = Schema.String.check(
  pattern(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, "must be an email address"),
  Schema.isMaxLength(MAX_EMAIL_LENGTH)
);
var PhoneNumberE164 = Schema.String.check(
  pattern(/^\+[1-9]\d{1,14}$/, "must be an E.164 phone number such as +15555550100")
);
var PageQuery = {
  limit: Schema.optionalKey(
    Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: MAX_PAGE_LIMIT }))
  ),
  cursor: Schema.optionalKey(TextUpTo(MAX_CURSOR_LENGTH))
};
var IdempotencyHeaders = {
  "idempotency-key": Schema.optionalKey(
    Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(MAX_IDEMPOTENCY_KEY_LENGTH), pattern(/^[\x21-\x7e]+$/, "must be 1 to 255 printable ASCII characters without spaces"))
  )
};
var Timestamps = {
  createdAt: Schema.String,
  updatedAt: Schema.String
};
var ListResponse = (item, identifier2) => NamedStruct(identifier2, {
  data: Schema.Array(item),
  hasMore: Schema.Boolean,
  nextCursor: Schema.optionalKey(Schema.String),
  // Absent when more than TOTAL_COUNT_LIMIT (src/ports/shared.ts) match: optional in the reference too.
  totalCount: Schema.optionalKey(Schema.Number)
});

// src/domain/external-account.ts
import { Schema as Schema2 } from "effect";
var ExternalAccountStatus = NamedLiterals("ExternalAccountStatus", [
  "PENDING",
  "ACTIVE",
  "PENDING_OWNERSHIP_VERIFICATION",
  "UNVERIFIED",
  "UNDER_REVIEW",
  "INACTIVE"
]);
var OwnershipType = NamedLiterals("OwnershipType", ["FIRST_PARTY", "THIRD_PARTY"]);
var BeneficiaryVerificationStatus = NamedLiterals("BeneficiaryVerificationStatus", [
  "MATCHED",
  "PARTIAL_MATCH",
  "NOT_MATCHED",
  "UNSUPPORTED",
  "CHECKED_BY_RECEIVING_FI",
  "PENDING"
]);
var BankAccountType = NamedLiterals("BankAccountType", ["CHECKING", "SAVINGS"]);
var PaymentRail = NamedLiterals("PaymentRail", [
  "ACH",
  "ACH_SAME_DAY",
  "ACH_COLOMBIA",
  "BANK_TRANSFER",
  "BRE_B",
  "CIPS",
  "FAST",
  "FASTER_PAYMENTS",
  "FEDNOW",
  "INSTAPAY",
  "MOBILE_MONEY",
  "NEFT",
  "PAYNOW",
  "PESONET",
  "PIX",
  "RTGS",
  "RTP",
  "SEPA",
  "SEPA_INSTANT",
  "SPEI",
  "SWIFT",
  "UNIONPAY",
  "UPI",
  "WIRE"
]);
var str = (min, max) => Schema2.String.check(Schema2.isBetweenLength(min, max));
var pat = (regex, example) => Schema2.String.check(Schema2.isPattern(regex, { message: `must match ${regex.source} (for example ${example})` }));
var Fields = {
  accountNumber: str(1, 34),
  bankName: str(1, 255),
  provider: str(1, 255),
  swiftCode: pat(/^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/, "DEUTDEFF"),
  phone: pat(/^\+[0-9]{6,14}$/, "+233201234567"),
  branchCode5: pat(/^[0-9]{5}$/, "12345"),
  bankAccountType: BankAccountType
};
var Name = NonEmptyTextUpTo(MAX_NAME_LENGTH);
var ContactEmail = TextUpTo(MAX_EMAIL_LENGTH);
var ContactPhone = TextUpTo(MAX_PHONE_LENGTH);
var RegistrationNumber = TextUpTo(MAX_ID_LENGTH);
var individualBase = {
  beneficiaryType: Schema2.Literal("INDIVIDUAL"),
  fullName: Name,
  birthDate: Schema2.optionalKey(DateString),
  nationality: Schema2.optionalKey(CountryCode),
  email: Schema2.optionalKey(ContactEmail),
  phoneNumber: Schema2.optionalKey(ContactPhone),
  countryOfResidence: Schema2.optionalKey(CountryCode),
  address: Schema2.optionalKey(Address)
};
var IndividualBeneficiary = Schema2.Struct(individualBase).annotate({ identifier: "IndividualBeneficiary" });
var IndividualBeneficiaryWithAddress = NamedStruct("IndividualBeneficiaryWithAddress", { ...individualBase, address: Address });
var IndividualBeneficiaryWithResidence = NamedStruct("IndividualBeneficiaryWithResidence", { ...individualBase, countryOfResidence: CountryCode });
var IndividualBeneficiaryGtq = NamedStruct("GtqBeneficiary", {
  ...individualBase,
  countryOfResidence: CountryCode,
  phoneNumber: NonEmptyTextUpTo(MAX_PHONE_LENGTH)
});
var IndividualBeneficiaryJmd = NamedStruct("JmdBeneficiary", { ...individualBase, address: Address, phoneNumber: NonEmptyTextUpTo(MAX_PHONE_LENGTH) });
var IndividualBeneficiaryCad = NamedStruct("CadBeneficiary", { ...individualBase, registrationNumber: Schema2.optionalKey(RegistrationNumber) });
var IndividualBeneficiaryCop = NamedStruct("CopBeneficiary", {
  ...individualBase,
  documentType: Schema2.optionalKey(Schema2.Literals(["CC", "CE", "TI", "NIT", "PP"])),
  documentNumber: Schema2.optionalKey(str(1, 50))
});
var BusinessBeneficiary = NamedStruct("BusinessBeneficiary", {
  beneficiaryType: Schema2.Literal("BUSINESS"),
  legalName: Name,
  registrationNumber: Schema2.optionalKey(RegistrationNumber),
  taxId: Schema2.optionalKey(TextUpTo(MAX_ID_LENGTH)),
  email: Schema2.optionalKey(ContactEmail),
  phoneNumber: Schema2.optionalKey(ContactPhone),
  countryOfResidence: Schema2.optionalKey(CountryCode),
  address: Schema2.optionalKey(Address)
});
var beneficiary = (individual) => Schema2.Union([individual, BusinessBeneficiary]);
var WalletIndividualBeneficiary = NamedStruct("WalletIndividualBeneficiary", {
  beneficiaryType: Schema2.Literal("INDIVIDUAL"),
  fullName: Name,
  countryOfResidence: CountryCode
});
var WalletBeneficiary = Schema2.Union([WalletIndividualBeneficiary, BusinessBeneficiary]);
var Beneficiary = beneficiary(IndividualBeneficiary);
var opt = Schema2.optionalKey;
var req = (s) => s;
var fiat = (accountType, fields, rails, identifiedByOneOf) => {
  const prefix = accountType.slice(0, accountType.indexOf("_"));
  const struct = Schema2.Struct({ accountType: Schema2.Literal(accountType), ...fields });
  const name = `${prefix.charAt(0)}${prefix.slice(1).toLowerCase()}`;
  return {
    accountType,
    rails,
    /** The response form: the same fields plus the variant's `paymentRails`. */
    response: Schema2.Struct({ accountType: Schema2.Literal(accountType), ...fields, paymentRails: Schema2.Array(PaymentRail) }).annotate({ identifier: `${name}ExternalAccountInfo` }),
    create: (identifiedByOneOf === void 0 ? struct : struct.check(atLeastOneOf(identifiedByOneOf))).annotate({
      identifier: `${prefix.charAt(0)}${prefix.slice(1).toLowerCase()}ExternalAccountCreateInfo`
    })
  };
};
var atLeastOneOf = (fields) => Schema2.makeFilter(
  (value) => fields.some((f) => value[f] !== void 0) || { path: [fields[0]], issue: `is required unless ${fields.slice(1).join(" or ")} is given (one of ${fields.join(", ")})` },
  { identifier: "atLeastOneOf" }
);
var iban = (regex, example) => pat(regex, example);
var FiatVariants = [
  fiat("AED_ACCOUNT", {
    iban: iban(/^AE[0-9]{21}$/, "AE070331234567890123456"),
    swiftCode: opt(Fields.swiftCode),
    beneficiary: beneficiary(IndividualBeneficiaryWithAddress)
  }, ["BANK_TRANSFER"]),
  fiat("BDT_ACCOUNT", {
    accountNumber: opt(Fields.accountNumber),
    bankName: Fields.bankName,
    branchCode: opt(Fields.branchCode5),
    swiftCode: opt(Fields.swiftCode),
    phoneNumber: opt(Fields.phone),
    beneficiary: Beneficiary
  }, ["BANK_TRANSFER", "MOBILE_MONEY"], ["accountNumber", "phoneNumber"]),
  fiat("BRL_ACCOUNT", {
    pixKey: str(1, 77),
    pixKeyType: Schema2.Literals(["CPF", "CNPJ", "EMAIL", "PHONE", "RANDOM"]),
    taxId: pat(/^[0-9]{11,14}$/, "12345678901"),
    beneficiary: Beneficiary
  }, ["PIX"]),
  fiat("BWP_ACCOUNT", { phoneNumber: Fields.phone, provider: Fields.provider, beneficiary: Beneficiary }, ["MOBILE_MONEY"]),
  fiat("CAD_ACCOUNT", {
    bankCode: pat(/^[0-9]{3}$/, "001"),
    branchCode: Fields.branchCode5,
    accountNumber: pat(/^[0-9]{7,12}$/, "1234567"),
    beneficiary: beneficiary(IndividualBeneficiaryCad)
  }, ["BANK_TRANSFER"]),
  fiat("CNY_ACCOUNT", {
    accountNumber: opt(Fields.accountNumber),
    bankName: Fields.bankName,
    phoneNumber: opt(Fields.phone),
    beneficiary: Beneficiary
  }, ["BANK_TRANSFER", "MOBILE_MONEY"], ["accountNumber", "phoneNumber"]),
  fiat("COP_ACCOUNT", {
    accountNumber: opt(Fields.accountNumber),
    bankAccountType: opt(Fields.bankAccountType),
    bankName: Fields.bankName,
    phoneNumber: opt(Fields.phone),
    beneficiary: beneficiary(IndividualBeneficiaryCop)
  }, ["BANK_TRANSFER", "MOBILE_MONEY"], ["accountNumber", "phoneNumber"]),
  fiat("DKK_ACCOUNT", {
    iban: iban(/^DK[0-9]{16}$/, "DK5000400440116243"),
    swiftCode: opt(Fields.swiftCode),
    beneficiary: Beneficiary
  }, ["SEPA", "SEPA_INSTANT"]),
  fiat("EGP_ACCOUNT", {
    iban: opt(iban(/^EG[0-9]{27}$/, "EG380019000500000000263180002")),
    bankName: Fields.bankName,
    phoneNumber: opt(Fields.phone),
    beneficiary: Beneficiary
  }, ["BANK_TRANSFER", "MOBILE_MONEY"], ["iban", "phoneNumber"]),
  fiat("EUR_ACCOUNT", {
    iban: iban(/^[A-Z]{2}[0-9]{2}[A-Za-z0-9]{11,30}$/, "DE89370400440532013000"),
    swiftCode: opt(Fields.swiftCode),
    beneficiary: beneficiary(IndividualBeneficiaryWithResidence)
  }, ["SEPA", "SEPA_INSTANT"]),
  fiat("GBP_ACCOUNT", {
    sortCode: pat(/^[0-9]{6}$/, "040004"),
    accountNumber: pat(/^[0-9]{8}$/, "12345678"),
    beneficiary: Beneficiary
  }, ["FASTER_PAYMENTS"]),
  fiat("GHS_ACCOUNT", {
    accountNumber: opt(Fields.accountNumber),
    bankName: Fields.bankName,
    phoneNumber: opt(Fields.phone),
    beneficiary: Beneficiary
  }, ["BANK_TRANSFER", "MOBILE_MONEY"], ["accountNumber", "phoneNumber"]),
  fiat("GTQ_ACCOUNT", {
    accountNumber: Fields.accountNumber,
    bankAccountType: Fields.bankAccountType,
    bankName: Fields.bankName,
    beneficiary: beneficiary(IndividualBeneficiaryGtq)
  }, ["BANK_TRANSFER"]),
  fiat("HKD_ACCOUNT", {
    bankName: Fields.bankName,
    accountNumber: Fields.accountNumber,
    swiftCode: Fields.swiftCode,
    beneficiary: Beneficiary
  }, ["BANK_TRANSFER"]),
  fiat("HTG_ACCOUNT", { phoneNumber: Fields.phone, beneficiary: Beneficiary }, ["MOBILE_MONEY"]),
  fiat("IDR_ACCOUNT", {
    bankName: Fields.bankName,
    accountNumber: Fields.accountNumber,
    swiftCode: Fields.swiftCode,
    phoneNumber: pat(/^\+62[0-9]{9,12}$/, "+6281234567890"),
    beneficiary: Beneficiary
  }, ["BANK_TRANSFER"]),
  fiat("ILS_ACCOUNT", {
    iban: iban(/^IL[0-9]{21}$/, "IL620108000000099999999"),
    swiftCode: opt(Fields.swiftCode),
    beneficiary: Beneficiary
  }, ["BANK_TRANSFER"]),
  fiat("INR_ACCOUNT", {
    vpa: opt(pat(/^[a-zA-Z0-9.\-_]+@[a-zA-Z0-9]+$/, "name@bank").check(maxChars(255))),
    accountNumber: opt(pat(/^[0-9]{9,18}$/, "123456789012")),
    ifsc: opt(pat(/^[A-Z]{4}0[A-Z0-9]{6}$/, "HDFC0001234")),
    rail: opt(Schema2.Literals(["UPI", "NEFT", "RTGS"])),
    bankName: opt(Fields.bankName),
    beneficiary: Beneficiary
  }, ["UPI", "NEFT", "RTGS"], ["accountNumber", "vpa"]),
  fiat("JMD_ACCOUNT", {
    accountNumber: Fields.accountNumber,
    branchCode: Fields.branchCode5,
    bankAccountType: Fields.bankAccountType,
    bankName: Fields.bankName,
    beneficiary: beneficiary(IndividualBeneficiaryJmd)
  }, ["BANK_TRANSFER"]),
  fiat("KES_ACCOUNT", {
    phoneNumber: pat(/^\+254[0-9]{9}$/, "+254712345678"),
    provider: Fields.provider,
    beneficiary: Beneficiary
  }, ["MOBILE_MONEY"]),
  fiat("MWK_ACCOUNT", { phoneNumber: Fields.phone, provider: Fields.provider, beneficiary: Beneficiary }, ["MOBILE_MONEY"]),
  fiat("MXN_ACCOUNT", {
    clabeNumber: pat(/^[0-9]{18}$/, "032180000118359719"),
    beneficiary: Beneficiary
  }, ["SPEI"]),
  fiat("MYR_ACCOUNT", {
    bankName: Fields.bankName,
    accountNumber: Fields.accountNumber,
    swiftCode: Fields.swiftCode,
    beneficiary: Beneficiary
  }, ["BANK_TRANSFER"]),
  fiat("NGN_ACCOUNT", {
    accountNumber: pat(/^[0-9]{10}$/, "0123456789"),
    bankName: Fields.bankName,
    beneficiary: Beneficiary
  }, ["BANK_TRANSFER"]),
  fiat("PHP_ACCOUNT", {
    bankName: Fields.bankName,
    accountNumber: pat(/^[0-9]{8,16}$/, "123456789012"),
    beneficiary: Beneficiary
  }, ["BANK_TRANSFER"]),
  fiat("PKR_ACCOUNT", {
    bankName: Fields.bankName,
    accountNumber: opt(Fields.accountNumber),
    iban: opt(iban(/^PK[0-9]{2}[A-Z]{4}[0-9]{16}$/, "PK36SCBL0000001123456702")),
    phoneNumber: opt(Fields.phone),
    beneficiary: Beneficiary
  }, ["BANK_TRANSFER", "MOBILE_MONEY"], ["accountNumber", "iban", "phoneNumber"]),
  fiat("RWF_ACCOUNT", {
    phoneNumber: pat(/^\+250[0-9]{9}$/, "+250781234567"),
    provider: Fields.provider,
    beneficiary: Beneficiary
  }, ["MOBILE_MONEY"]),
  fiat("SGD_ACCOUNT", {
    bankName: opt(Fields.bankName),
    accountNumber: Fields.accountNumber,
    swiftCode: Fields.swiftCode,
    beneficiary: Beneficiary
  }, ["PAYNOW", "FAST", "BANK_TRANSFER"]),
  fiat("SLV_ACCOUNT", {
    bankName: opt(Fields.bankName),
    accountNumber: opt(Fields.accountNumber),
    bankAccountType: opt(Fields.bankAccountType),
    phoneNumber: opt(Fields.phone),
    beneficiary: Beneficiary
  }, ["BANK_TRANSFER", "MOBILE_MONEY"], ["accountNumber", "phoneNumber"]),
  fiat("THB_ACCOUNT", {
    bankName: Fields.bankName,
    accountNumber: Fields.accountNumber,
    swiftCode: Fields.swiftCode,
    beneficiary: Beneficiary
  }, ["BANK_TRANSFER"]),
  fiat("TRY_ACCOUNT", {
    iban: iban(/^TR[0-9]{24}$/, "TR330006100519786457841326"),
    swiftCode: opt(Fields.swiftCode),
    beneficiary: Beneficiary
  }, ["BANK_TRANSFER"]),
  fiat("TZS_ACCOUNT", {
    phoneNumber: pat(/^\+255[0-9]{9}$/, "+255712345678"),
    provider: Fields.provider,
    beneficiary: Beneficiary
  }, ["MOBILE_MONEY"]),
  fiat("UGX_ACCOUNT", { phoneNumber: Fields.phone, provider: Fields.provider, beneficiary: Beneficiary }, ["MOBILE_MONEY"]),
  fiat("USD_ACCOUNT", {
    accountNumber: Fields.accountNumber,
    routingNumber: pat(/^[0-9]{9}$/, "021000021"),
    // SPEC.md: required (the reference file has it optional).
    bankAccountType: req(Fields.bankAccountType),
    bankName: opt(str(1, 140)),
    intermediaryBankName: opt(str(1, 140)),
    intermediaryRoutingNumber: opt(pat(/^[0-9]{9}$/, "021000021")),
    fiToFiInformation: opt(Schema2.String.check(Schema2.isMaxLength(210))),
    beneficiary: Beneficiary
  }, ["ACH", "ACH_SAME_DAY", "WIRE", "RTP", "FEDNOW"]),
  fiat("VND_ACCOUNT", {
    bankName: Fields.bankName,
    accountNumber: Fields.accountNumber,
    swiftCode: Fields.swiftCode,
    beneficiary: Beneficiary
  }, ["BANK_TRANSFER"]),
  fiat("XAF_ACCOUNT", {
    phoneNumber: Fields.phone,
    provider: Fields.provider,
    region: Schema2.Literals(["CM", "CG"]),
    beneficiary: Beneficiary
  }, ["MOBILE_MONEY"]),
  fiat("XOF_ACCOUNT", {
    phoneNumber: Fields.phone,
    provider: Fields.provider,
    region: Schema2.Literals(["BJ", "CI", "SN", "TG"]),
    beneficiary: Beneficiary
  }, ["MOBILE_MONEY"]),
  fiat("ZAR_ACCOUNT", {
    accountNumber: pat(/^[0-9]{9,13}$/, "123456789"),
    bankName: Fields.bankName,
    beneficiary: Beneficiary
  }, ["BANK_TRANSFER"]),
  fiat("ZMW_ACCOUNT", {
    phoneNumber: pat(/^\+260[0-9]{9}$/, "+260971234567"),
    provider: Fields.provider,
    beneficiary: Beneficiary
  }, ["MOBILE_MONEY"]),
  fiat("SWIFT_ACCOUNT", {
    country: CountryCode,
    swiftCode: Fields.swiftCode,
    bankName: Fields.bankName,
    accountNumber: opt(Fields.accountNumber),
    iban: opt(iban(/^[A-Z]{2}[0-9]{2}[A-Za-z0-9]{11,30}$/, "GB29NWBK60161331926819")),
    beneficiary: Beneficiary
  }, ["SWIFT"], ["accountNumber", "iban"])
];
var walletAddress = {
  evm: pat(/^0x[0-9a-fA-F]{40}$/, "0x52908400098527886E0F7030069857D2E4169EE7"),
  solana: pat(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, "7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV"),
  tron: pat(/^T[1-9A-HJ-NP-Za-km-z]{33}$/, "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL"),
  spark: pat(/^(sp|spark|sprt|sparkrt)1[02-9ac-hj-np-z]{20,200}$/, "sp1pgss9\u2026")
};
var wallet = (accountType, address) => ({
  accountType,
  create: Schema2.Struct({
    accountType: Schema2.Literal(accountType),
    address,
    beneficiary: opt(WalletBeneficiary),
    vaspName: opt(str(1, 255))
  }).annotate({ identifier: `${accountType}Info` })
});
var WalletVariants = [
  wallet("BASE_WALLET", walletAddress.evm),
  wallet("ETHEREUM_WALLET", walletAddress.evm),
  wallet("POLYGON_WALLET", walletAddress.evm),
  wallet("PLASMA_WALLET", walletAddress.evm),
  wallet("ARBITRUM_WALLET", walletAddress.evm),
  wallet("SOLANA_WALLET", walletAddress.solana),
  wallet("SPARK_WALLET", walletAddress.spark),
  wallet("TRON_WALLET", walletAddress.tron)
];
var lightningFields = {
  invoice: opt(pat(/^ln(bc|tb|bcrt|tbs)[0-9a-z]+$/i, "lnbc10u1p\u2026").check(maxChars(MAX_LIGHTNING_REQUEST_LENGTH))),
  bolt12: opt(pat(/^lno1[0-9a-z]+$/i, "lno1qcp4\u2026").check(maxChars(MAX_LIGHTNING_REQUEST_LENGTH))),
  lightningAddress: opt(pat(/^[a-z0-9._+-]+@[a-z0-9.-]+\.[a-z]{2,}$/i, "alice@wallet.example").check(maxChars(MAX_EMAIL_LENGTH)))
};
var exactlyOneLightningTarget = Schema2.makeFilter(
  (info) => {
    const n = [info.invoice, info.bolt12, info.lightningAddress].filter((v) => v !== void 0).length;
    return n === 1 || "exactly one of invoice, bolt12 or lightningAddress must be provided";
  },
  { identifier: "ExactlyOneLightningTarget" }
);
var LightningCreateInfo = Schema2.Struct({ accountType: Schema2.Literal("LIGHTNING"), ...lightningFields }).check(exactlyOneLightningTarget).annotate({ identifier: "LightningExternalAccountInfo" });
var ExternalAccountType = NamedLiterals("ExternalAccountType", [
  ...FiatVariants.map((v) => v.accountType),
  ...WalletVariants.map((v) => v.accountType),
  "LIGHTNING"
]);
var ExternalAccountCreateInfo = Schema2.Union([
  ...FiatVariants.map((v) => v.create),
  ...WalletVariants.map((v) => v.create),
  LightningCreateInfo
]).annotate({ identifier: "ExternalAccountCreateInfoOneOf" });
var currencyOfAccountType = (accountType) => accountType === "SWIFT_ACCOUNT" || !accountType.endsWith("_ACCOUNT") ? void 0 : accountType.slice(0, 3);
var RAILS_BY_TYPE = new Map(FiatVariants.map((v) => [v.accountType, v.rails]));
var paymentRailsOf = (accountType) => RAILS_BY_TYPE.get(accountType);
var PlatformAccountId = Schema2.String.check(
  Schema2.isBetweenLength(1, 255, { message: "must be 1 to 255 characters" })
);
var createFields = {
  currency: CurrencyCode,
  accountInfo: ExternalAccountCreateInfo,
  platformAccountId: opt(PlatformAccountId),
  ownershipType: opt(OwnershipType)
};
var CustomerExternalAccountCreateRequest = NamedStruct("CustomerExternalAccountCreateRequest", {
  customerId: IdText,
  ...createFields,
  defaultUmaDepositAccount: opt(Schema2.Boolean)
});
var PlatformExternalAccountCreateRequest = Schema2.Struct(createFields).annotate({ identifier: "PlatformExternalAccountCreateRequest" });
var LightningFields = { accountType: Schema2.Literal("LIGHTNING"), ...lightningFields };
var ExternalAccountInfo = Schema2.Union([
  ...FiatVariants.map((v) => v.response),
  ...WalletVariants.map((v) => v.create),
  Schema2.Struct(LightningFields).annotate({ identifier: "LightningExternalAccountResponseInfo" }),
  NamedStruct("LightningAccountAliasInfo", { ...LightningFields, accountType: Schema2.Literal("LIGHTNING_ACCOUNT") })
]).annotate({ identifier: "ExternalAccountInfoOneOf" });
var BeneficiaryVerifiedData = NamedStruct("BeneficiaryVerifiedData", { fullName: Schema2.String });
var ExternalAccount = class extends Schema2.Opaque()(NamedStruct("ExternalAccount", {
  id: Schema2.String,
  customerId: Schema2.NullOr(Schema2.String),
  status: ExternalAccountStatus,
  platformAccountId: opt(Schema2.String),
  ownershipType: opt(OwnershipType),
  currency: Schema2.String,
  defaultUmaDepositAccount: Schema2.Boolean,
  beneficiaryVerificationStatus: opt(BeneficiaryVerificationStatus),
  beneficiaryVerifiedData: opt(BeneficiaryVerifiedData),
  accountInfo: ExternalAccountInfo,
  ...Timestamps
})) {
};
var OwnershipVerificationMethod = NamedLiterals("OwnershipVerificationMethod", ["WALLET_SIGNATURE", "LIVENESS"]);
var OwnershipChallengeRequest = NamedStruct("OwnershipChallengeRequest", { method: OwnershipVerificationMethod });
var WalletSignatureChallenge = NamedStruct("WalletSignatureChallenge", {
  method: Schema2.Literal("WALLET_SIGNATURE"),
  messageToSign: Schema2.String,
  expiresAt: Schema2.String
});
var LivenessChallenge = NamedStruct("LivenessChallenge", {
  method: Schema2.Literal("LIVENESS"),
  verificationLink: Schema2.String,
  expiresAt: Schema2.String
});
var OwnershipChallenge = Schema2.Union([WalletSignatureChallenge, LivenessChallenge]).annotate({ identifier: "OwnershipChallenge" });
var OwnershipVerifyRequest = NamedStruct("OwnershipVerifyRequest", { signature: NonEmptyTextUpTo(1024) });

// src/domain/internal-account.ts
import { Schema as Schema4 } from "effect";

// src/domain/money.ts
import { Schema as Schema3 } from "effect";
var Currency = NamedStruct("Currency", {
  code: Schema3.String,
  name: Schema3.String,
  symbol: Schema3.String,
  decimals: Schema3.Number.check(Schema3.isInt(), Schema3.isGreaterThanOrEqualTo(0))
});
var MinorUnits = Schema3.Number.check(Schema3.isInt(), Schema3.isBetween({ minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER }));
var CurrencyAmount = NamedStruct("CurrencyAmount", {
  amount: MinorUnits,
  currency: Currency
});
var MAX_AMOUNT = 9e15;
var PositiveAmount = Schema3.Number.check(Schema3.isInt(), Schema3.isGreaterThan(0), Schema3.isLessThanOrEqualTo(MAX_AMOUNT));
var CURRENCIES = Object.fromEntries(
  [
    ["USD", "United States Dollar", "$", 2],
    ["EUR", "Euro", "\u20AC", 2],
    ["MXN", "Mexican Peso", "$", 2],
    ["GBP", "Pound Sterling", "\xA3", 2],
    ["CAD", "Canadian Dollar", "$", 2],
    ["BRL", "Brazilian Real", "R$", 2],
    ["INR", "Indian Rupee", "\u20B9", 2],
    ["NGN", "Nigerian Naira", "\u20A6", 2],
    ["KES", "Kenyan Shilling", "KSh", 2],
    ["PHP", "Philippine Peso", "\u20B1", 2],
    ["COP", "Colombian Peso", "$", 2],
    ["DKK", "Danish Krone", "kr", 2],
    ["HKD", "Hong Kong Dollar", "HK$", 2],
    ["SGD", "Singapore Dollar", "S$", 2],
    ["IDR", "Indonesian Rupiah", "Rp", 2],
    ["MYR", "Malaysian Ringgit", "RM", 2],
    ["THB", "Thai Baht", "\u0E3F", 2],
    ["VND", "Vietnamese Dong", "\u20AB", 0],
    ["AED", "UAE Dirham", "\u062F.\u0625", 2],
    ["CNY", "Chinese Yuan", "\xA5", 2],
    ["USDC", "USD Coin", "USDC", 6],
    ["USDT", "Tether USD", "USDT", 6],
    ["BTC", "Bitcoin", "\u20BF", 8]
  ].map(([code, name, symbol, decimals]) => [code, { code, name, symbol, decimals }])
);
var currencyOf = (code) => Object.prototype.hasOwnProperty.call(CURRENCIES, code) ? CURRENCIES[code] : void 0;
var DEFAULT_PLATFORM_CURRENCIES = ["USD", "EUR", "MXN"];

// src/domain/internal-account.ts
var InternalAccountType = NamedLiterals("InternalAccountType", ["INTERNAL_FIAT", "INTERNAL_CRYPTO", "EMBEDDED_WALLET"]);
var InternalAccountStatus = NamedLiterals("InternalAccountStatus", ["PENDING", "ACTIVE", "CLOSED", "FROZEN", "FAILED"]);
var PaymentAccountOrWalletInfo = Schema4.StructWithRest(
  Schema4.Struct({ accountType: Schema4.String, reference: Schema4.optionalKey(Schema4.String) }),
  [Schema4.Record(Schema4.String, Schema4.Unknown)]
).annotate({ identifier: "PaymentAccountOrWalletInfo" });
var PaymentInstructions = NamedStruct("PaymentInstructions", {
  instructionsNotes: Schema4.optionalKey(Schema4.String),
  isPlatformAccount: Schema4.optionalKey(Schema4.Boolean),
  accountOrWalletInfo: PaymentAccountOrWalletInfo
});
var InternalAccount = NamedStruct("InternalAccount", {
  id: Schema4.String,
  customerId: Schema4.optionalKey(Schema4.String),
  type: InternalAccountType,
  status: InternalAccountStatus,
  balance: CurrencyAmount,
  totalBalance: CurrencyAmount,
  fundingPaymentInstructions: Schema4.Array(PaymentInstructions),
  /** EMBEDDED_WALLET only: whether wallet privacy is on. */
  privateEnabled: Schema4.optionalKey(Schema4.Boolean),
  ...Timestamps
});
var SandboxFundRequest = NamedStruct("SandboxFundRequest", {
  amount: Schema4.Number.check(Schema4.isInt(), Schema4.isGreaterThan(0), Schema4.isLessThanOrEqualTo(1e11))
});

// src/domain/sca.ts
import { Schema as Schema5 } from "effect";
var Text = (max) => NonEmpty.check(maxChars(max));
var Opaque = Schema5.Record(Schema5.String, Schema5.Unknown);
var nullable = (s) => Schema5.optionalKey(Schema5.NullOr(s));
var ContactVerificationStatus = NamedLiterals("ContactVerificationStatus", ["PENDING", "VERIFIED"]);
var ContactVerification = NamedStruct("ContactVerification", {
  email: Schema5.optionalKey(ContactVerificationStatus),
  phone: Schema5.optionalKey(ContactVerificationStatus)
});
var ContactVerificationConfirmRequest = NamedStruct("ContactVerificationConfirmRequest", {
  code: Text(64)
});
var SCA_FACTORS = ["SMS_OTP", "TOTP", "PASSKEY"];
var ScaFactor = Schema5.Literals(SCA_FACTORS).annotate({ identifier: "ScaFactor" });
var ScaFactorView = NamedStruct("ScaFactorView", {
  factor: ScaFactor,
  credentialId: Schema5.optionalKey(Schema5.String),
  name: Schema5.optionalKey(Schema5.String)
});
var ScaFactorList = NamedStruct("ScaFactorList", { factors: Schema5.Array(ScaFactorView) });
var ScaFactorEnrollRequest = Schema5.Union([
  NamedStruct("TotpFactorEnrollRequest", { type: Schema5.Literal("TOTP") }),
  NamedStruct("PasskeyFactorEnrollRequest", { type: Schema5.Literal("PASSKEY") })
]).annotate({ identifier: "ScaFactorEnrollRequestOneOf" });
var TotpEnrollmentStart = NamedStruct("TotpEnrollmentStart", {
  type: Schema5.Literal("TOTP"),
  secret: Schema5.String,
  secretBase32Encoded: Schema5.String,
  totpUri: Schema5.String
});
var PasskeyEnrollmentStart = NamedStruct("PasskeyEnrollmentStart", {
  type: Schema5.Literal("PASSKEY"),
  options: Opaque,
  allowedOrigins: Schema5.Array(Schema5.String),
  relyingPartyId: Schema5.String
});
var ScaFactorEnrollStart = Schema5.Union([TotpEnrollmentStart, PasskeyEnrollmentStart]).annotate({ identifier: "ScaFactorEnrollStartOneOf" });
var ScaFactorConfirmRequest = Schema5.Union([
  NamedStruct("TotpEnrollmentConfirmRequest", { type: Schema5.Literal("TOTP"), secret: Text(128), code: Text(64) }),
  NamedStruct("PasskeyEnrollmentConfirmRequest", { type: Schema5.Literal("PASSKEY"), origin: Text(2048), credential: Opaque })
]).annotate({ identifier: "ScaFactorConfirmRequestOneOf" });
var ScaFactorConfirmResponse = Schema5.Union([
  NamedStruct("TotpEnrollmentConfirmResponse", { type: Schema5.Literal("TOTP"), recoveryCodes: Schema5.Array(Schema5.String) }),
  NamedStruct("PasskeyEnrollmentConfirmResponse", { type: Schema5.Literal("PASSKEY"), factor: ScaFactorView })
]).annotate({ identifier: "ScaFactorConfirmResponseOneOf" });
var ScaLoginStartRequest = NamedStruct("ScaLoginStartRequest", { factor: ScaFactor });
var ScaLoginStart = NamedStruct("ScaLoginStart", {
  factor: ScaFactor,
  challengeId: nullable(Schema5.String),
  expiresAt: nullable(Schema5.String),
  passkeyOptions: nullable(Opaque),
  allowedOrigins: nullable(Schema5.Array(Schema5.String)),
  relyingPartyId: nullable(Schema5.String)
});
var IpAddress = Schema5.String.check(
  Schema5.isPattern(/^[0-9A-Fa-f.:]{2,45}$/, { message: "must be an IPv4 or IPv6 address" })
);
var proofFields = {
  code: nullable(Text(64)),
  passkeyAssertion: nullable(Opaque),
  origin: nullable(Text(2048))
};
var ScaLoginCompleteRequest = NamedStruct("ScaLoginCompleteRequest", {
  factor: ScaFactor,
  endUserIpAddress: IpAddress,
  challengeId: nullable(Text(255)),
  ...proofFields
});
var ScaLoginComplete = NamedStruct("ScaLoginComplete", {
  status: Schema5.String,
  sessionExpiresAt: nullable(Schema5.String)
});
var SecurityEventType = NamedLiterals("SecurityEventType", ["RESET_PASSWORD_COMPLETED", "FAILED_LOGIN_ATTEMPT"]);
var RecordSecurityEventRequest = NamedStruct("RecordSecurityEventRequest", { eventType: SecurityEventType });
var RecordSecurityEventResponse = NamedStruct("RecordSecurityEventResponse", {
  eventType: SecurityEventType,
  suspended: Schema5.Boolean,
  lockedUntil: nullable(Schema5.String),
  failedAttempts: Schema5.Number
});
var TwoFactorResetStartRequest = NamedStruct("TwoFactorResetStartRequest", { factor: ScaFactor });
var TwoFactorResetStart = NamedStruct("TwoFactorResetStart", {
  resetId: Schema5.String,
  livenessAccessToken: nullable(Schema5.String),
  verificationLink: nullable(Schema5.String),
  expiresAt: nullable(Schema5.String)
});
var TwoFactorResetStatusValue = Schema5.Literals(["INITIATED", "PENDING_REVIEW", "LIVENESS_PASSED", "COMPLETED", "REJECTED", "EXPIRED"]);
var TwoFactorResetStatus = NamedStruct("TwoFactorResetStatus", {
  status: TwoFactorResetStatusValue,
  factor: ScaFactor,
  enrollmentStatus: nullable(Schema5.Literals(["PENDING", "COMPLETED"])),
  expiresAt: Schema5.String,
  completedAt: nullable(Schema5.String)
});
var TwoFactorResetCompleteRequest = NamedStruct("TwoFactorResetCompleteRequest", {
  mobile: Schema5.optionalKey(Schema5.Struct({
    countryCode: Schema5.String.check(Schema5.isPattern(/^\+[1-9][0-9]{0,3}$/, { message: "must be a dialing code such as +33" })),
    number: Schema5.String.check(Schema5.isPattern(/^[0-9]{4,14}$/, { message: "must be 4 to 14 digits" }))
  }))
});
var ScaAuthorization = NamedStruct("ScaAuthorization", {
  ...proofFields,
  endUserIpAddress: nullable(IpAddress)
});
var ScaChallenge = NamedStruct("ScaChallenge", {
  id: Schema5.String,
  expiresAt: Schema5.String,
  factor: ScaFactor,
  availableFactors: Schema5.Array(ScaFactor),
  purpose: nullable(Schema5.String),
  passkeyAssertionOptions: nullable(Opaque)
});

// src/domain/quote.ts
var Id = Schema6.String.check(Schema6.isMinLength(1), Schema6.isMaxLength(255));
var QuoteLockSide = NamedLiterals("QuoteLockSide", ["SENDING", "RECEIVING"]);
var QuoteStatus = NamedLiterals("QuoteStatus", ["PENDING", "PENDING_AUTHORIZATION", "PROCESSING", "COMPLETED", "FAILED", "EXPIRED"]);
var PurposeOfPayment = NamedLiterals("PurposeOfPayment", [
  "GIFT",
  "SELF",
  "GOODS_OR_SERVICES",
  "EDUCATION",
  "HEALTH_OR_MEDICAL",
  "REAL_ESTATE_PURCHASE",
  "TAX_PAYMENT",
  "LOAN_PAYMENT",
  "UTILITY_BILL",
  "DONATION",
  "TRAVEL",
  "FAMILY_SUPPORT",
  "SALARY_PAYMENT",
  "OTHER"
]);
var FixedFee = NamedStruct("FixedFee", {
  amount: Schema6.Number.check(Schema6.isInt(), Schema6.isBetween({ minimum: 0, maximum: MAX_AMOUNT })),
  currency: CurrencyCode
});
var Bps = Schema6.Number.check(Schema6.isInt(), Schema6.isBetween({ minimum: 0, maximum: 1e4 }));
var PlatformFeeOverride = NamedStruct("PlatformFeeOverride", {
  platformFixedFee: FixedFee,
  platformVariableFeeBps: Bps
});
var AccountQuoteSource = NamedStruct("AccountQuoteSource", {
  sourceType: Schema6.Literal("ACCOUNT"),
  accountId: Id,
  customerId: Schema6.optionalKey(Id)
});
var RealtimeFundingQuoteSource = NamedStruct("RealtimeFundingQuoteSource", {
  sourceType: Schema6.Literal("REALTIME_FUNDING"),
  customerId: Schema6.optionalKey(Id),
  currency: CurrencyCode,
  cryptoNetwork: Schema6.optionalKey(Schema6.String.check(Schema6.isMaxLength(64)))
});
var QuoteSource = Schema6.Union([AccountQuoteSource, RealtimeFundingQuoteSource]).annotate({ identifier: "QuoteSourceOneOf" });
var AccountDestination = NamedStruct("AccountDestination", {
  destinationType: Schema6.Literal("ACCOUNT"),
  accountId: Id,
  paymentRail: Schema6.optionalKey(PaymentRail)
});
var UmaAddressDestination = NamedStruct("UmaAddressDestination", {
  destinationType: Schema6.Literal("UMA_ADDRESS"),
  umaAddress: Schema6.String.check(Schema6.isMaxLength(255)),
  currency: Schema6.optionalKey(CurrencyCode)
});
var QuoteDestination = Schema6.Union([AccountDestination, UmaAddressDestination]).annotate({ identifier: "QuoteDestinationOneOf" });
var ScaFactorChoice = Schema6.Literals(SCA_FACTORS);
var CustomerInfoValues = Schema6.Record(
  Schema6.String.check(Schema6.isMaxLength(64)),
  Schema6.Union([Schema6.String.check(Schema6.isMaxLength(1e3)), Schema6.Number, Schema6.Boolean])
).check(Schema6.isMaxProperties(50));
var QuoteRequest = NamedStruct("QuoteRequest", {
  lookupId: Schema6.optionalKey(Id),
  source: QuoteSource,
  destination: QuoteDestination,
  lockedCurrencySide: QuoteLockSide,
  lockedCurrencyAmount: PositiveAmount,
  immediatelyExecute: Schema6.optionalKey(Schema6.Boolean),
  remittanceInformation: Schema6.optionalKey(Schema6.String.check(Schema6.isMaxLength(80))),
  purposeOfPayment: Schema6.optionalKey(PurposeOfPayment),
  /** A memo for the transfer, carried to its transaction's `description`. */
  description: Schema6.optionalKey(TextUpTo(MAX_DESCRIPTION_LENGTH)),
  platformFeeOverride: Schema6.optionalKey(PlatformFeeOverride),
  scaFactor: Schema6.optionalKey(ScaFactorChoice),
  /** Sender details a counterparty may require (field name → value), e.g. `FULL_NAME`. */
  senderCustomerInfo: Schema6.optionalKey(CustomerInfoValues)
});
var ExecuteQuoteRequest = NamedStruct("ExecuteQuoteRequest", {
  scaFactor: Schema6.optionalKey(ScaFactorChoice)
});
var OutgoingRateDetails = NamedStruct("OutgoingRateDetails", {
  counterpartyMultiplier: Schema6.Number,
  counterpartyFixedFee: Schema6.Number,
  gridApiMultiplier: Schema6.Number,
  gridApiFixedFee: Schema6.Number,
  gridApiVariableFeeRate: Schema6.Number,
  gridApiVariableFeeAmount: Schema6.Number
});
var Quote = NamedStruct("Quote", {
  id: Schema6.String,
  status: QuoteStatus,
  createdAt: Schema6.String,
  expiresAt: Schema6.String,
  source: QuoteSource,
  destination: QuoteDestination,
  sendingCurrency: Currency,
  receivingCurrency: Currency,
  totalSendingAmount: Schema6.Number,
  totalReceivingAmount: Schema6.Number,
  exchangeRate: Schema6.Number,
  feesIncluded: Schema6.Number,
  platformFeesIncluded: Schema6.optionalKey(Schema6.Number),
  paymentInstructions: Schema6.optionalKey(Schema6.Array(PaymentInstructions)),
  transactionId: Schema6.String,
  rateDetails: Schema6.optionalKey(OutgoingRateDetails),
  /** Only while PENDING_AUTHORIZATION: the SCA challenge to satisfy (SCA-region customers; docs/sca.md). */
  scaChallenge: Schema6.optionalKey(ScaChallenge)
});

// src/operations/customers.ts
import { Effect as Effect12 } from "effect";

// src/rules/sca.ts
var SCA_REGIONS = /* @__PURE__ */ new Set([
  "AT",
  "BE",
  "BG",
  "HR",
  "CY",
  "CZ",
  "DK",
  "EE",
  "FI",
  "FR",
  "DE",
  "GR",
  "HU",
  "IE",
  "IT",
  "LV",
  "LT",
  "LU",
  "MT",
  "NL",
  "PL",
  "PT",
  "RO",
  "SK",
  "SI",
  "ES",
  "SE",
  "IS",
  "LI",
  "NO"
]);
var requiresSca = (region) => region !== void 0 && SCA_REGIONS.has(region);
var SANDBOX_SCA_CODE = "123456";
var MINUTE = 6e4;
var HOUR = 60 * MINUTE;
var DAY = 24 * HOUR;
var CONTACT_CODE_TTL_MS = 10 * MINUTE;
var LOGIN_CODE_TTL_MS = 5 * MINUTE;
var ENROLLMENT_TTL_MS = 10 * MINUTE;
var SCA_SESSION_TTL_MS = 180 * DAY;
var AUTHORIZATION_TTL_MS = 5 * MINUTE;
var RESET_TTL_MS = 30 * MINUTE;
var contactVerificationAtCreation = (region) => requiresSca(region) ? { email: "PENDING", phone: "PENDING" } : void 0;
var contactVerificationAfterUpdate = (previous, next) => {
  if (!requiresSca(next.region)) return void 0;
  const was = previous.contactVerification ?? { email: "PENDING", phone: "PENDING" };
  return {
    email: previous.email === next.email ? was.email ?? "PENDING" : "PENDING",
    phone: previous.phoneNumber === next.phoneNumber ? was.phone ?? "PENDING" : "PENDING"
  };
};

// src/domain/customer.ts
import { Schema as Schema7, Struct } from "effect";
var opt2 = Schema7.optionalKey;
var CustomerType = NamedLiterals("CustomerType", ["INDIVIDUAL", "BUSINESS"]);
var REVIEW_STATUSES = ["UNVERIFIED", "PENDING", "APPROVED", "REJECTED", "HOLD"];
var KycStatus = Schema7.Literals(REVIEW_STATUSES).annotate({ identifier: "KycStatus" });
var KybStatus = Schema7.Literals(REVIEW_STATUSES).annotate({ identifier: "KybStatus" });
var IdentificationType = NamedLiterals("IdentificationType", ["SSN", "ITIN", "EIN", "NON_US_TAX_ID", "PASSPORT", "DRIVERS_LICENSE", "NATIONAL_ID"]);
var IndividualSourceOfFundsCategory = Schema7.Literals([
  "SALARY",
  "SELF_EMPLOYMENT_INCOME",
  "INVESTMENT_INCOME",
  "PENSION",
  "RENTAL_INCOME",
  "GIFT",
  "INHERITANCE",
  "LOAN",
  "SAVINGS",
  "SALE_OF_ASSETS",
  "OTHER"
]);
var SourceOfWealthCategory = Schema7.Literals([
  "SALARY",
  "BUSINESS_INCOME",
  "INVESTMENTS",
  "INHERITANCE",
  "PROPERTY_SALE",
  "GIFT",
  "RETIREMENT",
  "SAVINGS",
  "OTHER"
]);
var PurposeOfAccount = Schema7.Literals([
  "CONTRACTOR_PAYOUTS",
  "CREATOR_PAYOUTS",
  "EMPLOYEE_PAYOUTS",
  "MARKETPLACE_SELLER_PAYOUTS",
  "SUPPLIER_PAYMENTS",
  "CROSS_BORDER_B2B",
  "AR_AUTOMATION",
  "AP_AUTOMATION",
  "EMBEDDED_PAYMENTS",
  "PLATFORM_FEE_COLLECTION",
  "P2P_TRANSFERS",
  "CHARITABLE_DONATIONS",
  "OTHER"
]);
var ExpectedMonthlyTransactionCount = Schema7.Literals([
  "COUNT_UNDER_10",
  "COUNT_10_TO_100",
  "COUNT_100_TO_500",
  "COUNT_500_TO_1000",
  "COUNT_OVER_1000"
]);
var ExpectedMonthlyTransactionVolume = Schema7.Literals([
  "VOLUME_UNDER_10K",
  "VOLUME_10K_TO_100K",
  "VOLUME_100K_TO_1M",
  "VOLUME_1M_TO_10M",
  "VOLUME_OVER_10M"
]);
var AnnualIncomeRange = Schema7.Literals(["UNDER_50K", "RANGE_50K_100K", "RANGE_100K_250K", "RANGE_250K_1M", "OVER_1M"]);
var NetWorthRange = Schema7.Literals([
  "UNDER_100K",
  "RANGE_100K_500K",
  "RANGE_500K_1M",
  "RANGE_1M_5M",
  "RANGE_5M_25M",
  "OVER_25M"
]);
var PepStatus = Schema7.Literals(["NONE", "DOMESTIC", "FOREIGN", "HIO", "FAMILY_OR_ASSOCIATE"]);
var categories = (category) => Schema7.Array(category).check(maxItems(category.literals.length));
var eddFields = {
  sourceOfFundsCategories: opt2(categories(IndividualSourceOfFundsCategory)),
  sourceOfFundsOtherDescription: opt2(Schema7.String.check(Schema7.isBetweenLength(1, 500))),
  sourceOfWealthCategories: opt2(categories(SourceOfWealthCategory)),
  sourceOfWealthOtherDescription: opt2(Schema7.String.check(Schema7.isBetweenLength(1, 500))),
  purposeOfAccount: opt2(PurposeOfAccount),
  purposeOfAccountOtherDescription: opt2(Schema7.String.check(Schema7.isBetweenLength(1, 500))),
  expectedMonthlyTransactionCount: opt2(ExpectedMonthlyTransactionCount),
  expectedMonthlyTransactionVolume: opt2(ExpectedMonthlyTransactionVolume),
  annualIncomeRange: opt2(AnnualIncomeRange),
  netWorthRange: opt2(NetWorthRange),
  pepStatus: opt2(PepStatus)
};
var AgreementType = NamedLiterals("AgreementType", [
  "SERVICE_END_USER_TERMS",
  "PRIVACY_POLICY",
  "E_SIGN_CONSENT",
  "CARDHOLDER_AGREEMENT",
  "DEPOSIT_ACCOUNT_AGREEMENT",
  "DIGITAL_ASSET_CUSTODY_AGREEMENT",
  "ELECTRONIC_FUND_TRANSFER_DISCLOSURE"
]);
var AcceptanceMethod = NamedLiterals("AcceptanceMethod", ["CHECKBOX", "CLICK_TO_ACCEPT"]);
var IpAddress2 = Schema7.String.check(Schema7.isBetweenLength(1, 45));
var TermsVersion = NonEmptyTextUpTo(64);
var consentFields = {
  acceptedAt: DateTimeString,
  ipAddress: IpAddress2,
  termsVersion: TermsVersion,
  acceptanceMethod: AcceptanceMethod
};
var AgreementConsentRequest = NamedStruct("AgreementConsentRequest", { type: AgreementType, ...consentFields });
var AgreementConsent = AgreementConsentRequest.annotate({ identifier: "AgreementConsent" });
var Agreement = NamedStruct("Agreement", {
  type: AgreementType,
  version: Schema7.String,
  url: Schema7.String
});
var AgreementListResponse = NamedStruct("AgreementListResponse", { data: Schema7.Array(Agreement) });
var EndUserTerms = NamedStruct("EndUserTerms", { version: Schema7.String, url: Schema7.String });
var EndUserTermsConsentRequest = Schema7.Struct(consentFields).annotate({ identifier: "EndUserTermsConsentRequest" });
var EntityType = NamedLiterals("EntityType", [
  "SOLE_PROPRIETORSHIP",
  "PARTNERSHIP",
  "LLC",
  "CORPORATION",
  "S_CORPORATION",
  "NON_PROFIT",
  "PUBLICLY_LISTED_COMPANY",
  "TRUST",
  "PRIVATE_FOUNDATION",
  "CHARITY",
  "OTHER"
]);
var BusinessType = NamedLiterals("BusinessType", [
  "AGRICULTURE_FORESTRY_FISHING_AND_HUNTING",
  "MINING_QUARRYING_AND_OIL_AND_GAS_EXTRACTION",
  "UTILITIES",
  "CONSTRUCTION",
  "MANUFACTURING",
  "WHOLESALE_TRADE",
  "RETAIL_TRADE",
  "TRANSPORTATION_AND_WAREHOUSING",
  "INFORMATION",
  "FINANCE_AND_INSURANCE",
  "REAL_ESTATE_AND_RENTAL_AND_LEASING",
  "PROFESSIONAL_SCIENTIFIC_AND_TECHNICAL_SERVICES",
  "MANAGEMENT_OF_COMPANIES_AND_ENTERPRISES",
  "ADMINISTRATIVE_AND_SUPPORT_AND_WASTE_MANAGEMENT_AND_REMEDIATION_SERVICES",
  "EDUCATIONAL_SERVICES",
  "HEALTH_CARE_AND_SOCIAL_ASSISTANCE",
  "ARTS_ENTERTAINMENT_AND_RECREATION",
  "ACCOMMODATION_AND_FOOD_SERVICES",
  "OTHER_SERVICES",
  "PUBLIC_ADMINISTRATION"
]);
var SourceOfFundsCategory = NamedLiterals("SourceOfFundsCategory", [
  "OPERATING_REVENUE",
  "INVESTMENT_INCOME",
  "LOANS",
  "VENTURE_CAPITAL",
  "PERSONAL_SAVINGS",
  "DONATIONS",
  "OTHER"
]);
var OtherDescription = Schema7.String.check(Schema7.isBetweenLength(1, 500));
var Countries = Schema7.Array(CountryCode).check(maxItems(MAX_COUNTRIES));
var businessInfoFields = {
  legalName: NonEmptyTextUpTo(MAX_NAME_LENGTH),
  doingBusinessAs: opt2(TextUpTo(MAX_NAME_LENGTH)),
  country: CountryCode,
  registrationNumber: opt2(NonEmptyTextUpTo(MAX_ID_LENGTH)),
  incorporatedOn: DateString,
  entityType: opt2(EntityType),
  taxId: NonEmptyTextUpTo(MAX_ID_LENGTH),
  countriesOfOperation: opt2(Countries),
  businessType: opt2(BusinessType),
  purposeOfAccount: opt2(PurposeOfAccount),
  sourceOfFunds: opt2(TextUpTo(MAX_DESCRIPTION_LENGTH)),
  expectedMonthlyTransactionCount: opt2(ExpectedMonthlyTransactionCount),
  expectedMonthlyTransactionVolume: opt2(ExpectedMonthlyTransactionVolume),
  expectedRecipientJurisdictions: opt2(Countries),
  naicsCode: opt2(Schema7.String.check(Schema7.isPattern(/^\d{2,6}$/))),
  sourceOfFundsCategories: opt2(categories(SourceOfFundsCategory)),
  sourceOfFundsOtherDescription: opt2(OtherDescription),
  purposeOfAccountOtherDescription: opt2(OtherDescription),
  expectedCounterpartyCountries: opt2(Countries),
  primaryContactFirstName: opt2(Schema7.String.check(Schema7.isMaxLength(250))),
  primaryContactLastName: opt2(Schema7.String.check(Schema7.isMaxLength(250)))
};
var BusinessInfo = Schema7.Struct(Struct.mapPick(businessInfoFields, ["country", "incorporatedOn", "taxId"], opt2)).annotate({ identifier: "BusinessInfo" });
var BusinessInfoUpdate = Schema7.Struct(Struct.mapPick(BusinessInfo.fields, ["legalName"], opt2)).annotate({ identifier: "BusinessInfoUpdate" });
var commonCreate = {
  platformCustomerId: opt2(Schema7.String.check(Schema7.isBetweenLength(1, 255))),
  region: opt2(CountryCode),
  // Currency codes and tickers as the platform spells them (3 to 5 letters today).
  currencies: opt2(Schema7.Array(TextUpTo(16)).check(maxItems(100))),
  email: opt2(Email),
  phoneNumber: opt2(PhoneNumberE164),
  umaAddress: opt2(Schema7.String.check(
    Schema7.isPattern(/^\$[a-zA-Z0-9._-]+@[a-zA-Z0-9.-]+$/, { message: "must look like $name@domain" }),
    maxChars(255)
  )),
  // SPEC.md: one consent per agreement type.
  agreementConsents: opt2(Schema7.Array(AgreementConsentRequest).check(maxItems(AgreementType.literals.length))),
  endUserTermsConsent: opt2(EndUserTermsConsentRequest),
  address: opt2(Address)
};
var individualFields = {
  fullName: opt2(NonEmptyTextUpTo(MAX_NAME_LENGTH)),
  birthDate: opt2(DateString),
  nationality: opt2(CountryCode),
  idType: opt2(IdentificationType),
  identifier: opt2(NonEmptyTextUpTo(MAX_ID_LENGTH)),
  countryOfIssuance: opt2(CountryCode),
  ...eddFields
};
var customerRequests = (operation, common, businessInfo) => {
  const individual = NamedStruct(`IndividualCustomer${operation}Request`, { customerType: Schema7.Literal("INDIVIDUAL"), ...common, ...individualFields });
  const business = NamedStruct(`BusinessCustomer${operation}Request`, { customerType: Schema7.Literal("BUSINESS"), ...common, businessInfo });
  return { individual, business, either: Schema7.Union([individual, business]).annotate({ identifier: `Customer${operation}RequestOneOf` }) };
};
var createRequests = customerRequests("Create", commonCreate, BusinessInfo);
var IndividualCustomerCreateRequest = createRequests.individual;
var BusinessCustomerCreateRequest = createRequests.business;
var CustomerCreateRequest = createRequests.either;
var { platformCustomerId: _pcid, ...commonUpdate } = commonCreate;
var updateRequests = customerRequests("Update", commonUpdate, opt2(BusinessInfoUpdate));
var IndividualCustomerUpdateRequest = updateRequests.individual;
var BusinessCustomerUpdateRequest = updateRequests.business;
var CustomerUpdateRequest = updateRequests.either;
var commonResponse = {
  id: Schema7.String,
  platformCustomerId: Schema7.String,
  region: opt2(Schema7.String),
  currencies: opt2(Schema7.Array(Schema7.String)),
  email: opt2(Schema7.String),
  phoneNumber: opt2(Schema7.String),
  umaAddress: Schema7.String,
  address: opt2(Address),
  agreementConsents: Schema7.Array(AgreementConsent),
  endUserTermsConsent: opt2(EndUserTermsConsentRequest),
  ...Timestamps,
  isDeleted: Schema7.Boolean,
  /** Only for customers whose provider requires contact verification (SCA regions; docs/sca.md). */
  contactVerification: opt2(ContactVerification)
};
var { identifier: _identifier, ...individualResponseFields } = individualFields;
var IndividualCustomer = NamedStruct("IndividualCustomer", {
  customerType: Schema7.Literal("INDIVIDUAL"),
  ...commonResponse,
  kycStatus: KycStatus,
  ...individualResponseFields
});
var IndividualCustomerState = NamedStruct("IndividualCustomerState", {
  ...IndividualCustomer.fields,
  identifier: opt2(NonEmpty)
});
var BusinessCustomer = NamedStruct("BusinessCustomer", {
  customerType: Schema7.Literal("BUSINESS"),
  ...commonResponse,
  kybStatus: KybStatus,
  businessInfo: BusinessInfo
});
var CustomerResponse = Schema7.Union([IndividualCustomer, BusinessCustomer]).annotate({ identifier: "CustomerOneOf" });
var CustomerState = Schema7.Union([IndividualCustomerState, BusinessCustomer]);

// src/domain/errors.ts
import { Schema as Schema8 } from "effect";
var Error400Code = Schema8.Literals([
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
]);
var Error401Code = Schema8.Literals([
  "UNAUTHORIZED",
  "INVALID_SIGNATURE",
  "WALLET_SIGNATURE_MISSING",
  "WALLET_SIGNATURE_MALFORMED",
  "WALLET_SIGNATURE_BODY_MISMATCH",
  "WALLET_SIGNATURE_INVALID",
  "REQUEST_ID_MISSING"
]);
var Error403Code = Schema8.Literals([
  "FORBIDDEN",
  "USER_NOT_READY",
  "COUNTERPARTY_NOT_ALLOWED",
  "VELOCITY_LIMIT_EXCEEDED",
  "END_USER_TERMS_NOT_ACCEPTED"
]);
var Error404Code = Schema8.Literals([
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
]);
var Error409Code = Schema8.Literals([
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
]);
var Error410Code = Schema8.Literals(["CUSTOMER_DELETED"]);
var Error423Code = Schema8.Literals(["ACCOUNT_LOCKED"]);
var Error429Code = Schema8.Literals(["RATE_LIMITED", "DAILY_VOLUME_LIMIT_EXCEEDED"]);
var Error500Code = Schema8.Literals(["SERVICE_SWITCH_ERROR", "INTERNAL_ERROR"]);
var Error503Code = Schema8.Literals(["SERVICE_UNAVAILABLE"]);
var Error501Code = Schema8.Literals(["NOT_IMPLEMENTED", "UNRECOGNIZED_MANDATORY_PAYEE_DATA_KEY"]);
var FieldError = Schema8.Struct({
  field: Schema8.String,
  constraint: Schema8.String,
  message: Schema8.String
});
var ErrorDetails = Schema8.Record(Schema8.String, Schema8.Unknown);
var errorFields = (code) => ({
  code,
  reason: Schema8.String,
  /** The reference's name for the same text (always equal to `reason`). */
  message: Schema8.String,
  details: Schema8.optionalKey(ErrorDetails)
});
var withMessage = (props) => ({
  code: props.code,
  reason: props.reason,
  message: props.message ?? props.reason,
  ...props.details === void 0 ? {} : { details: props.details }
});
var Error400 = class extends Schema8.Error("Error400")(errorFields(Error400Code), {
  httpApiStatus: 400,
  description: "Bad request"
}) {
  constructor(props, options) {
    super(withMessage(props), options);
  }
};
var Error401 = class extends Schema8.Error("Error401")(errorFields(Error401Code), {
  httpApiStatus: 401,
  description: "Unauthorized"
}) {
  constructor(props, options) {
    super(withMessage(props), options);
  }
};
var Error403 = class extends Schema8.Error("Error403")(errorFields(Error403Code), {
  httpApiStatus: 403,
  description: "Forbidden"
}) {
  constructor(props, options) {
    super(withMessage(props), options);
  }
};
var Error404 = class extends Schema8.Error("Error404")(errorFields(Error404Code), {
  httpApiStatus: 404,
  description: "Not found"
}) {
  constructor(props, options) {
    super(withMessage(props), options);
  }
};
var Error409 = class extends Schema8.Error("Error409")(errorFields(Error409Code), {
  httpApiStatus: 409,
  description: "Conflict"
}) {
  constructor(props, options) {
    super(withMessage(props), options);
  }
};
var Error410 = class extends Schema8.Error("Error410")(errorFields(Error410Code), {
  httpApiStatus: 410,
  description: "Gone"
}) {
  constructor(props, options) {
    super(withMessage(props), options);
  }
};
var Error423 = class extends Schema8.Error("Error423")(errorFields(Error423Code), {
  httpApiStatus: 423,
  description: "Locked: the customer's SCA login is locked (details.lockedUntil, details.failedAttempts, details.suspended)"
}) {
  constructor(props, options) {
    super(withMessage(props), options);
  }
};
var Error429 = class extends Schema8.Error("Error429")(errorFields(Error429Code), {
  httpApiStatus: 429,
  description: "Too many requests"
}) {
  constructor(props, options) {
    super(withMessage(props), options);
  }
};
var Error500 = class extends Schema8.Error("Error500")(errorFields(Error500Code), {
  httpApiStatus: 500,
  description: "Internal service error"
}) {
  constructor(props, options) {
    super(withMessage(props), options);
  }
};
var Error503 = class extends Schema8.Error("Error503")(errorFields(Error503Code), {
  httpApiStatus: 503,
  description: "Service unavailable: nothing was applied; retry"
}) {
  constructor(props, options) {
    super(withMessage(props), options);
  }
};
var Error501 = class extends Schema8.Error("Error501")(errorFields(Error501Code), {
  httpApiStatus: 501,
  description: "Not implemented"
}) {
  constructor(props, options) {
    super(withMessage(props), options);
  }
};
var invalidInput = (reason, errors) => new Error400(errors === void 0 ? { code: "INVALID_INPUT", reason } : {
  code: "INVALID_INPUT",
  reason,
  details: { errors }
});
var badRequest = (code, reason, extra) => new Error400({ code, reason, ...extra });
var unauthorized = (reason, code = "UNAUTHORIZED") => new Error401({ code, reason });
var forbidden = (reason, code = "FORBIDDEN") => new Error403({ code, reason });
var notFound = (reason, code = "NOT_FOUND") => new Error404({ code, reason });
var conflict = (code, reason, extra) => new Error409({ code, reason, ...extra });
var tooMany = (code, reason, extra) => new Error429({ code, reason, ...extra });
var gone = (reason) => new Error410({ code: "CUSTOMER_DELETED", reason });

// src/ports/ids.ts
import { Context } from "effect";
var Ids = class extends Context.Service()("payments-service/ports/Ids") {
};
var DeterministicPlatform = Context.Reference(
  "payments-service/ports/DeterministicPlatform",
  { defaultValue: () => void 0 }
);

// src/ports/store.ts
import { Context as Context2 } from "effect";

// src/ports/shared.ts
import { Data } from "effect";
var UniqueConstraints = {
  customersActivePlatformCustomerId: "customers_active_platform_customer_id",
  customersActiveUmaAddress: "customers_active_uma_address",
  externalAccountsEquivalence: "external_accounts_equivalence",
  externalAccountsDefaultUma: "external_accounts_default_uma",
  documentsHolderType: "documents_holder_type",
  internalAccountsOwnerCurrency: "internal_accounts_owner_currency",
  cardsPlatformCardId: "cards_platform_card_id",
  stablecoinProviderAccountsAccount: "stablecoin_provider_accounts_account",
  stablecoinsSymbol: "stablecoins_symbol",
  stablecoinsTokenIdentifier: "stablecoins_token_identifier"
};
var uniqueConstraintNames = new Set(Object.values(UniqueConstraints));
var isUniqueConstraint = (name) => uniqueConstraintNames.has(name);
var StoreConflict = class extends Data.TaggedError("StoreConflict") {
};
var InvalidCursor = class extends Data.TaggedError("InvalidCursor") {
};
var LedgerRejected = class extends Data.TaggedError("LedgerRejected") {
};
var TOTAL_COUNT_LIMIT = 1e3;
var totalCountOf = (count) => count === void 0 || count > TOTAL_COUNT_LIMIT ? {} : { totalCount: count };

// src/ports/store.ts
var Store = class extends Context2.Service()("payments-service/ports/Store") {
};

// src/operations/paging.ts
import { Effect } from "effect";
var instantOf = (field, text2) => {
  if (text2 === void 0) return Effect.succeed(void 0);
  const ms = Date.parse(text2);
  return Number.isNaN(ms) ? Effect.fail(invalidInput(`${field} is not a date-time`, [{ field, constraint: "dateTime", message: "must be an ISO 8601 date-time" }])) : Effect.succeed(ms);
};
var pageRequestOf = (q) => ({
  limit: q.limit ?? DEFAULT_PAGE_LIMIT,
  cursor: q.cursor
});
var changedWindowsOf = Effect.fnUntraced(function* (q) {
  return {
    created: { from: yield* instantOf("createdAfter", q.createdAfter), to: yield* instantOf("createdBefore", q.createdBefore) },
    updated: { from: yield* instantOf("updatedAfter", q.updatedAfter), to: yield* instantOf("updatedBefore", q.updatedBefore) }
  };
});
var badCursor = () => invalidInput("cursor is not a cursor this API returned", [{
  field: "cursor",
  constraint: "cursor",
  message: "must be a nextCursor value from a previous page of the same list"
}]);
var pageOf = (page) => Effect.catchTag(page, "InvalidCursor", () => Effect.fail(badCursor()));
var shownPageOf = (page, show) => Effect.map(pageOf(page), (p) => ({ ...p, data: p.data.map(show) }));
var conflictIsDefect = (e) => Effect.die(e);

// src/rules/rejection.ts
var reject = (code, reason, details) => details === void 0 ? { code, reason } : { code, reason, details };
var invalidInput2 = (reason, errors) => reject("INVALID_INPUT", reason, errors === void 0 ? void 0 : { errors });

// src/rules/result.ts
var ok = (value) => ({ ok: true, value });
var fail = (error) => ({ ok: false, error });

// src/rules/agreements.ts
var LEGAL_BASE_URL = "https://legal.payments-service.dev";
var slug = (t) => t.toLowerCase().replace(/_/g, "-");
var AGREEMENT_VERSIONS = {
  SERVICE_END_USER_TERMS: { current: "V1", supported: ["V1"] },
  PRIVACY_POLICY: { current: "V1", supported: ["V1"] },
  E_SIGN_CONSENT: { current: "V1", supported: ["V1"] },
  CARDHOLDER_AGREEMENT: { current: "V1", supported: ["V1"] },
  DEPOSIT_ACCOUNT_AGREEMENT: { current: "V1", supported: ["V1"] },
  DIGITAL_ASSET_CUSTODY_AGREEMENT: { current: "V1", supported: ["V1"] },
  ELECTRONIC_FUND_TRANSFER_DISCLOSURE: { current: "V1", supported: ["V1"] }
};
var agreementOf = (type) => {
  const v = AGREEMENT_VERSIONS[type];
  return { type, version: v.current, url: `${LEGAL_BASE_URL}/${slug(type)}/${v.current}` };
};
var AGREEMENTS = Object.keys(AGREEMENT_VERSIONS).map(agreementOf);
var consentsOf = (req2) => {
  if (req2.agreementConsents !== void 0 && req2.endUserTermsConsent !== void 0) {
    return fail(invalidInput2("Send agreementConsents or the deprecated endUserTermsConsent, not both", [{
      field: "endUserTermsConsent",
      constraint: "exclusive",
      message: "cannot be sent together with agreementConsents"
    }]));
  }
  const deprecated = req2.endUserTermsConsent !== void 0;
  const list = req2.endUserTermsConsent !== void 0 ? [{ type: "SERVICE_END_USER_TERMS", ...req2.endUserTermsConsent }] : req2.agreementConsents ?? [];
  const seen = /* @__PURE__ */ new Set();
  const duplicates = [];
  const unknown = [];
  for (const [i, c] of list.entries()) {
    const at = deprecated ? "endUserTermsConsent" : `agreementConsents[${i}]`;
    if (seen.has(c.type)) {
      duplicates.push({ field: `${at}.type`, constraint: "unique", message: "at most one entry per agreement type per request" });
    }
    seen.add(c.type);
    const versions = AGREEMENT_VERSIONS[c.type];
    if (!versions.supported.includes(c.termsVersion)) {
      unknown.push({
        field: `${at}.termsVersion`,
        constraint: "supportedVersion",
        message: `${c.termsVersion} is not a version of ${c.type}; the current version is ${versions.current} (GET /customers/agreements)`
      });
    }
  }
  if (duplicates.length > 0) {
    return fail(invalidInput2(`agreementConsents holds an agreement type more than once`, duplicates));
  }
  if (unknown.length > 0) {
    return fail(reject("END_USER_TERMS_VERSION_NOT_FOUND", unknown.length === 1 ? `Unsupported termsVersion: ${unknown[0].message}` : `${unknown.length} consents name an unsupported termsVersion (see details.errors)`, { errors: unknown }));
  }
  return ok(list);
};
var mergeConsents = (existing, added) => {
  const byType = new Map(existing.map((c) => [c.type, c]));
  for (const c of added) {
    const prev = byType.get(c.type);
    if (prev === void 0 || Date.parse(prev.acceptedAt) <= Date.parse(c.acceptedAt)) byType.set(c.type, c);
  }
  return [...byType.values()];
};
var endUserTermsConsentOf = (consents) => {
  const c = consents.find((x) => x.type === "SERVICE_END_USER_TERMS");
  return c === void 0 ? void 0 : {
    acceptedAt: c.acceptedAt,
    ipAddress: c.ipAddress,
    termsVersion: c.termsVersion,
    acceptanceMethod: c.acceptanceMethod
  };
};

// src/rules/sandbox/suffix.ts
var suffixOf = (value) => value.slice(-3);

// src/rules/sandbox/kyc.ts
var KYC_SUFFIXES = {
  "001": { atCreation: "PENDING", onCompleteSubmission: "PENDING_MANUAL_REVIEW" },
  "002": { atCreation: "REJECTED", onCompleteSubmission: "REJECTED" },
  "003": { atCreation: "UNVERIFIED", onCompleteSubmission: "POOR_QUALITY_DOCUMENT" }
};
var KYC_ANY_OTHER = { atCreation: "APPROVED", onCompleteSubmission: "APPROVED" };
var kycRow = (fullName) => KYC_SUFFIXES[suffixOf(fullName)] ?? KYC_ANY_OTHER;
var resolvesAtCreation = (settings) => settings.sandbox && (settings.regulated || settings.skipVerificationPaperwork);
var kycStatusAtCreation = (settings, fullName) => resolvesAtCreation(settings) ? kycRow(fullName).atCreation : "UNVERIFIED";

// src/operations/rejection.ts
import { Effect as Effect2 } from "effect";
var byStatus = [
  [400, Error400Code.literals, (f) => new Error400(f)],
  [401, Error401Code.literals, (f) => new Error401(f)],
  [403, Error403Code.literals, (f) => new Error403(f)],
  [404, Error404Code.literals, (f) => new Error404(f)],
  [409, Error409Code.literals, (f) => new Error409(f)],
  [410, Error410Code.literals, (f) => new Error410(f)],
  [423, Error423Code.literals, (f) => new Error423(f)],
  [429, Error429Code.literals, (f) => new Error429(f)],
  [500, Error500Code.literals, (f) => new Error500(f)],
  [501, Error501Code.literals, (f) => new Error501(f)],
  [503, Error503Code.literals, (f) => new Error503(f)]
];
var makers = /* @__PURE__ */ new Map();
var STATUS_OF_CODE = (() => {
  const table = /* @__PURE__ */ new Map();
  for (const [status, codes, make] of byStatus) {
    for (const code of codes) {
      table.set(code, status);
      makers.set(code, make);
    }
  }
  return table;
})();
var toApiError = (rejection) => {
  const make = makers.get(rejection.code);
  if (make === void 0) throw new Error(`No HTTP status for error code ${rejection.code}`);
  const fields = rejection.details === void 0 ? { code: rejection.code, reason: rejection.reason } : { code: rejection.code, reason: rejection.reason, details: rejection.details };
  return make(fields);
};
var rejected = (rejection) => Effect2.fail(toApiError(rejection));
var fromResult = (r) => r.ok ? Effect2.succeed(r.value) : Effect2.fail(toApiError(r.error));

// src/operations/time.ts
import { Clock, Context as Context3, Effect as Effect4 } from "effect";

// src/domain/platform.ts
import { Effect as Effect3, Schema as Schema9 } from "effect";

// src/domain/webhook-destinations.ts
import { BlockList, isIP } from "node:net";
var METADATA_ADDRESSES = ["169.254.169.254", "fd00:ec2::254", "100.100.100.200"];
var METADATA_NAMES = ["metadata", "metadata.google.internal", "metadata.goog", "instance-data", "instance-data.ec2.internal"];
var NEVER = /* @__PURE__ */ new Set(["link-local", "metadata", "unspecified", "multicast", "reserved"]);
var RANGES = [
  { cidr: "0.0.0.0/8", class: "unspecified" },
  { cidr: "127.0.0.0/8", class: "loopback" },
  { cidr: "169.254.0.0/16", class: "link-local" },
  { cidr: "10.0.0.0/8", class: "private" },
  { cidr: "172.16.0.0/12", class: "private" },
  { cidr: "192.168.0.0/16", class: "private" },
  { cidr: "100.64.0.0/10", class: "private" },
  { cidr: "192.0.0.0/24", class: "special" },
  { cidr: "192.0.2.0/24", class: "special" },
  { cidr: "198.18.0.0/15", class: "special" },
  { cidr: "198.51.100.0/24", class: "special" },
  { cidr: "203.0.113.0/24", class: "special" },
  { cidr: "224.0.0.0/4", class: "multicast" },
  { cidr: "240.0.0.0/4", class: "reserved" },
  { cidr: "::/128", class: "unspecified" },
  { cidr: "::1/128", class: "loopback" },
  { cidr: "fe80::/10", class: "link-local" },
  { cidr: "fec0::/10", class: "private" },
  { cidr: "fc00::/7", class: "private" },
  { cidr: "ff00::/8", class: "multicast" },
  { cidr: "2001:db8::/32", class: "special" },
  { cidr: "100::/64", class: "special" },
  // IPv4-compatible addresses (deprecated) other than :: and ::1 above.
  { cidr: "::/96", class: "reserved" }
];
var DESCRIPTION = {
  loopback: "a loopback address (127.0.0.0/8, ::1)",
  private: "in a private range (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10, fc00::/7)",
  special: "in a special-purpose range (documentation, benchmarking, 192.0.0.0/24)",
  public: "a public address",
  "link-local": "link-local (169.254.0.0/16, fe80::/10)",
  metadata: "a cloud metadata address",
  unspecified: "unspecified (0.0.0.0/8, ::)",
  multicast: "multicast (224.0.0.0/4, ff00::/8)",
  reserved: "reserved (240.0.0.0/4, IPv4-compatible IPv6)"
};
var NEVER_RULE = {
  "link-local": "LINK_LOCAL",
  metadata: "CLOUD_METADATA",
  unspecified: "UNSPECIFIED",
  multicast: "MULTICAST",
  reserved: "RESERVED"
};
var familyOf = (address) => {
  const v = isIP(address);
  return v === 4 ? "ipv4" : v === 6 ? "ipv6" : void 0;
};
var subnetOf = (text2) => {
  const [network = "", prefixText, ...rest] = text2.split("/");
  const family = familyOf(network);
  if (family === void 0 || rest.length > 0) return void 0;
  const max = family === "ipv4" ? 32 : 128;
  if (prefixText === void 0) return { network, prefix: max, family };
  if (!/^\d{1,3}$/.test(prefixText)) return void 0;
  const prefix = Number(prefixText);
  return prefix <= max ? { network, prefix, family } : void 0;
};
var blockListOf = (cidrs) => {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const s = subnetOf(cidr);
    if (s !== void 0) list.addSubnet(s.network, s.prefix, s.family);
  }
  return list;
};
var metadataList = blockListOf(METADATA_ADDRESSES);
var rangeLists = RANGES.map((r) => ({ ...r, list: blockListOf([r.cidr]), family: subnetOf(r.cidr).family }));
var hextetsOf = (address) => {
  let text2 = address.split("%")[0].toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text2);
  if (dotted !== null) {
    const [a, b, c, d] = dotted[1].split(".").map(Number);
    text2 = `${text2.slice(0, dotted.index)}${(a << 8 | b).toString(16)}:${(c << 8 | d).toString(16)}`;
  }
  const [head = "", tail2] = text2.split("::");
  const parse = (part) => part === "" ? [] : part.split(":").map((h) => parseInt(h, 16));
  const left = parse(head);
  const right = tail2 === void 0 ? [] : parse(tail2);
  return [...left, ...Array(8 - left.length - right.length).fill(0), ...right];
};
var ipv4Of = (high, low) => `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
var normalizeAddress = (address) => {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  if (familyOf(bare) !== "ipv6") return bare;
  const h = hextetsOf(bare);
  const zeros = (from, to) => h.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && h[5] === 65535) return ipv4Of(h[6], h[7]);
  if (h[0] === 100 && h[1] === 65435 && zeros(2, 6)) return ipv4Of(h[6], h[7]);
  if (h[0] === 8194) return ipv4Of(h[1], h[2]);
  return bare.split("%")[0].toLowerCase();
};
var classOf = (address) => {
  const normal = normalizeAddress(address);
  const family = familyOf(normal);
  if (family === void 0) return void 0;
  if (metadataList.check(normal, family)) return "metadata";
  for (const r of rangeLists) if (r.family === family && r.list.check(normal, family)) return r.class;
  return "public";
};
var DEFAULT_SANDBOX_DESTINATIONS = ["loopback", "public"];
var DEFAULT_PRODUCTION_DESTINATIONS = ["public"];
var destinationEntryProblem = (entry) => {
  const e = entry.trim().toLowerCase();
  if (e === "loopback" || e === "public" || e === "private") return void 0;
  const s = subnetOf(e);
  if (s === void 0) return `${JSON.stringify(entry)} is not loopback, public, private or an IP range such as 10.20.0.0/16`;
  const cls = classOf(s.network);
  if (cls !== void 0 && NEVER.has(cls)) return `${entry} is ${DESCRIPTION[cls]}: webhooks are never sent there, whatever the list says`;
  return void 0;
};
var parseDestinations = (list) => {
  const entries = list.map((e) => e.trim().toLowerCase()).filter((e) => e !== "");
  if (entries.length === 0) return "must name at least one destination (loopback, public, private or an IP range)";
  for (const e of entries) {
    const problem = destinationEntryProblem(e);
    if (problem !== void 0) return problem;
  }
  const cidrs = entries.filter((e) => e !== "loopback" && e !== "public" && e !== "private");
  const has = (k) => entries.includes(k);
  return {
    entries,
    loopback: has("loopback"),
    public: has("public"),
    private: has("private"),
    ranges: blockListOf(cidrs),
    loopbackOnly: has("loopback") && entries.length === 1
  };
};
var policyOf = (list) => {
  const policy = parseDestinations(list);
  if (typeof policy === "string") throw new Error(`webhook destinations ${list.join(",")}: ${policy}`);
  return policy;
};
var SANDBOX_POLICY = policyOf(DEFAULT_SANDBOX_DESTINATIONS);
var PRODUCTION_POLICY = policyOf(DEFAULT_PRODUCTION_DESTINATIONS);
var LOOPBACK_POLICY = policyOf(["loopback"]);
var listText = (policy) => policy.entries.join(", ");
var addressRefusal = (address, policy, host = address) => {
  const normal = normalizeAddress(address);
  const cls = classOf(normal);
  const family = familyOf(normal);
  const what = host === address || `[${address}]` === host ? `${host}` : `${host} resolves to ${address}, which`;
  if (cls === void 0 || family === void 0) return { rule: "RESERVED", message: `${what} is not an IP address` };
  const never = NEVER_RULE[cls];
  if (never !== void 0) return { rule: never, message: `${what} is ${DESCRIPTION[cls]}: webhooks are never sent there` };
  if (policy.ranges.check(normal, family)) return void 0;
  if (cls === "loopback" && policy.loopback) return void 0;
  if (cls === "private" && policy.private) return void 0;
  if (cls === "public" && policy.public) return void 0;
  const rule = cls === "loopback" ? "LOOPBACK_NOT_ALLOWED" : cls === "private" ? "PRIVATE_NOT_ALLOWED" : cls === "special" ? "NON_PUBLIC_NOT_ALLOWED" : "PUBLIC_NOT_ALLOWED";
  return {
    rule,
    message: policy.loopbackOnly ? `${what} is not a loopback destination (${DESCRIPTION[cls]}; this platform's webhook destinations: loopback)` : `${what} is ${DESCRIPTION[cls]}, outside this platform's webhook destinations (${listText(policy)})`
  };
};
var hostKey = (host) => {
  const h = host.toLowerCase().replace(/\.$/, "");
  return h.startsWith("[") && h.endsWith("]") ? h.slice(1, -1) : h;
};
var isLocalhostName = (host) => {
  const h = hostKey(host);
  return h === "localhost" || h.endsWith(".localhost");
};
var isInvalidName = (host) => {
  const h = hostKey(host);
  return h === "invalid" || h.endsWith(".invalid");
};
var hostVerdict = (host, policy) => {
  const h = hostKey(host);
  if (isIP(h) !== 0) {
    const refusal2 = addressRefusal(h, policy);
    return refusal2 === void 0 ? { _tag: "Addresses", addresses: [h] } : { _tag: "Refused", refusal: refusal2 };
  }
  if (METADATA_NAMES.includes(h)) return { _tag: "Refused", refusal: { rule: "CLOUD_METADATA", message: `${h} is a cloud metadata name: webhooks are never sent there` } };
  if (isLocalhostName(h)) {
    const refusal2 = addressRefusal("127.0.0.1", policy, h);
    return refusal2 === void 0 ? { _tag: "Addresses", addresses: ["127.0.0.1", "::1"] } : { _tag: "Refused", refusal: refusal2 };
  }
  if (policy.loopbackOnly) {
    return {
      _tag: "Refused",
      refusal: { rule: "NOT_LOOKED_UP", message: `${h} is not a loopback destination (this platform's webhook destinations: loopback; a name other than localhost is not looked up)` }
    };
  }
  return { _tag: "Lookup" };
};

// src/domain/platform.ts
var WebhookDestinationsConfig = Schema9.NonEmptyArray(
  Schema9.String.check(Schema9.makeFilter((e) => destinationEntryProblem(e) ?? true))
).check(Schema9.isMaxLength(100));
var PlatformSettings = Schema9.Struct({
  /** A regulated financial institution: sandbox KYC resolves at creation. */
  regulated: Schema9.Boolean,
  /** "Skip verification paperwork": sandbox KYC/KYB resolve without a packet. */
  skipVerificationPaperwork: Schema9.Boolean,
  /** Subject to counterparty requirements such as the EU Travel Rule. */
  travelRule: Schema9.Boolean,
  /** Sandbox platforms get the magic values; a non-sandbox platform gets none. */
  sandbox: Schema9.Boolean
});
var EmbeddedWalletsConfig = Schema9.Struct({
  /** Default true when the object is present. */
  enabled: Schema9.optionalKey(Schema9.Boolean),
  /** The wallet's currency; default USDC. */
  currency: Schema9.optionalKey(CurrencyCode.check(Schema9.makeFilter((c) => currencyOf(c) !== void 0, { message: "must be a currency the service knows (see docs/money.md)" }))),
  /** How long a session lasts; default 900 (15 minutes). */
  sessionLifetimeSeconds: Schema9.optionalKey(Schema9.Number.check(Schema9.isInt(), Schema9.isBetween({ minimum: 60, maximum: 2592e3 }))),
  /** Passkey relying party: default rpId `localhost`, origins `http://localhost` and `https://localhost`. */
  passkey: Schema9.optionalKey(Schema9.Struct({
    rpId: Schema9.optionalKey(Schema9.String.check(Schema9.isMinLength(1), Schema9.isMaxLength(253))),
    allowedOrigins: Schema9.optionalKey(Schema9.Array(Schema9.String.check(Schema9.isMinLength(1), Schema9.isMaxLength(2048))).check(Schema9.isMaxLength(50)))
  })),
  /**
   * Supported OIDC issuers; default Google and Apple. Production verifies the token's
   * signature with the issuer's keys: a JWKS file (`jwksFile`) or URL (`jwksUrl`).
   */
  oidcIssuers: Schema9.optionalKey(Schema9.Array(Schema9.Struct({
    issuer: Schema9.String.check(Schema9.isMinLength(1), Schema9.isMaxLength(2048)),
    jwksFile: Schema9.optionalKey(Schema9.String.check(Schema9.isMinLength(1), Schema9.isMaxLength(4096))),
    jwksUrl: Schema9.optionalKey(Schema9.String.check(Schema9.isMaxLength(2048), Schema9.isPattern(/^https?:\/\/\S+$/, { message: "must be an http(s) URL" })))
  })).check(Schema9.isMaxLength(50)))
});
var DEFAULT_EMBEDDED_WALLETS = {
  currency: "USDC",
  sessionLifetimeSeconds: 900,
  rpId: "localhost",
  allowedOrigins: ["http://localhost", "https://localhost"],
  oidcIssuers: [{ issuer: "https://accounts.google.com" }, { issuer: "https://appleid.apple.com" }]
};
var embeddedWalletsFromConfig = (c) => {
  if (c === void 0 || c.enabled === false) return void 0;
  const d = DEFAULT_EMBEDDED_WALLETS;
  return {
    currency: c.currency ?? d.currency,
    sessionLifetimeSeconds: c.sessionLifetimeSeconds ?? d.sessionLifetimeSeconds,
    rpId: c.passkey?.rpId ?? d.rpId,
    allowedOrigins: c.passkey?.allowedOrigins ?? d.allowedOrigins,
    oidcIssuers: c.oidcIssuers ?? d.oidcIssuers
  };
};
var CardsConfig = Schema9.Struct({
  /** Whether the platform issues cards; default true. False: every card endpoint answers 501 NOT_IMPLEMENTED (the reference's "no card issuer configured"). */
  enabled: Schema9.optionalKey(Schema9.Boolean),
  /** Default `["USD", "USDC"]` (USDC: the embedded-wallet currency). */
  eligibleCurrencies: Schema9.optionalKey(Schema9.NonEmptyArray(CurrencyCode.check(Schema9.makeFilter((c) => currencyOf(c) !== void 0, { message: "must be a currency the service knows (see docs/money.md)" }))).check(Schema9.isMaxLength(50))),
  /** The platform's live-card maximum; default 10,000. */
  maxLiveCards: Schema9.optionalKey(Schema9.Number.check(Schema9.isInt(), Schema9.isBetween({ minimum: 0, maximum: 1e8 }))),
  /** At most one live card per cardholder; default false. */
  oneCardPerCardholder: Schema9.optionalKey(Schema9.Boolean)
});
var DEFAULT_CARD_SETTINGS = {
  enabled: true,
  eligibleCurrencies: ["USD", "USDC"],
  maxLiveCards: 1e4,
  oneCardPerCardholder: false
};
var cardSettingsFromConfig = (c) => ({
  enabled: c?.enabled ?? DEFAULT_CARD_SETTINGS.enabled,
  eligibleCurrencies: c?.eligibleCurrencies === void 0 ? DEFAULT_CARD_SETTINGS.eligibleCurrencies : [...new Set(c.eligibleCurrencies)],
  maxLiveCards: c?.maxLiveCards ?? DEFAULT_CARD_SETTINGS.maxLiveCards,
  oneCardPerCardholder: c?.oneCardPerCardholder ?? DEFAULT_CARD_SETTINGS.oneCardPerCardholder
});
var PlatformConfigEntry = Schema9.Struct({
  id: Schema9.String.check(Schema9.isMinLength(1)),
  name: Schema9.optionalKey(Schema9.String),
  clientId: Schema9.String.check(Schema9.isMinLength(1)),
  clientSecret: Schema9.String.check(Schema9.isMinLength(8)),
  regulated: Schema9.optionalKey(Schema9.Boolean),
  skipVerificationPaperwork: Schema9.optionalKey(Schema9.Boolean),
  travelRule: Schema9.optionalKey(Schema9.Boolean),
  sandbox: Schema9.optionalKey(Schema9.Boolean),
  /** The currencies the platform supports: one internal account each per approved customer. */
  currencies: Schema9.optionalKey(Schema9.NonEmptyArray(CurrencyCode.check(Schema9.makeFilter((c) => currencyOf(c) !== void 0, { message: "must be a currency the service knows (see docs/money.md)" })))),
  /** The platform's UMA domain (customers' addresses are `$name@<umaDomain>`). */
  umaDomain: Schema9.optionalKey(Schema9.String.check(Schema9.isMinLength(1), Schema9.isMaxLength(253))),
  /** The domain of the sandbox UMA counterparties (`$success.usd@...`). */
  sandboxUmaDomain: Schema9.optionalKey(Schema9.String.check(Schema9.isMinLength(1), Schema9.isMaxLength(253))),
  /** The webhook endpoint until `PATCH /config` sets another (http or https; see docs/webhooks.md). */
  webhookEndpoint: Schema9.optionalKey(Schema9.String.check(Schema9.isMaxLength(2048), Schema9.isPattern(/^https?:\/\/\S+$/, { message: "must be an http(s) URL" }))),
  /** Where its webhooks may go; default: the server's --webhook-destinations, else `loopback, public` (sandbox) or `public` (production). */
  webhookDestinations: Schema9.optionalKey(WebhookDestinationsConfig),
  /** Embedded wallets for the platform's customers (off unless present; see EmbeddedWalletsConfig). */
  embeddedWallets: Schema9.optionalKey(EmbeddedWalletsConfig),
  /** Card issuance settings (every field has a default; see CardsConfig). */
  cards: Schema9.optionalKey(CardsConfig),
  /** A seed document (JSON file, relative to the platforms file) applied at start: docs/sandbox.md#fixtures. */
  seedDocument: Schema9.optionalKey(Schema9.String.check(Schema9.isMinLength(1))),
  /**
   * A deterministic platform (sandbox only): its ids and generated values come from a
   * stream seeded by this number and its clock stands still but for
   * `/sandbox/clock/advance` (docs/sandbox.md#deterministic-runs).
   */
  deterministicSeed: Schema9.optionalKey(Schema9.Number.check(Schema9.isInt(), Schema9.isBetween({ minimum: 0, maximum: 4294967295 })))
}).check(Schema9.makeFilter((e) => e.deterministicSeed === void 0 || e.sandbox !== false, { message: "deterministicSeed is for sandbox platforms only (a production platform's clock is real time)" }));
var PaymentsConfig = Schema9.Struct({
  platforms: Schema9.NonEmptyArray(PlatformConfigEntry)
});
var DETERMINISTIC_EPOCH_MILLIS = Date.UTC(2025, 0, 1);
var standingClock = (base2, at) => ({
  monotonicTimeNanosUnsafe: () => base2.monotonicTimeNanosUnsafe(),
  monotonicTimeNanos: base2.monotonicTimeNanos,
  sleep: (duration) => base2.sleep(duration),
  currentTimeMillisUnsafe: () => at,
  currentTimeMillis: Effect3.succeed(at),
  currentTimeNanosUnsafe: () => BigInt(at) * 1000000n,
  currentTimeNanos: Effect3.succeed(BigInt(at) * 1000000n)
});
var isDeterministic = (platform) => platform.deterministicSeed !== void 0 && platform.settings.sandbox;
var DEFAULT_SANDBOX_UMA_DOMAIN = "sandbox.grid.uma.money";
var platformCurrencies = (platform) => platform.currencies ?? DEFAULT_PLATFORM_CURRENCIES;
var sandboxUmaDomainOf = (platform) => platform.sandboxUmaDomain ?? DEFAULT_SANDBOX_UMA_DOMAIN;
var platformFromConfig = (entry) => ({
  id: entry.id,
  name: entry.name ?? entry.id,
  clientId: entry.clientId,
  clientSecret: entry.clientSecret,
  settings: {
    regulated: entry.regulated ?? false,
    skipVerificationPaperwork: entry.skipVerificationPaperwork ?? false,
    travelRule: entry.travelRule ?? false,
    sandbox: entry.sandbox ?? true
  },
  ...entry.currencies === void 0 ? {} : { currencies: [...new Set(entry.currencies)] },
  ...entry.umaDomain === void 0 ? {} : { umaDomain: entry.umaDomain },
  ...entry.sandboxUmaDomain === void 0 ? {} : { sandboxUmaDomain: entry.sandboxUmaDomain },
  ...entry.webhookEndpoint === void 0 ? {} : { webhookEndpoint: entry.webhookEndpoint },
  ...entry.webhookDestinations === void 0 ? {} : { webhookDestinations: entry.webhookDestinations.map((e) => e.trim().toLowerCase()) },
  ...withEmbeddedWallets(embeddedWalletsFromConfig(entry.embeddedWallets)),
  ...entry.cards === void 0 ? {} : { cards: cardSettingsFromConfig(entry.cards) },
  ...entry.deterministicSeed === void 0 ? {} : { deterministicSeed: entry.deterministicSeed }
});
var withEmbeddedWallets = (settings) => settings === void 0 ? {} : { embeddedWallets: settings };
var SANDBOX_PLATFORM = platformFromConfig({
  id: "sandbox",
  name: "Sandbox platform",
  clientId: "sandbox_client_id",
  clientSecret: "sandbox_client_secret",
  embeddedWallets: {}
});

// src/operations/time.ts
var nowMillis = Effect4.withFiberSucceed((fiber) => fiber.getRef(Clock.Clock).currentTimeMillisUnsafe());
var MAX_DATE_MILLIS = 864e13;
var MILLIS_SUFFIXES = Array.from({ length: 1e3 }, (_, i) => `${String(i).padStart(3, "0")}Z`);
var ISO_SLOTS = 4;
var isoSeconds = Array.from({ length: ISO_SLOTS }, () => Number.NaN);
var isoPrefixes = Array.from({ length: ISO_SLOTS }, () => "");
var isoNext = 0;
var isoPrefixOf = (second) => {
  for (let i = 0; i < ISO_SLOTS; i++) if (isoSeconds[i] === second) return isoPrefixes[i];
  const text2 = new Date(second * 1e3).toISOString();
  const prefix = text2.slice(0, text2.length - 4);
  isoSeconds[isoNext] = second;
  isoPrefixes[isoNext] = prefix;
  isoNext = (isoNext + 1) % ISO_SLOTS;
  return prefix;
};
var isoOf = (millis) => {
  if (!Number.isSafeInteger(millis) || millis > MAX_DATE_MILLIS || millis < -MAX_DATE_MILLIS) return new Date(millis).toISOString();
  const second = Math.floor(millis / 1e3);
  return isoPrefixOf(second) + MILLIS_SUFFIXES[millis - second * 1e3];
};
var nowIso = Effect4.withFiberSucceed((fiber) => isoOf(fiber.getRef(Clock.Clock).currentTimeMillisUnsafe()));
var offsetClock = (base2, offset) => {
  if (offset === 0) return base2;
  const nanos = BigInt(offset) * 1000000n;
  return {
    currentTimeMillisUnsafe: () => base2.currentTimeMillisUnsafe() + offset,
    currentTimeMillis: Effect4.sync(() => base2.currentTimeMillisUnsafe() + offset),
    currentTimeNanosUnsafe: () => base2.currentTimeNanosUnsafe() + nanos,
    currentTimeNanos: Effect4.sync(() => base2.currentTimeNanosUnsafe() + nanos),
    monotonicTimeNanosUnsafe: () => base2.monotonicTimeNanosUnsafe(),
    monotonicTimeNanos: base2.monotonicTimeNanos,
    sleep: (duration) => base2.sleep(duration)
  };
};
var asPlatformWork = (platform, effect) => platform.deterministicSeed !== void 0 && isDeterministic(platform) ? Effect4.provideService(effect, DeterministicPlatform, { platformId: platform.id, seed: platform.deterministicSeed }) : effect;
var ClockUnderStanding = Context3.Reference("payments-service/operations/ClockUnderStanding", {
  defaultValue: () => void 0
});
var onOffset = (platform, effect, offset) => isDeterministic(platform) ? Effect4.clockWith((base2) => effect.pipe(
  Effect4.provideService(Clock.Clock, standingClock(base2, DETERMINISTIC_EPOCH_MILLIS + offset)),
  Effect4.provideService(ClockUnderStanding, base2)
)) : offset === 0 ? effect : Effect4.clockWith((base2) => Effect4.provideService(effect, Clock.Clock, offsetClock(base2, offset)));
var OnClockOf = Context3.Reference("payments-service/operations/OnClockOf", { defaultValue: () => void 0 });
var onOffsetIn = (store, platform, effect) => store.clocks.onLastSeenOffset !== void 0 ? store.clocks.onLastSeenOffset(platform.id, (offset) => onOffset(platform, effect, offset)) : Effect4.flatMap(store.clocks.offset(platform.id), (offset) => onOffset(platform, effect, offset));
var onPlatformClock = (platform, effect) => platform.settings.sandbox ? Effect4.withFiber((fiber) => onPlatformClockIn(fiber, platform, effect)) : effect;
var onPlatformClockIn = (fiber, platform, effect) => {
  if (!platform.settings.sandbox || fiber.getRef(OnClockOf) === platform.id) return effect;
  return asPlatformWork(platform, onOffsetIn(Context3.getUnsafe(fiber.context, Store), platform, effect));
};

// src/operations/wallets/signed.ts
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { Clock as Clock2, Effect as Effect5 } from "effect";

// src/crypto/bytes.ts
import { timingSafeEqual } from "node:crypto";
var toHex = (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("hex");
var HEX = /^(?:[0-9a-fA-F]{2})*$/;
var UPPER_HEX = /[A-F]/;
var view = (buffer2) => new Uint8Array(buffer2.buffer, buffer2.byteOffset, buffer2.length);
var fromHex = (text2, options) => {
  if (!HEX.test(text2)) return void 0;
  if (options?.lowercaseOnly === true && UPPER_HEX.test(text2)) return void 0;
  return view(Buffer.from(text2, "hex"));
};
var B64URL = /^[A-Za-z0-9_-]*$/;
var B64URL_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
var toBase64Url = (bytes) => Buffer.from(bytes).toString("base64url");
var fromBase64Url = (text2, options) => {
  let body = text2;
  if (options?.allowPadding === true && body.length % 4 === 0 && body.endsWith("=")) {
    body = body.endsWith("==") ? body.slice(0, -2) : body.slice(0, -1);
  }
  if (!B64URL.test(body)) return void 0;
  const rem = body.length % 4;
  if (rem === 1) return void 0;
  if (rem !== 0) {
    const last = B64URL_ALPHABET.indexOf(body.charAt(body.length - 1));
    const spare = rem === 2 ? 15 : 3;
    if ((last & spare) !== 0) return void 0;
  }
  return view(Buffer.from(body, "base64url"));
};
var utf8Encoder = new TextEncoder();
var utf8Decoder = new TextDecoder("utf-8", { fatal: true });
var utf8 = (text2) => utf8Encoder.encode(text2);
var fromUtf8 = (bytes) => {
  try {
    return utf8Decoder.decode(bytes);
  } catch {
    return void 0;
  }
};
var concatBytes = (...parts) => {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
};
var bytesEqual = (a, b) => {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
};
var constantTimeEqual = (a, b) => {
  if (a.length !== b.length) {
    timingSafeEqual(a, a);
    return false;
  }
  return timingSafeEqual(a, b);
};
var parseJsonObject = (text2) => {
  let value;
  try {
    value = JSON.parse(text2);
  } catch {
    return void 0;
  }
  return isRecord(value) ? value : void 0;
};
var isRecord = (value) => typeof value === "object" && value !== null && !Array.isArray(value);

// src/crypto/p256.ts
import { p256 } from "@noble/curves/nist.js";
import { createPublicKey, verify as nodeVerify } from "node:crypto";

// src/crypto/der.ts
var ORDER = Uint8Array.from([
  255,
  255,
  255,
  255,
  0,
  0,
  0,
  0,
  255,
  255,
  255,
  255,
  255,
  255,
  255,
  255,
  188,
  230,
  250,
  173,
  167,
  23,
  158,
  132,
  243,
  185,
  202,
  194,
  252,
  99,
  37,
  81
]);
var SCALAR_BYTES = 32;
var isScalarInRange = (scalar, offset = 0) => {
  let nonZero = false;
  let decided = false;
  let less = false;
  for (let i = 0; i < SCALAR_BYTES; i++) {
    const byte = scalar[offset + i] ?? 0;
    if (byte !== 0) nonZero = true;
    if (!decided) {
      const limit = ORDER[i] ?? 0;
      if (byte !== limit) {
        decided = true;
        less = byte < limit;
      }
    }
  }
  return nonZero && less;
};
var readInteger = (der, at, end, into, intoOffset) => {
  if (at + 2 > end || der[at] !== 2) return { ok: false, problem: "not_an_integer" };
  const length = der[at + 1] ?? 0;
  if (length >= 128) return { ok: false, problem: "long_form_length" };
  const start = at + 2;
  if (length === 0 || start + length > end) return { ok: false, problem: "length_mismatch" };
  const first = der[start] ?? 0;
  if (first & 128) return { ok: false, problem: "integer_negative" };
  if (first === 0 && length > 1 && ((der[start + 1] ?? 0) & 128) === 0) {
    return { ok: false, problem: "integer_not_minimal" };
  }
  let body = start;
  let bodyLength = length;
  if (first === 0 && length > 1) {
    body++;
    bodyLength--;
  }
  if (bodyLength > SCALAR_BYTES) return { ok: false, problem: "integer_too_large" };
  into.set(der.subarray(body, body + bodyLength), intoOffset + SCALAR_BYTES - bodyLength);
  return { ok: true, next: start + length };
};
var parseDerSignature = (der) => {
  if (der.length < 2 || der[0] !== 48) return { ok: false, problem: "not_a_sequence" };
  const length = der[1] ?? 0;
  if (length >= 128) return { ok: false, problem: "long_form_length" };
  if (2 + length !== der.length) return { ok: false, problem: "length_mismatch" };
  const compact = new Uint8Array(2 * SCALAR_BYTES);
  const r = readInteger(der, 2, der.length, compact, 0);
  if (!r.ok) return r;
  const s = readInteger(der, r.next, der.length, compact, SCALAR_BYTES);
  if (!s.ok) return s;
  if (s.next !== der.length) return { ok: false, problem: "length_mismatch" };
  if (!isScalarInRange(compact, 0) || !isScalarInRange(compact, SCALAR_BYTES)) {
    return { ok: false, problem: "scalar_out_of_range" };
  }
  return { ok: true, der, compact };
};

// src/lib/bounded-memo.ts
var BoundedMemo = class {
  #entries = /* @__PURE__ */ new Map();
  /** The most entries held at once. */
  limit;
  constructor(limit) {
    if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`BoundedMemo: the limit must be a positive integer, not ${limit}`);
    this.limit = limit;
  }
  /** How many entries it holds now (never more than `limit`). */
  get size() {
    return this.#entries.size;
  }
  /** The remembered value for `key`, if any. */
  get(key) {
    return this.#entries.get(key);
  }
  /**
   * The remembered value for `key`, else `compute(key)`, remembered unless `undefined`.
   * Pass a function that does not close over the call's values (a module-level one): a
   * closure built per call costs an allocation even on a hit.
   */
  getOrCompute(key, compute) {
    const known2 = this.#entries.get(key);
    if (known2 !== void 0) return known2;
    const value = compute(key);
    if (value !== void 0) this.#insert(key, value);
    return value;
  }
  /** Remembers `value` for `key` (replacing what it held for it), forgetting the oldest entry when full. */
  set(key, value) {
    if (this.#entries.size >= this.limit && !this.#entries.has(key)) this.#evictOldest();
    this.#entries.set(key, value);
  }
  /** Forgets `key`; whether it held it. */
  delete(key) {
    return this.#entries.delete(key);
  }
  /** Forgets everything. */
  clear() {
    this.#entries.clear();
  }
  /** `set` for a key known to be absent (a miss just now). */
  #insert(key, value) {
    if (this.#entries.size >= this.limit) this.#evictOldest();
    this.#entries.set(key, value);
  }
  #evictOldest() {
    const oldest = this.#entries.keys().next();
    if (oldest.done !== true) this.#entries.delete(oldest.value);
  }
};
var memoize = (limit, compute) => {
  const memo = new BoundedMemo(limit);
  return (key) => memo.getOrCompute(key, compute);
};

// src/crypto/p256.ts
var decodePoint = (bytes) => {
  const prefix = bytes[0];
  const wellSized = bytes.length === 33 && (prefix === 2 || prefix === 3) || bytes.length === 65 && prefix === 4;
  if (!wellSized) return void 0;
  let uncompressed;
  try {
    uncompressed = p256.Point.fromBytes(bytes).toBytes(false);
  } catch {
    return void 0;
  }
  const x = uncompressed.subarray(1, 33);
  const y = uncompressed.subarray(33, 65);
  const compressed = new Uint8Array(33);
  compressed[0] = ((y[31] ?? 0) & 1) === 1 ? 3 : 2;
  compressed.set(x, 1);
  const keyObject = createPublicKey({
    key: { kty: "EC", crv: "P-256", x: toBase64Url(x), y: toBase64Url(y) },
    format: "jwk"
  });
  return { compressedHex: toHex(compressed), uncompressedHex: toHex(uncompressed), uncompressed, keyObject };
};
var isValidPublicKeyBytes = (bytes) => {
  try {
    p256.Point.fromBytes(bytes);
    return true;
  } catch {
    return false;
  }
};
var keyCache = new BoundedMemo(1024);
var parsePublicKeyHex = (hex) => {
  const cacheKey = hex.toLowerCase();
  const cached = keyCache.get(cacheKey);
  if (cached !== void 0) return cached;
  const bytes = fromHex(cacheKey);
  if (bytes === void 0) return void 0;
  const key = decodePoint(bytes);
  if (key !== void 0) keyCache.set(cacheKey, key);
  return key;
};
var parsePublicKeyBytes = (bytes) => parsePublicKeyHex(toHex(bytes));
var verifyParsed = (key, message, signature, backend = "native") => {
  if (backend === "noble") {
    return p256.verify(signature.compact, message, key.uncompressed, { lowS: false, format: "compact", prehash: true });
  }
  try {
    return nodeVerify("sha256", message, key.keyObject, signature.der);
  } catch {
    return false;
  }
};

// src/crypto/sandbox.ts
var SANDBOX_OTP_CODE = "000000";
var SANDBOX_LEGACY_WALLET_SIGNATURE = "sandbox-legacy-wallet-signature";
var SANDBOX_LEGACY_PASSKEY_SIGNATURE = "sandbox-legacy-passkey-signature";
var SANDBOX_FORMER_OIDC_TOKEN = "sandbox-oidc-token";

// src/crypto/verdict.ts
var accept = (value) => ({ ok: true, value });
var rejecter = (table) => (reason) => {
  const info = table[reason];
  return { ok: false, reason, code: info.code, status: info.status, message: info.message };
};
var invalidInputReason = (message) => ({ code: "INVALID_INPUT", status: 400, message });
var unauthorizedReason = (message) => ({ code: "UNAUTHORIZED", status: 401, message });

// src/crypto/stamp.ts
var STAMP_SCHEME = "SIGNATURE_SCHEME_TK_API_P256";
var malformed = (message) => ({ code: "WALLET_SIGNATURE_MALFORMED", status: 401, message });
var invalid = (message) => ({ code: "WALLET_SIGNATURE_INVALID", status: 401, message });
var mismatch = (message) => ({ code: "WALLET_SIGNATURE_BODY_MISMATCH", status: 401, message });
var STAMP_REASONS = {
  header_missing: { code: "WALLET_SIGNATURE_MISSING", status: 401, message: "Service-Wallet-Signature header is missing" },
  header_not_base64url: malformed("Service-Wallet-Signature is not unpadded base64url"),
  header_not_json: malformed("Service-Wallet-Signature does not decode to a JSON object"),
  stamp_field_missing: malformed("Wallet signature stamp needs string publicKey, scheme and signature"),
  scheme_unsupported: malformed(`Wallet signature scheme must be ${STAMP_SCHEME}`),
  public_key_malformed: malformed("Wallet signature publicKey is not a P-256 public key in hex"),
  signature_not_hex: malformed("Wallet signature is not hex"),
  signature_not_der: malformed("Wallet signature is not a strict DER ECDSA signature"),
  key_not_active_session: invalid("Wallet signature key is not the key of an active session"),
  signature_scalar_out_of_range: invalid("Wallet signature does not verify"),
  signature_invalid: invalid("Wallet signature does not verify"),
  retried_body_differs: mismatch("The retried request differs from the payload that was signed"),
  signed_different_body: mismatch("Wallet signature was computed over a different body"),
  legacy_sandbox_signature_outside_sandbox: invalid("The fixed sandbox wallet signature is only accepted in sandbox")
};
var reject2 = rejecter(STAMP_REASONS);
var parseWalletStamp = (header) => {
  if (header === void 0 || header === null || header === "") return reject2("header_missing");
  const raw = fromBase64Url(header);
  if (raw === void 0) return reject2("header_not_base64url");
  const text2 = fromUtf8(raw);
  const stamp = text2 === void 0 ? void 0 : parseJsonObject(text2);
  if (stamp === void 0) return reject2("header_not_json");
  const { publicKey, scheme, signature } = stamp;
  if (typeof publicKey !== "string" || typeof scheme !== "string" || typeof signature !== "string") {
    return reject2("stamp_field_missing");
  }
  if (scheme !== STAMP_SCHEME) return reject2("scheme_unsupported");
  const key = parsePublicKeyHex(publicKey);
  if (key === void 0) return reject2("public_key_malformed");
  const der = fromHex(signature);
  if (der === void 0) return reject2("signature_not_hex");
  return accept({ publicKey: key, signature: der, scheme: STAMP_SCHEME });
};
var isActiveKey = (key, active) => {
  for (const candidate of active) {
    if (parsePublicKeyHex(candidate)?.compressedHex === key.compressedHex) return true;
  }
  return false;
};
var verifyWalletStamp = (input) => {
  if (input.header === SANDBOX_LEGACY_WALLET_SIGNATURE) {
    return input.sandbox === true ? accept({ kind: "sandbox-legacy" }) : reject2("legacy_sandbox_signature_outside_sandbox");
  }
  const parsed2 = parseWalletStamp(input.header);
  if (!parsed2.ok) return parsed2;
  const { publicKey, signature } = parsed2.value;
  if (!isActiveKey(publicKey, input.activeSessionKeys)) return reject2("key_not_active_session");
  const der = parseDerSignature(signature);
  if (!der.ok) return reject2(der.problem === "scalar_out_of_range" ? "signature_scalar_out_of_range" : "signature_not_der");
  const backend = input.backend ?? "native";
  const retried = input.retriedPayload;
  const bodyChanged = retried !== void 0 && retried !== input.payloadToSign;
  if (verifyParsed(publicKey, utf8(input.payloadToSign), der, backend)) {
    return bodyChanged ? reject2("retried_body_differs") : accept({ kind: "signature", publicKey: publicKey.compressedHex });
  }
  if (bodyChanged && verifyParsed(publicKey, utf8(retried), der, backend)) {
    return reject2("signed_different_body");
  }
  return reject2("signature_invalid");
};

// src/operations/not-found.ts
var NOT_FOUND_CODES = {
  // The reference's Error404 enum
  customer: "USER_NOT_FOUND",
  quote: "QUOTE_NOT_FOUND",
  /** Payments and card transactions alike: both are rows of GET /transactions. */
  transaction: "TRANSACTION_NOT_FOUND",
  token: "TOKEN_NOT_FOUND",
  invitation: "INVITATION_NOT_FOUND",
  bulkUploadJob: "BULK_UPLOAD_JOB_NOT_FOUND",
  stablecoinProviderAccount: "STABLECOIN_PROVIDER_ACCOUNT_NOT_FOUND",
  /** A well-formed UMA address no receiver answers at. */
  umaReceiver: "UMA_NOT_FOUND",
  // No value in the reference's enum: the generic code
  internalAccount: "NOT_FOUND",
  externalAccount: "NOT_FOUND",
  /** An id that may be an internal or an external account (money requests). */
  account: "NOT_FOUND",
  beneficialOwner: "NOT_FOUND",
  document: "NOT_FOUND",
  verification: "NOT_FOUND",
  kycLink: "NOT_FOUND",
  card: "NOT_FOUND",
  agent: "NOT_FOUND",
  agentAction: "NOT_FOUND",
  deviceCode: "NOT_FOUND",
  credential: "NOT_FOUND",
  session: "NOT_FOUND",
  delegatedKey: "NOT_FOUND",
  scaFactor: "NOT_FOUND",
  twoFactorReset: "NOT_FOUND",
  stablecoin: "NOT_FOUND",
  stablecoinOperation: "NOT_FOUND",
  sandboxSnapshot: "NOT_FOUND",
  webhookDelivery: "NOT_FOUND"
};
var missing = (kind, reason) => notFound(reason, NOT_FOUND_CODES[kind]);
var unknownReference = (field, id, what) => invalidInput(`${field} ${id} is not ${what} of this platform`, [{
  field,
  constraint: "exists",
  message: `must be the id of ${what} of this platform`
}]);

// src/operations/wallets/signed.ts
var SIGNED_REQUEST_TTL_MILLIS = 5 * 6e4;
var canonicalJson = (value) => {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).filter(([, v]) => v !== void 0);
    entries.sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0);
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
};
var fingerprintOf = (request) => bytesToHex(sha256(new TextEncoder().encode(canonicalJson(request))));
var payloadOf = (p) => canonicalJson({
  accountId: p.accountId,
  context: p.context,
  parameters: p.request,
  requestId: p.requestId,
  timestampMs: String(p.timestampMs),
  type: p.action
});
var walletAccount = Effect5.fnUntraced(function* (platform, accountId) {
  const store = yield* Store;
  const rec = yield* store.internalAccounts.get(platform.id, accountId);
  if (rec === void 0 || rec.customerId === null) return yield* missing("internalAccount", `Internal account ${accountId} not found`);
  if (rec.type !== "EMBEDDED_WALLET" || platform.embeddedWallets === void 0) {
    return yield* conflict("WALLET_NOT_PROVISIONED", `Internal account ${accountId} has no embedded wallet provisioned`);
  }
  return rec;
});
var credentialsOf = (platform, accountId) => Effect5.flatMap(Effect5.service(Store), (store) => store.wallets.byAccount(platform.id, "credential", accountId));
var activeSessionsOf = (platform, accountId, nowMs) => Effect5.map(
  Effect5.flatMap(Effect5.service(Store), (store) => store.wallets.byAccount(platform.id, "session", accountId)),
  (sessions) => sessions.filter((s) => !s.revoked && s.expiresAt > nowMs)
);
var otpSets = (credentials) => ({
  emailOtpSet: credentials.filter((c) => c.type === "EMAIL_OTP").map((c) => c.id).sort(),
  smsOtpSet: credentials.filter((c) => c.type === "SMS_OTP").map((c) => c.id).sort()
});
var sameSet = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
var AnotherLeg = class {
  constructor(next = {}) {
    this.next = next;
  }
  next;
  _tag = "AnotherLeg";
};
var FIRST_RETRY = 2;
var legOf = (challenge) => challenge.leg ?? FIRST_RETRY;
var issueChallenge = Effect5.fnUntraced(function* (uow, spec, leg) {
  const ids = yield* Ids;
  const { platform } = spec;
  const nowMs = yield* Clock2.currentTimeMillis;
  const id = yield* ids.make("Request");
  const credentials = yield* credentialsOf(platform, spec.accountId);
  const record = {
    kind: "request",
    platformId: platform.id,
    id,
    accountId: spec.accountId,
    action: spec.action,
    credentialId: spec.credentialId,
    fingerprint: fingerprintOf(spec.request),
    payloadToSign: payloadOf({ action: spec.action, accountId: spec.accountId, request: spec.request, requestId: id, timestampMs: nowMs, context: leg.next.context }),
    expiresAt: nowMs + SIGNED_REQUEST_TTL_MILLIS,
    used: false,
    ...otpSets(credentials),
    signerKeys: leg.signerKeys,
    ...leg.leg === FIRST_RETRY ? {} : { leg: leg.leg },
    ...leg.next.context === void 0 ? {} : { context: leg.next.context },
    ...leg.next.kept === void 0 ? {} : { kept: leg.next.kept },
    createdAt: nowMs
  };
  yield* uow.putWalletRecord(record);
  const challenge = {
    ...spec.type === void 0 ? {} : { type: spec.type },
    payloadToSign: record.payloadToSign,
    requestId: id,
    expiresAt: isoOf(record.expiresAt)
  };
  return challenge;
});
var signedRequest = (spec, headers) => Effect5.gen(function* () {
  const store = yield* Store;
  const { platform } = spec;
  const signature = headers.signature === "" ? void 0 : headers.signature;
  const requestId = headers.requestId === "" ? void 0 : headers.requestId;
  if (signature === void 0 && requestId === void 0) {
    return yield* store.transact(
      (uow) => Effect5.gen(function* () {
        if (spec.check !== void 0) yield* spec.check(uow);
        const signerKeys = spec.signerKeys === void 0 ? void 0 : yield* spec.signerKeys(uow);
        const next = spec.prepare === void 0 ? {} : yield* spec.prepare(uow);
        const challenge = yield* issueChallenge(uow, spec, { leg: FIRST_RETRY, signerKeys, next });
        return { _tag: "Challenge", challenge };
      })
    );
  }
  if (requestId === void 0) {
    return yield* unauthorized("Request-Id header is missing: echo the requestId of the 202 answer on the signed retry", "REQUEST_ID_MISSING");
  }
  if (signature === void 0) {
    return yield* unauthorized("Service-Wallet-Signature header is missing", "WALLET_SIGNATURE_MISSING");
  }
  return yield* store.transact(
    (uow) => Effect5.gen(function* () {
      const nowMs = yield* Clock2.currentTimeMillis;
      const record = yield* pendingChallenge(platform, requestId, spec, nowMs);
      const keys = record.signerKeys ?? (yield* activeSessionsOf(platform, spec.accountId, nowMs)).filter((s) => spec.excludeCredentialId === void 0 || s.credentialId !== spec.excludeCredentialId).map((s) => s.publicKey);
      const retried = payloadOf({
        action: spec.action,
        accountId: spec.accountId,
        request: spec.request,
        requestId: record.id,
        timestampMs: record.createdAt,
        context: record.context
      });
      const verdict = verifyWalletStamp({
        header: signature,
        payloadToSign: record.payloadToSign,
        retriedPayload: retried,
        activeSessionKeys: keys,
        sandbox: platform.settings.sandbox
      });
      if (!verdict.ok) return yield* unauthorized(verdict.message, verdict.code);
      if (fingerprintOf(spec.request) !== record.fingerprint) {
        return yield* unauthorized("The retried request differs from the first leg's", "WALLET_SIGNATURE_BODY_MISMATCH");
      }
      const now = otpSets(yield* credentialsOf(platform, spec.accountId));
      if (!sameSet(now.emailOtpSet, record.emailOtpSet)) {
        return yield* conflict("EMAIL_OTP_CREDENTIAL_SET_CHANGED", "The EMAIL_OTP credentials changed after the challenge was issued; start again");
      }
      if (!sameSet(now.smsOtpSet, record.smsOtpSet)) {
        return yield* conflict("SMS_OTP_CREDENTIAL_SET_CHANGED", "The SMS_OTP credentials changed after the challenge was issued; start again");
      }
      if (spec.check !== void 0) yield* spec.check(uow);
      const { kept: _dropped, ...usedUp } = record;
      yield* uow.putWalletRecord({ ...usedUp, used: true });
      const result = yield* spec.perform(uow, record);
      if (result instanceof AnotherLeg) {
        const challenge = yield* issueChallenge(uow, spec, { leg: legOf(record) + 1, signerKeys: record.signerKeys, next: result.next });
        return { _tag: "Challenge", challenge };
      }
      return { _tag: "Done", value: result };
    })
  );
});
var pendingChallenge = Effect5.fnUntraced(function* (platform, requestId, spec, nowMs) {
  const store = yield* Store;
  const record = yield* store.wallets.get(platform.id, "request", requestId);
  if (record === void 0 || record.accountId !== spec.accountId || record.action !== spec.action || record.credentialId !== spec.credentialId) {
    return yield* unauthorized(`Request-Id ${requestId} does not match a pending challenge of this request`);
  }
  if (record.used) return yield* unauthorized(`Request-Id ${requestId} was already used; a request id is good for one retry`);
  if (record.expiresAt <= nowMs) return yield* unauthorized(`Request-Id ${requestId} expired at ${isoOf(record.expiresAt)}; start again`);
  return record;
});
var verifyQuoteSignature = Effect5.fnUntraced(function* (platform, accountId, payloadToSign, signature) {
  if (signature === void 0 || signature === "") {
    return yield* unauthorized("Service-Wallet-Signature header is missing: sign the quote's payloadToSign with a session key of the wallet", "WALLET_SIGNATURE_MISSING");
  }
  const nowMs = yield* Clock2.currentTimeMillis;
  const sessions = yield* activeSessionsOf(platform, accountId, nowMs);
  const verdict = verifyWalletStamp({
    header: signature,
    payloadToSign,
    activeSessionKeys: sessions.map((s) => s.publicKey),
    sandbox: platform.settings.sandbox
  });
  if (!verdict.ok) return yield* unauthorized(verdict.message, verdict.code);
});

// src/operations/verification-events.ts
import { Effect as Effect11 } from "effect";

// src/operations/money/accounts.ts
import { sha256 as sha2562 } from "@noble/hashes/sha2.js";
import { bytesToHex as bytesToHex2 } from "@noble/hashes/utils.js";
import { Effect as Effect10 } from "effect";

// src/operations/money/config.ts
import { Effect as Effect8 } from "effect";

// src/ports/webhooks.ts
import { Context as Context4, Effect as Effect6 } from "effect";
var WebhookSender = Context4.Reference(
  "payments-service/ports/WebhookSender",
  {
    defaultValue: () => ({
      send: () => Effect6.succeed({ _tag: "Failed", error: "no webhook sender is configured in this process", durationMs: 0 })
    })
  }
);

// src/operations/transition.ts
import { Effect as Effect7 } from "effect";

// src/domain/bulk-job.ts
import { Schema as Schema10 } from "effect";
var BulkJobStatus = Schema10.Literals(["PENDING", "PROCESSING", "COMPLETED", "FAILED"]);
var BulkCustomerImportJobAccepted = NamedStruct("BulkCustomerImportJobAccepted", {
  jobId: Schema10.String,
  status: Schema10.Literals(["PENDING", "PROCESSING"])
});
var BulkCustomerImportErrorEntry = NamedStruct("BulkCustomerImportErrorEntry", {
  correlationId: Schema10.String,
  code: Schema10.String,
  message: Schema10.String,
  details: Schema10.optionalKey(Schema10.Record(Schema10.String, Schema10.Unknown))
});
var BulkCustomerImportJob = NamedStruct("BulkCustomerImportJob", {
  id: Schema10.String,
  status: BulkJobStatus,
  progress: Schema10.Struct({
    total: Schema10.Number,
    processed: Schema10.Number,
    successful: Schema10.Number,
    failed: Schema10.Number
  }),
  errors: Schema10.optionalKey(Schema10.Array(BulkCustomerImportErrorEntry)),
  completedAt: Schema10.optionalKey(Schema10.String)
});
var ADDRESS_REQUIRED = ["addressLine1", "city", "state", "postalCode", "country"];
var BULK_CSV_REQUIRED = {
  INDIVIDUAL: ["umaAddress", "platformCustomerId", "customerType", "fullName", "birthDate", ...ADDRESS_REQUIRED],
  BUSINESS: ["umaAddress", "platformCustomerId", "customerType", "businessLegalName", ...ADDRESS_REQUIRED]
};

// src/domain/events.ts
import { Schema as Schema19 } from "effect";

// src/domain/card.ts
import { Schema as Schema11 } from "effect";
var CardState = NamedLiterals("CardState", ["PENDING_KYC", "PROCESSING", "ACTIVE", "FROZEN", "CLOSED"]);
var CardStatus = NamedLiterals("CardStatus", ["ACTIVE", "FROZEN", "CLOSED"]);
var CardStateReason = NamedLiterals("CardStateReason", ["ISSUER_REJECTED", "CLOSED_BY_PLATFORM", "CLOSED_BY_GRID"]);
var CardBrand = NamedLiterals("CardBrand", ["VISA", "MASTERCARD"]);
var CardForm = NamedLiterals("CardForm", ["VIRTUAL"]);
var CardPinStatus = NamedLiterals("CardPinStatus", ["NOT_SET", "OK", "BLOCKED"]);
var CardCapabilities = NamedStruct("CardCapabilities", {
  supportsDigitalWalletTokenization: Schema11.Boolean
});
var MAX_CARD_FUNDING_SOURCES = 10;
var CardSpendLimit = Schema11.Number.check(Schema11.isInt(), Schema11.isBetween({ minimum: 1, maximum: MAX_AMOUNT }));
var FundingSourceIds = Schema11.Array(NonEmptyTextUpTo(MAX_ID_LENGTH)).check(
  Schema11.isMinLength(1, { message: "must have at least 1 item", constraint: "minItems" }),
  maxItems(MAX_CARD_FUNDING_SOURCES)
);
var Card = NamedStruct("Card", {
  id: Schema11.String,
  cardholderId: Schema11.String,
  platformCardId: Schema11.String,
  state: CardState,
  /** SPEC.md's name for `state`, always the same value. */
  status: CardStatus,
  stateReason: Schema11.NullOr(CardStateReason),
  pinStatus: CardPinStatus,
  cardCapabilities: CardCapabilities,
  brand: CardBrand,
  form: CardForm,
  last4: Schema11.String,
  expMonth: Schema11.Number.check(Schema11.isInt(), Schema11.isBetween({ minimum: 1, maximum: 12 })),
  expYear: Schema11.Number.check(Schema11.isInt()),
  /** Internal account ids in priority order (empty once the card is closed). */
  fundingSources: Schema11.Array(Schema11.String),
  maxSpendPerTransaction: Schema11.NullOr(Schema11.Number),
  currency: Schema11.String,
  processorRef: Schema11.String,
  issuerRef: Schema11.String,
  ...Timestamps
});
var CardListResponse = ListResponse(Card, "CardListResponse");
var CardCreateRequest = NamedStruct("CardCreateRequest", {
  cardholderId: NonEmptyTextUpTo(MAX_ID_LENGTH),
  platformCardId: Schema11.optionalKey(NonEmptyTextUpTo(255)),
  threeDSecurePassword: Schema11.optionalKey(NonEmpty.check(maxChars(MAX_3DS_PASSWORD_LENGTH))),
  form: CardForm,
  fundingSources: FundingSourceIds,
  maxSpendPerTransaction: Schema11.optionalKey(CardSpendLimit)
});
var CardUpdateRequest = NamedStruct("CardUpdateRequest", {
  state: Schema11.optionalKey(CardStatus),
  status: Schema11.optionalKey(CardStatus),
  fundingSources: Schema11.optionalKey(FundingSourceIds),
  maxSpendPerTransaction: Schema11.optionalKey(Schema11.NullOr(CardSpendLimit))
});
var CardRevealResponse = NamedStruct("CardRevealResponse", {
  panEmbedUrl: Schema11.String,
  expiresAt: Schema11.String
});
var CardListFilters = {
  cardholderId: Schema11.optionalKey(TextUpTo(MAX_ID_LENGTH)),
  accountId: Schema11.optionalKey(TextUpTo(MAX_ID_LENGTH)),
  platformCardId: Schema11.optionalKey(TextUpTo(255)),
  state: Schema11.optionalKey(CardState),
  status: Schema11.optionalKey(CardStatus),
  sortOrder: Schema11.optionalKey(Schema11.Literals(["asc", "desc"]))
};
var EncryptedPinBlock = Schema11.String.check(
  Schema11.isPattern(/^(?:[0-9A-Fa-f]{16}|[0-9A-Fa-f]{32})$/, { message: "must be an encrypted PIN block: 16 or 32 hexadecimal characters" })
);
var CardSetPinRequest = NamedStruct("CardSetPinRequest", {
  encryptedPinBlock: EncryptedPinBlock
});
var CardSetPinUrlResponse = NamedStruct("CardSetPinUrlResponse", {
  setPinUrl: Schema11.String,
  /** The origin the iframe reports to (the platform's `cardConfigs.pinTargetOrigin`). */
  targetOrigin: Schema11.String,
  expiresAt: Schema11.String
});
var SandboxCardPinEntryRequest = NamedStruct("SandboxCardPinEntryRequest", {
  encryptedPinBlock: EncryptedPinBlock
});
var SandboxCardPinEntryResponse = NamedStruct("SandboxCardPinEntryResponse", {
  /** Whether the entry was accepted (the PIN matched and is not blocked). */
  accepted: Schema11.Boolean,
  pinStatus: CardPinStatus,
  /** Consecutive incorrect entries so far (3 block the PIN). */
  consecutiveFailures: Schema11.Number
});
var DigitalWalletProvider = NamedLiterals("DigitalWalletProvider", ["APPLE_PAY", "GOOGLE_PAY", "SAMSUNG_PAY"]);
var Base64 = Schema11.String.check(
  Schema11.isMinLength(1, { message: "must not be empty" }),
  maxChars(8192),
  Schema11.isPattern(/^[A-Za-z0-9+/_-]+={0,2}$/, { message: "must be base64 (or base64url)" })
);
var CardTokenizeRequest = NamedStruct("CardTokenizeRequest", {
  walletProvider: DigitalWalletProvider,
  certificates: Schema11.optionalKey(Schema11.Array(Base64).check(maxItems(5))),
  nonce: Schema11.optionalKey(Base64),
  nonceSignature: Schema11.optionalKey(Base64),
  deviceId: Schema11.optionalKey(NonEmptyTextUpTo(255)),
  walletAccountId: Schema11.optionalKey(NonEmptyTextUpTo(255))
});
var CardTokenizeResponse = NamedStruct("CardTokenizeResponse", {
  walletProvider: DigitalWalletProvider,
  /** Base64: the encrypted card data (Apple `encryptedPassData`, Google `opaquePaymentCard`). */
  encryptedPayload: Schema11.String,
  /** Base64: the activation data (Apple `activationData`). */
  activationData: Schema11.String,
  /** Apple Pay only: the ephemeral public key the payload was encrypted with (base64). */
  ephemeralPublicKey: Schema11.optionalKey(Schema11.String),
  expiresAt: Schema11.String
});

// src/domain/card-transaction.ts
import { Schema as Schema13 } from "effect";

// src/domain/transaction.ts
import { Schema as Schema12 } from "effect";
var Id2 = Schema12.String.check(Schema12.isMinLength(1), Schema12.isMaxLength(255));
var TransactionStatus = NamedLiterals("TransactionStatus", [
  "CREATED",
  "PENDING",
  "PENDING_AUTHORIZATION",
  "PROCESSING",
  "COMPLETED",
  "REJECTED",
  "FAILED",
  "REFUNDED",
  "EXPIRED"
]);
var OutgoingTransactionStatus = NamedLiterals("OutgoingTransactionStatus", ["PENDING", "PENDING_AUTHORIZATION", "EXPIRED", "PROCESSING", "COMPLETED", "FAILED"]);
var TransactionType = NamedLiterals("TransactionType", ["INCOMING", "OUTGOING"]);
var OutgoingTransactionFailureReason = NamedLiterals("OutgoingTransactionFailureReason", [
  "QUOTE_EXPIRED",
  "QUOTE_RATE_UNAVAILABLE",
  "QUOTE_EXECUTION_FAILED",
  "FUNDING_AMOUNT_MISMATCH",
  "SCA_NOT_COMPLETED",
  "PAYOUT_RETURNED",
  "LIMIT_EXCEEDED",
  "ACCOUNT_CANNOT_RECEIVE",
  "ACCOUNT_INVALID",
  "COMPLIANCE_REJECTED"
]);
var IncomingTransactionFailureReason = NamedLiterals("IncomingTransactionFailureReason", [
  "LNURLP_FAILED",
  "PAY_REQUEST_FAILED",
  "PAYMENT_APPROVAL_WEBHOOK_ERROR",
  "PAYMENT_APPROVAL_TIMED_OUT",
  "OFFRAMP_FAILED",
  "MISSING_MANDATORY_PAYEE_DATA",
  "QUOTE_EXPIRED",
  "QUOTE_EXECUTION_FAILED",
  "COMPLIANCE_REJECTED",
  "COLLECTION_FAILED"
]);
var TransactionPendingReason = NamedLiterals("TransactionPendingReason", [
  "COUNTERPARTY_DECLARATION_REQUIRED",
  "WALLET_VERIFICATION_REQUIRED",
  "COUNTERPARTY_INFORMATION_REQUIRED",
  "COMPLIANCE_REVIEW"
]);
var RefundStatus = NamedLiterals("RefundStatus", ["PENDING", "COMPLETED", "FAILED"]);
var RefundReason = NamedLiterals("RefundReason", ["TRANSACTION_FAILED", "USER_CANCELLATION", "TIMEOUT"]);
var Refund = NamedStruct("Refund", {
  reference: Schema12.String,
  initiatedAt: Schema12.String,
  settledAt: Schema12.optionalKey(Schema12.String),
  status: RefundStatus,
  reason: Schema12.optionalKey(RefundReason)
});
var OnChainTransaction = NamedStruct("OnChainTransaction", {
  transactionHash: Schema12.String,
  network: Schema12.String
});
var ReconciliationInstructions = NamedStruct("ReconciliationInstructions", {
  reference: Schema12.optionalKey(Schema12.String),
  transactionHash: Schema12.optionalKey(Schema12.String)
});
var accountEndFields = {
  accountId: Schema12.String,
  currency: Schema12.optionalKey(Schema12.String),
  onChainTransaction: Schema12.optionalKey(OnChainTransaction)
};
var umaAddressEndFields = {
  umaAddress: Schema12.String,
  currency: Schema12.optionalKey(Schema12.String)
};
var AccountTransactionSource = NamedStruct("AccountTransactionSource", { sourceType: Schema12.Literal("ACCOUNT"), ...accountEndFields });
var UmaAddressTransactionSource = NamedStruct("UmaAddressTransactionSource", { sourceType: Schema12.Literal("UMA_ADDRESS"), ...umaAddressEndFields });
var RealtimeFundingTransactionSource = NamedStruct("RealtimeFundingTransactionSource", {
  sourceType: Schema12.Literal("REALTIME_FUNDING"),
  currency: Schema12.String,
  customerId: Schema12.optionalKey(Schema12.String),
  paymentRail: Schema12.optionalKey(PaymentRail),
  onChainTransaction: Schema12.optionalKey(OnChainTransaction)
});
var TransactionSource = Schema12.Union([AccountTransactionSource, UmaAddressTransactionSource, RealtimeFundingTransactionSource]).annotate({ identifier: "TransactionSourceOneOf" });
var AccountTransactionDestination = NamedStruct("AccountTransactionDestination", { destinationType: Schema12.Literal("ACCOUNT"), ...accountEndFields });
var UmaAddressTransactionDestination = NamedStruct("UmaAddressTransactionDestination", { destinationType: Schema12.Literal("UMA_ADDRESS"), ...umaAddressEndFields });
var TransactionDestination = Schema12.Union([AccountTransactionDestination, UmaAddressTransactionDestination]).annotate({ identifier: "TransactionDestinationOneOf" });
var base = {
  id: Schema12.String,
  pendingReason: Schema12.optionalKey(TransactionPendingReason),
  destination: TransactionDestination,
  /** Absent on the platform's own payments (the reference requires it; see docs/decisions.md). */
  customerId: Schema12.optionalKey(Schema12.String),
  platformCustomerId: Schema12.optionalKey(Schema12.String),
  settledAt: Schema12.optionalKey(Schema12.String),
  createdAt: Schema12.String,
  updatedAt: Schema12.String,
  receiptDeliveryConfirmedAt: Schema12.optionalKey(Schema12.String),
  exchangeRate: Schema12.optionalKey(Schema12.Number),
  quoteId: Schema12.optionalKey(Schema12.String),
  refund: Schema12.optionalKey(Refund),
  /** The memo of the quote the payment executes (the reference's `description`). */
  description: Schema12.optionalKey(Schema12.String),
  reconciliationInstructions: Schema12.optionalKey(ReconciliationInstructions),
  counterpartyInformation: Schema12.optionalKey(Schema12.Record(Schema12.String, Schema12.Unknown))
};
var OutgoingTransaction = NamedStruct("OutgoingTransaction", {
  ...base,
  type: Schema12.Literal("OUTGOING"),
  /**
   * DEBIT: the customer's money leaves their account. CREDIT: a payment the platform
   * initiated that brings money into the customer's internal account (a pull from an
   * external account, POST /transfer-in): the reference makes direction independent of
   * type (docs/decisions.md).
   */
  direction: Schema12.Literals(["DEBIT", "CREDIT"]),
  status: OutgoingTransactionStatus,
  source: TransactionSource,
  sentAmount: CurrencyAmount,
  receivedAmount: Schema12.optionalKey(CurrencyAmount),
  fees: Schema12.optionalKey(Schema12.Number),
  platformFees: Schema12.optionalKey(Schema12.Number),
  paymentInstructions: Schema12.optionalKey(Schema12.Array(PaymentInstructions)),
  rateDetails: Schema12.optionalKey(OutgoingRateDetails),
  failureReason: Schema12.optionalKey(OutgoingTransactionFailureReason),
  paymentRail: Schema12.optionalKey(Schema12.NullOr(PaymentRail)),
  railSelectionMode: Schema12.optionalKey(Schema12.NullOr(Schema12.Literals(["AUTO", "MANUAL"]))),
  expectedSettlementAt: Schema12.optionalKey(Schema12.NullOr(Schema12.String)),
  settlementTimelineSeconds: Schema12.optionalKey(Schema12.NullOr(Schema12.Number)),
  remittanceInformation: Schema12.optionalKey(Schema12.String),
  purposeOfPayment: Schema12.optionalKey(PurposeOfPayment)
});
var IncomingTransaction = NamedStruct("IncomingTransaction", {
  ...base,
  type: Schema12.Literal("INCOMING"),
  direction: Schema12.Literal("CREDIT"),
  status: TransactionStatus,
  source: Schema12.optionalKey(TransactionSource),
  sentAmount: Schema12.optionalKey(CurrencyAmount),
  receivedAmount: CurrencyAmount,
  fees: Schema12.optionalKey(Schema12.Number),
  failureReason: Schema12.optionalKey(IncomingTransactionFailureReason)
});
var Transaction = Schema12.Union([IncomingTransaction, OutgoingTransaction]).annotate({ identifier: "TransactionOneOf" }).pipe(Schema12.toTaggedUnion("type"));
var AccountRef = Schema12.Struct({ accountId: Id2 });
var TransferInRequest = NamedStruct("TransferInRequest", {
  source: AccountRef,
  destination: AccountRef,
  amount: Schema12.optionalKey(PositiveAmount)
});
var TransferOutRequest = NamedStruct("TransferOutRequest", {
  source: AccountRef,
  destination: Schema12.Struct({ accountId: Id2, paymentRail: Schema12.optionalKey(PaymentRail) }),
  amount: Schema12.optionalKey(PositiveAmount),
  remittanceInformation: Schema12.optionalKey(Schema12.String.check(Schema12.isMaxLength(80))),
  purposeOfPayment: Schema12.optionalKey(PurposeOfPayment)
});
var CancelTransactionRequest = NamedStruct("CancelTransactionRequest", {
  reason: Schema12.optionalKey(Schema12.String.check(Schema12.isMaxLength(255)))
});
var SandboxSendRequest = NamedStruct("SandboxSendRequest", {
  quoteId: Id2,
  currencyCode: CurrencyCode,
  currencyAmount: Schema12.optionalKey(PositiveAmount)
});
var SandboxUmaReceiveRequest = NamedStruct("SandboxUmaReceiveRequest", {
  senderUmaAddress: Schema12.String.check(Schema12.isMaxLength(255)),
  receiverUmaAddress: Schema12.optionalKey(Schema12.String.check(Schema12.isMaxLength(255))),
  customerId: Schema12.optionalKey(Id2),
  receivingCurrencyCode: CurrencyCode,
  receivingCurrencyAmount: PositiveAmount
});
var ApprovePaymentRequest = NamedStruct("ApprovePaymentRequest", {
  /** Receiver details the sender's institution asked for (field name → value), e.g. `FULL_NAME`. */
  receiverCustomerInfo: Schema12.optionalKey(CustomerInfoValues)
});
var RejectPaymentRequest = NamedStruct("RejectPaymentRequest", {
  reason: Schema12.optionalKey(Schema12.String.check(Schema12.isMaxLength(1024)))
});

// src/domain/card-transaction.ts
var CardTransactionStatus = NamedLiterals("CardTransactionStatus", ["AUTHORIZED", "PARTIALLY_SETTLED", "SETTLED", "DECLINED", "VOIDED", "EXCEPTION"]);
var CardTransactionDirection = NamedLiterals("CardTransactionDirection", ["DEBIT", "CREDIT"]);
var CardDeclinedReason = NamedLiterals("CardDeclinedReason", [
  "CARD_NOT_ACTIVE",
  "SPEND_LIMIT_EXCEEDED",
  "INSUFFICIENT_FUNDS",
  "NO_ELIGIBLE_FUNDING_SOURCE",
  "BLOCKED",
  "UNSUPPORTED_NETWORK",
  "OTHER"
]);
var CardMerchant = NamedStruct("CardMerchant", {
  descriptor: NonEmptyTextUpTo(MAX_MERCHANT_DESCRIPTOR_LENGTH),
  mcc: Schema13.optionalKey(Schema13.String.check(Schema13.isPattern(/^[0-9]{4}$/, { message: "must be a four-digit merchant category code such as 5814" }))),
  country: Schema13.optionalKey(CountryCode),
  city: Schema13.optionalKey(NonEmptyTextUpTo(MAX_MERCHANT_PLACE_LENGTH)),
  state: Schema13.optionalKey(NonEmptyTextUpTo(MAX_MERCHANT_PLACE_LENGTH))
});
var Count = Schema13.Number.check(Schema13.isInt(), Schema13.isGreaterThanOrEqualTo(0));
var Total = Schema13.Number.check(Schema13.isInt(), Schema13.isBetween({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }));
var summaryFields = { count: Count, totalAmount: Total };
var CardPullSummary = NamedStruct("CardPullSummary", { ...summaryFields, pendingCount: Schema13.optionalKey(Count) });
var CardRefundSummary = Schema13.Struct(summaryFields).annotate({ identifier: "CardRefundSummary" });
var CardSettlementSummary = Schema13.Struct(summaryFields).annotate({ identifier: "CardSettlementSummary" });
var CardTransaction = NamedStruct("CardTransaction", {
  type: Schema13.Literal("CARD"),
  id: Schema13.String,
  cardId: Schema13.String,
  customerId: Schema13.String,
  platformCustomerId: Schema13.String,
  issuerTransactionToken: Schema13.String,
  status: CardTransactionStatus,
  direction: CardTransactionDirection,
  merchant: CardMerchant,
  authorizedAmount: CurrencyAmount,
  settledAmount: Schema13.optionalKey(CurrencyAmount),
  refundedAmount: Schema13.optionalKey(CurrencyAmount),
  /** On a merchant return's own row: the purchase it returns (SPEC.md). */
  originalTransactionId: Schema13.optionalKey(Schema13.String),
  /** On DECLINED rows only. */
  cardDeclinedReason: Schema13.optionalKey(CardDeclinedReason),
  /**
   * The internal account that funded (or, for a credit, received) the row. Absent only on
   * a decline of a card with no funding source left (a closed card): docs/decisions.md.
   */
  accountId: Schema13.optionalKey(Schema13.String),
  pullSummary: CardPullSummary,
  refundSummary: CardRefundSummary,
  settlementSummary: CardSettlementSummary,
  authorizedAt: Schema13.String,
  lastEventAt: Schema13.optionalKey(Schema13.String),
  ...Timestamps
});
var TransactionWithCard = Schema13.Union([IncomingTransaction, OutgoingTransaction, CardTransaction]).annotate({ identifier: "TransactionWithCardOneOf" });
var CardTransactionId = NonEmptyTextUpTo(MAX_ID_LENGTH);
var ClearingAmount = Schema13.Number.check(Schema13.isInt(), Schema13.isGreaterThanOrEqualTo(0), Schema13.isLessThanOrEqualTo(MAX_AMOUNT));
var SandboxCardCurrency = NamedStruct("SandboxCardCurrency", {
  code: CurrencyCode,
  name: Schema13.optionalKey(Schema13.String.check(maxChars(64))),
  symbol: Schema13.optionalKey(Schema13.String.check(maxChars(16))),
  decimals: Schema13.optionalKey(Schema13.Number.check(Schema13.isInt(), Schema13.isBetween({ minimum: 0, maximum: 18 })))
});
var SandboxCardAuthorizationRequest = NamedStruct("SandboxCardAuthorizationRequest", {
  amount: PositiveAmount,
  currency: SandboxCardCurrency,
  merchant: CardMerchant
});
var rowAmountRequest = (identifier2, amount) => NamedStruct(identifier2, { cardTransactionId: CardTransactionId, amount });
var SandboxCardClearingRequest = rowAmountRequest("SandboxCardClearingRequest", ClearingAmount);
var SandboxCardReturnRequest = rowAmountRequest("SandboxCardReturnRequest", PositiveAmount);
var SandboxCardBalanceInquiryRequest = NamedStruct("SandboxCardBalanceInquiryRequest", { merchant: CardMerchant });
var SandboxCardAuthorizationAdviceRequest = rowAmountRequest("SandboxCardAuthorizationAdviceRequest", PositiveAmount);
var SandboxCardTransactionRefRequest = NamedStruct("SandboxCardTransactionRefRequest", { cardTransactionId: CardTransactionId });
var SandboxCardSimulationResponse = NamedStruct("SandboxCardSimulationResponse", {
  issuerTransactionToken: Schema13.String
});

// src/domain/agent.ts
import { Schema as Schema14 } from "effect";
var NonNegativeInt = Schema14.Number.check(
  Schema14.isInt({ message: "must be an integer" }),
  Schema14.isBetween({ minimum: 0, maximum: MAX_AGENT_AMOUNT }, { message: `must be an integer from 0 to ${MAX_AGENT_AMOUNT}` })
);
var AccountId = NonEmptyTextUpTo(MAX_ID_LENGTH);
var AgentPermission = NamedLiterals("AgentPermission", ["VIEW_TRANSACTIONS", "CREATE_TRANSFERS", "CREATE_QUOTES", "EXECUTE_QUOTES", "MANAGE_EXTERNAL_ACCOUNTS"]);
var AgentExecutionMode = NamedLiterals("AgentExecutionMode", ["AUTO", "APPROVAL_REQUIRED"]);
var AgentSpendingLimits = NamedStruct("AgentSpendingLimits", {
  currency: CurrencyCode,
  perTransactionLimit: NonNegativeInt,
  dailyLimit: Schema14.optionalKey(Schema14.NullOr(NonNegativeInt)),
  dailyTransactionLimit: Schema14.optionalKey(NonNegativeInt),
  monthlyLimit: Schema14.optionalKey(Schema14.NullOr(NonNegativeInt))
});
var AgentAccountRule = NamedStruct("AgentAccountRule", {
  accountId: AccountId,
  executionMode: Schema14.optionalKey(AgentExecutionMode),
  perTransactionLimit: Schema14.optionalKey(Schema14.NullOr(NonNegativeInt))
});
var AgentAccountRestrictions = NamedStruct("AgentAccountRestrictions", {
  allowedAccountIds: Schema14.optionalKey(Schema14.NullOr(Schema14.Array(AccountId).check(maxItems(MAX_AGENT_ACCOUNTS)))),
  accountRules: Schema14.optionalKey(Schema14.Array(AgentAccountRule).check(maxItems(MAX_AGENT_ACCOUNTS)))
});
var AgentApprovalThresholds = NamedStruct("AgentApprovalThresholds", {
  currency: Schema14.optionalKey(CurrencyCode),
  amount: Schema14.optionalKey(Schema14.NullOr(NonNegativeInt))
});
var Permissions = Schema14.Array(AgentPermission).check(maxItems(5));
var AgentPolicy = class extends Schema14.Opaque()(NamedStruct("AgentPolicy", {
  permissions: Permissions,
  defaultExecutionMode: AgentExecutionMode,
  spendingLimits: AgentSpendingLimits,
  accountRestrictions: Schema14.optionalKey(AgentAccountRestrictions),
  approvalThresholds: Schema14.optionalKey(AgentApprovalThresholds)
})) {
};
var AgentUsage = NamedStruct("AgentUsage", {
  dailyTransactionCount: Schema14.Number,
  dailySpend: Schema14.Number,
  dailyResetDate: Schema14.optionalKey(Schema14.String),
  monthlySpend: Schema14.Number,
  monthlyResetMonth: Schema14.optionalKey(Schema14.String)
});
var Agent = class extends Schema14.Opaque()(NamedStruct("Agent", {
  id: Schema14.String,
  name: Schema14.String,
  customerId: Schema14.String,
  isPaused: Schema14.Boolean,
  isConnected: Schema14.Boolean,
  policy: AgentPolicy,
  usage: AgentUsage,
  ...Timestamps
})) {
};
var AgentListResponse = class extends Schema14.Opaque()(ListResponse(Agent, "AgentListResponse")) {
};
var AgentCreateRequest = class extends Schema14.Opaque()(NamedStruct("AgentCreateRequest", {
  name: NonEmptyTextUpTo(MAX_AGENT_NAME_LENGTH),
  customerId: NonEmptyTextUpTo(MAX_ID_LENGTH),
  policy: AgentPolicy
})) {
};
var AgentDeviceCode = class extends Schema14.Opaque()(NamedStruct("AgentDeviceCode", {
  code: Schema14.String,
  agentId: Schema14.String,
  expiresAt: Schema14.String,
  redeemed: Schema14.Boolean
})) {
};
var AgentCreateResponse = class extends Schema14.Opaque()(NamedStruct("AgentCreateResponse", { agent: Agent, deviceCode: AgentDeviceCode })) {
};
var AgentUpdateRequest = class extends Schema14.Opaque()(NamedStruct("AgentUpdateRequest", {
  name: Schema14.optionalKey(NonEmptyTextUpTo(MAX_AGENT_NAME_LENGTH)),
  isPaused: Schema14.optionalKey(Schema14.Boolean)
})) {
};
var AgentSpendingLimitsUpdate = NamedStruct("AgentSpendingLimitsUpdate", {
  currency: Schema14.optionalKey(CurrencyCode),
  perTransactionLimit: Schema14.optionalKey(NonNegativeInt),
  dailyLimit: Schema14.optionalKey(Schema14.NullOr(NonNegativeInt)),
  dailyTransactionLimit: Schema14.optionalKey(NonNegativeInt),
  monthlyLimit: Schema14.optionalKey(Schema14.NullOr(NonNegativeInt))
});
var AgentPolicyUpdateRequest = class extends Schema14.Opaque()(NamedStruct("AgentPolicyUpdateRequest", {
  permissions: Schema14.optionalKey(Permissions),
  defaultExecutionMode: Schema14.optionalKey(AgentExecutionMode),
  spendingLimits: Schema14.optionalKey(AgentSpendingLimitsUpdate),
  accountRestrictions: Schema14.optionalKey(AgentAccountRestrictions),
  approvalThresholds: Schema14.optionalKey(AgentApprovalThresholds)
})) {
};
var AgentDeviceCodeStatusResponse = NamedStruct("AgentDeviceCodeStatusResponse", { code: Schema14.String, redeemed: Schema14.Boolean });
var AgentDeviceCodeRedeemResponse = class extends Schema14.Opaque()(NamedStruct("AgentDeviceCodeRedeemResponse", {
  agentId: Schema14.String,
  agentName: Schema14.String,
  accessToken: Schema14.String,
  policy: AgentPolicy
})) {
};
var AgentActionStatus = NamedLiterals("AgentActionStatus", ["PENDING_APPROVAL", "APPROVED", "REJECTED", "FAILED"]);
var AgentActionType = NamedLiterals("AgentActionType", ["EXECUTE_QUOTE", "TRANSFER_OUT", "TRANSFER_IN"]);
var AgentTransferDetails = NamedStruct("AgentTransferDetails", {
  amount: Schema14.Number,
  currency: Schema14.String,
  sourceAccountId: Schema14.String,
  destinationAccountId: Schema14.String
});
var AgentAction = class extends Schema14.Opaque()(NamedStruct("AgentAction", {
  id: Schema14.String,
  agentId: Schema14.String,
  customerId: Schema14.String,
  platformCustomerId: Schema14.String,
  status: AgentActionStatus,
  type: AgentActionType,
  quote: Schema14.optionalKey(Quote),
  transferDetails: Schema14.optionalKey(AgentTransferDetails),
  transaction: Schema14.optionalKey(Transaction),
  rejectionReason: Schema14.optionalKey(Schema14.String),
  ...Timestamps
})) {
};
var AgentActionListResponse = class extends Schema14.Opaque()(ListResponse(AgentAction, "AgentActionListResponse")) {
};
var AgentActionRejectRequest = class extends Schema14.Opaque()(NamedStruct("AgentActionRejectRequest", {
  reason: Schema14.optionalKey(Schema14.String.check(maxChars(MAX_AGENT_REJECTION_REASON_LENGTH)))
})) {
};

// src/domain/ids.ts
import { Schema as Schema15 } from "effect";
var UUID = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}";
var ResourceId = (prefix) => Schema15.String.check(
  Schema15.isPattern(new RegExp(`^${prefix}:${UUID}$`), { message: `must be a ${prefix} id (${prefix}:<uuid>)` })
);
var CustomerId = ResourceId("Customer");
var ExternalAccountId = ResourceId("ExternalAccount");

// src/domain/invitation.ts
import { Schema as Schema16 } from "effect";
var UmaInvitationStatus = Schema16.Literals(["PENDING", "CLAIMED", "EXPIRED", "CANCELLED"]);
var UmaInvitation = NamedStruct("UmaInvitation", {
  code: Schema16.String,
  createdAt: Schema16.String,
  claimedAt: Schema16.optionalKey(Schema16.String),
  url: Schema16.String,
  expiresAt: Schema16.optionalKey(Schema16.String),
  inviterUma: Schema16.String,
  inviteeUma: Schema16.optionalKey(Schema16.String),
  status: UmaInvitationStatus,
  firstName: Schema16.optionalKey(Schema16.String),
  amountToSend: Schema16.optionalKey(CurrencyAmount)
});
var MAX_INVITATION_UMA_LENGTH = 255;
var MAX_INVITATION_FIRST_NAME_LENGTH = 255;
var UmaInvitationCreateRequest = NamedStruct("UmaInvitationCreateRequest", {
  inviterUma: NonEmptyTextUpTo(MAX_INVITATION_UMA_LENGTH),
  firstName: Schema16.optionalKey(TextUpTo(MAX_INVITATION_FIRST_NAME_LENGTH)),
  amountToSend: Schema16.optionalKey(PositiveAmount),
  expiresAt: Schema16.optionalKey(DateTimeString)
});
var UmaInvitationClaimRequest = NamedStruct("UmaInvitationClaimRequest", {
  inviteeUma: NonEmptyTextUpTo(MAX_INVITATION_UMA_LENGTH)
});

// src/domain/verification.ts
import { Schema as Schema18 } from "effect";

// src/domain/document.ts
import { Schema as Schema17 } from "effect";
var DocumentType = NamedLiterals("DocumentType", [
  "PASSPORT",
  "DRIVERS_LICENSE",
  "NATIONAL_ID",
  "PROOF_OF_ADDRESS",
  "BANK_STATEMENT",
  "TAX_RETURN",
  "CERTIFICATE_OF_INCORPORATION",
  "ARTICLES_OF_INCORPORATION",
  "ARTICLES_OF_ASSOCIATION",
  "STATE_REGISTRY_EXCERPT",
  "GOOD_STANDING_CERTIFICATE",
  "INFORMATION_STATEMENT",
  "INCUMBENCY_CERTIFICATE",
  "BUSINESS_LICENSE",
  "SHAREHOLDER_REGISTER",
  "POWER_OF_ATTORNEY",
  "UTILITY_BILL",
  "ELECTRICITY_BILL",
  "RENT_OR_LEASE_AGREEMENT",
  "DIRECTOR_REGISTRY",
  "TRUST_AGREEMENT",
  "STATE_COMPANY_REGISTRY",
  "PARTNERSHIP_CONTROL_AGREEMENT",
  "PARTNERSHIP_AGREEMENT",
  "SELFIE",
  "OTHER"
]);
var DocumentSide = NamedLiterals("DocumentSide", ["FRONT", "BACK"]);
var UUID2 = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}";
var DocumentHolderId = Schema17.String.check(
  Schema17.isPattern(new RegExp(`^(Customer|BeneficialOwner):${UUID2}$`), {
    message: "must be a Customer id or a BeneficialOwner id (Customer:<uuid> or BeneficialOwner:<uuid>)"
  })
);
var Text2 = Schema17.String.check(Schema17.isBetweenLength(1, 255, { message: "must be 1 to 255 characters" }));
var metadataFields = {
  documentType: DocumentType,
  side: Schema17.optionalKey(DocumentSide),
  country: CountryCode,
  documentNumber: Schema17.optionalKey(Text2),
  issuingAuthority: Schema17.optionalKey(Text2)
};
var DocumentUploadFields = NamedStruct("DocumentUploadFields", {
  documentHolder: DocumentHolderId,
  ...metadataFields
});
var DocumentReplaceFields = Schema17.Struct(metadataFields).annotate({ identifier: "DocumentReplaceFields" });
var FilePart = Schema17.String.annotate({
  description: "The document file: PDF, JPEG or PNG (checked by content), at most 10 MB",
  format: "binary"
});
var DocumentUploadForm = NamedStruct("DocumentUploadRequest", { ...DocumentUploadFields.fields, file: FilePart });
var DocumentReplaceForm = NamedStruct("DocumentReplaceRequest", { ...DocumentReplaceFields.fields, file: FilePart });
var Document = NamedStruct("Document", {
  id: Schema17.String,
  documentHolder: Schema17.String,
  documentType: DocumentType,
  side: Schema17.optionalKey(DocumentSide),
  country: Schema17.String,
  documentNumber: Schema17.optionalKey(Schema17.String),
  issuingAuthority: Schema17.optionalKey(Schema17.String),
  fileName: Schema17.String,
  createdAt: Schema17.String,
  updatedAt: Schema17.optionalKey(Schema17.String)
});

// src/domain/verification.ts
var VerificationStatus = NamedLiterals("VerificationStatus", [
  "RESOLVE_ERRORS",
  "PENDING_MANUAL_REVIEW",
  "IN_PROGRESS",
  "APPROVED",
  "REJECTED",
  "READY_FOR_VERIFICATION"
]);
var VerificationErrorType = NamedLiterals("VerificationErrorType", [
  "MISSING_FIELD",
  "INVALID_FIELD",
  "MISSING_LEGAL_PRESENCE_DOCUMENT",
  "MISSING_CONTROL_STRUCTURE_DOCUMENT",
  "MISSING_OWNERSHIP_STRUCTURE_DOCUMENT",
  "MISSING_PROOF_OF_ADDRESS_DOCUMENT",
  "MISSING_IDENTITY_DOCUMENT",
  "INVALID_DOCUMENT",
  "EXPIRED_DOCUMENT",
  "POOR_QUALITY_DOCUMENT",
  "SUSPECTED_FRAUD_DOCUMENT",
  "WRONG_DOCUMENT_TYPE",
  "INCOMPLETE_DOCUMENT",
  "UNREADABLE_DOCUMENT",
  "DOCUMENT_VERIFICATION_FAILED",
  "APPLICANT_SANCTIONED",
  "APPLICANT_FRAUD",
  "APPLICANT_CRIMINAL_RECORD",
  "APPLICANT_REJECTED",
  "MISSING_BENEFICIAL_OWNER",
  "MISSING_CONTROL_PERSON",
  "MISSING_GOOD_STANDING_DOCUMENT"
]);
var VerificationError = NamedStruct("VerificationError", {
  /** The Customer, BeneficialOwner or Document the problem is about. */
  resourceId: Schema18.String,
  type: VerificationErrorType,
  /** Dot path of the missing or invalid field, as the PATCH body spells it. */
  field: Schema18.optionalKey(Schema18.String),
  reason: Schema18.String,
  acceptedDocumentTypes: Schema18.optionalKey(Schema18.Array(DocumentType))
});
var Verification = NamedStruct("Verification", {
  id: Schema18.String,
  customerId: Schema18.String,
  verificationStatus: VerificationStatus,
  errors: Schema18.Array(VerificationError),
  createdAt: Schema18.String,
  updatedAt: Schema18.optionalKey(Schema18.String)
});
var VerificationRequest = NamedStruct("VerificationRequest", {
  customerId: NonEmptyTextUpTo(MAX_ID_LENGTH)
});

// src/domain/events.ts
var WebhookTypes = [
  "OUTGOING_PAYMENT.PENDING",
  "OUTGOING_PAYMENT.PENDING_AUTHORIZATION",
  "OUTGOING_PAYMENT.PROCESSING",
  "OUTGOING_PAYMENT.COMPLETED",
  "OUTGOING_PAYMENT.FAILED",
  "OUTGOING_PAYMENT.EXPIRED",
  "OUTGOING_PAYMENT.REFUND_PENDING",
  "OUTGOING_PAYMENT.REFUND_COMPLETED",
  "OUTGOING_PAYMENT.REFUND_FAILED",
  "INCOMING_PAYMENT.PENDING",
  "INCOMING_PAYMENT.COMPLETED",
  "INCOMING_PAYMENT.FAILED",
  "INCOMING_PAYMENT.REFUND_PENDING",
  "INCOMING_PAYMENT.REFUND_COMPLETED",
  "INCOMING_PAYMENT.REFUND_FAILED",
  "CUSTOMER.KYC_APPROVED",
  "CUSTOMER.KYC_REJECTED",
  "CUSTOMER.KYC_PENDING",
  "CUSTOMER.KYB_APPROVED",
  "CUSTOMER.KYB_REJECTED",
  "CUSTOMER.KYB_PENDING",
  "VERIFICATION.APPROVED",
  "VERIFICATION.REJECTED",
  "VERIFICATION.RESOLVE_ERRORS",
  "VERIFICATION.IN_PROGRESS",
  "VERIFICATION.PENDING_MANUAL_REVIEW",
  "VERIFICATION.READY_FOR_VERIFICATION",
  "EXTERNAL_ACCOUNT.STATUS_UPDATED",
  "INTERNAL_ACCOUNT.BALANCE_UPDATED",
  "INTERNAL_ACCOUNT.STATUS_UPDATED",
  "INTERNAL_ACCOUNT.FUNDING_INSTRUCTIONS_UPDATED",
  "INVITATION.CLAIMED",
  "BULK_UPLOAD.COMPLETED",
  "BULK_UPLOAD.FAILED",
  "AGENT_ACTION.PENDING_APPROVAL",
  "CARD.STATE_CHANGE",
  "CARD.FUNDING_SOURCE_CHANGE",
  "CARD.PIN_STATUS_CHANGE",
  "CARD_TRANSACTION.AUTHORIZED",
  "CARD_TRANSACTION.PARTIALLY_SETTLED",
  "CARD_TRANSACTION.SETTLED",
  "CARD_TRANSACTION.DECLINED",
  "CARD_TRANSACTION.VOIDED",
  "CARD_TRANSACTION.EXCEPTION",
  "TEST"
];
var WebhookType = Schema19.Literals(WebhookTypes).annotate({ identifier: "WebhookType" });
var NoData = Schema19.optionalKey(Schema19.Never);
var OutgoingTransactionData = OutgoingTransaction;
var IncomingPaymentData = IncomingTransaction;
var InternalAccountData = InternalAccount;
var CardData = Card;
var CardTransactionData = CardTransaction;
var BulkCustomerImportJobData = BulkCustomerImportJob;
var UmaInvitationData = UmaInvitation;
var AgentActionData = AgentAction;
var Payloads = {
  "OUTGOING_PAYMENT.PENDING": OutgoingTransactionData,
  "OUTGOING_PAYMENT.PENDING_AUTHORIZATION": OutgoingTransactionData,
  "OUTGOING_PAYMENT.PROCESSING": OutgoingTransactionData,
  "OUTGOING_PAYMENT.COMPLETED": OutgoingTransactionData,
  "OUTGOING_PAYMENT.FAILED": OutgoingTransactionData,
  "OUTGOING_PAYMENT.EXPIRED": OutgoingTransactionData,
  "OUTGOING_PAYMENT.REFUND_PENDING": OutgoingTransactionData,
  "OUTGOING_PAYMENT.REFUND_COMPLETED": OutgoingTransactionData,
  "OUTGOING_PAYMENT.REFUND_FAILED": OutgoingTransactionData,
  "INCOMING_PAYMENT.PENDING": IncomingPaymentData,
  "INCOMING_PAYMENT.COMPLETED": IncomingPaymentData,
  "INCOMING_PAYMENT.FAILED": IncomingPaymentData,
  "INCOMING_PAYMENT.REFUND_PENDING": IncomingPaymentData,
  "INCOMING_PAYMENT.REFUND_COMPLETED": IncomingPaymentData,
  "INCOMING_PAYMENT.REFUND_FAILED": IncomingPaymentData,
  "CUSTOMER.KYC_APPROVED": CustomerResponse,
  "CUSTOMER.KYC_REJECTED": CustomerResponse,
  "CUSTOMER.KYC_PENDING": CustomerResponse,
  "CUSTOMER.KYB_APPROVED": CustomerResponse,
  "CUSTOMER.KYB_REJECTED": CustomerResponse,
  "CUSTOMER.KYB_PENDING": CustomerResponse,
  "VERIFICATION.APPROVED": Verification,
  "VERIFICATION.REJECTED": Verification,
  "VERIFICATION.RESOLVE_ERRORS": Verification,
  "VERIFICATION.IN_PROGRESS": Verification,
  "VERIFICATION.PENDING_MANUAL_REVIEW": Verification,
  "VERIFICATION.READY_FOR_VERIFICATION": Verification,
  "EXTERNAL_ACCOUNT.STATUS_UPDATED": ExternalAccount,
  "INTERNAL_ACCOUNT.BALANCE_UPDATED": InternalAccountData,
  "INTERNAL_ACCOUNT.STATUS_UPDATED": InternalAccountData,
  "INTERNAL_ACCOUNT.FUNDING_INSTRUCTIONS_UPDATED": InternalAccountData,
  "INVITATION.CLAIMED": UmaInvitationData,
  "BULK_UPLOAD.COMPLETED": BulkCustomerImportJobData,
  "BULK_UPLOAD.FAILED": BulkCustomerImportJobData,
  "AGENT_ACTION.PENDING_APPROVAL": AgentActionData,
  "CARD.STATE_CHANGE": CardData,
  "CARD.FUNDING_SOURCE_CHANGE": CardData,
  "CARD.PIN_STATUS_CHANGE": CardData,
  "CARD_TRANSACTION.AUTHORIZED": CardTransactionData,
  "CARD_TRANSACTION.PARTIALLY_SETTLED": CardTransactionData,
  "CARD_TRANSACTION.SETTLED": CardTransactionData,
  "CARD_TRANSACTION.DECLINED": CardTransactionData,
  "CARD_TRANSACTION.VOIDED": CardTransactionData,
  "CARD_TRANSACTION.EXCEPTION": CardTransactionData,
  "TEST": NoData
};
var WebhookId = ResourceId("Webhook");
var envelopeMember = (type) => Schema19.Struct({ id: WebhookId, type: Schema19.Literal(type), timestamp: DateTimeString, data: Payloads[type] }).annotate({ identifier: `${type} webhook` });
var eventMember = (type) => Schema19.Struct({
  id: WebhookId,
  platformId: Schema19.String,
  type: Schema19.Literal(type),
  timestamp: DateTimeString,
  data: Payloads[type]
}).annotate({ identifier: `${type} event` });
var DomainEvent = Schema19.Union(WebhookTypes.map(eventMember)).annotate({ identifier: "DomainEvent" }).pipe(Schema19.toTaggedUnion("type"));
var WebhookEnvelope = Schema19.Union(WebhookTypes.map(envelopeMember)).annotate({ identifier: "WebhookEnvelope" }).pipe(Schema19.toTaggedUnion("type"));
var makeEvent = (type, fields) => "data" in fields ? { data: fields.data, id: fields.id, platformId: fields.platformId, timestamp: fields.timestamp, type } : { id: fields.id, platformId: fields.platformId, timestamp: fields.timestamp, type };
var envelopeOf = (event) => {
  const { platformId: _platformId, ...envelope } = event;
  return envelope;
};
var decodeWebhookEnvelope = Schema19.decodeUnknownEffect(WebhookEnvelope);
var decodeWebhookEnvelopeJson = Schema19.decodeUnknownEffect(Schema19.fromJsonString(WebhookEnvelope));
var parseWebhookEnvelope = Schema19.decodeUnknownSync(Schema19.fromJsonString(WebhookEnvelope));
var encodeEnvelope = Schema19.encodeSync(WebhookEnvelope);
var webhookBodyOf = (event) => JSON.stringify(encodeEnvelope(envelopeOf(event)));

// src/operations/transition.ts
var build = (platformId, type, body, id, timestamp) => makeEvent(type, "data" in body ? { data: body.data, id, platformId, timestamp } : { id, platformId, timestamp });
var eventOf = (platform, type, body) => Ids.use((ids) => {
  const timestamp = body.timestamp;
  return timestamp === void 0 ? Effect7.flatMap(ids.make("Webhook"), (id) => Effect7.map(nowIso, (now) => build(platform.id, type, body, id, now))) : Effect7.map(ids.make("Webhook"), (id) => build(platform.id, type, body, id, timestamp));
});
var emit = (uow, platform, type, body) => Ids.use((ids) => {
  const timestamp = body.timestamp;
  return timestamp === void 0 ? Effect7.flatMap(ids.make("Webhook"), (id) => Effect7.flatMap(nowIso, (now) => uow.emit(build(platform.id, type, body, id, now)))) : Effect7.flatMap(ids.make("Webhook"), (id) => uow.emit(build(platform.id, type, body, id, timestamp)));
});
var schedule = (uow, platform, kind, subjectId, move) => Effect7.gen(function* () {
  const ids = yield* Ids;
  yield* uow.schedule({ platformId: platform.id, id: `Timer:${yield* ids.uuid}`, at: move.at, kind, subjectId, event: move.event });
});
var applyTransition = Effect7.fnUntraced(function* (uow, platform, t) {
  if (t.supersede === true) yield* uow.cancelTimers(platform.id, t.subjectId, t.kind);
  yield* t.write;
  for (const event of t.events ?? []) yield* uow.emit(event);
  for (const move of t.scheduled ?? []) yield* schedule(uow, platform, t.kind, t.subjectId, move);
});

// src/operations/money/config.ts
var DEFAULT_MIN_AMOUNT = 1;
var DEFAULT_MAX_AMOUNT = 1e8;
var EPOCH = "1970-01-01T00:00:00.000Z";
var defaultConfig = (platform, now) => ({
  id: `PlatformConfig:${platform.id}`,
  ...platform.umaDomain === void 0 ? {} : { umaDomain: platform.umaDomain },
  ...platform.webhookEndpoint === void 0 ? {} : { webhookEndpoint: platform.webhookEndpoint },
  supportedCurrencies: platformCurrencies(platform).map((currencyCode) => ({
    currencyCode,
    minAmount: DEFAULT_MIN_AMOUNT,
    maxAmount: DEFAULT_MAX_AMOUNT,
    requiredCounterpartyFields: [],
    enabledTransactionTypes: ["INCOMING", "OUTGOING"]
  })),
  isRegulatedFinancialInstitution: platform.settings.regulated,
  feeConfigs: [],
  railFeeConfigs: [],
  createdAt: now,
  updatedAt: now
});
var epochDefaults = /* @__PURE__ */ new WeakMap();
var epochDefaultsOf = (platform) => {
  let config = epochDefaults.get(platform);
  if (config === void 0) epochDefaults.set(platform, config = defaultConfig(platform, EPOCH));
  return config;
};
var configOf = (platform) => Store.use((store) => configIn(store, platform));
var configIn = (store, platform) => Effect8.map(store.platformConfigs.get(platform.id), (stored) => stored?.config ?? epochDefaultsOf(platform));
var materializedConfigOf = Effect8.fnUntraced(function* (platform) {
  const store = yield* Store;
  const stored = yield* store.platformConfigs.get(platform.id);
  if (stored !== void 0) return stored.config;
  return yield* store.transact(
    (uow) => Effect8.gen(function* () {
      const again = yield* store.platformConfigs.get(platform.id);
      if (again !== void 0) return again.config;
      const config = defaultConfig(platform, yield* nowIso);
      yield* uow.putPlatformConfig({ platformId: platform.id, config });
      return config;
    })
  );
});
var feeRulesOf = (config) => ({
  feeConfigs: config.feeConfigs.map((f) => ({
    feeType: f.feeType,
    sourceCurrency: f.sourceCurrency,
    variableFeeBps: f.variableFeeBps ?? 0,
    fixedFee: f.fixedFee ?? { amount: 0, currency: f.sourceCurrency }
  })),
  railFeeConfigs: config.railFeeConfigs.map((f) => ({
    rail: f.rail,
    sourceCurrency: f.sourceCurrency,
    variableFeeBps: f.variableFeeBps ?? 0,
    fixedFee: f.fixedFee ?? { amount: 0, currency: f.sourceCurrency }
  }))
});
var currenciesOf = Effect8.fnUntraced(function* (platform) {
  const config = yield* configOf(platform);
  return config.supportedCurrencies.map((c) => c.currencyCode);
});
var configProblems = (req2) => {
  const errors = [];
  const seen = /* @__PURE__ */ new Set();
  req2.supportedCurrencies?.forEach((c, i) => {
    if (currencyOf(c.currencyCode) === void 0) {
      errors.push({ field: `supportedCurrencies[${i}].currencyCode`, constraint: "currency", message: `${c.currencyCode} is not a currency the service supports` });
    }
    if (seen.has(c.currencyCode)) {
      errors.push({ field: `supportedCurrencies[${i}].currencyCode`, constraint: "unique", message: `${c.currencyCode} is listed twice` });
    }
    seen.add(c.currencyCode);
    if (c.minAmount > c.maxAmount) {
      errors.push({ field: `supportedCurrencies[${i}].minAmount`, constraint: "range", message: "must not exceed maxAmount" });
    }
  });
  if (req2.supportedCurrencies !== void 0 && req2.supportedCurrencies.length === 0) {
    errors.push({ field: "supportedCurrencies", constraint: "minItems", message: "must list at least one currency" });
  }
  const fees = (name, list) => list?.forEach((f, i) => {
    if (f.sourceCurrency !== "USD") {
      errors.push({ field: `${name}[${i}].sourceCurrency`, constraint: "usdSource", message: "platform fees require a USD source currency" });
    }
    if (f.fixedFee !== void 0 && f.fixedFee.currency !== f.sourceCurrency) {
      errors.push({ field: `${name}[${i}].fixedFee.currency`, constraint: "currency", message: "must be the source currency" });
    }
    if (f.variableFeeBps === void 0 && f.fixedFee === void 0) {
      errors.push({ field: `${name}[${i}]`, constraint: "fee", message: "needs variableFeeBps, fixedFee or both" });
    }
  });
  fees("feeConfigs", req2.feeConfigs);
  fees("railFeeConfigs", req2.railFeeConfigs);
  const rails = /* @__PURE__ */ new Set();
  req2.railFeeConfigs?.forEach((f, i) => {
    if (rails.has(f.rail)) errors.push({ field: `railFeeConfigs[${i}].rail`, constraint: "unique", message: `${f.rail} has two fee configs` });
    rails.add(f.rail);
  });
  const limits = (name) => req2.limits?.[name]?.forEach((l, i) => {
    if (currencyOf(l.currency) === void 0) {
      errors.push({ field: `limits.${name}[${i}].currency`, constraint: "currency", message: `${l.currency} is not a currency the service supports` });
    }
  });
  limits("singleTransaction");
  limits("dailyVolume");
  return errors;
};
var endpointAllowed = Effect8.fnUntraced(function* (platform, url) {
  const sender = yield* WebhookSender;
  const refusal2 = sender.endpointRefusal === void 0 ? void 0 : yield* sender.endpointRefusal(url, platform);
  if (refusal2 === void 0) return;
  const error = { field: "webhookEndpoint", constraint: "webhookDestination", message: `${refusal2.message} (${refusal2.rule})` };
  return yield* badRequest("INVALID_INPUT", `The webhook endpoint is not an allowed destination: ${refusal2.message}`, {
    details: { errors: [error], rule: refusal2.rule, url }
  });
});
var storedPartOf = ({ supportedCurrencies, ...rest }) => ({
  ...rest,
  ...supportedCurrencies === void 0 ? {} : {
    supportedCurrencies: supportedCurrencies.map(({ providerRequiredCustomerFields: _customer, providerRequiredCounterpartyCustomerFields: _counterparty, ...c }) => c)
  }
});
var updateConfig = Effect8.fnUntraced(function* (platform, req2) {
  const problems = configProblems(req2);
  if (problems.length > 0) return yield* invalidInput("The configuration is not valid", problems);
  if (req2.webhookEndpoint !== void 0) yield* endpointAllowed(platform, req2.webhookEndpoint);
  const store = yield* Store;
  return yield* store.transact(
    (uow) => Effect8.gen(function* () {
      const now = yield* nowIso;
      const stored = yield* store.platformConfigs.get(platform.id);
      const current = stored?.config ?? defaultConfig(platform, now);
      const next = { ...current, ...storedPartOf(req2), updatedAt: now };
      yield* uow.putPlatformConfig({ platformId: platform.id, config: next });
      if (req2.webhookEndpoint !== void 0 && req2.webhookEndpoint !== current.webhookEndpoint) {
        if (current.webhookEndpoint === void 0) {
          yield* uow.setWebhookCursor(platform.id, yield* store.webhooks.lastEventSeq(platform.id));
        }
        yield* emit(uow, platform, "TEST", { timestamp: now });
      }
      return next;
    })
  );
});

// src/operations/money/ledger.ts
import { Effect as Effect9 } from "effect";
var systemAccountNamed = (prefix) => memoize(1024, (currency) => `${prefix}${currency}`);
var worldAccount = systemAccountNamed("system:world:");
var inFlightAccount = systemAccountNamed("system:in_flight:");
var fxAccount = systemAccountNamed("system:fx:");
var revenueAccount = systemAccountNamed("system:revenue:");
var suspenseAccount = systemAccountNamed("system:suspense:");
var platformFeeAccount = systemAccountNamed("system:platform_fees:");
var postingsOf = (plan, move) => {
  const { debit, credit } = plan;
  const inFlight = inFlightAccount(debit.currency);
  switch (move) {
    case "DEBIT":
      return [
        { account: debit.account, currency: debit.currency, amount: -debit.amount },
        { account: inFlight, currency: debit.currency, amount: debit.amount }
      ];
    case "REFUND":
      return [
        { account: inFlight, currency: debit.currency, amount: -debit.amount },
        { account: debit.account, currency: debit.currency, amount: debit.amount }
      ];
    case "PARK":
      return [
        { account: inFlight, currency: debit.currency, amount: -debit.amount },
        { account: suspenseAccount(debit.currency), currency: debit.currency, amount: debit.amount }
      ];
    case "SETTLE": {
      const feeTotal = plan.fees.reduce((sum, f) => sum + f.amount, 0);
      const converted = debit.amount - feeTotal;
      const sending = [
        { account: inFlight, currency: debit.currency, amount: -debit.amount },
        ...plan.fees.filter((f) => f.amount > 0).map((f) => ({ account: f.account, currency: debit.currency, amount: f.amount }))
      ];
      if (debit.currency === credit.currency) {
        return [...sending, { account: credit.account, currency: credit.currency, amount: converted }];
      }
      return [
        ...sending,
        { account: fxAccount(debit.currency), currency: debit.currency, amount: converted },
        { account: fxAccount(credit.currency), currency: credit.currency, amount: -credit.amount },
        { account: credit.account, currency: credit.currency, amount: credit.amount }
      ];
    }
    case "RETURN":
      return [
        { account: worldAccount(debit.currency), currency: debit.currency, amount: -debit.amount },
        { account: debit.account, currency: debit.currency, amount: debit.amount }
      ];
  }
};
var postMove = (uow, platformId, transactionId, plan, move, at) => Ids.use(
  (ids) => Effect9.flatMap(
    ids.uuid,
    (uuid) => uow.post({
      platformId,
      id: `Entry:${uuid}`,
      kind: move,
      transactionId,
      at,
      postings: postingsOf(plan, move).filter((p) => p.amount !== 0)
    })
  )
);
var postEntry = Effect9.fnUntraced(function* (uow, platformId, kind, postings, at, transactionId) {
  const ids = yield* Ids;
  yield* uow.post({ platformId, id: `Entry:${yield* ids.uuid}`, kind, transactionId, at, postings });
});

// src/operations/money/accounts.ts
var CRYPTO = /* @__PURE__ */ new Set(["USDC", "USDT", "BTC"]);
var typeOf = (currency) => CRYPTO.has(currency) ? "INTERNAL_CRYPTO" : "INTERNAL_FIAT";
var digitsOf = (seed, length) => {
  const hex = bytesToHex2(sha2562(new TextEncoder().encode(seed)));
  let out = "";
  for (let i = 0; out.length < length; i = (i + 2) % hex.length) out += String(parseInt(hex.slice(i, i + 2), 16) % 10);
  return out;
};
var fundingCache = new BoundedMemo(1e4);
var fundingInstructionsOf = (rec) => {
  const platform = rec.customerId === null;
  const cached = fundingCache.get(rec.id);
  if (cached !== void 0 && cached.currency === rec.currency && cached.platform === platform) return cached.instructions;
  const instructions = computeFundingInstructions(rec);
  fundingCache.set(rec.id, { currency: rec.currency, platform, instructions });
  return instructions;
};
var computeFundingInstructions = (rec) => {
  const reference = `FUND-${digitsOf(rec.id, 8)}`;
  const isPlatformAccount = rec.customerId === null;
  const note = "Include the reference so the payment is credited to this account.";
  switch (rec.currency) {
    case "USD":
      return [{
        instructionsNotes: note,
        isPlatformAccount,
        accountOrWalletInfo: {
          accountType: "USD_ACCOUNT",
          reference,
          accountNumber: digitsOf(`${rec.id}:account`, 12),
          routingNumber: "021000021",
          bankName: "Sandbox Bank",
          paymentRails: ["ACH", "WIRE", "RTP", "FEDNOW"]
        }
      }];
    case "EUR":
      return [{
        instructionsNotes: note,
        isPlatformAccount,
        accountOrWalletInfo: { accountType: "EUR_ACCOUNT", reference, iban: `DE89${digitsOf(`${rec.id}:iban`, 18)}`, swiftCode: "SANDDEFFXXX", paymentRails: ["SEPA", "SEPA_INSTANT"] }
      }];
    case "MXN":
      return [{
        instructionsNotes: note,
        isPlatformAccount,
        accountOrWalletInfo: { accountType: "MXN_ACCOUNT", reference, clabeNumber: digitsOf(`${rec.id}:clabe`, 18), paymentRails: ["SPEI"] }
      }];
    default:
      return [];
  }
};
var ACCOUNT_SHAPES = [false, true].flatMap(
  (wallet2) => [false, true].map((customer) => {
    const keys = Object.keys(InternalAccount.fields).filter((key) => (key !== "customerId" || customer) && (key !== "privateEnabled" || wallet2));
    const shape = JSON.parse(`{${keys.map((key) => `${JSON.stringify(key)}:null`).join(",")}}`);
    return shape;
  })
);
var [PLATFORM_ACCOUNT, ACCOUNT_OF_CUSTOMER, PLATFORM_WALLET, WALLET_OF_CUSTOMER] = ACCOUNT_SHAPES;
var renderAccount = (rec, balance) => {
  const currency = currencyOf(rec.currency) ?? { code: rec.currency, name: rec.currency, symbol: rec.currency, decimals: 2 };
  const amount = { amount: balance, currency };
  const wallet2 = rec.type === "EMBEDDED_WALLET";
  const customer = rec.customerId !== null;
  const account = wallet2 ? customer ? { ...WALLET_OF_CUSTOMER } : { ...PLATFORM_WALLET } : customer ? { ...ACCOUNT_OF_CUSTOMER } : { ...PLATFORM_ACCOUNT };
  account.id = rec.id;
  if (customer) account.customerId = rec.customerId;
  account.type = rec.type;
  account.status = rec.status;
  account.balance = amount;
  account.totalBalance = amount;
  account.fundingPaymentInstructions = fundingInstructionsOf(rec);
  if (wallet2) account.privateEnabled = rec.privateEnabled ?? false;
  account.createdAt = rec.createdAt;
  account.updatedAt = rec.updatedAt;
  return account;
};
var renderAccounts = Effect10.fnUntraced(function* (platformId, records) {
  const store = yield* Store;
  const balances = yield* store.ledger.balances(platformId, records.map((r) => r.id));
  return records.map((r) => renderAccount(r, balances.get(r.id) ?? 0));
});
var renderOne = Effect10.fnUntraced(function* (platformId, rec) {
  const [account] = yield* renderAccounts(platformId, [rec]);
  return account ?? renderAccount(rec, 0);
});
var openAccounts = Effect10.fnUntraced(function* (uow, platform, customerId) {
  const store = yield* Store;
  const ids = yield* Ids;
  const out = [];
  const wallet2 = customerId === null ? void 0 : platform.embeddedWallets?.currency;
  const currencies2 = yield* currenciesOf(platform);
  for (const currency of wallet2 === void 0 || currencies2.includes(wallet2) ? currencies2 : [...currencies2, wallet2]) {
    const existing = yield* store.internalAccounts.findByOwnerCurrency(platform.id, customerId, currency);
    if (existing !== void 0) {
      out.push(existing);
      continue;
    }
    const now = yield* nowIso;
    const rec = {
      platformId: platform.id,
      id: yield* ids.make("InternalAccount"),
      customerId,
      type: currency === wallet2 ? "EMBEDDED_WALLET" : typeOf(currency),
      status: "ACTIVE",
      currency,
      createdAt: now,
      updatedAt: now
    };
    yield* uow.putInternalAccount(rec).pipe(Effect10.catchTag("StoreConflict", conflictIsDefect));
    yield* emit(uow, platform, "INTERNAL_ACCOUNT.STATUS_UPDATED", { timestamp: now, data: renderAccount(rec, 0) });
    out.push(rec);
  }
  return out;
});
var platformAccounts = (platform) => Effect10.flatMap(Effect10.service(Store), (store) => store.transact((uow) => openAccounts(uow, platform, null)));
var listCustomerAccounts = Effect10.fnUntraced(function* (platform, q) {
  const store = yield* Store;
  const page = yield* pageOf(store.internalAccounts.list(
    platform.id,
    { owner: "customer", customerId: q.customerId, currency: q.currency, type: q.type },
    { limit: q.limit ?? DEFAULT_PAGE_LIMIT, cursor: q.cursor }
  ));
  const data = yield* renderAccounts(platform.id, page.data);
  return { ...page, data };
});
var listPlatformAccounts = Effect10.fnUntraced(function* (platform, q) {
  const records = yield* platformAccounts(platform);
  const kept = records.filter((r) => (q.currency === void 0 || r.currency === q.currency) && (q.type === void 0 || r.type === q.type));
  return { data: yield* renderAccounts(platform.id, kept) };
});
var internalAccount = Effect10.fnUntraced(function* (platform, id) {
  const store = yield* Store;
  const rec = yield* store.internalAccounts.get(platform.id, id);
  if (rec === void 0) return yield* missing("internalAccount", `Internal account ${id} not found`);
  return rec;
});
var balanceUpdated = Effect10.fnUntraced(function* (uow, platform, rec, at) {
  yield* emit(uow, platform, "INTERNAL_ACCOUNT.BALANCE_UPDATED", { timestamp: at, data: yield* renderOne(platform.id, rec) });
});
var fundAccount = Effect10.fnUntraced(function* (platform, accountId, amount) {
  if (!platform.settings.sandbox) return yield* forbidden("Sandbox funding is only available to sandbox platforms");
  const store = yield* Store;
  return yield* store.transact((uow) => Effect10.gen(function* () {
    yield* openAccounts(uow, platform, null);
    const rec = yield* internalAccount(platform, accountId);
    const now = yield* nowIso;
    yield* postEntry(uow, platform.id, "FUND", [
      { account: worldAccount(rec.currency), currency: rec.currency, amount: -amount },
      { account: rec.id, currency: rec.currency, amount }
    ], now).pipe(Effect10.catchTag("LedgerRejected", (e) => Effect10.die(e)));
    yield* balanceUpdated(uow, platform, rec, now);
    return yield* renderOne(platform.id, rec);
  }), { movesMoneyOf: platform.id, accounts: [accountId] });
});

// src/rules/status-machine.ts
var machine = (spec) => (state, event) => {
  const to = spec.table[state]?.[event.type];
  if (to === void 0) return fail(spec.reject(state, event.type));
  return ok({ state: to, events: to === state ? [] : spec.emits(state, to), scheduled: [] });
};

// src/rules/kyc.ts
var FINAL_STATUSES = /* @__PURE__ */ new Set(["APPROVED", "REJECTED"]);
var isFinal = (status) => FINAL_STATUSES.has(status);
var KYC_TRANSITIONS = {
  UNVERIFIED: { SUBMITTED: "UNVERIFIED", REVIEW_STARTED: "PENDING", APPROVED: "APPROVED", REJECTED: "REJECTED" },
  PENDING: { SUBMITTED: "PENDING", REVIEW_STARTED: "PENDING", APPROVED: "APPROVED", REJECTED: "REJECTED" }
};
var finalStatusRejection = (what, status) => reject(
  "INVALID_INPUT",
  isFinal(status) ? `${what} status is ${status}, which is final: no further verification submissions are accepted` : `${what} status is ${status}: verification cannot proceed from this status`,
  { [what === "KYC" ? "kycStatus" : "kybStatus"]: status }
);
var transition = machine({
  table: KYC_TRANSITIONS,
  emits: (_from, to) => to === "UNVERIFIED" || to === "HOLD" ? [] : [`CUSTOMER.KYC_${to}`],
  reject: (state) => finalStatusRejection("KYC", state)
});

// src/rules/kyb.ts
var KYB_TRANSITIONS = KYC_TRANSITIONS;
var transition2 = machine({
  table: KYB_TRANSITIONS,
  emits: (_from, to) => to === "UNVERIFIED" || to === "HOLD" ? [] : [`CUSTOMER.KYB_${to}`],
  reject: (state) => finalStatusRejection("KYB", state)
});

// src/operations/verification-events.ts
var CUSTOMER_KIND = "customer";
var customerEventsOf = Effect11.fnUntraced(function* (platform, types, customer, timestamp) {
  const events = [];
  for (const type of types) events.push(yield* eventOf(platform, type, { timestamp, data: customer }));
  return events;
});
var writeCustomer = Effect11.fnUntraced(function* (uow, platform, record, types, timestamp) {
  const events = yield* customerEventsOf(platform, types, record.customer, timestamp);
  yield* applyTransition(uow, platform, { write: uow.putCustomer(record), subjectId: record.customer.id, kind: CUSTOMER_KIND, events });
  if (types.includes("CUSTOMER.KYC_APPROVED") || types.includes("CUSTOMER.KYB_APPROVED")) {
    yield* openAccounts(uow, platform, record.customer.id);
  }
});
var verificationEventOf = Effect11.fnUntraced(function* (platform, type, verification, timestamp) {
  return yield* eventOf(platform, type, { timestamp, data: verification });
});
var moveCustomer = (customer, event, now) => {
  const individual = customer.customerType === "INDIVIDUAL";
  const from = individual ? customer.kycStatus : customer.kybStatus;
  const r = individual ? transition(customer.kycStatus, event) : transition2(customer.kybStatus, event);
  if (!r.ok) return rejected(r.error);
  if (r.value.state === from) return Effect11.succeed({ customer, events: r.value.events });
  const moved2 = individual ? { ...customer, kycStatus: r.value.state, updatedAt: now } : { ...customer, kybStatus: r.value.state, updatedAt: now };
  return Effect11.succeed({ customer: moved2, events: r.value.events });
};

// src/operations/customers.ts
var mergeConsents2 = mergeConsents;
var consentFields2 = (consents) => {
  const eut = endUserTermsConsentOf(consents);
  return eut === void 0 ? { agreementConsents: consents } : { agreementConsents: consents, endUserTermsConsent: eut };
};
var requestConsents = (req2) => {
  return fromResult(consentsOf(req2));
};
var contactVerificationField = (cv) => cv === void 0 ? {} : { contactVerification: cv };
var umaAddressFor = (platformCustomerId) => `$${platformCustomerId.toLowerCase().replace(/[^a-z0-9._-]/g, "-").slice(0, 64)}@sandbox.uma.local`;
var customerGone = (id) => missing("customer", `Customer ${id} not found`);
var platformCustomerIdTaken = (platformCustomerId) => (e) => e.constraint === "customers_active_platform_customer_id" ? Effect12.fail(conflict("CONFLICT", `platformCustomerId ${platformCustomerId ?? ""} is already used by an active customer`)) : e.constraint === "customers_active_uma_address" ? Effect12.fail(umaAddressTaken(void 0)) : conflictIsDefect(e);
var umaAddressTaken = (umaAddress) => umaAddress === void 0 ? conflict("UMA_ADDRESS_EXISTS", "The UMA address was taken by a concurrent request for another customer of this platform") : conflict("UMA_ADDRESS_EXISTS", `UMA address ${umaAddress} is already used by another customer of this platform`, {
  details: { umaAddress }
});
var checkUmaAddressFree = Effect12.fnUntraced(function* (platform, umaAddress, self) {
  const store = yield* Store;
  const holder = yield* store.customers.findActiveByUmaAddress(platform.id, umaAddress);
  if (holder !== void 0 && holder.customer.id !== self) return yield* umaAddressTaken(umaAddress);
});
var defaultUmaAddress = Effect12.fnUntraced(function* (platform, platformCustomerId, customerId) {
  const store = yield* Store;
  const preferred = umaAddressFor(platformCustomerId);
  if ((yield* store.customers.findActiveByUmaAddress(platform.id, preferred)) === void 0) return preferred;
  return umaAddressFor(`${platformCustomerId.slice(0, 48)}-${customerId.slice("Customer:".length, "Customer:".length + 12)}`);
});
var activeCustomer = Effect12.fnUntraced(function* (platform, id) {
  const store = yield* Store;
  const rec = yield* store.customers.get(platform.id, id);
  if (rec === void 0 || rec.deletedAt !== void 0) return yield* customerGone(id);
  return rec;
});
var referencedCustomer = Effect12.fnUntraced(function* (platform, id, field) {
  const store = yield* Store;
  const rec = yield* store.customers.get(platform.id, id);
  if (rec === void 0 || rec.deletedAt !== void 0) return yield* unknownReference(field, id, "an active customer");
  return rec;
});
var CREATION_EVENTS = {
  PENDING: { type: "REVIEW_STARTED" },
  APPROVED: { type: "APPROVED" },
  REJECTED: { type: "REJECTED" }
};
var createCustomer = Effect12.fnUntraced(function* (platform, req2) {
  const store = yield* Store;
  const ids = yield* Ids;
  const consents = yield* requestConsents(req2);
  return yield* store.transact(
    (uow) => Effect12.gen(function* () {
      if (req2.platformCustomerId !== void 0) {
        const clash = yield* store.customers.findActiveByPlatformCustomerId(platform.id, req2.platformCustomerId);
        if (clash !== void 0) {
          return yield* conflict("CONFLICT", `platformCustomerId ${req2.platformCustomerId} is already used by an active customer`, {
            details: { platformCustomerId: req2.platformCustomerId, customerId: clash.customer.id }
          });
        }
      }
      if (req2.umaAddress !== void 0) yield* checkUmaAddressFree(platform, req2.umaAddress);
      const id = yield* ids.make("Customer");
      const now = yield* nowIso;
      const platformCustomerId = req2.platformCustomerId ?? id.slice("Customer:".length);
      const { agreementConsents: _a, endUserTermsConsent: _e, ...fields } = req2;
      const common = {
        ...fields,
        id,
        platformCustomerId,
        umaAddress: req2.umaAddress ?? (yield* defaultUmaAddress(platform, platformCustomerId, id)),
        ...consentFields2(consents),
        createdAt: now,
        updatedAt: now,
        isDeleted: false,
        ...contactVerificationField(contactVerificationAtCreation(fields.region))
      };
      let customer = fields.customerType === "INDIVIDUAL" ? { ...common, customerType: "INDIVIDUAL", ...fields.fullName === void 0 ? {} : { fullName: fields.fullName }, kycStatus: "UNVERIFIED" } : { ...common, customerType: "BUSINESS", businessInfo: fields.businessInfo, kybStatus: "UNVERIFIED" };
      let events = [];
      if (fields.customerType === "INDIVIDUAL") {
        const resolved = fields.fullName === void 0 ? "UNVERIFIED" : kycStatusAtCreation(platform.settings, fields.fullName);
        if (resolved !== "UNVERIFIED") {
          const moved2 = yield* moveCustomer(customer, CREATION_EVENTS[resolved], now);
          customer = moved2.customer;
          events = moved2.events;
        }
      }
      yield* writeCustomer(uow, platform, { platformId: platform.id, customer }, events, now);
      return customer;
    })
  ).pipe(Effect12.catchTag("StoreConflict", platformCustomerIdTaken(req2.platformCustomerId)));
});
var getCustomer = Effect12.fnUntraced(function* (platform, id) {
  const store = yield* Store;
  const rec = yield* store.customers.get(platform.id, id);
  if (rec === void 0) return yield* customerGone(id);
  return rec.customer;
});
var listCustomers = Effect12.fnUntraced(function* (platform, q) {
  const store = yield* Store;
  const query2 = {
    platformCustomerId: q.platformCustomerId,
    customerType: q.customerType,
    ...yield* changedWindowsOf(q),
    region: q.region,
    currency: q.currency,
    umaAddress: q.umaAddress,
    includeDeleted: q.isIncludingDeleted === "true"
  };
  return yield* shownPageOf(store.customers.list(platform.id, query2, pageRequestOf(q)), (r) => r.customer);
});
var writeUpdate = Effect12.fnUntraced(function* (uow, platform, id, req2, added) {
  const rec = yield* activeCustomer(platform, id);
  const current = rec.customer;
  yield* checkUpdate(platform, current, req2);
  const now = yield* nowIso;
  const { agreementConsents: _a, endUserTermsConsent: _e, ...fields } = req2;
  const base2 = { ...consentFields2(mergeConsents2(current.agreementConsents, added)), updatedAt: now };
  let next;
  if (current.customerType === "INDIVIDUAL" && fields.customerType === "INDIVIDUAL") {
    next = { ...current, ...fields, ...base2 };
  } else if (current.customerType === "BUSINESS" && fields.customerType === "BUSINESS") {
    const { businessInfo, ...rest } = fields;
    next = { ...current, ...rest, ...base2, businessInfo: { ...current.businessInfo, ...businessInfo } };
  } else {
    return yield* invalidInput("customerType cannot change");
  }
  const { contactVerification: _cv, ...withoutContact } = next;
  const contactVerification = contactVerificationAfterUpdate(current, next);
  next = { ...withoutContact, ...contactVerificationField(contactVerification) };
  const contactCodes = contactVerification === void 0 ? void 0 : {
    ...current.email === next.email ? { email: rec.contactCodes?.email } : {},
    ...current.phoneNumber === next.phoneNumber ? { phone: rec.contactCodes?.phone } : {}
  };
  yield* uow.putCustomer({ ...rec, customer: next, contactCodes });
  return next;
});
var checkUpdate = Effect12.fnUntraced(function* (platform, current, req2) {
  if (current.customerType !== req2.customerType) {
    return yield* invalidInput(`customerType is ${current.customerType} for this customer and cannot change`, [{
      field: "customerType",
      constraint: "immutable",
      message: `must be ${current.customerType}`
    }]);
  }
  if (req2.umaAddress !== void 0) yield* checkUmaAddressFree(platform, req2.umaAddress, current.id);
});
var updateCustomer = Effect12.fnUntraced(function* (platform, id, req2, headers = {}) {
  const store = yield* Store;
  const added = yield* requestConsents(req2);
  const rec = yield* activeCustomer(platform, id);
  const change = (yield* walletContactChange(platform, rec, req2)) ?? (yield* pendingContactChange(platform, rec, req2, headers));
  if (change === void 0) {
    const value = yield* store.transact((uow) => writeUpdate(uow, platform, id, req2, added)).pipe(Effect12.catchTag("StoreConflict", platformCustomerIdTaken(void 0)));
    return { _tag: "Done", value };
  }
  return yield* signedRequest({
    platform,
    accountId: change.accountId,
    action: CUSTOMER_UPDATE_ACTION,
    request: { customerId: id, ...req2 },
    check: () => Effect12.gen(function* () {
      const rec2 = yield* activeCustomer(platform, id);
      yield* checkUpdate(platform, rec2.customer, req2);
      yield* checkContactFree(platform, change);
    }),
    perform: (uow) => Effect12.gen(function* () {
      const next = yield* writeUpdate(uow, platform, id, req2, added);
      yield* syncOtpCredentials(uow, platform, change);
      return next;
    })
  }, headers).pipe(Effect12.catchTag("StoreConflict", platformCustomerIdTaken(void 0)));
});
var walletContactChange = Effect12.fnUntraced(function* (platform, rec, req2) {
  const store = yield* Store;
  const settings = platform.embeddedWallets;
  if (settings === void 0) return void 0;
  const wallet2 = yield* store.internalAccounts.findByOwnerCurrency(platform.id, rec.customer.id, settings.currency);
  if (wallet2 === void 0 || wallet2.type !== "EMBEDDED_WALLET") return void 0;
  const credentials = yield* credentialsOf(platform, wallet2.id);
  const hasEmailOtp = credentials.some((c) => c.type === "EMAIL_OTP");
  const hasSmsOtp = credentials.some((c) => c.type === "SMS_OTP");
  if (!hasEmailOtp && !hasSmsOtp) return void 0;
  if (req2.email !== void 0 && req2.phoneNumber !== void 0) {
    return yield* invalidInput("Update email and phoneNumber in separate requests: this customer's embedded wallet has OTP credentials tied to them", [{
      field: "phoneNumber",
      constraint: "exclusive",
      message: "must not be sent with email while the customer's embedded wallet has EMAIL_OTP or SMS_OTP credentials"
    }]);
  }
  const current = rec.customer;
  if (req2.email !== void 0 && req2.email !== current.email && hasEmailOtp) {
    return contactChange(wallet2.id, "EMAIL_OTP", req2.email);
  }
  if (req2.phoneNumber !== void 0 && req2.phoneNumber !== current.phoneNumber && hasSmsOtp) {
    return contactChange(wallet2.id, "SMS_OTP", req2.phoneNumber);
  }
  return void 0;
});
var pendingContactChange = Effect12.fnUntraced(function* (platform, rec, req2, headers) {
  const store = yield* Store;
  const settings = platform.embeddedWallets;
  if (headers.requestId === void 0 || headers.requestId === "" || settings === void 0) return void 0;
  const pending2 = yield* store.wallets.get(platform.id, "request", headers.requestId);
  if (pending2 === void 0 || pending2.action !== CUSTOMER_UPDATE_ACTION) return void 0;
  const wallet2 = yield* store.internalAccounts.findByOwnerCurrency(platform.id, rec.customer.id, settings.currency);
  if (wallet2 === void 0 || wallet2.id !== pending2.accountId) return void 0;
  if (req2.email !== void 0) return contactChange(wallet2.id, "EMAIL_OTP", req2.email);
  if (req2.phoneNumber !== void 0) return contactChange(wallet2.id, "SMS_OTP", req2.phoneNumber);
  return void 0;
});
var CUSTOMER_UPDATE_ACTION = "PATCH /customers/{customerId}";
var contactChange = (accountId, type, value) => ({
  accountId,
  type,
  value,
  lookupKey: type === "EMAIL_OTP" ? `email:${value.toLowerCase()}` : `phone:${value}`
});
var checkContactFree = Effect12.fnUntraced(function* (platform, change) {
  const store = yield* Store;
  const tied = yield* store.wallets.byLookup(platform.id, "credential", change.lookupKey);
  if (!tied.some((c) => c.accountId !== change.accountId)) return;
  return yield* change.type === "EMAIL_OTP" ? conflict("EMAIL_OTP_EMAIL_ALREADY_EXISTS", `${change.value} is already tied to an EMAIL_OTP credential`) : conflict("SMS_OTP_PHONE_NUMBER_ALREADY_EXISTS", `${change.value} is already tied to an SMS_OTP credential`);
});
var syncOtpCredentials = Effect12.fnUntraced(function* (uow, platform, change) {
  const store = yield* Store;
  const now = yield* nowIso;
  const credentials = (yield* credentialsOf(platform, change.accountId)).filter((c) => c.type === change.type);
  for (const c of credentials) yield* uow.putWalletRecord({ ...c, nickname: change.value, lookupKey: change.lookupKey, updatedAt: now });
  const ids = new Set(credentials.map((c) => c.id));
  for (const s of yield* store.wallets.byAccount(platform.id, "session", change.accountId)) {
    if (ids.has(s.credentialId) && !s.revoked) yield* uow.putWalletRecord({ ...s, nickname: change.value, updatedAt: now });
  }
});
var deleteCustomer = Effect12.fnUntraced(function* (platform, id) {
  const store = yield* Store;
  return yield* store.transact(
    (uow) => Effect12.gen(function* () {
      const rec = yield* store.customers.get(platform.id, id);
      if (rec === void 0) return yield* customerGone(id);
      if (rec.deletedAt !== void 0) return yield* gone(`Customer ${id} was already deleted`);
      const now = yield* nowIso;
      const customer = { ...rec.customer, isDeleted: true, updatedAt: now };
      yield* uow.putCustomer({ ...rec, customer, deletedAt: now });
      return customer;
    })
  ).pipe(Effect12.catchTag("StoreConflict", conflictIsDefect));
});
var listAgreements = Effect12.succeed({ data: AGREEMENTS });
var getEndUserTerms = Effect12.sync(() => {
  const a = agreementOf("SERVICE_END_USER_TERMS");
  return { version: a.version, url: a.url };
});

// src/operations/money/quotes.ts
import { Context as Context5, Effect as Effect17 } from "effect";

// src/rules/sandbox/identifiers.ts
var str2 = (v) => typeof v === "string" && v.length > 0 ? v : void 0;
var firstOf = (info, ...fields) => {
  for (const f of fields) {
    const v = str2(info[f]);
    if (v !== void 0) return v;
  }
  return "";
};
var PRIMARY_IDENTIFIER_FIELDS = {
  AED_ACCOUNT: ["iban"],
  DKK_ACCOUNT: ["iban"],
  EUR_ACCOUNT: ["iban"],
  ILS_ACCOUNT: ["iban"],
  TRY_ACCOUNT: ["iban"],
  EGP_ACCOUNT: ["iban", "phoneNumber"],
  PKR_ACCOUNT: ["accountNumber", "iban", "phoneNumber"],
  BDT_ACCOUNT: ["accountNumber", "phoneNumber"],
  CNY_ACCOUNT: ["accountNumber", "phoneNumber"],
  COP_ACCOUNT: ["accountNumber", "phoneNumber"],
  GHS_ACCOUNT: ["accountNumber", "phoneNumber"],
  SLV_ACCOUNT: ["accountNumber", "phoneNumber"],
  BRL_ACCOUNT: ["pixKey"],
  MXN_ACCOUNT: ["clabeNumber"],
  INR_ACCOUNT: ["accountNumber", "vpa"],
  SWIFT_ACCOUNT: ["accountNumber", "iban"],
  BWP_ACCOUNT: ["phoneNumber"],
  HTG_ACCOUNT: ["phoneNumber"],
  KES_ACCOUNT: ["phoneNumber"],
  MWK_ACCOUNT: ["phoneNumber"],
  RWF_ACCOUNT: ["phoneNumber"],
  TZS_ACCOUNT: ["phoneNumber"],
  UGX_ACCOUNT: ["phoneNumber"],
  XAF_ACCOUNT: ["phoneNumber"],
  XOF_ACCOUNT: ["phoneNumber"],
  ZMW_ACCOUNT: ["phoneNumber"],
  LIGHTNING: ["invoice", "bolt12", "lightningAddress"],
  LIGHTNING_ACCOUNT: ["invoice", "bolt12", "lightningAddress"]
};
var primaryIdentifier = (info) => {
  const fields = PRIMARY_IDENTIFIER_FIELDS[info.accountType];
  if (fields !== void 0) return firstOf(info, ...fields);
  if (info.accountType.endsWith("_WALLET")) return firstOf(info, "address");
  return firstOf(info, "accountNumber");
};
var identifierSuffix = (identifier2) => {
  const at = identifier2.indexOf("@");
  const local = at >= 0 ? identifier2.slice(0, at) : identifier2;
  return local.slice(-3);
};

// src/rules/external-account-create.ts
var usability = (account) => {
  if (account.bankValidationPending === true) {
    return fail(reject("BANK_ACCOUNT_VALIDATION_PENDING", "The US bank account is still being validated by micro-entry; retry later"));
  }
  if (account.bankValidationFailed === true) {
    return fail(reject("INVALID_BANK_ACCOUNT", "The bank account failed validation permanently; register a different account"));
  }
  return ok(true);
};

// src/rules/money/rates.ts
var RATE_CACHE_MILLIS = 3e5;
var BASE_USD_RATES = {
  USD: 1,
  EUR: 0.92,
  MXN: 17.2,
  GBP: 0.79,
  CAD: 1.36,
  BRL: 5,
  INR: 83.2,
  NGN: 1550,
  KES: 129,
  PHP: 56.5,
  COP: 3900,
  DKK: 6.87,
  HKD: 7.81,
  SGD: 1.34,
  IDR: 15600,
  MYR: 4.7,
  THB: 35.5,
  VND: 24500,
  AED: 3.6725,
  CNY: 7.2,
  USDC: 1,
  USDT: 1,
  BTC: 105e-7
};
var PEGGED_TO_USD = /* @__PURE__ */ new Set(["USD", "USDC", "USDT"]);
var UNAVAILABLE_CORRIDORS = /* @__PURE__ */ new Set(["BTC->VND"]);
var RATE_SIGNIFICANT_DIGITS = 12;
var API_EXCHANGE_RATE_SIGNIFICANT_DIGITS = 10;
var rateBucket = (nowMillis2) => Math.floor(nowMillis2 / RATE_CACHE_MILLIS);
var fnv1a32 = (text2) => {
  let h = 2166136261;
  for (let i = 0; i < text2.length; i++) {
    h ^= text2.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return h >>> 0;
};
var rateDrift = (source, destination, bucket) => (fnv1a32(`${source}->${destination}#${bucket}`) % 10001 - 5e3) / 1e6;
var corridorKey = (source, destination) => `${source}->${destination}`;
var hasBase = (code) => currencyOf(code) !== void 0 && Object.prototype.hasOwnProperty.call(BASE_USD_RATES, code);
var rateAt = (source, destination, nowMillis2) => {
  if (!hasBase(source) || !hasBase(destination)) return void 0;
  if (UNAVAILABLE_CORRIDORS.has(corridorKey(source, destination))) return void 0;
  const bucket = rateBucket(nowMillis2);
  const updatedAt = bucket * RATE_CACHE_MILLIS;
  const expiresAt = updatedAt + RATE_CACHE_MILLIS;
  if (source === destination || PEGGED_TO_USD.has(source) && PEGGED_TO_USD.has(destination)) {
    return { rate: 1, updatedAt, expiresAt };
  }
  const base2 = (BASE_USD_RATES[destination] ?? Number.NaN) / (BASE_USD_RATES[source] ?? Number.NaN);
  const rate = Number((base2 * (1 + rateDrift(source, destination, bucket))).toPrecision(RATE_SIGNIFICANT_DIGITS));
  return { rate, updatedAt, expiresAt };
};
var apiExchangeRate = (rate) => {
  if (rate === 0) return shownExchangeRate(rate);
  return apiRates.getOrCompute(rate, shownExchangeRate);
};
var shownExchangeRate = (rate) => Number((1 / rate).toPrecision(API_EXCHANGE_RATE_SIGNIFICANT_DIGITS));
var apiRates = new BoundedMemo(1024);
var RATIONAL_SIGNIFICANT_DIGITS = 15;
var toRational = (value) => rationals.getOrCompute(value, rationalOf);
var rationals = new BoundedMemo(1024);
var rationalOf = (value) => {
  if (!Number.isFinite(value) || value <= 0) return void 0;
  const [mantissa = "", exponentText = "0"] = value.toExponential(RATIONAL_SIGNIFICANT_DIGITS - 1).split("e");
  const digits = BigInt(mantissa.replace(".", ""));
  const exponent = Number(exponentText) - (RATIONAL_SIGNIFICANT_DIGITS - 1);
  return exponent >= 0 ? { num: digits * 10n ** BigInt(exponent), den: 1n } : { num: digits, den: 10n ** BigInt(-exponent) };
};
var floorDiv = (a, b) => {
  const q = a / b;
  return a % b !== 0n && a < 0n ? q - 1n : q;
};
var ceilDiv = (a, b) => -floorDiv(-a, b);
var usdCentsIn = (usdCents, currency) => {
  const c = currencyOf(currency);
  const base2 = BASE_USD_RATES[currency];
  if (c === void 0 || base2 === void 0 || !Number.isSafeInteger(usdCents)) return void 0;
  const r = toRational(base2);
  if (r === void 0) return void 0;
  const num = BigInt(usdCents) * r.num * 10n ** BigInt(c.decimals);
  const den = r.den * 100n;
  return Number(floorDiv(num, den));
};

// src/rules/money/fees.ts
var FEE_SOURCE_CURRENCIES = /* @__PURE__ */ new Set(["USD"]);
var MAX_BPS = 1e4;
var bpsProblems = (field, bps) => Number.isInteger(bps) && bps >= 0 && bps <= MAX_BPS ? [] : [{ field, constraint: "range", message: `must be an integer from 0 to ${MAX_BPS} basis points` }];
var fixedFeeProblems = (field, fee, currency) => [
  ...Number.isSafeInteger(fee.amount) && fee.amount >= 0 ? [] : [{ field: `${field}.amount`, constraint: "range", message: "must be a non-negative integer in minor units" }],
  ...fee.currency === currency ? [] : [{ field: `${field}.currency`, constraint: "sameCurrency", message: `must be the source currency (${currency})` }]
];
var sourceCurrencyProblems = (field, currency) => FEE_SOURCE_CURRENCIES.has(currency) ? [] : [{ field, constraint: "usdOnly", message: "platform fees require a USD source currency" }];
var platformFeeOverrideProblems = (override, sendingCurrency) => [
  ...sourceCurrencyProblems("platformFeeOverride", sendingCurrency),
  ...bpsProblems("platformFeeOverride.platformVariableFeeBps", override.platformVariableFeeBps),
  ...fixedFeeProblems("platformFeeOverride.platformFixedFee", override.platformFixedFee, sendingCurrency)
];
var variableFee = (amount, bps) => Number(ceilDiv(BigInt(amount) * BigInt(bps), BigInt(MAX_BPS)));
var feeOf = (amount, bps, fixed, currency) => (
  // A fixed fee in another currency is a configuration error caught by the checks above;
  // if one slips through it contributes nothing rather than a wrongly-scaled amount.
  variableFee(amount, bps) + (fixed.currency === currency ? fixed.amount : 0)
);
var platformFeeOn = (input, sendingAmount) => {
  const { sendingCurrency } = input;
  if (!Number.isSafeInteger(sendingAmount) || sendingAmount < 0) return 0;
  if (input.override !== void 0) {
    return feeOf(sendingAmount, input.override.platformVariableFeeBps, input.override.platformFixedFee, sendingCurrency);
  }
  let fee = 0;
  if (input.crossCurrency) {
    const c = (input.feeConfigs ?? []).find((f) => f.feeType === "CROSS_CURRENCY_TRANSACTION" && f.sourceCurrency === sendingCurrency);
    if (c !== void 0) fee += feeOf(sendingAmount, c.variableFeeBps, c.fixedFee, sendingCurrency);
  }
  if (input.rail !== void 0) {
    const r = (input.railFeeConfigs ?? []).find((f) => f.rail === input.rail && f.sourceCurrency === sendingCurrency);
    if (r !== void 0) fee += feeOf(sendingAmount, r.variableFeeBps, r.fixedFee, sendingCurrency);
  }
  return fee;
};
var SERVICE_FEES_USD_CENTS = {};
var serviceFee = (rail, sendingCurrency) => rail !== void 0 && sendingCurrency === "USD" ? SERVICE_FEES_USD_CENTS[rail] ?? 0 : 0;
var quoteFee = (input) => (amountConverted) => serviceFee(input.rail, input.sendingCurrency) + platformFeeOn(input, amountConverted);

// src/rules/money/rails.ts
var PAYMENT_RAILS = PaymentRail.literals;
var isPaymentRail = (value) => PAYMENT_RAILS.includes(value);
var MOBILE_MONEY_ONLY = ["BWP", "HTG", "KES", "MWK", "RWF", "TZS", "UGX", "XAF", "XOF", "ZMW"];
var BANK_OR_MOBILE = ["BDT", "CNY", "COP", "EGP", "GHS", "PKR", "SLV"];
var BANK_TRANSFER_ONLY = ["AED", "CAD", "GTQ", "HKD", "IDR", "ILS", "JMD", "MYR", "NGN", "PHP", "THB", "TRY", "VND", "ZAR"];
var DEFAULT_RAILS = {
  USD_ACCOUNT: "ACH",
  EUR_ACCOUNT: "SEPA_INSTANT",
  DKK_ACCOUNT: "SEPA_INSTANT",
  GBP_ACCOUNT: "FASTER_PAYMENTS",
  MXN_ACCOUNT: "SPEI",
  BRL_ACCOUNT: "PIX",
  INR_ACCOUNT: "UPI",
  SGD_ACCOUNT: "FAST",
  SWIFT_ACCOUNT: "SWIFT",
  ...Object.fromEntries(MOBILE_MONEY_ONLY.map((c) => [`${c}_ACCOUNT`, "MOBILE_MONEY"])),
  ...Object.fromEntries(BANK_OR_MOBILE.map((c) => [`${c}_ACCOUNT`, "BANK_TRANSFER"])),
  ...Object.fromEntries(BANK_TRANSFER_ONLY.map((c) => [`${c}_ACCOUNT`, "BANK_TRANSFER"]))
};
var currencyFits = (accountType, currency) => {
  const own2 = currencyOfAccountType(accountType);
  return own2 === void 0 ? accountType === "SWIFT_ACCOUNT" : own2 === currency;
};
var text = (info, field) => {
  const v = info?.[field];
  return typeof v === "string" && v.length > 0 ? v : void 0;
};
var defaultRailFor = (accountType, currency, accountInfo) => {
  if (!currencyFits(accountType, currency)) return void 0;
  if (accountType === "INR_ACCOUNT" && accountInfo !== void 0) {
    const rail = text(accountInfo, "rail");
    if (rail !== void 0 && isPaymentRail(rail) && railAllowed(rail, accountType, currency)) return rail;
    if (text(accountInfo, "vpa") !== void 0) return "UPI";
    if (text(accountInfo, "accountNumber") !== void 0) return "NEFT";
  }
  if (BANK_OR_MOBILE.includes(currency) && accountInfo !== void 0) {
    const banked = text(accountInfo, "accountNumber") !== void 0 || text(accountInfo, "iban") !== void 0;
    if (!banked && text(accountInfo, "phoneNumber") !== void 0) return "MOBILE_MONEY";
  }
  return DEFAULT_RAILS[accountType];
};
var railAllowed = (rail, accountType, currency) => {
  if (!currencyFits(accountType, currency)) return false;
  if (rail === "ACH_SAME_DAY" && !(accountType === "USD_ACCOUNT" && currency === "USD")) return false;
  return (paymentRailsOf(accountType) ?? []).includes(rail);
};
var ACH_SAME_DAY_CAP_CHANGE = Date.UTC(2027, 8, 17);
var achSameDayCap = (nowMillis2) => nowMillis2 < ACH_SAME_DAY_CAP_CHANGE ? 1e8 : 1e9;
var achSameDayCapExceeded = (amountUsdCents, nowMillis2) => amountUsdCents > achSameDayCap(nowMillis2);
var DAY_MILLIS = 864e5;
var dayStart = (ms) => Math.floor(ms / DAY_MILLIS) * DAY_MILLIS;
var isBusinessDay = (ms) => {
  const weekday = new Date(dayStart(ms)).getUTCDay();
  return weekday >= 1 && weekday <= 5;
};
var nextBusinessDayStart = (ms) => {
  let day = dayStart(ms) + DAY_MILLIS;
  while (!isBusinessDay(day)) day += DAY_MILLIS;
  return day;
};
var RAIL_SETTLEMENT = {
  ACH: "NEXT_BUSINESS_DAY",
  ACH_SAME_DAY: "SAME_BUSINESS_DAY",
  ACH_COLOMBIA: "NEXT_BUSINESS_DAY",
  BANK_TRANSFER: "NEXT_BUSINESS_DAY",
  BRE_B: "INSTANT",
  CIPS: "SAME_BUSINESS_DAY",
  FAST: "INSTANT",
  FASTER_PAYMENTS: "INSTANT",
  FEDNOW: "INSTANT",
  INSTAPAY: "INSTANT",
  MOBILE_MONEY: "INSTANT",
  NEFT: "SAME_BUSINESS_DAY",
  PAYNOW: "INSTANT",
  PESONET: "SAME_BUSINESS_DAY",
  PIX: "INSTANT",
  RTGS: "SAME_BUSINESS_DAY",
  RTP: "INSTANT",
  SEPA: "NEXT_BUSINESS_DAY",
  SEPA_INSTANT: "INSTANT",
  SPEI: "INSTANT",
  SWIFT: "NEXT_BUSINESS_DAY",
  UNIONPAY: "SAME_BUSINESS_DAY",
  UPI: "INSTANT",
  WIRE: "SAME_BUSINESS_DAY"
};
var settlementAt = (rail, nowMillis2, sandbox) => {
  const speed = rail === "ACH" && !sandbox ? "SAME_BUSINESS_DAY" : RAIL_SETTLEMENT[rail];
  switch (speed) {
    case "INSTANT":
      return nowMillis2;
    case "SAME_BUSINESS_DAY":
      return isBusinessDay(nowMillis2) ? nowMillis2 : nextBusinessDayStart(nowMillis2);
    case "NEXT_BUSINESS_DAY":
      return nextBusinessDayStart(nowMillis2);
  }
};
var holdUntilSettlement = (steps, settlement) => {
  const completion = steps.find((s) => s.move.type === "COMPLETE");
  if (settlement === void 0 || completion === void 0 || completion.at >= settlement) return steps;
  const delay = settlement - completion.at;
  return steps.map((s) => s.at >= completion.at ? { ...s, at: s.at + delay } : s);
};

// src/rules/money/limits.ts
var DEFAULT_SINGLE_TRANSACTION_LIMIT_USD_CENTS = 1e8;
var DEFAULT_DAILY_VOLUME_LIMIT_USD_CENTS = 5e8;
var OWNERSHIP_VERIFICATION_THRESHOLD_USD = 1e5;
var perCurrency = (usdCents) => Object.fromEntries(Object.keys(CURRENCIES).flatMap((code) => {
  const v = usdCentsIn(usdCents, code);
  return v === void 0 ? [] : [[code, v]];
}));
var DEFAULT_SINGLE_TRANSACTION_LIMITS = perCurrency(DEFAULT_SINGLE_TRANSACTION_LIMIT_USD_CENTS);
var DEFAULT_DAILY_VOLUME_LIMIT = perCurrency(DEFAULT_DAILY_VOLUME_LIMIT_USD_CENTS);
var OWNERSHIP_VERIFICATION_THRESHOLDS = perCurrency(OWNERSHIP_VERIFICATION_THRESHOLD_USD);
var own = (record, key) => record !== void 0 && Object.prototype.hasOwnProperty.call(record, key) ? record[key] : void 0;
var singleTransactionLimit = (sendingCurrency, receivingCurrency, configured) => own(configured?.byCorridor, corridorKey(sendingCurrency, receivingCurrency)) ?? own(configured?.byCurrency, sendingCurrency) ?? own(DEFAULT_SINGLE_TRANSACTION_LIMITS, sendingCurrency);
var singleTransactionLimitExceeded = (input) => {
  const limit = singleTransactionLimit(input.sendingCurrency, input.receivingCurrency, input.configured);
  return limit !== void 0 && input.amount > limit;
};
var dailyWindowStart = (nowMillis2) => dayStart(nowMillis2);
var dailyVolumeLimit = (sendingCurrency, configured) => own(configured, sendingCurrency) ?? own(DEFAULT_DAILY_VOLUME_LIMIT, sendingCurrency);
var dailyVolumeLimitExceeded = (input) => {
  const limit = dailyVolumeLimit(input.sendingCurrency, input.configured);
  return limit !== void 0 && input.sentInWindow + input.amount > limit;
};
var requiresOwnershipVerification = (amount, currency) => {
  const threshold = own(OWNERSHIP_VERIFICATION_THRESHOLDS, currency);
  return threshold === void 0 || amount >= threshold;
};

// src/rules/money/payment.ts
var TRANSACTION_STATUSES = TransactionStatus.literals;
var OUTGOING_FAILURE_REASONS = OutgoingTransactionFailureReason.literals;
var PAYMENT_MOVE_TYPES = [
  "AUTHORIZE",
  "PROCESS",
  "APPROVE",
  "REJECT",
  "COMPLETE",
  "FAIL",
  "RETURN",
  "REFUND_COMPLETE",
  "REFUND_FAIL",
  "CANCEL",
  "EXPIRE"
];
var OUTGOING_PAYMENT_EVENTS = WebhookTypes.filter(
  (t) => t.startsWith("OUTGOING_PAYMENT.") && t !== "OUTGOING_PAYMENT.PENDING_AUTHORIZATION"
);
var NOT_EXECUTED = /* @__PURE__ */ new Set(["CREATED", "PENDING", "PENDING_AUTHORIZATION"]);
var describeMove = (move) => move.toLowerCase().replace(/_/g, " ");
var refuse = (code, state, move, reason) => fail(reject(code, reason ?? `A transaction in status ${state.status} does not accept: ${describeMove(move)}`, { status: state.status, move }));
var moved = (state, events = [], ledger = []) => ok({ state, events, scheduled: [], ledger });
var failed = (state, failureReason, now) => {
  const base2 = { status: "FAILED", funds: state.funds, awaitingPlatformApproval: false, failureReason };
  if (state.funds !== "IN_FLIGHT") return moved(base2, ["OUTGOING_PAYMENT.FAILED"]);
  return moved(
    { ...base2, refund: { status: "PENDING", reason: "TRANSACTION_FAILED", initiatedAt: now } },
    ["OUTGOING_PAYMENT.FAILED", "OUTGOING_PAYMENT.REFUND_PENDING"]
  );
};
var endedWithImmediateRefund = (state, status, event, reason, failureReason, now) => {
  const base2 = {
    status,
    funds: state.funds === "IN_FLIGHT" ? "REFUNDED" : state.funds,
    awaitingPlatformApproval: false,
    ...failureReason === void 0 ? {} : { failureReason }
  };
  if (state.funds !== "IN_FLIGHT") return moved(base2, [event]);
  return moved(
    { ...base2, refund: { status: "COMPLETED", reason, initiatedAt: now, settledAt: now } },
    [event, "OUTGOING_PAYMENT.REFUND_COMPLETED"],
    ["REFUND"]
  );
};
var transition3 = (state, move, nowMillis2) => {
  const { status } = state;
  switch (move.type) {
    case "AUTHORIZE":
      if (status !== "PENDING_AUTHORIZATION") return refuse("CONFLICT", state, move.type);
      return moved({ ...state, status: "PENDING" }, ["OUTGOING_PAYMENT.PENDING"]);
    case "PROCESS":
      if (!(status === "CREATED" || status === "PENDING") || state.funds !== "NONE") return refuse("CONFLICT", state, move.type);
      if (move.awaitingPlatformApproval === true) {
        return moved({ ...state, status: "PENDING", funds: "IN_FLIGHT", awaitingPlatformApproval: true }, ["OUTGOING_PAYMENT.PENDING"]);
      }
      return moved({ ...state, status: "PROCESSING", funds: "IN_FLIGHT" }, ["OUTGOING_PAYMENT.PROCESSING"]);
    case "APPROVE":
      if (status !== "PENDING" || !state.awaitingPlatformApproval) {
        return refuse("TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL", state, move.type, "The transaction is not pending platform approval");
      }
      return moved({ ...state, status: "PROCESSING", awaitingPlatformApproval: false }, ["OUTGOING_PAYMENT.PROCESSING"]);
    case "REJECT":
      if (status !== "PENDING" || !state.awaitingPlatformApproval) {
        return refuse("TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL", state, move.type, "The transaction is not pending platform approval");
      }
      return endedWithImmediateRefund(state, "FAILED", "OUTGOING_PAYMENT.FAILED", "TRANSACTION_FAILED", "QUOTE_EXECUTION_FAILED", nowMillis2);
    case "COMPLETE":
      if (status !== "PROCESSING" || state.funds !== "IN_FLIGHT") return refuse("CONFLICT", state, move.type);
      return moved({ ...state, status: "COMPLETED", funds: "SETTLED", settledAt: nowMillis2 }, ["OUTGOING_PAYMENT.COMPLETED"], ["SETTLE"]);
    case "FAIL":
      if (!(NOT_EXECUTED.has(status) || status === "PROCESSING")) return refuse("CONFLICT", state, move.type);
      return failed(state, move.failureReason, nowMillis2);
    case "RETURN":
      if (status !== "COMPLETED" || state.funds !== "SETTLED") return refuse("CONFLICT", state, move.type);
      return moved(
        {
          ...state,
          status: "FAILED",
          funds: "RETURNED",
          failureReason: "PAYOUT_RETURNED",
          refund: { status: "COMPLETED", reason: "TRANSACTION_FAILED", initiatedAt: nowMillis2, settledAt: nowMillis2 }
        },
        ["OUTGOING_PAYMENT.FAILED", "OUTGOING_PAYMENT.REFUND_COMPLETED"],
        ["RETURN"]
      );
    case "REFUND_COMPLETE":
    case "REFUND_FAIL": {
      const refund = state.refund;
      if (refund === void 0 || refund.status !== "PENDING" || state.funds !== "IN_FLIGHT") return refuse("CONFLICT", state, move.type);
      return move.type === "REFUND_COMPLETE" ? moved(
        { ...state, funds: "REFUNDED", refund: { ...refund, status: "COMPLETED", settledAt: nowMillis2 } },
        ["OUTGOING_PAYMENT.REFUND_COMPLETED"],
        ["REFUND"]
      ) : moved({ ...state, funds: "PARKED", refund: { ...refund, status: "FAILED" } }, ["OUTGOING_PAYMENT.REFUND_FAILED"], ["PARK"]);
    }
    case "CANCEL":
      if (!(NOT_EXECUTED.has(status) || status === "PROCESSING") || !(state.funds === "NONE" || state.funds === "IN_FLIGHT")) {
        return refuse("TRANSACTION_NOT_CANCELLABLE", state, move.type, "The transaction is already settled or past cancellation");
      }
      return endedWithImmediateRefund(state, "FAILED", "OUTGOING_PAYMENT.FAILED", "USER_CANCELLATION", "QUOTE_EXECUTION_FAILED", nowMillis2);
    case "EXPIRE":
      if (!NOT_EXECUTED.has(status)) return refuse("CONFLICT", state, move.type);
      return endedWithImmediateRefund(state, "EXPIRED", "OUTGOING_PAYMENT.EXPIRED", "TIMEOUT", void 0, nowMillis2);
  }
};

// src/rules/money/quote-math.ts
var refuse2 = (code, reason) => fail(reject(code, reason));
var MAX = BigInt(MAX_AMOUNT);
var minorUnitRate = (rate, sending, receiving) => {
  const r = toRational(rate);
  if (r === void 0) return void 0;
  return { num: r.num * 10n ** BigInt(receiving.decimals), den: r.den * 10n ** BigInt(sending.decimals) };
};
var convertDown = (amount, r) => floorDiv(amount * r.num, r.den);
var convertUp = (amount, r) => ceilDiv(amount * r.den, r.num);
var feeAt = (fee, amount) => {
  const value = typeof fee === "number" ? fee : fee(Number(amount));
  return Number.isSafeInteger(value) && value >= 0 ? BigInt(value) : void 0;
};
var largestConvertible = (fee, total) => {
  if (typeof fee === "number") {
    if (!Number.isSafeInteger(fee) || fee < 0) return "bad-fee";
    return total - BigInt(fee) >= 0n ? total - BigInt(fee) : void 0;
  }
  const at0 = feeAt(fee, 0n);
  if (at0 === void 0) return "bad-fee";
  if (at0 > total) return void 0;
  const atTotal = feeAt(fee, total);
  if (atTotal === void 0) return "bad-fee";
  let lo = total - atTotal > 0n ? total - atTotal : 0n;
  let hi = total;
  while (lo < hi) {
    const mid = (lo + hi + 1n) / 2n;
    const f = feeAt(fee, mid);
    if (f === void 0) return "bad-fee";
    if (mid + f <= total) lo = mid;
    else hi = mid - 1n;
  }
  return lo;
};
var priceQuote = (input) => {
  const { lockedAmount, lockedSide, fee } = input;
  if (!Number.isInteger(lockedAmount) || lockedAmount <= 0) {
    return refuse2("INVALID_AMOUNT", "lockedCurrencyAmount must be a positive integer in minor units");
  }
  if (lockedAmount > MAX_AMOUNT) return refuse2("AMOUNT_OUT_OF_RANGE", `lockedCurrencyAmount must be at most ${MAX_AMOUNT}`);
  const r = minorUnitRate(input.rate, input.sending, input.receiving);
  if (r === void 0) return refuse2("QUOTE_RATE_UNAVAILABLE", "no usable exchange rate for this corridor");
  const locked = BigInt(lockedAmount);
  if (lockedSide === "SENDING") {
    const c2 = largestConvertible(fee, locked);
    if (c2 === "bad-fee") return refuse2("INVALID_AMOUNT", "the fee rule gave an amount that is not a non-negative integer");
    if (c2 === void 0 || c2 === 0n) return refuse2("AMOUNT_OUT_OF_RANGE", "the sending amount does not cover the fees");
    const receiving = convertDown(c2, r);
    if (receiving <= 0n) return refuse2("AMOUNT_OUT_OF_RANGE", "the sending amount is too small: the receiving amount rounds to 0");
    if (receiving > MAX) return refuse2("AMOUNT_OUT_OF_RANGE", `the receiving amount would exceed ${MAX_AMOUNT}`);
    return {
      ok: true,
      value: {
        totalSendingAmount: lockedAmount,
        totalReceivingAmount: Number(receiving),
        feesIncluded: Number(locked - c2),
        amountConverted: Number(c2)
      }
    };
  }
  const c = convertUp(locked, r);
  if (c > MAX) return refuse2("AMOUNT_OUT_OF_RANGE", `the sending amount would exceed ${MAX_AMOUNT}`);
  const f = feeAt(fee, c);
  if (f === void 0) return refuse2("INVALID_AMOUNT", "the fee rule gave an amount that is not a non-negative integer");
  const total = c + f;
  if (total > MAX) return refuse2("AMOUNT_OUT_OF_RANGE", `the total sending amount would exceed ${MAX_AMOUNT}`);
  return {
    ok: true,
    value: {
      totalSendingAmount: Number(total),
      totalReceivingAmount: lockedAmount,
      feesIncluded: Number(f),
      amountConverted: Number(c)
    }
  };
};

// src/rules/money/sandbox-payments.ts
var LONG_PAYMENT_DELAY_MS = 36e4;
var SHORT_FAILURE_DELAY_MS = 5e3;
var RETURN_DELAY_MS = 6e4;
var PENDING_THEN_FAIL_DELAY_MS = 3e4;
var SUCCESS_DELAY_MS = 0;
var complete = (afterMillis) => ({ afterMillis, move: { type: "COMPLETE" } });
var failWith = (afterMillis, failureReason) => ({
  afterMillis,
  move: { type: "FAIL", failureReason }
});
var refunded = (afterMillis) => ({ afterMillis, move: { type: "REFUND_COMPLETE" } });
var refundFailed = (afterMillis) => ({ afterMillis, move: { type: "REFUND_FAIL" } });
var QUOTE_EXECUTION_OUTCOMES = {
  "002": {
    suffix: "002",
    description: "Quote execution failed: FAILED at once (QUOTE_EXECUTION_FAILED), the debit refunded at once.",
    steps: [failWith(0, "QUOTE_EXECUTION_FAILED"), refunded(0)]
  },
  "003": {
    suffix: "003",
    description: "Long payment: PROCESSING for about 6 minutes, then COMPLETED.",
    steps: [complete(LONG_PAYMENT_DELAY_MS)]
  },
  "004": {
    suffix: "004",
    description: "Counterparty delivery failed: FAILED after 5 s (QUOTE_EXECUTION_FAILED), refunded.",
    steps: [failWith(SHORT_FAILURE_DELAY_MS, "QUOTE_EXECUTION_FAILED"), refunded(SHORT_FAILURE_DELAY_MS)]
  },
  "005": {
    suffix: "005",
    description: "Receiving bank returned the payment: COMPLETED at once, FAILED (PAYOUT_RETURNED) 60 s later, money back to the source.",
    steps: [complete(SUCCESS_DELAY_MS), { afterMillis: RETURN_DELAY_MS, move: { type: "RETURN" } }]
  },
  "006": {
    suffix: "006",
    description: "User cancellation: FAILED after 5 s (QUOTE_EXECUTION_FAILED), refunded at once with reason USER_CANCELLATION.",
    steps: [{ afterMillis: SHORT_FAILURE_DELAY_MS, move: { type: "CANCEL" } }]
  },
  "007": {
    suffix: "007",
    description: "Payout and refund failed: FAILED after 5 s (QUOTE_EXECUTION_FAILED), refund FAILED, money parked in suspense.",
    steps: [failWith(SHORT_FAILURE_DELAY_MS, "QUOTE_EXECUTION_FAILED"), refundFailed(SHORT_FAILURE_DELAY_MS)]
  }
};
var QUOTE_EXECUTION_SUCCESS = {
  suffix: "other",
  description: "Successful payment: COMPLETED at execution.",
  steps: [complete(SUCCESS_DELAY_MS)]
};
var quoteExecutionOutcome = (primaryIdentifierOrSuffix) => QUOTE_EXECUTION_OUTCOMES[identifierSuffix(primaryIdentifierOrSuffix)] ?? QUOTE_EXECUTION_SUCCESS;
var PULL_OR_PAYOUT_OUTCOMES = {
  "002": { suffix: "002", description: "Insufficient funds: fails immediately.", failureReason: "QUOTE_EXECUTION_FAILED", afterMillis: 0 },
  "003": { suffix: "003", description: "Account closed or invalid: fails immediately.", failureReason: "ACCOUNT_INVALID", afterMillis: 0 },
  "004": { suffix: "004", description: "Bank rejects the transfer: fails immediately.", failureReason: "ACCOUNT_CANNOT_RECEIVE", afterMillis: 0 },
  "005": {
    suffix: "005",
    description: "Stays pending about 30 seconds, then fails.",
    failureReason: "QUOTE_EXECUTION_FAILED",
    afterMillis: PENDING_THEN_FAIL_DELAY_MS
  }
};
var PULL_OR_PAYOUT_SUCCESS = {
  suffix: "other",
  description: "Success.",
  failureReason: void 0,
  afterMillis: SUCCESS_DELAY_MS
};
var pullOrPayoutOutcome = (primaryIdentifierOrSuffix) => PULL_OR_PAYOUT_OUTCOMES[identifierSuffix(primaryIdentifierOrSuffix)] ?? PULL_OR_PAYOUT_SUCCESS;
var pullOrPayoutSteps = (row, kind) => row.failureReason === void 0 ? [complete(row.afterMillis)] : kind === "PAYOUT" ? [failWith(row.afterMillis, row.failureReason), refunded(row.afterMillis)] : [failWith(row.afterMillis, row.failureReason)];
var SANDBOX_UMA_DOMAIN_DEFAULT = "sandbox.grid.uma.money";
var UMA_ADDRESS_MAX_LENGTH = 255;
var LOCAL_PART = /^[a-z0-9._-]+$/;
var HOST_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
var parseUmaAddress = (s) => {
  if (s.length > UMA_ADDRESS_MAX_LENGTH || !s.startsWith("$")) return void 0;
  const at = s.indexOf("@");
  if (at < 0 || at !== s.lastIndexOf("@")) return void 0;
  const localPart = s.slice(1, at).toLowerCase();
  const domain = s.slice(at + 1).toLowerCase();
  if (!LOCAL_PART.test(localPart)) return void 0;
  const labels = domain.split(".");
  if (domain.length === 0 || !labels.every((l) => HOST_LABEL.test(l))) return void 0;
  return { localPart, domain };
};
var UMA_LONG_PENDING_MS = 864e5;
var SANDBOX_UMA_COUNTERPARTIES = {
  "success.usd": { localPart: "success.usd", description: "Payment succeeds in USD.", currency: "USD", steps: [complete(SUCCESS_DELAY_MS)] },
  "success.eur": { localPart: "success.eur", description: "Payment succeeds in EUR.", currency: "EUR", steps: [complete(SUCCESS_DELAY_MS)] },
  "success.mxn": { localPart: "success.mxn", description: "Payment succeeds in MXN.", currency: "MXN", steps: [complete(SUCCESS_DELAY_MS)] },
  "pending.long.usd": {
    localPart: "pending.long.usd",
    description: "Long-pending payment: PROCESSING for 24 hours of the platform's clock, then COMPLETED.",
    currency: "USD",
    steps: [complete(UMA_LONG_PENDING_MS)]
  },
  "fail.compliance.usd": {
    localPart: "fail.compliance.usd",
    description: "Compliance failure: FAILED after 5 s (COMPLIANCE_REJECTED), refunded.",
    currency: "USD",
    steps: [failWith(SHORT_FAILURE_DELAY_MS, "COMPLIANCE_REJECTED"), refunded(SHORT_FAILURE_DELAY_MS)]
  }
};
var sandboxUmaCounterparty = (address, domain = SANDBOX_UMA_DOMAIN_DEFAULT) => {
  const parsed2 = parseUmaAddress(address);
  if (parsed2 === void 0 || parsed2.domain !== domain.toLowerCase()) return void 0;
  return Object.prototype.hasOwnProperty.call(SANDBOX_UMA_COUNTERPARTIES, parsed2.localPart) ? SANDBOX_UMA_COUNTERPARTIES[parsed2.localPart] : void 0;
};

// src/operations/wallets/actions.ts
import { Clock as Clock4, Effect as Effect14 } from "effect";

// src/crypto/export-bundle.ts
import { p256 as p2563 } from "@noble/curves/nist.js";

// src/crypto/hpke.ts
import { Aes256Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } from "@hpke/core";
import { p256 as p2562 } from "@noble/curves/nist.js";
import { expand, extract } from "@noble/hashes/hkdf.js";
import { sha256 as sha2563 } from "@noble/hashes/sha2.js";
import { createDecipheriv } from "node:crypto";
var HPKE_INFO = utf8("turnkey_hpke");
var suite = new CipherSuite({ kem: new DhkemP256HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes256Gcm() });
var buffer = (bytes) => bytes.slice().buffer;
var importRecipientKey = async (privateKey, publicKey) => {
  try {
    return {
      privateKey: await suite.kem.importKey("raw", buffer(privateKey), false),
      publicKey: await suite.kem.importKey("raw", buffer(publicKey), true)
    };
  } catch {
    return void 0;
  }
};
var hpkeOpen = async (params) => {
  try {
    const context = await suite.createRecipientContext({
      recipientKey: params.recipient,
      enc: buffer(params.enc),
      info: buffer(HPKE_INFO)
    });
    return new Uint8Array(await context.open(buffer(params.ciphertext), buffer(params.aad)));
  } catch {
    return void 0;
  }
};
var hpkeSeal = async (params) => {
  const recipientPublicKey = await suite.kem.importKey("raw", buffer(params.recipientPublicKey), true);
  const context = await suite.createSenderContext({
    recipientPublicKey,
    info: buffer(HPKE_INFO),
    ekm: buffer(params.ephemeralSeed)
  });
  const enc = new Uint8Array(context.enc);
  const ciphertext = new Uint8Array(await context.seal(buffer(params.plaintext), buffer(params.aad(enc))));
  return { enc, ciphertext };
};
var HPKE_V1 = utf8("HPKE-v1");
var KEM_SUITE = Uint8Array.from([75, 69, 77, 0, 16]);
var HPKE_SUITE = Uint8Array.from([72, 80, 75, 69, 0, 16, 0, 1, 0, 2]);
var EMPTY = new Uint8Array(0);
var labeledExtract = (suiteId, salt, label, ikm) => extract(sha2563, concatBytes(HPKE_V1, suiteId, utf8(label), ikm), salt);
var labeledExpand = (suiteId, prk, label, info, length) => expand(sha2563, prk, concatBytes(Uint8Array.from([length >> 8, length & 255]), HPKE_V1, suiteId, utf8(label), info), length);
var hpkeOpenManual = (params) => {
  if (params.ciphertext.length < 16) return void 0;
  try {
    const dh = p2562.getSharedSecret(params.privateKey, params.enc, true).subarray(1);
    const eaePrk = labeledExtract(KEM_SUITE, EMPTY, "eae_prk", dh);
    const kemContext = concatBytes(params.enc, params.recipientPublicKeyAsEncoded);
    const sharedSecret = labeledExpand(KEM_SUITE, eaePrk, "shared_secret", kemContext, 32);
    const pskIdHash = labeledExtract(HPKE_SUITE, EMPTY, "psk_id_hash", EMPTY);
    const infoHash = labeledExtract(HPKE_SUITE, EMPTY, "info_hash", HPKE_INFO);
    const context = concatBytes(Uint8Array.of(0), pskIdHash, infoHash);
    const secret = labeledExtract(HPKE_SUITE, sharedSecret, "secret", EMPTY);
    const key = labeledExpand(HPKE_SUITE, secret, "key", context, 32);
    const nonce = labeledExpand(HPKE_SUITE, secret, "base_nonce", context, 12);
    const tagAt = params.ciphertext.length - 16;
    const decipher = createDecipheriv("aes-256-gcm", key, nonce);
    decipher.setAAD(params.aad);
    decipher.setAuthTag(params.ciphertext.subarray(tagAt));
    return new Uint8Array(Buffer.concat([decipher.update(params.ciphertext.subarray(0, tagAt)), decipher.final()]));
  } catch {
    return void 0;
  }
};

// src/crypto/export-bundle.ts
var sealExportBundle = async (params) => {
  const client = parsePublicKeyHex(params.clientPublicKey);
  if (client === void 0) throw new TypeError("clientPublicKey is not a P-256 public key");
  const { enc, ciphertext } = await hpkeSeal({
    recipientPublicKey: client.uncompressed,
    plaintext: params.plaintext,
    aad: (encapped) => concatBytes(encapped, client.uncompressed),
    ephemeralSeed: params.randomBytes(32)
  });
  const data = utf8(JSON.stringify({ encappedPublic: toHex(enc), ciphertext: toHex(ciphertext), organizationId: params.organizationId }));
  let dataSignature = "";
  let enclaveQuorumPublic = "";
  if (params.signingKey !== void 0) {
    const secret = fromHex(params.signingKey.privateKeyHex);
    if (secret === void 0) throw new TypeError("signingKey is not a P-256 private key");
    dataSignature = toHex(p2563.sign(data, secret, { format: "der", lowS: true, prehash: true }));
    enclaveQuorumPublic = params.signingKey.publicKeyHex.toLowerCase();
  }
  return JSON.stringify({ version: "v1.0.0", data: toHex(data), dataSignature, enclaveQuorumPublic });
};

// src/crypto/generate.ts
import { p256 as p2565 } from "@noble/curves/nist.js";

// src/crypto/base58check.ts
import { sha256 as sha2564 } from "@noble/hashes/sha2.js";
var ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
var VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) VALUE[ALPHABET.charCodeAt(i)] = i;
var base58Encode = (bytes) => {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  const digits = [];
  for (let i = zeros; i < bytes.length; i++) {
    let carry = bytes[i] ?? 0;
    for (let j = 0; j < digits.length; j++) {
      carry += (digits[j] ?? 0) << 8;
      digits[j] = carry % 58;
      carry = Math.floor(carry / 58);
    }
    while (carry > 0) {
      digits.push(carry % 58);
      carry = Math.floor(carry / 58);
    }
  }
  let out = "1".repeat(zeros);
  for (let i = digits.length - 1; i >= 0; i--) out += ALPHABET[digits[i] ?? 0] ?? "";
  return out;
};
var checksum = (payload) => sha2564(sha2564(payload)).subarray(0, 4);
var base58CheckEncode = (payload) => base58Encode(concatBytes(payload, checksum(payload)));

// src/crypto/keys.ts
import { p256 as p2564 } from "@noble/curves/nist.js";
var p256KeyPairFromPrivateKey = (privateKeyHex) => {
  const secret = fromHex(privateKeyHex);
  if (secret === void 0 || !p2564.utils.isValidSecretKey(secret)) return void 0;
  return {
    privateKeyHex: toHex(secret),
    publicKeyHex: toHex(p2564.getPublicKey(secret, false)),
    compressedPublicKeyHex: toHex(p2564.getPublicKey(secret, true))
  };
};

// src/crypto/generate.ts
var drawBytes = (randomBytes3, length) => {
  const bytes = randomBytes3(length);
  if (bytes.length !== length) throw new RangeError(`random source returned ${bytes.length} bytes, expected ${length}`);
  return bytes;
};
var generateP256KeyPair = (randomBytes3) => {
  for (let attempt = 0; attempt < 64; attempt++) {
    const pair = p256KeyPairFromPrivateKey(toHex(drawBytes(randomBytes3, 32)));
    if (pair !== void 0) return pair;
  }
  throw new RangeError("random source keeps producing invalid P-256 scalars");
};
var SESSION_KEY_SEAL_REASONS = {
  client_key_invalid: invalidInputReason("clientPublicKey is not a P-256 public key in hex"),
  client_key_compressed: invalidInputReason("encryptedSessionSigningKey is only sealed to an uncompressed clientPublicKey"),
  session_key_invalid: invalidInputReason("session signing key is not a P-256 private key")
};
var reject3 = rejecter(SESSION_KEY_SEAL_REASONS);
var sealSessionSigningKey = async (params) => {
  const client = parsePublicKeyHex(params.clientPublicKey);
  if (client === void 0) return reject3("client_key_invalid");
  if (params.clientPublicKey.length !== 130) return reject3("client_key_compressed");
  const secret = fromHex(params.sessionPrivateKeyHex);
  if (secret === void 0 || !p2565.utils.isValidSecretKey(secret)) return reject3("session_key_invalid");
  const { enc, ciphertext } = await hpkeSeal({
    recipientPublicKey: client.uncompressed,
    plaintext: secret,
    aad: (encapped) => concatBytes(encapped, client.uncompressed),
    ephemeralSeed: drawBytes(params.randomBytes, 32)
  });
  const compressedEnc = p2565.Point.fromBytes(enc).toBytes(true);
  return accept(base58CheckEncode(concatBytes(compressedEnc, ciphertext)));
};

// src/operations/wallets/auth.ts
import { readFile } from "node:fs/promises";
import { sha256 as sha2566 } from "@noble/hashes/sha2.js";
import { bytesToHex as bytesToHex3 } from "@noble/hashes/utils.js";
import { Clock as Clock3, Effect as Effect13 } from "effect";

// src/crypto/hpke-bundles.ts
import { p256 as p2566 } from "@noble/curves/nist.js";
var isUncompressedHex = (hex) => hex.length === 130 && hex.startsWith("04");
var buildOtpEncryptionTargetBundle = (params) => {
  const target = parsePublicKeyHex(params.targetPublicKey);
  if (target === void 0) throw new TypeError("targetPublicKey is not a P-256 public key");
  if (!isUncompressedHex(params.targetPublicKey)) throw new TypeError("targetPublicKey must be uncompressed (04\u2026)");
  const signer = fromHex(params.signingKey.privateKeyHex);
  if (signer === void 0 || !p2566.utils.isValidSecretKey(signer)) throw new TypeError("signingKey is not a P-256 private key");
  const data = utf8(JSON.stringify({ targetPublic: target.uncompressedHex }));
  const dataSignature = p2566.sign(data, signer, { format: "der", lowS: true, prehash: true });
  return JSON.stringify({
    data: toHex(data),
    dataSignature: toHex(dataSignature),
    enclaveQuorumPublic: params.signingKey.publicKeyHex.toLowerCase()
  });
};
var OTP_BUNDLE_REASONS = {
  bundle_not_json: invalidInputReason("encryptedOtpBundle is not a JSON object"),
  bundle_fields_invalid: invalidInputReason("encryptedOtpBundle needs lowercase hex encappedPublic and ciphertext"),
  encapped_key_invalid: invalidInputReason("encryptedOtpBundle encappedPublic is not an uncompressed P-256 public key"),
  encrypted_to_compressed_target: invalidInputReason(
    "encryptedOtpBundle was encrypted to a compressed target key; use the otpEncryptionTargetBundle as issued"
  ),
  decryption_failed: unauthorizedReason("encryptedOtpBundle cannot be opened with this challenge's target key"),
  plaintext_malformed: invalidInputReason("encryptedOtpBundle does not contain otp_code and public_key"),
  public_key_malformed: invalidInputReason("encryptedOtpBundle public_key is not a compressed P-256 public key"),
  public_key_mismatch: unauthorizedReason("encryptedOtpBundle public_key is not the key this challenge was issued for"),
  otp_code_mismatch: unauthorizedReason("Invalid OTP code")
};
var reject4 = rejecter(OTP_BUNDLE_REASONS);
var openEncryptedOtpBundle = async (input) => {
  const bundle = parseJsonObject(input.encryptedOtpBundle);
  if (bundle === void 0) return reject4("bundle_not_json");
  const { encappedPublic, ciphertext } = bundle;
  if (typeof encappedPublic !== "string" || typeof ciphertext !== "string") return reject4("bundle_fields_invalid");
  const enc = fromHex(encappedPublic, { lowercaseOnly: true });
  const sealed = fromHex(ciphertext, { lowercaseOnly: true });
  if (enc === void 0 || sealed === void 0 || sealed.length < 16) return reject4("bundle_fields_invalid");
  if (enc.length !== 65 || enc[0] !== 4 || !isValidPublicKeyBytes(enc)) return reject4("encapped_key_invalid");
  const targetPrivate = fromHex(input.targetKey.privateKeyHex);
  const target = parsePublicKeyHex(input.targetKey.publicKeyHex);
  const recipient = targetPrivate === void 0 || target === void 0 ? void 0 : await importRecipientKey(targetPrivate, target.uncompressed);
  if (targetPrivate === void 0 || target === void 0 || recipient === void 0) {
    throw new TypeError("targetKey is not a P-256 key pair");
  }
  const aad = concatBytes(enc, target.uncompressed);
  const plaintext = await hpkeOpen({ recipient, enc, ciphertext: sealed, aad });
  if (plaintext === void 0) {
    const compressedTarget = fromHex(target.compressedHex) ?? new Uint8Array(0);
    const quirk = hpkeOpenManual({
      privateKey: targetPrivate,
      recipientPublicKeyAsEncoded: compressedTarget,
      enc,
      ciphertext: sealed,
      aad: concatBytes(enc, compressedTarget)
    });
    return reject4(quirk === void 0 ? "decryption_failed" : "encrypted_to_compressed_target");
  }
  const text2 = fromUtf8(plaintext);
  const content = text2 === void 0 ? void 0 : parseJsonObject(text2);
  const otpCode = content?.["otp_code"];
  const publicKey = content?.["public_key"];
  if (typeof otpCode !== "string" || typeof publicKey !== "string") return reject4("plaintext_malformed");
  const clientKey = publicKey.length === 66 ? parsePublicKeyHex(publicKey) : void 0;
  if (clientKey === void 0) return reject4("public_key_malformed");
  if (input.expectedPublicKey !== void 0 && parsePublicKeyHex(input.expectedPublicKey)?.compressedHex !== clientKey.compressedHex) {
    return reject4("public_key_mismatch");
  }
  const expectedCode = input.expected.kind === "sandbox" ? SANDBOX_OTP_CODE : input.expected.code;
  if (!constantTimeEqual(utf8(otpCode), utf8(expectedCode))) return reject4("otp_code_mismatch");
  return accept({ otpCode, publicKey });
};

// src/crypto/oidc.ts
import { createHash, createPublicKey as createPublicKey2, verify as nodeVerify2 } from "node:crypto";
var OIDC_IAT_MAX_AGE_SECONDS = 60;
var OIDC_CLOCK_SKEW_SECONDS = 5;
var OIDC_REASONS = {
  jwt_malformed: invalidInputReason("oidcToken is not a JWT: three base64url segments with a JSON header and payload"),
  former_sandbox_token: unauthorizedReason("The former fixed sandbox OIDC token is no longer accepted"),
  algorithm_unsupported: unauthorizedReason("oidcToken alg is not supported (RS256, ES256)"),
  signing_key_not_found: unauthorizedReason("oidcToken signing key is not in the provider's key set"),
  signature_invalid: unauthorizedReason("oidcToken signature does not verify"),
  iss_not_supported: unauthorizedReason("oidcToken iss is not a supported issuer"),
  aud_invalid: unauthorizedReason("oidcToken aud must be a non-empty string or a single-element string array"),
  aud_multiple: unauthorizedReason("oidcToken aud has more than one audience"),
  sub_missing: unauthorizedReason("oidcToken sub must be a non-empty string"),
  iat_missing: unauthorizedReason("oidcToken iat must be numeric"),
  iat_too_old: unauthorizedReason("oidcToken iat is more than 60 seconds old"),
  iat_in_future: unauthorizedReason("oidcToken iat is in the future"),
  exp_missing: unauthorizedReason("oidcToken exp must be numeric"),
  exp_not_after_now: unauthorizedReason("oidcToken exp is not later than now"),
  nonce_missing: unauthorizedReason("oidcToken nonce is missing"),
  nonce_mismatch: unauthorizedReason("oidcToken nonce is not the SHA-256 of clientPublicKey"),
  identity_mismatch: unauthorizedReason("oidcToken iss, aud and sub do not match the credential")
};
var reject5 = rejecter(OIDC_REASONS);
var decodeJsonSegment = (segment) => {
  const bytes = fromBase64Url(segment);
  const text2 = bytes === void 0 ? void 0 : fromUtf8(bytes);
  return text2 === void 0 ? void 0 : parseJsonObject(text2);
};
var decodeJwt = (token) => {
  if (token === SANDBOX_FORMER_OIDC_TOKEN) return reject5("former_sandbox_token");
  const segments = token.split(".");
  const [headerPart, payloadPart, signaturePart] = segments;
  if (segments.length !== 3 || headerPart === void 0 || payloadPart === void 0 || signaturePart === void 0) {
    return reject5("jwt_malformed");
  }
  const header = decodeJsonSegment(headerPart);
  const payload = decodeJsonSegment(payloadPart);
  const signature = fromBase64Url(signaturePart);
  if (header === void 0 || payload === void 0 || signature === void 0 || typeof header["alg"] !== "string") {
    return reject5("jwt_malformed");
  }
  return accept({ header, payload, signingInput: utf8(`${headerPart}.${payloadPart}`), signature });
};
var KEY_TYPE_FOR_ALG = { RS256: "RSA", ES256: "EC" };
var selectKey = (jwks, alg, kid) => {
  const kty = KEY_TYPE_FOR_ALG[alg];
  for (const jwk of jwks.keys) {
    if (jwk.kty !== kty) continue;
    if (typeof kid === "string" && jwk["kid"] !== kid) continue;
    if (jwk["alg"] !== void 0 && jwk["alg"] !== alg) continue;
    if (jwk["use"] !== void 0 && jwk["use"] !== "sig") continue;
    if (alg === "ES256" && jwk.crv !== "P-256") continue;
    try {
      return createPublicKey2({ key: jwk, format: "jwk" });
    } catch {
      continue;
    }
  }
  return void 0;
};
var verifyJwtSignature = (jwt, jwks) => {
  const alg = jwt.header["alg"];
  if (typeof alg !== "string" || KEY_TYPE_FOR_ALG[alg] === void 0) return reject5("algorithm_unsupported");
  const key = selectKey(jwks, alg, jwt.header["kid"]);
  if (key === void 0) return reject5("signing_key_not_found");
  let valid;
  if (alg === "ES256") {
    valid = jwt.signature.length === 64 && isScalarInRange(jwt.signature, 0) && isScalarInRange(jwt.signature, 32) && nodeVerify2("sha256", jwt.signingInput, { key, dsaEncoding: "ieee-p1363" }, jwt.signature);
  } else {
    valid = nodeVerify2("sha256", jwt.signingInput, key, jwt.signature);
  }
  return valid ? accept(true) : reject5("signature_invalid");
};
var oidcNonceFor = (clientPublicKey) => createHash("sha256").update(utf8(clientPublicKey)).digest("hex");
var isNumericDate = (value) => typeof value === "number" && Number.isFinite(value);
var checkOidcClaims = (claims, input) => {
  const { iss, aud, sub, iat, exp, nonce } = claims;
  if (typeof iss !== "string" || !input.supportedIssuers.includes(iss)) return reject5("iss_not_supported");
  let audience;
  if (typeof aud === "string") audience = aud;
  else if (Array.isArray(aud) && aud.length > 1) return reject5("aud_multiple");
  else if (Array.isArray(aud) && typeof aud[0] === "string") audience = aud[0];
  else return reject5("aud_invalid");
  if (audience === "") return reject5("aud_invalid");
  if (typeof sub !== "string" || sub === "") return reject5("sub_missing");
  if (!isNumericDate(iat)) return reject5("iat_missing");
  if (iat * 1e3 < input.nowMs - (OIDC_IAT_MAX_AGE_SECONDS + OIDC_CLOCK_SKEW_SECONDS) * 1e3) return reject5("iat_too_old");
  if (iat * 1e3 > input.nowMs + OIDC_CLOCK_SKEW_SECONDS * 1e3) return reject5("iat_in_future");
  if (!isNumericDate(exp)) return reject5("exp_missing");
  if (exp * 1e3 <= input.nowMs) return reject5("exp_not_after_now");
  if (input.clientPublicKey !== null) {
    if (typeof nonce !== "string" || nonce === "") return reject5("nonce_missing");
    if (nonce !== oidcNonceFor(input.clientPublicKey)) return reject5("nonce_mismatch");
  }
  const identity = { iss, aud: audience, sub };
  const expected = input.expectedIdentity;
  if (expected !== void 0 && (expected.iss !== iss || expected.aud !== audience || expected.sub !== sub)) {
    return reject5("identity_mismatch");
  }
  return accept(identity);
};
var verifyOidcToken = (input) => {
  const decoded = decodeJwt(input.token);
  if (!decoded.ok) return decoded;
  if (input.signature.kind === "jwks") {
    const signature = verifyJwtSignature(decoded.value, input.signature.jwks);
    if (!signature.ok) return signature;
  }
  const identity = checkOidcClaims(decoded.value.payload, input);
  if (!identity.ok) return identity;
  return accept({ identity: identity.value, claims: decoded.value.payload });
};
var isJsonWebKeySet = (value) => isRecord(value) && Array.isArray(value["keys"]) && value["keys"].every(isRecord);

// src/crypto/webauthn.ts
import { createHash as createHash2 } from "node:crypto";

// src/crypto/cbor.ts
var MAX_DEPTH = 16;
var utf82 = new TextDecoder("utf-8", { fatal: true });
var CborError = class extends Error {
};
var fail2 = (problem) => {
  throw new CborError(problem);
};
var byteAt = (cursor) => {
  const value = cursor.bytes[cursor.at];
  if (value === void 0) return fail2("truncated");
  cursor.at++;
  return value;
};
var readArgument = (cursor, info) => {
  if (info < 24) return info;
  let size;
  if (info === 24) size = 1;
  else if (info === 25) size = 2;
  else if (info === 26) size = 4;
  else if (info === 27) size = 8;
  else return fail2(info === 31 ? "indefinite length" : "reserved additional information");
  let value = 0;
  for (let i = 0; i < size; i++) value = value * 256 + byteAt(cursor);
  if (!Number.isSafeInteger(value)) fail2("integer beyond 2^53");
  const minimum = size === 1 ? 24 : size === 2 ? 256 : size === 4 ? 65536 : 4294967296;
  if (value < minimum) fail2("non-minimal integer encoding");
  return value;
};
var take = (cursor, length) => {
  if (cursor.at + length > cursor.bytes.length) fail2("truncated");
  const out = cursor.bytes.slice(cursor.at, cursor.at + length);
  cursor.at += length;
  return out;
};
var readItem = (cursor, depth) => {
  if (depth > MAX_DEPTH) fail2("nesting too deep");
  const head = byteAt(cursor);
  const major = head >> 5;
  const info = head & 31;
  switch (major) {
    case 0:
      return readArgument(cursor, info);
    case 1:
      return -1 - readArgument(cursor, info);
    case 2:
      return take(cursor, readArgument(cursor, info));
    case 3: {
      try {
        return utf82.decode(take(cursor, readArgument(cursor, info)));
      } catch (error) {
        if (error instanceof CborError) throw error;
        return fail2("invalid UTF-8 in text string");
      }
    }
    case 4: {
      const length = readArgument(cursor, info);
      const items = [];
      for (let i = 0; i < length; i++) items.push(readItem(cursor, depth + 1));
      return items;
    }
    case 5: {
      const length = readArgument(cursor, info);
      const map = /* @__PURE__ */ new Map();
      for (let i = 0; i < length; i++) {
        const key = readItem(cursor, depth + 1);
        if (typeof key !== "number" && typeof key !== "string") fail2("map key is not an integer or text");
        if (typeof key === "number" || typeof key === "string") {
          if (map.has(key)) fail2("duplicate map key");
          map.set(key, readItem(cursor, depth + 1));
        }
      }
      return map;
    }
    case 6:
      return fail2("tags are not supported");
    default: {
      if (info === 20) return false;
      if (info === 21) return true;
      if (info === 22) return null;
      if (info === 23) return void 0;
      return fail2("unsupported simple value or float");
    }
  }
};
var decodeCborPrefix = (bytes, offset = 0) => {
  const cursor = { bytes, at: offset };
  try {
    const value = readItem(cursor, 0);
    return { ok: true, value, end: cursor.at };
  } catch (error) {
    if (error instanceof CborError) return { ok: false, problem: error.message };
    throw error;
  }
};
var decodeCbor = (bytes) => {
  const result = decodeCborPrefix(bytes);
  if (result.ok && result.end !== bytes.length) return { ok: false, problem: "trailing bytes" };
  return result;
};
var isCborMap = (value) => value instanceof Map;

// src/crypto/webauthn.ts
var PASSKEY_REASONS = {
  credential_id_malformed: invalidInputReason("credentialId is not base64url"),
  client_data_malformed: invalidInputReason("clientDataJson is not base64url of a JSON object with type, challenge and origin"),
  authenticator_data_malformed: invalidInputReason("authenticatorData is not valid authenticator data"),
  signature_malformed: invalidInputReason("signature is not a base64url DER ECDSA signature"),
  attestation_object_malformed: invalidInputReason("attestationObject is not a valid CBOR attestation object"),
  credential_id_mismatch: unauthorizedReason("Passkey credential id does not match the registered credential"),
  client_data_type_mismatch: unauthorizedReason("Passkey client data has the wrong type"),
  challenge_mismatch: unauthorizedReason("Passkey challenge does not match the issued challenge"),
  origin_not_allowed: unauthorizedReason("Passkey origin is not allowed"),
  rp_id_hash_mismatch: unauthorizedReason("Passkey RP id does not match"),
  user_not_present: unauthorizedReason("Passkey user-presence flag is not set"),
  user_not_verified: unauthorizedReason("Passkey user verification is required"),
  signature_invalid: unauthorizedReason("Passkey assertion signature does not verify"),
  counter_not_increased: unauthorizedReason("Passkey signature counter did not increase"),
  legacy_sandbox_signature_outside_sandbox: unauthorizedReason("The fixed sandbox passkey signature is only accepted in sandbox"),
  attestation_format_unsupported: invalidInputReason("Only attestation format none is supported"),
  attested_credential_missing: invalidInputReason("authenticatorData carries no attested credential"),
  public_key_unsupported: invalidInputReason("Passkey public key is not an ES256 P-256 COSE key")
};
var reject6 = rejecter(PASSKEY_REASONS);
var sha2565 = (bytes) => new Uint8Array(createHash2("sha256").update(bytes).digest());
var decodeField = (text2) => fromBase64Url(text2, { allowPadding: true });
var FLAG_UP = 1;
var FLAG_UV = 4;
var FLAG_BE = 8;
var FLAG_BS = 16;
var FLAG_AT = 64;
var FLAG_ED = 128;
var parseAuthenticatorData = (bytes) => {
  if (bytes.length < 37) return void 0;
  const flags = bytes[32] ?? 0;
  const counter = ((bytes[33] ?? 0) << 24 | (bytes[34] ?? 0) << 16 | (bytes[35] ?? 0) << 8 | (bytes[36] ?? 0)) >>> 0;
  let at = 37;
  let attested;
  if (flags & FLAG_AT) {
    if (bytes.length < at + 18) return void 0;
    const aaguid = bytes.slice(at, at + 16);
    const idLength = (bytes[at + 16] ?? 0) << 8 | (bytes[at + 17] ?? 0);
    at += 18;
    if (bytes.length < at + idLength) return void 0;
    const credentialId = bytes.slice(at, at + idLength);
    at += idLength;
    const key = decodeCborPrefix(bytes, at);
    if (!key.ok || !isCborMap(key.value)) return void 0;
    attested = { aaguid, credentialId, publicKeyCose: bytes.slice(at, key.end), publicKey: key.value };
    at = key.end;
  }
  if (flags & FLAG_ED) {
    const extensions = decodeCborPrefix(bytes, at);
    if (!extensions.ok || !isCborMap(extensions.value)) return void 0;
    at = extensions.end;
  }
  if (at !== bytes.length) return void 0;
  return { rpIdHash: bytes.slice(0, 32), flags, counter, attested };
};
var parseClientData = (bytes) => {
  const text2 = fromUtf8(bytes);
  const json = text2 === void 0 ? void 0 : parseJsonObject(text2);
  const type = json?.["type"];
  const challenge = json?.["challenge"];
  const origin = json?.["origin"];
  if (typeof type !== "string" || typeof challenge !== "string" || typeof origin !== "string") return void 0;
  return { type, challenge, origin };
};
var coseToUncompressed = (key) => {
  const x = key.get(-2);
  const y = key.get(-3);
  if (key.get(1) !== 2 || key.get(3) !== -7 || key.get(-1) !== 1) return void 0;
  if (!(x instanceof Uint8Array) || !(y instanceof Uint8Array) || x.length !== 32 || y.length !== 32) return void 0;
  const point = concatBytes(Uint8Array.of(4), x, y);
  return parsePublicKeyBytes(point) === void 0 ? void 0 : point;
};
var checkClientData = (encoded, type, expect) => {
  const raw = decodeField(encoded);
  const clientData = raw === void 0 ? void 0 : parseClientData(raw);
  if (raw === void 0 || clientData === void 0) return reject6("client_data_malformed");
  if (clientData.type !== type) return reject6("client_data_type_mismatch");
  if (clientData.challenge !== expect.expectedChallenge) return reject6("challenge_mismatch");
  if (!expect.allowedOrigins.includes(clientData.origin)) return reject6("origin_not_allowed");
  return accept(raw);
};
var checkAuthenticator = (data, expect) => {
  if (!bytesEqual(data.rpIdHash, sha2565(utf8(expect.rpId)))) return "rp_id_hash_mismatch";
  if ((data.flags & FLAG_UP) === 0) return "user_not_present";
  if (expect.requireUserVerification === true && (data.flags & FLAG_UV) === 0) return "user_not_verified";
  return void 0;
};
var verifyPasskeyAssertion = (input) => {
  const { assertion, credential } = input;
  const presentedId = decodeField(assertion.credentialId);
  if (presentedId === void 0) return reject6("credential_id_malformed");
  const storedId = decodeField(credential.id);
  if (storedId === void 0 || !bytesEqual(presentedId, storedId)) return reject6("credential_id_mismatch");
  const clientData = checkClientData(assertion.clientDataJson, "webauthn.get", input);
  if (!clientData.ok) return clientData;
  const authBytes = decodeField(assertion.authenticatorData);
  const authData = authBytes === void 0 ? void 0 : parseAuthenticatorData(authBytes);
  if (authBytes === void 0 || authData === void 0) return reject6("authenticator_data_malformed");
  const flagProblem = checkAuthenticator(authData, input);
  if (flagProblem !== void 0) return reject6(flagProblem);
  if (assertion.signature === SANDBOX_LEGACY_PASSKEY_SIGNATURE) {
    if (input.sandbox !== true) return reject6("legacy_sandbox_signature_outside_sandbox");
  } else {
    const derBytes = decodeField(assertion.signature);
    const der = derBytes === void 0 ? void 0 : parseDerSignature(derBytes);
    if (der === void 0 || !der.ok && der.problem !== "scalar_out_of_range") return reject6("signature_malformed");
    if (!der.ok) return reject6("signature_invalid");
    const key = parsePublicKeyHex(credential.publicKey);
    if (key === void 0) throw new TypeError("stored passkey public key is not a P-256 key");
    const signed = concatBytes(authBytes, sha2565(clientData.value));
    if (!verifyParsed(key, signed, der, input.backend ?? "native")) return reject6("signature_invalid");
  }
  if ((authData.counter > 0 || credential.counter > 0) && authData.counter <= credential.counter) {
    return reject6("counter_not_increased");
  }
  return accept({ newCounter: authData.counter, userVerified: (authData.flags & FLAG_UV) !== 0 });
};
var verifyPasskeyRegistration = (input) => {
  const { registration } = input;
  const presentedId = decodeField(registration.credentialId);
  if (presentedId === void 0 || presentedId.length === 0) return reject6("credential_id_malformed");
  const clientData = checkClientData(registration.clientDataJson, "webauthn.create", input);
  if (!clientData.ok) return clientData;
  const attestationBytes = decodeField(registration.attestationObject);
  const attestation = attestationBytes === void 0 ? void 0 : decodeCbor(attestationBytes);
  if (attestation === void 0 || !attestation.ok || !isCborMap(attestation.value)) {
    return reject6("attestation_object_malformed");
  }
  const fmt = attestation.value.get("fmt");
  const attStmt = attestation.value.get("attStmt");
  const authBytes = attestation.value.get("authData");
  if (typeof fmt !== "string" || attStmt === void 0 || !isCborMap(attStmt) || !(authBytes instanceof Uint8Array)) {
    return reject6("attestation_object_malformed");
  }
  if (fmt !== "none" || attStmt.size !== 0) return reject6("attestation_format_unsupported");
  const authData = parseAuthenticatorData(authBytes);
  if (authData === void 0) return reject6("authenticator_data_malformed");
  const flagProblem = checkAuthenticator(authData, input);
  if (flagProblem !== void 0) return reject6(flagProblem);
  const attested = authData.attested;
  if (attested === void 0) return reject6("attested_credential_missing");
  if (!bytesEqual(attested.credentialId, presentedId)) return reject6("credential_id_mismatch");
  const point = coseToUncompressed(attested.publicKey);
  if (point === void 0) return reject6("public_key_unsupported");
  return accept({
    credentialId: toBase64Url(attested.credentialId),
    publicKey: toHex(point),
    publicKeyCose: toBase64Url(attested.publicKeyCose),
    counter: authData.counter,
    aaguid: toHex(attested.aaguid),
    userVerified: (authData.flags & FLAG_UV) !== 0,
    backupEligible: (authData.flags & FLAG_BE) !== 0,
    backedUp: (authData.flags & FLAG_BS) !== 0
  });
};

// src/operations/wallets/auth.ts
var CREDENTIAL_CHALLENGE_TTL_MILLIS = 3e5;
var RATE_LIMITS = {
  challenge: { max: 5, windowMillis: 6e4 },
  verify: { max: 10, windowMillis: 6e4 }
};
var settingsOf = (platform) => {
  const s = platform.embeddedWallets;
  if (s === void 0) throw new Error("embedded wallets are not enabled for this platform (walletAccount checks it first)");
  return s;
};
var randomSource = Effect13.gen(function* () {
  const ids = yield* Ids;
  const seed = sha2566(utf8(`${yield* ids.uuid}${yield* ids.uuid}${yield* ids.uuid}`));
  let counter = 0;
  const randomBytes3 = (length) => {
    const out = new Uint8Array(length);
    for (let at = 0; at < length; at += 32) {
      const block = sha2566(new Uint8Array([...seed, ...utf8(String(counter++))]));
      out.set(block.subarray(0, Math.min(32, length - at)), at);
    }
    return out;
  };
  return randomBytes3;
});
var serverKey = Effect13.fnUntraced(function* (uow, platform, name) {
  const store = yield* Store;
  const existing = yield* store.wallets.get(platform.id, "serverKey", name);
  const pair = existing === void 0 ? void 0 : p256KeyPairFromPrivateKey(existing.privateKeyHex);
  if (pair !== void 0) return pair;
  const made = generateP256KeyPair(yield* randomSource);
  yield* uow.putWalletRecord({ kind: "serverKey", platformId: platform.id, id: name, accountId: "", privateKeyHex: made.privateKeyHex });
  return made;
});
var fromVerdict = (v) => v.status === 400 ? invalidInput(v.message) : unauthorized(v.message, v.code);
var renderMethod = (c) => ({
  id: c.id,
  accountId: c.accountId,
  type: c.type,
  ...c.passkey === void 0 ? {} : { credentialId: c.passkey.credentialId },
  nickname: c.nickname,
  createdAt: c.createdAt,
  updatedAt: c.updatedAt
});
var renderSession = (s, encryptedSessionSigningKey) => ({
  id: s.id,
  accountId: s.accountId,
  type: s.type,
  nickname: s.nickname,
  ...encryptedSessionSigningKey === void 0 ? {} : { encryptedSessionSigningKey },
  createdAt: s.createdAt,
  updatedAt: s.updatedAt,
  expiresAt: isoOf(s.expiresAt)
});
var credentialOf = Effect13.fnUntraced(function* (platform, id) {
  const store = yield* Store;
  const c = yield* store.wallets.get(platform.id, "credential", id);
  if (c === void 0) return yield* missing("credential", `Authentication credential ${id} not found`);
  return c;
});
var limitRate = Effect13.fnUntraced(function* (platform, credential, endpoint) {
  const store = yield* Store;
  const { max, windowMillis } = RATE_LIMITS[endpoint];
  const id = `${credential.id}:${endpoint}`;
  yield* store.transact(
    (uow) => Effect13.gen(function* () {
      const nowMs = yield* Clock3.currentTimeMillis;
      const current = yield* store.wallets.get(platform.id, "rate", id);
      const fresh = current === void 0 || current.windowStart + windowMillis <= nowMs;
      const windowStart = fresh ? nowMs : current.windowStart;
      const count = fresh ? 1 : current.count + 1;
      if (count > max) {
        const retryAfterSeconds = Math.max(1, Math.ceil((windowStart + windowMillis - nowMs) / 1e3));
        return yield* tooMany("RATE_LIMITED", `Too many ${endpoint} requests for credential ${credential.id}: at most ${max} per ${windowMillis / 1e3} seconds`, {
          details: { retryAfterSeconds }
        });
      }
      yield* uow.putWalletRecord({ kind: "rate", platformId: platform.id, id, accountId: credential.accountId, windowStart, count });
    })
  );
});
var issueSession = Effect13.fnUntraced(function* (uow, platform, credential, key) {
  const ids = yield* Ids;
  const nowMs = yield* Clock3.currentTimeMillis;
  let publicKey;
  let encrypted;
  const clientKey = "tek" in key ? key.tek : key.clientPublicKey;
  const parsed2 = parsePublicKeyHex(clientKey);
  if (parsed2 === void 0) return yield* invalidInput("clientPublicKey is not a P-256 public key in hex");
  if ("clientPublicKey" in key && key.clientPublicKey.length === 130) {
    const random = yield* randomSource;
    const pair = generateP256KeyPair(random);
    const sealed = yield* Effect13.promise(() => sealSessionSigningKey({ sessionPrivateKeyHex: pair.privateKeyHex, clientPublicKey: key.clientPublicKey, randomBytes: random }));
    if (!sealed.ok) return yield* invalidInput(sealed.message);
    publicKey = pair.compressedPublicKeyHex;
    encrypted = sealed.value;
  } else {
    publicKey = parsed2.compressedHex;
  }
  const now = isoOf(nowMs);
  const session = {
    kind: "session",
    platformId: platform.id,
    id: yield* ids.make("Session"),
    accountId: credential.accountId,
    credentialId: credential.id,
    type: credential.type,
    nickname: credential.nickname,
    publicKey,
    createdAt: now,
    updatedAt: now,
    expiresAt: nowMs + settingsOf(platform).sessionLifetimeSeconds * 1e3,
    revoked: false
  };
  yield* uow.putWalletRecord(session);
  return renderSession(session, encrypted);
});
var loadJwks = (source) => Effect13.tryPromise({
  try: async () => {
    if (source.jwksFile !== void 0) return JSON.parse(await readFile(source.jwksFile, "utf8"));
    if (source.jwksUrl !== void 0) {
      const res = await fetch(source.jwksUrl, { signal: AbortSignal.timeout(5e3) });
      return await res.json();
    }
    return void 0;
  },
  catch: () => unauthorized("The OIDC provider's keys could not be loaded")
});
var signatureCheckFor = Effect13.fnUntraced(function* (platform, token) {
  if (platform.settings.sandbox) return { kind: "skip" };
  const decoded = decodeJwt(token);
  const iss = decoded.ok ? decoded.value.payload["iss"] : void 0;
  const issuer = settingsOf(platform).oidcIssuers.find((i) => i.issuer === iss);
  if (issuer === void 0) return { kind: "skip" };
  const jwks = yield* loadJwks(issuer);
  if (!isJsonWebKeySet(jwks)) return yield* unauthorized(`No signing keys are configured for OIDC issuer ${issuer.issuer}`);
  return { kind: "jwks", jwks };
});
var checkOidc = Effect13.fnUntraced(function* (platform, token, clientPublicKey, expectedIdentity) {
  const decoded = decodeJwt(token);
  if (!decoded.ok) return yield* fromVerdict(decoded);
  const signature = yield* signatureCheckFor(platform, token);
  const verdict = verifyOidcToken({
    token,
    signature,
    nowMs: yield* Clock3.currentTimeMillis,
    supportedIssuers: settingsOf(platform).oidcIssuers.map((i) => i.issuer),
    clientPublicKey,
    ...expectedIdentity === void 0 ? {} : { expectedIdentity }
  });
  if (!verdict.ok) return yield* fromVerdict(verdict);
  return verdict.value.identity;
});
var issueOtpChallenge = Effect13.fnUntraced(function* (uow, platform, credential, clientPublicKey) {
  const ids = yield* Ids;
  const nowMs = yield* Clock3.currentTimeMillis;
  const random = yield* randomSource;
  const target = generateP256KeyPair(random);
  const signingKey = yield* serverKey(uow, platform, "otp-target-signing");
  const otpCode = platform.settings.sandbox ? SANDBOX_OTP_CODE : String(Number.parseInt(bytesToHex3(random(4)), 16) % 1e6).padStart(6, "0");
  const record = {
    kind: "request",
    platformId: platform.id,
    id: yield* ids.make("Request"),
    accountId: credential.accountId,
    action: "OTP_CHALLENGE",
    credentialId: credential.id,
    fingerprint: "",
    payloadToSign: "",
    expiresAt: nowMs + CREDENTIAL_CHALLENGE_TTL_MILLIS,
    used: false,
    emailOtpSet: [],
    smsOtpSet: [],
    targetPrivateKeyHex: target.privateKeyHex,
    clientPublicKey,
    otpCode,
    createdAt: nowMs
  };
  yield* uow.putWalletRecord(record);
  return { requestId: record.id, bundle: buildOtpEncryptionTargetBundle({ targetPublicKey: target.publicKeyHex, signingKey }) };
});
var newCredential = Effect13.fnUntraced(function* (platform, accountId, customerId, fields) {
  const ids = yield* Ids;
  const now = isoOf(yield* Clock3.currentTimeMillis);
  const record = {
    kind: "credential",
    platformId: platform.id,
    id: yield* ids.make("AuthMethod"),
    accountId,
    customerId,
    ...fields,
    createdAt: now,
    updatedAt: now
  };
  return record;
});
var createCredential = Effect13.fnUntraced(function* (platform, req2, headers) {
  const store = yield* Store;
  const account = yield* walletAccount(platform, req2.accountId);
  const customerId = account.customerId ?? "";
  const customer = yield* store.customers.get(platform.id, customerId);
  const contact = customer?.customer;
  let fields;
  switch (req2.type) {
    case "EMAIL_OTP": {
      const email = contact?.email;
      if (email === void 0) return yield* badRequest("MISSING_MANDATORY_USER_INFO", `Customer ${customerId} has no email for an EMAIL_OTP credential`);
      fields = { type: "EMAIL_OTP", nickname: email, lookupKey: `email:${email.toLowerCase()}` };
      break;
    }
    case "SMS_OTP": {
      const phone = contact?.phoneNumber;
      if (phone === void 0) return yield* badRequest("MISSING_MANDATORY_USER_INFO", `Customer ${customerId} has no phoneNumber for an SMS_OTP credential`);
      fields = { type: "SMS_OTP", nickname: phone, lookupKey: `phone:${phone}` };
      break;
    }
    case "OAUTH": {
      const identity = yield* checkOidc(platform, req2.oidcToken, null);
      const claims = decodeJwt(req2.oidcToken);
      const email = claims.ok && typeof claims.value.payload["email"] === "string" ? claims.value.payload["email"] : identity.sub;
      fields = { type: "OAUTH", nickname: email.slice(0, 255), oidc: identity, lookupKey: `oidc:${identity.iss} ${identity.aud} ${identity.sub}` };
      break;
    }
    case "PASSKEY": {
      const s = settingsOf(platform);
      const verdict = verifyPasskeyRegistration({
        registration: req2.attestation,
        expectedChallenge: req2.challenge,
        rpId: s.rpId,
        allowedOrigins: s.allowedOrigins
      });
      if (!verdict.ok) return yield* fromVerdict(verdict);
      fields = {
        type: "PASSKEY",
        nickname: req2.nickname,
        lookupKey: `passkey:${verdict.value.credentialId}`,
        passkey: { credentialId: verdict.value.credentialId, publicKey: verdict.value.publicKey, counter: verdict.value.counter, transports: req2.attestation.transports }
      };
      break;
    }
  }
  const check = (_uow) => Effect13.gen(function* () {
    const existing2 = yield* credentialsOf(platform, req2.accountId);
    if (fields.type === "EMAIL_OTP" && existing2.some((c) => c.type === "EMAIL_OTP")) {
      return yield* badRequest("EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS", `Internal account ${req2.accountId} already has an EMAIL_OTP credential`);
    }
    if (fields.type === "SMS_OTP" && existing2.some((c) => c.type === "SMS_OTP")) {
      return yield* badRequest("SMS_OTP_CREDENTIAL_ALREADY_EXISTS", `Internal account ${req2.accountId} already has an SMS_OTP credential`);
    }
    const tied = fields.lookupKey === void 0 ? [] : yield* store.wallets.byLookup(platform.id, "credential", fields.lookupKey);
    if (tied.length > 0) {
      switch (fields.type) {
        case "EMAIL_OTP":
          return yield* conflict("EMAIL_OTP_EMAIL_ALREADY_EXISTS", `${fields.nickname} is already tied to an EMAIL_OTP credential`);
        case "SMS_OTP":
          return yield* conflict("SMS_OTP_PHONE_NUMBER_ALREADY_EXISTS", `${fields.nickname} is already tied to an SMS_OTP credential`);
        case "PASSKEY":
          return yield* badRequest("PASSKEY_CREDENTIAL_ALREADY_EXISTS", "This passkey credentialId is already registered");
        case "OAUTH":
          return yield* conflict("CONFLICT", "This OIDC identity (iss, aud, sub) is already registered");
      }
    }
    if (fields.type === "PASSKEY" && existing2.some((c) => c.type === "PASSKEY")) {
      return yield* conflict("PASSKEY_ALREADY_ENROLLED", `Customer ${customerId} already has a passkey; revoke it first`);
    }
  });
  const perform = (uow) => Effect13.gen(function* () {
    const record = yield* newCredential(platform, req2.accountId, customerId, fields);
    yield* uow.putWalletRecord(record);
    if (record.type !== "EMAIL_OTP" && record.type !== "SMS_OTP") return renderMethod(record);
    const issued = yield* issueOtpChallenge(uow, platform, record, void 0);
    return { ...renderMethod(record), otpEncryptionTargetBundle: issued.bundle };
  });
  const existing = yield* credentialsOf(platform, req2.accountId);
  if (existing.length === 0) {
    const value = yield* store.transact((uow) => Effect13.andThen(check(uow), perform(uow)));
    return { _tag: "Done", value };
  }
  return yield* signedRequest({
    platform,
    accountId: req2.accountId,
    action: "POST /auth/credentials",
    request: req2,
    type: req2.type,
    check,
    perform
  }, headers);
});
var listCredentials = Effect13.fnUntraced(function* (platform, accountId) {
  const credentials = yield* credentialsOf(platform, accountId);
  return { data: [...credentials].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id)).map(renderMethod) };
});
var revokeCredential = Effect13.fnUntraced(function* (platform, id, headers) {
  const store = yield* Store;
  const credential = yield* credentialOf(platform, id);
  const check = (_uow) => Effect13.gen(function* () {
    const all = yield* credentialsOf(platform, credential.accountId);
    if (!all.some((c) => c.id === id)) return yield* missing("credential", `Authentication credential ${id} not found`);
    if (all.length <= 1) return yield* invalidInput("An internal account must keep at least one authentication credential; add another before revoking this one");
  });
  return yield* signedRequest({
    platform,
    accountId: credential.accountId,
    action: "DELETE /auth/credentials/{id}",
    request: { id },
    credentialId: id,
    type: credential.type,
    excludeCredentialId: id,
    check,
    perform: (uow) => Effect13.gen(function* () {
      yield* uow.deleteWalletRecord(platform.id, "credential", id);
      for (const s of yield* store.wallets.byAccount(platform.id, "session", credential.accountId)) {
        if (s.credentialId === id && !s.revoked) yield* uow.putWalletRecord({ ...s, revoked: true });
      }
    })
  }, headers);
});
var challengeCredential = Effect13.fnUntraced(function* (platform, id, body) {
  const store = yield* Store;
  const ids = yield* Ids;
  const credential = yield* credentialOf(platform, id);
  yield* walletAccount(platform, credential.accountId);
  if (credential.type === "OAUTH") {
    return yield* invalidInput("OAUTH credentials have no challenge step: verify with a fresh OIDC token and a clientPublicKey");
  }
  yield* limitRate(platform, credential, "challenge");
  return yield* store.transact(
    (uow) => Effect13.gen(function* () {
      if (credential.type !== "PASSKEY" || credential.passkey === void 0) {
        const issued = yield* issueOtpChallenge(uow, platform, credential, body.clientPublicKey);
        return { requestId: issued.requestId, body: { ...renderMethod(credential), otpEncryptionTargetBundle: issued.bundle } };
      }
      const clientPublicKey = body.clientPublicKey;
      if (clientPublicKey === void 0) {
        return yield* invalidInput("clientPublicKey is required to challenge a PASSKEY credential", [{
          field: "clientPublicKey",
          constraint: "required",
          message: "is required for PASSKEY credentials"
        }]);
      }
      const nowMs = yield* Clock3.currentTimeMillis;
      const requestId = yield* ids.make("Request");
      const expiresAt = nowMs + CREDENTIAL_CHALLENGE_TTL_MILLIS;
      const challenge = bytesToHex3(sha2566(utf8(canonicalJson({
        accountId: credential.accountId,
        clientPublicKey,
        credentialId: credential.id,
        requestId,
        timestampMs: String(nowMs),
        type: "CREATE_SESSION"
      }))));
      yield* uow.putWalletRecord({
        kind: "request",
        platformId: platform.id,
        id: requestId,
        accountId: credential.accountId,
        action: "PASSKEY_CHALLENGE",
        credentialId: credential.id,
        fingerprint: "",
        payloadToSign: "",
        expiresAt,
        used: false,
        emailOtpSet: [],
        smsOtpSet: [],
        clientPublicKey,
        // The client passes the hex text's UTF-8 bytes as the WebAuthn challenge.
        webauthnChallenge: toBase64Url(utf8(challenge)),
        createdAt: nowMs
      });
      return {
        requestId,
        body: { ...renderMethod(credential), credentialId: credential.passkey.credentialId, challenge, requestId, expiresAt: isoOf(expiresAt) }
      };
    })
  );
});
var latestChallenge = Effect13.fnUntraced(function* (platform, credential, action, nowMs) {
  const store = yield* Store;
  const all = yield* store.wallets.byAccount(platform.id, "request", credential.accountId);
  return all.filter((r) => r.action === action && r.credentialId === credential.id && !r.used && r.expiresAt > nowMs).sort((a, b) => b.createdAt - a.createdAt)[0];
});
var verifyCredential = Effect13.fnUntraced(function* (platform, id, req2, headers) {
  const store = yield* Store;
  const credential = yield* credentialOf(platform, id);
  yield* walletAccount(platform, credential.accountId);
  if (req2.type !== credential.type) {
    return yield* invalidInput(`Credential ${id} is ${credential.type}; the body is for ${req2.type}`, [{ field: "type", constraint: "credentialType", message: `must be ${credential.type}` }]);
  }
  if (req2.type === "OAUTH") {
    const decoded = decodeJwt(req2.oidcToken);
    if (!decoded.ok) return yield* fromVerdict(decoded);
  }
  yield* limitRate(platform, credential, "verify");
  switch (req2.type) {
    case "OAUTH": {
      yield* checkOidc(platform, req2.oidcToken, req2.clientPublicKey, credential.oidc);
      const value = yield* store.transact((uow) => issueSession(uow, platform, credential, { clientPublicKey: req2.clientPublicKey }));
      return { _tag: "Done", value };
    }
    case "PASSKEY": {
      const requestId = headers.requestId;
      if (requestId === void 0 || requestId === "") {
        return yield* unauthorized("Request-Id header is missing: echo the requestId of POST /auth/credentials/{id}/challenge", "REQUEST_ID_MISSING");
      }
      const value = yield* store.transact(
        (uow) => Effect13.gen(function* () {
          const nowMs = yield* Clock3.currentTimeMillis;
          const challenge = yield* store.wallets.get(platform.id, "request", requestId);
          if (challenge === void 0 || challenge.action !== "PASSKEY_CHALLENGE" || challenge.credentialId !== id) {
            return yield* unauthorized(`Request-Id ${requestId} does not match a pending challenge of this credential`);
          }
          if (challenge.used) return yield* unauthorized(`Request-Id ${requestId} was already used; request a new challenge`);
          if (challenge.expiresAt <= nowMs) return yield* unauthorized(`Request-Id ${requestId} expired at ${isoOf(challenge.expiresAt)}; request a new challenge`);
          const passkey = credential.passkey;
          const s = settingsOf(platform);
          if (passkey === void 0 || challenge.webauthnChallenge === void 0 || challenge.clientPublicKey === void 0) {
            return yield* unauthorized("The credential has no registered passkey");
          }
          const verdict = verifyPasskeyAssertion({
            assertion: req2.assertion,
            credential: { id: passkey.credentialId, publicKey: passkey.publicKey, counter: passkey.counter },
            expectedChallenge: challenge.webauthnChallenge,
            rpId: s.rpId,
            allowedOrigins: s.allowedOrigins,
            sandbox: platform.settings.sandbox
          });
          if (!verdict.ok) return yield* fromVerdict(verdict);
          yield* uow.putWalletRecord({ ...challenge, used: true });
          yield* uow.putWalletRecord({ ...credential, passkey: { ...passkey, counter: verdict.value.newCounter }, updatedAt: isoOf(nowMs) });
          return yield* issueSession(uow, platform, credential, { clientPublicKey: challenge.clientPublicKey });
        })
      );
      return { _tag: "Done", value, requestId };
    }
    case "EMAIL_OTP":
    case "SMS_OTP": {
      const answer = yield* signedRequest({
        platform,
        accountId: credential.accountId,
        action: "POST /auth/credentials/{id}/verify",
        request: { id, ...req2 },
        credentialId: id,
        type: credential.type,
        // First leg: the OTP is checked; the TEK in the bundle signs the retry and becomes the session key.
        signerKeys: (uow) => Effect13.gen(function* () {
          const nowMs = yield* Clock3.currentTimeMillis;
          const challenge = yield* latestChallenge(platform, credential, "OTP_CHALLENGE", nowMs);
          const target = challenge?.targetPrivateKeyHex === void 0 ? void 0 : p256KeyPairFromPrivateKey(challenge.targetPrivateKeyHex);
          if (challenge === void 0 || target === void 0) {
            return yield* unauthorized("No pending OTP challenge for this credential: call POST /auth/credentials/{id}/challenge");
          }
          const opened = yield* Effect13.promise(
            () => openEncryptedOtpBundle({
              encryptedOtpBundle: req2.encryptedOtpBundle,
              targetKey: target,
              expected: platform.settings.sandbox ? { kind: "sandbox" } : { kind: "code", code: challenge.otpCode ?? "" },
              ...challenge.clientPublicKey === void 0 ? {} : { expectedPublicKey: challenge.clientPublicKey }
            })
          );
          if (!opened.ok) return yield* fromVerdict(opened);
          yield* uow.putWalletRecord({ ...challenge, used: true });
          return [opened.value.publicKey];
        }),
        perform: (uow, challenge) => Effect13.gen(function* () {
          const tek = challenge.signerKeys?.[0];
          if (tek === void 0) return yield* unauthorized("The verification challenge names no key");
          return yield* issueSession(uow, platform, credential, { tek });
        })
      }, headers);
      return answer;
    }
  }
});
var listSessions = Effect13.fnUntraced(function* (platform, accountId) {
  const nowMs = yield* Clock3.currentTimeMillis;
  const sessions = yield* activeSessionsOf(platform, accountId, nowMs);
  return { data: [...sessions].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id)).map((s) => renderSession(s)) };
});
var activeSession = Effect13.fnUntraced(function* (platform, id) {
  const store = yield* Store;
  const nowMs = yield* Clock3.currentTimeMillis;
  const s = yield* store.wallets.get(platform.id, "session", id);
  if (s === void 0 || s.revoked || s.expiresAt <= nowMs) return yield* missing("session", `Session ${id} not found (never issued, revoked or expired)`);
  return s;
});
var revokeSession = Effect13.fnUntraced(function* (platform, id, headers) {
  const session = yield* activeSession(platform, id);
  return yield* signedRequest({
    platform,
    accountId: session.accountId,
    action: "DELETE /auth/sessions/{id}",
    request: { id },
    type: session.type,
    check: () => Effect13.asVoid(activeSession(platform, id)),
    perform: (uow) => Effect13.gen(function* () {
      const current = yield* activeSession(platform, id);
      yield* uow.putWalletRecord({ ...current, revoked: true, updatedAt: isoOf(yield* Clock3.currentTimeMillis) });
    })
  }, headers);
});
var refreshSession = Effect13.fnUntraced(function* (platform, id, body, headers) {
  const store = yield* Store;
  const session = yield* activeSession(platform, id);
  return yield* signedRequest({
    platform,
    accountId: session.accountId,
    action: "POST /auth/sessions/{id}/refresh",
    request: { id, ...body },
    type: session.type,
    signerKeys: () => Effect13.succeed([session.publicKey]),
    check: () => Effect13.asVoid(activeSession(platform, id)),
    perform: (uow) => Effect13.gen(function* () {
      const current = yield* activeSession(platform, id);
      const credential = yield* store.wallets.get(platform.id, "credential", current.credentialId);
      if (credential === void 0) return yield* missing("credential", `The credential of session ${id} was revoked`);
      yield* uow.putWalletRecord({ ...current, revoked: true, updatedAt: isoOf(yield* Clock3.currentTimeMillis) });
      return yield* issueSession(uow, platform, credential, { clientPublicKey: body.clientPublicKey });
    })
  }, headers);
});

// src/operations/wallets/actions.ts
var updateInternalAccount = Effect14.fnUntraced(function* (platform, id, body, headers) {
  yield* walletAccount(platform, id);
  return yield* signedRequest({
    platform,
    accountId: id,
    action: "PATCH /internal-accounts/{id}",
    request: { id, ...body },
    perform: (uow) => Effect14.gen(function* () {
      const rec = yield* walletAccount(platform, id);
      const now = isoOf(yield* Clock4.currentTimeMillis);
      const next = body.privateEnabled === void 0 ? rec : { ...rec, privateEnabled: body.privateEnabled, updatedAt: now };
      yield* uow.putInternalAccount(next).pipe(Effect14.orDie);
      return yield* renderOne(platform.id, next);
    })
  }, headers);
});
var walletKey = Effect14.fnUntraced(function* (uow, platform, accountId) {
  const store = yield* Store;
  const name = `wallet:${accountId}`;
  const existing = yield* store.wallets.get(platform.id, "serverKey", name);
  const pair = existing === void 0 ? void 0 : p256KeyPairFromPrivateKey(existing.privateKeyHex);
  if (pair !== void 0) return pair;
  const made = generateP256KeyPair(yield* randomSource);
  yield* uow.putWalletRecord({ kind: "serverKey", platformId: platform.id, id: name, accountId, privateKeyHex: made.privateKeyHex });
  return made;
});
var exportInternalAccount = Effect14.fnUntraced(function* (platform, id, body, headers) {
  yield* walletAccount(platform, id);
  return yield* signedRequest({
    platform,
    accountId: id,
    action: "POST /internal-accounts/{id}/export",
    request: { id, ...body },
    perform: (uow) => Effect14.gen(function* () {
      const key = yield* walletKey(uow, platform, id);
      const signingKey = platform.settings.sandbox ? void 0 : yield* serverKey(uow, platform, "export-signing");
      const random = yield* randomSource;
      const bundle = yield* Effect14.promise(
        () => sealExportBundle({
          plaintext: hexBytes(key.privateKeyHex),
          clientPublicKey: body.clientPublicKey,
          organizationId: id,
          randomBytes: random,
          signingKey
        })
      );
      return { id, encryptedWalletCredentials: bundle };
    })
  }, headers);
});
var hexBytes = (hex) => Uint8Array.from(Buffer.from(hex, "hex"));
var walletSourceOf = Effect14.fnUntraced(function* (platform, accountId) {
  const store = yield* Store;
  const rec = yield* store.internalAccounts.get(platform.id, accountId);
  return rec?.type === "EMBEDDED_WALLET" ? rec : void 0;
});
var walletPaymentInstructions = Effect14.fnUntraced(function* (platform, p) {
  const wallet2 = yield* walletSourceOf(platform, p.accountId);
  if (wallet2 === void 0) return void 0;
  const payloadToSign = canonicalJson({
    accountId: p.accountId,
    parameters: { amount: p.amount, currency: p.currency, quoteId: p.quoteId },
    timestampMs: String(p.nowMs),
    type: "POST /quotes/{quoteId}/execute"
  });
  return [{
    instructionsNotes: "Sign payloadToSign with a session key of the wallet and send it as Service-Wallet-Signature to POST /quotes/{quoteId}/execute.",
    accountOrWalletInfo: { accountType: "EMBEDDED_WALLET", payloadToSign }
  }];
});
var checkWalletSignature = Effect14.fnUntraced(function* (platform, quote, signature) {
  const source = quote.source;
  if (source.sourceType !== "ACCOUNT") return;
  const wallet2 = yield* walletSourceOf(platform, source.accountId);
  if (wallet2 === void 0) return;
  const info = quote.paymentInstructions?.[0]?.accountOrWalletInfo;
  const payload = info?.["payloadToSign"];
  if (typeof payload !== "string") return yield* missing("quote", `Quote ${quote.id} carries no payloadToSign`);
  yield* verifyQuoteSignature(platform, wallet2.id, payload, signature);
});

// src/operations/money/payments.ts
import { sha256 as sha2567 } from "@noble/hashes/sha2.js";
import { bytesToHex as bytesToHex4 } from "@noble/hashes/utils.js";
import { Effect as Effect15 } from "effect";
var PAYMENT_TIMER = "payment";
var millisOf = (iso) => iso === void 0 ? void 0 : Date.parse(iso);
var stateOf = (shown, plan) => stateOfShown(plan.pullReversal === void 0 ? shown : { ...shown, refund: plan.pullReversal }, plan);
var stateOfShown = (t, plan) => {
  const state = {
    status: t.status,
    funds: plan.money,
    awaitingPlatformApproval: plan.awaitingPlatformApproval === true
  };
  if (t.failureReason !== void 0) state.failureReason = t.failureReason;
  if (t.refund !== void 0) {
    state.refund = {
      status: t.refund.status,
      reason: t.refund.reason ?? "TRANSACTION_FAILED",
      initiatedAt: millisOf(t.refund.initiatedAt) ?? 0,
      ...t.refund.settledAt === void 0 ? {} : { settledAt: millisOf(t.refund.settledAt) ?? 0 }
    };
  }
  if (t.settledAt !== void 0) state.settledAt = millisOf(t.settledAt) ?? 0;
  return state;
};
var OUTGOING_STATUSES = /* @__PURE__ */ new Set(["PENDING", "PENDING_AUTHORIZATION", "EXPIRED", "PROCESSING", "COMPLETED", "FAILED"]);
var withoutOutcomeOf = (t, ended) => {
  if (!("failureReason" in t) && !("refund" in t) && !("settledAt" in t) && !("pendingReason" in t)) return t;
  const { failureReason: _f, refund: _r, settledAt: _s, pendingReason, ...kept } = t;
  return ended || pendingReason === void 0 ? kept : { ...kept, pendingReason };
};
var withState = (t, s, now) => {
  const ended = s.status === "COMPLETED" || s.status === "FAILED" || s.status === "EXPIRED";
  const rest = withoutOutcomeOf(t, ended);
  const status = OUTGOING_STATUSES.has(s.status) ? s.status : "FAILED";
  const moved2 = { ...rest, status, updatedAt: now };
  if (s.failureReason !== void 0) moved2.failureReason = s.failureReason;
  if (s.settledAt !== void 0) moved2.settledAt = isoOf(s.settledAt);
  if (s.refund !== void 0) {
    moved2.refund = {
      reference: `REFUND-${t.id.slice(t.id.indexOf(":") + 1, t.id.indexOf(":") + 9)}`,
      initiatedAt: isoOf(s.refund.initiatedAt),
      ...s.refund.settledAt === void 0 ? {} : { settledAt: isoOf(s.refund.settledAt) },
      status: s.refund.status,
      reason: s.refund.reason
    };
  }
  return moved2;
};
var settlementHash = (id, network) => {
  const hex = bytesToHex4(sha2567(new TextEncoder().encode(id)));
  return network === "BITCOIN" || network === "SOLANA" || network === "SPARK" ? hex : `0x${hex}`;
};
var withSettlementProof = (t, plan, ledger) => {
  if (!ledger.includes("SETTLE")) return t;
  if (plan.onChainNetwork !== void 0 && t.destination.destinationType === "ACCOUNT") {
    return {
      ...t,
      destination: { ...t.destination, onChainTransaction: { transactionHash: settlementHash(t.id, plan.onChainNetwork), network: plan.onChainNetwork } }
    };
  }
  if (plan.umaSettlement === true) {
    return { ...t, reconciliationInstructions: { ...t.reconciliationInstructions, transactionHash: settlementHash(t.id, void 0) } };
  }
  return t;
};
var withoutRefundOf = (t) => {
  if (!("refund" in t)) return t;
  const { refund: _refund, ...rest } = t;
  return rest;
};
var withoutChallengeOf = (q) => {
  if (!("scaChallenge" in q)) return q;
  const { scaChallenge: _challenge, ...rest } = q;
  return rest;
};
var quoteStatusOf = (t) => t.status === "COMPLETED" ? "COMPLETED" : t.status === "FAILED" ? "FAILED" : t.status === "EXPIRED" ? "EXPIRED" : "PROCESSING";
var asMove = (step) => {
  const type = step.move.type;
  if (!PAYMENT_MOVE_TYPES.includes(type)) return void 0;
  if (type === "FAIL") {
    const reason = step.move.failureReason;
    return reason !== void 0 && OUTGOING_FAILURE_REASONS.includes(reason) ? { type: "FAIL", failureReason: reason } : void 0;
  }
  return { type };
};
var paymentScope = (quote) => ({ quote, quoteDirty: false, quoteStatus: void 0, accounts: /* @__PURE__ */ new Map() });
var quoteMovedTo = (q, status) => ({ ...q, quote: { ...withoutChallengeOf(q.quote), status }, authorization: void 0 });
var flushQuote = (uow, scope) => {
  if (scope.quote === void 0 || !scope.quoteDirty || scope.quoteStatus === void 0) return Effect15.succeed(scope.quote);
  const quote = quoteMovedTo(scope.quote, scope.quoteStatus);
  scope.quote = quote;
  return Effect15.map(uow.putQuote(quote), () => {
    scope.quoteDirty = false;
    scope.quoteStatus = void 0;
    return quote;
  });
};
var movePayment = Effect15.fnUntraced(function* (uow, platform, rec, move, scope) {
  const t = rec.transaction;
  if (t.type !== "OUTGOING") return yield* Effect15.die(new Error(`movePayment on an ${t.type} transaction`));
  const nowMs = yield* nowMillis;
  const now = isoOf(nowMs);
  const r = transition3(stateOf(t, rec.plan), move, nowMs);
  if (!r.ok) return yield* rejected(r.error);
  const moved2 = withSettlementProof(withState(t, r.value.state, now), rec.plan, r.value.ledger);
  const pullFailed = rec.plan.pull === true && moved2.status === "FAILED";
  const transaction = pullFailed ? withoutRefundOf(moved2) : moved2;
  const events = pullFailed ? r.value.events.filter((e) => !e.startsWith("OUTGOING_PAYMENT.REFUND_")) : r.value.events;
  const plan = {
    ...rec.plan,
    money: r.value.state.funds,
    awaitingPlatformApproval: r.value.state.awaitingPlatformApproval
  };
  if (pullFailed && moved2.refund !== void 0) plan.pullReversal = moved2.refund;
  for (const intent of r.value.ledger) {
    yield* postMove(uow, platform.id, t.id, plan, intent, now).pipe(Effect15.orDie);
  }
  const next = { ...rec, transaction, plan };
  if (scope === void 0) yield* uow.putTransaction(next);
  yield* announce(uow, platform, transaction, events, now);
  if (r.value.ledger.length > 0) yield* announceBalances(uow, platform, plan, r.value.ledger, now, scope);
  const quoteId = plan.quoteId;
  if (quoteId !== void 0) {
    const q = scope?.quote?.quote.id === quoteId ? scope.quote : yield* Store.use((store) => store.quotes.get(platform.id, quoteId));
    if (q !== void 0) {
      if (scope === void 0) yield* uow.putQuote(quoteMovedTo(q, quoteStatusOf(transaction)));
      else {
        scope.quote = q;
        scope.quoteStatus = quoteStatusOf(transaction);
        scope.quoteDirty = true;
      }
    }
  }
  return next;
});
var announce = (uow, platform, transaction, types, now) => {
  let all;
  for (const type of types) {
    const one = emit(uow, platform, type, { timestamp: now, data: transaction });
    all = all === void 0 ? one : Effect15.andThen(all, one);
  }
  return all ?? Effect15.void;
};
var accountsMovedBy = (plan, moves) => {
  const internal = plan.internalAccounts;
  if (internal.length === 0) return internal;
  const net = /* @__PURE__ */ new Map();
  for (const move of moves) {
    for (const p of postingsOf(plan, move)) net.set(p.account, (net.get(p.account) ?? 0) + p.amount);
  }
  return internal.filter((a) => (net.get(a) ?? 0) !== 0);
};
var announceBalances = (uow, platform, plan, moves, now, scope) => Store.use((store) => {
  const ids = accountsMovedBy(plan, moves);
  const accounts = [];
  const announce2 = () => accounts.length === 0 ? Effect15.void : Effect15.flatMap(store.ledger.balances(platform.id, accounts.map((a) => a.id)), (balances) => {
    let all;
    for (const account of accounts) {
      const one = emit(uow, platform, "INTERNAL_ACCOUNT.BALANCE_UPDATED", { timestamp: now, data: renderAccount(account, balances.get(account.id) ?? 0) });
      all = all === void 0 ? one : Effect15.andThen(all, one);
    }
    return all ?? Effect15.void;
  });
  const from = (i) => {
    for (; i < ids.length; i++) {
      const id = ids[i];
      const known2 = scope?.accounts.get(id);
      if (known2 === void 0) {
        const next = i + 1;
        return Effect15.flatMap(store.internalAccounts.get(platform.id, id), (account) => {
          if (account !== void 0) {
            scope?.accounts.set(id, account);
            accounts.push(account);
          }
          return from(next);
        });
      }
      accounts.push(known2);
    }
    return announce2();
  };
  return from(0);
});
var runDueSteps = Effect15.fnUntraced(function* (uow, platform, rec, options) {
  const nowMs = yield* nowMillis;
  let current = rec;
  let written = false;
  while (current.plan.steps.length > 0) {
    const step = current.plan.steps[0];
    if (step === void 0 || step.at > nowMs) break;
    current = { ...current, plan: { ...current.plan, steps: current.plan.steps.slice(1) } };
    written = false;
    const move = asMove(step);
    if (move === void 0) continue;
    const before = current;
    current = yield* movePayment(uow, platform, current, move, options?.scope).pipe(
      // A step the payment no longer accepts (cancelled meanwhile, say) is dropped.
      Effect15.catch(() => Effect15.succeed(before))
    );
    written = current !== before && options?.scope === void 0;
  }
  if (!written) yield* uow.putTransaction(current);
  const next = current.plan.steps[0];
  if (options?.fresh !== true) yield* uow.cancelTimers(platform.id, current.transaction.id, PAYMENT_TIMER);
  if (next !== void 0) yield* schedule(uow, platform, PAYMENT_TIMER, current.transaction.id, { at: next.at, event: next.move.type });
  return current;
});
var transactionOf = Effect15.fnUntraced(function* (platform, id) {
  const store = yield* Store;
  const rec = yield* store.transactions.get(platform.id, id);
  if (rec === void 0) return yield* notFound(`Transaction ${id} not found`, "TRANSACTION_NOT_FOUND");
  return rec;
});

// src/operations/sca/common.ts
import { sha256 as sha2568 } from "@noble/hashes/sha2.js";
import { bytesToHex as bytesToHex5 } from "@noble/hashes/utils.js";
import { Effect as Effect16 } from "effect";
var hashCode = (code) => bytesToHex5(sha2568(new TextEncoder().encode(code)));
var randomBytes = (length) => Effect16.gen(function* () {
  const ids = yield* Ids;
  const out = new Uint8Array(length);
  for (let at = 0; at < length; at += 32) {
    const block = sha2568(new TextEncoder().encode(`${yield* ids.uuid}${yield* ids.uuid}`));
    out.set(block.subarray(0, Math.min(32, length - at)), at);
  }
  return out;
});
var issueCode = (platform, now, ttlMillis) => Effect16.gen(function* () {
  let code = SANDBOX_SCA_CODE;
  if (!platform.settings.sandbox) {
    const bytes = yield* randomBytes(4);
    const n = ((bytes[0] ?? 0) * 2 ** 24 + (bytes[1] ?? 0) * 2 ** 16 + (bytes[2] ?? 0) * 2 ** 8 + (bytes[3] ?? 0)) % 1e6;
    code = String(n).padStart(6, "0");
  }
  const challenge = { codeHash: hashCode(code), expiresAt: now + ttlMillis, attempts: 0 };
  return { code, challenge };
});
var scaCustomer = Effect16.fnUntraced(function* (platform, customerId, what = "SCA") {
  const rec = yield* activeCustomer(platform, customerId);
  const region = rec.customer.region;
  if (!requiresSca(region)) {
    return yield* conflict("CONFLICT", `${what} is not required for customer ${customerId}: its region (${region ?? "none"}) is outside the EEA`, {
      details: { customerId, region: region ?? null }
    });
  }
  return rec;
});

// src/operations/money/quotes.ts
var WALLET_NETWORKS = {
  BASE_WALLET: "BASE",
  ETHEREUM_WALLET: "ETHEREUM",
  POLYGON_WALLET: "POLYGON",
  PLASMA_WALLET: "PLASMA",
  ARBITRUM_WALLET: "ARBITRUM",
  SOLANA_WALLET: "SOLANA",
  SPARK_WALLET: "SPARK",
  TRON_WALLET: "TRON",
  BITCOIN_L1: "BITCOIN"
};
var QUOTE_TTL_MILLIS = 5 * 6e4;
var accountNotFound = (field, id) => unknownReference(field, id, "an internal or external account");
var findAccount = (store, platform, field, id) => id.startsWith("InternalAccount:") ? Effect17.flatMap(store.internalAccounts.get(platform.id, id), (account) => account !== void 0 ? Effect17.succeed({ kind: "INTERNAL", account }) : Effect17.fail(accountNotFound(field, id))) : id.startsWith("ExternalAccount:") ? Effect17.flatMap(store.externalAccounts.get(platform.id, id), (account) => account !== void 0 ? Effect17.succeed({ kind: "EXTERNAL", account }) : Effect17.fail(accountNotFound(field, id))) : Effect17.fail(accountNotFound(field, id));
var sideCurrency = (side) => side.kind === "INTERNAL" ? side.account.currency : side.account.account.currency;
var sideCustomer = (side) => side.kind === "INTERNAL" ? side.account.customerId : side.account.account.customerId;
var known = (code, field) => {
  const c = currencyOf(code);
  return c === void 0 ? Effect17.fail(badRequest("INVALID_CURRENCY", `${field}: ${code} is not a currency the service supports`)) : Effect17.succeed(c);
};
var isApproved = (c) => c.customerType === "INDIVIDUAL" ? c.kycStatus === "APPROVED" : c.kybStatus === "APPROVED";
var hasAcceptedTerms = (c) => c.agreementConsents.some((a) => a.type === "SERVICE_END_USER_TERMS") || c.endUserTermsConsent !== void 0;
var customerFor = (store, platform, customerId) => Effect17.flatMap(store.customers.get(platform.id, customerId), (rec) => rec === void 0 || rec.deletedAt !== void 0 ? Effect17.fail(unknownReference("source.customerId", customerId, "an active customer")) : Effect17.succeed(rec.customer));
var checkCustomer = (platform, customer) => {
  if (!isApproved(customer)) {
    return Effect17.fail(forbidden(`Customer ${customer.id} is not verified yet (KYC/KYB must be APPROVED)`, "USER_NOT_READY"));
  }
  if (!platform.settings.regulated && !hasAcceptedTerms(customer)) {
    return Effect17.fail(forbidden(
      `Customer ${customer.id} has not accepted the end-user terms (a SERVICE_END_USER_TERMS agreement consent)`,
      "END_USER_TERMS_NOT_ACCEPTED"
    ));
  }
  return Effect17.void;
};
var checkDestinationAccount = (rec, amount, currency) => {
  const u = usability({
    status: rec.account.status,
    ...rec.bankValidationFailed === void 0 ? {} : { bankValidationFailed: rec.bankValidationFailed },
    bankValidationPending: rec.account.status === "PENDING"
  });
  if (!u.ok) return rejected(u.error);
  const status = rec.account.status;
  if ((status === "PENDING_OWNERSHIP_VERIFICATION" || status === "UNVERIFIED") && requiresOwnershipVerification(amount, currency)) {
    return Effect17.fail(badRequest(
      "EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED",
      `Destination ${rec.account.id} must complete ownership verification before receiving this amount`
    ));
  }
  if (status === "INACTIVE" || status === "UNDER_REVIEW") {
    return Effect17.fail(badRequest("INVALID_INPUT", `External account ${rec.account.id} is ${status} and cannot be used for payments`));
  }
  return Effect17.void;
};
var limitsByConfig = /* @__PURE__ */ new WeakMap();
var configLimits = (config) => {
  let limits = limitsByConfig.get(config);
  if (limits === void 0) {
    limits = {
      single: { byCurrency: Object.fromEntries((config.limits?.singleTransaction ?? []).map((l) => [l.currency, l.maxAmount])) },
      daily: Object.fromEntries((config.limits?.dailyVolume ?? []).map((l) => [l.currency, l.maxAmount]))
    };
    limitsByConfig.set(config, limits);
  }
  return limits;
};
var limitsOf = (config) => configLimits(config).single;
var dailyLimitsOf = (config) => configLimits(config).daily;
var checkLimits = Effect17.fnUntraced(function* (platform, config, input, store) {
  const now = yield* nowMillis;
  if (singleTransactionLimitExceeded({ amount: input.amount, sendingCurrency: input.sending, receivingCurrency: input.receiving, configured: limitsOf(config) })) {
    const max = singleTransactionLimit(input.sending, input.receiving, limitsOf(config));
    return yield* badRequest("TRANSACTION_SIZE_LIMIT_EXCEEDED", `The amount is above the single-transaction maximum of ${max} for ${input.sending}`, {
      details: { maxAmount: max ?? null, currency: input.sending }
    });
  }
  if (input.rail === "ACH_SAME_DAY") {
    if (achSameDayCapExceeded(input.receivingAmount, now)) {
      return yield* badRequest(
        "TRANSACTION_SIZE_LIMIT_EXCEEDED",
        `ACH_SAME_DAY entries are capped at ${achSameDayCap(now)} USD cents; send larger payouts over ACH`,
        { details: { rail: "ACH_SAME_DAY", capUsdCents: achSameDayCap(now) } }
      );
    }
  }
  const since = dailyWindowStart(now);
  const query2 = { customerId: input.customerId, currency: input.sending, since };
  const counted = yield* store === void 0 ? Store.use((s) => s.transactions.sentVolume(platform.id, query2)) : store.transactions.sentVolume(platform.id, query2);
  const sent = input.createdAtMillis !== void 0 && input.createdAtMillis >= since ? counted - input.amount : counted;
  if (dailyVolumeLimitExceeded({ sentInWindow: sent, amount: input.amount, sendingCurrency: input.sending, configured: dailyLimitsOf(config) })) {
    return yield* tooMany("DAILY_VOLUME_LIMIT_EXCEEDED", `The daily ${input.sending} volume limit would be exceeded`, {
      details: { limit: dailyVolumeLimit(input.sending, dailyLimitsOf(config)) ?? null, sentToday: sent, currency: input.sending }
    });
  }
});
var balanceOf = (platformId, accountId) => Store.use((store) => balanceIn(store, platformId, accountId));
var balanceIn = (store, platformId, accountId) => Effect17.map(store.ledger.balances(platformId, [accountId]), (balances) => balances.get(accountId) ?? 0);
var insufficient = (accountId, balance, needed) => badRequest("INSUFFICIENT_FUNDS", `Internal account ${accountId} holds ${balance}, the payment needs ${needed}`, {
  details: { accountId, balance, required: needed }
});
var resolve = Effect17.fnUntraced(function* (store, platform, req2, options) {
  const sandbox = platform.settings.sandbox;
  let source;
  let sending;
  let customerId;
  let sourceSide;
  if (req2.source.sourceType === "ACCOUNT") {
    sourceSide = yield* findAccount(store, platform, "source.accountId", req2.source.accountId);
    customerId = sideCustomer(sourceSide);
    if (req2.source.customerId !== void 0 && req2.source.customerId !== customerId) {
      return yield* invalidInput("source.customerId does not own source.accountId", [{
        field: "source.customerId",
        constraint: "owner",
        message: "must be the customer that owns source.accountId"
      }]);
    }
    sending = yield* known(sideCurrency(sourceSide), "source.accountId");
    if (sourceSide.kind === "INTERNAL" && sourceSide.account.status !== "ACTIVE") {
      return yield* badRequest("INVALID_INPUT", `Internal account ${sourceSide.account.id} is ${sourceSide.account.status}`);
    }
    if (sourceSide.kind === "EXTERNAL") {
      const u = usability({
        status: sourceSide.account.account.status,
        ...sourceSide.account.bankValidationFailed === void 0 ? {} : { bankValidationFailed: sourceSide.account.bankValidationFailed },
        bankValidationPending: sourceSide.account.account.status === "PENDING"
      });
      if (!u.ok) return yield* rejected(u.error);
    }
    source = sourceSide.kind === "INTERNAL" ? { kind: "INTERNAL", accountId: sourceSide.account.id } : { kind: "EXTERNAL", accountId: sourceSide.account.account.id };
  } else {
    sending = yield* known(req2.source.currency, "source.currency");
    customerId = req2.source.customerId ?? null;
    source = { kind: "REALTIME" };
  }
  let platformCustomerId;
  if (customerId !== null) {
    const customer = yield* customerFor(store, platform, customerId);
    yield* checkCustomer(platform, customer);
    platformCustomerId = customer.platformCustomerId;
  }
  let destination;
  let receiving;
  let steps = QUOTE_EXECUTION_SUCCESS.steps;
  let outcome = "SUCCESS";
  let rail;
  let railSelectionMode;
  let externalDestination;
  if (req2.destination.destinationType === "ACCOUNT") {
    const side = yield* findAccount(store, platform, "destination.accountId", req2.destination.accountId);
    const destinationId = side.kind === "INTERNAL" ? side.account.id : side.account.account.id;
    if (req2.source.sourceType === "ACCOUNT" && req2.source.accountId === destinationId) {
      return yield* badRequest("SELF_PAYMENT", "The source and the destination are the same account");
    }
    receiving = yield* known(sideCurrency(side), "destination.accountId");
    if (side.kind === "INTERNAL") {
      if (req2.destination.paymentRail !== void 0) {
        return yield* invalidInput("paymentRail applies to payouts to external accounts", [{
          field: "destination.paymentRail",
          constraint: "rail",
          message: "only a payout to an external account takes a payment rail"
        }]);
      }
      if (side.account.status !== "ACTIVE") return yield* badRequest("INVALID_INPUT", `Internal account ${side.account.id} is ${side.account.status}`);
      destination = { kind: "INTERNAL", accountId: side.account.id };
    } else {
      const account = side.account.account;
      externalDestination = side.account;
      destination = { kind: "EXTERNAL", accountId: account.id };
      const pinned = req2.destination.paymentRail;
      if (pinned !== void 0) {
        if (!railAllowed(pinned, account.accountInfo.accountType, account.currency)) {
          return yield* invalidInput(`${pinned} cannot pay a ${account.accountInfo.accountType} in ${account.currency}`, [{
            field: "destination.paymentRail",
            constraint: "rail",
            message: `must be one of the account's rails${pinned === "ACH_SAME_DAY" ? " (ACH_SAME_DAY: USD accounts only)" : ""}`
          }]);
        }
        rail = pinned;
        railSelectionMode = "MANUAL";
      } else {
        rail = defaultRailFor(account.accountInfo.accountType, account.currency, account.accountInfo);
        railSelectionMode = rail === void 0 ? void 0 : "AUTO";
      }
      if (sandbox) {
        const identifier2 = primaryIdentifier(account.accountInfo);
        if (options.payout) {
          const row = pullOrPayoutOutcome(identifier2);
          steps = pullOrPayoutSteps(row, "PAYOUT");
          outcome = `PAYOUT_${row.suffix}`;
        } else {
          const row = quoteExecutionOutcome(identifier2);
          steps = row.steps;
          outcome = `QUOTE_${row.suffix}`;
        }
      }
    }
  } else {
    const address = req2.destination.umaAddress;
    const parsed2 = parseUmaAddress(address);
    if (parsed2 === void 0) {
      return yield* badRequest("INVALID_UMA_ADDRESS", `${address} is not a UMA address ($name@domain)`);
    }
    const counterparty = sandbox ? sandboxUmaCounterparty(address, sandboxUmaDomainOf(platform)) : void 0;
    if (counterparty !== void 0) {
      if (req2.destination.currency !== void 0 && req2.destination.currency !== counterparty.currency) {
        return yield* badRequest("INVALID_CURRENCY", `${address} receives ${counterparty.currency} only`);
      }
      receiving = yield* known(counterparty.currency, "destination.currency");
      destination = { kind: "UMA", umaAddress: address };
      steps = counterparty.steps;
      outcome = `UMA_${counterparty.localPart}`;
    } else {
      const receiver = yield* store.customers.findActiveByUmaAddress(platform.id, address);
      if (receiver === void 0) return yield* badRequest("INVALID_RECEIVER", `No receiver found at ${address}`, { details: { errors: [{ field: "destination.umaAddress", constraint: "exists", message: "must be the UMA address of a receiver" }] } });
      const accounts = yield* store.internalAccounts.list(platform.id, { owner: "customer", customerId: receiver.customer.id }, { limit: 100 }).pipe(
        Effect17.orDie
      );
      const wanted = req2.destination.currency ?? accounts.data[0]?.currency;
      const account = accounts.data.find((a) => a.currency === wanted);
      if (account === void 0 || wanted === void 0) {
        return yield* badRequest("INVALID_CURRENCY", `${address} cannot receive ${wanted ?? "any currency"} yet`);
      }
      if (req2.source.sourceType === "ACCOUNT" && req2.source.accountId === account.id) {
        return yield* badRequest("SELF_PAYMENT", "The source and the destination are the same account");
      }
      receiving = yield* known(wanted, "destination.currency");
      destination = { kind: "UMA", umaAddress: address, internalAccountId: account.id };
    }
  }
  if (sandbox && sourceSide?.kind === "EXTERNAL") {
    const identifier2 = primaryIdentifier(sourceSide.account.account.accountInfo);
    const row = pullOrPayoutOutcome(identifier2);
    if (row.failureReason !== void 0) {
      steps = pullOrPayoutSteps(row, "PAYOUT");
      outcome = `PULL_${row.suffix}`;
    }
  }
  const resolved = {
    customerId,
    platformCustomerId,
    source,
    destination,
    sending,
    receiving,
    rail,
    railSelectionMode,
    steps,
    outcome,
    externalDestination,
    sourceIsWallet: sourceSide?.kind === "INTERNAL" && sourceSide.account.type === "EMBEDDED_WALLET"
  };
  return resolved;
});
var createQuote = (platform, req2, options = { payout: false }) => (
  // The store and the ids read from the fiber in one step (no generator around the unit of work).
  Effect17.withFiber((fiber) => {
    if (req2.immediatelyExecute === true && req2.source.sourceType !== "ACCOUNT") {
      return Effect17.fail(invalidInput("immediatelyExecute needs an ACCOUNT source", [{
        field: "immediatelyExecute",
        constraint: "source",
        message: "a REALTIME_FUNDING quote is executed by paying its payment instructions"
      }]));
    }
    const store = Context5.getUnsafe(fiber.context, Store);
    const ids = Context5.getUnsafe(fiber.context, Ids);
    const turns = req2.immediatelyExecute === true && req2.source.sourceType === "ACCOUNT" ? { movesMoneyOf: platform.id, accounts: [req2.source.accountId] } : void 0;
    return store.transact((uow) => Effect17.gen(function* () {
      if (req2.source.sourceType === "ACCOUNT") {
        yield* store.paymentReads.readAhead(platform.id, {
          kind: "accounts",
          sourceAccountId: req2.source.accountId,
          destinationAccountId: req2.destination.destinationType === "ACCOUNT" ? req2.destination.accountId : void 0,
          volumeSince: dailyWindowStart(yield* nowMillis)
        });
      }
      const r = yield* resolve(store, platform, req2, options);
      const config = yield* configIn(store, platform);
      if (req2.platformFeeOverride !== void 0) {
        const problems = platformFeeOverrideProblems(req2.platformFeeOverride, r.sending.code);
        if (problems.length > 0) {
          return yield* invalidInput("platformFeeOverride is not valid for this quote", problems.map((p2) => ({
            field: p2.field,
            constraint: "platformFeeOverride",
            message: p2.message
          })));
        }
      }
      const nowMs = yield* nowMillis;
      const rate = rateAt(r.sending.code, r.receiving.code, nowMs);
      if (rate === void 0) {
        return yield* badRequest("QUOTE_RATE_UNAVAILABLE", `No rate for ${r.sending.code} to ${r.receiving.code} right now`);
      }
      const feeRules = feeRulesOf(config);
      const feeInput = {
        sendingCurrency: r.sending.code,
        crossCurrency: r.sending.code !== r.receiving.code,
        rail: r.rail,
        feeConfigs: feeRules.feeConfigs,
        railFeeConfigs: feeRules.railFeeConfigs,
        override: req2.platformFeeOverride
      };
      const priced = priceQuote({
        lockedSide: req2.lockedCurrencySide,
        lockedAmount: req2.lockedCurrencyAmount,
        sending: r.sending,
        receiving: r.receiving,
        rate: rate.rate,
        fee: quoteFee(feeInput)
      });
      if (!priced.ok) return yield* rejected(priced.error);
      const p = priced.value;
      const platformFee = platformFeeOn(feeInput, p.amountConverted);
      const serviceFee2 = Math.max(0, p.feesIncluded - platformFee);
      yield* checkLimits(platform, config, {
        customerId: r.customerId,
        sending: r.sending.code,
        receiving: r.receiving.code,
        amount: p.totalSendingAmount,
        receivingAmount: p.totalReceivingAmount,
        rail: r.rail
      }, store);
      if (r.externalDestination !== void 0) yield* checkDestinationAccount(r.externalDestination, p.totalReceivingAmount, r.receiving.code);
      if (r.source.kind === "INTERNAL") {
        const balance = yield* balanceIn(store, platform.id, r.source.accountId);
        if (balance < p.totalSendingAmount) return yield* insufficient(r.source.accountId, balance, p.totalSendingAmount);
      }
      const id = yield* ids.make("Quote");
      const transactionId = yield* ids.make("Transaction");
      const now = isoOf(nowMs);
      const instructions = r.source.kind === "REALTIME" ? yield* realtimeInstructions(uow, platform, r.sending.code) : r.sourceIsWallet ? yield* walletPaymentInstructions(platform, { accountId: r.source.accountId, quoteId: id, amount: p.totalSendingAmount, currency: r.sending.code, nowMs }) : void 0;
      if (instructions !== void 0 && r.source.kind !== "REALTIME" && req2.immediatelyExecute === true) {
        return yield* invalidInput("A quote from an embedded wallet is executed with a Service-Wallet-Signature over its payloadToSign", [{
          field: "immediatelyExecute",
          constraint: "source",
          message: "must not be true for an EMBEDDED_WALLET source"
        }]);
      }
      const plan = { customerId: r.customerId };
      if (r.platformCustomerId !== void 0) plan.platformCustomerId = r.platformCustomerId;
      plan.source = r.source;
      plan.destination = r.destination;
      if (r.rail !== void 0) plan.rail = r.rail;
      if (r.railSelectionMode !== void 0) plan.railSelectionMode = r.railSelectionMode;
      plan.platformFee = platformFee;
      plan.serviceFee = serviceFee2;
      if (req2.remittanceInformation !== void 0) plan.remittanceInformation = req2.remittanceInformation;
      if (req2.purposeOfPayment !== void 0) plan.purposeOfPayment = req2.purposeOfPayment;
      if (req2.description !== void 0) plan.description = req2.description;
      plan.outcome = r.outcome;
      plan.steps = r.steps.map((s) => ({ afterMillis: s.afterMillis, move: s.move }));
      const quote = {
        id,
        status: "PENDING",
        createdAt: now,
        expiresAt: isoOf(nowMs + QUOTE_TTL_MILLIS),
        source: req2.source,
        destination: req2.destination,
        sendingCurrency: r.sending,
        receivingCurrency: r.receiving,
        totalSendingAmount: p.totalSendingAmount,
        totalReceivingAmount: p.totalReceivingAmount,
        exchangeRate: apiExchangeRate(rate.rate),
        feesIncluded: p.feesIncluded,
        platformFeesIncluded: platformFee,
        ...instructions === void 0 ? {} : { paymentInstructions: instructions },
        transactionId
      };
      const record = { platformId: platform.id, quote, plan };
      yield* uow.putQuote(record);
      if (req2.immediatelyExecute === true) return yield* executeIn(uow, platform, record, req2.scaFactor);
      rememberQuoteAccounts(record);
      return quote;
    }), turns);
  })
);
var realtimeInstructions = Effect17.fnUntraced(function* (uow, platform, currency) {
  const accounts = yield* openAccounts(uow, platform, null);
  const account = accounts.find((a) => a.currency === currency);
  return account === void 0 ? [] : fundingInstructionsOf(account);
});
var withExpiry = (q, nowMs) => q.status === "PENDING" && Date.parse(q.expiresAt) <= nowMs ? { ...q, status: "EXPIRED" } : q;
var quoteRecordOf = (platform, id) => Store.use((store) => quoteRecordIn(store, platform, id));
var quoteRecordIn = (store, platform, id) => Effect17.flatMap(store.quotes.get(platform.id, id), (rec) => rec === void 0 ? Effect17.fail(notFound(`Quote ${id} not found`, "QUOTE_NOT_FOUND")) : Effect17.succeed(rec));
var getQuote = Effect17.fnUntraced(function* (platform, id) {
  const rec = yield* quoteRecordOf(platform, id);
  return withExpiry(rec.quote, yield* nowMillis);
});
var quoteAccounts = new BoundedMemo(1e4);
var accountsOfQuote = (rec) => {
  const { creditAccount, debitAccount } = ledgerAccountsOf(rec.quote, rec.plan);
  return internalAccountsOf(debitAccount, creditAccount);
};
var rememberQuoteAccounts = (rec) => {
  quoteAccounts.set(rec.quote.id, { platformId: rec.platformId, accounts: accountsOfQuote(rec) });
};
var knownTurnsOfQuote = (platform, quoteId) => {
  const known2 = quoteAccounts.get(quoteId);
  if (known2 === void 0 || known2.platformId !== platform.id) return void 0;
  quoteAccounts.delete(quoteId);
  return { movesMoneyOf: platform.id, accounts: known2.accounts };
};
var turnsOfQuote = (platform, quoteId) => {
  const known2 = knownTurnsOfQuote(platform, quoteId);
  if (known2 !== void 0) return Effect17.succeed(known2);
  return Store.use((store) => Effect17.map(store.quotes.get(platform.id, quoteId), (rec) => rec === void 0 ? { movesMoneyOf: platform.id } : { movesMoneyOf: platform.id, accounts: accountsOfQuote(rec) }));
};
var executeQuote = (platform, quoteId, walletSignature, scaFactor) => Store.use((store) => {
  const known2 = knownTurnsOfQuote(platform, quoteId);
  return known2 !== void 0 ? executeWith(store, platform, quoteId, known2, walletSignature, scaFactor) : Effect17.flatMap(
    turnsOfQuote(platform, quoteId),
    (turns) => executeWith(store, platform, quoteId, turns, walletSignature, scaFactor)
  );
});
var executeWith = (store, platform, quoteId, turns, walletSignature, scaFactor) => store.transact((uow) => Effect17.gen(function* () {
  yield* store.paymentReads.readAhead(platform.id, {
    kind: "quote",
    quoteId,
    volumeSince: dailyWindowStart(yield* nowMillis)
  });
  const rec = yield* quoteRecordIn(store, platform, quoteId);
  if (rec.quote.status === "PENDING" && rec.quote.paymentInstructions !== void 0) {
    yield* checkWalletSignature(platform, rec.quote, walletSignature);
  }
  return yield* executeIn(uow, platform, rec, scaFactor);
}), turns);
var destinationOf = (q, plan) => plan.destination.kind === "UMA" ? { destinationType: "UMA_ADDRESS", umaAddress: plan.destination.umaAddress, currency: q.receivingCurrency.code } : { destinationType: "ACCOUNT", accountId: plan.destination.accountId, currency: q.receivingCurrency.code };
var sourceOf = (q, plan) => plan.source.kind === "REALTIME" ? { sourceType: "REALTIME_FUNDING", currency: q.sendingCurrency.code, ...plan.customerId === null ? {} : { customerId: plan.customerId } } : { sourceType: "ACCOUNT", accountId: plan.source.accountId, currency: q.sendingCurrency.code };
var ledgerAccountsOf = (q, plan) => ({
  debitAccount: plan.source.kind === "INTERNAL" ? plan.source.accountId : worldAccount(q.sendingCurrency.code),
  creditAccount: plan.destination.kind === "INTERNAL" ? plan.destination.accountId : plan.destination.kind === "UMA" && plan.destination.internalAccountId !== void 0 ? plan.destination.internalAccountId : worldAccount(q.receivingCurrency.code)
});
var internalAccountsOf = (debitAccount, creditAccount) => {
  const debit = debitAccount.startsWith("InternalAccount:");
  const credit = creditAccount.startsWith("InternalAccount:");
  return debit && credit ? [debitAccount, creditAccount] : debit ? [debitAccount] : credit ? [creditAccount] : [];
};
var paymentPlanOf = (q, plan, steps) => {
  const sending = q.sendingCurrency.code;
  const receiving = q.receivingCurrency.code;
  const { creditAccount, debitAccount } = ledgerAccountsOf(q, plan);
  const payment = {
    debit: { account: debitAccount, currency: sending, amount: q.totalSendingAmount },
    credit: { account: creditAccount, currency: receiving, amount: q.totalReceivingAmount },
    fees: [
      { account: revenueAccount(sending), amount: plan.serviceFee },
      { account: platformFeeAccount(sending), amount: plan.platformFee }
    ],
    money: "NONE",
    outcome: plan.outcome,
    steps,
    quoteId: q.id,
    internalAccounts: internalAccountsOf(debitAccount, creditAccount)
  };
  return plan.source.kind === "EXTERNAL" ? { ...payment, pull: true } : payment;
};
var executeIn = Effect17.fnUntraced(function* (uow, platform, rec, scaFactor, holdForApproval) {
  const nowMs = yield* nowMillis;
  const q = rec.quote;
  if (q.status !== "PENDING") {
    return yield* conflict("CONFLICT", `Quote ${q.id} was already executed (status ${q.status}); create a new quote`);
  }
  if (Date.parse(q.expiresAt) <= nowMs) {
    yield* uow.putQuote({ ...rec, quote: { ...q, status: "EXPIRED" } });
    return yield* badRequest("QUOTE_EXPIRED", `Quote ${q.id} expired at ${q.expiresAt}; request a new quote`);
  }
  if (rec.plan.source.kind === "REALTIME") {
    return yield* badRequest("INVALID_INPUT", "A REALTIME_FUNDING quote is executed by paying its paymentInstructions (POST /sandbox/send in the sandbox)");
  }
  const scaCustomer2 = yield* scaCustomerOf(platform, rec.plan.customerId);
  if (scaCustomer2 !== void 0) return yield* holdForAuthorization(uow, platform, rec, nowMs, scaCustomer2, scaFactor ?? "SMS_OTP");
  return yield* startPayment(uow, platform, rec, nowMs, void 0, holdForApproval);
});
var scaCustomerOf = (platform, customerId) => customerId === null ? Effect17.undefined : Store.use((store) => Effect17.map(store.customers.get(platform.id, customerId), (customer) => customer !== void 0 && requiresSca(customer.customer.region) ? customer : void 0));
var holdForAuthorization = Effect17.fnUntraced(function* (uow, platform, rec, nowMs, customer, factor) {
  const ids = yield* Ids;
  const q = rec.quote;
  const passkey = customer.sca?.passkey;
  if (factor === "TOTP") {
    return yield* invalidInput("TOTP cannot authorize a transfer (it carries no dynamic linking): use SMS_OTP or PASSKEY", [{
      field: "scaFactor",
      constraint: "enum",
      message: "must be SMS_OTP or PASSKEY for a per-transaction challenge"
    }]);
  }
  if (factor === "PASSKEY" && passkey === void 0) {
    return yield* invalidInput("The customer has no passkey enrolled (POST /sca/factors): use SMS_OTP", [{
      field: "scaFactor",
      constraint: "enrolled",
      message: "PASSKEY needs an enrolled passkey"
    }]);
  }
  if (rec.plan.source.kind === "INTERNAL") {
    const balance = yield* balanceOf(platform.id, rec.plan.source.accountId);
    if (balance < q.totalSendingAmount) return yield* insufficient(rec.plan.source.accountId, balance, q.totalSendingAmount);
  }
  yield* checkLimits(platform, yield* configOf(platform), {
    customerId: rec.plan.customerId,
    sending: q.sendingCurrency.code,
    receiving: q.receivingCurrency.code,
    amount: q.totalSendingAmount,
    receivingAmount: q.totalReceivingAmount,
    rail: rec.plan.rail
  });
  const expiresAt = nowMs + AUTHORIZATION_TTL_MS;
  const code = factor === "SMS_OTP" ? (yield* issueCode(platform, nowMs, AUTHORIZATION_TTL_MS)).challenge : void 0;
  const webauthnChallenge = factor === "PASSKEY" ? toBase64Url(yield* randomBytes(32)) : void 0;
  const challengeId = `ScaChallenge:${yield* ids.uuid}`;
  const rp = platform.embeddedWallets ?? DEFAULT_EMBEDDED_WALLETS;
  const transaction = outgoingTransactionOf(q, rec.plan, nowMs, "PENDING_AUTHORIZATION", void 0);
  const payment = paymentPlanOf(q, rec.plan, [{ at: expiresAt, move: { type: "FAIL", failureReason: "SCA_NOT_COMPLETED" } }]);
  const record = { platformId: platform.id, transaction, plan: payment };
  yield* uow.putTransaction(record);
  yield* emit(uow, platform, "OUTGOING_PAYMENT.PENDING_AUTHORIZATION", { timestamp: isoOf(nowMs), data: transaction });
  const quote = {
    ...q,
    status: "PENDING_AUTHORIZATION",
    scaChallenge: {
      id: challengeId,
      expiresAt: isoOf(expiresAt),
      factor,
      availableFactors: passkey === void 0 ? ["SMS_OTP"] : ["SMS_OTP", "PASSKEY"],
      purpose: "TRANSFER",
      ...webauthnChallenge === void 0 ? {} : {
        passkeyAssertionOptions: {
          challenge: webauthnChallenge,
          rpId: rp.rpId,
          allowCredentials: [{ type: "public-key", id: passkey?.credentialId ?? "" }],
          timeout: AUTHORIZATION_TTL_MS,
          userVerification: "preferred"
        }
      }
    }
  };
  yield* uow.putQuote({
    ...rec,
    quote,
    authorization: { id: challengeId, factor, code, webauthnChallenge, expiresAt, wrongCodes: 0, sends: factor === "SMS_OTP" ? [nowMs] : [] }
  });
  yield* runDueSteps(uow, platform, record, { fresh: true });
  return quote;
});
var outgoingTransactionOf = (q, plan, nowMs, status, settlement) => {
  const now = isoOf(nowMs);
  const t = {
    id: q.transactionId,
    type: "OUTGOING",
    // Money into the customer's own internal account from outside it (a pull) credits it.
    direction: plan.destination.kind === "INTERNAL" && plan.source.kind !== "INTERNAL" ? "CREDIT" : "DEBIT",
    status,
    source: sourceOf(q, plan),
    destination: destinationOf(q, plan)
  };
  if (plan.customerId !== null) t.customerId = plan.customerId;
  if (plan.platformCustomerId !== void 0) t.platformCustomerId = plan.platformCustomerId;
  t.sentAmount = { amount: q.totalSendingAmount, currency: q.sendingCurrency };
  t.receivedAmount = { amount: q.totalReceivingAmount, currency: q.receivingCurrency };
  t.exchangeRate = q.exchangeRate;
  t.fees = q.feesIncluded;
  t.platformFees = plan.platformFee;
  t.quoteId = q.id;
  if (plan.description !== void 0) t.description = plan.description;
  const colon = q.transactionId.indexOf(":");
  t.reconciliationInstructions = { reference: `REF-${q.transactionId.slice(colon + 1, colon + 9).toUpperCase()}` };
  if (plan.rail !== void 0) t.paymentRail = plan.rail;
  if (plan.railSelectionMode !== void 0) t.railSelectionMode = plan.railSelectionMode;
  if (settlement !== void 0) t.expectedSettlementAt = isoOf(Math.max(settlement, nowMs));
  if (plan.outcome === "UMA_pending.long.usd") t.pendingReason = "COMPLIANCE_REVIEW";
  t.createdAt = now;
  t.updatedAt = now;
  return t;
};
var startPayment = Effect17.fnUntraced(function* (uow, platform, rec, nowMs, createdAt, holdForApproval) {
  const store = yield* Store;
  const q = rec.quote;
  const plan = rec.plan;
  const config = yield* configIn(store, platform);
  if (plan.source.kind === "INTERNAL") {
    const balance = yield* balanceIn(store, platform.id, plan.source.accountId);
    if (balance < q.totalSendingAmount) return yield* insufficient(plan.source.accountId, balance, q.totalSendingAmount);
  }
  yield* checkLimits(platform, config, {
    customerId: plan.customerId,
    sending: q.sendingCurrency.code,
    receiving: q.receivingCurrency.code,
    amount: q.totalSendingAmount,
    receivingAmount: q.totalReceivingAmount,
    rail: plan.rail,
    createdAtMillis: createdAt === void 0 ? void 0 : Date.parse(createdAt)
  }, store);
  let onChainNetwork;
  if (plan.destination.kind === "EXTERNAL") {
    const dest = yield* store.externalAccounts.get(platform.id, plan.destination.accountId);
    if (dest === void 0) return yield* badRequest("INVALID_INPUT", `The quote cannot be executed: its destination account ${plan.destination.accountId} no longer exists`);
    yield* checkDestinationAccount(dest, q.totalReceivingAmount, q.receivingCurrency.code);
    onChainNetwork = WALLET_NETWORKS[dest.account.accountInfo.accountType];
  }
  const now = isoOf(nowMs);
  const steps = (plan.steps ?? []).map((s) => ({ at: nowMs + s.afterMillis, move: s.move }));
  const settlement = plan.rail === void 0 ? void 0 : settlementAt(plan.rail, nowMs, platform.settings.sandbox);
  const timed = holdForApproval === true ? steps : holdUntilSettlement(steps, settlement);
  const shown = outgoingTransactionOf(q, plan, nowMs, "PENDING", settlement);
  const transaction = createdAt === void 0 ? shown : { ...shown, createdAt };
  const planned = paymentPlanOf(q, plan, timed);
  const payment = onChainNetwork === void 0 && plan.destination.kind !== "UMA" ? planned : {
    ...planned,
    ...onChainNetwork === void 0 ? {} : { onChainNetwork },
    ...plan.destination.kind === "UMA" ? { umaSettlement: true } : {}
  };
  const record = { platformId: platform.id, transaction, plan: payment };
  const scope = paymentScope(rec);
  yield* postMove(uow, platform.id, transaction.id, payment, "DEBIT", now).pipe(
    Effect17.catchTag("LedgerRejected", () => insufficient(payment.debit.account, 0, payment.debit.amount))
  );
  yield* announceBalances(uow, platform, payment, ["DEBIT"], now, scope);
  const processed = yield* movePayment(uow, platform, record, {
    type: "PROCESS",
    ...holdForApproval === true ? { awaitingPlatformApproval: true } : {}
  }, scope);
  if (holdForApproval === true) yield* uow.putTransaction(processed);
  else yield* runDueSteps(uow, platform, processed, { scope, fresh: createdAt === void 0 });
  const after = yield* flushQuote(uow, scope);
  return after?.quote ?? q;
});

// src/server/services.ts
import { readFileSync as readFileSync2 } from "node:fs";
import { Layer as Layer9 } from "effect";

// src/adapters/memory/index.ts
import { Layer as Layer5 } from "effect";

// src/adapters/memory/ids.ts
import { createHash as createHash3, randomFillSync, randomUUID } from "node:crypto";
import { Effect as Effect18, Layer } from "effect";
var flatString = (s) => {
  if (s.length > FLAT_SCRATCH.length) return Buffer.from(s, "latin1").toString("latin1");
  return FLAT_SCRATCH.toString("latin1", 0, FLAT_SCRATCH.write(s, 0, "latin1"));
};
var FLAT_SCRATCH = Buffer.alloc(256);
var sources = /* @__PURE__ */ new WeakMap();
var idsOf = (source) => {
  const ids = Ids.of({
    make: (prefix) => Effect18.sync(() => source.make(prefix)),
    uuid: Effect18.sync(source.uuid)
  });
  sources.set(ids, source);
  return ids;
};
var randomSource2 = () => {
  const POOL = 16 * 256;
  let pool = Buffer.alloc(0);
  let at = 0;
  const HEX2 = Buffer.from("0123456789abcdef", "latin1");
  const out = Buffer.alloc(256);
  const writeUuid = (o) => {
    if (at + 16 > pool.length) {
      pool = randomFillSync(Buffer.allocUnsafe(POOL));
      at = 0;
    }
    for (let i = 0; i < 16; i++) {
      let b = pool[at + i];
      if (i === 6) b = b & 15 | 64;
      else if (i === 8) b = b & 63 | 128;
      out[o++] = HEX2[b >> 4];
      out[o++] = HEX2[b & 15];
      if (i === 3 || i === 5 || i === 7 || i === 9) out[o++] = 45;
    }
    at += 16;
    return o;
  };
  return {
    make: (prefix) => {
      if (prefix.length > 128) return flatString(`${prefix}:${randomUUID()}`);
      const n = out.write(prefix, 0, "latin1");
      out[n] = 58;
      return out.toString("latin1", 0, writeUuid(n + 1));
    },
    uuid: () => out.toString("latin1", 0, writeUuid(0))
  };
};
var randomIds = idsOf(randomSource2());
var uuidStream = (words) => {
  let a = words[0] >>> 0 || 2654435769;
  let b = words[1] >>> 0;
  let c = words[2] >>> 0;
  let d = words[3] >>> 0;
  const next = () => {
    const t = a ^ a << 11;
    a = b;
    b = c;
    c = d;
    d = (d ^ d >>> 19 ^ (t ^ t >>> 8)) >>> 0;
    return d;
  };
  return () => {
    const hex = [next(), next(), next(), next()].map((w) => w.toString(16).padStart(8, "0")).join("");
    const variant = (parseInt(hex.charAt(16), 16) & 3 | 8).toString(16);
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  };
};
var seededUuid = (seed) => uuidStream([seed, 608135816, 2242054355, 320440878]);
var streamSource = (next) => ({
  make: (prefix) => flatString(`${prefix}:${next()}`),
  uuid: () => flatString(next())
});
var streamIds = (next) => idsOf(streamSource(next));
var platformUuid = (seed, platformId) => {
  const digest = createHash3("sha256").update(`${seed}:${platformId}`).digest();
  return uuidStream([digest.readUInt32BE(0), digest.readUInt32BE(4), digest.readUInt32BE(8), digest.readUInt32BE(12) || 320440878]);
};
var perPlatformIds = (shared2) => {
  const streams = /* @__PURE__ */ new Map();
  const streamOf = (p) => {
    const key = `${p.seed}:${p.platformId}`;
    let ids = streams.get(key);
    if (ids === void 0) streams.set(key, ids = streamSource(platformUuid(p.seed, p.platformId)));
    return ids;
  };
  const source = sources.get(shared2);
  if (source === void 0) {
    return Ids.of({
      make: (prefix) => DeterministicPlatform.use((p) => p === void 0 ? shared2.make(prefix) : Effect18.sync(() => streamOf(p).make(prefix))),
      uuid: DeterministicPlatform.use((p) => p === void 0 ? shared2.uuid : Effect18.sync(() => streamOf(p).uuid()))
    });
  }
  return Ids.of({
    make: (prefix) => Effect18.withFiberSucceed((fiber) => {
      const p = fiber.getRef(DeterministicPlatform);
      return p === void 0 ? source.make(prefix) : streamOf(p).make(prefix);
    }),
    uuid: Effect18.withFiberSucceed((fiber) => {
      const p = fiber.getRef(DeterministicPlatform);
      return p === void 0 ? source.uuid() : streamOf(p).uuid();
    })
  });
};
var seededIds = (seed) => streamIds(seededUuid(seed));
var RandomIdsLayer = Layer.sync(Ids, () => perPlatformIds(randomIds));
var seededIdsLayer = (seed) => Layer.sync(Ids, () => perPlatformIds(seededIds(seed)));

// src/adapters/memory/platforms.ts
import { Effect as Effect19, Layer as Layer2 } from "effect";

// src/ports/platforms.ts
import { Context as Context6 } from "effect";
var Platforms = class extends Context6.Service()("payments-service/ports/Platforms") {
};

// src/adapters/memory/platforms.ts
var staticPlatforms = (platforms) => {
  const byClientId = new Map(platforms.map((p) => [p.clientId, p]));
  return Platforms.of({
    byClientId: (clientId) => Effect19.sync(() => byClientId.get(clientId)),
    all: Effect19.succeed(platforms)
  });
};
var staticPlatformsLayer = (platforms) => Layer2.succeed(Platforms, staticPlatforms(platforms));

// src/adapters/memory/store.ts
import { Context as Context8, Effect as Effect36, Fiber, Layer as Layer3 } from "effect";

// src/adapters/level.ts
import { Context as Context7, Effect as Effect20 } from "effect";
var CurrentLevel = Context7.Reference("payments-service/adapters/CurrentLevel", {
  defaultValue: () => void 0
});
var conflictIn = (constraint) => Effect20.andThen(
  CurrentLevel.useSync((level) => {
    if (level !== void 0) level.conflicted = true;
  }),
  Effect20.fail(new StoreConflict({ constraint }))
);
var ledgerRejectedIn = (reason, account) => Effect20.andThen(
  CurrentLevel.useSync((level) => {
    if (level !== void 0) level.conflicted = true;
  }),
  Effect20.fail(new LedgerRejected({ reason, account }))
);
var asLevel = (effect) => Effect20.suspend(() => {
  const state = { conflicted: false };
  return effect.pipe(
    Effect20.provideService(CurrentLevel, state),
    Effect20.flatMap(
      (a) => state.conflicted ? Effect20.die(
        new Error("A StoreConflict was caught inside the unit of work that raised it, which then tried to commit; catch it outside store.transact")
      ) : Effect20.succeed(a)
    )
  );
});

// src/adapters/memory/agents.ts
import { Effect as Effect21 } from "effect";

// src/adapters/cursor.ts
var encodeCursor = (key) => Buffer.from(`k1:${key.createdAt}:${key.id}`, "utf8").toString("base64url");
var decodeCursor = (cursor) => {
  if (cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) {
    return new InvalidCursor({ cursor });
  }
  const m = /^k1:(\d{1,15}):([\x21-\x7e]{1,200})$/.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  if (m === null) return new InvalidCursor({ cursor });
  return { createdAt: Number(m[1]), id: m[2] ?? "" };
};
var millisOf2 = (iso) => {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? 0 : ms;
};

// src/adapters/memory/table.ts
var rowsExamined = { count: 0 };
var compareKeys = (a, b) => a.createdAt !== b.createdAt ? a.createdAt - b.createdAt : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
var MemoryTable = class _MemoryTable {
  constructor(def) {
    this.def = def;
    this.uniques = (def.unique ?? []).map((u) => ({ ...u, map: /* @__PURE__ */ new Map() }));
    this.groups = (def.groups ?? []).map((g) => ({ ...g, map: /* @__PURE__ */ new Map() }));
  }
  def;
  rows = /* @__PURE__ */ new Map();
  /** Keys sorted by (createdAt, id). Rows mostly arrive in order, so inserts land at the end. */
  order = [];
  uniques;
  /** Each row's sort key, computed once (createdAt may be parsed from ISO text). */
  keys = /* @__PURE__ */ new Map();
  groups;
  /**
   * An independent copy (a sandbox snapshot's): its own indexes, the same row objects
   * (records are immutable values: a write puts a new one).
   */
  clone() {
    const copy = new _MemoryTable(this.def);
    for (const [id, r] of this.rows) copy.rows.set(id, r);
    for (const [id, k] of this.keys) copy.keys.set(id, k);
    for (const k of this.order) copy.order.push(k);
    this.uniques.forEach((u, i) => {
      for (const [key, id] of u.map) copy.uniques[i].map.set(key, id);
    });
    this.groups.forEach((g, i) => {
      for (const [key, members] of g.map) copy.groups[i].map.set(key, Array.isArray(members) ? members.slice() : members);
    });
    return copy;
  }
  get size() {
    return this.rows.size;
  }
  get(id) {
    return this.rows.get(id);
  }
  /** The constraint `r` would break if written, if any. */
  conflictOf(r) {
    const id = this.def.id(r);
    for (const u of this.uniques) {
      const key = u.key(r);
      if (key === void 0) continue;
      const holder = u.map.get(key);
      if (holder !== void 0 && holder !== id) return u.name;
    }
    return void 0;
  }
  byUnique(name, key) {
    const id = this.uniques.find((u) => u.name === name)?.map.get(key);
    return id === void 0 ? void 0 : this.rows.get(id);
  }
  /** The rows of one group, oldest first (kept in order: no sort). */
  byGroup(name, key) {
    const keys = this.groupKeys(name, key);
    const out = [];
    for (const k of keys) {
      const r = this.rows.get(k.id);
      if (r !== void 0) out.push(r);
    }
    rowsExamined.count += out.length;
    return out;
  }
  /** The rows of one group created at or after `since` (epoch ms), newest first: reads those rows only. */
  groupSince(name, key, since) {
    const keys = this.groupKeys(name, key);
    const out = [];
    for (let i = keys.length - 1; i >= 0; i--) {
      const k = keys[i];
      if (k.createdAt < since) break;
      const r = this.rows.get(k.id);
      if (r !== void 0) out.push(r);
    }
    rowsExamined.count += out.length + 1;
    return out;
  }
  /** How many rows one group holds. */
  groupSize(name, key) {
    return this.groupKeys(name, key).length;
  }
  /** Writes `r` (the caller checked `conflictOf`); returns the row it replaced. */
  put(r) {
    const id = this.def.id(r);
    const previous = this.rows.get(id);
    if (previous !== void 0) {
      this.rows.set(id, r);
      this.reindex(previous, r);
      return previous;
    }
    const key = { createdAt: this.def.createdAt(r), id };
    this.keys.set(id, key);
    insertSorted(this.order, key);
    this.rows.set(id, r);
    this.index(r, key);
    return previous;
  }
  /**
   * Moves a rewritten row between the index entries whose keys changed, and leaves the
   * others alone (a payment rewritten several times in one request mostly keeps its
   * groups; its sort key never changes).
   */
  reindex(previous, r) {
    const id = this.def.id(r);
    for (const u of this.uniques) {
      const before = u.key(previous);
      const after = u.key(r);
      if (before !== void 0 && before !== after && u.map.get(before) === id) u.map.delete(before);
      if (after !== void 0) u.map.set(after, id);
    }
    if (this.groups.length === 0) return;
    const sortKey = this.keyOf(r);
    for (const g of this.groups) {
      const before = keysOf(g.key(previous));
      const after = keysOf(g.key(r));
      for (const key of before) if (!after.includes(key)) removeMember(g.map, key, sortKey);
      for (const key of after) if (!before.includes(key)) addMember(g.map, key, sortKey);
    }
  }
  /** Removes the row; returns it. */
  remove(id) {
    const previous = this.rows.get(id);
    if (previous === void 0) return void 0;
    this.unindex(previous);
    this.rows.delete(id);
    const key = this.keyOf(previous);
    this.keys.delete(id);
    removeSorted(this.order, key);
    return previous;
  }
  /**
   * Removes these rows; returns those removed. The order is walked only up to the last
   * removed key (found by binary search), and the rest of it moves once, by one `splice`:
   * a sweep removes the oldest rows, a prefix, so a batch costs the prefix, not one
   * lookup per row of the table (nor one splice per row, which is quadratic).
   */
  removeAll(ids) {
    const removed = [];
    const gone2 = /* @__PURE__ */ new Set();
    let last = -1;
    for (const id of ids) {
      const previous = this.rows.get(id);
      if (previous === void 0) continue;
      const at = search(this.order, this.keyOf(previous));
      if (at > last) last = at;
      this.unindex(previous);
      this.rows.delete(id);
      this.keys.delete(id);
      gone2.add(id);
      removed.push(previous);
    }
    if (gone2.size > 0) {
      const end = Math.min(last, this.order.length - 1);
      let w = 0;
      for (let i = 0; i <= end; i++) {
        const key = this.order[i];
        if (!gone2.has(key.id)) this.order[w++] = key;
      }
      this.order.splice(w, end + 1 - w);
    }
    return removed;
  }
  /**
   * One page of the rows matching `filter`, keyset on (createdAt, id). `countAll`
   * says the filter keeps every row, so the total is the table's size.
   */
  page(filter, page, countAll) {
    return this.pageOver(this.order, filter, page, countAll);
  }
  /**
   * One page of the rows of group `name` under `key` that match `filter` (which need
   * not repeat the group's own condition): reads the group's ordered members only, so
   * the work follows the group, not the table. `exact` says `filter` keeps every member,
   * so the total is the group's size.
   */
  pageGroup(name, key, filter, page, exact) {
    return this.pageOver(this.groupKeys(name, key), filter, page, exact);
  }
  pageOver(order, filter, page, countAll) {
    const descending = page.descending === true;
    let start = descending ? order.length - 1 : 0;
    if (page.cursor !== void 0) {
      const after = decodeCursor(page.cursor);
      if (typeof after !== "object" || !("createdAt" in after)) return after;
      const at = search(order, after);
      if (descending) start = at - 1;
      else {
        start = at;
        const found = order[start];
        if (found !== void 0 && compareKeys(found, after) === 0) start++;
      }
    }
    const data = [];
    let hasMore = false;
    let examined = 0;
    const step = descending ? -1 : 1;
    for (let i = start; i >= 0 && i < order.length; i += step) {
      const key = order[i];
      const r = key === void 0 ? void 0 : this.rows.get(key.id);
      examined++;
      if (r === void 0 || !filter(r)) continue;
      if (data.length === page.limit) {
        hasMore = true;
        break;
      }
      data.push(r);
    }
    let totalCount = order.length;
    if (!countAll) {
      totalCount = 0;
      for (const key of order) {
        examined++;
        const r = this.rows.get(key.id);
        if (r !== void 0 && filter(r) && ++totalCount > TOTAL_COUNT_LIMIT) break;
      }
    }
    rowsExamined.count += examined;
    const last = data[data.length - 1];
    return hasMore && last !== void 0 ? { data, hasMore, nextCursor: encodeCursor(this.keyOf(last)), ...totalCountOf(totalCount) } : { data, hasMore, ...totalCountOf(totalCount) };
  }
  /** The row first in (createdAt, id) order. */
  first() {
    rowsExamined.count++;
    const key = this.order[0];
    return key === void 0 ? void 0 : this.rows.get(key.id);
  }
  /** Every row in (createdAt, id) order. */
  ordered() {
    const out = [];
    for (const key of this.order) {
      const r = this.rows.get(key.id);
      if (r !== void 0) out.push(r);
    }
    return out;
  }
  *values() {
    yield* this.rows.values();
  }
  keyOf(r) {
    const id = this.def.id(r);
    return this.keys.get(id) ?? { createdAt: this.def.createdAt(r), id };
  }
  groupKeys(name, key) {
    const members = this.groups.find((g) => g.name === name)?.map.get(key);
    return members === void 0 ? NO_MEMBERS : Array.isArray(members) ? members : [members];
  }
  index(r, sortKey = this.keyOf(r)) {
    const id = sortKey.id;
    for (const u of this.uniques) {
      const key = u.key(r);
      if (key !== void 0) u.map.set(key, id);
    }
    for (const g of this.groups) {
      const key = g.key(r);
      if (key === void 0) continue;
      if (typeof key === "string") addMember(g.map, key, sortKey);
      else for (const k of key) addMember(g.map, k, sortKey);
    }
  }
  unindex(r) {
    const id = this.def.id(r);
    for (const u of this.uniques) {
      const key = u.key(r);
      if (key !== void 0 && u.map.get(key) === id) u.map.delete(key);
    }
    if (this.groups.length === 0) return;
    const sortKey = this.keyOf(r);
    for (const g of this.groups) for (const key of keysOf(g.key(r))) removeMember(g.map, key, sortKey);
  }
};
var NO_KEYS = [];
var NO_MEMBERS = [];
var addMember = (map, key, sortKey) => {
  const members = map.get(key);
  if (members === void 0) map.set(key, sortKey);
  else if (Array.isArray(members)) insertSorted(members, sortKey);
  else {
    const c = compareKeys(members, sortKey);
    if (c !== 0) map.set(key, c < 0 ? [members, sortKey] : [sortKey, members]);
  }
};
var removeMember = (map, key, sortKey) => {
  const members = map.get(key);
  if (members === void 0) return;
  if (!Array.isArray(members)) {
    if (compareKeys(members, sortKey) === 0) map.delete(key);
    return;
  }
  removeSorted(members, sortKey);
  if (members.length === 1) map.set(key, members[0]);
  else if (members.length === 0) map.delete(key);
};
var keysOf = (k) => k === void 0 ? NO_KEYS : typeof k === "string" ? [k] : k;
var search = (order, key) => {
  let lo = 0;
  let hi = order.length;
  while (lo < hi) {
    const mid = lo + hi >>> 1;
    const probe = order[mid];
    if (probe !== void 0 && compareKeys(probe, key) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
};
var NEAR_END = 8;
var insertSorted = (order, key) => {
  const n = order.length;
  const last = order[n - 1];
  if (last === void 0 || compareKeys(last, key) < 0) {
    order.push(key);
    return;
  }
  let at = n - 1;
  const stop = Math.max(0, n - NEAR_END);
  while (at > stop && compareKeys(order[at - 1], key) >= 0) at--;
  if (at === stop && at > 0) at = search(order, key);
  const found = order[at];
  if (found !== void 0 && compareKeys(found, key) === 0) return;
  if (n - at > NEAR_END) {
    order.splice(at, 0, key);
    return;
  }
  order.push(last);
  for (let i = n - 1; i > at; i--) order[i] = order[i - 1];
  order[at] = key;
};
var removeSorted = (order, key) => {
  const at = search(order, key);
  const found = order[at];
  if (found !== void 0 && compareKeys(found, key) === 0) order.splice(at, 1);
};

// src/adapters/memory/context.ts
var keyOf = (...parts) => {
  let key = parts[0] ?? "";
  for (let i = 1; i < parts.length; i++) key += "\0" + (parts[i] ?? "");
  return key;
};
var inRange = (ms, range) => range === void 0 || (range.from === void 0 || ms >= range.from) && (range.to === void 0 || ms <= range.to);
var noFilter = (query2) => Object.values(query2).every(
  (v) => v === void 0 || typeof v === "object" && v !== null && !Array.isArray(v) && Object.values(v).every((x) => x === void 0)
);
var is = (wanted, actual) => wanted === void 0 || wanted === actual;
var entityTable = (entity, indexes = {}) => new MemoryTable({ id: (r) => entity(r).id, createdAt: (r) => millisOfShared(entity(r).createdAt), ...indexes });
var lastIso = "";
var lastMillis = 0;
var millisOfShared = (iso) => {
  if (iso !== lastIso) {
    lastMillis = millisOf2(iso);
    lastIso = iso;
  }
  return lastMillis;
};

// src/adapters/memory/agents.ts
var agentTables = () => ({
  agents: entityTable((r) => r),
  agentActions: entityTable((r) => r),
  agentKeys: new MemoryTable({
    id: (r) => keyOf(r.kind, r.id),
    createdAt: (r) => millisOf2(r.createdAt),
    groups: [{ name: "agent", key: (r) => r.kind === "deviceCode" || r.kind === "token" ? keyOf(r.kind, r.agentId) : void 0 }]
  })
});
var agentTableOf = (t, kind) => kind === "agent" ? t.agents : kind === "action" ? t.agentActions : t.agentKeys;
var agentRowId = (kind, id) => kind === "agent" || kind === "action" ? id : keyOf(kind, id);
var matchesAgent = (q) => (r) => is(q.customerId, r.customerId) && is(q.isPaused, r.isPaused) && is(q.isConnected, r.isConnected) && inRange(millisOf2(r.createdAt), q.created) && inRange(millisOf2(r.updatedAt), q.updated);
var matchesAgentAction = (q) => (r) => is(q.agentId, r.agentId) && is(q.customerId, r.customerId) && is(q.status, r.action.status) && inRange(millisOf2(r.createdAt), q.created);
var makeAgentArea = (m) => ({
  repositories: {
    agents: {
      get: (platformId, kind, id) => m.read(() => {
        const t = m.peek(platformId);
        return t === void 0 ? void 0 : agentTableOf(t, kind).get(agentRowId(kind, id));
      }),
      find: (kind, id) => m.read(() => {
        for (const t of m.tenants()) {
          const r = t.agentKeys.get(keyOf(kind, id));
          if (r !== void 0) return r;
        }
        return void 0;
      }),
      ofAgent: (platformId, kind, agentId) => m.read(() => m.peek(platformId)?.agentKeys.byGroup("agent", keyOf(kind, agentId)) ?? []),
      list: (platformId, query2, page) => m.readPage(() => m.tenantOf(platformId).agents.page(matchesAgent(query2), page, false)),
      listActions: (platformId, query2, page) => m.readPage(() => m.tenantOf(platformId).agentActions.page(matchesAgentAction(query2), page, false))
    }
  },
  writes: {
    putAgentRecord: (r) => Effect21.orDie(m.putRow(agentTableOf(m.tenantOf(r.platformId), r.kind), agentRowId(r.kind, r.id), r)),
    deleteAgentRecord: (platformId, kind, id) => m.removeRow(agentTableOf(m.tenantOf(platformId), kind), agentRowId(kind, id))
  }
});

// src/adapters/memory/cards.ts
import { Effect as Effect22 } from "effect";
var cardTables = () => ({
  cards: entityTable((r) => r.card, {
    unique: [{ name: UniqueConstraints.cardsPlatformCardId, key: (r) => r.card.platformCardId }],
    // The slot rule counts live cards, of the platform and of one cardholder.
    groups: [
      { name: "live", key: (r) => r.card.state === "CLOSED" ? void 0 : "" },
      { name: "liveByHolder", key: (r) => r.card.state === "CLOSED" ? void 0 : r.card.cardholderId }
    ]
  }),
  cardTransactions: entityTable((r) => r.transaction, {
    groups: [{ name: "card", key: (r) => r.transaction.cardId }]
  })
});
var matchesCard = (q) => (r) => is(q.cardholderId, r.card.cardholderId) && (q.accountId === void 0 || r.card.fundingSources.includes(q.accountId)) && is(q.platformCardId, r.card.platformCardId) && is(q.state, r.card.state);
var matchesCardTransaction = (q) => (r) => is(q.cardId, r.transaction.cardId) && is(q.customerId, r.transaction.customerId) && is(q.platformCustomerId, r.transaction.platformCustomerId) && is(q.accountId, r.transaction.accountId) && is(q.direction, r.transaction.direction) && inRange(millisOf2(r.transaction.createdAt), q.created);
var makeCardArea = (m) => ({
  repositories: {
    cards: {
      get: (platformId, id) => m.read(() => m.peek(platformId)?.cards.get(id)),
      findByPlatformCardId: (platformId, platformCardId) => m.read(() => m.peek(platformId)?.cards.byUnique(UniqueConstraints.cardsPlatformCardId, platformCardId)),
      list: (platformId, query2, page) => m.readPage(() => m.tenantOf(platformId).cards.page(matchesCard(query2), page, noFilter(query2))),
      countLive: (platformId, cardholderId) => m.read(() => {
        const cards = m.peek(platformId)?.cards;
        if (cards === void 0) return 0;
        return cardholderId === void 0 ? cards.groupSize("live", "") : cards.groupSize("liveByHolder", cardholderId);
      })
    },
    cardTransactions: {
      get: (platformId, id) => m.read(() => m.peek(platformId)?.cardTransactions.get(id)),
      list: (platformId, query2, page) => m.readPage(() => m.tenantOf(platformId).cardTransactions.page(matchesCardTransaction(query2), page, noFilter(query2)))
    }
  },
  writes: {
    putCard: (r) => m.putRow(m.tenantOf(r.platformId).cards, r.card.id, r),
    putCardTransaction: (r) => Effect22.orDie(m.putRow(m.tenantOf(r.platformId).cardTransactions, r.transaction.id, r))
  }
});

// src/adapters/memory/customers.ts
var customerTables = () => ({
  customers: entityTable((r) => r.customer, {
    unique: [
      {
        name: UniqueConstraints.customersActivePlatformCustomerId,
        key: (r) => r.deletedAt === void 0 ? r.customer.platformCustomerId : void 0
      },
      {
        name: UniqueConstraints.customersActiveUmaAddress,
        key: (r) => r.deletedAt === void 0 ? r.customer.umaAddress?.toLowerCase() : void 0
      }
    ],
    groups: [{ name: "active", key: (r) => r.deletedAt === void 0 ? "" : void 0 }]
  }),
  externalAccounts: entityTable((r) => r.account, {
    unique: [
      { name: UniqueConstraints.externalAccountsEquivalence, key: (r) => r.equivalenceKey },
      {
        name: UniqueConstraints.externalAccountsDefaultUma,
        key: (r) => r.account.customerId !== null && r.account.defaultUmaDepositAccount ? r.account.customerId : void 0
      }
    ],
    // By owner: one customer's accounts, or all customers' / the platform's.
    groups: [
      { name: "customer", key: (r) => r.account.customerId ?? void 0 },
      { name: "owner", key: (r) => r.account.customerId === null ? "platform" : "customer" }
    ]
  })
});
var matchesCustomer = (q) => (r) => (q.includeDeleted === true || r.deletedAt === void 0) && is(q.platformCustomerId, r.customer.platformCustomerId) && is(q.customerType, r.customer.customerType) && inRange(millisOf2(r.customer.createdAt), q.created) && inRange(millisOf2(r.customer.updatedAt), q.updated) && is(q.region, r.customer.region) && (q.currency === void 0 || (r.customer.currencies ?? []).includes(q.currency)) && is(q.umaAddress, r.customer.umaAddress);
var keepsAll = (q) => q.includeDeleted === true && noFilter({ ...q, includeDeleted: void 0 });
var matchesAccount = (q) => (r) => (q.owner === "platform" ? r.account.customerId === null : r.account.customerId !== null) && is(q.customerId, r.account.customerId) && is(q.currency, r.account.currency);
var makeCustomerArea = (m) => ({
  repositories: {
    customers: {
      get: (platformId, id) => m.read(() => m.peek(platformId)?.customers.get(id)),
      findActiveByPlatformCustomerId: (platformId, pcid) => m.read(() => m.peek(platformId)?.customers.byUnique(UniqueConstraints.customersActivePlatformCustomerId, pcid)),
      findActiveByUmaAddress: (platformId, umaAddress) => m.read(() => m.peek(platformId)?.customers.byUnique(UniqueConstraints.customersActiveUmaAddress, umaAddress.toLowerCase())),
      list: (platformId, query2, page) => m.readPage(() => {
        const table = m.tenantOf(platformId).customers;
        if (query2.includeDeleted === true) return table.page(matchesCustomer(query2), page, keepsAll(query2));
        return table.pageGroup("active", "", matchesCustomer(query2), page, noFilter({ ...query2, includeDeleted: void 0 }));
      })
    },
    externalAccounts: {
      get: (platformId, id) => m.read(() => m.peek(platformId)?.externalAccounts.get(id)),
      findByEquivalenceKey: (platformId, key) => m.read(() => m.peek(platformId)?.externalAccounts.byUnique(UniqueConstraints.externalAccountsEquivalence, key)),
      findDefaultUmaDeposit: (platformId, customerId) => m.read(() => m.peek(platformId)?.externalAccounts.byUnique(UniqueConstraints.externalAccountsDefaultUma, customerId)),
      list: (platformId, query2, page) => m.readPage(() => {
        const table = m.tenantOf(platformId).externalAccounts;
        const filter = matchesAccount(query2);
        if (query2.customerId !== void 0) return table.pageGroup("customer", query2.customerId, filter, page, false);
        return table.pageGroup("owner", query2.owner, filter, page, query2.currency === void 0);
      })
    }
  },
  writes: {
    putCustomer: (r) => m.putRow(m.tenantOf(r.platformId).customers, r.customer.id, r),
    putExternalAccount: (r) => m.putRow(m.tenantOf(r.platformId).externalAccounts, r.account.id, r),
    deleteExternalAccount: (platformId, id) => m.removeRow(m.tenantOf(platformId).externalAccounts, id)
  }
});

// src/adapters/memory/events.ts
import { Effect as Effect23 } from "effect";

// src/adapters/memory/compact.ts
var trimArrays = (value, canon, previous) => {
  trim(value, previous, 0, canon);
  return value;
};
var instants = new BoundedMemo(1024);
var lastInstant = "";
var isInstant = (s) => s.length === 24 && s.charCodeAt(10) === 84 && s.charCodeAt(23) === 90 && s.charCodeAt(4) === 45;
var sharedInstant = (s) => {
  if (s === lastInstant) return lastInstant;
  if (!isInstant(s)) return s;
  let shared2 = instants.get(s);
  if (shared2 === void 0) {
    shared2 = flatString(s);
    instants.set(shared2, shared2);
  }
  lastInstant = shared2;
  return shared2;
};
var MAX_DEPTH2 = 8;
var isPlain = (v) => {
  const proto = Object.getPrototypeOf(v);
  return (proto === Object.prototype || proto === null) && !Object.isFrozen(v);
};
var shared = /* @__PURE__ */ new Set();
var SHARED_CURRENCIES_LIMIT = 4096;
var currencies = /* @__PURE__ */ new Map();
var currencyOf2 = (v, keys) => {
  if (keys.length !== 4 || keys[0] !== "code" || keys[1] !== "name" || keys[2] !== "symbol" || keys[3] !== "decimals") return void 0;
  const c = v;
  if (typeof c["decimals"] !== "number" || typeof c["code"] !== "string" || typeof c["name"] !== "string" || typeof c["symbol"] !== "string") {
    return void 0;
  }
  const key = `${c["code"]}\0${c["name"]}\0${c["symbol"]}\0${c["decimals"]}`;
  const found = currencies.get(key);
  if (found !== void 0) return found;
  if (currencies.size < SHARED_CURRENCIES_LIMIT) {
    currencies.set(key, v);
    shared.add(v);
  }
  return v;
};
var SHARED_REFERENCES_LIMIT = 4096;
var references = /* @__PURE__ */ new Map();
var referenceCount = 0;
var sameReference = (c, cKeys, o, keys) => {
  if (cKeys.length !== keys.length) return false;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (cKeys[i] !== key || c[key] !== o[key]) return false;
  }
  return true;
};
var referenceOf = (v, keys) => {
  const o = v;
  const n = keys.length;
  if (n < 2 || n > 4) return void 0;
  let longest = "";
  for (let i = 0; i < n; i++) {
    const x = o[keys[i]];
    if (typeof x !== "string") return void 0;
    if (x.length > longest.length) longest = x;
  }
  const candidates = references.get(longest);
  if (candidates !== void 0) {
    for (const c of candidates) if (sameReference(c.ref, c.keys, o, keys)) return c.ref;
  }
  if (referenceCount >= SHARED_REFERENCES_LIMIT) {
    references = /* @__PURE__ */ new Map();
    referenceCount = 0;
    shared = new Set(currencies.values());
  }
  const entry = { ref: o, keys };
  const list = references.get(longest);
  if (list === void 0) references.set(longest, [entry]);
  else list.push(entry);
  referenceCount++;
  shared.add(o);
  return o;
};
var canonical = (s, canon) => {
  const c = s.charCodeAt(0);
  if (c >= 48 && c <= 57) return isInstant(s) ? sharedInstant(s) : void 0;
  return canon === void 0 ? void 0 : canon(s);
};
var trim = (v, previous, depth, canon) => {
  if (typeof v !== "object" || v === null || v === previous || depth > MAX_DEPTH2) return;
  if (Array.isArray(v)) {
    const before = Array.isArray(previous) ? previous : void 0;
    for (let i = 0; i < v.length; i++) trim(v[i], before?.[i], depth + 1, canon);
    return;
  }
  if (isPlain(v)) trimObject(v, Object.keys(v), previous, depth, canon);
};
var trimObject = (o, keys, previous, depth, canon) => {
  const p = typeof previous === "object" && previous !== null && !Array.isArray(previous) ? previous : void 0;
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k];
    const field = o[key];
    if (typeof field === "string") {
      if (p !== void 0 && p[key] === field) continue;
      const stored = canonical(field, canon);
      if (stored !== void 0) o[key] = stored;
      continue;
    }
    if (typeof field !== "object" || field === null) continue;
    if (p !== void 0 && p[key] === field || shared.has(field)) continue;
    if (Array.isArray(field)) {
      if (field.length > 0 && !Object.isFrozen(field)) o[key] = field.slice();
      const was = p?.[key];
      const before = Array.isArray(was) ? was : void 0;
      for (let i = 0; i < field.length; i++) trim(field[i], before?.[i], depth + 1, canon);
      continue;
    }
    if (!isPlain(field)) continue;
    const fieldKeys = Object.keys(field);
    const currency = currencyOf2(field, fieldKeys);
    if (currency !== void 0) {
      o[key] = currency;
      continue;
    }
    if (depth + 1 <= MAX_DEPTH2) trimObject(field, fieldKeys, p?.[key], depth + 1, canon);
    const reference = referenceOf(field, fieldKeys);
    if (reference !== void 0) o[key] = reference;
  }
};

// src/adapters/memory/events.ts
var CompactBalance = class {
  constructor(id, platformId, timestamp, base2, amount) {
    this.id = id;
    this.platformId = platformId;
    this.timestamp = timestamp;
    this.base = base2;
    this.amount = amount;
  }
  id;
  platformId;
  timestamp;
  base;
  amount;
};
var eventOf2 = (item) => {
  if (!(item instanceof CompactBalance)) return item;
  const base2 = item.base;
  const balance = { amount: item.amount, currency: base2.balance.currency };
  const data = {};
  for (const key of Object.keys(base2)) {
    data[key] = key === "balance" || key === "totalBalance" ? balance : base2[key];
  }
  return makeEvent("INTERNAL_ACCOUNT.BALANCE_UPDATED", { data, id: item.id, platformId: item.platformId, timestamp: item.timestamp });
};
var sameValue = (a, b, depth) => {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null || depth > 8) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameValue(a[i], b[i], depth + 1)) return false;
    return true;
  }
  if (Object.getPrototypeOf(a) !== Object.prototype || Object.getPrototypeOf(b) !== Object.prototype) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) {
    const k = ka[i];
    if (k !== kb[i] || !sameValue(a[k], b[k], depth + 1)) return false;
  }
  return true;
};
var isAmount = (v) => {
  if (typeof v !== "object" || v === null || Object.getPrototypeOf(v) !== Object.prototype) return false;
  const keys = Object.keys(v);
  return keys.length === 2 && keys[0] === "amount" && keys[1] === "currency" && typeof v.amount === "number";
};
var compactBalance = (event, base2) => {
  const data = event.data;
  const b = base2.data;
  const balance = data["balance"];
  if (data === b || !isAmount(balance) || data["totalBalance"] !== balance || b["totalBalance"] !== b["balance"]) return void 0;
  if (!sameValue(balance.currency, b["balance"].currency, 0)) return void 0;
  const keys = base2.keys;
  const own2 = Object.keys(data);
  if (own2.length !== keys.length) return void 0;
  for (let i = 0; i < own2.length; i++) {
    const k = own2[i];
    if (k !== keys[i]) return void 0;
    if (k !== "balance" && k !== "totalBalance" && !sameValue(data[k], b[k], 0)) return void 0;
  }
  return new CompactBalance(event.id, event.platformId, sharedInstant(event.timestamp), base2.data, balance.amount);
};
var BASES_LIMIT = 4096;
var eventTables = () => ({ events: [], eventSeqs: [], eventHead: 0 });
var outboxSweepWork = { count: 0 };
var firstAfter = (seqs, from, after) => {
  let lo = from;
  let hi = seqs.length;
  while (lo < hi) {
    const mid = lo + hi >>> 1;
    if (seqs[mid] <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
};
var COMPACT_MIN = 4096;
var compactOutbox = (t) => {
  const head = t.eventHead;
  if (head < COMPACT_MIN || head * 2 < t.events.length) return void 0;
  outboxSweepWork.count += t.events.length - head;
  const seqs = t.eventSeqs.splice(0, head);
  t.events.splice(0, head);
  t.eventHead = 0;
  return () => {
    const { events, eventSeqs } = t;
    const live2 = events.length;
    events.length = live2 + head;
    eventSeqs.length = live2 + head;
    for (let i = live2 - 1; i >= 0; i--) {
      events[i + head] = events[i];
      eventSeqs[i + head] = eventSeqs[i];
    }
    for (let i = 0; i < head; i++) {
      events[i] = void 0;
      eventSeqs[i] = seqs[i];
    }
    t.eventHead = head;
  };
};
var outboxEvent = (t, seq, id) => {
  const i = firstAfter(t.eventSeqs, t.eventHead, seq - 1);
  const event = t.events[i];
  return event !== void 0 && t.eventSeqs[i] === seq && event.id === id ? event : void 0;
};
var lastSeqOf = (t) => t.eventHead < t.eventSeqs.length ? t.eventSeqs.at(-1) : 0;
var makeEventArea = (m) => {
  let eventSeq = 0;
  const bases = new BoundedMemo(BASES_LIMIT);
  const itemOf = (event) => {
    if (event.type === "INTERNAL_ACCOUNT.BALANCE_UPDATED") {
      const base2 = bases.get(event.data.id);
      const compact = base2 === void 0 ? void 0 : compactBalance(event, base2);
      if (compact !== void 0) return compact;
      bases.set(event.data.id, { data: event.data, keys: Object.keys(event.data) });
    }
    ;
    event.timestamp = sharedInstant(event.timestamp);
    return event;
  };
  return {
    repositories: {
      events: {
        list: (platformId, options) => m.read(() => {
          const t = m.peek(platformId);
          if (t === void 0) return [];
          const limit = options?.limit ?? Number.POSITIVE_INFINITY;
          const from = firstAfter(t.eventSeqs, t.eventHead, options?.afterSeq ?? 0);
          const to = Math.min(t.events.length, from + limit);
          const out = [];
          for (let i = from; i < to; i++) out.push({ seq: t.eventSeqs[i], event: eventOf2(t.events[i]) });
          return out;
        })
      }
    },
    writes: {
      emit: (event) => Effect23.sync(() => {
        const t = m.tenantOf(event.platformId);
        t.events.push(itemOf(event));
        t.eventSeqs.push(++eventSeq);
        m.undo(() => {
          t.events.pop();
          t.eventSeqs.pop();
        });
      }),
      sweepEvents: (platformId, sweep) => Effect23.sync(() => {
        const t = m.peek(platformId);
        if (t === void 0) return 0;
        const uncompact = compactOutbox(t);
        if (uncompact !== void 0) m.undo(uncompact);
        const { events, eventSeqs } = t;
        const head = t.eventHead;
        let end = head;
        while (end < events.length && end - head < sweep.limit && eventSeqs[end] <= sweep.upToSeq) end++;
        outboxSweepWork.count += end - head;
        const gone2 = [];
        let removed = 0;
        for (let i = head; i < end; i++) {
          const goes = Date.parse(events[i].timestamp) < sweep.before;
          gone2.push(goes);
          if (goes) removed++;
        }
        if (removed === 0) return 0;
        const batch = events.slice(head, end);
        const batchSeqs = eventSeqs.slice(head, end);
        let to = end;
        for (let i = end - 1; i >= head; i--) {
          if (gone2[i - head]) continue;
          to--;
          events[to] = events[i];
          eventSeqs[to] = eventSeqs[i];
        }
        outboxSweepWork.count += end - to;
        for (let i = head; i < to; i++) events[i] = void 0;
        t.eventHead = to;
        m.undo(() => {
          for (let i = 0; i < batch.length; i++) {
            events[head + i] = batch[i];
            eventSeqs[head + i] = batchSeqs[i];
          }
          t.eventHead = head;
        });
        return removed;
      })
    }
  };
};

// src/adapters/memory/idempotency.ts
import { Effect as Effect24 } from "effect";
var IDEMPOTENCY_SWEEP_AT = 1e4;
var idempotencyTables = () => ({ idempotency: /* @__PURE__ */ new Map() });
var makeIdempotencyArea = (m) => ({
  repositories: {
    idempotency: {
      get: (platformId, key, now) => m.read(() => {
        const r = m.peek(platformId)?.idempotency.get(key);
        return r !== void 0 && r.expiresAt > now ? r : void 0;
      })
    }
  },
  writes: {
    putIdempotency: (record) => Effect24.sync(() => {
      const map = m.tenantOf(record.platformId).idempotency;
      const existing = map.get(record.key);
      if (existing !== void 0 && existing.expiresAt > record.createdAt) return existing;
      if (map.size > IDEMPOTENCY_SWEEP_AT) {
        for (const [key, r] of map) if (r.expiresAt <= record.createdAt) map.delete(key);
      }
      map.set(record.key, record);
      m.undo(() => void (existing === void 0 ? map.delete(record.key) : map.set(record.key, existing)));
      return void 0;
    })
  }
});

// src/adapters/memory/invitations.ts
import { Effect as Effect25 } from "effect";
var invitationTables = () => ({
  invitations: new MemoryTable({
    id: (r) => r.invitation.code,
    createdAt: (r) => millisOf2(r.invitation.createdAt)
  })
});
var makeInvitationArea = (m) => ({
  repositories: {
    invitations: {
      getByCode: (code) => m.read(() => {
        for (const tenant of m.tenants()) {
          const found = tenant.invitations.get(code);
          if (found !== void 0) return found;
        }
        return void 0;
      })
    }
  },
  writes: {
    // Codes are unique service-wide, as the SQL primary key makes them: another platform's code is never taken over.
    putInvitation: (r) => Effect25.suspend(() => {
      for (const tenant of m.tenants()) {
        const held = tenant.invitations.get(r.invitation.code);
        if (held !== void 0 && held.platformId !== r.platformId) {
          return Effect25.die(new Error(`invitation code ${r.invitation.code} belongs to another platform`));
        }
      }
      return Effect25.orDie(m.putRow(m.tenantOf(r.platformId).invitations, r.invitation.code, r));
    })
  }
});

// src/adapters/memory/bulk-jobs.ts
import { Effect as Effect26 } from "effect";
var bulkJobTables = () => ({
  bulkJobs: new MemoryTable({
    id: (r) => r.record.job.id,
    createdAt: (r) => millisOf2(r.record.createdAt)
  })
});
var makeBulkJobArea = (m) => ({
  repositories: {
    bulkJobs: {
      get: (platformId, id) => m.read(() => m.peek(platformId)?.bulkJobs.get(id)?.record),
      rows: (platformId, id, from, count) => m.read(() => m.peek(platformId)?.bulkJobs.get(id)?.rows.slice(Math.max(0, from), Math.max(0, from) + Math.max(0, count)) ?? [])
    }
  },
  writes: {
    createBulkJob: (record, rows) => Effect26.orDie(m.putRow(m.tenantOf(record.platformId).bulkJobs, record.job.id, { record, rows: [...rows] })),
    putBulkJob: (record) => Effect26.suspend(() => {
      const table = m.tenantOf(record.platformId).bulkJobs;
      const held = table.get(record.job.id);
      if (held === void 0) return Effect26.die(new Error(`bulk job ${record.job.id} is not stored`));
      return Effect26.orDie(m.putRow(table, record.job.id, { record, rows: held.rows }));
    })
  }
});

// src/adapters/memory/tokens.ts
import { Effect as Effect27 } from "effect";
var tokenTables = () => ({
  apiTokens: entityTable((r) => r.token, { groups: [{ name: "clientId", key: (r) => r.token.clientId }] })
});
var matchesToken = (q) => (r) => is(q.name, r.token.name) && inRange(millisOf2(r.token.createdAt), q.created) && inRange(millisOf2(r.token.updatedAt), q.updated);
var makeTokenArea = (m) => ({
  repositories: {
    tokens: {
      get: (platformId, id) => m.read(() => m.peek(platformId)?.apiTokens.get(id)),
      byClientId: (clientId) => m.read(() => {
        for (const t of m.tenants()) {
          const found = t.apiTokens.byGroup("clientId", clientId)[0];
          if (found !== void 0) return found;
        }
        return void 0;
      }),
      list: (platformId, query2, page) => m.readPage(() => m.tenantOf(platformId).apiTokens.page(matchesToken(query2), page, false))
    }
  },
  writes: {
    putToken: (r) => Effect27.orDie(m.putRow(m.tenantOf(r.platformId).apiTokens, r.token.id, r)),
    deleteToken: (platformId, id) => Effect27.suspend(() => {
      const t = m.peek(platformId);
      if (t === void 0 || t.apiTokens.get(id) === void 0) return Effect27.succeed(false);
      return Effect27.as(m.removeRow(t.apiTokens, id), true);
    })
  }
});

// src/adapters/memory/kyc.ts
import { Effect as Effect28 } from "effect";
var kycTables = () => ({
  documents: entityTable((r) => r.document, {
    unique: [{ name: UniqueConstraints.documentsHolderType, key: (r) => keyOf(r.document.documentHolder, r.document.documentType) }],
    groups: [{ name: "holder", key: (r) => r.document.documentHolder }]
  }),
  beneficialOwners: entityTable((r) => r.owner, {
    groups: [{ name: "customer", key: (r) => r.owner.customerId }]
  }),
  verifications: entityTable((r) => r.verification)
});
var matchesVerification = (q) => (r) => is(q.customerId, r.verification.customerId) && is(q.verificationStatus, r.verification.verificationStatus);
var makeKycArea = (m) => ({
  repositories: {
    documents: {
      get: (platformId, id) => m.read(() => m.peek(platformId)?.documents.get(id)),
      listByHolder: (platformId, holderId) => m.read(() => m.peek(platformId)?.documents.byGroup("holder", holderId) ?? []),
      list: (platformId, query2, page) => m.readPage(
        () => m.tenantOf(platformId).documents.page((r) => is(query2.documentHolder, r.document.documentHolder), page, noFilter(query2))
      )
    },
    beneficialOwners: {
      get: (platformId, id) => m.read(() => m.peek(platformId)?.beneficialOwners.get(id)),
      listByCustomer: (platformId, customerId) => m.read(() => m.peek(platformId)?.beneficialOwners.byGroup("customer", customerId) ?? []),
      list: (platformId, query2, page) => m.readPage(() => m.tenantOf(platformId).beneficialOwners.page((r) => r.owner.customerId === query2.customerId, page, false))
    },
    verifications: {
      get: (platformId, id) => m.read(() => m.peek(platformId)?.verifications.get(id)),
      list: (platformId, query2, page) => m.readPage(() => m.tenantOf(platformId).verifications.page(matchesVerification(query2), page, noFilter(query2)))
    }
  },
  writes: {
    putDocument: (r) => m.putRow(m.tenantOf(r.platformId).documents, r.document.id, r),
    deleteDocument: (platformId, id) => m.removeRow(m.tenantOf(platformId).documents, id),
    putBeneficialOwner: (r) => Effect28.orDie(m.putRow(m.tenantOf(r.platformId).beneficialOwners, r.owner.id, r)),
    deleteBeneficialOwner: (platformId, id) => m.removeRow(m.tenantOf(platformId).beneficialOwners, id),
    putVerification: (r) => Effect28.orDie(m.putRow(m.tenantOf(r.platformId).verifications, r.verification.id, r))
  }
});

// src/adapters/memory/money.ts
import { Effect as Effect29 } from "effect";

// src/adapters/ledger.ts
var isInternalAccount = (account) => account.startsWith("InternalAccount:");
var entryProblem = (entry) => {
  const sums = /* @__PURE__ */ new Map();
  for (const p of entry.postings) {
    if (!Number.isSafeInteger(p.amount)) return "OUT_OF_RANGE";
    sums.set(p.currency, (sums.get(p.currency) ?? 0n) + BigInt(p.amount));
  }
  for (const sum of sums.values()) if (sum !== 0n) return "UNBALANCED";
  return void 0;
};
var nextBalance = (account, balance, amount) => {
  const next = balance + amount;
  if (!isInternalAccount(account)) return next;
  if (!Number.isSafeInteger(next)) return "OUT_OF_RANGE";
  if (next < 0) return "INSUFFICIENT_BALANCE";
  return next;
};
var netByAccount = (entry) => {
  const out = /* @__PURE__ */ new Map();
  for (const p of entry.postings) out.set(p.account, (out.get(p.account) ?? 0) + p.amount);
  return out;
};

// src/adapters/journal-cursor.ts
var encodeJournalCursor = (seq) => Buffer.from(`j1:${seq}`, "utf8").toString("base64url");
var decodeJournalCursor = (cursor) => {
  if (cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) {
    return new InvalidCursor({ cursor });
  }
  const m = /^j1:(\d{1,15})$/.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  if (m === null) return new InvalidCursor({ cursor });
  return Number(m[1]);
};

// src/adapters/parties.ts
var senderOf = (r) => {
  const source = r.transaction.source;
  if (source === void 0) return void 0;
  return source.sourceType === "ACCOUNT" ? source.accountId : source.sourceType === "UMA_ADDRESS" ? source.umaAddress : void 0;
};
var receiverOf = (r) => {
  const d = r.transaction.destination;
  return d.destinationType === "ACCOUNT" ? d.accountId : d.umaAddress;
};

// src/adapters/memory/money.ts
var moneyTables = () => ({
  internalAccounts: entityTable((r) => r, {
    unique: [{ name: UniqueConstraints.internalAccountsOwnerCurrency, key: (r) => keyOf(r.customerId, r.currency) }],
    // By owner: one customer's accounts, or all customers' / the platform's.
    groups: [
      { name: "customer", key: (r) => r.customerId ?? void 0 },
      { name: "owner", key: (r) => r.customerId === null ? "platform" : "customer" }
    ]
  }),
  balances: /* @__PURE__ */ new Map(),
  journal: [],
  journalByAccount: /* @__PURE__ */ new Map(),
  quotes: /* @__PURE__ */ new Map(),
  transactions: entityTable((r) => r.transaction, {
    // Ordered indexes for the list filters (transactionIndexOf picks one), and the daily
    // volume check's window (one sender's outgoing payments in one currency).
    groups: [
      {
        name: "sent",
        key: (r) => r.transaction.type === "OUTGOING" ? keyOf(r.transaction.customerId ?? null, r.transaction.sentAmount.currency.code) : void 0
      },
      { name: "account", key: (r) => accountsOf(r) },
      { name: "sender", key: (r) => senderOf(r) },
      { name: "receiver", key: (r) => receiverOf(r) },
      { name: "reference", key: (r) => r.transaction.reconciliationInstructions?.reference },
      { name: "customerType", key: (r) => r.transaction.customerId === void 0 ? void 0 : keyOf(r.transaction.customerId, r.transaction.type) },
      { name: "customer", key: (r) => r.transaction.customerId },
      { name: "platformCustomer", key: (r) => r.transaction.platformCustomerId },
      { name: "typeStatus", key: (r) => keyOf(r.transaction.type, r.transaction.status) },
      { name: "type", key: (r) => r.transaction.type },
      { name: "status", key: (r) => r.transaction.status }
    ]
  }),
  sentVolumes: /* @__PURE__ */ new Map(),
  config: void 0
});
var matchesInternalAccount = (q) => (r) => (q.owner === "platform" ? r.customerId === null : r.customerId !== null) && is(q.customerId, r.customerId) && is(q.currency, r.currency) && is(q.type, r.type);
var accountsOf = (r) => {
  const sender = senderOf(r);
  const receiver = receiverOf(r);
  return sender === void 0 || sender === receiver ? [receiver] : [sender, receiver];
};
var transactionIndexOf = (q) => {
  const set = Object.values(q).filter((v) => v !== void 0).length;
  const pick = (name, key, covers) => ({ name, key, exact: set === covers });
  if (q.accountIdentifier !== void 0) return pick("account", q.accountIdentifier, 1);
  if (q.senderAccountIdentifier !== void 0) return pick("sender", q.senderAccountIdentifier, 1);
  if (q.receiverAccountIdentifier !== void 0) return pick("receiver", q.receiverAccountIdentifier, 1);
  if (q.reference !== void 0) return pick("reference", q.reference, 1);
  if (q.customerId !== void 0 && q.type !== void 0) return pick("customerType", keyOf(q.customerId, q.type), 2);
  if (q.customerId !== void 0) return pick("customer", q.customerId, 1);
  if (q.platformCustomerId !== void 0) return pick("platformCustomer", q.platformCustomerId, 1);
  if (q.type !== void 0 && q.status !== void 0) return pick("typeStatus", keyOf(q.type, q.status), 2);
  if (q.type !== void 0) return pick("type", q.type, 1);
  if (q.status !== void 0) return pick("status", q.status, 1);
  return void 0;
};
var DAY_MILLIS2 = 864e5;
var dayOf = (ms) => ms - (ms % DAY_MILLIS2 + DAY_MILLIS2) % DAY_MILLIS2;
var counts = (t) => t.type === "OUTGOING" && t.status !== "FAILED" && t.status !== "EXPIRED";
var sentOf = (r) => {
  const t = r?.transaction;
  if (t === void 0 || !counts(t)) return void 0;
  return { key: keyOf(t.customerId ?? null, t.sentAmount.currency.code), day: dayOf(millisOf2(t.createdAt)), amount: t.sentAmount.amount };
};
var matchesTransaction = (q) => (r) => {
  const t = r.transaction;
  return is(q.customerId, t.customerId) && is(q.platformCustomerId, t.platformCustomerId) && (q.accountIdentifier === void 0 || senderOf(r) === q.accountIdentifier || receiverOf(r) === q.accountIdentifier) && is(q.senderAccountIdentifier, senderOf(r)) && is(q.receiverAccountIdentifier, receiverOf(r)) && is(q.status, t.status) && is(q.type, t.type) && is(q.reference, t.reconciliationInstructions?.reference) && inRange(millisOf2(t.createdAt), q.created);
};
var SYSTEM_ACCOUNTS_LIMIT = 4096;
var systemAccounts = /* @__PURE__ */ new Map();
var canonOf = (t) => (s) => {
  switch (s.charCodeAt(0)) {
    case 73:
      return s.startsWith("InternalAccount:") ? t.internalAccounts.get(s)?.id : void 0;
    case 84:
      return s.startsWith("Transaction:") ? t.transactions.get(s)?.transaction.id : void 0;
    case 81:
      return s.startsWith("Quote:") ? t.quotes.get(s)?.quote.id : void 0;
    case 115: {
      if (!s.startsWith("system:")) return void 0;
      const shared2 = systemAccounts.get(s);
      if (shared2 !== void 0) return shared2;
      if (systemAccounts.size < SYSTEM_ACCOUNTS_LIMIT) systemAccounts.set(s, s);
      return void 0;
    }
    default:
      return void 0;
  }
};
var makeMoneyArea = (m) => {
  const post = (written) => Effect29.suspend(() => {
    const t = m.tenantOf(written.platformId);
    const entry = trimArrays(written, canonOf(t));
    const problem = entryProblem(entry);
    if (problem !== void 0) return ledgerRejectedIn(problem);
    const next = /* @__PURE__ */ new Map();
    for (const [account, amount] of netByAccount(entry)) {
      const balance = next.get(account) ?? t.balances.get(account)?.balance ?? 0;
      const moved3 = nextBalance(account, balance, amount);
      if (typeof moved3 === "string") return ledgerRejectedIn(moved3, account);
      next.set(account, moved3);
    }
    const created = [];
    const moved2 = [];
    for (const [account, balance] of next) {
      const row = t.balances.get(account);
      if (row === void 0) {
        t.balances.set(account, { currency: entry.postings.findLast((p) => p.account === account)?.currency ?? "", balance });
        created.push(account);
      } else {
        moved2.push({ row, previous: row.balance });
        row.balance = balance;
      }
    }
    const position = t.journal.push(entry) - 1;
    const lists = [];
    for (const account of next.keys()) {
      if (!isInternalAccount(account)) continue;
      let positions = t.journalByAccount.get(account);
      if (positions === void 0) t.journalByAccount.set(account, positions = []);
      positions.push(position);
      lists.push(positions);
    }
    m.undo(() => {
      for (let i = lists.length - 1; i >= 0; i--) lists[i].pop();
      t.journal.pop();
      for (let i = moved2.length - 1; i >= 0; i--) moved2[i].row.balance = moved2[i].previous;
      for (const account of created) t.balances.delete(account);
    });
    return Effect29.void;
  });
  const moveSent = (t, key, day, amount) => {
    if (amount === 0) return;
    let days = t.sentVolumes.get(key);
    if (days === void 0) t.sentVolumes.set(key, days = []);
    let at = days.length;
    while (at > 0 && days[at - 1].day > day) at--;
    let row = days[at - 1];
    if (row === void 0 || row.day !== day) {
      row = { day, amount: 0 };
      days.splice(at, 0, row);
    }
    const moved2 = row;
    moved2.amount += amount;
    m.undo(() => void (moved2.amount -= amount));
  };
  return {
    repositories: {
      internalAccounts: {
        get: (platformId, id) => m.read(() => m.peek(platformId)?.internalAccounts.get(id)),
        findByOwnerCurrency: (platformId, customerId, currency) => m.read(() => m.peek(platformId)?.internalAccounts.byUnique(UniqueConstraints.internalAccountsOwnerCurrency, keyOf(customerId, currency))),
        list: (platformId, query2, page) => m.readPage(() => {
          const table = m.tenantOf(platformId).internalAccounts;
          const filter = matchesInternalAccount(query2);
          if (query2.customerId !== void 0) return table.pageGroup("customer", query2.customerId, filter, page, false);
          const exact = query2.currency === void 0 && query2.type === void 0;
          return table.pageGroup("owner", query2.owner, filter, page, exact);
        })
      },
      ledger: {
        balances: (platformId, accounts) => m.read(() => {
          const balances = m.peek(platformId)?.balances;
          return new Map(accounts.map((a) => [a, balances?.get(a)?.balance ?? 0]));
        }),
        allBalances: (platformId) => m.read(() => [...m.peek(platformId)?.balances ?? []].map(([account, b]) => ({ account, currency: b.currency, balance: b.balance }))),
        entries: (platformId, options) => m.read(() => (m.peek(platformId)?.journal ?? []).filter((e) => options?.transactionId === void 0 || e.transactionId === options.transactionId)),
        journalPage: (platformId, options) => Effect29.flatMap(m.read(() => {
          const from = options.after === void 0 ? 0 : decodeJournalCursor(options.after);
          if (typeof from !== "number") return from;
          const journal = m.peek(platformId)?.journal ?? [];
          const entries = journal.slice(from, from + options.limit);
          const end = from + entries.length;
          return end < journal.length ? { entries, next: encodeJournalCursor(end) } : { entries };
        }), (r) => r instanceof InvalidCursor ? Effect29.fail(r) : Effect29.succeed(r)),
        accountJournal: (platformId, account, page) => m.readPage(() => {
          const t = m.peek(platformId);
          const positions = t?.journalByAccount.get(account) ?? [];
          const after = page.cursor === void 0 ? void 0 : decodeJournalCursor(page.cursor);
          if (after instanceof InvalidCursor) return after;
          const descending = page.descending === true;
          const ordered = descending ? [...positions].reverse() : positions;
          const rest = after === void 0 ? ordered : ordered.filter((i) => descending ? i < after : i > after);
          const slice = rest.slice(0, page.limit);
          const data = slice.flatMap((i) => {
            const entry = t?.journal[i];
            if (entry === void 0) return [];
            const amount = entry.postings.filter((p) => p.account === account).reduce((sum, p) => sum + p.amount, 0);
            const currency = entry.postings.find((p) => p.account === account)?.currency ?? "";
            return [{ entry, amount, currency }];
          });
          const last = slice[slice.length - 1];
          return rest.length > slice.length && last !== void 0 ? { data, hasMore: true, nextCursor: encodeJournalCursor(last), totalCount: positions.length } : { data, hasMore: false, totalCount: positions.length };
        })
      },
      quotes: {
        get: (platformId, id) => m.read(() => m.peek(platformId)?.quotes.get(id))
      },
      transactions: {
        get: (platformId, id) => m.read(() => m.peek(platformId)?.transactions.get(id)),
        list: (platformId, query2, page) => m.readPage(() => {
          const table = m.tenantOf(platformId).transactions;
          const index = transactionIndexOf(query2);
          return index === void 0 ? table.page(matchesTransaction(query2), page, noFilter(query2)) : table.pageGroup(index.name, index.key, matchesTransaction(query2), page, index.exact);
        }),
        sentVolume: (platformId, query2) => m.read(() => {
          const t = m.peek(platformId);
          if (t === void 0) return 0;
          const key = keyOf(query2.customerId, query2.currency);
          let sum = 0;
          if (query2.since % DAY_MILLIS2 === 0) {
            const days = t.sentVolumes.get(key) ?? [];
            for (let i = days.length - 1; i >= 0 && days[i].day >= query2.since; i--) sum += days[i].amount;
            return sum;
          }
          for (const r of t.transactions.groupSince("sent", key, query2.since)) {
            const counted = sentOf(r);
            if (counted !== void 0) sum += counted.amount;
          }
          return sum;
        })
      },
      platformConfigs: {
        get: (platformId) => m.read(() => m.peek(platformId)?.config)
      },
      // Every read here is a lookup in memory already: nothing to read ahead.
      paymentReads: { readAhead: () => Effect29.void }
    },
    writes: {
      putInternalAccount: (r) => m.putRow(m.tenantOf(r.platformId).internalAccounts, r.id, r),
      post,
      putQuote: (written) => Effect29.sync(() => {
        const t = m.tenantOf(written.platformId);
        const r = trimArrays(written, canonOf(t), t.quotes.get(written.quote.id));
        const quotes = t.quotes;
        const previous = quotes.get(r.quote.id);
        quotes.set(r.quote.id, r);
        m.undo(() => void (previous === void 0 ? quotes.delete(r.quote.id) : quotes.set(r.quote.id, previous)));
      }),
      putTransaction: (written) => Effect29.suspend(() => {
        const t = m.tenantOf(written.platformId);
        const stored = t.transactions.get(written.transaction.id);
        const r = trimArrays(written, canonOf(t), stored);
        const constraint = m.writeRow(t.transactions, r.transaction.id, r);
        if (constraint !== void 0) return Effect29.orDie(conflictIn(constraint));
        const was = stored?.transaction;
        const now = r.transaction;
        if (was !== void 0 && counts(was) && counts(now) && was.customerId === now.customerId && was.createdAt === now.createdAt && was.sentAmount.currency.code === now.sentAmount.currency.code) {
          const delta = now.sentAmount.amount - was.sentAmount.amount;
          const after2 = delta === 0 ? void 0 : sentOf(r);
          if (after2 !== void 0) moveSent(t, after2.key, after2.day, delta);
          return Effect29.void;
        }
        const before = sentOf(stored);
        const after = sentOf(r);
        if (before !== void 0) moveSent(t, before.key, before.day, -before.amount);
        if (after !== void 0) moveSent(t, after.key, after.day, after.amount);
        return Effect29.void;
      }),
      putPlatformConfig: (r) => m.setField(m.tenantOf(r.platformId), "config", r)
    }
  };
};

// src/adapters/memory/mutex.ts
import { Effect as Effect30 } from "effect";
var makeMutex = () => {
  let locked = false;
  const waiters = [];
  const unlock = () => {
    const next = waiters.shift();
    if (next === void 0) locked = false;
    else {
      next.granted = true;
      next.wake();
    }
  };
  const tryLock = () => {
    if (locked) return false;
    locked = true;
    return true;
  };
  const waitTurn = Effect30.callback((resume) => {
    const waiter = { wake: () => resume(Effect30.void), granted: false };
    waiters.push(waiter);
    return Effect30.sync(() => {
      if (waiter.granted) unlock();
      else {
        const at = waiters.indexOf(waiter);
        if (at !== -1) waiters.splice(at, 1);
      }
    });
  });
  const release = Effect30.sync(unlock);
  const exclusive = (self) => Effect30.uninterruptibleMask(
    (restore) => tryLock() ? Effect30.ensuring(restore(self), release) : Effect30.flatMap(restore(waitTurn), () => Effect30.ensuring(restore(self), release))
  );
  return { isLocked: () => locked, tryLock, unlock, waitTurn, exclusive };
};

// src/adapters/memory/snapshots.ts
import { Effect as Effect31 } from "effect";
var isPlainObject = (v) => typeof v === "object" && v !== null && Object.getPrototypeOf(v) === Object.prototype;
var cloneItem = (x) => Array.isArray(x) ? x.map(cloneItem) : x instanceof Map ? cloneContainer(x) : isPlainObject(x) ? { ...x } : x;
var cloneContainer = (v) => {
  if (v instanceof MemoryTable) return v.clone();
  if (Array.isArray(v)) return v.map(cloneItem);
  if (isPlainObject(v)) {
    const copy = {};
    for (const [k, x] of Object.entries(v)) copy[k] = cloneContainer(x);
    return copy;
  }
  if (v instanceof Map) {
    const copy = /* @__PURE__ */ new Map();
    for (const [k, x] of v) copy.set(k, cloneItem(x));
    return copy;
  }
  if (v instanceof Set) return new Set(v);
  return v;
};
var CREDENTIALS = ["apiTokens"];
var copyOf = (tables, credentials) => {
  const copy = { ...tables };
  const fields = copy;
  for (const [key, value] of Object.entries(tables)) fields[key] = cloneContainer(value);
  for (const key of CREDENTIALS) fields[key] = credentials[key];
  return copy;
};
var makeSnapshotArea = (m, tenancy) => {
  const byPlatform = /* @__PURE__ */ new Map();
  const tableOf = (platformId) => {
    let table = byPlatform.get(platformId);
    if (table === void 0) {
      byPlatform.set(
        platformId,
        table = new MemoryTable({ id: (s) => s.record.snapshot.id, createdAt: (s) => millisOf2(s.record.snapshot.createdAt) })
      );
    }
    return table;
  };
  return {
    repositories: {
      snapshots: {
        get: (platformId, id) => m.read(() => byPlatform.get(platformId)?.get(id)?.record),
        list: (platformId, page) => Effect31.map(
          m.readPage(() => tableOf(platformId).page(() => true, page, true)),
          (p) => ({ ...p, data: p.data.map((s) => s.record) })
        )
      }
    },
    writes: {
      createSnapshot: (record) => Effect31.suspend(() => {
        const state = copyOf(m.peek(record.platformId) ?? tenancy.fresh(), tokenTables());
        return Effect31.orDie(m.putRow(tableOf(record.platformId), record.snapshot.id, { record, state }));
      }),
      deleteSnapshot: (platformId, id) => Effect31.suspend(() => {
        const table = byPlatform.get(platformId);
        if (table?.get(id) === void 0) return Effect31.succeed(false);
        return Effect31.as(m.removeRow(table, id), true);
      }),
      restoreSnapshot: (platformId, id) => m.claim("snapshots.restoreSnapshot", () => {
        const stored = byPlatform.get(platformId)?.get(id);
        if (stored === void 0) return "missing";
        tenancy.replace(platformId, copyOf(stored.state, m.peek(platformId) ?? tokenTables()));
        return "restored";
      })
    }
  };
};

// src/adapters/memory/stablecoins.ts
import { Effect as Effect32 } from "effect";
var stablecoinTables = () => ({
  stablecoinProviderAccounts: entityTable((r) => r.account, {
    unique: [{ name: UniqueConstraints.stablecoinProviderAccountsAccount, key: (r) => keyOf(r.account.provider, r.account.providerAccountId) }]
  }),
  stablecoins: entityTable((r) => r.stablecoin, {
    unique: [
      { name: UniqueConstraints.stablecoinsTokenIdentifier, key: (r) => keyOf(r.stablecoin.network, r.stablecoin.networkTokenIdentifier) },
      { name: UniqueConstraints.stablecoinsSymbol, key: (r) => r.stablecoin.symbol }
    ]
  }),
  stablecoinOperations: entityTable((r) => r.operation, {
    groups: [{ name: "stablecoin", key: (r) => r.operation.stablecoinId }]
  })
});
var matchesStablecoin = (q) => (r) => is(q.issuanceStatus, r.stablecoin.issuanceStatus) && is(q.gridOperationsStatus, r.stablecoin.gridOperationsStatus) && is(q.provider, r.stablecoin.provider);
var matchesProviderAccount = (q) => (r) => is(q.provider, r.account.provider) && is(q.status, r.account.status);
var makeStablecoinArea = (m) => ({
  repositories: {
    stablecoins: {
      getProviderAccount: (platformId, id) => m.read(() => m.peek(platformId)?.stablecoinProviderAccounts.get(id)),
      findProviderAccount: (platformId, provider, providerAccountId) => m.read(
        () => m.peek(platformId)?.stablecoinProviderAccounts.byUnique(UniqueConstraints.stablecoinProviderAccountsAccount, keyOf(provider, providerAccountId))
      ),
      listProviderAccounts: (platformId, query2, page) => m.readPage(() => m.tenantOf(platformId).stablecoinProviderAccounts.page(matchesProviderAccount(query2), page, noFilter(query2))),
      get: (platformId, id) => m.read(() => m.peek(platformId)?.stablecoins.get(id)),
      findBySymbol: (platformId, symbol) => m.read(() => m.peek(platformId)?.stablecoins.byUnique(UniqueConstraints.stablecoinsSymbol, symbol)),
      findByTokenIdentifier: (platformId, network, tokenIdentifier) => m.read(() => m.peek(platformId)?.stablecoins.byUnique(UniqueConstraints.stablecoinsTokenIdentifier, keyOf(network, tokenIdentifier))),
      list: (platformId, query2, page) => m.readPage(() => m.tenantOf(platformId).stablecoins.page(matchesStablecoin(query2), page, noFilter(query2))),
      getOperation: (platformId, id) => m.read(() => m.peek(platformId)?.stablecoinOperations.get(id)),
      listOperations: (platformId, query2, page) => m.readPage(
        () => m.tenantOf(platformId).stablecoinOperations.page(
          (r) => r.operation.stablecoinId === query2.stablecoinId && is(query2.operationType, r.operation.operationType),
          page,
          false
        )
      )
    }
  },
  writes: {
    putStablecoinProviderAccount: (r) => m.putRow(m.tenantOf(r.platformId).stablecoinProviderAccounts, r.account.id, r),
    putStablecoin: (r) => m.putRow(m.tenantOf(r.platformId).stablecoins, r.stablecoin.id, r),
    putStablecoinOperation: (r) => Effect32.orDie(m.putRow(m.tenantOf(r.platformId).stablecoinOperations, r.operation.id, r))
  }
});

// src/adapters/memory/timers.ts
import { Effect as Effect33 } from "effect";
var OUTCOME_HISTORY = 1e3;
var timerTables = () => ({
  timers: new MemoryTable({
    id: (r) => r.id,
    createdAt: (r) => r.at,
    groups: [{ name: "slot", key: (r) => keyOf(r.subjectId, r.kind) }, { name: "subject", key: (r) => r.subjectId }]
  }),
  outcomes: [],
  clockOffset: 0
});
var makeTimerArea = (m) => {
  const removeAll = (table, doomed) => Effect33.forEach(doomed, (t) => m.removeRow(table, t.id), { discard: true });
  return {
    repositories: {
      timers: {
        claimDue: (platformId, now) => m.claim("timers.claimDue", () => {
          const table = m.peek(platformId)?.timers;
          const first = table?.first();
          if (table === void 0 || first === void 0 || first.at > now) return void 0;
          table.remove(first.id);
          m.undo(() => void table.put(first));
          return first;
        }),
        pending: (platformId) => m.read(() => m.peek(platformId)?.timers.ordered() ?? []),
        outcomes: (platformId) => m.read(() => [...m.peek(platformId)?.outcomes ?? []])
      },
      clocks: {
        offset: (platformId) => m.read(() => m.peek(platformId)?.clockOffset ?? 0)
      }
    },
    writes: {
      schedule: (timer) => Effect33.suspend(() => {
        const table = m.tenantOf(timer.platformId).timers;
        return Effect33.andThen(
          removeAll(table, table.byGroup("slot", keyOf(timer.subjectId, timer.kind))),
          Effect33.orDie(m.putRow(table, timer.id, timer))
        );
      }),
      cancelTimers: (platformId, subjectId, kind) => Effect33.suspend(() => {
        const table = m.tenantOf(platformId).timers;
        return removeAll(table, kind === void 0 ? table.byGroup("subject", subjectId) : table.byGroup("slot", keyOf(subjectId, kind)));
      }),
      recordTimerOutcome: (outcome) => Effect33.sync(() => {
        const outcomes = m.tenantOf(outcome.timer.platformId).outcomes;
        outcomes.push(outcome);
        const dropped = outcomes.length > OUTCOME_HISTORY ? outcomes.shift() : void 0;
        m.undo(() => {
          outcomes.pop();
          if (dropped !== void 0) outcomes.unshift(dropped);
        });
      }),
      setClockOffset: (platformId, offsetMillis) => m.setField(m.tenantOf(platformId), "clockOffset", offsetMillis)
    }
  };
};

// src/adapters/memory/wallets.ts
import { Effect as Effect34 } from "effect";
var walletTables = () => ({
  wallet: new MemoryTable({
    id: (r) => keyOf(r.kind, r.id),
    createdAt: () => 0,
    groups: [
      { name: "account", key: (r) => keyOf(r.kind, r.accountId) },
      { name: "lookup", key: (r) => r.lookupKey === void 0 ? void 0 : keyOf(r.kind, r.lookupKey) }
    ]
  })
});
var makeWalletArea = (m) => {
  const inGroup = (platformId, group, kind, key) => m.read(() => m.peek(platformId)?.wallet.byGroup(group, keyOf(kind, key)) ?? []);
  return {
    repositories: {
      wallets: {
        get: (platformId, kind, id) => m.read(() => m.peek(platformId)?.wallet.get(keyOf(kind, id))),
        byAccount: (platformId, kind, accountId) => inGroup(platformId, "account", kind, accountId),
        byLookup: (platformId, kind, lookupKey) => inGroup(platformId, "lookup", kind, lookupKey)
      }
    },
    writes: {
      putWalletRecord: (r) => Effect34.orDie(m.putRow(m.tenantOf(r.platformId).wallet, keyOf(r.kind, r.id), r)),
      deleteWalletRecord: (platformId, kind, id) => m.removeRow(m.tenantOf(platformId).wallet, keyOf(kind, id))
    }
  };
};

// src/adapters/memory/webhooks.ts
import { Effect as Effect35 } from "effect";
var StoredDelivery = class {
  constructor(platformId, id, seq, type, resourceId, source, status, attempts, round, nextAttemptAt, createdAt, updatedAt, lease) {
    this.platformId = platformId;
    this.id = id;
    this.seq = seq;
    this.type = type;
    this.resourceId = resourceId;
    this.source = source;
    this.status = status;
    this.attempts = attempts;
    this.round = round;
    this.nextAttemptAt = nextAttemptAt;
    this.createdAt = createdAt;
    this.updatedAt = updatedAt;
    this.lease = lease;
  }
  platformId;
  id;
  seq;
  type;
  resourceId;
  source;
  status;
  attempts;
  round;
  nextAttemptAt;
  createdAt;
  updatedAt;
  lease;
};
var rendered = new BoundedMemo(64);
var bodyOfItem = (item) => webhookBodyOf(eventOf2(item));
var bodyOf = (source) => typeof source === "string" ? source : rendered.getOrCompute(source, bodyOfItem);
var recordOf = (d) => {
  const record = {
    platformId: d.platformId,
    id: d.id,
    seq: d.seq,
    type: d.type,
    resourceId: d.resourceId,
    body: "",
    status: d.status,
    attempts: d.attempts,
    round: d.round,
    nextAttemptAt: d.nextAttemptAt,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
    ...d.lease === void 0 ? {} : { lease: d.lease }
  };
  const source = d.source;
  if (typeof source === "string") record.body = source;
  else {
    let body;
    Object.defineProperty(record, "body", { enumerable: true, configurable: true, get: () => body ??= bodyOf(source) });
  }
  return record;
};
var webhookTables = () => ({
  deliveries: new MemoryTable({ id: (r) => r.id, createdAt: (r) => r.seq }),
  pendingDeliveries: new MemoryTable({ id: (r) => r.id, createdAt: (r) => r.seq }),
  webhookCursor: void 0,
  finished: { ats: [], ids: [], head: 0 }
});
var makeWebhookArea = (m) => {
  const signingKeys = /* @__PURE__ */ new Map();
  const rowOf = (t, r, previous) => {
    const event = previous !== void 0 && typeof previous.source !== "string" && previous.seq === r.seq ? previous.source : outboxEvent(t, r.seq, r.id);
    const source = event !== void 0 && bodyOf(event) === r.body ? event : r.body;
    return new StoredDelivery(
      r.platformId,
      r.id,
      r.seq,
      r.type,
      r.resourceId,
      source,
      r.status,
      r.attempts,
      r.round,
      r.nextAttemptAt,
      r.createdAt,
      r.updatedAt,
      r.lease
    );
  };
  const putDelivery = (r) => {
    const t = m.tenantOf(r.platformId);
    const previous = t.deliveries.get(r.id);
    const row = rowOf(t, r, previous);
    if (r.status !== "PENDING") {
      if (previous === void 0 || previous.status === "PENDING" || previous.updatedAt !== r.updatedAt) {
        const q = t.finished;
        let lo = q.head;
        let hi = q.ats.length;
        if (hi === lo || q.ats[hi - 1] <= r.updatedAt) lo = hi;
        while (lo < hi) {
          const mid = lo + hi >>> 1;
          if (q.ats[mid] <= r.updatedAt) lo = mid + 1;
          else hi = mid;
        }
        q.ats.splice(lo, 0, r.updatedAt);
        q.ids.splice(lo, 0, r.id);
      }
    }
    return Effect35.orDie(Effect35.andThen(
      m.putRow(t.deliveries, r.id, row),
      r.status === "PENDING" ? m.putRow(t.pendingDeliveries, r.id, row) : m.removeRow(t.pendingDeliveries, r.id)
    ));
  };
  return {
    repositories: {
      webhooks: {
        signingKey: (platformId) => m.read(() => signingKeys.get(platformId)),
        cursor: (platformId) => m.read(() => m.peek(platformId)?.webhookCursor),
        lastEventSeq: (platformId) => m.read(() => {
          const t = m.peek(platformId);
          return t === void 0 ? 0 : lastSeqOf(t);
        }),
        get: (platformId, id) => m.read(() => {
          const d = m.peek(platformId)?.deliveries.get(id);
          return d === void 0 ? void 0 : recordOf(d);
        }),
        list: (platformId, page) => Effect35.map(
          m.readPage(() => m.tenantOf(platformId).deliveries.page(() => true, { ...page, descending: true }, true)),
          (p) => ({ ...p, data: p.data.map(recordOf) })
        ),
        claimDue: (platformId, now, leaseNow) => m.claim("webhooks.claimDue", () => {
          const waiting = /* @__PURE__ */ new Set();
          for (const r of m.peek(platformId)?.pendingDeliveries.ordered() ?? []) {
            if (waiting.has(r.resourceId)) continue;
            waiting.add(r.resourceId);
            if (r.nextAttemptAt <= now && (r.lease === void 0 || r.lease.until <= leaseNow)) return recordOf(r);
          }
          return void 0;
        })
      }
    },
    writes: {
      putWebhookSigningKey: (record) => Effect35.sync(() => {
        const existing = signingKeys.get(record.platformId);
        if (existing !== void 0) return existing;
        signingKeys.set(record.platformId, record);
        m.undo(() => void signingKeys.delete(record.platformId));
        return record;
      }),
      setWebhookCursor: (platformId, seq) => m.setField(m.tenantOf(platformId), "webhookCursor", seq),
      addWebhookDelivery: (r) => Effect35.suspend(() => m.tenantOf(r.platformId).deliveries.get(r.id) === void 0 ? putDelivery(r) : Effect35.void),
      putWebhookDelivery: putDelivery,
      sweepWebhookDeliveries: (platformId, finishedBefore, limit) => Effect35.sync(() => {
        const t = m.peek(platformId);
        if (t === void 0) return 0;
        const q = t.finished;
        if (q.head > 1024 && q.head * 2 > q.ids.length) {
          q.ats.splice(0, q.head);
          q.ids.splice(0, q.head);
          q.head = 0;
        }
        const start = q.head;
        const due = [];
        while (due.length < limit && q.head < q.ids.length && q.ats[q.head] < finishedBefore) {
          const id = q.ids[q.head++];
          const r = t.deliveries.get(id);
          if (r !== void 0 && r.status !== "PENDING" && r.updatedAt < finishedBefore) due.push(id);
        }
        const removed = t.deliveries.removeAll(due);
        m.undo(() => {
          q.head = start;
          for (const r of removed) t.deliveries.put(r);
        });
        return removed.length;
      })
    }
  };
};

// src/adapters/memory/store.ts
var newTenant = () => ({
  ...customerTables(),
  ...kycTables(),
  ...moneyTables(),
  ...cardTables(),
  ...stablecoinTables(),
  ...eventTables(),
  ...timerTables(),
  ...idempotencyTables(),
  ...webhookTables(),
  ...walletTables(),
  ...agentTables(),
  ...invitationTables(),
  ...bulkJobTables(),
  ...tokenTables()
});
var pageEffect = (result) => "data" in result ? Effect36.succeed(result) : Effect36.fail(result);
var CurrentTx = Context8.Reference("payments-service/adapters/memory/CurrentTx", {
  defaultValue: () => void 0
});
var rollbackTo = (log, mark) => {
  while (log.length > mark) log.pop()?.();
};
var swallowedConflict = () => new Error("A StoreConflict was caught inside the unit of work that raised it, which then tried to commit; catch it outside store.transact");
var makeMemoryStore = Effect36.sync(() => {
  const identity = {};
  const tenants = /* @__PURE__ */ new Map();
  const mutex = makeMutex();
  let activeLog;
  const undo = (f) => {
    if (activeLog === void 0) throw new Error("a UnitOfWork was used outside its store.transact");
    activeLog.push(f);
  };
  const inside = (fiber) => fiber.getRef(CurrentTx)?.store === identity;
  const read = (f) => Effect36.withFiber((fiber) => !mutex.isLocked() || inside(fiber) ? Effect36.succeed(f()) : mutex.exclusive(Effect36.sync(f)));
  const writeRow = (table, id, record) => {
    const constraint = table.conflictOf(record);
    if (constraint !== void 0) return constraint;
    const previous = table.put(record);
    undo(previous === void 0 ? () => void table.remove(id) : () => void table.put(previous));
    return void 0;
  };
  const m = {
    tenantOf: (platformId) => {
      let t = tenants.get(platformId);
      if (t === void 0) tenants.set(platformId, t = newTenant());
      return t;
    },
    peek: (platformId) => tenants.get(platformId),
    tenants: () => tenants.values(),
    read,
    readPage: (f) => Effect36.withFiber((fiber) => !mutex.isLocked() || inside(fiber) ? pageEffect(f()) : Effect36.flatMap(mutex.exclusive(Effect36.sync(f)), pageEffect)),
    claim: (what, f) => Effect36.withFiber((fiber) => inside(fiber) ? Effect36.succeed(f()) : Effect36.die(new Error(`${what} must run inside a unit of work`))),
    undo,
    writeRow,
    putRow: (table, id, record) => Effect36.suspend(() => {
      const constraint = writeRow(table, id, record);
      return constraint === void 0 ? Effect36.void : conflictIn(constraint);
    }),
    removeRow: (table, id) => Effect36.sync(() => {
      const previous = table.remove(id);
      if (previous !== void 0) undo(() => void table.put(previous));
    }),
    setField: (target, key, value) => Effect36.sync(() => {
      const previous = target[key];
      target[key] = value;
      undo(() => void (target[key] = previous));
    })
  };
  const customers = makeCustomerArea(m);
  const kyc = makeKycArea(m);
  const money = makeMoneyArea(m);
  const cards = makeCardArea(m);
  const stablecoins = makeStablecoinArea(m);
  const events = makeEventArea(m);
  const timers = makeTimerArea(m);
  const idempotency = makeIdempotencyArea(m);
  const webhooks = makeWebhookArea(m);
  const wallets = makeWalletArea(m);
  const agents = makeAgentArea(m);
  const invitations = makeInvitationArea(m);
  const bulkJobs = makeBulkJobArea(m);
  const tokens = makeTokenArea(m);
  const snapshots = makeSnapshotArea(m, {
    fresh: newTenant,
    replace: (platformId, tenant) => {
      const previous = tenants.get(platformId);
      tenants.set(platformId, tenant);
      undo(() => void (previous === void 0 ? tenants.delete(platformId) : tenants.set(platformId, previous)));
    }
  });
  const uow = {
    ...customers.writes,
    ...kyc.writes,
    ...money.writes,
    ...cards.writes,
    ...stablecoins.writes,
    ...events.writes,
    ...timers.writes,
    ...idempotency.writes,
    ...webhooks.writes,
    ...wallets.writes,
    ...agents.writes,
    ...invitations.writes,
    ...bulkJobs.writes,
    ...tokens.writes,
    ...snapshots.writes,
    resetPlatform: (platformId) => Effect36.sync(() => {
      const previous = tenants.get(platformId);
      if (previous === void 0) return;
      tenants.delete(platformId);
      undo(() => void tenants.set(platformId, previous));
    })
  };
  const transact = (work) => Effect36.uninterruptibleMask((restore) => {
    const fiber = Fiber.getCurrent();
    if (fiber === void 0) return Effect36.die(new Error("store.transact evaluated outside a fiber"));
    const current = fiber.getRef(CurrentTx);
    if (current !== void 0 && current.store === identity) return level(fiber, restore, work, current.log, false);
    if (mutex.tryLock()) return level(fiber, restore, work, [], true);
    return Effect36.flatMap(restore(mutex.waitTurn), () => level(fiber, restore, work, [], true));
  });
  const level = (fiber, restore, work, log, top) => {
    const mark = log.length;
    const self = { store: identity, log, conflicted: false };
    const outer = fiber.context;
    if (top) activeLog = log;
    fiber.setContext(Context8.add(Context8.add(outer, CurrentTx, self), CurrentLevel, self));
    const end = (failed2) => {
      fiber.setContext(outer);
      if (failed2) rollbackTo(log, mark);
      if (top) {
        activeLog = void 0;
        mutex.unlock();
      }
    };
    let body;
    try {
      body = work(uow);
    } catch (defect) {
      body = Effect36.die(defect);
    }
    return Effect36.matchCauseEffect(restore(body), {
      onSuccess: (a) => {
        if (self.conflicted) {
          end(true);
          return Effect36.die(swallowedConflict());
        }
        end(false);
        return Effect36.succeed(a);
      },
      onFailure: (cause) => {
        end(true);
        return Effect36.failCause(cause);
      }
    });
  };
  return Store.of({
    info: { kind: "memory", description: "in memory (nothing persists)" },
    ...customers.repositories,
    ...kyc.repositories,
    ...money.repositories,
    ...cards.repositories,
    ...stablecoins.repositories,
    ...events.repositories,
    ...timers.repositories,
    ...idempotency.repositories,
    ...webhooks.repositories,
    ...wallets.repositories,
    ...agents.repositories,
    ...invitations.repositories,
    ...bulkJobs.repositories,
    ...tokens.repositories,
    ...snapshots.repositories,
    transact
  });
});
var MemoryStoreLayer = Layer3.effect(Store, makeMemoryStore);

// src/adapters/webhook-http.ts
import { lookup as dnsLookup } from "node:dns/promises";
import * as http from "node:http";
import * as https from "node:https";
import { isIP as isIP2 } from "node:net";
import { Effect as Effect37, Layer as Layer4 } from "effect";
var WEBHOOK_TIMEOUT_MILLIS = 5e3;
var MAX_RESPONSE_BYTES = 64 * 1024;
var ENDPOINT_LOOKUP_MILLIS = 2e3;
var systemResolver = async (host) => {
  if (isInvalidName(host)) throw Object.assign(new Error(`${host} does not resolve (names under .invalid never do, RFC 6761)`), { code: "ENOTFOUND" });
  return (await dnsLookup(host, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};
var describe = (error, timedOut) => {
  if (timedOut) return `no answer within ${WEBHOOK_TIMEOUT_MILLIS / 1e3} s`;
  const code = typeof error === "object" && error !== null && "code" in error ? String(error.code) : void 0;
  const message = error instanceof Error ? error.message : String(error);
  return code === void 0 || message.startsWith(code) ? message : `${code}: ${message}`;
};
var pinnedLookup = (addresses) => ((_host, options, callback) => {
  const wanted = options.family === 4 || options.family === "IPv4" ? 4 : options.family === 6 || options.family === "IPv6" ? 6 : void 0;
  const usable = addresses.filter((a) => wanted === void 0 || a.family === wanted);
  const first = usable[0];
  if (first === void 0) {
    callback(Object.assign(new Error(`no checked address of family ${String(wanted)}`), { code: "ENOTFOUND" }));
  } else if (options.all === true) {
    callback(null, usable.map((a) => ({ address: a.address, family: a.family })));
  } else {
    callback(null, first.address, first.family);
  }
});
var httpTransport = (url, request, addresses) => new Promise((resolve2) => {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const signal = AbortSignal.timeout(WEBHOOK_TIMEOUT_MILLIS);
  let settled = false;
  const finish = (response) => {
    if (settled) return;
    settled = true;
    resolve2(response);
  };
  const fail3 = (error) => finish({ _tag: "Failed", error: describe(error, signal.aborted), durationMs: elapsed() });
  const body = Buffer.from(request.body, "utf8");
  const options = {
    method: "POST",
    headers: { ...request.headers, "content-length": String(body.length) },
    signal,
    // The host is an address already checked, or a name whose checked addresses are the only answers.
    ...isIP2(hostKey(url.hostname)) === 0 ? { lookup: pinnedLookup(addresses) } : {},
    agent: false
  };
  let req2;
  try {
    req2 = (url.protocol === "https:" ? https : http).request(url, options, (res) => {
      const chunks = [];
      let size = 0;
      const done = () => {
        res.destroy();
        finish({ _tag: "Answered", status: res.statusCode ?? 0, body: Buffer.concat(chunks).subarray(0, MAX_RESPONSE_BYTES).toString("utf8"), durationMs: elapsed() });
      };
      res.on("data", (chunk) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= MAX_RESPONSE_BYTES) done();
      });
      res.on("end", done);
      res.on("error", (e) => signal.aborted ? fail3(e) : done());
      res.on("close", () => signal.aborted ? fail3(new Error("aborted")) : done());
    });
  } catch (e) {
    return fail3(e);
  }
  req2.on("error", fail3);
  req2.end(body);
});
var ownPolicies = new BoundedMemo(1e3);
var ownPolicyOf = (list) => {
  const key = list.join(",");
  let policy = ownPolicies.get(key);
  if (policy === void 0) ownPolicies.set(key, policy = policyOf(list));
  return policy;
};
var asPolicy = (d) => isList(d) ? ownPolicyOf(d) : d;
var isList = (d) => Array.isArray(d);
var policyFor = (platform, options = {}) => {
  if (options.override !== void 0) return asPolicy(options.override);
  if (platform?.webhookDestinations !== void 0) return ownPolicyOf(platform.webhookDestinations);
  if (options.fallback !== void 0) return asPolicy(options.fallback);
  return platform?.settings.sandbox === true ? SANDBOX_POLICY : PRODUCTION_POLICY;
};
var checkDestination = async (url, policy, resolver = systemResolver) => {
  let parsed2;
  try {
    parsed2 = new URL(url);
  } catch {
    return { _tag: "Unresolved", error: `${url} is not a URL` };
  }
  if (parsed2.protocol !== "http:" && parsed2.protocol !== "https:") return { _tag: "Unresolved", error: `${parsed2.protocol} is not http or https` };
  const host = hostKey(parsed2.hostname);
  const verdict = hostVerdict(host, policy);
  if (verdict._tag === "Refused") return verdict;
  if (verdict._tag === "Addresses") {
    return { _tag: "Allowed", url: parsed2, addresses: verdict.addresses.map((address) => ({ address, family: isIP2(address) === 6 ? 6 : 4 })) };
  }
  let addresses;
  try {
    addresses = await resolver(host);
  } catch (e) {
    return { _tag: "Unresolved", error: describe(e, false) };
  }
  if (addresses.length === 0) return { _tag: "Unresolved", error: `ENOTFOUND: ${host} has no address` };
  for (const a of addresses) {
    const refusal2 = addressRefusal(a.address, policy, host);
    if (refusal2 !== void 0) return { _tag: "Refused", refusal: refusal2 };
  }
  return { _tag: "Allowed", url: parsed2, addresses };
};
var refusedMessage = (refusal2) => `not sent (${refusal2.rule}): ${refusal2.message}`;
var guardedWebhookSender = (options = {}) => {
  if (options.override !== void 0) asPolicy(options.override);
  if (options.fallback !== void 0) asPolicy(options.fallback);
  const resolver = options.resolver ?? systemResolver;
  const transport = options.transport ?? httpTransport;
  return {
    send: (request) => Effect37.promise(async () => {
      const started = performance.now();
      const checked = await checkDestination(request.url, policyFor(request.platform, options), resolver);
      const durationMs = Math.round(performance.now() - started);
      if (checked._tag === "Refused") return { _tag: "Failed", error: refusedMessage(checked.refusal), durationMs };
      if (checked._tag === "Unresolved") return { _tag: "Failed", error: checked.error, durationMs };
      return transport(checked.url, request, checked.addresses);
    }),
    endpointRefusal: (url, platform) => Effect37.promise(async () => {
      const policy = policyFor(platform, options);
      let cancel = () => {
      };
      const timeout = new Promise((resolve2) => {
        const timer = setTimeout(resolve2, ENDPOINT_LOOKUP_MILLIS);
        cancel = () => clearTimeout(timer);
      });
      const checked = await Promise.race([checkDestination(url, policy, resolver), timeout]).finally(() => cancel());
      return checked?._tag === "Refused" && checked.refusal.rule !== "NOT_LOOKED_UP" ? checked.refusal : void 0;
    })
  };
};
var httpWebhookSender = guardedWebhookSender();
var HttpWebhookSenderLayer = Layer4.succeed(WebhookSender, httpWebhookSender);
var webhookSenderLayer = (options) => Layer4.succeed(WebhookSender, guardedWebhookSender(options));
var loopbackOnlySender = (resolver) => guardedWebhookSender({ override: LOOPBACK_POLICY, ...resolver === void 0 ? {} : { resolver } });
var LoopbackWebhookSenderLayer = Layer4.succeed(WebhookSender, loopbackOnlySender());

// src/ports/sandbox-faults.ts
import { Context as Context9, Effect as Effect38 } from "effect";
var FAULT_RULES_CACHE_MILLIS = 1e3;
var makeMemorySandboxFaultStore = () => {
  const rules = /* @__PURE__ */ new Map();
  const counters = /* @__PURE__ */ new Map();
  return {
    get: (platformId) => Effect38.sync(() => rules.get(platformId)),
    put: (platformId, config) => Effect38.sync(() => {
      rules.set(platformId, config);
      counters.set(platformId, 0);
    }),
    remove: (platformId) => Effect38.sync(() => {
      rules.delete(platformId);
      counters.delete(platformId);
    }),
    nextMatch: (platformId) => Effect38.sync(() => {
      const n = (counters.get(platformId) ?? 0) + 1;
      counters.set(platformId, n);
      return n;
    }),
    matched: (platformId) => Effect38.sync(() => counters.get(platformId) ?? 0),
    withoutRequestRules: (platformId) => (rules.get(platformId)?.requests.length ?? 0) === 0
  };
};
var SandboxFaultStore = Context9.Reference(
  "payments-service/ports/SandboxFaultStore",
  { defaultValue: makeMemorySandboxFaultStore }
);

// src/adapters/memory/index.ts
var memoryLayer = (platforms, options) => Layer5.mergeAll(
  MemoryStoreLayer,
  options?.seed === void 0 ? RandomIdsLayer : seededIdsLayer(options.seed),
  staticPlatformsLayer(platforms),
  HttpWebhookSenderLayer,
  // Fault rules of this app's sandbox platforms (docs/sandbox.md#fault-injection).
  Layer5.sync(SandboxFaultStore, makeMemorySandboxFaultStore)
);

// src/adapters/sql/index.ts
import { PgClient as PgClient2, PgConnection } from "@effect/sql-pg";
import { Effect as Effect65, Layer as Layer8, Redacted } from "effect";
import * as Reactivity2 from "effect/reactivity/Reactivity";
import { SqlClient as SqlClient5 } from "effect/sql";

// src/adapters/sql/pglite.ts
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmdirSync, statSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { messages as pgMessages, parse as pgliteParse, PGlite, protocol, types as pgTypes } from "@electric-sql/pglite";
import { PgClient } from "@effect/sql-pg";
import { Context as Context10, Effect as Effect39, Layer as Layer6, Semaphore, Stream } from "effect";
import { Reactivity } from "effect/reactivity";
import { SqlClient, SqlError as SqlErrors } from "effect/sql";
var { SqlError, UniqueViolation, SerializationError, DeadlockError, UnknownError, ConstraintError } = SqlErrors;
var failureOf = (u) => typeof u === "object" && u !== null ? u : {};
var classify = (cause, operation) => {
  const f = failureOf(cause);
  const code = typeof f.code === "string" ? f.code : "";
  const message = typeof f.message === "string" ? f.message : "PGlite query failed";
  const constraint = typeof f.constraint === "string" ? f.constraint : "";
  if (code === "23505") return new SqlError({ reason: new UniqueViolation({ cause, message, operation, constraint }) });
  if (code === "40001") return new SqlError({ reason: new SerializationError({ cause, message, operation }) });
  if (code === "40P01") return new SqlError({ reason: new DeadlockError({ cause, message, operation }) });
  if (code.startsWith("23")) return new SqlError({ reason: new ConstraintError({ cause, message, operation }) });
  return new SqlError({ reason: new UnknownError({ cause, message, operation }) });
};
var MAX_PREPARED = 256;
var bindMessage = (statement, values, before = [], after) => {
  let size = 4 + 1 + Buffer.byteLength(statement) + 1 + 2 + 2 + 2;
  for (const value of values) size += 4 + (value === null ? 0 : Buffer.byteLength(value));
  let start = 0;
  for (const frame2 of before) start += frame2.length;
  const frame = Buffer.allocUnsafe(start + 1 + size + (after === void 0 ? 0 : after.length));
  start = 0;
  for (const part of before) {
    frame.set(part, start);
    start += part.length;
  }
  frame[start] = 66;
  frame.writeInt32BE(size, start + 1);
  let at = start + 5;
  frame[at++] = 0;
  at += frame.write(statement, at, "utf8");
  frame[at++] = 0;
  frame.writeInt16BE(0, at);
  frame.writeInt16BE(values.length, at + 2);
  at += 4;
  for (const value of values) {
    if (value === null) {
      frame.writeInt32BE(-1, at);
      at += 4;
    } else {
      const written = frame.write(value, at + 4, "utf8");
      frame.writeInt32BE(written, at);
      at += 4 + written;
    }
  }
  frame.writeInt16BE(0, at);
  if (after !== void 0) frame.set(after, at + 2);
  return frame;
};
var TRANSACTION_CONTROL = /^\s*(commit|rollback|savepoint|release)\b/i;
var EXECUTE = protocol.serialize.execute({});
var EXECUTE_SYNC = concatBytes(protocol.serialize.execute({}), protocol.serialize.sync());
var NO_SYNC = { syncToFs: false };
var makeSession = (db) => {
  const statements2 = /* @__PURE__ */ new Map();
  let uses = 0;
  const leading = [];
  let begin;
  let ended = false;
  let counter = 0;
  const takeLeading = () => {
    const frames = leading.splice(0);
    if (begin !== void 0) {
      const named = statements2.get(begin);
      frames.push(
        ...named === void 0 ? [protocol.serialize.parse({ text: begin }), protocol.serialize.bind({})] : [bindMessage(named.name, [])],
        EXECUTE
      );
      begin = void 0;
    }
    return frames;
  };
  const lookup = (text2) => {
    const found = statements2.get(text2);
    if (found !== void 0) found.used = ++uses;
    return found;
  };
  const prepare = async (text2) => lookup(text2) ?? await prepareNew(text2);
  const prepareNew = async (text2) => {
    const name = `payments_${++counter}`;
    const described = await db.execProtocol(
      concatBytes(
        ...leading.splice(0),
        protocol.serialize.parse({ name, text: text2 }),
        protocol.serialize.describe({ type: "S", name }),
        protocol.serialize.sync()
      ),
      NO_SYNC
    );
    const description = described.messages.find((m) => m instanceof pgMessages.RowDescriptionMessage);
    const prepared2 = {
      name,
      types: pgliteParse.parseDescribeStatementResults(described.messages),
      fields: description === void 0 ? [] : description.fields.map(({ name: name2, dataTypeID }) => ({ name: name2, dataTypeID })),
      used: ++uses
    };
    statements2.set(text2, prepared2);
    if (statements2.size > MAX_PREPARED) {
      const byUse = [...statements2].sort((a, b) => a[1].used - b[1].used);
      for (const [oldText, old] of byUse.slice(0, statements2.size - MAX_PREPARED)) {
        statements2.delete(oldText);
        leading.push(protocol.serialize.close({ type: "S", name: old.name }));
      }
    }
    return prepared2;
  };
  const resultOf = (messages, rowMode, described = []) => {
    let fields = described;
    let rows = [];
    let values = [];
    let last = { rows: [], values: [] };
    for (const message of messages) {
      if (message instanceof pgMessages.RowDescriptionMessage) {
        fields = message.fields;
      } else if (message instanceof pgMessages.DataRowMessage) {
        const raw = message.fields;
        if (rowMode === "array") {
          values.push(raw.map((value, i) => pgTypes.parseType(value, fields[i]?.dataTypeID ?? 0, db.parsers)));
        } else {
          const row = {};
          for (let i = 0; i < raw.length; i++) {
            const field = fields[i];
            if (field !== void 0) row[field.name] = pgTypes.parseType(raw[i] ?? null, field.dataTypeID, db.parsers);
          }
          rows.push(row);
        }
      } else if (message instanceof pgMessages.CommandCompleteMessage) {
        last = { rows, values };
        rows = [];
        values = [];
        fields = described;
      }
    }
    return last;
  };
  const ready = () => {
    if (db.closed) throw new Error("PGlite is closed");
  };
  const prepared = async (text2, params, rowMode, again = true) => {
    ready();
    const statement = lookup(text2) ?? await prepareNew(text2);
    const values = params.map((param, i) => {
      if (param === null || param === void 0) return null;
      const serialize = db.serializers[statement.types[i] ?? 0];
      return serialize === void 0 ? String(param) : serialize(param);
    });
    const began = begin !== void 0;
    const frames = takeLeading();
    try {
      const messages = await db.execProtocolStream(bindMessage(statement.name, values, frames, EXECUTE_SYNC), NO_SYNC);
      return resultOf(messages, rowMode, statement.fields);
    } catch (e) {
      const code = failureOf(e).code;
      if (code !== "0A000" && code !== "26000") throw e;
      if (statements2.get(text2) === statement) {
        statements2.delete(text2);
        leading.push(protocol.serialize.close({ type: "S", name: statement.name }));
      }
      if (!again || began || db.isInTransaction()) throw e;
      return await prepared(text2, params, rowMode, false);
    }
  };
  const preparedThenCommit = async (text2, params) => {
    ready();
    const statement = await prepare(text2);
    const commit = await prepare("COMMIT");
    const values = params.map((param, i) => {
      if (param === null || param === void 0) return null;
      const serialize = db.serializers[statement.types[i] ?? 0];
      return serialize === void 0 ? String(param) : serialize(param);
    });
    const frames = takeLeading();
    try {
      await db.execProtocolStream(concatBytes(bindMessage(statement.name, values, frames, EXECUTE_SYNC), bindMessage(commit.name, [], [], EXECUTE_SYNC)), NO_SYNC);
    } finally {
      ended = !db.isInTransaction();
    }
  };
  const viaQuery = async (text2, params, rowMode) => {
    ready();
    const frames = takeLeading();
    if (frames.length > 0) await db.execProtocol(concatBytes(...frames, protocol.serialize.sync()), NO_SYNC);
    return await db.query(text2, [...params], { rowMode });
  };
  const unprepared = async (text2, params, rowMode) => {
    ready();
    if (params.length > 0) {
      const result = await viaQuery(text2, params, rowMode);
      return rowMode === "array" ? { rows: [], values: result.rows.map((row) => Object.values(row)) } : { rows: result.rows, values: [] };
    }
    if (/^\s*begin\b/i.test(text2) && !db.isInTransaction() && begin === void 0) {
      await prepare(text2);
      begin = text2;
      return { rows: [], values: [] };
    }
    if (ended && /^\s*(commit|rollback)\s*$/i.test(text2)) {
      ended = false;
      return { rows: [], values: [] };
    }
    if (begin !== void 0 && /^\s*(commit|rollback)\s*$/i.test(text2)) {
      begin = void 0;
      return { rows: [], values: [] };
    }
    if (TRANSACTION_CONTROL.test(text2)) return await prepared(text2, [], rowMode);
    const messages = await db.execProtocolStream(
      concatBytes(
        ...takeLeading(),
        protocol.serialize.parse({ text: text2 }),
        protocol.serialize.bind({}),
        protocol.serialize.describe({ type: "P" }),
        protocol.serialize.execute({}),
        protocol.serialize.sync()
      ),
      NO_SYNC
    );
    return resultOf(messages, rowMode);
  };
  let tail2 = Promise.resolve();
  let calls = 0;
  const serially = (call) => {
    const run2 = calls === 0 ? call() : tail2.then(call, call);
    calls++;
    const done = () => {
      calls--;
    };
    tail2 = run2.then(done, done);
    return run2;
  };
  return {
    prepared: (text2, params, rowMode) => serially(() => prepared(text2, params, rowMode)),
    preparedThenCommit: (text2, params) => serially(() => preparedThenCommit(text2, params)),
    unprepared: (text2, params, rowMode) => serially(() => unprepared(text2, params, rowMode)),
    viaQuery: (text2, params, rowMode) => serially(() => viaQuery(text2, params, rowMode)),
    /** In a transaction, about to begin one with the next statement, or about to end one that ended with its last statement's call. */
    inTransaction: () => begin !== void 0 || ended || db.isInTransaction()
  };
};
var thenCommit = /* @__PURE__ */ new WeakMap();
var thenCommitOf = (connection) => thenCommit.get(connection);
var connectionOf = (session) => {
  const connection = connectionBase(session);
  thenCommit.set(connection, (text2, params) => Effect39.tryPromise({ try: () => session.preparedThenCommit(text2, params), catch: (cause) => classify(cause, "execute") }));
  return connection;
};
var connectionBase = (session) => {
  const run2 = (text2, params, rowMode, prepared) => Effect39.tryPromise({
    try: () => prepared ? session.prepared(text2, params, rowMode) : session.unprepared(text2, params, rowMode),
    catch: (cause) => classify(cause, "execute")
  });
  const rows = (text2, params, prepared) => Effect39.map(run2(text2, params, "object", prepared), (r) => r.rows);
  const values = (text2, params, prepared) => Effect39.map(run2(text2, params, "array", prepared), (r) => r.values);
  return {
    execute: (text2, params, transformRows) => Effect39.map(rows(text2, params, true), (r) => transformRows === void 0 ? r : transformRows(r)),
    // The driver's own result, as `db.query` gives it.
    executeRaw: (text2, params) => Effect39.tryPromise({ try: () => session.viaQuery(text2, params, "object"), catch: (cause) => classify(cause, "execute") }),
    executeStream: (text2, params, transformRows) => Stream.fromIterableEffect(Effect39.map(rows(text2, params, true), (r) => transformRows === void 0 ? r : transformRows(r))),
    executeValues: (text2, params) => values(text2, params, true),
    executeValuesUnprepared: (text2, params) => values(text2, params, false),
    executeUnprepared: (text2, params, transformRows) => Effect39.map(rows(text2, params, false), (r) => transformRows === void 0 ? r : transformRows(r))
  };
};
var openHere = /* @__PURE__ */ new Set();
var errorCode = (e) => e instanceof Error && "code" in e ? e.code : void 0;
var STALE_GUARD_MILLIS = 1e4;
var removeStaleLock = (path, observed) => {
  const guard = `${path}.takeover`;
  try {
    mkdirSync(guard);
  } catch (e) {
    if (errorCode(e) !== "EEXIST") throw e;
    try {
      if (Date.now() - statSync(guard).mtimeMs > STALE_GUARD_MILLIS) rmdirSync(guard);
    } catch (e2) {
      if (errorCode(e2) !== "ENOENT") throw e2;
    }
    return false;
  }
  try {
    let current;
    try {
      current = readFileSync(path, "utf8");
    } catch (e) {
      if (errorCode(e) === "ENOENT") return true;
      throw e;
    }
    if (current !== observed) return false;
    unlinkSync(path);
    return true;
  } finally {
    rmdirSync(guard);
  }
};
var LOCK_ATTEMPTS = 100;
var pause = (millis) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, millis);
var acquireDataDirLock = (dir) => {
  const path = join(dir, "payments-service.lock");
  if (openHere.has(path)) {
    throw new Error(`PAYMENTS_DATA_DIR ${dir} is already open in this process; one store per data directory`);
  }
  for (let attempt = 0; attempt < LOCK_ATTEMPTS; attempt++) {
    try {
      const fd = openSync(path, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      openHere.add(path);
      return path;
    } catch (e) {
      if (errorCode(e) !== "EEXIST") throw e;
      let content;
      try {
        content = readFileSync(path, "utf8");
      } catch (e2) {
        if (errorCode(e2) === "ENOENT") continue;
        throw e2;
      }
      const owner = Number(content.trim());
      let live2;
      try {
        live2 = Number.isInteger(owner) && owner > 0 ? owner !== process.pid && isAlive(owner) : Date.now() - statSync(path).mtimeMs < 1e4;
      } catch (e2) {
        if (errorCode(e2) === "ENOENT") continue;
        throw e2;
      }
      if (live2) {
        throw new Error(`PAYMENTS_DATA_DIR ${dir} is in use by process ${owner > 0 ? owner : "(starting)"}; one server process per data directory`);
      }
      if (!removeStaleLock(path, content)) pause(10);
    }
  }
  throw new Error(`could not lock PAYMENTS_DATA_DIR ${dir}`);
};
var lockDataDir = (dir) => Effect39.acquireRelease(
  Effect39.try({
    try: () => acquireDataDirLock(dir),
    catch: (e) => e instanceof Error ? e : new Error(String(e))
  }),
  (path) => Effect39.sync(() => {
    openHere.delete(path);
    unlinkSync(path);
  })
);
var isAlive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e instanceof Error && "code" in e && e.code === "EPERM";
  }
};
var clientOver = (db) => Effect39.gen(function* () {
  const semaphore = yield* Semaphore.make(1);
  const session = makeSession(db);
  const acquirers = SqlClient.makeSqliteAcquirers({
    connection: Effect39.succeed(connectionOf(session)),
    semaphore,
    isTransaction: () => session.inTransaction()
  });
  return yield* SqlClient.make({
    ...acquirers,
    compiler: PgClient.makeCompiler(),
    driver: "pglite",
    spanAttributes: [["db.system.name", "postgresql"]],
    releaseSavepoint: (name) => `RELEASE SAVEPOINT ${name}`
  });
});
var openPglite = (dataDir, template) => Effect39.acquireRelease(
  Effect39.tryPromise({
    try: () => PGlite.create({ ...dataDir === void 0 ? {} : { dataDir }, ...template === void 0 ? {} : { loadDataDir: template } }),
    catch: (cause) => classify(cause, "connect")
  }),
  (db) => Effect39.promise(() => db.close())
);
var makePgliteClient = (dataDir, options = {}) => Effect39.gen(function* () {
  let template = options.template;
  if (dataDir !== void 0) {
    yield* Effect39.sync(() => mkdirSync(dataDir, { recursive: true }));
    yield* lockDataDir(dataDir);
    if (existsSync(join(dataDir, "pgdata", "PG_VERSION"))) template = void 0;
  }
  const db = yield* openPglite(dataDir === void 0 ? void 0 : join(dataDir, "pgdata"), template);
  return yield* clientOver(db);
});
var dumpPgliteAfter = (prepare) => Effect39.scoped(Effect39.gen(function* () {
  const db = yield* openPglite(void 0, void 0);
  const client = yield* clientOver(db);
  yield* Effect39.provideService(prepare, SqlClient.SqlClient, client);
  return yield* Effect39.tryPromise({ try: () => db.dumpDataDir("none"), catch: (cause) => classify(cause, "dump") });
}).pipe(Effect39.provide(Reactivity.layer)));
var pgliteClientLayer = (dataDir, options = {}) => Layer6.effectContext(Effect39.map(makePgliteClient(dataDir, options), (client) => Context10.make(SqlClient.SqlClient, client))).pipe(
  Layer6.provide(Reactivity.layer)
);

// src/adapters/sql/sandbox-faults.ts
import { Clock as Clock5, Effect as Effect40, Layer as Layer7, Schema as Schema21 } from "effect";
import { SqlClient as SqlClient2 } from "effect/sql";

// src/domain/sandbox-faults.ts
import { Schema as Schema20 } from "effect";
var MAX_FAULT_LATENCY_MILLIS = 1e4;
var MAX_WEBHOOK_DELAY_MILLIS = 1e4;
var MAX_FAULT_RULES = 50;
var RuleId = Schema20.String.check(Schema20.isPattern(/^[A-Za-z0-9_.-]{1,64}$/)).annotate({ description: "1 to 64 letters, digits, '_', '.' or '-': the value of `x-sandbox-fault` when the rule fires." });
var Probability = Schema20.Number.check(Schema20.isBetween({ minimum: 0, maximum: 1 })).annotate({ description: "Chance the rule fires on a request it matches, 0 to 1 (default 1)." });
var PathPattern = Schema20.String.check(Schema20.isPattern(/^\/[A-Za-z0-9_.~:*/-]{0,255}$/)).annotate({ description: "A path below the version base, e.g. `/customers/*`; `*` matches any characters except `/`." });
var RequestFaultMatch = Schema20.Struct({
  /** The OpenAPI operationId (`customers.createCustomer`) or its last part (`createCustomer`). */
  operationId: Schema20.optionalKey(Schema20.String.check(Schema20.isMinLength(1), Schema20.isMaxLength(128))),
  method: Schema20.optionalKey(Schema20.Literals(["GET", "POST", "PUT", "PATCH", "DELETE"])),
  path: Schema20.optionalKey(PathPattern)
});
var FaultStatus = Schema20.Literals([429, 500, 502, 503, 504]);
var RequestFaultAction = Schema20.Union([
  Schema20.Struct({
    type: Schema20.Literal("ERROR"),
    status: FaultStatus,
    /** `retry-after` of a 429 or 503 (default 1). */
    retryAfterSeconds: Schema20.optionalKey(Schema20.Int.check(Schema20.isBetween({ minimum: 1, maximum: 3600 })))
  }),
  Schema20.Struct({
    type: Schema20.Literal("LATENCY"),
    millis: Schema20.Int.check(Schema20.isBetween({ minimum: 1, maximum: MAX_FAULT_LATENCY_MILLIS }))
  }),
  Schema20.Struct({ type: Schema20.Literal("LOSE_ANSWER") })
]);
var RequestFaultRule = Schema20.Struct({
  id: RuleId,
  match: RequestFaultMatch,
  probability: Schema20.optionalKey(Probability),
  action: RequestFaultAction
});
var WebhookFaultAction = Schema20.Union([
  /** The same webhook (same id, body and signature) is POSTed twice. */
  Schema20.Struct({ type: Schema20.Literal("DUPLICATE") }),
  /** The POST waits this long (real time) first. */
  Schema20.Struct({
    type: Schema20.Literal("DELAY"),
    millis: Schema20.Int.check(Schema20.isBetween({ minimum: 1, maximum: MAX_WEBHOOK_DELAY_MILLIS }))
  }),
  /** The first `attempts` attempts of a delivery fail without being sent; it is retried on its schedule. */
  Schema20.Struct({
    type: Schema20.Literal("FAIL_FIRST"),
    attempts: Schema20.Int.check(Schema20.isBetween({ minimum: 1, maximum: 7 }))
  }),
  /** The delivery is held back for one retry interval: later webhooks about other resources arrive before it. */
  Schema20.Struct({ type: Schema20.Literal("OUT_OF_ORDER") })
]);
var WebhookFaultRule = Schema20.Struct({
  id: RuleId,
  /** The webhook `type` it applies to (`*` as in paths); every type when omitted. */
  eventType: Schema20.optionalKey(Schema20.String.check(Schema20.isPattern(/^[A-Z0-9_.*]{1,64}$/))),
  probability: Schema20.optionalKey(Probability),
  action: WebhookFaultAction
});
var SandboxFaults = NamedStruct("SandboxFaults", {
  /** Drives every probability: the same seed and the same requests give the same faults (default 0). */
  seed: Schema20.optionalKey(Schema20.Int.check(Schema20.isBetween({ minimum: 0, maximum: 2 ** 32 - 1 }))),
  requests: Schema20.optionalKey(Schema20.Array(RequestFaultRule).check(Schema20.isMaxLength(MAX_FAULT_RULES))),
  webhooks: Schema20.optionalKey(Schema20.Array(WebhookFaultRule).check(Schema20.isMaxLength(MAX_FAULT_RULES)))
});
var SandboxFaultsView = NamedStruct("SandboxFaultsView", {
  seed: Schema20.Number,
  requests: Schema20.Array(RequestFaultRule),
  webhooks: Schema20.Array(WebhookFaultRule),
  /** Requests that matched a rule since the rules were set (the counter the probabilities are drawn with). */
  matchedRequests: Schema20.Number
});
var normalizeFaults = (f) => ({
  seed: f.seed ?? 0,
  requests: f.requests ?? [],
  webhooks: f.webhooks ?? []
});

// src/adapters/sql/sandbox-faults.ts
var decodeConfig = Schema21.decodeUnknownSync(Schema21.fromJsonString(SandboxFaults));
var makeSqlSandboxFaultStore = Effect40.gen(function* () {
  const sql = yield* SqlClient2.SqlClient;
  const run2 = (text2, params) => Effect40.orDie(sql.unsafe(text2, params));
  const cache = /* @__PURE__ */ new Map();
  const service = {
    get: (platformId) => Effect40.gen(function* () {
      const now = yield* Clock5.currentTimeMillis;
      const cached = cache.get(platformId);
      if (cached !== void 0 && now - cached.at < FAULT_RULES_CACHE_MILLIS) return cached.config;
      const rows = yield* run2(
        "select config::text as config from sandbox_faults where platform_id = $1",
        [platformId]
      );
      const text2 = rows[0]?.config;
      const config = text2 === void 0 ? void 0 : normalizeFaults(decodeConfig(text2));
      cache.set(platformId, { config, at: now });
      return config;
    }),
    put: (platformId, config) => Effect40.gen(function* () {
      yield* run2(
        `insert into sandbox_faults (platform_id, config, matched) values ($1, $2::jsonb, 0)
           on conflict (platform_id) do update set config = excluded.config, matched = 0`,
        [platformId, JSON.stringify(config)]
      );
      cache.set(platformId, { config, at: yield* Clock5.currentTimeMillis });
    }),
    remove: (platformId) => Effect40.gen(function* () {
      yield* run2("delete from sandbox_faults where platform_id = $1", [platformId]);
      cache.set(platformId, { config: void 0, at: yield* Clock5.currentTimeMillis });
    }),
    nextMatch: (platformId) => Effect40.map(
      run2(
        "update sandbox_faults set matched = matched + 1 where platform_id = $1 returning matched",
        [platformId]
      ),
      // Rules removed by another process in the meantime: this one counts as the first.
      (rows) => rows[0] === void 0 ? 1 : Number(rows[0].matched)
    ),
    matched: (platformId) => Effect40.map(
      run2("select matched from sandbox_faults where platform_id = $1", [platformId]),
      (rows) => rows[0] === void 0 ? 0 : Number(rows[0].matched)
    )
  };
  return service;
});
var SqlSandboxFaultStoreLayer = Layer7.effect(SandboxFaultStore, makeSqlSandboxFaultStore);

// src/adapters/sql/store.ts
import { createHash as createHash4 } from "node:crypto";
import { Cause as Cause5, Context as Context15, Effect as Effect64, Option as Option4, References as References2, Scope as Scope3 } from "effect";
import { SqlClient as SqlClient4 } from "effect/sql";
import { isSqlError as isSqlError3 } from "effect/sql/SqlError";

// src/adapters/sql/agents.ts
import { Effect as Effect43 } from "effect";

// src/adapters/sql/direct.ts
import { Cause, Context as Context11, Effect as Effect41, Exit, Fiber as Fiber2, References, Scope, Semaphore as Semaphore2, Stream as Stream2 } from "effect";
import { hasProperty } from "effect/Predicate";
import { SqlError as SqlError2, UnknownError as UnknownError2 } from "effect/sql/SqlError";
var makeRunIn = (sql) => (context, text2, params) => {
  const tx = Context11.getOrUndefined(context, sql.transactionService);
  return tx !== void 0 && !Context11.get(context, References.TracerEnabled) ? tx[0].execute(text2, params, void 0) : sql.unsafe(text2, params);
};
var makeRunStatement = (sql) => {
  const runIn = makeRunIn(sql);
  return (text2, params) => Effect41.contextWith((context) => runIn(context, text2, params));
};
var PipelinedConnection = class {
  constructor(pg2) {
    this.pg = pg2;
  }
  pg;
  /** The BEGIN to queue before the next statement (`arm`). */
  waiting = void 0;
  /** BEGIN's answer, once it was queued. */
  begun = void 0;
  /** BEGIN failed before it was queued (the session was known dead): nothing of the transaction was written. */
  unsent = false;
  /** A transaction begins with the next statement: `begin` goes in the same write. */
  arm(begin) {
    this.waiting = begin;
    this.begun = void 0;
    this.unsent = false;
  }
  /** Whether BEGIN failed before it was written (so was everything after it). */
  get beginUnsent() {
    return this.unsent;
  }
  /** Whether BEGIN is still waiting for a statement (the transaction sent nothing). */
  get armed() {
    return this.waiting !== void 0;
  }
  /** Nothing sent: the transaction ends without BEGIN or COMMIT. */
  disarm() {
    this.waiting = void 0;
  }
  /** BEGIN's outcome (undefined: never sent). */
  beginOutcome() {
    return this.begun === void 0 ? void 0 : Fiber2.await(this.begun);
  }
  /** `cycle` (a statement queued when it runs), with the waiting BEGIN queued just before it. */
  run(cycle) {
    return Effect41.suspend(() => {
      const begin = this.waiting;
      if (begin === void 0) return cycle;
      this.waiting = void 0;
      return Effect41.flatMap(Effect41.forkDetach(this.pg.query(begin), { startImmediately: true, uninterruptible: true }), (fiber) => {
        this.begun = fiber;
        this.unsent = fiber.pollUnsafe() !== void 0;
        const checked = (begun, a) => Exit.isFailure(begun) ? Effect41.failCause(begun.cause) : Effect41.succeed(a);
        return Effect41.flatMap(cycle, (a) => {
          const begun = fiber.pollUnsafe();
          return begun === void 0 ? Effect41.flatMap(Fiber2.await(fiber), (exit) => checked(exit, a)) : checked(begun, a);
        });
      });
    });
  }
  rows(sql, params, prepare) {
    return Effect41.map(this.pg.query(sql, params, prepare), (result) => result.rows);
  }
  execute(sql, params, transformRows) {
    const rows = this.rows(sql, params, true);
    return this.run(transformRows === void 0 ? rows : Effect41.map(rows, transformRows));
  }
  executeRaw(sql, params) {
    return this.run(this.pg.query(sql, params));
  }
  executeWithoutTransform(sql, params) {
    return this.run(this.rows(sql, params, true));
  }
  executeValues(sql, params) {
    return this.run(this.pg.queryValues(sql, params));
  }
  executeValuesUnprepared(sql, params) {
    return this.run(this.pg.queryValues(sql, params, false));
  }
  executeUnprepared(sql, params, transformRows) {
    const rows = this.rows(sql, params, false);
    return this.run(transformRows === void 0 ? rows : Effect41.map(rows, transformRows));
  }
  /** A stream pins the session: the waiting BEGIN is sent (and answered) first. */
  executeStream(sql, params, transformRows) {
    const stream = Stream2.unwrap(Effect41.as(this.run(Effect41.void), this.pg.stream(sql, params)));
    return transformRows === void 0 ? stream : Stream2.mapArray(stream, (rows) => transformRows(rows));
  }
};
var makeDirectTransactions = (sql, begin, keep) => {
  const service = sql.transactionService;
  const savepointTurns = /* @__PURE__ */ new WeakMap();
  const turnOf = (level) => {
    let turn = savepointTurns.get(level);
    if (turn === void 0) {
      turn = Semaphore2.makeUnsafe(1);
      savepointTurns.set(level, turn);
    }
    return turn;
  };
  const control = (connection, text2) => connection.execute(text2, [], void 0);
  const commit = (connection) => Effect41.flatMap(connection.executeRaw("COMMIT", []), (result) => hasProperty(result, "command") && result.command === "ROLLBACK" ? Effect41.fail(
    new SqlError2({
      reason: new UnknownError2({
        cause: new Error("COMMIT rolled back an aborted transaction"),
        message: "COMMIT rolled back an aborted transaction",
        operation: "commit"
      })
    })
  ) : Effect41.void);
  const commitWith = (connection, last) => {
    if (last === void 0) return commit(connection);
    const { params, text: text2 } = last;
    const sent = Effect41.contextWith(
      (context) => Context11.get(context, References.TracerEnabled) ? Effect41.provideService(sql.unsafe(text2, params), service, [connection, 0]) : connection.execute(text2, params, void 0)
    );
    const statement = Effect41.exit(sent);
    return Effect41.flatMap(Effect41.forkChild(statement, { startImmediately: true }), (fiber) => {
      const early = fiber.pollUnsafe();
      if (early !== void 0 && Exit.isSuccess(early) && Exit.isFailure(early.value)) {
        const cause = early.value.cause;
        return Effect41.andThen(Effect41.exit(control(connection, "ROLLBACK")), last.failed(cause));
      }
      return Effect41.flatMap(Effect41.exit(commit(connection)), (committed) => Effect41.flatMap(Fiber2.join(fiber), (sent2) => {
        if (Exit.isFailure(sent2)) return last.failed(sent2.cause);
        if (Exit.isFailure(committed)) return committed;
        last.committed();
        return Effect41.void;
      }));
    });
  };
  const takeLast = (last) => last === void 0 ? Effect41.succeed(Exit.succeed(void 0)) : Effect41.exit(Effect41.sync(last));
  const runAt = (restore, effect, level, provide) => Effect41.exit(restore(Effect41.updateContext(effect, (context) => {
    const inner = Context11.add(context, service, level);
    return provide === void 0 ? inner : provide(inner);
  })));
  const topLevelOn = (restore, connection, effect, provide, last) => Effect41.flatMap(control(connection, begin), () => afterBegin(restore, connection, effect, provide, last));
  const afterBegin = (restore, connection, effect, provide, last) => Effect41.flatMap(runAt(restore, effect, [connection, 0], provide), (exit) => {
    const rolledBack = (failure) => Effect41.andThen(Effect41.orDie(control(connection, "ROLLBACK")), failure);
    if (Exit.isFailure(exit)) return rolledBack(exit);
    return Effect41.flatMap(takeLast(last), (taken) => Exit.isFailure(taken) ? rolledBack(Exit.failCause(taken.cause)) : Effect41.andThen(commitWith(connection, taken.value), exit));
  });
  const nestedIn = (restore, outer, effect, provide) => {
    const [connection, depth] = outer;
    const name = `effect_sql_${depth + 1}`;
    const release = Effect41.orDie(control(connection, `RELEASE SAVEPOINT ${name}`));
    return turnOf(outer).withPermit(
      Effect41.flatMap(control(connection, `SAVEPOINT ${name}`), () => Effect41.flatMap(runAt(restore, effect, [connection, depth + 1], provide), (exit) => Exit.isSuccess(exit) ? Effect41.andThen(release, exit) : Effect41.andThen(Effect41.andThen(Effect41.orDie(control(connection, `ROLLBACK TO SAVEPOINT ${name}`)), release), exit)))
    );
  };
  const idle = [];
  let kept = 0;
  let closed = false;
  let sweeper;
  const giveBack = (k) => {
    kept--;
    return Scope.close(k.scope, Exit.void);
  };
  const sweep = () => {
    if (keep === void 0) return;
    const before = Date.now() - keep.idleMillis;
    for (let i = idle.length - 1; i >= 0; i--) {
      const k = idle[i];
      if (k.idleSince <= before) {
        idle.splice(i, 1);
        Effect41.runFork(giveBack(k));
      }
    }
  };
  const acquire = keep?.connect === void 0 ? sql.reserve : Effect41.map(keep.connect, (pg2) => new PipelinedConnection(pg2));
  const take2 = (restore) => Effect41.suspend(() => {
    const k = idle.pop();
    if (k !== void 0) return Effect41.succeed(k);
    if (keep === void 0 || closed || kept >= keep.connections) return Effect41.succeed(void 0);
    kept++;
    if (sweeper === void 0) {
      sweeper = setInterval(sweep, keep.idleMillis);
      sweeper.unref();
    }
    return Effect41.flatMap(Scope.make(), (scope) => Effect41.map(
      Effect41.onError(restore(Scope.provide(acquire, scope)), (cause) => Effect41.suspend(() => {
        kept--;
        return Scope.close(scope, Exit.failCause(cause));
      })),
      (connection) => ({ connection, scope, idleSince: 0 })
    ));
  });
  const putBack = (k) => {
    if (closed) return giveBack(k);
    k.idleSince = Date.now();
    idle.push(k);
    return Effect41.void;
  };
  const close = Effect41.suspend(() => {
    closed = true;
    if (sweeper !== void 0) clearInterval(sweeper);
    return Effect41.forEach(idle.splice(0), giveBack, { discard: true });
  });
  const onReserved = (restore, effect, provide, last) => Effect41.flatMap(Scope.make(), (scope) => Effect41.onExit(
    Effect41.flatMap(restore(Scope.provide(sql.reserve, scope)), (connection) => topLevelOn(restore, connection, effect, provide, last)),
    (exit) => Scope.close(scope, exit)
  ));
  const onKept = (restore, k, effect, provide, last) => Effect41.matchCauseEffect(control(k.connection, begin), {
    onFailure: () => Effect41.andThen(giveBack(k), onReserved(restore, effect, provide, last)),
    onSuccess: () => Effect41.flatMap(Effect41.exit(afterBegin(restore, k.connection, effect, provide, last)), (exit) => Exit.isSuccess(exit) ? Effect41.andThen(putBack(k), exit) : Effect41.andThen(giveBack(k), exit))
  });
  const onOwned = (restore, k, c, effect, provide, last, retries) => {
    const ended = (outcome, rollback) => Effect41.flatMap(rollback ? Effect41.exit(Effect41.asVoid(control(c, "ROLLBACK"))) : Effect41.succeed(Exit.void), (rolledBack) => {
      const began = c.beginOutcome();
      return Effect41.flatMap(began === void 0 ? Effect41.succeed(Exit.void) : began, (begun) => {
        if (Exit.isFailure(begun) && brokenSession(begun.cause)) {
          const nothingRan = !commitWithBegin || c.beginUnsent || endedByServer(begun.cause);
          const again = nothingRan && retries > 0 && Exit.isFailure(outcome) && !Exit.hasInterrupts(outcome);
          return Effect41.andThen(giveBack(k), again ? topLevel(restore, effect, provide, last, retries - 1) : outcome);
        }
        return Effect41.andThen(Exit.isSuccess(rolledBack) ? putBack(k) : giveBack(k), outcome);
      });
    });
    let commitWithBegin = false;
    return Effect41.suspend(() => {
      c.arm(begin);
      const failed2 = (failure) => {
        if (!c.armed) return ended(failure, true);
        c.disarm();
        return ended(failure, false);
      };
      return Effect41.flatMap(runAt(restore, effect, [c, 0], provide), (exit) => {
        if (Exit.isFailure(exit)) return failed2(exit);
        return Effect41.flatMap(takeLast(last), (taken) => {
          if (Exit.isFailure(taken)) return failed2(Exit.failCause(taken.cause));
          const statement = taken.value;
          if (c.armed && statement === void 0) {
            c.disarm();
            return ended(exit, false);
          }
          commitWithBegin = c.armed;
          return Effect41.flatMap(Effect41.exit(commitWith(c, statement)), (committed) => Exit.isSuccess(committed) ? Effect41.andThen(putBack(k), exit) : ended(Exit.failCause(committed.cause), true));
        });
      });
    });
  };
  const topLevel = (restore, effect, provide, last, retries) => keep === void 0 ? onReserved(restore, effect, provide, last) : Effect41.flatMap(take2(restore), (k) => k === void 0 ? onReserved(restore, effect, provide, last) : k.connection instanceof PipelinedConnection ? onOwned(restore, k, k.connection, effect, provide, last, retries) : onKept(restore, k, effect, provide, last));
  const withTransaction = (effect, provide, last) => Effect41.uninterruptibleMask(
    (restore) => Effect41.contextWith((context) => {
      const level = Context11.getOrUndefined(context, service);
      if (level === void 0) return topLevel(restore, effect, provide, last, (keep?.connections ?? 0) + 1);
      return level[1] < 0 ? topLevelOn(restore, level[0], effect, provide, last) : nestedIn(restore, level, effect, provide);
    })
  );
  return { withTransaction, close, keptCount: () => kept };
};
var brokenSession = (cause) => cause.reasons.some((r) => Cause.isFailReason(r) && r.error.reason._tag === "ConnectionError") || endedByServer(cause);
var sqlStateOf = (e) => {
  const cause = e.reason.cause;
  if (typeof cause !== "object" || cause === null) return void 0;
  if ("code" in cause && typeof cause.code === "string") return cause.code;
  const inner = "cause" in cause ? cause.cause : void 0;
  return typeof inner === "object" && inner !== null && "code" in inner && typeof inner.code === "string" ? inner.code : void 0;
};
var endedByServer = (cause) => cause.reasons.some((r) => Cause.isFailReason(r) && sqlStateOf(r.error)?.startsWith("57P") === true);

// src/adapters/sql/documents.ts
import { Effect as Effect42 } from "effect";
var Where = class _Where {
  conditions = [];
  params = [];
  /**
   * Set by `eitherEq`: the alternatives of the one disjunction in the clause, each a
   * condition one index serves. `text` holds their OR; a page runs one scan per
   * alternative instead (see `pageStatement`), since an OR of two indexes is a bitmap
   * scan that reads every matching row and sorts them for one page.
   */
  arms = void 0;
  add(condition, value) {
    this.params.push(value);
    this.conditions.push(condition(`$${this.params.length}`));
    return this;
  }
  /** The clause every query starts from: the platform's rows. */
  static platform(platformId) {
    return new _Where().add((p) => `platform_id = ${p}`, platformId);
  }
  /** `column = value`, unless the filter is unset (undefined). */
  eq(column, value) {
    return value === void 0 ? this : this.add((p) => `${column} = ${p}`, value);
  }
  /** `column` (epoch ms) within the range, either end open (or the whole range unset). */
  within(column, range) {
    if (range?.from !== void 0) this.add((p) => `${column} >= ${p}::bigint`, range.from);
    if (range?.to !== void 0) this.add((p) => `${column} <= ${p}::bigint`, range.to);
    return this;
  }
  /**
   * `column = value` for any of the columns (one parameter), unless the filter is unset;
   * at most one such disjunction per clause (a page runs one scan per column).
   */
  eitherEq(columns, value) {
    if (value === void 0) return this;
    if (this.arms !== void 0) throw new Error("a WHERE holds at most one disjunction");
    this.params.push(value);
    const placeholder = `$${this.params.length}`;
    this.arms = columns.map((column) => `${column} = ${placeholder}`);
    this.conditions.push(`(${this.arms.join(" or ")})`);
    return this;
  }
  /** The clause with the disjunction replaced by one of its alternatives (`arm` of `arms`). */
  armText(arm) {
    const either = this.arms === void 0 ? void 0 : `(${this.arms.join(" or ")})`;
    return this.conditions.map((c) => c === either ? arm : c).join(" and ");
  }
  raw(condition) {
    this.conditions.push(condition);
    return this;
  }
  get text() {
    return this.conditions.join(" and ");
  }
};
var conflictOrDie = (e) => e.reason._tag === "UniqueViolation" && isUniqueConstraint(e.reason.constraint) ? conflictIn(e.reason.constraint) : Effect42.die(e);
var makeWrite = (sql, before) => {
  const run2 = makeRunStatement(sql);
  return (text2, params) => Effect42.andThen(before, run2(text2, params).pipe(Effect42.asVoid, Effect42.catch(conflictOrDie)));
};
var docOf = (row) => JSON.parse(row.doc);
var frozenThrough = (value) => {
  if (typeof value === "object" && value !== null) {
    for (const key of Object.keys(value)) frozenThrough(value[key]);
    Object.freeze(value);
  }
  return value;
};
var PARSED_KEPT = 1024;
var parsed = new BoundedMemo(PARSED_KEPT);
var PARSED_TEXT_MAX = 16384;
var parseFrozen = (text2) => frozenThrough(JSON.parse(text2));
var keptDocOf = (text2) => {
  if (text2.length > PARSED_TEXT_MAX) return JSON.parse(text2);
  return parsed.getOrCompute(text2, parseFrozen);
};
var PAGE_LIMIT_IN_TEXT = 100;
var pageStatement = (table, where, p) => {
  const params = [...where.params];
  const direction = p.descending === true ? "desc" : "asc";
  let keyset = "true";
  if (p.cursor !== void 0) {
    const after = decodeCursor(p.cursor);
    if (!("createdAt" in after)) return after;
    params.push(after.createdAt, after.id);
    keyset = `(created_ms, id) ${p.descending === true ? "<" : ">"} ($${params.length - 1}::bigint, $${params.length}::text)`;
  }
  let limit;
  if (Number.isSafeInteger(p.limit) && p.limit >= 1 && p.limit <= PAGE_LIMIT_IN_TEXT) limit = String(p.limit + 1);
  else {
    params.push(p.limit + 1);
    limit = `$${params.length}`;
  }
  if (where.arms !== void 0) {
    const arms = where.arms.map((arm) => where.armText(arm));
    const counted = arms.map((w) => `(select id from ${table} where ${w} limit ${TOTAL_COUNT_LIMIT + 1})`).join(" union ");
    const scans = arms.map(
      (w) => `(select doc::text as doc, created_ms, id from ${table} where ${w} and ${keyset}
             order by created_ms ${direction}, id ${direction} limit ${limit})`
    ).join(" union ");
    return {
      text: `select (select count(*)::int from (${counted}) counted) as total, page.doc
         from (select 1) one left join lateral (
           select doc, created_ms, id from (${scans}) arms
           order by created_ms ${direction}, id ${direction} limit ${limit}
         ) page on true
         order by page.created_ms ${direction}, page.id ${direction}`,
      params
    };
  }
  return {
    text: `select (select count(*)::int from (select 1 from ${table} where ${where.text} limit ${TOTAL_COUNT_LIMIT + 1}) counted) as total, page.doc
         from (select 1) one left join lateral (
           select doc::text as doc, created_ms, id from ${table} where ${where.text} and ${keyset}
           order by created_ms ${direction}, id ${direction} limit ${limit}
         ) page on true
         order by page.created_ms ${direction}, page.id ${direction}`,
    params
  };
};
var documentReads = (query2) => {
  const one = (text2, params) => Effect42.map(query2(text2, params), (rows) => rows[0] === void 0 ? void 0 : docOf(rows[0]));
  const many = (text2, params) => Effect42.map(query2(text2, params), (rows) => rows.map((row) => docOf(row)));
  const page = (table, where, p, keyOf3) => Effect42.gen(function* () {
    const statement = pageStatement(table, where, p);
    if (!("text" in statement)) return yield* Effect42.fail(statement);
    const result = yield* query2(statement.text, statement.params);
    const rows = result.flatMap((row) => row.doc === null ? [] : [docOf({ doc: row.doc })]);
    const hasMore = rows.length > p.limit;
    const data = hasMore ? rows.slice(0, p.limit) : rows;
    const last = data[data.length - 1];
    const totalCount = result[0]?.total ?? 0;
    return hasMore && last !== void 0 ? { data, hasMore, nextCursor: encodeCursor(keyOf3(last)), ...totalCountOf(totalCount) } : { data, hasMore, ...totalCountOf(totalCount) };
  });
  const byId = (table) => (platformId, id) => one(`select doc::text as doc from ${table} where platform_id = $1 and id = $2`, [platformId, id]);
  const byColumn = (table, column) => (platformId, value) => many(`select doc::text as doc from ${table} where platform_id = $1 and ${column} = $2 order by created_ms, id`, [platformId, value]);
  return { one, many, page, byId, byColumn };
};

// src/adapters/sql/agents.ts
var AGENT_ID_INDEXES = { deviceCodes: "agent_records_device_codes", tokens: "agent_records_tokens" };
var AGENT_TABLES = ["agent_records"];
var agentIdOf = (r) => r.kind === "agent" ? null : r.agentId;
var statusOf = (r) => r.kind === "action" ? r.action.status : null;
var makeAgentStore = (query2) => {
  const { one, many, page } = documentReads(query2);
  return {
    writes: {
      putAgentRecord: (r) => Effect43.asVoid(query2(
        `insert into agent_records (platform_id, kind, id, created_ms, agent_id, customer_id, status, doc)
           values ($1, $2, $3, $4::bigint, $5, $6, $7, $8::jsonb)
           on conflict (platform_id, kind, id) do update set agent_id = excluded.agent_id,
             customer_id = excluded.customer_id, status = excluded.status, doc = excluded.doc`,
        [r.platformId, r.kind, r.id, millisOf2(r.createdAt), agentIdOf(r), r.customerId, statusOf(r), JSON.stringify(r)]
      )),
      deleteAgentRecord: (platformId, kind, id) => Effect43.asVoid(query2(`delete from agent_records where platform_id = $1 and kind = $2 and id = $3`, [platformId, kind, id]))
    },
    tables: AGENT_TABLES,
    repositories: { agents: {
      get: (platformId, kind, id) => one(`select doc::text as doc from agent_records where platform_id = $1 and kind = $2 and id = $3`, [platformId, kind, id]),
      // The kind is spelled in the statement so the planner uses its partial unique index.
      find: (kind, id) => one(
        kind === "deviceCode" ? `select doc::text as doc from agent_records where kind = 'deviceCode' and id = $1` : `select doc::text as doc from agent_records where kind = 'token' and id = $1`,
        [id]
      ),
      ofAgent: (platformId, kind, agentId) => many(
        `select doc::text as doc from agent_records where platform_id = $1 and kind = $2 and agent_id = $3 order by created_ms, id`,
        [platformId, kind, agentId]
      ),
      list: (platformId, q, p) => {
        const w = Where.platform(platformId).raw(`kind = 'agent'`);
        w.eq("customer_id", q.customerId);
        if (q.isPaused !== void 0) w.add((x) => `(doc->>'isPaused')::boolean = ${x}::boolean`, q.isPaused);
        if (q.isConnected !== void 0) w.add((x) => `(doc->>'isConnected')::boolean = ${x}::boolean`, q.isConnected);
        w.within("created_ms", q.created);
        w.within("(extract(epoch from (doc->>'updatedAt')::timestamptz) * 1000)", q.updated);
        return page("agent_records", w, p, (r) => ({ createdAt: millisOf2(r.createdAt), id: r.id }));
      },
      listActions: (platformId, q, p) => {
        const w = Where.platform(platformId).raw(`kind = 'action'`);
        w.eq("agent_id", q.agentId);
        w.eq("customer_id", q.customerId);
        w.eq("status", q.status);
        w.within("created_ms", q.created);
        return page("agent_records", w, p, (r) => ({ createdAt: millisOf2(r.createdAt), id: r.id }));
      }
    } }
  };
};

// src/adapters/sql/card-transactions.ts
import { Effect as Effect44 } from "effect";
var CARD_TRANSACTION_TABLES = ["card_transactions"];
var makeCardTransactionStore = (query2) => {
  const { byId, one, page } = documentReads(query2);
  const where = (platformId, q) => {
    const w = Where.platform(platformId);
    w.eq("card_id", q.cardId);
    w.eq("customer_id", q.customerId);
    w.eq("platform_customer_id", q.platformCustomerId);
    w.eq("account_id", q.accountId);
    w.eq("direction", q.direction);
    w.within("created_ms", q.created);
    return w;
  };
  const putCardTransaction = (r) => Effect44.asVoid(query2(
    `insert into card_transactions (platform_id, id, created_ms, card_id, customer_id, platform_customer_id, account_id, direction, status, doc)
       values ($1, $2, $3::bigint, $4, $5, $6, $7, $8, $9, $10::jsonb)
       on conflict (platform_id, id) do update set account_id = excluded.account_id, status = excluded.status, doc = excluded.doc`,
    [
      r.platformId,
      r.transaction.id,
      millisOf2(r.transaction.createdAt),
      r.transaction.cardId,
      r.transaction.customerId,
      r.transaction.platformCustomerId,
      r.transaction.accountId ?? null,
      r.transaction.direction,
      r.transaction.status,
      JSON.stringify(r)
    ]
  ));
  return {
    writes: { putCardTransaction },
    tables: CARD_TRANSACTION_TABLES,
    repositories: { cardTransactions: {
      get: byId("card_transactions"),
      list: (platformId, q, p) => page("card_transactions", where(platformId, q), p, (r) => ({
        createdAt: millisOf2(r.transaction.createdAt),
        id: r.transaction.id
      }))
    } }
  };
};

// src/adapters/sql/cards.ts
import { Effect as Effect45 } from "effect";
var CARD_TABLES = ["cards"];
var makeCardStore = (query2, write) => {
  const { byId, one, page } = documentReads(query2);
  const cardWhere = (platformId, q) => {
    const w = Where.platform(platformId);
    w.eq("cardholder_id", q.cardholderId);
    if (q.accountId !== void 0) w.add((x) => `funding_sources @> array[${x}::text]`, q.accountId);
    w.eq("platform_card_id", q.platformCardId);
    w.eq("state", q.state);
    return w;
  };
  const putCard = (r) => write(
    `insert into cards (platform_id, id, created_ms, cardholder_id, platform_card_id, state, funding_sources, doc)
       values ($1, $2, $3::bigint, $4, $5, $6, array(select jsonb_array_elements_text($7::jsonb)), $8::jsonb)
       on conflict (platform_id, id) do update set cardholder_id = excluded.cardholder_id,
         platform_card_id = excluded.platform_card_id, state = excluded.state,
         funding_sources = excluded.funding_sources, doc = excluded.doc`,
    [
      r.platformId,
      r.card.id,
      millisOf2(r.card.createdAt),
      r.card.cardholderId,
      r.card.platformCardId,
      r.card.state,
      JSON.stringify(r.card.fundingSources),
      JSON.stringify(r)
    ]
  );
  return {
    writes: { putCard },
    tables: CARD_TABLES,
    repositories: { cards: {
      get: byId("cards"),
      findByPlatformCardId: (platformId, platformCardId) => one(
        `select doc::text as doc from cards where platform_id = $1 and platform_card_id = $2`,
        [platformId, platformCardId]
      ),
      list: (platformId, q, p) => page("cards", cardWhere(platformId, q), p, (r) => ({ createdAt: millisOf2(r.card.createdAt), id: r.card.id })),
      countLive: (platformId, cardholderId) => Effect45.map(
        cardholderId === void 0 ? query2(
          `select count(*)::int as n from cards where platform_id = $1 and state <> 'CLOSED'`,
          [platformId]
        ) : query2(
          `select count(*)::int as n from cards where platform_id = $1 and cardholder_id = $2 and state <> 'CLOSED'`,
          [platformId, cardholderId]
        ),
        (rows) => rows[0]?.n ?? 0
      )
    } }
  };
};

// src/adapters/sql/customers.ts
import { Effect as Effect49 } from "effect";

// src/adapters/sql/payment-reads.ts
import { Effect as Effect48 } from "effect";

// src/adapters/sql/pending.ts
import { Cause as Cause2, Context as Context12, Effect as Effect47 } from "effect";

// src/adapters/sql/guessed-reads.ts
var QUOTES_SEEN = 4096;
var ROWS_SEEN = 8192;
var NUMBERS_SEEN = 8192;
var seenRowKey = (table, platformId, id) => `${table}\0${platformId}\0${id}`;
var seenBalanceKey = (platformId, account) => `${platformId}\0${account}`;
var seenVolumeKey = (platformId, customerKey, currency) => `${platformId}\0${customerKey}\0${currency}`;
var BUDGET = 16;
var REFUSED_COST = 8;
var Seen = class {
  quotes = new BoundedMemo(QUOTES_SEEN);
  rows = new BoundedMemo(ROWS_SEEN);
  balances = new BoundedMemo(NUMBERS_SEEN);
  volumes = new BoundedMemo(NUMBERS_SEEN);
  /** See `allows`. */
  #budget = BUDGET;
  row(table, platformId, id) {
    return (table === "quotes" ? this.quotes : this.rows).get(seenRowKey(table, platformId, id));
  }
  rememberRow(table, platformId, id, row) {
    ;
    (table === "quotes" ? this.quotes : this.rows).set(seenRowKey(table, platformId, id), row);
  }
  /** Forgets what the store saw of the rows `guessed` names (they were not the snapshot's). */
  forget(guessed) {
    for (const g of guessed.items) {
      if (g.kind === "row") (g.table === "quotes" ? this.quotes : this.rows).delete(seenRowKey(g.table, g.platformId, g.id));
      else if (g.kind === "balance") this.balances.delete(seenBalanceKey(g.platformId, g.account));
      else this.volumes.delete(seenVolumeKey(g.platformId, g.customerKey, g.currency));
    }
  }
  /**
   * Whether the store guesses now. Each guess refused costs `REFUSED_COST`, each read
   * ahead (a guess confirmed, or rows read) earns one back, up to `BUDGET`: a store whose
   * guesses keep failing (another process moves the same accounts between this one's
   * payments) reads instead, and tries again after about `REFUSED_COST` reads per refusal.
   */
  allows() {
    return this.#budget > 0;
  }
  earned() {
    if (this.#budget < BUDGET) this.#budget++;
  }
  refused(guessed) {
    this.forget(guessed);
    this.#budget = Math.max(-4 * REFUSED_COST, this.#budget - REFUSED_COST);
  }
};
var GuessedReads = class {
  items = [];
  /** A statement holding the check succeeded: the guesses were the rows of the snapshot. */
  checked = false;
  /** The statement that checks them (`checkStatement`). */
  statement() {
    return checkStatement(this);
  }
};
var itemSql = (g, params) => {
  const p = (value) => {
    params.push(value);
    return `$${params.length}`;
  };
  switch (g.kind) {
    case "row":
      return g.table === "platform_configs" ? `(select d.doc::text from platform_configs d where d.platform_id = ${p(g.platformId)}) is not distinct from ${p(g.text)}::text` : `(select d.doc::text from ${g.table} d where d.platform_id = ${p(g.platformId)} and d.id = ${p(g.id)}) is not distinct from ${p(g.text)}::text`;
    case "balance":
      return `coalesce((select b.balance from ledger_balances b where b.platform_id = ${p(g.platformId)} and b.account = ${p(g.account)}), 0) = ${p(String(g.balance))}::bigint`;
    case "volume":
      return `(select coalesce(sum(v.amount), 0) from sent_volumes v where v.platform_id = ${p(g.platformId)} and v.customer_key = ${p(g.customerKey)} and v.currency = ${p(g.currency)} and v.day_ms >= ${p(String(g.since))}::bigint) = ${p(String(g.volume))}::bigint`;
  }
};
var checkTexts = new BoundedMemo(256);
var shapeOf = (g) => g.kind === "row" ? g.table : g.kind;
var checkStatement = (guessed) => {
  const params = [];
  const parts = guessed.items.map((g) => itemSql(g, params));
  const key = guessed.items.map(shapeOf).join(",");
  let text2 = checkTexts.get(key);
  if (text2 === void 0) {
    text2 = `select payments_reads_are(txid_current_if_assigned() is null and ${parts.join("\n  and ")}) as reads_ok`;
    checkTexts.set(key, text2);
  }
  return { text: text2, params };
};
var StaleGuessedReads = class extends Error {
  constructor() {
    super("A row this attempt guessed is not the one its snapshot holds; it runs again, reading the rows");
  }
};

// src/adapters/sql/pending.ts
import { isSqlError } from "effect/sql/SqlError";

// src/adapters/sql/migrations.ts
import { Effect as Effect46 } from "effect";
import { Migrator, SqlClient as SqlClient3 } from "effect/sql";
import { MigrationError } from "effect/sql/Migrator";
var statements = (...sqls) => Effect46.gen(function* () {
  const sql = yield* SqlClient3.SqlClient;
  for (const text2 of sqls) yield* sql.unsafe(text2);
});
var v1_initial = statements(
  `create table customers (
    platform_id text collate "C" not null,
    id text collate "C" not null,
    created_ms bigint not null,
    updated_ms bigint not null,
    platform_customer_id text collate "C" not null,
    active boolean not null,
    customer_type text not null,
    region text,
    uma_address text collate "C",
    currencies text[] not null,
    doc jsonb not null,
    primary key (platform_id, id)
  )`,
  `create unique index ${UniqueConstraints.customersActivePlatformCustomerId} on customers (platform_id, platform_customer_id) where active`,
  `create index customers_keyset on customers (platform_id, created_ms, id)`,
  `create table external_accounts (
    platform_id text collate "C" not null,
    id text collate "C" not null,
    created_ms bigint not null,
    customer_id text collate "C",
    currency text not null,
    equivalence_key text collate "C" not null,
    default_uma boolean not null,
    doc jsonb not null,
    primary key (platform_id, id)
  )`,
  `create unique index ${UniqueConstraints.externalAccountsEquivalence} on external_accounts (platform_id, equivalence_key)`,
  `create unique index ${UniqueConstraints.externalAccountsDefaultUma} on external_accounts (platform_id, customer_id) where default_uma`,
  `create index external_accounts_keyset on external_accounts (platform_id, created_ms, id)`,
  `create table documents (
    platform_id text collate "C" not null,
    id text collate "C" not null,
    created_ms bigint not null,
    holder_id text collate "C" not null,
    document_type text not null,
    doc jsonb not null,
    primary key (platform_id, id)
  )`,
  `create unique index ${UniqueConstraints.documentsHolderType} on documents (platform_id, holder_id, document_type)`,
  `create index documents_keyset on documents (platform_id, created_ms, id)`,
  `create table beneficial_owners (
    platform_id text collate "C" not null,
    id text collate "C" not null,
    created_ms bigint not null,
    customer_id text collate "C" not null,
    doc jsonb not null,
    primary key (platform_id, id)
  )`,
  `create index beneficial_owners_customer on beneficial_owners (platform_id, customer_id, created_ms, id)`,
  `create index beneficial_owners_keyset on beneficial_owners (platform_id, created_ms, id)`,
  `create table verifications (
    platform_id text collate "C" not null,
    id text collate "C" not null,
    created_ms bigint not null,
    customer_id text collate "C" not null,
    status text not null,
    doc jsonb not null,
    primary key (platform_id, id)
  )`,
  `create index verifications_keyset on verifications (platform_id, created_ms, id)`,
  `create table events (
    seq bigserial primary key,
    platform_id text collate "C" not null,
    id text collate "C" not null,
    type text not null,
    doc jsonb not null
  )`,
  `create index events_platform on events (platform_id, seq)`,
  `create table timers (
    platform_id text collate "C" not null,
    id text collate "C" not null,
    at_ms bigint not null,
    kind text collate "C" not null,
    subject_id text collate "C" not null,
    event text not null,
    primary key (platform_id, id)
  )`,
  `create index timers_due on timers (platform_id, at_ms, id)`,
  `create index timers_subject on timers (platform_id, subject_id, kind)`,
  `create table timer_outcomes (
    seq bigserial primary key,
    platform_id text collate "C" not null,
    doc jsonb not null
  )`,
  `create index timer_outcomes_platform on timer_outcomes (platform_id, seq)`,
  `create table platform_clocks (
    platform_id text collate "C" primary key,
    offset_ms bigint not null
  )`,
  `create table idempotency_keys (
    platform_id text collate "C" not null,
    key text collate "C" not null,
    operation text not null,
    request_hash text not null,
    body jsonb,
    created_ms bigint not null,
    expires_ms bigint not null,
    primary key (platform_id, key)
  )`,
  `create index idempotency_keys_expiry on idempotency_keys (expires_ms)`
);
var v2_customer_uma_address = statements(
  `create unique index ${UniqueConstraints.customersActiveUmaAddress} on customers (platform_id, lower(uma_address)) where active and uma_address is not null`
);
var v3_money = statements(
  `create table internal_accounts (
    platform_id text collate "C" not null,
    id text collate "C" not null,
    created_ms bigint not null,
    customer_id text collate "C",
    currency text collate "C" not null,
    type text not null,
    status text not null,
    doc jsonb not null,
    primary key (platform_id, id)
  )`,
  `create unique index ${UniqueConstraints.internalAccountsOwnerCurrency} on internal_accounts (platform_id, coalesce(customer_id, ''), currency)`,
  `create index internal_accounts_keyset on internal_accounts (platform_id, created_ms, id)`,
  `create table ledger_balances (
    platform_id text collate "C" not null,
    account text collate "C" not null,
    currency text collate "C" not null,
    balance bigint not null,
    primary key (platform_id, account),
    constraint ledger_balances_internal_nonnegative check (account not like 'InternalAccount:%' or balance >= 0),
    constraint ledger_balances_exact check (balance between -9007199254740991 and 9007199254740991)
  )`,
  `create table journal_entries (
    seq bigserial primary key,
    platform_id text collate "C" not null,
    id text collate "C" not null,
    kind text not null,
    transaction_id text collate "C",
    at_ms bigint not null,
    doc jsonb not null
  )`,
  `create index journal_entries_platform on journal_entries (platform_id, seq)`,
  `create index journal_entries_transaction on journal_entries (platform_id, transaction_id, seq) where transaction_id is not null`,
  `create table quotes (
    platform_id text collate "C" not null,
    id text collate "C" not null,
    created_ms bigint not null,
    doc jsonb not null,
    primary key (platform_id, id)
  )`,
  `create table transactions (
    platform_id text collate "C" not null,
    id text collate "C" not null,
    created_ms bigint not null,
    customer_id text collate "C",
    platform_customer_id text collate "C",
    status text not null,
    type text not null,
    sender text collate "C",
    receiver text collate "C" not null,
    reference text collate "C",
    sent_currency text collate "C",
    sent_amount bigint,
    doc jsonb not null,
    primary key (platform_id, id)
  )`,
  `create index transactions_keyset on transactions (platform_id, created_ms, id)`,
  `create index transactions_customer on transactions (platform_id, customer_id, created_ms, id)`,
  `create index transactions_platform_customer on transactions (platform_id, platform_customer_id, created_ms, id)`,
  `create index transactions_sender on transactions (platform_id, sender, created_ms, id)`,
  `create index transactions_receiver on transactions (platform_id, receiver, created_ms, id)`,
  `create index transactions_reference on transactions (platform_id, reference) where reference is not null`,
  `create index transactions_sent_volume on transactions (platform_id, customer_id, sent_currency, created_ms) where type = 'OUTGOING'`,
  `create table platform_configs (
    platform_id text collate "C" primary key,
    doc jsonb not null
  )`
);
var v4_webhooks = statements(
  `create table webhook_keys (
    platform_id text collate "C" primary key,
    private_key_hex text not null,
    public_key_hex text not null,
    created_ms bigint not null
  )`,
  `create table webhook_cursors (
    platform_id text collate "C" primary key,
    seq bigint not null
  )`,
  `create table webhook_deliveries (
    platform_id text collate "C" not null,
    id text collate "C" not null,
    seq bigint not null,
    resource_id text collate "C" not null,
    status text not null,
    next_ms bigint not null,
    lease_until bigint,
    doc jsonb not null,
    primary key (platform_id, id)
  )`,
  `create index webhook_deliveries_keyset on webhook_deliveries (platform_id, seq, id)`,
  `create index webhook_deliveries_pending on webhook_deliveries (platform_id, seq) where status = 'PENDING'`,
  `create index webhook_deliveries_resource on webhook_deliveries (platform_id, resource_id, seq) where status = 'PENDING'`
);
var v5_wallets = statements(
  `create table wallet_records (
    platform_id text collate "C" not null,
    kind text collate "C" not null,
    id text collate "C" not null,
    account_id text collate "C" not null,
    lookup_key text collate "C",
    doc jsonb not null,
    primary key (platform_id, kind, id)
  )`,
  `create index wallet_records_account on wallet_records (platform_id, kind, account_id)`,
  `create index wallet_records_lookup on wallet_records (platform_id, kind, lookup_key) where lookup_key is not null`
);
var v6_sent_volumes = statements(
  `create table sent_volumes (
    platform_id text collate "C" not null,
    customer_key text collate "C" not null,
    currency text collate "C" not null,
    day_ms bigint not null,
    amount bigint not null,
    primary key (platform_id, customer_key, currency, day_ms)
  ) with (fillfactor = 50)`,
  `alter table ledger_balances set (fillfactor = 50)`,
  `alter table quotes set (fillfactor = 50)`,
  `alter table transactions set (fillfactor = 50)`,
  `create function payments_sent_volume() returns trigger language plpgsql as $$
  declare
    old_counted boolean := tg_op <> 'INSERT' and old.type = 'OUTGOING' and old.sent_currency is not null
      and old.sent_amount is not null and old.status not in ('FAILED', 'EXPIRED');
    new_counted boolean := tg_op <> 'DELETE' and new.type = 'OUTGOING' and new.sent_currency is not null
      and new.sent_amount is not null and new.status not in ('FAILED', 'EXPIRED');
  begin
    if old_counted and new_counted and old.platform_id = new.platform_id and old.customer_id is not distinct from new.customer_id
      and old.sent_currency = new.sent_currency and old.created_ms = new.created_ms and old.sent_amount = new.sent_amount then
      return null;
    end if;
    if old_counted then
      insert into sent_volumes as v (platform_id, customer_key, currency, day_ms, amount)
      values (old.platform_id, coalesce(old.customer_id, ''), old.sent_currency, old.created_ms - mod(mod(old.created_ms, 86400000) + 86400000, 86400000), -old.sent_amount)
      on conflict (platform_id, customer_key, currency, day_ms) do update set amount = v.amount + excluded.amount;
    end if;
    if new_counted then
      insert into sent_volumes as v (platform_id, customer_key, currency, day_ms, amount)
      values (new.platform_id, coalesce(new.customer_id, ''), new.sent_currency, new.created_ms - mod(mod(new.created_ms, 86400000) + 86400000, 86400000), new.sent_amount)
      on conflict (platform_id, customer_key, currency, day_ms) do update set amount = v.amount + excluded.amount;
    end if;
    return null;
  end
  $$`,
  `create trigger transactions_sent_volume after insert or update or delete on transactions
     for each row execute function payments_sent_volume()`,
  `insert into sent_volumes (platform_id, customer_key, currency, day_ms, amount)
   select platform_id, coalesce(customer_id, ''), sent_currency, created_ms - mod(mod(created_ms, 86400000) + 86400000, 86400000), sum(sent_amount)
   from transactions
   where type = 'OUTGOING' and sent_currency is not null and sent_amount is not null and status not in ('FAILED', 'EXPIRED')
   group by 1, 2, 3, 4`
);
var v7_cards = statements(
  `create table cards (
    platform_id text collate "C" not null,
    id text collate "C" not null,
    created_ms bigint not null,
    cardholder_id text collate "C" not null,
    platform_card_id text collate "C" not null,
    state text collate "C" not null,
    funding_sources text[] collate "C" not null,
    doc jsonb not null,
    primary key (platform_id, id)
  )`,
  `create unique index ${UniqueConstraints.cardsPlatformCardId} on cards (platform_id, platform_card_id)`,
  `create index cards_keyset on cards (platform_id, created_ms, id)`,
  `create index cards_cardholder on cards (platform_id, cardholder_id, created_ms, id)`,
  `create index cards_live on cards (platform_id, cardholder_id) where state <> 'CLOSED'`,
  `create index cards_funding_sources on cards using gin (funding_sources)`
);
var v8_card_transactions = statements(
  `create table card_transactions (
    platform_id text collate "C" not null,
    id text collate "C" not null,
    created_ms bigint not null,
    card_id text collate "C" not null,
    customer_id text collate "C" not null,
    platform_customer_id text collate "C" not null,
    account_id text collate "C",
    direction text collate "C" not null,
    status text collate "C" not null,
    doc jsonb not null,
    primary key (platform_id, id)
  )`,
  `create index card_transactions_keyset on card_transactions (platform_id, created_ms, id)`,
  `create index card_transactions_card on card_transactions (platform_id, card_id, created_ms, id)`,
  `create index card_transactions_customer on card_transactions (platform_id, customer_id, created_ms, id)`,
  `create index card_transactions_account on card_transactions (platform_id, account_id, created_ms, id)`
);
var v9_stablecoins = statements(
  `create table stablecoin_provider_accounts (
    platform_id text collate "C" not null,
    id text collate "C" not null,
    created_ms bigint not null,
    provider text collate "C" not null,
    provider_account_id text collate "C" not null,
    status text collate "C" not null,
    doc jsonb not null,
    primary key (platform_id, id)
  )`,
  `create unique index ${UniqueConstraints.stablecoinProviderAccountsAccount} on stablecoin_provider_accounts (platform_id, provider, provider_account_id)`,
  `create index stablecoin_provider_accounts_keyset on stablecoin_provider_accounts (platform_id, created_ms, id)`,
  `create table stablecoins (
    platform_id text collate "C" not null,
    id text collate "C" not null,
    created_ms bigint not null,
    symbol text collate "C" not null,
    network text collate "C" not null,
    network_token_identifier text collate "C" not null,
    issuance_status text collate "C" not null,
    grid_operations_status text collate "C" not null,
    provider text collate "C" not null,
    doc jsonb not null,
    primary key (platform_id, id)
  )`,
  `create unique index ${UniqueConstraints.stablecoinsSymbol} on stablecoins (platform_id, symbol)`,
  `create unique index ${UniqueConstraints.stablecoinsTokenIdentifier} on stablecoins (platform_id, network, network_token_identifier)`,
  `create index stablecoins_keyset on stablecoins (platform_id, created_ms, id)`,
  `create table stablecoin_operations (
    platform_id text collate "C" not null,
    id text collate "C" not null,
    created_ms bigint not null,
    stablecoin_id text collate "C" not null,
    operation_type text collate "C" not null,
    status text collate "C" not null,
    doc jsonb not null,
    primary key (platform_id, id)
  )`,
  `create index stablecoin_operations_stablecoin on stablecoin_operations (platform_id, stablecoin_id, created_ms, id)`
);
var v10_agents = statements(
  `create table agent_records (
    platform_id text collate "C" not null,
    kind text collate "C" not null,
    id text collate "C" not null,
    created_ms bigint not null,
    agent_id text collate "C",
    customer_id text collate "C" not null,
    status text collate "C",
    doc jsonb not null,
    primary key (platform_id, kind, id)
  )`,
  // Device codes and tokens are found without a platform (redeem, the agent scheme): unique service-wide.
  `create unique index ${AGENT_ID_INDEXES.deviceCodes} on agent_records (id) where kind = 'deviceCode'`,
  `create unique index ${AGENT_ID_INDEXES.tokens} on agent_records (id) where kind = 'token'`,
  `create index agent_records_keyset on agent_records (platform_id, kind, created_ms, id)`,
  `create index agent_records_agent on agent_records (platform_id, kind, agent_id) where agent_id is not null`
);
var v11_invitations = statements(
  `create table invitations (
    code text collate "C" primary key,
    platform_id text collate "C" not null,
    created_ms bigint not null,
    status text collate "C" not null,
    doc jsonb not null
  )`,
  `create index invitations_platform on invitations (platform_id)`
);
var v12_account_journal = statements(
  `create table journal_account_postings (
    platform_id text collate "C" not null,
    account text collate "C" not null,
    seq bigint not null,
    currency text collate "C" not null,
    amount bigint not null,
    primary key (platform_id, account, seq)
  )`,
  `create function payments_journal_account_postings() returns trigger language plpgsql as $$
  begin
    insert into journal_account_postings (platform_id, account, seq, currency, amount)
    select new.platform_id, p->>'account', new.seq, min(p->>'currency'), sum((p->>'amount')::bigint)
    from jsonb_array_elements(new.doc->'postings') p
    where p->>'account' like 'InternalAccount:%'
    group by p->>'account';
    return null;
  end
  $$`,
  `create trigger journal_entries_account_postings after insert on journal_entries
     for each row execute function payments_journal_account_postings()`,
  `insert into journal_account_postings (platform_id, account, seq, currency, amount)
   select j.platform_id, p->>'account', j.seq, min(p->>'currency'), sum((p->>'amount')::bigint)
   from journal_entries j, jsonb_array_elements(j.doc->'postings') p
   where p->>'account' like 'InternalAccount:%'
   group by j.platform_id, p->>'account', j.seq`
);
var v13_sandbox_faults = statements(
  `create table sandbox_faults (
    platform_id text collate "C" primary key,
    config jsonb not null,
    matched bigint not null default 0
  )`
);
var v14_list_indexes = statements(
  `create index transactions_type on transactions (platform_id, type, created_ms, id)`,
  `create index transactions_status on transactions (platform_id, status, created_ms, id)`,
  `create index transactions_type_status on transactions (platform_id, type, status, created_ms, id)`,
  `create index transactions_customer_type on transactions (platform_id, customer_id, type, created_ms, id)`,
  `create index internal_accounts_customer on internal_accounts (platform_id, customer_id, created_ms, id)`,
  `create index internal_accounts_platform on internal_accounts (platform_id, created_ms, id) where customer_id is null`,
  `create index external_accounts_customer on external_accounts (platform_id, customer_id, created_ms, id)`,
  `create index external_accounts_platform on external_accounts (platform_id, created_ms, id) where customer_id is null`
);
var v15_bulk_jobs = statements(
  `create table bulk_jobs (
    platform_id text collate "C" not null,
    id text collate "C" not null,
    created_ms bigint not null,
    status text collate "C" not null,
    doc jsonb not null,
    rows jsonb not null,
    primary key (platform_id, id)
  )`
);
var v16_api_tokens = statements(
  `create table api_tokens (
    platform_id text collate "C" not null,
    id text collate "C" not null,
    client_id text collate "C" not null,
    created_ms bigint not null,
    updated_ms bigint not null,
    name text not null,
    doc jsonb not null,
    primary key (platform_id, id)
  )`,
  // Client ids are random (128 bits): a violation is a defect, never a StoreConflict.
  `create unique index api_tokens_client_id on api_tokens (client_id)`,
  `create index api_tokens_platform_created on api_tokens (platform_id, created_ms, id)`
);
var v17_webhook_retention = statements(
  `create index webhook_deliveries_finished on webhook_deliveries (platform_id, ((doc->>'updatedAt')::float8)) where status <> 'PENDING'`
);
var v18_sandbox_snapshots = statements(
  `create table sandbox_snapshots (
    platform_id text collate "C" not null,
    id text collate "C" not null,
    created_ms bigint not null,
    schema text not null,
    doc jsonb not null,
    primary key (platform_id, id)
  )`,
  `create index sandbox_snapshots_keyset on sandbox_snapshots (platform_id, created_ms, id)`,
  `create table sandbox_snapshot_rows (
    platform_id text collate "C" not null,
    snapshot_id text collate "C" not null,
    table_name text collate "C" not null,
    row text not null
  )`,
  `create index sandbox_snapshot_rows_table on sandbox_snapshot_rows (platform_id, snapshot_id, table_name)`,
  `create function payments_restore_snapshot(p_platform text, p_snapshot text, p_tables text[]) returns void language plpgsql as $$
  declare
    t text;
  begin
    foreach t in array p_tables loop
      execute format('delete from %I where platform_id = $1', t) using p_platform;
    end loop;
    -- Each table emptied again just before its rows go back: what the triggers of the
    -- tables restored before it wrote there (journal_account_postings, sent_volumes) goes.
    -- "offset 0" keeps the cast one per row (not one per column of "(r).*").
    foreach t in array p_tables loop
      execute format('delete from %I where platform_id = $1', t) using p_platform;
      execute format(
        'insert into %I select (q.r).* from (select s.row::%I as r from sandbox_snapshot_rows s where s.platform_id = $1 and s.snapshot_id = $2 and s.table_name = $3 offset 0) q',
        t, t
      ) using p_platform, p_snapshot, t;
    end loop;
  end
  $$`
);
var v19_count_indexes = statements(
  `create index customers_active_count on customers (platform_id) where active`,
  `create index internal_accounts_customers_count on internal_accounts (platform_id) where customer_id is not null`,
  `create index external_accounts_customers_count on external_accounts (platform_id) where customer_id is not null`
);
var v20_lighter_money_writes = statements(
  `drop trigger journal_entries_account_postings on journal_entries`,
  `drop function payments_journal_account_postings()`,
  `drop trigger transactions_sent_volume on transactions`,
  `create trigger transactions_sent_volume after update on transactions
     for each row
     when ((old.platform_id, old.customer_id, old.type, old.status, old.sent_currency, old.sent_amount, old.created_ms)
       is distinct from (new.platform_id, new.customer_id, new.type, new.status, new.sent_currency, new.sent_amount, new.created_ms))
     execute function payments_sent_volume()`,
  `create trigger transactions_sent_volume_delete after delete on transactions
     for each row execute function payments_sent_volume()`,
  // Events' documents are written and read whole (./events.ts: listed as text, the sweep's
  // one field read with `->>`, which json has too): stored as sent, only validated.
  `alter table events alter column doc type json using doc::json`,
  // A payment's record is written whole and read whole (lists, gets: as text); nothing
  // looks inside it in SQL.
  `alter table transactions alter column doc type json using doc::json`,
  // A quote's plan fields an execution's read ahead starts from (./payment-reads.ts), as
  // columns written with it (./money.ts `putQuote`) rather than read out of its document,
  // which is then written and read whole, as json.
  `alter table quotes add column customer_id text collate "C", add column currency text collate "C",
     add column source_id text collate "C", add column destination_id text collate "C"`,
  `update quotes set customer_id = doc->'plan'->>'customerId', currency = doc->'quote'->'sendingCurrency'->>'code',
     source_id = doc->'plan'->'source'->>'accountId',
     destination_id = coalesce(doc->'plan'->'destination'->>'accountId', doc->'plan'->'destination'->>'internalAccountId')`,
  `alter table quotes alter column doc type json using doc::json`,
  // The rest of the money path's documents, likewise: a journal entry's (the system
  // accounts' sums read its postings with json's operators, ./money.ts), an internal
  // account's and the platform's configuration (read whole by every payment).
  `alter table journal_entries alter column doc type json using doc::json`,
  `alter table internal_accounts alter column doc type json using doc::json`,
  `alter table platform_configs alter column doc type json using doc::json`
);
var CLOCK_OFFSET_REFUSED = "PC001";
var v21_clock_offset_check = statements(
  `create function payments_clock_offset_is(p_platform_id text, p_guessed float8) returns boolean
     language plpgsql as $$
     begin
       if coalesce((select offset_ms from platform_clocks where platform_id = p_platform_id), 0)::float8 is distinct from p_guessed then
         raise exception 'the platform''s clock offset is not the one this request ran on' using errcode = '${CLOCK_OFFSET_REFUSED}';
       end if;
       return true;
     end
     $$`
);
var v22_fewer_money_indexes = statements(
  `alter table events drop constraint events_pkey, add primary key (platform_id, seq)`,
  `drop index events_platform`,
  `alter table journal_entries drop constraint journal_entries_pkey, add primary key (platform_id, seq)`,
  `drop index journal_entries_platform`,
  `drop index transactions_sent_volume`
);
var READS_REFUSED = "PC002";
var v23_guessed_reads_check = statements(
  `create function payments_reads_are(p_ok boolean) returns boolean
     language plpgsql as $$
     begin
       if p_ok is not true then
         raise exception 'a row this attempt ran on is not the one its snapshot holds' using errcode = '${READS_REFUSED}';
       end if;
       return true;
     end
     $$`
);
var MIGRATIONS = {
  "1_initial": v1_initial,
  "2_customer_uma_address": v2_customer_uma_address,
  "3_money": v3_money,
  "4_webhooks": v4_webhooks,
  "5_wallets": v5_wallets,
  "6_sent_volumes": v6_sent_volumes,
  "7_cards": v7_cards,
  "8_card_transactions": v8_card_transactions,
  "9_stablecoins": v9_stablecoins,
  "10_agents": v10_agents,
  "11_invitations": v11_invitations,
  "12_account_journal": v12_account_journal,
  "13_sandbox_faults": v13_sandbox_faults,
  "14_list_indexes": v14_list_indexes,
  "15_bulk_jobs": v15_bulk_jobs,
  "16_api_tokens": v16_api_tokens,
  "17_webhook_retention": v17_webhook_retention,
  "18_sandbox_snapshots": v18_sandbox_snapshots,
  "19_count_indexes": v19_count_indexes,
  "20_lighter_money_writes": v20_lighter_money_writes,
  "21_clock_offset_check": v21_clock_offset_check,
  "22_fewer_money_indexes": v22_fewer_money_indexes,
  "23_guessed_reads_check": v23_guessed_reads_check
};
var MIGRATIONS_TABLE = "payments_migrations";
var MIGRATION_LOCK_KEY = 7285104331;
var resolveMigrations = (listed, carried) => Effect46.suspend(() => {
  const all = [
    ...Object.entries(listed),
    ...carried.map((m) => [m.id, statements(...m.statements)])
  ];
  const resolved = [];
  for (const [id, run2] of all) {
    const parts = /^([1-9]\d*)_(.+)$/.exec(id);
    if (parts === null) return Effect46.fail(new MigrationError({ kind: "BadState", message: `Migration id "${id}" is not <number>_<name>` }));
    resolved.push([Number(parts[1]), parts[2] ?? "", Effect46.succeed(run2)]);
  }
  resolved.sort((a, b) => a[0] - b[0]);
  for (let i = 0; i < resolved.length; i++) {
    const [number, name] = resolved[i] ?? [0, ""];
    const previous = resolved[i - 1];
    if (previous !== void 0 && previous[0] === number) {
      return Effect46.fail(new MigrationError({ kind: "Duplicates", message: `Migrations "${previous[0]}_${previous[1]}" and "${number}_${name}" share a number` }));
    }
    if (number !== i + 1) {
      return Effect46.fail(new MigrationError({ kind: "BadState", message: `No migration numbered ${i + 1} (the next is "${number}_${name}")` }));
    }
  }
  return Effect46.succeed(resolved);
});
var refuseNewerDatabase = (sql, known2) => Effect46.gen(function* () {
  const [table] = yield* sql.unsafe(`select to_regclass('${MIGRATIONS_TABLE}') is not null as present`);
  if (table?.present !== true) return;
  const [newest] = yield* sql.unsafe(
    `select migration_id as id, name from ${MIGRATIONS_TABLE} order by migration_id desc limit 1`
  );
  if (newest !== void 0 && newest.id > known2) {
    return yield* Effect46.fail(new MigrationError({
      kind: "BadState",
      message: `The database was migrated by a newer version of payments-service (migration ${newest.id}_${newest.name}; this version knows migrations 1 to ${known2}): run that version or a later one`
    }));
  }
});
var runMigrations = (carried) => Effect46.gen(function* () {
  const sql = yield* SqlClient3.SqlClient;
  const run2 = Migrator.make({})({ loader: resolveMigrations(MIGRATIONS, carried), table: MIGRATIONS_TABLE });
  return yield* sql.withTransaction(
    Effect46.andThen(
      sql.unsafe(`select pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`),
      Effect46.andThen(refuseNewerDatabase(sql, Object.keys(MIGRATIONS).length + carried.length), run2)
    )
  );
});

// src/adapters/sql/pending.ts
var lastStatementFailed = (last, cause) => {
  if (last.check !== void 0) {
    for (const r of cause.reasons) {
      const refusal2 = Cause2.isDieReason(r) ? last.check.refusal(r.defect) : Cause2.isFailReason(r) ? last.check.refusal(r.error) : void 0;
      if (refusal2 !== void 0) return refusal2;
    }
  }
  return Effect47.failCause(cause);
};
var Pending = class {
  constructor(moves = /* @__PURE__ */ new Set(), turns = void 0, guessing = false) {
    this.moves = moves;
    this.turns = turns;
    this.guessing = guessing;
  }
  moves;
  turns;
  guessing;
  statements = [];
  events = [];
  balances = /* @__PURE__ */ new Map();
  /** `readKey` → the row's document as text, or null: the attempt read that there is none. */
  reads = /* @__PURE__ */ new Map();
  finalCheck = void 0;
  /**
   * The rows the attempt guessed (./guessed-reads.ts), checked by its last statement. Kept
   * whatever else the attempt forgets: what it decided from them stands until checked.
   */
  guess = void 0;
  /** The daily volumes the attempt read or guessed (`seenVolumeKey` → as of its snapshot): what the store learns at commit. */
  volumes = /* @__PURE__ */ new Map();
  /** The payments it wrote that a daily volume may count (./money.ts `putTransaction`), in order. */
  volumeWrites = [];
  /** What the store learns of the rows the attempt wrote, once it committed. */
  onCommit = [];
  /** Drops everything a failed nested unit of work left (its savepoint undid its writes). */
  forgetAll() {
    this.statements.length = 0;
    this.events.length = 0;
    this.balances.clear();
    this.reads.clear();
    this.volumes.clear();
    this.volumeWrites.length = 0;
    this.onCommit.length = 0;
  }
  /** Forgets the rows read ahead from `table` (every row read ahead when the table is not known). */
  forgetReads(table) {
    if (this.reads.size === 0) return;
    if (table === void 0) {
      this.reads.clear();
      return;
    }
    const prefix = `${table}\0`;
    for (const key of this.reads.keys()) if (key.startsWith(prefix)) this.reads.delete(key);
    if (table === "transactions") this.forgetReads("sent_volumes");
  }
};
var guessCheck = (pending2) => {
  const guess = pending2.guess;
  if (guess === void 0 || guess.checked || guess.items.length === 0) return void 0;
  return {
    statement: guess.statement(),
    held: () => {
      guess.checked = true;
    },
    refusal: (error) => isSqlError(error) && sqlStateOf(error) === READS_REFUSED ? Effect47.die(new StaleGuessedReads()) : void 0
  };
};
var joinedTexts = /* @__PURE__ */ new Map();
var JOINED_KEPT = 64;
var joinSelects = (a, b) => {
  let byB = joinedTexts.get(a.text);
  if (byB === void 0) {
    if (joinedTexts.size >= JOINED_KEPT) joinedTexts.clear();
    byB = /* @__PURE__ */ new Map();
    joinedTexts.set(a.text, byB);
  }
  let text2 = byB.get(b.text);
  if (text2 === void 0) {
    if (byB.size >= JOINED_KEPT) byB.clear();
    const shift = a.params.length;
    text2 = `select * from (${a.text}) a, (${b.text.replace(/\$(\d+)/g, (_, n) => `$${Number(n) + shift}`)}) b`;
    byB.set(b.text, text2);
  }
  return { text: text2, params: [...a.params, ...b.params] };
};
var bothChecks = (a, b) => ({
  statement: joinSelects(a.statement, b.statement),
  held: () => {
    a.held();
    b.held();
  },
  refusal: (error) => a.refusal(error) ?? b.refusal(error)
});
var CurrentPending = Context12.Reference("payments-service/adapters/sql/CurrentPending", {
  defaultValue: () => void 0
});
var balanceKey = (platformId, account) => `${platformId}\0${account}`;
var readKey = (table, platformId, ...key) => key.length === 1 ? `${table}\0${platformId}\0${key[0]}` : [table, platformId, ...key].join("\0");
var writtenTable = (text2) => /^\s*(?:insert\s+into|update|delete\s+from)\s+([a-z_][a-z0-9_]*)/i.exec(text2)?.[1]?.toLowerCase();
var WITH_TEXTS_KEPT = 256;
var withTexts = new BoundedMemo(WITH_TEXTS_KEPT);
var scanWrites = (text2) => /\b(insert|update|delete)\b/i.test(text2);
var withWrites = (text2) => withTexts.getOrCompute(text2, scanWrites);
var newShape = () => ({ parts: /* @__PURE__ */ new Map(), mains: /* @__PURE__ */ new Map(), text: void 0 });
var SHAPES_KEPT = 2048;
var shapes = newShape();
var shapesKept = 0;
var textsBuilt = 0;
var alsoKeys = /* @__PURE__ */ new Map();
var shapeKey = (s) => {
  if (s.also === void 0) return s.text;
  let byAlso = alsoKeys.get(s.text);
  if (byAlso === void 0) {
    byAlso = /* @__PURE__ */ new Map();
    alsoKeys.set(s.text, byAlso);
  }
  let key = byAlso.get(s.also);
  if (key === void 0) {
    key = `${s.text}\0${s.also}`;
    byAlso.set(s.also, key);
    shapesKept++;
  }
  return key;
};
var nextShape = (byText, s) => {
  const key = shapeKey(s);
  let byCount = byText.get(key);
  if (byCount === void 0) {
    byCount = /* @__PURE__ */ new Map();
    byText.set(key, byCount);
  }
  let node = byCount.get(s.params.length);
  if (node === void 0) {
    node = newShape();
    byCount.set(s.params.length, node);
    shapesKept++;
  }
  return node;
};
var combinedText = (statements2, main) => {
  textsBuilt++;
  let offset = 0;
  const shifted = (text2, shift) => text2.replace(/\$(\d+)/g, (_, n) => `$${Number(n) + shift}`);
  const renumbered = (s) => {
    const shift = offset;
    offset += s.params.length;
    return shifted(s.text, shift);
  };
  const parts = statements2.map((s, i) => {
    const shift = offset;
    const part = `w${i} as (${renumbered(s)})`;
    return s.also === void 0 ? part : `${part},
w${i}a as (${shifted(s.also, shift).replaceAll("{self}", `w${i}`)})`;
  });
  return `with ${parts.join(",\n")}
${main === void 0 ? "select 1" : renumbered(main)}`;
};
var combine = (statements2, main) => {
  if (statements2.length === 1 && main === void 0 && statements2[0].also === void 0) return statements2[0];
  if (statements2.length === 0 && main !== void 0) return main;
  if (shapesKept >= SHAPES_KEPT) {
    shapes = newShape();
    alsoKeys = /* @__PURE__ */ new Map();
    shapesKept = 0;
  }
  let node = shapes;
  const params = [];
  for (const s of statements2) {
    node = nextShape(node.parts, s);
    for (const p of s.params) params.push(p);
  }
  if (main !== void 0) {
    node = nextShape(node.mains, main);
    for (const p of main.params) params.push(p);
  }
  node.text ??= combinedText(statements2, main);
  return { text: node.text, params };
};
var makePending = (rawIn, plainIn, eventsStatement2) => {
  const execIn = (context, text2, params) => Effect47.asVoid(plainIn(context, text2, params));
  const exec = (text2, params) => Effect47.contextWith((context) => execIn(context, text2, params));
  const sendIn = (context, statements2) => {
    if (statements2.length === 0) return Effect47.void;
    const one = combine(statements2);
    return execIn(context, one.text, one.params);
  };
  const flushWrites = Effect47.contextWith((context) => {
    const pending2 = Context12.get(context, CurrentPending);
    if (pending2 === void 0) return Effect47.void;
    pending2.forgetReads(void 0);
    return pending2.statements.length === 0 ? Effect47.void : sendIn(context, pending2.statements.splice(0));
  });
  const leadingIn = (pending2, main) => pending2 === void 0 || pending2.statements.length === 0 ? main : combine(pending2.statements.splice(0), main);
  const takeLast = (pending2) => {
    if (pending2 === void 0) return void 0;
    const clock = pending2.finalCheck;
    const guessed = guessCheck(pending2);
    const check = clock !== void 0 && guessed !== void 0 ? bothChecks(clock, guessed) : clock ?? guessed;
    if (pending2.statements.length === 0 && pending2.events.length === 0 && check === void 0) return void 0;
    const statements2 = pending2.statements.splice(0);
    if (pending2.events.length > 0) statements2.unshift(eventsStatement2(pending2.events.splice(0)));
    pending2.finalCheck = void 0;
    return { statement: combine(statements2, check?.statement), check };
  };
  const flushAll = Effect47.contextWith((context) => {
    const last = takeLast(Context12.get(context, CurrentPending));
    if (last === void 0) return Effect47.void;
    const sent = execIn(context, last.statement.text, last.statement.params);
    if (last.check === void 0) return sent;
    const check = last.check;
    return Effect47.matchCauseEffect(sent, {
      onSuccess: () => Effect47.sync(check.held),
      onFailure: (cause) => lastStatementFailed(last, cause)
    });
  });
  const touchesBalances = (text2) => text2.includes("payments_restore_snapshot") || !(/^\s*select\b/i.test(text2) || /^\s*with\b/i.test(text2) && !withWrites(text2));
  const queryIn = (context, text2, params) => {
    const pending2 = Context12.get(context, CurrentPending);
    if (pending2 === void 0) return rawIn(context, text2, params);
    if (touchesBalances(text2)) {
      pending2.balances.clear();
      pending2.forgetReads(void 0);
    }
    return pending2.statements.length === 0 ? rawIn(context, text2, params) : Effect47.andThen(sendIn(context, pending2.statements.splice(0)), rawIn(context, text2, params));
  };
  const query2 = (text2, params) => Effect47.contextWith((context) => queryIn(context, text2, params));
  const keep = (pending2, text2, params, row, also) => {
    pending2.forgetReads(writtenTable(text2));
    const again = (s) => row !== void 0 && s.row === row || s.text === text2 && (row === void 0 || s.row === void 0);
    const earlier = pending2.statements.some(again) ? pending2.statements.splice(0) : void 0;
    pending2.statements.push({ text: text2, params, row, also });
    return earlier;
  };
  const deferIn = (context, pending2, text2, params, row, also) => {
    if (pending2 === void 0) return also === void 0 ? execIn(context, text2, params) : sendIn(context, [{ text: text2, params, also }]);
    const earlier = keep(pending2, text2, params, row, also);
    return earlier === void 0 ? Effect47.void : sendIn(context, earlier);
  };
  const defer = (text2, params, row, also) => Effect47.contextWith((context) => deferIn(context, Context12.get(context, CurrentPending), text2, params, row, also));
  return { query: query2, queryIn, exec, defer, deferIn, flushWrites, flushAll, takeLast, leadingIn };
};

// src/adapters/sql/payment-reads.ts
var DAY_MILLIS3 = 864e5;
var cachedDoc = (table, platformId, id, read) => CurrentPending.use((pending2) => {
  const hit = pending2?.reads.get(readKey(table, platformId, id));
  if (hit === void 0) return read;
  if (hit === null) return Effect48.succeed(void 0);
  return Effect48.succeed(table === "quotes" || table === "transactions" ? docOf({ doc: hit }) : keptDocOf(hit));
});
var cachedVolume = (platformId, customerKey, currency, since, read) => CurrentPending.use((pending2) => {
  const hit = pending2?.reads.get(readKey("sent_volumes", platformId, customerKey, currency, String(since)));
  return hit === void 0 || hit === null ? read : Effect48.succeed(Number(hit));
});
var sideOf = (id) => id?.startsWith("InternalAccount:") === true ? "internal" : id?.startsWith("ExternalAccount:") === true ? "external" : "none";
var reads = (side, kind) => side === kind || side === "any";
var QUOTE_HINTS = 4096;
var quoteSides = new BoundedMemo(QUOTE_HINTS);
var rememberQuoteAccounts2 = (platformId, quoteId, sourceId, destinationId) => {
  quoteSides.set(`${platformId}\0${quoteId}`, [sideOf(sourceId), sideOf(destinationId)]);
};
var specText = (table) => table === "quotes" ? `select q.doc as quote_doc, q.customer_id, q.currency, q.source_id, q.destination_id, null::text as source_doc
        from quotes q where q.platform_id = $1 and q.id = $2` : `select null::json as quote_doc, o.customer_id, o.currency, $2::text as source_id, $3::text as destination_id, o.doc::text as source_doc
        from ${table} o where o.platform_id = $1 and o.id = $2`;
var startOf = (wants) => wants.kind === "quote" ? "quotes" : wants.sourceAccountId.startsWith("InternalAccount:") ? "internal_accounts" : wants.sourceAccountId.startsWith("ExternalAccount:") ? "external_accounts" : void 0;
var readAheadText = ({ destination, since, source, table }) => {
  const isKind = (column, kind) => `s.${column} like '${kind === "internal" ? "InternalAccount" : "ExternalAccount"}:%'`;
  const account = (side, kind, column) => {
    if (!reads(side, kind)) return "null::text";
    if (column === "source_id" && table === `${kind}_accounts`) return "s.source_doc";
    return `case when ${isKind(column, kind)} then (select a.doc::text from ${kind}_accounts a where a.platform_id = $1 and a.id = s.${column}) end`;
  };
  const balance = (side, column) => reads(side, "internal") ? `case when ${isKind(column, "internal")} then (select b.balance::text from ledger_balances b where b.platform_id = $1 and b.account = s.${column}) end` : "null::text";
  return `with s as materialized (${specText(table)})
    select s.quote_doc::text as quote, s.customer_id, s.currency, s.source_id, s.destination_id,
      (select c.doc::text from customers c where c.platform_id = $1 and c.id = s.customer_id) as customer,
      (select c.doc::text from platform_configs c where c.platform_id = $1) as config,
      ${account(source, "internal", "source_id")} as source_internal,
      ${account(source, "external", "source_id")} as source_external,
      ${account(destination, "internal", "destination_id")} as destination_internal,
      ${account(destination, "external", "destination_id")} as destination_external,
      ${balance(source, "source_id")} as source_balance,
      ${// An execution moves both accounts (their balances are announced); a quote reads the source's only.
  table === "quotes" ? balance(destination, "destination_id") : "null::text"} as destination_balance,
      ${since !== void 0 ? `case when s.currency is not null then (select coalesce(sum(v.amount), 0)::text from sent_volumes v
          where v.platform_id = $1 and v.customer_key = coalesce(s.customer_id, '') and v.currency = s.currency and v.day_ms >= ${since}::bigint) end` : "null::text"} as volume
    from s`;
};
var readAheadTexts = /* @__PURE__ */ new Map();
var readAheadStatement = (platformId, wants) => {
  const table = startOf(wants);
  if (table === void 0) return void 0;
  const params = wants.kind === "quote" ? [platformId, wants.quoteId] : [platformId, wants.sourceAccountId, wants.destinationAccountId ?? null];
  const volume = wants.volumeSince % DAY_MILLIS3 === 0;
  if (volume) params.push(wants.volumeSince);
  const [source, destination] = wants.kind === "quote" ? quoteSides.get(`${platformId}\0${wants.quoteId}`) ?? ["any", "any"] : [sideOf(wants.sourceAccountId), sideOf(wants.destinationAccountId)];
  const shape = { table, source, destination, since: volume ? `$${params.length}` : void 0 };
  const key = `${table}:${source}:${destination}:${shape.since ?? ""}`;
  let text2 = readAheadTexts.get(key);
  if (text2 === void 0) {
    text2 = readAheadText(shape);
    readAheadTexts.set(key, text2);
  }
  return { text: text2, params, shape };
};
var exactNumber = (text2) => {
  const n = Number(text2);
  if (!Number.isSafeInteger(n)) throw new Error(`a stored amount is not an exact integer: ${text2}`);
  return n;
};
var guessAhead = (seen, pending2, platformId, wants) => {
  const table = startOf(wants);
  if (table === void 0) return false;
  const start = wants.kind === "quote" ? seen.row("quotes", platformId, wants.quoteId) : seen.row(table, platformId, wants.sourceAccountId);
  if (start === void 0 || start.text === null || start.customerId === void 0 || start.currency === void 0) return false;
  const customerId = start.customerId;
  const currency = start.currency;
  const sourceId = wants.kind === "quote" ? start.sourceId : wants.sourceAccountId;
  const destinationId = wants.kind === "quote" ? start.destinationId : wants.destinationAccountId ?? null;
  if (sourceId === void 0 || destinationId === void 0) return false;
  const items = [];
  const rows = [];
  const row = (t, id) => {
    const r = seen.row(t, platformId, id);
    if (r === void 0) return false;
    items.push({ kind: "row", table: t, platformId, id, text: r.text });
    rows.push([t, id, r.text]);
    return true;
  };
  items.push({ kind: "row", table, platformId, id: wants.kind === "quote" ? wants.quoteId : wants.sourceAccountId, text: start.text });
  rows.push([table, wants.kind === "quote" ? wants.quoteId : wants.sourceAccountId, start.text]);
  if (customerId !== null && !row("customers", customerId)) return false;
  if (!row("platform_configs", "")) return false;
  for (const id of [sourceId, destinationId]) {
    const kind = sideOf(id);
    if (id === null || kind === "none" || id === sourceId && wants.kind === "accounts") continue;
    if (!row(`${kind}_accounts`, id)) return false;
  }
  const balances = [];
  const balance = (account) => {
    if (account === null || sideOf(account) !== "internal") return true;
    const b = seen.balances.get(seenBalanceKey(platformId, account));
    if (b === void 0) return false;
    items.push({ kind: "balance", platformId, account, balance: b });
    balances.push([account, b]);
    return true;
  };
  if (!balance(sourceId)) return false;
  if (wants.kind === "quote" && !balance(destinationId)) return false;
  const volumeKey = currency === null || wants.volumeSince % DAY_MILLIS3 !== 0 ? void 0 : seenVolumeKey(platformId, customerId ?? "", currency);
  let volume;
  if (volumeKey !== void 0) {
    const v = seen.volumes.get(volumeKey);
    if (v === void 0 || v.since !== wants.volumeSince) return false;
    volume = v.volume;
    items.push({ kind: "volume", platformId, customerKey: customerId ?? "", currency, since: v.since, volume: v.volume });
  }
  for (const [t, id, text2] of rows) pending2.reads.set(readKey(t, platformId, id), text2);
  for (const [account, b] of balances) {
    const key = balanceKey(platformId, account);
    if (!pending2.balances.has(key)) pending2.balances.set(key, b);
  }
  if (volumeKey !== void 0 && volume !== void 0) {
    pending2.reads.set(readKey("sent_volumes", platformId, customerId ?? "", currency, String(wants.volumeSince)), String(volume));
    pending2.volumes.set(volumeKey, { since: wants.volumeSince, volume });
  }
  const guess = pending2.guess ??= new GuessedReads();
  for (const g of items) guess.items.push(g);
  return true;
};
var makePaymentReads = (query2, seen) => ({
  readAhead: (platformId, wants) => CurrentPending.use((pending2) => {
    if (pending2 === void 0) return Effect48.void;
    if (pending2.guessing && seen.allows() && guessAhead(seen, pending2, platformId, wants)) return Effect48.void;
    const statement = readAheadStatement(platformId, wants);
    if (statement === void 0) return Effect48.void;
    return Effect48.map(query2(statement.text, statement.params), (rows) => {
      const row = rows[0];
      if (row === void 0) return;
      seen.earned();
      const keep = (table, id, doc) => pending2.reads.set(readKey(table, platformId, id), doc);
      const keepSeen = (table, id, doc) => {
        keep(table, id, doc);
        const before = seen.row(table, platformId, id);
        seen.rememberRow(table, platformId, id, before !== void 0 && before.text === doc ? before : { text: doc });
      };
      const knowBalance = (account, balance) => {
        const key = balanceKey(platformId, account);
        const value = balance === null ? 0 : exactNumber(balance);
        seen.balances.set(seenBalanceKey(platformId, account), value);
        if (!pending2.balances.has(key)) pending2.balances.set(key, value);
      };
      const { shape } = statement;
      if (wants.kind === "quote") {
        keep("quotes", wants.quoteId, row.quote);
        seen.rememberRow("quotes", platformId, wants.quoteId, {
          text: row.quote,
          customerId: row.customer_id,
          currency: row.currency,
          sourceId: row.source_id,
          destinationId: row.destination_id
        });
      }
      if (row.customer_id !== null) keepSeen("customers", row.customer_id, row.customer);
      keepSeen("platform_configs", "", row.config);
      for (const [id, side, internal, external] of [
        [row.source_id, shape.source, row.source_internal, row.source_external],
        [row.destination_id, shape.destination, row.destination_internal, row.destination_external]
      ]) {
        const kind = sideOf(id);
        if (id === null || kind === "none" || !reads(side, kind)) continue;
        const doc = kind === "internal" ? internal : external;
        if (wants.kind === "accounts" && id === row.source_id) {
          keep(`${kind}_accounts`, id, doc);
          seen.rememberRow(`${kind}_accounts`, platformId, id, { text: doc, customerId: row.customer_id, currency: row.currency });
        } else keepSeen(`${kind}_accounts`, id, doc);
      }
      const { destination_id: destinationId, source_id: sourceId } = row;
      if (sourceId !== null && sideOf(sourceId) === "internal" && reads(shape.source, "internal")) knowBalance(sourceId, row.source_balance);
      if (wants.kind === "quote" && destinationId !== null && sideOf(destinationId) === "internal" && reads(shape.destination, "internal")) {
        knowBalance(destinationId, row.destination_balance);
      }
      if (row.currency !== null && row.volume !== null) {
        keep("sent_volumes", [row.customer_id ?? "", row.currency, String(wants.volumeSince)].join("\0"), row.volume);
        const seenVolume = { since: wants.volumeSince, volume: exactNumber(row.volume) };
        pending2.volumes.set(seenVolumeKey(platformId, row.customer_id ?? "", row.currency), seenVolume);
        seen.volumes.set(seenVolumeKey(platformId, row.customer_id ?? "", row.currency), seenVolume);
      }
    });
  })
});

// src/adapters/sql/customers.ts
var customerWhere = (platformId, q) => {
  const w = Where.platform(platformId);
  if (q.includeDeleted !== true) w.raw("active");
  w.eq("platform_customer_id", q.platformCustomerId);
  w.eq("customer_type", q.customerType);
  w.within("created_ms", q.created);
  w.within("updated_ms", q.updated);
  w.eq("region", q.region);
  if (q.currency !== void 0) w.add((p) => `${p}::text = any(currencies)`, q.currency);
  w.eq("uma_address", q.umaAddress);
  return w;
};
var externalAccountWhere = (platformId, q) => {
  const w = Where.platform(platformId);
  w.raw(q.owner === "platform" ? "customer_id is null" : "customer_id is not null");
  w.eq("customer_id", q.customerId);
  w.eq("currency", q.currency);
  return w;
};
var externalAccountParams = (r) => [
  r.platformId,
  r.account.id,
  millisOf2(r.account.createdAt),
  r.account.customerId,
  r.account.currency,
  r.equivalenceKey,
  r.account.customerId !== null && r.account.defaultUmaDepositAccount,
  JSON.stringify(r)
];
var makeCustomerStore = (query2, write) => {
  const { one, page, byId } = documentReads(query2);
  const customer = byId("customers");
  const externalAccount = byId("external_accounts");
  return {
    tables: ["customers", "external_accounts"],
    writes: {
      putCustomer: (r) => write(
        `insert into customers (platform_id, id, created_ms, updated_ms, platform_customer_id, active, customer_type, region, uma_address, currencies, doc)
           values ($1, $2, $3::bigint, $4::bigint, $5, $6, $7, $8, $9, array(select jsonb_array_elements_text($10::jsonb)), $11::jsonb)
           on conflict (platform_id, id) do update set updated_ms = excluded.updated_ms, platform_customer_id = excluded.platform_customer_id,
             active = excluded.active, customer_type = excluded.customer_type, region = excluded.region, uma_address = excluded.uma_address,
             currencies = excluded.currencies, doc = excluded.doc`,
        [
          r.platformId,
          r.customer.id,
          millisOf2(r.customer.createdAt),
          millisOf2(r.customer.updatedAt),
          r.customer.platformCustomerId,
          r.deletedAt === void 0,
          r.customer.customerType,
          r.customer.region ?? null,
          r.customer.umaAddress ?? null,
          JSON.stringify(r.customer.currencies ?? []),
          JSON.stringify(r)
        ]
      ),
      putExternalAccount: (r) => write(
        `insert into external_accounts (platform_id, id, created_ms, customer_id, currency, equivalence_key, default_uma, doc)
           values ($1, $2, $3::bigint, $4, $5, $6, $7, $8::jsonb)
           on conflict (platform_id, id) do update set customer_id = excluded.customer_id, currency = excluded.currency,
             equivalence_key = excluded.equivalence_key, default_uma = excluded.default_uma, doc = excluded.doc`,
        externalAccountParams(r)
      ),
      deleteExternalAccount: (platformId, id) => Effect49.asVoid(query2(`delete from external_accounts where platform_id = $1 and id = $2`, [platformId, id]))
    },
    repositories: {
      customers: {
        get: (platformId, id) => cachedDoc("customers", platformId, id, customer(platformId, id)),
        findActiveByPlatformCustomerId: (platformId, pcid) => one(
          `select doc::text as doc from customers where platform_id = $1 and platform_customer_id = $2 and active`,
          [platformId, pcid]
        ),
        findActiveByUmaAddress: (platformId, umaAddress) => one(
          `select doc::text as doc from customers where platform_id = $1 and lower(uma_address) = lower($2) and active`,
          [platformId, umaAddress]
        ),
        list: (platformId, q, p) => page("customers", customerWhere(platformId, q), p, (r) => ({ createdAt: millisOf2(r.customer.createdAt), id: r.customer.id }))
      },
      externalAccounts: {
        get: (platformId, id) => cachedDoc("external_accounts", platformId, id, externalAccount(platformId, id)),
        findByEquivalenceKey: (platformId, key) => one(`select doc::text as doc from external_accounts where platform_id = $1 and equivalence_key = $2`, [platformId, key]),
        findDefaultUmaDeposit: (platformId, customerId) => one(
          `select doc::text as doc from external_accounts where platform_id = $1 and customer_id = $2 and default_uma`,
          [platformId, customerId]
        ),
        list: (platformId, q, p) => page("external_accounts", externalAccountWhere(platformId, q), p, (r) => ({ createdAt: millisOf2(r.account.createdAt), id: r.account.id }))
      }
    }
  };
};

// src/adapters/sql/events.ts
import { Effect as Effect50 } from "effect";
var eventsStatement = (events) => {
  const keys = [];
  const docs = [];
  for (const e of events) {
    keys.push([e.platformId, e.id, e.type]);
    docs.push(JSON.stringify(e));
  }
  return {
    text: EVENTS_INSERT,
    params: [JSON.stringify([...new Set(events.map((e) => e.platformId))].sort()), JSON.stringify(keys), docs.join(EVENT_SEPARATOR)]
  };
};
var EVENT_SEPARATOR = "";
var EVENTS_INSERT = `insert into events (platform_id, id, type, doc)
     select k->>0, k->>1, k->>2, d::json
     from (select count(*) from (select pg_advisory_xact_lock(hashtext(p)) from json_array_elements_text($1::json) as p) locked) as platform_event_locks,
       rows from (json_array_elements($2::json), string_to_table($3::text, chr(1))) with ordinality as pending(k, d, n)
     order by n`;
var makeEventStore = (query2, flushAll, exec) => ({
  tables: ["events"],
  writes: {
    // Kept for the unit of work's last statement (./pending.ts); at once outside a unit of work.
    emit: (event) => CurrentPending.use((pending2) => {
      if (pending2 === void 0) {
        const one = eventsStatement([event]);
        return exec(one.text, one.params);
      }
      pending2.events.push(event);
      return Effect50.void;
    }),
    // Reads at most `limit` rows of `events_pkey` (the platform's oldest at or below upToSeq),
    // whatever the outbox holds; the time test applies to those rows only.
    sweepEvents: (platformId, sweep) => Effect50.andThen(flushAll, Effect50.map(
      query2(
        `with removed as (
             delete from events where platform_id = $1 and seq in (
               select seq from events where platform_id = $1 and seq <= $2::bigint order by seq limit $3)
             and (doc->>'timestamp')::timestamptz < to_timestamp($4::float8 / 1000)
             returning 1)
           select count(*)::int as removed from removed`,
        [platformId, sweep.upToSeq, Math.max(0, Math.floor(sweep.limit)), sweep.before]
      ),
      (rows) => rows[0]?.removed ?? 0
    ))
  },
  repositories: {
    events: {
      list: (platformId, options) => Effect50.andThen(flushAll, Effect50.map(
        query2(
          `select seq::float8 as seq, doc::text as doc from events where platform_id = $1 and seq > $2::bigint order by seq limit $3`,
          [platformId, options?.afterSeq ?? 0, options?.limit ?? 1e6]
        ),
        (rows) => rows.map((row) => ({ seq: row.seq, event: docOf(row) }))
      ))
    }
  }
});

// src/adapters/sql/idempotency.ts
import { Effect as Effect51 } from "effect";
var makeIdempotencyStore = (query2) => {
  const get = (platformId, key, now) => Effect51.map(
    query2(
      `select operation, request_hash, body::text as body, created_ms::float8 as created_ms, expires_ms::float8 as expires_ms
         from idempotency_keys where platform_id = $1 and key = $2 and expires_ms > $3::bigint`,
      [platformId, key, now]
    ),
    (rows) => {
      const row = rows[0];
      return row === void 0 ? void 0 : {
        platformId,
        key,
        operation: row.operation,
        requestHash: row.request_hash,
        body: JSON.parse(row.body),
        createdAt: row.created_ms,
        expiresAt: row.expires_ms
      };
    }
  );
  return {
    tables: ["idempotency_keys"],
    writes: {
      putIdempotency: (r) => Effect51.gen(function* () {
        const stored = yield* query2(
          `insert into idempotency_keys (platform_id, key, operation, request_hash, body, created_ms, expires_ms)
             values ($1, $2, $3, $4, $5::jsonb, $6::bigint, $7::bigint)
             on conflict (platform_id, key) do update set operation = excluded.operation, request_hash = excluded.request_hash,
               body = excluded.body, created_ms = excluded.created_ms, expires_ms = excluded.expires_ms
             where idempotency_keys.expires_ms <= excluded.created_ms
             returning key`,
          [r.platformId, r.key, r.operation, r.requestHash, JSON.stringify(r.body ?? null), r.createdAt, r.expiresAt]
        );
        if (stored.length > 0) return void 0;
        return yield* get(r.platformId, r.key, r.createdAt);
      })
    },
    repositories: { idempotency: { get } }
  };
};

// src/adapters/sql/invitations.ts
import { Effect as Effect52 } from "effect";
var INVITATION_TABLES = ["invitations"];
var makeInvitationStore = (query2) => {
  const { one } = documentReads(query2);
  return {
    tables: INVITATION_TABLES,
    writes: {
      // A code another platform holds is never overwritten: the update applies only to
      // the same platform's row, and no row back means the code was taken (a defect:
      // codes carry 64 random bits).
      putInvitation: (r) => Effect52.flatMap(
        query2(
          `insert into invitations (code, platform_id, created_ms, status, doc)
             values ($1, $2, $3::bigint, $4, $5::jsonb)
             on conflict (code) do update set status = excluded.status, doc = excluded.doc
               where invitations.platform_id = excluded.platform_id
             returning code`,
          [r.invitation.code, r.platformId, millisOf2(r.invitation.createdAt), r.invitation.status, JSON.stringify(r)]
        ),
        (rows) => rows.length === 1 ? Effect52.void : Effect52.die(new Error(`invitation code ${r.invitation.code} belongs to another platform`))
      )
    },
    repositories: {
      invitations: {
        getByCode: (code) => one(`select doc::text as doc from invitations where code = $1`, [code])
      }
    }
  };
};

// src/adapters/sql/bulk-jobs.ts
import { Effect as Effect53 } from "effect";
var BULK_JOB_TABLES = ["bulk_jobs"];
var makeBulkJobStore = (query2) => {
  const { one } = documentReads(query2);
  return {
    tables: BULK_JOB_TABLES,
    writes: {
      createBulkJob: (r, rows) => Effect53.asVoid(query2(
        `insert into bulk_jobs (platform_id, id, created_ms, status, doc, rows)
           values ($1, $2, $3::bigint, $4, $5::jsonb, $6::jsonb)`,
        [r.platformId, r.job.id, millisOf2(r.createdAt), r.job.status, JSON.stringify(r), JSON.stringify(rows)]
      )),
      putBulkJob: (r) => Effect53.flatMap(
        query2(
          `update bulk_jobs set status = $3, doc = $4::jsonb where platform_id = $1 and id = $2 returning id`,
          [r.platformId, r.job.id, r.job.status, JSON.stringify(r)]
        ),
        (updated) => updated.length === 1 ? Effect53.void : Effect53.die(new Error(`bulk job ${r.job.id} is not stored`))
      )
    },
    repositories: {
      bulkJobs: {
        get: (platformId, id) => one(`select doc::text as doc from bulk_jobs where platform_id = $1 and id = $2`, [platformId, id]),
        rows: (platformId, id, from, count) => Effect53.map(
          query2(
            `select coalesce(jsonb_agg(t.e order by t.i), '[]'::jsonb)::text as rows
                 from bulk_jobs, jsonb_array_elements(bulk_jobs.rows) with ordinality as t(e, i)
                where bulk_jobs.platform_id = $1 and bulk_jobs.id = $2 and t.i > $3::bigint and t.i <= $4::bigint`,
            [platformId, id, Math.max(0, from), Math.max(0, from) + Math.max(0, count)]
          ),
          (result) => result[0] === void 0 ? [] : JSON.parse(result[0].rows)
        )
      }
    }
  };
};

// src/adapters/sql/snapshots.ts
import { Effect as Effect54 } from "effect";
var identifier = (table) => {
  if (!/^[a-z_][a-z0-9_]*$/.test(table)) throw new Error(`not a table name: ${table}`);
  return table;
};
var makeSnapshotStore = (query2, flushAll, tables, schema) => {
  const { one, page } = documentReads(query2);
  const names = tables.map(identifier);
  const capture = names.map((t) => `select $1::text, $2::text, '${t}'::text, r::text from ${t} r where r.platform_id = $1`).join("\n union all ");
  return {
    // The snapshots are not the platform's state: a sandbox reset keeps them.
    tables: [],
    writes: {
      // The unit of work's pending events are written first (./events.ts): a snapshot holds them.
      createSnapshot: (r) => Effect54.andThen(
        Effect54.andThen(flushAll, query2(
          `insert into sandbox_snapshots (platform_id, id, created_ms, schema, doc) values ($1, $2, $3::bigint, $4, $5::jsonb)`,
          [r.platformId, r.snapshot.id, millisOf2(r.snapshot.createdAt), schema, JSON.stringify(r)]
        )),
        query2(`insert into sandbox_snapshot_rows (platform_id, snapshot_id, table_name, row) ${capture}`, [r.platformId, r.snapshot.id])
      ).pipe(Effect54.asVoid),
      deleteSnapshot: (platformId, id) => Effect54.map(
        Effect54.andThen(
          query2(`delete from sandbox_snapshot_rows where platform_id = $1 and snapshot_id = $2`, [platformId, id]),
          query2(`delete from sandbox_snapshots where platform_id = $1 and id = $2 returning id`, [platformId, id])
        ),
        (rows) => rows.length > 0
      ),
      restoreSnapshot: (platformId, id) => Effect54.gen(function* () {
        const held = yield* query2(
          `select schema from sandbox_snapshots where platform_id = $1 and id = $2 for share`,
          [platformId, id]
        );
        if (held[0] === void 0) return "missing";
        if (held[0].schema !== schema) return "otherSchema";
        yield* flushAll;
        yield* query2(`select payments_restore_snapshot($1, $2, $3::text[])`, [platformId, id, names]);
        return "restored";
      })
    },
    repositories: {
      snapshots: {
        get: (platformId, id) => one(`select doc::text as doc from sandbox_snapshots where platform_id = $1 and id = $2`, [platformId, id]),
        list: (platformId, p) => page("sandbox_snapshots", Where.platform(platformId), p, (r) => ({
          createdAt: millisOf2(r.snapshot.createdAt),
          id: r.snapshot.id
        }))
      }
    }
  };
};

// src/adapters/sql/tokens.ts
import { Effect as Effect55 } from "effect";
var TOKEN_TABLES = ["api_tokens"];
var makeTokenStore = (query2) => {
  const { one, page, byId } = documentReads(query2);
  return {
    tables: TOKEN_TABLES,
    writes: {
      putToken: (r) => Effect55.asVoid(query2(
        `insert into api_tokens (platform_id, id, client_id, created_ms, updated_ms, name, doc)
           values ($1, $2, $3, $4::bigint, $5::bigint, $6, $7::jsonb)
           on conflict (platform_id, id) do update set updated_ms = excluded.updated_ms, name = excluded.name, doc = excluded.doc`,
        [r.platformId, r.token.id, r.token.clientId, millisOf2(r.token.createdAt), millisOf2(r.token.updatedAt), r.token.name, JSON.stringify(r)]
      )),
      deleteToken: (platformId, id) => Effect55.map(
        query2(`delete from api_tokens where platform_id = $1 and id = $2 returning id`, [platformId, id]),
        (rows) => rows.length > 0
      )
    },
    repositories: {
      tokens: {
        get: byId("api_tokens"),
        byClientId: (clientId) => one(`select doc::text as doc from api_tokens where client_id = $1`, [clientId]),
        list: (platformId, q, p) => {
          const w = Where.platform(platformId);
          w.eq("name", q.name);
          w.within("created_ms", q.created);
          w.within("updated_ms", q.updated);
          return page("api_tokens", w, p, (r) => ({ createdAt: millisOf2(r.token.createdAt), id: r.token.id }));
        }
      }
    }
  };
};

// src/adapters/sql/kyc.ts
import { Effect as Effect56 } from "effect";
var makeKycStore = (query2, write) => {
  const { page, byId, byColumn } = documentReads(query2);
  const remove = (table) => (platformId, id) => Effect56.asVoid(query2(`delete from ${table} where platform_id = $1 and id = $2`, [platformId, id]));
  return {
    tables: ["documents", "beneficial_owners", "verifications"],
    writes: {
      putDocument: (r) => write(
        `insert into documents (platform_id, id, created_ms, holder_id, document_type, doc)
           values ($1, $2, $3::bigint, $4, $5, $6::jsonb)
           on conflict (platform_id, id) do update set holder_id = excluded.holder_id, document_type = excluded.document_type, doc = excluded.doc`,
        [r.platformId, r.document.id, millisOf2(r.document.createdAt), r.document.documentHolder, r.document.documentType, JSON.stringify(r)]
      ),
      deleteDocument: remove("documents"),
      putBeneficialOwner: (r) => Effect56.orDie(write(
        `insert into beneficial_owners (platform_id, id, created_ms, customer_id, doc) values ($1, $2, $3::bigint, $4, $5::jsonb)
           on conflict (platform_id, id) do update set customer_id = excluded.customer_id, doc = excluded.doc`,
        [r.platformId, r.owner.id, millisOf2(r.owner.createdAt), r.owner.customerId, JSON.stringify(r)]
      )),
      deleteBeneficialOwner: remove("beneficial_owners"),
      putVerification: (r) => Effect56.orDie(write(
        `insert into verifications (platform_id, id, created_ms, customer_id, status, doc) values ($1, $2, $3::bigint, $4, $5, $6::jsonb)
           on conflict (platform_id, id) do update set status = excluded.status, doc = excluded.doc`,
        [r.platformId, r.verification.id, millisOf2(r.verification.createdAt), r.verification.customerId, r.verification.verificationStatus, JSON.stringify(r)]
      ))
    },
    repositories: {
      documents: {
        get: byId("documents"),
        listByHolder: byColumn("documents", "holder_id"),
        list: (platformId, q, p) => {
          const w = Where.platform(platformId);
          w.eq("holder_id", q.documentHolder);
          return page("documents", w, p, (r) => ({ createdAt: millisOf2(r.document.createdAt), id: r.document.id }));
        }
      },
      beneficialOwners: {
        get: byId("beneficial_owners"),
        listByCustomer: byColumn("beneficial_owners", "customer_id"),
        list: (platformId, q, p) => page(
          "beneficial_owners",
          Where.platform(platformId).add((x) => `customer_id = ${x}`, q.customerId),
          p,
          (r) => ({ createdAt: millisOf2(r.owner.createdAt), id: r.owner.id })
        )
      },
      verifications: {
        get: byId("verifications"),
        list: (platformId, q, p) => {
          const w = Where.platform(platformId);
          w.eq("customer_id", q.customerId);
          w.eq("status", q.verificationStatus);
          return page("verifications", w, p, (r) => ({ createdAt: millisOf2(r.verification.createdAt), id: r.verification.id }));
        }
      }
    }
  };
};

// src/adapters/sql/money.ts
import { Context as Context13, Effect as Effect58 } from "effect";

// src/adapters/sql/turns.ts
import { Cause as Cause3, Effect as Effect57, Scope as Scope2, Semaphore as Semaphore3 } from "effect";
var turnKey = (platformId, account) => `turn:${platformId}:${account}`;
var WidenTurns = class extends Error {
  constructor(keys) {
    super("A nested unit of work moves an account its enclosing unit of work holds no turn on; it runs again holding it");
    this.keys = keys;
  }
  keys;
};
var widenedBy = (cause) => {
  for (const r of cause.reasons) if (Cause3.isDieReason(r) && r.defect instanceof WidenTurns) return r.defect.keys;
  return void 0;
};
var makeTurns = (sql) => {
  const local = /* @__PURE__ */ new Map();
  const locally = (key, effect) => Effect57.suspend(() => {
    let entry = local.get(key);
    if (entry === void 0) {
      entry = { semaphore: Semaphore3.makeUnsafe(1), users: 0 };
      local.set(key, entry);
    }
    const held = entry;
    held.users++;
    return held.semaphore.withPermit(effect).pipe(
      Effect57.ensuring(Effect57.sync(() => {
        held.users--;
        if (held.users === 0 && local.get(key) === held) local.delete(key);
      }))
    );
  });
  const inDatabase = (ordered, run2) => Effect57.scoped(Effect57.gen(function* () {
    const connection = yield* sql.reserve;
    const unlock = connection.executeUnprepared("select pg_advisory_unlock_all()", [], void 0);
    yield* Scope2.addFinalizer(
      yield* Effect57.scope,
      Effect57.ignore(Effect57.catch(unlock, () => Effect57.andThen(connection.executeUnprepared("rollback", [], void 0), unlock)))
    );
    yield* connection.executeUnprepared(
      "select pg_advisory_lock(hashtext(k)) from jsonb_array_elements_text($1::jsonb) as k",
      [JSON.stringify(ordered)],
      void 0
    );
    return yield* run2((effect) => Effect57.provideService(effect, sql.transactionService, [connection, -1]), true);
  }));
  function holding(keys, mode, run2) {
    const ordered = [...keys].sort();
    return Effect57.suspend(() => {
      const database = mode === "always" || ordered.some((key) => (local.get(key)?.users ?? 0) > 0);
      const inner = database ? inDatabase(ordered, run2) : run2((effect) => effect, false);
      return ordered.reduceRight((held, key) => locally(key, held), inner);
    });
  }
  return { holding };
};

// src/adapters/sql/money.ts
var MONEY_TABLES = [
  "internal_accounts",
  "ledger_balances",
  "journal_entries",
  // Migration 12: written with each journal entry (`post`).
  "journal_account_postings",
  "quotes",
  "transactions",
  "platform_configs",
  // After `transactions`: its delete trigger moves these rows (a new payment's are written with it).
  "sent_volumes"
];
var MAX_EXACT = BigInt(Number.MAX_SAFE_INTEGER);
var DAY_MILLIS4 = 864e5;
var SYSTEM_SUMS = `select p->>'account' as account, p->>'currency' as currency, sum((p->>'amount')::bigint)::text as balance
  from journal_entries j, json_array_elements(j.doc->'postings') p
  where j.platform_id = $1 and p->>'account' not like 'InternalAccount:%'`;
var NONNEGATIVE_CHECK = "ledger_balances_internal_nonnegative";
var EXACT_CHECK = "ledger_balances_exact";
var DEBIT_KNOWN = `update ledger_balances set balance = balance + $3::bigint where platform_id = $1 and account = $2`;
var CREDIT_KNOWN = `insert into ledger_balances as b (platform_id, account, currency, balance) values ($1, $2, $3, $4::bigint)
         on conflict (platform_id, account) do update set balance = b.balance + excluded.balance`;
var CREDIT_GUARDED = `insert into ledger_balances as b (platform_id, account, currency, balance) values ($1, $2, $3, $4::bigint)
         on conflict (platform_id, account) do update set balance = b.balance + excluded.balance
         where b.balance + excluded.balance between -${MAX_EXACT} and ${MAX_EXACT}
           and (b.account not like 'InternalAccount:%' or b.balance + excluded.balance >= 0)
         returning balance::text as balance`;
var DEBIT_GUARDED = `update ledger_balances as b set balance = b.balance + $3::bigint
         where b.platform_id = $1 and b.account = $2
           and b.balance + $3::bigint between -${MAX_EXACT} and ${MAX_EXACT}
           and (b.account not like 'InternalAccount:%' or b.balance + $3::bigint >= 0)
         returning balance::text as balance`;
var JOURNAL_INSERT = `insert into journal_entries (platform_id, id, kind, transaction_id, at_ms, doc) values ($1, $2, $3, $4, $5::bigint, $6::json)`;
var JOURNAL_INSERT_RETURNING = `${JOURNAL_INSERT} returning seq`;
var JOURNAL_POSTINGS = `insert into journal_account_postings (platform_id, account, seq, currency, amount)
         select $1, p->>0, j.seq, p->>1, (p->>2)::bigint from {self} j, json_array_elements($7::json) p`;
var accountPostings = (entry) => {
  const byAccount = /* @__PURE__ */ new Map();
  for (const p of entry.postings) {
    if (!isInternalAccount(p.account)) continue;
    const row = byAccount.get(p.account);
    if (row === void 0) byAccount.set(p.account, [p.account, p.currency, BigInt(p.amount)]);
    else {
      if (p.currency < row[1]) row[1] = p.currency;
      row[2] += BigInt(p.amount);
    }
  }
  if (byAccount.size === 0) return void 0;
  return JSON.stringify([...byAccount.values()].map(([account, currency, amount]) => [account, currency, amount.toString()]));
};
var TRANSACTION_UPSERT = `insert into transactions (platform_id, id, created_ms, customer_id, platform_customer_id, status, type, sender, receiver,
         reference, sent_currency, sent_amount, doc)
       values ($1, $2, $3::bigint, $4, $5, $6, $7, $8, $9, $10, $11, $12::bigint, $13::json)
       on conflict (platform_id, id) do update set customer_id = excluded.customer_id,
         platform_customer_id = excluded.platform_customer_id, status = excluded.status, type = excluded.type,
         sender = excluded.sender, receiver = excluded.receiver, reference = excluded.reference,
         sent_currency = excluded.sent_currency, sent_amount = excluded.sent_amount, doc = excluded.doc`;
var TRANSACTION_WRITE = `${TRANSACTION_UPSERT} returning xmax = 0 as inserted`;
var TRANSACTION_VOLUME = `insert into sent_volumes as v (platform_id, customer_key, currency, day_ms, amount)
         select $1, $14::text, $11, $15::bigint, $12::bigint from {self} t where t.inserted and $14::text is not null
         on conflict (platform_id, customer_key, currency, day_ms) do update set amount = v.amount + excluded.amount`;
var exactNumber2 = (value) => {
  const n = typeof value === "number" ? value : Number(typeof value === "bigint" ? value : String(value));
  if (!Number.isSafeInteger(n)) throw new Error(`a stored amount is not an exact integer: ${String(value)}`);
  return n;
};
var refusal = (account, balance, amount) => {
  const next = balance + amount;
  if (next > MAX_EXACT || next < -MAX_EXACT) return "OUT_OF_RANGE";
  if (next < 0n && isInternalAccount(account)) return "INSUFFICIENT_BALANCE";
  return void 0;
};
var netMoves = (entry) => {
  const byAccount = /* @__PURE__ */ new Map();
  for (const p of entry.postings) {
    const move = byAccount.get(p.account);
    if (move === void 0) byAccount.set(p.account, { account: p.account, currency: p.currency, amount: BigInt(p.amount) });
    else {
      move.currency = p.currency;
      move.amount += BigInt(p.amount);
    }
  }
  return [...byAccount.values()].sort((a, b) => a.account < b.account ? -1 : a.account > b.account ? 1 : 0);
};
var brokenCheck = (e) => {
  if (e.reason._tag !== "ConstraintError") return void 0;
  const cause = e.reason.cause;
  const named = typeof cause === "object" && cause !== null && "constraint" in cause ? String(cause.constraint) : "";
  const text2 = `${named} ${e.reason.message ?? ""} ${cause instanceof Error ? cause.message : ""}`;
  return [NONNEGATIVE_CHECK, EXACT_CHECK].find((name) => text2.includes(name));
};
var sentVolumeStatement = (platformId, q) => {
  const w = Where.platform(platformId).raw("type = 'OUTGOING'");
  if (q.customerId === null) w.raw("customer_id is null");
  else w.add((x) => `customer_id = ${x}`, q.customerId);
  w.add((x) => `sent_currency = ${x}`, q.currency).add((x) => `created_ms >= ${x}::bigint`, q.since).raw("status not in ('FAILED', 'EXPIRED')");
  return { text: `select coalesce(sum(sent_amount), 0)::text as total from transactions where ${w.text}`, params: w.params };
};
var internalAccountWhere = (platformId, q) => {
  const w = Where.platform(platformId);
  w.raw(q.owner === "platform" ? "customer_id is null" : "customer_id is not null");
  w.eq("customer_id", q.customerId);
  w.eq("currency", q.currency);
  w.eq("type", q.type);
  return w;
};
var transactionWhere = (platformId, q) => {
  const w = Where.platform(platformId);
  w.eq("customer_id", q.customerId);
  w.eq("platform_customer_id", q.platformCustomerId);
  w.eitherEq(["sender", "receiver"], q.accountIdentifier);
  w.eq("sender", q.senderAccountIdentifier);
  w.eq("receiver", q.receiverAccountIdentifier);
  w.eq("status", q.status);
  w.eq("type", q.type);
  w.eq("reference", q.reference);
  w.within("created_ms", q.created);
  return w;
};
var makeMoneyStore = (sql, query2, sqlPending, seen = new Seen()) => {
  const { byId, many, one, page } = documentReads(query2);
  const internalAccount2 = byId("internal_accounts");
  const quote = byId("quotes");
  const runIn = makeRunIn(sql);
  const ledgerStatementIn = (context, pending2, text2, params, account) => {
    const s = sqlPending.leadingIn(pending2, { text: text2, params });
    return runIn(context, s.text, s.params).pipe(
      Effect58.catch((e) => {
        const check = brokenCheck(e);
        return check === void 0 ? Effect58.die(e) : check === NONNEGATIVE_CHECK ? ledgerRejectedIn("INSUFFICIENT_BALANCE", account) : ledgerRejectedIn("OUT_OF_RANGE", account);
      })
    );
  };
  const knowBalance = (pending2, platformId, account, balance) => {
    pending2?.balances.set(balanceKey(platformId, account), exactNumber2(balance));
  };
  const refuseMove = (platformId, account, amount) => Effect58.flatMap(
    query2(
      `select balance::text as balance from ledger_balances where platform_id = $1 and account = $2`,
      [platformId, account]
    ),
    (rows) => {
      const balance = rows[0] === void 0 ? 0n : BigInt(rows[0].balance);
      return ledgerRejectedIn(refusal(account, balance, amount) ?? "OUT_OF_RANGE", account);
    }
  );
  const moveKnown = (context, pending2, platformId, { account, amount, currency }, balance) => {
    const reason = refusal(account, balance, amount);
    if (reason !== void 0) return ledgerRejectedIn(reason, account);
    const row = balanceKey(platformId, account);
    pending2.moves.add(turnKey(platformId, account));
    const write = amount < 0n ? sqlPending.deferIn(context, pending2, DEBIT_KNOWN, [platformId, account, amount.toString()], row) : sqlPending.deferIn(context, pending2, CREDIT_KNOWN, [platformId, account, currency, amount.toString()], row);
    knowBalance(pending2, platformId, account, (balance + amount).toString());
    return write === Effect58.void ? void 0 : write;
  };
  const moveNow = (context, pending2, platformId, { account, amount, currency }) => {
    const standsAlone = refusal(account, 0n, amount) === void 0;
    pending2?.moves.add(turnKey(platformId, account));
    const statement = standsAlone ? ledgerStatementIn(context, pending2, CREDIT_GUARDED, [platformId, account, currency, amount.toString()], account) : ledgerStatementIn(context, pending2, DEBIT_GUARDED, [platformId, account, amount.toString()], account);
    return Effect58.flatMap(statement, (rows) => {
      if (rows[0] === void 0) return refuseMove(platformId, account, amount);
      knowBalance(pending2, platformId, account, rows[0].balance);
      return Effect58.void;
    });
  };
  const post = (entry) => Effect58.contextWith((context) => {
    const problem = entryProblem(entry);
    if (problem !== void 0) return ledgerRejectedIn(problem);
    const moves = netMoves(entry);
    const huge = moves.find((m) => m.amount > 2n * MAX_EXACT || m.amount < -2n * MAX_EXACT);
    if (huge !== void 0) return ledgerRejectedIn("OUT_OF_RANGE", huge.account);
    const pending2 = Context13.get(context, CurrentPending);
    const internal = moves.filter((m) => isInternalAccount(m.account));
    const journal = () => {
      const params = [entry.platformId, entry.id, entry.kind, entry.transactionId ?? null, millisOf2(entry.at), JSON.stringify(entry)];
      const postings = accountPostings(entry);
      const row = `journal\0${entry.platformId}\0${entry.id}`;
      return postings === void 0 ? sqlPending.deferIn(context, pending2, JOURNAL_INSERT, params, row) : sqlPending.deferIn(context, pending2, JOURNAL_INSERT_RETURNING, [...params, postings], row, JOURNAL_POSTINGS);
    };
    const from = (i) => {
      for (; i < internal.length; i++) {
        const m = internal[i];
        const known2 = pending2?.balances.get(balanceKey(entry.platformId, m.account));
        const next = known2 === void 0 || pending2 === void 0 ? moveNow(context, pending2, entry.platformId, m) : moveKnown(context, pending2, entry.platformId, m, BigInt(known2));
        if (next !== void 0) {
          const after = i + 1;
          return Effect58.andThen(next, () => from(after));
        }
      }
      return journal();
    };
    return from(0);
  });
  const putInternalAccount = (r) => Effect58.andThen(sqlPending.flushWrites, sql.unsafe(
    `insert into internal_accounts (platform_id, id, created_ms, customer_id, currency, type, status, doc)
       values ($1, $2, $3::bigint, $4, $5, $6, $7, $8::json)
       on conflict (platform_id, id) do update set customer_id = excluded.customer_id, currency = excluded.currency,
         type = excluded.type, status = excluded.status, doc = excluded.doc`,
    [r.platformId, r.id, millisOf2(r.createdAt), r.customerId, r.currency, r.type, r.status, JSON.stringify(r)]
  )).pipe(Effect58.asVoid, Effect58.catch(conflictOrDie));
  const exec = sqlPending.defer;
  const putQuote = (r) => {
    const { destination, source } = r.plan;
    const sourceId = source.kind === "REALTIME" ? null : source.accountId;
    const destinationId = destination.kind === "UMA" ? destination.internalAccountId ?? null : destination.accountId;
    rememberQuoteAccounts2(r.platformId, r.quote.id, sourceId, destinationId);
    const doc = JSON.stringify(r);
    const written = { text: doc, customerId: r.plan.customerId, currency: r.quote.sendingCurrency.code, sourceId, destinationId };
    return CurrentPending.use((pending2) => {
      pending2?.onCommit.push(() => seen.rememberRow("quotes", r.platformId, r.quote.id, written));
      return exec(
        `insert into quotes (platform_id, id, created_ms, customer_id, currency, source_id, destination_id, doc)
       values ($1, $2, $3::bigint, $4, $5, $6, $7, $8::json)
       on conflict (platform_id, id) do update set customer_id = excluded.customer_id, currency = excluded.currency,
         source_id = excluded.source_id, destination_id = excluded.destination_id, doc = excluded.doc`,
        [
          r.platformId,
          r.quote.id,
          millisOf2(r.quote.createdAt),
          r.plan.customerId,
          r.quote.sendingCurrency.code,
          sourceId,
          destinationId,
          doc
        ]
      );
    });
  };
  const putTransaction = (r) => {
    const t = r.transaction;
    const createdMs = millisOf2(t.createdAt);
    const params = [
      r.platformId,
      t.id,
      createdMs,
      t.customerId ?? null,
      t.platformCustomerId ?? null,
      t.status,
      t.type,
      senderOf(r) ?? null,
      receiverOf(r),
      t.reconciliationInstructions?.reference ?? null,
      t.sentAmount?.currency.code ?? null,
      t.sentAmount?.amount ?? null,
      JSON.stringify(r)
    ];
    const counted = t.type === "OUTGOING" && t.sentAmount !== void 0 && t.status !== "FAILED" && t.status !== "EXPIRED";
    const day = createdMs - (createdMs % DAY_MILLIS4 + DAY_MILLIS4) % DAY_MILLIS4;
    const sent = t.sentAmount;
    return CurrentPending.use((pending2) => {
      if (pending2 !== void 0 && sent !== void 0) {
        pending2.volumeWrites.push({
          key: seenVolumeKey(r.platformId, t.customerId ?? "", sent.currency.code),
          transactionId: t.id,
          day,
          amount: sent.amount,
          counted
        });
      }
      return exec(TRANSACTION_WRITE, [...params, counted ? t.customerId ?? "" : null, day], void 0, TRANSACTION_VOLUME);
    });
  };
  const putPlatformConfig = (r) => exec(
    `insert into platform_configs (platform_id, doc) values ($1, $2::json)
       on conflict (platform_id) do update set doc = excluded.doc`,
    [r.platformId, JSON.stringify(r)]
  );
  const repositories = {
    internalAccounts: {
      get: (platformId, id) => cachedDoc("internal_accounts", platformId, id, internalAccount2(platformId, id)),
      findByOwnerCurrency: (platformId, customerId, currency) => one(
        `select doc::text as doc from internal_accounts where platform_id = $1 and coalesce(customer_id, '') = $2 and currency = $3`,
        [platformId, customerId ?? "", currency]
      ),
      list: (platformId, q, p) => page("internal_accounts", internalAccountWhere(platformId, q), p, (r) => ({
        createdAt: millisOf2(r.createdAt),
        id: r.id
      }))
    },
    ledger: {
      balances: (platformId, accounts) => CurrentPending.use((known2) => {
        if (accounts.length === 0) return Effect58.succeed(/* @__PURE__ */ new Map());
        const knownBalance = (account) => known2?.balances.get(balanceKey(platformId, account));
        const knownBalances = /* @__PURE__ */ new Map();
        const internal = [];
        const system = [];
        for (const account of accounts) {
          if (!isInternalAccount(account)) system.push(account);
          else {
            const balance = knownBalance(account);
            if (balance === void 0) internal.push(account);
            else knownBalances.set(account, balance);
          }
        }
        if (internal.length === 0 && system.length === 0) return Effect58.succeed(knownBalances);
        const rows = Effect58.all([
          internal.length === 0 ? Effect58.succeed([]) : query2(
            // One index lookup per account (the lateral subquery cannot be flattened into a
            // join), so only these rows are read: a semi-join or `= any(…)` scanned every
            // balance row of the platform, which under SERIALIZABLE predicate-locked them all
            // (a page lock) and made unrelated payments abort each other.
            `select b.account, b.balance::text as balance from jsonb_array_elements_text($2::jsonb) as wanted (account)
               cross join lateral (select account, balance from ledger_balances
                 where platform_id = $1 and account = wanted.account offset 0) as b`,
            [platformId, JSON.stringify(internal)]
          ),
          system.length === 0 ? Effect58.succeed([]) : query2(
            `${SYSTEM_SUMS} and p->>'account' in (select jsonb_array_elements_text($2::jsonb)) group by 1, 2`,
            [platformId, JSON.stringify(system)]
          )
        ]);
        return Effect58.map(rows, ([a, b]) => {
          const read = new Map(a.map((row) => [row.account, exactNumber2(row.balance)]));
          for (const account of internal) known2?.balances.set(balanceKey(platformId, account), read.get(account) ?? 0);
          const found = new Map([...read, ...b.map((row) => [row.account, Number(row.balance)])]);
          return new Map(accounts.map((x) => [x, knownBalance(x) ?? found.get(x) ?? 0]));
        });
      }),
      allBalances: (platformId) => Effect58.map(
        query2(
          `select account, currency, balance::text as balance from ledger_balances where platform_id = $1
             union all (${SYSTEM_SUMS} group by 1, 2) order by account`,
          [platformId]
        ),
        (rows) => rows.map((row) => ({
          account: row.account,
          currency: row.currency,
          // A system account's sum is not held to the exact range: the nearest number.
          balance: isInternalAccount(row.account) ? exactNumber2(row.balance) : Number(row.balance)
        }))
      ),
      entries: (platformId, options) => options?.transactionId === void 0 ? many(`select doc::text as doc from journal_entries where platform_id = $1 order by seq`, [platformId]) : many(
        `select doc::text as doc from journal_entries where platform_id = $1 and transaction_id = $2 order by seq`,
        [platformId, options.transactionId]
      ),
      journalPage: (platformId, options) => Effect58.gen(function* () {
        const after = options.after === void 0 ? 0 : decodeJournalCursor(options.after);
        if (typeof after !== "number") return yield* Effect58.fail(after);
        const rows = yield* query2(
          `select seq::text as seq, doc::text as doc from journal_entries where platform_id = $1 and seq > $2 order by journal_entries.seq limit $3`,
          [platformId, after, options.limit + 1]
        );
        const page2 = rows.slice(0, options.limit);
        const entries = page2.map((r) => JSON.parse(r.doc));
        const last = page2[page2.length - 1];
        return rows.length > options.limit && last !== void 0 ? { entries, next: encodeJournalCursor(Number(last.seq)) } : { entries };
      }),
      accountJournal: (platformId, account, p) => Effect58.gen(function* () {
        const after = p.cursor === void 0 ? void 0 : decodeJournalCursor(p.cursor);
        if (after instanceof InvalidCursor) return yield* Effect58.fail(after);
        const descending = p.descending === true;
        const rows = yield* query2(
          `select a.seq::text as seq, a.currency, a.amount::text as amount, j.doc::text as doc
             from journal_account_postings a join journal_entries j on j.platform_id = a.platform_id and j.seq = a.seq
             where a.platform_id = $1 and a.account = $2 ${after === void 0 ? "" : descending ? "and a.seq < $4" : "and a.seq > $4"}
             order by a.seq ${descending ? "desc" : "asc"} limit $3`,
          after === void 0 ? [platformId, account, p.limit + 1] : [platformId, account, p.limit + 1, after]
        );
        const [count] = yield* query2(
          `select count(*)::text as n from journal_account_postings where platform_id = $1 and account = $2`,
          [platformId, account]
        );
        const page2 = rows.slice(0, p.limit);
        const data = page2.map((r) => ({ entry: JSON.parse(r.doc), currency: r.currency, amount: exactNumber2(r.amount) }));
        const last = page2[page2.length - 1];
        const totalCount = Number(count?.n ?? 0);
        return rows.length > p.limit && last !== void 0 ? { data, hasMore: true, nextCursor: encodeJournalCursor(Number(last.seq)), totalCount } : { data, hasMore: false, totalCount };
      })
    },
    quotes: {
      get: (platformId, id) => cachedDoc("quotes", platformId, id, quote(platformId, id))
    },
    transactions: {
      get: byId("transactions"),
      list: (platformId, q, p) => page("transactions", transactionWhere(platformId, q), p, (r) => ({
        createdAt: millisOf2(r.transaction.createdAt),
        id: r.transaction.id
      })),
      sentVolume: (platformId, q) => {
        if (q.since % DAY_MILLIS4 === 0) {
          return cachedVolume(platformId, q.customerId ?? "", q.currency, q.since, Effect58.map(
            query2(
              `select coalesce(sum(amount), 0)::text as total from sent_volumes
               where platform_id = $1 and customer_key = $2 and currency = $3 and day_ms >= $4::bigint`,
              [platformId, q.customerId ?? "", q.currency, q.since]
            ),
            (rows) => Number(rows[0]?.total ?? "0")
          ));
        }
        const statement = sentVolumeStatement(platformId, q);
        return Effect58.map(
          query2(statement.text, statement.params),
          // A sum of exact amounts may itself exceed 2^53; it is a limit check's input, so the nearest number.
          (rows) => Number(rows[0]?.total ?? "0")
        );
      }
    },
    platformConfigs: {
      get: (platformId) => cachedDoc(
        "platform_configs",
        platformId,
        "",
        one(`select doc::text as doc from platform_configs where platform_id = $1`, [platformId])
      )
    },
    paymentReads: makePaymentReads(query2, seen)
  };
  return {
    tables: MONEY_TABLES,
    repositories,
    writes: { putInternalAccount, post, putQuote, putTransaction, putPlatformConfig }
  };
};

// src/adapters/sql/one-round-trip.ts
import { Cause as Cause4, Context as Context14, Effect as Effect59, Exit as Exit2, Option } from "effect";
import { isSqlError as isSqlError2 } from "effect/sql/SqlError";
var CurrentGuess = Context14.Reference("payments-service/adapters/sql/CurrentOffsetGuess", {
  defaultValue: () => void 0
});
var StaleClockOffset = class extends Error {
  constructor() {
    super("The platform's clock offset changed before this request's first statement; it runs again on the stored offset");
  }
};
var isClockOffsetRefused = (u) => isSqlError2(u) && sqlStateOf(u) === CLOCK_OFFSET_REFUSED;
var isRetryable = (e) => e.reason._tag === "SerializationError" || e.reason._tag === "DeadlockError";
var makeOneRoundTrip = (options) => {
  const { alone, sql } = options;
  const lastSeen = /* @__PURE__ */ new Map();
  const readOffset = (platformId) => Effect59.map(
    Effect59.orDie(sql.unsafe(
      `select offset_ms::float8 as offset_ms from platform_clocks where platform_id = $1`,
      [platformId]
    )),
    (rows) => {
      const offset = rows[0]?.offset_ms ?? 0;
      lastSeen.set(platformId, offset);
      return offset;
    }
  );
  const refuted = (g) => {
    g.stale = true;
    return Effect59.die(new StaleClockOffset());
  };
  const verify = (g) => Effect59.flatMap(readOffset(g.platformId), (stored) => {
    if (g.stale) return refuted(g);
    g.checked = true;
    return stored === g.offset ? Effect59.void : refuted(g);
  });
  const checkAtCommit = (g) => ({
    statement: { text: `select payments_clock_offset_is($1, $2::float8) as clock_ok`, params: [g.platformId, String(g.offset)] },
    held: () => {
      g.checked = true;
    },
    refusal: (error) => {
      if (!isClockOffsetRefused(error)) return void 0;
      lastSeen.delete(g.platformId);
      return refuted(g);
    }
  });
  const guessChecked = (effect) => Effect59.contextWith((context) => {
    const g = Context14.get(context, CurrentGuess);
    if (g === void 0 || g.checked && !g.stale) return effect;
    if (g.stale) return refuted(g);
    const pending2 = Context14.getOrUndefined(context, sql.transactionService) === void 0 ? void 0 : Context14.get(context, CurrentPending);
    if (pending2 === void 0) return Effect59.andThen(verify(g), effect);
    pending2.finalCheck ??= checkAtCommit(g);
    return effect;
  });
  const checkGuess = guessChecked(Effect59.void);
  const onLastSeenOffset = (platformId, run2) => Effect59.suspend(() => {
    const fresh = Effect59.flatMap(readOffset(platformId), run2);
    const seen = lastSeen.get(platformId);
    if (seen === void 0) return fresh;
    const guess = { platformId, offset: seen, checked: false, stale: false };
    return Effect59.flatMap(Effect59.exit(Effect59.provideService(run2(seen), CurrentGuess, guess)), (exit) => {
      if (guess.stale) return fresh;
      if (guess.checked || Exit2.hasInterrupts(exit)) return exit;
      return Effect59.flatMap(readOffset(platformId), (stored) => stored === seen ? exit : run2(stored));
    });
  });
  const statementOf = (ownerGuard, clockGuard) => `
    with guard as (
      select ${ownerGuard ? "exists (select 1 from customers where platform_id = $1 and id = $4 and active)" : "true"} as owner_ok,
             ${clockGuard ? "coalesce((select offset_ms from platform_clocks where platform_id = $1), 0) = $9::bigint" : "true"} as clock_ok
    ), written as (
      insert into external_accounts (platform_id, id, created_ms, customer_id, currency, equivalence_key, default_uma, doc)
      select $1::text, $2::text, $3::bigint, $4::text, $5::text, $6::text, $7::boolean, $8::jsonb from guard where owner_ok and clock_ok
      on conflict (platform_id, id) do update set customer_id = excluded.customer_id, currency = excluded.currency,
        equivalence_key = excluded.equivalence_key, default_uma = excluded.default_uma, doc = excluded.doc
      returning 1
    )
    select guard.owner_ok, guard.clock_ok, ${clockGuard ? "coalesce((select offset_ms from platform_clocks where platform_id = $1), 0)::float8" : "0::float8"} as stored_offset
    from guard left join (select count(*) as n from written) w on true`;
  const createAlone = (r, ownerCustomerId) => ownerCustomerId !== r.account.customerId ? Effect59.die(new Error("createAlone: the owner is the account's customer")) : Effect59.flatMap(Effect59.serviceOption(sql.transactionService), (tx) => CurrentGuess.use((g) => {
    const inUnitOfWork = Option.isSome(tx);
    const folded = !inUnitOfWork && g !== void 0 && !g.checked && !g.stale && g.platformId === r.platformId ? g : void 0;
    const params = externalAccountParams(r);
    if (folded !== void 0) params.push(folded.offset);
    const text2 = statementOf(ownerCustomerId !== null, folded !== void 0);
    const client = inUnitOfWork ? sql : alone;
    const once = Effect59.catch(
      client.unsafe(text2, params),
      (e) => {
        if (e.reason._tag === "UniqueViolation" && options.isConstraint(e.reason.constraint)) {
          if (folded !== void 0) folded.checked = true;
          return conflictIn(e.reason.constraint);
        }
        return Effect59.fail(e);
      }
    );
    const attempt = (n) => Effect59.catch(once, (e) => !inUnitOfWork && isSqlError2(e) && isRetryable(e) && n + 1 < options.maxAttempts ? Effect59.andThen(Effect59.sleep(options.backoffMillis(n + 1)), attempt(n + 1)) : Effect59.fail(e));
    const run2 = Effect59.flatMap(attempt(0), (rows) => {
      const row = rows[0];
      if (row === void 0) return Effect59.die(new Error("createAlone: the guard row is missing"));
      if (folded !== void 0) {
        folded.checked = true;
        if (!row.clock_ok) {
          lastSeen.set(r.platformId, row.stored_offset);
          return refuted(folded);
        }
      }
      return Effect59.succeed(row.owner_ok ? "written" : "ownerInactive");
    });
    const forget = CurrentPending.use((pending2) => Effect59.sync(() => pending2?.forgetReads("external_accounts")));
    const whole = inUnitOfWork ? Effect59.andThen(forget, options.withTransaction(asLevel(guessChecked(run2)))) : folded === void 0 ? guessChecked(run2) : run2;
    return Effect59.catch(
      whole,
      (e) => e instanceof StoreConflict ? Effect59.fail(e) : Effect59.die(e)
    );
  }));
  const forgetting = /* @__PURE__ */ new WeakMap();
  const forgettingOnSet = (uow) => {
    let wrapped = forgetting.get(uow);
    if (wrapped === void 0) {
      wrapped = {
        ...uow,
        setClockOffset: (platformId, offsetMillis) => Effect59.andThen(Effect59.sync(() => lastSeen.delete(platformId)), uow.setClockOffset(platformId, offsetMillis))
      };
      forgetting.set(uow, wrapped);
    }
    return wrapped;
  };
  const guardFunction = (f) => (...args) => {
    const out = f(...args);
    return Effect59.isEffect(out) ? guessChecked(out) : out;
  };
  const install = (store) => {
    const guarded = {};
    for (const [name, value] of Object.entries(store)) {
      if (typeof value === "function") {
        guarded[name] = guardFunction(value);
      } else if (name !== "info" && typeof value === "object" && value !== null) {
        const repo = {};
        for (const [method, f] of Object.entries(value)) repo[method] = typeof f === "function" ? guardFunction(f) : f;
        guarded[name] = repo;
      } else {
        guarded[name] = value;
      }
    }
    const shaped = guarded;
    return {
      ...shaped,
      // The guess is checked inside each attempt, by its last statement (`checkAtCommit`).
      transact: (work, transactOptions) => store.transact((uow) => guessChecked(work(forgettingOnSet(uow))), transactOptions),
      externalAccounts: { ...shaped.externalAccounts, createAlone },
      clocks: {
        ...shaped.clocks,
        // A read of the stored offset is seen too (the request log shows it: `lastSeenOffset`).
        offset: (platformId) => Effect59.tap(shaped.clocks.offset(platformId), (offset) => Effect59.sync(() => lastSeen.set(platformId, offset))),
        onLastSeenOffset,
        lastSeenOffset: (platformId) => lastSeen.get(platformId)
      }
    };
  };
  return { install, checkGuess };
};

// src/adapters/sql/stablecoins.ts
import { Effect as Effect60 } from "effect";
var STABLECOIN_TABLES = ["stablecoin_operations", "stablecoins", "stablecoin_provider_accounts"];
var makeStablecoinStore = (query2, write) => {
  const { byId, one, page } = documentReads(query2);
  const putStablecoinProviderAccount = (r) => write(
    `insert into stablecoin_provider_accounts (platform_id, id, created_ms, provider, provider_account_id, status, doc)
       values ($1, $2, $3::bigint, $4, $5, $6, $7::jsonb)
       on conflict (platform_id, id) do update set provider = excluded.provider,
         provider_account_id = excluded.provider_account_id, status = excluded.status, doc = excluded.doc`,
    [r.platformId, r.account.id, millisOf2(r.account.createdAt), r.account.provider, r.account.providerAccountId, r.account.status, JSON.stringify(r)]
  );
  const putStablecoin = (r) => write(
    `insert into stablecoins (platform_id, id, created_ms, symbol, network, network_token_identifier, issuance_status, grid_operations_status, provider, doc)
       values ($1, $2, $3::bigint, $4, $5, $6, $7, $8, $9, $10::jsonb)
       on conflict (platform_id, id) do update set symbol = excluded.symbol, network = excluded.network,
         network_token_identifier = excluded.network_token_identifier, issuance_status = excluded.issuance_status,
         grid_operations_status = excluded.grid_operations_status, provider = excluded.provider, doc = excluded.doc`,
    [
      r.platformId,
      r.stablecoin.id,
      millisOf2(r.stablecoin.createdAt),
      r.stablecoin.symbol,
      r.stablecoin.network,
      r.stablecoin.networkTokenIdentifier,
      r.stablecoin.issuanceStatus,
      r.stablecoin.gridOperationsStatus,
      r.stablecoin.provider,
      JSON.stringify(r)
    ]
  );
  const putStablecoinOperation = (r) => Effect60.asVoid(query2(
    `insert into stablecoin_operations (platform_id, id, created_ms, stablecoin_id, operation_type, status, doc)
       values ($1, $2, $3::bigint, $4, $5, $6, $7::jsonb)
       on conflict (platform_id, id) do update set status = excluded.status, doc = excluded.doc`,
    [r.platformId, r.operation.id, millisOf2(r.operation.createdAt), r.operation.stablecoinId, r.operation.operationType, r.operation.status, JSON.stringify(r)]
  ));
  return {
    writes: { putStablecoinProviderAccount, putStablecoin, putStablecoinOperation },
    tables: STABLECOIN_TABLES,
    repositories: { stablecoins: {
      getProviderAccount: byId("stablecoin_provider_accounts"),
      findProviderAccount: (platformId, provider, providerAccountId) => one(
        `select doc::text as doc from stablecoin_provider_accounts where platform_id = $1 and provider = $2 and provider_account_id = $3`,
        [platformId, provider, providerAccountId]
      ),
      listProviderAccounts: (platformId, q, p) => {
        const w = Where.platform(platformId).eq("provider", q.provider).eq("status", q.status);
        return page("stablecoin_provider_accounts", w, p, (r) => ({ createdAt: millisOf2(r.account.createdAt), id: r.account.id }));
      },
      get: byId("stablecoins"),
      findBySymbol: (platformId, symbol) => one(`select doc::text as doc from stablecoins where platform_id = $1 and symbol = $2`, [platformId, symbol]),
      findByTokenIdentifier: (platformId, network, tokenIdentifier) => one(
        `select doc::text as doc from stablecoins where platform_id = $1 and network = $2 and network_token_identifier = $3`,
        [platformId, network, tokenIdentifier]
      ),
      list: (platformId, q, p) => {
        const w = Where.platform(platformId).eq("issuance_status", q.issuanceStatus).eq("grid_operations_status", q.gridOperationsStatus).eq("provider", q.provider);
        return page("stablecoins", w, p, (r) => ({ createdAt: millisOf2(r.stablecoin.createdAt), id: r.stablecoin.id }));
      },
      getOperation: byId("stablecoin_operations"),
      listOperations: (platformId, q, p) => {
        const w = Where.platform(platformId).add((x) => `stablecoin_id = ${x}`, q.stablecoinId);
        w.eq("operation_type", q.operationType);
        return page("stablecoin_operations", w, p, (r) => ({ createdAt: millisOf2(r.operation.createdAt), id: r.operation.id }));
      }
    } }
  };
};

// src/adapters/sql/timers.ts
import { Effect as Effect61, Option as Option2 } from "effect";
var OUTCOME_HISTORY2 = 1e3;
var timerOf = (platformId, row) => ({
  platformId,
  id: row.id,
  at: row.at,
  kind: row.kind,
  subjectId: row.subject_id,
  event: row.event
});
var makeTimerStore = (sql, query2) => {
  const { many } = documentReads(query2);
  const claimDueIn = (platformId, now) => Effect61.map(
    query2(
      `delete from timers where platform_id = $1 and id = (
           select id from timers where platform_id = $1 and at_ms <= $2::bigint order by at_ms, id limit 1 for update skip locked)
         returning id, at_ms::float8 as at, kind, subject_id, event`,
      [platformId, now]
    ),
    (rows) => rows[0] === void 0 ? void 0 : timerOf(platformId, rows[0])
  );
  const cancelTimers = (platformId, subjectId, kind) => kind === void 0 ? query2(`delete from timers where platform_id = $1 and subject_id = $2`, [platformId, subjectId]) : query2(`delete from timers where platform_id = $1 and subject_id = $2 and kind = $3`, [platformId, subjectId, kind]);
  return {
    tables: ["timers", "timer_outcomes", "platform_clocks"],
    writes: {
      schedule: (t) => Effect61.andThen(
        cancelTimers(t.platformId, t.subjectId, t.kind),
        query2(
          `insert into timers (platform_id, id, at_ms, kind, subject_id, event) values ($1, $2, $3::bigint, $4, $5, $6)`,
          [t.platformId, t.id, t.at, t.kind, t.subjectId, t.event]
        )
      ).pipe(Effect61.asVoid),
      cancelTimers: (platformId, subjectId, kind) => Effect61.asVoid(cancelTimers(platformId, subjectId, kind)),
      recordTimerOutcome: (outcome) => Effect61.andThen(
        query2(`insert into timer_outcomes (platform_id, doc) values ($1, $2::jsonb)`, [outcome.timer.platformId, JSON.stringify(outcome)]),
        query2(
          `delete from timer_outcomes where platform_id = $1 and seq <= (
               select seq from timer_outcomes where platform_id = $1 order by seq desc offset ${OUTCOME_HISTORY2} limit 1)`,
          [outcome.timer.platformId]
        )
      ).pipe(Effect61.asVoid),
      setClockOffset: (platformId, offsetMillis) => Effect61.asVoid(query2(
        `insert into platform_clocks (platform_id, offset_ms) values ($1, $2::bigint)
           on conflict (platform_id) do update set offset_ms = excluded.offset_ms`,
        [platformId, offsetMillis]
      ))
    },
    repositories: {
      timers: {
        claimDue: (platformId, now) => Effect61.flatMap(Effect61.serviceOption(sql.transactionService), (tx) => Option2.isNone(tx) ? Effect61.die(new Error("timers.claimDue must run inside a unit of work")) : claimDueIn(platformId, now)),
        pending: (platformId) => Effect61.map(
          query2(
            `select id, at_ms::float8 as at, kind, subject_id, event from timers where platform_id = $1 order by at_ms, id`,
            [platformId]
          ),
          (rows) => rows.map((row) => timerOf(platformId, row))
        ),
        outcomes: (platformId) => many(`select doc::text as doc from timer_outcomes where platform_id = $1 order by seq`, [platformId])
      },
      clocks: {
        offset: (platformId) => Effect61.map(
          query2(`select offset_ms::float8 as offset_ms from platform_clocks where platform_id = $1`, [platformId]),
          (rows) => rows[0]?.offset_ms ?? 0
        )
      }
    }
  };
};

// src/adapters/sql/wallets.ts
import { Effect as Effect62 } from "effect";
var WALLET_TABLES = ["wallet_records"];
var makeWalletStore = (query2) => {
  const many = (text2, params) => Effect62.map(query2(text2, params), (rows) => rows.map((r) => docOf(r)));
  return {
    writes: {
      putWalletRecord: (r) => Effect62.asVoid(query2(
        `insert into wallet_records (platform_id, kind, id, account_id, lookup_key, doc)
           values ($1, $2, $3, $4, $5, $6::jsonb)
           on conflict (platform_id, kind, id) do update set account_id = excluded.account_id,
             lookup_key = excluded.lookup_key, doc = excluded.doc`,
        [r.platformId, r.kind, r.id, r.accountId, r.lookupKey ?? null, JSON.stringify(r)]
      )),
      deleteWalletRecord: (platformId, kind, id) => Effect62.asVoid(query2(`delete from wallet_records where platform_id = $1 and kind = $2 and id = $3`, [platformId, kind, id]))
    },
    tables: WALLET_TABLES,
    repositories: { wallets: {
      get: (platformId, kind, id) => Effect62.map(
        many(`select doc::text as doc from wallet_records where platform_id = $1 and kind = $2 and id = $3`, [platformId, kind, id]),
        (rows) => rows[0]
      ),
      byAccount: (platformId, kind, accountId) => many(
        `select doc::text as doc from wallet_records where platform_id = $1 and kind = $2 and account_id = $3 order by id`,
        [platformId, kind, accountId]
      ),
      byLookup: (platformId, kind, lookupKey) => many(
        `select doc::text as doc from wallet_records where platform_id = $1 and kind = $2 and lookup_key = $3 order by id`,
        [platformId, kind, lookupKey]
      )
    } }
  };
};

// src/adapters/sql/webhooks.ts
import { Effect as Effect63, Option as Option3 } from "effect";
var WEBHOOK_TABLES = ["webhook_cursors", "webhook_deliveries"];
var endLeasesLeftBehind = (sql) => Effect63.asVoid(sql.unsafe(`update webhook_deliveries set lease_until = null, doc = doc - 'lease' where lease_until is not null`));
var keyOf2 = (platformId, row) => ({
  platformId,
  privateKeyHex: row.private_key_hex,
  publicKeyHex: row.public_key_hex,
  createdAt: row.created_ms
});
var makeWebhookStore = (sql, query2, flushAll) => {
  const deliveryOf = (row) => docOf(row);
  const upsert = (r, onConflict) => Effect63.asVoid(query2(
    `insert into webhook_deliveries (platform_id, id, seq, resource_id, status, next_ms, lease_until, doc)
       values ($1, $2, $3::bigint, $4, $5, $6::bigint, $7::bigint, $8::jsonb)
       on conflict (platform_id, id) ${onConflict}`,
    [r.platformId, r.id, r.seq, r.resourceId, r.status, r.nextAttemptAt, r.lease?.until ?? null, JSON.stringify(r)]
  ));
  const signingKey = (platformId) => Effect63.map(
    query2(
      `select private_key_hex, public_key_hex, created_ms::float8 as created_ms from webhook_keys where platform_id = $1`,
      [platformId]
    ),
    (rows) => rows[0] === void 0 ? void 0 : keyOf2(platformId, rows[0])
  );
  const writes = {
    putWebhookSigningKey: (r) => Effect63.andThen(
      query2(
        `insert into webhook_keys (platform_id, private_key_hex, public_key_hex, created_ms) values ($1, $2, $3, $4::bigint)
           on conflict (platform_id) do nothing`,
        [r.platformId, r.privateKeyHex, r.publicKeyHex, r.createdAt]
      ),
      Effect63.map(signingKey(r.platformId), (stored) => stored ?? r)
    ),
    setWebhookCursor: (platformId, seq) => Effect63.asVoid(query2(
      `insert into webhook_cursors (platform_id, seq) values ($1, $2::bigint)
         on conflict (platform_id) do update set seq = excluded.seq`,
      [platformId, seq]
    )),
    addWebhookDelivery: (r) => upsert(r, "do nothing"),
    putWebhookDelivery: (r) => upsert(r, `do update set status = excluded.status, next_ms = excluded.next_ms, lease_until = excluded.lease_until, doc = excluded.doc`),
    // The oldest finished deliveries through `webhook_deliveries_finished` (migration
    // 17), at most `limit` rows; rows another unit of work holds are left for next time.
    sweepWebhookDeliveries: (platformId, finishedBefore, limit) => Effect63.map(
      query2(
        `with removed as (
             delete from webhook_deliveries where (platform_id, id) in (
               select platform_id, id from webhook_deliveries
               where platform_id = $1 and status <> 'PENDING' and (doc->>'updatedAt')::float8 < $2::float8
               order by (doc->>'updatedAt')::float8 limit $3 for update skip locked)
             and status <> 'PENDING'
             returning 1)
           select count(*)::int as removed from removed`,
        [platformId, finishedBefore, Math.max(0, Math.floor(limit))]
      ),
      (rows) => rows[0]?.removed ?? 0
    )
  };
  const list = (platformId, p) => Effect63.gen(function* () {
    const params = [platformId];
    let keyset = "true";
    if (p.cursor !== void 0) {
      const after = decodeCursor(p.cursor);
      if (!("createdAt" in after)) return yield* Effect63.fail(after);
      params.push(after.createdAt, after.id);
      keyset = `(seq, id) < ($2::bigint, $3::text)`;
    }
    params.push(p.limit + 1);
    const rows = yield* query2(
      `select doc::text as doc, (select count(*)::int from (select 1 from webhook_deliveries where platform_id = $1 limit ${TOTAL_COUNT_LIMIT + 1}) counted) as total
         from webhook_deliveries where platform_id = $1 and ${keyset}
         order by seq desc, id desc limit $${params.length}`,
      params
    );
    const all = rows.map(deliveryOf);
    const hasMore = all.length > p.limit;
    const data = hasMore ? all.slice(0, p.limit) : all;
    const last = data[data.length - 1];
    const totalCount = rows[0]?.total ?? (yield* query2(
      `select count(*)::int as total from (select 1 from webhook_deliveries where platform_id = $1 limit ${TOTAL_COUNT_LIMIT + 1}) counted`,
      [platformId]
    ))[0]?.total ?? 0;
    return hasMore && last !== void 0 ? { data, hasMore, nextCursor: encodeCursor({ createdAt: last.seq, id: last.id }), ...totalCountOf(totalCount) } : { data, hasMore, ...totalCountOf(totalCount) };
  });
  const repository = {
    signingKey,
    cursor: (platformId) => Effect63.map(
      query2(`select seq::float8 as seq from webhook_cursors where platform_id = $1`, [platformId]),
      (rows) => rows[0]?.seq
    ),
    lastEventSeq: (platformId) => Effect63.andThen(flushAll, Effect63.map(
      query2(`select max(seq)::float8 as seq from events where platform_id = $1`, [platformId]),
      (rows) => rows[0]?.seq ?? 0
    )),
    get: (platformId, id) => Effect63.map(
      query2(`select doc::text as doc from webhook_deliveries where platform_id = $1 and id = $2`, [platformId, id]),
      (rows) => rows[0] === void 0 ? void 0 : deliveryOf(rows[0])
    ),
    list,
    claimDue: (platformId, now, leaseNow) => Effect63.flatMap(Effect63.serviceOption(sql.transactionService), (tx) => Option3.isNone(tx) ? Effect63.die(new Error("webhooks.claimDue must run inside a unit of work")) : Effect63.map(
      query2(
        `select d.doc::text as doc from webhook_deliveries d
               where d.platform_id = $1 and d.status = 'PENDING' and d.next_ms <= $2::bigint
                 and (d.lease_until is null or d.lease_until <= $3::bigint)
                 and not exists (select 1 from webhook_deliveries e where e.platform_id = d.platform_id
                   and e.resource_id = d.resource_id and e.status = 'PENDING' and e.seq < d.seq)
               order by d.seq limit 1 for update of d skip locked`,
        [platformId, now, leaseNow]
      ),
      (rows) => rows[0] === void 0 ? void 0 : deliveryOf(rows[0])
    ))
  };
  return { tables: WEBHOOK_TABLES, writes, repositories: { webhooks: repository } };
};

// src/adapters/sql/store.ts
var MAX_TRANSACTION_ATTEMPTS = 24;
var MAX_CONFLICT_RERUNS = 2;
var BEGIN = "BEGIN ISOLATION LEVEL SERIALIZABLE";
var isRetryableSqlError = (u) => isSqlError3(u) && (u.reason._tag === "SerializationError" || u.reason._tag === "DeadlockError");
var retryableCause = (cause) => cause.reasons.some(
  (r) => Cause5.isFailReason(r) && isRetryableSqlError(r.error) || Cause5.isDieReason(r) && isRetryableSqlError(r.defect)
);
var staleGuessCause = (cause) => cause.reasons.some((r) => Cause5.isDieReason(r) && r.defect instanceof StaleGuessedReads);
var conflictCause = (cause) => cause.reasons.some((r) => Cause5.isFailReason(r) && r.error instanceof StoreConflict);
var holdsNul = (param) => typeof param === "string" && param.includes("\0");
var makeQueryIn = (sql) => {
  const runIn = makeRunIn(sql);
  return (context, text2, params) => params.some(holdsNul) ? Effect64.succeed([]) : Effect64.orDie(runIn(context, text2, params));
};
var makePlainIn = (sql) => {
  const runIn = makeRunIn(sql);
  return (context, text2, params) => Effect64.orDie(runIn(context, text2, params));
};
var makeSqlPending = (sql) => makePending(makeQueryIn(sql), makePlainIn(sql), eventsStatement);
var makeSqlAreas = (sql, pending2 = makeSqlPending(sql), seen = new Seen()) => {
  const query2 = pending2.query;
  const write = makeWrite(sql, pending2.flushWrites);
  return {
    customers: makeCustomerStore(query2, write),
    kyc: makeKycStore(query2, write),
    events: makeEventStore(query2, pending2.flushAll, pending2.exec),
    timers: makeTimerStore(sql, query2),
    idempotency: makeIdempotencyStore(query2),
    money: makeMoneyStore(sql, query2, pending2, seen),
    webhooks: makeWebhookStore(sql, query2, pending2.flushAll),
    wallets: makeWalletStore(query2),
    cards: makeCardStore(query2, write),
    cardTransactions: makeCardTransactionStore(query2),
    stablecoins: makeStablecoinStore(query2, write),
    agents: makeAgentStore(query2),
    invitations: makeInvitationStore(query2),
    bulkJobs: makeBulkJobStore(query2),
    tokens: makeTokenStore(query2)
  };
};
var sqlAreaMigrations = (sql) => Object.values(makeSqlAreas(sql)).flatMap((area) => area.migrations ?? []);
var migrate = Effect64.flatMap(Effect64.service(SqlClient4.SqlClient), (sql) => runMigrations(sqlAreaMigrations(sql)));
var schemaOf = (carried) => createHash4("sha256").update([...Object.keys(MIGRATIONS), ...carried.map((m) => m.id)].join("\n")).digest("hex").slice(0, 16);
var makeSqlStore = (info, options = {}) => Effect64.gen(function* () {
  const sql = yield* SqlClient4.SqlClient;
  const pending2 = makeSqlPending(sql);
  const query2 = pending2.query;
  const seen = new Seen();
  const areas = makeSqlAreas(sql, pending2, seen);
  const tables = Object.values(areas).flatMap((area) => area.tables);
  const snapshots = makeSnapshotStore(
    query2,
    pending2.flushAll,
    tables.filter((table) => !TOKEN_TABLES.includes(table)),
    schemaOf(Object.values(areas).flatMap((area) => area.migrations ?? []))
  );
  const uow = {
    ...areas.customers.writes,
    ...areas.kyc.writes,
    ...areas.events.writes,
    ...areas.timers.writes,
    ...areas.idempotency.writes,
    ...areas.money.writes,
    ...areas.webhooks.writes,
    ...areas.wallets.writes,
    ...areas.cards.writes,
    ...areas.cardTransactions.writes,
    ...areas.stablecoins.writes,
    ...areas.agents.writes,
    ...areas.invitations.writes,
    ...areas.bulkJobs.writes,
    ...areas.tokens.writes,
    ...snapshots.writes,
    resetPlatform: (platformId) => Effect64.andThen(pending2.flushAll, Effect64.forEach(tables, (table) => query2(`delete from ${table} where platform_id = $1`, [platformId]), { discard: true }))
  };
  const backoffMillis = (attempt) => Math.round((1 + Math.random()) * Math.min(250, 2 * 1.6 ** attempt));
  const turns = info.kind === "postgres" ? makeTurns(sql) : void 0;
  let reruns = 0;
  const scope = yield* Effect64.serviceOption(Scope3.Scope);
  const keep = Option4.isSome(scope) ? options.keptConnections : void 0;
  const direct = info.kind === "postgres" ? makeDirectTransactions(sql, BEGIN, keep) : void 0;
  if (direct !== void 0 && Option4.isSome(scope)) yield* Scope3.addFinalizer(scope.value, direct.close);
  const withTransaction = (effect, provide) => direct !== void 0 ? direct.withTransaction(effect, provide) : Effect64.updateContext(sql.withTransaction(effect), (context) => {
    const begun = Context15.add(context, SqlClient4.BeginTransaction, BEGIN);
    return provide === void 0 ? begun : provide(begun);
  });
  const finalStatement = (last) => last === void 0 ? void 0 : {
    text: last.statement.text,
    params: last.statement.params,
    committed: () => last.check?.held(),
    failed: (cause) => lastStatementFailed(last, cause)
  };
  const lastWithCommit = (attempt) => Effect64.contextWith((context) => {
    const tx = Context15.getOrUndefined(context, sql.transactionService);
    const withCommit = tx === void 0 || Context15.get(context, References2.TracerEnabled) ? void 0 : thenCommitOf(tx[0]);
    if (withCommit === void 0) return pending2.flushAll;
    const last = pending2.takeLast(attempt());
    if (last === void 0) return Effect64.void;
    return Effect64.matchCauseEffect(withCommit(last.statement.text, last.statement.params), {
      onSuccess: () => Effect64.sync(() => last.check?.held()),
      onFailure: (cause) => lastStatementFailed(last, cause)
    });
  });
  const topLevel = (work, declared) => {
    let guessing = true;
    const once = (moves, held, ran) => {
      let attempt;
      const provide = (context) => {
        attempt = new Pending(moves, turns === void 0 ? void 0 : held, guessing && seen.allows());
        ran.attempt = attempt;
        return Context15.add(context, CurrentPending, attempt);
      };
      return direct !== void 0 ? direct.withTransaction(level(work), provide, () => finalStatement(pending2.takeLast(attempt))) : withTransaction(Effect64.tap(level(work), lastWithCommit(() => attempt)), provide);
    };
    const round = (held, inDatabase, start, conflicts0, onConnection) => {
      const loop = (attempt, conflicts) => {
        const moves = /* @__PURE__ */ new Set();
        const ran = {};
        return Effect64.matchCauseEffect(onConnection(once(moves, held, ran)), {
          onSuccess: (value) => {
            if (ran.attempt !== void 0) learn(ran.attempt);
            return Effect64.succeed({ _tag: "Done", value });
          },
          onFailure: (cause) => {
            const guess = ran.attempt?.guess;
            if (guess !== void 0 && staleGuessCause(cause)) {
              seen.refused(guess);
              guessing = false;
              return loop(attempt + 1, conflicts);
            }
            const wanted = widenedBy(cause);
            if (wanted !== void 0) return Effect64.succeed({ _tag: "Widen", keys: /* @__PURE__ */ new Set([...held, ...wanted]), lost: false, attempt, conflicts });
            if (attempt + 1 < MAX_TRANSACTION_ATTEMPTS && retryableCause(cause)) {
              reruns++;
              if (turns !== void 0 && (moves.size > 0 || held.size > 0)) {
                const keys = /* @__PURE__ */ new Set([...held, ...moves]);
                const widened = { _tag: "Widen", keys, lost: true, attempt: attempt + 1, conflicts };
                return keys.size === held.size && inDatabase ? Effect64.as(Effect64.sleep(backoffMillis(attempt + 1)), widened) : Effect64.succeed(widened);
              }
              return Effect64.andThen(Effect64.sleep(backoffMillis(attempt + 1)), loop(attempt + 1, conflicts));
            }
            if (guess !== void 0 && !guess.checked && !Cause5.hasInterruptsOnly(cause)) {
              guessing = false;
              return loop(attempt + 1, conflicts);
            }
            if (conflicts < MAX_CONFLICT_RERUNS && conflictCause(cause)) return loop(attempt + 1, conflicts + 1);
            return Effect64.failCause(cause);
          }
        });
      };
      return loop(start, conflicts0);
    };
    const rounds = (held, lazily, attempt, conflicts) => Effect64.flatMap(
      turns === void 0 || held.size === 0 ? round(held, false, attempt, conflicts, (effect) => effect) : turns.holding(held, lazily ? "ifBusy" : "always", (onConnection, inDatabase) => round(held, inDatabase, attempt, conflicts, onConnection)),
      (outcome) => outcome._tag === "Done" ? Effect64.succeed(outcome.value) : rounds(outcome.keys, !outcome.lost, outcome.attempt, outcome.conflicts)
    );
    return dieOnSqlError(rounds(turns === void 0 ? /* @__PURE__ */ new Set() : declared, true, 0, 0));
  };
  const learn = (attempt) => {
    if (attempt.guess?.checked === true) seen.earned();
    for (const f of attempt.onCommit) f();
    for (const [key, balance] of attempt.balances) seen.balances.set(key, balance);
    if (attempt.volumes.size === 0 && attempt.volumeWrites.length === 0) return;
    const last = /* @__PURE__ */ new Map();
    for (const w of attempt.volumeWrites) last.set(w.transactionId, w);
    const volumes = new Map(attempt.volumes);
    for (const w of last.values()) {
      const known2 = volumes.get(w.key);
      if (known2 === void 0) {
        seen.volumes.delete(w.key);
        continue;
      }
      if (w.counted && w.day >= known2.since) volumes.set(w.key, { since: known2.since, volume: known2.volume + w.amount });
    }
    for (const [key, volume] of volumes) seen.volumes.set(key, volume);
  };
  const turnsNamed = (options2) => {
    const platformId = options2?.movesMoneyOf;
    const accounts = options2?.accounts;
    return platformId === void 0 || accounts === void 0 ? [] : accounts.map((account) => turnKey(platformId, account));
  };
  const transact = (work, options2) => Effect64.contextWith((context) => {
    const outer = Context15.getOption(context, sql.transactionService);
    const named = turnsNamed(options2);
    if (Option4.isSome(outer)) {
      const held = Context15.get(context, CurrentPending)?.turns;
      const missing2 = held === void 0 || held.size > 0 ? [] : named;
      return missing2.length > 0 ? Effect64.die(new WidenTurns(missing2)) : dieOnSqlError(nested(work));
    }
    return topLevel(work, new Set(named));
  });
  const nested = (work) => Effect64.andThen(
    pending2.flushAll,
    CurrentPending.use(
      (current) => Effect64.onError(withTransaction(level(work)), () => Effect64.sync(() => current?.forgetAll()))
    )
  );
  const level = (work) => asLevel(Effect64.suspend(() => work(uow)));
  const dieOnSqlError = (effect) => Effect64.catch(effect, (e) => isSqlError3(e) ? Effect64.die(e) : Effect64.fail(e));
  const alone = options.serializableSessions ?? (info.kind === "pglite" ? sql : void 0);
  const oneRoundTrip = alone === void 0 ? void 0 : makeOneRoundTrip({ sql, alone, isConstraint: isUniqueConstraint, maxAttempts: MAX_TRANSACTION_ATTEMPTS, backoffMillis, withTransaction });
  const finish = (store) => oneRoundTrip === void 0 ? store : oneRoundTrip.install(store);
  return finish(Store.of({
    info,
    ...areas.customers.repositories,
    ...areas.kyc.repositories,
    ...areas.events.repositories,
    ...areas.timers.repositories,
    ...areas.idempotency.repositories,
    ...areas.money.repositories,
    ...areas.webhooks.repositories,
    ...areas.wallets.repositories,
    ...areas.cards.repositories,
    ...areas.cardTransactions.repositories,
    ...areas.stablecoins.repositories,
    ...areas.agents.repositories,
    ...areas.invitations.repositories,
    ...areas.bulkJobs.repositories,
    ...areas.tokens.repositories,
    ...snapshots.repositories,
    transact,
    reruns: () => reruns
  }));
});

// src/adapters/sql/index.ts
var describeDatabaseUrl = (url) => {
  try {
    const u = new URL(url);
    const user = u.username === "" ? "" : `${u.username}@`;
    return `${u.protocol}//${user}${u.host}${u.pathname}`;
  } catch {
    return "(unparseable DATABASE_URL)";
  }
};
var STEERING = {
  enable_seqscan: "off",
  // Every prepared statement runs its generic plan from its first execution. Under `auto`
  // PostgreSQL plans a statement's first five executions for their values, then keeps
  // re-planning it whenever a plan for the values at hand looks cheaper than the generic
  // one: over a large table a customer with few payments did, so a customer's first page
  // of transactions was planned afresh at every request (about 0.2 ms, more than running
  // it) once the table held 100,000 payments (docs/performance.md, "Measured at the end of
  // the day"). Every statement reads down an index on an indexed prefix whatever the
  // values (test/adapters/bounded-work.test.ts checks the generic plans of the lists too).
  plan_cache_mode: "force_generic_plan"
};
var UNIT_OF_WORK_APPLICATION_NAME = "payments-service (units of work)";
var sideConnections = (options) => Math.max(2, Math.ceil((options.maxConnections ?? 16) / 2));
var postgresStoreLayer = (options) => (
  // The sandbox fault rules live in the same database (a reference: not in the type).
  Layer8.merge(SqlSandboxFaultStoreLayer, Layer8.effect(
    Store,
    Effect65.gen(function* () {
      yield* migrate;
      const serializable = {
        url: Redacted.make(options.url),
        applicationName: "payments-service",
        startupParameters: { default_transaction_isolation: "serializable", ...STEERING }
      };
      const serializableSessions = yield* PgClient2.make({ ...serializable, maxConnections: sideConnections(options) }).pipe(Effect65.provide(Reactivity2.layer));
      return yield* makeSqlStore(
        { kind: "postgres", description: `PostgreSQL ${describeDatabaseUrl(options.url)}` },
        {
          serializableSessions,
          // Top-level units of work run on up to as many connections of the store's own as
          // the pool has (opened as needed, closed after a minute or two idle), each used by
          // one unit of work at a time, on which BEGIN and COMMIT share writes with
          // statements (./direct.ts `PipelinedConnection`). Not the pool's: its pinned
          // connections run one cycle at a time; and the pool keeps its connections for
          // everything else.
          keptConnections: {
            connections: options.maxConnections ?? 16,
            // As long as the pool keeps an idle connection (its default `idleTimeout`): a
            // connection of the store's own takes none of the pool's, and a new one costs
            // a connection and its authentication.
            idleMillis: 6e4,
            connect: PgConnection.make({ ...serializable, applicationName: UNIT_OF_WORK_APPLICATION_NAME, multiplex: true })
          }
        }
      );
    })
  )).pipe(
    Layer8.provide(PgClient2.layer({
      url: Redacted.make(options.url),
      maxConnections: sideConnections(options),
      applicationName: "payments-service",
      startupParameters: STEERING
    }))
  )
);
var pgliteStoreLayer = (dataDir, options = {}) => pgliteStoreOnClient(dataDir).pipe(Layer8.provide(pgliteClientLayer(dataDir, options)));
var pgliteStoreOnClient = (dataDir) => Layer8.merge(
  SqlSandboxFaultStoreLayer,
  Layer8.effect(
    Store,
    Effect65.gen(function* () {
      yield* migrate;
      if (dataDir !== void 0) yield* Effect65.flatMap(Effect65.service(SqlClient5.SqlClient), endLeasesLeftBehind);
      return yield* makeSqlStore({ kind: "pglite", description: dataDir === void 0 ? "PGlite in memory" : `PGlite in ${dataDir}` });
    })
  )
);
var pgliteTemplate = dumpPgliteAfter(migrate);
var idsAndPlatforms = (platforms, seed) => Layer8.mergeAll(seed === void 0 ? RandomIdsLayer : seededIdsLayer(seed), staticPlatformsLayer(platforms), HttpWebhookSenderLayer);
var postgresLayer = (platforms, options) => Layer8.merge(postgresStoreLayer(options), idsAndPlatforms(platforms, options.seed));
var pgliteLayer = (platforms, options = {}) => Layer8.merge(pgliteStoreLayer(options.dataDir, options), idsAndPlatforms(platforms, options.seed));

// src/server/services.ts
var withTemplateFile = (choice2, env) => {
  const file = env["PAYMENTS_PGLITE_TEMPLATE"]?.trim() ?? "";
  return file === "" ? choice2 : { ...choice2, templateFile: file };
};
var storeChoiceFromEnv = (env) => {
  const url = env["DATABASE_URL"]?.trim() ?? "";
  const dir = env["PAYMENTS_DATA_DIR"]?.trim() ?? "";
  if (url !== "" && dir !== "") return "Set DATABASE_URL or PAYMENTS_DATA_DIR, not both";
  if (url !== "") {
    if (!/^postgres(ql)?:\/\//.test(url)) return "DATABASE_URL must be a postgres:// or postgresql:// URL";
    return { kind: "postgres", url };
  }
  if (dir !== "") return withTemplateFile({ kind: "pglite", dataDir: dir }, env);
  return { kind: "memory" };
};
var servicesFor = (choice2, platforms, { webhookDestinations, ...options } = {}) => Layer9.merge(
  choice2.kind === "postgres" ? postgresLayer(platforms, { url: choice2.url, ...options }) : choice2.kind === "pglite" ? pgliteLayer(platforms, {
    ...options,
    ...choice2.dataDir === void 0 ? {} : { dataDir: choice2.dataDir },
    template: choice2.template ?? (choice2.templateFile === void 0 ? void 0 : new Blob([readFileSync2(choice2.templateFile)]))
  }) : memoryLayer(platforms, options),
  // Webhooks go out over HTTP, through the destination guard (the store layers have the
  // default one already; this one, with the server's destinations, wins).
  webhookSenderLayer(webhookDestinations === void 0 ? {} : { fallback: webhookDestinations })
);

// bench/servers/platform.ts
var benchPlatform = platformFromConfig({ id: "bench", clientId: "bench_client", clientSecret: "bench_secret_123" });
var benchMoneyPlatform = platformFromConfig({
  id: "bench-money",
  clientId: "bench_money_client",
  clientSecret: "bench_money_secret_123",
  regulated: true
});
var benchMoneyAuth = `Basic ${Buffer.from(`${benchMoneyPlatform.clientId}:${benchMoneyPlatform.clientSecret}`).toString("base64")}`;
var benchCustomerBody = (name) => ({
  customerType: "INDIVIDUAL",
  fullName: name,
  birthDate: "1990-04-12",
  nationality: "US",
  idType: "PASSPORT",
  identifier: "X1234567",
  address: { line1: "1 Main St", city: "Springfield", postalCode: "12345", country: "US" }
});

// bench/postgres.ts
import { execFileSync as execFileSync2 } from "node:child_process";
import { existsSync as existsSync3, readdirSync as readdirSync2, readFileSync as readFileSync4 } from "node:fs";
import { dirname, join as join3 } from "node:path";
import pg from "pg";

// test/support/postgres.ts
import { execFile, execFileSync } from "node:child_process";
import { accessSync, appendFileSync, chownSync, constants, existsSync as existsSync2, mkdtempSync, readdirSync, readFileSync as readFileSync3, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join as join2 } from "node:path";
import { randomBytes as randomBytes2 } from "node:crypto";
var DEBIAN_ROOT = "/usr/lib/postgresql";
var SUPERUSER = "postgres";
var INSTALL_HINT = "PostgreSQL server binaries not found (looked for /usr/lib/postgresql/<version>/bin and pg_ctl/initdb on PATH). The tests need a real PostgreSQL server; install it with `apt-get install postgresql` (as root, or with sudo).";
var isExecutable = (file) => {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};
var onPath = (command) => (process.env["PATH"] ?? "").split(delimiter).filter((dir) => dir !== "").map((dir) => join2(dir, command)).find(isExecutable);
var postgresBinDir = () => {
  const versions = existsSync2(DEBIAN_ROOT) ? readdirSync(DEBIAN_ROOT).filter((name) => /^\d+(\.\d+)?$/.test(name)).filter((name) => ["postgres", "initdb", "pg_ctl"].every((bin) => isExecutable(join2(DEBIAN_ROOT, name, "bin", bin)))).sort((a, b) => Number(b) - Number(a)) : [];
  const newest = versions[0];
  if (newest !== void 0) return join2(DEBIAN_ROOT, newest, "bin");
  const pgCtl = onPath("pg_ctl");
  if (pgCtl !== void 0 && onPath("initdb") !== void 0) return join2(pgCtl, "..");
  throw new Error(INSTALL_HINT);
};
var binary = (binDir, name) => {
  const inDir = join2(binDir, name);
  if (isExecutable(inDir)) return inDir;
  const found = onPath(name);
  if (found !== void 0) return found;
  throw new Error(`${name} not found in ${binDir} or on PATH. ${INSTALL_HINT}`);
};
var serverEnv = () => Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== "LD_PRELOAD" && !name.startsWith("FAKETIME")));
var run = (file, args, cwd) => new Promise((resolve2, reject7) => {
  execFile(
    file,
    args,
    { encoding: "utf8", maxBuffer: 16 * 1024 * 1024, env: serverEnv(), ...cwd === void 0 ? {} : { cwd } },
    (error, stdout, stderr) => {
      if (error === null) resolve2({ stdout, stderr });
      else reject7(new Error(`${[file, ...args].join(" ")} failed: ${error.message}
${stderr}${stdout}`.trimEnd()));
    }
  );
});
var currentUser = { wrap: (file, args) => [file, args], chown: () => {
} };
var postgresUser = async () => {
  const id = (flag) => execFileSync("id", [flag, SUPERUSER], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  try {
    id("-u");
  } catch {
    await run("useradd", ["--system", "--user-group", "--no-create-home", "--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin", SUPERUSER]);
  }
  const uid = Number(id("-u"));
  const gid = Number(id("-g"));
  const runuser = ["/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser"].find(isExecutable) ?? onPath("runuser");
  if (runuser === void 0) throw new Error("running as root but `runuser` (util-linux) is missing; cannot start PostgreSQL as the postgres user");
  return {
    wrap: (file, args) => [runuser, ["-u", SUPERUSER, "--", file, ...args]],
    chown: (path) => chownSync(path, uid, gid)
  };
};
var freeLoopbackPort = () => new Promise((resolve2, reject7) => {
  const server = createServer();
  server.unref();
  server.once("error", reject7);
  server.listen(0, "127.0.0.1", () => {
    const address = server.address();
    const port = typeof address === "object" && address !== null ? address.port : 0;
    server.close(() => port > 0 ? resolve2(port) : reject7(new Error("could not find a free loopback port")));
  });
});
var tail = (file, lines = 30) => {
  try {
    return readFileSync3(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "(no server log)";
  }
};
var live = /* @__PURE__ */ new Set();
var exitHookInstalled = false;
var installExitHook = () => {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const stopNow of [...live]) stopNow();
  });
};
var startPostgresCluster = async (settings = {}) => {
  const binDir = postgresBinDir();
  const initdb = binary(binDir, "initdb");
  const pgCtl = binary(binDir, "pg_ctl");
  const as = process.getuid?.() === 0 ? await postgresUser() : currentUser;
  const root = mkdtempSync(join2(tmpdir(), "payments-pg-"));
  const dataDir = join2(root, "data");
  const logFile = join2(root, "server.log");
  as.chown(root);
  const server = (file, args) => {
    const [wrapped, wrappedArgs] = as.wrap(file, args);
    return run(wrapped, wrappedArgs, root);
  };
  const stopArgs = ["stop", "-D", dataDir, "-m", "immediate", "-w", "-t", "30"];
  let started = false;
  const stopNow = () => {
    live.delete(stopNow);
    try {
      if (started) {
        const [file, args] = as.wrap(pgCtl, stopArgs);
        execFileSync(file, args, { cwd: root, stdio: "ignore", env: serverEnv() });
      }
    } catch {
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  };
  live.add(stopNow);
  installExitHook();
  try {
    await server(initdb, ["-D", dataDir, "-U", SUPERUSER, "--auth=trust", "--no-sync", "--encoding=UTF8", "--locale=C"]);
    const quote = (value) => `'${value.replaceAll("\\", "\\\\").replaceAll("'", "''")}'`;
    appendFileSync(
      join2(dataDir, "postgresql.conf"),
      [
        "",
        "# test harness (test/support/postgres.ts): throwaway, loopback only, speed over durability",
        "listen_addresses = '127.0.0.1'",
        `unix_socket_directories = ${quote(root)}`,
        "max_connections = 200",
        "fsync = off",
        "synchronous_commit = off",
        "full_page_writes = off",
        "logging_collector = off",
        ...Object.entries(settings).map(([name, value]) => `${name} = ${quote(value)}`),
        ""
      ].join("\n")
    );
    let port = 0;
    for (let attempt = 1; ; attempt++) {
      port = await freeLoopbackPort();
      try {
        await server(pgCtl, ["start", "-D", dataDir, "-l", logFile, "-w", "-t", "30", "-o", `-p ${port}`]);
        started = true;
        break;
      } catch (error) {
        const log = tail(logFile);
        if (attempt < 5 && /could not bind|address already in use/i.test(log)) continue;
        throw new Error(`PostgreSQL did not start: ${error instanceof Error ? error.message : String(error)}
--- server log ---
${log}`);
      }
    }
    const url = `postgres://${SUPERUSER}@127.0.0.1:${port}/postgres`;
    let stopping;
    const stop = () => {
      stopping ??= (async () => {
        live.delete(stopNow);
        try {
          await server(pgCtl, stopArgs);
        } finally {
          rmSync(root, { recursive: true, force: true });
        }
      })();
      return stopping;
    };
    return { url, adminUrl: url, stop };
  } catch (error) {
    stopNow();
    throw error;
  }
};
var psql = async (url, sql) => {
  const { stdout } = await run(binary(postgresBinDir(), "psql"), ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql]);
  return stdout.trim();
};
var quoteIdentifier = (name) => `"${name.replaceAll('"', '""')}"`;
var createDatabase = async (adminUrl, name, options = {}) => {
  const database = name ?? `test_${Date.now().toString(36)}_${process.pid}_${randomBytes2(4).toString("hex")}`;
  const template = options.template === void 0 ? "" : ` TEMPLATE ${quoteIdentifier(options.template)}`;
  await psql(adminUrl, `CREATE DATABASE ${quoteIdentifier(database)}${template}`);
  const url = new URL(adminUrl);
  url.pathname = `/${encodeURIComponent(database)}`;
  return url.toString();
};

// bench/cleanup.ts
import { rmSync as rmSync2 } from "node:fs";
var pending = [];
var running = /* @__PURE__ */ new Set();
var children = /* @__PURE__ */ new Set();
var dirs = /* @__PURE__ */ new Set();
var onCleanUp = (task) => {
  let promise;
  const run2 = () => {
    if (promise === void 0) {
      const i = pending.indexOf(run2);
      if (i >= 0) pending.splice(i, 1);
      const p = Promise.resolve().then(task);
      promise = p;
      running.add(p);
      const forget = () => void running.delete(p);
      p.then(forget, forget);
    }
    return promise;
  };
  pending.push(run2);
  return run2;
};
var removeAtExit = (dir) => void dirs.add(dir);
var cleanUp = async () => {
  for (let run2 = pending.at(-1); run2 !== void 0; run2 = pending.at(-1)) {
    try {
      await run2();
    } catch (e) {
      console.error(`bench clean-up: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  await Promise.allSettled([...running]);
};
var ending = false;
var cleanUpAndExit = (why, code) => {
  if (ending) return;
  ending = true;
  console.error(`
${why}: stopping servers, the PostgreSQL cluster and temp directories\u2026`);
  const hardExit = setTimeout(() => process.exit(code), 3e4);
  hardExit.unref();
  void cleanUp().finally(() => process.exit(code));
};
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => cleanUpAndExit(signal, 130));
process.on("uncaughtException", (e) => {
  console.error(e);
  cleanUpAndExit("uncaught exception", 1);
});
process.on("unhandledRejection", (e) => {
  console.error(e);
  cleanUpAndExit("unhandled rejection", 1);
});
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
  for (const dir of dirs) rmSync2(dir, { recursive: true, force: true });
});

// bench/postgres.ts
var clockTicks = (() => {
  try {
    return Number(execFileSync2("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
})();
var statOf = (pid) => {
  try {
    const text2 = readFileSync4(`/proc/${pid}/stat`, "utf8");
    const f = text2.slice(text2.lastIndexOf(")") + 2).split(" ");
    return [Number(f[1]), Number(f[11]) + Number(f[12]), Number(f[13]) + Number(f[14])];
  } catch {
    return void 0;
  }
};
var clusterTicks = (postmaster) => {
  const own2 = statOf(String(postmaster));
  if (own2 === void 0) throw new Error(`PostgreSQL postmaster ${postmaster} is gone`);
  let ticks = own2[1] + own2[2];
  for (const entry of readdirSync2("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const s = statOf(entry);
    if (s !== void 0 && s[0] === postmaster) ticks += s[1] + s[2];
  }
  return ticks;
};
var query = async (url, text2, params = []) => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text2, [...params])).rows;
  } finally {
    await client.end();
  }
};
var benchClusterSettings = (text2 = process.env["BENCH_PG_CLUSTER_SETTINGS"]) => Object.fromEntries((text2 ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "").map((s) => {
  const m = /^([a-z_][a-z0-9_.]*)=([A-Za-z0-9_.-]+)$/.exec(s);
  if (m === null) throw new Error(`BENCH_PG_CLUSTER_SETTINGS: "${s}" is not name=value`);
  return [m[1], m[2]];
}));
var startBenchCluster = async (settings = benchClusterSettings()) => {
  const cluster2 = await startPostgresCluster(settings);
  const stop = onCleanUp(() => cluster2.stop());
  try {
    const [row] = await query(cluster2.adminUrl, "select setting from pg_settings where name = 'data_directory'");
    const dataDir = row.setting;
    removeAtExit(dirname(dataDir));
    const postmaster = Number(readFileSync4(join3(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
    return {
      adminUrl: cluster2.adminUrl,
      database: (name) => createDatabase(cluster2.adminUrl, name),
      cpuMicros: existsSync3("/proc/self/stat") ? async () => clusterTicks(postmaster) * 1e6 / clockTicks : void 0,
      query,
      stop
    };
  } catch (e) {
    await stop();
    throw e;
  }
};

// bench/money-ops.ts
import { readFileSync as readFileSync5, statSync as statSync2 } from "node:fs";
import { dirname as dirname2, join as join4 } from "node:path";
var payments = Number(process.argv[2] ?? 3e3);
var PAYERS = 10;
var cluster = process.env["OPS_STORE"] === "postgres" ? await startBenchCluster() : void 0;
if (cluster !== void 0) process.env["DATABASE_URL"] = await cluster.database("money_ops");
var statementsDuring = async (f) => {
  if (cluster === void 0) return [];
  const [row] = await cluster.query(cluster.adminUrl, "select setting from pg_settings where name = 'data_directory'");
  const log = join4(dirname2(row.setting), "server.log");
  await cluster.query(cluster.adminUrl, "alter system set log_statement = 'all'");
  await cluster.query(cluster.adminUrl, "select pg_reload_conf()");
  await new Promise((r) => setTimeout(r, 300));
  const from = statSync2(log).size;
  await f();
  await new Promise((r) => setTimeout(r, 300));
  const text2 = readFileSync5(log, "utf8").slice(from);
  await cluster.query(cluster.adminUrl, "alter system reset log_statement");
  await cluster.query(cluster.adminUrl, "select pg_reload_conf()");
  return text2.split("\n").filter((l) => /LOG:  (statement|execute [^:]*):/.test(l) && !l.includes("pg_reload_conf") && !l.includes("alter system")).map((l) => l.replace(/^.*LOG:  (statement|execute [^:]*): /, "").slice(0, 90));
};
var program = Effect66.gen(function* () {
  const onClock = (e) => onPlatformClock(benchMoneyPlatform, e);
  const usdOf = (customerId) => Effect66.flatMap(onClock(listCustomerAccounts(benchMoneyPlatform, { customerId, currency: "USD" })), (page) => {
    const account = page.data[0];
    return account === void 0 ? Effect66.die(new Error(`no USD account for ${customerId}`)) : Effect66.succeed(account.id);
  });
  const customer = (name) => Effect66.map(onClock(createCustomer(benchMoneyPlatform, Schema22.decodeUnknownSync(CustomerCreateRequest)(benchCustomerBody(name)))), (c) => c.id);
  const pairs = [];
  for (let i = 0; i < PAYERS; i++) {
    const source = yield* usdOf(yield* customer(`Ops Payer ${i}`));
    const destination = yield* usdOf(yield* customer(`Ops Payee ${i}`));
    yield* onClock(fundAccount(benchMoneyPlatform, source, 1e11));
    pairs.push({ source, destination });
  }
  const quoteOf = (pair) => Effect66.map(
    onClock(createQuote(benchMoneyPlatform, Schema22.decodeUnknownSync(QuoteRequest)({
      source: { sourceType: "ACCOUNT", accountId: pair.source },
      destination: { destinationType: "ACCOUNT", accountId: pair.destination },
      lockedCurrencySide: "SENDING",
      lockedCurrencyAmount: 100
    }))),
    (q) => q
  );
  const pay = (pair) => Effect66.flatMap(quoteOf(pair), (q) => onClock(executeQuote(benchMoneyPlatform, q.id)));
  const context = yield* Effect66.context();
  if (process.env["OPS_STEPS"] === "1") {
    const native = yield* Tracer.Tracer;
    let steps = 0;
    const counting = {
      span: (options) => native.span(options),
      context: (primitive, fiber) => {
        steps++;
        return primitive["~effect/Effect/evaluate"](fiber);
      }
    };
    const counted = (e) => Effect66.provideService(e, Tracer.Tracer, counting);
    const SAMPLE = 100;
    let quoteSteps = 0;
    let executeSteps = 0;
    for (let i = 0; i < SAMPLE; i++) {
      const pair = pairs[i % PAYERS];
      steps = 0;
      const q = yield* counted(quoteOf(pair));
      quoteSteps += steps;
      steps = 0;
      yield* counted(onClock(executeQuote(benchMoneyPlatform, q.id)));
      executeSteps += steps;
    }
    console.log(`effect steps per quote: ${quoteSteps / SAMPLE}, per execute: ${executeSteps / SAMPLE}`);
  }
  const loop = (n) => Effect66.forEach(pairs, (pair, p) => Effect66.repeat(pay(pair), { times: Math.max(0, Math.ceil((n - p) / PAYERS) - 1) }), {
    concurrency: Number(process.env["OPS_CONCURRENCY"] ?? PAYERS),
    discard: true
  });
  yield* loop(Math.min(500, payments));
  const dbBefore = cluster?.cpuMicros === void 0 ? void 0 : yield* Effect66.promise(cluster.cpuMicros);
  const before = process.cpuUsage();
  const t0 = performance.now();
  yield* loop(payments);
  const cpu = process.cpuUsage(before);
  const dbCpu = dbBefore === void 0 || cluster?.cpuMicros === void 0 ? void 0 : (yield* Effect66.promise(cluster.cpuMicros)) - dbBefore;
  const wall = performance.now() - t0;
  const reruns = (yield* Store).reruns?.();
  console.log(`${payments} payments: ${((cpu.user + cpu.system) / payments).toFixed(1)} \xB5s CPU per payment (user ${(cpu.user / payments).toFixed(0)}, system ${(cpu.system / payments).toFixed(0)}), ${(wall * 1e3 / payments).toFixed(1)} \xB5s wall per payment${dbCpu === void 0 ? "" : `; the cluster's CPU ${(dbCpu / payments).toFixed(0)} \xB5s per payment`}${reruns === void 0 ? "" : `; units of work rerun after a serialization failure or deadlock since start: ${reruns}`}`);
  if (cluster !== void 0) {
    const SAMPLE = 5;
    const quotes = [];
    const pair = pairs[0];
    const quoteStatements = yield* Effect66.promise(
      () => statementsDuring(() => Effect66.runPromise(Effect66.provide(Effect66.forEach(Array.from({ length: SAMPLE }), () => Effect66.map(quoteOf(pair), (q) => void quotes.push(q))), context)))
    );
    const executeStatements = yield* Effect66.promise(
      () => statementsDuring(() => Effect66.runPromise(Effect66.provide(Effect66.forEach(quotes, (q) => onClock(executeQuote(benchMoneyPlatform, q.id))), context)))
    );
    console.log(`statements per quote: ${quoteStatements.length / SAMPLE}, per execute: ${executeStatements.length / SAMPLE}`);
    if (process.env["OPS_SHOW_STATEMENTS"] === "1") {
      console.log("-- one quote:\n" + quoteStatements.slice(0, quoteStatements.length / SAMPLE).join("\n"));
      console.log("-- one execute:\n" + executeStatements.slice(0, executeStatements.length / SAMPLE).join("\n"));
    }
  }
});
var choice = storeChoiceFromEnv(process.env);
if (typeof choice === "string") throw new Error(choice);
try {
  await Effect66.runPromise(Effect66.scoped(Effect66.provide(Effect66.withTracerEnabled(program, false), Layer10.orDie(servicesFor(choice, [benchMoneyPlatform], { webhookDestinations: ["loopback"] })))));
} finally {
  await cleanUp();
}
process.exit(0);
