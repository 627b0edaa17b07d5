/**
 * Quotes and their execution: POST /quotes (with `immediatelyExecute`), GET /quotes/{id},
 * POST /quotes/{id}/execute. Pricing, fees, rails, limits and the sandbox outcome tables
 * are the pure rules of rules/money/; this module resolves the accounts, checks what
 * SPEC.md makes a quote fail on, and writes the quote, the payment, its ledger entries
 * and its events in one unit of work.
 */
import { Context, Effect, type Types } from "effect"
import type { CustomerState } from "../../domain/customer.js"
import {
  badRequest,
  conflict,
  type Error400,
  type Error403,
  type Error404,
  type Error409,
  type Error429,
  forbidden,
  invalidInput,
  notFound,
  tooMany
} from "../../domain/errors.js"
import type { ExternalAccount } from "../../domain/external-account.js"
import { type Currency, currencyOf } from "../../domain/money.js"
import type { PlatformConfig } from "../../domain/platform-config.js"
import { DEFAULT_EMBEDDED_WALLETS, type Platform, sandboxUmaDomainOf } from "../../domain/platform.js"
import type { PaymentRail } from "../../domain/external-account.js"
import {
  Quote,
  type QuotePlan,
  type QuotePlanDestination,
  type QuotePlanSource,
  type QuoteRequest
} from "../../domain/quote.js"
import type { OutgoingTransaction, PaymentPlan, PaymentStepRecord, TransactionDestination, TransactionSource } from "../../domain/transaction.js"
import { Ids } from "../../ports/ids.js"
import { type CustomerRecord, type ExternalAccountRecord, type InternalAccountRecord, type QuoteRecord, Store, type UnitOfWork, type UnitOfWorkOptions } from "../../ports/store.js"
import { usability } from "../../rules/external-account-create.js"
import * as Fees from "../../rules/money/fees.js"
import * as Limits from "../../rules/money/limits.js"
import * as Machine from "../../rules/money/payment.js"
import * as QuoteMath from "../../rules/money/quote-math.js"
import * as Rails from "../../rules/money/rails.js"
import * as Rates from "../../rules/money/rates.js"
import * as SandboxPayments from "../../rules/money/sandbox-payments.js"
import { primaryIdentifier } from "../../rules/sandbox/identifiers.js"
import { isoOf, nowMillis } from "../time.js"
import { fundingInstructionsOf, openAccounts } from "./accounts.js"
import { unknownReference } from "../not-found.js"
import { checkWalletSignature, walletPaymentInstructions } from "../wallets/actions.js"
import { configIn, configOf, feeRulesOf } from "./config.js"
import { platformFeeAccount, postMove, revenueAccount, worldAccount } from "./ledger.js"
import { announceBalances, flushQuote, movePayment, PAYMENT_TIMER, paymentScope, runDueSteps } from "./payments.js"
import { AUTHORIZATION_TTL_MS, requiresSca } from "../../rules/sca.js"
import { issueCode, randomBytes } from "../sca/common.js"
import { rejected } from "../rejection.js"
import { emit } from "../transition.js"
import { toBase64Url } from "../../crypto/bytes.js"
import type { ScaFactor } from "../../domain/sca.js"
import { BoundedMemo } from "../../lib/bounded-memo.js"

/**
 * The network a payout to a wallet settles on (reference `CryptoNetwork`; sandbox
 * platforms are on the test network of the same name). Lightning settles off-chain.
 */
const WALLET_NETWORKS: Readonly<Record<string, string>> = {
  BASE_WALLET: "BASE",
  ETHEREUM_WALLET: "ETHEREUM",
  POLYGON_WALLET: "POLYGON",
  PLASMA_WALLET: "PLASMA",
  ARBITRUM_WALLET: "ARBITRUM",
  SOLANA_WALLET: "SOLANA",
  SPARK_WALLET: "SPARK",
  TRON_WALLET: "TRON",
  BITCOIN_L1: "BITCOIN"
}

/** How long a quote can be executed after it is created. */
export const QUOTE_TTL_MILLIS = 5 * 60_000

export type QuoteError = Error400 | Error403 | Error404 | Error409 | Error429

type Side =
  | { readonly kind: "INTERNAL"; readonly account: InternalAccountRecord }
  | { readonly kind: "EXTERNAL"; readonly account: ExternalAccountRecord }

const accountNotFound = (field: string, id: string) => unknownReference(field, id, "an internal or external account")

/** An account of the platform by id: internal or external (no generator: two per quote). */
const findAccount = (store: Store["Service"], platform: Platform, field: string, id: string): Effect.Effect<Side, Error400> =>
  id.startsWith("InternalAccount:")
    ? Effect.flatMap(store.internalAccounts.get(platform.id, id), (account) =>
      account !== undefined ? Effect.succeed({ kind: "INTERNAL", account }) : Effect.fail(accountNotFound(field, id)))
    : id.startsWith("ExternalAccount:")
    ? Effect.flatMap(store.externalAccounts.get(platform.id, id), (account) =>
      account !== undefined ? Effect.succeed({ kind: "EXTERNAL", account }) : Effect.fail(accountNotFound(field, id)))
    : Effect.fail(accountNotFound(field, id))

const sideCurrency = (side: Side): string => side.kind === "INTERNAL" ? side.account.currency : side.account.account.currency
const sideCustomer = (side: Side): string | null => side.kind === "INTERNAL" ? side.account.customerId : side.account.account.customerId

const known = (code: string, field: string): Effect.Effect<Currency, Error400> => {
  const c = currencyOf(code)
  return c === undefined
    ? Effect.fail(badRequest("INVALID_CURRENCY", `${field}: ${code} is not a currency the service supports`))
    : Effect.succeed(c)
}

const isApproved = (c: CustomerState): boolean =>
  c.customerType === "INDIVIDUAL" ? c.kycStatus === "APPROVED" : c.kybStatus === "APPROVED"

/** SPEC.md: an unregulated platform's customer must have accepted the service's end-user terms. */
const hasAcceptedTerms = (c: CustomerState): boolean =>
  c.agreementConsents.some((a) => a.type === "SERVICE_END_USER_TERMS") || c.endUserTermsConsent !== undefined

