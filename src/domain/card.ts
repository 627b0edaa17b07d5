/**
 * Cards issued against internal accounts, as the reference file's `Card*` schemas with
 * SPEC.md's names beside them (docs/cards.md, docs/decisions.md):
 *
 * - SPEC.md calls the lifecycle field `status` (ACTIVE, FROZEN, CLOSED); the reference
 *   calls it `state` (its `CardState` adds PENDING_KYC and PROCESSING). A card carries
 *   both with the same value, and PATCH accepts either.
 * - SPEC.md's `pinStatus` and `cardCapabilities` (with `supportsDigitalWalletTokenization`)
 *   are on the card; the reference has neither.
 * - `fundingSources` are internal account ids in priority order; every binding has its
 *   own id (`CardFundingSource:<uuid>`, kept by the store, not shown on the card).
 */
import { Schema } from "effect"
import { ListResponse, MAX_ID_LENGTH, maxChars, maxItems, NamedLiterals, NamedStruct, NonEmpty, NonEmptyTextUpTo, TextUpTo, Timestamps } from "./common.js"
import { MAX_AMOUNT } from "./money.js"
import { MAX_3DS_PASSWORD_LENGTH } from "./limits.js"
export { MAX_3DS_PASSWORD_LENGTH } from "./limits.js"

/** Reference `CardState`: the sandbox provisions at once, so only ACTIVE, FROZEN and CLOSED occur. */
export const CardState = NamedLiterals("CardState", ["PENDING_KYC", "PROCESSING", "ACTIVE", "FROZEN", "CLOSED"])
export type CardState = typeof CardState.Type

/** SPEC.md's card `status`: the states a card takes once provisioned. */
export const CardStatus = NamedLiterals("CardStatus", ["ACTIVE", "FROZEN", "CLOSED"])
export type CardStatus = typeof CardStatus.Type

export const CardStateReason = NamedLiterals("CardStateReason", ["ISSUER_REJECTED", "CLOSED_BY_PLATFORM", "CLOSED_BY_GRID"])
export type CardStateReason = typeof CardStateReason.Type

export const CardBrand = NamedLiterals("CardBrand", ["VISA", "MASTERCARD"])
export type CardBrand = typeof CardBrand.Type

export const CardForm = NamedLiterals("CardForm", ["VIRTUAL"])
export type CardForm = typeof CardForm.Type

/** SPEC.md "Card PIN status". */
export const CardPinStatus = NamedLiterals("CardPinStatus", ["NOT_SET", "OK", "BLOCKED"])
export type CardPinStatus = typeof CardPinStatus.Type

export const CardCapabilities = NamedStruct("CardCapabilities", {
  supportsDigitalWalletTokenization: Schema.Boolean
})
export type CardCapabilities = typeof CardCapabilities.Type

/** The most funding sources one card may be bound to (our choice: docs/cards.md). */
export const MAX_CARD_FUNDING_SOURCES = 10

/** A per-transaction limit in minor units of the card's currency. */
export const CardSpendLimit = Schema.Number.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: MAX_AMOUNT }))

const FundingSourceIds = Schema.Array(NonEmptyTextUpTo(MAX_ID_LENGTH)).check(
  Schema.isMinLength(1, { message: "must have at least 1 item", constraint: "minItems" }),
  maxItems(MAX_CARD_FUNDING_SOURCES)
)

export const Card = NamedStruct("Card", {
  id: Schema.String,
  cardholderId: Schema.String,
  platformCardId: Schema.String,
  state: CardState,
  /** SPEC.md's name for `state`, always the same value. */
  status: CardStatus,
  stateReason: Schema.NullOr(CardStateReason),
  pinStatus: CardPinStatus,
  cardCapabilities: CardCapabilities,
  brand: CardBrand,
  form: CardForm,
  last4: Schema.String,
  expMonth: Schema.Number.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 12 })),
  expYear: Schema.Number.check(Schema.isInt()),
  /** Internal account ids in priority order (empty once the card is closed). */
  fundingSources: Schema.Array(Schema.String),
  maxSpendPerTransaction: Schema.NullOr(Schema.Number),
  currency: Schema.String,
  processorRef: Schema.String,
  issuerRef: Schema.String,
  ...Timestamps
})
export type Card = typeof Card.Type

export const CardListResponse = ListResponse(Card, "CardListResponse")
export type CardListResponse = typeof CardListResponse.Type

export const CardCreateRequest = NamedStruct("CardCreateRequest", {
  cardholderId: NonEmptyTextUpTo(MAX_ID_LENGTH),
  platformCardId: Schema.optionalKey(NonEmptyTextUpTo(255)),
  threeDSecurePassword: Schema.optionalKey(NonEmpty.check(maxChars(MAX_3DS_PASSWORD_LENGTH))),
  form: CardForm,
  fundingSources: FundingSourceIds,
  maxSpendPerTransaction: Schema.optionalKey(CardSpendLimit)
})
export type CardCreateRequest = typeof CardCreateRequest.Type

/**
 * `PATCH /cards/{id}`: at least one field. `state` is the reference's name, `status`
 * SPEC.md's; either may be sent (both, with different values: 400).
 */
