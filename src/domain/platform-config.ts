/**
 * Platform configuration (`GET /config`, `PATCH /config`, `PATCH /platform/config`), as
 * the reference file's `PlatformConfig` with SPEC.md's additions: fee configs may carry
 * a variable rate, a fixed amount or both; per-rail fee configs (`railFeeConfigs`, each
 * with a `rail`, e.g. ACH_SAME_DAY); `cardConfigs.pinTargetOrigin`. Our own additions
 * are the limits the money rules read (`limits`), documented in docs/money.md.
 */
import { Schema } from "effect"
import { CurrencyCode, NamedLiterals, NamedStruct, Timestamps } from "./common.js"
import { PaymentRail } from "./external-account.js"
import { MAX_AMOUNT } from "./money.js"
import { Bps, FixedFee } from "./quote.js"

const Text = (max: number) => Schema.String.check(Schema.isMaxLength(max))
const Amount = Schema.Number.check(Schema.isInt(), Schema.isBetween({ minimum: 0, maximum: MAX_AMOUNT }))

export const CustomerInfoFieldName = NamedLiterals("CustomerInfoFieldName", [
  "FULL_NAME",
  "BIRTH_DATE",
  "NATIONALITY",
  "PHONE_NUMBER",
  "EMAIL",
  "POSTAL_ADDRESS",
  "TAX_ID",
  "REGISTRATION_NUMBER",
  "USER_TYPE",
  "COUNTRY_OF_RESIDENCE",
  "ACCOUNT_IDENTIFIER",
  "FI_LEGAL_ENTITY_NAME",
  "FI_ADDRESS",
  "PURPOSE_OF_PAYMENT",
  "ULTIMATE_INSTITUTION_COUNTRY",
  "IDENTIFIER",
  "BUSINESS_TYPE",
  "COMPANY_LEGAL_NAME",
  "ID_TYPE",
  "ID_NUMBER"
])

const currencyConfigFields = {
  currencyCode: CurrencyCode,
  minAmount: Amount,
  maxAmount: Amount,
  requiredCounterpartyFields: Schema.Array(Schema.Struct({ name: CustomerInfoFieldName, mandatory: Schema.Boolean })).check(Schema.isMaxLength(20)),
  enabledTransactionTypes: Schema.Array(Schema.Literals(["INCOMING", "OUTGOING"])).check(Schema.isMaxLength(2))
}

export const PlatformCurrencyConfig = NamedStruct("PlatformCurrencyConfig", currencyConfigFields)
export type PlatformCurrencyConfig = typeof PlatformCurrencyConfig.Type

/**
 * A currency config as a request carries it: the reference's readOnly
 * `providerRequiredCustomerFields` / `providerRequiredCounterpartyCustomerFields` are
 * accepted when they are what the reference types them as (lists of field names), and
 * not stored (the provider's requirements are not the platform's to set).
 */
const PlatformCurrencyConfigUpdate = Schema.Struct({
  ...currencyConfigFields,
  providerRequiredCustomerFields: Schema.optionalKey(Schema.Array(CustomerInfoFieldName).check(Schema.isMaxLength(20))),
  providerRequiredCounterpartyCustomerFields: Schema.optionalKey(Schema.Array(CustomerInfoFieldName).check(Schema.isMaxLength(20)))
})

/** SPEC.md: a variable rate in basis points, a fixed amount, or both (after what the fee applies to). */
const feeFields = {
  sourceCurrency: CurrencyCode,
  variableFeeBps: Schema.optionalKey(Bps),
  fixedFee: Schema.optionalKey(FixedFee)
}

/** A fee on cross-currency payments. */
export const FeeConfig = NamedStruct("FeeConfig", { feeType: Schema.Literal("CROSS_CURRENCY_TRANSACTION"), ...feeFields })
export type FeeConfig = typeof FeeConfig.Type

/** A fee for payouts over one rail (SPEC.md: "A RailFeeConfig carries a `rail`"). */
export const RailFeeConfig = NamedStruct("RailFeeConfig", { rail: PaymentRail, ...feeFields })
export type RailFeeConfig = typeof RailFeeConfig.Type

/**
 * The reference's `format: uri`: an absolute URI (a scheme, then no whitespace) that
 * parses as a URL.
 */
export const isUri = (s: string): boolean => /^[A-Za-z][A-Za-z0-9+.-]*:\S+$/.test(s) && URL.canParse(s)
const Uri = (max: number) =>
  Text(max).check(Schema.makeFilter((s: string) => isUri(s), { message: "must be an absolute URI (format: uri) such as https://acme.com/logo.png", constraint: "format" }))

/**
 * The answer's structs (below) keep the lengths only, so a value stored before the
 * formats were checked is still answered; requests get the reference's formats
 * (`format: email`, `format: uri`) through the `…Update` variants.
 */
/** The reference's `format: email` (constraint `format`, as its FieldConstraint names it). */
const EmailAddress = Text(255).check(Schema.isPattern(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, { message: "must be an email address (format: email)", constraint: "format" }))

const embeddedWalletFields = (email: Schema.Codec<string>, uri: Schema.Codec<string>) => ({
  appName: Schema.optionalKey(Text(255)),
  otpLength: Schema.optionalKey(Schema.Number.check(Schema.isInt(), Schema.isBetween({ minimum: 4, maximum: 12 }))),
  alphanumeric: Schema.optionalKey(Schema.Boolean),
  expirationSeconds: Schema.optionalKey(Schema.Number.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 86_400 }))),
  sendFromEmailAddress: Schema.optionalKey(email),
  sendFromEmailSenderName: Schema.optionalKey(Text(255)),
  replyToEmailAddress: Schema.optionalKey(email),
  logoUrl: Schema.optionalKey(uri)
})

