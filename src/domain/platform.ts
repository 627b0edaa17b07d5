/** A platform: the API client, its credentials and the settings the rules read. */
import { type Clock, Effect, Schema } from "effect"
import { CurrencyCode } from "./common.js"
import { currencyOf, DEFAULT_PLATFORM_CURRENCIES } from "./money.js"
import { destinationEntryProblem } from "./webhook-destinations.js"

/**
 * Where a platform's webhooks may go (docs/webhooks.md#destinations): `loopback`,
 * `public`, `private` and IP ranges (`10.20.0.0/16`). Link-local, metadata, unspecified,
 * multicast and reserved addresses are never allowed and cannot be listed.
 */
export const WebhookDestinationsConfig = Schema.NonEmptyArray(
  Schema.String.check(Schema.makeFilter((e: string) => destinationEntryProblem(e) ?? true))
).check(Schema.isMaxLength(100))

export const PlatformSettings = Schema.Struct({
  /** A regulated financial institution: sandbox KYC resolves at creation. */
  regulated: Schema.Boolean,
  /** "Skip verification paperwork": sandbox KYC/KYB resolve without a packet. */
  skipVerificationPaperwork: Schema.Boolean,
  /** Subject to counterparty requirements such as the EU Travel Rule. */
  travelRule: Schema.Boolean,
  /** Sandbox platforms get the magic values; a non-sandbox platform gets none. */
  sandbox: Schema.Boolean
})
export type PlatformSettings = typeof PlatformSettings.Type

/**
 * Embedded wallets (docs/embedded-wallets.md): each approved customer gets an
 * EMBEDDED_WALLET internal account in `currency`. Every field has a sandbox default.
 */
export const EmbeddedWalletsConfig = Schema.Struct({
  /** Default true when the object is present. */
  enabled: Schema.optionalKey(Schema.Boolean),
  /** The wallet's currency; default USDC. */
  currency: Schema.optionalKey(CurrencyCode.check(Schema.makeFilter((c: string) => currencyOf(c) !== undefined, { message: "must be a currency the service knows (see docs/money.md)" }))),
  /** How long a session lasts; default 900 (15 minutes). */
  sessionLifetimeSeconds: Schema.optionalKey(Schema.Number.check(Schema.isInt(), Schema.isBetween({ minimum: 60, maximum: 2_592_000 }))),
  /** Passkey relying party: default rpId `localhost`, origins `http://localhost` and `https://localhost`. */
  passkey: Schema.optionalKey(Schema.Struct({
    rpId: Schema.optionalKey(Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(253))),
    allowedOrigins: Schema.optionalKey(Schema.Array(Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(2048))).check(Schema.isMaxLength(50)))
  })),
  /**
   * Supported OIDC issuers; default Google and Apple. Production verifies the token's
   * signature with the issuer's keys: a JWKS file (`jwksFile`) or URL (`jwksUrl`).
   */
  oidcIssuers: Schema.optionalKey(Schema.Array(Schema.Struct({
    issuer: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(2048)),
    jwksFile: Schema.optionalKey(Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(4096))),
    jwksUrl: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(2048), Schema.isPattern(/^https?:\/\/\S+$/, { message: "must be an http(s) URL" })))
  })).check(Schema.isMaxLength(50)))
})

/** The resolved embedded-wallet settings of a platform. */
export interface EmbeddedWalletSettings {
  readonly currency: string
  readonly sessionLifetimeSeconds: number
  readonly rpId: string
  readonly allowedOrigins: ReadonlyArray<string>
  readonly oidcIssuers: ReadonlyArray<{ readonly issuer: string; readonly jwksFile?: string; readonly jwksUrl?: string }>
}

export const DEFAULT_EMBEDDED_WALLETS: EmbeddedWalletSettings = {
  currency: "USDC",
  sessionLifetimeSeconds: 900,
  rpId: "localhost",
  allowedOrigins: ["http://localhost", "https://localhost"],
  oidcIssuers: [{ issuer: "https://accounts.google.com" }, { issuer: "https://appleid.apple.com" }]
}

export const embeddedWalletsFromConfig = (c: typeof EmbeddedWalletsConfig.Type | undefined): EmbeddedWalletSettings | undefined => {
  if (c === undefined || c.enabled === false) return undefined
  const d = DEFAULT_EMBEDDED_WALLETS
  return {
    currency: c.currency ?? d.currency,
    sessionLifetimeSeconds: c.sessionLifetimeSeconds ?? d.sessionLifetimeSeconds,
    rpId: c.passkey?.rpId ?? d.rpId,
    allowedOrigins: c.passkey?.allowedOrigins ?? d.allowedOrigins,
    oidcIssuers: c.oidcIssuers ?? d.oidcIssuers
  }
}

/**
 * Cards (docs/cards.md): which currencies a card may be funded in, how many live (not
 * CLOSED) cards the platform may hold, and whether a cardholder may hold more than one.
 */