const customerFor = (store: Store["Service"], platform: Platform, customerId: string): Effect.Effect<CustomerState, Error400> =>
  Effect.flatMap(store.customers.get(platform.id, customerId), (rec) =>
    rec === undefined || rec.deletedAt !== undefined
      ? Effect.fail(unknownReference("source.customerId", customerId, "an active customer"))
      : Effect.succeed(rec.customer))

/** Who may move money: an approved customer that accepted the terms (unregulated platforms). */
const checkCustomer = (platform: Platform, customer: CustomerState): Effect.Effect<void, Error403> => {
  if (!isApproved(customer)) {
    return Effect.fail(forbidden(`Customer ${customer.id} is not verified yet (KYC/KYB must be APPROVED)`, "USER_NOT_READY"))
  }
  if (!platform.settings.regulated && !hasAcceptedTerms(customer)) {
    return Effect.fail(forbidden(
      `Customer ${customer.id} has not accepted the end-user terms (a SERVICE_END_USER_TERMS agreement consent)`,
      "END_USER_TERMS_NOT_ACCEPTED"
    ))
  }
  return Effect.void
}

/** Whether money may be paid to an external account now (SPEC.md rule 4 and ownership verification). */
const checkDestinationAccount = (rec: ExternalAccountRecord, amount: number, currency: string): Effect.Effect<void, Error400 | Error409> => {
  const u = usability({
    status: rec.account.status,
    ...(rec.bankValidationFailed === undefined ? {} : { bankValidationFailed: rec.bankValidationFailed }),
    bankValidationPending: rec.account.status === "PENDING"
  })
  if (!u.ok) return rejected(u.error)
  const status = rec.account.status
  if ((status === "PENDING_OWNERSHIP_VERIFICATION" || status === "UNVERIFIED") && Limits.requiresOwnershipVerification(amount, currency)) {
    return Effect.fail(badRequest(
      "EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED",
      `Destination ${rec.account.id} must complete ownership verification before receiving this amount`
    ))
  }
  if (status === "INACTIVE" || status === "UNDER_REVIEW") {
    return Effect.fail(badRequest("INVALID_INPUT", `External account ${rec.account.id} is ${status} and cannot be used for payments`))
  }
  return Effect.void
}

/**
 * A configuration's limits by currency, built once per configuration record (records are
 * never changed in place: an update stores a new one; a store that reads a new record per
 * request builds them again), not twice per quote and execution.
 */
const limitsByConfig = new WeakMap<PlatformConfig, { readonly single: Limits.SingleTransactionLimits; readonly daily: Readonly<Record<string, number>> }>()
const configLimits = (config: PlatformConfig) => {
  let limits = limitsByConfig.get(config)
  if (limits === undefined) {
    limits = {
      single: { byCurrency: Object.fromEntries((config.limits?.singleTransaction ?? []).map((l) => [l.currency, l.maxAmount])) },
      daily: Object.fromEntries((config.limits?.dailyVolume ?? []).map((l) => [l.currency, l.maxAmount]))
    }
    limitsByConfig.set(config, limits)
  }
  return limits
}
const limitsOf = (config: PlatformConfig): Limits.SingleTransactionLimits => configLimits(config).single
const dailyLimitsOf = (config: PlatformConfig): Readonly<Record<string, number>> => configLimits(config).daily

/** The limits a payment of `amount` must be within: single transaction, daily volume, ACH same-day. */
const checkLimits = Effect.fnUntraced(function*(
  platform: Platform,
  config: PlatformConfig,
  input: {
    readonly customerId: string | null
    readonly sending: string
    readonly receiving: string
    readonly amount: number
    readonly receivingAmount: number
    readonly rail?: string | undefined
    /** When the payment itself was created already (held for SCA): its amount is in the sent volume from then. */
    readonly createdAtMillis?: number | undefined
  },
  /** The store, when the caller has it at hand (no step to read it). */
  store?: Store["Service"]
): Effect.fn.Return<void, Error400 | Error429, Store> {
  const now = yield* nowMillis
  if (Limits.singleTransactionLimitExceeded({ amount: input.amount, sendingCurrency: input.sending, receivingCurrency: input.receiving, configured: limitsOf(config) })) {
    const max = Limits.singleTransactionLimit(input.sending, input.receiving, limitsOf(config))
    return yield* badRequest("TRANSACTION_SIZE_LIMIT_EXCEEDED", `The amount is above the single-transaction maximum of ${max} for ${input.sending}`, {
      details: { maxAmount: max ?? null, currency: input.sending }
    })
  }
  if (input.rail === "ACH_SAME_DAY") {
    // ACH_SAME_DAY pays USD accounts only: the entry is the USD amount received.
    if (Rails.achSameDayCapExceeded(input.receivingAmount, now)) {
      return yield* badRequest(
        "TRANSACTION_SIZE_LIMIT_EXCEEDED",
        `ACH_SAME_DAY entries are capped at ${Rails.achSameDayCap(now)} USD cents; send larger payouts over ACH`,
        { details: { rail: "ACH_SAME_DAY", capUsdCents: Rails.achSameDayCap(now) } }
      )
    }
  }
  const since = Limits.dailyWindowStart(now)
  const query = { customerId: input.customerId, currency: input.sending, since }
  const counted = yield* (store === undefined ? Store.use((s) => s.transactions.sentVolume(platform.id, query)) : store.transactions.sentVolume(platform.id, query))
  // A held payment is counted already (in its creation day's window): not twice.
  const sent = input.createdAtMillis !== undefined && input.createdAtMillis >= since ? counted - input.amount : counted
  if (Limits.dailyVolumeLimitExceeded({ sentInWindow: sent, amount: input.amount, sendingCurrency: input.sending, configured: dailyLimitsOf(config) })) {
    return yield* tooMany("DAILY_VOLUME_LIMIT_EXCEEDED", `The daily ${input.sending} volume limit would be exceeded`, {
      details: { limit: Limits.dailyVolumeLimit(input.sending, dailyLimitsOf(config)) ?? null, sentToday: sent, currency: input.sending }
    })
  }
})

const balanceOf = (platformId: string, accountId: string): Effect.Effect<number, never, Store> =>
  Store.use((store) => balanceIn(store, platformId, accountId))

/** `balanceOf` with the store at hand (no step to read it). */
const balanceIn = (store: Store["Service"], platformId: string, accountId: string): Effect.Effect<number> =>
  Effect.map(store.ledger.balances(platformId, [accountId]), (balances) => balances.get(accountId) ?? 0)

