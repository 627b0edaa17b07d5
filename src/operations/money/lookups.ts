/**
 * Receiver lookups: GET /receiver/uma/{receiverUmaAddress} and
 * GET /receiver/external-account/{accountId}. Each answers the currencies the receiver
 * takes, priced from the sender's currency at the sandbox rate of the platform's clock
 * (rules/money/rates.ts `rateAt`), with the amount bounds a quote would allow, the payer
 * data the receiving side requires, and a fresh `lookupId`.
 *
 * A lookup stores nothing: its `lookupId` is generated per call and a quote does not
 * need one (docs/decisions.md).
 *
 * Who sends: `customerId` (a customer of the platform), `senderUmaAddress`, or both (then
 * they must name the same customer when the address is one of ours). The sending
 * currency is the first of the platform's currencies the sending customer holds an
 * internal account in; a sandbox UMA counterparty sends in its own currency; any other
 * sender, the platform's first currency.
 */
import { Clock, Effect } from "effect"
import { badRequest, type Error400, type Error404, invalidInput, notFound } from "../../domain/errors.js"
import { type Currency, currencyOf } from "../../domain/money.js"
import type { PlatformConfig } from "../../domain/platform-config.js"
import { type Platform, sandboxUmaDomainOf } from "../../domain/platform.js"
import type {
  CounterpartyFieldDefinition,
  CurrencyPreference,
  ReceiverExternalAccountLookupResponse,
  ReceiverUmaLookupResponse
} from "../../domain/receiver-lookup.js"
import { Ids } from "../../ports/ids.js"
import { type CustomerRecord, Store } from "../../ports/store.js"
import * as Limits from "../../rules/money/limits.js"
import * as QuoteMath from "../../rules/money/quote-math.js"
import * as Rates from "../../rules/money/rates.js"
import * as SandboxPayments from "../../rules/money/sandbox-payments.js"
import { configOf } from "./config.js"
import { missing } from "../not-found.js"

export interface ReceiverLookupQuery {
  readonly senderUmaAddress?: string | undefined
  readonly customerId?: string | undefined
}

/** The smallest amount a receiver can be sent: one minor unit. */
export const MIN_RECEIVING_AMOUNT = 1

/** The currencies of a customer's active internal accounts. */
const customerCurrencies = Effect.fnUntraced(function*(platform: Platform, customerId: string) {
  const store = yield* Store
  const accounts = yield* store.internalAccounts.list(platform.id, { owner: "customer", customerId }, { limit: 100 }).pipe(Effect.orDie)
  return accounts.data.filter((a) => a.status === "ACTIVE").map((a) => a.currency)
})

/** The platform's currencies in its configuration's order. */
const platformCurrencyCodes = (config: PlatformConfig): ReadonlyArray<string> => config.supportedCurrencies.map((c) => c.currencyCode)

/** The first of the platform's currencies that is in `held`, else the first of `held`, else the platform's first. */
const preferredCurrency = (config: PlatformConfig, held: ReadonlyArray<string>): string | undefined =>
  platformCurrencyCodes(config).find((c) => held.includes(c)) ?? held[0] ?? platformCurrencyCodes(config)[0]

/** The sending currency of a lookup, from its sender (see the module comment). */
const sendingCurrency = Effect.fnUntraced(function*(
  platform: Platform,
  config: PlatformConfig,
  query: ReceiverLookupQuery
): Effect.fn.Return<Currency, Error400 | Error404, Store> {
  const store = yield* Store
  if (query.senderUmaAddress === undefined && query.customerId === undefined) {
    return yield* invalidInput("Name the sender", [{
      field: "senderUmaAddress",
      constraint: "required",
      message: "senderUmaAddress or customerId is required"
    }])
  }
  if (query.senderUmaAddress !== undefined && SandboxPayments.parseUmaAddress(query.senderUmaAddress) === undefined) {
    return yield* badRequest("INVALID_UMA_ADDRESS", `senderUmaAddress ${query.senderUmaAddress} is not a UMA address ($name@domain)`)
  }
  let byId: CustomerRecord | undefined
  if (query.customerId !== undefined) {
    byId = yield* store.customers.get(platform.id, query.customerId)
    if (byId === undefined || byId.deletedAt !== undefined) return yield* missing("customer", `Customer ${query.customerId} not found`)
  }
  const byAddress = query.senderUmaAddress === undefined ? undefined : yield* store.customers.findActiveByUmaAddress(platform.id, query.senderUmaAddress)
  if (byId !== undefined && byAddress !== undefined && byId.customer.id !== byAddress.customer.id) {
    return yield* invalidInput("senderUmaAddress and customerId name different customers", [{
      field: "customerId",
      constraint: "sender",
      message: "must be the customer holding senderUmaAddress"
    }])
  }
  const sender = byId ?? byAddress
  let code: string | undefined
  if (sender !== undefined) {
    code = preferredCurrency(config, yield* customerCurrencies(platform, sender.customer.id))
  } else {
    const counterparty = platform.settings.sandbox && query.senderUmaAddress !== undefined
      ? SandboxPayments.sandboxUmaCounterparty(query.senderUmaAddress, sandboxUmaDomainOf(platform))
      : undefined
    code = counterparty?.currency ?? platformCurrencyCodes(config)[0]
  }
  const currency = code === undefined ? undefined : currencyOf(code)
  if (currency === undefined) return yield* badRequest("INVALID_CURRENCY", "The platform has no currency to send from")
  return currency
})