export const EmbeddedWalletConfig = NamedStruct("EmbeddedWalletConfig", embeddedWalletFields(Text(255), Text(512)))
const EmbeddedWalletConfigUpdate = Schema.Struct(embeddedWalletFields(EmailAddress, Uri(512)))

const cardTokenizationFields = (email: Schema.Codec<string>, uri: Schema.Codec<string>) => ({
  displayName: Schema.optionalKey(Text(255)),
  logoUrl: Schema.optionalKey(uri.check(Schema.isPattern(/^https:\/\//, { message: "must be an https:// URL" }))),
  email: Schema.optionalKey(Schema.Struct({
    fromAddress: Schema.optionalKey(email),
    fromName: Schema.optionalKey(Text(255)),
    replyToAddress: Schema.optionalKey(email),
    subject: Schema.optionalKey(Text(255)),
    bodyText: Schema.optionalKey(Text(2000))
  })),
  sms: Schema.optionalKey(Schema.Struct({
    templateSid: Schema.optionalKey(Text(64)),
    bodyText: Schema.optionalKey(Text(480))
  }))
})

export const CardTokenization2FAConfig = NamedStruct("CardTokenization2FAConfig", cardTokenizationFields(Text(255), Text(512)))
const CardTokenization2FAConfigUpdate = Schema.Struct(cardTokenizationFields(EmailAddress, Uri(512)))

/** An https origin (scheme, host, optional port; no path). */
export const Origin = Text(255).check(
  Schema.isPattern(/^https:\/\/[A-Za-z0-9.-]+(:\d{1,5})?$/, { message: "must be an https origin such as https://app.example.com" })
)

export const CardConfigs = NamedStruct("CardConfigs", {
  pinTargetOrigin: Schema.optionalKey(Origin)
})

/** Limits the money rules apply (minor units of the named currency). */
export const PlatformLimits = NamedStruct("PlatformLimits", {
  /** Largest single payment per sending currency (400 TRANSACTION_SIZE_LIMIT_EXCEEDED). */
  singleTransaction: Schema.optionalKey(Schema.Array(Schema.Struct({ currency: CurrencyCode, maxAmount: Amount })).check(Schema.isMaxLength(50))),
  /** Largest daily sent volume per customer and sending currency (429 DAILY_VOLUME_LIMIT_EXCEEDED). */
  dailyVolume: Schema.optionalKey(Schema.Array(Schema.Struct({ currency: CurrencyCode, maxAmount: Amount })).check(Schema.isMaxLength(50)))
})
export type PlatformLimits = typeof PlatformLimits.Type

export const WebhookEndpoint = Text(2048).check(Schema.isPattern(/^https?:\/\/\S+$/, { message: "must be an http(s) URL" }))

export const PlatformConfig = NamedStruct("PlatformConfig", {
  id: Schema.String,
  umaDomain: Schema.optionalKey(Schema.String),
  proxyUmaSubdomain: Schema.optionalKey(Schema.String),
  webhookEndpoint: Schema.optionalKey(Schema.String),
  /** Ours: the public key webhooks are signed with (uncompressed SEC1 hex; see docs/webhooks.md). Not stored in the configuration. */
  webhookPublicKey: Schema.optionalKey(Schema.String),
  supportedCurrencies: Schema.Array(PlatformCurrencyConfig),
  isRegulatedFinancialInstitution: Schema.Boolean,
  embeddedWalletConfig: Schema.optionalKey(EmbeddedWalletConfig),
  cardTokenization2faConfig: Schema.optionalKey(CardTokenization2FAConfig),
  cardConfigs: Schema.optionalKey(CardConfigs),
  feeConfigs: Schema.Array(FeeConfig),
  railFeeConfigs: Schema.Array(RailFeeConfig),
  limits: Schema.optionalKey(PlatformLimits),
  ...Timestamps
})
export type PlatformConfig = typeof PlatformConfig.Type

/** What is stored: the configuration as answered. */
export type PlatformConfigState = PlatformConfig

export const PlatformConfigUpdateRequest = NamedStruct("PlatformConfigUpdateRequest", {
  umaDomain: Schema.optionalKey(Text(253).check(Schema.isPattern(/^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)+$/, { message: "must be a domain name" }))),
  webhookEndpoint: Schema.optionalKey(WebhookEndpoint),
  supportedCurrencies: Schema.optionalKey(Schema.Array(PlatformCurrencyConfigUpdate).check(Schema.isMaxLength(50))),
  embeddedWalletConfig: Schema.optionalKey(EmbeddedWalletConfigUpdate),
  cardTokenization2faConfig: Schema.optionalKey(CardTokenization2FAConfigUpdate),
  cardConfigs: Schema.optionalKey(CardConfigs),
  feeConfigs: Schema.optionalKey(Schema.Array(FeeConfig).check(Schema.isMaxLength(50))),
  railFeeConfigs: Schema.optionalKey(Schema.Array(RailFeeConfig).check(Schema.isMaxLength(50))),
  limits: Schema.optionalKey(PlatformLimits)
})
export type PlatformConfigUpdateRequest = typeof PlatformConfigUpdateRequest.Type