const insufficient = (accountId: string, balance: number, needed: number) =>
  badRequest("INSUFFICIENT_FUNDS", `Internal account ${accountId} holds ${balance}, the payment needs ${needed}`, {
    details: { accountId, balance, required: needed }
  })

// ---------------------------------------------------------------- create

interface Resolved {
  readonly customerId: string | null
  readonly platformCustomerId?: string | undefined
  readonly source: QuotePlanSource
  readonly destination: QuotePlanDestination
  readonly sending: Currency
  readonly receiving: Currency
  readonly rail?: PaymentRail | undefined
  readonly railSelectionMode?: "AUTO" | "MANUAL" | undefined
  /** The sandbox steps the payment will take, relative to execution. */
  readonly steps: ReadonlyArray<SandboxPayments.PaymentStep>
  readonly outcome: string
  /** The external destination to re-check at execution. */
  readonly externalDestination?: ExternalAccountRecord | undefined
  /** The source is an embedded wallet (its quote carries what the wallet signs). */
  readonly sourceIsWallet: boolean
}

const railOf = (req: QuoteRequest): PaymentRail | undefined =>
  req.destination.destinationType === "ACCOUNT" ? req.destination.paymentRail : undefined

/** Works out who pays whom in which currencies, and what the sandbox will make of it. */
const resolve = Effect.fnUntraced(function*(store: Store["Service"], platform: Platform, req: QuoteRequest, options: { readonly payout: boolean }) {
  const sandbox = platform.settings.sandbox
  // ---- source
  let source: QuotePlanSource
  let sending: Currency
  let customerId: string | null
  let sourceSide: Side | undefined
  if (req.source.sourceType === "ACCOUNT") {
    sourceSide = yield* findAccount(store, platform, "source.accountId", req.source.accountId)
    customerId = sideCustomer(sourceSide)
    if (req.source.customerId !== undefined && req.source.customerId !== customerId) {
      return yield* invalidInput("source.customerId does not own source.accountId", [{
        field: "source.customerId",
        constraint: "owner",
        message: "must be the customer that owns source.accountId"
      }])
    }
    sending = yield* known(sideCurrency(sourceSide), "source.accountId")
    if (sourceSide.kind === "INTERNAL" && sourceSide.account.status !== "ACTIVE") {
      return yield* badRequest("INVALID_INPUT", `Internal account ${sourceSide.account.id} is ${sourceSide.account.status}`)
    }
    if (sourceSide.kind === "EXTERNAL") {
      const u = usability({
        status: sourceSide.account.account.status,
        ...(sourceSide.account.bankValidationFailed === undefined ? {} : { bankValidationFailed: sourceSide.account.bankValidationFailed }),
        bankValidationPending: sourceSide.account.account.status === "PENDING"
      })
      if (!u.ok) return yield* rejected(u.error)
    }
    source = sourceSide.kind === "INTERNAL" ? { kind: "INTERNAL", accountId: sourceSide.account.id } : { kind: "EXTERNAL", accountId: sourceSide.account.account.id }
  } else {
    sending = yield* known(req.source.currency, "source.currency")
    customerId = req.source.customerId ?? null
    source = { kind: "REALTIME" }
  }
  let platformCustomerId: string | undefined
  if (customerId !== null) {
    const customer = yield* customerFor(store, platform, customerId)
    yield* checkCustomer(platform, customer)
    platformCustomerId = customer.platformCustomerId
  }
  // ---- destination
  let destination: QuotePlanDestination
  let receiving: Currency
  let steps: ReadonlyArray<SandboxPayments.PaymentStep> = SandboxPayments.QUOTE_EXECUTION_SUCCESS.steps
  let outcome = "SUCCESS"
  let rail: PaymentRail | undefined
  let railSelectionMode: "AUTO" | "MANUAL" | undefined
  let externalDestination: ExternalAccountRecord | undefined
  if (req.destination.destinationType === "ACCOUNT") {
    const side = yield* findAccount(store, platform, "destination.accountId", req.destination.accountId)
    const destinationId = side.kind === "INTERNAL" ? side.account.id : side.account.account.id
    if (req.source.sourceType === "ACCOUNT" && req.source.accountId === destinationId) {
      return yield* badRequest("SELF_PAYMENT", "The source and the destination are the same account")
    }
    receiving = yield* known(sideCurrency(side), "destination.accountId")
    if (side.kind === "INTERNAL") {
      if (req.destination.paymentRail !== undefined) {
        return yield* invalidInput("paymentRail applies to payouts to external accounts", [{
          field: "destination.paymentRail",
          constraint: "rail",
          message: "only a payout to an external account takes a payment rail"
        }])
      }
      if (side.account.status !== "ACTIVE") return yield* badRequest("INVALID_INPUT", `Internal account ${side.account.id} is ${side.account.status}`)
      destination = { kind: "INTERNAL", accountId: side.account.id }
    } else {
      const account: ExternalAccount = side.account.account
      externalDestination = side.account
      destination = { kind: "EXTERNAL", accountId: account.id }
      const pinned = req.destination.paymentRail
      if (pinned !== undefined) {
        if (!Rails.railAllowed(pinned, account.accountInfo.accountType, account.currency)) {
          return yield* invalidInput(`${pinned} cannot pay a ${account.accountInfo.accountType} in ${account.currency}`, [{
            field: "destination.paymentRail",
            constraint: "rail",
            message: `must be one of the account's rails${pinned === "ACH_SAME_DAY" ? " (ACH_SAME_DAY: USD accounts only)" : ""}`
          }])
        }
        rail = pinned
        railSelectionMode = "MANUAL"
      } else {
        // Never ACH_SAME_DAY automatically: it must be pinned (SPEC.md).
        rail = Rails.defaultRailFor(account.accountInfo.accountType, account.currency, account.accountInfo as unknown as Readonly<Record<string, unknown>>)
        railSelectionMode = rail === undefined ? undefined : "AUTO"
      }
      if (sandbox) {
        const identifier = primaryIdentifier(account.accountInfo as unknown as Parameters<typeof primaryIdentifier>[0])
        if (options.payout) {
          const row = SandboxPayments.pullOrPayoutOutcome(identifier)
          steps = SandboxPayments.pullOrPayoutSteps(row, "PAYOUT")
          outcome = `PAYOUT_${row.suffix}`
        } else {
          const row = SandboxPayments.quoteExecutionOutcome(identifier)
          steps = row.steps
          outcome = `QUOTE_${row.suffix}`
        }
      }
    }
  } else {
    const address = req.destination.umaAddress
    const parsed = SandboxPayments.parseUmaAddress(address)
    if (parsed === undefined) {
      return yield* badRequest("INVALID_UMA_ADDRESS", `${address} is not a UMA address ($name@domain)`)
    }
    const counterparty = sandbox ? SandboxPayments.sandboxUmaCounterparty(address, sandboxUmaDomainOf(platform)) : undefined
    if (counterparty !== undefined) {
      if (req.destination.currency !== undefined && req.destination.currency !== counterparty.currency) {
        return yield* badRequest("INVALID_CURRENCY", `${address} receives ${counterparty.currency} only`)
      }
      receiving = yield* known(counterparty.currency, "destination.currency")
      destination = { kind: "UMA", umaAddress: address }
      steps = counterparty.steps
      outcome = `UMA_${counterparty.localPart}`
    } else {
      const receiver = yield* store.customers.findActiveByUmaAddress(platform.id, address)
      if (receiver === undefined) return yield* badRequest("INVALID_RECEIVER", `No receiver found at ${address}`, { details: { errors: [{ field: "destination.umaAddress", constraint: "exists", message: "must be the UMA address of a receiver" }] } })
      const accounts = yield* store.internalAccounts.list(platform.id, { owner: "customer", customerId: receiver.customer.id }, { limit: 100 }).pipe(
        Effect.orDie
      )
      const wanted = req.destination.currency ?? accounts.data[0]?.currency
      const account = accounts.data.find((a) => a.currency === wanted)
      if (account === undefined || wanted === undefined) {
        return yield* badRequest("INVALID_CURRENCY", `${address} cannot receive ${wanted ?? "any currency"} yet`)
      }
      if (req.source.sourceType === "ACCOUNT" && req.source.accountId === account.id) {
        return yield* badRequest("SELF_PAYMENT", "The source and the destination are the same account")
      }
      receiving = yield* known(wanted, "destination.currency")
      destination = { kind: "UMA", umaAddress: address, internalAccountId: account.id }
    }
  }
  // A pull from an external account follows the pull table, whatever the destination.
  if (sandbox && sourceSide?.kind === "EXTERNAL") {
    const identifier = primaryIdentifier(sourceSide.account.account.accountInfo as unknown as Parameters<typeof primaryIdentifier>[0])
    const row = SandboxPayments.pullOrPayoutOutcome(identifier)
    if (row.failureReason !== undefined) {
      steps = SandboxPayments.pullOrPayoutSteps(row, "PAYOUT")
      outcome = `PULL_${row.suffix}`
    }
  }
  const resolved: Resolved = {
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
  }
  return resolved
})