export const CardsConfig = Schema.Struct({
  /** Whether the platform issues cards; default true. False: every card endpoint answers 501 NOT_IMPLEMENTED (the reference's "no card issuer configured"). */
  enabled: Schema.optionalKey(Schema.Boolean),
  /** Default `["USD", "USDC"]` (USDC: the embedded-wallet currency). */
  eligibleCurrencies: Schema.optionalKey(Schema.NonEmptyArray(CurrencyCode.check(Schema.makeFilter((c: string) => currencyOf(c) !== undefined, { message: "must be a currency the service knows (see docs/money.md)" }))).check(Schema.isMaxLength(50))),
  /** The platform's live-card maximum; default 10,000. */
  maxLiveCards: Schema.optionalKey(Schema.Number.check(Schema.isInt(), Schema.isBetween({ minimum: 0, maximum: 100_000_000 }))),
  /** At most one live card per cardholder; default false. */
  oneCardPerCardholder: Schema.optionalKey(Schema.Boolean)
})

/** The resolved card settings of a platform. */
export interface CardSettings {
  readonly enabled: boolean
  readonly eligibleCurrencies: ReadonlyArray<string>
  readonly maxLiveCards: number
  readonly oneCardPerCardholder: boolean
}

export const DEFAULT_CARD_SETTINGS: CardSettings = {
  enabled: true,
  eligibleCurrencies: ["USD", "USDC"],
  maxLiveCards: 10_000,
  oneCardPerCardholder: false
}

export const cardSettingsFromConfig = (c: typeof CardsConfig.Type | undefined): CardSettings => ({
  enabled: c?.enabled ?? DEFAULT_CARD_SETTINGS.enabled,
  eligibleCurrencies: c?.eligibleCurrencies === undefined ? DEFAULT_CARD_SETTINGS.eligibleCurrencies : [...new Set(c.eligibleCurrencies)],
  maxLiveCards: c?.maxLiveCards ?? DEFAULT_CARD_SETTINGS.maxLiveCards,
  oneCardPerCardholder: c?.oneCardPerCardholder ?? DEFAULT_CARD_SETTINGS.oneCardPerCardholder
})

export const PlatformConfigEntry = Schema.Struct({
  id: Schema.String.check(Schema.isMinLength(1)),
  name: Schema.optionalKey(Schema.String),
  clientId: Schema.String.check(Schema.isMinLength(1)),
  clientSecret: Schema.String.check(Schema.isMinLength(8)),
  regulated: Schema.optionalKey(Schema.Boolean),
  skipVerificationPaperwork: Schema.optionalKey(Schema.Boolean),
  travelRule: Schema.optionalKey(Schema.Boolean),
  sandbox: Schema.optionalKey(Schema.Boolean),
  /** The currencies the platform supports: one internal account each per approved customer. */
  currencies: Schema.optionalKey(Schema.NonEmptyArray(CurrencyCode.check(Schema.makeFilter((c: string) => currencyOf(c) !== undefined, { message: "must be a currency the service knows (see docs/money.md)" })))),
  /** The platform's UMA domain (customers' addresses are `$name@<umaDomain>`). */
  umaDomain: Schema.optionalKey(Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(253))),
  /** The domain of the sandbox UMA counterparties (`$success.usd@...`). */
  sandboxUmaDomain: Schema.optionalKey(Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(253))),
  /** The webhook endpoint until `PATCH /config` sets another (http or https; see docs/webhooks.md). */
  webhookEndpoint: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(2048), Schema.isPattern(/^https?:\/\/\S+$/, { message: "must be an http(s) URL" }))),
  /** Where its webhooks may go; default: the server's --webhook-destinations, else `loopback, public` (sandbox) or `public` (production). */
  webhookDestinations: Schema.optionalKey(WebhookDestinationsConfig),
  /** Embedded wallets for the platform's customers (off unless present; see EmbeddedWalletsConfig). */
  embeddedWallets: Schema.optionalKey(EmbeddedWalletsConfig),
  /** Card issuance settings (every field has a default; see CardsConfig). */
  cards: Schema.optionalKey(CardsConfig),
  /** A seed document (JSON file, relative to the platforms file) applied at start: docs/sandbox.md#fixtures. */
  seedDocument: Schema.optionalKey(Schema.String.check(Schema.isMinLength(1))),
  /**
   * A deterministic platform (sandbox only): its ids and generated values come from a
   * stream seeded by this number and its clock stands still but for
   * `/sandbox/clock/advance` (docs/sandbox.md#deterministic-runs).
   */
  deterministicSeed: Schema.optionalKey(Schema.Number.check(Schema.isInt(), Schema.isBetween({ minimum: 0, maximum: 4_294_967_295 })))
}).check(Schema.makeFilter((e: { readonly sandbox?: boolean; readonly deterministicSeed?: number }) =>
  e.deterministicSeed === undefined || e.sandbox !== false, { message: "deterministicSeed is for sandbox platforms only (a production platform's clock is real time)" }))

/** The `PAYMENTS_CONFIG` file: one or more platforms. */
export const PaymentsConfig = Schema.Struct({
  platforms: Schema.NonEmptyArray(PlatformConfigEntry)
})
export type PaymentsConfig = typeof PaymentsConfig.Type

/**
 * Two entries of a platforms file that would collide: one `id` (they would share
 * data) or one `clientId` (one would never authenticate). A message naming it, or
 * undefined.
 */
