/**
 * Platform configuration: GET /config, PATCH /config and PATCH /platform/config (the
 * same settings). Until the first change a platform has the defaults its entry in the
 * platforms file implies; a change is stored and wins from then on.
 */
import { Effect } from "effect"
import { badRequest, type FieldError, invalidInput } from "../../domain/errors.js"
import { currencyOf } from "../../domain/money.js"
import type { PlatformConfig, PlatformConfigUpdateRequest } from "../../domain/platform-config.js"
import { type Platform, platformCurrencies } from "../../domain/platform.js"
import { Store } from "../../ports/store.js"
import { WebhookSender } from "../../ports/webhooks.js"
import type * as Fees from "../../rules/money/fees.js"
import { nowIso } from "../time.js"
import { emit } from "../transition.js"

/** Default per-currency amount bounds of a new platform (minor units). */
export const DEFAULT_MIN_AMOUNT = 1
export const DEFAULT_MAX_AMOUNT = 100_000_000

const EPOCH = "1970-01-01T00:00:00.000Z"

export const defaultConfig = (platform: Platform, now: string): PlatformConfig => ({
  id: `PlatformConfig:${platform.id}`,
  ...(platform.umaDomain === undefined ? {} : { umaDomain: platform.umaDomain }),
  ...(platform.webhookEndpoint === undefined ? {} : { webhookEndpoint: platform.webhookEndpoint }),
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
})

/**
 * The platform's configuration in force, for the rules that read it. Until it is first
 * materialised (GET /config or the first change) the defaults carry no instant of their
 * own; they are never answered as they are (GET /config materialises them first).
 */
/**
 * The defaults of a platform that stored no configuration, stamped with the epoch: a pure
 * function of the platform record (records are not changed in place), built once per
 * record instead of on every quote and execution.
 */
const epochDefaults = new WeakMap<Platform, PlatformConfig>()
const epochDefaultsOf = (platform: Platform): PlatformConfig => {
  let config = epochDefaults.get(platform)
  if (config === undefined) epochDefaults.set(platform, config = defaultConfig(platform, EPOCH))
  return config
}

export const configOf = (platform: Platform): Effect.Effect<PlatformConfig, never, Store> => Store.use((store) => configIn(store, platform))

/** `configOf` with the store at hand (no step to read it). */
export const configIn = (store: Store["Service"], platform: Platform): Effect.Effect<PlatformConfig> =>
  Effect.map(store.platformConfigs.get(platform.id), (stored) => stored?.config ?? epochDefaultsOf(platform))

/**
 * GET /config: the stored configuration; the first time, the defaults are stored,
 * stamped with the platform clock's now as their `createdAt` and `updatedAt` (in one
 * unit of work, so a racing PATCH is not overwritten: the loser reruns and sees it).
 */
export const materializedConfigOf = Effect.fnUntraced(function*(platform: Platform) {
  const store = yield* Store
  const stored = yield* store.platformConfigs.get(platform.id)
  if (stored !== undefined) return stored.config
  return yield* store.transact((uow) =>
    Effect.gen(function*() {
      const again = yield* store.platformConfigs.get(platform.id)
      if (again !== undefined) return again.config
      const config = defaultConfig(platform, yield* nowIso)
      yield* uow.putPlatformConfig({ platformId: platform.id, config })
      return config
    })
  )
})

/** The platform's fee configs in the shape the fee rules take (an absent part counts as zero). */
export const feeRulesOf = (config: PlatformConfig): {
  readonly feeConfigs: ReadonlyArray<Fees.FeeConfig>
  readonly railFeeConfigs: ReadonlyArray<Fees.RailFeeConfig>
} => ({
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
})

/** The currencies the platform supports now (its configuration, else its platforms-file entry). */
export const currenciesOf = Effect.fnUntraced(function*(platform: Platform) {
  const config = yield* configOf(platform)
  return config.supportedCurrencies.map((c) => c.currencyCode)
})