/** POST /quotes; with `immediatelyExecute`, the quote is executed in the same unit of work. */
export const createQuote = (
  platform: Platform,
  req: QuoteRequest,
  options: { readonly payout: boolean } = { payout: false }
): Effect.Effect<Quote, Error400 | Error403 | Error409 | Error429, Store | Ids> =>
  // The store and the ids read from the fiber in one step (no generator around the unit of work).
  Effect.withFiber((fiber): Effect.Effect<Quote, Error400 | Error403 | Error409 | Error429, Store | Ids> => {
    if (req.immediatelyExecute === true && req.source.sourceType !== "ACCOUNT") {
      return Effect.fail(invalidInput("immediatelyExecute needs an ACCOUNT source", [{
        field: "immediatelyExecute",
        constraint: "source",
        message: "a REALTIME_FUNDING quote is executed by paying its payment instructions"
      }]))
    }
    const store = Context.getUnsafe(fiber.context, Store)
    const ids = Context.getUnsafe(fiber.context, Ids)
    // Executed at once: it moves the source account's money, in its turn (UnitOfWorkOptions).
    const turns: UnitOfWorkOptions | undefined = req.immediatelyExecute === true && req.source.sourceType === "ACCOUNT"
      ? { movesMoneyOf: platform.id, accounts: [req.source.accountId] }
      : undefined
    return store.transact((uow) =>
      Effect.gen(function*() {
        // What the checks below read (the accounts, the source's owner, balance and daily
        // volume, the configuration), asked in one round trip where the store can.
        if (req.source.sourceType === "ACCOUNT") {
          yield* store.paymentReads.readAhead(platform.id, {
            kind: "accounts",
            sourceAccountId: req.source.accountId,
            destinationAccountId: req.destination.destinationType === "ACCOUNT" ? req.destination.accountId : undefined,
            volumeSince: Limits.dailyWindowStart(yield* nowMillis)
          })
        }
        // The platform's own accounts are opened where a quote needs them (its funding
        // instructions), not on every quote: account ids come from lists, which open them.
        const r = yield* resolve(store, platform, req, options)
        const config = yield* configIn(store, platform)
        if (req.platformFeeOverride !== undefined) {
          const problems = Fees.platformFeeOverrideProblems(req.platformFeeOverride, r.sending.code)
          if (problems.length > 0) {
            return yield* invalidInput("platformFeeOverride is not valid for this quote", problems.map((p) => ({
              field: p.field,
              constraint: "platformFeeOverride",
              message: p.message
            })))
          }
        }
        const nowMs = yield* nowMillis
        const rate = Rates.rateAt(r.sending.code, r.receiving.code, nowMs)
        if (rate === undefined) {
          return yield* badRequest("QUOTE_RATE_UNAVAILABLE", `No rate for ${r.sending.code} to ${r.receiving.code} right now`)
        }
        const feeRules = feeRulesOf(config)
        const feeInput: Omit<Fees.PlatformFeeInput, "sendingAmount"> = {
          sendingCurrency: r.sending.code,
          crossCurrency: r.sending.code !== r.receiving.code,
          rail: r.rail,
          feeConfigs: feeRules.feeConfigs,
          railFeeConfigs: feeRules.railFeeConfigs,
          override: req.platformFeeOverride
        }
        const priced = QuoteMath.priceQuote({
          lockedSide: req.lockedCurrencySide,
          lockedAmount: req.lockedCurrencyAmount,
          sending: r.sending,
          receiving: r.receiving,
          rate: rate.rate,
          fee: Fees.quoteFee(feeInput)
        })
        if (!priced.ok) return yield* rejected(priced.error)
        const p = priced.value
        const platformFee = Fees.platformFeeOn(feeInput, p.amountConverted)
        const serviceFee = Math.max(0, p.feesIncluded - platformFee)
        yield* checkLimits(platform, config, {
          customerId: r.customerId,
          sending: r.sending.code,
          receiving: r.receiving.code,
          amount: p.totalSendingAmount,
          receivingAmount: p.totalReceivingAmount,
          rail: r.rail
        }, store)
        if (r.externalDestination !== undefined) yield* checkDestinationAccount(r.externalDestination, p.totalReceivingAmount, r.receiving.code)
        if (r.source.kind === "INTERNAL") {
          const balance = yield* balanceIn(store, platform.id, r.source.accountId)
          if (balance < p.totalSendingAmount) return yield* insufficient(r.source.accountId, balance, p.totalSendingAmount)
        }
        const id = yield* ids.make("Quote")
        const transactionId = yield* ids.make("Transaction")
        const now = isoOf(nowMs)
        // Only an embedded wallet's quote carries instructions (what the wallet signs); the
        // source account was read by `resolve`, in this unit of work.
        const instructions = r.source.kind === "REALTIME"
          ? yield* realtimeInstructions(uow, platform, r.sending.code)
          : r.sourceIsWallet
          ? yield* walletPaymentInstructions(platform, { accountId: r.source.accountId, quoteId: id, amount: p.totalSendingAmount, currency: r.sending.code, nowMs })
          : undefined
        if (instructions !== undefined && r.source.kind !== "REALTIME" && req.immediatelyExecute === true) {
          return yield* invalidInput("A quote from an embedded wallet is executed with a Service-Wallet-Signature over its payloadToSign", [{
            field: "immediatelyExecute",
            constraint: "source",
            message: "must not be true for an EMBEDDED_WALLET source"
          }])
        }
        // The optional fields assigned in the order the literal spread them (the same keys
        // in the same order, outgoingTransactionOf below says why); the cast covers only
        // the required fields assigned on the next lines.
        const plan = { customerId: r.customerId } as Types.Mutable<QuotePlan>
        if (r.platformCustomerId !== undefined) plan.platformCustomerId = r.platformCustomerId
        plan.source = r.source
        plan.destination = r.destination
        if (r.rail !== undefined) plan.rail = r.rail
        if (r.railSelectionMode !== undefined) plan.railSelectionMode = r.railSelectionMode
        plan.platformFee = platformFee
        plan.serviceFee = serviceFee
        if (req.remittanceInformation !== undefined) plan.remittanceInformation = req.remittanceInformation
        if (req.purposeOfPayment !== undefined) plan.purposeOfPayment = req.purposeOfPayment
        if (req.description !== undefined) plan.description = req.description
        plan.outcome = r.outcome
        plan.steps = r.steps.map((s) => ({ afterMillis: s.afterMillis, move: s.move }))
        const quote: Quote = {
          id,
          status: "PENDING",
          createdAt: now,
          expiresAt: isoOf(nowMs + QUOTE_TTL_MILLIS),
          source: req.source,
          destination: req.destination,
          sendingCurrency: r.sending,
          receivingCurrency: r.receiving,
          totalSendingAmount: p.totalSendingAmount,
          totalReceivingAmount: p.totalReceivingAmount,
          exchangeRate: Rates.apiExchangeRate(rate.rate),
          feesIncluded: p.feesIncluded,
          platformFeesIncluded: platformFee,
          ...(instructions === undefined ? {} : { paymentInstructions: instructions }),
          transactionId
        }
        const record: QuoteRecord = { platformId: platform.id, quote, plan }
        yield* uow.putQuote(record)
        if (req.immediatelyExecute === true) return yield* executeIn(uow, platform, record, req.scaFactor)
        rememberQuoteAccounts(record)
        return quote
      }), turns)
  })