/** The platform's single-transaction limits by sending currency, as the quotes apply them. */
const limitsOf = (config: PlatformConfig): Limits.SingleTransactionLimits => ({
  byCurrency: Object.fromEntries((config.limits?.singleTransaction ?? []).map((l) => [l.currency, l.maxAmount]))
})

/**
 * Each receiving currency priced from `sending` at the rate of `nowMs`. The maximum is
 * the sending currency's single-transaction limit converted at that rate (what a quote
 * locked on the sending side could deliver at most); a corridor without a rate is left
 * out (a quote on it would fail with QUOTE_RATE_UNAVAILABLE).
 */
export const currencyPreferences = (
  sending: Currency,
  receiving: ReadonlyArray<string>,
  nowMs: number,
  limits: Limits.SingleTransactionLimits
): ReadonlyArray<CurrencyPreference> =>
  [...new Set(receiving)].flatMap((code) => {
    const currency = currencyOf(code)
    const rate = Rates.rateAt(sending.code, code, nowMs)
    if (currency === undefined || rate === undefined) return []
    const perMinor = QuoteMath.minorUnitRate(rate.rate, sending, currency)
    const limit = Limits.singleTransactionLimit(sending.code, code, limits)
    if (perMinor === undefined || limit === undefined) return []
    const converted = QuoteMath.convertDown(BigInt(limit), perMinor)
    const max = converted > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(converted)
    if (max < MIN_RECEIVING_AMOUNT) return []
    return [{ currency, estimatedExchangeRate: Rates.apiExchangeRate(rate.rate), min: MIN_RECEIVING_AMOUNT, max }]
  })

/**
 * What the platform, receiving for its own customer, requires about the payer: its
 * configured `requiredCounterpartyFields` of the receiving currencies, one entry per
 * field, mandatory when any currency makes it so.
 */
const requiredPayerFields = (config: PlatformConfig, currencies: ReadonlyArray<string>): ReadonlyArray<CounterpartyFieldDefinition> => {
  const fields = new Map<CounterpartyFieldDefinition["name"], boolean>()
  for (const c of config.supportedCurrencies) {
    if (!currencies.includes(c.currencyCode)) continue
    for (const f of c.requiredCounterpartyFields) fields.set(f.name, (fields.get(f.name) ?? false) || f.mandatory)
  }
  return [...fields].map(([name, mandatory]) => ({ name, mandatory }))
}

/** GET /receiver/uma/{receiverUmaAddress}. */
export const lookupUma = Effect.fnUntraced(function*(platform: Platform, receiverUmaAddress: string, query: ReceiverLookupQuery) {
  const store = yield* Store
  const ids = yield* Ids
  if (SandboxPayments.parseUmaAddress(receiverUmaAddress) === undefined) {
    return yield* badRequest("INVALID_UMA_ADDRESS", `${receiverUmaAddress} is not a UMA address ($name@domain)`)
  }
  const config = yield* configOf(platform)
  const sending = yield* sendingCurrency(platform, config, query)
  // The same precedence as a quote to a UMA address: a sandbox counterparty, else a customer of the platform.
  const counterparty = platform.settings.sandbox ? SandboxPayments.sandboxUmaCounterparty(receiverUmaAddress, sandboxUmaDomainOf(platform)) : undefined
  let receiving: ReadonlyArray<string>
  let required: ReadonlyArray<CounterpartyFieldDefinition> = []
  if (counterparty !== undefined) {
    receiving = [counterparty.currency]
  } else {
    const receiver = yield* store.customers.findActiveByUmaAddress(platform.id, receiverUmaAddress)
    if (receiver === undefined) return yield* notFound(`No receiver found at ${receiverUmaAddress}`, "UMA_NOT_FOUND")
    receiving = yield* customerCurrencies(platform, receiver.customer.id)
    required = requiredPayerFields(config, receiving)
  }
  const nowMs = yield* Clock.currentTimeMillis
  const response: ReceiverUmaLookupResponse = {
    receiverUmaAddress,
    supportedCurrencies: currencyPreferences(sending, receiving, nowMs, limitsOf(config)),
    requiredPayerDataFields: required,
    lookupId: yield* ids.make("Lookup")
  }
  return response
})

/** GET /receiver/external-account/{accountId}: an external account of the platform (customer- or platform-owned). */
export const lookupExternalAccount = Effect.fnUntraced(function*(platform: Platform, accountId: string, query: ReceiverLookupQuery) {
  const store = yield* Store
  const ids = yield* Ids
  const account = yield* store.externalAccounts.get(platform.id, accountId)
  if (account === undefined) return yield* missing("externalAccount", `External account ${accountId} not found`)
  const config = yield* configOf(platform)
  const sending = yield* sendingCurrency(platform, config, query)
  const nowMs = yield* Clock.currentTimeMillis
  const response: ReceiverExternalAccountLookupResponse = {
    accountId: account.account.id,
    supportedCurrencies: currencyPreferences(sending, [account.account.currency], nowMs, limitsOf(config)),
    requiredPayerDataFields: [],
    lookupId: yield* ids.make("Lookup")
  }
  return response
})
