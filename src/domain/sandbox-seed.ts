/**
 * A seed document (docs/sandbox.md#fixtures): what a sandbox platform should hold,
 * applied by `POST /sandbox/seed` through the same operations the API runs. Every item
 * is keyed, so applying the same document again creates nothing new.
 */
import { Schema } from "effect"
import { CardCreateRequest, MAX_CARD_FUNDING_SOURCES } from "./card.js"
import { CurrencyCode, NonEmptyTextUpTo } from "./common.js"
import { CustomerCreateRequest } from "./customer.js"
import { CustomerExternalAccountCreateRequest, PlatformExternalAccountCreateRequest } from "./external-account.js"
import { PlatformConfigUpdateRequest } from "./platform-config.js"

/** Items per list in one document. */
export const MAX_SEED_ITEMS = 1_000

/** Currencies one balances record may name. */
export const MAX_SEED_BALANCE_CURRENCIES = 50

/** Balances an account should hold, in the currency's minor units (cents), by currency code. */
const Balances = Schema.Record(CurrencyCode, Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 1_000_000_000_000 })))
  .check(Schema.isMaxProperties(MAX_SEED_BALANCE_CURRENCIES))

const { customerId: _customerId, ...accountFields } = CustomerExternalAccountCreateRequest.fields

export const SeedCustomer = Schema.Struct({
  /** The POST /customers body; `platformCustomerId` is required (it keys the customer). Its KYC outcome follows the sandbox's magic suffixes. */
  customer: CustomerCreateRequest,
  /** Its internal accounts' balances: funded up to these amounts (never taken down). */
  balances: Schema.optionalKey(Balances),
  /** POST /customers/external-accounts bodies without `customerId` (an equivalent account already there counts as this one). */
  externalAccounts: Schema.optionalKey(Schema.Array(Schema.Struct(accountFields)).check(Schema.isMaxLength(MAX_SEED_ITEMS)))
})
export type SeedCustomer = typeof SeedCustomer.Type

const { cardholderId: _cardholderId, fundingSources: _fundingSources, ...cardFields } = CardCreateRequest.fields

/**
 * A card: the POST /cards body, keyed by its `platformCardId` (required here), with the
 * cardholder named by its `platformCustomerId` and the funding sources by currency (the
 * cardholder's internal account in each), since the document cannot know their ids.
 */
export const SeedCard = Schema.Struct({
  /** The cardholder: a customer of this document, or one the platform holds already. */
  platformCustomerId: NonEmptyTextUpTo(255),
  /** The cardholder's internal accounts in these currencies, in this order, fund the card. */
  fundingCurrencies: Schema.Array(CurrencyCode).check(
    Schema.isMinLength(1, { message: "must have at least 1 item", constraint: "minItems" }),
    Schema.isMaxLength(MAX_CARD_FUNDING_SOURCES)
  ),
  /** The other POST /cards fields; `platformCardId` is required (it keys the card: a card of the platform holding it is this one). */
  ...cardFields
})
export type SeedCard = typeof SeedCard.Type

export const SeedDocument = Schema.Struct({
  /** The PATCH /config body (the webhook endpoint among it). */
  config: Schema.optionalKey(PlatformConfigUpdateRequest),
  customers: Schema.optionalKey(Schema.Array(SeedCustomer).check(Schema.isMaxLength(MAX_SEED_ITEMS))),
  /** POST /platform/external-accounts bodies; `platformAccountId` is required (it keys the account). */
  platformExternalAccounts: Schema.optionalKey(Schema.Array(PlatformExternalAccountCreateRequest).check(Schema.isMaxLength(MAX_SEED_ITEMS))),
  /** The platform's own internal accounts' balances. */
  platformBalances: Schema.optionalKey(Balances),
  /** Cards, issued after the customers and balances (sandbox platforms with cards on). */
  cards: Schema.optionalKey(Schema.Array(SeedCard).check(Schema.isMaxLength(MAX_SEED_ITEMS)))
}).annotate({ identifier: "SeedDocument" })
export type SeedDocument = typeof SeedDocument.Type

const Counts = Schema.Struct({ customers: Schema.Number, externalAccounts: Schema.Number, fundings: Schema.Number, cards: Schema.Number })

export const SeedResult = Schema.Struct({
  /** What this application created (all zero when the platform held everything already). */
  created: Counts,
  /** Every seeded customer's id by its platformCustomerId. */
  customers: Schema.Record(Schema.String, Schema.String),
  /** Every seeded platform external account's id by its platformAccountId. */
  platformExternalAccounts: Schema.Record(Schema.String, Schema.String),
  /** Every seeded card's id by its platformCardId. */
  cards: Schema.Record(Schema.String, Schema.String)
}).annotate({ identifier: "SeedResult" })
export type SeedResult = typeof SeedResult.Type