/** Where a real-time-funded quote's money is sent: the platform's own account in that currency. */
const realtimeInstructions = Effect.fnUntraced(function*(uow: UnitOfWork, platform: Platform, currency: string) {
  const accounts = yield* openAccounts(uow, platform, null)
  const account = accounts.find((a) => a.currency === currency)
  return account === undefined ? [] : fundingInstructionsOf(account)
})

// ---------------------------------------------------------------- read

const withExpiry = (q: Quote, nowMs: number): Quote =>
  q.status === "PENDING" && Date.parse(q.expiresAt) <= nowMs ? { ...q, status: "EXPIRED" } : q

export const quoteRecordOf = (platform: Platform, id: string): Effect.Effect<QuoteRecord, Error404, Store> =>
  Store.use((store) => quoteRecordIn(store, platform, id))

/** `quoteRecordOf` with the store at hand (no step to read it). */
const quoteRecordIn = (store: Store["Service"], platform: Platform, id: string): Effect.Effect<QuoteRecord, Error404> =>
  Effect.flatMap(store.quotes.get(platform.id, id), (rec) =>
    rec === undefined ? Effect.fail(notFound(`Quote ${id} not found`, "QUOTE_NOT_FOUND")) : Effect.succeed(rec))

/** GET /quotes/{quoteId}: a quote past its expiry that was never executed reads EXPIRED. */
export const getQuote = Effect.fnUntraced(function*(platform: Platform, id: string) {
  const rec = yield* quoteRecordOf(platform, id)
  return withExpiry(rec.quote, yield* nowMillis)
})

// ---------------------------------------------------------------- turns

/**
 * The internal accounts a quote's execution moves, kept from the quote's creation in this
 * process to its execution (a quote's accounts never change), so that the execution
 * names them before its unit of work starts (`UnitOfWorkOptions.accounts`: payments that
 * share no account run side by side, those that share one take turns) without a read
 * first. A hint only: a quote made by another process, or forgotten, is read first; a
 * wrong hint costs a rerun at most, never a wrong answer (the unit of work is
 * serializable). At most 10,000 quotes, the oldest forgotten first.
 */
const quoteAccounts = new BoundedMemo<string, { readonly platformId: string; readonly accounts: ReadonlyArray<string> }>(10_000)
const accountsOfQuote = (rec: QuoteRecord): ReadonlyArray<string> => {
  const { creditAccount, debitAccount } = ledgerAccountsOf(rec.quote, rec.plan)
  return internalAccountsOf(debitAccount, creditAccount)
}