/** Every problem of an update, as field errors (empty when it is acceptable). */
export const configProblems = (req: PlatformConfigUpdateRequest): ReadonlyArray<FieldError> => {
  const errors: Array<FieldError> = []
  const seen = new Set<string>()
  req.supportedCurrencies?.forEach((c, i) => {
    if (currencyOf(c.currencyCode) === undefined) {
      errors.push({ field: `supportedCurrencies[${i}].currencyCode`, constraint: "currency", message: `${c.currencyCode} is not a currency the service supports` })
    }
    if (seen.has(c.currencyCode)) {
      errors.push({ field: `supportedCurrencies[${i}].currencyCode`, constraint: "unique", message: `${c.currencyCode} is listed twice` })
    }
    seen.add(c.currencyCode)
    if (c.minAmount > c.maxAmount) {
      errors.push({ field: `supportedCurrencies[${i}].minAmount`, constraint: "range", message: "must not exceed maxAmount" })
    }
  })
  if (req.supportedCurrencies !== undefined && req.supportedCurrencies.length === 0) {
    errors.push({ field: "supportedCurrencies", constraint: "minItems", message: "must list at least one currency" })
  }
  const fees = (name: "feeConfigs" | "railFeeConfigs", list: ReadonlyArray<{ readonly sourceCurrency: string; readonly variableFeeBps?: number; readonly fixedFee?: { readonly currency: string } }> | undefined) =>
    list?.forEach((f, i) => {
      // SPEC.md Limits: platform fee configs require a USD source currency.
      if (f.sourceCurrency !== "USD") {
        errors.push({ field: `${name}[${i}].sourceCurrency`, constraint: "usdSource", message: "platform fees require a USD source currency" })
      }
      if (f.fixedFee !== undefined && f.fixedFee.currency !== f.sourceCurrency) {
        errors.push({ field: `${name}[${i}].fixedFee.currency`, constraint: "currency", message: "must be the source currency" })
      }
      if (f.variableFeeBps === undefined && f.fixedFee === undefined) {
        errors.push({ field: `${name}[${i}]`, constraint: "fee", message: "needs variableFeeBps, fixedFee or both" })
      }
    })
  fees("feeConfigs", req.feeConfigs)
  fees("railFeeConfigs", req.railFeeConfigs)
  const rails = new Set<string>()
  req.railFeeConfigs?.forEach((f, i) => {
    if (rails.has(f.rail)) errors.push({ field: `railFeeConfigs[${i}].rail`, constraint: "unique", message: `${f.rail} has two fee configs` })
    rails.add(f.rail)
  })
  const limits = (name: "singleTransaction" | "dailyVolume") =>
    req.limits?.[name]?.forEach((l, i) => {
      if (currencyOf(l.currency) === undefined) {
        errors.push({ field: `limits.${name}[${i}].currency`, constraint: "currency", message: `${l.currency} is not a currency the service supports` })
      }
    })
  limits("singleTransaction")
  limits("dailyVolume")
  return errors
}

/**
 * A webhook endpoint the platform's destinations refuse (docs/webhooks.md#destinations):
 * an address in a refused range, or a name that resolves to one now, is a 400 naming the
 * rule. A name that does not resolve (yet) is accepted; every attempt checks again.
 */
const endpointAllowed = Effect.fnUntraced(function*(platform: Platform, url: string) {
  const sender = yield* WebhookSender
  const refusal = sender.endpointRefusal === undefined ? undefined : yield* sender.endpointRefusal(url, platform)
  if (refusal === undefined) return
  const error: FieldError = { field: "webhookEndpoint", constraint: "webhookDestination", message: `${refusal.message} (${refusal.rule})` }
  return yield* badRequest("INVALID_INPUT", `The webhook endpoint is not an allowed destination: ${refusal.message}`, {
    details: { errors: [error], rule: refusal.rule, url }
  })
})

/** What of an update is stored: the reference's readOnly provider fields of a currency are accepted, not kept. */
const storedPartOf = ({ supportedCurrencies, ...rest }: PlatformConfigUpdateRequest) => ({
  ...rest,
  ...(supportedCurrencies === undefined ? {} : {
    supportedCurrencies: supportedCurrencies.map(({ providerRequiredCustomerFields: _customer, providerRequiredCounterpartyCustomerFields: _counterparty, ...c }) => c)
  })
})

/** PATCH /config and PATCH /platform/config: the fields sent replace the stored ones. */
export const updateConfig = Effect.fnUntraced(function*(platform: Platform, req: PlatformConfigUpdateRequest) {
  const problems = configProblems(req)
  if (problems.length > 0) return yield* invalidInput("The configuration is not valid", problems)
  if (req.webhookEndpoint !== undefined) yield* endpointAllowed(platform, req.webhookEndpoint)
  const store = yield* Store
  return yield* store.transact((uow) =>
    Effect.gen(function*() {
      const now = yield* nowIso
      const stored = yield* store.platformConfigs.get(platform.id)
      const current = stored?.config ?? defaultConfig(platform, now)
      const next: PlatformConfig = { ...current, ...storedPartOf(req), updatedAt: now }
      yield* uow.putPlatformConfig({ platformId: platform.id, config: next })
      if (req.webhookEndpoint !== undefined && req.webhookEndpoint !== current.webhookEndpoint) {
        // Setting an endpoint delivers what happens from now on; changing it keeps the
        // delivery position. Either way the new endpoint gets one TEST webhook (reference).
        if (current.webhookEndpoint === undefined) {
          yield* uow.setWebhookCursor(platform.id, yield* store.webhooks.lastEventSeq(platform.id))
        }
        yield* emit(uow, platform, "TEST", { timestamp: now })
      }
      return next
    })
  )
})