export const CardUpdateRequest = NamedStruct("CardUpdateRequest", {
  state: Schema.optionalKey(CardStatus),
  status: Schema.optionalKey(CardStatus),
  fundingSources: Schema.optionalKey(FundingSourceIds),
  maxSpendPerTransaction: Schema.optionalKey(Schema.NullOr(CardSpendLimit))
})
export type CardUpdateRequest = typeof CardUpdateRequest.Type

export const CardRevealResponse = NamedStruct("CardRevealResponse", {
  panEmbedUrl: Schema.String,
  expiresAt: Schema.String
})
export type CardRevealResponse = typeof CardRevealResponse.Type

/** Query of `GET /cards` (besides paging). */
export const CardListFilters = {
  cardholderId: Schema.optionalKey(TextUpTo(MAX_ID_LENGTH)),
  accountId: Schema.optionalKey(TextUpTo(MAX_ID_LENGTH)),
  platformCardId: Schema.optionalKey(TextUpTo(255)),
  state: Schema.optionalKey(CardState),
  status: Schema.optionalKey(CardStatus),
  sortOrder: Schema.optionalKey(Schema.Literals(["asc", "desc"]))
}

// ---------------------------------------------------------------- PIN and tokenization (SPEC.md; the reference has none)

/**
 * An encrypted ISO 9564 PIN block as hex: 8 bytes (formats 0 to 3) or 16 bytes (format
 * 4, AES). The service never decrypts it in the sandbox: it keeps a fingerprint, and a
 * later PIN entry is correct when it carries the same block (docs/cards.md).
 */
export const EncryptedPinBlock = Schema.String.check(
  Schema.isPattern(/^(?:[0-9A-Fa-f]{16}|[0-9A-Fa-f]{32})$/, { message: "must be an encrypted PIN block: 16 or 32 hexadecimal characters" })
)

/** `POST /cards/{id}/set-pin`. */
export const CardSetPinRequest = NamedStruct("CardSetPinRequest", {
  encryptedPinBlock: EncryptedPinBlock
})
export type CardSetPinRequest = typeof CardSetPinRequest.Type

/** `GET /cards/{id}/set-pin-url`: the secure PIN-entry iframe's URL, good until `expiresAt`. */
export const CardSetPinUrlResponse = NamedStruct("CardSetPinUrlResponse", {
  setPinUrl: Schema.String,
  /** The origin the iframe reports to (the platform's `cardConfigs.pinTargetOrigin`). */
  targetOrigin: Schema.String,
  expiresAt: Schema.String
})
export type CardSetPinUrlResponse = typeof CardSetPinUrlResponse.Type

/** Ours, sandbox only (`POST /sandbox/cards/{id}/pin-entry`): a PIN typed at a terminal. */
export const SandboxCardPinEntryRequest = NamedStruct("SandboxCardPinEntryRequest", {
  encryptedPinBlock: EncryptedPinBlock
})

export const SandboxCardPinEntryResponse = NamedStruct("SandboxCardPinEntryResponse", {
  /** Whether the entry was accepted (the PIN matched and is not blocked). */
  accepted: Schema.Boolean,
  pinStatus: CardPinStatus,
  /** Consecutive incorrect entries so far (3 block the PIN). */
  consecutiveFailures: Schema.Number
})
export type SandboxCardPinEntryResponse = typeof SandboxCardPinEntryResponse.Type

export const DigitalWalletProvider = NamedLiterals("DigitalWalletProvider", ["APPLE_PAY", "GOOGLE_PAY", "SAMSUNG_PAY"])
export type DigitalWalletProvider = typeof DigitalWalletProvider.Type

const Base64 = Schema.String.check(
  Schema.isMinLength(1, { message: "must not be empty" }),
  maxChars(8192),
  Schema.isPattern(/^[A-Za-z0-9+/_-]+={0,2}$/, { message: "must be base64 (or base64url)" })
)

/**
 * `POST /cards/{id}/tokenize`: the values the wallet's in-app provisioning SDK produced.
 * Apple Pay gives `certificates` (leaf first), `nonce` and `nonceSignature`; Google Pay
 * and Samsung Pay give `deviceId` and `walletAccountId`.
 */
export const CardTokenizeRequest = NamedStruct("CardTokenizeRequest", {
  walletProvider: DigitalWalletProvider,
  certificates: Schema.optionalKey(Schema.Array(Base64).check(maxItems(5))),
  nonce: Schema.optionalKey(Base64),
  nonceSignature: Schema.optionalKey(Base64),
  deviceId: Schema.optionalKey(NonEmptyTextUpTo(255)),
  walletAccountId: Schema.optionalKey(NonEmptyTextUpTo(255))
})
export type CardTokenizeRequest = typeof CardTokenizeRequest.Type

/** The encrypted provisioning payload the app hands to the wallet SDK. */
export const CardTokenizeResponse = NamedStruct("CardTokenizeResponse", {
  walletProvider: DigitalWalletProvider,
  /** Base64: the encrypted card data (Apple `encryptedPassData`, Google `opaquePaymentCard`). */
  encryptedPayload: Schema.String,
  /** Base64: the activation data (Apple `activationData`). */
  activationData: Schema.String,
  /** Apple Pay only: the ephemeral public key the payload was encrypted with (base64). */
  ephemeralPublicKey: Schema.optionalKey(Schema.String),
  expiresAt: Schema.String
})
export type CardTokenizeResponse = typeof CardTokenizeResponse.Type