// Keyed by the quote's id alone, its platform checked on a hit (no key string built per
// quote): two platforms' quotes with one id (deterministic ids) only cost a read.
const rememberQuoteAccounts = (rec: QuoteRecord): void => {
  quoteAccounts.set(rec.quote.id, { platformId: rec.platformId, accounts: accountsOfQuote(rec) })
}

/** The turns of a quote this process remembers (its entry then forgotten: a quote executes once), else undefined. */
const knownTurnsOfQuote = (platform: Platform, quoteId: string): UnitOfWorkOptions | undefined => {
  const known = quoteAccounts.get(quoteId)
  if (known === undefined || known.platformId !== platform.id) return undefined
  quoteAccounts.delete(quoteId)
  return { movesMoneyOf: platform.id, accounts: known.accounts }
}

/** The options of a unit of work executing or funding quote `quoteId`: its accounts' turns. */
export const turnsOfQuote = (platform: Platform, quoteId: string): Effect.Effect<UnitOfWorkOptions, never, Store> => {
  const known = knownTurnsOfQuote(platform, quoteId)
  if (known !== undefined) return Effect.succeed(known)
  return Store.use((store) =>
    Effect.map(store.quotes.get(platform.id, quoteId), (rec): UnitOfWorkOptions =>
      rec === undefined ? { movesMoneyOf: platform.id } : { movesMoneyOf: platform.id, accounts: accountsOfQuote(rec) }))
}

// ---------------------------------------------------------------- execute

/** POST /quotes/{quoteId}/execute (under an Idempotency-Key: the same result, one debit). */
export const executeQuote = (platform: Platform, quoteId: string, walletSignature?: string, scaFactor?: ScaFactor) =>
  Store.use((store) => {
    // The turns of a quote made in this process are known: no step to ask for them.
    const known = knownTurnsOfQuote(platform, quoteId)
    return known !== undefined ? executeWith(store, platform, quoteId, known, walletSignature, scaFactor) : Effect.flatMap(
      turnsOfQuote(platform, quoteId),
      (turns) => executeWith(store, platform, quoteId, turns, walletSignature, scaFactor)
    )
  })

const executeWith = (
  store: Store["Service"],
  platform: Platform,
  quoteId: string,
  turns: UnitOfWorkOptions,
  walletSignature: string | undefined,
  scaFactor: ScaFactor | undefined
) =>
  store.transact((uow) =>
    Effect.gen(function*() {
      // The quote and what its execution reads (its customer, accounts, balances, daily
      // volume, the configuration), asked in one round trip where the store can.
      yield* store.paymentReads.readAhead(platform.id, {
        kind: "quote",
        quoteId,
        volumeSince: Limits.dailyWindowStart(yield* nowMillis)
      })
      const rec = yield* quoteRecordIn(store, platform, quoteId)
      // An embedded-wallet source: a session of the wallet signs the quote's payloadToSign.
      // Every quote from a wallet carries instructions (createQuote gives them; no other
      // source's quote has any), so a quote without them needs no read of its source.
      if (rec.quote.status === "PENDING" && rec.quote.paymentInstructions !== undefined) {
        yield* checkWalletSignature(platform, rec.quote, walletSignature)
      }
      return yield* executeIn(uow, platform, rec, scaFactor)
    }), turns)

const destinationOf = (q: Quote, plan: QuotePlan): TransactionDestination =>
  plan.destination.kind === "UMA"
    ? { destinationType: "UMA_ADDRESS", umaAddress: plan.destination.umaAddress, currency: q.receivingCurrency.code }
    : { destinationType: "ACCOUNT", accountId: plan.destination.accountId, currency: q.receivingCurrency.code }

const sourceOf = (q: Quote, plan: QuotePlan): TransactionSource =>
  plan.source.kind === "REALTIME"
    ? { sourceType: "REALTIME_FUNDING", currency: q.sendingCurrency.code, ...(plan.customerId === null ? {} : { customerId: plan.customerId }) }
    : { sourceType: "ACCOUNT", accountId: plan.source.accountId, currency: q.sendingCurrency.code }

/** The accounts a quote's payment debits and credits (the world's, for money from or to outside). */
const ledgerAccountsOf = (q: Quote, plan: QuotePlan): { readonly debitAccount: string; readonly creditAccount: string } => ({
  debitAccount: plan.source.kind === "INTERNAL" ? plan.source.accountId : worldAccount(q.sendingCurrency.code),
  creditAccount: plan.destination.kind === "INTERNAL"
    ? plan.destination.accountId
    : plan.destination.kind === "UMA" && plan.destination.internalAccountId !== undefined
    ? plan.destination.internalAccountId
    : worldAccount(q.receivingCurrency.code)
})

/** Of a quote's payment's two accounts, the internal ones (the ones with a balance). */
const internalAccountsOf = (debitAccount: string, creditAccount: string): ReadonlyArray<string> => {
  const debit = debitAccount.startsWith("InternalAccount:")
  const credit = creditAccount.startsWith("InternalAccount:")
  return debit && credit ? [debitAccount, creditAccount] : debit ? [debitAccount] : credit ? [creditAccount] : []
}

/** The ledger plan of a quote's payment. */
export const paymentPlanOf = (q: Quote, plan: QuotePlan, steps: ReadonlyArray<PaymentStepRecord>): PaymentPlan => {
  const sending = q.sendingCurrency.code
  const receiving = q.receivingCurrency.code
  const { creditAccount, debitAccount } = ledgerAccountsOf(q, plan)
  const payment: PaymentPlan = {
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
  }
  return plan.source.kind === "EXTERNAL" ? { ...payment, pull: true } : payment
}

/**
 * Executes a quote inside `uow`: checks it can still run, debits the source into
 * money in flight, creates the payment and applies the sandbox steps due at once.
 */