export const duplicatePlatformOf = (entries: ReadonlyArray<{ readonly id: string; readonly clientId: string }>): string | undefined => {
  const ids = new Set<string>()
  const clientIds = new Set<string>()
  for (const e of entries) {
    if (ids.has(e.id)) return `two platforms have the id "${e.id}"; each platform needs its own id`
    if (clientIds.has(e.clientId)) return `two platforms have the clientId "${e.clientId}"; each platform needs its own clientId`
    ids.add(e.id)
    clientIds.add(e.clientId)
  }
  return undefined
}

export interface Platform {
  readonly id: string
  readonly name: string
  readonly clientId: string
  readonly clientSecret: string
  readonly settings: PlatformSettings
  /** Supported currencies; `DEFAULT_PLATFORM_CURRENCIES` when absent. */
  readonly currencies?: ReadonlyArray<string>
  readonly umaDomain?: string
  readonly sandboxUmaDomain?: string
  /** The webhook endpoint the platforms file presets (a stored configuration wins). */
  readonly webhookEndpoint?: string
  /** Where its webhooks may go (its platforms-file entry); undefined: the server's setting, else its kind's default. */
  readonly webhookDestinations?: ReadonlyArray<string>
  /** Embedded wallets, when the platform offers them. */
  readonly embeddedWallets?: EmbeddedWalletSettings
  /** Card settings; `DEFAULT_CARD_SETTINGS` when absent. */
  readonly cards?: CardSettings
  /**
   * A deterministic platform (sandbox only): ids from a stream seeded by this and the
   * platform's id, a clock standing at `DETERMINISTIC_EPOCH_MILLIS` plus its sandbox
   * offset, no background passes (docs/sandbox.md#deterministic-runs).
   */
  readonly deterministicSeed?: number
}

/** Where the base clock of a deterministic run (or platform) stands: 2025-01-01T00:00:00.000Z. */
export const DETERMINISTIC_EPOCH_MILLIS = Date.UTC(2025, 0, 1)

/**
 * A clock that always reads `at`; sleeping and monotonic time still follow `base`
 * (delegated one by one: the default clock's methods live on its prototype).
 */
export const standingClock = (base: Clock.Clock, at: number): Clock.Clock => ({
  monotonicTimeNanosUnsafe: () => base.monotonicTimeNanosUnsafe(),
  monotonicTimeNanos: base.monotonicTimeNanos,
  sleep: (duration) => base.sleep(duration),
  currentTimeMillisUnsafe: () => at,
  currentTimeMillis: Effect.succeed(at),
  currentTimeNanosUnsafe: () => BigInt(at) * 1_000_000n,
  currentTimeNanos: Effect.succeed(BigInt(at) * 1_000_000n)
})

/** Whether the platform runs deterministically (its `deterministicSeed`; sandbox platforms only). */
export const isDeterministic = (platform: Platform): boolean => platform.deterministicSeed !== undefined && platform.settings.sandbox

/** The domain of the sandbox UMA counterparties unless a platform names its own (the reference file's example domain). */
export const DEFAULT_SANDBOX_UMA_DOMAIN = "sandbox.grid.uma.money"

export const platformCurrencies = (platform: Platform): ReadonlyArray<string> => platform.currencies ?? DEFAULT_PLATFORM_CURRENCIES
export const sandboxUmaDomainOf = (platform: Platform): string => platform.sandboxUmaDomain ?? DEFAULT_SANDBOX_UMA_DOMAIN
export const cardSettingsOf = (platform: Platform): CardSettings => platform.cards ?? DEFAULT_CARD_SETTINGS

export const platformFromConfig = (entry: typeof PlatformConfigEntry.Type): Platform => ({
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
  ...(entry.currencies === undefined ? {} : { currencies: [...new Set(entry.currencies)] }),
  ...(entry.umaDomain === undefined ? {} : { umaDomain: entry.umaDomain }),
  ...(entry.sandboxUmaDomain === undefined ? {} : { sandboxUmaDomain: entry.sandboxUmaDomain }),
  ...(entry.webhookEndpoint === undefined ? {} : { webhookEndpoint: entry.webhookEndpoint }),
  ...(entry.webhookDestinations === undefined ? {} : { webhookDestinations: entry.webhookDestinations.map((e) => e.trim().toLowerCase()) }),
  ...withEmbeddedWallets(embeddedWalletsFromConfig(entry.embeddedWallets)),
  ...(entry.cards === undefined ? {} : { cards: cardSettingsFromConfig(entry.cards) }),
  ...(entry.deterministicSeed === undefined ? {} : { deterministicSeed: entry.deterministicSeed })
})

const withEmbeddedWallets = (settings: EmbeddedWalletSettings | undefined) => settings === undefined ? {} : { embeddedWallets: settings }

/** The platform `npm start` serves when no `PAYMENTS_CONFIG` is given. */
export const SANDBOX_PLATFORM: Platform = platformFromConfig({
  id: "sandbox",
  name: "Sandbox platform",
  clientId: "sandbox_client_id",
  clientSecret: "sandbox_client_secret",
  embeddedWallets: {}
})