export const executeIn = Effect.fnUntraced(function*(
  uow: UnitOfWork,
  platform: Platform,
  rec: QuoteRecord,
  scaFactor?: ScaFactor,
  /** Held PENDING for the platform's approval (an agent's payment its policy sends for approval; docs/agents.md). */
  holdForApproval?: boolean
) {
  const nowMs = yield* nowMillis
  const q = rec.quote
  if (q.status !== "PENDING") {
    return yield* conflict("CONFLICT", `Quote ${q.id} was already executed (status ${q.status}); create a new quote`)
  }
  if (Date.parse(q.expiresAt) <= nowMs) {
    yield* uow.putQuote({ ...rec, quote: { ...q, status: "EXPIRED" } })
    return yield* badRequest("QUOTE_EXPIRED", `Quote ${q.id} expired at ${q.expiresAt}; request a new quote`)
  }
  if (rec.plan.source.kind === "REALTIME") {
    return yield* badRequest("INVALID_INPUT", "A REALTIME_FUNDING quote is executed by paying its paymentInstructions (POST /sandbox/send in the sandbox)")
  }
  // A customer whose provider mandates SCA authorizes the transfer first (docs/sca.md).
  const scaCustomer = yield* scaCustomerOf(platform, rec.plan.customerId)
  if (scaCustomer !== undefined) return yield* holdForAuthorization(uow, platform, rec, nowMs, scaCustomer, scaFactor ?? "SMS_OTP")
  return yield* startPayment(uow, platform, rec, nowMs, undefined, holdForApproval)
})

/** The quote's customer, when it is in an SCA region (the platform's own money never is). */
const scaCustomerOf = (platform: Platform, customerId: string | null): Effect.Effect<CustomerRecord | undefined, never, Store> =>
  customerId === null ? Effect.undefined : Store.use((store) =>
    Effect.map(store.customers.get(platform.id, customerId), (customer) =>
      customer !== undefined && requiresSca(customer.customer.region) ? customer : undefined))

/**
 * Execution for an SCA-region customer: nothing moves yet. The payment is created in
 * PENDING_AUTHORIZATION (OUTGOING_PAYMENT.PENDING_AUTHORIZATION), the quote carries an
 * `scaChallenge` (SMS_OTP, or PASSKEY when asked for and enrolled; TOTP is refused), after
 * balance and limits are checked, and a scheduled move fails the payment with SCA_NOT_COMPLETED
 * when the challenge expires unanswered. POST /quotes/{quoteId}/authorize releases it.
 */
const holdForAuthorization = Effect.fnUntraced(function*(
  uow: UnitOfWork,
  platform: Platform,
  rec: QuoteRecord,
  nowMs: number,
  customer: CustomerRecord,
  factor: ScaFactor
) {
  const ids = yield* Ids
  const q = rec.quote
  const passkey = customer.sca?.passkey
  if (factor === "TOTP") {
    return yield* invalidInput("TOTP cannot authorize a transfer (it carries no dynamic linking): use SMS_OTP or PASSKEY", [{
      field: "scaFactor",
      constraint: "enum",
      message: "must be SMS_OTP or PASSKEY for a per-transaction challenge"
    }])
  }
  if (factor === "PASSKEY" && passkey === undefined) {
    return yield* invalidInput("The customer has no passkey enrolled (POST /sca/factors): use SMS_OTP", [{
      field: "scaFactor",
      constraint: "enrolled",
      message: "PASSKEY needs an enrolled passkey"
    }])
  }
  // What would refuse the transfer now refuses it before the customer is asked to authorize.
  if (rec.plan.source.kind === "INTERNAL") {
    const balance = yield* balanceOf(platform.id, rec.plan.source.accountId)
    if (balance < q.totalSendingAmount) return yield* insufficient(rec.plan.source.accountId, balance, q.totalSendingAmount)
  }
  yield* checkLimits(platform, yield* configOf(platform), {
    customerId: rec.plan.customerId,
    sending: q.sendingCurrency.code,
    receiving: q.receivingCurrency.code,
    amount: q.totalSendingAmount,
    receivingAmount: q.totalReceivingAmount,
    rail: rec.plan.rail
  })
  const expiresAt = nowMs + AUTHORIZATION_TTL_MS
  const code = factor === "SMS_OTP" ? (yield* issueCode(platform, nowMs, AUTHORIZATION_TTL_MS)).challenge : undefined
  const webauthnChallenge = factor === "PASSKEY" ? toBase64Url(yield* randomBytes(32)) : undefined
  const challengeId = `ScaChallenge:${yield* ids.uuid}`
  const rp = platform.embeddedWallets ?? DEFAULT_EMBEDDED_WALLETS
  const transaction = outgoingTransactionOf(q, rec.plan, nowMs, "PENDING_AUTHORIZATION", undefined)
  const payment = paymentPlanOf(q, rec.plan, [{ at: expiresAt, move: { type: "FAIL", failureReason: "SCA_NOT_COMPLETED" } }])
  const record = { platformId: platform.id, transaction, plan: payment }
  yield* uow.putTransaction(record)
  yield* emit(uow, platform, "OUTGOING_PAYMENT.PENDING_AUTHORIZATION", { timestamp: isoOf(nowMs), data: transaction })
  const quote: Quote = {
    ...q,
    status: "PENDING_AUTHORIZATION",
    scaChallenge: {
      id: challengeId,
      expiresAt: isoOf(expiresAt),
      factor,
      availableFactors: passkey === undefined ? ["SMS_OTP"] : ["SMS_OTP", "PASSKEY"],
      purpose: "TRANSFER",
      ...(webauthnChallenge === undefined ? {} : {
        passkeyAssertionOptions: {
          challenge: webauthnChallenge,
          rpId: rp.rpId,
          allowCredentials: [{ type: "public-key", id: passkey?.credentialId ?? "" }],
          timeout: AUTHORIZATION_TTL_MS,
          userVerification: "preferred"
        }
      })
    }
  }
  yield* uow.putQuote({
    ...rec,
    quote,
    authorization: { id: challengeId, factor, code, webauthnChallenge, expiresAt, wrongCodes: 0, sends: factor === "SMS_OTP" ? [nowMs] : [] }
  })
  // The expiry is the payment's scheduled move (the scheduler applies it on the platform clock).
  yield* runDueSteps(uow, platform, record, { fresh: true })
  return quote
})

/** The payment of a quote as first shown: PENDING, or PENDING_AUTHORIZATION while held for SCA. */
const outgoingTransactionOf = (
  q: Quote,
  plan: QuotePlan,
  nowMs: number,
  status: "PENDING" | "PENDING_AUTHORIZATION",
  settlement: number | undefined
): OutgoingTransaction => {
  const now = isoOf(nowMs)
  // The optional fields are assigned in the order the literal spread them (the same keys
  // in the same order): each spread but a literal's first is a runtime call in V8, seven
  // per payment here. The required fields after the first optional one are assigned too,
  // in order, so the cast below only ever covers this function's next lines.
  const t = {
    id: q.transactionId,
    type: "OUTGOING",
    // Money into the customer's own internal account from outside it (a pull) credits it.
    direction: plan.destination.kind === "INTERNAL" && plan.source.kind !== "INTERNAL" ? "CREDIT" : "DEBIT",
    status,
    source: sourceOf(q, plan),
    destination: destinationOf(q, plan)
  } as Types.Mutable<OutgoingTransaction>
  if (plan.customerId !== null) t.customerId = plan.customerId
  if (plan.platformCustomerId !== undefined) t.platformCustomerId = plan.platformCustomerId
  t.sentAmount = { amount: q.totalSendingAmount, currency: q.sendingCurrency }
  t.receivedAmount = { amount: q.totalReceivingAmount, currency: q.receivingCurrency }
  t.exchangeRate = q.exchangeRate
  t.fees = q.feesIncluded
  t.platformFees = plan.platformFee
  t.quoteId = q.id
  if (plan.description !== undefined) t.description = plan.description
  const colon = q.transactionId.indexOf(":")
  t.reconciliationInstructions = { reference: `REF-${q.transactionId.slice(colon + 1, colon + 9).toUpperCase()}` }
  if (plan.rail !== undefined) t.paymentRail = plan.rail as PaymentRail
  if (plan.railSelectionMode !== undefined) t.railSelectionMode = plan.railSelectionMode
  if (settlement !== undefined) t.expectedSettlementAt = isoOf(Math.max(settlement, nowMs))
  // The sandbox's long-pending counterparty holds the payment for compliance review.
  if (plan.outcome === "UMA_pending.long.usd") t.pendingReason = "COMPLIANCE_REVIEW"
  t.createdAt = now
  t.updatedAt = now
  return t
}

/**
 * Creates the payment of a quote whose money is available now, and runs its first steps.
 * `createdAt`: when the payment was created already (held for SCA authorization).
 */
export const startPayment = Effect.fnUntraced(function*(
  uow: UnitOfWork,
  platform: Platform,
  rec: QuoteRecord,
  nowMs: number,
  createdAt?: string,
  holdForApproval?: boolean
) {
  const store = yield* Store
  const q = rec.quote
  const plan = rec.plan
  const config = yield* configIn(store, platform)
  // What may have changed since the quote: balances, limits, the destination.
  if (plan.source.kind === "INTERNAL") {
    const balance = yield* balanceIn(store, platform.id, plan.source.accountId)
    if (balance < q.totalSendingAmount) return yield* insufficient(plan.source.accountId, balance, q.totalSendingAmount)
  }
  yield* checkLimits(platform, config, {
    customerId: plan.customerId,
    sending: q.sendingCurrency.code,
    receiving: q.receivingCurrency.code,
    amount: q.totalSendingAmount,
    receivingAmount: q.totalReceivingAmount,
    rail: plan.rail,
    createdAtMillis: createdAt === undefined ? undefined : Date.parse(createdAt)
  }, store)
  let onChainNetwork: string | undefined
  if (plan.destination.kind === "EXTERNAL") {
    const dest = yield* store.externalAccounts.get(platform.id, plan.destination.accountId)
    if (dest === undefined) return yield* badRequest("INVALID_INPUT", `The quote cannot be executed: its destination account ${plan.destination.accountId} no longer exists`)
    yield* checkDestinationAccount(dest, q.totalReceivingAmount, q.receivingCurrency.code)
    onChainNetwork = WALLET_NETWORKS[dest.account.accountInfo.accountType]
  }
  const now = isoOf(nowMs)
  const steps = (plan.steps ?? []).map((s) => ({ at: nowMs + s.afterMillis, move: s.move }))
  const settlement = plan.rail === undefined ? undefined : Rails.settlementAt(plan.rail as Rails.PaymentRail, nowMs, platform.settings.sandbox)
  // A rail that settles later (ACH: next business day) holds a sandbox success until then,
  // and what follows the completion (a return) moves with it. A payment held for the
  // platform's approval keeps its steps as they are: the approval starts them and holds
  // them to the settlement seen from then (decideHeldPayment, transactions.ts).
  const timed = holdForApproval === true ? steps : Rails.holdUntilSettlement(steps, settlement)
  // Copied only when something is added (a held payment's creation, a wallet payout, a UMA payment).
  const shown = outgoingTransactionOf(q, plan, nowMs, "PENDING", settlement)
  const transaction: OutgoingTransaction = createdAt === undefined ? shown : { ...shown, createdAt }
  const planned = paymentPlanOf(q, plan, timed)
  const payment: PaymentPlan = onChainNetwork === undefined && plan.destination.kind !== "UMA" ? planned : {
    ...planned,
    ...(onChainNetwork === undefined ? {} : { onChainNetwork }),
    ...(plan.destination.kind === "UMA" ? { umaSettlement: true } : {})
  }
  // Written once, after the moves below (nothing in between reads it; a refusal in
  // between fails the whole unit of work).
  const record = { platformId: platform.id, transaction, plan: payment }
  // The moves below keep the quote's status in the scope, written once at the end, and
  // read each internal account once.
  const scope = paymentScope(rec)
  // PROCESS: the debit moves the source's money into flight.
  yield* postMove(uow, platform.id, transaction.id, payment, "DEBIT", now).pipe(
    Effect.catchTag("LedgerRejected", () => insufficient(payment.debit.account, 0, payment.debit.amount))
  )
  yield* announceBalances(uow, platform, payment, ["DEBIT"], now, scope)
  // `payment` has no money moved yet (paymentPlanOf's "NONE"): the record as it is.
  const processed = yield* movePayment(uow, platform, record, {
    type: "PROCESS",
    ...(holdForApproval === true ? { awaitingPlatformApproval: true } : {})
  }, scope)
  // A payment held for approval is debited (its money in flight) but takes no sandbox
  // step until approved: POST /transactions/{id}/approve starts its steps from then on.
  // A payment created here has no timer yet (one held for SCA had its expiry's: not fresh).
  // Either way the payment is written once, as the last move left it.
  if (holdForApproval === true) yield* uow.putTransaction(processed)
  else yield* runDueSteps(uow, platform, processed, { scope, fresh: createdAt === undefined })
  const after = yield* flushQuote(uow, scope)
  return after?.quote ?? q
})

export { PAYMENT_TIMER }
export type { Machine }
